//===- SafetensorsFuzzer.cpp - safetensors files and checkpoints ----------===//
//
// parseSafetensors on the bytes; a parsed file written to a temporary path
// and loaded as a checkpoint and as params into a session of the
// least-squares model (the loaders' matching, metadata and counters).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "mp/runtime/Backend.h"
#include "mp/runtime/Checkpoint.h"
#include "mp/runtime/Safetensors.h"
#include "mp/runtime/Session.h"

#include <cstdio>
#include <string>
#include <unistd.h>

using namespace mp::rt;

/// A plan with a param "w" f32[3, 2], its momentum, an input and a label:
/// what the checkpoint loader matches file tensors against.
static const std::vector<uint8_t> &seedPlan() {
  static const std::vector<uint8_t> bytes = [] {
    Plan plan;
    plan.policy = "float32";
    auto tensor = [&](TensorKind kind, DType dtype, std::vector<int64_t> shape,
                      std::string name) {
      TensorDesc t;
      t.kind = kind;
      t.dtype = dtype;
      t.shape = std::move(shape);
      t.name = std::move(name);
      plan.tensors.push_back(t);
      return static_cast<uint32_t>(plan.tensors.size() - 1);
    };
    uint32_t x = tensor(TensorKind::Input, DType::F32, {4, 3}, "x");
    uint32_t w = tensor(TensorKind::Param, DType::F32, {3, 2}, "w");
    tensor(TensorKind::OptState, DType::F32, {3, 2}, "w.momentum_buffer");
    uint32_t y = tensor(TensorKind::Scratch, DType::F32, {4, 2}, "");
    uint32_t loss = tensor(TensorKind::Scratch, DType::F32, {}, "");
    KernelDesc mm;
    mm.op = "train.matmul";
    mm.inputs = {x, w};
    mm.outputs = {y};
    KernelDesc sum;
    sum.op = "train.reduce_sum";
    sum.inputs = {y};
    sum.outputs = {loss};
    Attr dims;
    dims.ints = {0, 1};
    sum.attrs["dims"] = dims;
    plan.kernels = {mm, sum};
    plan.results.push_back({ResultRole::Loss, loss, UINT32_MAX, "loss"});
    planMemory(plan);
    return serializePlan(plan);
  }();
  return bytes;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  StatusOr<SafetensorsFile> file =
      parseSafetensors(mp::fuzz::bytesOf(data, size), "fuzz.safetensors");
  if (!file.isOk())
    return 0;
  StatusOr<Plan> plan = parsePlan(seedPlan(), "seed.plan");
  if (!plan.isOk())
    return 0;
  StatusOr<std::unique_ptr<Session>> session =
      Session::create(std::move(*plan), createReferenceBackend());
  if (!session.isOk() || !(*session)->initParams(0).isOk())
    return 0;
  char path[] = "/tmp/mp-fuzz-XXXXXX";
  int fd = ::mkstemp(path);
  if (fd < 0)
    return 0;
  bool written = ::write(fd, data, size) == static_cast<ssize_t>(size);
  ::close(fd);
  if (written) {
    (void)loadCheckpoint(**session, path);
    CheckpointLoadOptions any;
    any.ignorePlanHash = true;
    (void)loadCheckpoint(**session, path, any);
    (void)loadParams(**session, path);
  }
  ::unlink(path);
  return 0;
}
