//===- FuseOptimizers.cpp - elementwise SGD to train.sgd ------------------===//
//
// Matches the elementwise forms of SGD and SGD with momentum around a
// train.gradient marker (Passes.td has the patterns) and replaces them by
// the fused optimizer ops; the ops the match made dead are erased.
//
//===----------------------------------------------------------------------===//
#include "mp/Transforms/Passes.h"
#include "mp/Transforms/Functions.h"

#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace mp {
#define GEN_PASS_DEF_FUSEOPTIMIZERS
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

/// The value of a splat constant (train.fill or a splat train.constant).
std::optional<double> splatOf(Value v) {
  if (auto fill = v.getDefiningOp<train::FillOp>())
    return fill.getValue().convertToDouble();
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr)))
    if (auto dense = dyn_cast<DenseFPElementsAttr>(attr))
      if (dense.isSplat())
        return dense.getSplatValue<APFloat>().convertToDouble();
  return std::nullopt;
}

/// `v` = mul(constant, x) in either order: the constant and x.
std::optional<std::pair<double, Value>> scaled(Value v) {
  auto mul = v.getDefiningOp<train::MulOp>();
  if (!mul)
    return std::nullopt;
  if (auto c = splatOf(mul.getLhs()))
    return std::make_pair(*c, mul.getRhs());
  if (auto c = splatOf(mul.getRhs()))
    return std::make_pair(*c, mul.getLhs());
  return std::nullopt;
}

/// `v` = a + b as its two operands (either order is the caller's).
std::optional<std::pair<Value, Value>> sum(Value v) {
  if (auto add = v.getDefiningOp<train::AddOp>())
    return std::make_pair(add.getLhs(), add.getRhs());
  return std::nullopt;
}

struct FuseOptimizersPass
    : public mp::impl::FuseOptimizersBase<FuseOptimizersPass> {
  void runOnOperation() override {
    for (auto fn : functionsIn(getOperation()))
      if (train::isTrainStep(fn))
        fuse(fn);
  }

  FunctionOpInterface fn;
  Operation *terminator = nullptr;
  /// The argument each returned value replaces, by role.
  llvm::DenseMap<Value, BlockArgument> replaced;

  /// g' = g or g + wd * p: the weight decay (0 without the term).
  std::optional<double> decayedGradient(Value v, Value grad, Value param) {
    if (v == grad)
      return 0.0;
    auto s = sum(v);
    if (!s)
      return std::nullopt;
    for (auto [a, b] : {*s, std::make_pair(s->second, s->first)}) {
      auto decay = scaled(b);
      if (a == grad && decay && decay->second == param)
        return decay->first;
    }
    return std::nullopt;
  }

  /// new = p - lr * x, as sub(p, mul) or add(p, neg(mul)): lr and x.
  std::optional<std::pair<double, Value>> descent(Value next, Value param) {
    Value step;
    if (auto sub = next.getDefiningOp<train::SubOp>()) {
      if (sub.getLhs() != param)
        return std::nullopt;
      step = sub.getRhs();
    } else if (auto s = sum(next)) {
      Value other = s->first == param ? s->second : s->first;
      if (s->first != param && s->second != param)
        return std::nullopt;
      auto neg = other.getDefiningOp<train::NegOp>();
      if (!neg)
        return std::nullopt;
      step = neg.getX();
    } else {
      return std::nullopt;
    }
    return scaled(step);
  }

  void fuse(FunctionOpInterface step) {
    fn = step;
    Block &body = fn.getFunctionBody().front();
    terminator = body.getTerminator();
    SmallVector<int> updated = train::getUpdatedArguments(fn);
    replaced.clear();
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      if (updated[i] >= 0)
        replaced[terminator->getOperand(i)] =
            body.getArgument(static_cast<unsigned>(updated[i]));
    SmallVector<train::GradientOp> markers(body.getOps<train::GradientOp>());
    for (train::GradientOp marker : markers)
      fuseAt(marker);
  }

  /// The returned value among `v`'s users' results that replaces an
  /// argument of `role`, with that argument.
  bool isUpdateOf(Value next, Value state, train::Role role) {
    auto it = replaced.find(next);
    if (it == replaced.end() || it->second != state)
      return false;
    auto arg = train::getArgRole(fn, it->second.getArgNumber());
    return arg && *arg == role;
  }

  void fuseAt(train::GradientOp marker) {
    Value grad = marker.getResult();
    // The parameter: the argument whose update reads the marker.
    for (auto [next, arg] : llvm::to_vector(replaced)) {
      if (!isUpdateOf(next, arg, train::Role::Param))
        continue;
      auto d = descent(next, arg);
      if (!d)
        continue;
      auto [lr, x] = *d;
      OpBuilder b(next.getDefiningOp());
      Location loc = next.getLoc();
      // Plain SGD: x is g'.
      if (auto wd = decayedGradient(x, grad, arg)) {
        auto sgd = train::SgdOp::create(b, loc, arg, grad,
                                        b.getF64FloatAttr(lr),
                                        APFloat(*wd), Value());
        replace(next, sgd.getResult());
        return;
      }
      // Momentum: x is b' = mu * b + k * g', b' the buffer's new value.
      auto s = sum(x);
      if (!s)
        continue;
      for (auto [first, second] :
           {*s, std::make_pair(s->second, s->first)}) {
        auto decayedBuffer = scaled(first);
        if (!decayedBuffer)
          continue;
        auto [mu, buffer] = *decayedBuffer;
        if (!isUpdateOf(x, buffer, train::Role::OptState))
          continue;
        double keep = 1;
        Value gPrime = second;
        if (auto k = scaled(second)) {
          keep = k->first;
          gPrime = k->second;
        }
        auto wd = decayedGradient(gPrime, grad, arg);
        if (!wd || !(mu > 0 && mu <= 1) || !(keep >= 0 && keep <= 1))
          continue;
        auto fused = train::SgdMomentumOp::create(
            b, loc, arg, grad, buffer, b.getF64FloatAttr(lr), APFloat(mu),
            APFloat(1 - keep), APFloat(*wd), /*nesterov=*/false, Value());
        // The buffer's new value is returned: the fused op computes it
        // where the update is, which is after every use of b' (its users
        // are the update and the return).
        replace(x, fused.getNewMomentumBuffer());
        replace(next, fused.getNewParam());
        return;
      }
    }
  }

  /// Uses of `old` read `now`; the ops that computed `old` go where they
  /// are dead.
  void replace(Value old, Value now) {
    Operation *def = old.getDefiningOp();
    old.replaceAllUsesWith(now);
    replaced[now] = replaced.lookup(old);
    replaced.erase(old);
    eraseDead(def);
  }

  /// Erases `root` if nothing reads it, then each op that erasing it left
  /// unread, and so on. An op joins the work list at the moment its last
  /// reader is erased, so each one once and while it is alive: erasing
  /// one operand's op may erase another operand's (a constant that is
  /// both the learning rate and the weight decay), whose results must not
  /// be read again.
  void eraseDead(Operation *root) {
    SmallVector<Operation *> work{root};
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      if (!op || !op->use_empty() || isa<train::GradientOp>(op))
        continue;
      llvm::SmallSetVector<Operation *, 4> defs;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          defs.insert(def);
      op->erase();
      for (Operation *def : defs)
        if (def->use_empty())
          work.push_back(def);
    }
  }
};

} // namespace
