//===- CudaBackend.cpp - the CUDA backend ---------------------------------===//
//
// Every tensor of a session lives in device memory that the session
// allocates once through this backend's DeviceMemory (DeviceMemory.h);
// kernels are queued on one stream and the host waits once per step, in
// finishStep(), which also reports the data errors the kernels found.
// train.matmul runs on cuBLASLt (cuda/Gemm.cpp), the other ops it runs on
// own kernels (cuda/*.cu). prepare() validates with the reference backend's
// checks (the contract for dtypes, shapes and attributes) and then rejects
// the ops this backend does not run, naming them, so that a plan is refused
// before its first step rather than run wrong. docs/runtime-cuda.md.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"

#ifdef MP_HAVE_CUDA
#include "cuda/Gemm.h"
#include "cuda/Launch.h"
#include "reference/ElementRules.h"
#include "reference/Window.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <array>
#include <unordered_map>
#endif

using namespace mp::rt;

// Built without CUDA, core/BackendRegistry.cpp says why the backend is
// missing.
#ifdef MP_HAVE_CUDA

using namespace mp::rt::cuda;

namespace {

using Views = std::vector<TensorView>;

Status cudaStatus(cudaError_t error, const std::string &what) {
  if (error == cudaSuccess)
    return Status::ok();
  return internalError(what + ": " + cudaGetErrorName(error) + " (" +
                       cudaGetErrorString(error) + ")");
}

Ref ref(const TensorView &v) { return {v.data, static_cast<int32_t>(v.dtype)}; }

using ref::product;
using ref::stridesOf;

/// dim resolved against rank (the reference check has validated it).
int64_t resolve(int64_t dim, size_t rank) {
  return dim < 0 ? dim + static_cast<int64_t>(rank) : dim;
}

/// The bits of `value` stored in `dtype` (fill, grad_seed).
uint64_t bitsOf(DType dtype, double value) {
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
  Status prepare(const KernelDesc &kernel, const Plan &plan) override;
  Status run(const KernelDesc &kernel, const Views &inputs,
             const Views &outputs) override;
  DeviceMemory *deviceMemory() override { return this; }

  // DeviceMemory.
  StatusOr<void *> allocate(uint64_t bytes, const char *what) override;
  void release(void *device) override;
  Status copyToDevice(void *device, const void *host, size_t bytes) override;
  Status copyToHost(void *host, const void *device, size_t bytes) override;
  Status copyOnDevice(void *to, const void *from, size_t bytes) override;
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
  Status runConv(const KernelDesc &, const Views &, const Views &);
  Status runPool(const KernelDesc &, const Views &, const Views &);
  Status runPoolGrad(const KernelDesc &, const Views &, const Views &);
  Status runGlobalPool(const KernelDesc &, const Views &, const Views &);

  CudaBackendOptions options_;
  std::unique_ptr<Backend> reference_; ///< its prepare() is the contract
  cudaStream_t stream_ = nullptr;
  DeviceError *error_ = nullptr;     ///< device
  DeviceError *hostError_ = nullptr; ///< pinned host copy
  std::unique_ptr<GemmRunner> gemm_;
  void *workspace_ = nullptr;
  uint64_t workspaceBytes_ = 0;
  /// The largest workspace a prepared kernel needs (cross-entropy partial
  /// losses); allocated at the first run, so never during later steps.
  uint64_t workspaceNeeded_ = 0;
  /// The op of each launch of the current step, for error messages.
  std::vector<const std::string *> launches_;
  std::string deviceName_;
  int computeCapability_ = 0;
  size_t deviceBytes_ = 0;
};

const OpEntry *CudaBackend::entryOf(OpId id) {
  using B = CudaBackend;
  static const std::pair<OpId, OpEntry> entries[] = {
      {OpId::TrainNeg, {&B::runUnary, 1, 1}},
      {OpId::TrainExp, {&B::runUnary, 1, 1}},
      {OpId::TrainLog, {&B::runUnary, 1, 1}},
      {OpId::TrainSqrt, {&B::runUnary, 1, 1}},
      {OpId::TrainRsqrt, {&B::runUnary, 1, 1}},
      {OpId::TrainTanh, {&B::runUnary, 1, 1}},
      {OpId::TrainSigmoid, {&B::runUnary, 1, 1}},
      {OpId::TrainErf, {&B::runUnary, 1, 1}},
      {OpId::TrainRelu, {&B::runUnary, 1, 1}},
      {OpId::TrainGelu, {&B::runUnary, 1, 1}},
      {OpId::TrainSilu, {&B::runUnary, 1, 1}},
      {OpId::TrainAdd, {&B::runBinary, 2, 1}},
      {OpId::TrainSub, {&B::runBinary, 2, 1}},
      {OpId::TrainMul, {&B::runBinary, 2, 1}},
      {OpId::TrainDiv, {&B::runBinary, 2, 1}},
      {OpId::TrainMaximum, {&B::runBinary, 2, 1}},
      {OpId::TrainMinimum, {&B::runBinary, 2, 1}},
      {OpId::TrainPow, {&B::runBinary, 2, 1}},
      {OpId::TrainCompare, {&B::runCompare, 2, 1}},
      {OpId::TrainSelect, {&B::runSelect, 3, 1}},
      {OpId::TrainReluGrad, {&B::runActivationGrad, 2, 1}},
      {OpId::TrainTanhGrad, {&B::runActivationGrad, 2, 1}},
      {OpId::TrainSigmoidGrad, {&B::runActivationGrad, 2, 1}},
      {OpId::TrainGeluGrad, {&B::runActivationGrad, 2, 1}},
      {OpId::TrainSiluGrad, {&B::runActivationGrad, 2, 1}},
      {OpId::TrainBiasAdd, {&B::runBiasAdd, 2, 1}},
      {OpId::TrainMatmul, {&B::runMatmul, 2, 1}},
      {OpId::MpMatmulEpilogue, {&B::runMatmulEpilogue, 2, 1}},
      {OpId::MpCast, {&B::runCast, 1, 1}},
      {OpId::MpScale, {&B::runScale, 2, 1}},
      {OpId::MpUnscaleAndCheck, {&B::runUnscale, 2, 2}},
      {OpId::MpAllFinite, {&B::runAllFinite, 1, 1}},
      {OpId::MpSelect, {&B::runStateSelect, 3, 1}},
      {OpId::MpUpdateScale, {&B::runUpdateScale, 3, 2}},
      {OpId::TrainSgd, {&B::runSgd, 2, 1}},
      {OpId::TrainSgdMomentum, {&B::runSgd, 3, 2}},
      {OpId::TrainAdam, {&B::runAdam, 5, 3}},
      {OpId::TrainAdamw, {&B::runAdam, 5, 3}},
      {OpId::TrainSoftmax, {&B::runSoftmax, 1, 1}},
      {OpId::TrainLogSoftmax, {&B::runSoftmax, 1, 1}},
      {OpId::TrainSoftmaxGrad, {&B::runSoftmaxGrad, 2, 1}},
      {OpId::TrainLogSoftmaxGrad, {&B::runSoftmaxGrad, 2, 1}},
      {OpId::TrainSparseCrossEntropy, {&B::runCrossEntropy, 2, 1}},
      {OpId::TrainSparseCrossEntropyGrad, {&B::runCrossEntropyGrad, 3, 1}},
      {OpId::TrainReduceSum, {&B::runReduce, 1, 1}},
      {OpId::TrainReduceMean, {&B::runReduce, 1, 1}},
      {OpId::TrainReduceMax, {&B::runReduce, 1, 1}},
      {OpId::TrainLayerNorm, {&B::runLayerNorm, 3, 3}},
      {OpId::TrainLayerNormGrad, {&B::runLayerNormGrad, 5, 3}},
      {OpId::TrainBatchNorm, {&B::runBatchNorm, 5, 5}},
      {OpId::TrainBatchNormGrad, {&B::runBatchNormGrad, 5, 3}},
      {OpId::TrainReshape, {&B::runReshape, 1, 1}},
      {OpId::TrainTranspose, {&B::runTranspose, 1, 1}},
      {OpId::TrainBroadcast, {&B::runBroadcast, 1, 1}},
      {OpId::TrainSlice, {&B::runSlice, 1, 1}},
      {OpId::TrainConcat, {&B::runConcat, 1, 1}},
      {OpId::TrainFill, {&B::runFill, 0, 1}},
      {OpId::TrainGradSeed, {&B::runGradSeed, 1, 1}},
      {OpId::TrainEmbedding, {&B::runEmbedding, 2, 1}},
      {OpId::TrainEmbeddingGrad, {&B::runEmbeddingGrad, 2, 1}},
      {OpId::TrainConv2d, {&B::runConv, 2, 1}},
      {OpId::TrainConv2dBackwardData, {&B::runConv, 2, 1}},
      {OpId::TrainConv2dBackwardFilter, {&B::runConv, 2, 1}},
      {OpId::TrainMaxPool2d, {&B::runPool, 1, 1}},
      {OpId::TrainAvgPool2d, {&B::runPool, 1, 1}},
      {OpId::TrainMaxPool2dGrad, {&B::runPoolGrad, 2, 1}},
      {OpId::TrainAvgPool2dGrad, {&B::runPoolGrad, 1, 1}},
      {OpId::TrainGlobalAvgPool2d, {&B::runGlobalPool, 1, 1}},
      {OpId::TrainGlobalAvgPool2dGrad, {&B::runGlobalPool, 1, 1}},
  };
  static const std::array<const OpEntry *, kNumOps> byId = [] {
    std::array<const OpEntry *, kNumOps> table{};
    for (const auto &[op, entry] : entries)
      table[static_cast<size_t>(op)] = &entry;
    return table;
  }();
  return id == OpId::Unknown ? nullptr : byId[static_cast<size_t>(id)];
}

//===----------------------------------------------------------------------===//
// Creation, description, memory
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<Backend>>
CudaBackend::create(const CudaBackendOptions &options) {
  MP_RETURN_IF_ERROR(cudaBackendStatus());
  std::unique_ptr<CudaBackend> backend(new CudaBackend());
  backend->options_ = options;
  backend->reference_ = createReferenceBackend();
  MP_RETURN_IF_ERROR(
      cudaStatus(cudaSetDevice(options.device),
                 "selecting CUDA device " + std::to_string(options.device)));
  cudaDeviceProp properties{};
  MP_RETURN_IF_ERROR(
      cudaStatus(cudaGetDeviceProperties(&properties, options.device),
                 "reading the device's properties"));
  backend->deviceName_ = properties.name;
  backend->computeCapability_ = properties.major * 10 + properties.minor;
  backend->deviceBytes_ = properties.totalGlobalMem;
  MP_RETURN_IF_ERROR(cudaStatus(
      cudaStreamCreateWithFlags(&backend->stream_, cudaStreamNonBlocking),
      "creating a stream"));
  MP_RETURN_IF_ERROR(
      cudaStatus(cudaMalloc(reinterpret_cast<void **>(&backend->error_),
                            sizeof(DeviceError)),
                 "allocating the error word"));
  MP_RETURN_IF_ERROR(
      cudaStatus(cudaMemset(backend->error_, 0, sizeof(DeviceError)),
                 "clearing the error word"));
  MP_RETURN_IF_ERROR(
      cudaStatus(cudaMallocHost(reinterpret_cast<void **>(&backend->hostError_),
                                sizeof(DeviceError)),
                 "allocating pinned host memory"));
  std::memset(backend->hostError_, 0, sizeof(DeviceError));
  StatusOr<std::unique_ptr<GemmRunner>> gemm =
      GemmRunner::create(backend->stream_, options.allowTf32);
  if (!gemm.isOk())
    return gemm.status();
  backend->gemm_ = std::move(*gemm);
  return std::unique_ptr<Backend>(std::move(backend));
}

CudaBackend::~CudaBackend() {
  if (stream_)
    cudaStreamSynchronize(stream_);
  gemm_.reset();
  if (workspace_)
    cudaFree(workspace_);
  if (error_)
    cudaFree(error_);
  if (hostError_)
    cudaFreeHost(hostError_);
  if (stream_)
    cudaStreamDestroy(stream_);
}

std::string CudaBackend::describe() const {
  char memory[32];
  std::snprintf(memory, sizeof(memory), "%.0f GiB",
                static_cast<double>(deviceBytes_) / (1ull << 30));
  return "cuda (" + deviceName_ + ", sm_" + std::to_string(computeCapability_) +
         ", " + memory + "; " + gemm_->version() +
         " matmuls: bf16/f16 on Tensor Cores with f32 accumulation, f32 " +
         (options_.allowTf32 ? "on TF32" : "in full f32") +
         "; own kernels for the other ops)";
}

StatusOr<void *> CudaBackend::allocate(uint64_t bytes, const char *what) {
  void *p = nullptr;
  uint64_t size = bytes ? bytes : 256;
  cudaError_t error = cudaMalloc(&p, size);
  if (error != cudaSuccess) {
    cudaGetLastError(); // clear the sticky-free allocation error
    size_t free = 0, total = 0;
    cudaMemGetInfo(&free, &total);
    return internalError("out of device memory: cannot allocate " +
                         std::to_string(bytes) + " bytes for " + what + " (" +
                         std::to_string(free) + " of " + std::to_string(total) +
                         " bytes free): " + cudaGetErrorString(error));
  }
  error = cudaMemsetAsync(p, 0, size, stream_);
  if (error != cudaSuccess) {
    cudaFree(p);
    return cudaStatus(error, std::string("clearing ") + what);
  }
  return p;
}

void CudaBackend::release(void *device) { cudaFree(device); }

Status CudaBackend::copyToDevice(void *device, const void *host, size_t bytes) {
  return cudaStatus(
      cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream_),
      "copying to the device");
}

Status CudaBackend::copyToHost(void *host, const void *device, size_t bytes) {
  MP_RETURN_IF_ERROR(cudaStatus(
      cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream_),
      "copying from the device"));
  return cudaStatus(cudaStreamSynchronize(stream_), "copying from the device");
}

Status CudaBackend::copyOnDevice(void *to, const void *from, size_t bytes) {
  return cudaStatus(
      cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream_),
      "copying on the device");
}

Status CudaBackend::finishStep() {
  Status copied =
      cudaStatus(cudaMemcpyAsync(hostError_, error_, sizeof(DeviceError),
                                 cudaMemcpyDeviceToHost, stream_),
                 "reading the step's error word");
  Status done =
      cudaStatus(cudaStreamSynchronize(stream_), "running the step's kernels");
  DeviceError e = *hostError_;
  std::string op = e.launch >= 0 && size_t(e.launch) < launches_.size()
                       ? *launches_[e.launch]
                       : std::string("a kernel");
  launches_.clear(); // keeps its capacity: no allocation in later steps
  MP_RETURN_IF_ERROR(done);
  MP_RETURN_IF_ERROR(copied);
  if (e.code == kNoError)
    return Status::ok();
  std::memset(hostError_, 0, sizeof(DeviceError));
  MP_RETURN_IF_ERROR(
      cudaStatus(cudaMemsetAsync(error_, 0, sizeof(DeviceError), stream_),
                 "clearing the error word"));
  std::string where = op + " (launch " + std::to_string(e.launch) + ")";
  switch (e.code) {
  case kLabelOutOfRange:
    return invalidArgument(where + ": label " + std::to_string(e.value) +
                           " in row " + std::to_string(e.position) +
                           " is outside [0, " + std::to_string(e.limit) + ")");
  case kIndexOutOfRange:
    return invalidArgument(where + ": index " + std::to_string(e.value) +
                           " at position " + std::to_string(e.position) +
                           " is outside [0, " + std::to_string(e.limit) + ")");
  case kIntegerDivByZero:
    return invalidArgument(where + ": integer division by zero at element " +
                           std::to_string(e.position));
  case kStepNotPositive:
    return invalidArgument(where + ": expects step >= 1 but got " +
                           std::to_string(e.value));
  default:
    return internalError(where + ": unknown device error code " +
                         std::to_string(e.code));
  }
}

Status CudaBackend::ensureWorkspace(uint64_t bytes) {
  if (bytes <= workspaceBytes_)
    return Status::ok();
  if (workspace_) {
    cudaStreamSynchronize(stream_);
    cudaFree(workspace_);
    workspace_ = nullptr;
    workspaceBytes_ = 0;
  }
  MP_RETURN_IF_ERROR(cudaStatus(cudaMalloc(&workspace_, bytes),
                                "allocating a workspace of " +
                                    std::to_string(bytes) + " bytes"));
  workspaceBytes_ = bytes;
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// check and run
//===----------------------------------------------------------------------===//

Status CudaBackend::prepare(const KernelDesc &kernel, const Plan &plan) {
  MP_RETURN_IF_ERROR(reference_->prepare(kernel, plan));
  if (!entryOf(kernel.opId()))
    return unimplemented("the cuda backend does not run '" + kernel.op +
                         "' (docs/runtime-cuda.md lists the ops it runs; "
                         "the cpu and reference backends run every op)");
  auto shapeOf = [&](uint32_t id) -> const std::vector<int64_t> & {
    return plan.tensors[id].shape;
  };
  // Limits of the launch shapes: a block per row (softmax, norms, losses,
  // embedding rows) and cuBLASLt's int32 batch count.
  constexpr int64_t kMaxBlocks = 0x7fffffff;
  for (uint32_t id : kernel.inputs)
    if (shapeOf(id).size() > static_cast<size_t>(kMaxRank) &&
        (kernel.opId() == OpId::TrainTranspose ||
         kernel.opId() == OpId::TrainBroadcast ||
         kernel.opId() == OpId::TrainSlice ||
         kernel.opId() == OpId::TrainReduceSum ||
         kernel.opId() == OpId::TrainReduceMean ||
         kernel.opId() == OpId::TrainReduceMax))
      return unimplemented(kernel.op +
                           " on the cuda backend takes tensors "
                           "of rank <= " +
                           std::to_string(kMaxRank));
  for (uint32_t id : kernel.outputs)
    if (shapeOf(id).size() > static_cast<size_t>(kMaxRank) &&
        (kernel.opId() == OpId::TrainBroadcast))
      return unimplemented(kernel.op +
                           " on the cuda backend takes tensors "
                           "of rank <= " +
                           std::to_string(kMaxRank));
  int64_t largest = 0;
  for (uint32_t id : kernel.inputs)
    largest = std::max<int64_t>(largest, plan.tensors[id].numElements());
  if (largest > kMaxBlocks && kernel.opId() != OpId::TrainReshape)
    return unimplemented(kernel.op + " on the cuda backend takes tensors of "
                                     "at most 2^31 - 1 elements");
  // A 16-bit epilogue result: the product is first stored in f32.
  if (kernel.opId() == OpId::MpMatmulEpilogue &&
      plan.tensors[kernel.outputs[0]].dtype != DType::F32)
    workspaceNeeded_ = std::max<uint64_t>(
        workspaceNeeded_,
        sizeof(float) *
            std::max<int64_t>(plan.tensors[kernel.outputs[0]].numElements(),
                              1));
  if (kernel.opId() == OpId::TrainSparseCrossEntropy)
    workspaceNeeded_ = std::max<uint64_t>(
        workspaceNeeded_,
        sizeof(float) * std::max<int64_t>(shapeOf(kernel.inputs[0])[0], 1));
  return Status::ok();
}

Status CudaBackend::run(const KernelDesc &kernel, const Views &inputs,
                        const Views &outputs) {
  const OpEntry *found = entryOf(kernel.opId());
  if (!found)
    return unimplemented("the cuda backend does not run '" + kernel.op + "'");
  const OpEntry &entry = *found;
  if (inputs.size() < entry.minInputs || outputs.size() < entry.minOutputs)
    return invalidArgument(kernel.op + " expects at least " +
                           std::to_string(entry.minInputs) + " operands and " +
                           std::to_string(entry.minOutputs) + " results");
  MP_RETURN_IF_ERROR(ensureWorkspace(workspaceNeeded_));
  MP_RETURN_IF_ERROR((this->*entry.run)(kernel, inputs, outputs));
  launches_.push_back(&kernel.op);
  return Status::ok();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Status CudaBackend::runUnary(const KernelDesc &k, const Views &in,
                             const Views &out) {
  static const std::unordered_map<OpId, Unary> kinds = {
      {OpId::TrainNeg, Unary::Neg},         {OpId::TrainExp, Unary::Exp},
      {OpId::TrainLog, Unary::Log},         {OpId::TrainSqrt, Unary::Sqrt},
      {OpId::TrainRsqrt, Unary::Rsqrt},     {OpId::TrainTanh, Unary::Tanh},
      {OpId::TrainSigmoid, Unary::Sigmoid}, {OpId::TrainErf, Unary::Erf},
      {OpId::TrainRelu, Unary::Relu},       {OpId::TrainGelu, Unary::Gelu},
      {OpId::TrainSilu, Unary::Silu},
  };
  Unary kind = kinds.at(k.opId());
  if (kind == Unary::Gelu && k.getFlag("tanh_approx"))
    kind = Unary::GeluTanh;
  return launched(
      k, unary(context(), kind, ref(in[0]), ref(out[0]), out[0].numElements()));
}

Status CudaBackend::runBinary(const KernelDesc &k, const Views &in,
                              const Views &out) {
  static const std::unordered_map<OpId, Binary> kinds = {
      {OpId::TrainAdd, Binary::Add},         {OpId::TrainSub, Binary::Sub},
      {OpId::TrainMul, Binary::Mul},         {OpId::TrainDiv, Binary::Div},
      {OpId::TrainMaximum, Binary::Maximum}, {OpId::TrainMinimum, Binary::Minimum},
      {OpId::TrainPow, Binary::Pow},
  };
  return launched(k, binary(context(), kinds.at(k.opId()), ref(in[0]), ref(in[1]),
                            ref(out[0]), out[0].numElements()));
}

Status CudaBackend::runCompare(const KernelDesc &k, const Views &in,
                               const Views &out) {
  static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const std::string *name = k.getString("predicate");
  int p = 0;
  while (p < 6 && !(name && *name == names[p]))
    ++p;
  if (p == 6)
    return invalidArgument(k.op + " needs a 'predicate' attribute of eq, ne, "
                                  "lt, le, gt or ge");
  return launched(k, compare(context(), static_cast<Predicate>(p), ref(in[0]),
                             ref(in[1]), out[0].as<uint8_t>(),
                             out[0].numElements()));
}

Status CudaBackend::runSelect(const KernelDesc &k, const Views &in,
                              const Views &out) {
  return launched(k, select(context(), in[0].as<const uint8_t>(), in[1].data,
                            in[2].data, out[0].data, dtypeSize(out[0].dtype),
                            out[0].numElements()));
}

Status CudaBackend::runActivationGrad(const KernelDesc &k, const Views &in,
                                      const Views &out) {
  ActGrad kind = k.opId() == OpId::TrainReluGrad      ? ActGrad::Relu
                 : k.opId() == OpId::TrainTanhGrad    ? ActGrad::Tanh
                 : k.opId() == OpId::TrainSigmoidGrad ? ActGrad::Sigmoid
                 : k.opId() == OpId::TrainSiluGrad    ? ActGrad::Silu
                 : k.getFlag("tanh_approx")     ? ActGrad::GeluTanh
                                                : ActGrad::Gelu;
  return launched(k, activationGrad(context(), kind, ref(in[0]), ref(in[1]),
                                    ref(out[0]), out[0].numElements()));
}

Status CudaBackend::runBiasAdd(const KernelDesc &k, const Views &in,
                               const Views &out) {
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t dim = resolve(k.getInt("dim", -1), shape.size());
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'dim' out of range");
  return launched(k, biasAdd(context(), ref(in[0]), ref(in[1]), ref(out[0]),
                             product(shape, 0, dim), shape[dim],
                             product(shape, dim + 1, shape.size())));
}

Status CudaBackend::runCast(const KernelDesc &k, const Views &in,
                            const Views &out) {
  if (in[0].dtype == out[0].dtype)
    return copyOnDevice(out[0].data, in[0].data,
                        out[0].numElements() * dtypeSize(out[0].dtype));
  return launched(
      k, cast(context(), ref(in[0]), ref(out[0]), out[0].numElements()));
}

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
  const std::string *activation = k.getString("activation");
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
  p.transA = k.getFlag("transpose_lhs");
  p.transB = k.getFlag("transpose_rhs");
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

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

Status CudaBackend::runScale(const KernelDesc &k, const Views &in,
                             const Views &out) {
  return launched(k, scale(context(), ref(in[0]), in[1].as<const float>(),
                           ref(out[0]), out[0].numElements()));
}

Status CudaBackend::runUnscale(const KernelDesc &k, const Views &in,
                               const Views &out) {
  if (out.size() != in.size())
    return invalidArgument(k.op + " expects one result per gradient and "
                                  "the verdict");
  uint8_t *finite = out.back().as<uint8_t>();
  MP_RETURN_IF_ERROR(launched(k, fillBits(context(), finite, 1, 1, 1)));
  for (size_t i = 1; i < in.size(); ++i)
    MP_RETURN_IF_ERROR(
        launched(k, unscale(context(), in[0].as<const float>(), ref(in[i]),
                            ref(out[i - 1]), in[i].numElements(), finite)));
  return Status::ok();
}

Status CudaBackend::runAllFinite(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  uint8_t *finite = out[0].as<uint8_t>();
  MP_RETURN_IF_ERROR(launched(k, fillBits(context(), finite, 1, 1, 1)));
  for (const TensorView &v : in)
    MP_RETURN_IF_ERROR(
        launched(k, checkFinite(context(), ref(v), v.numElements(), finite)));
  return Status::ok();
}

Status CudaBackend::runStateSelect(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  size_t n = out.size();
  if (in.size() != 2 * n + 1)
    return invalidArgument(k.op + " expects [pred, new..., old...]");
  for (size_t i = 0; i < n; ++i)
    MP_RETURN_IF_ERROR(launched(
        k, selectBytes(context(), in[0].as<const uint8_t>(), in[1 + i].data,
                       in[1 + n + i].data, out[i].data,
                       out[i].numElements() * dtypeSize(out[i].dtype))));
  return Status::ok();
}

Status CudaBackend::runUpdateScale(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  ScalerParams p;
  p.growthInterval = k.getInt("growth_interval", 2000);
  p.growthFactor = static_cast<float>(k.getFloat("growth_factor", 2.0));
  p.backoffFactor = static_cast<float>(k.getFloat("backoff_factor", 0.5));
  p.minScale = static_cast<float>(k.getFloat("min_scale", 0.0));
  p.maxScale =
      static_cast<float>(k.getFloat("max_scale", 3.4028234663852886e+38));
  return launched(k, updateScale(context(), in[0].as<const float>(), ref(in[1]),
                                 in[2].as<const uint8_t>(), out[0].as<float>(),
                                 ref(out[1]), p));
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

Status CudaBackend::runSgd(const KernelDesc &k, const Views &in,
                           const Views &out) {
  SgdParams hp;
  hp.withMomentum = k.opId() == OpId::TrainSgdMomentum;
  hp.lr = static_cast<float>(k.getFloat("lr", 0));
  hp.weightDecay = static_cast<float>(k.getFloat("weight_decay", 0));
  hp.momentum = static_cast<float>(k.getFloat("momentum", 0));
  hp.keep = static_cast<float>(1 - k.getFloat("dampening", 0));
  hp.nesterov = hp.withMomentum && k.getFlag("nesterov");
  Ref none{nullptr, 0};
  return launched(k, sgd(context(), ref(in[0]), ref(in[1]),
                         hp.withMomentum ? ref(in[2]) : none, ref(out[0]),
                         hp.withMomentum ? ref(out[1]) : none,
                         out[0].numElements(), hp));
}

Status CudaBackend::runAdam(const KernelDesc &k, const Views &in,
                            const Views &out) {
  AdamParams hp;
  hp.decoupled = k.opId() == OpId::TrainAdamw;
  hp.lr = k.getFloat("lr", 0);
  hp.beta1 = k.getFloat("beta1", 0.9);
  hp.beta2 = k.getFloat("beta2", 0.999);
  hp.epsilon = k.getFloat("epsilon", 1e-8);
  hp.weightDecay = k.getFloat("weight_decay", hp.decoupled ? 0.01 : 0.0);
  return launched(k, adam(context(), ref(in[0]), ref(in[1]), ref(in[2]),
                          ref(in[3]), ref(in[4]), ref(out[0]), ref(out[1]),
                          ref(out[2]), out[0].numElements(), hp));
}

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
  RowsAround r = rowsAround(in[0].shape, k.getInt("axis", -1));
  return launched(k, softmax(context(), k.opId() == OpId::TrainLogSoftmax, ref(in[0]),
                             ref(out[0]), r.outer, r.length, r.inner));
}

Status CudaBackend::runSoftmaxGrad(const KernelDesc &k, const Views &in,
                                   const Views &out) {
  if (in[0].shape.empty())
    return invalidArgument(k.op + " expects a tensor of rank >= 1");
  RowsAround r = rowsAround(in[0].shape, k.getInt("axis", -1));
  return launched(k, softmaxGrad(context(), k.opId() == OpId::TrainLogSoftmaxGrad,
                                 ref(in[0]), ref(in[1]), ref(out[0]), r.outer,
                                 r.length, r.inner));
}

Status CudaBackend::runCrossEntropy(const KernelDesc &k, const Views &in,
                                    const Views &out) {
  if (in[0].shape.size() != 2)
    return invalidArgument(k.op + " expects logits of rank 2");
  int64_t rows = in[0].shape[0];
  MP_RETURN_IF_ERROR(
      ensureWorkspace(sizeof(float) * std::max<int64_t>(rows, 1)));
  return launched(k, crossEntropy(context(), ref(in[0]), ref(in[1]),
                                  ref(out[0]), static_cast<float *>(workspace_),
                                  rows, in[0].shape[1]));
}

Status CudaBackend::runCrossEntropyGrad(const KernelDesc &k, const Views &in,
                                        const Views &out) {
  if (in[0].shape.size() != 2)
    return invalidArgument(k.op + " expects logits of rank 2");
  return launched(k, crossEntropyGrad(context(), ref(in[0]), ref(in[1]),
                                      ref(in[2]), ref(out[0]), in[0].shape[0],
                                      in[0].shape[1]));
}

//===----------------------------------------------------------------------===//
// Reductions and normalization
//===----------------------------------------------------------------------===//

Status CudaBackend::runReduce(const KernelDesc &k, const Views &in,
                              const Views &out) {
  const std::vector<int64_t> &shape = in[0].shape;
  size_t rank = shape.size();
  const std::vector<int64_t> *dims = k.getInts("dims");
  if (!dims || rank > static_cast<size_t>(kMaxRank))
    return invalidArgument(
        k.op + " needs 'dims' and a rank <= " + std::to_string(kMaxRank));
  std::vector<bool> reduced(rank, false);
  for (int64_t dim : *dims) {
    int64_t d = resolve(dim, rank);
    if (d < 0 || d >= static_cast<int64_t>(rank))
      return invalidArgument(k.op + ": a reduction dimension is out of range");
    reduced[d] = true;
  }
  Reduction r{};
  r.outputs = r.perOutput = 1;
  int64_t stride = 1;
  std::vector<int64_t> strides(rank);
  for (size_t d = rank; d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
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
  Reduce kind = k.opId() == OpId::TrainReduceSum    ? Reduce::Sum
                : k.opId() == OpId::TrainReduceMean ? Reduce::Mean
                                              : Reduce::Max;
  return launched(k, reduce(context(), kind, ref(in[0]), ref(out[0]), r));
}

Status CudaBackend::runLayerNorm(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t axis = resolve(k.getInt("axis", -1), shape.size());
  if (axis < 0 || axis > static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'axis' out of range");
  return launched(
      k, layerNorm(context(), ref(in[0]), ref(in[1]), ref(in[2]), ref(out[0]),
                   ref(out[1]), ref(out[2]), product(shape, 0, axis),
                   product(shape, axis, shape.size()),
                   static_cast<float>(k.getFloat("epsilon", 1e-5))));
}

Status CudaBackend::runLayerNormGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  const std::vector<int64_t> &shape = in[1].shape;
  int64_t axis = resolve(k.getInt("axis", -1), shape.size());
  if (axis < 0 || axis > static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'axis' out of range");
  return launched(k, layerNormGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(in[2]), ref(in[3]), ref(in[4]),
                                   ref(out[0]), ref(out[1]), ref(out[2]),
                                   product(shape, 0, axis),
                                   product(shape, axis, shape.size())));
}

Status CudaBackend::runBatchNorm(const KernelDesc &k, const Views &in,
                                 const Views &out) {
  const std::vector<int64_t> &shape = in[0].shape;
  int64_t dim = resolve(k.getInt("feature_dim", 1), shape.size());
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'feature_dim' out of range");
  return launched(
      k, batchNorm(context(), ref(in[0]), ref(in[1]), ref(in[2]), ref(in[3]),
                   ref(in[4]), ref(out[0]), ref(out[1]), ref(out[2]),
                   ref(out[3]), ref(out[4]), product(shape, 0, dim), shape[dim],
                   product(shape, dim + 1, shape.size()),
                   static_cast<float>(k.getFloat("epsilon", 1e-5)),
                   static_cast<float>(k.getFloat("momentum", 0.1))));
}

Status CudaBackend::runBatchNormGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  const std::vector<int64_t> &shape = in[1].shape;
  int64_t dim = resolve(k.getInt("feature_dim", 1), shape.size());
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size()))
    return invalidArgument(k.op + ": 'feature_dim' out of range");
  return launched(k, batchNormGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(in[2]), ref(in[3]), ref(in[4]),
                                   ref(out[0]), ref(out[1]), ref(out[2]),
                                   product(shape, 0, dim), shape[dim],
                                   product(shape, dim + 1, shape.size())));
}

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
  const std::vector<int64_t> *perm = k.getInts("permutation");
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
  const std::vector<int64_t> *dims = k.getInts("dims");
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
  const std::vector<int64_t> *offsets = k.getInts("offsets");
  const std::vector<int64_t> *strideAttr = k.getInts("strides");
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
  int64_t dim = resolve(k.getInt("dim", 0), result.size());
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
                              bitsOf(out[0].dtype, k.getFloat("value", 0)),
                              dtypeSize(out[0].dtype), out[0].numElements()));
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
  return launched(k, embedding(context(), in[0].data, ref(in[1]), out[0].data,
                               in[0].shape[0], in[0].shape[1],
                               dtypeSize(in[0].dtype), in[1].numElements()));
}

Status CudaBackend::runEmbeddingGrad(const KernelDesc &k, const Views &in,
                                     const Views &out) {
  if (out[0].shape.size() != 2)
    return invalidArgument(k.op + " expects a table of rank 2");
  return launched(k, embeddingGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(out[0]), out[0].shape[0],
                                   out[0].shape[1], in[1].numElements()));
}

//===----------------------------------------------------------------------===//
// Convolutions and pooling (the simple path: cuda/Window.cu)
//===----------------------------------------------------------------------===//

namespace {
ImageDesc imageDesc(const std::vector<int64_t> &shape, ref::Layout layout) {
  ref::Image im = ref::imageOf(shape, layout);
  return {im.n, im.c, im.h, im.w, im.sn, im.sc, im.sh, im.sw};
}

WindowDesc windowDesc(const ref::Window &w) {
  return {w.sizeH,  w.sizeW,   w.strideH,   w.strideW,
          w.padTop, w.padLeft, w.dilationH, w.dilationW};
}

/// Layout and window of a conv or pooling kernel whose image operands are
/// `images` (each must be rank 4).
Status windowOf(const KernelDesc &k, bool isPool,
                std::initializer_list<const TensorView *> images,
                ref::Layout &layout, ref::Window &window) {
  MP_RETURN_IF_ERROR(ref::getLayout(k, layout));
  MP_RETURN_IF_ERROR(isPool ? ref::getPoolWindow(k, window)
                            : ref::getConvWindow(k, window));
  for (const TensorView *image : images)
    if (image->shape.size() != 4)
      return invalidArgument(k.op + " expects rank-4 images and filters");
  return Status::ok();
}
} // namespace

Status CudaBackend::runConv(const KernelDesc &k, const Views &in,
                            const Views &out) {
  // (input, filter, result) of the forward convolution, whatever the op.
  const TensorView *x = &in[0], *f = &in[1], *y = &out[0];
  if (k.opId() == OpId::TrainConv2dBackwardData)
    x = &out[0], f = &in[1], y = &in[0];
  else if (k.opId() == OpId::TrainConv2dBackwardFilter)
    x = &in[0], f = &out[0], y = &in[1];
  ref::Layout layout;
  ref::Window window;
  MP_RETURN_IF_ERROR(windowOf(k, false, {x, f, y}, layout, window));
  ref::Filter filter = ref::filterOf(f->shape, layout);
  FilterDesc fd{filter.o,  filter.i,  filter.h,  filter.w,
                filter.so, filter.si, filter.sh, filter.sw};
  ImageDesc xi = imageDesc(x->shape, layout), yi = imageDesc(y->shape, layout);
  if (xi.c != fd.i || yi.c != fd.o)
    return invalidArgument(k.op + ": channels do not match the filter");
  WindowDesc wd = windowDesc(window);
  if (k.opId() == OpId::TrainConv2d)
    return launched(
        k, conv2d(context(), ref(*x), ref(*f), ref(*y), xi, fd, yi, wd));
  if (k.opId() == OpId::TrainConv2dBackwardData)
    return launched(k, conv2dBackwardData(context(), ref(*y), ref(*f), ref(*x),
                                          xi, fd, yi, wd));
  return launched(k, conv2dBackwardFilter(context(), ref(*x), ref(*y), ref(*f),
                                          xi, fd, yi, wd));
}

Status CudaBackend::runPool(const KernelDesc &k, const Views &in,
                            const Views &out) {
  ref::Layout layout;
  ref::Window window;
  MP_RETURN_IF_ERROR(windowOf(k, true, {&in[0], &out[0]}, layout, window));
  ImageDesc xi = imageDesc(in[0].shape, layout);
  ImageDesc yi = imageDesc(out[0].shape, layout);
  if (k.opId() == OpId::TrainMaxPool2d)
    return launched(k, maxPool(context(), ref(in[0]), ref(out[0]), xi, yi,
                               windowDesc(window)));
  return launched(k, avgPool(context(), ref(in[0]), ref(out[0]), xi, yi,
                             windowDesc(window)));
}

Status CudaBackend::runPoolGrad(const KernelDesc &k, const Views &in,
                                const Views &out) {
  // max_pool2d_grad: (grad, x) -> dx; avg_pool2d_grad: (grad) -> dx.
  ref::Layout layout;
  ref::Window window;
  MP_RETURN_IF_ERROR(windowOf(k, true, {&in[0], &out[0]}, layout, window));
  ImageDesc xi = imageDesc(out[0].shape, layout);
  ImageDesc yi = imageDesc(in[0].shape, layout);
  if (k.opId() == OpId::TrainMaxPool2dGrad)
    return launched(k, maxPoolGrad(context(), ref(in[0]), ref(in[1]),
                                   ref(out[0]), xi, yi, windowDesc(window)));
  return launched(k, avgPoolGrad(context(), ref(in[0]), ref(out[0]), xi, yi,
                                 windowDesc(window)));
}

Status CudaBackend::runGlobalPool(const KernelDesc &k, const Views &in,
                                  const Views &out) {
  ref::Layout layout;
  MP_RETURN_IF_ERROR(ref::getLayout(k, layout));
  bool forward = k.opId() == OpId::TrainGlobalAvgPool2d;
  const TensorView &image = forward ? in[0] : out[0];
  if (image.shape.size() != 4)
    return invalidArgument(k.op + " expects a rank-4 image");
  ImageDesc xi = imageDesc(image.shape, layout);
  if (forward)
    return launched(k, globalAvgPool(context(), ref(in[0]), ref(out[0]), xi));
  return launched(k, globalAvgPoolGrad(context(), ref(in[0]), ref(out[0]), xi));
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Status mp::rt::cudaBackendStatus() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return unimplemented(std::string("no usable CUDA device: ") +
                         cudaGetErrorName(error) + " (" +
                         cudaGetErrorString(error) + ")");
  }
  if (count == 0)
    return unimplemented("no CUDA device is present");
  cudaDeviceProp properties{};
  error = cudaGetDeviceProperties(&properties, 0);
  if (error != cudaSuccess)
    return unimplemented(std::string("cannot read CUDA device 0: ") +
                         cudaGetErrorString(error));
  if (properties.major < 8)
    return unimplemented(std::string("CUDA device 0 (") + properties.name +
                         ", sm_" + std::to_string(properties.major) +
                         std::to_string(properties.minor) +
                         ") is older than sm_80, which the cuda backend "
                         "needs (bf16 Tensor Cores)");
  return Status::ok();
}

StatusOr<std::unique_ptr<Backend>>
mp::rt::createCudaBackend(const CudaBackendOptions &options) {
  return CudaBackend::create(options);
}

const std::vector<std::string> &mp::rt::cudaBackendOps() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const std::string &op : referenceBackendOps())
      if (CudaBackend::entryOf(findOp(op)))
        all.push_back(op);
    return all;
  }();
  return names;
}

#endif // MP_HAVE_CUDA
