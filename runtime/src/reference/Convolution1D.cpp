//===- Convolution1D.cpp - conv1d and its gradients, direct loops ---------===//
//
// The compiler always rewrites the 1-D convolutions into conv2d on a unit
// height (mp-decompose); these direct loops are their definition, which
// Conv1DTest checks the rewrite's conv2d against. Every sum is in f64 and
// rounded once.
//
//===----------------------------------------------------------------------===//
#include "reference/KernelSupport.h"

#include <vector>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// Sizes and attributes of a conv1d problem; NCL / OIK or NLC / KIO.
struct Conv1D {
  bool ncl = true;
  int64_t n = 0, c = 0, l = 0, o = 0, k = 0, out = 0;
  int64_t stride = 1, padLo = 0, dilation = 1, groups = 1;
  int64_t perGroup() const { return c / groups; }
  int64_t outPerGroup() const { return o / groups; }
  int64_t x(int64_t in, int64_t ic, int64_t il) const {
    return ncl ? (in * c + ic) * l + il : (in * l + il) * c + ic;
  }
  int64_t y(int64_t in, int64_t io, int64_t it) const {
    return ncl ? (in * o + io) * out + it : (in * out + it) * o + io;
  }
  int64_t f(int64_t io, int64_t ci, int64_t ik) const {
    return ncl ? (io * perGroup() + ci) * k + ik
               : (ik * perGroup() + ci) * o + io;
  }
  /// The input position of output `t`'s tap `ik`, or -1 in the padding.
  int64_t at(int64_t t, int64_t ik) const {
    int64_t pos = t * stride - padLo + ik * dilation;
    return pos >= 0 && pos < l ? pos : -1;
  }
};
} // namespace

/// Reads the attributes and the three shapes (image x, filter, image y).
static Status getConv1D(const KernelDesc &kd, const TensorView &x,
                        const TensorView &filter, const TensorView &y,
                        Conv1D &p) {
  const std::string *layout = kd.getString(AttrName::layout);
  if (!layout || (*layout != "NCL" && *layout != "NLC"))
    return kernelError(kd, "needs a 'layout' attribute of NCL or NLC");
  p.ncl = *layout == "NCL";
  const std::vector<int64_t> *padding = kd.getInts(AttrName::padding);
  p.stride = kd.getInt(AttrName::stride, 1);
  p.dilation = kd.getInt(AttrName::dilation, 1);
  p.groups = kd.getInt(AttrName::groups, 1);
  int64_t padHi = 0;
  if (padding && padding->size() == 2) {
    p.padLo = (*padding)[0];
    padHi = (*padding)[1];
  } else if (padding) {
    return kernelError(kd, "needs 'padding' of 2 values [lo, hi]");
  }
  if (p.stride < 1 || p.dilation < 1 || p.groups < 1 || p.padLo < 0 ||
      padHi < 0)
    return kernelError(kd, "needs stride, dilation and groups >= 1 and "
                           "padding >= 0");
  MP_RETURN_IF_ERROR(checkRank(kd, x, 3, "the input"));
  MP_RETURN_IF_ERROR(checkRank(kd, filter, 3, "the filter"));
  p.n = x.shape[0];
  p.c = x.shape[p.ncl ? 1 : 2];
  p.l = x.shape[p.ncl ? 2 : 1];
  p.o = filter.shape[p.ncl ? 0 : 2];
  p.k = filter.shape[p.ncl ? 2 : 0];
  if (p.c % p.groups || p.o % p.groups ||
      filter.shape[1] * p.groups != p.c)
    return kernelError(kd, "the input's " + std::to_string(p.c) +
                               " channels and the filter " +
                               formatShape(filter.shape) + " do not fit " +
                               std::to_string(p.groups) + " group(s)");
  int64_t span = p.dilation * (p.k - 1) + 1;
  p.out = (p.l + p.padLo + padHi - span) / p.stride + 1;
  if (p.l + p.padLo + padHi < span)
    return kernelError(kd, "a window of " + std::to_string(p.k) +
                               " taps does not fit the padded length");
  Shape expected = p.ncl ? Shape{p.n, p.o, p.out} : Shape{p.n, p.out, p.o};
  return checkShape(kd, y, expected, "the output image");
}

/// Calls `term(n, o, t, c, ci, k, pos)` for every product of the problem.
template <typename Term> static void forEachTap(const Conv1D &p, Term term) {
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t o = 0; o < p.o; ++o) {
      int64_t g = o / p.outPerGroup();
      for (int64_t t = 0; t < p.out; ++t)
        for (int64_t ci = 0; ci < p.perGroup(); ++ci)
          for (int64_t k = 0; k < p.k; ++k) {
            int64_t pos = p.at(t, k);
            if (pos >= 0)
              term(n, o, t, g * p.perGroup() + ci, ci, k, pos);
          }
    }
}

/// Runs `term(sum, n, o, t, c, ci, tap, pos)` over every product into f64
/// sums of `out`'s size, then stores them, each rounded once.
template <typename Term>
static void sumTaps(const Conv1D &p, FloatOut &out, int64_t size, Term term) {
  std::vector<double> sum(size, 0.0);
  forEachTap(p, [&](int64_t n, int64_t o, int64_t t, int64_t c, int64_t ci,
                    int64_t tap, int64_t pos) {
    term(sum, n, o, t, c, ci, tap, pos);
  });
  for (int64_t i = 0; i < size; ++i)
    out[i] = static_cast<float>(sum[i]);
  out.finish();
}

static Status checkConv1D(const KernelDesc &k, const Views &in,
                          const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "input"));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, "filter"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  Conv1D p;
  return getConv1D(k, in[0], in[1], out[0], p);
}

static Status runConv1D(const KernelDesc &k, const Views &in,
                        const Views &out) {
  Conv1D p;
  MP_RETURN_IF_ERROR(getConv1D(k, in[0], in[1], out[0], p));
  FloatIn x(in[0]), f(in[1]);
  FloatOut y(out[0]);
  sumTaps(p, y, out[0].numElements(),
          [&](std::vector<double> &sum, int64_t n, int64_t o, int64_t t,
              int64_t c, int64_t ci, int64_t tap, int64_t pos) {
            sum[p.y(n, o, t)] +=
                static_cast<double>(x[p.x(n, c, pos)]) * f[p.f(o, ci, tap)];
          });
  return Status::ok();
}

static Status checkConv1DData(const KernelDesc &k, const Views &in,
                              const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad_output"));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, "filter"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  Conv1D p;
  return getConv1D(k, out[0], in[1], in[0], p);
}

static Status runConv1DData(const KernelDesc &k, const Views &in,
                            const Views &out) {
  Conv1D p;
  MP_RETURN_IF_ERROR(getConv1D(k, out[0], in[1], in[0], p));
  FloatIn dy(in[0]), f(in[1]);
  FloatOut dx(out[0]);
  sumTaps(p, dx, out[0].numElements(),
          [&](std::vector<double> &sum, int64_t n, int64_t o, int64_t t,
              int64_t c, int64_t ci, int64_t tap, int64_t pos) {
            sum[p.x(n, c, pos)] +=
                static_cast<double>(dy[p.y(n, o, t)]) * f[p.f(o, ci, tap)];
          });
  return Status::ok();
}

static Status checkConv1DFilter(const KernelDesc &k, const Views &in,
                                const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "input"));
  MP_RETURN_IF_ERROR(checkDType(k, in[1], in[0].dtype, "grad_output"));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  Conv1D p;
  return getConv1D(k, in[0], out[0], in[1], p);
}

static Status runConv1DFilter(const KernelDesc &k, const Views &in,
                              const Views &out) {
  Conv1D p;
  MP_RETURN_IF_ERROR(getConv1D(k, in[0], out[0], in[1], p));
  FloatIn x(in[0]), dy(in[1]);
  FloatOut df(out[0]);
  sumTaps(p, df, out[0].numElements(),
          [&](std::vector<double> &sum, int64_t n, int64_t o, int64_t t,
              int64_t c, int64_t ci, int64_t tap, int64_t pos) {
            sum[p.f(o, ci, tap)] +=
                static_cast<double>(x[p.x(n, c, pos)]) * dy[p.y(n, o, t)];
          });
  return Status::ok();
}

void ref::addConvolution1DKernels(KernelTable &table) {
  table.insert(table.end(),
               {
                   {OpId::TrainConv1d, checkConv1D, runConv1D},
                   {OpId::TrainConv1dBackwardData, checkConv1DData,
                    runConv1DData},
                   {OpId::TrainConv1dBackwardFilter, checkConv1DFilter,
                    runConv1DFilter},
               });
}
