//===- KernelAttrs.cpp - typed access to kernel attributes ----------------===//
//
// The getters of KernelDesc (declared in Plan.h). They live apart from
// Plan.cpp because kernels, not the plan reader, are their users.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"

using namespace mp::rt;

/// Returns the attribute `name` when present and of `kind`.
static const Attr *findAttr(const KernelDesc &kernel, const std::string &name,
                            Attr::Kind kind) {
  auto it = kernel.attrs.find(name);
  if (it == kernel.attrs.end() || it->second.kind != kind)
    return nullptr;
  return &it->second;
}

int64_t KernelDesc::getInt(const std::string &name, int64_t fallback) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::Ints);
  return attr && !attr->ints.empty() ? attr->ints[0] : fallback;
}

double KernelDesc::getFloat(const std::string &name, double fallback) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::Floats);
  return attr && !attr->floats.empty() ? attr->floats[0] : fallback;
}

bool KernelDesc::getFlag(const std::string &name) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::Ints);
  return attr && !attr->ints.empty() && attr->ints[0] != 0;
}

const std::vector<int64_t> *KernelDesc::getInts(const std::string &name) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::Ints);
  return attr ? &attr->ints : nullptr;
}

const std::string *KernelDesc::getString(const std::string &name) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::String);
  return attr ? &attr->str : nullptr;
}
