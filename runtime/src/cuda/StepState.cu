//===- StepState.cu - lr_schedule, clipping, dropout ----------------------===//
//
// The reference's rules (common/StepRules.h) on the device. The schedule
// is one thread. clip_grad_norm sums |g|^p of each gradient into a fixed
// number of per-block partials (in f64, each block's threads in a fixed
// tree), then one block adds every partial in order and stores the norm
// and the coefficient: the result depends only on the shapes and the
// data. Dropout draws each block of four elements' words with one Philox
// call, as the reference does.
//
//===----------------------------------------------------------------------===//
#include "common/StepRules.h"
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;
namespace ref = mp::rt::ref;

namespace {

__global__ void scheduleKernel(Ref step, float *lr, ref::Schedule s,
                               DeviceError *error, int32_t launch) {
  int64_t t = loadI(step, 0);
  if (t < 0) {
    reportError(error, launch, kStepNegative, t, 0, 0);
    return;
  }
  *lr = s.lrAt(static_cast<double>(t));
}

/// |g|^p, or |g| for the max norm (p = inf).
__device__ __forceinline__ double normTerm(float g, double p) {
  double a = fabs(static_cast<double>(g));
  return isinf(p) ? a : (p == 2 ? a * a : pow(a, p));
}

__device__ __forceinline__ double combine(double a, double b, bool isMax) {
  if (!isMax)
    return a + b;
  return (a != a || b != b) ? NAN : fmax(a, b);
}

__global__ void normPartials(Ref g, int64_t n, double p, double *partials) {
  __shared__ double shared[kThreads];
  bool isMax = isinf(p);
  double acc = 0;
  MP_GRID_STRIDE(i, n) acc = combine(acc, normTerm(loadF(g, i), p), isMax);
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (int width = kThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width)
      shared[threadIdx.x] =
          combine(shared[threadIdx.x], shared[threadIdx.x + width], isMax);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[blockIdx.x] = shared[0];
}

__global__ void normFinish(const double *partials, int64_t count, double p,
                           double maxNorm, float *norm, float *coef) {
  if (threadIdx.x != 0)
    return;
  bool isMax = isinf(p);
  double acc = 0;
  for (int64_t i = 0; i < count; ++i)
    acc = combine(acc, partials[i], isMax);
  double total = isMax ? acc : (p == 2 ? sqrt(acc) : pow(acc, 1 / p));
  double c = maxNorm / (total + 1e-6);
  *norm = static_cast<float>(total);
  *coef = static_cast<float>(c != c ? c : fmin(c, 1.0));
}

__global__ void scaleKernel(Ref g, Ref r, int64_t n, const float *coef) {
  float c = *coef;
  MP_GRID_STRIDE(i, n) storeF(r, i, loadF(g, i) * c);
}

__global__ void clampKernel(Ref g, Ref r, int64_t n, float c) {
  MP_GRID_STRIDE(i, n) {
    float v = loadF(g, i);
    storeF(r, i, v > c ? c : (v < -c ? -c : v));
  }
}

__global__ void dropoutKernel(Ref x, Ref key, Ref counter, Ref r, int64_t n,
                              int64_t site, double p) {
  ref::DropoutMask mask =
      ref::DropoutMask::make(loadI(key, 0), loadI(counter, 0), site, p);
  int64_t blocks = (n + 3) / 4;
  MP_GRID_STRIDE(b, blocks) {
    ref::Philox4 w = mask.words(static_cast<uint64_t>(b));
    for (int j = 0; j < 4 && 4 * b + j < n; ++j)
      storeF(r, 4 * b + j, mask.apply(loadF(x, 4 * b + j), w.v[j]));
  }
}

/// A broadcast mask (mask_shape): each element draws the word of its mask
/// element (one Philox block per element; such masks are small).
__global__ void broadcastDropoutKernel(Ref x, Ref key, Ref counter, Ref r,
                                       int64_t n, int64_t site, double p,
                                       ref::MaskIndex index) {
  ref::DropoutMask mask =
      ref::DropoutMask::make(loadI(key, 0), loadI(counter, 0), site, p);
  MP_GRID_STRIDE(i, n) {
    uint32_t word = mask.word(static_cast<uint64_t>(index.of(i)));
    storeF(r, i, mask.apply(loadF(x, i), word));
  }
}

} // namespace

int mp::rt::cuda::lrSchedule(const Context &ctx, Ref step, float *lr,
                             const ref::Schedule &s) {
  scheduleKernel<<<1, 1, 0, ctx.stream>>>(step, lr, s, ctx.error, ctx.launch);
  return lastError();
}

unsigned mp::rt::cuda::normBlocks(int64_t n) {
  unsigned blocks = blocksFor(n);
  return blocks > 1024 ? 1024 : blocks;
}

int mp::rt::cuda::normPartial(const Context &ctx, Ref g, int64_t n, double p,
                              double *partials) {
  normPartials<<<normBlocks(n), kThreads, 0, ctx.stream>>>(g, n, p, partials);
  return lastError();
}

int mp::rt::cuda::normCoefficient(const Context &ctx, const double *partials,
                                  int64_t count, double p, double maxNorm,
                                  float *norm, float *coef) {
  normFinish<<<1, 32, 0, ctx.stream>>>(partials, count, p, maxNorm, norm,
                                       coef);
  return lastError();
}

int mp::rt::cuda::scaleByDevice(const Context &ctx, Ref g, Ref r, int64_t n,
                                const float *coef) {
  scaleKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(g, r, n, coef);
  return lastError();
}

int mp::rt::cuda::clampValues(const Context &ctx, Ref g, Ref r, int64_t n,
                              float c) {
  clampKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(g, r, n, c);
  return lastError();
}

int mp::rt::cuda::dropout(const Context &ctx, Ref x, Ref key, Ref counter,
                          Ref r, int64_t n, int64_t site, double p) {
  dropoutKernel<<<blocksFor((n + 3) / 4), kThreads, 0, ctx.stream>>>(
      x, key, counter, r, n, site, p);
  return lastError();
}

int mp::rt::cuda::broadcastDropout(const Context &ctx, Ref x, Ref key,
                                   Ref counter, Ref r, int64_t n, int64_t site,
                                   double p, const ref::MaskIndex &index) {
  broadcastDropoutKernel<<<blocksFor(n), kThreads, 0, ctx.stream>>>(
      x, key, counter, r, n, site, p, index);
  return lastError();
}
