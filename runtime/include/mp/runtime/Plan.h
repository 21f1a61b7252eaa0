//===- Plan.h - the executable plan -----------------------------*- C++ -*-===//
//
// What the compiler hands the runtime: tensors (with their role, dtype,
// shape and storage), a schedule of kernels, the step's results and a
// static memory plan for scratch tensors. Written by mp-compile, read and
// validated by the runtime; the file format is in docs/plan-format.md.
// No MLIR here: the runtime does not depend on the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_PLAN_H
#define MP_RUNTIME_PLAN_H

#include "mp/runtime/OpTable.h"
#include "mp/runtime/Status.h"
#include "mp/runtime/Vocabulary.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mp::rt {

enum class DType : uint32_t { F32 = 0, BF16 = 1, F16 = 2, I1 = 3, I32 = 4, I64 = 5 };

/// Bytes per element (i1 is stored as one byte).
size_t dtypeSize(DType dtype);
const char *dtypeName(DType dtype); ///< "f32", "bf16", ...
bool isFloat(DType dtype);
/// "[2, 3]": how messages print shapes.
std::string formatShape(const std::vector<int64_t> &shape);

enum class TensorKind : uint32_t {
  Scratch = 0,     ///< lives in the arena at `offset` while live
  Param = 1,       ///< persistent, named
  OptState = 2,    ///< persistent, named
  Buffer = 3,      ///< persistent, named (batch-norm running statistics)
  ScalerState = 4, ///< persistent, named, starts at `initialValue`
  Input = 5,       ///< bound by the caller every step
  Label = 6,       ///< bound by the caller every step
  Constant = 7,    ///< data at `offset` in Plan::constants
};
bool isPersistent(TensorKind kind);
const char *tensorKindName(TensorKind kind); ///< "param", "scratch", ...

struct TensorDesc {
  TensorKind kind = TensorKind::Scratch;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::string name;        ///< for persistent tensors, inputs and labels
  uint64_t offset = 0;     ///< arena offset (scratch) or constant offset
  double initialValue = 0; ///< scaler state only
  /// ZeRO-1 (version 9): this optimizer state is a rank's shard, 1-D
  /// [ceil(n / ranks)], of a tensor of `wholeShape` (checkpoints keep it
  /// whole). Not sharded when empty and `sharded` false.
  bool sharded = false;
  std::vector<int64_t> wholeShape;

  /// -1 when a dimension is negative or the product overflows int64.
  int64_t numElements() const;
  uint64_t byteSize() const { return numElements() * dtypeSize(dtype); }
};

/// A kernel attribute: integers (flags, dims, enums as ints), floats, or a
/// string (layouts, predicates).
struct Attr {
  enum class Kind : uint8_t { Ints = 0, Floats = 1, String = 2 };
  Kind kind = Kind::Ints;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::string str;
};

struct KernelDesc {
  std::string op; ///< the MLIR op name, e.g. "train.matmul", "mp.cast"
  std::vector<uint32_t> inputs, outputs; ///< tensor ids
  /// The attributes the plan carries (mp-compile writes defaults too); an
  /// absent one reads as its ODS default (OpTable.h).
  std::map<std::string, Attr> attrs;
  /// `op`'s id: set when a plan is loaded (resolveOpIds); Unknown in a
  /// kernel made by hand, whose opId() then looks the name up.
  OpId id = OpId::Unknown;
  /// Layout decisions (kViewKernel, kHoistedCastKernel, kFusedCheckKernel):
  /// made by layOutPlan, checked by validate(), executed by the session.
  uint32_t flags = 0;
  /// Where the kernel comes from (version 6; "" when unknown): the MLIR
  /// location of its op, which for exported models is the user's
  /// file:line, and the precision decision the pipeline recorded on it
  /// ("f16 allow (rule allow, source default)"). For diagnostics only:
  /// no kernel reads them.
  std::string location, precision;

  OpId opId() const;
  /// A train.reshape whose result is its input's bytes: not run.
  bool isView() const { return flags & kViewKernel; }
  /// A collective (train.all_reduce, train.rank_broadcast, and ZeRO-1's
  /// train.reduce_scatter, rank_shard, all_gather, all_ranks and
  /// clip_grad_norm_shards): run by the session's communicator, not by a
  /// backend (docs/distributed.md).
  bool isCollective() const;
  /// An mp.cast of a double-buffered state: run when the state changes.
  bool isHoistedCast() const { return flags & kHoistedCastKernel; }
  /// An mp.all_finite the optimizer updates may check for it.
  bool isFusedCheck() const { return flags & kFusedCheckKernel; }
  /// A ReLU (or its gradient) run with its batch norm neighbour.
  bool isFusedActivation() const { return flags & kFusedActivationKernel; }

  /// The result is a view of the input (one dtype, one byte size): the
  /// session gives it the input's storage and skips the kernel.
  static constexpr uint32_t kViewKernel = 1u << 0;
  /// The cast's input is the state of a double-buffered result and its
  /// result a scratch copy nothing else writes: the copy lives outside the
  /// arena in two slots like the state, made when the state is set and
  /// right after the kernel writing the state's new value (into the slot
  /// the next step reads), not in the cast's place.
  static constexpr uint32_t kHoistedCastKernel = 1u << 1;
  /// An mp.all_finite whose result no kernel reads (the step's verdict,
  /// returned) and each of whose operands an optimizer update later in the
  /// schedule reads whole as its gradient (gradientCheckers): a backend
  /// that takes the check into those updates (Backend::FusedKernel::kCheck)
  /// sets the verdict to true in the check's place and has those updates clear
  /// it, which saves a pass over every gradient; another backend runs the
  /// check where it is.
  static constexpr uint32_t kFusedCheckKernel = 1u << 2;
  /// A train.relu right after the train.batch_norm whose result y it
  /// reads, or a train.relu_grad right before the train.batch_norm_grad
  /// that reads its result as grad_y, the tensor between them read by no
  /// other kernel and no step result (fusedActivationHost): the session
  /// declares it a part of its neighbour's fused kernel
  /// (Backend::FusedKernel::kRelu / kReluGrad): a backend that takes it
  /// writes relu(y) without y, or reads the gradient masked by the ReLU's
  /// output without the masked copy (one pass over the activation each way
  /// fewer); another runs it in its place. Every tensor of the pair lives
  /// through both kernels (memory plan and validate()).
  static constexpr uint32_t kFusedActivationKernel = 1u << 3;
  static constexpr uint32_t kKnownFlags = kViewKernel | kHoistedCastKernel |
                                          kFusedCheckKernel |
                                          kFusedActivationKernel;

  /// Typed attribute access for kernels, by the generated name (a
  /// misspelt one does not compile): the attribute, else its ODS default,
  /// else `fallback` (or null).
  int64_t getInt(AttrName name, int64_t fallback) const;
  double getFloat(AttrName name, double fallback) const;
  bool getFlag(AttrName name) const; ///< unit/bool attributes
  bool has(AttrName name) const;     ///< present in the kernel itself
  const std::vector<int64_t> *getInts(AttrName name) const;
  const std::string *getString(AttrName name) const;
};

/// Whether the session runs op `id` on its communicator rather than on a
/// backend (KernelDesc::isCollective).
bool isCollectiveOp(OpId id);
/// The op named `name`; OpId::Unknown when there is none.
OpId findOp(std::string_view name);
/// Its schema (id must not be Unknown) and name ("<unknown op>" for
/// Unknown).
const OpSchema &opSchema(OpId id);
const char *opName(OpId id);
/// Whether plans run op `id` as a kernel: every op but constants (whose
/// value a plan holds as a constant tensor). Each has a reference kernel
/// (ReferenceBackend.RunsEveryDialectOp), so this is what the compiler
/// lowers into plans.
bool isKernelOp(OpId id);
/// The schema of attribute `name` of op `id`; null when it has none.
const AttrSchema *findAttrSchema(OpId id, std::string_view name);
const AttrSchema *findAttrSchema(OpId id, AttrName name);
const char *attrName(AttrName name); ///< "axis"
/// Checks `kernel` against its op's schema (the op is one plans run, its
/// operand and result counts, each attribute known, of its kind, required
/// ones present, enum values spelled as a case); the message names the op.
Status checkKernelSchema(const KernelDesc &kernel);

enum class ResultRole : uint32_t {
  Loss = 0,
  Param = 1,
  OptState = 2,
  Buffer = 3,
  ScalerState = 4,
  Output = 5,
  /// A 0-d i1 the step must compute as true for its state to be kept
  /// (mp-guard-finite's all-finite gradients): false fails the step, and
  /// the session keeps the state it had before it.
  Check = 6,
};

const char *resultRoleName(ResultRole role); ///< "loss", "param", ...

struct ResultDesc {
  ResultRole role = ResultRole::Output;
  uint32_t value = 0;             ///< the tensor the step computes
  uint32_t state = UINT32_MAX;    ///< persistent: the tensor it replaces
  std::string name;
  uint32_t flags = 0;             ///< kDoubleBuffered (layOutPlan)

  bool isDoubleBuffered() const { return flags & kDoubleBuffered; }

  /// A persistent update whose value (a scratch tensor no other result
  /// names) the kernels write into a second slot of the state, outside the
  /// arena: a completed step flips the two slots instead of copying, and a
  /// failed one leaves the state untouched.
  static constexpr uint32_t kDoubleBuffered = 1u << 0;
  static constexpr uint32_t kKnownFlags = kDoubleBuffered;
};

/// Whether `result` replaces a persistent tensor with a new value.
bool isStateUpdate(const ResultDesc &result);

/// A run of consecutive kernels that mp-compile also compiled into one
/// native function (docs/codegen.md): the kernels stay in the plan (the
/// reference backend runs them one by one, the oracle), a backend that
/// runs generated code calls the function instead. The function's
/// arguments are the base addresses of `operands` in order, then the
/// range [begin, end) of `extent` it computes:
///   void symbol(void *const *operands, int64_t begin, int64_t end);
/// every range of [0, extent) computes the same elements whatever the
/// split, so a backend may split it over threads.
struct FusedRegion {
  std::string symbol;            ///< in the plan's code library
  uint32_t first = 0, count = 0; ///< kernels [first, first + count)
  /// Tensor ids: the region's inputs (read, written before it) first,
  /// then its outputs (written by its kernels and read after it or
  /// returned); tensors the region both makes and consumes are not
  /// operands and are not written.
  std::vector<uint32_t> operands;
  uint32_t numInputs = 0;
  /// What [begin, end) counts: elements of the region's tensors (its
  /// shape is one run of elements) or rows of `rowLength` elements (its
  /// kernels broadcast a row, bias_add along the last dimension).
  int64_t extent = 0, rowLength = 1;
};

/// The native code a plan names: a shared library next to the plan file
/// with one function per fused region, in one variant per instruction set
/// (`symbol` + "_avx512" / "_avx2"), and `uint64_t mp_code_id()` returning
/// `id`, so that a library written for another plan is refused. The
/// library's size and checksum belong to the plan (version 7) and are
/// checked before the library is loaded: a truncated or replaced file is
/// refused with a message, never handed to dlopen (which crashes on a
/// truncated one).
struct PlanCode {
  std::string library; ///< a file name (no '/'), in the plan file's folder
  uint64_t id = 0;     ///< also what the library's mp_code_id() returns
  uint64_t librarySize = 0; ///< bytes; 0: not recorded (version 5 and 6)
  uint64_t libraryHash = 0; ///< FNV-1a 64 of the library's bytes
  std::vector<FusedRegion> regions; ///< in kernel order, disjoint
  /// Set by readPlanFile: `library` resolved against the plan's folder.
  std::string resolvedPath;

  bool empty() const { return regions.empty(); }
};

struct Plan {
  /// 2: a train.reshape whose result has its input's arena offset is a
  /// view; version 1 had no views. 3: results may have the role Check.
  /// 4: the layout is recorded (kernel and result flags: views, hoisted
  /// casts, double-buffered state) and executed as written. 5: the plan
  /// may name generated code for runs of its kernels (PlanCode). 6: each
  /// kernel records its source location and precision decision. 7: the
  /// code library's size and checksum. 8: the compile options the plan
  /// was built with. 9: the optimizer state a ZeRO-1 plan shards (its
  /// whole shapes). Versions 4 to 8 are read too (without code, sources,
  /// checksum, options or shards); another version is rejected by
  /// version: recompile it.
  static constexpr uint32_t kVersion = 9;
  static constexpr uint32_t kOldestVersion = 4;
  /// float32, mixed_bfloat16 or mixed_float16 (vocab::PolicyKind; a plan
  /// built in code without one is a float32 plan, as a step without
  /// mp.policy is); validate() refuses any other.
  std::string policy = vocab::stringify(vocab::PolicyKind::Float32);
  /// The --mixed-precision options the plan was compiled with, as given
  /// ("" when none were, or for plans before format 8). A record for tools
  /// that recompile the step (mp-run --auto-fix); not part of planHash.
  std::string compileOptions;
  std::vector<TensorDesc> tensors;
  std::vector<KernelDesc> kernels;
  std::vector<ResultDesc> results;
  uint64_t arenaSize = 0;
  std::vector<uint8_t> constants;
  PlanCode code; ///< empty: every kernel runs as a kernel

  /// Checks internal consistency: ids in range, shapes non-negative,
  /// scratch tensors inside the arena, constants inside the blob, every
  /// kernel input defined before use, persistent results paired with a
  /// persistent tensor of the same dtype and shape, every layout flag
  /// where its conditions hold. The message names the offending kernel or
  /// tensor. Each kernel is checked against its op's schema
  /// (checkKernelSchema).
  Status validate() const;
};

/// Whether tensor `id` of `plan` is a frozen buffer: a buffer no result
/// replaces (the step only reads it; `train.frozen` in the step). Its
/// value comes from outside: initial params or a checkpoint.
bool isFrozenBuffer(const Plan &plan, uint32_t id);

/// Whether tensor `id` is a dropout key: a frozen 0-d i32/i64 buffer that
/// a train.dropout (or dropout_grad) reads as its key. Session::initParams
/// draws it from the seed, so that initial params need not carry it; a
/// checkpoint keeps it like any buffer.
bool isDropoutKey(const Plan &plan, uint32_t id);

/// Serializes / parses the binary plan format (docs/plan-format.md). The
/// reader rejects a wrong magic, an unknown version, a truncated file, a
/// checksum mismatch and an inconsistent plan with a DataLoss or
/// InvalidArgument status naming the file.
std::vector<uint8_t> serializePlan(const Plan &plan);
StatusOr<Plan> parsePlan(const std::vector<uint8_t> &bytes,
                         const std::string &origin);
Status writePlanFile(const Plan &plan, const std::string &path);
StatusOr<Plan> readPlanFile(const std::string &path);

/// Records the size and checksum of the code library at `libraryPath` in
/// `plan.code` (mp-compile, after writing the library).
Status stampCodeLibrary(Plan &plan, const std::string &libraryPath);

/// Whether the file `code.resolvedPath` is the library `code` records:
/// DataLoss naming the file and what differs (size, checksum, none
/// recorded) otherwise; NotFound when it is missing.
Status checkCodeLibrary(const PlanCode &code);

/// Sets every kernel's id from its op name (after validate(): names the
/// op table does not have become Unknown). parsePlan and Session do it.
void resolveOpIds(Plan &plan);

/// A 64-bit FNV-1a hash of the serialized plan: checkpoints record it.
uint64_t planHash(const Plan &plan);

/// Alignment of every arena offset mp-compile plans and of every tensor the
/// session allocates: a cache line, enough for any vector load.
constexpr uint64_t kPlanAlignment = 64;

/// Whether `op` is an optimizer update whose input #1 is the gradient it
/// reads whole (train.sgd, sgd_momentum, adam, adamw).
bool isOptimizerUpdate(OpId op);

/// For an mp.all_finite kernel `check` of `plan`: per operand, the first
/// later kernel that is an optimizer update reading it as its gradient
/// (same element count); empty when an operand has none, the check's
/// result is read by a kernel or an id is out of range. The check can be
/// fused (KernelDesc::kFusedCheckKernel) when it is not empty.
std::vector<uint32_t> gradientCheckers(const Plan &plan, size_t check);

/// For a train.relu or train.relu_grad kernel `k` of `plan`: the index of
/// the batch norm kernel it can run with (KernelDesc::kFusedActivationKernel:
/// k - 1 for a relu of a batch_norm's y, k + 1 for a relu_grad whose result
/// is the next batch_norm_grad's grad_y), or -1.
int64_t fusedActivationHost(const Plan &plan, size_t k);

/// Makes the plan's layout decisions, as mp-compile does for every plan:
/// - double-buffered state: a persistent update whose value is a scratch
///   tensor no other result names, of a state that is no result's value;
/// - hoisted casts: an mp.cast of such a state into a scratch tensor that
///   is no step result;
/// - views: a train.reshape whose result (scratch, no step result) has its
///   input's dtype and element count;
/// - fused checks: an mp.all_finite with gradientCheckers;
/// - fused activations: a relu / relu_grad with a fusedActivationHost;
/// then the arena (planMemory). Replaces the flags the plan had.
void layOutPlan(Plan &plan, uint64_t alignment = kPlanAlignment);

/// Assigns arena offsets to the scratch tensors of `plan` so that tensors
/// whose lifetimes (first kernel writing them .. last kernel reading them,
/// or the end of the step for results) overlap never share bytes, following
/// the plan's layout flags: a view takes its input's offset (the bytes stay
/// live while either is read), tensors outside the arena (outsideArena)
/// get none. Sets plan.arenaSize. Offsets are aligned to `alignment`.
void planMemory(Plan &plan, uint64_t alignment = kPlanAlignment);

/// Per tensor: the tensor whose storage it is -- itself, or for the result
/// of a view kernel (KernelDesc::isView) its input's root. Ids out of
/// range are left alone (validate() reports them).
std::vector<uint32_t> storageRoots(const Plan &plan);
/// Per tensor: whether it is a scratch tensor the session keeps outside
/// the arena -- the value of a double-buffered result, a hoisted cast's
/// result, or a view of a tensor that is not in the arena.
std::vector<bool> outsideArena(const Plan &plan);

/// What a step's memory plan holds.
struct PlanMemoryStats {
  /// The scratch arena: the high-water mark of every temporary of a step
  /// (activations, 16-bit copies of parameters, gradients, ...).
  uint64_t arenaBytes = 0;
  /// Activations saved for the backward pass: scratch tensors computed
  /// from the step's inputs (through any chain of kernels) before its
  /// train.grad_seed and still read at or after it. 0 without a
  /// grad_seed (a forward-only plan).
  uint64_t savedActivationBytes = 0;
  /// The persistent state, outside the arena: parameters (the master
  /// weights, f32 under a mixed policy), optimizer state, and buffers
  /// (running statistics, loss-scaler state).
  uint64_t paramBytes = 0, optStateBytes = 0, bufferBytes = 0;
};
PlanMemoryStats planMemoryStats(const Plan &plan);

} // namespace mp::rt

#endif // MP_RUNTIME_PLAN_H
