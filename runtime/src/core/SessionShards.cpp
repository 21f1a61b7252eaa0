//===- SessionShards.cpp - ZeRO-1's kernels and sharded state -------------===//
//
// A data-parallel=zero1 plan (docs/distributed.md) keeps each optimizer
// state as this rank's shard: the tensor seen flat and cut into as many
// shards as the plan's world size, s = ceil(n / N) elements each, the last
// padded with zeros; rank r owns elements [r s, (r + 1) s). Its kernels run
// on the session's communicator like train.all_reduce: train.rank_shard
// copies this rank's shards out of whole tensors, train.reduce_scatter
// leaves each rank the mean of its gradient shards (started without
// waiting, finished before the update reads it), train.all_gather makes
// the updated parameter shards whole again, train.all_ranks ands the
// verdicts. Checkpoints gather the state whole (gatherState) and take a
// rank's shard back from it (setStateFromWhole): a checkpoint does not
// depend on the number of ranks.
//
//===----------------------------------------------------------------------===//

#include "mp/runtime/Session.h"
#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace mp::rt;

namespace {

int64_t shardOf(int64_t elements, int64_t ranks) {
  return (elements + ranks - 1) / ranks;
}

/// Where each tensor of a ZeRO-1 kernel sits in the packed block a rank
/// sends or receives: tensor i's shard of s[i] elements at offset[i], the
/// block `total` elements.
struct ShardLayout {
  std::vector<int64_t> elements, shard, offset;
  int64_t total = 0;
  ShardLayout(const Plan &plan, const std::vector<uint32_t> &whole,
              int64_t ranks) {
    for (uint32_t t : whole) {
      int64_t n = plan.tensors[t].numElements();
      elements.push_back(n);
      shard.push_back(shardOf(n, ranks));
      offset.push_back(total);
      total += shard.back();
    }
  }
  /// How many of tensor i's elements rank `r`'s shard holds (the rest is
  /// padding).
  int64_t held(size_t i, int64_t r) const {
    return std::clamp<int64_t>(elements[i] - r * shard[i], 0, shard[i]);
  }
};

} // namespace

Status Session::checkWorldSize() const {
  if (shardedOver_ == 0 || shardedOver_ == comm_->size())
    return Status::ok();
  return invalidArgument(
      "the plan shards its optimizer state over " +
      std::to_string(shardedOver_) +
      " ranks (data-parallel=zero1 world-size=" + std::to_string(shardedOver_) +
      ") but runs on " + std::to_string(comm_->size()) +
      (comm_->size() == 1 ? " process" : " ranks") +
      ": run it with mpirun -np " + std::to_string(shardedOver_) +
      ", or compile the step for this number of ranks (a checkpoint of one "
      "resumes under the other)");
}

Status Session::collectShardKernel(size_t c) {
  const KernelDesc &kernel = plan_.kernels[c];
  int64_t ranks = kernel.getInt(AttrName::world_size, 0);
  if (ranks < 1 || (shardedOver_ && ranks != shardedOver_))
    return invalidArgument(
        "kernel #" + std::to_string(c) + " (" + kernel.op + ") shards over " +
        std::to_string(ranks) + " ranks" +
        (shardedOver_ ? ", another kernel over " + std::to_string(shardedOver_)
                      : std::string()));
  shardedOver_ = ranks;
  OpId op = kernel.opId();
  if (op != OpId::TrainReduceScatter && op != OpId::TrainAllGather)
    return Status::ok();
  bool gather = op == OpId::TrainAllGather;
  auto block = static_cast<size_t>(
      ShardLayout(plan_, gather ? kernel.outputs : kernel.inputs, ranks).total);
  // A reduce-scatter sends every rank's block and receives its own; an
  // all-gather the other way round.
  size_t all = block * static_cast<size_t>(ranks);
  StatusOr<Memory> send =
      allocate((gather ? block : all) * sizeof(float), "a ZeRO-1 send block");
  if (!send.isOk())
    return send.status();
  StatusOr<Memory> recv = allocate((gather ? all : block) * sizeof(float),
                                   "a ZeRO-1 receive block");
  if (!recv.isOk())
    return recv.status();
  shardSend_[c] = std::move(*send);
  shardRecv_[c] = std::move(*recv);
  return Status::ok();
}

Status Session::copyFloats(float *to, const float *from, int64_t count) {
  return copyBetween(reinterpret_cast<uint8_t *>(to),
                     reinterpret_cast<const uint8_t *>(from),
                     static_cast<size_t>(count) * sizeof(float));
}

Status Session::zeroFloats(float *to, int64_t count) {
  if (count <= 0)
    return Status::ok();
  if (device_)
    return device_->fillZero(to, static_cast<size_t>(count) * sizeof(float));
  std::fill(to, to + count, 0.0f);
  return Status::ok();
}

Status Session::takeShards(size_t k) {
  const std::vector<TensorView> &in = kernelInputs_[parity_][k],
                                &out = kernelOutputs_[parity_][k];
  ShardLayout layout(plan_, plan_.kernels[k].inputs, shardedOver_);
  int64_t r = comm_->rank();
  for (size_t i = 0; i < in.size(); ++i) {
    int64_t held = layout.held(i, r);
    float *to = out[i].as<float>();
    MP_RETURN_IF_ERROR(
        copyFloats(to, in[i].as<float>() + r * layout.shard[i], held));
    MP_RETURN_IF_ERROR(zeroFloats(to + held, layout.shard[i] - held));
  }
  return Status::ok();
}

namespace {
/// A ZeRO-1 block (Session::Memory) as floats.
template <typename Memory> float *floatsOf(const Memory &block) {
  return reinterpret_cast<float *>(block.get());
}
} // namespace

Status Session::startReduceScatter(size_t k) {
  const std::vector<TensorView> &in = kernelInputs_[parity_][k];
  ShardLayout layout(plan_, plan_.kernels[k].inputs, shardedOver_);
  // Rank q's block: each gradient's q-th shard (its padding zero).
  float *send = floatsOf(shardSend_[k]);
  for (int64_t q = 0; q < shardedOver_; ++q)
    for (size_t i = 0; i < in.size(); ++i)
      MP_RETURN_IF_ERROR(copyFloats(send + q * layout.total + layout.offset[i],
                                    in[i].as<float>() + q * layout.shard[i],
                                    layout.held(i, q)));
  std::vector<Communicator::Request> requests;
  if (comm_->size() == 1) {
    // One rank: its block is the mean (copied here: the single-process
    // communicator moves host memory only).
    MP_RETURN_IF_ERROR(copyFloats(floatsOf(shardRecv_[k]), send, layout.total));
  } else {
    StatusOr<Communicator::Request> started = kernelComm().startReduceScatter(
        send, floatsOf(shardRecv_[k]), static_cast<size_t>(layout.total),
        ReduceOp::Mean);
    if (!started.isOk())
      return started.status();
    requests.push_back(*started);
  }
  inFlight_.emplace_back(static_cast<uint32_t>(k), std::move(requests));
  return overlapCollectives_ ? Status::ok() : finishCollectives(k, true);
}

Status Session::finishReduceScatter(size_t k) {
  const std::vector<TensorView> &out = kernelOutputs_[parity_][k];
  ShardLayout layout(plan_, plan_.kernels[k].inputs, shardedOver_);
  const float *means = floatsOf(shardRecv_[k]);
  for (size_t i = 0; i < out.size(); ++i)
    MP_RETURN_IF_ERROR(copyFloats(out[i].as<float>(), means + layout.offset[i],
                                  layout.shard[i]));
  return Status::ok();
}

Status Session::gatherShards(size_t k) {
  const std::vector<TensorView> &in = kernelInputs_[parity_][k],
                                &out = kernelOutputs_[parity_][k];
  ShardLayout layout(plan_, plan_.kernels[k].outputs, shardedOver_);
  float *send = floatsOf(shardSend_[k]), *recv = floatsOf(shardRecv_[k]);
  for (size_t i = 0; i < in.size(); ++i)
    MP_RETURN_IF_ERROR(copyFloats(send + layout.offset[i], in[i].as<float>(),
                                  layout.shard[i]));
  if (comm_->size() == 1) {
    // One rank: the gathered block is its own.
    recv = send;
  } else {
    Communicator &comm = kernelComm();
    auto began = std::chrono::steady_clock::now();
    StatusOr<Communicator::Request> started = comm.startAllGather(
        send, recv, static_cast<size_t>(layout.total) * sizeof(float));
    Status waited = started.isOk() ? comm.wait(*started) : started.status();
    collectiveWait_ += std::chrono::steady_clock::now() - began;
    if (!waited.isOk())
      return waited;
  }
  for (size_t i = 0; i < out.size(); ++i)
    for (int64_t q = 0; q < shardedOver_; ++q)
      MP_RETURN_IF_ERROR(copyFloats(out[i].as<float>() + q * layout.shard[i],
                                    recv + q * layout.total + layout.offset[i],
                                    layout.held(i, q)));
  return Status::ok();
}

Status Session::combineVerdicts(size_t k) {
  const std::vector<TensorView> &in = kernelInputs_[parity_][k],
                                &out = kernelOutputs_[parity_][k];
  // The and of the verdicts (0 or 1): their minimum.
  MP_RETURN_IF_ERROR(copyBetween(static_cast<uint8_t *>(out[0].data),
                                 static_cast<const uint8_t *>(in[0].data), 1));
  Communicator &comm = kernelComm();
  auto began = std::chrono::steady_clock::now();
  StatusOr<Communicator::Request> started =
      comm.startAllReduce(out[0].data, 1, DType::I1, ReduceOp::Min);
  Status waited = started.isOk() ? comm.wait(*started) : started.status();
  collectiveWait_ += std::chrono::steady_clock::now() - began;
  return waited;
}

Status Session::clipShards(size_t k) {
  const std::vector<TensorView> &in = kernelInputs_[parity_][k],
                                &out = kernelOutputs_[parity_][k];
  const KernelDesc &kernel = plan_.kernels[k];
  double p = kernel.getFloat(AttrName::norm_type, 2.0);
  double maxNorm = kernel.getFloat(AttrName::max_norm, 1.0);
  bool isMax = std::isinf(p);
  // This rank's part: the sum of |g|^p over its shards in f64 (the
  // padding adds 0), or the largest |g| (NaN when one is NaN).
  double partial = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const float *g = in[i].as<float>();
    for (int64_t e = 0, n = in[i].numElements(); e < n; ++e) {
      double a = std::fabs(static_cast<double>(g[e]));
      if (isMax)
        partial =
            std::isnan(a) || std::isnan(partial) ? NAN : std::max(partial, a);
      else
        partial += p == 2 ? a * a : std::pow(a, p);
    }
  }
  // Every rank's part, combined in rank order: the same norm everywhere.
  std::vector<double> parts(static_cast<size_t>(comm_->size()));
  auto began = std::chrono::steady_clock::now();
  StatusOr<Communicator::Request> started =
      comm_->startAllGather(&partial, parts.data(), sizeof(double));
  Status waited = started.isOk() ? comm_->wait(*started) : started.status();
  collectiveWait_ += std::chrono::steady_clock::now() - began;
  if (!waited.isOk())
    return waited;
  double total = 0;
  for (double part : parts)
    total = !isMax              ? total + part
            : std::isnan(part)  ? part
            : std::isnan(total) ? total
                                : std::max(total, part);
  double norm = isMax    ? total
                : p == 2 ? std::sqrt(total)
                         : std::pow(total, 1 / p);
  // As train.clip_grad_norm: PyTorch's max_norm / (norm + 1e-6), at most
  // 1, a NaN kept.
  double coef = maxNorm / (norm + 1e-6);
  float scale =
      static_cast<float>(std::isnan(coef) ? coef : std::min(coef, 1.0));
  for (size_t i = 0; i < in.size(); ++i) {
    const float *g = in[i].as<float>();
    float *r = out[i].as<float>();
    for (int64_t e = 0, n = in[i].numElements(); e < n; ++e)
      r[e] = g[e] * scale;
  }
  *out.back().as<float>() = static_cast<float>(norm);
  return Status::ok();
}

namespace {

/// `info` is sharded state and `bytes` its whole tensor's size.
Status checkWhole(const TensorInfo &info, size_t bytes) {
  if (!info.sharded)
    return invalidArgument("'" + info.name + "' is not sharded state");
  if (bytes != info.fullByteSize())
    return invalidArgument("'" + info.name + "' has " +
                           std::to_string(info.fullByteSize()) +
                           " bytes whole, not " + std::to_string(bytes));
  return Status::ok();
}

} // namespace

Status Session::gatherState(const TensorInfo &info, void *whole, size_t bytes) {
  MP_RETURN_IF_ERROR(checkWhole(info, bytes));
  MP_RETURN_IF_ERROR(checkWorldSize());
  const TensorDesc &desc = plan_.tensors[info.tensor];
  size_t shardBytes = desc.byteSize();
  std::vector<uint8_t> shard(shardBytes),
      all(shardBytes * static_cast<size_t>(shardedOver_));
  MP_RETURN_IF_ERROR(copyOut(info.tensor, shard.data(), shardBytes));
  StatusOr<Communicator::Request> started =
      comm_->startAllGather(shard.data(), all.data(), shardBytes);
  Status waited = started.isOk() ? comm_->wait(*started) : started.status();
  if (!waited.isOk())
    return Status(waited.code(), "gathering the shards of '" + info.name +
                                     "': " + waited.message());
  std::memcpy(whole, all.data(), bytes);
  return Status::ok();
}

Status Session::setStateFromWhole(const TensorInfo &info, const void *whole,
                                  size_t bytes) {
  MP_RETURN_IF_ERROR(checkWhole(info, bytes));
  MP_RETURN_IF_ERROR(checkWorldSize());
  const TensorDesc &desc = plan_.tensors[info.tensor];
  size_t shardBytes = desc.byteSize();
  size_t from = shardBytes * static_cast<size_t>(comm_->rank());
  std::vector<uint8_t> shard(shardBytes, 0);
  if (from < bytes)
    std::memcpy(shard.data(), static_cast<const uint8_t *>(whole) + from,
                std::min(shardBytes, bytes - from));
  return setTensor(info.name, desc.dtype, desc.shape, shard.data(), shardBytes);
}
