//===- GroupNorm.cu - group_norm and group_norm_grad ---------------------===//
//
// The reference's formulas (reference/GroupNorm.cpp): x as [N, P, C, Q]
// around its channels, a (sample, group) being P runs of C / groups * Q
// consecutive elements. A block per (sample, group) for the statistics,
// the normalization and grad_x (two-pass statistics, f64 sums rounded to
// f32 once); a block per channel for grad_scale and grad_offset, the sums
// over samples and positions in f64. No atomics: results are reproducible.
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

__device__ __forceinline__ int64_t perGroup(const GroupDims &s) {
  return s.channels / s.groups;
}

/// Element k of sample n's group g, k in [0, P * C / groups * Q).
__device__ __forceinline__ int64_t elementOf(const GroupDims &s, int64_t n,
                                             int64_t g, int64_t k) {
  int64_t run = perGroup(s) * s.after;
  int64_t p = k / run, r = k % run;
  return ((n * s.before + p) * s.channels + g * perGroup(s)) * s.after + r;
}

/// The channel of element k of group g.
__device__ __forceinline__ int64_t channelOf(const GroupDims &s, int64_t g,
                                             int64_t k) {
  return g * perGroup(s) + (k % (perGroup(s) * s.after)) / s.after;
}

__global__ void groupNormKernel(Ref x, Ref scale, Ref offset, Ref y, Ref mean,
                                Ref invStd, GroupDims s, float epsilon) {
  __shared__ double shared[32];
  int64_t n = blockIdx.x / s.groups, g = blockIdx.x % s.groups;
  int64_t count = s.before * perGroup(s) * s.after;
  double sum = 0;
  for (int64_t k = threadIdx.x; k < count; k += blockDim.x)
    sum += loadF(x, elementOf(s, n, g, k));
  double meanD = blockReduce(sum, 0.0, Sum(), shared) / count;
  double q = 0;
  for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
    double d = loadF(x, elementOf(s, n, g, k)) - meanD;
    q += d * d;
  }
  double squares = blockReduce(q, 0.0, Sum(), shared);
  float mu = static_cast<float>(meanD);
  float inv = static_cast<float>(1.0 / sqrt(squares / count + epsilon));
  for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
    int64_t e = elementOf(s, n, g, k), c = channelOf(s, g, k);
    float a = loadF(scale, c) * inv;
    storeF(y, e, (loadF(x, e) - mu) * a + loadF(offset, c));
  }
  if (threadIdx.x == 0) {
    storeF(mean, blockIdx.x, mu);
    storeF(invStd, blockIdx.x, inv);
  }
}

__global__ void groupNormGradKernel(Ref dy, Ref x, Ref scale, Ref mean,
                                    Ref invStd, Ref dx, GroupDims s) {
  __shared__ double shared[32];
  int64_t n = blockIdx.x / s.groups, g = blockIdx.x % s.groups;
  int64_t count = s.before * perGroup(s) * s.after;
  double m = loadF(mean, blockIdx.x), r = loadF(invStd, blockIdx.x);
  double sg = 0, sgx = 0;
  for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
    int64_t e = elementOf(s, n, g, k);
    double gk = static_cast<double>(loadF(scale, channelOf(s, g, k))) *
                loadF(dy, e);
    sg += gk;
    sgx += gk * (loadF(x, e) - m) * r;
  }
  float meanG = static_cast<float>(blockReduce(sg, 0.0, Sum(), shared) / count);
  float meanGXhat =
      static_cast<float>(blockReduce(sgx, 0.0, Sum(), shared) / count);
  float mF = static_cast<float>(m), rF = static_cast<float>(r);
  for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
    int64_t e = elementOf(s, n, g, k);
    float xhat = (loadF(x, e) - mF) * rF;
    storeF(dx, e,
           rF * (loadF(dy, e) * loadF(scale, channelOf(s, g, k)) - meanG -
                 xhat * meanGXhat));
  }
}

__global__ void groupNormParamGradKernel(Ref dy, Ref x, Ref mean, Ref invStd,
                                         Ref dscale, Ref doffset,
                                         GroupDims s) {
  __shared__ double shared[32];
  int64_t c = blockIdx.x, g = c / perGroup(s);
  int64_t runs = s.batch * s.before;
  double ds = 0, db = 0;
  for (int64_t k = threadIdx.x; k < runs * s.after; k += blockDim.x) {
    int64_t run = k / s.after, q = k % s.after;
    int64_t n = run / s.before, p = run % s.before;
    int64_t e = ((n * s.before + p) * s.channels + c) * s.after + q;
    double d = loadF(dy, e);
    double m = loadF(mean, n * s.groups + g), r = loadF(invStd, n * s.groups + g);
    ds += d * (loadF(x, e) - m) * r;
    db += d;
  }
  ds = blockReduce(ds, 0.0, Sum(), shared);
  db = blockReduce(db, 0.0, Sum(), shared);
  if (threadIdx.x == 0) {
    storeF(dscale, c, static_cast<float>(ds));
    storeF(doffset, c, static_cast<float>(db));
  }
}

} // namespace

int mp::rt::cuda::groupNorm(const Context &ctx, Ref x, Ref scale, Ref offset,
                            Ref y, Ref mean, Ref invStd, const GroupDims &s,
                            float epsilon) {
  if (s.batch * s.groups == 0)
    return 0;
  groupNormKernel<<<static_cast<unsigned>(s.batch * s.groups), kThreads, 0,
                    ctx.stream>>>(x, scale, offset, y, mean, invStd, s,
                                  epsilon);
  return lastError();
}

int mp::rt::cuda::groupNormGrad(const Context &ctx, Ref dy, Ref x, Ref scale,
                                Ref mean, Ref invStd, Ref dx, Ref dscale,
                                Ref doffset, const GroupDims &s) {
  if (s.batch * s.groups > 0)
    groupNormGradKernel<<<static_cast<unsigned>(s.batch * s.groups), kThreads,
                          0, ctx.stream>>>(dy, x, scale, mean, invStd, dx, s);
  if (int error = lastError())
    return error;
  if (s.channels > 0)
    groupNormParamGradKernel<<<static_cast<unsigned>(s.channels), kThreads, 0,
                               ctx.stream>>>(dy, x, mean, invStd, dscale,
                                             doffset, s);
  return lastError();
}
