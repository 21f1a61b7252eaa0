//===- Optimizer.cu - fused sgd, sgd_momentum, adam, adamw ----------------===//
//
// One pass over the elements reads param, gradient and state once and
// writes the new values once, with the reference's update rules
// (common/ElementMath.h) and hyper-parameters (reference/Optimizer.cpp).
// Adam's step counter and a learning-rate operand stay on the device:
// every thread takes the bias corrections from them, in double, as the
// reference does on the host.
//
//===----------------------------------------------------------------------===//
#include "common/ElementMath.h"
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;
namespace ref = mp::rt::ref;

namespace {

__global__ void sgdKernel(Ref p, Ref g, Ref buf, Ref newP, Ref newBuf,
                          int64_t n, SgdParams hp) {
  ref::SgdRule rule;
  rule.lr = hp.lrTensor.data ? loadF(hp.lrTensor, 0) : hp.lr;
  rule.wd = hp.weightDecay;
  rule.momentum = hp.momentum;
  rule.keep = hp.keep;
  rule.nesterov = hp.nesterov;
  MP_GRID_STRIDE(i, n) {
    if (!hp.withMomentum) {
      storeF(newP, i, rule.plain(loadF(p, i), loadF(g, i)));
      continue;
    }
    float param, b;
    rule.withMomentum(loadF(p, i), loadF(g, i), loadF(buf, i), param, b);
    storeF(newP, i, param);
    storeF(newBuf, i, b);
  }
}

__global__ void adamKernel(Ref p, Ref g, Ref m, Ref v, Ref stepRef, Ref newP,
                           Ref newM, Ref newV, int64_t n, AdamParams hp,
                           DeviceError *error, int32_t launch) {
  double t = stepRef.dtype == kF32 ? static_cast<double>(loadF(stepRef, 0))
                                   : static_cast<double>(loadI(stepRef, 0));
  if (!(t >= 1)) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
      reportError(error, launch, kStepNotPositive,
                  t == t ? static_cast<int64_t>(floor(t)) : INT64_MIN, 0, 0);
    return;
  }
  // The reference's constants (common/ElementMath.h), from the step on the
  // device.
  double lr = hp.lrTensor.data ? static_cast<double>(loadF(hp.lrTensor, 0))
                               : hp.lr;
  ref::AdamRule rule = ref::adamRuleAt(lr, hp.beta1, hp.beta2, hp.epsilon,
                                       hp.weightDecay, hp.decoupled, t);
  MP_GRID_STRIDE(i, n) {
    float param, avg, avgSq;
    rule.apply(loadF(p, i), loadF(g, i), loadF(m, i), loadF(v, i), param, avg,
               avgSq);
    storeF(newP, i, param);
    storeF(newM, i, avg);
    storeF(newV, i, avgSq);
  }
}

} // namespace

int mp::rt::cuda::sgd(const Context &ctx, Ref p, Ref g, Ref buf, Ref newP,
                      Ref newBuf, int64_t n, const SgdParams &hp) {
  sgdKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(p, g, buf, newP, newBuf,
                                                       n, hp);
  return lastError();
}

int mp::rt::cuda::adam(const Context &ctx, Ref p, Ref g, Ref m, Ref v, Ref step,
                       Ref newP, Ref newM, Ref newV, int64_t n,
                       const AdamParams &hp) {
  adamKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
      p, g, m, v, step, newP, newM, newV, n, hp, ctx.error, ctx.launch);
  return lastError();
}
