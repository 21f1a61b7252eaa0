//===- Traits.h - op traits shared by mp's dialects -------------*- C++ -*-===//
#ifndef MP_IR_TRAITS_H
#define MP_IR_TRAITS_H

#include "mlir/IR/OpDefinition.h"

namespace mp::OpTrait {

/// See StrictAttributes in Traits.td.
template <typename ConcreteType>
class StrictAttributes
    : public mlir::OpTrait::TraitBase<ConcreteType, StrictAttributes> {
public:
  static llvm::LogicalResult verifyTrait(mlir::Operation *op) {
    for (mlir::NamedAttribute attr : op->getDiscardableAttrs())
      if (!attr.getName().getValue().contains('.'))
        return op->emitOpError()
               << "has no attribute '" << attr.getName().getValue()
               << "' (only its own attributes and dialect-prefixed ones "
                  "are allowed)";
    return mlir::success();
  }
};

} // namespace mp::OpTrait

#endif // MP_IR_TRAITS_H
