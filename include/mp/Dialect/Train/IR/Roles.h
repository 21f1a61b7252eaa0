//===- Roles.h - roles of training-step arguments and results ---*- C++ -*-===//
//
// A training-step function (`func.func ... attributes {train.step}`) tags
// each argument and result with `train.role`; persistent state also carries
// `train.name`, which pairs an argument with the result that replaces it.
//
//===----------------------------------------------------------------------===//
#ifndef MP_DIALECT_TRAIN_IR_ROLES_H
#define MP_DIALECT_TRAIN_IR_ROLES_H

#include "mp/IR/Vocabulary.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace mp::train {

// Role (`train.role`: param, opt_state, ...) and its stringifyRole /
// symbolizeRole are in the shared vocabulary (mp/IR/Vocabulary.td).

/// Parses a role name ("param", "opt_state", ...).
inline std::optional<Role> parseRole(llvm::StringRef name) {
  return symbolizeRole(name);
}
bool isPersistent(Role role);
bool isValidArgRole(Role role);
bool isValidResultRole(Role role);

/// Role of argument/result `index` of `fn`, if tagged with a valid one.
std::optional<Role> getArgRole(mlir::FunctionOpInterface fn, unsigned index);
std::optional<Role> getResultRole(mlir::FunctionOpInterface fn,
                                  unsigned index);
/// The `train.name` of an argument/result, or "" when absent.
llvm::StringRef getArgName(mlir::FunctionOpInterface fn, unsigned index);
llvm::StringRef getResultName(mlir::FunctionOpInterface fn, unsigned index);

/// Whether argument `index` of `fn` is a frozen buffer (`train.frozen`):
/// persistent, read by the step, never updated.
bool isFrozenArg(mlir::FunctionOpInterface fn, unsigned index);

/// For each result of `fn` with a persistent role, the argument it
/// replaces (same role and name), or -1 when none does; -1 for the other
/// results. Linear in the size of the signature.
llvm::SmallVector<int> getUpdatedArguments(mlir::FunctionOpInterface fn);

/// Whether `fn` is marked as a training step.
bool isTrainStep(mlir::Operation *op);

/// Verifies the role rules of a training-step function: every argument and
/// result has a role, persistent arguments and results pair up one to one by
/// name with equal types (a frozen buffer argument has no result), there is
/// exactly one scalar loss.
llvm::LogicalResult verifyTrainStep(mlir::FunctionOpInterface fn);

} // namespace mp::train

#endif // MP_DIALECT_TRAIN_IR_ROLES_H
