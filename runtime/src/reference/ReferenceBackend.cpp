//===- ReferenceBackend.cpp - the registry of reference kernels -----------===//
//
// The portable C++ backend: every op of the train and mp dialects (but
// train.constant, which becomes a plan tensor) in f32, bf16 and f16. Its
// results define what the other backends must compute.
//
//===----------------------------------------------------------------------===//
#include "common/OpMap.h"
#include "mp/runtime/Backend.h"
#include "reference/KernelSupport.h"

#include <array>

using namespace mp::rt;
using namespace mp::rt::ref;

namespace {
/// Every kernel, indexed by OpId; built once.
class Registry {
public:
  static const Registry &get() {
    static const Registry registry;
    return registry;
  }
  const KernelEntry *find(OpId id) const { return byId_.find(id); }
  const std::vector<std::string> &names() const { return names_; }

private:
  Registry() {
    addElementwiseKernels(table_);
    addMatmulKernels(table_);
    addConvolutionKernels(table_);
    addConvolution1DKernels(table_);
    addNormalizationKernels(table_);
    addGroupNormKernels(table_);
    addSoftmaxKernels(table_);
    addAttentionKernels(table_);
    addRecurrentKernels(table_);
    addPointwiseLossKernels(table_);
    addReductionKernels(table_);
    addPoolingKernels(table_);
    addEmbeddingKernels(table_);
    addShapeKernels(table_);
    addOptimizerKernels(table_);
    addStepStateKernels(table_);
    addMixedPrecisionKernels(table_);
    for (const KernelEntry &entry : table_)
      byId_.set(entry.op, &entry);
    for (size_t i = 0; i < kNumOps; ++i)
      if (const KernelEntry *entry = byId_.find(static_cast<OpId>(i)))
        names_.push_back(opName(entry->op));
  }

  KernelTable table_;
  OpMap<KernelEntry> byId_;
  std::vector<std::string> names_;
};

class ReferenceBackend final : public Backend {
public:
  const char *name() const override { return "reference"; }
  std::string implementationOf(const KernelDesc &) const override {
    return "reference kernel";
  }

  Status supports(const KernelDesc &kernel, const Plan &plan) const override {
    const KernelEntry *entry = Registry::get().find(kernel.opId());
    if (!entry)
      return unimplemented("the reference backend has no kernel for '" +
                           kernel.op + "'");
    Views inputs, outputs;
    MP_RETURN_IF_ERROR(describe(kernel, plan, kernel.inputs, inputs));
    MP_RETURN_IF_ERROR(describe(kernel, plan, kernel.outputs, outputs));
    return entry->check(kernel, inputs, outputs);
  }

  /// Checks again before running: the check is cheap next to the kernel,
  /// and a kernel must never read or write out of bounds even when a
  /// caller skipped prepare().
  Status run(const KernelDesc &kernel, const Views &inputs,
             const Views &outputs) override {
    const KernelEntry *entry = Registry::get().find(kernel.opId());
    if (!entry)
      return unimplemented("the reference backend has no kernel for '" +
                           kernel.op + "'");
    MP_RETURN_IF_ERROR(entry->check(kernel, inputs, outputs));
    return entry->run(kernel, inputs, outputs);
  }

private:
  /// Views without data of the plan tensors `ids`.
  static Status describe(const KernelDesc &kernel, const Plan &plan,
                         const std::vector<uint32_t> &ids, Views &views) {
    for (uint32_t id : ids) {
      if (id >= plan.tensors.size())
        return kernelError(kernel, "refers to tensor " + std::to_string(id) +
                                       " but the plan has " +
                                       std::to_string(plan.tensors.size()));
      const TensorDesc &desc = plan.tensors[id];
      views.push_back({desc.dtype, desc.shape, nullptr});
    }
    return Status::ok();
  }
};
} // namespace

std::unique_ptr<Backend> mp::rt::createReferenceBackend() {
  return std::make_unique<ReferenceBackend>();
}

const std::vector<std::string> &mp::rt::referenceBackendOps() {
  return Registry::get().names();
}
