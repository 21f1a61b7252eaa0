//===- Normalization.cpp - batch_norm, layer_norm and their grads ---------===//
//
// Statistics are two-pass (mean, then the mean squared deviation): the
// one-pass E[x^2] - E[x]^2 cancels badly when the mean is large against the
// spread. Every sum accumulates in f64 (reference/Accumulate.h), the
// statistics are computed in f64 and rounded to f32 once. Per-feature
// tensors (scale, statistics) may have another dtype than x; each is
// widened and rounded on its own.
//
//===----------------------------------------------------------------------===//
#include "reference/Normalization.h"
#include "reference/Accumulate.h"
#include "reference/KernelSupport.h"

#include <cmath>
#include <optional>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// x seen as [outer, features, inner] around one dimension.
struct Split {
  int64_t outer, features, inner;
  int64_t count() const { return outer * inner; } ///< elements per feature
  int64_t at(int64_t o, int64_t c, int64_t i) const {
    return (o * features + c) * inner + i;
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// batch_norm and batch_norm_grad
//===----------------------------------------------------------------------===//

static Status getFeatureSplit(const KernelDesc &k, const TensorView &x,
                              Split &split) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank < 2)
    return kernelError(k, "expects x of rank >= 2 but got shape " +
                              formatShape(x.shape));
  int64_t dim;
  MP_RETURN_IF_ERROR(
      resolveDim(k, k.getInt(AttrName::feature_dim, 1), rank, "feature_dim", dim));
  split = {product(x.shape, 0, dim), x.shape[dim],
           product(x.shape, dim + 1, rank)};
  return Status::ok();
}

using NamedViews =
    std::initializer_list<std::pair<const TensorView *, const char *>>;

/// Checks per-feature tensors: the first is a float [features] tensor and
/// the others have its dtype and shape.
static Status checkPerFeature(const KernelDesc &k, const Split &split,
                              NamedViews views) {
  auto [first, firstName] = *views.begin();
  MP_RETURN_IF_ERROR(checkFloat(k, *first, firstName));
  MP_RETURN_IF_ERROR(checkShape(k, *first, {split.features}, firstName));
  for (auto [view, name] : views)
    MP_RETURN_IF_ERROR(checkSameType(k, *first, firstName, *view, name));
  return Status::ok();
}

static Status checkBatchNorm(const KernelDesc &k, const Views &in,
                             const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 5, 5));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "x", out[0], "y"));
  Split split;
  MP_RETURN_IF_ERROR(getFeatureSplit(k, in[0], split));
  MP_RETURN_IF_ERROR(checkPerFeature(k, split,
                                     {{&in[1], "scale"},
                                      {&in[2], "offset"},
                                      {&in[3], "running_mean"},
                                      {&in[4], "running_var"},
                                      {&out[1], "new_running_mean"},
                                      {&out[2], "new_running_var"},
                                      {&out[3], "saved_mean"},
                                      {&out[4], "saved_inv_std"}}));
  double epsilon = k.getFloat(AttrName::epsilon, 1e-5);
  double momentum = k.getFloat(AttrName::momentum, 0.1);
  if (!(epsilon > 0))
    return kernelError(k, "expects a positive epsilon");
  if (!(momentum >= 0 && momentum <= 1))
    return kernelError(k, "expects momentum in [0, 1]");
  // The unbiased variance of the running statistics divides by n - 1.
  if (split.count() < 2)
    return kernelError(k, "needs more than one value per feature but x has "
                          "shape " +
                              formatShape(in[0].shape));
  return Status::ok();
}

Status ref::runBatchNormWith(const KernelDesc &k, const Views &in,
                             const Views &out, const ParallelFor &parallel) {
  MP_RETURN_IF_ERROR(checkBatchNorm(k, in, out));
  Split s;
  MP_RETURN_IF_ERROR(getFeatureSplit(k, in[0], s));
  float epsilon = static_cast<float>(k.getFloat(AttrName::epsilon, 1e-5));
  float momentum = static_cast<float>(k.getFloat(AttrName::momentum, 0.1));
  FloatIn x(in[0]), scale(in[1]), offset(in[2]), runMean(in[3]), runVar(in[4]);
  FloatOut y(out[0]), newMean(out[1]), newVar(out[2]), savedMean(out[3]),
      savedInvStd(out[4]);
  double count = static_cast<double>(s.count());
  parallel(s.features, 1, [&](int64_t cBegin, int64_t cEnd) {
    for (int64_t c = cBegin; c < cEnd; ++c) {
      double sum = 0;
      for (int64_t o = 0; o < s.outer; ++o)
        sum += sumOf(x.data() + s.at(o, c, 0), s.inner);
      double meanD = sum / count;
      double squares = 0;
      for (int64_t o = 0; o < s.outer; ++o)
        squares += sumOfSquares(x.data() + s.at(o, c, 0), s.inner, meanD);
      float mean = static_cast<float>(meanD);
      float invStd =
          static_cast<float>(1.0 / std::sqrt(squares / count + epsilon));
      float a = scale[c] * invStd;
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i)
          y[s.at(o, c, i)] = (x[s.at(o, c, i)] - mean) * a + offset[c];
      float unbiased = static_cast<float>(squares / (count - 1));
      newMean[c] = (1 - momentum) * runMean[c] + momentum * mean;
      newVar[c] = (1 - momentum) * runVar[c] + momentum * unbiased;
      savedMean[c] = mean;
      savedInvStd[c] = invStd;
    }
  });
  for (FloatOut *o : {&y, &newMean, &newVar, &savedMean, &savedInvStd})
    o->finish();
  return Status::ok();
}

static Status checkBatchNormGrad(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 5, 3));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad_y"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", in[1], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", out[0], "grad_x"));
  Split split;
  MP_RETURN_IF_ERROR(getFeatureSplit(k, in[1], split));
  return checkPerFeature(k, split,
                         {{&in[2], "scale"},
                          {&in[3], "saved_mean"},
                          {&in[4], "saved_inv_std"},
                          {&out[1], "grad_scale"},
                          {&out[2], "grad_offset"}});
}

/// With xhat = (x - mean) * inv_std over the n values of a feature:
///   grad_offset = sum(dy), grad_scale = inv_std * sum(dy * (x - mean)),
///   grad_x = scale * inv_std * (dy - grad_offset / n - xhat * grad_scale / n).
Status ref::runBatchNormGradWith(const KernelDesc &k, const Views &in,
                                 const Views &out,
                                 const ParallelFor &parallel) {
  MP_RETURN_IF_ERROR(checkBatchNormGrad(k, in, out));
  Split s;
  MP_RETURN_IF_ERROR(getFeatureSplit(k, in[1], s));
  FloatIn dy(in[0]), x(in[1]), scale(in[2]), mean(in[3]), invStd(in[4]);
  FloatOut dx(out[0]), dscale(out[1]), doffset(out[2]);
  double count = static_cast<double>(s.count());
  parallel(s.features, 1, [&](int64_t cBegin, int64_t cEnd) {
    for (int64_t c = cBegin; c < cEnd; ++c) {
      double sumDy = 0, sumDyX = 0;
      for (int64_t o = 0; o < s.outer; ++o) {
        int64_t first = s.at(o, c, 0);
        sumDy += sumOf(dy.data() + first, s.inner);
        sumDyX += sumOfProducts(dy.data() + first, x.data() + first, s.inner,
                                mean[c]);
      }
      double sumDyXhat = sumDyX * invStd[c];
      float a = scale[c] * invStd[c];
      float meanDy = static_cast<float>(sumDy / count),
            meanDyXhat = static_cast<float>(sumDyXhat / count);
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
          int64_t e = s.at(o, c, i);
          float xhat = (x[e] - mean[c]) * invStd[c];
          dx[e] = a * (dy[e] - meanDy - xhat * meanDyXhat);
        }
      dscale[c] = static_cast<float>(sumDyXhat);
      doffset[c] = static_cast<float>(sumDy);
    }
  });
  for (FloatOut *o : {&dx, &dscale, &doffset})
    o->finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// layer_norm and layer_norm_grad
//===----------------------------------------------------------------------===//

/// x as [rows, features] where features are dims [axis, rank); checks
/// scale-like tensors against x.shape[axis:] and statistics against
/// x.shape[:axis].
static Status getLayerSplit(const KernelDesc &k, const TensorView &x,
                            Split &split, Shape &normalized, Shape &rows) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis;
  MP_RETURN_IF_ERROR(resolveDim(k, k.getInt(AttrName::axis, -1), rank, "axis", axis));
  normalized.assign(x.shape.begin() + axis, x.shape.end());
  rows.assign(x.shape.begin(), x.shape.begin() + axis);
  split = {product(x.shape, 0, axis), product(x.shape, axis, rank), 1};
  return Status::ok();
}

/// Checks `scale` (x.shape[axis:]) and the tensors that share its type, and
/// the statistics `mean` and `invStd` (x.shape[:axis], a type of their own:
/// under a precision policy x is 16-bit while both stay f32).
static Status checkLayerTensors(const KernelDesc &k, const TensorView &x,
                                const TensorView &scale, NamedViews likeScale,
                                const TensorView &mean,
                                const TensorView &invStd) {
  Split split;
  Shape normalized, rows;
  MP_RETURN_IF_ERROR(getLayerSplit(k, x, split, normalized, rows));
  MP_RETURN_IF_ERROR(checkFloat(k, scale, "scale"));
  MP_RETURN_IF_ERROR(checkShape(k, scale, normalized, "scale"));
  for (auto [view, name] : likeScale)
    MP_RETURN_IF_ERROR(checkSameType(k, scale, "scale", *view, name));
  MP_RETURN_IF_ERROR(checkFloat(k, mean, "mean"));
  MP_RETURN_IF_ERROR(checkShape(k, mean, rows, "mean"));
  return checkSameType(k, mean, "mean", invStd, "inv_std");
}

static Status checkLayerNorm(const KernelDesc &k, const Views &in,
                             const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 3));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "x", out[0], "y"));
  if (!(k.getFloat(AttrName::epsilon, 1e-5) > 0))
    return kernelError(k, "expects a positive epsilon");
  return checkLayerTensors(k, in[0], in[1], {{&in[2], "offset"}}, out[1],
                           out[2]);
}

/// layer_norm (`centered`: x - mean) and rms_norm (x itself) of every row:
/// y = xc * inv * scale (+ offset), inv = 1 / sqrt(mean(xc^2) + epsilon),
/// the sums in f64. `offset` and `meanOut` are null for rms_norm.
static Status normalizeRows(const KernelDesc &k, const TensorView &xView,
                            const TensorView &scaleView,
                            const TensorView *offsetView,
                            const TensorView &yView,
                            const TensorView *meanView,
                            const TensorView &invView, bool centered) {
  Split s;
  Shape normalized, rows;
  MP_RETURN_IF_ERROR(getLayerSplit(k, xView, s, normalized, rows));
  float epsilon = static_cast<float>(
      k.getFloat(AttrName::epsilon, centered ? 1e-5 : 1e-6));
  FloatIn x(xView), scale(scaleView);
  std::optional<FloatIn> offset;
  if (offsetView)
    offset.emplace(*offsetView);
  FloatOut y(yView), invOut(invView);
  std::optional<FloatOut> meanOut;
  if (meanView)
    meanOut.emplace(*meanView);
  int64_t d = s.features;
  double size = static_cast<double>(d);
  for (int64_t r = 0; r < s.outer; ++r) {
    const float *row = x.data() + r * d;
    double meanD = centered ? sumOf(row, d) / size : 0.0;
    float mean = static_cast<float>(meanD);
    float inv = static_cast<float>(
        1.0 / std::sqrt(sumOfSquares(row, d, meanD) / size + epsilon));
    for (int64_t j = 0; j < d; ++j)
      y[r * d + j] = (row[j] - mean) * inv * scale[j] +
                     (offset ? (*offset)[j] : 0.0f);
    if (meanOut)
      (*meanOut)[r] = mean;
    invOut[r] = inv;
  }
  y.finish();
  invOut.finish();
  if (meanOut)
    meanOut->finish();
  return Status::ok();
}

static Status runLayerNorm(const KernelDesc &k, const Views &in,
                           const Views &out) {
  return normalizeRows(k, in[0], in[1], &in[2], out[0], &out[1], out[2],
                       /*centered=*/true);
}

static Status checkRmsNorm(const KernelDesc &k, const Views &in,
                           const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 2));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "x", out[0], "y"));
  if (!(k.getFloat(AttrName::epsilon, 1e-6) > 0))
    return kernelError(k, "expects a positive epsilon");
  return checkLayerTensors(k, in[0], in[1], {}, out[1], out[1]);
}

static Status runRmsNorm(const KernelDesc &k, const Views &in,
                         const Views &out) {
  return normalizeRows(k, in[0], in[1], nullptr, out[0], nullptr, out[1],
                       /*centered=*/false);
}

static Status checkLayerNormGrad(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 5, 3));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad_y"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", in[1], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", out[0], "grad_x"));
  return checkLayerTensors(k, in[1], in[2],
                           {{&out[1], "grad_scale"}, {&out[2], "grad_offset"}},
                           in[3], in[4]);
}

/// Per row, with g = dy * scale and xhat = (x - mean) * inv_std over the D
/// normalized values (mean 0 for rms_norm: `mean` and `doffset` null):
///   grad_x = inv_std * (g - mean(g) - xhat * mean(g * xhat))   (layer)
///   grad_x = inv_rms * (g - xhat * mean(g * xhat))             (rms)
/// and grad_scale / grad_offset sum dy * xhat / dy over the rows (f64
/// column accumulators, rows in order).
static Status normalizeRowsGrad(const KernelDesc &k, const TensorView &dyView,
                                const TensorView &xView,
                                const TensorView &scaleView,
                                const TensorView *meanView,
                                const TensorView &invView,
                                const TensorView &dxView,
                                const TensorView &dscaleView,
                                const TensorView *doffsetView) {
  Split s;
  Shape normalized, rows;
  MP_RETURN_IF_ERROR(getLayerSplit(k, xView, s, normalized, rows));
  FloatIn dy(dyView), x(xView), scale(scaleView), invStd(invView);
  std::optional<FloatIn> meanIn;
  if (meanView)
    meanIn.emplace(*meanView);
  FloatOut dx(dxView), dscale(dscaleView);
  std::optional<FloatOut> doffset;
  if (doffsetView)
    doffset.emplace(*doffsetView);
  int64_t d = s.features;
  double size = static_cast<double>(d);
  // The column sums over rows, in row order.
  std::vector<double> sumScale(static_cast<size_t>(d)),
      sumOffset(static_cast<size_t>(d));
  std::vector<float> g(static_cast<size_t>(d));
  for (int64_t r = 0; r < s.outer; ++r) {
    const float *dyRow = dy.data() + r * d, *xRow = x.data() + r * d;
    float mean = meanIn ? (*meanIn)[r] : 0.0f;
    for (int64_t j = 0; j < d; ++j)
      g[j] = dyRow[j] * scale[j];
    double sumG = meanIn ? sumOf(g.data(), d) : 0.0;
    double sumGXhat = sumOfProducts(g.data(), xRow, d, mean) * invStd[r];
    float meanG = static_cast<float>(sumG / size),
          meanGXhat = static_cast<float>(sumGXhat / size);
    for (int64_t j = 0; j < d; ++j) {
      float xhat = (xRow[j] - mean) * invStd[r];
      dx[r * d + j] = invStd[r] * (g[j] - meanG - xhat * meanGXhat);
      sumScale[j] += static_cast<double>(dyRow[j]) * xhat;
      sumOffset[j] += dyRow[j];
    }
  }
  for (int64_t j = 0; j < d; ++j) {
    dscale[j] = static_cast<float>(sumScale[j]);
    if (doffset)
      (*doffset)[j] = static_cast<float>(sumOffset[j]);
  }
  dx.finish();
  dscale.finish();
  if (doffset)
    doffset->finish();
  return Status::ok();
}

static Status runLayerNormGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  return normalizeRowsGrad(k, in[0], in[1], in[2], &in[3], in[4], out[0],
                           out[1], &out[2]);
}

static Status checkRmsNormGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 4, 2));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad_y"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", in[1], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", out[0], "grad_x"));
  return checkLayerTensors(k, in[1], in[2], {{&out[1], "grad_scale"}}, in[3],
                           in[3]);
}

static Status runRmsNormGrad(const KernelDesc &k, const Views &in,
                             const Views &out) {
  return normalizeRowsGrad(k, in[0], in[1], in[2], nullptr, in[3], out[0],
                           out[1], nullptr);
}

Status ref::checkBatchNormKernel(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  return checkBatchNorm(k, in, out);
}
Status ref::checkBatchNormGradKernel(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  return checkBatchNormGrad(k, in, out);
}

static Status runBatchNorm(const KernelDesc &k, const Views &in,
                           const Views &out) {
  return runBatchNormWith(k, in, out, serialFor);
}
static Status runBatchNormGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  return runBatchNormGradWith(k, in, out, serialFor);
}

void ref::addNormalizationKernels(KernelTable &table) {
  table.insert(
      table.end(),
      {
          {OpId::TrainBatchNorm, checkBatchNorm, runBatchNorm},
          {OpId::TrainBatchNormGrad, checkBatchNormGrad, runBatchNormGrad},
          {OpId::TrainLayerNorm, checkLayerNorm, runLayerNorm},
          {OpId::TrainLayerNormGrad, checkLayerNormGrad, runLayerNormGrad},
          {OpId::TrainRmsNorm, checkRmsNorm, runRmsNorm},
          {OpId::TrainRmsNormGrad, checkRmsNormGrad, runRmsNormGrad},
      });
}
