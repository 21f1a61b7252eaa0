//===- MixedPrecision.cpp - the mp dialect: casts and loss scaling --------===//
//
// Operand layouts (variadic operands flattened in order):
//   mp.unscale_and_check  [scale, g0..gn-1] -> [u0..un-1, all_finite]
//   mp.all_finite         [v0..vn-1] -> [i1]
//   mp.select             [pred, new0..new(n-1), old0..old(n-1)] -> n values
//   mp.update_scale       [scale, growth_count, all_finite]
//                         -> [new_scale, new_growth_count]
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Vocabulary.h"
#include "reference/KernelSupport.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mp::rt;
using namespace mp::rt::ref;

static Status checkScalar(const KernelDesc &k, const TensorView &v, DType dtype,
                          const char *what) {
  MP_RETURN_IF_ERROR(checkDType(k, v, dtype, what));
  return checkShape(k, v, {}, what);
}

static bool allFinite(const TensorView &v) {
  for (int64_t e = 0, n = v.numElements(); e < n; ++e)
    if (!std::isfinite(loadFloat(v, e)))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// mp.cast and mp.scale
//===----------------------------------------------------------------------===//

static Status checkCast(const KernelDesc &k, const Views &in,
                        const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "input"));
  MP_RETURN_IF_ERROR(checkFloat(k, out[0], "result"));
  return checkShape(k, out[0], in[0].shape, "result");
}

/// Widening is exact, so every conversion is one rounding (to nearest even)
/// from the source value.
static Status runCast(const KernelDesc &, const Views &in, const Views &out) {
  for (int64_t e = 0, n = out[0].numElements(); e < n; ++e)
    storeFloat(out[0], e, loadFloat(in[0], e));
  return Status::ok();
}

static Status checkScale(const KernelDesc &k, const Views &in,
                         const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "value"));
  MP_RETURN_IF_ERROR(checkScalar(k, in[1], DType::F32, "scale"));
  return checkSameType(k, in[0], "value", out[0], "result");
}

static Status runScale(const KernelDesc &, const Views &in, const Views &out) {
  float scale = loadFloat(in[1], 0);
  for (int64_t e = 0, n = out[0].numElements(); e < n; ++e)
    storeFloat(out[0], e, loadFloat(in[0], e) * scale);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// mp.unscale_and_check and mp.all_finite
//===----------------------------------------------------------------------===//

static Status checkUnscale(const KernelDesc &k, const Views &in,
                           const Views &out) {
  if (in.size() < 2 || out.size() != in.size())
    return kernelError(k, "expects [scale, grads...] -> [unscaled..., "
                          "all_finite] with at least one gradient");
  MP_RETURN_IF_ERROR(checkScalar(k, in[0], DType::F32, "scale"));
  for (size_t i = 1; i < in.size(); ++i) {
    MP_RETURN_IF_ERROR(checkFloat(k, in[i], "gradients"));
    MP_RETURN_IF_ERROR(checkFloat(k, out[i - 1], "unscaled results"));
    MP_RETURN_IF_ERROR(
        checkShape(k, out[i - 1], in[i].shape, "unscaled results"));
  }
  return checkScalar(k, out.back(), DType::I1,
                     vocab::stringify(vocab::ScalerTensor::AllFinite));
}

/// u = f32(g) * f32(1 / scale), the reciprocal in double (GradScaler).
/// Finiteness is judged on the inputs: a product may hide an overflow.
static Status runUnscale(const KernelDesc &, const Views &in,
                         const Views &out) {
  float inverse = static_cast<float>(1.0 / loadFloat(in[0], 0));
  bool finite = true;
  for (size_t i = 1; i < in.size(); ++i) {
    const TensorView &g = in[i], &u = out[i - 1];
    for (int64_t e = 0, n = g.numElements(); e < n; ++e) {
      float v = loadFloat(g, e);
      finite = finite && std::isfinite(v);
      storeFloat(u, e, v * inverse);
    }
  }
  storeInt(out.back(), 0, finite);
  return Status::ok();
}

static Status checkAllFinite(const KernelDesc &k, const Views &in,
                             const Views &out) {
  if (in.empty() || out.size() != 1)
    return kernelError(k, "expects at least one operand and one result");
  for (const TensorView &v : in)
    MP_RETURN_IF_ERROR(checkFloat(k, v, "values"));
  return checkScalar(k, out[0], DType::I1, "result");
}

static Status runAllFinite(const KernelDesc &, const Views &in,
                           const Views &out) {
  bool finite = std::all_of(in.begin(), in.end(), allFinite);
  storeInt(out[0], 0, finite);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// mp.select
//===----------------------------------------------------------------------===//

static Status checkSelect(const KernelDesc &k, const Views &in,
                          const Views &out) {
  size_t n = out.size();
  if (n == 0 || in.size() != 2 * n + 1)
    return kernelError(k, "expects [pred, new..., old...] -> n values with "
                          "n >= 1, but got " +
                              std::to_string(in.size()) + " operands and " +
                              std::to_string(n) + " results");
  MP_RETURN_IF_ERROR(checkScalar(k, in[0], DType::I1, "pred"));
  for (size_t i = 0; i < n; ++i) {
    MP_RETURN_IF_ERROR(
        checkSameType(k, out[i], "results", in[1 + i], "new values"));
    MP_RETURN_IF_ERROR(
        checkSameType(k, out[i], "results", in[1 + n + i], "old values"));
  }
  return Status::ok();
}

/// Copies bits: a skipped step leaves the state exactly as it was.
static Status runSelect(const KernelDesc &, const Views &in, const Views &out) {
  size_t n = out.size();
  size_t first = loadInt(in[0], 0) ? 1 : 1 + n;
  for (size_t i = 0; i < n; ++i)
    std::memcpy(out[i].data, in[first + i].data,
                out[i].numElements() * dtypeSize(out[i].dtype));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// mp.update_scale
//===----------------------------------------------------------------------===//

namespace {
struct ScalerParams {
  int64_t growthInterval;
  float growthFactor, backoffFactor, minScale, maxScale;
};
} // namespace

static Status getScalerParams(const KernelDesc &k, ScalerParams &p) {
  p.growthInterval = k.getInt(AttrName::growth_interval, 2000);
  double growth = k.getFloat(AttrName::growth_factor, 2.0);
  double backoff = k.getFloat(AttrName::backoff_factor, 0.5);
  double lo = k.getFloat(AttrName::min_scale, 0.0);
  double hi = k.getFloat(AttrName::max_scale, 3.4028234663852886e+38);
  if (p.growthInterval < 1)
    return kernelError(k, "expects growth_interval >= 1");
  if (!(growth >= 1) || !(backoff > 0 && backoff < 1) || !(lo >= 0 && lo <= hi))
    return kernelError(k, "expects growth_factor >= 1, backoff_factor in "
                          "(0, 1) and 0 <= min_scale <= max_scale");
  p.growthFactor = static_cast<float>(growth);
  p.backoffFactor = static_cast<float>(backoff);
  p.minScale = static_cast<float>(lo);
  p.maxScale = static_cast<float>(hi);
  return Status::ok();
}

static Status checkUpdateScale(const KernelDesc &k, const Views &in,
                               const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 2));
  MP_RETURN_IF_ERROR(checkScalar(k, in[0], DType::F32, "scale"));
  MP_RETURN_IF_ERROR(checkIndex(k, in[1], "growth_count"));
  MP_RETURN_IF_ERROR(checkShape(k, in[1], {}, "growth_count"));
  MP_RETURN_IF_ERROR(checkScalar(
      k, in[2], DType::I1, vocab::stringify(vocab::ScalerTensor::AllFinite)));
  MP_RETURN_IF_ERROR(checkScalar(k, out[0], DType::F32, "new_scale"));
  MP_RETURN_IF_ERROR(
      checkSameType(k, in[1], "growth_count", out[1], "new_growth_count"));
  ScalerParams p;
  return getScalerParams(k, p);
}

/// GradScaler's update, in f32: back off (to no less than min_scale) and
/// reset the count on overflow; otherwise count finite steps and grow (to
/// no more than max_scale, and never to inf) after growth_interval of them.
static Status runUpdateScale(const KernelDesc &k, const Views &in,
                             const Views &out) {
  ScalerParams p;
  MP_RETURN_IF_ERROR(getScalerParams(k, p));
  float scale = loadFloat(in[0], 0);
  int64_t count = loadInt(in[1], 0);
  if (!loadInt(in[2], 0)) {
    scale = std::max(scale * p.backoffFactor, p.minScale);
    count = 0;
  } else if (count >= p.growthInterval - 1) { // count + 1 reached it
    count = 0;
    float grown = scale * p.growthFactor;
    if (std::isfinite(grown))
      scale = std::min(grown, p.maxScale);
  } else {
    ++count;
  }
  storeFloat(out[0], 0, scale);
  storeInt(out[1], 0, count);
  return Status::ok();
}

void ref::addMixedPrecisionKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::MpCast, checkCast, runCast},
                   {OpId::MpScale, checkScale, runScale},
                   {OpId::MpUnscaleAndCheck, checkUnscale, runUnscale},
                   {OpId::MpAllFinite, checkAllFinite, runAllFinite},
                   {OpId::MpSelect, checkSelect, runSelect},
                   {OpId::MpUpdateScale, checkUpdateScale, runUpdateScale},
               });
}
