//===- DeviceMemory.h - tensors that live on an accelerator -----*- C++ -*-===//
//
// Host backends (reference, cpu) run kernels on memory the session
// allocates with operator new. A backend whose kernels run on memory the
// host cannot address (the CUDA backend) also implements DeviceMemory and
// returns it from Backend::deviceMemory(): the session then allocates the
// persistent tensors, inputs, the scratch arena and the constants through
// it, once, when it is created, and moves bytes between host and device only
// here: when the caller sets or reads a tensor, at the end of a step (the
// loss and the loss scaler's verdict) and when a checkpoint is written.
// docs/runtime-cuda.md describes the design.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_DEVICEMEMORY_H
#define MP_RUNTIME_DEVICEMEMORY_H

#include "mp/runtime/Status.h"

#include <cstddef>
#include <cstdint>

namespace mp::rt {

class DeviceMemory {
public:
  virtual ~DeviceMemory() = default;

  /// `bytes` of zeroed device memory, aligned for any kernel; `what` names
  /// it in the out-of-memory message. Zero bytes give a valid, unique
  /// pointer too.
  virtual StatusOr<void *> allocate(uint64_t bytes, const char *what) = 0;
  /// Frees what allocate() returned (after the queued work is done).
  virtual void release(void *device) = 0;

  /// Host -> device, ordered after the kernels already queued; `host` may be
  /// reused as soon as the call returns.
  virtual Status copyToDevice(void *device, const void *host, size_t bytes) = 0;
  /// Device -> host: waits for the queued kernels, then copies.
  virtual Status copyToHost(void *host, const void *device, size_t bytes) = 0;
  /// Device -> device, queued after the kernels.
  virtual Status copyOnDevice(void *to, const void *from, size_t bytes) = 0;
  /// `bytes` zero bytes at `device`, queued after the kernels.
  virtual Status fillZero(void *device, size_t bytes) = 0;

  /// Waits for the kernels of a step and reports what they found in the
  /// data (a label or an index out of range, an integer division by zero),
  /// naming the kernel. The session calls it after the last kernel of every
  /// step (also after a kernel failed to launch) and changes no state when
  /// it fails.
  virtual Status finishStep() = 0;
};

} // namespace mp::rt

#endif // MP_RUNTIME_DEVICEMEMORY_H
