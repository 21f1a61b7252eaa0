//===- Optimizer.cu - fused sgd, sgd_momentum, adam, adamw ----------------===//
//
// One pass over the elements reads param, gradient and state once and
// writes the new values once, with PyTorch's update rules exactly as the
// reference computes them (reference/Optimizer.cpp). Adam's step counter
// stays on the device: every thread takes the bias corrections from it, in
// double, as the reference does on the host.
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

__global__ void sgdKernel(Ref p, Ref g, Ref buf, Ref newP, Ref newBuf,
                          int64_t n, SgdParams hp) {
  MP_GRID_STRIDE(i, n) {
    float param = loadF(p, i);
    float grad = loadF(g, i) + hp.weightDecay * param;
    if (!hp.withMomentum) {
      storeF(newP, i, param - hp.lr * grad);
      continue;
    }
    float b = hp.momentum * loadF(buf, i) + hp.keep * grad;
    float step = hp.nesterov ? grad + hp.momentum * b : b;
    storeF(newP, i, param - hp.lr * step);
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
  float stepSize = static_cast<float>(hp.lr / (1 - pow(hp.beta1, t)));
  float correction2 = static_cast<float>(sqrt(1 - pow(hp.beta2, t)));
  float b1 = static_cast<float>(hp.beta1), b2 = static_cast<float>(hp.beta2);
  float c1 = static_cast<float>(1 - hp.beta1);
  float c2 = static_cast<float>(1 - hp.beta2);
  float eps = static_cast<float>(hp.epsilon);
  float wd = static_cast<float>(hp.weightDecay);
  float decay = static_cast<float>(1 - hp.lr * hp.weightDecay);
  MP_GRID_STRIDE(i, n) {
    float p0 = loadF(p, i), g0 = loadF(g, i);
    float param = hp.decoupled ? p0 * decay : p0;
    float grad = hp.decoupled ? g0 : g0 + wd * p0;
    float avg = b1 * loadF(m, i) + c1 * grad;
    float avgSq = b2 * loadF(v, i) + c2 * grad * grad;
    float denom = sqrtf(avgSq) / correction2 + eps;
    storeF(newP, i, param - stepSize * avg / denom);
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
