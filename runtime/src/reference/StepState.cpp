//===- StepState.cpp - lr_schedule, clipping, dropout ---------------------===//
//
// The state that changes per step (TrainStepOps.td). The schedule and the
// masks are common/StepRules.h's; the global norm of clip_grad_norm sums
// |g|^p over every gradient in f64 (Accumulate.h), the clipped gradients
// are g * f32(min(1, max_norm / (norm + 1e-6))) in f32, rounded once.
//
//===----------------------------------------------------------------------===//
#include "common/StepRules.h"
#include "reference/Accumulate.h"
#include "reference/ElementRules.h"
#include "reference/KernelSupport.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
using Views = std::vector<TensorView>;

//===----------------------------------------------------------------------===//
// lr_schedule
//===----------------------------------------------------------------------===//

Status checkSchedule(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkIndex(k, in[0], "step"));
  MP_RETURN_IF_ERROR(checkShape(k, in[0], {}, "step"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], DType::F32, "lr"));
  MP_RETURN_IF_ERROR(checkShape(k, out[0], {}, "lr"));
  Schedule s;
  return ref::getSchedule(k, s);
}

Status runSchedule(const KernelDesc &k, const Views &in, const Views &out) {
  Schedule s;
  MP_RETURN_IF_ERROR(ref::getSchedule(k, s));
  int64_t t = loadInt(in[0], 0);
  if (t < 0)
    return kernelError(k, "got the step count " + std::to_string(t) +
                              "; it must be >= 0");
  storeFloat(out[0], 0, s.lrAt(static_cast<double>(t)));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// clip_grad_norm and clip_grad_value
//===----------------------------------------------------------------------===//

/// n gradients in, the n clipped ones (same types) out, then `extra`
/// more results.
Status checkClipOperands(const KernelDesc &k, const Views &in,
                         const Views &out, size_t extra) {
  if (in.empty() || out.size() != in.size() + extra)
    return kernelError(k, "expects n >= 1 gradients and " +
                              std::to_string(extra) +
                              " result(s) more than gradients");
  for (size_t i = 0; i < in.size(); ++i) {
    MP_RETURN_IF_ERROR(checkFloat(k, in[i], "grad"));
    MP_RETURN_IF_ERROR(checkSameType(k, in[i], "grad", out[i], "clipped"));
  }
  return Status::ok();
}

Status checkClipNorm(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkClipOperands(k, in, out, 1));
  MP_RETURN_IF_ERROR(checkDType(k, out.back(), DType::F32, "total_norm"));
  MP_RETURN_IF_ERROR(checkShape(k, out.back(), {}, "total_norm"));
  double maxNorm = k.getFloat(AttrName::max_norm, -1);
  double p = k.getFloat(AttrName::norm_type, 2.0);
  if (!std::isfinite(maxNorm) || !(maxNorm > 0) || !(p > 0))
    return kernelError(k, "needs a finite, positive max_norm and a "
                          "positive norm_type");
  return Status::ok();
}

/// (sum |g|^p)^(1/p) over every gradient, or max |g| for p = inf; the
/// sums in f64. A NaN anywhere gives NaN.
double globalNorm(const Views &grads, double p) {
  bool isMax = std::isinf(p);
  double total = 0;
  bool nan = false;
  for (const TensorView &g : grads) {
    FloatIn x(g);
    int64_t n = g.numElements();
    if (isMax) {
      for (int64_t i = 0; i < n; ++i) {
        double a = std::fabs(static_cast<double>(x[i]));
        nan |= std::isnan(a);
        total = std::max(total, a);
      }
    } else if (p == 2) {
      total += laneSum(n, [&](int64_t i) {
        double v = static_cast<double>(x[i]);
        return v * v;
      });
    } else {
      total += laneSum(n, [&](int64_t i) {
        return std::pow(std::fabs(static_cast<double>(x[i])), p);
      });
    }
  }
  if (isMax)
    return nan ? NAN : total;
  return p == 2 ? std::sqrt(total) : std::pow(total, 1 / p);
}

Status runClipNorm(const KernelDesc &k, const Views &in, const Views &out) {
  double maxNorm = k.getFloat(AttrName::max_norm, 1);
  double norm = globalNorm(in, k.getFloat(AttrName::norm_type, 2.0));
  // PyTorch: clip_coef = max_norm / (norm + 1e-6), clamped to 1 (a NaN
  // norm keeps its NaN, which the finiteness checks catch).
  double coef = maxNorm / (norm + 1e-6);
  float scale = static_cast<float>(std::isnan(coef) ? coef
                                                    : std::min(coef, 1.0));
  for (size_t i = 0; i < in.size(); ++i) {
    FloatIn g(in[i]);
    FloatOut r(out[i]);
    for (int64_t e = 0, n = in[i].numElements(); e < n; ++e)
      r[e] = g[e] * scale;
    r.finish();
  }
  storeFloat(out.back(), 0, static_cast<float>(norm));
  return Status::ok();
}

Status checkClipValue(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkClipOperands(k, in, out, 0));
  double c = k.getFloat(AttrName::clip_value, -1);
  if (!std::isfinite(c) || !(c > 0))
    return kernelError(k, "needs a finite, positive clip_value");
  return Status::ok();
}

Status runClipValue(const KernelDesc &k, const Views &in, const Views &out) {
  float c = static_cast<float>(k.getFloat(AttrName::clip_value, 1));
  for (size_t i = 0; i < in.size(); ++i) {
    FloatIn g(in[i]);
    FloatOut r(out[i]);
    for (int64_t e = 0, n = in[i].numElements(); e < n; ++e) {
      float v = g[e];
      r[e] = v > c ? c : (v < -c ? -c : v); // NaN falls through
    }
    r.finish();
  }
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// gradient: the marker of an elementwise update's gradient, a copy (plans
// from mp-compile hold no kernel for it: the result is its operand)
//===----------------------------------------------------------------------===//

Status checkGradient(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  return checkSameType(k, in[0], "grad", out[0], "result");
}

Status runGradient(const KernelDesc &, const Views &in, const Views &out) {
  if (out[0].data != in[0].data)
    std::memcpy(out[0].data, in[0].data,
                in[0].numElements() * dtypeSize(in[0].dtype));
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// dropout and dropout_grad (one rule: the gradient is the same mask)
//===----------------------------------------------------------------------===//

Status checkDropout(const KernelDesc &k, const Views &in, const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "x", out[0], "result"));
  for (size_t i : {1, 2}) {
    const char *name = i == 1 ? "key" : "counter";
    MP_RETURN_IF_ERROR(checkIndex(k, in[i], name));
    MP_RETURN_IF_ERROR(checkShape(k, in[i], {}, name));
  }
  double p = k.getFloat(AttrName::p, -1);
  int64_t site = k.getInt(AttrName::site, 0);
  if (!(p >= 0 && p < 1))
    return kernelError(k, "needs a p in [0, 1)");
  if (site < 0 || site > UINT32_MAX)
    return kernelError(k, "needs a site in [0, 2^32)");
  if (in[0].numElements() > (int64_t(1) << 34))
    return kernelError(k, "has more than 2^34 elements");
  bool broadcast;
  MaskIndex index;
  return ref::getMaskIndex(k, in[0], broadcast, index);
}

Status runDropout(const KernelDesc &k, const Views &in, const Views &out) {
  DropoutMask mask = DropoutMask::make(
      loadInt(in[1], 0), loadInt(in[2], 0), k.getInt(AttrName::site, 0),
      k.getFloat(AttrName::p, 0));
  bool broadcast;
  MaskIndex index;
  MP_RETURN_IF_ERROR(ref::getMaskIndex(k, in[0], broadcast, index));
  FloatIn x(in[0]);
  FloatOut r(out[0]);
  int64_t n = in[0].numElements();
  if (broadcast) {
    for (int64_t i = 0; i < n; ++i)
      r[i] = mask.apply(x[i], mask.word(static_cast<uint64_t>(index.of(i))));
    r.finish();
    return Status::ok();
  }
  for (int64_t block = 0; 4 * block < n; ++block) {
    Philox4 w = mask.words(static_cast<uint64_t>(block));
    for (int64_t j = 0; j < 4 && 4 * block + j < n; ++j)
      r[4 * block + j] = mask.apply(x[4 * block + j], w.v[j]);
  }
  r.finish();
  return Status::ok();
}
} // namespace

/// The case index of enum attribute `name` in the op table (its ODS
/// default where the kernel has none), or -1.
static int enumIndex(const KernelDesc &k, AttrName name) {
  const AttrSchema *schema = findAttrSchema(k.opId(), name);
  const std::string *text = k.getString(name);
  if (!schema || !schema->enumCases)
    return -1;
  std::string value = text ? *text
                           : (schema->defaultString ? schema->defaultString
                                                    : "");
  for (size_t i = 0; i < schema->numEnumCases; ++i)
    if (value == schema->enumCases[i])
      return static_cast<int>(i);
  return -1;
}

Status ref::getMaskIndex(const KernelDesc &k, const TensorView &x,
                         bool &broadcast, MaskIndex &index) {
  broadcast = false;
  const std::vector<int64_t> *mask = k.getInts(AttrName::mask_shape);
  if (!mask || *mask == x.shape)
    return Status::ok();
  if (mask->size() != x.shape.size())
    return kernelError(k, "has a mask_shape of rank " +
                              std::to_string(mask->size()) + " for x of rank " +
                              std::to_string(x.shape.size()));
  if (x.shape.size() > static_cast<size_t>(MaskIndex::kMaxRank))
    return kernelError(k, "has a broadcast mask_shape on a tensor of rank " +
                              std::to_string(x.shape.size()) + " (at most " +
                              std::to_string(MaskIndex::kMaxRank) + ")");
  index.rank = static_cast<int>(x.shape.size());
  int64_t stride = 1;
  for (int d = index.rank - 1; d >= 0; --d) {
    int64_t m = (*mask)[d];
    if (m != 1 && m != x.shape[d])
      return kernelError(k, "has mask_shape dimension " + std::to_string(d) +
                                " = " + std::to_string(m) +
                                "; each must be 1 or x's (" +
                                std::to_string(x.shape[d]) + ")");
    index.dims[d] = x.shape[d];
    index.maskStrides[d] = m == 1 ? 0 : stride;
    stride *= m;
  }
  broadcast = true;
  return Status::ok();
}

Status ref::getSchedule(const KernelDesc &k, Schedule &s) {
  s.baseLr = k.getFloat(AttrName::base_lr, -1);
  s.warmupSteps = k.getInt(AttrName::warmup_steps, 0);
  s.warmupStartFactor = k.getFloat(AttrName::warmup_start_factor, 0);
  s.decaySteps = k.getInt(AttrName::decay_steps, 1);
  s.endFactor = k.getFloat(AttrName::end_factor, 0);
  s.gamma = k.getFloat(AttrName::gamma, 1);
  s.warmup = enumIndex(k, AttrName::warmup);
  s.decay = enumIndex(k, AttrName::decay);
  if (!std::isfinite(s.baseLr) || s.baseLr < 0)
    return kernelError(k, "needs a finite 'base_lr' >= 0");
  if (s.warmup < 0 || s.decay < 0)
    return kernelError(k, "has an unknown warmup or decay shape");
  if (s.warmupSteps < 0 ||
      !(s.warmupStartFactor >= 0 && s.warmupStartFactor <= 1))
    return kernelError(k, "needs warmup_steps >= 0 and a "
                          "warmup_start_factor in [0, 1]");
  if (s.decaySteps < 1 && s.decay != 0 && s.decay != 4)
    return kernelError(k, "needs decay_steps >= 1");
  if (!(s.endFactor >= 0 && s.endFactor <= 1) ||
      !(s.gamma >= 0 && s.gamma <= 1))
    return kernelError(k, "needs end_factor and gamma in [0, 1]");
  return Status::ok();
}

void ref::addStepStateKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainLrSchedule, checkSchedule, runSchedule},
                   {OpId::TrainClipGradNorm, checkClipNorm, runClipNorm},
                   {OpId::TrainClipGradValue, checkClipValue, runClipValue},
                   {OpId::TrainDropout, checkDropout, runDropout},
                   {OpId::TrainDropoutGrad, checkDropout, runDropout},
                   {OpId::TrainGradient, checkGradient, runGradient},
               });
}
