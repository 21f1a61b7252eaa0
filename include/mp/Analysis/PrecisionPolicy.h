//===- PrecisionPolicy.h - what a mixed-precision policy decides -*- C++ -*-===//
//
// A policy names the compute dtype (Keras' policy names), the hardware whose
// default lists apply, and the user's per-op-name overrides. Every op name
// is checked against the registered ops: an unknown name is an error, never
// a silent no-op.
//
//===----------------------------------------------------------------------===//
#ifndef MP_ANALYSIS_PRECISIONPOLICY_H
#define MP_ANALYSIS_PRECISIONPOLICY_H

#include "mp/Interfaces/PrecisionOpInterface.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace mp {

// PolicyKind (float32, mixed_bfloat16, mixed_float16) is in the shared
// vocabulary (mp/IR/Vocabulary.td).

/// Whose default lists apply where they differ (TensorFlow keeps one list
/// for CUDA and one for oneDNN).
enum class PrecisionTarget { CPU, CUDA };

/// A user's edit of one category list, as TensorFlow's
/// *_ALLOWLIST_ADD / *_ALLOWLIST_REMOVE environment variables.
struct ListEdit {
  PrecisionCategory category;
  bool add; ///< add to the list, or remove from it
  std::string opName;
  std::string origin; ///< where the edit came from, for diagnostics
};

class PrecisionPolicy {
public:
  /// Parses "float32", "mixed_bfloat16" or "mixed_float16".
  static std::optional<PolicyKind> parseKind(llvm::StringRef name) {
    return symbolizePolicyKind(name);
  }
  static std::optional<PrecisionTarget> parseTarget(llvm::StringRef name);
  static llvm::StringRef stringifyKind(PolicyKind kind) {
    return stringifyPolicyKind(kind);
  }

  PrecisionPolicy(PolicyKind kind, PrecisionTarget target)
      : kind(kind), target(target) {}

  PolicyKind getKind() const { return kind; }
  PrecisionTarget getTarget() const { return target; }
  /// bf16 or f16; null under float32.
  mlir::Type getComputeType(mlir::MLIRContext *context) const;

  /// Applies edits in order, checking every op name against the ops
  /// registered in `context`; fails naming the first bad edit.
  llvm::Error applyEdits(mlir::MLIRContext *context,
                         llvm::ArrayRef<ListEdit> edits);

  /// Reads edits from a JSON policy file:
  ///   {"allow": {"add": ["op.name"], "remove": [...]}, "deny": {...}, ...}
  static llvm::Expected<std::vector<ListEdit>>
  readPolicyFile(llvm::StringRef path);
  /// The same from the file's text; `origin` names it in errors.
  static llvm::Expected<std::vector<ListEdit>>
  parsePolicyText(llvm::StringRef text, llvm::StringRef origin);

  /// The category of `op` under this policy: a user edit, else the target
  /// default, else the op's interface. std::nullopt: fp32, not painted
  /// (removed from its list by the user). `reason` says which rule decided.
  struct Lookup {
    std::optional<PrecisionCategory> category;
    const char *reason;
  };
  Lookup lookup(mlir::Operation *op) const;

private:
  PolicyKind kind;
  PrecisionTarget target;
  /// Op name -> category the user added it to.
  llvm::StringMap<PrecisionCategory> added;
  /// Op name -> category the user removed it from.
  llvm::StringMap<PrecisionCategory> removed;
};

} // namespace mp

#endif // MP_ANALYSIS_PRECISIONPOLICY_H
