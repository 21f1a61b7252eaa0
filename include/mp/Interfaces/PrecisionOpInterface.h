//===- PrecisionOpInterface.h - how an op takes part in AMP -----*- C++ -*-===//
#ifndef MP_INTERFACES_PRECISIONOPINTERFACE_H
#define MP_INTERFACES_PRECISIONOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace mp {

/// The four lists of TensorFlow's auto mixed precision, as op categories.
enum class PrecisionCategory {
  /// Fast and safe in 16 bits (matrix units): always converted.
  Allow,
  /// Numerically fragile: always fp32, and fp32 spreads through infer/clear.
  Deny,
  /// Follows its inputs: 16-bit between 16-bit ops, else fp32.
  Infer,
  /// Dtype-agnostic data movement: takes whatever its neighbours have.
  Clear,
};

llvm::StringRef stringifyPrecisionCategory(PrecisionCategory category);
std::optional<PrecisionCategory> parsePrecisionCategory(llvm::StringRef name);

} // namespace mp

#include "mp/Interfaces/PrecisionOpInterface.h.inc"

#endif // MP_INTERFACES_PRECISIONOPINTERFACE_H
