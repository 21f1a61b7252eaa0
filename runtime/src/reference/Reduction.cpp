//===- Reduction.cpp - reduce_sum / mean / max, logsumexp, argmax ---------===//
//
// Sums accumulate in f64, one accumulator per result element fed in memory
// order, and are rounded once (reference/Accumulate.h has the bound).
// logsumexp takes the max first and sums exp(x - max) in f64.
//
//===----------------------------------------------------------------------===//
#include "reference/KernelSupport.h"

#include <cmath>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::ref;

/// The reduced dimensions of `x` as a mask, and the result shape.
static Status getReduction(const KernelDesc &k, const TensorView &x,
                           std::vector<bool> &reduced, Shape &resultShape) {
  Shape dims;
  MP_RETURN_IF_ERROR(getArray(k, AttrName::dims, 0, dims));
  int64_t rank = static_cast<int64_t>(x.shape.size());
  reduced.assign(rank, false);
  for (int64_t dim : dims) {
    int64_t d;
    MP_RETURN_IF_ERROR(resolveDim(k, dim, rank, "reduction dimension", d));
    if (reduced[d])
      return kernelError(k,
                         "reduces dimension " + std::to_string(d) + " twice");
    reduced[d] = true;
  }
  bool keepDims = k.getFlag(AttrName::keep_dims);
  resultShape.clear();
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[d])
      resultShape.push_back(x.shape[d]);
    else if (keepDims)
      resultShape.push_back(1);
  return Status::ok();
}

enum class Reduce { Sum, Mean, Max, LogSumExp };

namespace {
/// Walks x in memory order, calling visit(e, o, index) with the offset o of
/// the result element each x element e folds into (reduced dimensions
/// have result stride 0) and its index.
struct Walk {
  Shape shape, resultStrides;

  Walk(const Shape &xShape, const std::vector<bool> &reduced)
      : shape(xShape), resultStrides(xShape.size(), 0) {
    Shape kept;
    for (size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d])
        kept.push_back(shape[d]);
    Shape keptStrides = stridesOf(kept);
    for (size_t d = 0, j = 0; d < shape.size(); ++d)
      if (!reduced[d])
        resultStrides[d] = keptStrides[j++];
  }

  template <typename Visit> void run(int64_t n, Visit visit) const {
    size_t rank = shape.size();
    Shape index(rank, 0);
    int64_t o = 0;
    for (int64_t e = 0; e < n; ++e) {
      visit(e, o, index);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < shape[d]) {
          o += resultStrides[d];
          break;
        }
        o -= resultStrides[d] * (shape[d] - 1);
        index[d] = 0;
      }
    }
  }
};
} // namespace

template <Reduce Kind>
static Status checkReduce(const KernelDesc &k, const Views &in,
                          const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  if (Kind == Reduce::Max)
    MP_RETURN_IF_ERROR(checkDType(k, out[0], in[0].dtype, "result"));
  else
    MP_RETURN_IF_ERROR(checkAccumulator(k, in[0], out[0]));
  std::vector<bool> reduced;
  Shape expected;
  MP_RETURN_IF_ERROR(getReduction(k, in[0], reduced, expected));
  return checkShape(k, out[0], expected, "result");
}

/// The max propagates NaN, like torch.amax; logsumexp is max + log(sum
/// exp(x - max)), the max itself where it is infinite (all -inf gives
/// -inf, an inf gives inf) and NaN where an element is NaN.
template <Reduce Kind>
static Status runReduce(const KernelDesc &k, const Views &in,
                        const Views &out) {
  std::vector<bool> reduced;
  Shape resultShape;
  MP_RETURN_IF_ERROR(getReduction(k, in[0], reduced, resultShape));
  Walk walk(in[0].shape, reduced);
  FloatIn x(in[0]);
  FloatOut result(out[0]);
  int64_t resultSize = out[0].numElements();
  int64_t n = in[0].numElements();
  bool needsMax = Kind == Reduce::Max || Kind == Reduce::LogSumExp;
  std::vector<float> max(needsMax ? resultSize : 0,
                         -std::numeric_limits<float>::infinity());
  if (needsMax)
    walk.run(n, [&](int64_t e, int64_t o, const Shape &) {
      float v = x[e];
      if (v > max[o] || std::isnan(v))
        max[o] = v;
    });
  if (Kind == Reduce::Max) {
    for (int64_t i = 0; i < resultSize; ++i)
      result[i] = max[i];
    result.finish();
    return Status::ok();
  }
  std::vector<double> sums(resultSize, 0.0);
  walk.run(n, [&](int64_t e, int64_t o, const Shape &) {
    if (Kind == Reduce::LogSumExp) {
      if (std::isfinite(max[o]))
        sums[o] += std::exp(static_cast<double>(x[e]) - max[o]);
    } else {
      sums[o] += x[e];
    }
  });
  double count = Kind == Reduce::Mean
                     ? static_cast<double>(n / (resultSize ? resultSize : 1))
                     : 1.0;
  for (int64_t i = 0; i < resultSize; ++i)
    result[i] = Kind == Reduce::LogSumExp
                    ? (std::isfinite(max[i])
                           ? static_cast<float>(max[i] + std::log(sums[i]))
                           : max[i])
                    : static_cast<float>(sums[i] / count);
  result.finish();
  return Status::ok();
}

/// argmax along one dimension: the dimension, and the result's shape.
static Status getArgMax(const KernelDesc &k, const TensorView &x,
                        int64_t &dim, Shape &resultShape) {
  int64_t rank = static_cast<int64_t>(x.shape.size());
  MP_RETURN_IF_ERROR(resolveDim(k, k.getInt(AttrName::dim, 0), rank, "dim",
                                dim));
  if (x.shape[dim] == 0)
    return kernelError(k, "takes the argmax of an empty dimension");
  resultShape.clear();
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      resultShape.push_back(x.shape[d]);
    else if (k.getFlag(AttrName::keep_dims))
      resultShape.push_back(1);
  return Status::ok();
}

static Status checkArgMax(const KernelDesc &k, const Views &in,
                          const Views &out) {
  MP_RETURN_IF_ERROR(checkArity(k, in, out, 1, 1));
  MP_RETURN_IF_ERROR(checkFloat(k, in[0], "x"));
  MP_RETURN_IF_ERROR(checkDType(k, out[0], DType::I64, "result"));
  int64_t dim;
  Shape expected;
  MP_RETURN_IF_ERROR(getArgMax(k, in[0], dim, expected));
  return checkShape(k, out[0], expected, "result");
}

/// The first maximum in index order along `dim`; a NaN beats every number
/// and the first NaN wins (torch.argmax).
static Status runArgMax(const KernelDesc &k, const Views &in,
                        const Views &out) {
  int64_t dim;
  Shape resultShape;
  MP_RETURN_IF_ERROR(getArgMax(k, in[0], dim, resultShape));
  std::vector<bool> reduced(in[0].shape.size(), false);
  reduced[dim] = true;
  Walk walk(in[0].shape, reduced);
  FloatIn x(in[0]);
  int64_t resultSize = out[0].numElements();
  std::vector<float> best(resultSize, 0.0f);
  std::vector<int64_t> at(resultSize, -1);
  walk.run(in[0].numElements(),
           [&](int64_t e, int64_t o, const Shape &index) {
             float v = x[e];
             bool bestIsNan = at[o] >= 0 && std::isnan(best[o]);
             if (at[o] < 0 || (!bestIsNan && (v > best[o] || std::isnan(v)))) {
               best[o] = v;
               at[o] = index[dim];
             }
           });
  for (int64_t i = 0; i < resultSize; ++i)
    out[0].as<int64_t>()[i] = at[i];
  return Status::ok();
}

void ref::addReductionKernels(KernelTable &table) {
  table.insert(table.end(), {
                                {OpId::TrainReduceSum, checkReduce<Reduce::Sum>,
                                 runReduce<Reduce::Sum>},
                                {OpId::TrainReduceMean, checkReduce<Reduce::Mean>,
                                 runReduce<Reduce::Mean>},
                                {OpId::TrainReduceMax, checkReduce<Reduce::Max>,
                                 runReduce<Reduce::Max>},
                                {OpId::TrainLogsumexp,
                                 checkReduce<Reduce::LogSumExp>,
                                 runReduce<Reduce::LogSumExp>},
                                {OpId::TrainArgmax, checkArgMax, runArgMax},
                            });
}
