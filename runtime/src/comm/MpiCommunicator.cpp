//===- MpiCommunicator.cpp - The ranks over MPI ---------------------------===//
//
// The communicator of processes started by mpirun (docs/distributed.md):
// non-blocking MPI_Iallreduce / MPI_Ibcast on a duplicate of
// MPI_COMM_WORLD, advanced by MPI_Test between kernels and waited for with
// a deadline. Built
// where CMake finds MPI (MP_HAVE_MPI); without it, the functions say so.
//
//===----------------------------------------------------------------------===//

#include "mp/runtime/Communicator.h"
#include "mp/runtime/Tensor.h"

#include <cstdlib>

#ifdef MP_HAVE_MPI
// MPI's C interface only (OpenMPI's and MPICH's mpi.h add the deprecated
// C++ bindings, with a library of their own, to a C++ file).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#endif

using namespace mp::rt;

#ifndef MP_HAVE_MPI

void mp::rt::abortRanks(int code) { std::exit(code); }

bool mp::rt::mpiAvailable(std::string *why) {
  if (why)
    *why = "this build of mp has no MPI (install OpenMPI's development "
           "files, libopenmpi-dev, and configure again: scripts/setup.sh)";
  return false;
}

StatusOr<std::unique_ptr<Communicator>> mp::rt::mpiCommunicator() {
  std::string why;
  mpiAvailable(&why);
  return unimplemented("data-parallel training is unavailable: " + why);
}

#else

bool mp::rt::mpiAvailable(std::string *) { return true; }

void mp::rt::abortRanks(int code) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

namespace {

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, length);
}

/// Reductions whose wait timed out and that have not completed since: a
/// rank died or hangs. MPI_Finalize would wait for it forever, so the
/// process ends the job instead (MPI_Abort: mpirun ends every rank).
std::atomic<int> unfinished{0};

/// MPI_Init_thread once per process; at exit MPI_Finalize, or MPI_Abort
/// where a reduction never completed.
Status initializeMpi() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (initialized)
      return;
    int provided = 0;
    int code =
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    if (code != MPI_SUCCESS) {
      status = internalError("MPI_Init_thread: " + mpiError(code));
      return;
    }
    // Errors come back as codes (and become Status), not as aborts.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    std::atexit([] {
      if (unfinished.load() > 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized)
        MPI_Finalize();
    });
  });
  return status;
}

/// MPI's user function of the bf16 sum: each pair added in f32 and the
/// sum rounded to bf16 (to nearest even), as NCCL's bf16 sum does.
void sumBf16(void *in, void *inout, int *length, MPI_Datatype *) {
  const auto *a = static_cast<const uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  constexpr int kChunk = 1024;
  float x[kChunk], y[kChunk];
  for (int done = 0; done < *length; done += kChunk) {
    int n = std::min(kChunk, *length - done);
    toFloats(DType::BF16, a + done, x, n);
    toFloats(DType::BF16, b + done, y, n);
    for (int i = 0; i < n; ++i)
      y[i] += x[i];
    fromFloats(y, DType::BF16, b + done, n);
  }
}

/// The bf16 sum as an MPI_Op (commutative), made once after MPI_Init.
MPI_Op bf16SumOp() {
  static MPI_Op op = [] {
    MPI_Op made;
    MPI_Op_create(&sumBf16, /*commute=*/1, &made);
    return made;
  }();
  return op;
}

class Mpi final : public Communicator {
public:
  explicit Mpi(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~Mpi() override {
    // Requests left (a step that failed between start and wait) finish
    // before their buffers go, within the deadline. One that timed out
    // (now or before) is left to the exit, which then ends the job: the
    // communicator is not freed under it.
    if (!timedOut_.empty())
      return;
    std::vector<Request> left;
    for (auto &[id, request] : pending_)
      left.push_back(id);
    for (Request id : left)
      if (!wait(id).isOk() && !timedOut_.empty())
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Comm_free(&comm_);
  }

  const char *name() const override { return "mpi"; }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  StatusOr<Request> startAllReduce(void *data, size_t count, DType dtype,
                                   ReduceOp op) override {
    MP_RETURN_IF_ERROR(checkReduction(dtype, op));
    MPI_Datatype type = dtype == DType::F32   ? MPI_FLOAT
                        : dtype == DType::I64 ? MPI_INT64_T
                        : dtype == DType::I1  ? MPI_UINT8_T
                                              : MPI_UINT16_T; // bf16 bits
    MP_RETURN_IF_ERROR(checkCount(count, "an all-reduce of", "elements"));
    MPI_Op mpiOp = dtype == DType::BF16  ? bf16SumOp()
                   : op == ReduceOp::Max ? MPI_MAX
                   : op == ReduceOp::Min ? MPI_MIN
                                         : MPI_SUM;
    MPI_Request request;
    int code = MPI_Iallreduce(MPI_IN_PLACE, data, static_cast<int>(count), type,
                              mpiOp, comm_, &request);
    StatusOr<Request> id = track(code, request,
                                 "MPI_Iallreduce of " + std::to_string(count) +
                                     " " + dtypeName(dtype));
    // A mean: the sums divided by the ranks when wait() sees them.
    if (id.isOk() && op == ReduceOp::Mean)
      pending_[*id].mean = {static_cast<float *>(data), count};
    return id;
  }

  StatusOr<Request> startBroadcast(void *data, size_t bytes,
                                   int root) override {
    if (root < 0 || root >= size_)
      return invalidArgument("a broadcast from rank " + std::to_string(root) +
                             " of " + std::to_string(size_));
    MP_RETURN_IF_ERROR(checkCount(bytes, "a broadcast of", "bytes"));
    MPI_Request request;
    int code = MPI_Ibcast(data, static_cast<int>(bytes), MPI_BYTE, root, comm_,
                          &request);
    return track(code, request,
                 "MPI_Ibcast of " + std::to_string(bytes) + " bytes");
  }

  StatusOr<Request> startReduceScatter(const float *send, float *recv,
                                       size_t perRank, ReduceOp op) override {
    if (op != ReduceOp::Sum && op != ReduceOp::Mean)
      return unimplemented("a reduce-scatter other than a sum or a mean");
    MP_RETURN_IF_ERROR(
        checkCount(perRank, "a reduce-scatter of", "floats per rank"));
    MPI_Request request;
    int code = MPI_Ireduce_scatter_block(send, recv, static_cast<int>(perRank),
                                         MPI_FLOAT, MPI_SUM, comm_, &request);
    StatusOr<Request> id = track(code, request,
                                 "MPI_Ireduce_scatter_block of " +
                                     std::to_string(perRank) + " floats");
    if (id.isOk() && op == ReduceOp::Mean)
      pending_[*id].mean = {recv, perRank};
    return id;
  }

  StatusOr<Request> startAllGather(const void *send, void *recv,
                                   size_t bytesPerRank) override {
    MP_RETURN_IF_ERROR(
        checkCount(bytesPerRank, "an all-gather of", "bytes per rank"));
    MPI_Request request;
    int count = static_cast<int>(bytesPerRank);
    int code = MPI_Iallgather(send, count, MPI_BYTE, recv, count, MPI_BYTE,
                              comm_, &request);
    return track(code, request,
                 "MPI_Iallgather of " + std::to_string(bytesPerRank) +
                     " bytes");
  }

  void progress() override {
    for (auto &[id, pending] : pending_) {
      int done = 0;
      MPI_Test(&pending.request, &done, MPI_STATUS_IGNORE);
    }
  }

  Status wait(Request id) override {
    auto found = pending_.find(id);
    if (found == pending_.end())
      return internalError("waiting for an unknown collective #" +
                           std::to_string(id));
    MPI_Request &request = found->second.request;
    auto deadline = std::chrono::steady_clock::now() + timeout();
    auto pause = std::chrono::microseconds(1);
    while (true) {
      int done = 0;
      int code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (code != MPI_SUCCESS) {
        pending_.erase(found);
        return internalError("a collective on rank " + std::to_string(rank_) +
                             " failed: " + mpiError(code));
      }
      if (done)
        break;
      if (std::chrono::steady_clock::now() > deadline) {
        if (timedOut_.insert(id).second)
          ++unfinished;
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g",
                      static_cast<double>(timeout().count()) / 1000.0);
        return internalError(
            "rank " + std::to_string(rank_) + " of " + std::to_string(size_) +
            ": a collective did not complete within " + seconds +
            " s (MP_COLLECTIVE_TIMEOUT): " + missingRanks(id));
      }
      std::this_thread::sleep_for(pause);
      if (pause < std::chrono::microseconds(500))
        pause *= 2;
    }
    if (auto [data, count] = found->second.mean; data) {
      float scale = 1.0f / static_cast<float>(size_);
      for (size_t e = 0; e < count; ++e)
        data[e] *= scale;
    }
    pending_.erase(found);
    if (timedOut_.erase(id))
      --unfinished;
    return Status::ok();
  }

  Status agree(uint64_t value, const std::string &what) override {
    std::vector<uint64_t> all(size_);
    int code = MPI_Allgather(&value, 1, MPI_UINT64_T, all.data(), 1,
                             MPI_UINT64_T, comm_);
    if (code != MPI_SUCCESS)
      return internalError("comparing " + what +
                           " across ranks: " + mpiError(code));
    for (int r = 0; r < size_; ++r)
      if (all[r] != all[0])
        return invalidArgument("rank " + std::to_string(r) + " has another " +
                               what + " (" + std::to_string(all[r]) +
                               ") than rank 0 (" + std::to_string(all[0]) +
                               "): every rank must run the same");
    return Status::ok();
  }

private:
  /// `count` fits MPI's int counts; else Unimplemented, naming `what`.
  static Status checkCount(size_t count, const char *what, const char *unit) {
    if (count <= static_cast<size_t>(INT32_MAX))
      return Status::ok();
    return unimplemented(std::string(what) + " " + std::to_string(count) + " " +
                         unit + " (MPI counts are int)");
  }

  /// A collective MPI started (`code`), tracked until wait(); an error
  /// naming `what` and this rank when it did not start.
  StatusOr<Request> track(int code, MPI_Request request,
                          const std::string &what) {
    if (code != MPI_SUCCESS)
      return internalError(what + " on rank " + std::to_string(rank_) + ": " +
                           mpiError(code));
    Request id = next_++;
    pending_[id].request = request;
    return id;
  }

public:
  /// After the wait for collective `id` timed out: which ranks are not
  /// waiting for it too. Every rank whose wait times out tells every other
  /// one which collective it waits for (its id: the ranks start the same
  /// collectives in the same order, so the ids agree) on a tag of its own,
  /// and listens for the others' for a grace period (a tenth of the
  /// timeout, at least 1 s: their deadlines differ by how far apart they
  /// reached it); the ranks not heard from for `id` or a later collective
  /// died or hang. Messages of an earlier timeout the job survived carry
  /// an earlier id and are ignored.
  std::string missingRanks(uint64_t id) override {
    constexpr int kTimedOutTag = 0x6d70;
    // The payload outlives the sends, which may never be received.
    timedOutIds_.push_back(std::make_unique<uint64_t>(id));
    const uint64_t *payload = timedOutIds_.back().get();
    std::vector<MPI_Request> sent(size_, MPI_REQUEST_NULL);
    for (int r = 0; r < size_; ++r)
      if (r != rank_)
        MPI_Issend(payload, 1, MPI_UINT64_T, r, kTimedOutTag, comm_, &sent[r]);
    std::vector<bool> heard(size_, false);
    heard[rank_] = true;
    auto grace = std::max<std::chrono::milliseconds>(
        std::chrono::milliseconds(1000), timeout() / 10);
    auto until = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < until &&
           std::count(heard.begin(), heard.end(), false) > 0) {
      int arrived = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kTimedOutTag, comm_, &arrived, &status);
      if (arrived) {
        uint64_t waitsFor = 0;
        MPI_Recv(&waitsFor, 1, MPI_UINT64_T, status.MPI_SOURCE, kTimedOutTag,
                 comm_, MPI_STATUS_IGNORE);
        // A rank waiting for this collective or a later one reached it
        // (it may complete on some ranks before others); one waiting for
        // an earlier one did not.
        if (waitsFor >= id)
          heard[status.MPI_SOURCE] = true;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    // Messages to ranks that never listen stay unmatched: the job ends.
    for (MPI_Request &request : sent)
      if (request != MPI_REQUEST_NULL)
        MPI_Request_free(&request);
    std::string missing;
    int count = 0;
    for (int r = 0; r < size_; ++r)
      if (!heard[r]) {
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        ++count;
      }
    if (missing.empty())
      return "every rank reached it, and it did not complete (the network "
             "between the ranks?)";
    return std::string(count == 1 ? "rank " : "ranks ") + missing +
           " did not reach it within the timeout: died or hangs";
  }

private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  Request next_ = 1;
  struct Pending {
    MPI_Request request = MPI_REQUEST_NULL;
    /// A mean's values, divided by the ranks once the sum arrived.
    std::pair<float *, size_t> mean{nullptr, 0};
  };
  std::unordered_map<Request, Pending> pending_;
  /// Requests whose wait timed out (counted in `unfinished`).
  std::unordered_set<Request> timedOut_;
  /// What missingRanks() sent, kept while the sends may be pending.
  std::vector<std::unique_ptr<uint64_t>> timedOutIds_;
};

} // namespace

StatusOr<std::unique_ptr<Communicator>> mp::rt::mpiCommunicator() {
  Status initialized = initializeMpi();
  if (!initialized.isOk())
    return initialized;
  MPI_Comm comm;
  int code = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (code != MPI_SUCCESS)
    return internalError("MPI_Comm_dup: " + mpiError(code));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  std::unique_ptr<Communicator> made = std::make_unique<Mpi>(comm);
  return made;
}

#endif // MP_HAVE_MPI
