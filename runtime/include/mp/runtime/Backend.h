//===- Backend.h - where kernels run ----------------------------*- C++ -*-===//
//
// A backend runs the kernels of a plan on tensor views. The reference
// backend (portable C++, every op in f32/bf16/f16) defines correct results;
// faster backends (oneDNN, CUDA) are tested against it.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_BACKEND_H
#define MP_RUNTIME_BACKEND_H

#include "mp/runtime/Communicator.h"
#include "mp/runtime/CpuFeatures.h"
#include "mp/runtime/DeviceMemory.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace mp::rt {

/// The signature of a fused region's generated function (FusedRegion).
using FusedFunction = void (*)(void *const *operands, int64_t begin,
                               int64_t end);

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char *name() const = 0;
  /// One line for logs (mp-run --verbose): the name and, where it matters,
  /// what the backend runs on (the cpu backend: oneDNN version and ISA).
  virtual std::string describe() const { return name(); }

  /// Whether this backend runs `kernel` with the dtypes, shapes and
  /// attributes of `plan`: Ok, or why not (the message names the op and
  /// why). Pure: it creates, records and changes nothing, so any caller may
  /// ask it of any plan (a session asks it of every kernel before it
  /// prepares one, and names every kernel the backend declines at once).
  virtual Status supports(const KernelDesc &kernel, const Plan &plan) const = 0;

  /// Once per kernel of a plan, when a session is created (before any
  /// step): supports() first, then decides what runs
  /// it (the backend's table, indexed by the kernel's OpId: a fast path or
  /// the reference kernel, chosen here, not at run time; implementationOf
  /// reports the choice) and makes what it needs (oneDNN primitives, device
  /// workspace). `kernel` stays where it is while the backend runs it.
  /// The default, for a backend with nothing to decide or make: supports().
  virtual Status prepare(const KernelDesc &kernel, const Plan &plan) {
    return supports(kernel, plan);
  }

  /// Runs one kernel, as prepare() decided (a backend prepares a kernel it
  /// has not seen from the views, for callers that run kernels by hand).
  /// `inputs` and `outputs` follow kernel.inputs/outputs; outputs never
  /// alias inputs. Data errors (a label out of range) are reported as
  /// InvalidArgument.
  virtual Status run(const KernelDesc &kernel,
                     const std::vector<TensorView> &inputs,
                     const std::vector<TensorView> &outputs) = 0;

  /// A declared fused kernel: a kernel of the plan and the kernels the
  /// plan's layout flags join to it (KernelDesc::kHoistedCastKernel,
  /// kFusedCheckKernel, kFusedActivationKernel; docs/plan-format.md). Each
  /// part keeps its own op's semantics: run together, the results are what
  /// the kernels give one after the other. A session declares each one to
  /// its backend once, when it is created (fuses()), and runs the parts the
  /// backend takes in the kernel's pass (runWith()); it runs every other
  /// part as a kernel of its own, so a backend that fuses nothing runs any
  /// plan.
  struct FusedKernel {
    const KernelDesc *kernel = nullptr; ///< the kernel the parts join
    /// kCast: an mp.cast of output #`castOutput`, the f32 weight an
    /// optimizer update writes, into its 16-bit copy (the session's
    /// hoisted cast, whose result goes to the slot the next step reads).
    const KernelDesc *cast = nullptr;
    size_t castOutput = 0;
    /// kCheck: the mp.all_finite one of whose operands is this optimizer
    /// update's gradient (input #1): the update clears the step's verdict
    /// when the gradient holds an inf or a NaN, and leaves it otherwise.
    const KernelDesc *check = nullptr;
    /// kRelu: a train.relu of the batch_norm's y (output #0, read by
    /// nothing else): relu(y) may be written without y.
    const KernelDesc *relu = nullptr;
    /// kReluGrad: a train.relu_grad whose result is the
    /// batch_norm_grad's grad_y (input #0, read by nothing else): the
    /// gradient masked by the ReLU may be read instead of it.
    const KernelDesc *reluGrad = nullptr;

    static constexpr uint32_t kCast = 1u << 0, kCheck = 1u << 1,
                              kRelu = 1u << 2, kReluGrad = 1u << 3;
    /// The parts this kernel has (k* bits).
    uint32_t parts() const {
      return (cast ? kCast : 0) | (check ? kCheck : 0) | (relu ? kRelu : 0) |
             (reluGrad ? kReluGrad : 0);
    }
  };
  /// Where the parts of a FusedKernel read and write in one run; a part
  /// whose field is null is not run with the kernel this time.
  struct FusedViews {
    const TensorView *castOut = nullptr; ///< kCast: the cast's result
    uint8_t *allFinite = nullptr;        ///< kCheck: the verdict, host memory
    const TensorView *reluOut = nullptr; ///< kRelu: the ReLU's result
    /// kReluGrad: the relu_grad's inputs (the gradient, the ReLU's output).
    const std::vector<TensorView> *reluGradIn = nullptr;
  };

  /// Which parts of `fused` this backend runs in the kernel's own pass on
  /// views like `inputs`, `outputs` and `parts` (their data is not read):
  /// FusedKernel::k* bits, a subset of fused.parts(). Asked once per fused
  /// kernel when a session is created, after prepare(); a backend records
  /// its choice here (implementationOf). The default: none.
  virtual uint32_t fuses(const FusedKernel &fused,
                         const std::vector<TensorView> &inputs,
                         const std::vector<TensorView> &outputs,
                         const FusedViews &parts) {
    return 0;
  }

  /// Runs fused.kernel and, in its pass, the parts `parts` names: only
  /// parts fuses() took for views like these.
  virtual Status runWith(const FusedKernel &fused,
                         const std::vector<TensorView> &inputs,
                         const std::vector<TensorView> &outputs,
                         const FusedViews &parts) {
    return unimplemented(std::string(name()) + " fuses no parts into " +
                         fused.kernel->op);
  }

  /// What runs `kernel`, in a few words ("oneDNN brg_matmul:avx2 on f32,
  /// bf16 widened", "own loop", "reference kernel"): the backend's record of
  /// its decision, for mp-run --verbose. "" when it has not prepared it.
  virtual std::string implementationOf(const KernelDesc &kernel) const {
    return "";
  }

  /// Whether this backend calls the host functions mp-compile generates
  /// for fused regions (PlanCode, docs/codegen.md): the cpu backend does.
  /// The session then loads the plan's code library and, for each region,
  /// calls runFused instead of running the region's kernels; a backend
  /// that does not (the reference, the oracle) runs the kernels.
  virtual bool runsGeneratedCode() const { return false; }
  /// Runs `fn` (the region's generated function) over [0, region.extent)
  /// on `operands` (the region's operands' base addresses, in order),
  /// splitting the range as the backend likes.
  virtual Status runFused(const FusedRegion &region, FusedFunction fn,
                          void *const *operands) {
    return unimplemented(std::string(name()) + " does not run generated code");
  }

  /// Non-null when the kernels run on device memory: the session then
  /// allocates and copies every tensor through it (DeviceMemory.h), and the
  /// views run() gets point into device memory.
  virtual DeviceMemory *deviceMemory() { return nullptr; }

  /// For a backend with deviceMemory(): the communicator that runs a
  /// data-parallel step's collectives on its device memory, over the same
  /// ranks as `host` (which it may use to set itself up, and keeps using
  /// for what it cannot do itself: agree(), missingRanks()); `host` outlives
  /// it. The cuda backend's: NCCL, on a stream of its own. The default: a
  /// backend that has none says so (Unimplemented).
  virtual StatusOr<std::unique_ptr<Communicator>>
  deviceCommunicator(Communicator &host) {
    return unimplemented(std::string("the ") + name() +
                         " backend keeps tensors in device memory and has "
                         "no communicator for them");
  }
};

/// A backend this runtime knows: its name, a line on what it is, whether
/// (and why not) it can run here, and how to make one.
struct BackendEntry {
  const char *name;
  const char *summary;
  Status (*available)();
  StatusOr<std::unique_ptr<Backend>> (*create)();
};

/// Every backend of this runtime (core/BackendRegistry.cpp), built in or
/// not (one that is not says so through `available`), in the order the
/// default tries them: cpu, then reference. cuda is never the default.
const std::vector<BackendEntry> &backendRegistry();

/// The backend `name`; "" or "default": the first available one of the
/// registry's default order. NotFound, listing the names, for others.
StatusOr<std::unique_ptr<Backend>> createBackend(const std::string &name);

/// Ok when the backend `name` can run here; otherwise why not.
Status backendStatus(const std::string &name);

/// The portable C++ backend.
std::unique_ptr<Backend> createReferenceBackend();

/// Op names the reference backend runs ("train.matmul", "mp.cast", ...).
const std::vector<std::string> &referenceBackendOps();

/// The CPU backend on oneDNN v3: train.matmul and train.conv2d run on cached
/// oneDNN primitives, f32 <-> bf16 casts on own loops, every other op on the
/// reference kernels, so it runs any plan the reference backend runs.
/// Unimplemented when the runtime was built without oneDNN or oneDNN cannot
/// create a CPU engine here (the message says which); docs/runtime-cpu.md.
StatusOr<std::unique_ptr<Backend>> createCpuBackend();

/// Ok when createCpuBackend() succeeds; otherwise why it cannot (so that a
/// tool can say why the default fell back to the reference backend).
Status cpuBackendStatus();

/// This machine's 16-bit matmul speed against f32 on the cpu backend's
/// oneDNN (MatmulSpeed, CpuFeatures.h), for the dtypes whose instructions
/// the CPU has (all zero on a CPU with none, or where oneDNN cannot run).
/// Measured once per machine, in about 0.2 s, and kept in
/// the cache folder ($MP_CACHE_DIR, else $XDG_CACHE_HOME/mp, else
/// ~/.cache/mp; MP_CACHE_DIR=off measures in every process) under the
/// CPU's model and features, the ISA cap, oneDNN's version and ISA and the
/// thread count; a lock makes the processes of one machine (the ranks of a
/// job) measure once and read the same numbers.
const MatmulSpeed &cpuMatmulSpeed();

/// policySpeedWarning(policy, speed) for a plan on the cpu backend here,
/// with cpuMatmulSpeed() asked only for a 16-bit policy whose
/// instructions the CPU has (nothing is measured for float32).
std::string cpuPolicySpeedWarning(const std::string &policy);

/// policy=auto on this machine: autoPolicy(target, reason, speed) with
/// cpuMatmulSpeed() for "cpu" (nothing is measured for another target).
std::string chooseAutoPolicy(const std::string &target, std::string &reason);

/// Threads of the cpu backend's own kernels (casts, elementwise ops,
/// reductions, optimizer updates); results do not depend on the count.
/// Default: MP_NUM_THREADS, else every hardware thread. `threads` <= 0
/// restores the default. oneDNN's primitives follow it where oneDNN's
/// threading runtime lets the count be set before its engine is created
/// (docs/runtime-cpu.md).
void setCpuThreads(int threads);
int cpuThreads();
/// MP_NUM_THREADS: 0 when unset, the count when it is one (1 to 4096), an
/// error naming the value otherwise. createBackend refuses a bad value, so
/// that no front door ignores it.
StatusOr<int> threadsFromEnvironment();

/// What the CUDA backend may do beyond the defaults.
struct CudaBackendOptions {
  /// f32 matmuls on TF32 Tensor Cores (10-bit mantissa products, f32
  /// accumulation). Off by default: float32 plans then compute in full f32.
  bool allowTf32 = false;
  /// The CUDA device ordinal; -1: cudaDefaultDevice().
  int device = -1;
};

/// The device a cuda backend uses when none is named: $MP_CUDA_DEVICE, else
/// this process's rank on its node as the launcher numbers them
/// (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID) modulo the
/// devices present, so that the ranks of a data-parallel job on one node
/// take one GPU each; else 0.
int cudaDefaultDevice();

/// Whether this build's cuda backend has NCCL for data-parallel steps
/// (docs/distributed.md), and if not, why.
bool ncclAvailable(std::string *why = nullptr);

/// The CUDA backend (docs/runtime-cuda.md): every tensor in device memory
/// allocated once (DeviceMemory), one stream, matmuls on cuBLASLt (Tensor
/// Cores for bf16/f16 with f32 accumulation), own kernels for the other ops
/// it runs; prepare() rejects the ops it does not run (Unimplemented, naming
/// the op). Unimplemented when the runtime was built without CUDA
/// (MP_ENABLE_CUDA) or no usable GPU is present (the message says which).
StatusOr<std::unique_ptr<Backend>>
createCudaBackend(const CudaBackendOptions &options = {});

/// Ok when createCudaBackend() can succeed here; otherwise why not (so that
/// a tool can say why it fell back to the CPU).
Status cudaBackendStatus();

/// Op names the CUDA backend runs (a subset of referenceBackendOps()); empty
/// when the runtime was built without CUDA.
const std::vector<std::string> &cudaBackendOps();

} // namespace mp::rt

#endif // MP_RUNTIME_BACKEND_H
