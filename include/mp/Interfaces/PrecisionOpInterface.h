//===- PrecisionOpInterface.h - how an op takes part in AMP -----*- C++ -*-===//
#ifndef MP_INTERFACES_PRECISIONOPINTERFACE_H
#define MP_INTERFACES_PRECISIONOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "mp/IR/Vocabulary.h"

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace mp {

// PrecisionCategory (the four lists of TensorFlow's auto mixed precision,
// as op categories) is in the shared vocabulary (mp/IR/Vocabulary.td).
inline std::optional<PrecisionCategory>
parsePrecisionCategory(llvm::StringRef name) {
  return symbolizePrecisionCategory(name);
}

} // namespace mp

#include "mp/Interfaces/PrecisionOpInterface.h.inc"

#endif // MP_INTERFACES_PRECISIONOPINTERFACE_H
