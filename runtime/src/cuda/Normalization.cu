//===- Normalization.cu - layer_norm, batch_norm and their grads ----------===//
//
// The reference's formulas (reference/Normalization.cpp), two-pass
// statistics with f64 sums rounded to f32 once. layer_norm (and rms_norm,
// the same kernels without the mean: its mean and offset Refs are null): a
// block per row; its grad's per-feature
// sums (grad_scale, grad_offset) tiles of 32 features, the rows split over
// 32 rows of threads. batch_norm: a block per feature. No atomics: results are
// reproducible.
//
//===----------------------------------------------------------------------===//
#include "cuda/DeviceSupport.cuh"

using namespace mp::rt::cuda;

namespace {

__global__ void layerNormKernel(Ref x, Ref scale, Ref offset, Ref y, Ref mean,
                                Ref invStd, int64_t d, float epsilon) {
  __shared__ double shared[32];
  int64_t row = blockIdx.x, base = row * d;
  double size = static_cast<double>(d);
  bool centered = mean.data != nullptr;
  double muD = 0;
  if (centered) {
    double s = 0;
    for (int64_t j = threadIdx.x; j < d; j += blockDim.x)
      s += loadF(x, base + j);
    muD = blockReduce(s, 0.0, Sum(), shared) / size;
  }
  double q = 0;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    double diff = loadF(x, base + j) - muD;
    q += diff * diff;
  }
  double squares = blockReduce(q, 0.0, Sum(), shared);
  float mu = static_cast<float>(muD);
  float inv = static_cast<float>(1.0 / sqrt(squares / size + epsilon));
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x)
    storeF(y, base + j,
           (loadF(x, base + j) - mu) * inv * loadF(scale, j) +
               (offset.data ? loadF(offset, j) : 0.0f));
  if (threadIdx.x == 0) {
    if (centered)
      storeF(mean, row, mu);
    storeF(invStd, row, inv);
  }
}

__global__ void layerNormGradKernel(Ref dy, Ref x, Ref scale, Ref mean,
                                    Ref invStd, Ref dx, int64_t d) {
  __shared__ double shared[32];
  int64_t row = blockIdx.x, base = row * d;
  bool centered = mean.data != nullptr;
  float mu = centered ? loadF(mean, row) : 0.0f, inv = loadF(invStd, row);
  double sg = 0, sgx = 0;
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    float g = loadF(dy, base + j) * loadF(scale, j);
    sg += g;
    sgx += static_cast<double>(g) * (static_cast<double>(loadF(x, base + j)) -
                                     static_cast<double>(mu));
  }
  double size = static_cast<double>(d);
  float meanG = static_cast<float>(blockReduce(sg, 0.0, Sum(), shared) / size);
  if (!centered)
    meanG = 0.0f;
  float meanGXhat = static_cast<float>(
      blockReduce(sgx, 0.0, Sum(), shared) * inv / size);
  for (int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    float xhat = (loadF(x, base + j) - mu) * inv;
    storeF(dx, base + j,
           inv * (loadF(dy, base + j) * loadF(scale, j) - meanG -
                  xhat * meanGXhat));
  }
}

/// grad_scale and grad_offset: tiles of 32 features per block, the rows
/// split over 32 rows of threads, the partial sums added in order.
constexpr int kTileRows = 32;

__global__ void layerNormParamGradKernel(Ref dy, Ref x, Ref mean, Ref invStd,
                                         Ref dscale, Ref doffset, int64_t rows,
                                         int64_t d) {
  __shared__ double partialScale[kTileRows][33], partialOffset[kTileRows][33];
  int64_t j = blockIdx.x * static_cast<int64_t>(32) + threadIdx.x;
  double ds = 0, db = 0;
  if (j < d)
    for (int64_t r = threadIdx.y; r < rows; r += kTileRows) {
      float mu = mean.data ? loadF(mean, r) : 0.0f;
      float xhat = (loadF(x, r * d + j) - mu) * loadF(invStd, r);
      float g = loadF(dy, r * d + j);
      ds += static_cast<double>(g) * xhat;
      db += g;
    }
  partialScale[threadIdx.y][threadIdx.x] = ds;
  partialOffset[threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y == 0 && j < d) {
    for (int row = 1; row < kTileRows; ++row) {
      ds += partialScale[row][threadIdx.x];
      db += partialOffset[row][threadIdx.x];
    }
    storeF(dscale, j, static_cast<float>(ds));
    if (doffset.data)
      storeF(doffset, j, static_cast<float>(db));
  }
}

__device__ __forceinline__ int64_t featureAt(int64_t i, int64_t c,
                                             int64_t features, int64_t inner) {
  return ((i / inner) * features + c) * inner + i % inner;
}

__global__ void batchNormKernel(Ref x, Ref scale, Ref offset, Ref runMean,
                                Ref runVar, Ref y, Ref newMean, Ref newVar,
                                Ref savedMean, Ref savedInvStd, int64_t outer,
                                int64_t features, int64_t inner, float epsilon,
                                float momentum) {
  __shared__ double shared[32];
  int64_t c = blockIdx.x, n = outer * inner;
  double count = static_cast<double>(n);
  double s = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
    s += loadF(x, featureAt(i, c, features, inner));
  double meanD = blockReduce(s, 0.0, Sum(), shared) / count;
  double q = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    double diff = loadF(x, featureAt(i, c, features, inner)) - meanD;
    q += diff * diff;
  }
  double squares = blockReduce(q, 0.0, Sum(), shared);
  float mean = static_cast<float>(meanD);
  float invStd = static_cast<float>(1.0 / sqrt(squares / count + epsilon));
  float a = loadF(scale, c) * invStd, b = loadF(offset, c);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    int64_t e = featureAt(i, c, features, inner);
    storeF(y, e, (loadF(x, e) - mean) * a + b);
  }
  if (threadIdx.x == 0) {
    float unbiased = static_cast<float>(squares / (count - 1));
    storeF(newMean, c, (1 - momentum) * loadF(runMean, c) + momentum * mean);
    storeF(newVar, c, (1 - momentum) * loadF(runVar, c) + momentum * unbiased);
    storeF(savedMean, c, mean);
    storeF(savedInvStd, c, invStd);
  }
}

__global__ void batchNormGradKernel(Ref dy, Ref x, Ref scale, Ref meanRef,
                                    Ref invStdRef, Ref dx, Ref dscale,
                                    Ref doffset, int64_t outer,
                                    int64_t features, int64_t inner) {
  __shared__ double shared[32];
  int64_t c = blockIdx.x, n = outer * inner;
  double count = static_cast<double>(n);
  float mean = loadF(meanRef, c), invStd = loadF(invStdRef, c);
  double sdy = 0, sdyx = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    int64_t e = featureAt(i, c, features, inner);
    float g = loadF(dy, e);
    sdy += g;
    sdyx += static_cast<double>(g) *
            (static_cast<double>(loadF(x, e)) - static_cast<double>(mean));
  }
  double sumDy = blockReduce(sdy, 0.0, Sum(), shared);
  double sumDyXhat = blockReduce(sdyx, 0.0, Sum(), shared) * invStd;
  float a = loadF(scale, c) * invStd;
  float meanDy = static_cast<float>(sumDy / count),
        meanDyXhat = static_cast<float>(sumDyXhat / count);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    int64_t e = featureAt(i, c, features, inner);
    float xhat = (loadF(x, e) - mean) * invStd;
    storeF(dx, e, a * (loadF(dy, e) - meanDy - xhat * meanDyXhat));
  }
  if (threadIdx.x == 0) {
    storeF(dscale, c, static_cast<float>(sumDyXhat));
    storeF(doffset, c, static_cast<float>(sumDy));
  }
}

} // namespace

int mp::rt::cuda::layerNorm(const Context &ctx, Ref x, Ref scale, Ref offset,
                            Ref y, Ref mean, Ref invStd, int64_t rows,
                            int64_t features, float epsilon) {
  if (rows == 0)
    return 0;
  layerNormKernel<<<static_cast<unsigned>(rows), kThreads, 0, ctx.stream>>>(
      x, scale, offset, y, mean, invStd, features, epsilon);
  return lastError();
}

int mp::rt::cuda::layerNormGrad(const Context &ctx, Ref dy, Ref x, Ref scale,
                                Ref mean, Ref invStd, Ref dx, Ref dscale,
                                Ref doffset, int64_t rows, int64_t features) {
  if (rows > 0)
    layerNormGradKernel<<<static_cast<unsigned>(rows), kThreads, 0,
                          ctx.stream>>>(dy, x, scale, mean, invStd, dx,
                                        features);
  if (features > 0)
    layerNormParamGradKernel<<<static_cast<unsigned>((features + 31) / 32),
                               dim3(32, kTileRows), 0, ctx.stream>>>(
        dy, x, mean, invStd, dscale, doffset, rows, features);
  return lastError();
}

int mp::rt::cuda::batchNorm(const Context &ctx, Ref x, Ref scale, Ref offset,
                            Ref runMean, Ref runVar, Ref y, Ref newMean,
                            Ref newVar, Ref savedMean, Ref savedInvStd,
                            int64_t outer, int64_t features, int64_t inner,
                            float epsilon, float momentum) {
  if (features == 0)
    return 0;
  batchNormKernel<<<static_cast<unsigned>(features), kThreads, 0, ctx.stream>>>(
      x, scale, offset, runMean, runVar, y, newMean, newVar, savedMean,
      savedInvStd, outer, features, inner, epsilon, momentum);
  return lastError();
}

int mp::rt::cuda::batchNormGrad(const Context &ctx, Ref dy, Ref x, Ref scale,
                                Ref mean, Ref invStd, Ref dx, Ref dscale,
                                Ref doffset, int64_t outer, int64_t features,
                                int64_t inner) {
  if (features == 0)
    return 0;
  batchNormGradKernel<<<static_cast<unsigned>(features), kThreads, 0,
                        ctx.stream>>>(dy, x, scale, mean, invStd, dx, dscale,
                                      doffset, outer, features, inner);
  return lastError();
}
