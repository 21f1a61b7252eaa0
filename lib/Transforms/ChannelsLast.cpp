//===- ChannelsLast.cpp - image ops of a convolution chain in NHWC --------===//
//
// A step written in PyTorch's NCHW runs each convolution through oneDNN's
// channels-last (or blocked) kernels: in NCHW every call would reorder its
// images on the way in and out. This pass rewrites every NCHW image op of
// a function with a convolution to its NHWC form (convolutions and their
// gradients on NHWC images with the filter as it is, `filter_layout`
// OIHW: the backends reorder a filter into their own blocked layout on
// every call anyway, from OIHW as fast as from HWIO, so a transpose of
// every weight and weight gradient per step would be pure cost; batch
// norm on the last dimension, pooling and global / adaptive average
// pooling and their gradients) between transposes, then lets the
// transposes meet and cancel:
//
//  - an image op's operand that is the NCHW transpose of an NHWC value
//    reads that value (no transpose);
//  - an elementwise op (same operand and result type: relu, relu_grad,
//    add, mul, ...; and mp.cast) with such an operand runs on the NHWC
//    values instead, its other operands transposed, its result transposed
//    back for readers still in NCHW;
//
// so that the chain conv -> batch norm -> relu -> pool -> conv and its
// backward pass run in NHWC and transposes stay only where a value enters
// or leaves the chain (the step's input image, ops that have no NHWC
// form). The transposes the rewrite leaves unread are erased. The
// step's interface (arguments, results, parameter layouts) is unchanged.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mp {
#define GEN_PASS_DEF_CHANNELSLAST
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// NCHW -> NHWC and NHWC -> NCHW.
constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

/// What a 4-D operand or result of an image op is (a filter stays as it
/// is).
enum class Role { Image, Filter, Other };

RankedTensorType permuted(Type type, ArrayRef<int64_t> perm) {
  auto ranked = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(ranked.getDimSize(p));
  return ranked.clone(shape);
}

bool isRank4(Type type) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  return ranked && ranked.getRank() == 4;
}

bool isConv(Operation *op) {
  return isa<train::Conv2DOp, train::Conv2DBackwardDataOp,
             train::Conv2DBackwardFilterOp>(op);
}

/// Whether `op` is an image op this pass rewrites: NCHW (a `layout`
/// attribute) or a batch norm over dimension 1 of a 4-D tensor.
bool isNchwImageOp(Operation *op) {
  if (auto bn = dyn_cast<train::BatchNormOp>(op))
    return bn.getFeatureDim() == 1 && isRank4(bn.getX().getType());
  if (auto bn = dyn_cast<train::BatchNormGradOp>(op))
    return bn.getFeatureDim() == 1 && isRank4(bn.getX().getType());
  if (!isConv(op) &&
      !isa<train::MaxPool2DOp, train::MaxPool2DGradOp, train::AvgPool2DOp,
           train::AvgPool2DGradOp, train::GlobalAvgPool2DOp,
           train::GlobalAvgPool2DGradOp, train::AdaptiveAvgPool2DOp,
           train::AdaptiveAvgPool2DGradOp>(op))
    return false;
  auto layout = op->getAttrOfType<train::LayoutAttr>("layout");
  return layout && layout.getValue() == train::Layout::NCHW;
}

Role operandRole(Operation *op, unsigned index) {
  if (!isRank4(op->getOperand(index).getType()))
    return Role::Other;
  if (isa<train::Conv2DOp, train::Conv2DBackwardDataOp>(op) && index == 1)
    return Role::Filter;
  return Role::Image;
}

Role resultRole(Operation *op, unsigned index) {
  if (!isRank4(op->getResult(index).getType()))
    return Role::Other;
  return isa<train::Conv2DBackwardFilterOp>(op) ? Role::Filter : Role::Image;
}

/// The ops whose every operand and result have one shape and that compute
/// element by element: train's (train::isElementwise) and mp.cast.
bool isElementwise(Operation *op) {
  return isa<mpd::CastOp>(op) || train::isElementwise(op);
}

/// The NHWC value `v` is the NCHW transpose of, or null.
Value nhwcSource(Value v) {
  auto t = v.getDefiningOp<train::TransposeOp>();
  return t && t.getPermutation() == ArrayRef<int64_t>(kToNchw) ? t.getX()
                                                               : Value();
}

class Rewriter {
public:
  explicit Rewriter(MLIRContext *context) : builder(context) {}

  /// `v` permuted by `perm`: a transpose made once per (value, perm) right
  /// after v's definition, or v's source when v is the inverse transpose of
  /// one.
  Value permute(Value v, ArrayRef<int64_t> perm, ArrayRef<int64_t> inverse) {
    if (auto t = v.getDefiningOp<train::TransposeOp>())
      if (t.getPermutation() == inverse)
        return t.getX();
    auto key = std::make_pair(v, perm.data());
    if (Value made = made_.lookup(key))
      return made;
    if (perm.data() == kToNhwc && hoistable(v, 0)) {
      Value made = hoist(v);
      made_[key] = made;
      return made;
    }
    Value t = transpose(v, perm);
    made_[key] = t;
    return t;
  }

  /// `v` transposed by `perm`, right after v's definition.
  Value transpose(Value v, ArrayRef<int64_t> perm) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(v);
    return train::TransposeOp::create(builder, v.getLoc(),
                                      permuted(v.getType(), perm), v,
                                      builder.getDenseI64ArrayAttr(perm));
  }

  /// `op` made again at the insertion point with `operands`, result types
  /// `types` and all of `op`'s attributes.
  Operation *cloneWith(Operation *op, ArrayRef<Value> operands,
                       ArrayRef<Type> types) {
    OperationState state(op->getLoc(), op->getName());
    state.addOperands(operands);
    state.addTypes(types);
    state.addAttributes(op->getAttrs());
    return builder.create(state);
  }

  /// Where NCHW dimension d is in NHWC.
  static int64_t nhwcPosition(int64_t d) {
    return d == 0 ? 0 : d == 1 ? 3 : d - 1;
  }

  /// The dims of a broadcast into an NCHW result, as they are into the
  /// NHWC one; empty when they would not increase.
  static SmallVector<int64_t> nhwcDims(ArrayRef<int64_t> dims) {
    SmallVector<int64_t> mapped;
    for (int64_t d : dims) {
      int64_t p = nhwcPosition(d);
      if (!mapped.empty() && p <= mapped.back())
        return {};
      mapped.push_back(p);
    }
    return mapped;
  }

  /// Whether the NCHW value `v` can be made in NHWC directly instead of
  /// transposed: a fill, a broadcast whose dims keep their order, or an
  /// elementwise op read only here whose operands are such values or
  /// transposes of NHWC ones (the backward pass of a mean over H and W:
  /// broadcast, fill, div).
  bool hoistable(Value v, int depth) {
    if (nhwcSource(v))
      return depth > 0;
    Operation *def = v.getDefiningOp();
    if (!def || depth > 4 || !isRank4(v.getType()))
      return false;
    if (isa<train::FillOp>(def))
      return true;
    if (auto b = dyn_cast<train::BroadcastOp>(def))
      return !nhwcDims(b.getDims()).empty();
    return isElementwise(def) && v.hasOneUse() &&
           llvm::all_of(def->getOperands(),
                        [&](Value o) { return hoistable(o, depth + 1); });
  }

  /// `v` made in NHWC (hoistable(v)); its operands through toNhwc(), so a
  /// fill or broadcast several of them read is made once. The NCHW op
  /// stays for its other readers and goes with the dead ops when there are
  /// none.
  Value hoist(Value v) {
    Operation *def = v.getDefiningOp();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(def);
    Type type = permuted(v.getType(), kToNhwc);
    Operation *made;
    if (auto b = dyn_cast<train::BroadcastOp>(def)) {
      made = train::BroadcastOp::create(
          builder, def->getLoc(), type, b.getX(),
          builder.getDenseI64ArrayAttr(nhwcDims(b.getDims())));
    } else {
      SmallVector<Value> operands;
      for (Value o : def->getOperands())
        operands.push_back(toNhwc(o));
      // Each operand's NHWC form sits right after the operand's own
      // definition, so before `def`.
      made = cloneWith(def, operands, type);
    }
    made->setDiscardableAttrs(def->getDiscardableAttrDictionary());
    maybeDead_.insert(def);
    return made->getResult(0);
  }

  Value toNhwc(Value v) { return permute(v, kToNhwc, kToNchw); }

  /// `op` made again with `operands`, result types `types` and `op`'s
  /// attributes but `layout` NHWC / `feature_dim` 3 (a convolution's
  /// filter keeps its layout: `filter_layout` OIHW unless it names
  /// another); `op`'s results are replaced by `back(new result)`.
  void remake(Operation *op, ArrayRef<Value> operands, ArrayRef<Type> types,
              function_ref<Value(unsigned, Value)> back) {
    SmallVector<Value> replacements;
    builder.setInsertionPoint(op);
    Operation *made = cloneWith(op, operands, types);
    if (op->hasAttr("layout"))
      made->setAttr("layout", train::LayoutAttr::get(op->getContext(),
                                                     train::Layout::NHWC));
    if (isConv(op) && !op->hasAttr("filter_layout"))
      made->setAttr("filter_layout",
                    train::FilterLayoutAttr::get(op->getContext(),
                                                 train::FilterLayout::OIHW));
    if (op->hasAttr("feature_dim"))
      made->setAttr("feature_dim", builder.getI64IntegerAttr(3));
    // Each image result's NCHW copy; readers that want NHWC look through
    // it in permute(), and the copy goes when nobody else reads it.
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      replacements.push_back(back(i, made->getResult(i)));
    op->replaceAllUsesWith(replacements);
    op->erase();
  }

  void imageOp(Operation *op) {
    SmallVector<Value> operands;
    for (auto [i, v] : llvm::enumerate(op->getOperands())) {
      Role role = operandRole(op, i);
      operands.push_back(role == Role::Image ? toNhwc(v) : v);
    }
    SmallVector<Type> types;
    for (OpResult r : op->getResults()) {
      Role role = resultRole(op, r.getResultNumber());
      types.push_back(role == Role::Image ? permuted(r.getType(), kToNhwc)
                                          : r.getType());
    }
    remake(op, operands, types, [&](unsigned i, Value made) -> Value {
      Role role = resultRole(op, i);
      return role == Role::Image ? transpose(made, kToNchw) : made;
    });
  }

  /// A reduce_sum / mean / max of a transposed NHWC value over dimensions
  /// whose complement keeps its order reduces the NHWC value instead (the
  /// mean over H and W that PyTorch's global average pooling becomes).
  bool reduction(Operation *op) {
    auto dims = op->getAttrOfType<DenseI64ArrayAttr>("dims");
    Value source = nhwcSource(op->getOperand(0));
    if (!dims || op->hasAttr("keep_dims") || !source)
      return false;
    SmallVector<bool> reduced(4, false);
    for (int64_t d : dims.asArrayRef()) {
      if (d < -4 || d > 3)
        return false;
      reduced[nhwcPosition(d < 0 ? d + 4 : d)] = true;
    }
    // The kept NHWC positions, in order, must be NCHW dimensions in order.
    int64_t last = -1;
    for (int64_t p = 0; p < 4; ++p) {
      if (reduced[p])
        continue;
      int64_t d = kToNhwc[p];
      if (d < last)
        return false;
      last = d;
    }
    SmallVector<int64_t> mapped;
    for (int64_t p = 0; p < 4; ++p)
      if (reduced[p])
        mapped.push_back(p);
    op->setOperand(0, source);
    op->setAttr("dims", builder.getDenseI64ArrayAttr(mapped));
    return true;
  }

  /// A transpose of a transpose reads the first one's operand with the
  /// two permutations composed, or is that operand when they cancel: the
  /// model's own permute to channels-last (ConvNeXt's
  /// `x.permute(0, 2, 3, 1)` before its LayerNorm) of a chain value the
  /// pass transposed back to NCHW is the NHWC value itself. Returns
  /// whether it changed `t`.
  bool transposeOfTranspose(train::TransposeOp t) {
    auto inner = t.getX().getDefiningOp<train::TransposeOp>();
    if (!inner)
      return false;
    ArrayRef<int64_t> first = inner.getPermutation(),
                      second = t.getPermutation();
    if (first.size() != second.size())
      return false;
    SmallVector<int64_t> composed;
    bool identity = true;
    for (auto [i, p] : llvm::enumerate(second)) {
      if (p < 0 || p >= static_cast<int64_t>(first.size()))
        return false;
      composed.push_back(first[p]);
      identity &= first[p] == static_cast<int64_t>(i);
    }
    if (identity) {
      t.getResult().replaceAllUsesWith(inner.getX());
      return true;
    }
    t.getXMutable().assign(inner.getX());
    t.setPermutation(composed);
    return true;
  }

  /// The ops hoist() copied in NHWC, erased by eraseDead() if nothing
  /// reads them any more.
  void eraseDead() {
    for (Operation *op : llvm::reverse(maybeDead_))
      if (op->use_empty())
        op->erase();
  }

  /// An elementwise op reading an NCHW transpose of an NHWC value runs in
  /// NHWC. Returns whether it did.
  bool elementwise(Operation *op) {
    if (!isRank4(op->getResult(0).getType()))
      return false;
    bool fromChain = llvm::any_of(op->getOperands(),
                                  [](Value v) { return bool(nhwcSource(v)); });
    if (!fromChain || !llvm::all_of(op->getOperands(), [](Value v) {
          return isRank4(v.getType());
        }))
      return false;
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(toNhwc(v));
    remake(op, operands, {permuted(op->getResult(0).getType(), kToNhwc)},
           [&](unsigned, Value made) { return transpose(made, kToNchw); });
    return true;
  }

private:
  OpBuilder builder;
  /// The transposes made, by value and permutation (one of the constant
  /// arrays above).
  llvm::DenseMap<std::pair<Value, const int64_t *>, Value> made_;
  llvm::SetVector<Operation *> maybeDead_;
};

struct ChannelsLast : mp::impl::ChannelsLastBase<ChannelsLast> {
  void runOnOperation() override {
    getOperation()->walk([&](FunctionOpInterface fn) {
      bool hasConv = false;
      fn->walk(
          [&](Operation *op) { hasConv |= isConv(op) && isNchwImageOp(op); });
      if (!hasConv)
        return;
      Rewriter rewriter(fn->getContext());
      SmallVector<Operation *> ops;
      fn->walk([&](Operation *op) { ops.push_back(op); });
      // Program order: a producer is rewritten before its readers, so
      // each reader finds its operand as a transpose to look through.
      for (Operation *op : ops) {
        if (isNchwImageOp(op))
          rewriter.imageOp(op);
        else if (isElementwise(op))
          rewriter.elementwise(op);
        else if (isa<train::ReduceSumOp, train::ReduceMeanOp,
                     train::ReduceMaxOp>(op))
          rewriter.reduction(op);
        else if (auto t = dyn_cast<train::TransposeOp>(op))
          rewriter.transposeOfTranspose(t);
      }
      // Transposes nobody reads any more (each was made for readers that
      // now read its source), last made first.
      SmallVector<train::TransposeOp> transposes;
      fn->walk([&](train::TransposeOp t) { transposes.push_back(t); });
      for (train::TransposeOp t : llvm::reverse(transposes))
        if (t->use_empty())
          t->erase();
      rewriter.eraseDead();
    });
  }
};

} // namespace
