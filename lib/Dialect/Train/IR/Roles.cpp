//===- Roles.cpp - roles of training-step arguments and results -----------===//
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace mp::train {

bool isPersistent(Role role) {
  return role == Role::Param || role == Role::OptState ||
         role == Role::Buffer || role == Role::ScalerState;
}
bool isValidArgRole(Role role) {
  return role != Role::Loss && role != Role::Output && role != Role::Check;
}
bool isValidResultRole(Role role) {
  return role != Role::Input && role != Role::Label;
}

static std::optional<Role> roleOf(DictionaryAttr attrs) {
  if (!attrs)
    return std::nullopt;
  auto str = attrs.getAs<StringAttr>(TrainDialect::kRoleAttrName);
  return str ? parseRole(str.getValue()) : std::nullopt;
}

static llvm::StringRef nameOf(DictionaryAttr attrs) {
  if (!attrs)
    return {};
  auto str = attrs.getAs<StringAttr>(TrainDialect::kNameAttrName);
  return str ? str.getValue() : llvm::StringRef();
}

std::optional<Role> getArgRole(FunctionOpInterface fn, unsigned index) {
  return roleOf(fn.getArgAttrDict(index));
}
std::optional<Role> getResultRole(FunctionOpInterface fn, unsigned index) {
  return roleOf(fn.getResultAttrDict(index));
}
llvm::StringRef getArgName(FunctionOpInterface fn, unsigned index) {
  return nameOf(fn.getArgAttrDict(index));
}
llvm::StringRef getResultName(FunctionOpInterface fn, unsigned index) {
  return nameOf(fn.getResultAttrDict(index));
}

bool isFrozenArg(FunctionOpInterface fn, unsigned index) {
  DictionaryAttr attrs = fn.getArgAttrDict(index);
  return attrs && attrs.get(TrainDialect::kFrozenAttrName);
}

SmallVector<int> getUpdatedArguments(FunctionOpInterface fn) {
  llvm::DenseMap<std::pair<unsigned, StringRef>, int> argumentOf;
  for (unsigned a = 0, e = fn.getNumArguments(); a < e; ++a)
    if (std::optional<Role> role = getArgRole(fn, a); role && isPersistent(*role))
      argumentOf.try_emplace({static_cast<unsigned>(*role), getArgName(fn, a)},
                             a);
  SmallVector<int> updated(fn.getNumResults(), -1);
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
    if (std::optional<Role> role = getResultRole(fn, i);
        role && isPersistent(*role)) {
      auto it = argumentOf.find(
          {static_cast<unsigned>(*role), getResultName(fn, i)});
      if (it != argumentOf.end())
        updated[i] = it->second;
    }
  return updated;
}

bool isTrainStep(Operation *op) {
  return op->hasAttr(TrainDialect::kStepAttrName);
}

/// Whether the function's own attributes are well-formed enough to read
/// roles from; when not, its own verifier reports the problem.
static bool hasWellFormedSignature(FunctionOpInterface fn) {
  // FunctionOpInterface has no attribute-level getter: find the TypeAttr
  // holding a function type among the op's inherent attributes.
  FunctionType fnType;
  if (std::optional<Attribute> attr =
          fn->getInherentAttr("function_type"))
    if (auto type = dyn_cast_or_null<TypeAttr>(*attr))
      fnType = dyn_cast<FunctionType>(type.getValue());
  if (!fnType)
    return false;
  auto wellFormed = [](ArrayAttr attrs, size_t size) {
    return !attrs || (attrs.size() == size &&
                      llvm::all_of(attrs, llvm::IsaPred<DictionaryAttr>));
  };
  return wellFormed(fn.getArgAttrsAttr(), fnType.getNumInputs()) &&
         wellFormed(fn.getResAttrsAttr(), fnType.getNumResults());
}

/// The diagnostic for a missing or invalid role or name.
static InFlightDiagnostic missingRole(FunctionOpInterface fn, DictionaryAttr attrs,
                                      const char *what, unsigned index) {
  Attribute role = attrs ? attrs.get(TrainDialect::kRoleAttrName) : nullptr;
  if (role)
    return fn.emitOpError()
           << what << index << " has unknown role " << role
           << " (expected one of "
           << spellingsOf<Role>(getMaxEnumValForRole(), stringifyRole) << ")";
  return fn.emitOpError() << "training step " << what << index
                          << " has no 'train.role'";
}

LogicalResult verifyTrainStep(FunctionOpInterface fn) {
  if (!hasWellFormedSignature(fn))
    return success();
  if (!llvm::hasSingleElement(fn.getFunctionBody()))
    return fn.emitOpError()
           << "a training step needs a body of exactly one block";
  // (role, name) -> index, for both sides, to pair persistent state.
  using Key = std::pair<unsigned, llvm::StringRef>;
  llvm::DenseMap<Key, unsigned> argByKey, resultByKey;
  auto keyOf = [](Role role, llvm::StringRef name) {
    return Key(static_cast<unsigned>(role), name);
  };

  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    std::optional<Role> role = getArgRole(fn, i);
    if (!role)
      return missingRole(fn, fn.getArgAttrDict(i), "argument #", i);
    if (!isPersistent(*role))
      continue;
    llvm::StringRef name = getArgName(fn, i);
    if (name.empty())
      return fn.emitOpError()
             << "persistent argument #" << i << " (" << stringifyRole(*role)
             << ") needs a non-empty 'train.name'";
    if (!argByKey.try_emplace(keyOf(*role, name), i).second)
      return fn.emitOpError() << "two " << stringifyRole(*role)
                              << " arguments are named '" << name << "'";
  }
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (isFrozenArg(fn, i) && *getArgRole(fn, i) != Role::Buffer)
      return fn.emitOpError()
             << "argument #" << i << " is marked 'train.frozen' but is a "
             << stringifyRole(*getArgRole(fn, i))
             << "; only buffers can be frozen";

  std::optional<unsigned> lossIndex;
  ArrayRef<Type> resultTypes = fn.getResultTypes();
  for (unsigned i = 0, e = resultTypes.size(); i < e; ++i) {
    std::optional<Role> role = getResultRole(fn, i);
    if (!role)
      return missingRole(fn, fn.getResultAttrDict(i), "result #", i);
    if (*role == Role::Loss) {
      if (lossIndex)
        return fn.emitOpError() << "results #" << *lossIndex << " and #" << i
                                << " are both marked 'loss'";
      lossIndex = i;
      auto type = dyn_cast<RankedTensorType>(resultTypes[i]);
      if (!type || type.getRank() != 0 ||
          !isa<Float32Type, BFloat16Type, Float16Type>(type.getElementType()))
        return fn.emitOpError() << "the loss (result #" << i
                                << ") must be a 0-d f32, bf16 or f16 tensor, got "
                                << resultTypes[i];
      continue;
    }
    if (*role == Role::Check) {
      auto type = dyn_cast<RankedTensorType>(resultTypes[i]);
      if (!type || type.getRank() != 0 || !type.getElementType().isInteger(1))
        return fn.emitOpError() << "a check (result #" << i
                                << ") must be a 0-d i1 tensor, got "
                                << resultTypes[i];
      continue;
    }
    if (!isPersistent(*role))
      continue;
    llvm::StringRef name = getResultName(fn, i);
    if (name.empty())
      return fn.emitOpError()
             << "persistent result #" << i << " (" << stringifyRole(*role)
             << ") needs a non-empty 'train.name'";
    if (!resultByKey.try_emplace(keyOf(*role, name), i).second)
      return fn.emitOpError() << "two " << stringifyRole(*role)
                              << " results are named '" << name << "'";
    auto arg = argByKey.find(keyOf(*role, name));
    if (arg == argByKey.end())
      return fn.emitOpError() << "result #" << i << " ("
                              << stringifyRole(*role) << " '" << name
                              << "') updates no argument";
    if (isFrozenArg(fn, arg->second))
      return fn.emitOpError()
             << "result #" << i << " updates the frozen buffer '" << name
             << "' (argument #" << arg->second
             << "); drop 'train.frozen' or the result";
    Type argType = fn.getArgumentTypes()[arg->second];
    if (argType != resultTypes[i])
      return fn.emitOpError()
             << stringifyRole(*role) << " '" << name << "' is " << argType
             << " as argument #" << arg->second << " but " << resultTypes[i]
             << " as result #" << i;
  }
  if (!lossIndex)
    return fn.emitOpError() << "training step has no result with role 'loss'";

  // Walk arguments in order so that the first missing update is reported.
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i) {
    Role role = *getArgRole(fn, i);
    if (isPersistent(role) && !isFrozenArg(fn, i) &&
        !resultByKey.count(keyOf(role, getArgName(fn, i))))
      return fn.emitOpError()
             << stringifyRole(role) << " '" << getArgName(fn, i)
             << "' (argument #" << i << ") has no updated result"
             << (role == Role::Buffer
                     ? " (mark it 'train.frozen' if the step only reads it)"
                     : "");
  }
  return success();
}

} // namespace mp::train
