//===- SessionLayout.cpp - where a session keeps its tensors --------------===//
//
// Session::initialize(), run once by create(): validation and the op ids,
// the backend's prepare() of every kernel, the memory of every tensor
// (persistent state, its second slots where the plan double-buffers it,
// the scratch arena at the plan's offsets, constants), the views the
// kernels get, the hoisted weight casts and the reshapes that are views.
// The layout is the plan's (layOutPlan, made by mp-compile): the session
// executes it as written and decides nothing. Everything that can fail
// before a step fails here; running the steps is Session.cpp.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Session.h"

#include "core/CodeLibrary.h"
#include "mp/runtime/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

using namespace mp::rt;

static constexpr uint64_t kAlignment = kPlanAlignment;

static uint64_t alignUp(uint64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

void Session::AlignedFree::operator()(uint8_t *p) const {
  if (device)
    device->release(p);
  else
    ::operator delete[](p, std::align_val_t(kAlignment));
}

StatusOr<Session::Memory> Session::allocate(uint64_t bytes, const char *what) {
  if (device_) {
    StatusOr<void *> memory = device_->allocate(bytes, what);
    if (!memory.isOk())
      return memory.status();
    return Memory(static_cast<uint8_t *>(*memory), AlignedFree{device_});
  }
  void *p = ::operator new[](bytes, std::align_val_t(kAlignment), std::nothrow);
  if (!p)
    return internalError("out of memory: cannot allocate " +
                         std::to_string(bytes) + " bytes for " + what);
  std::memset(p, 0, bytes);
  return Memory(static_cast<uint8_t *>(p), AlignedFree());
}

Session::Session(Plan plan, std::unique_ptr<Backend> backend)
    : plan_(std::move(plan)), backend_(std::move(backend)) {}

Session::~Session() = default;


/// Stores `value` into every element of `view` (scaler state's initial
/// value); integer tensors get it truncated and clamped.
static void fill(const TensorView &view, double value) {
  int64_t count = view.numElements();
  if (isFloat(view.dtype)) {
    for (int64_t i = 0; i < count; ++i)
      storeFloat(view, i, static_cast<float>(value));
    return;
  }
  double clamped = std::fmax(std::fmin(value, 0x1p62), -0x1p62);
  for (int64_t i = 0; i < count; ++i)
    storeInt(view, i, static_cast<int64_t>(clamped));
}

Status Session::initialize() {
  MP_RETURN_IF_ERROR(plan_.validate());
  resolveOpIds(plan_);
  MP_RETURN_IF_ERROR(prepareKernels());
  planHash_ = mp::rt::planHash(plan_);
  device_ = backend_->deviceMemory();
  const std::vector<TensorDesc> &tensors = plan_.tensors;

  // Persistent updates: double-buffered where the plan says so (the
  // value's kernels write the state's second slot and the step ends with
  // a flip instead of a copy); the rest is copied, and a value that is
  // itself the state another result replaces is staged first, so that the
  // copies' order does not matter.
  std::vector<bool> replaced(tensors.size(), false);
  for (const ResultDesc &result : plan_.results)
    if (result.role != ResultRole::Loss && result.role != ResultRole::Output &&
        result.role != ResultRole::Check)
      replaced[result.state] = true;
  std::vector<const ResultDesc *> flipped, copied;
  for (const ResultDesc &result : plan_.results)
    if (isStateUpdate(result))
      (result.isDoubleBuffered() ? flipped : copied).push_back(&result);
  collectHoistedCasts(flipped);

  MP_RETURN_IF_ERROR(placeTensors(flipped));
  MP_RETURN_IF_ERROR(placeHoistedCasts());
  followViews();
  bindKernelViews();
  MP_RETURN_IF_ERROR(collectCollectives());
  collectFusedKernels();
  MP_RETURN_IF_ERROR(useGeneratedCode());
  for (const HoistedCast &cast : hoisted_)
    MP_RETURN_IF_ERROR(refreshCasts(cast.state));
  MP_RETURN_IF_ERROR(stageCopies(copied, replaced));
  return nameTensors();
}

/// Every kernel the backend declines, named at once (supports() is pure),
/// before anything is prepared or allocated; then each prepared.
Status Session::prepareKernels() {
  constexpr size_t kNamed = 8;
  std::vector<std::string> declined;
  StatusCode code = StatusCode::Unimplemented;
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    // A collective is the session's (its communicator's), not a kernel.
    if (plan_.kernels[k].isCollective()) {
      OpId op = plan_.kernels[k].opId();
      // The norm clip's partial sums are computed on the host.
      if (backend_->deviceMemory() && op == OpId::TrainClipGradNormShards)
        return unimplemented(
            "kernel #" + std::to_string(k) + " (" + plan_.kernels[k].op +
            "): the " + backend_->name() +
            " backend keeps tensors in device memory, and clipping by the "
            "norm of sharded gradients (ZeRO-1 with clip_grad_norm) on it "
            "is not built: compile the step with data-parallel=allreduce "
            "for it (docs/distributed.md)");
      continue;
    }
    Status supported = backend_->supports(plan_.kernels[k], plan_);
    if (supported.isOk())
      continue;
    if (declined.empty())
      code = supported.code();
    if (declined.size() < kNamed)
      declined.push_back("kernel #" + std::to_string(k) + " (" +
                         plan_.kernels[k].op + "): " + supported.message());
    else
      declined.emplace_back();
  }
  if (declined.size() == 1)
    return Status(code, std::string("backend '") + backend_->name() +
                            "' cannot run " + declined[0]);
  if (!declined.empty()) {
    std::string message = std::string("backend '") + backend_->name() +
                          "' cannot run " + std::to_string(declined.size()) +
                          " kernels of the plan: ";
    for (size_t i = 0; i < std::min(declined.size(), kNamed); ++i)
      message += (i ? "; " : "") + declined[i];
    if (declined.size() > kNamed)
      message += "; and " + std::to_string(declined.size() - kNamed) + " more";
    return Status(code, message);
  }
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    if (plan_.kernels[k].isCollective())
      continue;
    Status prepared = backend_->prepare(plan_.kernels[k], plan_);
    if (!prepared.isOk())
      return Status(prepared.code(),
                    std::string("backend '") + backend_->name() +
                        "' cannot run kernel #" + std::to_string(k) + " (" +
                        plan_.kernels[k].op + "): " + prepared.message());
  }
  return Status::ok();
}

/// Persistent tensors, inputs and labels share one block; scratch tensors
/// live in the arena at the plan's offsets; constants in the plan's blob;
/// the double-buffered states' second slots in a block of their own.
Status Session::placeTensors(const std::vector<const ResultDesc *> &flipped) {
  const std::vector<TensorDesc> &tensors = plan_.tensors;
  std::vector<uint64_t> stateOffsets(tensors.size());
  uint64_t stateSize = 0;
  for (uint32_t t = 0; t < tensors.size(); ++t) {
    TensorKind kind = tensors[t].kind;
    if (kind == TensorKind::Scratch || kind == TensorKind::Constant)
      continue;
    stateOffsets[t] = stateSize;
    stateSize += alignUp(tensors[t].byteSize());
  }
  StatusOr<Memory> state = allocate(stateSize, "persistent tensors and inputs");
  if (!state.isOk())
    return state.status();
  state_ = std::move(*state);
  StatusOr<Memory> arena = allocate(plan_.arenaSize, "the scratch arena");
  if (!arena.isOk())
    return arena.status();
  arena_ = std::move(*arena);
  const uint8_t *constants = plan_.constants.data();
  if (device_) {
    StatusOr<Memory> copy = allocate(plan_.constants.size(), "the constants");
    if (!copy.isOk())
      return copy.status();
    constants_ = std::move(*copy);
    if (!plan_.constants.empty())
      MP_RETURN_IF_ERROR(device_->copyToDevice(constants_.get(), constants,
                                               plan_.constants.size()));
    constants = constants_.get();
  }

  std::vector<TensorView> &views = views_[0];
  views.resize(tensors.size());
  for (uint32_t t = 0; t < tensors.size(); ++t) {
    const TensorDesc &desc = tensors[t];
    TensorView &view = views[t];
    view.dtype = desc.dtype;
    view.shape = desc.shape;
    if (desc.kind == TensorKind::Scratch)
      view.data = arena_.get() + desc.offset;
    else if (desc.kind == TensorKind::Constant)
      // Kernels never write constants: validate() allows scratch outputs
      // only.
      view.data = const_cast<uint8_t *>(constants) + desc.offset;
    else
      view.data = state_.get() + stateOffsets[t];
    if (desc.kind == TensorKind::ScalerState) {
      std::vector<uint8_t> initial(desc.byteSize());
      TensorView host = view;
      host.data = initial.data();
      fill(host, desc.initialValue);
      MP_RETURN_IF_ERROR(copyIn(t, initial.data(), initial.size()));
    }
  }

  uint64_t alternateSize = 0;
  for (const ResultDesc *result : flipped)
    alternateSize += alignUp(tensors[result->state].byteSize());
  StatusOr<Memory> alternate =
      allocate(alternateSize, "the second slots of double-buffered state");
  if (!alternate.isOk())
    return alternate.status();
  alternate_ = std::move(*alternate);
  doubleBufferedBytes_ = alternateSize;
  views_[1] = views;
  uint64_t offset = 0;
  for (const ResultDesc *result : flipped) {
    uint8_t *own = views[result->state].as<uint8_t>();
    uint8_t *second = alternate_.get() + offset;
    offset += alignUp(tensors[result->state].byteSize());
    views_[0][result->value].data = second;
    views_[1][result->state].data = second;
    views_[1][result->value].data = own;
  }

  return Status::ok();
}

/// Each kernel's input and output views, for both parities.
void Session::bindKernelViews() {
  for (int parity : {0, 1})
    for (const KernelDesc &kernel : plan_.kernels) {
      std::vector<TensorView> inputs, outputs;
      for (uint32_t id : kernel.inputs)
        inputs.push_back(views_[parity][id]);
      for (uint32_t id : kernel.outputs)
        outputs.push_back(views_[parity][id]);
      kernelInputs_[parity].push_back(std::move(inputs));
      kernelOutputs_[parity].push_back(std::move(outputs));
    }
}

/// The copies of the results that are not double-buffered, staged where
/// the value is itself a state another result replaces.
Status Session::stageCopies(const std::vector<const ResultDesc *> &copied,
                            const std::vector<bool> &replaced) {
  const std::vector<TensorDesc> &tensors = plan_.tensors;
  uint64_t stagingSize = 0;
  for (const ResultDesc *result : copied)
    if (replaced[result->value])
      stagingSize += alignUp(tensors[result->state].byteSize());
  StatusOr<Memory> staging = allocate(stagingSize, "staged state updates");
  if (!staging.isOk())
    return staging.status();
  staging_ = std::move(*staging);
  for (int parity : {0, 1}) {
    uint64_t offset = 0;
    for (const ResultDesc *result : copied) {
      size_t bytes = tensors[result->state].byteSize();
      uint8_t *stage = nullptr;
      if (replaced[result->value]) {
        stage = staging_.get() + offset;
        offset += alignUp(bytes);
      }
      copies_[parity].push_back(
          {views_[parity][result->value].as<uint8_t>(),
           views_[parity][result->state].as<uint8_t>(), bytes, stage});
    }
  }

  return Status::ok();
}

/// The tensors a user sets and reads by name, settable ones first, then
/// the step's results; the names the session gives a meaning to (the loss
/// scale, the all-finite verdict) must look the part.
Status Session::nameTensors() {
  const std::vector<TensorDesc> &tensors = plan_.tensors;
  for (uint32_t t = 0; t < tensors.size(); ++t) {
    const TensorDesc &desc = tensors[t];
    if (isPersistent(desc.kind) || desc.kind == TensorKind::Input ||
        desc.kind == TensorKind::Label) {
      infos_.push_back({desc.name, desc.kind, false, desc.dtype, desc.shape,
                        desc.byteSize(), t, desc.sharded, desc.wholeShape});
      if (!isPersistent(desc.kind))
        unbound_.push_back(t);
      if (desc.kind == TensorKind::ScalerState && desc.name == kLossScaleName)
        lossScaleTensor_ = t;
    }
  }
  for (const ResultDesc &result : plan_.results) {
    if (result.role == ResultRole::Loss)
      lossTensor_ = result.value;
    if (result.role == ResultRole::Check)
      checkTensors_.push_back(result.value);
    if ((result.role != ResultRole::Loss && result.role != ResultRole::Output &&
         result.role != ResultRole::Check) ||
        result.name.empty())
      continue;
    const TensorDesc &desc = tensors[result.value];
    infos_.push_back({result.name, desc.kind, true, desc.dtype, desc.shape,
                      desc.byteSize(), result.value});
    if (result.name == kAllFiniteName)
      allFiniteTensor_ = result.value;
  }
  for (size_t i = 0; i < infos_.size(); ++i)
    byName_.emplace(infos_[i].name, i);

  auto isScalar = [&](int64_t t, bool wantFloat) {
    return tensors[t].numElements() == 1 &&
           (wantFloat ? isFloat(tensors[t].dtype)
                      : tensors[t].dtype == DType::I1);
  };
  if (allFiniteTensor_ >= 0 && !isScalar(allFiniteTensor_, false))
    return invalidArgument(std::string("output '") + kAllFiniteName +
                           "' must be one i1 element (the loss scaler's "
                           "verdict), not " +
                           dtypeName(tensors[allFiniteTensor_].dtype) +
                           formatShape(tensors[allFiniteTensor_].shape));
  if (lossScaleTensor_ >= 0 && !isScalar(lossScaleTensor_, true))
    return invalidArgument(std::string("scaler state '") + kLossScaleName +
                           "' must be one float element, not " +
                           dtypeName(tensors[lossScaleTensor_].dtype) +
                           formatShape(tensors[lossScaleTensor_].shape));
  return Status::ok();
}

void Session::collectHoistedCasts(
    const std::vector<const ResultDesc *> &flipped) {
  const std::vector<TensorDesc> &tensors = plan_.tensors;
  const std::vector<KernelDesc> &kernels = plan_.kernels;
  std::vector<int64_t> writer(tensors.size(), -1), newValue(tensors.size(), -1);
  for (size_t k = 0; k < kernels.size(); ++k)
    for (uint32_t t : kernels[k].outputs)
      writer[t] = static_cast<int64_t>(k);
  for (const ResultDesc *result : flipped)
    newValue[result->state] = result->value;
  castsAfter_.assign(kernels.size(), {});
  skipped_.assign(kernels.size(), false);
  for (size_t k = 0; k < kernels.size(); ++k) {
    const KernelDesc &kernel = kernels[k];
    if (!kernel.isHoistedCast())
      continue;
    // validate(): the input is a double-buffered state, whose value some
    // kernel writes.
    uint32_t state = kernel.inputs[0], copy = kernel.outputs[0];
    uint32_t value = static_cast<uint32_t>(newValue[state]);
    uint32_t producer = static_cast<uint32_t>(writer[value]);
    const std::vector<uint32_t> &outs = kernels[producer].outputs;
    size_t output = std::find(outs.begin(), outs.end(), value) - outs.begin();
    castsAfter_[producer].push_back(hoisted_.size());
    skipped_[k] = true;
    hoisted_.push_back(
        {static_cast<uint32_t>(k), state, copy, producer, output});
  }
}

void Session::collectFusedKernels() {
  using FusedKernel = Backend::FusedKernel;
  const std::vector<KernelDesc> &kernels = plan_.kernels;
  size_t count = kernels.size();
  fused_.clear();
  fusedAt_.assign(count, -1);
  setsVerdict_.assign(count, false);
  runsWithHost_.assign(count, false);
  auto entry = [&](size_t k) -> Fused & {
    if (fusedAt_[k] < 0) {
      fusedAt_[k] = static_cast<int32_t>(fused_.size());
      fused_.emplace_back();
      fused_.back().kernel.kernel = &kernels[k];
    }
    return fused_[fusedAt_[k]];
  };
  // The parts, as the plan's flags join them (validate() checked each).
  for (size_t k = 0; k < count; ++k) {
    if (!castsAfter_[k].empty()) {
      const HoistedCast &cast = hoisted_[castsAfter_[k][0]];
      Fused &fused = entry(k);
      fused.kernel.cast = &kernels[cast.kernel];
      fused.kernel.castOutput = cast.output;
    }
    if (kernels[k].isFusedActivation()) {
      Fused &fused = entry(fusedActivationHost(plan_, k));
      (kernels[k].opId() == OpId::TrainRelu ? fused.kernel.relu
                                            : fused.kernel.reluGrad) =
          &kernels[k];
    }
  }
  std::vector<std::vector<uint32_t>> updatesOf(count);
  for (size_t k = 0; k < count; ++k) {
    if (!kernels[k].isFusedCheck())
      continue;
    std::vector<uint32_t> updates = gradientCheckers(plan_, k);
    // An update reads one gradient: a second check of it runs in place.
    bool claimed = false;
    for (uint32_t update : updates)
      claimed |= fusedAt_[update] >= 0 && fused_[fusedAt_[update]].kernel.check;
    if (claimed)
      continue;
    for (uint32_t update : updates)
      entry(update).kernel.check = &kernels[k];
    updatesOf[k] = std::move(updates);
  }

  // What the backend takes, asked once; the views' data is not read.
  auto ask = [&](Fused &fused) {
    size_t k = fused.kernel.kernel - kernels.data();
    Backend::FusedViews parts;
    uint8_t verdict = 1;
    if (fused.kernel.cast)
      parts.castOut = &views_[1][hoisted_[castsAfter_[k][0]].copy];
    if (fused.kernel.check)
      parts.allFinite = &verdict;
    if (fused.kernel.relu)
      parts.reluOut = &kernelOutputs_[0][fused.kernel.relu - kernels.data()][0];
    if (fused.kernel.reluGrad)
      parts.reluGradIn =
          &kernelInputs_[0][fused.kernel.reluGrad - kernels.data()];
    fused.taken = backend_->fuses(fused.kernel, kernelInputs_[0][k],
                                  kernelOutputs_[0][k], parts) &
                  fused.kernel.parts();
  };
  for (Fused &fused : fused_) {
    ask(fused);
    const KernelDesc *activation =
        fused.kernel.relu ? fused.kernel.relu : fused.kernel.reluGrad;
    if (fused.taken & (FusedKernel::kRelu | FusedKernel::kReluGrad)) {
      fused.activation = static_cast<int32_t>(activation - kernels.data());
      skipped_[fused.activation] = true;
      runsWithHost_[fused.activation] = true;
    }
  }
  // A check is fused where every update of it took it; else it runs in
  // its place and no update clears its verdict.
  for (size_t k = 0; k < count; ++k) {
    if (updatesOf[k].empty())
      continue;
    bool everyUpdate = true;
    for (uint32_t update : updatesOf[k])
      everyUpdate &=
          (fused_[fusedAt_[update]].taken & FusedKernel::kCheck) != 0;
    setsVerdict_[k] = everyUpdate;
    for (uint32_t update : updatesOf[k]) {
      Fused &fused = fused_[fusedAt_[update]];
      if (everyUpdate) {
        fused.check = static_cast<int32_t>(k);
      } else if (fused.kernel.check) {
        // Asked again without it, so that what the backend records
        // (implementationOf) is what runs (an update has no ReLU parts).
        fused.kernel.check = nullptr;
        ask(fused);
      }
    }
  }
}

Status Session::placeHoistedCasts() {
  const std::vector<TensorDesc> &tensors = plan_.tensors;
  uint64_t size = 0;
  for (const HoistedCast &cast : hoisted_)
    size += 2 * alignUp(tensors[cast.copy].byteSize());
  StatusOr<Memory> slots = allocate(size, "the hoisted weight casts");
  if (!slots.isOk())
    return slots.status();
  castSlots_ = std::move(*slots);
  doubleBufferedBytes_ += size;
  uint64_t offset = 0;
  for (const HoistedCast &cast : hoisted_)
    for (int parity : {0, 1}) {
      views_[parity][cast.copy].data = castSlots_.get() + offset;
      offset += alignUp(tensors[cast.copy].byteSize());
    }
  return Status::ok();
}

void Session::followViews() {
  // In schedule order, so that a chain of views reaches its first buffer;
  // each parity's, so that a view of a double-buffered or hoisted slot
  // follows the slot.
  for (size_t k = 0; k < plan_.kernels.size(); ++k) {
    const KernelDesc &kernel = plan_.kernels[k];
    if (!kernel.isView())
      continue;
    uint32_t x = kernel.inputs[0], y = kernel.outputs[0];
    for (int parity : {0, 1})
      views_[parity][y].data = views_[parity][x].data;
    skipped_[k] = true;
  }
}

Status Session::refreshCasts(uint32_t state) {
  for (const HoistedCast &cast : hoisted_) {
    if (cast.state != state)
      continue;
    Status status =
        backend_->run(plan_.kernels[cast.kernel], {views_[parity_][state]},
                      {views_[parity_][cast.copy]});
    if (status.isOk() && device_)
      status = device_->finishStep();
    if (!status.isOk())
      return Status(status.code(), "casting '" + plan_.tensors[state].name +
                                       "' for the next step: " +
                                       status.message());
  }
  return Status::ok();
}

