//===- PrecisionPolicy.cpp - what a mixed-precision policy decides --------===//
#include "mp/Analysis/PrecisionPolicy.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mp;

std::optional<PrecisionTarget>
PrecisionPolicy::parseTarget(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<PrecisionTarget>>(name)
      .Case("cpu", PrecisionTarget::CPU)
      .Case("cuda", PrecisionTarget::CUDA)
      .Default(std::nullopt);
}

Type PrecisionPolicy::getComputeType(MLIRContext *context) const {
  switch (kind) {
  case PolicyKind::Float32:
    return {};
  case PolicyKind::MixedBFloat16:
    return BFloat16Type::get(context);
  case PolicyKind::MixedFloat16:
    return Float16Type::get(context);
  }
  llvm_unreachable("unknown policy");
}

/// The target-specific default for `name`, where it differs from the op's
/// own category: TensorFlow's oneDNN lists leave Erf out of infer.
static bool isUnlistedOnTarget(PrecisionTarget target, llvm::StringRef name) {
  return target == PrecisionTarget::CPU && name == train::ErfOp::getOperationName();
}

/// The category ops named `name` have before any user edit, or none. The
/// interface answers per instance; mp's models never look at operands, so a
/// bare instance of the op answers for its name.
static std::optional<PrecisionCategory>
registeredDefault(MLIRContext *context, PrecisionTarget target,
                  RegisteredOperationName name) {
  if (isUnlistedOnTarget(target, name.getStringRef()))
    return std::nullopt;
  if (!name.hasInterface<PrecisionOpInterface>())
    return PrecisionCategory::Deny;
  OperationState state(UnknownLoc::get(context), name);
  Operation *probe = Operation::create(state);
  PrecisionCategory category =
      cast<PrecisionOpInterface>(probe).getPrecisionCategory();
  probe->destroy();
  return category;
}

/// The registered op name closest to `name`, for "did you mean".
static std::string closestOpName(MLIRContext *context, llvm::StringRef name) {
  std::string best;
  unsigned bestDistance = 4; // suggest only close names
  for (RegisteredOperationName op : context->getRegisteredOperations()) {
    unsigned d = name.edit_distance(op.getStringRef(), true, bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = op.getStringRef().str();
    }
  }
  return best;
}

llvm::Error PrecisionPolicy::applyEdits(MLIRContext *context,
                                        llvm::ArrayRef<ListEdit> edits) {
  for (const ListEdit &edit : edits) {
    llvm::StringRef listName = stringifyPrecisionCategory(edit.category);
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(edit.opName, context);
    if (!op) {
      std::string hint = closestOpName(context, edit.opName);
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: unknown op name '%s' in the %s list%s%s%s", edit.origin.c_str(),
          edit.opName.c_str(), listName.str().c_str(),
          hint.empty() ? "" : " (did you mean '", hint.c_str(),
          hint.empty() ? "" : "'?)");
    }
    if (edit.add) {
      auto [it, inserted] = added.try_emplace(edit.opName, edit.category);
      if (!inserted && it->second != edit.category)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "%s: op '%s' is added to both the %s and the %s list",
            edit.origin.c_str(), edit.opName.c_str(),
            stringifyPrecisionCategory(it->second).str().c_str(),
            listName.str().c_str());
      continue;
    }
    // A removal must name the list the op is on by default.
    std::optional<PrecisionCategory> current =
        registeredDefault(context, target, *op);
    if (current != edit.category)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: op '%s' is not on the %s list (its default is %s)",
          edit.origin.c_str(), edit.opName.c_str(), listName.str().c_str(),
          current ? stringifyPrecisionCategory(*current).str().c_str()
                  : "unlisted fp32");
    if (added.count(edit.opName))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "%s: op '%s' is both added to a list and removed from one",
          edit.origin.c_str(), edit.opName.c_str());
    removed[edit.opName] = edit.category;
  }
  // Removal after addition is caught above; addition after removal here.
  for (auto &entry : added)
    if (removed.count(entry.getKey()))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "op '%s' is both added to a list and removed from one",
          entry.getKey().str().c_str());
  return llvm::Error::success();
}

PrecisionPolicy::Lookup PrecisionPolicy::lookup(Operation *op) const {
  if (auto force = op->getAttrOfType<StringAttr>("mp.force"))
    return force.getValue() == "low"
               ? Lookup{PrecisionCategory::Allow, "forced-low"}
               : Lookup{std::nullopt, "forced-fp32"};
  llvm::StringRef name = op->getName().getStringRef();
  if (auto it = added.find(name); it != added.end())
    return {it->second, "user-list"};
  if (removed.count(name))
    return {std::nullopt, "removed-by-user"};
  if (isUnlistedOnTarget(target, name))
    return {std::nullopt, "unlisted-on-target"};
  if (auto iface = dyn_cast<PrecisionOpInterface>(op))
    return {iface.getPrecisionCategory(), "default-list"};
  return {PrecisionCategory::Deny, "no-interface"};
}

llvm::Expected<std::vector<ListEdit>>
PrecisionPolicy::readPolicyFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read policy file '%s': %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  return parsePolicyText((*buffer)->getBuffer(), path);
}

llvm::Expected<std::vector<ListEdit>>
PrecisionPolicy::parsePolicyText(llvm::StringRef text, llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: invalid JSON: %s", path.str().c_str(),
                                   llvm::toString(json.takeError()).c_str());
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: expected a JSON object at the top",
                                   path.str().c_str());
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   (path + ": " + message).str());
  };
  std::vector<ListEdit> edits;
  for (const auto &[key, value] : *root) {
    std::optional<PrecisionCategory> category = parsePrecisionCategory(key);
    if (!category)
      return fail("unknown key '" + key.str() +
                  "' (expected allow, deny, infer or clear)");
    const llvm::json::Object *lists = value.getAsObject();
    if (!lists)
      return fail("'" + key.str() + "' must be an object with 'add' and/or "
                  "'remove' arrays");
    for (const auto &[verb, names] : *lists) {
      if (verb != "add" && verb != "remove")
        return fail("unknown key '" + key.str() + "." + verb.str() +
                    "' (expected add or remove)");
      const llvm::json::Array *array = names.getAsArray();
      if (!array)
        return fail("'" + key.str() + "." + verb.str() +
                    "' must be an array of op names");
      for (const llvm::json::Value &name : *array) {
        std::optional<llvm::StringRef> str = name.getAsString();
        if (!str)
          return fail("'" + key.str() + "." + verb.str() +
                      "' must hold only strings");
        edits.push_back({*category, verb == "add", str->str(),
                         (path + " (" + key.str() + "." + verb.str() + ")")
                             .str()});
      }
    }
  }
  return edits;
}
