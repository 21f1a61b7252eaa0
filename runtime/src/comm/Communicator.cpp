//===- Communicator.cpp - The single-process communicator, the choice -----===//

#include "mp/runtime/Communicator.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace mp::rt;

Communicator::~Communicator() = default;

Status Communicator::checkReduction(DType dtype, ReduceOp op) {
  bool supported = false;
  switch (dtype) {
  case DType::F32:
    supported = true;
    break;
  case DType::I64:
    supported = op != ReduceOp::Mean;
    break;
  case DType::I1:
    supported = op == ReduceOp::Max || op == ReduceOp::Min;
    break;
  case DType::BF16:
    supported = op == ReduceOp::Sum;
    break;
  default:
    break;
  }
  if (supported)
    return Status::ok();
  const char *what = op == ReduceOp::Sum   ? "a sum"
                     : op == ReduceOp::Max ? "a maximum"
                     : op == ReduceOp::Min ? "a minimum"
                                           : "a mean";
  return unimplemented(std::string("an all-reduce of ") + dtypeName(dtype) +
                       " as " + what);
}

StatusOr<Communicator::Request>
Communicator::startAllReduceBf16(float *, size_t, float) {
  return unimplemented(std::string("the ") + name() +
                       " communicator reducing f32 values as bf16");
}

Communicator::Communicator() : timeout_(std::chrono::seconds(300)) {
  if (const char *seconds = std::getenv("MP_COLLECTIVE_TIMEOUT")) {
    char *end = nullptr;
    double value = std::strtod(seconds, &end);
    if (end != seconds && *end == '\0' && value > 0)
      timeout_ = std::chrono::milliseconds(static_cast<int64_t>(value * 1000));
  }
}

namespace {

class SingleProcess final : public Communicator {
public:
  const char *name() const override { return "single"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  StatusOr<Request> startAllReduce(void *, size_t, DType dtype,
                                   ReduceOp op) override {
    MP_RETURN_IF_ERROR(checkReduction(dtype, op));
    return Request(0);
  }
  StatusOr<Request> startBroadcast(void *, size_t, int root) override {
    if (root != 0)
      return invalidArgument("a broadcast from rank " + std::to_string(root) +
                             " of 1");
    return Request(0);
  }
  StatusOr<Request> startReduceScatter(const float *send, float *recv,
                                       size_t perRank, ReduceOp op) override {
    if (op != ReduceOp::Sum && op != ReduceOp::Mean)
      return unimplemented("a reduce-scatter other than a sum or a mean");
    if (perRank && send != recv)
      std::memmove(recv, send, perRank * sizeof(float));
    return Request(0);
  }
  StatusOr<Request> startAllGather(const void *send, void *recv,
                                   size_t bytesPerRank) override {
    if (bytesPerRank && send != recv)
      std::memmove(recv, send, bytesPerRank);
    return Request(0);
  }
  void progress() override {}
  Status wait(Request) override { return Status::ok(); }
  Status agree(uint64_t, const std::string &) override { return Status::ok(); }
};

} // namespace

int mp::rt::launcherWorldSize() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char *value = std::getenv(name))
      if (int size = std::atoi(value); size > 1)
        return size;
  return 1;
}

std::unique_ptr<Communicator> mp::rt::singleProcessCommunicator() {
  return std::make_unique<SingleProcess>();
}

StatusOr<std::unique_ptr<Communicator>> mp::rt::communicatorFromEnvironment() {
  if (launcherWorldSize() == 1)
    return singleProcessCommunicator();
  std::string why;
  if (!mpiAvailable(&why))
    return unimplemented("this process was started by an MPI launcher, but " +
                         why + ": each rank would train alone");
  return mpiCommunicator();
}
