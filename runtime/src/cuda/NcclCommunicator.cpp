//===- NcclCommunicator.cpp - the ranks over NCCL, on device memory -------===//
//
// The collectives of a data-parallel step on the cuda backend
// (docs/distributed.md, "NCCL"). Each runs on this communicator's own
// stream: an event recorded on the backend's stream when it starts orders
// it after the kernels that wrote its operands (the gradients), and wait()
// orders the backend's later kernels after it with another event, without
// blocking the host, as PyTorch's DDP does with its NCCL stream. The host
// blocks only in settle(), before it reads the step's results, and there
// with a deadline: the communicator is created non-blocking (NCCL's
// config.blocking = 0), so that no NCCL call waits for a dead rank without
// one either; a collective past its deadline aborts the communicator
// (ncclCommAbort ends its kernels) and the error names the ranks that did
// not reach it, asked over the host communicator.
//
//===----------------------------------------------------------------------===//
#ifdef MP_HAVE_NCCL

#include "cuda/NcclCommunicator.h"
#include "cuda/Launch.h"
#include "cuda/SharedLibrary.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <thread>
#include <vector>

using namespace mp::rt;

namespace {

using Clock = std::chrono::steady_clock;

/// NCCL, opened on first use (cuda/SharedLibrary.h: libnccl is over 200
/// MB). The soname of the header's major version; the build's NCCL folder
/// first (MP_NCCL_DIR).
struct NcclApi {
#define MP_NCCL_FUNCTIONS(X)                                                   \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRankConfig)                                                    \
  X(ncclCommGetAsyncError)                                                     \
  X(ncclCommAbort)                                                             \
  X(ncclCommFinalize)                                                          \
  X(ncclCommDestroy)                                                           \
  X(ncclGetErrorString)                                                        \
  X(ncclGetLastError)                                                          \
  X(ncclAllReduce)                                                             \
  X(ncclBroadcast)                                                             \
  X(ncclReduceScatter)                                                         \
  X(ncclAllGather)
#define MP_NCCL_POINTER(name) decltype(&::name) name = nullptr;
  MP_NCCL_FUNCTIONS(MP_NCCL_POINTER)
#undef MP_NCCL_POINTER
  std::string error; ///< why it could not be loaded; "" when it was
};

const NcclApi &nccl() {
  static const NcclApi api = [] {
    NcclApi api;
    std::string soname = "libnccl.so." + std::to_string(NCCL_MAJOR);
#ifdef MP_NCCL_DIR
    const char *folder = MP_NCCL_DIR;
#else
    const char *folder = nullptr;
#endif
    void *handle = cuda::openSharedLibrary(soname, folder, api.error);
    if (!handle)
      return api;
#define MP_NCCL_RESOLVE(name)                                                  \
  if (api.error.empty())                                                       \
    cuda::resolveFunction(handle, soname, #name, api.name, api.error);
    MP_NCCL_FUNCTIONS(MP_NCCL_RESOLVE)
#undef MP_NCCL_RESOLVE
    return api;
  }();
  return api;
}

/// ncclAvg on floats multiplies each rank's value by 1 / N before the sum
/// (docs/distributed.md: the numerics of the mean).
ncclRedOp_t redOpOf(ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return ncclMax;
  case ReduceOp::Min:
    return ncclMin;
  case ReduceOp::Mean:
    return ncclAvg;
  default:
    return ncclSum;
  }
}

std::string ncclText(ncclResult_t result) {
  return nccl().ncclGetErrorString(result);
}

std::string cudaText(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" +
         cudaGetErrorString(error) + ")";
}

std::string secondsText(std::chrono::milliseconds timeout) {
  char text[32];
  std::snprintf(text, sizeof text, "%g",
                static_cast<double>(timeout.count()) / 1000.0);
  return text;
}

class Nccl final : public Communicator {
public:
  Nccl(Communicator &host, cudaStream_t compute)
      : host_(host), compute_(compute) {}
  ~Nccl() override;

  /// The communicator itself, its stream and events (after the id).
  Status initialize(const ncclUniqueId &id, int device);

  const char *name() const override { return "nccl"; }
  int rank() const override { return host_.rank(); }
  int size() const override { return host_.size(); }
  bool onDevice() const override { return true; }

  StatusOr<Request> startAllReduce(void *data, size_t count, DType dtype,
                                   ReduceOp op) override {
    MP_RETURN_IF_ERROR(checkReduction(dtype, op));
    ncclDataType_t type = dtype == DType::F32    ? ncclFloat32
                          : dtype == DType::BF16 ? ncclBfloat16
                          : dtype == DType::I64  ? ncclInt64
                                                 : ncclUint8; // i1
    ncclRedOp_t redOp = redOpOf(op);
    std::string what =
        "ncclAllReduce of " + std::to_string(count) + " " + dtypeName(dtype);
    return launch(what, [&] {
      return nccl().ncclAllReduce(data, data, count, type, redOp, comm_,
                                  stream_);
    });
  }

  StatusOr<Request> startAllReduceBf16(float *data, size_t count,
                                       float prescale) override {
    MP_RETURN_IF_ERROR(usable());
    if (count == 0)
      return launch("an empty bf16 all-reduce", [] { return ncclSuccess; });
    // The prescales on the device: 1 (a sum) and 1 / ranks (a mean).
    if (prescale != 1.0f && prescale != 1.0f / static_cast<float>(size()))
      return unimplemented("a bf16 all-reduce prescaled by other than 1 or "
                           "1 / ranks");
    float *factor = prescale == 1.0f ? one_ : inverseSize_;
    // The bf16 copy lives on this stream for the collective only.
    void *packed = nullptr;
    cudaError_t error = cudaMallocAsync(&packed, count * 2, stream_);
    if (error != cudaSuccess)
      return internalError(
          "allocating " + std::to_string(count * 2) +
          " bytes of device memory for a bf16 all-reduce: " + cudaText(error));
    cuda::Context context{stream_, nullptr, 0};
    bool freed = false; // by `after`, once the widening is queued
    auto n = static_cast<int64_t>(count);
    std::string what =
        "ncclAllReduce of " + std::to_string(count) + " f32 values as bf16";
    StatusOr<Request> started = launch(
        what,
        [&] {
          return nccl().ncclAllReduce(packed, packed, count, ncclBfloat16,
                                      ncclSum, comm_, stream_);
        },
        // Before: each value scaled and rounded to bf16 once.
        [&] {
          return static_cast<cudaError_t>(
              cuda::scale(context, {data, 0}, factor, {packed, 1}, n));
        },
        // After: the sums widened back.
        [&] {
          cudaError_t widened = static_cast<cudaError_t>(
              cuda::cast(context, {packed, 1}, {data, 0}, n));
          cudaError_t released = cudaFreeAsync(packed, stream_);
          freed = true;
          return widened != cudaSuccess ? widened : released;
        });
    if (!started.isOk() && !freed)
      cudaFreeAsync(packed, stream_);
    return started;
  }

  StatusOr<Request> startBroadcast(void *data, size_t bytes,
                                   int root) override {
    if (root < 0 || root >= size())
      return invalidArgument("a broadcast from rank " + std::to_string(root) +
                             " of " + std::to_string(size()));
    return launch("ncclBroadcast of " + std::to_string(bytes) + " bytes", [&] {
      return nccl().ncclBroadcast(data, data, bytes, ncclUint8, root, comm_,
                                  stream_);
    });
  }

  StatusOr<Request> startReduceScatter(const float *send, float *recv,
                                       size_t perRank, ReduceOp op) override {
    if (op != ReduceOp::Sum && op != ReduceOp::Mean)
      return unimplemented("a reduce-scatter other than a sum or a mean");
    return launch(
        "ncclReduceScatter of " + std::to_string(perRank) + " floats per rank",
        [&] {
          return nccl().ncclReduceScatter(send, recv, perRank, ncclFloat32,
                                          redOpOf(op), comm_, stream_);
        });
  }

  StatusOr<Request> startAllGather(const void *send, void *recv,
                                   size_t bytesPerRank) override {
    return launch("ncclAllGather of " + std::to_string(bytesPerRank) +
                      " bytes per rank",
                  [&] {
                    return nccl().ncclAllGather(send, recv, bytesPerRank,
                                                ncclUint8, comm_, stream_);
                  });
  }

  /// NCCL's kernels advance on the device by themselves.
  void progress() override {}

  Status wait(Request id) override {
    if (id < settledBelow_)
      return Status::ok(); // settle() saw it complete
    for (Pending &pending : pending_)
      if (pending.id == id) {
        MP_RETURN_IF_ERROR(asyncError(pending.what));
        if (!pending.ordered) {
          cudaError_t error = cudaStreamWaitEvent(compute_, pending.done, 0);
          if (error != cudaSuccess)
            return internalError("ordering the step after " + pending.what +
                                 ": " + cudaText(error));
          pending.ordered = true;
        }
        return Status::ok();
      }
    return internalError("waiting for an unknown collective #" +
                         std::to_string(id));
  }

  Status settle() override {
    Status first = Status::ok();
    while (!pending_.empty()) {
      Pending &pending = pending_.front();
      Status done = waitOnHost(pending);
      if (first.isOk() && !done.isOk())
        first = done;
      events_.push_back(pending.done);
      pending_.pop_front();
    }
    settledBelow_ = next_;
    return first;
  }

  std::string missingRanks(uint64_t sequence) override {
    return host_.missingRanks(sequence);
  }

  Status agree(uint64_t value, const std::string &what) override {
    return host_.agree(value, what);
  }

private:
  struct Pending {
    Request id;
    cudaEvent_t done;
    Clock::time_point started;
    std::string what;
    bool ordered = false; ///< compute_ waits for it already
  };

  /// Ok while the communicator can start collectives.
  Status usable() const {
    if (aborted_.empty())
      return Status::ok();
    return internalError("the NCCL communicator of rank " +
                         std::to_string(rank()) + " was aborted: " + aborted_);
  }

  /// An error the communicator met on its own (a peer's connection lost),
  /// as NCCL reports it asynchronously; Ok otherwise.
  Status asyncError(const std::string &what) {
    if (!comm_)
      return usable();
    ncclResult_t state = ncclSuccess;
    ncclResult_t asked = nccl().ncclCommGetAsyncError(comm_, &state);
    if (asked != ncclSuccess)
      state = asked;
    if (state == ncclSuccess || state == ncclInProgress)
      return Status::ok();
    std::string message = what + " on rank " + std::to_string(rank()) + " of " +
                          std::to_string(size()) + ": " + ncclText(state) +
                          " (" + nccl().ncclGetLastError(comm_) + ")";
    abort(message);
    return internalError(message);
  }

  /// Blocks until the communicator leaves ncclInProgress (a non-blocking
  /// call finishing), at most timeout(); an error naming `what` otherwise.
  Status finishCall(ncclResult_t result, const std::string &what,
                    uint64_t sequence) {
    auto deadline = Clock::now() + timeout();
    auto pause = std::chrono::microseconds(1);
    while (result == ncclInProgress) {
      if (Clock::now() > deadline) {
        std::string message =
            "rank " + std::to_string(rank()) + " of " + std::to_string(size()) +
            ": " + what + " did not finish within " + secondsText(timeout()) +
            " s (MP_COLLECTIVE_TIMEOUT): " + host_.missingRanks(sequence);
        abort(message);
        return internalError(message);
      }
      std::this_thread::sleep_for(pause);
      if (pause < std::chrono::microseconds(500))
        pause *= 2;
      ncclResult_t asked = nccl().ncclCommGetAsyncError(comm_, &result);
      if (asked != ncclSuccess)
        result = asked;
    }
    if (result == ncclSuccess)
      return Status::ok();
    std::string message = what + " on rank " + std::to_string(rank()) + ": " +
                          ncclText(result) + " (" +
                          nccl().ncclGetLastError(comm_) + ")";
    abort(message);
    return internalError(message);
  }

  /// Starts one collective on stream_ after the work queued on compute_:
  /// `before` and `after` queue device work around it on stream_.
  template <typename Call, typename Before = cudaError_t (*)(),
            typename After = cudaError_t (*)()>
  StatusOr<Request> launch(
      const std::string &what, Call call,
      Before before = [] { return cudaSuccess; },
      After after = [] { return cudaSuccess; }) {
    MP_RETURN_IF_ERROR(usable());
    MP_RETURN_IF_ERROR(asyncError(what));
    cudaError_t error = cudaEventRecord(ready_, compute_);
    if (error == cudaSuccess)
      error = cudaStreamWaitEvent(stream_, ready_, 0);
    if (error == cudaSuccess)
      error = before();
    if (error != cudaSuccess)
      return internalError("queueing " + what + ": " + cudaText(error));
    Request id = next_++;
    MP_RETURN_IF_ERROR(finishCall(call(), what, id));
    error = after();
    cudaEvent_t done = nullptr;
    if (error == cudaSuccess) {
      if (events_.empty()) {
        error = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
      } else {
        done = events_.back();
        events_.pop_back();
      }
    }
    if (error == cudaSuccess)
      error = cudaEventRecord(done, stream_);
    if (error != cudaSuccess) {
      if (done)
        events_.push_back(done);
      return internalError("queueing after " + what + ": " + cudaText(error));
    }
    pending_.push_back({id, done, Clock::now(), what});
    return id;
  }

  /// Blocks until `pending` completed on the device, at most timeout()
  /// after it started.
  Status waitOnHost(const Pending &pending) {
    auto deadline = pending.started + timeout();
    auto pause = std::chrono::microseconds(1);
    while (true) {
      cudaError_t state = cudaEventQuery(pending.done);
      if (state == cudaSuccess)
        return Status::ok();
      if (state != cudaErrorNotReady)
        return internalError(pending.what + " on rank " +
                             std::to_string(rank()) + ": " + cudaText(state));
      MP_RETURN_IF_ERROR(asyncError(pending.what));
      if (Clock::now() > deadline) {
        std::string message =
            "rank " + std::to_string(rank()) + " of " + std::to_string(size()) +
            ": " + pending.what + " did not complete within " +
            secondsText(timeout()) +
            " s (MP_COLLECTIVE_TIMEOUT): " + host_.missingRanks(pending.id);
        abort(message);
        // The aborted communicator's kernels end, and the event completes
        // (waited for a while at most: the error stands either way).
        auto grace = Clock::now() + std::chrono::seconds(10);
        while (cudaEventQuery(pending.done) == cudaErrorNotReady &&
               Clock::now() < grace)
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return internalError(message);
      }
      std::this_thread::sleep_for(pause);
      if (pause < std::chrono::microseconds(500))
        pause *= 2;
    }
  }

  void abort(const std::string &why) {
    if (!aborted_.empty() || !comm_)
      return;
    aborted_ = why;
    nccl().ncclCommAbort(comm_);
    comm_ = nullptr;
  }

  Communicator &host_;
  cudaStream_t compute_;
  cudaStream_t stream_ = nullptr;
  ncclComm_t comm_ = nullptr;
  cudaEvent_t ready_ = nullptr;
  /// 1 and 1 / size(): the bf16 all-reduce's prescales, on the device.
  float *one_ = nullptr, *inverseSize_ = nullptr;
  Request next_ = 1;
  /// Every collective below this number completed (settle()).
  Request settledBelow_ = 1;
  std::deque<Pending> pending_;     ///< in the order they started
  std::vector<cudaEvent_t> events_; ///< free ones
  std::string aborted_;             ///< why, once aborted
};

Status Nccl::initialize(const ncclUniqueId &id, int device) {
  cudaError_t error = cudaSetDevice(device);
  if (error == cudaSuccess)
    error = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  if (error == cudaSuccess)
    error = cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming);
  if (error == cudaSuccess)
    error = cudaMalloc(reinterpret_cast<void **>(&one_), 2 * sizeof(float));
  if (error == cudaSuccess) {
    inverseSize_ = one_ + 1;
    float factors[2] = {1.0f, 1.0f / static_cast<float>(size())};
    error = cudaMemcpy(one_, factors, sizeof factors, cudaMemcpyHostToDevice);
  }
  if (error != cudaSuccess)
    return internalError("setting up NCCL on CUDA device " +
                         std::to_string(device) + ": " + cudaText(error));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0; // every call returns; finishCall() waits, bounded
  ncclResult_t result =
      nccl().ncclCommInitRankConfig(&comm_, size(), id, rank(), &config);
  Status made =
      finishCall(result,
                 "creating the NCCL communicator (rank " +
                     std::to_string(rank()) + " of " + std::to_string(size()) +
                     ", CUDA device " + std::to_string(device) + ")",
                 0);
  if (!made.isOk() && made.message().find("nvalid usage") != std::string::npos)
    return Status(made.code(),
                  made.message() +
                      "; each rank needs a GPU of its own: the local rank "
                      "picks it, or MP_CUDA_DEVICE");
  return made;
}

Nccl::~Nccl() {
  if (comm_ && aborted_.empty()) {
    if (settle().isOk()) {
      // Finalize flushes; it may return ncclInProgress (non-blocking).
      Status finished = finishCall(nccl().ncclCommFinalize(comm_),
                                   "finalizing the NCCL communicator", next_);
      if (finished.isOk()) {
        nccl().ncclCommDestroy(comm_);
        comm_ = nullptr;
      }
    }
  }
  if (comm_)
    nccl().ncclCommAbort(comm_);
  for (Pending &pending : pending_)
    events_.push_back(pending.done);
  for (cudaEvent_t event : events_)
    cudaEventDestroy(event);
  if (ready_)
    cudaEventDestroy(ready_);
  if (one_)
    cudaFree(one_);
  if (stream_)
    cudaStreamDestroy(stream_);
}

} // namespace

Status mp::rt::cuda::ncclLoadable() {
  if (nccl().error.empty())
    return Status::ok();
  return unimplemented(nccl().error);
}

StatusOr<std::unique_ptr<Communicator>>
mp::rt::cuda::createNcclCommunicator(Communicator &host, cudaStream_t compute,
                                     int device) {
  if (!nccl().error.empty())
    return unimplemented("data-parallel training on the cuda backend needs "
                         "NCCL: " +
                         nccl().error);
  if (host.onDevice())
    return invalidArgument("NCCL is set up over a host communicator, not " +
                           std::string(host.name()));
  // Rank 0's unique id, and whether it could make one, to every rank.
  struct {
    int32_t made;
    ncclUniqueId id;
  } message;
  std::memset(&message, 0, sizeof message);
  ncclResult_t madeId = ncclSuccess;
  if (host.rank() == 0) {
    madeId = nccl().ncclGetUniqueId(&message.id);
    message.made = madeId == ncclSuccess;
  }
  StatusOr<Communicator::Request> sent =
      host.startBroadcast(&message, sizeof message, 0);
  if (!sent.isOk())
    return sent.status();
  MP_RETURN_IF_ERROR(host.wait(*sent));
  if (!message.made)
    return internalError(
        "rank 0 could not make the NCCL communicator's id" +
        (host.rank() == 0 ? ": " + ncclText(madeId) : std::string()));
  auto nccl = std::make_unique<Nccl>(host, compute);
  nccl->setTimeout(host.timeout());
  MP_RETURN_IF_ERROR(nccl->initialize(message.id, device));
  return std::unique_ptr<Communicator>(std::move(nccl));
}

#endif // MP_HAVE_NCCL
