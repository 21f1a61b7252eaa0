//===- NcclCommunicator.h - the ranks over NCCL -----------------*- C++ -*-===//
//
// Private to runtime/src/cuda: the communicator the cuda backend hands a
// data-parallel session (Backend::deviceCommunicator). Built where CMake
// finds NCCL (MP_HAVE_NCCL); docs/distributed.md.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_CUDA_NCCLCOMMUNICATOR_H
#define MP_RUNTIME_CUDA_NCCLCOMMUNICATOR_H

#include "mp/runtime/Communicator.h"

typedef struct CUstream_st *cudaStream_t;

namespace mp::rt::cuda {

/// NCCL over the ranks of `host` on CUDA device `device`: the unique id
/// made by rank 0 and sent to the others by `host`'s broadcast; the
/// communicator created non-blocking, so that no call waits for a rank
/// without a deadline. Its collectives run on a stream of its own, each
/// after the work queued on `compute` before it started; wait() makes
/// `compute` wait for one on the device. `host` and `compute` outlive it.
StatusOr<std::unique_ptr<Communicator>>
createNcclCommunicator(Communicator &host, cudaStream_t compute, int device);

/// Ok when libnccl can be opened here (it is opened on first use);
/// otherwise why not.
Status ncclLoadable();

} // namespace mp::rt::cuda

#endif // MP_RUNTIME_CUDA_NCCLCOMMUNICATOR_H
