//===- Reduction.cpp - reduce_sum, reduce_mean, reduce_max ----------------===//
//
// Sums accumulate in f64, one accumulator per result element fed in memory
// order, and are rounded once (reference/Accumulate.h has the bound).
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

enum class Reduce { Sum, Mean, Max };

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

/// Walks x in memory order, keeping the offset of the result element each
/// x element folds into (reduced dimensions have result stride 0). The max
/// propagates NaN, like torch.amax.
template <Reduce Kind>
static Status runReduce(const KernelDesc &k, const Views &in,
                        const Views &out) {
  std::vector<bool> reduced;
  Shape resultShape;
  MP_RETURN_IF_ERROR(getReduction(k, in[0], reduced, resultShape));
  const Shape &shape = in[0].shape;
  size_t rank = shape.size();
  // Result strides per x dimension.
  Shape kept;
  for (size_t d = 0; d < rank; ++d)
    if (!reduced[d])
      kept.push_back(shape[d]);
  Shape keptStrides = stridesOf(kept), resultStrides(rank, 0);
  for (size_t d = 0, j = 0; d < rank; ++d)
    if (!reduced[d])
      resultStrides[d] = keptStrides[j++];

  FloatIn x(in[0]);
  FloatOut result(out[0]);
  int64_t resultSize = out[0].numElements();
  std::vector<double> sums(Kind == Reduce::Max ? 0 : resultSize, 0.0);
  if (Kind == Reduce::Max)
    for (int64_t i = 0; i < resultSize; ++i)
      result[i] = -std::numeric_limits<float>::infinity();
  int64_t n = in[0].numElements();
  Shape index(rank, 0);
  int64_t o = 0;
  for (int64_t e = 0; e < n; ++e) {
    float v = x[e];
    if (Kind == Reduce::Max) {
      if (v > result[o] || std::isnan(v))
        result[o] = v;
    } else {
      sums[o] += v;
    }
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        o += resultStrides[d];
        break;
      }
      o -= resultStrides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
  if (Kind != Reduce::Max) {
    double count = Kind == Reduce::Mean
                       ? static_cast<double>(n / (resultSize ? resultSize : 1))
                       : 1.0;
    for (int64_t i = 0; i < resultSize; ++i)
      result[i] = static_cast<float>(sums[i] / count);
  }
  result.finish();
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
                            });
}
