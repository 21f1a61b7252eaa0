//===- NormalizationOps.cpp - softmax, losses, reductions, norms ----------===//
#include "cuda/CudaBackendImpl.h"

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

namespace {
struct RowsAround {
  int64_t outer, length, inner;
};
RowsAround rowsAround(const std::vector<int64_t> &shape, int64_t axis) {
  int64_t a = resolve(axis, shape.size());
  return {product(shape, 0, a), shape[a], product(shape, a + 1, shape.size())};
}
} // namespace

Status CudaBackend::runSoftmax(const KernelDesc &k, const Views &in,
                               const Views &out) {
  if (in[0].shape.empty())
    return invalidArgument(k.op + " expects a tensor of rank >= 1");
  RowsAround r = rowsAround(in[0].shape, k.getInt(AttrName::axis, -1));
  return launched(k, softmax(context(), k.opId() == OpId::TrainLogSoftmax, ref(in[0]),
                             ref(out[0]), r.outer, r.length, r.inner));
}

Status CudaBackend::runSoftmaxGrad(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  if (in[0].shape.empty())
    return invalidArgument(k.op + " expects a tensor of rank >= 1");
  RowsAround r = rowsAround(in[0].shape, k.getInt(AttrName::axis, -1));
  return launched(k, softmaxGrad(context(), k.opId() == OpId::TrainLogSoftmaxGrad,
                                 ref(in[0]), ref(in[1]), ref(out[0]), r.outer,
                                 r.length, r.inner));
}

static CrossEntropyOptions crossEntropyOptions(const KernelDesc &k) {
  return {static_cast<float>(k.getFloat(AttrName::label_smoothing, 0.0)),
          k.has(AttrName::ignore_index),
          k.getInt(AttrName::ignore_index, 0)};
}

Status CudaBackend::runCrossEntropy(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  if (in[0].shape.size() != 2)
    return invalidArgument(k.op + " expects logits of rank 2");
  int64_t rows = in[0].shape[0];
  return launched(k, crossEntropy(context(), ref(in[0]), ref(in[1]),
                                  ref(out[0]), static_cast<float *>(workspace_),
                                  rows, in[0].shape[1],
                                  crossEntropyOptions(k)));
}

Status CudaBackend::runCrossEntropyGrad(const KernelDesc &k, const Views &in,
                                        const Views &out) {
  if (in[0].shape.size() != 2)
    return invalidArgument(k.op + " expects logits of rank 2");
  return launched(k, crossEntropyGrad(context(), ref(in[0]), ref(in[1]),
                                      ref(in[2]), ref(out[0]),
                                      static_cast<float *>(workspace_),
                                      in[0].shape[0], in[0].shape[1],
                                      crossEntropyOptions(k)));
}

static PointwiseLoss pointwiseLossOf(OpId id) {
  switch (id) {
  case OpId::TrainMseLoss:
  case OpId::TrainMseLossGrad:
    return PointwiseLoss::Mse;
  case OpId::TrainBceWithLogitsLoss:
  case OpId::TrainBceWithLogitsLossGrad:
    return PointwiseLoss::Bce;
  default:
    return PointwiseLoss::Huber;
  }
}

Status CudaBackend::runPointwiseLoss(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  return launched(k, pointwiseLoss(context(), pointwiseLossOf(k.opId()),
                                   ref(in[0]), ref(in[1]), ref(out[0]),
                                   in[0].numElements(),
                                   k.getFloat(AttrName::delta, 1.0)));
}

Status CudaBackend::runPointwiseLossGrad(const KernelDesc &k, const Views &in,
                                         const Views &out) {
  return launched(k, pointwiseLossGrad(
                         context(), pointwiseLossOf(k.opId()), ref(in[0]),
                         ref(in[1]), ref(in[2]), ref(out[0]),
                         in[0].numElements(), k.getFloat(AttrName::delta, 1.0)));
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

/// x's dimensions split into kept and reduced ones (`dims`, possibly
/// negative), with x's strides.
static Status reductionOf(const KernelDesc &k, const std::vector<int64_t> &shape,
                          const std::vector<int64_t> &dims, Reduction &r) {
  size_t rank = shape.size();
  if (rank > static_cast<size_t>(kMaxRank))
    return invalidArgument(k.op + " of rank > " + std::to_string(kMaxRank));
  std::vector<bool> reduced(rank, false);
  for (int64_t dim : dims) {
    int64_t d = resolve(dim, rank);
    if (d < 0 || d >= static_cast<int64_t>(rank))
      return invalidArgument(k.op + ": a reduction dimension is out of range");
    reduced[d] = true;
  }
  r = Reduction{};
  r.outputs = r.perOutput = 1;
  std::vector<int64_t> strides = stridesOf(shape);
  for (size_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      r.reduced[r.reducedRank] = shape[d];
      r.reducedStrides[r.reducedRank++] = strides[d];
      r.perOutput *= shape[d];
    } else {
      r.kept[r.keptRank] = shape[d];
      r.keptStrides[r.keptRank++] = strides[d];
      r.outputs *= shape[d];
    }
  }
  return Status::ok();
}

Status CudaBackend::runReduce(const KernelDesc &k, const Views &in,
                              const Views &out) {
  const std::vector<int64_t> *dims = k.getInts(AttrName::dims);
  if (!dims)
    return invalidArgument(k.op + " needs 'dims'");
  Reduction r;
  MP_RETURN_IF_ERROR(reductionOf(k, in[0].shape, *dims, r));
  Reduce kind = k.opId() == OpId::TrainReduceSum    ? Reduce::Sum
                : k.opId() == OpId::TrainReduceMean ? Reduce::Mean
                : k.opId() == OpId::TrainLogsumexp  ? Reduce::LogSumExp
                                                    : Reduce::Max;
  return launched(k, reduce(context(), kind, ref(in[0]), ref(out[0]), r));
}

Status CudaBackend::runArgMax(const KernelDesc &k, const Views &in,
                              const Views &out) {
  Reduction r;
  MP_RETURN_IF_ERROR(
      reductionOf(k, in[0].shape, {k.getInt(AttrName::dim, 0)}, r));
  return launched(k, reduce(context(), Reduce::ArgMax, ref(in[0]),
                            ref(out[0]), r));
}

namespace {
/// The rows and the normalized features of a layer / rms norm of `x`.
Status rowsOf(const KernelDesc &k, const TensorView &x, int64_t &rows,
              int64_t &features) {
  const std::vector<int64_t> &shape = x.shape;
  int64_t axis = resolve(k.getInt(AttrName::axis, -1), shape.size());
  if (axis < 0 || axis > static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'axis' out of range");
  rows = product(shape, 0, axis);
  features = product(shape, axis, shape.size());
  return Status::ok();
}
} // namespace

Status CudaBackend::runLayerNorm(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  int64_t rows, features;
  MP_RETURN_IF_ERROR(rowsOf(k, in[0], rows, features));
  return launched(
      k, layerNorm(context(), ref(in[0]), ref(in[1]), ref(in[2]), ref(out[0]),
                   ref(out[1]), ref(out[2]), rows, features,
                   static_cast<float>(k.getFloat(AttrName::epsilon, 1e-5))));
}

Status CudaBackend::runLayerNormGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  int64_t rows, features;
  MP_RETURN_IF_ERROR(rowsOf(k, in[1], rows, features));
  return launched(k, layerNormGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(in[2]), ref(in[3]), ref(in[4]),
                                   ref(out[0]), ref(out[1]), ref(out[2]),
                                   rows, features));
}

/// rms_norm: the layer-norm kernels without a mean and an offset.
Status CudaBackend::runRmsNorm(const KernelDesc &k, const Views &in,
                               const Views &out) {
  int64_t rows, features;
  MP_RETURN_IF_ERROR(rowsOf(k, in[0], rows, features));
  Ref none{nullptr, 0};
  return launched(
      k, layerNorm(context(), ref(in[0]), ref(in[1]), none, ref(out[0]), none,
                   ref(out[1]), rows, features,
                   static_cast<float>(k.getFloat(AttrName::epsilon, 1e-6))));
}

Status CudaBackend::runRmsNormGrad(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  int64_t rows, features;
  MP_RETURN_IF_ERROR(rowsOf(k, in[1], rows, features));
  Ref none{nullptr, 0};
  return launched(k, layerNormGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(in[2]), none, ref(in[3]), ref(out[0]),
                                   ref(out[1]), none, rows, features));
}

/// x's [N, P, C, Q] split around `feature_dim` (the reference's check
/// validated it and `groups`).
static GroupDims groupDimsOf(const KernelDesc &k, const TensorView &x) {
  const std::vector<int64_t> &shape = x.shape;
  size_t dim = static_cast<size_t>(k.getInt(AttrName::feature_dim, 1));
  return {shape[0], product(shape, 1, dim), shape[dim],
          product(shape, dim + 1, shape.size()), k.getInt(AttrName::groups, 1)};
}

Status CudaBackend::runGroupNorm(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  return launched(
      k, groupNorm(context(), ref(in[0]), ref(in[1]), ref(in[2]), ref(out[0]),
                   ref(out[1]), ref(out[2]), groupDimsOf(k, in[0]),
                   static_cast<float>(k.getFloat(AttrName::epsilon, 1e-5))));
}

Status CudaBackend::runGroupNormGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  return launched(k, groupNormGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(in[2]), ref(in[3]), ref(in[4]),
                                   ref(out[0]), ref(out[1]), ref(out[2]),
                                   groupDimsOf(k, in[1])));
}

Status CudaBackend::runBatchNorm(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t dim = resolve(k.getInt(AttrName::feature_dim, 1), shape.size());
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'feature_dim' out of range");
  return launched(
      k, batchNorm(context(), ref(in[0]), ref(in[1]), ref(in[2]), ref(in[3]),
                   ref(in[4]), ref(out[0]), ref(out[1]), ref(out[2]),
                   ref(out[3]), ref(out[4]), product(shape, 0, dim), shape[dim],
                   product(shape, dim + 1, shape.size()),
                   static_cast<float>(k.getFloat(AttrName::epsilon, 1e-5)),
                   static_cast<float>(k.getFloat(AttrName::momentum, 0.1))));
}

Status CudaBackend::runBatchNormGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  const std::vector<int64_t> &shape = in[1].shape;
  int64_t dim = resolve(k.getInt(AttrName::feature_dim, 1), shape.size());
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'feature_dim' out of range");
  return launched(k, batchNormGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(in[2]), ref(in[3]), ref(in[4]),
                                   ref(out[0]), ref(out[1]), ref(out[2]),
                                   product(shape, 0, dim), shape[dim],
                                   product(shape, dim + 1, shape.size())));
}


} // namespace mp::rt::cudabackend
