//===- SessionCollective.cpp - A data-parallel step's reductions ----------===//
//
// train.all_reduce and train.rank_broadcast kernels run on the session's
// communicator, not on a backend (docs/distributed.md): reached in the
// step's order, the kernel copies its operands into its results and starts
// reducing (or broadcasting) them in place without waiting; the step goes on
// with the next kernels, letting the communicator advance between them, and
// waits for a reduction right before the first kernel that reads one of its
// results (the optimizer update of the gradients), or at the end of the step.
//
//===----------------------------------------------------------------------===//

#include "mp/runtime/Session.h"
#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace mp::rt;

Status Session::setCommunicator(std::unique_ptr<Communicator> communicator) {
  deviceComm_.reset();
  comm_ = communicator ? std::move(communicator) : singleProcessCommunicator();
  if (!device_ || !hasCollectives() || comm_->size() == 1)
    return Status::ok();
  StatusOr<std::unique_ptr<Communicator>> made =
      backend_->deviceCommunicator(*comm_);
  if (!made.isOk())
    return Status(made.status().code(),
                  "the plan's collectives on the " +
                      std::string(backend_->name()) + " backend over " +
                      std::to_string(comm_->size()) +
                      " ranks: " + made.status().message());
  deviceComm_ = std::move(*made);
  return Status::ok();
}

Status Session::finishDeviceStep() {
  Status settled = kernelComm().settle();
  Status finished = device_->finishStep();
  return settled.isOk() ? finished : settled;
}

Status Session::joinLauncher(const std::string &who, const std::string &hint) {
  int ranks = launcherWorldSize();
  if (ranks == 1)
    return checkWorldSize();
  if (!hasCollectives()) {
    const char *independent = std::getenv("MP_INDEPENDENT_RANKS");
    if (independent && std::string(independent) == "1")
      return Status::ok();
    return unimplemented(
        who + " was started as one of " + std::to_string(ranks) +
        " ranks (by mpirun or another MPI launcher), but the plan has no "
        "gradient reductions (train.all_reduce; docs/distributed.md): each "
        "rank would train alone on all the data. Run one process, or set "
        "MP_INDEPENDENT_RANKS=1 for independent runs" +
        hint);
  }
  StatusOr<std::unique_ptr<Communicator>> comm = communicatorFromEnvironment();
  if (!comm.isOk())
    return comm.status();
  MP_RETURN_IF_ERROR((*comm)->agree(planHash(), "plan (its hash)"));
  MP_RETURN_IF_ERROR(setCommunicator(std::move(*comm)));
  return checkWorldSize();
}

namespace {

/// f32 tensors under this many bytes are reduced packed together, one
/// reduction per bucket (a reduction's time on many ranks is its latency
/// for small messages); larger ones in place, one each (no copy).
constexpr size_t kPackBelow = size_t(1) << 20;

bool packs(const TensorDesc &tensor) { return tensor.byteSize() < kPackBelow; }

/// Whether collective kernel `kernel` sends bf16 (reduce_dtype).
bool sendsBf16(const KernelDesc &kernel) {
  const std::string *dtype = kernel.getString(AttrName::reduce_dtype);
  return dtype && *dtype == "bf16";
}

} // namespace

Status Session::allReduceSum(float *data, size_t count) {
  if (comm_->size() == 1 || count == 0)
    return Status::ok();
  StatusOr<Communicator::Request> started =
      comm_->startAllReduce(data, count, DType::F32, ReduceOp::Sum);
  return started.isOk() ? comm_->wait(*started) : started.status();
}

Status Session::collectCollectives() {
  const std::vector<KernelDesc> &kernels = plan_.kernels;
  waitBefore_.assign(kernels.size(), {});
  bf16Bucket_.assign(kernels.size(), {});
  packed_.assign(kernels.size(), {});
  shardSend_.clear();
  shardRecv_.clear();
  shardSend_.resize(kernels.size());
  shardRecv_.resize(kernels.size());
  const char *overlap = std::getenv("MP_COLLECTIVE_OVERLAP");
  overlapCollectives_ = !(overlap && std::string(overlap) == "0");
  for (size_t c = 0; c < kernels.size(); ++c) {
    if (!kernels[c].isCollective())
      continue;
    OpId op = kernels[c].opId();
    // A norm clip returns its norm too.
    size_t extra = op == OpId::TrainClipGradNormShards ? 1 : 0;
    if (kernels[c].inputs.size() + extra != kernels[c].outputs.size())
      return invalidArgument(
          "kernel #" + std::to_string(c) + " (" + kernels[c].op + ") has " +
          std::to_string(kernels[c].inputs.size()) + " operands but " +
          std::to_string(kernels[c].outputs.size()) + " results");
    bool broadcast = op == OpId::TrainRankBroadcast;
    for (uint32_t t : kernels[c].outputs)
      if (!broadcast && op != OpId::TrainAllRanks &&
          plan_.tensors[t].dtype != DType::F32)
        return unimplemented("kernel #" + std::to_string(c) + " (" +
                             kernels[c].op + ") reduces " +
                             dtypeName(plan_.tensors[t].dtype) +
                             " tensors; collectives reduce f32 ones");
    if (op == OpId::TrainReduceScatter || op == OpId::TrainRankShard ||
        op == OpId::TrainAllGather || op == OpId::TrainClipGradNormShards) {
      // ZeRO-1 (SessionShards.cpp): one world size for the whole plan.
      MP_RETURN_IF_ERROR(collectShardKernel(c));
    } else if (device_) {
      // The device path packs nothing (startDeviceCollective).
    } else if (sendsBf16(kernels[c])) {
      size_t elements = 0;
      for (uint32_t t : kernels[c].outputs)
        elements += static_cast<size_t>(plan_.tensors[t].numElements());
      bf16Bucket_[c].resize(elements);
    } else if (op == OpId::TrainAllReduce) {
      size_t small = 0, elements = 0;
      for (uint32_t t : kernels[c].outputs)
        if (packs(plan_.tensors[t])) {
          ++small;
          elements += static_cast<size_t>(plan_.tensors[t].numElements());
        }
      if (small > 1)
        packed_[c].resize(elements);
    }
    collectives_.push_back(static_cast<uint32_t>(c));
    const std::vector<uint32_t> &outs = kernels[c].outputs;
    for (size_t k = c + 1; k < kernels.size(); ++k) {
      const std::vector<uint32_t> &ins = kernels[k].inputs;
      bool reads = std::any_of(ins.begin(), ins.end(), [&](uint32_t t) {
        return std::find(outs.begin(), outs.end(), t) != outs.end();
      });
      if (reads) {
        waitBefore_[k].push_back(static_cast<uint32_t>(c));
        break;
      }
    }
  }
  return Status::ok();
}

Status Session::startCollective(size_t k) {
  switch (plan_.kernels[k].opId()) {
  case OpId::TrainRankShard:
    return takeShards(k);
  case OpId::TrainReduceScatter:
    return startReduceScatter(k);
  case OpId::TrainAllGather:
    return gatherShards(k);
  case OpId::TrainAllRanks:
    return combineVerdicts(k);
  case OpId::TrainClipGradNormShards:
    return clipShards(k);
  default:
    break;
  }
  if (device_)
    return startDeviceCollective(k);
  const std::vector<TensorView> &in = kernelInputs_[parity_][k],
                                &out = kernelOutputs_[parity_][k];
  std::vector<Communicator::Request> requests;
  bool broadcast = plan_.kernels[k].op == "train.rank_broadcast";
  if (!bf16Bucket_[k].empty() && comm_->size() > 1) {
    // Divided by the ranks in f32, rounded to bf16 once, summed in bf16
    // (train.all_reduce's reduce_dtype); widened into the results when
    // finished.
    std::vector<uint16_t> &bucket = bf16Bucket_[k];
    float scale = plan_.kernels[k].getFlag(AttrName::mean)
                      ? 1.0f / static_cast<float>(comm_->size())
                      : 1.0f;
    constexpr int64_t kChunk = 1024;
    float scaled[kChunk];
    uint16_t *to = bucket.data();
    for (const TensorView &view : in) {
      const float *from = view.as<float>();
      for (int64_t done = 0, n = view.numElements(); done < n; done += kChunk) {
        int64_t count = std::min(kChunk, n - done);
        for (int64_t e = 0; e < count; ++e)
          scaled[e] = from[done + e] * scale;
        fromFloats(scaled, DType::BF16, to, count);
        to += count;
      }
    }
    StatusOr<Communicator::Request> started = comm_->startAllReduce(
        bucket.data(), bucket.size(), DType::BF16, ReduceOp::Sum);
    if (!started.isOk())
      return started.status();
    requests.push_back(*started);
    inFlight_.emplace_back(static_cast<uint32_t>(k), std::move(requests));
    return overlapCollectives_ ? Status::ok() : finishCollectives(k, true);
  }
  // The small tensors of a bucket packed into one reduction (several
  // ranks only: in one process it is the identity). A mean is the
  // communicator's (divided when it is waited for).
  ReduceOp op =
      plan_.kernels[k].getFlag(AttrName::mean) ? ReduceOp::Mean : ReduceOp::Sum;
  bool packing = !packed_[k].empty() && comm_->size() > 1;
  float *pack = packed_[k].data();
  for (size_t i = 0; i < out.size(); ++i) {
    size_t bytes =
        static_cast<size_t>(out[i].numElements()) * dtypeSize(out[i].dtype);
    if (packing && packs(plan_.tensors[plan_.kernels[k].outputs[i]])) {
      std::memcpy(pack, in[i].data, bytes);
      pack += out[i].numElements();
      continue;
    }
    if (in[i].data != out[i].data && bytes)
      std::memmove(out[i].data, in[i].data, bytes);
    StatusOr<Communicator::Request> started =
        broadcast
            ? comm_->startBroadcast(out[i].data, bytes, 0)
            : comm_->startAllReduce(out[i].data,
                                    static_cast<size_t>(out[i].numElements()),
                                    out[i].dtype, op);
    if (!started.isOk()) {
      // The ones started stay in flight: finished with the step.
      inFlight_.emplace_back(static_cast<uint32_t>(k), std::move(requests));
      return started.status();
    }
    requests.push_back(*started);
  }
  if (packing) {
    StatusOr<Communicator::Request> started = comm_->startAllReduce(
        packed_[k].data(), packed_[k].size(), DType::F32, op);
    if (!started.isOk()) {
      inFlight_.emplace_back(static_cast<uint32_t>(k), std::move(requests));
      return started.status();
    }
    requests.push_back(*started);
  }
  inFlight_.emplace_back(static_cast<uint32_t>(k), std::move(requests));
  return overlapCollectives_ ? Status::ok() : finishCollectives(k, true);
}

Status Session::startDeviceCollective(size_t k) {
  const KernelDesc &kernel = plan_.kernels[k];
  const std::vector<TensorView> &in = kernelInputs_[parity_][k],
                                &out = kernelOutputs_[parity_][k];
  Communicator &comm = kernelComm();
  bool broadcast = kernel.opId() == OpId::TrainRankBroadcast;
  bool mean = kernel.getFlag(AttrName::mean);
  float prescale = mean ? 1.0f / static_cast<float>(comm.size()) : 1.0f;
  std::vector<Communicator::Request> requests;
  Status status = Status::ok();
  for (size_t i = 0; i < out.size() && status.isOk(); ++i) {
    size_t bytes =
        static_cast<size_t>(out[i].numElements()) * dtypeSize(out[i].dtype);
    if (in[i].data != out[i].data)
      status = copyBetween(static_cast<uint8_t *>(out[i].data),
                           static_cast<const uint8_t *>(in[i].data), bytes);
    if (!status.isOk() || comm_->size() == 1) // one process: the identity
      continue;
    auto n = static_cast<size_t>(out[i].numElements());
    StatusOr<Communicator::Request> started =
        broadcast ? comm.startBroadcast(out[i].data, bytes, 0)
        : sendsBf16(kernel)
            ? comm.startAllReduceBf16(out[i].as<float>(), n, prescale)
            : comm.startAllReduce(out[i].data, n, out[i].dtype,
                                  mean ? ReduceOp::Mean : ReduceOp::Sum);
    if (started.isOk())
      requests.push_back(*started);
    else
      status = started.status();
  }
  // The ones started stay in flight, finished with the step if it fails.
  inFlight_.emplace_back(static_cast<uint32_t>(k), std::move(requests));
  if (!status.isOk())
    return status;
  return overlapCollectives_ ? Status::ok() : finishCollectives(k, true);
}

Status Session::finishCollectives(size_t k, bool started) {
  Status first = Status::ok();
  for (size_t i = 0; i < inFlight_.size();) {
    uint32_t c = inFlight_[i].first;
    bool needed =
        k == kAllCollectives || (started && c == k) ||
        (!started && std::find(waitBefore_[k].begin(), waitBefore_[k].end(),
                               c) != waitBefore_[k].end());
    if (!needed) {
      ++i;
      continue;
    }
    Status waited = Status::ok();
    auto began = std::chrono::steady_clock::now();
    for (Communicator::Request request : inFlight_[i].second) {
      Status status = kernelComm().wait(request);
      if (waited.isOk() && !status.isOk())
        waited = status;
    }
    collectiveWait_ += std::chrono::steady_clock::now() - began;
    inFlight_.erase(inFlight_.begin() + static_cast<std::ptrdiff_t>(i));
    const KernelDesc &kernel = plan_.kernels[c];
    if (waited.isOk() && kernel.opId() == OpId::TrainReduceScatter) {
      waited = finishReduceScatter(c);
    } else if (device_) {
      // The communicator finished them on the device (ncclAvg: the mean).
    } else if (waited.isOk() && !bf16Bucket_[c].empty() && comm_->size() > 1) {
      // The bf16 sums (of values divided already) widened into the results.
      const uint16_t *sums = bf16Bucket_[c].data();
      for (const TensorView &view : kernelOutputs_[parity_][c]) {
        toFloats(DType::BF16, sums, view.as<float>(), view.numElements());
        sums += view.numElements();
      }
    } else if (waited.isOk() && !packed_[c].empty() && comm_->size() > 1) {
      // The packed ones (sums, or means already divided) copied out.
      const float *pack = packed_[c].data();
      const std::vector<TensorView> &outs = kernelOutputs_[parity_][c];
      for (size_t o = 0; o < outs.size(); ++o)
        if (packs(plan_.tensors[kernel.outputs[o]])) {
          size_t n = static_cast<size_t>(outs[o].numElements());
          std::memcpy(outs[o].data, pack, n * sizeof(float));
          pack += n;
        }
    }
    if (first.isOk() && !waited.isOk())
      first = Status(waited.code(), "kernel #" + std::to_string(c) + " (" +
                                        kernel.op + "): " + waited.message());
  }
  return first;
}
