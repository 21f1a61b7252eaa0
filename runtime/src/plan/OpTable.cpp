//===- OpTable.cpp - op ids, schemas and the kernel checks they give ------===//
//
// The generated op table (OpTable.h) names every op once; this file looks
// names up and checks a kernel against its op's schema: the op exists and
// is one plans run, the operand and result counts, every attribute known,
// of its kind, required ones present, enums spelled as one of their cases.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Plan.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

using namespace mp::rt;

OpId mp::rt::findOp(std::string_view name) {
  static const std::unordered_map<std::string_view, OpId> byName = [] {
    std::unordered_map<std::string_view, OpId> map;
    for (size_t i = 0; i < kNumOps; ++i)
      map.emplace(kOpSchemas[i].name, static_cast<OpId>(i));
    return map;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? OpId::Unknown : it->second;
}

const OpSchema &mp::rt::opSchema(OpId id) {
  return kOpSchemas[static_cast<size_t>(id)];
}

const char *mp::rt::opName(OpId id) {
  return id == OpId::Unknown ? "<unknown op>" : opSchema(id).name;
}

const AttrSchema *mp::rt::findAttrSchema(OpId id, std::string_view name) {
  // kAttrNames is in name order: the name's AttrName, if it is one.
  const char *const *begin = kAttrNames, *const *end = kAttrNames + kNumAttrNames;
  const char *const *at = std::lower_bound(
      begin, end, name,
      [](const char *a, std::string_view b) { return std::string_view(a) < b; });
  if (at == end || name != *at)
    return nullptr;
  return findAttrSchema(id, static_cast<AttrName>(at - begin));
}

const AttrSchema *mp::rt::findAttrSchema(OpId id, AttrName name) {
  if (id == OpId::Unknown)
    return nullptr;
  const OpSchema &op = opSchema(id);
  for (size_t i = op.firstAttr; i < op.firstAttr + op.numAttrs; ++i)
    if (kAttrSchemas[i].id == name)
      return &kAttrSchemas[i];
  return nullptr;
}

const char *mp::rt::attrName(AttrName name) {
  return kAttrNames[static_cast<size_t>(name)];
}

bool mp::rt::isKernelOp(OpId id) {
  if (id == OpId::Unknown)
    return false;
  const OpSchema &op = opSchema(id);
  for (size_t i = op.firstAttr; i < op.firstAttr + op.numAttrs; ++i)
    if (kAttrSchemas[i].kind == AttrKind::Elements)
      return false;
  return true;
}

static const char *kindName(AttrKind kind) {
  switch (kind) {
  case AttrKind::Flag:
    return "a flag";
  case AttrKind::Int:
    return "an integer";
  case AttrKind::Ints:
    return "an integer array";
  case AttrKind::Float:
    return "a float";
  case AttrKind::String:
    return "a string";
  case AttrKind::Elements:
    return "dense elements";
  }
  return "?";
}

/// Whether `attr` has the form the schema's kind takes in a plan.
static bool hasForm(const Attr &attr, AttrKind kind) {
  switch (kind) {
  case AttrKind::Flag:
  case AttrKind::Int:
    return attr.kind == Attr::Kind::Ints && attr.ints.size() == 1;
  case AttrKind::Ints:
    return attr.kind == Attr::Kind::Ints;
  case AttrKind::Float:
    return attr.kind == Attr::Kind::Floats && attr.floats.size() == 1;
  case AttrKind::String:
    return attr.kind == Attr::Kind::String;
  case AttrKind::Elements:
    return false;
  }
  return false;
}

static std::string countText(int min, int max, bool variadic) {
  if (variadic)
    return "at least " + std::to_string(min);
  if (min == max)
    return std::to_string(min);
  return std::to_string(min) + " to " + std::to_string(max);
}

Status mp::rt::checkKernelSchema(const KernelDesc &kernel) {
  OpId id = findOp(kernel.op);
  if (id == OpId::Unknown)
    return invalidArgument("'" + kernel.op +
                           "' is not an op of this runtime (a plan from a "
                           "newer mp, or a mistyped name: recompile it)");
  if (kernel.id != OpId::Unknown && kernel.id != id)
    return invalidArgument("'" + kernel.op + "' carries the id of '" +
                           opName(kernel.id) + "'");
  const OpSchema &op = opSchema(id);
  if (!isKernelOp(id))
    return invalidArgument("'" + kernel.op +
                           "' is a constant, which a plan holds as a "
                           "constant tensor, not as a kernel");
  // "'train.add' takes 2 operands; the kernel has 3".
  auto checkCount = [&](size_t n, int min, int max, bool variadic,
                        const char *verb, const char *what) {
    if (n >= static_cast<size_t>(min) &&
        (variadic || n <= static_cast<size_t>(max)))
      return Status::ok();
    return invalidArgument("'" + kernel.op + "' " + verb + " " +
                           countText(min, max, variadic) + " " + what +
                           "; the kernel has " + std::to_string(n));
  };
  MP_RETURN_IF_ERROR(checkCount(kernel.inputs.size(), op.minInputs,
                                op.maxInputs, op.variadicInputs, "takes",
                                "operands"));
  MP_RETURN_IF_ERROR(checkCount(kernel.outputs.size(), op.minOutputs,
                                op.maxOutputs, op.variadicOutputs, "has",
                                "results"));
  for (const auto &[name, attr] : kernel.attrs) {
    const AttrSchema *schema = findAttrSchema(id, name);
    if (!schema)
      return invalidArgument("'" + kernel.op + "' has no attribute '" + name +
                             "'");
    if (!hasForm(attr, schema->kind))
      return invalidArgument("'" + kernel.op + "': attribute '" + name +
                             "' must be " + kindName(schema->kind));
    if (schema->enumCases) {
      bool known = false;
      for (size_t c = 0; c < schema->numEnumCases; ++c)
        known |= attr.str == schema->enumCases[c];
      if (!known)
        return invalidArgument("'" + kernel.op + "': attribute '" + name +
                               "' is '" + attr.str +
                               "', not one of its enum's cases");
    }
  }
  for (size_t i = op.firstAttr; i < op.firstAttr + op.numAttrs; ++i)
    if (kAttrSchemas[i].required && !kernel.attrs.count(kAttrSchemas[i].name))
      return invalidArgument("'" + kernel.op + "' needs attribute '" +
                             kAttrSchemas[i].name + "'");
  return Status::ok();
}

void mp::rt::resolveOpIds(Plan &plan) {
  for (KernelDesc &kernel : plan.kernels)
    kernel.id = findOp(kernel.op);
}

OpId KernelDesc::opId() const {
  return id != OpId::Unknown ? id : findOp(op);
}
