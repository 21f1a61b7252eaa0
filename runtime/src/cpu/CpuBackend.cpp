//===- CpuBackend.cpp - the CPU backend on oneDNN -------------------------===//
//
// train.matmul and the three conv2d ops run on oneDNN primitives, created once per
// problem (shapes, dtypes, transposes or window) and cached; mp.cast between
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
           "; matmul and conv2d (forward and backward) on oneDNN; casts, relu, relu_grad, "
           "bias_add, leading-dimension sums and the optimizers on own loops, " +
           "exp/erf/tanh (and softmax along the last axis, softmax "
           "cross-entropy and its gradient) on " +
           cpu::vectorMathName() +
           ", layer_norm_grad and batch_norm (+grad) on own rows, columns "
           "and channels, NCHW max pooling on own planes, other "
           "softmax axes, "
           "layer_norm and pooling as reference kernels split by "
           "rows, " +
           std::to_string(cpuThreads()) +
           " threads; other ops on the reference kernels)";
  }

  /// The reference check is the contract: it validates dtypes, shapes and
  /// attributes of every op, matmul included.
  Status check(const KernelDesc &kernel, const Plan &plan) const override {
    return reference_->check(kernel, plan);
  }

  Status run(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs) override {
    if (kernel.op == "train.matmul" || kernel.op == "mp.matmul_epilogue") {
      bool handled = false;
      MP_RETURN_IF_ERROR(matmuls_.run(kernel, inputs, outputs, handled));
      if (handled)
        return Status::ok();
    } else if (kernel.op == "train.conv2d" ||
               kernel.op == "train.conv2d_backward_data" ||
               kernel.op == "train.conv2d_backward_filter") {
      bool handled = false;
      MP_RETURN_IF_ERROR(convs_.run(kernel, inputs, outputs, handled));
      if (handled)
        return Status::ok();
    } else if (kernel.op == "train.batch_norm" ||
               kernel.op == "train.batch_norm_grad") {
      bool handled = false;
      MP_RETURN_IF_ERROR(cpu::runBatchNorm(kernel, inputs, outputs, handled));
      if (handled)
        return Status::ok();
      return kernel.op == "train.batch_norm"
                 ? ref::runBatchNormWith(kernel, inputs, outputs,
                                         cpu::parallelFor)
                 : ref::runBatchNormGradWith(kernel, inputs, outputs,
                                             cpu::parallelFor);
    } else if (kernel.op == "mp.cast") {
      if (inputs.size() == 1 && outputs.size() == 1 &&
          cpu::castFast(inputs[0], outputs[0]))
        return Status::ok();
    } else {
      bool handled = false;
      MP_RETURN_IF_ERROR(cpu::runOwnKernel(kernel, inputs, outputs, handled));
      if (handled)
        return Status::ok();
      cpu::runSoftmaxLastAxis(kernel, inputs, outputs, handled);
      if (!handled)
        cpu::runCrossEntropy(kernel, inputs, outputs, handled);
      if (!handled)
        cpu::runLayerNormGrad(kernel, inputs, outputs, handled);
      if (!handled)
        cpu::runMaxPool(kernel, inputs, outputs, handled);
      if (handled)
        return Status::ok();
      MP_RETURN_IF_ERROR(
          cpu::runRowParallel(*reference_, kernel, inputs, outputs, handled));
      if (handled)
        return Status::ok();
    }
    return reference_->run(kernel, inputs, outputs);
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
    if (handled)
      return Status::ok();
    return Backend::runThenCast(kernel, inputs, outputs, output, cast,
                                castOut);
  }

private:
  std::unique_ptr<Backend> reference_;
  cpu::MatmulCache matmuls_;
  cpu::ConvCache convs_;
};
} // namespace

Status mp::rt::cpuBackendStatus() { return cpu::oneDnnStatus(); }

StatusOr<std::unique_ptr<Backend>> mp::rt::createCpuBackend() {
  MP_RETURN_IF_ERROR(cpu::oneDnnStatus());
  return std::unique_ptr<Backend>(
      std::make_unique<CpuBackend>(createReferenceBackend()));
}

#endif // MP_HAVE_ONEDNN
