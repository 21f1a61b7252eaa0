//===- GroupNorm.cpp - group_norm and group_norm_grad ---------------------===//
//
// x is [N, P, C, Q] around its channel dimension (P, Q the products of the
// dimensions before and after it, past the batch); a sample's group g is P
// runs of C / groups * Q consecutive elements. Statistics as batch and
// layer norm's (Normalization.cpp): two-pass, every sum in f64, rounded to
// f32 once.
//
//===----------------------------------------------------------------------===//
#include "reference/Accumulate.h"
#include "reference/KernelSupport.h"

#include <cmath>
#include <vector>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
struct GroupSplit {
  int64_t batch, before, channels, after, groups;
  int64_t perGroup() const { return channels / groups; }
  int64_t run() const { return perGroup() * after; } ///< contiguous elements
  int64_t count() const { return before * run(); }  ///< per (sample, group)
  /// First element of run p of sample n's group g.
  int64_t start(int64_t n, int64_t g, int64_t p) const {
    return ((n * before + p) * channels + g * perGroup()) * after;
  }
};
} // namespace

static Status getGroupSplit(const KernelDesc &k, const TensorView &x,
                            GroupSplit &s) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t dim = k.getInt(AttrName::feature_dim, 1);
  int64_t groups = k.getInt(AttrName::groups, 0);
  if (rank < 2 || dim < 1 || dim >= rank)
    return kernelError(k, "expects x of rank >= 2 with its channels at "
                          "feature_dim in [1, rank) but got shape " +
                              formatShape(x.shape) + " and feature_dim " +
                              std::to_string(dim));
  s = {x.shape[0], product(x.shape, 1, dim), x.shape[dim],
       product(x.shape, dim + 1, rank), groups};
  if (groups < 1 || s.channels % groups != 0)
    return kernelError(k, "cannot split " + std::to_string(s.channels) +
                              " channels into " + std::to_string(groups) +
                              " groups");
  return Status::ok();
}

/// Checks [C] per-channel tensors (of the first's float dtype) and [N, G]
/// statistics (of the first statistic's float dtype).
static Status checkGroupTensors(
    const KernelDesc &k, const GroupSplit &s,
    std::initializer_list<std::pair<const TensorView *, const char *>> channel,
    std::initializer_list<std::pair<const TensorView *, const char *>> stats) {
  for (auto list : {channel, stats}) {
    auto [first, firstName] = *list.begin();
    MP_RETURN_IF_ERROR(checkFloat(k, *first, firstName));
    Shape shape = list.begin() == channel.begin() ? Shape{s.channels}
                                                  : Shape{s.batch, s.groups};
    MP_RETURN_IF_ERROR(checkShape(k, *first, shape, firstName));
    for (auto [view, name] : list)
      MP_RETURN_IF_ERROR(checkSameType(k, *first, firstName, *view, name));
  }
  return Status::ok();
}

static Status checkGroupNorm(const KernelDesc &k, const Views &in,
                             const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 3));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "x", out[0], "y"));
  GroupSplit s;
  MP_RETURN_IF_ERROR(getGroupSplit(k, in[0], s));
  if (!(k.getFloat(AttrName::epsilon, 1e-5) > 0))
    return kernelError(k, "expects a positive epsilon");
  return checkGroupTensors(k, s, {{&in[1], "scale"}, {&in[2], "offset"}},
                           {{&out[1], "mean"}, {&out[2], "inv_std"}});
}

static Status runGroupNorm(const KernelDesc &k, const Views &in,
                           const Views &out) {
  GroupSplit s;
  MP_RETURN_IF_ERROR(getGroupSplit(k, in[0], s));
  double epsilon = k.getFloat(AttrName::epsilon, 1e-5);
  FloatIn x(in[0]), scale(in[1]), offset(in[2]);
  FloatOut y(out[0]), meanOut(out[1]), invStdOut(out[2]);
  double count = static_cast<double>(s.count());
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.groups; ++g) {
      double sum = 0, squares = 0;
      for (int64_t p = 0; p < s.before; ++p)
        sum += sumOf(x.data() + s.start(n, g, p), s.run());
      double meanD = sum / count;
      for (int64_t p = 0; p < s.before; ++p)
        squares += sumOfSquares(x.data() + s.start(n, g, p), s.run(), meanD);
      float mean = static_cast<float>(meanD);
      float invStd =
          static_cast<float>(1.0 / std::sqrt(squares / count + epsilon));
      for (int64_t p = 0; p < s.before; ++p)
        for (int64_t c = 0; c < s.perGroup(); ++c) {
          int64_t channel = g * s.perGroup() + c;
          float a = scale[channel] * invStd;
          int64_t first = s.start(n, g, p) + c * s.after;
          for (int64_t q = 0; q < s.after; ++q)
            y[first + q] = (x[first + q] - mean) * a + offset[channel];
        }
      meanOut[n * s.groups + g] = mean;
      invStdOut[n * s.groups + g] = invStd;
    }
  for (FloatOut *o : {&y, &meanOut, &invStdOut})
    o->finish();
  return Status::ok();
}

static Status checkGroupNormGrad(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 5, 3));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad_y"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", in[1], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad_y", out[0], "grad_x"));
  GroupSplit s;
  MP_RETURN_IF_ERROR(getGroupSplit(k, in[1], s));
  return checkGroupTensors(
      k, s,
      {{&in[2], "scale"}, {&out[1], "grad_scale"}, {&out[2], "grad_offset"}},
      {{&in[3], "mean"}, {&in[4], "inv_std"}});
}

/// With xhat = (x - mean) * inv_std and g = dy * scale[c] over the n
/// elements of a (sample, group):
///   grad_x = inv_std * (g - sum(g) / n - xhat * sum(g * xhat) / n);
/// grad_scale[c] = sum dy * xhat, grad_offset[c] = sum dy over the rest.
static Status runGroupNormGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  GroupSplit s;
  MP_RETURN_IF_ERROR(getGroupSplit(k, in[1], s));
  FloatIn dy(in[0]), x(in[1]), scale(in[2]), mean(in[3]), invStd(in[4]);
  FloatOut dx(out[0]), dscale(out[1]), doffset(out[2]);
  std::vector<double> sumDyXhat(s.channels, 0.0), sumDy(s.channels, 0.0);
  double count = static_cast<double>(s.count());
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.groups; ++g) {
      double m = mean[n * s.groups + g], r = invStd[n * s.groups + g];
      double sumG = 0, sumGXhat = 0;
      for (int64_t p = 0; p < s.before; ++p)
        for (int64_t c = 0; c < s.perGroup(); ++c) {
          int64_t channel = g * s.perGroup() + c;
          const float *d = dy.data() + s.start(n, g, p) + c * s.after;
          const float *v = x.data() + s.start(n, g, p) + c * s.after;
          double dyRun = sumOf(d, s.after);
          double dyXhatRun = sumOfProducts(d, v, s.after, m) * r;
          sumDy[channel] += dyRun;
          sumDyXhat[channel] += dyXhatRun;
          sumG += scale[channel] * dyRun;
          sumGXhat += scale[channel] * dyXhatRun;
        }
      float meanG = static_cast<float>(sumG / count);
      float meanGXhat = static_cast<float>(sumGXhat / count);
      float mF = static_cast<float>(m), rF = static_cast<float>(r);
      for (int64_t p = 0; p < s.before; ++p)
        for (int64_t c = 0; c < s.perGroup(); ++c) {
          float sc = scale[g * s.perGroup() + c];
          int64_t first = s.start(n, g, p) + c * s.after;
          for (int64_t q = 0; q < s.after; ++q) {
            int64_t e = first + q;
            float xhat = (x[e] - mF) * rF;
            dx[e] = rF * (dy[e] * sc - meanG - xhat * meanGXhat);
          }
        }
    }
  for (int64_t c = 0; c < s.channels; ++c) {
    dscale[c] = static_cast<float>(sumDyXhat[c]);
    doffset[c] = static_cast<float>(sumDy[c]);
  }
  for (FloatOut *o : {&dx, &dscale, &doffset})
    o->finish();
  return Status::ok();
}

void ref::addGroupNormKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainGroupNorm, checkGroupNorm, runGroupNorm},
                   {OpId::TrainGroupNormGrad, checkGroupNormGrad,
                    runGroupNormGrad},
               });
}
