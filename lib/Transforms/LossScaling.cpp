//===- LossScaling.cpp - scale the seed, guard the updates ----------------===//
#include "mp/Transforms/Passes.h"
#include "mp/Transforms/Functions.h"

#include "mp/Dialect/MP/IR/MPOps.h"
#include "mp/Dialect/Train/IR/Roles.h"
#include "mp/Dialect/Train/IR/TrainOps.h"
#include "mp/Transforms/Annotations.h"
#include "mp/Transforms/Gradients.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

namespace mp {
#define GEN_PASS_DEF_LOSSSCALING
#include "mp/Transforms/Passes.h.inc"
} // namespace mp

using namespace mlir;
using namespace mp;

namespace {

struct LossScalingPass : public mp::impl::LossScalingBase<LossScalingPass> {
  using LossScalingBase::LossScalingBase;

  /// The options, checked once before any op is visited: an error names
  /// the option, and not the input's module (which a diagnostic on it
  /// would print whole).
  LogicalResult initialize(MLIRContext *context) override {
    if (mode != "dynamic" && mode != "static")
      return emitError(UnknownLoc::get(context))
             << "unknown loss-scaling mode '" << mode
             << "' (expected dynamic or static; the pipeline's loss-scale also "
                "takes auto and none)";
    return checkOptions(context);
  }

  void runOnOperation() override {
    bool anyStep = false;
    for (auto fn : functionsIn(getOperation())) {
      if (fn.isExternal())
        continue;
      if (train::isTrainStep(fn)) {
        anyStep = true;
        if (failed(scaleStep(fn)))
          return signalPassFailure();
      } else if (hasMarkedSeed(fn)) {
        anyStep = true;
        if (failed(scaleUpstream(fn)))
          return signalPassFailure();
      }
    }
    if (!anyStep && !optional) {
      getOperation().emitError()
          << "loss scaling needs a training step: no function is marked "
             "'train.step' or has a value marked '"
          << kGradSeedAttrName << "'";
      return signalPassFailure();
    }
  }

  /// The upstream form of a step (docs/embedding.md): the seed of the
  /// backward pass is a value whose defining op carries `mp.grad_seed`, or
  /// an argument with that attribute; the gradients are the results marked
  /// `mp.gradient`.
  static SmallVector<Value> markedSeeds(FunctionOpInterface fn) {
    SmallVector<Value> seeds;
    Block &body = fn.getFunctionBody().front();
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      if (fn.getArgAttr(i, kGradSeedAttrName))
        seeds.push_back(body.getArgument(i));
    for (Operation &op : body)
      if (op.hasAttr(kGradSeedAttrName))
        llvm::append_range(seeds, op.getResults());
    return seeds;
  }
  static bool hasMarkedSeed(FunctionOpInterface fn) {
    return !fn.getFunctionBody().empty() && !markedSeeds(fn).empty();
  }

  /// Loss scaling of an upstream step, whose gradients leave it as results
  /// (the host's optimizer applies them): the seed is multiplied by the
  /// scale, the gradient results are unscaled and checked where they are
  /// returned, and the verdict is a new result marked `mp.all_finite`; the
  /// host applies the gradients only when it holds. Dynamic scaling adds
  /// the scale and its growth counter as the last two arguments and
  /// results (`mp.loss_scale`, `mp.growth_count`), updated by GradScaler's
  /// rule. LowerToUpstream writes the mp ops as linalg/arith/tensor.
  LogicalResult scaleUpstream(FunctionOpInterface fn) {
    Block &body = fn.getFunctionBody().front();
    if (!body.getOps<mpd::UnscaleAndCheckOp>().empty())
      return success();
    Operation *terminator = body.getTerminator();
    SmallVector<unsigned> gradientResults;
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
      if (fn.getResultAttr(i, kGradientAttrName))
        gradientResults.push_back(i);
    if (gradientResults.empty())
      return fn.emitOpError()
             << "has a value marked '" << kGradSeedAttrName
             << "' but no result marked '" << kGradientAttrName
             << "': loss scaling unscales and checks the gradients where "
                "they are returned";
    if (!llvm::hasSingleElement(fn.getFunctionBody()))
      return fn.emitOpError() << "loss scaling on upstream IR needs a "
                                 "function of one block";

    // Every gradient returned (through at most one cast, which the unscale
    // replaces) and used nowhere else: a use inside the step would read
    // the scaled value.
    SmallVector<Value> sources;
    SmallVector<Type> unscaledTypes;
    for (unsigned i : gradientResults) {
      Value returned = terminator->getOperand(i);
      Value source = returned;
      if (auto cast = returned.getDefiningOp<mpd::CastOp>())
        source = cast.getInput();
      if (!isa<RankedTensorType>(returned.getType()) ||
          !isa<FloatType>(getElementTypeOrSelf(returned.getType())))
        return fn.emitOpError()
               << "result " << i << " is marked '" << kGradientAttrName
               << "' but is not a float tensor";
      for (Operation *user : source.getUsers()) {
        if (user == terminator || user == returned.getDefiningOp())
          continue;
        return user->emitOpError()
               << "reads the gradient that result " << i
               << " returns; loss scaling on upstream IR unscales gradients "
                  "where they are returned, so the step must not use them "
                  "(apply them outside, or write a train step)";
      }
      sources.push_back(source);
      unscaledTypes.push_back(returned.getType());
    }

    MLIRContext *ctx = fn->getContext();
    OpBuilder b(ctx);
    Location loc = fn.getLoc();
    auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
    auto scalarI64 = RankedTensorType::get({}, b.getI64Type());
    auto scalarI1 = RankedTensorType::get({}, b.getI1Type());
    bool dynamic = mode == "dynamic";
    auto marker = [&](StringRef name, Attribute initial = {}) {
      SmallVector<NamedAttribute> attrs = {
          b.getNamedAttr(name, b.getUnitAttr())};
      if (initial)
        attrs.push_back(b.getNamedAttr(kInitialValueAttrName, initial));
      return b.getDictionaryAttr(attrs);
    };

    Value scale, growthCount;
    if (failed(addScale(
            fn, marker("mp.loss_scale", b.getF64FloatAttr(initScale)),
            marker("mp.growth_count", b.getI64IntegerAttr(0)),
            [](OpBuilder &ob, Location l, DenseElementsAttr value) -> Value {
              return arith::ConstantOp::create(ob, l, value);
            },
            scale, growthCount)))
      return failure();

    for (Value seed : markedSeeds(fn)) {
      if (!isa<RankedTensorType>(seed.getType()) ||
          !isa<FloatType>(getElementTypeOrSelf(seed.getType())))
        return fn.emitOpError() << "the value marked '" << kGradSeedAttrName
                                << "' is not a float tensor";
      // After the seed, and after the scale where it is a constant (made
      // first in the block).
      if (Operation *def = seed.getDefiningOp())
        b.setInsertionPointAfter(def);
      else if (Operation *scaleDef = scale.getDefiningOp())
        b.setInsertionPointAfter(scaleDef);
      else
        b.setInsertionPointToStart(&body);
      auto scaled = mpd::ScaleOp::create(b, loc, seed, scale);
      seed.replaceAllUsesExcept(scaled, scaled);
    }

    b.setInsertionPoint(terminator);
    auto check = mpd::UnscaleAndCheckOp::create(b, loc, unscaledTypes,
                                                scalarI1, scale, sources);
    for (auto [k, i] : llvm::enumerate(gradientResults))
      terminator->setOperand(i, check.getUnscaled()[k]);
    SmallVector<Value> added = {check.getAllFinite()};
    SmallVector<Type> addedTypes = {scalarI1};
    SmallVector<DictionaryAttr> addedAttrs = {marker("mp.all_finite")};
    if (dynamic) {
      auto update = mpd::UpdateScaleOp::create(
          b, loc, scale, growthCount, check.getAllFinite(), growthInterval,
          APFloat(growthFactor.getValue()), APFloat(backoffFactor.getValue()),
          APFloat(minScale.getValue()), APFloat(maxScale.getValue()));
      added.append({update.getNewScale(), update.getNewGrowthCount()});
      addedTypes.append({scalarF32, scalarI64});
      addedAttrs.append({marker("mp.loss_scale"), marker("mp.growth_count")});
    }
    unsigned n = fn.getNumResults();
    SmallVector<unsigned> positions(added.size(), n);
    if (failed(fn.insertResults(positions, addedTypes, addedAttrs)))
      return fn.emitOpError() << "cannot add the loss-scaling results";
    terminator->insertOperands(terminator->getNumOperands(), added);
    return success();
  }

  /// Every option checked up front, named as the user spelled it.
  LogicalResult checkOptions(MLIRContext *context) {
    const double maxF32 = 3.4028234663852886e+38;
    auto fail = [&](const Twine &message) {
      return emitError(UnknownLoc::get(context)) << message;
    };
    if (!(initScale > 0) || !std::isfinite(initScale))
      return fail("init-scale must be positive and finite");
    if (initScale > maxF32)
      return fail("init-scale must fit in f32 (at most 3.4e38)");
    if (growthInterval < 1)
      return fail("growth-interval must be at least 1");
    if (!(growthFactor >= 1) || !std::isfinite(growthFactor))
      return fail("growth-factor must be finite and at least 1");
    if (!(backoffFactor > 0 && backoffFactor < 1))
      return fail("backoff-factor must be in (0, 1)");
    if (!(minScale >= 0 && minScale <= maxScale && maxScale <= maxF32))
      return fail("expected 0 <= min-scale <= max-scale <= 3.4e38");
    if (mode == "dynamic" && (initScale < minScale || initScale > maxScale))
      return fail("init-scale must lie within [min-scale, max-scale]");
    return success();
  }

  /// The `train.role`/`train.name` (and initial value) of a scaler-state
  /// argument or result.
  static DictionaryAttr scalerStateAttrs(Builder &b, StringRef name,
                                         Attribute initial = {}) {
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr(
            train::TrainDialect::kRoleAttrName,
            b.getStringAttr(train::stringifyRole(train::Role::ScalerState))),
        b.getNamedAttr(train::TrainDialect::kNameAttrName,
                       b.getStringAttr(name))};
    if (initial)
      attrs.push_back(b.getNamedAttr(kInitialValueAttrName, initial));
    return b.getDictionaryAttr(attrs);
  }

  /// The scale a step multiplies its seed by. Dynamic: two new trailing
  /// arguments, the scale and its growth counter, with `scaleAttrs` and
  /// `countAttrs`. Static: a constant at the start of the body made by
  /// `makeConstant` (the step's own dialect: train or arith).
  LogicalResult
  addScale(FunctionOpInterface fn, DictionaryAttr scaleAttrs,
           DictionaryAttr countAttrs,
           function_ref<Value(OpBuilder &, Location, DenseElementsAttr)>
               makeConstant,
           Value &scale, Value &growthCount) {
    Block &body = fn.getFunctionBody().front();
    OpBuilder b(fn->getContext());
    Location loc = fn.getLoc();
    auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
    if (mode == "dynamic") {
      unsigned n = fn.getNumArguments();
      if (failed(fn.insertArguments(
              {n, n}, {scalarF32, RankedTensorType::get({}, b.getI64Type())},
              {scaleAttrs, countAttrs}, {loc, loc})))
        return fn.emitOpError() << "cannot add the loss-scaler arguments";
      scale = body.getArgument(n);
      growthCount = body.getArgument(n + 1);
      return success();
    }
    b.setInsertionPointToStart(&body);
    scale = makeConstant(
        b, loc,
        DenseElementsAttr::get(scalarF32,
                               b.getF32FloatAttr(initScale).getValue()));
    return success();
  }

  LogicalResult scaleStep(FunctionOpInterface fn) {
    Block &body = fn.getFunctionBody().front();
    // Already scaled (the pipeline ran before): nothing to do.
    if (!body.getOps<mpd::UnscaleAndCheckOp>().empty())
      return success();

    SmallVector<train::GradSeedOp> seeds(body.getOps<train::GradSeedOp>());
    GradientEdges gradients = findGradientEdges(body);
    if (seeds.empty())
      return fn.emitOpError()
             << "loss scaling needs the start of the backward pass, but the "
                "step has no 'train.grad_seed'";
    if (gradients.edges.empty())
      return fn.emitOpError() << "loss scaling needs optimizer updates "
                                 "(train.sgd, train.adam, ...), but the step "
                                 "has none";

    MLIRContext *ctx = fn->getContext();
    OpBuilder b(ctx);
    Location loc = fn.getLoc();
    auto scalarF32 = RankedTensorType::get({}, b.getF32Type());
    auto scalarI64 = RankedTensorType::get({}, b.getI64Type());
    bool dynamic = mode == "dynamic";

    // The scale: scaler state threaded through the step, or a constant.
    Value scale, growthCount;
    if (failed(addScale(
            fn,
            scalerStateAttrs(b, stringifyScalerTensor(ScalerTensor::LossScale),
                             b.getF64FloatAttr(initScale)),
            scalerStateAttrs(b,
                             stringifyScalerTensor(ScalerTensor::GrowthCount),
                             b.getI64IntegerAttr(0)),
            [](OpBuilder &ob, Location l, DenseElementsAttr value) -> Value {
              return train::ConstantOp::create(ob, l, value);
            },
            scale, growthCount)))
      return failure();

    // Every gradient of the step is a product of the seed: scale it.
    for (train::GradSeedOp seed : seeds) {
      b.setInsertionPointAfter(seed);
      auto scaled = mpd::ScaleOp::create(b, seed.getLoc(), seed, scale);
      seed.getResult().replaceAllUsesExcept(scaled, scaled);
    }

    // Unscale and check all gradients at once, after the last of them is
    // computed, where they enter the updates (or the clipping before
    // them); a gradient read through a widening cast is unscaled from its
    // 16-bit source, so the cast and the unscale are one op.
    SmallVector<Value> sources;
    SmallVector<Type> unscaledTypes;
    Operation *lastDef = nullptr;
    for (OpOperand *edge : gradients.edges) {
      Value grad = edge->get();
      if (auto cast = grad.getDefiningOp<mpd::CastOp>())
        grad = cast.getInput();
      sources.push_back(grad);
      unscaledTypes.push_back(edge->get().getType());
      if (Operation *def = grad.getDefiningOp())
        if (!lastDef || lastDef->isBeforeInBlock(def))
          lastDef = def;
    }
    // ... and after the scale, where it is a constant.
    Operation *after = lastDef;
    if (Operation *scaleDef = scale.getDefiningOp())
      if (!after || after->isBeforeInBlock(scaleDef))
        after = scaleDef;
    if (after)
      b.setInsertionPointAfter(after);
    else
      b.setInsertionPointToStart(&body);
    auto check = mpd::UnscaleAndCheckOp::create(
        b, loc, unscaledTypes, RankedTensorType::get({}, b.getI1Type()), scale,
        sources);
    // Under ZeRO-1 each rank checked the gradient shards it owns: the step
    // is applied where every rank's are finite.
    Value allFinite = check.getAllFinite();
    if (!body.getOps<train::ReduceScatterOp>().empty())
      allFinite = train::AllRanksOp::create(b, loc, allFinite);

    // The updates, transforms and markers, and every op computed from
    // them (an optimizer written as elementwise ops), move after the check
    // where they were before it, in their order. Block positions are
    // numbered once: asking the block after each move would renumber it
    // every time (quadratic in the step's size).
    llvm::DenseMap<Operation *, size_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = i;
    size_t checkPosition = position[check];
    // Each op of the slice and the update (or marker) it comes from.
    llvm::DenseMap<Operation *, Operation *> origin;
    SmallVector<Operation *> work;
    for (Operation *op : gradients.consumers)
      if (origin.try_emplace(op, op).second)
        work.push_back(op);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      // A copy, not a reference into `origin`: try_emplace may grow it.
      Operation *from = origin.lookup(op);
      for (Operation *user : op->getUsers()) {
        Operation *inBlock = body.findAncestorOpInBlock(*user);
        if (inBlock && inBlock != body.getTerminator() && inBlock != check &&
            origin.try_emplace(inBlock, from).second)
          work.push_back(inBlock);
      }
    }
    // A gradient computed from an update cannot be checked before it.
    for (Value source : sources)
      if (Operation *def = source.getDefiningOp())
        if (auto it = origin.find(def); it != origin.end())
          return it->second->emitOpError()
                 << "is used before all gradients of the step are "
                    "computed; loss scaling cannot guard it";
    SmallVector<Operation *> moved;
    for (Operation &op : body)
      if (position[&op] < checkPosition && origin.count(&op))
        moved.push_back(&op);
    Operation *insertAfter = check;
    for (Operation *op : moved) {
      op->moveAfter(insertAfter);
      insertAfter = op;
    }
    for (auto [i, edge] : llvm::enumerate(gradients.edges))
      edge->set(check.getUnscaled()[i]);

    // On overflow every persistent result keeps the value it came in with.
    SmallVector<int> updatedArgument = train::getUpdatedArguments(fn);
    Operation *terminator = body.getTerminator();
    SmallVector<unsigned> guarded;
    SmallVector<Value> newValues, oldValues;
    for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i) {
      if (updatedArgument[i] < 0 ||
          train::getResultRole(fn, i) == train::Role::ScalerState)
        continue;
      guarded.push_back(i);
      newValues.push_back(terminator->getOperand(i));
      oldValues.push_back(body.getArgument(updatedArgument[i]));
    }
    b.setInsertionPoint(terminator);
    if (guarded.empty())
      return fn.emitOpError()
             << "loss scaling needs persistent state to guard (results with "
                "role param, opt_state or buffer), but the step returns none";
    auto select =
        mpd::SelectOp::create(b, loc, allFinite, newValues, oldValues);
    for (auto [i, index] : llvm::enumerate(guarded))
      terminator->setOperand(index, select.getResult(i));

    if (dynamic) {
      auto update = mpd::UpdateScaleOp::create(
          b, loc, scale, growthCount, allFinite, growthInterval,
          APFloat(growthFactor.getValue()), APFloat(backoffFactor.getValue()),
          APFloat(minScale.getValue()), APFloat(maxScale.getValue()));
      unsigned n = fn.getNumResults();
      if (failed(fn.insertResults(
              {n, n}, {scalarF32, scalarI64},
              {scalerStateAttrs(b,
                                stringifyScalerTensor(ScalerTensor::LossScale)),
               scalerStateAttrs(
                   b, stringifyScalerTensor(ScalerTensor::GrowthCount))})))
        return fn.emitOpError() << "cannot add the loss-scaler results";
      terminator->insertOperands(terminator->getNumOperands(),
                                 {update.getNewScale(),
                                  update.getNewGrowthCount()});
    }
    return success();
  }
};

} // namespace
