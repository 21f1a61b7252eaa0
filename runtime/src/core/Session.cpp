//===- Session.cpp - run a plan step after step ---------------------------===//
//
// Everything that can fail is done in create() (SessionLayout.cpp:
// validation, the backend's prepare() of every kernel, all allocations, the
// views of every tensor). A step then only runs kernels and puts persistent
// results into place (a flip between two slots, or a copy), so its only
// failures are the kernels' own.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Session.h"

#include "core/CodeLibrary.h"

#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstring>
#include <new>

using namespace mp::rt;

StatusOr<std::unique_ptr<Session>> Session::create(Plan plan,
                                                   const std::string &backend) {
  StatusOr<std::unique_ptr<Backend>> created = createBackend(backend);
  if (!created.isOk())
    return created.status();
  return create(std::move(plan), std::move(*created));
}

StatusOr<std::unique_ptr<Session>>
Session::create(Plan plan, std::unique_ptr<Backend> backend) {
  if (!backend)
    return invalidArgument("a session needs a backend");
  std::unique_ptr<Session> session(
      new Session(std::move(plan), std::move(backend)));
  MP_RETURN_IF_ERROR(session->initialize());
  return session;
}

const TensorInfo *Session::findTensor(const std::string &name) const {
  auto it = byName_.find(name);
  return it == byName_.end() ? nullptr : &infos_[it->second];
}

/// NotFound naming the tensor, with a hint of what exists.
static Status unknownTensor(const std::string &name) {
  return notFound("the plan has no tensor named '" + name +
                  "' (list the session's tensors to see the names)");
}

Status Session::setTensor(const std::string &name, DType dtype,
                          const int64_t *shape, size_t rank, const void *data,
                          size_t bytes) {
  const TensorInfo *info = findTensor(name);
  if (!info)
    return unknownTensor(name);
  if (info->isOutput)
    return invalidArgument("'" + name +
                           "' is a result of the step; it cannot be set");
  if ((rank && !shape) || (bytes && !data))
    return invalidArgument("setting '" + name + "': null shape or data");
  std::vector<int64_t> given(shape, shape + rank);
  if (dtype != info->dtype || given != info->shape)
    return invalidArgument(std::string(tensorKindName(info->kind)) + " '" +
                           name + "' is " + dtypeName(info->dtype) +
                           formatShape(info->shape) + ", got " +
                           dtypeName(dtype) + formatShape(given));
  if (bytes != info->byteSize)
    return invalidArgument(std::string(tensorKindName(info->kind)) + " '" +
                           name + "' (" + dtypeName(info->dtype) +
                           formatShape(info->shape) + ") has " +
                           std::to_string(info->byteSize) + " bytes, got " +
                           std::to_string(bytes));
  if (!bound_.empty())
    unbind(info->tensor); // the value set is the one the step reads
  if (bytes)
    MP_RETURN_IF_ERROR(copyIn(info->tensor, data, bytes));
  for (size_t i = 0; i < unbound_.size(); ++i)
    if (unbound_[i] == info->tensor) {
      unbound_.erase(unbound_.begin() + i);
      break;
    }
  return Status::ok();
}

Status Session::getTensor(const std::string &name, void *out,
                          size_t bytes) const {
  const TensorInfo *info = findTensor(name);
  if (!info)
    return unknownTensor(name);
  if (info->isOutput && !haveResults_)
    return invalidArgument("result '" + name +
                           "' has no value: no step has completed in this "
                           "session since it was created or restored");
  if (bytes != info->byteSize)
    return invalidArgument("'" + name + "' (" + dtypeName(info->dtype) +
                           formatShape(info->shape) + ") has " +
                           std::to_string(info->byteSize) +
                           " bytes, the buffer " + std::to_string(bytes));
  if (bytes && !out)
    return invalidArgument("reading '" + name + "': null buffer");
  for (const auto &[tensor, from] : bound_)
    if (tensor == info->tensor && bytes) {
      std::memcpy(out, from, bytes); // bound for the next step
      return Status::ok();
    }
  if (bytes)
    return copyOut(info->tensor, out, bytes);
  return Status::ok();
}

const void *Session::tensorData(const TensorInfo &info) const {
  return device_ ? nullptr : storageOf(info.tensor);
}

Status Session::copyIn(uint32_t tensor, const void *data, size_t bytes) {
  // An empty tensor copies nothing (and its data pointer may be null).
  if (bytes == 0)
    return refreshCasts(tensor);
  if (device_)
    MP_RETURN_IF_ERROR(device_->copyToDevice(storageOf(tensor), data, bytes));
  else
    std::memcpy(storageOf(tensor), data, bytes);
  return refreshCasts(tensor);
}

Status Session::copyBetween(uint8_t *to, const uint8_t *from, size_t bytes) {
  if (bytes == 0)
    return Status::ok();
  if (device_)
    return device_->copyOnDevice(to, from, bytes);
  std::memcpy(to, from, bytes);
  return Status::ok();
}

Status Session::copyOut(uint32_t tensor, void *data, size_t bytes) const {
  if (bytes == 0)
    return Status::ok();
  if (device_)
    return device_->copyToHost(data, storageOf(tensor), bytes);
  std::memcpy(data, storageOf(tensor), bytes);
  return Status::ok();
}

std::vector<std::string> Session::kernelImplementations() const {
  std::vector<std::string> out(plan_.kernels.size());
  std::vector<bool> hoisted(plan_.kernels.size(), false);
  for (const HoistedCast &cast : hoisted_)
    hoisted[cast.kernel] = true;
  if (code_)
    for (size_t r = 0; r < plan_.code.regions.size(); ++r)
      for (uint32_t k = plan_.code.regions[r].first, n = 0;
           n < plan_.code.regions[r].count; ++k, ++n)
        out[k] = "generated code (" + code_->variant() + "), fused region #" +
                 std::to_string(r);
  for (size_t k = 0; k < out.size(); ++k) {
    const KernelDesc &kernel = plan_.kernels[k];
    if (!out[k].empty())
      continue;
    if (kernel.isCollective()) {
      const char *what = "a mean over ";
      switch (kernel.opId()) {
      case OpId::TrainRankBroadcast:
        what = "rank 0's, broadcast over ";
        break;
      case OpId::TrainReduceScatter:
        what = "this rank's shard of a mean over ";
        break;
      case OpId::TrainRankShard:
        what = "this rank's shard (a copy), one of ";
        break;
      case OpId::TrainAllGather:
        what = "every rank's shard gathered, from ";
        break;
      case OpId::TrainAllRanks:
        what = "the and of the verdicts of ";
        break;
      case OpId::TrainClipGradNormShards:
        what = "a norm clip of the shards of ";
        break;
      default:
        break;
      }
      out[k] = what + std::to_string(comm_->size()) + " rank" +
               (comm_->size() == 1 ? "" : "s") + " (" + kernelComm().name() +
               " communicator)";
    } else if (hoisted[k])
      out[k] = "after the optimizer writes the weight: " +
               backend_->implementationOf(kernel);
    else if (runsWithHost_[k])
      out[k] = "with its batch norm: " +
               backend_->implementationOf(
                   plan_.kernels[fusedActivationHost(plan_, k)]);
    else if (setsVerdict_[k])
      out[k] = "checked by the optimizer updates as they read the gradients";
    else if (skipped_[k])
      out[k] = "a view of its input (not run)";
    else
      out[k] = backend_->implementationOf(kernel);
  }
  return out;
}

Status Session::runKernel(size_t k, bool fuseActivations) {
  using FusedKernel = Backend::FusedKernel;
  const KernelDesc &kernel = plan_.kernels[k];
  const std::vector<TensorView> &in = kernelInputs_[parity_][k],
                                &out = kernelOutputs_[parity_][k];
  if (!collectives_.empty() && kernel.isCollective()) {
    MP_RETURN_IF_ERROR(startCollective(k));
    if (castsAfter_[k].empty())
      return Status::ok();
    // The 16-bit copies of a state the collective writes (a parameter
    // gathered whole) are made from its finished results.
    MP_RETURN_IF_ERROR(finishCollectives(k, /*started=*/true));
    return runHoistedCasts(k, 0);
  }
  if (setsVerdict_[k]) {
    // A fused check: true until an update finds a non-finite gradient.
    *out[0].as<uint8_t>() = 1;
    return Status::ok();
  }
  const std::vector<size_t> &casts = castsAfter_[k];
  int32_t at = fusedAt_[k];
  uint32_t taken = at >= 0 ? fused_[at].taken : 0;
  if (!fuseActivations)
    taken &= ~(FusedKernel::kRelu | FusedKernel::kReluGrad);
  size_t castsRun = 0;
  if (taken == 0) {
    MP_RETURN_IF_ERROR(backend_->run(kernel, in, out));
  } else {
    const Fused &fused = fused_[at];
    Backend::FusedViews parts;
    if (taken & FusedKernel::kCheck)
      parts.allFinite = kernelOutputs_[parity_][fused.check][0].as<uint8_t>();
    if (taken & FusedKernel::kRelu)
      parts.reluOut = &kernelOutputs_[parity_][fused.activation][0];
    if (taken & FusedKernel::kReluGrad)
      parts.reluGradIn = &kernelInputs_[parity_][fused.activation];
    // The hoisted casts write the slots the next step reads.
    if (taken & FusedKernel::kCast) {
      parts.castOut = &views_[parity_ ^ 1][hoisted_[casts[0]].copy];
      castsRun = 1;
    }
    MP_RETURN_IF_ERROR(backend_->runWith(fused.kernel, in, out, parts));
  }
  return runHoistedCasts(k, castsRun);
}

Status Session::runHoistedCasts(size_t k, size_t from) {
  const std::vector<size_t> &casts = castsAfter_[k];
  const std::vector<TensorView> &out = kernelOutputs_[parity_][k];
  for (size_t c = from; c < casts.size(); ++c) {
    const HoistedCast &cast = hoisted_[casts[c]];
    MP_RETURN_IF_ERROR(backend_->run(plan_.kernels[cast.kernel],
                                     {out[cast.output]},
                                     {views_[parity_ ^ 1][cast.copy]}));
  }
  return Status::ok();
}

Status Session::checkBound() const {
  if (unbound_.empty())
    return Status::ok();
  std::string names;
  for (uint32_t t : unbound_) {
    names += (names.empty() ? "'" : ", '") + plan_.tensors[t].name + "'";
    // A binding (bindTensor) lasts one step.
    for (uint32_t released : released_)
      if (released == t)
        names += " (bound to the caller's memory for the last step only)";
  }
  return invalidArgument("cannot run a step: never set " + names +
                         "; set every input and label first");
}

Status Session::runStepWatched(
    const std::function<bool(size_t kernel)> &afterKernel) {
  MP_RETURN_IF_ERROR(checkBound());
  if (hasCollectives() && comm_->size() > 1)
    return unimplemented("replaying a data-parallel step on one of its " +
                         std::to_string(comm_->size()) +
                         " ranks: the others would not join its reductions");
  haveResults_ = false;
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    // Fused activations run in their place: a watcher reads every
    // kernel's outputs, and a fused batch norm writes no y.
    if (skipped_[k] && !runsWithHost_[k])
      continue;
    Status status = runKernel(k, /*fuseActivations=*/false);
    if (status.isOk() && !inFlight_.empty()) // one process: the identity
      status = finishCollectives(kAllCollectives);
    if (status.isOk() && device_)
      status = device_->finishStep();
    if (!status.isOk()) {
      if (device_)
        (void)device_->finishStep();
      return Status(status.code(), "replayed step, kernel #" +
                                       std::to_string(k) + " (" +
                                       plan_.kernels[k].op +
                                       "): " + status.message());
    }
    if (!afterKernel(k))
      break;
  }
  return Status::ok();
}

Status Session::readTensor(uint32_t tensor, void *out, size_t bytes) const {
  if (tensor >= plan_.tensors.size())
    return invalidArgument("no tensor #" + std::to_string(tensor) +
                           " in the plan");
  if (bytes != plan_.tensors[tensor].byteSize())
    return invalidArgument("tensor '" + plan_.tensors[tensor].name + "' has " +
                           std::to_string(plan_.tensors[tensor].byteSize()) +
                           " bytes, not " + std::to_string(bytes));
  return copyOut(tensor, out, bytes);
}

Status Session::runStep(float *outLoss) {
  // Inputs bound to the caller's memory (bindTensor) are for this step.
  struct Release {
    Session &session;
    bool completed = false;
    ~Release() {
      // A failed step's reductions in flight finish (every rank started
      // them) before the next step starts others.
      if (!session.inFlight_.empty())
        (void)session.finishCollectives(kAllCollectives);
      if (!session.bound_.empty())
        session.releaseBindings(!completed);
    }
  } release{*this};
  MP_RETURN_IF_ERROR(checkWorldSize());
  MP_RETURN_IF_ERROR(checkBound());
  haveResults_ = false;
  failedCheck_ = false;
  using Clock = std::chrono::steady_clock;
  if (profiling_)
    kernelSeconds_.resize(plan_.kernels.size(), 0.0);
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    int32_t region = code_ && !skipped_[k] ? regionAt_[k] : -1;
    if (!inFlight_.empty()) {
      // The reductions the kernel (or each kernel of the region) reads; a
      // view that is not run waits too, for the kernels that read through
      // it.
      size_t count = region >= 0 ? plan_.code.regions[region].count : 1;
      for (size_t j = k; j < k + count; ++j)
        if (!waitBefore_[j].empty()) {
          Status waited = finishCollectives(j);
          if (!waited.isOk())
            return Status(waited.code(), "step " + std::to_string(stepsRun_) +
                                             ", " + waited.message());
        }
    }
    if (skipped_[k])
      continue;
    Clock::time_point began;
    if (profiling_)
      began = Clock::now();
    Status status = region >= 0 ? runRegion(region) : runKernel(k);
    if (!inFlight_.empty())
      kernelComm().progress();
    // A device backend only queues the kernel: profiling waits for it.
    if (status.isOk() && profiling_ && device_)
      status = device_->finishStep();
    if (profiling_)
      kernelSeconds_[k] +=
          std::chrono::duration<double>(Clock::now() - began).count();
    if (!status.isOk()) {
      if (device_)
        (void)finishDeviceStep(); // drain the queue; the error is ours
      return Status(status.code(), "step " + std::to_string(stepsRun_) +
                                       ", kernel #" + std::to_string(k) + " (" +
                                       plan_.kernels[k].op +
                                       "): " + status.message());
    }
    if (region >= 0)
      k += plan_.code.regions[region].count - 1;
  }
  if (device_) {
    // The device collectives ordered before the end of the step (they
    // complete on the device), then settled with a deadline.
    Status finished =
        inFlight_.empty() ? Status::ok() : finishCollectives(kAllCollectives);
    Status ended = finishDeviceStep();
    if (finished.isOk())
      finished = ended;
    if (!finished.isOk())
      return Status(finished.code(), "step " + std::to_string(stepsRun_) +
                                         ", " + finished.message());
  }
  if (!inFlight_.empty()) {
    Status waited = finishCollectives(kAllCollectives);
    if (!waited.isOk())
      return Status(waited.code(), "step " + std::to_string(stepsRun_) + ", " +
                                       waited.message());
  }
  // The loss and the verdict are read before the state changes, in case
  // a plan returns a state tensor as either.
  uint8_t loss[8] = {}, allFinite = 1;
  MP_RETURN_IF_ERROR(
      copyOut(lossTensor_, loss, dtypeSize(views_[0][lossTensor_].dtype)));
  lastLoss_ = loadFloat({views_[0][lossTensor_].dtype, {}, loss}, 0);
  if (allFiniteTensor_ >= 0)
    MP_RETURN_IF_ERROR(copyOut(allFiniteTensor_, &allFinite, 1));
  // A check that fails fails the step: nothing below (the copies, the
  // flip) runs, so the state stays as it was before the step.
  for (uint32_t check : checkTensors_) {
    uint8_t holds = 1;
    MP_RETURN_IF_ERROR(copyOut(check, &holds, 1));
    if (holds == 0) {
      failedCheck_ = true;
      return describeFailedCheck(check);
    }
  }
  if (hasCollectives() && comm_->size() > 1) {
    // A data-parallel step's loss is the global batch's: the mean of the
    // ranks' (equal parts, mean losses). The verdicts agree already: the
    // checks read the reduced gradients.
    float global = lastLoss_;
    StatusOr<Communicator::Request> started =
        comm_->startAllReduce(&global, 1, DType::F32, ReduceOp::Sum);
    Status waited = started.isOk() ? comm_->wait(*started) : started.status();
    if (!waited.isOk())
      return Status(waited.code(),
                    "step " + std::to_string(stepsRun_) +
                        ", the loss over the ranks: " + waited.message());
    lastLoss_ = global / static_cast<float>(comm_->size());
  }
  if (allFinite == 0) {
    ++stepsSkipped_;
    lastOverflowStep_ = stepsRun_;
  }
  Clock::time_point copyBegan;
  if (profiling_)
    copyBegan = Clock::now();
  for (const StateCopy &copy : copies_[parity_])
    if (copy.stage)
      MP_RETURN_IF_ERROR(copyBetween(copy.stage, copy.value, copy.bytes));
  for (const StateCopy &copy : copies_[parity_])
    MP_RETURN_IF_ERROR(copyBetween(
        copy.state, copy.stage ? copy.stage : copy.value, copy.bytes));
  parity_ ^= 1;
  if (profiling_) {
    copySeconds_ +=
        std::chrono::duration<double>(Clock::now() - copyBegan).count();
    ++profiledSteps_;
  }
  ++stepsRun_;
  haveResults_ = true;
  release.completed = true;
  if (outLoss)
    *outLoss = lastLoss_;
  return Status::ok();
}

Status Session::describeFailedCheck(uint32_t check) const {
  std::string step = "step " + std::to_string(stepsRun_ + 1);
  const KernelDesc *producer = nullptr;
  for (const KernelDesc &kernel : plan_.kernels)
    if (std::find(kernel.outputs.begin(), kernel.outputs.end(), check) !=
        kernel.outputs.end())
      producer = &kernel;
  std::string detail;
  if (producer && producer->opId() == OpId::MpAllFinite) {
    // The first checked tensor that holds inf or NaN, named by the
    // parameter an optimizer updates with it.
    const std::vector<uint32_t> &checked = producer->inputs;
    for (size_t i = 0; i < checked.size() && detail.empty(); ++i) {
      uint32_t t = checked[i];
      const TensorDesc &desc = plan_.tensors[t];
      std::vector<uint8_t> bytes(desc.byteSize());
      if (!copyOut(t, bytes.data(), bytes.size()).isOk())
        continue;
      TensorView view{desc.dtype, desc.shape, bytes.data()};
      int64_t bad = 0, first = -1;
      for (int64_t e = 0, n = view.numElements(); e < n; ++e)
        if (!std::isfinite(loadFloat(view, e)) && bad++ == 0)
          first = e;
      if (bad == 0)
        continue;
      std::string name = "checked tensor #" + std::to_string(i);
      for (const KernelDesc &kernel : plan_.kernels) {
        if (kernel.opId() == OpId::Unknown ||
            !opSchema(kernel.opId()).optimizer)
          continue;
        if (std::find(kernel.inputs.begin(), kernel.inputs.end(), t) ==
            kernel.inputs.end())
          continue;
        for (uint32_t input : kernel.inputs)
          if (plan_.tensors[input].kind == TensorKind::Param)
            name = "the gradient of '" + plan_.tensors[input].name + "'";
      }
      detail = name + " has " + std::to_string(bad) + " non-finite value" +
               (bad == 1 ? "" : "s") + " of " +
               std::to_string(view.numElements()) + " (the first at element " +
               std::to_string(first) + ")";
    }
  }
  if (detail.empty())
    detail = "a check of the step is false";
  return invalidArgument(
      step + ": " + detail +
      "; the step was not applied (every parameter and optimizer state is "
      "as it was before it). A NaN or inf in the batch, or an overflow in "
      "the model, makes the gradients non-finite");
}

std::vector<Session::ProfileEntry> Session::profile() const {
  std::vector<ProfileEntry> entries;
  std::unordered_map<std::string, size_t> byOp;
  auto add = [&](const std::string &op, double seconds) {
    auto [it, inserted] = byOp.try_emplace(op, entries.size());
    if (inserted)
      entries.push_back({op, 0, 0});
    entries[it->second].seconds += seconds;
    entries[it->second].calls += profiledSteps_;
  };
  for (size_t k = 0; k < kernelSeconds_.size(); ++k) {
    if (skipped_[k])
      continue;
    if (code_ && regionAt_[k] >= 0) {
      // One call for the region's kernels, timed as the first: named
      // "generated: " and the region's ops.
      const FusedRegion &region = plan_.code.regions[regionAt_[k]];
      std::string name = "generated:";
      for (size_t i = 0; i < region.count; ++i)
        name += (i ? "+" : " ") + plan_.kernels[region.first + i].op;
      add(name, kernelSeconds_[k]);
      k += region.count - 1;
      continue;
    }
    // A kernel that also makes the next step's 16-bit weight copies, or
    // runs a fused activation.
    std::string name = plan_.kernels[k].op;
    int32_t activation = fusedAt_[k] >= 0 ? fused_[fusedAt_[k]].activation : -1;
    if (activation >= 0)
      name = plan_.kernels[activation].opId() == OpId::TrainRelu
                 ? name + "+train.relu"
                 : "train.relu_grad+" + name;
    if (!castsAfter_[k].empty())
      name += "+mp.cast";
    add(name, kernelSeconds_[k]);
  }
  if (profiledSteps_ > 0 && !copies_[0].empty())
    entries.push_back({"(state copy)", copySeconds_, profiledSteps_});
  return entries;
}

ScalerStats Session::scalerStats() const {
  ScalerStats stats;
  stats.enabled = allFiniteTensor_ >= 0;
  stats.dynamicScale = lossScaleTensor_ >= 0;
  stats.stepsRun = stepsRun_;
  stats.stepsSkipped = stepsSkipped_;
  stats.lastOverflowStep = lastOverflowStep_;
  uint8_t scale[8] = {};
  DType dtype = lossScaleTensor_ >= 0 ? views_[0][lossScaleTensor_].dtype
                                      : DType::F32;
  if (lossScaleTensor_ >= 0 &&
      copyOut(lossScaleTensor_, scale, dtypeSize(dtype)).isOk())
    stats.scale = loadFloat({dtype, {}, scale}, 0);
  return stats;
}

Status Session::restoreCounters(int64_t stepsRun, int64_t stepsSkipped,
                                int64_t lastOverflowStep) {
  bool consistent = stepsRun >= 0 && stepsSkipped >= 0 &&
                    stepsSkipped <= stepsRun && lastOverflowStep >= -1 &&
                    lastOverflowStep < stepsRun &&
                    (stepsSkipped == 0) == (lastOverflowStep == -1);
  if (!consistent)
    return invalidArgument(
        "inconsistent step counters: " + std::to_string(stepsRun) +
        " steps run, " + std::to_string(stepsSkipped) +
        " skipped, last overflow at step " + std::to_string(lastOverflowStep));
  stepsRun_ = stepsRun;
  stepsSkipped_ = stepsSkipped;
  lastOverflowStep_ = lastOverflowStep;
  haveResults_ = false;
  return Status::ok();
}

