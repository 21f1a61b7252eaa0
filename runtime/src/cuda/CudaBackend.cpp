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

// Built without CUDA, core/BackendRegistry.cpp says why the backend is
// missing.
#ifdef MP_HAVE_CUDA
#include "common/OpMap.h"
#include "cuda/CudaBackendImpl.h"
#include "cuda/NcclCommunicator.h"

#include <cstdlib>

using namespace mp::rt;
using namespace mp::rt::cuda;

namespace mp::rt::cudabackend {

const OpEntry *CudaBackend::entryOf(OpId id) {
  using B = CudaBackend;
  static const std::pair<OpId, OpEntry> entries[] = {
      {OpId::TrainNeg, {&B::runUnary, 1, 1}},
      {OpId::TrainAbs, {&B::runUnary, 1, 1}},
      {OpId::TrainSign, {&B::runUnary, 1, 1}},
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
      {OpId::TrainHardswish, {&B::runUnary, 1, 1}},
      {OpId::TrainLeakyRelu, {&B::runUnary, 1, 1}},
      {OpId::TrainElu, {&B::runUnary, 1, 1}},
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
      {OpId::TrainHardswishGrad, {&B::runActivationGrad, 2, 1}},
      {OpId::TrainLeakyReluGrad, {&B::runActivationGrad, 2, 1}},
      {OpId::TrainEluGrad, {&B::runActivationGrad, 2, 1}},
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
      {OpId::TrainLogsumexp, {&B::runReduce, 1, 1}},
      {OpId::TrainArgmax, {&B::runArgMax, 1, 1}},
      {OpId::TrainLayerNorm, {&B::runLayerNorm, 3, 3}},
      {OpId::TrainLayerNormGrad, {&B::runLayerNormGrad, 5, 3}},
      {OpId::TrainRmsNorm, {&B::runRmsNorm, 2, 2}},
      {OpId::TrainRmsNormGrad, {&B::runRmsNormGrad, 4, 2}},
      {OpId::TrainBatchNorm, {&B::runBatchNorm, 5, 5}},
      {OpId::TrainGroupNorm, {&B::runGroupNorm, 3, 3}},
      {OpId::TrainGroupNormGrad, {&B::runGroupNormGrad, 5, 3}},
      {OpId::TrainBatchNormGrad, {&B::runBatchNormGrad, 5, 3}},
      {OpId::TrainReshape, {&B::runReshape, 1, 1}},
      {OpId::TrainGradient, {&B::runReshape, 1, 1}},
      {OpId::TrainTranspose, {&B::runTranspose, 1, 1}},
      {OpId::TrainBroadcast, {&B::runBroadcast, 1, 1}},
      {OpId::TrainSlice, {&B::runSlice, 1, 1}},
      {OpId::TrainConcat, {&B::runConcat, 1, 1}},
      {OpId::TrainFill, {&B::runFill, 0, 1}},
      {OpId::TrainGradSeed, {&B::runGradSeed, 1, 1}},
      {OpId::TrainEmbedding, {&B::runEmbedding, 2, 1}},
      {OpId::TrainEmbeddingGrad, {&B::runEmbeddingGrad, 2, 1}},
      {OpId::TrainGather, {&B::runGather, 2, 1}},
      {OpId::TrainGatherGrad, {&B::runGatherGrad, 2, 1}},
      {OpId::TrainConv2d, {&B::runConv, 2, 1}},
      {OpId::TrainConv2dBackwardData, {&B::runConv, 2, 1}},
      {OpId::TrainConv2dBackwardFilter, {&B::runConv, 2, 1}},
      {OpId::TrainMaxPool2d, {&B::runPool, 1, 1}},
      {OpId::TrainAvgPool2d, {&B::runPool, 1, 1}},
      {OpId::TrainMaxPool2dGrad, {&B::runPoolGrad, 2, 1}},
      {OpId::TrainAvgPool2dGrad, {&B::runPoolGrad, 1, 1}},
      {OpId::TrainGlobalAvgPool2d, {&B::runGlobalPool, 1, 1}},
      {OpId::TrainAdaptiveAvgPool2d, {&B::runAdaptivePool, 1, 1}},
      {OpId::TrainAdaptiveAvgPool2dGrad, {&B::runAdaptivePool, 1, 1}},
      {OpId::TrainGlobalAvgPool2dGrad, {&B::runGlobalPool, 1, 1}},
      {OpId::TrainLrSchedule, {&B::runLrSchedule, 1, 1}},
      {OpId::TrainClipGradNorm, {&B::runClipGradNorm, 1, 2}},
      {OpId::TrainClipGradValue, {&B::runClipGradValue, 1, 1}},
      {OpId::TrainDropout, {&B::runDropout, 3, 1}},
      {OpId::TrainDropoutGrad, {&B::runDropout, 3, 1}},
      {OpId::TrainPad, {&B::runPad, 1, 1}},
      {OpId::TrainOneHot, {&B::runOneHot, 1, 1}},
      {OpId::TrainMseLoss, {&B::runPointwiseLoss, 2, 1}},
      {OpId::TrainBceWithLogitsLoss, {&B::runPointwiseLoss, 2, 1}},
      {OpId::TrainHuberLoss, {&B::runPointwiseLoss, 2, 1}},
      {OpId::TrainMseLossGrad, {&B::runPointwiseLossGrad, 3, 1}},
      {OpId::TrainBceWithLogitsLossGrad, {&B::runPointwiseLossGrad, 3, 1}},
      {OpId::TrainHuberLossGrad, {&B::runPointwiseLossGrad, 3, 1}},
      {OpId::TrainLstmCell, {&B::runLstmCell, 2, 2}},
      {OpId::TrainLstmCellGrad, {&B::runLstmCellGrad, 5, 2}},
      {OpId::TrainGruCell, {&B::runGruCell, 3, 1}},
      {OpId::TrainGruCellGrad, {&B::runGruCellGrad, 4, 3}},
  };
  static const OpMap<OpEntry> byId = [] {
    OpMap<OpEntry> table;
    for (const auto &[op, entry] : entries)
      table.set(op, &entry);
    return table;
  }();
  return byId.find(id);
}

//===----------------------------------------------------------------------===//
// Creation, description, memory
//===----------------------------------------------------------------------===//

StatusOr<std::unique_ptr<Backend>>
CudaBackend::create(const CudaBackendOptions &options) {
  MP_RETURN_IF_ERROR(cudaBackendStatus());
  std::unique_ptr<CudaBackend> backend(new CudaBackend());
  backend->options_ = options;
  if (backend->options_.device < 0)
    backend->options_.device = cudaDefaultDevice();
  const int device = backend->options_.device;
  backend->reference_ = createReferenceBackend();
  MP_RETURN_IF_ERROR(
      cudaStatus(cudaSetDevice(device),
                 "selecting CUDA device " + std::to_string(device)));
  cudaDeviceProp properties{};
  MP_RETURN_IF_ERROR(cudaStatus(cudaGetDeviceProperties(&properties, device),
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

Status CudaBackend::fillZero(void *device, size_t bytes) {
  return cudaStatus(cudaMemsetAsync(device, 0, bytes, stream_),
                    "clearing device memory");
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
  case kStepNegative:
    return invalidArgument(where + ": got the step count " +
                           std::to_string(e.value) + "; it must be >= 0");
  default:
    return internalError(where + ": unknown device error code " +
                         std::to_string(e.code));
  }
}

StatusOr<std::unique_ptr<Communicator>>
CudaBackend::deviceCommunicator(Communicator &host) {
#ifdef MP_HAVE_NCCL
  return createNcclCommunicator(host, stream_, options_.device);
#else
  std::string why;
  ncclAvailable(&why);
  return unimplemented("data-parallel training on the cuda backend: " + why);
#endif
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

Status CudaBackend::supports(const KernelDesc &kernel, const Plan &plan) const {
  MP_RETURN_IF_ERROR(reference_->supports(kernel, plan));
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
         kernel.opId() == OpId::TrainReduceMax ||
         kernel.opId() == OpId::TrainLogsumexp ||
         kernel.opId() == OpId::TrainArgmax ||
         kernel.opId() == OpId::TrainPad))
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
  return Status::ok();
}

Status CudaBackend::prepare(const KernelDesc &kernel, const Plan &plan) {
  MP_RETURN_IF_ERROR(supports(kernel, plan));
  auto shapeOf = [&](uint32_t id) -> const std::vector<int64_t> & {
    return plan.tensors[id].shape;
  };
  // A 16-bit epilogue result: the product is first stored in f32.
  if (kernel.opId() == OpId::MpMatmulEpilogue &&
      plan.tensors[kernel.outputs[0]].dtype != DType::F32)
    workspaceNeeded_ = std::max<uint64_t>(
        workspaceNeeded_,
        sizeof(float) *
            std::max<int64_t>(plan.tensors[kernel.outputs[0]].numElements(),
                              1));
  // The cross-entropy's per-row terms and counts; its gradient's count.
  if (kernel.opId() == OpId::TrainSparseCrossEntropy)
    workspaceNeeded_ = std::max<uint64_t>(
        workspaceNeeded_,
        2 * sizeof(float) * std::max<int64_t>(shapeOf(kernel.inputs[0])[0], 1));
  if (kernel.opId() == OpId::TrainSparseCrossEntropyGrad)
    workspaceNeeded_ = std::max<uint64_t>(workspaceNeeded_, sizeof(float));
  if (kernel.opId() == OpId::TrainClipGradNorm)
    workspaceNeeded_ =
        std::max<uint64_t>(workspaceNeeded_, clipNormWorkspace(kernel, plan));
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


} // namespace mp::rt::cudabackend

using mp::rt::cudabackend::CudaBackend;


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

int mp::rt::cudaDefaultDevice() {
  auto number = [](const char *name) -> int {
    const char *value = std::getenv(name);
    if (!value || !*value)
      return -1;
    char *end = nullptr;
    long parsed = std::strtol(value, &end, 10);
    return *end == '\0' && parsed >= 0 && parsed < 1 << 20
               ? static_cast<int>(parsed)
               : -1;
  };
  if (int named = number("MP_CUDA_DEVICE"); named >= 0)
    return named;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
    cudaGetLastError();
    return 0;
  }
  for (const char *name :
       {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (int local = number(name); local >= 0)
      return local % count;
  return 0;
}

bool mp::rt::ncclAvailable(std::string *why) {
#ifdef MP_HAVE_NCCL
  Status loadable = ncclLoadable();
  if (why && !loadable.isOk())
    *why = loadable.message();
  return loadable.isOk();
#else
  if (why)
    *why = "this build of mp has no NCCL (nccl.h was not found beside the "
           "CUDA toolkit when it was configured: docs/distributed.md)";
  return false;
#endif
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

