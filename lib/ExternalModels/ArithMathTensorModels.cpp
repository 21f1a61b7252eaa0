//===- ArithMathTensorModels.cpp - models for arith, math, tensor ---------===//
//
// Categories follow the defaults of the train ops they mirror (see
// docs/precision.md): arithmetic infers, data movement is clear, and the
// numerically fragile math (exp, log, pow, rsqrt) is denied; a
// constant tensor.pad moves data.
//
//===----------------------------------------------------------------------===//
#include "mp/ExternalModels/PrecisionModels.h"

#include "ModelTemplates.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mp;
using namespace mp::models;

void mp::registerArithPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachAllValues<PrecisionCategory::Infer, false, arith::AddFOp,
                    arith::SubFOp, arith::MulFOp, arith::DivFOp,
                    arith::CmpFOp>(ctx);
    attachAllValues<PrecisionCategory::Clear, false, arith::NegFOp,
                    arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
                    arith::MinNumFOp, arith::SelectOp, arith::ConstantOp>(ctx);
  });
}

void mp::registerMathPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachAllValues<PrecisionCategory::Deny, false, math::ExpOp, math::Exp2Op,
                    math::ExpM1Op, math::LogOp, math::Log2Op, math::Log1pOp,
                    math::PowFOp, math::RsqrtOp>(ctx);
    attachAllValues<PrecisionCategory::Infer, false, math::TanhOp,
                    math::ErfOp, math::SqrtOp>(ctx);
    attachAllValues<PrecisionCategory::Clear, false, math::AbsFOp>(ctx);
  });
}

namespace {
/// tensor.pad moves data (clear) when it pads with a constant: its source
/// and result follow the dtype, and the rebuilt pad pads with the constant
/// rounded to it. A pad whose value is computed per position stays f32.
struct PadModel
    : public PrecisionOpInterface::ExternalModel<PadModel, tensor::PadOp> {
  static bool convertible(Operation *op) {
    auto pad = cast<tensor::PadOp>(op);
    Attribute value;
    return pad.getResultType().getElementType().isF32() &&
           matchPattern(pad.getConstantPaddingValue(), m_Constant(&value));
  }
  PrecisionCategory getPrecisionCategory(Operation *) const {
    return PrecisionCategory::Clear;
  }
  bool isOperandConvertible(Operation *op, unsigned index) const {
    return index == 0 && convertible(op);
  }
  bool isResultConvertible(Operation *op, unsigned) const {
    return convertible(op);
  }
  bool needsWideAccumulator(Operation *) const { return false; }
  Operation *rebuildWithOperands(Operation *op, OpBuilder &builder,
                                 ValueRange operands) const {
    auto pad = cast<tensor::PadOp>(op);
    Type element = getElementTypeOrSelf(operands[0].getType());
    FloatAttr value;
    if (!matchPattern(pad.getConstantPaddingValue(), m_Constant(&value)))
      return nullptr;
    llvm::APFloat rounded = value.getValue();
    bool lost = false;
    rounded.convert(cast<FloatType>(element).getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &lost);
    Value padding = arith::ConstantOp::create(
        builder, op->getLoc(), builder.getFloatAttr(element, rounded));
    return tensor::PadOp::create(
               builder, op->getLoc(), pad.getResultType().clone(element),
               operands[0], pad.getMixedLowPad(), pad.getMixedHighPad(),
               padding, pad.getNofold())
        .getOperation();
  }
};
} // namespace

void mp::registerTensorPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::EmptyOp::attachInterface<NeverConvertModel<tensor::EmptyOp>>(*ctx);
    tensor::PadOp::attachInterface<PadModel>(*ctx);
    attachAllValues<PrecisionCategory::Clear, false, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                    tensor::ExtractSliceOp, tensor::ConcatOp>(ctx);
  });
}
