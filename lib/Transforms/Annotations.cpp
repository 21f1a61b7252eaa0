//===- Annotations.cpp - what the precision passes leave on ops -----------===//
#include "mp/Transforms/Annotations.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mp;

void mp::setDecision(Operation *op, const PrecisionDecision &decision,
                     Type computeType) {
  Builder b(op->getContext());
  StringRef category = decision.category
                           ? stringifyPrecisionCategory(*decision.category)
                           : StringRef("unlisted");
  Type dtype = decision.low ? computeType : b.getF32Type();
  op->setAttr(kPrecisionAttrName,
              b.getDictionaryAttr({
                  b.getNamedAttr("category", b.getStringAttr(category)),
                  b.getNamedAttr("dtype", TypeAttr::get(dtype)),
                  b.getNamedAttr("rule", b.getStringAttr(decision.rule)),
                  b.getNamedAttr("source", b.getStringAttr(decision.source)),
              }));
}

Type mp::getDecidedType(Operation *op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(kPrecisionAttrName);
  if (!dict)
    return {};
  auto type = dict.getAs<TypeAttr>("dtype");
  return type ? type.getValue() : Type();
}
