//===- PrecisionAnalysis.cpp - which ops compute in 16 bits ---------------===//
#include "mp/Analysis/PrecisionAnalysis.h"

#include "mp/Dialect/MP/IR/MPDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mp;

bool mp::isOperandConvertible(Operation *op, unsigned index) {
  if (auto iface = dyn_cast<PrecisionOpInterface>(op))
    return iface.isOperandConvertible(index);
  return true;
}

bool mp::isResultConvertible(Operation *op, unsigned index) {
  if (auto iface = dyn_cast<PrecisionOpInterface>(op))
    return iface.isResultConvertible(index);
  return true;
}

bool mp::isPaintableType(Type type, Type computeType) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  Type element = tensor.getElementType();
  return element.isF32() || (computeType && element == computeType);
}

static bool fits(APFloat value, const llvm::fltSemantics &semantics) {
  if (value.isNaN() || value.isInfinity())
    return true;
  bool wasZero = value.isZero();
  bool losesInfo = false;
  value.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return !value.isInfinity() && (wasZero || !value.isZero());
}

bool mp::constantFits(Attribute value, FloatType type) {
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  if (auto scalar = dyn_cast<FloatAttr>(value))
    return fits(scalar.getValue(), semantics);
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value)) {
    if (dense.isSplat())
      return fits(dense.getSplatValue<APFloat>(), semantics);
    return llvm::all_of(dense.getValues<APFloat>(),
                        [&](APFloat v) { return fits(v, semantics); });
  }
  return true;
}

/// Whether `op` has a value the painting could give the compute dtype, and
/// no convertible value of another float type (an op the user already gave
/// a dtype mix, such as bf16 x bf16 -> f32 under mixed_float16, is left
/// as it is).
static bool hasPaintableValue(Operation *op, Type computeType) {
  bool paintable = false, lowOperand = false, f32Result = false;
  auto visit = [&](Type type, bool &sawLow, bool &sawF32) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !isa<FloatType>(tensor.getElementType()))
      return true;
    if (!isPaintableType(type, computeType))
      return false;
    paintable = true;
    sawLow |= tensor.getElementType() == computeType;
    sawF32 |= tensor.getElementType().isF32();
    return true;
  };
  bool ignored = false;
  for (OpOperand &operand : op->getOpOperands())
    if (isOperandConvertible(op, operand.getOperandNumber()) &&
        !visit(operand.get().getType(), lowOperand, ignored))
      return false;
  for (OpResult result : op->getResults())
    if (isResultConvertible(op, result.getResultNumber()) &&
        !visit(result.getType(), ignored, f32Result))
      return false;
  // 16-bit inputs with an f32 result (bf16 x bf16 -> f32) is a choice the
  // input already made: narrowing the result would undo it.
  return paintable && !(lowOperand && f32Result);
}

static NodeKind kindOf(PrecisionCategory category) {
  switch (category) {
  case PrecisionCategory::Allow:
    return NodeKind::Allow;
  case PrecisionCategory::Deny:
    return NodeKind::Deny;
  case PrecisionCategory::Infer:
    return NodeKind::Infer;
  case PrecisionCategory::Clear:
    return NodeKind::Clear;
  }
  llvm_unreachable("unknown category");
}

PrecisionAnalysis::PrecisionAnalysis(
    FunctionOpInterface fn, const PrecisionPolicy &policy,
    const llvm::SmallPtrSetImpl<Operation *> *residual)
    : residual(residual) {
  Type computeType = policy.getComputeType(fn->getContext());
  // One block only: values crossing blocks would need casts on every edge.
  if (!computeType || !llvm::hasSingleElement(fn.getFunctionBody()))
    return;
  build(fn, policy, computeType);
  paint(/*followAllow=*/policy.getKind() == PolicyKind::MixedBFloat16);
}

void PrecisionAnalysis::build(FunctionOpInterface fn,
                              const PrecisionPolicy &policy,
                              Type computeType) {
  auto *mpDialect = fn->getContext()->getLoadedDialect<mpd::MPDialect>();
  auto lowType = cast<FloatType>(computeType);
  for (Operation &op : fn.getFunctionBody().front().without_terminator()) {
    // mp ops (casts, loss scaling) are boundaries, not painted; ops with
    // regions only when their interface says how (linalg named ops).
    if (op.getDialect() == mpDialect ||
        (op.getNumRegions() != 0 && !isa<PrecisionOpInterface>(op)) ||
        !hasPaintableValue(&op, computeType))
      continue;
    index[&op] = nodes.size();
    nodes.push_back(&op);
    PrecisionPolicy::Lookup lookup = policy.lookup(&op);
    PrecisionDecision decision;
    decision.category = lookup.category;
    decision.source = lookup.reason;
    decision.kind = lookup.category ? kindOf(*lookup.category) : NodeKind::Fixed;
    // residual=f32: the stream stays fp32, like a deny op (it also keeps
    // the ops it feeds that follow it, such as the next norm, in fp32).
    if (residual && residual->contains(&op) &&
        decision.source != StringRef("forced-low")) {
      decision.kind = NodeKind::Deny;
      decision.rule = "residual";
    }
    // A constant that the compute dtype cannot hold keeps its users fp32.
    Attribute value;
    if (decision.kind != NodeKind::Fixed && decision.kind != NodeKind::Deny &&
        (matchPattern(&op, m_Constant(&value)) ||
         (value = op.getAttr("value"))) &&
        !constantFits(value, lowType)) {
      decision.kind = NodeKind::Deny;
      decision.rule = "constant-out-of-range";
    }
    decisions.push_back(decision);
  }

  // Like TensorFlow's fetch nodes, an op whose result the function returns
  // keeps fp32 (in train graphs these are the loss and the optimizer
  // updates, denied anyway; in plain arith/linalg graphs this keeps the
  // parameter update out of 16 bits).
  // Only a returned result that would change dtype counts (batch norm's
  // running statistics stay f32 whatever the op does), and forcing an op
  // low wins.
  Operation *terminator = fn.getFunctionBody().front().getTerminator();
  for (Value returned : terminator->getOperands()) {
    auto result = dyn_cast<OpResult>(returned);
    if (!result)
      continue;
    auto it = index.find(result.getOwner());
    if (it == index.end() ||
        !isResultConvertible(result.getOwner(), result.getResultNumber()))
      continue;
    PrecisionDecision &decision = decisions[it->second];
    if (decision.kind != NodeKind::Deny && decision.source != "forced-low") {
      decision.kind = NodeKind::Fixed;
      decision.rule = "returned";
    }
  }

  fanin.resize(nodes.size());
  fanout.resize(nodes.size());
  for (auto [consumer, op] : llvm::enumerate(nodes)) {
    for (OpOperand &operand : op->getOpOperands()) {
      auto result = dyn_cast<OpResult>(operand.get());
      if (!result || !isOperandConvertible(op, operand.getOperandNumber()) ||
          !isPaintableType(result.getType(), computeType))
        continue;
      // A result that keeps its dtype still carries the painting's
      // information when an allow op produced it: a contraction whose f32
      // accumulator is its result (linalg, tosa) computes in 16 bits.
      auto producer = index.find(result.getOwner());
      if (producer == index.end() ||
          (!isResultConvertible(result.getOwner(), result.getResultNumber()) &&
           decisions[producer->second].kind != NodeKind::Allow))
        continue;
      fanin[consumer].push_back(producer->second);
      fanout[producer->second].push_back(consumer);
    }
  }
}

void PrecisionAnalysis::paint(bool followAllow) {
  size_t n = nodes.size();
  auto kind = [&](unsigned i) { return decisions[i].kind; };
  auto isInferOrClear = [&](unsigned i) {
    return kind(i) == NodeKind::Infer || kind(i) == NodeKind::Clear;
  };
  std::vector<char> denied(n, 0);
  auto setLow = [&](unsigned i, StringRef rule) {
    decisions[i].low = true;
    decisions[i].rule = rule;
  };

  // Generic breadth-first search from `seeds` along `edges`, visiting nodes
  // that `admit` accepts; returns the visited set (seeds excluded unless
  // reached again).
  auto search = [&](ArrayRef<unsigned> seeds,
                    ArrayRef<SmallVector<unsigned, 2>> edges,
                    function_ref<bool(unsigned)> admit) {
    std::vector<char> seen(n, 0);
    SmallVector<unsigned> queue(seeds.begin(), seeds.end());
    while (!queue.empty()) {
      unsigned u = queue.pop_back_val();
      for (unsigned v : edges[u])
        if (!seen[v] && admit(v)) {
          seen[v] = 1;
          queue.push_back(v);
        }
    }
    return seen;
  };

  // 1. Allow ops are low.
  SmallVector<unsigned> allow, deny;
  for (unsigned i = 0; i < n; ++i) {
    if (kind(i) == NodeKind::Allow) {
      allow.push_back(i);
      setLow(i, "allow");
    } else if (kind(i) == NodeKind::Deny) {
      deny.push_back(i);
    }
  }

  // 2. Deny spreads forward through infer/clear ops; an infer op reached is
  // denied, and so is a clear op on the way from a deny op to an infer or
  // deny op (a clear op right before an allow op stays free).
  std::vector<char> reached = search(deny, fanout, isInferOrClear);
  SmallVector<unsigned> ends(deny.begin(), deny.end());
  for (unsigned i = 0; i < n; ++i)
    if (reached[i] && kind(i) == NodeKind::Infer) {
      denied[i] = 1;
      ends.push_back(i);
    }
  std::vector<char> leadsToDeny = search(ends, fanin, [&](unsigned i) {
    return reached[i] && kind(i) == NodeKind::Clear;
  });
  for (unsigned i = 0; i < n; ++i)
    if (leadsToDeny[i])
      denied[i] = 1;
  auto isFree = [&](unsigned i) { return isInferOrClear(i) && !denied[i]; };

  // 3. Infer/clear ops both downstream and upstream of allow ops are low.
  std::vector<char> down = search(allow, fanout, isFree);
  std::vector<char> up = search(allow, fanin, isFree);
  for (unsigned i = 0; i < n; ++i)
    if (down[i] && up[i])
      setLow(i, "between-allow");

  // 4. (bf16) In block order, an infer or clear op with a low input and no
  // denied input follows it.
  if (followAllow) {
    for (unsigned i = 0; i < n; ++i) {
      if (!isFree(i) || decisions[i].low)
        continue;
      bool lowInput = false, denyInput = false;
      for (unsigned p : fanin[i]) {
        lowInput |= decisions[p].low;
        denyInput |= kind(p) == NodeKind::Deny || denied[p];
      }
      if (lowInput && !denyInput)
        setLow(i, "follows-low-input");
    }
  }

  // 5. Low spreads through clear ops, both ways.
  SmallVector<unsigned> lows;
  for (unsigned i = 0; i < n; ++i)
    if (decisions[i].low)
      lows.push_back(i);
  while (!lows.empty()) {
    unsigned u = lows.pop_back_val();
    for (ArrayRef<SmallVector<unsigned, 2>> edges : {ArrayRef(fanin), ArrayRef(fanout)})
      for (unsigned v : edges[u])
        if (!decisions[v].low && kind(v) == NodeKind::Clear && !denied[v]) {
          setLow(v, "clear-next-to-low");
          lows.push_back(v);
        }
  }

  // Everything else stays fp32; say why.
  for (unsigned i = 0; i < n; ++i) {
    PrecisionDecision &d = decisions[i];
    if (d.low || !d.rule.empty())
      continue;
    if (kind(i) == NodeKind::Deny)
      d.rule = "deny";
    else if (denied[i])
      d.rule = "deny-spread";
    else if (kind(i) == NodeKind::Fixed)
      d.rule = "fixed-fp32";
    else
      d.rule = "no-low-neighbour";
  }
}

const PrecisionDecision *PrecisionAnalysis::lookup(Operation *op) const {
  auto it = index.find(op);
  return it == index.end() ? nullptr : &decisions[it->second];
}
