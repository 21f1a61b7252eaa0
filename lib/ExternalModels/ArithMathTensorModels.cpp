//===- ArithMathTensorModels.cpp - models for arith, math, tensor ---------===//
//
// Categories follow the defaults of the train ops they mirror (see
// docs/precision.md): arithmetic infers, data movement is clear, and the
// numerically fragile math (exp, log, pow, rsqrt) is denied.
//
//===----------------------------------------------------------------------===//
#include "mp/ExternalModels/PrecisionModels.h"

#include "ModelTemplates.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

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

void mp::registerTensorPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::EmptyOp::attachInterface<NeverConvertModel<tensor::EmptyOp>>(*ctx);
    attachAllValues<PrecisionCategory::Clear, false, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                    tensor::ExtractSliceOp, tensor::ConcatOp>(ctx);
  });
}
