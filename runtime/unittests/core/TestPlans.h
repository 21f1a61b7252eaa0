//===- TestPlans.h - small hand-built plans and a fake backend --*- C++ -*-===//
//
// The runtime core is tested without the compiler: plans are built by hand
// here, and FakeBackend runs the few ops they use (with the semantics of
// the train and mp dialects, f32 only) so that the core's tests do not
// depend on the reference kernels. The same plans run on the reference
// backend too.
//
//===----------------------------------------------------------------------===//
#ifndef MP_RUNTIME_UNITTESTS_CORE_TESTPLANS_H
#define MP_RUNTIME_UNITTESTS_CORE_TESTPLANS_H

#include "mp/runtime/Backend.h"
#include "mp/runtime/Plan.h"
#include "mp/runtime/Session.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mp::rt::testing {

/// Appends tensors, kernels and results to a Plan; finish() lays the
/// scratch tensors out one after the other (no reuse, no layout flags:
/// always valid), finishLaidOut() as mp-compile does (layOutPlan).
class TestPlanBuilder {
public:
  uint32_t tensor(TensorKind kind, DType dtype, std::vector<int64_t> shape,
                  std::string name = "", double initialValue = 0);
  uint32_t scratch(DType dtype, std::vector<int64_t> shape) {
    return tensor(TensorKind::Scratch, dtype, std::move(shape));
  }
  void kernel(std::string op, std::vector<uint32_t> inputs,
              std::vector<uint32_t> outputs,
              std::map<std::string, Attr> attrs = {});
  void result(ResultRole role, uint32_t value, std::string name,
              uint32_t state = UINT32_MAX);
  Plan finish();
  Plan finishLaidOut();

  Plan plan;
};

Attr ints(std::vector<int64_t> values);
Attr floats(std::vector<double> values);
Attr str(std::string value);

/// Least squares with momentum SGD, the small model of most tests:
///   y = x @ w; loss = sum((y - t)^2); w, m <- sgd_momentum(w, dL/dw, m)
/// x: input "x" f32[4, 3]; t: label "t" f32[4, 2]; w: param "w" f32[3, 2];
/// m: opt_state "w.momentum_buffer". With loss scaling, dynamic as the
/// compiler inserts it: scaler_state "loss_scale" (f32[]) and
/// "loss_scale.growth_count" (i64[]), the seed scaled, gradients unscaled
/// and checked, the update selected by the "all_finite" output.
struct LeastSquaresOptions {
  bool lossScaling = true;
  /// Without loss scaling: mp-guard-finite's check of dL/dw (mp.all_finite,
  /// a Check result "finite_gradients").
  bool checkFinite = false;
  double initialScale = 4;
  int64_t growthInterval = 3;
  double lr = 0.01;
  double momentum = 0.9;
  /// Laid out as mp-compile does (double-buffered w and m, layOutPlan);
  /// false: TestPlanBuilder::finish()'s layout, state copied after a step.
  bool compiledLayout = true;
};
Plan makeLeastSquaresPlan(const LeastSquaresOptions &options = {});

/// The sub -> mul run of makeLeastSquaresPlan() (kernels #1 and #2) as a
/// fused region "mp_fused_0" over its 8 elements, as mp-compile
/// --codegen=cpu records it: inputs y and t, outputs r and r^2 (both read
/// later). No code library exists; the arena is planned again.
FusedRegion leastSquaresRegion(const Plan &plan);

/// d = reshape(x * x) + reshape(x + x) (output "d"), loss = sum(d), with x
/// the input "x" f32[2, 3]: kernels #0 (x * x), #1 (its reshape to [6]),
/// #2 (x + x), #3 (its reshape), #4, #5. finish()'s layout: nothing shared.
struct TwoReshapesPlan {
  Plan plan;
  uint32_t square, squareFlat, twice, twiceFlat; ///< tensor ids
};
TwoReshapesPlan makeTwoReshapesPlan();

/// d = reshape(x) + reshape(x) (output "d"), loss = sum(d), with x the input
/// "x" f32[2, 3], laid out: the reshape (kernel #0) is a view of the input,
/// tensor `flat`, outside the arena.
struct ReshapeOfInputPlan {
  Plan plan;
  uint32_t flat;
};
ReshapeOfInputPlan makeReshapeOfInputPlan();

/// Inputs for step `step` of the least-squares model: x and t = x @ w*
/// for a fixed w*, deterministic.
std::vector<float> leastSquaresX(int step);
std::vector<float> leastSquaresT(int step);

/// Runs train.matmul (rank 2), train.add/sub/mul (same shapes),
/// train.reduce_sum (to a scalar), train.broadcast (of a scalar),
/// train.grad_seed, train.sgd_momentum, mp.scale, mp.unscale_and_check,
/// mp.select and mp.update_scale on f32 (and i64/i1 scalars).
class FakeBackend : public Backend {
public:
  const char *name() const override { return "fake"; }
  Status supports(const KernelDesc &kernel, const Plan &plan) const override;
  Status run(const KernelDesc &kernel, const std::vector<TensorView> &inputs,
             const std::vector<TensorView> &outputs) override;

  /// Makes the run() call number `failAtRun` (0-based, counted across
  /// steps) fail, to test that a failed step changes no state.
  int64_t failAtRun = -1;
  int64_t runs = 0;
};

/// The backends the session tests run on, by name: "fake" and "reference".
std::vector<std::string> testBackendNames();
std::unique_ptr<Backend> createTestBackend(const std::string &name);

/// A session on the test backend `backend`; null, and a test failure, when
/// it cannot be created.
std::unique_ptr<Session> createTestSession(Plan plan,
                                           const std::string &backend);

/// r = train.all_reduce(x) (a mean), loss = sum(r * r), x the input "x"
/// f32[2, 3], r the output "r": a data-parallel step's collective between
/// kernels that read it (docs/distributed.md); `dtype` the tensors',
/// `reduceDtype` what the reduction sends (its reduce_dtype).
Plan makeAllReducePlan(DType dtype = DType::F32,
                       const std::string &reduceDtype = "f32");

/// r = train.all_reduce(x) (a mean) read only through a reshape laid out
/// as a view: v = reshape(r) [6], loss = sum(v * v); x the input "x"
/// f32[2, 3] (v is not returned: a returned tensor is not a view).
Plan makeAllReduceViewPlan();

/// ZeRO-1's kernels over `ranks` ranks: s = rank_shard(x), g =
/// reduce_scatter(x) (this rank's shard of the mean), w = all_gather(s +
/// g), all = all_ranks(ok), loss = sum(w * w); x the input "x" f32[5] (a
/// shard of ceil(5 / ranks), the last padded), ok the i1 input "ok", w and
/// all the outputs "w" and "all".
Plan makeZero1Plan(int64_t ranks);

/// Binds `x` and `t` to the least-squares model's input and label.
void bindLeastSquaresBatch(Session &session, const std::vector<float> &x,
                           const std::vector<float> &t);

/// The values of tensor `name` of `session`.
template <typename T>
std::vector<T> readTensor(const Session &session, const std::string &name) {
  const TensorInfo *info = session.findTensor(name);
  EXPECT_NE(info, nullptr) << name;
  std::vector<T> values(info ? info->byteSize / sizeof(T) : 0);
  Status status =
      session.getTensor(name, values.data(), values.size() * sizeof(T));
  EXPECT_TRUE(status.isOk()) << status.message();
  return values;
}

/// A fresh directory under the test temp dir, removed by the caller's
/// ScopedTempDir.
class ScopedTempDir {
public:
  ScopedTempDir();
  ~ScopedTempDir();
  std::string path(const std::string &file) const { return dir + "/" + file; }
  const std::string &root() const { return dir; }
  /// The names of the files in the directory.
  std::vector<std::string> files() const;

private:
  std::string dir;
};

std::vector<uint8_t> readBytes(const std::string &path);
void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes);

} // namespace mp::rt::testing

#endif // MP_RUNTIME_UNITTESTS_CORE_TESTPLANS_H
