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

#include <unordered_map>

#ifdef MP_HAVE_ONEDNN
#include "cpu/Cast.h"
#include "cpu/Elementwise.h"
#include "cpu/Loss.h"
#include "cpu/OneDnn.h"
#include "cpu/Normalization.h"
#include "cpu/Parallel.h"
#include "cpu/Pooling.h"
#include "cpu/RowParallel.h"
#include "reference/Normalization.h"
#include "cpu/Softmax.h"
#include "cpu/VectorMath.h"
#endif

using namespace mp::rt;

#ifndef MP_HAVE_ONEDNN

Status mp::rt::cpuBackendStatus() {
  return unimplemented("the cpu backend needs oneDNN and this runtime was "
                       "built without it (MP_ENABLE_ONEDNN)");
}

StatusOr<std::unique_ptr<Backend>> mp::rt::createCpuBackend() {
  return cpuBackendStatus();
}

#else

namespace {
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

  /// The reference check is the contract: it validates dtypes, shapes and
  /// attributes of every op, matmul included.
  Status check(const KernelDesc &kernel, const Plan &plan) const override {
    return reference_->check(kernel, plan);
  }

  Status run(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs) override {
    std::string implementation;
    Status status = dispatch(kernel, inputs, outputs, implementation);
    record(kernel, implementation);
    return status;
  }

  /// The optimizers write the new weight's 16-bit copy in the same pass.
  Status runThenCast(const KernelDesc &kernel,
                     const std::vector<TensorView> &inputs,
                     const std::vector<TensorView> &outputs, size_t output,
                     const KernelDesc &cast,
                     const TensorView &castOut) override {
    bool handled = false;
    MP_RETURN_IF_ERROR(cpu::runOptimizerThenCast(kernel, inputs, outputs,
                                                 output, castOut, handled));
    if (handled) {
      record(kernel, "own loop, writing the weight's 16-bit copy too");
      record(cast, "own loop, fused into the optimizer's pass");
      return Status::ok();
    }
    return Backend::runThenCast(kernel, inputs, outputs, output, cast,
                                castOut);
  }

  std::string implementationOf(const KernelDesc &kernel) const override {
    auto it = chosen_.find(&kernel);
    return it == chosen_.end() ? "" : it->second;
  }

private:
  /// Runs `kernel` on the first path that takes it; `implementation` says
  /// which.
  Status dispatch(const KernelDesc &kernel,
                  const std::vector<TensorView> &inputs,
                  const std::vector<TensorView> &outputs,
                  std::string &implementation) {
    bool handled = false;
    if (kernel.opId() == OpId::TrainMatmul || kernel.opId() == OpId::MpMatmulEpilogue) {
      MP_RETURN_IF_ERROR(matmuls_.run(kernel, inputs, outputs, handled));
      if (handled) {
        implementation = "oneDNN " + matmuls_.lastImplementation();
        return Status::ok();
      }
    } else if (kernel.opId() == OpId::TrainConv2d ||
               kernel.opId() == OpId::TrainConv2dBackwardData ||
               kernel.opId() == OpId::TrainConv2dBackwardFilter) {
      MP_RETURN_IF_ERROR(convs_.run(kernel, inputs, outputs, handled));
      if (handled) {
        implementation = "oneDNN " + convs_.lastImplementation();
        return Status::ok();
      }
    } else if (kernel.opId() == OpId::TrainBatchNorm ||
               kernel.opId() == OpId::TrainBatchNormGrad) {
      MP_RETURN_IF_ERROR(cpu::runBatchNorm(kernel, inputs, outputs, handled));
      if (handled) {
        implementation = "own loop over channels";
        return Status::ok();
      }
      implementation = "reference kernel, channels over the threads";
      return kernel.opId() == OpId::TrainBatchNorm
                 ? ref::runBatchNormWith(kernel, inputs, outputs,
                                         cpu::parallelFor)
                 : ref::runBatchNormGradWith(kernel, inputs, outputs,
                                             cpu::parallelFor);
    } else if (kernel.opId() == OpId::MpCast) {
      if (inputs.size() == 1 && outputs.size() == 1 &&
          cpu::castFast(inputs[0], outputs[0])) {
        implementation = "own conversion loop";
        return Status::ok();
      }
    } else {
      MP_RETURN_IF_ERROR(cpu::runOwnKernel(kernel, inputs, outputs, handled));
      if (handled) {
        implementation = "own loop";
        return Status::ok();
      }
      cpu::runSoftmaxLastAxis(kernel, inputs, outputs, handled);
      if (!handled)
        cpu::runCrossEntropy(kernel, inputs, outputs, handled);
      if (handled) {
        implementation = std::string("own rows, exp on ") +
                         cpu::vectorMathName();
        return Status::ok();
      }
      cpu::runLayerNormGrad(kernel, inputs, outputs, handled);
      if (handled) {
        implementation = "own rows and columns";
        return Status::ok();
      }
      cpu::runMaxPool(kernel, inputs, outputs, handled);
      if (handled) {
        implementation = "own planes";
        return Status::ok();
      }
      MP_RETURN_IF_ERROR(
          cpu::runRowParallel(*reference_, kernel, inputs, outputs, handled));
      if (handled) {
        implementation = "reference kernel, rows over the threads";
        return Status::ok();
      }
    }
    implementation = "reference kernel";
    return reference_->run(kernel, inputs, outputs);
  }

  void record(const KernelDesc &kernel, const std::string &implementation) {
    std::string &slot = chosen_[&kernel];
    if (slot != implementation)
      slot = implementation;
  }

private:
  std::unique_ptr<Backend> reference_;
  cpu::MatmulCache matmuls_;
  cpu::ConvCache convs_;
  /// What ran each kernel last (implementationOf), by the plan's kernel.
  std::unordered_map<const KernelDesc *, std::string> chosen_;
};
} // namespace

Status mp::rt::cpuBackendStatus() { return cpu::oneDnnStatus(); }

StatusOr<std::unique_ptr<Backend>> mp::rt::createCpuBackend() {
  MP_RETURN_IF_ERROR(cpu::oneDnnStatus());
  return std::unique_ptr<Backend>(
      std::make_unique<CpuBackend>(createReferenceBackend()));
}

#endif // MP_HAVE_ONEDNN
