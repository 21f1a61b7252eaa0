//===- Softmax.cpp - softmax, log_softmax, cross-entropy and grads --------===//
//
// Every exponential is taken of x - max(x) along the axis, so nothing
// overflows for large logits; sums accumulate in f64 and are rounded to f32
// once (reference/Accumulate.h).
//
//===----------------------------------------------------------------------===//
#include "reference/Accumulate.h"
#include "reference/KernelSupport.h"

#include <cmath>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// A tensor seen as [outer, length, inner] around the softmax axis; a "row"
/// is one (outer, inner) pair.
struct Rows {
  int64_t outer, length, inner;
  int64_t count() const { return outer * inner; }
  /// The first element of row `r` and the stride between its elements.
  int64_t base(int64_t r) const {
    return (r / inner) * length * inner + r % inner;
  }
};
} // namespace

static Status getRows(const KernelDesc &k, const Shape &shape, Rows &rows) {
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t axis;
  MP_RETURN_IF_ERROR(resolveDim(k, k.getInt(AttrName::axis, -1), rank, "axis", axis));
  rows = {product(shape, 0, axis), shape[axis], product(shape, axis + 1, rank)};
  return Status::ok();
}

/// max(x) and sum(exp(x - max)) of one row.
static void rowExpSum(const float *x, int64_t base, int64_t stride,
                      int64_t length, float &max, float &sum) {
  max = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < length; ++j)
    max = std::fmax(max, x[base + j * stride]);
  double total = 0;
  for (int64_t j = 0; j < length; ++j)
    total += std::exp(x[base + j * stride] - max);
  sum = static_cast<float>(total);
}

//===----------------------------------------------------------------------===//
// softmax and log_softmax
//===----------------------------------------------------------------------===//

static Status checkSoftmax(const KernelDesc &k, const Views &in,
                           const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "x", out[0], "result"));
  Rows rows;
  return getRows(k, in[0].shape, rows);
}

template <bool IsLog>
static Status runSoftmax(const KernelDesc &k, const Views &in,
                         const Views &out) {
  Rows rows;
  MP_RETURN_IF_ERROR(getRows(k, in[0].shape, rows));
  FloatIn x(in[0]);
  FloatOut y(out[0]);
  for (int64_t r = 0; r < rows.count(); ++r) {
    int64_t base = rows.base(r);
    float max, sum;
    rowExpSum(x.data(), base, rows.inner, rows.length, max, sum);
    float logSum = std::log(sum);
    for (int64_t j = 0; j < rows.length; ++j) {
      int64_t e = base + j * rows.inner;
      y[e] = IsLog ? x[e] - max - logSum : std::exp(x[e] - max) / sum;
    }
  }
  y.finish();
  return Status::ok();
}

static Status checkSoftmaxGrad(const KernelDesc &k, const Views &in,
                               const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "grad"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad", in[1], "output"));
  MP_RETURN_IF_ERROR(checkSameType(k, in[0], "grad", out[0], "result"));
  Rows rows;
  return getRows(k, in[0].shape, rows);
}

/// softmax: y * (grad - sum(grad * y)); log_softmax: grad - exp(y) * sum(grad).
template <bool IsLog>
static Status runSoftmaxGrad(const KernelDesc &k, const Views &in,
                             const Views &out) {
  Rows rows;
  MP_RETURN_IF_ERROR(getRows(k, in[0].shape, rows));
  FloatIn grad(in[0]), y(in[1]);
  FloatOut result(out[0]);
  for (int64_t r = 0; r < rows.count(); ++r) {
    int64_t base = rows.base(r);
    double total = 0;
    for (int64_t j = 0; j < rows.length; ++j) {
      int64_t e = base + j * rows.inner;
      total += IsLog ? static_cast<double>(grad[e])
                     : static_cast<double>(grad[e]) * y[e];
    }
    float sum = static_cast<float>(total);
    for (int64_t j = 0; j < rows.length; ++j) {
      int64_t e = base + j * rows.inner;
      result[e] =
          IsLog ? grad[e] - std::exp(y[e]) * sum : y[e] * (grad[e] - sum);
    }
  }
  result.finish();
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// sparse_cross_entropy and its gradient
//===----------------------------------------------------------------------===//

static Status checkLogitsAndLabels(const KernelDesc &k,
                                   const TensorView &logits,
                                   const TensorView &labels) {
  MP_RETURN_IF_ERROR(checkFloat(k, logits, "logits"));
  MP_RETURN_IF_ERROR(checkRank(k, logits, 2, "logits"));
  MP_RETURN_IF_ERROR(checkIndex(k, labels, "labels"));
  return checkShape(k, labels, {logits.shape[0]}, "labels");
}

/// labels[n] as an index into [0, classes), or -1 for a row of the
/// kernel's ignore_index, or the data error naming it.
static Status getLabel(const KernelDesc &k, const TensorView &labels, int64_t n,
                       int64_t classes, int64_t &label) {
  label = loadInt(labels, n);
  // PyTorch ignores the rows of ignore_index wherever it lies, a class
  // among them (a padding token 0).
  if (k.has(AttrName::ignore_index) &&
      label == k.getInt(AttrName::ignore_index, 0)) {
    label = -1;
    return Status::ok();
  }
  if (label >= 0 && label < classes)
    return Status::ok();
  return kernelError(k, "label " + std::to_string(label) + " in row " +
                            std::to_string(n) + " is outside [0, " +
                            std::to_string(classes) + ")");
}

static Status checkSmoothing(const KernelDesc &k) {
  double e = k.getFloat(AttrName::label_smoothing, 0.0);
  if (e >= 0 && e <= 1)
    return Status::ok();
  return kernelError(k, "needs a label_smoothing in [0, 1]");
}

static Status checkCrossEntropy(const KernelDesc &k, const Views &in,
                                const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 2, 1));
  MP_RETURN_IF_ERROR(checkSmoothing(k));
  MP_RETURN_IF_ERROR(checkLogitsAndLabels(k, in[0], in[1]));
  MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  return checkShape(k, out[0], {}, "loss");
}

/// mean over the rows not ignored of lse(logits[n]) - logits[n, label[n]]
/// ((1 - e) of it plus e (lse - mean_c logits[n, c]) with smoothing e).
static Status runCrossEntropy(const KernelDesc &k, const Views &in,
                              const Views &out) {
  int64_t rows = in[0].shape[0], classes = in[0].shape[1];
  double e = k.getFloat(AttrName::label_smoothing, 0.0);
  FloatIn logits(in[0]);
  double total = 0;
  int64_t counted = 0;
  for (int64_t n = 0; n < rows; ++n) {
    int64_t label;
    MP_RETURN_IF_ERROR(getLabel(k, in[1], n, classes, label));
    if (label < 0)
      continue;
    float max, sum;
    rowExpSum(logits.data(), n * classes, 1, classes, max, sum);
    // In f32 as the cpu backend's rows (which run only without smoothing).
    double term = (max - logits[n * classes + label]) + std::log(sum);
    if (e > 0) {
      double lse = static_cast<double>(max) + std::log(sum);
      double mean = sumOf(logits.data() + n * classes, classes) /
                    static_cast<double>(classes);
      term = (1 - e) * (lse - logits[n * classes + label]) + e * (lse - mean);
    }
    total += term;
    ++counted;
  }
  storeFloat(out[0], 0,
             static_cast<float>(total / static_cast<double>(counted)));
  return Status::ok();
}

static Status checkCrossEntropyGrad(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 3, 1));
  MP_RETURN_IF_ERROR(checkSmoothing(k));
  MP_RETURN_IF_ERROR(checkLogitsAndLabels(k, in[0], in[1]));
  MP_RETURN_IF_ERROR(checkFloat(k, in[2], "grad_loss"));
  MP_RETURN_IF_ERROR(checkShape(k, in[2], {}, "grad_loss"));
  return checkSameType(k, in[0], "logits", out[0], "result");
}

/// (softmax(logits) - (1 - e) one_hot(labels) - e / C) * grad_loss / N,
/// N the rows not ignored; an ignored row's gradient is 0.
static Status runCrossEntropyGrad(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  int64_t rows = in[0].shape[0], classes = in[0].shape[1];
  float e = static_cast<float>(k.getFloat(AttrName::label_smoothing, 0.0));
  FloatIn logits(in[0]);
  FloatOut result(out[0]);
  std::vector<int64_t> labels(static_cast<size_t>(rows));
  int64_t counted = 0;
  for (int64_t n = 0; n < rows; ++n) {
    MP_RETURN_IF_ERROR(getLabel(k, in[1], n, classes, labels[n]));
    counted += labels[n] >= 0;
  }
  float factor = loadFloat(in[2], 0) / static_cast<float>(counted);
  float off = e / static_cast<float>(classes), on = 1.0f - e + off;
  for (int64_t n = 0; n < rows; ++n) {
    int64_t label = labels[n], base = n * classes;
    if (label < 0) {
      for (int64_t c = 0; c < classes; ++c)
        result[base + c] = 0.0f;
      continue;
    }
    float max, sum;
    rowExpSum(logits.data(), base, 1, classes, max, sum);
    for (int64_t c = 0; c < classes; ++c) {
      float p = std::exp(logits[base + c] - max) / sum;
      result[base + c] = (p - (c == label ? on : off)) * factor;
    }
  }
  result.finish();
  return Status::ok();
}

void ref::addSoftmaxKernels(KernelTable &table) {
  table.insert(
      table.end(),
      {
          {OpId::TrainSoftmax, checkSoftmax, runSoftmax<false>},
          {OpId::TrainLogSoftmax, checkSoftmax, runSoftmax<true>},
          {OpId::TrainSoftmaxGrad, checkSoftmaxGrad, runSoftmaxGrad<false>},
          {OpId::TrainLogSoftmaxGrad, checkSoftmaxGrad, runSoftmaxGrad<true>},
          {OpId::TrainSparseCrossEntropy, checkCrossEntropy, runCrossEntropy},
          {OpId::TrainSparseCrossEntropyGrad, checkCrossEntropyGrad,
           runCrossEntropyGrad},
      });
}
