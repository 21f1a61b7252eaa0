//===- KernelAttrs.cpp - typed access to kernel attributes ----------------===//
//
// The getters of KernelDesc (declared in Plan.h): the kernel's attribute,
// else the default its op's ODS gives (OpTable.h), else the caller's
// fallback. They live apart from Plan.cpp because kernels, not the plan
// reader, are their users.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"

using namespace mp::rt;

/// Returns the attribute `name` when present and of `kind`.
static const Attr *findAttr(const KernelDesc &kernel, AttrName name,
                            Attr::Kind kind) {
  // Short names: the key fits std::string's inline buffer, no allocation.
  auto it = kernel.attrs.find(attrName(name));
  if (it == kernel.attrs.end() || it->second.kind != kind)
    return nullptr;
  return &it->second;
}

/// The ODS default of `name` when the kernel lacks the attribute.
static const AttrSchema *defaultOf(const KernelDesc &kernel, AttrName name) {
  if (kernel.attrs.count(attrName(name)))
    return nullptr;
  const AttrSchema *schema = findAttrSchema(kernel.opId(), name);
  return schema && schema->hasDefault ? schema : nullptr;
}

int64_t KernelDesc::getInt(AttrName name, int64_t fallback) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::Ints);
  if (attr && !attr->ints.empty())
    return attr->ints[0];
  const AttrSchema *schema = defaultOf(*this, name);
  return schema && (schema->kind == AttrKind::Int ||
                    schema->kind == AttrKind::Flag)
             ? schema->defaultInt
             : fallback;
}

double KernelDesc::getFloat(AttrName name, double fallback) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::Floats);
  if (attr && !attr->floats.empty())
    return attr->floats[0];
  const AttrSchema *schema = defaultOf(*this, name);
  return schema && schema->kind == AttrKind::Float ? schema->defaultFloat
                                                   : fallback;
}

bool KernelDesc::getFlag(AttrName name) const { return getInt(name, 0) != 0; }

bool KernelDesc::has(AttrName name) const {
  return attrs.count(attrName(name)) != 0;
}

const std::vector<int64_t> *KernelDesc::getInts(AttrName name) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::Ints);
  if (attr)
    return &attr->ints;
  const AttrSchema *schema = defaultOf(*this, name);
  if (!schema || schema->kind != AttrKind::Ints)
    return nullptr;
  // One vector per default, made once: the caller keeps a pointer.
  static thread_local std::map<const AttrSchema *, std::vector<int64_t>> made;
  auto [it, fresh] = made.try_emplace(schema);
  if (fresh)
    it->second.assign(schema->defaultInts,
                      schema->defaultInts + schema->numDefaultInts);
  return &it->second;
}

const std::string *KernelDesc::getString(AttrName name) const {
  const Attr *attr = findAttr(*this, name, Attr::Kind::String);
  if (attr)
    return &attr->str;
  const AttrSchema *schema = defaultOf(*this, name);
  if (!schema || schema->kind != AttrKind::String || !schema->defaultString)
    return nullptr;
  static thread_local std::map<const AttrSchema *, std::string> made;
  auto [it, fresh] = made.try_emplace(schema, schema->defaultString);
  return &it->second;
}
