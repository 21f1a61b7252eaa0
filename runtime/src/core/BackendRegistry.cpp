//===- BackendRegistry.cpp - the backends by name -------------------------===//
//
// One table of the backends this runtime knows, built in or not: a session
// (and mp-run) finds a backend here by name, the default is the first
// available one in the table's order, and a backend that is not built in
// or cannot run here says why. The backends' own files define their
// factories (declared in Backend.h); this file is the only one that knows
// which exist, and it includes no backend's header.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"

using namespace mp::rt;

namespace {

Status referenceAvailable() { return Status::ok(); }
StatusOr<std::unique_ptr<Backend>> makeReference() {
  return createReferenceBackend();
}

Status cpuAvailable() { return cpuBackendStatus(); }
StatusOr<std::unique_ptr<Backend>> makeCpu() { return createCpuBackend(); }

StatusOr<std::unique_ptr<Backend>> makeCuda() { return createCudaBackend(); }

} // namespace

#ifndef MP_HAVE_CUDA
Status mp::rt::cudaBackendStatus() {
  return unimplemented("the cuda backend needs the CUDA toolkit and this "
                       "runtime was built without it (MP_ENABLE_CUDA)");
}
StatusOr<std::unique_ptr<Backend>>
mp::rt::createCudaBackend(const CudaBackendOptions &) {
  return cudaBackendStatus();
}
const std::vector<std::string> &mp::rt::cudaBackendOps() {
  static const std::vector<std::string> none;
  return none;
}
int mp::rt::cudaDefaultDevice() { return 0; }
bool mp::rt::ncclAvailable(std::string *why) {
  if (why)
    *why = "NCCL runs on the cuda backend, and this runtime was built "
           "without CUDA (MP_ENABLE_CUDA)";
  return false;
}
#endif

const std::vector<BackendEntry> &mp::rt::backendRegistry() {
  static const std::vector<BackendEntry> entries = {
      {"cpu", "oneDNN primitives and own vector loops (the default)",
       cpuAvailable, makeCpu},
      {"reference", "portable C++: every op, the results the others match",
       referenceAvailable, makeReference},
      {"cuda", "cuBLASLt and own kernels on an NVIDIA GPU (never the default)",
       cudaBackendStatus, makeCuda},
  };
  return entries;
}

static const BackendEntry *findBackend(const std::string &name) {
  for (const BackendEntry &entry : backendRegistry())
    if (name == entry.name)
      return &entry;
  return nullptr;
}

static Status unknownBackend(const std::string &name) {
  std::string names;
  for (const BackendEntry &entry : backendRegistry())
    names += std::string(names.empty() ? "" : ", ") + entry.name;
  return notFound("unknown backend '" + name + "'; this runtime has: " +
                  names + " (or default: the first of cpu, reference that "
                  "runs here)");
}

StatusOr<std::unique_ptr<Backend>>
mp::rt::createBackend(const std::string &name) {
  if (StatusOr<int> threads = threadsFromEnvironment(); !threads.isOk())
    return threads.status();
  if (name.empty() || name == "default") {
    for (const BackendEntry &entry : backendRegistry()) {
      if (std::string(entry.name) == "cuda" || !entry.available().isOk())
        continue;
      return entry.create();
    }
    return createReferenceBackend();
  }
  const BackendEntry *entry = findBackend(name);
  if (!entry)
    return unknownBackend(name);
  return entry->create();
}

Status mp::rt::backendStatus(const std::string &name) {
  const BackendEntry *entry = findBackend(name);
  return entry ? entry->available() : unknownBackend(name);
}
