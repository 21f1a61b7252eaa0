//===- GuardedBackend.h - device memory the host cannot touch ---*- C++ -*-===//
//
// A backend for testing the session's device-memory path without a GPU
// (DeviceMemoryTest.cpp, DeviceCollectiveTest.cpp): the reference kernels
// on "device" memory that is mapped PROT_NONE except while the backend
// itself runs a kernel or copies. Any host access the session makes to
// device memory outside DeviceMemory faults and kills the test.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CUDA_GUARDEDBACKEND_H
#define MP_RUNTIME_UNITTESTS_CUDA_GUARDEDBACKEND_H

#include "mp/runtime/Backend.h"
#include "mp/runtime/DeviceMemory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <sys/mman.h>
#include <unistd.h>

namespace mp::rt::testing {

/// The reference kernels on memory that is inaccessible between calls.
class GuardedBackend final : public Backend, public DeviceMemory {
public:
  GuardedBackend() : reference_(createReferenceBackend()) {}
  ~GuardedBackend() override { EXPECT_TRUE(regions_.empty()); }

  const char *name() const override { return "guarded"; }
  Status supports(const KernelDesc &kernel, const Plan &plan) const override {
    return reference_->supports(kernel, plan);
  }
  Status run(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs) override {
    Open open(*this);
    if (runs++ == failAtRun)
      return internalError("injected failure");
    return reference_->run(kernel, inputs, outputs);
  }
  DeviceMemory *deviceMemory() override { return this; }

  StatusOr<void *> allocate(uint64_t bytes, const char *what) override {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t size = (std::max<uint64_t>(bytes, 1) + page - 1) / page * page;
    void *p =
        mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return internalError(std::string("mmap failed for ") + what);
    regions_.push_back({p, size});
    return p; // mmap memory is zeroed
  }
  void release(void *device) override {
    for (size_t i = 0; i < regions_.size(); ++i)
      if (regions_[i].first == device) {
        munmap(device, regions_[i].second);
        regions_.erase(regions_.begin() + i);
        return;
      }
    ADD_FAILURE() << "release of memory this backend did not allocate";
  }
  Status copyToDevice(void *device, const void *host, size_t bytes) override {
    Open open(*this);
    ++copiesIn;
    std::memcpy(device, host, bytes);
    return Status::ok();
  }
  Status copyToHost(void *host, const void *device, size_t bytes) override {
    Open open(*this);
    ++copiesOut;
    std::memcpy(host, device, bytes);
    return Status::ok();
  }
  Status copyOnDevice(void *to, const void *from, size_t bytes) override {
    Open open(*this);
    std::memmove(to, from, bytes);
    return Status::ok();
  }
  Status fillZero(void *device, size_t bytes) override {
    Open open(*this);
    std::memset(device, 0, bytes);
    return Status::ok();
  }
  Status finishStep() override {
    ++steps;
    return Status::ok();
  }

  int64_t runs = 0, copiesIn = 0, copiesOut = 0, steps = 0;
  int64_t failAtRun = -1; ///< the run() call (0-based, counted) that fails

private:
  /// Makes every region accessible for its lifetime.
  struct Open {
    explicit Open(GuardedBackend &b) : b(b) {
      b.protect(PROT_READ | PROT_WRITE);
    }
    ~Open() { b.protect(PROT_NONE); }
    GuardedBackend &b;
  };
  void protect(int mode) {
    for (auto &[p, size] : regions_)
      EXPECT_EQ(mprotect(p, size, mode), 0);
  }

  std::unique_ptr<Backend> reference_;
  std::vector<std::pair<void *, size_t>> regions_;

public:
  /// Runs `f` with the device memory accessible (what a device
  /// communicator's own kernels may touch).
  void withDeviceAccess(const std::function<void()> &f) {
    Open open(*this);
    f();
  }
  /// What deviceCommunicator() hands the session; null: the default (none).
  std::function<StatusOr<std::unique_ptr<Communicator>>(Communicator &)>
      makeDeviceCommunicator;
  StatusOr<std::unique_ptr<Communicator>>
  deviceCommunicator(Communicator &host) override {
    if (makeDeviceCommunicator)
      return makeDeviceCommunicator(host);
    return Backend::deviceCommunicator(host);
  }
};

} // namespace mp::rt::testing

#endif // MP_RUNTIME_UNITTESTS_CUDA_GUARDEDBACKEND_H
