//===- LinalgTosaModels.cpp - models for linalg and tosa ------------------===//
//
// Contractions are allow ops whose inputs go 16-bit while their
// accumulator/result stays f32: linalg named ops extend inputs to the
// output's element type, and tosa.matmul takes bf16/f16 operands (and
// zero points of the same type) with an f32 result.
//
//===----------------------------------------------------------------------===//
#include "mp/ExternalModels/PrecisionModels.h"

#include "ModelTemplates.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <type_traits>

using namespace mlir;
using namespace mp;
using namespace mp::models;

namespace {
/// tosa.matmul: a, b and their zero points take the 16-bit dtype; the
/// result stays f32 (TOSA's bf16/f16 x bf16/f16 -> f32 profile).
struct TosaMatmulModel
    : public PrecisionOpInterface::ExternalModel<TosaMatmulModel,
                                                 tosa::MatMulOp> {
  PrecisionCategory getPrecisionCategory(Operation *) const {
    return PrecisionCategory::Allow;
  }
  bool isOperandConvertible(Operation *, unsigned) const { return true; }
  bool isResultConvertible(Operation *, unsigned) const { return false; }
  bool needsWideAccumulator(Operation *) const { return true; }
};

/// linalg.broadcast / linalg.transpose move data: clear, and rebuilt so
/// that their bodies match new element types.
template <typename OpTy>
struct DpsMoveModel
    : public PrecisionOpInterface::ExternalModel<DpsMoveModel<OpTy>, OpTy> {
  PrecisionCategory getPrecisionCategory(Operation *) const {
    return PrecisionCategory::Clear;
  }
  bool isOperandConvertible(Operation *, unsigned) const { return true; }
  bool isResultConvertible(Operation *, unsigned) const { return true; }
  bool needsWideAccumulator(Operation *) const { return false; }
  Operation *rebuildWithOperands(Operation *op, OpBuilder &builder,
                                 ValueRange operands) const {
    auto typed = cast<OpTy>(op);
    if constexpr (std::is_same_v<OpTy, linalg::BroadcastOp>)
      return linalg::BroadcastOp::create(builder, op->getLoc(), operands[0],
                                         operands[1], typed.getDimensions())
          .getOperation();
    else
      return linalg::TransposeOp::create(builder, op->getLoc(), operands[0],
                                         operands[1], typed.getPermutation())
          .getOperation();
  }
};
} // namespace

void mp::registerLinalgPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    linalg::MatmulOp::attachInterface<DpsContractionModel<linalg::MatmulOp>>(
        *ctx);
    linalg::BatchMatmulOp::attachInterface<
        DpsContractionModel<linalg::BatchMatmulOp>>(*ctx);
    linalg::Conv2DNhwcHwcfOp::attachInterface<
        DpsContractionModel<linalg::Conv2DNhwcHwcfOp>>(*ctx);
    linalg::Conv2DNhwcFhwcOp::attachInterface<
        DpsContractionModel<linalg::Conv2DNhwcFhwcOp>>(*ctx);
    linalg::Conv2DNchwFchwOp::attachInterface<
        DpsContractionModel<linalg::Conv2DNchwFchwOp>>(*ctx);
    attachAllValues<PrecisionCategory::Deny, true, linalg::SoftmaxOp>(ctx);
    linalg::FillOp::attachInterface<NeverConvertModel<linalg::FillOp>>(*ctx);
    linalg::BroadcastOp::attachInterface<DpsMoveModel<linalg::BroadcastOp>>(
        *ctx);
    linalg::TransposeOp::attachInterface<DpsMoveModel<linalg::TransposeOp>>(
        *ctx);
  });
}

void mp::registerTosaPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    tosa::MatMulOp::attachInterface<TosaMatmulModel>(*ctx);
    attachAllValues<PrecisionCategory::Infer, false, tosa::AddOp, tosa::SubOp,
                    tosa::MulOp, tosa::TanhOp, tosa::SigmoidOp,
                    tosa::ErfOp>(ctx);
    attachAllValues<PrecisionCategory::Deny, true, tosa::ReduceSumOp>(ctx);
    attachAllValues<PrecisionCategory::Deny, false, tosa::ExpOp, tosa::LogOp,
                    tosa::PowOp, tosa::ReciprocalOp, tosa::RsqrtOp>(ctx);
    attachAllValues<PrecisionCategory::Clear, false, tosa::ReshapeOp,
                    tosa::TransposeOp, tosa::SliceOp, tosa::ConcatOp,
                    tosa::MaximumOp, tosa::MinimumOp, tosa::ReduceMaxOp,
                    tosa::NegateOp, tosa::ConstOp>(ctx);
  });
}

void mp::registerPrecisionExternalModels(DialectRegistry &registry) {
  registerArithPrecisionModels(registry);
  registerLinalgPrecisionModels(registry);
  registerMathPrecisionModels(registry);
  registerTensorPrecisionModels(registry);
  registerTosaPrecisionModels(registry);
}
