//===- ShapeOps.cpp - shape ops, fill, grad_seed, embedding ---------------===//
#include "cuda/CudaBackendImpl.h"

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

//===----------------------------------------------------------------------===//
// Shape ops, fill, grad_seed
//===----------------------------------------------------------------------===//

Status CudaBackend::runReshape(const KernelDesc &, const Views &in,
                               const Views &out) {
  return copyOnDevice(out[0].data, in[0].data,
                      out[0].numElements() * dtypeSize(out[0].dtype));
}

namespace {
/// The gather over `shape` with `steps` from `base`; false past kMaxRank.
bool makeGather(const std::vector<int64_t> &shape,
                const std::vector<int64_t> &steps, int64_t base, Gather &g) {
  if (shape.size() > static_cast<size_t>(kMaxRank) ||
      steps.size() != shape.size())
    return false;
  g = Gather{};
  g.rank = static_cast<int32_t>(shape.size());
  g.base = base;
  for (size_t d = 0; d < shape.size(); ++d) {
    g.shape[d] = shape[d];
    g.steps[d] = steps[d];
  }
  return true;
}
} // namespace

Status CudaBackend::runTranspose(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  const std::vector<int64_t> *perm = k.getInts(AttrName::permutation);
  const std::vector<int64_t> &shape = in[0].shape;
  if (!perm || perm->size() != shape.size())
    return invalidArgument(k.op + " needs a 'permutation' of its rank");
  std::vector<int64_t> strides = stridesOf(shape), steps;
  for (int64_t p : *perm) {
    if (p < 0 || p >= static_cast<int64_t>(shape.size()))
      return invalidArgument(k.op + ": 'permutation' out of range");
    steps.push_back(strides[p]);
  }
  Gather g;
  if (!makeGather(out[0].shape, steps, 0, g))
    return unimplemented(k.op + " of rank > " + std::to_string(kMaxRank));
  return launched(
      k, gather(context(), in[0].data, out[0].data, dtypeSize(in[0].dtype), g));
}

Status CudaBackend::runBroadcast(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  const std::vector<int64_t> *dims = k.getInts(AttrName::dims);
  const std::vector<int64_t> &x = in[0].shape, &result = out[0].shape;
  if (!dims || dims->size() != x.size())
    return invalidArgument(k.op + " needs 'dims' of the operand's rank");
  std::vector<int64_t> strides = stridesOf(x), steps(result.size(), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t dim = (*dims)[i];
    if (dim < 0 || dim >= static_cast<int64_t>(result.size()))
      return invalidArgument(k.op + ": 'dims' out of range");
    if (x[i] != 1)
      steps[dim] = strides[i];
  }
  Gather g;
  if (!makeGather(result, steps, 0, g))
    return unimplemented(k.op + " of rank > " + std::to_string(kMaxRank));
  return launched(
      k, gather(context(), in[0].data, out[0].data, dtypeSize(in[0].dtype), g));
}

Status CudaBackend::runSlice(const KernelDesc &k, const Views &in,
                             const Views &out) {
  const std::vector<int64_t> &x = in[0].shape;
  const std::vector<int64_t> *offsets = k.getInts(AttrName::offsets);
  const std::vector<int64_t> *strideAttr = k.getInts(AttrName::strides);
  if (!offsets || offsets->size() != x.size() ||
      (strideAttr && strideAttr->size() != x.size()) ||
      out[0].shape.size() != x.size())
    return invalidArgument(k.op + " needs 'offsets' (and 'strides') of the "
                                  "operand's rank");
  std::vector<int64_t> xStrides = stridesOf(x), steps(x.size());
  int64_t base = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    int64_t stride = strideAttr ? (*strideAttr)[d] : 1;
    base += (*offsets)[d] * xStrides[d];
    steps[d] = stride * xStrides[d];
  }
  Gather g;
  if (!makeGather(out[0].shape, steps, base, g))
    return unimplemented(k.op + " of rank > " + std::to_string(kMaxRank));
  return launched(
      k, gather(context(), in[0].data, out[0].data, dtypeSize(in[0].dtype), g));
}

Status CudaBackend::runConcat(const KernelDesc &k, const Views &in,
                              const Views &out) {
  const std::vector<int64_t> &result = out[0].shape;
  int64_t dim = resolve(k.getInt(AttrName::dim, 0), result.size());
  if (dim < 0 || dim >= static_cast<int64_t>(result.size()))
    return invalidArgument(k.op + ": 'dim' out of range");
  size_t size = dtypeSize(out[0].dtype);
  int64_t outer = product(result, 0, dim);
  int64_t inner = product(result, dim + 1, result.size());
  size_t rowBytes = result[dim] * inner * size;
  size_t start = 0;
  for (const TensorView &x : in) {
    if (x.shape.size() != result.size())
      return invalidArgument(k.op + ": inputs of another rank");
    size_t chunk = x.shape[dim] * inner * size;
    if (chunk && outer)
      MP_RETURN_IF_ERROR(cudaStatus(
          cudaMemcpy2DAsync(out[0].as<char>() + start, rowBytes, x.data, chunk,
                            chunk, outer, cudaMemcpyDeviceToDevice, stream_),
          k.op));
    start += chunk;
  }
  return Status::ok();
}

Status CudaBackend::runFill(const KernelDesc &k, const Views &,
                            const Views &out) {
  return launched(k, fillBits(context(), out[0].data,
                              bitsOf(out[0].dtype, k.getFloat(AttrName::value, 0)),
                              dtypeSize(out[0].dtype), out[0].numElements()));
}

Status CudaBackend::runPad(const KernelDesc &k, const Views &in,
                           const Views &out) {
  const std::vector<int64_t> &x = in[0].shape;
  const std::vector<int64_t> *low = k.getInts(AttrName::low);
  if (!low || low->size() != x.size() || out[0].shape.size() != x.size())
    return invalidArgument(k.op + " needs 'low' of the operand's rank");
  size_t size = dtypeSize(out[0].dtype);
  MP_RETURN_IF_ERROR(launched(
      k, fillBits(context(), out[0].data,
                  bitsOf(out[0].dtype, k.getFloat(AttrName::value, 0)), size,
                  out[0].numElements())));
  std::vector<int64_t> outStrides = stridesOf(out[0].shape);
  int64_t base = 0;
  for (size_t d = 0; d < x.size(); ++d)
    base += (*low)[d] * outStrides[d];
  Gather g;
  if (!makeGather(x, outStrides, base, g))
    return unimplemented(k.op + " of rank > " + std::to_string(kMaxRank));
  return launched(k, scatter(context(), in[0].data, out[0].data, size, g));
}

Status CudaBackend::runOneHot(const KernelDesc &k, const Views &in,
                              const Views &out) {
  return launched(k, oneHot(context(), ref(in[0]), ref(out[0]),
                            in[0].numElements(), out[0].shape.back()));
}

Status CudaBackend::runGradSeed(const KernelDesc &k, const Views &,
                                const Views &out) {
  return launched(k, fillBits(context(), out[0].data, bitsOf(out[0].dtype, 1),
                              dtypeSize(out[0].dtype), 1));
}

Status CudaBackend::runEmbedding(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  if (in[0].shape.size() != 2)
    return invalidArgument(k.op + " expects a table of rank 2");
  TakeDims dims{1, in[0].shape[0], in[0].shape[1], in[1].numElements()};
  return launched(k, take(context(), in[0].data, ref(in[1]), out[0].data,
                          dtypeSize(in[0].dtype), dims));
}

Status CudaBackend::runEmbeddingGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  if (out[0].shape.size() != 2)
    return invalidArgument(k.op + " expects a table of rank 2");
  TakeDims dims{1, out[0].shape[0], out[0].shape[1], in[1].numElements()};
  return launched(k, takeGrad(context(), ref(in[0]), ref(in[1]), ref(out[0]),
                              dims));
}

/// x [A..., N, B...] around `axis` as [outer, N, inner], or the error.
static Status takeDims(const KernelDesc &k, const TensorView &x,
                       const TensorView &indices, TakeDims &dims) {
  int64_t axis = k.getInt(AttrName::axis, -1);
  int64_t rank = static_cast<int64_t>(x.shape.size());
  if (axis < 0 || axis >= rank)
    return invalidArgument(k.op + " gathers along axis " +
                           std::to_string(axis) + " of a rank-" +
                           std::to_string(rank) + " tensor");
  dims = {1, x.shape[axis], 1, indices.numElements()};
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis)
      dims.outer *= x.shape[d];
    else if (d > axis)
      dims.inner *= x.shape[d];
  }
  return Status::ok();
}

Status CudaBackend::runGather(const KernelDesc &k, const Views &in,
                              const Views &out) {
  TakeDims dims;
  MP_RETURN_IF_ERROR(takeDims(k, in[0], in[1], dims));
  return launched(k, take(context(), in[0].data, ref(in[1]), out[0].data,
                          dtypeSize(in[0].dtype), dims));
}

Status CudaBackend::runGatherGrad(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  TakeDims dims;
  MP_RETURN_IF_ERROR(takeDims(k, out[0], in[1], dims));
  return launched(k, takeGrad(context(), ref(in[0]), ref(in[1]), ref(out[0]),
                              dims));
}

} // namespace mp::rt::cudabackend
