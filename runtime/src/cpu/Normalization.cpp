//===- Normalization.cpp - batch norm and layer_norm_grad, threaded -------===//
#include "cpu/Normalization.h"
#include "cpu/ChannelStats.h"
#include "cpu/PathMode.h"

#include "cpu/Parallel.h"
#include "mp/runtime/Backend.h"
#include "cpu/Sums.h"
#include "cpu/ElementAccess.h"
#include "cpu/VectorLevel.h"
#include "reference/Normalization.h"

#include <cmath>

#include <algorithm>

using namespace mp::rt;

namespace {
constexpr int64_t kChunk = 1024;

const char *at(const TensorView &v, int64_t index) {
  return static_cast<const char *>(v.data) +
         index * static_cast<int64_t>(dtypeSize(v.dtype));
}
std::vector<float> widen(const TensorView &v) {
  std::vector<float> out(static_cast<size_t>(v.numElements()));
  toFloats(v.dtype, v.data, out.data(), v.numElements());
  return out;
}
} // namespace

namespace {
/// layer_norm_grad's grad_scale and grad_offset for columns [begin, end)
/// of [rows, d]: ds[j] += g * xhat, doff[j] += g in f64 (added to what ds
/// and doff hold), each column's rows in order (the reference's sums).
/// Panels of kPanel columns keep their running sums in registers over all
/// the rows (a fixed count, unrolled); the rest go column by column.
constexpr int64_t kPanel = 16;
template <typename E>
inline __attribute__((always_inline)) void
columnGradSums(const typename E::T *__restrict dy,
               const typename E::T *__restrict x, const float *__restrict mean,
               const float *__restrict invStd, int64_t rows, int64_t d,
               int64_t begin, int64_t end, double *__restrict ds,
               double *__restrict doff) {
  int64_t c = begin;
  for (; c + kPanel <= end; c += kPanel) {
    double s[kPanel], o[kPanel];
    for (int64_t j = 0; j < kPanel; ++j) {
      s[j] = ds[c + j];
      o[j] = doff[c + j];
    }
    for (int64_t r = 0; r < rows; ++r) {
      float m = mean[r], inv = invStd[r];
      for (int64_t j = 0; j < kPanel; ++j) {
        float g = E::load(dy, r * d + c + j);
        float xhat = (E::load(x, r * d + c + j) - m) * inv;
        s[j] += static_cast<double>(g) * xhat;
        o[j] += g;
      }
    }
    for (int64_t j = 0; j < kPanel; ++j) {
      ds[c + j] = s[j];
      doff[c + j] = o[j];
    }
  }
  for (; c < end; ++c) {
    double s = ds[c], o = doff[c];
    for (int64_t r = 0; r < rows; ++r) {
      float g = E::load(dy, r * d + c);
      float xhat = (E::load(x, r * d + c) - mean[r]) * invStd[r];
      s += static_cast<double>(g) * xhat;
      o += g;
    }
    ds[c] = s;
    doff[c] = o;
  }
}
} // namespace

void cpu::runLayerNormGrad(PathMode mode, const KernelDesc &kernel,
                           const std::vector<TensorView> &in,
                           const std::vector<TensorView> &out, bool &handled) {
  handled = false;
  if (kernel.opId() != OpId::TrainLayerNormGrad || in.size() != 5 ||
      out.size() != 3)
    return;
  const TensorView &dy = in[0], &x = in[1], &scale = in[2], &mean = in[3],
                   &invStd = in[4];
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = kernel.getInt(AttrName::axis, -1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return;
  int64_t rows = 1, d = 1;
  for (int64_t i = 0; i < axis; ++i)
    rows *= x.shape[i];
  for (int64_t i = axis; i < rank; ++i)
    d *= x.shape[i];
  // The reference's checks, so that nothing is read out of bounds.
  for (const TensorView *v : {&dy, &x, &scale, &mean, &invStd, &out[0],
                              &out[1], &out[2]})
    if (!isFloat(v->dtype) || (v->numElements() && !v->data))
      return;
  if (dy.dtype != x.dtype || dy.shape != x.shape || out[0].dtype != x.dtype ||
      out[0].shape != x.shape || scale.numElements() != d ||
      out[1].dtype != scale.dtype || out[1].shape != scale.shape ||
      out[2].dtype != scale.dtype || out[2].shape != scale.shape ||
      mean.numElements() != rows || invStd.numElements() != rows ||
      invStd.dtype != mean.dtype || rows == 0 || d == 0)
    return;
  if (mode == PathMode::Check) {
    handled = true;
    return;
  }
  std::vector<float> scaleF = widen(scale), meanF = widen(mean),
                     invStdF = widen(invStd);
  DType dtype = x.dtype;
  double size = static_cast<double>(d);

  // Pass 1: grad_x, row by row (the sums are the reference's: cpu/Sums.h;
  // the elementwise loops at the CPU's vector width).
  parallelFor(rows, std::max<int64_t>(1, (int64_t(1) << 15) / d),
              [&](int64_t begin, int64_t end) {
                std::vector<float> g(d), xr(d), dx(d);
                for (int64_t r = begin; r < end; ++r) {
                  toFloats(dtype, at(dy, r * d), g.data(), d);
                  toFloats(dtype, at(x, r * d), xr.data(), d);
                  float m = meanF[r], s = invStdF[r];
                  float *__restrict gv = g.data(), *__restrict dv = dx.data();
                  const float *__restrict xv = xr.data(),
                                          *__restrict sv = scaleF.data();
                  runVectorized([&] {
                    for (int64_t j = 0; j < d; ++j)
                      gv[j] = gv[j] * sv[j];
                  });
                  double sumG = cpu::sumOf(gv, d);
                  double sumGXhat = cpu::sumOfProducts(gv, xv, d, m) * s;
                  float meanG = static_cast<float>(sumG / size),
                        meanGXhat = static_cast<float>(sumGXhat / size);
                  runVectorized([&] {
                    for (int64_t j = 0; j < d; ++j) {
                      float xhat = (xv[j] - m) * s;
                      dv[j] = s * (gv[j] - meanG - xhat * meanGXhat);
                    }
                  });
                  fromFloats(dv, dtype, const_cast<char *>(at(out[0], r * d)),
                             d);
                }
              });

  // Pass 2: grad_scale and grad_offset, column by column, rows in order;
  // f32 and bf16 read in place by panels of columns (columnGradSums).
  std::vector<double> ds(static_cast<size_t>(d)), doff(ds.size());
  auto columnsOf = [&](auto elems, int64_t begin, int64_t end) {
    using E = decltype(elems);
    using T = typename E::T;
    runVectorized([&] {
      columnGradSums<E>(dy.as<const T>(), x.as<const T>(), meanF.data(),
                        invStdF.data(), rows, d, begin, end, ds.data(),
                        doff.data());
    });
  };
  auto columns = [&](int64_t begin, int64_t end) {
    if (dtype == DType::F32 || dtype == DType::BF16) {
      cpu::withElems(dtype,
                     [&](auto elems) { columnsOf(elems, begin, end); });
      return;
    }
    float g[kChunk], xr[kChunk];
    for (int64_t c = begin; c < end; c += kChunk) {
      int64_t n = std::min(kChunk, end - c);
      for (int64_t r = 0; r < rows; ++r) {
        toFloats(dtype, at(dy, r * d + c), g, n);
        toFloats(dtype, at(x, r * d + c), xr, n);
        runVectorized([&] {
          columnGradSums<cpu::F32Elems>(g, xr, meanF.data() + r,
                                        invStdF.data() + r, 1, n, 0, n,
                                        ds.data() + c, doff.data() + c);
        });
      }
    }
  };
  // Column blocks of at least 64, one per thread where there are enough.
  int64_t blocks = std::max<int64_t>(
      1, std::min<int64_t>(cpuThreads(), d / 64));
  parallelForItems(blocks, [&](int64_t begin, int64_t end) {
    columns(d * begin / blocks, d * end / blocks);
  });
  std::vector<float> dsF(ds.begin(), ds.end()), doffF(doff.begin(), doff.end());
  fromFloats(dsF.data(), out[1].dtype, out[1].data, d);
  fromFloats(doffF.data(), out[2].dtype, out[2].data, d);
  handled = true;
}

namespace {
/// Writes one f32 value into element `index` of a float tensor, rounded
/// once like a reference FloatOut.
void storeOne(const TensorView &v, int64_t index, float value) {
  fromFloats(&value, v.dtype, const_cast<char *>(at(v, index)), 1);
}

/// x seen as [outer, features, inner] around `feature_dim`.
struct FeatureSplit {
  int64_t outer = 1, features = 1, inner = 1;
};
bool featureSplit(const KernelDesc &kernel, const TensorView &x,
                  FeatureSplit &s) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t dim = kernel.getInt(AttrName::feature_dim, 1);
  if (dim < 0)
    dim += rank;
  if (rank < 2 || dim < 0 || dim >= rank)
    return false;
  for (int64_t d = 0; d < dim; ++d)
    s.outer *= x.shape[d];
  s.features = x.shape[dim];
  for (int64_t d = dim + 1; d < rank; ++d)
    s.inner *= x.shape[d];
  return true;
}

bool wide(const TensorView &v) { return v.dtype == DType::F32; }

/// The n elements of v from element `first` as f32: in place for a float32
/// tensor, widened into `buf` otherwise.
const float *run(const TensorView &v, int64_t first, int64_t n, float *buf) {
  if (wide(v))
    return static_cast<const float *>(v.data) + first;
  toFloats(v.dtype, at(v, first), buf, n);
  return buf;
}

/// Where element `first` of a float32 output is.
float *mutableRun(const TensorView &v, int64_t first) {
  return static_cast<float *>(v.data) + first;
}

/// Calls body(run of `inner` f32 values, index of its first element) for
/// every run of feature `c`, outer index ascending, widened through `buf`
/// (s.inner floats): whole runs, as the reference sums them.
template <typename Body>
void forEachRun(const TensorView &x, const FeatureSplit &s, int64_t c,
                float *buf, Body body) {
  for (int64_t o = 0; o < s.outer; ++o) {
    int64_t first = (o * s.features + c) * s.inner;
    const float *run = buf;
    if (x.dtype == DType::F32)
      run = static_cast<const float *>(x.data) + first;
    else
      toFloats(x.dtype, at(x, first), buf, s.inner);
    body(run, s.inner, first);
  }
}

/// batch_norm / batch_norm_grad with the features last (NHWC images, [N, C]
/// activations): x is [rows, features], statistics and elementwise passes
/// by blocks of rows (cpu/ChannelStats.h: f64 sums, the variance by
/// blocks combined with Chan's update; not the reference's order of
/// additions, so not its bits: within the documented tolerance). The
/// statistics' rules after the sums are the reference's.
void batchNormColumns(const KernelDesc &kernel, bool isGrad,
                      const std::vector<TensorView> &in,
                      const std::vector<TensorView> &out, int64_t rows,
                      int64_t features, const TensorView *reluOut,
                      const std::vector<TensorView> *reluGradIn) {
  double count = static_cast<double>(rows);
  size_t f = static_cast<size_t>(features);
  const TensorView &x = isGrad ? in[1] : in[0];
  if (!isGrad) {
    float epsilon = static_cast<float>(kernel.getFloat(AttrName::epsilon, 1e-5));
    float momentum = static_cast<float>(kernel.getFloat(AttrName::momentum, 0.1));
    std::vector<float> scale = widen(in[1]), offset = widen(in[2]),
                       runMean = widen(in[3]), runVar = widen(in[4]);
    std::vector<double> meanD, squares;
    cpu::channelMoments(x, rows, features, meanD, squares);
    std::vector<float> mean(f), a(f);
    for (size_t c = 0; c < f; ++c) {
      mean[c] = static_cast<float>(meanD[c]);
      float invStd =
          static_cast<float>(1.0 / std::sqrt(squares[c] / count + epsilon));
      a[c] = scale[c] * invStd;
      float unbiased = static_cast<float>(squares[c] / (count - 1));
      storeOne(out[1], c, (1 - momentum) * runMean[c] + momentum * mean[c]);
      storeOne(out[2], c, (1 - momentum) * runVar[c] + momentum * unbiased);
      storeOne(out[3], c, mean[c]);
      storeOne(out[4], c, invStd);
    }
    cpu::normalizeChannels(x, reluOut ? *reluOut : out[0], rows, features,
                           mean.data(), a.data(), offset.data(),
                           reluOut != nullptr);
    return;
  }
  // A fused relu_grad: its gradient, masked by the ReLU's output as read.
  const TensorView &dy = reluGradIn ? (*reluGradIn)[0] : in[0];
  const TensorView *mask = reluGradIn ? &(*reluGradIn)[1] : nullptr;
  std::vector<float> scale = widen(in[2]), savedMean = widen(in[3]),
                     invStd = widen(in[4]);
  std::vector<double> sumDy, sumDyX;
  cpu::channelGradSums(dy, x, rows, features, savedMean.data(), sumDy, sumDyX,
                       mask);
  std::vector<float> k(f), meanDy(f), meanDyXhat(f);
  for (size_t c = 0; c < f; ++c) {
    double sumDyXhat = sumDyX[c] * invStd[c];
    k[c] = scale[c] * invStd[c];
    meanDy[c] = static_cast<float>(sumDy[c] / count);
    meanDyXhat[c] = static_cast<float>(sumDyXhat / count);
    storeOne(out[1], c, static_cast<float>(sumDyXhat));
    storeOne(out[2], c, static_cast<float>(sumDy[c]));
  }
  cpu::normalizeChannelsGrad(dy, x, out[0], rows, features,
                             {k.data(), savedMean.data(), invStd.data(),
                              meanDy.data(), meanDyXhat.data()},
                             mask);
}

/// Whether `v` is a dense float tensor of `like`'s dtype and shape.
bool sameAs(const TensorView &v, const TensorView &like) {
  return v.dtype == like.dtype && v.shape == like.shape &&
         (v.numElements() == 0 || v.data);
}
} // namespace

Status cpu::runBatchNorm(PathMode mode, const KernelDesc &kernel,
                         const std::vector<TensorView> &in,
                         const std::vector<TensorView> &out, bool &handled,
                         const TensorView *reluOut,
                         const std::vector<TensorView> *reluGradIn) {
  handled = false;
  bool isGrad = kernel.opId() == OpId::TrainBatchNormGrad;
  if (kernel.opId() != OpId::TrainBatchNorm && !isGrad)
    return Status::ok();
  if ((reluOut && isGrad) || (reluGradIn && !isGrad))
    return Status::ok();
  MP_RETURN_IF_ERROR(isGrad ? ref::checkBatchNormGradKernel(kernel, in, out)
                            : ref::checkBatchNormKernel(kernel, in, out));
  const TensorView &x = isGrad ? in[1] : in[0];
  FeatureSplit s;
  if (!featureSplit(kernel, x, s) || (s.inner < 64 && s.inner != 1))
    return Status::ok();
  // A fused ReLU or ReLU gradient: with the features last only (the
  // caller runs the kernels one by one otherwise), on tensors like y / dy.
  bool fused = reluOut || reluGradIn;
  if (fused &&
      (s.inner != 1 || (reluOut && !sameAs(*reluOut, out[0])) ||
       (reluGradIn && (reluGradIn->size() != 2 ||
                       !sameAs((*reluGradIn)[0], in[0]) ||
                       !sameAs((*reluGradIn)[1], in[0])))))
    return Status::ok();
  for (const TensorView &v : in)
    if (v.numElements() && !v.data)
      return Status::ok();
  for (const TensorView &v : out)
    if (v.numElements() && !v.data)
      return Status::ok();
  if (mode == PathMode::Check) {
    handled = true;
    return Status::ok();
  }
  if (s.inner == 1) {
    batchNormColumns(kernel, isGrad, in, out, s.outer, s.features, reluOut,
                     reluGradIn);
    handled = true;
    return Status::ok();
  }
  // The reference's arithmetic (reference/Normalization.cpp): f64 sums of
  // whole runs, statistics in f64 rounded once; features split over threads.
  double count = static_cast<double>(s.outer * s.inner);
  size_t runFloats = static_cast<size_t>(s.inner);
  if (!isGrad) {
    float epsilon = static_cast<float>(kernel.getFloat(AttrName::epsilon, 1e-5));
    float momentum = static_cast<float>(kernel.getFloat(AttrName::momentum, 0.1));
    std::vector<float> scale = widen(in[1]), offset = widen(in[2]),
                       runMean = widen(in[3]), runVar = widen(in[4]);
    parallelFor(s.features, 1, [&](int64_t begin, int64_t end) {
      std::vector<float> buf(runFloats), y(runFloats);
      for (int64_t c = begin; c < end; ++c) {
        double sum = 0;
        forEachRun(x, s, c, buf.data(),
                   [&](const float *v, int64_t n, int64_t) {
                     sum += cpu::sumOf(v, n);
                   });
        double meanD = sum / count;
        double squares = 0;
        forEachRun(x, s, c, buf.data(),
                   [&](const float *v, int64_t n, int64_t) {
                     squares += cpu::sumOfSquares(v, n, meanD);
                   });
        float mean = static_cast<float>(meanD);
        float invStd =
            static_cast<float>(1.0 / std::sqrt(squares / count + epsilon));
        float a = scale[c] * invStd;
        forEachRun(x, s, c, buf.data(),
                   [&](const float *v, int64_t n, int64_t first) {
                     float *dst = wide(out[0]) ? mutableRun(out[0], first)
                                               : y.data();
                     for (int64_t j = 0; j < n; ++j)
                       dst[j] = (v[j] - mean) * a + offset[c];
                     if (!wide(out[0]))
                       fromFloats(y.data(), out[0].dtype,
                                  const_cast<char *>(at(out[0], first)), n);
                   });
        float unbiased = static_cast<float>(squares / (count - 1));
        storeOne(out[1], c, (1 - momentum) * runMean[c] + momentum * mean);
        storeOne(out[2], c, (1 - momentum) * runVar[c] + momentum * unbiased);
        storeOne(out[3], c, mean);
        storeOne(out[4], c, invStd);
      }
    });
    handled = true;
    return Status::ok();
  }
  // grad: dy, x, scale, saved mean, saved inv_std -> dx, dscale, doffset.
  const TensorView &dy = in[0];
  std::vector<float> scale = widen(in[2]), mean = widen(in[3]),
                     invStd = widen(in[4]);
  parallelFor(s.features, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> xb(runFloats), gb(runFloats), dx(runFloats);
    for (int64_t c = begin; c < end; ++c) {
      double sumDy = 0, sumDyX = 0;
      forEachRun(x, s, c, xb.data(),
                 [&](const float *v, int64_t n, int64_t first) {
                   const float *g = run(dy, first, n, gb.data());
                   sumDy += cpu::sumOf(g, n);
                   sumDyX += cpu::sumOfProducts(g, v, n, mean[c]);
                 });
      double sumDyXhat = sumDyX * invStd[c];
      float a = scale[c] * invStd[c];
      float meanDy = static_cast<float>(sumDy / count),
            meanDyXhat = static_cast<float>(sumDyXhat / count);
      forEachRun(x, s, c, xb.data(),
                 [&](const float *v, int64_t n, int64_t first) {
                   const float *g = run(dy, first, n, gb.data());
                   float *d = wide(out[0]) ? mutableRun(out[0], first)
                                           : dx.data();
                   for (int64_t j = 0; j < n; ++j) {
                     float xhat = (v[j] - mean[c]) * invStd[c];
                     d[j] = a * (g[j] - meanDy - xhat * meanDyXhat);
                   }
                   if (!wide(out[0]))
                     fromFloats(dx.data(), out[0].dtype,
                                const_cast<char *>(at(out[0], first)), n);
                 });
      storeOne(out[1], c, static_cast<float>(sumDyXhat));
      storeOne(out[2], c, static_cast<float>(sumDy));
    }
  });
  handled = true;
  return Status::ok();
}
