//===- Communicator.h - The ranks of a data-parallel step -------*- C++ -*-===//
//
// What a data-parallel step needs of the engine that connects its processes
// (docs/distributed.md): in-place reductions of host memory started without
// waiting, so that they run while later kernels compute, a check that every
// rank runs the same thing, and an end of the job when one fails. The
// engines are existing ones: MPI (OpenMPI, started by mpirun) for CPU
// clusters, NCCL for the cuda backend's device memory (made by the backend
// over the MPI one: Backend::deviceCommunicator); the single-process
// communicator is the trivial case.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUNTIME_COMMUNICATOR_H
#define MP_RUNTIME_COMMUNICATOR_H

#include "mp/runtime/Plan.h"
#include "mp/runtime/Status.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace mp::rt {

/// Mean: the sum divided by size() (f32 only).
enum class ReduceOp { Sum, Max, Min, Mean };

class Communicator {
public:
  virtual ~Communicator();

  virtual const char *name() const = 0; ///< "mpi", "nccl", "single"
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// A collective in flight, finished by wait().
  using Request = uint64_t;
  /// Starts reducing `count` elements of `dtype` at `data` over every rank,
  /// in place (each rank's `data` ends as the reduction of all of them),
  /// without waiting: `data` must stay untouched until wait() returns.
  /// F32 and I64 sum, max or min; F32 mean; I1 (one byte, 0 or 1) max or
  /// min (or, and); BF16 sum (each
  /// partial sum rounded to bf16 to nearest even). The order in which
  /// the ranks' values are combined is the engine's (MPI: its algorithm
  /// for the message size), the same on every rank.
  virtual StatusOr<Request> startAllReduce(void *data, size_t count,
                                           DType dtype, ReduceOp op) = 0;
  /// Whether `dtype` and `op` are one of the reductions above: Ok, or
  /// Unimplemented naming it (every communicator checks it first).
  static Status checkReduction(DType dtype, ReduceOp op);
  /// Whether the collectives take device memory (NCCL: the cuda backend's
  /// tensors) rather than host memory. Such a communicator's collectives
  /// are ordered on the device after the work its backend queued before
  /// them, and wait() orders the backend's later work after the collective
  /// without blocking the host; settle() bounds the time.
  virtual bool onDevice() const { return false; }
  /// Starts reducing `count` f32 values at `data` in place as bf16
  /// (train.all_reduce's reduce_dtype=bf16): each value multiplied by
  /// `prescale` and rounded to bf16 (nearest even) once, the bf16 values
  /// summed over the ranks, the sums widened back into `data` by the time
  /// wait() returns. Device communicators; on host memory the session
  /// packs a bucket's values into one bf16 reduction itself.
  virtual StatusOr<Request> startAllReduceBf16(float *data, size_t count,
                                               float prescale);
  /// Starts copying `bytes` bytes at `data` from rank `root` to every
  /// other rank, in place, without waiting (MPI_Ibcast).
  virtual StatusOr<Request> startBroadcast(void *data, size_t bytes,
                                           int root) = 0;
  /// Starts a reduce-scatter of f32 values without waiting (ZeRO-1,
  /// MPI_Ireduce_scatter_block): `send` holds size() blocks of `perRank`
  /// floats, block r for rank r; `recv` (perRank floats) ends as the sum
  /// (op Sum) or the mean (op Mean) over the ranks of their block rank().
  /// Both must stay untouched until wait() returns.
  virtual StatusOr<Request> startReduceScatter(const float *send, float *recv,
                                               size_t perRank, ReduceOp op) = 0;
  /// Starts an all-gather without waiting (MPI_Iallgather): every rank's
  /// `bytesPerRank` bytes at `send` end in `recv` (size() x bytesPerRank),
  /// rank r's at r x bytesPerRank.
  virtual StatusOr<Request> startAllGather(const void *send, void *recv,
                                           size_t bytesPerRank) = 0;
  /// Lets the collectives started advance without waiting (MPI advances a
  /// non-blocking collective only inside its own calls): called between
  /// kernels.
  virtual void progress() = 0;
  /// Waits for `request` at most timeout(): past it, an error saying what
  /// it waited for (a rank that died or hangs never arrives).
  virtual Status wait(Request request) = 0;
  /// For a communicator whose wait() does not block the host (onDevice()):
  /// blocks until every collective started has completed, each at most
  /// timeout() after it started; past it, an error naming the ranks that
  /// did not reach it (missingRanks), and the communicator is aborted (its
  /// collectives end, and later ones fail). Called before the host reads
  /// what a step computed. Others: Ok (their wait() blocks).
  virtual Status settle() { return Status::ok(); }
  /// After collective number `sequence` (the ranks start the same
  /// collectives in the same order and count them alike) timed out on
  /// this rank: which ranks did not reach it, in words. MPI asks the
  /// others; communicators that cannot tell say so.
  virtual std::string missingRanks(uint64_t sequence) {
    return "the ranks that did not reach it are unknown";
  }
  /// Every rank's `value` is the same (the plan's hash, the batch): an
  /// error naming the first rank whose value differs, and `what` it is.
  virtual Status agree(uint64_t value, const std::string &what) = 0;

  /// How long wait() waits: $MP_COLLECTIVE_TIMEOUT seconds, 300 by default.
  std::chrono::milliseconds timeout() const { return timeout_; }
  void setTimeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

protected:
  Communicator();

private:
  std::chrono::milliseconds timeout_;
};

/// How many processes the launcher started as ranks of one job: OpenMPI's
/// mpirun (OMPI_COMM_WORLD_SIZE) or a PMI launcher (PMI_SIZE: MPICH's
/// hydra, Slurm); 1 without one.
int launcherWorldSize();

/// Ends the whole job where MPI runs (MPI_Abort on MPI_COMM_WORLD: the
/// launcher ends every rank), else exit(code): after an error on one rank,
/// which the others would otherwise meet as a timeout in their next
/// collective.
[[noreturn]] void abortRanks(int code);

/// One process: every reduction is the identity.
std::unique_ptr<Communicator> singleProcessCommunicator();

/// Whether this build has an MPI communicator, and if not, why.
bool mpiAvailable(std::string *why = nullptr);

/// The launcher's: MPI's when this process was started as one of several
/// ranks (launcherWorldSize() above 1), the single-process one otherwise.
/// Started by mpirun in a build without MPI: Unimplemented, saying so (N
/// processes would each train alone).
StatusOr<std::unique_ptr<Communicator>> communicatorFromEnvironment();

/// MPI's, initializing MPI once per process (MPI_THREAD_FUNNELED) on a
/// duplicate of MPI_COMM_WORLD; Unimplemented without MPI in the build.
StatusOr<std::unique_ptr<Communicator>> mpiCommunicator();

} // namespace mp::rt

#endif // MP_RUNTIME_COMMUNICATOR_H
