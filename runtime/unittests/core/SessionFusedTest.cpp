//===- SessionFusedTest.cpp - declared fused kernels ----------------------===//
//
// The session declares each kernel the plan's layout flags join parts to
// (Backend::FusedKernel) once, when it is created, runs the parts the
// backend takes in the kernel's pass and every other part as a kernel of
// its own. A backend that wraps the reference one and takes the fused
// gradient check (or not) shows both halves on the same plan.
//
//===----------------------------------------------------------------------===//
#include "TestPlans.h"
#include "mp/runtime/Session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// The reference backend, taking the gradient check of an optimizer
/// update into its run when `takeCheck` (the update on the reference,
/// then its gradient checked).
class CheckingBackend final : public Backend {
public:
  explicit CheckingBackend(bool takeCheck)
      : reference_(createReferenceBackend()), takeCheck_(takeCheck) {}

  const char *name() const override { return "checking"; }
  Status supports(const KernelDesc &kernel, const Plan &plan) const override {
    return reference_->supports(kernel, plan);
  }
  Status run(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs) override {
    ++kernelRuns;
    return reference_->run(kernel, inputs, outputs);
  }
  uint32_t fuses(const FusedKernel &fused, const std::vector<TensorView> &,
                 const std::vector<TensorView> &,
                 const FusedViews &parts) override {
    declared.push_back(
        {fused.kernel->op, fused.parts(), parts.allFinite != nullptr});
    return takeCheck_ ? fused.parts() & FusedKernel::kCheck : 0;
  }
  Status runWith(const FusedKernel &fused,
                 const std::vector<TensorView> &inputs,
                 const std::vector<TensorView> &outputs,
                 const FusedViews &parts) override {
    ++fusedRuns;
    if (!takeCheck_ || parts.castOut || parts.reluOut || parts.reluGradIn)
      return internalError("asked to run a part it did not take");
    MP_RETURN_IF_ERROR(reference_->run(*fused.kernel, inputs, outputs));
    if (parts.allFinite)
      for (int64_t i = 0; i < inputs[1].numElements(); ++i)
        if (!std::isfinite(loadFloat(inputs[1], i)))
          *parts.allFinite = 0;
    return Status::ok();
  }

  struct Declared {
    std::string op;
    uint32_t parts;
    bool withVerdict;
  };
  std::vector<Declared> declared;
  int64_t kernelRuns = 0, fusedRuns = 0;

private:
  std::unique_ptr<Backend> reference_;
  bool takeCheck_;
};

/// A least-squares step with a fused gradient check (mp-guard-finite's
/// mp.all_finite over dL/dw, which sgd_momentum reads): declared once as a
/// part of the update; taken, the check kernel is not run and the update
/// clears the verdict; declined, the check runs in its place. Either way a
/// finite step is applied with the reference's numbers and a non-finite
/// gradient fails the step, the state kept.
TEST(SessionFusedTest, RunsThePartsTheBackendTakesAndTheRestAsKernels) {
  LeastSquaresOptions options;
  options.lossScaling = false;
  options.checkFinite = true;
  Plan plan = makeLeastSquaresPlan(options);
  size_t check = plan.kernels.size();
  for (size_t k = 0; k < plan.kernels.size(); ++k)
    if (plan.kernels[k].op == "mp.all_finite")
      check = k;
  ASSERT_LT(check, plan.kernels.size());
  ASSERT_TRUE(plan.kernels[check].isFusedCheck());

  std::unique_ptr<Session> reference = createTestSession(plan, "reference");
  ASSERT_TRUE(reference);
  ASSERT_TRUE(reference->initParams(3).isOk());
  bindLeastSquaresBatch(*reference, leastSquaresX(0), leastSquaresT(0));
  ASSERT_TRUE(reference->runStep().isOk());
  float wWant[6];
  ASSERT_TRUE(reference->getTensor("w", wWant, sizeof wWant).isOk());

  int64_t kernelRuns[2] = {0, 0};
  for (bool takeCheck : {true, false}) {
    SCOPED_TRACE(takeCheck ? "taken" : "declined");
    auto owned = std::make_unique<CheckingBackend>(takeCheck);
    CheckingBackend *backend = owned.get();
    StatusOr<std::unique_ptr<Session>> created =
        Session::create(plan, std::move(owned));
    ASSERT_TRUE(created.isOk()) << created.status().message();
    Session &session = **created;
    // Declared once, when the session was created: the update and its
    // share of the check; where it is declined, asked again without it,
    // so that what the backend records is what runs.
    ASSERT_EQ(backend->declared.size(), takeCheck ? 1u : 2u);
    EXPECT_EQ(backend->declared[0].op, "train.sgd_momentum");
    EXPECT_EQ(backend->declared[0].parts, Backend::FusedKernel::kCheck);
    EXPECT_TRUE(backend->declared[0].withVerdict);
    if (!takeCheck) {
      EXPECT_EQ(backend->declared[1].parts, 0u);
      EXPECT_FALSE(backend->declared[1].withVerdict);
    }
    std::string ran = session.kernelImplementations()[check];
    EXPECT_EQ(ran.find("checked by the optimizer") != std::string::npos,
              takeCheck)
        << ran;

    ASSERT_TRUE(session.initParams(3).isOk());
    bindLeastSquaresBatch(session, leastSquaresX(0), leastSquaresT(0));
    int64_t runsBefore = backend->kernelRuns;
    ASSERT_TRUE(session.runStep().isOk());
    EXPECT_EQ(backend->fusedRuns, takeCheck ? 1 : 0);
    kernelRuns[takeCheck] = backend->kernelRuns - runsBefore;
    float w[6];
    ASSERT_TRUE(session.getTensor("w", w, sizeof w).isOk());
    EXPECT_EQ(std::memcmp(w, wWant, sizeof w), 0);

    std::vector<float> x = leastSquaresX(1);
    x[4] = std::numeric_limits<float>::infinity();
    bindLeastSquaresBatch(session, x, leastSquaresT(1));
    Status failed = session.runStep();
    ASSERT_FALSE(failed.isOk());
    EXPECT_NE(failed.message().find("the gradient of 'w' has "),
              std::string::npos)
        << failed.message();
    float wAfter[6];
    ASSERT_TRUE(session.getTensor("w", wAfter, sizeof wAfter).isOk());
    EXPECT_EQ(std::memcmp(w, wAfter, sizeof w), 0);
  }
  // Taken: the update runs with its part and the check is not run.
  EXPECT_EQ(kernelRuns[1], kernelRuns[0] - 2);
}

} // namespace
