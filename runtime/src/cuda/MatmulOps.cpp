//===- MatmulOps.cpp - matmuls on cuBLASLt --------------------------------===//
#include "cuda/CudaBackendImpl.h"

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

Status CudaBackend::runMatmul(const KernelDesc &k, const Views &in,
                              const Views &out) {
  return gemmInto(k, in, out[0].data, out[0].dtype);
}

/// The GEMM stores its f32 accumulator (in the output itself when that is
/// f32, else in the workspace), then one kernel adds the bias, applies the
/// ReLU and rounds once: the reference's semantics, whatever cuBLASLt's
/// epilogue support for the dtypes and bias types would be.
Status CudaBackend::runMatmulEpilogue(const KernelDesc &k, const Views &in,
                                      const Views &out) {
  const std::string *activation = k.getString(AttrName::activation);
  if (activation && *activation != "none" && *activation != "relu")
    return invalidArgument(k.op + " expects activation \"none\" or \"relu\"");
  bool relu = activation && *activation == "relu";
  const std::vector<int64_t> &shape = out[0].shape;
  if (shape.size() < 2)
    return invalidArgument(k.op + " expects a result of rank >= 2");
  int64_t n = shape.back();
  int64_t total = out[0].numElements();
  Ref bias{nullptr, 0};
  if (in.size() == 3) {
    if (in[2].numElements() != n)
      return invalidArgument(k.op + " expects a bias of " + std::to_string(n) +
                             " elements");
    bias = ref(in[2]);
  }
  float *acc = out[0].as<float>();
  if (out[0].dtype != DType::F32) {
    MP_RETURN_IF_ERROR(ensureWorkspace(sizeof(float) *
                                       std::max<int64_t>(total, 1)));
    acc = static_cast<float *>(workspace_);
  }
  MP_RETURN_IF_ERROR(gemmInto(k, in, acc, DType::F32));
  if (total == 0)
    return Status::ok();
  return launched(k, matmulEpilogue(context(), acc, bias, relu, ref(out[0]),
                                    total / n, n));
}

Status CudaBackend::gemmInto(const KernelDesc &k, const Views &in, void *out,
                             DType outType) {
  const std::vector<int64_t> &l = in[0].shape, &r = in[1].shape;
  if (l.size() < 2 || r.size() < 2)
    return invalidArgument(k.op + " expects operands of rank >= 2");
  size_t lr = l.size(), rr = r.size();
  GemmProblem p;
  p.transA = k.getFlag(AttrName::transpose_lhs);
  p.transB = k.getFlag(AttrName::transpose_rhs);
  p.m = p.transA ? l[lr - 1] : l[lr - 2];
  p.k = p.transA ? l[lr - 2] : l[lr - 1];
  p.n = p.transB ? r[rr - 2] : r[rr - 1];
  int64_t batch = product(l, 0, lr - 2);
  bool sharedRhs = rr == 2;
  if (sharedRhs && !p.transA) {
    // A linear layer: the batch rows stack into one [B*M, K] matrix.
    p.m *= batch;
    batch = 1;
  }
  if (batch > 0x7fffffff)
    return unimplemented(k.op + ": a batch of more than 2^31 - 1 matmuls");
  p.inType = static_cast<int32_t>(in[0].dtype);
  p.outType = static_cast<int32_t>(outType);
  size_t inSize = dtypeSize(in[0].dtype), outSize = dtypeSize(outType);
  // A shared rhs under a transposed lhs: one GEMM per batch entry rather
  // than a batch stride of 0, which not every cuBLASLt algorithm takes.
  int64_t calls = sharedRhs && batch > 1 ? batch : 1;
  p.batch = calls > 1 ? 1 : batch;
  p.strideA = p.m * p.k;
  p.strideB = sharedRhs ? 0 : p.k * p.n;
  p.strideC = p.m * p.n;
  // The alignment every matrix of the batch has: the pointer's and the
  // batch stride's (in bytes).
  auto aligned = [&](const void *data, int64_t stride, size_t size) {
    uint32_t a = alignmentOf(data);
    if (batch > 1 && stride > 0)
      a = std::min(a, alignmentOf(reinterpret_cast<const void *>(
                          static_cast<uintptr_t>(stride * size))));
    return a;
  };
  p.alignA = aligned(in[0].data, p.strideA, inSize);
  p.alignB = aligned(in[1].data, p.strideB, inSize);
  p.alignC = aligned(out, p.strideC, outSize);
  for (int64_t b = 0; b < calls; ++b) {
    Status status =
        gemm_->run(p, in[0].as<const char>() + b * p.strideA * inSize,
                   in[1].data, static_cast<char *>(out) + b * p.strideC * outSize);
    if (!status.isOk())
      return Status(status.code(), k.op + ": " + status.message());
  }
  return Status::ok();
}


} // namespace mp::rt::cudabackend
