//===- LowerToUpstream.cpp - mp's decisions in upstream ops only ----------===//
//
// After the pipeline on upstream IR the mp ops left are mp.cast and, on a
// step with a marked seed, loss scaling's mp.scale, mp.unscale_and_check
// and mp.update_scale (epilogue fusion needs a train.matmul); the other mp
// traces are the discardable `mp.*` attributes of ops. This pass rewrites
// the casts into arith's and loss scaling into linalg/arith/tensor/math, and
// drops the ops' attributes, so that another compiler reads the result
// without mp's dialects. A function's argument and result attributes stay:
// `mp.gradient`, `mp.all_finite`, `mp.loss_scale`, `mp.growth_count` say
// what the host passes in and gets back. Anything else of mp's or train's
// is named in an error: it has no upstream form here.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mp {
#define GEN_PASS_DEF_LOWERTOUPSTREAM
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// The float type of `type` (a tensor's element type, or itself).
FloatType elementFloat(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return dyn_cast<FloatType>(shaped.getElementType());
  return dyn_cast<FloatType>(type);
}

/// `value` converted to `type` (same shape) with arith: truncf to a
/// narrower type, extf to a wider one, through f32 between bf16 and f16.
Value convert(OpBuilder &b, Location loc, Value value, Type type) {
  FloatType from = elementFloat(value.getType()), to = elementFloat(type);
  if (from == to)
    return value;
  if (from.getWidth() == to.getWidth()) {
    Type f32 = cast<ShapedType>(value.getType()).clone(b.getF32Type());
    return convert(b, loc, convert(b, loc, value, f32), type);
  }
  if (from.getWidth() > to.getWidth())
    return arith::TruncFOp::create(b, loc, type, value);
  return arith::ExtFOp::create(b, loc, type, value);
}

/// A 0-d tensor's element.
Value scalarOf(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

/// A 0-d tensor holding `value`.
Value tensorOf(OpBuilder &b, Location loc, Value value) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, value.getType()), value);
}

/// `result = round(f32(x) * factor)` elementwise as a linalg.generic, with
/// `factor` an f32 scalar: mp.scale (factor = the scale) and the unscale
/// (factor = 1 / scale, the reciprocal taken in f64 as GradScaler does).
Value multiplyElementwise(OpBuilder &b, Location loc, Value x, Value factor,
                         RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(x.getType());
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{x}, ValueRange{init},
      ArrayRef<AffineMap>{id, id}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = args[0];
        if (!v.getType().isF32())
          v = arith::ExtFOp::create(nb, nloc, nb.getF32Type(), v);
        v = arith::MulFOp::create(nb, nloc, v, factor);
        Type out = resultType.getElementType();
        if (out != v.getType())
          v = cast<FloatType>(out).getWidth() < 32
                  ? arith::TruncFOp::create(nb, nloc, out, v).getResult()
                  : arith::ExtFOp::create(nb, nloc, out, v).getResult();
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

/// `all && every element of x is finite`, as a reduction into a 0-d i1.
Value allFiniteInto(OpBuilder &b, Location loc, Value x, Value all) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<AffineExpr> none;
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  AffineMap toScalar = AffineMap::get(type.getRank(), 0, none, b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{all.getType()}, ValueRange{x}, ValueRange{all},
      ArrayRef<AffineMap>{id, toScalar}, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value finite = math::IsFiniteOp::create(nb, nloc, args[0]);
        linalg::YieldOp::create(
            nb, nloc, ValueRange{arith::AndIOp::create(nb, nloc, finite,
                                                       args[1])});
      });
  return generic.getResult(0);
}

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc,
                                   b.getF32FloatAttr(static_cast<float>(value)));
}

/// mp.scale: the seed times the scale, rounded once to the seed's type.
void lowerScale(mpd::ScaleOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value scale = scalarOf(b, loc, op.getScale());
  op.getResult().replaceAllUsesWith(multiplyElementwise(
      b, loc, op.getValue(), scale,
      cast<RankedTensorType>(op.getResult().getType())));
  op.erase();
}

/// mp.unscale_and_check: every gradient times f32(1 / scale) (the
/// reciprocal in f64), and one i1 that no input element is inf or NaN.
void lowerUnscaleAndCheck(mpd::UnscaleAndCheckOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value scale = scalarOf(b, loc, op.getScale());
  Value wide = arith::ExtFOp::create(b, loc, b.getF64Type(), scale);
  Value one = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0));
  Value inverse = arith::TruncFOp::create(
      b, loc, b.getF32Type(), arith::DivFOp::create(b, loc, one, wide));
  Value all = tensorOf(
      b, loc, arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  for (auto [grad, unscaled] : llvm::zip(op.getGrads(), op.getUnscaled())) {
    all = allFiniteInto(b, loc, grad, all);
    unscaled.replaceAllUsesWith(multiplyElementwise(
        b, loc, grad, inverse, cast<RankedTensorType>(unscaled.getType())));
  }
  op.getAllFinite().replaceAllUsesWith(all);
  op.erase();
}

/// mp.update_scale, GradScaler's rule in f32 scalars: on overflow the
/// scale backs off (to no less than min_scale) and the count restarts;
/// otherwise the count grows, and at growth_interval restarts with the
/// scale grown (to no more than max_scale, and kept when the product is
/// not finite).
void lowerUpdateScale(mpd::UpdateScaleOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value scale = scalarOf(b, loc, op.getScale());
  Value count = scalarOf(b, loc, op.getGrowthCount());
  Value finite = scalarOf(b, loc, op.getAllFinite());
  Value backedOff = arith::MaximumFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, scale,
                            f32Constant(b, loc, op.getBackoffFactor()
                                                    .convertToDouble())),
      f32Constant(b, loc, op.getMinScale().convertToDouble()));
  Value grown = arith::MulFOp::create(
      b, loc, scale, f32Constant(b, loc, op.getGrowthFactor().convertToDouble()));
  Value grownScale = arith::SelectOp::create(
      b, loc, math::IsFiniteOp::create(b, loc, grown),
      arith::MinimumFOp::create(
          b, loc, grown, f32Constant(b, loc, op.getMaxScale().convertToDouble())),
      scale);
  Type i64 = b.getI64Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 0));
  Value oneCount = arith::ConstantOp::create(b, loc, b.getIntegerAttr(i64, 1));
  Value last = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(i64, op.getGrowthInterval() - 1));
  Value atInterval =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, count, last);
  Value finiteScale =
      arith::SelectOp::create(b, loc, atInterval, grownScale, scale);
  Value finiteCount = arith::SelectOp::create(
      b, loc, atInterval, zero, arith::AddIOp::create(b, loc, count, oneCount));
  Value newScale =
      arith::SelectOp::create(b, loc, finite, finiteScale, backedOff);
  Value newCount = arith::SelectOp::create(b, loc, finite, finiteCount, zero);
  op.getNewScale().replaceAllUsesWith(tensorOf(b, loc, newScale));
  op.getNewGrowthCount().replaceAllUsesWith(tensorOf(b, loc, newCount));
  op.erase();
}

struct LowerToUpstreamPass
    : public mp::impl::LowerToUpstreamBase<LowerToUpstreamPass> {
  using LowerToUpstreamBase::LowerToUpstreamBase;

  /// The option, checked before any op is visited.
  LogicalResult initialize(MLIRContext *context) override {
    if (castOp != "arith")
      return emitError(UnknownLoc::get(context))
             << "mp-lower-to-upstream: unknown cast-op '" << castOp
             << "' (mp or arith)";
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<mpd::CastOp> casts;
    SmallVector<Operation *> scaling;
    bool failed = false;
    module.walk([&](Operation *op) {
      if (auto c = dyn_cast<mpd::CastOp>(op)) {
        casts.push_back(c);
        return;
      }
      // Loss scaling of an upstream step (no train ops around it).
      if (isa<mpd::ScaleOp, mpd::UnscaleAndCheckOp, mpd::UpdateScaleOp>(op)) {
        scaling.push_back(op);
        return;
      }
      StringRef dialect = op->getName().getDialectNamespace();
      if (dialect == "mp" || dialect == "train") {
        op->emitError() << "'" << op->getName()
                        << "' has no upstream form: upstream-only output "
                           "(cast-op=arith) needs upstream input (linalg, "
                           "arith, math, tensor, tosa, scf, cf); a train "
                           "step goes to mp-compile";
        failed = true;
      }
    });
    if (failed)
      return signalPassFailure();
    for (Operation *op : scaling) {
      if (auto scale = dyn_cast<mpd::ScaleOp>(op))
        lowerScale(scale);
      else if (auto check = dyn_cast<mpd::UnscaleAndCheckOp>(op))
        lowerUnscaleAndCheck(check);
      else
        lowerUpdateScale(cast<mpd::UpdateScaleOp>(op));
    }
    for (mpd::CastOp c : casts) {
      OpBuilder b(c);
      c.getResult().replaceAllUsesWith(
          convert(b, c.getLoc(), c.getInput(), c.getResult().getType()));
      c.erase();
    }
    // The annotations and overrides: mp.precision, mp.force, ... on ops,
    // and mp.* argument and result attributes of functions.
    module.walk([&](Operation *op) {
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (attr.getName().strref().starts_with("mp."))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        op->removeDiscardableAttr(name);
    });
  }
};

} // namespace
