//===- Session.h - run a plan step after step -------------------*- C++ -*-===//
//
// A session owns everything a plan needs to train: the persistent tensors
// (params, optimizer state, buffers, loss-scaler state) that live across
// steps, the bound inputs and labels, one arena for the scratch tensors of
// a step, and the backend that runs the kernels. Tensors are addressed by
// the names the plan gives them; results of a step (the loss and the
// outputs) are read by their result names.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_SESSION_H
#define MP_RUNTIME_SESSION_H

#include "mp/runtime/Backend.h"
#include "mp/runtime/Communicator.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Vocabulary.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace mp::rt {

class CodeLibrary;

/// A tensor that can be set or read by name.
struct TensorInfo {
  std::string name;
  /// The kind of the plan tensor: persistent kinds, Input and Label can be
  /// set; results (`isOutput`) are read after a step.
  TensorKind kind = TensorKind::Scratch;
  bool isOutput = false; ///< the loss or an Output result of the step
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t byteSize = 0;
  uint32_t tensor = 0; ///< its id in the plan
  /// ZeRO-1 (data-parallel=zero1): this rank holds only its shard, `shape`
  /// [ceil(n / ranks)], of optimizer state whose whole shape is
  /// `wholeShape`; checkpoints save and load it whole (gatherState,
  /// setStateFromWhole).
  bool sharded = false;
  std::vector<int64_t> wholeShape;
  /// The shape and bytes of the tensor whole: `shape` and `byteSize`, or a
  /// shard's whole tensor's.
  const std::vector<int64_t> &fullShape() const {
    return sharded ? wholeShape : shape;
  }
  uint64_t fullByteSize() const {
    if (!sharded)
      return byteSize;
    uint64_t bytes = dtypeSize(dtype);
    for (int64_t d : wholeShape)
      bytes *= static_cast<uint64_t>(d);
    return bytes;
  }
};

/// What the loss scaler did. Kept when the plan reports the scaler's
/// verdict as an Output named "all_finite" (the compiler adds it when it
/// inserts loss scaling).
struct ScalerStats {
  bool enabled = false;          ///< the plan has the "all_finite" output
  bool dynamicScale = false;     ///< a scaler_state tensor "loss_scale" exists
  int64_t stepsRun = 0;          ///< steps completed, checkpoints included
  int64_t stepsSkipped = 0;      ///< steps whose gradients were not finite
  int64_t lastOverflowStep = -1; ///< 0-based index of the last one, or -1
  float scale = 1;               ///< the current "loss_scale", else 1
};

class Session {
public:
  /// The result name the session watches for skipped steps, and the
  /// scaler-state tensor it reports as the scale.
  static constexpr const char *kAllFiniteName =
      vocab::stringify(vocab::ScalerTensor::AllFinite);
  static constexpr const char *kLossScaleName =
      vocab::stringify(vocab::ScalerTensor::LossScale);

  /// Validates `plan`, creates the backend named `backend` ("cpu", "cuda",
  /// "reference"; "" or "default" mean cpu where oneDNN loads, else
  /// reference: cpuBackendStatus() says why), checks every kernel with
  /// it and allocates all memory. Persistent tensors start at zero, scaler
  /// state at its initial value.
  static StatusOr<std::unique_ptr<Session>>
  create(Plan plan, const std::string &backend = "default");
  /// The same with a backend the caller made (tests, custom backends).
  static StatusOr<std::unique_ptr<Session>>
  create(Plan plan, std::unique_ptr<Backend> backend);

  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  const Plan &plan() const { return plan_; }
  /// planHash(plan()), computed once.
  uint64_t planHash() const { return planHash_; }
  const char *backendName() const { return backend_->name(); }
  /// The backend's describe(): what it runs on (oneDNN version and ISA).
  std::string backendDescription() const { return backend_->describe(); }
  /// For each kernel of the plan, what ran it in the last step (the
  /// backend's record, Backend::implementationOf): "" before the first
  /// step; the session's own decisions where the backend ran nothing (a
  /// reshape laid out as a view, a cast fused into the optimizer's pass).
  std::vector<std::string> kernelImplementations() const;

  /// The plan's generated code (PlanCode, docs/codegen.md): "" when the
  /// plan has none; else what runs its fused regions ("3 fused regions
  /// (11 kernels) on generated code, avx512 variant") or why the kernels
  /// run one by one instead (a backend without generated code, a library
  /// that cannot be loaded here, MP_GENERATED_CODE=off). Tools print it.
  const std::string &generatedCodeStatus() const { return codeStatus_; }
  /// Whether the fused regions run as generated code.
  bool usesGeneratedCode() const { return code_ != nullptr; }

  /// Every named tensor: persistent tensors, inputs and labels in plan
  /// order, then the results (loss, outputs).
  const std::vector<TensorInfo> &tensors() const { return infos_; }
  /// nullptr when no tensor has that name.
  const TensorInfo *findTensor(const std::string &name) const;

  /// Copies `bytes` of `data` into the input, label or persistent tensor
  /// `name`, whose dtype and shape must be `dtype` and `shape`.
  Status setTensor(const std::string &name, DType dtype, const int64_t *shape,
                   size_t rank, const void *data, size_t bytes);
  Status setTensor(const std::string &name, DType dtype,
                   const std::vector<int64_t> &shape, const void *data,
                   size_t bytes) {
    return setTensor(name, dtype, shape.data(), shape.size(), data, bytes);
  }
  /// The communicator of the ranks (docs/distributed.md): the
  /// single-process one (each reduction the identity) unless one is set
  /// here, before the first step. The plan's collectives (train.all_reduce:
  /// the gradient reductions of a data-parallel step) run on it, or, on a
  /// backend whose tensors live in device memory, on the communicator the
  /// backend makes over it (Backend::deviceCommunicator: NCCL on the cuda
  /// backend); an error when the backend has none.
  Status setCommunicator(std::unique_ptr<Communicator> communicator);
  const Communicator &communicator() const { return *comm_; }
  /// The communicator the plan's collectives run on (the one above, or
  /// the backend's over it).
  const Communicator &kernelCommunicator() const { return kernelComm(); }
  /// Sums `count` floats over the ranks in place and waits (between steps:
  /// what a front door reports for the whole job, e.g. metric totals).
  Status allReduceSum(float *data, size_t count);
  /// In a process an MPI launcher started as one of several ranks
  /// (launcherWorldSize() > 1): a data-parallel plan gets the launcher's
  /// communicator, every rank checked to run the same plan; any other plan
  /// is refused, `who` ("mp-run") named and `hint` appended, since each rank
  /// would train alone on all the data, unless MP_INDEPENDENT_RANKS=1 says
  /// independent runs are meant. One process: nothing to do.
  Status joinLauncher(const std::string &who, const std::string &hint = "");
  /// Whether the plan has collectives (a data-parallel step).
  bool hasCollectives() const { return !collectives_.empty(); }
  /// ZeRO-1: the number of ranks the plan shards its optimizer state over
  /// (data-parallel=zero1 world-size); 0 when it shards nothing. Such a
  /// plan runs on exactly that many ranks.
  int64_t shardedOver() const { return shardedOver_; }
  /// The whole tensor of which `info` (a sharded state) holds this rank's
  /// shard, in `whole` (`bytes`: the whole tensor's): every rank's shard
  /// gathered. A collective: every rank calls it for the same tensors in
  /// the same order (checkpoints).
  Status gatherState(const TensorInfo &info, void *whole, size_t bytes);
  /// Sets sharded `info` to this rank's shard of the whole tensor `whole`.
  Status setStateFromWhole(const TensorInfo &info, const void *whole,
                           size_t bytes);
  /// Seconds the steps run so far spent waiting for their reductions to
  /// complete (what overlap with the backward pass did not hide).
  double collectiveWaitSeconds() const {
    return std::chrono::duration<double>(collectiveWait_).count();
  }

  /// Binds the caller's memory as the input or label `name` for the next
  /// step, without a copy: that step's kernels read `data`, which must
  /// stay unchanged until runStep() returns. Checked like setTensor, and
  /// `data` aligned to the element size. The binding lasts one step; after
  /// it the tensor counts as unset (bind or set it again), except after a
  /// failed step, which keeps a copy for the replay and a retry.
  /// Unimplemented where a copy is needed instead (setTensor): a backend
  /// that keeps tensors in device memory, or a plan whose step writes
  /// into the tensor's memory.
  Status bindTensor(const std::string &name, DType dtype, const int64_t *shape,
                    size_t rank, const void *data, size_t bytes);
  /// Copies tensor `name` (of exactly `bytes` bytes) to `out`. Results hold
  /// the values of the last step and cannot be read before one has run.
  Status getTensor(const std::string &name, void *out, size_t bytes) const;
  /// The storage of a persistent tensor, input or label (for writers that
  /// must not copy, like checkpoints); nullptr when the backend keeps the
  /// tensors in device memory (read them with getTensor()).
  const void *tensorData(const TensorInfo &info) const;

  /// Fills the params (and batch-norm running variances) with a seeded,
  /// deterministic initialization; docs/runtime.md has the rules. Leaves
  /// optimizer and scaler state alone.
  Status initParams(uint64_t seed);

  /// Runs one step: every kernel in order, then each persistent result
  /// replaces its state tensor. On failure no state changes. `outLoss` may
  /// be null.
  Status runStep(float *outLoss = nullptr);
  /// Runs the kernels of one step like runStep, calling `afterKernel(k)`
  /// after each kernel k that runs (one by one: no generated-code region,
  /// a device backend finished), and stops early when it returns false.
  /// Changes no state and no counter: no persistent result replaces its
  /// state, and results cannot be read afterwards. The non-finite replay
  /// (Replay.h) inspects tensors with readTensor() from the callback.
  Status runStepWatched(const std::function<bool(size_t kernel)> &afterKernel);
  /// The bytes of any plan tensor (scratch and constants included) as the
  /// kernels left them; `bytes` must be its byte size. For diagnostics:
  /// a scratch tensor is meaningful only while it is live.
  Status readTensor(uint32_t tensor, void *out, size_t bytes) const;
  float lastLoss() const { return lastLoss_; }
  /// Whether the last runStep failed because a check result (a gradient
  /// check without loss scaling) came out false: a non-finite step, whose
  /// state stayed as it was.
  bool lastStepFailedCheck() const { return failedCheck_; }
  ScalerStats scalerStats() const;

  /// Time spent per kind of work, summed over the steps run while profiling
  /// is on: one entry per op name, plus "(state copy)" for the copies of new
  /// persistent values. For tools (mp-run --profile); off by default, and
  /// free when off. With a device backend (cuda) profiling waits for each
  /// kernel, so that its time is the kernel's and not its launch's.
  struct ProfileEntry {
    std::string name;
    double seconds = 0;
    int64_t calls = 0;
  };
  void setProfiling(bool on) { profiling_ = on; }
  /// Bytes of the second slots of double-buffered persistent tensors (see
  /// below): what the session holds beyond the plan's state and arena.
  uint64_t doubleBufferedBytes() const { return doubleBufferedBytes_; }
  std::vector<ProfileEntry> profile() const;

  /// Sets the step counters (when a checkpoint is loaded).
  Status restoreCounters(int64_t stepsRun, int64_t stepsSkipped,
                         int64_t lastOverflowStep);

private:
  Session(Plan plan, std::unique_ptr<Backend> backend);
  Status initialize();
  /// The parts of initialize(), in its order (SessionLayout.cpp).
  Status prepareKernels();
  Status placeTensors(const std::vector<const ResultDesc *> &flipped);
  void bindKernelViews();
  Status stageCopies(const std::vector<const ResultDesc *> &copied,
                     const std::vector<bool> &replaced);
  Status nameTensors();
  /// An error naming the inputs and labels never set, if any.
  Status checkBound() const;
  /// The failed step's error for a Check result that came out false: which
  /// checked tensor holds inf / NaN, named by the param it updates.
  Status describeFailedCheck(uint32_t check) const;
  /// Where `tensor` lives now (a double-buffered state: its current slot).
  uint8_t *storageOf(uint32_t tensor) const {
    return views_[parity_][tensor].as<uint8_t>();
  }

  /// Memory aligned for any kernel's vector loads, freed with the session;
  /// device memory when the backend has it (Backend::deviceMemory()).
  struct AlignedFree {
    /// No default member initializer (GCC then deems the deleter not
    /// default-constructible inside Session); unique_ptr value-initializes
    /// it to null.
    DeviceMemory *device;
    void operator()(uint8_t *p) const;
  };
  using Memory = std::unique_ptr<uint8_t[], AlignedFree>;
  StatusOr<Memory> allocate(uint64_t bytes, const char *what);
  /// Bytes into / out of a tensor's storage, wherever it lives.
  Status copyIn(uint32_t tensor, const void *data, size_t bytes);
  Status copyOut(uint32_t tensor, void *data, size_t bytes) const;
  /// A kernel's or generated region's pointer to (a view into) an input's
  /// memory, which bindTensor() redirects to the caller's for a step.
  struct BindUse {
    void **pointer;
    uint8_t *own; ///< what it points to without a binding
  };
  /// Where the kernels and regions read tensor `tensor`'s memory (views of
  /// it included); false when a kernel or region writes into it.
  bool collectBindUses(uint32_t tensor, std::vector<BindUse> &uses);
  /// The collectives: which kernels they are, and before which kernel the
  /// step waits for each (the first that reads one of its results).
  Status collectCollectives();
  /// Starts collective kernel `k` on the communicator (its operands copied
  /// into its results, reduced in place there).
  Status startCollective(size_t k);
  /// Waits for the collectives kernel `k` (or, with `k` = all, every
  /// collective in flight; with `started`, collective `k` itself) needs,
  /// then divides a mean's results by the number of ranks (f32) or widens
  /// the bf16 sums into them.
  Status finishCollectives(size_t k, bool started = false);
  /// The hoisted casts after kernel `k` (castsAfter_), from the `from`-th:
  /// the next step's 16-bit copies of the state `k` wrote.
  Status runHoistedCasts(size_t k, size_t from);
  /// ZeRO-1's kernels (SessionShards.cpp): this rank's shards of whole
  /// tensors; the reduce-scatter of gradients started (finished by
  /// finishReduceScatter); the updated shards gathered whole; the verdict
  /// combined over the ranks; the norm clip of the shards. The last three
  /// wait.
  Status takeShards(size_t k);
  Status startReduceScatter(size_t k);
  Status finishReduceScatter(size_t k);
  Status gatherShards(size_t k);
  Status combineVerdicts(size_t k);
  Status clipShards(size_t k);
  /// ZeRO-1 kernel `c`'s world size checked against the plan's, and the
  /// blocks its reduce-scatter or all-gather sends and receives sized.
  Status collectShardKernel(size_t c);
  /// A ZeRO-1 plan on another number of ranks than it was built for.
  Status checkWorldSize() const;
  static constexpr size_t kAllCollectives = ~size_t(0);
  /// Ends the binding of `tensor`, if any (setTensor() then copies).
  void unbind(uint32_t tensor);
  /// Ends the step's bindings: each pointer back to the session's memory;
  /// after a failed step the bound batch is copied there first.
  void releaseBindings(bool stepFailed);
  /// Copies session memory to session memory (host or device).
  Status copyBetween(uint8_t *to, const uint8_t *from, size_t bytes);

  /// value -> state after a step; through `stage` when another result
  /// overwrites the value first.
  struct StateCopy {
    const uint8_t *value;
    uint8_t *state;
    size_t bytes;
    uint8_t *stage;
  };

  Plan plan_;
  std::unique_ptr<Backend> backend_;
  DeviceMemory *device_ = nullptr; ///< backend_'s, or null: host memory
  uint64_t planHash_ = 0;
  Memory state_, arena_, staging_, constants_, alternate_;
  /// Double-buffered state: a persistent tensor S replaced by a value V
  /// that nothing else reads after the step has two slots, its own and one
  /// in alternate_. A step reads S from one slot and its kernels write V
  /// into the other; a completed step flips `parity_`, so V becomes S
  /// without a copy, and a failed one leaves S untouched. Every view below
  /// exists once per parity; they differ only for such S and V.
  int parity_ = 0;
  std::vector<TensorView> views_[2]; ///< per tensor id
  std::vector<std::vector<TensorView>> kernelInputs_[2], kernelOutputs_[2];
  /// Persistent updates that are not double-buffered: copied after a step.
  std::vector<StateCopy> copies_[2];
  uint64_t doubleBufferedBytes_ = 0;
  /// A cast of a double-buffered weight (an mp.cast reading state S and
  /// writing scratch C, the 16-bit copy the forward pass uses) is hoisted:
  /// C gets two slots like S, and the cast runs right after the kernel
  /// that writes S's new value (a part of that kernel's Fused entry: the
  /// cpu backend writes it in the optimizer's pass), into the slot the
  /// next step reads. Setting S from outside (init, setTensor, a checkpoint)
  /// makes the copy again (refreshCasts).
  struct HoistedCast {
    uint32_t kernel;      ///< the mp.cast, no longer run in its place
    uint32_t state, copy; ///< S and C
    uint32_t producer;    ///< the kernel writing S's new value
    size_t output;        ///< which of its outputs that is
  };
  std::vector<HoistedCast> hoisted_;
  std::vector<std::vector<size_t>> castsAfter_; ///< per kernel: hoisted_ ids
  /// The plan's fused kernels (Backend::FusedKernel): one per kernel the
  /// layout flags join parts to, with the parts its backend took
  /// (Backend::fuses, asked once here). A part taken runs in the kernel's
  /// pass; the others run as kernels of their own: a ReLU in its place, a
  /// hoisted cast right after the kernel, a gradient check in its place
  /// (a check is fused only where every update that reads one of its
  /// operands takes it: the check then sets the verdict to true in its
  /// place, setsVerdict_, and the updates clear it).
  struct Fused {
    Backend::FusedKernel kernel;
    uint32_t taken = 0;      ///< Backend::FusedKernel::k* bits
    int32_t check = -1;      ///< the fused check's kernel, when kCheck taken
    int32_t activation = -1; ///< the ReLU's kernel, when kRelu/kReluGrad taken
  };
  std::vector<Fused> fused_;
  std::unique_ptr<Communicator> comm_ = singleProcessCommunicator();
  /// On a device backend over several ranks: the backend's communicator
  /// over comm_ (destroyed first), which runs the plan's collectives.
  std::unique_ptr<Communicator> deviceComm_;
  Communicator &kernelComm() const {
    return deviceComm_ ? *deviceComm_ : *comm_;
  }
  /// A device backend's collective kernel `k`: its operands copied into its
  /// results on the device, the reductions started on kernelComm().
  Status startDeviceCollective(size_t k);
  /// Ends a step on a device backend: the collectives settled (bounded),
  /// then the backend's queue (DeviceMemory::finishStep); the first error.
  Status finishDeviceStep();
  std::vector<uint32_t> collectives_; ///< their kernel indices
  /// Per kernel: the collectives to finish before it runs.
  std::vector<std::vector<uint32_t>> waitBefore_;
  /// The collectives in flight: kernel, one request per result (f32) or
  /// one for the bucket (bf16).
  std::vector<std::pair<uint32_t, std::vector<Communicator::Request>>>
      inFlight_;
  /// Per kernel: the bf16 bucket a reduce_dtype=bf16 reduction sends
  /// (empty for the others).
  std::vector<std::vector<uint16_t>> bf16Bucket_;
  /// Per kernel: the f32 bucket its small results are reduced in, packed
  /// (empty where it has fewer than two).
  std::vector<std::vector<float>> packed_;
  /// Per ZeRO-1 reduce-scatter or all-gather: the packed block it sends
  /// and the one it receives, in session memory (host or device); the
  /// padding in them is zero from the allocation on and never written.
  std::vector<Memory> shardSend_, shardRecv_;
  /// `count` floats copied, or zeroed, in session memory (host or device).
  Status copyFloats(float *to, const float *from, int64_t count);
  Status zeroFloats(float *to, int64_t count);
  int64_t shardedOver_ = 0;
  /// Whether the step waits for each reduction as soon as it starts
  /// ($MP_COLLECTIVE_OVERLAP=0: the measurement without overlap).
  bool overlapCollectives_ = true;
  /// Time spent waiting for reductions, over every step run.
  std::chrono::nanoseconds collectiveWait_{0};
  /// The inputs bound for the next step: tensor, the caller's memory.
  std::vector<std::pair<uint32_t, const uint8_t *>> bound_;
  /// Per tensor bound once: its BindUses (computed on first bind).
  std::unordered_map<uint32_t, std::vector<BindUse>> bindUses_;
  /// Tensors bound for a step and not set since (checkBound's message).
  std::vector<uint32_t> released_;
  std::vector<int32_t> fusedAt_;   ///< per kernel: its fused_ entry, or -1
  std::vector<bool> setsVerdict_;  ///< per kernel: a fused check
  std::vector<bool> runsWithHost_; ///< per kernel: a ReLU taken by its host
  /// Declares the fused kernels to the backend (after bindKernelViews).
  void collectFusedKernels();
  /// Per kernel: not run in its place (a hoisted cast, an aliased reshape).
  std::vector<bool> skipped_;
  Memory castSlots_;
  Status refreshCasts(uint32_t state);
  /// The plan's hoisted casts (KernelDesc::isHoistedCast) of the states
  /// of `flipped`, the double-buffered results.
  void collectHoistedCasts(const std::vector<const ResultDesc *> &flipped);
  Status placeHoistedCasts();
  /// Runs kernel `k` with what the layout adds to it (its hoisted casts,
  /// the parts its backend took); with `fuseActivations`, its fused ReLU
  /// too (else the ReLU runs in its own place: runStepWatched).
  Status runKernel(size_t k, bool fuseActivations = true);
  /// Loads the plan's generated code where the backend runs it (else
  /// records why not in codeStatus_: a backend without generated host
  /// code, a CPU without a variant, MP_GENERATED_CODE=off run the
  /// regions' kernels one by one). A library that is not the plan's
  /// (missing, truncated, another checksum or id) fails the session: the
  /// plan would train with other numbers under its own name.
  Status useGeneratedCode();
  /// Runs fused region `r` (code_ loaded).
  Status runRegion(size_t r);
  std::unique_ptr<CodeLibrary> code_;
  std::string codeStatus_;
  /// Per region and parity: its operands' addresses.
  std::vector<std::vector<void *>> regionOperands_[2];
  /// Per kernel: the region that starts there, or -1 (code_ loaded).
  std::vector<int32_t> regionAt_;
  /// The plan's views (KernelDesc::isView) get their input's storage and
  /// are not run.
  void followViews();
  std::vector<TensorInfo> infos_;
  std::unordered_map<std::string, size_t> byName_;
  std::vector<uint32_t> unbound_; ///< inputs and labels never set
  uint32_t lossTensor_ = 0;
  int64_t allFiniteTensor_ = -1, lossScaleTensor_ = -1;
  /// Check results (ResultRole::Check): each must be true after a step.
  std::vector<uint32_t> checkTensors_;
  bool haveResults_ = false; ///< a step has run and its results are valid
  bool failedCheck_ = false;  ///< the last step failed a check
  float lastLoss_ = 0;
  bool profiling_ = false;
  /// Per kernel index: seconds and runs; the state copies last.
  std::vector<double> kernelSeconds_;
  double copySeconds_ = 0;
  int64_t profiledSteps_ = 0;
  int64_t stepsRun_ = 0, stepsSkipped_ = 0, lastOverflowStep_ = -1;
};

} // namespace mp::rt

#endif // MP_RUNTIME_SESSION_H
