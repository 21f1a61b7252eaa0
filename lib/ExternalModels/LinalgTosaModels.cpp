//===- LinalgTosaModels.cpp - models for linalg and tosa ------------------===//
//
// Contractions are allow ops whose inputs go 16-bit while their
// accumulator/result stays f32: linalg named ops extend inputs to the
// output's element type, and tosa.matmul takes bf16/f16 operands (and
// zero points of the same type) with an f32 result. linalg.generic is
// classified by its payload.
//
//===----------------------------------------------------------------------===//
#include "mp/ExternalModels/PrecisionModels.h"

#include "ModelTemplates.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallPtrSet.h"

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
/// linalg.generic by its payload (torch-mlir writes every elementwise op
/// as one): a generic with a reduction iterator is a reduction (deny, f32
/// accumulation); otherwise the payload's ops decide, the strictest
/// category winning (deny over infer over clear; an op without the
/// interface counts as deny, so an unknown payload stays f32; ops on
/// captured values only do not count); a payload
/// that only yields its arguments is a copy (clear). Its f32 tensor
/// operands and results follow the decision; rebuilt with 16-bit operands,
/// the payload widens them, computes as written (f32) and rounds what it
/// yields: 16-bit storage, f32 arithmetic, one rounding per result.
struct GenericModel
    : public PrecisionOpInterface::ExternalModel<GenericModel,
                                                 linalg::GenericOp> {
  static bool isReduction(linalg::GenericOp generic) {
    return llvm::any_of(generic.getIteratorTypesArray(),
                        [](utils::IteratorType t) {
                          return t == utils::IteratorType::reduction;
                        });
  }
  PrecisionCategory getPrecisionCategory(Operation *op) const {
    auto generic = cast<linalg::GenericOp>(op);
    if (!generic.hasPureTensorSemantics())
      return PrecisionCategory::Deny;
    if (isReduction(generic))
      return PrecisionCategory::Deny;
    PrecisionCategory category = PrecisionCategory::Clear;
    // Only what computes on the elements counts: payload ops on captured
    // values alone (torch-mlir's arith.truncf of an f64 epsilon) are the
    // same for every element and stay as written.
    Block *body = generic.getBody();
    llvm::SmallPtrSet<Operation *, 8> perElement;
    for (Operation &inner : body->without_terminator()) {
      bool onElements = llvm::any_of(inner.getOperands(), [&](Value v) {
        if (auto arg = dyn_cast<BlockArgument>(v))
          return arg.getOwner() == body;
        return perElement.contains(v.getDefiningOp());
      });
      if (!onElements)
        continue;
      perElement.insert(&inner);
      auto iface = dyn_cast<PrecisionOpInterface>(inner);
      PrecisionCategory c =
          iface ? iface.getPrecisionCategory() : PrecisionCategory::Deny;
      if (c == PrecisionCategory::Deny)
        return c;
      if (c == PrecisionCategory::Infer || c == PrecisionCategory::Allow)
        category = PrecisionCategory::Infer;
    }
    return category;
  }
  /// By the payload's own argument types, which keep what the generic was
  /// written with: the operand itself may already have been retyped in
  /// place (a clear producer painted 16-bit), and must still convert.
  bool isOperandConvertible(Operation *op, unsigned index) const {
    auto generic = cast<linalg::GenericOp>(op);
    return generic.hasPureTensorSemantics() &&
           index < generic.getBody()->getNumArguments() &&
           generic.getBody()->getArgument(index).getType().isF32();
  }
  bool isResultConvertible(Operation *op, unsigned index) const {
    auto generic = cast<linalg::GenericOp>(op);
    unsigned arg = generic.getNumDpsInputs() + index;
    return generic.hasPureTensorSemantics() &&
           arg < generic.getBody()->getNumArguments() &&
           generic.getBody()->getArgument(arg).getType().isF32();
  }
  bool needsWideAccumulator(Operation *op) const {
    return isReduction(cast<linalg::GenericOp>(op));
  }
  Operation *rebuildWithOperands(Operation *op, OpBuilder &builder,
                                 ValueRange operands) const {
    auto generic = cast<linalg::GenericOp>(op);
    unsigned numInputs = generic.getNumDpsInputs();
    SmallVector<Type> resultTypes;
    for (Value init : operands.drop_front(numInputs))
      resultTypes.push_back(init.getType());
    Block *old = generic.getBody();
    auto rebuilt = linalg::GenericOp::create(
        builder, op->getLoc(), resultTypes, operands.take_front(numInputs),
        operands.drop_front(numInputs), generic.getIndexingMapsArray(),
        generic.getIteratorTypesArray(),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          IRMapping map;
          for (auto [before, after] : llvm::zip(old->getArguments(), args)) {
            Value v = after;
            if (v.getType() != before.getType())
              v = arith::ExtFOp::create(b, loc, before.getType(), v);
            map.map(before, v);
          }
          for (Operation &inner : old->without_terminator())
            b.clone(inner, map);
          SmallVector<Value> yields;
          Operation *yield = old->getTerminator();
          for (auto [value, type] :
               llvm::zip(yield->getOperands(), resultTypes)) {
            Value v = map.lookupOrDefault(value);
            Type element = getElementTypeOrSelf(type);
            if (v.getType() != element)
              v = arith::TruncFOp::create(b, loc, element, v);
            yields.push_back(v);
          }
          linalg::YieldOp::create(b, loc, yields);
        });
    for (NamedAttribute attr : op->getDiscardableAttrs())
      rebuilt->setAttr(attr.getName(), attr.getValue());
    return rebuilt.getOperation();
  }
};

template <typename... Ops> void attachContractions(MLIRContext *ctx) {
  (Ops::template attachInterface<DpsContractionModel<Ops>>(*ctx), ...);
}
template <PrecisionCategory Category, typename... Ops>
void attachContractions(MLIRContext *ctx) {
  (Ops::template attachInterface<DpsContractionModel<Ops, Category>>(*ctx),
   ...);
}
template <typename... Ops> void attachSelects(MLIRContext *ctx) {
  (Ops::template attachInterface<DpsSelectModel<Ops>>(*ctx), ...);
}

/// tosa.clamp: clear, its bounds (attributes of the input's element type)
/// rounded to the new type, a finite bound that overflows it becoming its
/// largest finite value (the f32 maximum that torch-mlir writes for ReLU
/// stays "no upper bound" on finite inputs, and inf stays clamped).
struct TosaClampModel
    : public PrecisionOpInterface::ExternalModel<TosaClampModel,
                                                 tosa::ClampOp> {
  PrecisionCategory getPrecisionCategory(Operation *) const {
    return PrecisionCategory::Clear;
  }
  bool isOperandConvertible(Operation *, unsigned) const { return true; }
  bool isResultConvertible(Operation *, unsigned) const { return true; }
  bool needsWideAccumulator(Operation *) const { return false; }
  static Attribute convertBound(Attribute bound, Type element) {
    auto value = dyn_cast<FloatAttr>(bound);
    auto type = dyn_cast<FloatType>(element);
    if (!value || !type)
      return bound;
    APFloat v = value.getValue();
    bool losesInfo;
    bool finite = v.isFinite();
    v.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &losesInfo);
    if (finite && v.isInfinity())
      v = APFloat::getLargest(type.getFloatSemantics(), v.isNegative());
    return FloatAttr::get(type, v);
  }
  Operation *rebuildWithOperands(Operation *op, OpBuilder &builder,
                                 ValueRange operands) const {
    auto clamp = cast<tosa::ClampOp>(op);
    Type element = getElementTypeOrSelf(operands[0].getType());
    auto resultType =
        cast<ShapedType>(clamp.getType()).clone(element);
    auto rebuilt = tosa::ClampOp::create(
        builder, op->getLoc(), resultType, operands[0],
        convertBound(clamp.getMinValAttr(), element),
        convertBound(clamp.getMaxValAttr(), element),
        clamp.getNanModeAttr());
    return rebuilt.getOperation();
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
    attachContractions<linalg::Conv1DNcwFcwOp, linalg::Conv1DNwcWcfOp,
                       linalg::Conv2DOp, linalg::Conv3DNcdhwFcdhwOp,
                       linalg::Conv3DNdhwcDhwcfOp,
                       linalg::DepthwiseConv1DNwcWcOp,
                       linalg::DepthwiseConv2DNchwChwOp,
                       linalg::DepthwiseConv2DNhwcHwcOp,
                       linalg::DepthwiseConv2DNhwcHwcmOp, linalg::MatvecOp,
                       linalg::VecmatOp>(ctx);
    // Sum pooling accumulates its (extended) inputs in the init's f32.
    attachContractions<PrecisionCategory::Infer, linalg::PoolingNchwSumOp,
                       linalg::PoolingNhwcSumOp, linalg::PoolingNcwSumOp,
                       linalg::PoolingNwcSumOp>(ctx);
    attachSelects<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp,
                  linalg::PoolingNhwcMinOp, linalg::PoolingNcwMaxOp,
                  linalg::PoolingNwcMaxOp, linalg::PoolingNwcMinOp>(ctx);
    attachAllValues<PrecisionCategory::Deny, true, linalg::SoftmaxOp>(ctx);
    linalg::FillOp::attachInterface<NeverConvertModel<linalg::FillOp>>(*ctx);
    linalg::GenericOp::attachInterface<GenericModel>(*ctx);
    linalg::BroadcastOp::attachInterface<DpsMoveModel<linalg::BroadcastOp>>(
        *ctx);
    linalg::TransposeOp::attachInterface<DpsMoveModel<linalg::TransposeOp>>(
        *ctx);
  });
}

void mp::registerTosaPrecisionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    tosa::MatMulOp::attachInterface<TosaMatmulModel>(*ctx);
    // Convolutions: bf16/f16 input, weight, bias and zero points with an
    // f32 accumulator (acc_type = f32, which TOSA's bf16 and f16 profiles
    // take) and a 16-bit result.
    attachAllValues<PrecisionCategory::Allow, true, tosa::Conv2DOp,
                    tosa::Conv3DOp, tosa::DepthwiseConv2DOp,
                    tosa::TransposeConv2DOp>(ctx);
    // Average pooling accumulates in acc_type (f32) and rounds once.
    attachAllValues<PrecisionCategory::Infer, true, tosa::AvgPool2dOp>(ctx);
    attachAllValues<PrecisionCategory::Clear, false, tosa::MaxPool2dOp>(ctx);
    tosa::ClampOp::attachInterface<TosaClampModel>(*ctx);
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
