//===- StepOps.cpp - verifiers of the optimizers and per-step state -------===//
//
// Optimizer hyper-parameters lie in PyTorch's ranges; the learning rate is
// an attribute or an operand (train.lr_schedule's result), never both.
// Schedules, clipping and dropout check their attributes here; their types
// are ODS's.
//
//===----------------------------------------------------------------------===//
#include "VerifierSupport.h"
#include "mp/Dialect/Train/IR/TrainOps.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mp::train;

using mp::train::verify::num;

/// Checks that a hyper-parameter lies in [lo, hi] (`hiOpen`: [lo, hi)).
static LogicalResult checkRange(Operation *op, StringRef name, double v,
                                double lo, double hi, bool hiOpen = false) {
  if (v >= lo && (hiOpen ? v < hi : v <= hi))
    return success();
  return op->emitOpError() << "expects '" << name << "' in [" << num(lo)
                           << ", " << num(hi) << (hiOpen ? ")" : "]")
                           << " but got " << num(v);
}
static LogicalResult checkRange(Operation *op, StringRef name,
                                const APFloat &value, double lo, double hi,
                                bool hiOpen = false) {
  return checkRange(op, name, value.convertToDouble(), lo, hi, hiOpen);
}

/// The learning rate: the `lr` attribute (in [0, inf)) or the
/// `learning_rate` operand, exactly one of them.
static LogicalResult checkLearningRate(Operation *op,
                                       std::optional<APFloat> lr,
                                       Value operand) {
  if (lr && operand)
    return op->emitOpError() << "has both an 'lr' attribute and a learning "
                                "rate operand; give one";
  if (!lr && !operand)
    return op->emitOpError() << "needs a learning rate: an 'lr' attribute "
                                "or an operand (`lr %rate`)";
  if (lr)
    return checkRange(op, "lr", *lr, 0, HUGE_VAL, true);
  return success();
}

LogicalResult SgdOp::verify() {
  if (failed(checkLearningRate(*this, getLr(), getLearningRate())) ||
      failed(checkRange(*this, "weight_decay", getWeightDecay(), 0, HUGE_VAL,
                        true)))
    return failure();
  return success();
}

LogicalResult SgdMomentumOp::verify() {
  if (failed(checkLearningRate(*this, getLr(), getLearningRate())) ||
      failed(checkRange(*this, "momentum", getMomentum(), 0, 1)) ||
      failed(checkRange(*this, "dampening", getDampening(), 0, 1)) ||
      failed(checkRange(*this, "weight_decay", getWeightDecay(), 0, HUGE_VAL,
                        true)))
    return failure();
  if (getNesterov() && (getMomentum().isZero() || !getDampening().isZero()))
    return emitOpError()
           << "nesterov momentum needs a positive momentum and zero dampening";
  return success();
}

template <typename AdamOp>
static LogicalResult verifyAdam(AdamOp op) {
  Operation *raw = op.getOperation();
  if (failed(checkLearningRate(raw, op.getLr(), op.getLearningRate())) ||
      failed(checkRange(raw, "beta1", op.getBeta1(), 0, 1, true)) ||
      failed(checkRange(raw, "beta2", op.getBeta2(), 0, 1, true)) ||
      failed(checkRange(raw, "weight_decay", op.getWeightDecay(), 0,
                        HUGE_VAL, true)))
    return failure();
  if (!(op.getEpsilon().convertToDouble() > 0))
    return op.emitOpError() << "expects a positive epsilon";
  return success();
}

LogicalResult AdamOp::verify() { return verifyAdam(*this); }
LogicalResult AdamWOp::verify() { return verifyAdam(*this); }

LogicalResult LrScheduleOp::verify() {
  double base = getBaseLr().convertToDouble();
  if (!std::isfinite(base) || base < 0)
    return emitOpError() << "needs a finite 'base_lr' >= 0, got " << num(base);
  // I64Attr reads back unsigned: the signed value is the one written.
  auto warmupSteps = static_cast<int64_t>(getWarmupSteps());
  auto decaySteps = static_cast<int64_t>(getDecaySteps());
  if (warmupSteps < 0)
    return emitOpError() << "needs 'warmup_steps' >= 0, got " << warmupSteps;
  if (failed(checkRange(*this, "warmup_start_factor", getWarmupStartFactor(),
                        0, 1)))
    return failure();
  DecayShape decay = getDecay();
  bool usesSteps = decay != DecayShape::constant &&
                   decay != DecayShape::exponential;
  if (usesSteps && decaySteps < 1)
    return emitOpError() << "needs 'decay_steps' >= 1 for the "
                         << stringifyDecayShape(decay) << " decay, got "
                         << decaySteps;
  if ((decay == DecayShape::linear || decay == DecayShape::cosine) &&
      failed(checkRange(*this, "end_factor", getEndFactor(), 0, 1)))
    return failure();
  if ((decay == DecayShape::step || decay == DecayShape::exponential) &&
      failed(checkRange(*this, "gamma", getGamma(), 0, 1)))
    return failure();
  return success();
}

/// Clipping takes at least one gradient and a finite, positive bound
/// (attribute `name`).
static LogicalResult checkClip(Operation *op, size_t gradients,
                               StringRef name, double bound) {
  if (!gradients)
    return op->emitOpError() << "needs at least one gradient";
  if (!std::isfinite(bound) || !(bound > 0))
    return op->emitOpError() << "needs a finite, positive '" << name
                             << "', got " << num(bound);
  return success();
}

/// A norm clip's gradients, max_norm and norm_type.
template <typename ClipOp> static LogicalResult checkClipNorm(ClipOp op) {
  if (failed(checkClip(op, op.getGrads().size(), "max_norm",
                       op.getMaxNorm().convertToDouble())))
    return failure();
  double p = op.getNormType().convertToDouble();
  if (!(p > 0))
    return op.emitOpError()
           << "needs a positive 'norm_type' (or inf), got " << num(p);
  return success();
}

LogicalResult ClipGradNormOp::verify() { return checkClipNorm(*this); }

LogicalResult ClipGradNormShardsOp::verify() {
  if (failed(checkClipNorm(*this)))
    return failure();
  if (getWorldSize() < 1)
    return emitOpError() << "has world_size " << getWorldSize()
                         << "; it must be at least 1";
  for (Type grad : getGrads().getTypes())
    if (cast<ShapedType>(grad).getRank() != 1)
      return emitOpError() << "clips shards (1-D), not " << grad;
  return success();
}

LogicalResult ClipGradValueOp::verify() {
  return checkClip(*this, getGrads().size(), "clip_value",
                   getClipValue().convertToDouble());
}

/// Philox's counter word 0 is the element index / 4: a tensor has at most
/// 2^34 elements.
template <typename DropoutOp>
static LogicalResult verifyDropout(DropoutOp op) {
  Operation *raw = op.getOperation();
  if (failed(checkRange(raw, "p", op.getP(), 0, 1, true)))
    return failure();
  auto site = static_cast<int64_t>(op.getSite()); // I64Attr reads unsigned
  if (site < 0 || site > static_cast<int64_t>(UINT32_MAX))
    return op.emitOpError() << "needs a 'site' in [0, 2^32), got " << site;
  auto type = cast<ShapedType>(op.getX().getType());
  if (type.getNumElements() > (int64_t(1) << 34))
    return op.emitOpError() << "has " << type.getNumElements()
                            << " elements; dropout masks cover at most 2^34";
  if (std::optional<ArrayRef<int64_t>> mask = op.getMaskShape()) {
    ArrayRef<int64_t> shape = type.getShape();
    if (mask->size() > 8 && *mask != shape)
      return op.emitOpError() << "has a broadcast mask_shape of rank "
                              << mask->size() << " (at most 8)";
    if (mask->size() != shape.size())
      return op.emitOpError()
             << "has a mask_shape of rank " << mask->size() << " for x of rank "
             << shape.size();
    for (size_t d = 0; d < shape.size(); ++d)
      if ((*mask)[d] != 1 && (*mask)[d] != shape[d])
        return op.emitOpError()
               << "has mask_shape dimension " << d << " = " << (*mask)[d]
               << "; each must be 1 or x's (" << shape[d] << ")";
  }
  return success();
}

LogicalResult DropoutOp::verify() { return verifyDropout(*this); }
LogicalResult DropoutGradOp::verify() { return verifyDropout(*this); }

//===----------------------------------------------------------------------===//
// Data-parallel reductions
//===----------------------------------------------------------------------===//

/// A collective's operands and results: as many, of the same types.
static LogicalResult verifyCollective(Operation *op, TypeRange inputs,
                                      TypeRange results) {
  if (inputs.empty())
    return op->emitOpError() << "expects at least one tensor";
  if (inputs.size() != results.size())
    return op->emitOpError() << "has " << inputs.size() << " operands but "
                             << results.size() << " results";
  for (auto [i, in, out] : llvm::enumerate(inputs, results))
    if (in != out)
      return op->emitOpError() << "operand #" << i << " is " << in
                               << " but its result is " << out;
  return success();
}

LogicalResult AllReduceOp::verify() {
  return verifyCollective(*this, getInputs().getTypes(),
                          getResults().getTypes());
}

LogicalResult RankBroadcastOp::verify() {
  return verifyCollective(*this, getInputs().getTypes(),
                          getResults().getTypes());
}

//===----------------------------------------------------------------------===//
// ZeRO-1 shards
//===----------------------------------------------------------------------===//

int64_t mp::train::shardSize(int64_t elements, int64_t worldSize) {
  return (elements + worldSize - 1) / worldSize;
}

/// `whole` and `shards` pair up: each shard the 1-D [shardSize] of its
/// whole tensor's element count, of the same element type.
static LogicalResult verifyShards(Operation *op, TypeRange whole,
                                  TypeRange shards, int64_t worldSize) {
  if (worldSize < 1)
    return op->emitOpError()
           << "has world_size " << worldSize << "; it must be at least 1";
  if (whole.empty())
    return op->emitOpError() << "expects at least one tensor";
  if (whole.size() != shards.size())
    return op->emitOpError() << "has " << whole.size() << " whole tensors but "
                             << shards.size() << " shards";
  for (auto [i, full, shard] : llvm::enumerate(whole, shards)) {
    auto fullType = cast<ShapedType>(full);
    int64_t s = shardSize(fullType.getNumElements(), worldSize);
    auto expected = RankedTensorType::get({s}, fullType.getElementType());
    if (shard != expected)
      return op->emitOpError()
             << "tensor #" << i << " is " << full << ": its shard over "
             << worldSize << " ranks is " << expected << ", not " << shard;
  }
  return success();
}

LogicalResult ReduceScatterOp::verify() {
  return verifyShards(*this, getInputs().getTypes(), getResults().getTypes(),
                      getWorldSize());
}

LogicalResult RankShardOp::verify() {
  return verifyShards(*this, getInputs().getTypes(), getResults().getTypes(),
                      getWorldSize());
}

LogicalResult AllGatherOp::verify() {
  return verifyShards(*this, getResults().getTypes(), getInputs().getTypes(),
                      getWorldSize());
}
