//===- Decompose.cpp - composite train ops to what the backends run -------===//
//
// Passes.td describes the rewrites. Each keeps the op's result type and
// discardable attributes and replaces it in place.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/Transforms/Annotations.h"

#include "mlir/IR/BuiltinOps.h"

#include <cmath>
#include <limits>

namespace mp {
#define GEN_PASS_DEF_DECOMPOSE
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// kernel = strides = image / pooled per spatial dimension, where both
/// divide; none otherwise.
std::optional<SmallVector<int64_t>> divisibleWindow(train::Layout layout,
                                                    Value image,
                                                    Value pooled) {
  train::ImageDims d = train::imageDims(layout);
  ArrayRef<int64_t> in = cast<ShapedType>(image.getType()).getShape();
  ArrayRef<int64_t> out = cast<ShapedType>(pooled.getType()).getShape();
  if (in[d.h] % out[d.h] != 0 || in[d.w] % out[d.w] != 0)
    return std::nullopt;
  return SmallVector<int64_t>{in[d.h] / out[d.h], in[d.w] / out[d.w]};
}

template <typename PoolOp>
void replaceWith(Operation *op, Type type, Value operand, train::Layout layout,
                 ArrayRef<int64_t> window) {
  OpBuilder b(op);
  auto pool = PoolOp::create(b, op->getLoc(), type, operand, layout,
                             b.getDenseI64ArrayAttr(window),
                             b.getDenseI64ArrayAttr(window),
                             b.getDenseI64ArrayAttr({0, 0, 0, 0}));
  pool->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op->getResult(0).replaceAllUsesWith(pool.getResult());
  op->erase();
}

/// `v` (3-D) reshaped to 4-D with a unit dimension at `at`.
Value withUnitDim(OpBuilder &b, Location loc, Value v, unsigned at) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + at, 1);
  return train::ReshapeOp::create(b, loc, type.clone(shape), v);
}

/// The 4-D type of a 3-D `type` with a unit dimension at `at`.
RankedTensorType unitDimType(Type type, unsigned at) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(ranked.getShape());
  shape.insert(shape.begin() + at, 1);
  return ranked.clone(shape);
}

/// A conv1d op as conv2d on a unit height: NCL -> NCHW [N, C, 1, L] with
/// OIK -> OIHW [O, I, 1, K]; NLC -> NHWC [N, 1, L, C] with KIO -> HWIO
/// [1, K, I, O]. `Conv2D` is the 2-D op. The first operand is an image
/// (input or output gradient) for all three ops; the second is the filter
/// for conv1d and its data gradient and an image for the filter gradient,
/// whose result is the filter.
template <typename Conv2D, typename Conv1D>
void lowerConv1d(Conv1D op, bool toFilter) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  bool ncl = op.getLayout() == train::Layout1D::NCL;
  unsigned image = ncl ? 2 : 1, filter = ncl ? 2 : 0;
  Value lhs = withUnitDim(b, loc, op->getOperand(0), image);
  Value rhs = withUnitDim(b, loc, op->getOperand(1), toFilter ? image : filter);
  ArrayRef<int64_t> pad = op.getPadding();
  auto conv = Conv2D::create(
      b, loc, unitDimType(op.getType(), toFilter ? filter : image), lhs, rhs,
      train::LayoutAttr::get(b.getContext(),
                             ncl ? train::Layout::NCHW : train::Layout::NHWC),
      b.getDenseI64ArrayAttr({1, static_cast<int64_t>(op.getStride())}),
      b.getDenseI64ArrayAttr({0, 0, pad[0], pad[1]}),
      b.getDenseI64ArrayAttr({1, static_cast<int64_t>(op.getDilation())}),
      b.getI64IntegerAttr(static_cast<int64_t>(op.getGroups())),
      /*filter_layout=*/train::FilterLayoutAttr());
  conv->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  Value result =
      train::ReshapeOp::create(b, loc, op.getType(), conv.getResult());
  op.getResult().replaceAllUsesWith(result);
  op->erase();
}


/// A train.matmul whose batch dimensions broadcast becomes one on equal
/// batches (or a shared rank-2 rhs): an rhs whose batch is all 1s is
/// reshaped to rank 2, and an operand whose batch differs from the
/// result's is broadcast to it. Canonical forms are left alone.
void lowerBroadcastMatmul(train::MatmulOp op) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  ArrayRef<int64_t> result = op.getType().getShape();
  ArrayRef<int64_t> batch = result.drop_back(2);
  ArrayRef<int64_t> lb = lhsType.getShape().drop_back(2);
  ArrayRef<int64_t> rb = rhsType.getShape().drop_back(2);
  if (lb == batch && (rb.empty() || rb == batch))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  // Operand `v` with batch `have` as [batch..., its last two].
  auto toBatch = [&](Value v, RankedTensorType type,
                     ArrayRef<int64_t> have) -> Value {
    if (have == batch)
      return v;
    SmallVector<int64_t> shape(batch);
    shape.append(type.getShape().take_back(2).begin(),
                 type.getShape().take_back(2).end());
    int64_t lead = static_cast<int64_t>(shape.size()) - type.getRank();
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < type.getRank(); ++i)
      dims.push_back(lead + i);
    auto made = train::BroadcastOp::create(b, loc, type.clone(shape), v, dims);
    made->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    return made.getResult();
  };
  Value lhs = toBatch(op.getLhs(), lhsType, lb);
  Value rhs = op.getRhs();
  if (llvm::all_of(rb, [](int64_t d) { return d == 1; }))
    rhs = train::ReshapeOp::create(
        b, loc, rhsType.clone(rhsType.getShape().take_back(2)), rhs);
  else
    rhs = toBatch(rhs, rhsType, rb);
  op.getLhsMutable().assign(lhs);
  op.getRhsMutable().assign(rhs);
}

/// `type` with its last two dimensions exchanged.
RankedTensorType swapLastTwo(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[shape.size() - 2], shape.back());
  return type.clone(shape);
}

/// A matmul operand that is a transpose whose last step exchanges the last
/// two dimensions (through a reshape of the batch dimensions only, as a
/// batched product flattens [B, H] to B H): the exchange becomes the
/// operand's transpose flag, and the transpose that is left (if any) moves
/// whole rows (its last dimension stays), which the backends copy row by
/// row instead of tile by tile. Keras' MultiHeadAttention (an einsum's
/// transposes) writes these: k^T as [B, S, H, D] -> [B, H, D, S], the
/// scores' gradient as [B, H, S, T] -> [B, H, T, S].
void foldTransposeIntoMatmul(train::MatmulOp op, bool lhs) {
  Value operand = lhs ? op.getLhs() : op.getRhs();
  auto reshape = operand.getDefiningOp<train::ReshapeOp>();
  Value inner = reshape ? reshape.getX() : operand;
  auto transpose = inner.getDefiningOp<train::TransposeOp>();
  if (!transpose)
    return;
  auto transposedType = cast<RankedTensorType>(transpose.getType());
  auto operandType = cast<RankedTensorType>(operand.getType());
  int64_t rank = transposedType.getRank();
  if (rank < 2 || operandType.getRank() < 2 ||
      !transposedType.hasStaticShape() || !operandType.hasStaticShape() ||
      transposedType.getShape().take_back(2) !=
          operandType.getShape().take_back(2))
    return;
  // perm = q, then the exchange of the last two: q is perm with its last
  // two entries exchanged.
  SmallVector<int64_t> q(transpose.getPermutation());
  std::swap(q[rank - 2], q[rank - 1]);
  bool identity = true;
  for (int64_t i = 0; i < rank; ++i)
    identity &= q[i] == i;
  if (!identity && q[rank - 1] != rank - 1)
    return;
  // A transpose that is left and read elsewhere too would run twice.
  if (!identity &&
      (!transpose->hasOneUse() || (reshape && !reshape->hasOneUse())))
    return;
  OpBuilder b(op);
  Location loc = transpose.getLoc();
  Value value = transpose.getX();
  if (!identity) {
    auto moved = train::TransposeOp::create(b, loc, swapLastTwo(transposedType),
                                            value, b.getDenseI64ArrayAttr(q));
    moved->setDiscardableAttrs(transpose->getDiscardableAttrDictionary());
    value = moved.getResult();
  }
  if (reshape)
    value = train::ReshapeOp::create(b, reshape.getLoc(),
                                     swapLastTwo(operandType), value);
  if (lhs) {
    op.getLhsMutable().assign(value);
    op.setTransposeLhs(!op.getTransposeLhs());
  } else {
    op.getRhsMutable().assign(value);
    op.setTransposeRhs(!op.getTransposeRhs());
  }
  if (reshape && reshape->use_empty())
    reshape->erase();
  if (transpose->use_empty())
    transpose->erase();
}

/// reduce_sum over the batch of a batched x^T y (`transpose_lhs`, lhs
/// [B..., K, M], rhs [B..., K, N], nothing else reading the product): one
/// product over the stacked rows, x reshaped to [B K, M] and y to [B K, N]
/// (no copy), which is the same sum of products (TensorFlow's gradient of
/// an einsum's kernel, as Keras' MultiHeadAttention and EinsumDense give,
/// is of this form). The batched product's [B, M, N] result is never
/// written, and under a 16-bit policy the sum is accumulated in the
/// product's f32 accumulator rather than rounded per batch.
void sumBatchedProduct(train::ReduceSumOp sum) {
  auto product = sum.getX().getDefiningOp<train::MatmulOp>();
  if (!product || !product->hasOneUse() || !product.getTransposeLhs() ||
      product.getTransposeRhs())
    return;
  auto lhsType = cast<RankedTensorType>(product.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(product.getRhs().getType());
  auto productType = product.getType();
  int64_t rank = productType.getRank();
  int64_t batchRank = rank - 2;
  if (batchRank < 1 || lhsType.getRank() != rank || rhsType.getRank() != rank ||
      !lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
      lhsType.getShape().drop_back(2) != rhsType.getShape().drop_back(2) ||
      sum.getType().getElementType() != productType.getElementType())
    return;
  // The sum is over exactly the batch dimensions.
  SmallVector<int64_t> dims;
  for (int64_t d : sum.getDims())
    dims.push_back(d < 0 ? d + rank : d);
  llvm::sort(dims);
  if (static_cast<int64_t>(dims.size()) != batchRank)
    return;
  for (int64_t i = 0; i < batchRank; ++i)
    if (dims[i] != i)
      return;
  int64_t rows = 1;
  for (int64_t d : lhsType.getShape().drop_back(1))
    rows *= d;
  int64_t m = lhsType.getShape().back(), n = rhsType.getShape().back();
  OpBuilder b(sum);
  Location loc = product.getLoc();
  Value lhs = train::ReshapeOp::create(b, loc, lhsType.clone({rows, m}),
                                       product.getLhs());
  Value rhs = train::ReshapeOp::create(b, loc, rhsType.clone({rows, n}),
                                       product.getRhs());
  auto stacked = train::MatmulOp::create(b, loc, productType.clone({m, n}), lhs,
                                         rhs, b.getUnitAttr());
  stacked->setDiscardableAttrs(product->getDiscardableAttrDictionary());
  Value result = stacked.getResult();
  if (sum.getType().getShape() != ArrayRef<int64_t>{m, n})
    result = train::ReshapeOp::create(b, loc, sum.getType(), result);
  sum.getResult().replaceAllUsesWith(result);
  sum->erase();
  product->erase();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// Builds the ops of one attention decomposition at the op it replaces:
/// each carries the op's discardable attributes; `pinned` ones (the
/// scaling and masking between the products) are forced to f32.
class AttentionBuilder {
public:
  AttentionBuilder(Operation *op) : b(op), loc(op->getLoc()), op(op) {}

  template <typename Op, typename... Args> Value make(Args &&...args) {
    auto made = Op::create(b, loc, std::forward<Args>(args)...);
    made->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    return made->getResult(0);
  }
  template <typename Op, typename... Args> Value pinned(Args &&...args) {
    Value v = make<Op>(std::forward<Args>(args)...);
    v.getDefiningOp()->setAttr(kForceAttrName, b.getStringAttr("fp32"));
    return v;
  }

  /// `x` times the constant `factor`.
  Value scaled(Value x, double factor) {
    Value f = pinned<train::FillOp>(x.getType(), b.getF64FloatAttr(factor));
    return pinned<train::MulOp>(x, f);
  }

  /// `mask` broadcast to `type`'s shape, aligned at the last dimension.
  Value broadcastTo(Value mask, RankedTensorType type) {
    auto maskType = cast<RankedTensorType>(mask.getType());
    auto target = type.clone(maskType.getElementType());
    if (maskType == target)
      return mask;
    int64_t lead = target.getRank() - maskType.getRank();
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < maskType.getRank(); ++i)
      dims.push_back(lead + i);
    return pinned<train::BroadcastOp>(target, mask, dims);
  }

  /// softmax(masked(scale * q @ k^T)) over the keys. The masks are
  /// broadcast before the product, so that the scaling, masking and their
  /// fills are consecutive elementwise ops (one fused region with generated
  /// code, docs/codegen.md).
  Value probabilities(Value q, Value k, Value mask, bool causal,
                      double scale) {
    auto qType = cast<RankedTensorType>(q.getType());
    SmallVector<int64_t> shape(qType.getShape());
    int64_t rank = qType.getRank();
    int64_t tq = shape[rank - 2], tk = shapeOf(k)[rank - 2];
    shape[rank - 1] = tk;
    auto scoresType = qType.clone(shape);
    Value causalKeep, keep, added;
    if (causal) {
      SmallVector<bool> lower;
      for (int64_t i = 0; i < tq; ++i)
        for (int64_t j = 0; j < tk; ++j)
          lower.push_back(j <= i);
      auto type = RankedTensorType::get({tq, tk}, b.getI1Type());
      causalKeep = broadcastTo(
          make<train::ConstantOp>(
              type, DenseElementsAttr::get(type, ArrayRef<bool>(lower))),
          scoresType);
    }
    if (mask && elementOf(mask).isInteger(1)) {
      keep = broadcastTo(mask, scoresType);
    } else if (mask) {
      if (elementOf(mask) != qType.getElementType())
        mask = pinned<mpd::CastOp>(
            cast<RankedTensorType>(mask.getType())
                .clone(qType.getElementType()),
            mask);
      added = broadcastTo(mask, scoresType);
    }
    Value s = make<train::MatmulOp>(scoresType, q, k, false, true);
    s = scaled(s, scale);
    Value minusInf;
    auto excluding = [&](Value kept) {
      if (!minusInf)
        minusInf = pinned<train::FillOp>(
            scoresType,
            b.getF64FloatAttr(-std::numeric_limits<double>::infinity()));
      return pinned<train::SelectOp>(kept, s, minusInf);
    };
    if (causalKeep)
      s = excluding(causalKeep);
    if (keep)
      s = excluding(keep);
    if (added)
      s = pinned<train::AddOp>(s, added);
    return make<train::SoftmaxOp>(s, b.getI64IntegerAttr(-1));
  }

  static ArrayRef<int64_t> shapeOf(Value v) {
    return cast<ShapedType>(v.getType()).getShape();
  }
  static Type elementOf(Value v) {
    return cast<ShapedType>(v.getType()).getElementType();
  }

private:
  OpBuilder b;
  Location loc;
  Operation *op;
};

/// The scale of an attention op: its attribute or 1/sqrt(D).
template <typename Op> double attentionScale(Op op) {
  if (std::optional<APFloat> scale = op.getScale())
    return scale->convertToDouble();
  ArrayRef<int64_t> q = AttentionBuilder::shapeOf(op.getQuery());
  return 1.0 / std::sqrt(static_cast<double>(q.back()));
}

/// The probabilities a forward attention computed, for its gradient.
struct SharedProbabilities {
  Operation *forward;
  Value query, key, mask;
  bool causal;
  double scale;
  Value probabilities;
};

void lowerAttention(train::AttentionOp op,
                    SmallVectorImpl<SharedProbabilities> &shared) {
  AttentionBuilder ab(op);
  double scale = attentionScale(op);
  Value p = ab.probabilities(op.getQuery(), op.getKey(), op.getMask(),
                             op.getCausal(), scale);
  shared.push_back({op, op.getQuery(), op.getKey(), op.getMask(),
                    op.getCausal(), scale, p});
  Value out = ab.make<train::MatmulOp>(op.getType(), p, op.getValue());
  op.getResult().replaceAllUsesWith(out);
}

void lowerAttentionGrad(train::AttentionGradOp op,
                        ArrayRef<SharedProbabilities> shared) {
  AttentionBuilder ab(op);
  double scale = attentionScale(op);
  Value p;
  for (const SharedProbabilities &s : shared)
    if (s.query == op.getQuery() && s.key == op.getKey() &&
        s.mask == op.getMask() && s.causal == op.getCausal() &&
        s.scale == scale && s.forward->getBlock() == op->getBlock())
      p = s.probabilities;
  if (!p)
    p = ab.probabilities(op.getQuery(), op.getKey(), op.getMask(),
                         op.getCausal(), scale);
  Value grad = op.getGrad();
  Value dv = ab.make<train::MatmulOp>(op.getGradValue().getType(), p, grad,
                                      true, false);
  Value dp = ab.make<train::MatmulOp>(p.getType(), grad, op.getValue(), false,
                                      true);
  Value ds = ab.make<train::SoftmaxGradOp>(p.getType(), dp, p,
                                           OpBuilder(op).getI64IntegerAttr(-1));
  ds = ab.scaled(ds, scale);
  Value dq = ab.make<train::MatmulOp>(op.getGradQuery().getType(), ds,
                                      op.getKey());
  Value dk = ab.make<train::MatmulOp>(op.getGradKey().getType(), ds,
                                      op.getQuery(), true, false);
  op.getGradQuery().replaceAllUsesWith(dq);
  op.getGradKey().replaceAllUsesWith(dk);
  op.getGradValue().replaceAllUsesWith(dv);
}

/// What operand `v` of a binary elementwise op is at the small shape: the
/// source of a train.broadcast (with its dims in `dims`, which the other
/// operand's broadcast must share) or a train.fill (any shape); null when
/// it is neither.
struct SmallOperand {
  train::BroadcastOp broadcast;
  train::FillOp fill;
};
std::optional<SmallOperand> smallOperand(Value v) {
  if (auto b = v.getDefiningOp<train::BroadcastOp>())
    return SmallOperand{b, nullptr};
  if (auto f = v.getDefiningOp<train::FillOp>())
    return SmallOperand{nullptr, f};
  return std::nullopt;
}

/// add / sub / mul / div / maximum / minimum of two broadcasts of the same
/// shape and dims, or of a broadcast and a fill: the op on the broadcast's
/// source shape, then one broadcast (exact: each element of the result is
/// the op on the same two values). The mean's gradient as PyTorch writes
/// it, div(broadcast(g), fill(N)), then computes N x fewer divisions and
/// writes no full-size fill. Returns whether it rewrote `op`.
bool narrowOverBroadcast(Operation *op) {
  if (!isa<train::AddOp, train::SubOp, train::MulOp, train::DivOp,
           train::MaximumOp, train::MinimumOp>(op) ||
      op->getNumOperands() != 2 || op->getNumResults() != 1)
    return false;
  std::optional<SmallOperand> lhs = smallOperand(op->getOperand(0)),
                              rhs = smallOperand(op->getOperand(1));
  if (!lhs || !rhs || (!lhs->broadcast && !rhs->broadcast))
    return false;
  train::BroadcastOp shape = lhs->broadcast ? lhs->broadcast : rhs->broadcast;
  auto small = dyn_cast<RankedTensorType>(shape.getX().getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!small || !result)
    return false;
  for (std::optional<SmallOperand> o : {lhs, rhs})
    if (o->broadcast &&
        (o->broadcast.getDims() != shape.getDims() ||
         cast<ShapedType>(o->broadcast.getX().getType()).getShape() !=
             small.getShape()))
      return false;
  OpBuilder b(op);
  auto narrow = [&](SmallOperand o) -> Value {
    if (o.broadcast)
      return o.broadcast.getX();
    auto type = cast<RankedTensorType>(o.fill.getType());
    auto fill = train::FillOp::create(b, op->getLoc(),
                                      type.clone(small.getShape()),
                                      o.fill.getValueAttr());
    fill->setDiscardableAttrs(o.fill->getDiscardableAttrDictionary());
    return fill;
  };
  Value operands[2] = {narrow(*lhs), narrow(*rhs)};
  Operation *narrowed = b.clone(*op);
  narrowed->setOperands(operands);
  narrowed->getResult(0).setType(result.clone(small.getShape()));
  auto wide = train::BroadcastOp::create(b, op->getLoc(), result,
                                         narrowed->getResult(0),
                                         shape.getDimsAttr());
  wide->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op->getResult(0).replaceAllUsesWith(wide.getResult());
  // The wide operands, unless something else reads them (both may be the
  // same op: mul(b, b)).
  Operation *defs[2] = {op->getOperand(0).getDefiningOp(), nullptr};
  if (Operation *other = op->getOperand(1).getDefiningOp(); other != defs[0])
    defs[1] = other;
  op->erase();
  for (Operation *def : defs)
    if (def && def->use_empty())
      def->erase();
  return true;
}

struct DecomposePass : public mp::impl::DecomposeBase<DecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<train::AdaptiveAvgPool2DOp, train::AdaptiveAvgPool2DGradOp,
              train::Conv1DOp, train::Conv1DBackwardDataOp,
              train::Conv1DBackwardFilterOp, train::AttentionOp,
              train::AttentionGradOp, train::MatmulOp>(op))
        ops.push_back(op);
    });
    // In walk (program) order: a forward attention comes before its
    // gradient, which then reuses its probabilities.
    SmallVector<SharedProbabilities> shared;
    // The attention ops, erased after the loop. `ops` itself is not read
    // again: the loop erases the ops it replaces (pools, conv1d).
    SmallVector<Operation *> attentions;
    for (Operation *op : ops) {
      if (auto matmul = dyn_cast<train::MatmulOp>(op)) {
        lowerBroadcastMatmul(matmul);
        foldTransposeIntoMatmul(matmul, /*lhs=*/true);
        foldTransposeIntoMatmul(matmul, /*lhs=*/false);
        continue;
      }
      if (auto attention = dyn_cast<train::AttentionOp>(op)) {
        lowerAttention(attention, shared);
        attentions.push_back(op);
        continue;
      }
      if (auto grad = dyn_cast<train::AttentionGradOp>(op)) {
        lowerAttentionGrad(grad, shared);
        attentions.push_back(op);
        continue;
      }
      if (auto conv = dyn_cast<train::Conv1DOp>(op)) {
        lowerConv1d<train::Conv2DOp>(conv, false);
        continue;
      }
      if (auto data = dyn_cast<train::Conv1DBackwardDataOp>(op)) {
        lowerConv1d<train::Conv2DBackwardDataOp>(data, false);
        continue;
      }
      if (auto filter = dyn_cast<train::Conv1DBackwardFilterOp>(op)) {
        lowerConv1d<train::Conv2DBackwardFilterOp>(filter, true);
        continue;
      }
      if (auto pool = dyn_cast<train::AdaptiveAvgPool2DOp>(op)) {
        if (auto window = divisibleWindow(pool.getLayout(), pool.getX(),
                                          pool.getResult()))
          replaceWith<train::AvgPool2DOp>(op, pool.getType(), pool.getX(),
                                          pool.getLayout(), *window);
        continue;
      }
      auto grad = cast<train::AdaptiveAvgPool2DGradOp>(op);
      if (auto window = divisibleWindow(grad.getLayout(), grad.getResult(),
                                        grad.getGrad()))
        replaceWith<train::AvgPool2DGradOp>(op, grad.getType(), grad.getGrad(),
                                            grad.getLayout(), *window);
    }
    // The attention ops go last: their probabilities may be shared.
    for (Operation *op : attentions)
      op->erase();
    // Elementwise ops over broadcasts, in program order (a narrowed op's
    // broadcast may feed the next one: div(broadcast(g), fill) then
    // mul(that, broadcast(h)) narrow in turn).
    SmallVector<Operation *> elementwise;
    getOperation().walk([&](Operation *op) {
      if (isa<train::AddOp, train::SubOp, train::MulOp, train::DivOp,
              train::MaximumOp, train::MinimumOp>(op))
        elementwise.push_back(op);
    });
    for (Operation *op : elementwise)
      narrowOverBroadcast(op);
    // Sums over the batch of batched products, after the products' batches
    // were made equal above.
    SmallVector<train::ReduceSumOp> sums;
    getOperation().walk([&](train::ReduceSumOp sum) { sums.push_back(sum); });
    for (train::ReduceSumOp sum : sums)
      sumBatchedProduct(sum);
  }
};

} // namespace
