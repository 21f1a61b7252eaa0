//===- CudaBackendImpl.h - the CUDA backend's class -------------*- C++ -*-===//
//
// Private to runtime/src/cuda: the backend class (CudaBackend.cpp: op
// table, creation, device memory, prepare and run) and its handlers, one
// file per op family mirroring the .cu files: ElementwiseOps.cpp
// (Elementwise.cu, MixedPrecision.cu, Optimizer.cu), MatmulOps.cpp
// (Gemm.cpp), NormalizationOps.cpp (Softmax.cu, Reduction.cu,
// Normalization.cu), ShapeOps.cpp (Shape.cu, Embedding.cu), WindowOps.cpp
// (Window.cu).
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CUDA_CUDABACKENDIMPL_H
#define MP_RUNTIME_CUDA_CUDABACKENDIMPL_H

#include "mp/runtime/Backend.h"

#include "cuda/Gemm.h"
#include "cuda/Launch.h"
#include "reference/ElementRules.h"
#include "reference/KernelSupport.h"
#include "reference/Window.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace mp::rt::cudabackend {

using namespace mp::rt::cuda;


using Views = std::vector<TensorView>;

inline Status cudaStatus(cudaError_t error, const std::string &what) {
  if (error == cudaSuccess)
    return Status::ok();
  return internalError(what + ": " + cudaGetErrorName(error) + " (" +
                       cudaGetErrorString(error) + ")");
}

inline Ref ref(const TensorView &v) { return {v.data, static_cast<int32_t>(v.dtype)}; }

using ref::product;
using ref::stridesOf;

/// dim resolved against rank (the reference check has validated it).
inline int64_t resolve(int64_t dim, size_t rank) {
  return dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
}

/// The bits of `value` stored in `dtype` (fill, grad_seed).
inline uint64_t bitsOf(DType dtype, double value) {
  switch (dtype) {
  case DType::F32: {
    float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return bits;
  }
  case DType::BF16:
    return floatToBFloat16(ref::roundToOdd(value));
  case DType::F16:
    return floatToHalf(ref::roundToOdd(value));
  default:
    return static_cast<uint64_t>(static_cast<int64_t>(value));
  }
}

/// The workspace bytes a train.clip_grad_norm kernel needs (StepStateOps).
uint64_t clipNormWorkspace(const KernelDesc &kernel, const Plan &plan);

class CudaBackend;
using Handler = Status (CudaBackend::*)(const KernelDesc &, const Views &,
                                        const Views &);
struct OpEntry {
  Handler run;
  size_t minInputs, minOutputs; ///< run() never indexes past these
};

class CudaBackend final : public Backend, public DeviceMemory {
public:
  static StatusOr<std::unique_ptr<Backend>>
  create(const CudaBackendOptions &options);
  ~CudaBackend() override;

  const char *name() const override { return "cuda"; }
  std::string describe() const override;
  /// prepare() admits only the ops it has kernels for: matmuls on cuBLASLt,
  /// the rest on own kernels.
  std::string implementationOf(const KernelDesc &kernel) const override {
    return kernel.opId() == OpId::TrainMatmul || kernel.opId() == OpId::MpMatmulEpilogue
               ? "cuBLASLt"
               : "own CUDA kernel";
  }
  Status supports(const KernelDesc &kernel, const Plan &plan) const override;
  /// supports(), then the workspace the kernel needs (grown at the next
  /// run).
  Status prepare(const KernelDesc &kernel, const Plan &plan) override;
  Status run(const KernelDesc &kernel, const Views &inputs,
             const Views &outputs) override;
  DeviceMemory *deviceMemory() override { return this; }
  /// NCCL over `host`'s ranks, on this backend's device, ordered with its
  /// stream (cuda/NcclCommunicator.cpp); Unimplemented in a build without
  /// NCCL or where libnccl cannot be loaded.
  StatusOr<std::unique_ptr<Communicator>>
  deviceCommunicator(Communicator &host) override;

  // DeviceMemory.
  StatusOr<void *> allocate(uint64_t bytes, const char *what) override;
  void release(void *device) override;
  Status copyToDevice(void *device, const void *host, size_t bytes) override;
  Status copyToHost(void *host, const void *device, size_t bytes) override;
  Status copyOnDevice(void *to, const void *from, size_t bytes) override;
  Status fillZero(void *device, size_t bytes) override;
  Status finishStep() override;

  /// The handler of each op, indexed by OpId; null where this backend has
  /// no kernel.
  static const OpEntry *entryOf(OpId id);

private:
  CudaBackend() = default;
  Context context() const {
    return {stream_, error_, static_cast<int32_t>(launches_.size())};
  }
  /// The launch status of a kernel, as a Status naming the op.
  Status launched(const KernelDesc &k, int error) const {
    return cudaStatus(static_cast<cudaError_t>(error),
                      "launching the kernel of " + k.op);
  }
  Status ensureWorkspace(uint64_t bytes);

  Status runUnary(const KernelDesc &, const Views &, const Views &);
  Status runBinary(const KernelDesc &, const Views &, const Views &);
  Status runCompare(const KernelDesc &, const Views &, const Views &);
  Status runSelect(const KernelDesc &, const Views &, const Views &);
  Status runActivationGrad(const KernelDesc &, const Views &, const Views &);
  Status runBiasAdd(const KernelDesc &, const Views &, const Views &);
  Status runMatmul(const KernelDesc &, const Views &, const Views &);
  Status runMatmulEpilogue(const KernelDesc &, const Views &, const Views &);
  /// The GEMM of a train.matmul (or the product of an epilogue op) from
  /// the operands `in[0]`, `in[1]` into `out` of dtype `outType`.
  Status gemmInto(const KernelDesc &, const Views &in, void *out,
                  DType outType);
  Status runCast(const KernelDesc &, const Views &, const Views &);
  Status runScale(const KernelDesc &, const Views &, const Views &);
  Status runUnscale(const KernelDesc &, const Views &, const Views &);
  Status runAllFinite(const KernelDesc &, const Views &, const Views &);
  Status runStateSelect(const KernelDesc &, const Views &, const Views &);
  Status runUpdateScale(const KernelDesc &, const Views &, const Views &);
  Status runSgd(const KernelDesc &, const Views &, const Views &);
  Status runAdam(const KernelDesc &, const Views &, const Views &);
  Status runSoftmax(const KernelDesc &, const Views &, const Views &);
  Status runSoftmaxGrad(const KernelDesc &, const Views &, const Views &);
  Status runCrossEntropy(const KernelDesc &, const Views &, const Views &);
  Status runCrossEntropyGrad(const KernelDesc &, const Views &, const Views &);
  Status runReduce(const KernelDesc &, const Views &, const Views &);
  Status runLayerNorm(const KernelDesc &, const Views &, const Views &);
  Status runLayerNormGrad(const KernelDesc &, const Views &, const Views &);
  Status runBatchNorm(const KernelDesc &, const Views &, const Views &);
  Status runBatchNormGrad(const KernelDesc &, const Views &, const Views &);
  Status runReshape(const KernelDesc &, const Views &, const Views &);
  Status runTranspose(const KernelDesc &, const Views &, const Views &);
  Status runBroadcast(const KernelDesc &, const Views &, const Views &);
  Status runSlice(const KernelDesc &, const Views &, const Views &);
  Status runConcat(const KernelDesc &, const Views &, const Views &);
  Status runFill(const KernelDesc &, const Views &, const Views &);
  Status runGradSeed(const KernelDesc &, const Views &, const Views &);
  Status runEmbedding(const KernelDesc &, const Views &, const Views &);
  Status runEmbeddingGrad(const KernelDesc &, const Views &, const Views &);
  Status runGather(const KernelDesc &, const Views &, const Views &);
  Status runGatherGrad(const KernelDesc &, const Views &, const Views &);
  Status runConv(const KernelDesc &, const Views &, const Views &);
  Status runPool(const KernelDesc &, const Views &, const Views &);
  Status runPoolGrad(const KernelDesc &, const Views &, const Views &);
  Status runGlobalPool(const KernelDesc &, const Views &, const Views &);
  Status runLrSchedule(const KernelDesc &, const Views &, const Views &);
  Status runRmsNorm(const KernelDesc &, const Views &, const Views &);
  Status runRmsNormGrad(const KernelDesc &, const Views &, const Views &);
  Status runClipGradNorm(const KernelDesc &, const Views &, const Views &);
  Status runClipGradValue(const KernelDesc &, const Views &, const Views &);
  Status runDropout(const KernelDesc &, const Views &, const Views &);
  Status runArgMax(const KernelDesc &, const Views &, const Views &);
  Status runGroupNorm(const KernelDesc &, const Views &, const Views &);
  Status runGroupNormGrad(const KernelDesc &, const Views &, const Views &);
  Status runAdaptivePool(const KernelDesc &, const Views &, const Views &);
  Status runPad(const KernelDesc &, const Views &, const Views &);
  Status runOneHot(const KernelDesc &, const Views &, const Views &);
  Status runPointwiseLoss(const KernelDesc &, const Views &, const Views &);
  Status runPointwiseLossGrad(const KernelDesc &, const Views &,
                              const Views &);
  Status runLstmCell(const KernelDesc &, const Views &, const Views &);
  Status runLstmCellGrad(const KernelDesc &, const Views &, const Views &);
  Status runGruCell(const KernelDesc &, const Views &, const Views &);
  Status runGruCellGrad(const KernelDesc &, const Views &, const Views &);

  CudaBackendOptions options_;
  std::unique_ptr<Backend> reference_; ///< its supports() is the contract
  cudaStream_t stream_ = nullptr;
  DeviceError *error_ = nullptr;     ///< device
  DeviceError *hostError_ = nullptr; ///< pinned host copy
  std::unique_ptr<GemmRunner> gemm_;
  void *workspace_ = nullptr;
  uint64_t workspaceBytes_ = 0;
  /// The largest workspace a prepared kernel needs (cross-entropy partial
  /// losses, clip_grad_norm's partial sums); allocated at the first run,
  /// so never during later steps.
  uint64_t workspaceNeeded_ = 0;
  /// The op of each launch of the current step, for error messages.
  std::vector<const std::string *> launches_;
  std::string deviceName_;
  int computeCapability_ = 0;
  size_t deviceBytes_ = 0;
};


} // namespace mp::rt::cudabackend

#endif // MP_RUNTIME_CUDA_CUDABACKENDIMPL_H
