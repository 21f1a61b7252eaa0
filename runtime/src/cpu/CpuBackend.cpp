//===- CpuBackend.cpp - the CPU backend on oneDNN -------------------------===//
//
// train.matmul and the three conv2d ops run on oneDNN primitives, created once per
// problem (shapes, dtypes, transposes or window) and cached (16-bit problems
// oneDNN has no kernel for on this CPU on f32 ones, widened); mp.cast between
// f32 and bf16 / f16 on own vectorized loops (cpu/Cast.cpp); ReLU and its
// gradient, bias_add, bias-gradient sums and the optimizer updates on own
// chunked, threaded loops (cpu/Elementwise.cpp); softmax cross-entropy and
// its gradient on own rows (cpu/Loss.cpp); softmax, layer_norm and
// pooling as reference kernels on row slices in parallel
// (cpu/RowParallel.cpp); every other op,
// and any problem oneDNN declines, runs on the reference kernels, so this
// backend runs every plan the reference backend runs and agrees with it op
// for op.
//
// oneDNN's C++ API throws dnnl::error; nothing escapes this file: each call
// into oneDNN is wrapped and its error becomes a Status.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/Backend.h"

#include <array>
#include <unordered_map>

#ifdef MP_HAVE_ONEDNN
#include "common/OpMap.h"
#include "cpu/Cast.h"
#include "cpu/Elementwise.h"
#include "cpu/Loss.h"
#include "cpu/LossScaling.h"
#include "cpu/Normalization.h"
#include "cpu/OneDnn.h"
#include "cpu/Optimizer.h"
#include "cpu/Parallel.h"
#include "cpu/PathMode.h"
#include "cpu/Pooling.h"
#include "cpu/RowParallel.h"
#include "cpu/Softmax.h"
#include "cpu/VectorMath.h"
#include "reference/Normalization.h"
#endif

using namespace mp::rt;

// Built without oneDNN, core/BackendRegistry.cpp says why the backend is
// missing.
#ifdef MP_HAVE_ONEDNN

namespace {

using Views = std::vector<TensorView>;

/// The ways the cpu backend runs a kernel, in the order prepare() tries
/// them for the op (pathsOf); Reference is always last and always takes.
enum class Path : uint8_t {
  Matmul,        ///< oneDNN matmul primitive
  Conv,          ///< oneDNN convolution primitive
  BatchNorm,     ///< own loops over channels
  BatchNormRef,  ///< the reference kernel, channels over the threads
  Cast,          ///< own conversion loop
  Own,           ///< own chunked loops (elementwise, scaling, optimizers, ...)
  SoftmaxRows,   ///< own softmax rows
  CrossEntropy,  ///< own loss rows
  LayerNormGrad, ///< own rows and columns
  Pooling,       ///< own planes (max) or images (NHWC global average)
  RowParallel,   ///< the reference kernel on row slices in parallel
  Reference,     ///< the reference kernel
};

/// The paths an op may take, by OpId: the table prepare() walks.
const std::vector<Path> &pathsOf(OpId id) {
  static const std::vector<Path> matmul = {Path::Matmul, Path::Reference};
  static const std::vector<Path> conv = {Path::Conv, Path::Reference};
  static const std::vector<Path> batchNorm = {Path::BatchNorm,
                                              Path::BatchNormRef};
  static const std::vector<Path> cast = {Path::Cast, Path::Reference};
  // Each of these declines, by its own op check, the ops it does not run.
  static const std::vector<Path> general = {
      Path::Own,     Path::SoftmaxRows, Path::CrossEntropy, Path::LayerNormGrad,
      Path::Pooling, Path::RowParallel, Path::Reference};
  static const OpMap<std::vector<Path>> table = [] {
    OpMap<std::vector<Path>> t;
    t.fill(&general);
    t.set(OpId::TrainMatmul, &matmul);
    t.set(OpId::MpMatmulEpilogue, &matmul);
    for (OpId op : {OpId::TrainConv2d, OpId::TrainConv2dBackwardData,
                    OpId::TrainConv2dBackwardFilter})
      t.set(op, &conv);
    t.set(OpId::TrainBatchNorm, &batchNorm);
    t.set(OpId::TrainBatchNormGrad, &batchNorm);
    t.set(OpId::MpCast, &cast);
    return t;
  }();
  static const std::vector<Path> reference = {Path::Reference};
  const std::vector<Path> *paths = table.find(id);
  return paths ? *paths : reference;
}

class CpuBackend final : public Backend {
public:
  explicit CpuBackend(std::unique_ptr<Backend> reference)
      : reference_(std::move(reference)) {}

  const char *name() const override { return "cpu"; }

  std::string describe() const override {
    return std::string("cpu (") + cpu::oneDnnDescription() +
           "; own loops, exp/erf/tanh on " + cpu::vectorMathName() + ", " +
           std::to_string(cpuThreads()) +
           " threads; what runs each op: mp-run --verbose)";
  }

  /// Every kernel the reference runs (its check is the contract: dtypes,
  /// shapes and attributes of every op): what no fast path takes runs on it.
  Status supports(const KernelDesc &kernel, const Plan &plan) const override {
    return reference_->supports(kernel, plan);
  }

  /// supports(); then the first path of the op's list that takes the
  /// kernel's dtypes and shapes, asked without data (cpu/PathMode.h), oneDNN
  /// primitives made here.
  Status prepare(const KernelDesc &kernel, const Plan &plan) override {
    MP_RETURN_IF_ERROR(supports(kernel, plan));
    Views in, out;
    for (uint32_t id : kernel.inputs)
      in.push_back(describe(plan.tensors[id]));
    for (uint32_t id : kernel.outputs)
      out.push_back(describe(plan.tensors[id]));
    return choose(kernel, in, out);
  }

  Status run(const KernelDesc &kernel, const Views &inputs,
             const Views &outputs) override {
    auto it = chosen_.find(&kernel);
    if (it == chosen_.end() ||
        it->second.signature != signatureOf(kernel, inputs, outputs)) {
      // Run by hand, without prepare() (or a kernel object reused for
      // another problem): choose from these views' shapes.
      Views in = withoutData(inputs), out = withoutData(outputs);
      MP_RETURN_IF_ERROR(choose(kernel, in, out));
      it = chosen_.find(&kernel);
    }
    bool handled = false;
    MP_RETURN_IF_ERROR(runPath(cpu::PathMode::Run, it->second.path, kernel,
                               inputs, outputs, handled));
    if (handled)
      return Status::ok();
    // A fast path that took the kernel's shapes declines only for data it
    // cannot see at prepare time; none does today. The reference runs it.
    return reference_->run(kernel, inputs, outputs);
  }

  /// Fused regions (PlanCode): the generated function on ranges of its
  /// extent over the threads, each range at least ~16K elements.
  bool runsGeneratedCode() const override { return true; }
  Status runFused(const FusedRegion &region, FusedFunction fn,
                  void *const *operands) override {
    int64_t grain = std::max<int64_t>(1, (int64_t(1) << 14) / region.rowLength);
    cpu::parallelFor(region.extent, grain, [&](int64_t begin, int64_t end) {
      fn(operands, begin, end);
    });
    return Status::ok();
  }

  /// The optimizers write the new weight's 16-bit copy and check their
  /// gradient in the same pass; batch norm with the features last (its
  /// own path) applies a fused ReLU as it writes, or masks the gradient by
  /// it as it reads. Asked of the views without data (PathMode::Check),
  /// as prepare() asks its paths.
  uint32_t fuses(const FusedKernel &fused, const Views &inputs,
                 const Views &outputs, const FusedViews &parts) override {
    uint32_t asked = fused.parts();
    FusedViews described = parts;
    TensorView castOut, reluOut;
    Views reluGradIn;
    if (parts.castOut) {
      castOut = withoutData({*parts.castOut})[0];
      described.castOut = &castOut;
    }
    if (parts.reluOut) {
      reluOut = withoutData({*parts.reluOut})[0];
      described.reluOut = &reluOut;
    }
    if (parts.reluGradIn) {
      reluGradIn = withoutData(*parts.reluGradIn);
      described.reluGradIn = &reluGradIn;
    }
    bool handled = false;
    Status status = runParts(cpu::PathMode::Check, fused, withoutData(inputs),
                             withoutData(outputs), described, handled);
    if (!status.isOk() || !handled)
      return 0;
    const KernelDesc &kernel = *fused.kernel;
    std::string &what = chosen_[&kernel].what;
    if (asked & (FusedKernel::kRelu | FusedKernel::kReluGrad)) {
      what = std::string("own loop over channels, the ReLU") +
             (fused.relu ? " applied as it writes"
                         : "'s mask applied as it reads");
    } else {
      what = std::string("own loop") +
             (fused.cast ? ", writing the weight's 16-bit copy" : "") +
             (fused.check ? ", checking the gradient" : "") + " too";
      if (fused.cast)
        chosen_[fused.cast].what = "own loop, fused into the optimizer's pass";
    }
    return asked;
  }

  Status runWith(const FusedKernel &fused, const Views &inputs,
                 const Views &outputs, const FusedViews &parts) override {
    bool handled = false;
    MP_RETURN_IF_ERROR(
        runParts(cpu::PathMode::Run, fused, inputs, outputs, parts, handled));
    if (!handled)
      return invalidArgument("cpu: " + fused.kernel->op +
                             " cannot run its fused parts on these views "
                             "(fuses() did not take them)");
    return Status::ok();
  }

  std::string implementationOf(const KernelDesc &kernel) const override {
    auto it = chosen_.find(&kernel);
    return it == chosen_.end() ? "" : it->second.what;
  }

private:
  struct Choice {
    Path path = Path::Reference;
    std::string what;
    /// A hash of the op, dtypes and shapes it was chosen for (signatureOf).
    uint64_t signature = 0;
  };

  /// The fused passes: an optimizer update with its cast and check, a
  /// batch norm on its own path with its ReLU; `handled` false otherwise.
  Status runParts(cpu::PathMode mode, const FusedKernel &fused,
                  const Views &inputs, const Views &outputs,
                  const FusedViews &parts, bool &handled) {
    const KernelDesc &kernel = *fused.kernel;
    if (isOptimizerUpdate(kernel.opId()) && !parts.reluOut && !parts.reluGradIn)
      return cpu::runOptimizer(mode, kernel, inputs, outputs, handled,
                               parts.castOut, fused.castOutput,
                               parts.allFinite);
    auto it = chosen_.find(&kernel);
    if ((parts.reluOut || parts.reluGradIn) && !parts.castOut &&
        !parts.allFinite && it != chosen_.end() &&
        it->second.path == Path::BatchNorm)
      return cpu::runBatchNorm(mode, kernel, inputs, outputs, handled,
                               parts.reluOut, parts.reluGradIn);
    return Status::ok();
  }

  /// FNV-1a of the kernel's op and its views' dtypes and shapes, without
  /// allocating (run() compares it on every call). A collision could only
  /// reuse a path for other views, whose own checks then decline it and
  /// leave the kernel to the reference: slower, never wrong.
  static uint64_t signatureOf(const KernelDesc &kernel, const Views &in,
                              const Views &out) {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) {
      h ^= v;
      h *= 1099511628211ull;
    };
    mix(static_cast<uint64_t>(kernel.opId()));
    for (const Views *views : {&in, &out}) {
      mix(views->size());
      for (const TensorView &v : *views) {
        mix(static_cast<uint64_t>(v.dtype) | (v.shape.size() << 8));
        for (int64_t d : v.shape)
          mix(static_cast<uint64_t>(d));
      }
    }
    return h;
  }

  static TensorView describe(const TensorDesc &desc) {
    return {desc.dtype, desc.shape, cpu::placeholderData()};
  }
  static Views withoutData(const Views &views) {
    Views out = views;
    for (TensorView &v : out)
      v.data = cpu::placeholderData();
    return out;
  }

  /// Records the first path of `kernel`'s op that takes these views.
  Status choose(const KernelDesc &kernel, const Views &in, const Views &out) {
    for (Path path : pathsOf(kernel.opId())) {
      std::string what;
      StatusOr<bool> takes = probe(path, kernel, in, out, what);
      MP_RETURN_IF_ERROR(takes.status());
      if (*takes) {
        chosen_[&kernel] = {path, what, signatureOf(kernel, in, out)};
        return Status::ok();
      }
    }
    chosen_[&kernel] = {Path::Reference, "reference kernel",
                        signatureOf(kernel, in, out)};
    return Status::ok();
  }

  /// Whether `path` takes the kernel (views without data), and in words.
  StatusOr<bool> probe(Path path, const KernelDesc &kernel, const Views &in,
                       const Views &out, std::string &what) {
    if (path == Path::Matmul || path == Path::Conv) {
      std::string implementation;
      StatusOr<bool> takes =
          path == Path::Matmul
              ? matmuls_.prepare(kernel, in, out, implementation)
              : convs_.prepare(kernel, in, out, implementation);
      if (takes.isOk() && *takes)
        what = "oneDNN " + implementation;
      return takes;
    }
    bool handled = false;
    MP_RETURN_IF_ERROR(
        runPath(cpu::PathMode::Check, path, kernel, in, out, handled));
    if (handled)
      what = describePath(path);
    return handled;
  }

  static std::string describePath(Path path) {
    switch (path) {
    case Path::BatchNorm:
      return "own loop over channels";
    case Path::BatchNormRef:
      return "reference kernel, channels over the threads";
    case Path::Cast:
      return "own conversion loop";
    case Path::Own:
      return "own loop";
    case Path::SoftmaxRows:
    case Path::CrossEntropy:
      return std::string("own rows, exp on ") + cpu::vectorMathName();
    case Path::LayerNormGrad:
      return "own rows and columns";
    case Path::Pooling:
      return "own planes or images";
    case Path::RowParallel:
      return "reference kernel, rows over the threads";
    case Path::Matmul:
    case Path::Conv:
    case Path::Reference:
      break;
    }
    return "reference kernel";
  }

  /// Runs (or, with PathMode::Check, asks) one path; `handled` false when
  /// it declines.
  Status runPath(cpu::PathMode mode, Path path, const KernelDesc &kernel,
                 const Views &inputs, const Views &outputs, bool &handled) {
    handled = false;
    switch (path) {
    case Path::Matmul:
      return matmuls_.run(kernel, inputs, outputs, handled);
    case Path::Conv:
      return convs_.run(kernel, inputs, outputs, handled);
    case Path::BatchNorm:
      return cpu::runBatchNorm(mode, kernel, inputs, outputs, handled);
    case Path::BatchNormRef:
      handled = true;
      if (mode == cpu::PathMode::Check)
        return Status::ok();
      return kernel.opId() == OpId::TrainBatchNorm
                 ? ref::runBatchNormWith(kernel, inputs, outputs,
                                         cpu::parallelFor)
                 : ref::runBatchNormGradWith(kernel, inputs, outputs,
                                             cpu::parallelFor);
    case Path::Cast:
      handled = inputs.size() == 1 && outputs.size() == 1 &&
                cpu::castFast(mode, inputs[0], outputs[0]);
      return Status::ok();
    case Path::Own:
      return cpu::runOwnKernel(mode, kernel, inputs, outputs, handled);
    case Path::SoftmaxRows:
      cpu::runSoftmaxLastAxis(mode, kernel, inputs, outputs, handled);
      return Status::ok();
    case Path::CrossEntropy:
      cpu::runCrossEntropy(mode, kernel, inputs, outputs, handled);
      return Status::ok();
    case Path::LayerNormGrad:
      cpu::runLayerNormGrad(mode, kernel, inputs, outputs, handled);
      return Status::ok();
    case Path::Pooling:
      cpu::runPooling(mode, kernel, inputs, outputs, handled);
      return Status::ok();
    case Path::RowParallel:
      return cpu::runRowParallel(mode, *reference_, kernel, inputs, outputs,
                                 handled);
    case Path::Reference:
      handled = true;
      return mode == cpu::PathMode::Check
                 ? Status::ok()
                 : reference_->run(kernel, inputs, outputs);
    }
    return Status::ok();
  }

  std::unique_ptr<Backend> reference_;
  cpu::MatmulCache matmuls_;
  cpu::ConvCache convs_;
  /// What runs each kernel (prepare's choice), by the plan's kernel.
  std::unordered_map<const KernelDesc *, Choice> chosen_;
};
} // namespace

StatusOr<std::unique_ptr<Backend>> mp::rt::cpu::makeCpuBackend() {
  MP_RETURN_IF_ERROR(cpu::oneDnnStatus());
  return std::unique_ptr<Backend>(
      std::make_unique<CpuBackend>(createReferenceBackend()));
}

#endif // MP_HAVE_ONEDNN

// The backend's factory and availability (Backend.h), defined by the
// backend itself: the registry (core/BackendRegistry.cpp) names them and
// includes nothing of the cpu backend.
Status mp::rt::cpuBackendStatus() {
#ifdef MP_HAVE_ONEDNN
  return cpu::oneDnnStatus();
#else
  return unimplemented("the cpu backend needs oneDNN and this runtime was "
                       "built without it (MP_ENABLE_ONEDNN)");
#endif
}

StatusOr<std::unique_ptr<Backend>> mp::rt::createCpuBackend() {
#ifdef MP_HAVE_ONEDNN
  return cpu::makeCpuBackend();
#else
  return cpuBackendStatus();
#endif
}
