//===- CApiTest.cpp - the C API -------------------------------------------===//
#include "TestPlans.h"
#include "mp/runtime/Backend.h"
#include "mp/runtime/mp_runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>

using namespace mp::rt;
using namespace mp::rt::testing;

namespace {

/// Owns a status for the test's duration; NULL is success.
struct StatusHolder {
  explicit StatusHolder(mp_status *status) : status(status) {}
  ~StatusHolder() { mp_status_free(status); }
  mp_status_code_t code() const { return mp_status_code(status); }
  std::string message() const { return mp_status_message(status); }
  mp_status *status;
};

#define EXPECT_C_OK(call)                                                      \
  do {                                                                         \
    StatusHolder holder_(call);                                                \
    EXPECT_EQ(holder_.code(), MP_STATUS_OK) << holder_.message();              \
  } while (false)

struct PlanDeleter {
  void operator()(mp_plan *p) const { mp_plan_free(p); }
};
struct SessionDeleter {
  void operator()(mp_session *s) const { mp_session_free(s); }
};
using PlanPtr = std::unique_ptr<mp_plan, PlanDeleter>;
using SessionPtr = std::unique_ptr<mp_session, SessionDeleter>;

PlanPtr loadPlan(const Plan &plan) {
  std::vector<uint8_t> bytes = serializePlan(plan);
  mp_plan *out = nullptr;
  EXPECT_C_OK(mp_plan_load_from_memory(bytes.data(), bytes.size(), &out));
  return PlanPtr(out);
}

SessionPtr createSession(const mp_plan *plan) {
  mp_session *out = nullptr;
  EXPECT_C_OK(mp_session_create(plan, nullptr, &out));
  return SessionPtr(out);
}

void bindBatch(mp_session *session, int step) {
  std::vector<float> x = leastSquaresX(step), t = leastSquaresT(step);
  int64_t xs[] = {4, 3}, ts[] = {4, 2};
  EXPECT_C_OK(
      mp_session_set_tensor(session, "x", MP_DTYPE_F32, xs, 2, x.data(), 48));
  EXPECT_C_OK(
      mp_session_set_tensor(session, "t", MP_DTYPE_F32, ts, 2, t.data(), 32));
}

TEST(CApiTest, StatusBasics) {
  EXPECT_EQ(mp_status_code(nullptr), MP_STATUS_OK);
  EXPECT_STREQ(mp_status_message(nullptr), "");
  mp_status_free(nullptr);
  EXPECT_STREQ(mp_dtype_name(MP_DTYPE_BF16), "bf16");
  EXPECT_EQ(mp_dtype_size(MP_DTYPE_I64), 8u);
  EXPECT_EQ(mp_dtype_size(static_cast<mp_dtype_t>(99)), 0u);
}

TEST(CApiTest, NullArgumentsAreErrors) {
  mp_plan *plan = nullptr;
  StatusHolder s(mp_plan_load(nullptr, &plan));
  EXPECT_EQ(s.code(), MP_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(s.message(), "mp_plan_load: 'path' is NULL");
  StatusHolder s2(mp_plan_load("x", nullptr));
  EXPECT_EQ(s2.message(), "mp_plan_load: 'out_plan' is NULL");
  StatusHolder s3(mp_session_run_step(nullptr, nullptr));
  EXPECT_EQ(s3.message(), "mp_session_run_step: 'session' is NULL");
  StatusHolder s4(mp_plan_load_from_memory(nullptr, 4, &plan));
  EXPECT_EQ(s4.message(), "mp_plan_load_from_memory: 'data' is NULL");
  EXPECT_EQ(plan, nullptr);
  EXPECT_EQ(mp_session_tensor_count(nullptr), 0u);
  EXPECT_STREQ(mp_session_backend_name(nullptr), "");
  mp_plan_free(nullptr);
  mp_session_free(nullptr);
}

TEST(CApiTest, PlanErrors) {
  mp_plan *plan = nullptr;
  StatusHolder missing(mp_plan_load("/nonexistent/a.mpplan", &plan));
  EXPECT_EQ(missing.code(), MP_STATUS_NOT_FOUND);
  EXPECT_NE(missing.message().find("/nonexistent/a.mpplan"), std::string::npos);

  std::vector<uint8_t> bytes = serializePlan(makeLeastSquaresPlan());
  bytes[40] ^= 1;
  StatusHolder corrupt(
      mp_plan_load_from_memory(bytes.data(), bytes.size(), &plan));
  EXPECT_EQ(corrupt.code(), MP_STATUS_DATA_LOSS);
  EXPECT_EQ(corrupt.message().rfind("<plan in memory>: corrupt plan", 0), 0u);
  EXPECT_EQ(plan, nullptr); // out_ parameters are written on success only
}

TEST(CApiTest, TrainThroughTheCApi) {
  PlanPtr plan = loadPlan(makeLeastSquaresPlan());
  ASSERT_TRUE(plan);
  EXPECT_STREQ(mp_plan_policy(plan.get()), "mixed_float16");
  EXPECT_EQ(mp_plan_hash(plan.get()), planHash(makeLeastSquaresPlan()));
  SessionPtr session = createSession(plan.get());
  ASSERT_TRUE(session);
  plan.reset(); // the session keeps its own copy
  EXPECT_STREQ(mp_session_backend_name(session.get()),
               mp::rt::cpuBackendStatus().isOk() ? "cpu" : "reference");

  ASSERT_EQ(mp_session_tensor_count(session.get()), 9u);
  mp_tensor_info_t info;
  EXPECT_C_OK(mp_session_tensor_info_at(session.get(), 2, &info));
  EXPECT_STREQ(info.name, "w");
  EXPECT_EQ(info.role, MP_TENSOR_ROLE_PARAM);
  EXPECT_EQ(info.dtype, MP_DTYPE_F32);
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.shape[0], 3);
  EXPECT_EQ(info.shape[1], 2);
  EXPECT_EQ(info.byte_size, 24u);
  EXPECT_C_OK(mp_session_tensor_info(session.get(), "all_finite", &info));
  EXPECT_EQ(info.role, MP_TENSOR_ROLE_OUTPUT);
  EXPECT_EQ(info.dtype, MP_DTYPE_I1);
  EXPECT_C_OK(mp_session_tensor_info(session.get(), "loss_scale", &info));
  EXPECT_EQ(info.role, MP_TENSOR_ROLE_SCALER_STATE);
  StatusHolder unknown(mp_session_tensor_info(session.get(), "zz", &info));
  EXPECT_EQ(unknown.code(), MP_STATUS_NOT_FOUND);
  StatusHolder range(mp_session_tensor_info_at(session.get(), 9, &info));
  EXPECT_EQ(range.code(), MP_STATUS_INVALID_ARGUMENT);

  EXPECT_C_OK(mp_session_init_params(session.get(), 3));
  float loss = 0, first = 0;
  for (int step = 0; step < 20; ++step) {
    bindBatch(session.get(), step);
    EXPECT_C_OK(mp_session_run_step(session.get(), &loss));
    if (step == 0)
      first = loss;
  }
  EXPECT_LT(loss, first);
  float y[8];
  EXPECT_C_OK(mp_session_get_tensor(session.get(), "y", y, sizeof(y)));
  StatusHolder small(mp_session_get_tensor(session.get(), "y", y, 4));
  EXPECT_EQ(small.code(), MP_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(small.message(), "'y' (f32[4, 2]) has 32 bytes, the buffer 4");

  int64_t bad[] = {3, 4};
  float x[12] = {};
  StatusHolder shape(
      mp_session_set_tensor(session.get(), "x", MP_DTYPE_F32, bad, 2, x, 48));
  EXPECT_EQ(shape.message(), "input 'x' is f32[4, 3], got f32[3, 4]");

  mp_scaler_stats_t stats;
  EXPECT_C_OK(mp_session_get_scaler_stats(session.get(), &stats));
  EXPECT_EQ(stats.steps_run, 20);
  EXPECT_EQ(stats.steps_skipped, 0);
  EXPECT_EQ(stats.last_overflow_step, -1);
  EXPECT_EQ(stats.has_scaler, 1);
  EXPECT_EQ(stats.has_dynamic_scale, 1);
  EXPECT_EQ(stats.scale, 4.0f * 64); // grown every 3 finite steps
}

TEST(CApiTest, Checkpoints) {
  ScopedTempDir dir;
  std::string path = dir.path("ckpt.safetensors");
  PlanPtr plan = loadPlan(makeLeastSquaresPlan());
  SessionPtr a = createSession(plan.get());
  for (int step = 0; step < 3; ++step) {
    bindBatch(a.get(), step);
    EXPECT_C_OK(mp_session_run_step(a.get(), nullptr));
  }
  EXPECT_C_OK(mp_session_save_checkpoint(a.get(), path.c_str()));

  LeastSquaresOptions options;
  options.lr = 0.5;
  PlanPtr otherPlan = loadPlan(makeLeastSquaresPlan(options));
  SessionPtr b = createSession(otherPlan.get());
  StatusHolder mismatch(mp_session_load_checkpoint(b.get(), path.c_str(), 0));
  EXPECT_EQ(mismatch.code(), MP_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(mismatch.message().find("was saved by plan"), std::string::npos);
  StatusHolder flags(mp_session_load_checkpoint(b.get(), path.c_str(), 6));
  EXPECT_EQ(flags.message(), "mp_session_load_checkpoint: unknown flags 6");
  EXPECT_C_OK(mp_session_load_checkpoint(b.get(), path.c_str(),
                                         MP_CHECKPOINT_IGNORE_PLAN_HASH));
  mp_scaler_stats_t stats;
  EXPECT_C_OK(mp_session_get_scaler_stats(b.get(), &stats));
  EXPECT_EQ(stats.steps_run, 3);
  EXPECT_EQ(stats.scale, 8.0f);

  float wa[6], wb[6];
  EXPECT_C_OK(mp_session_get_tensor(a.get(), "w", wa, 24));
  EXPECT_C_OK(mp_session_get_tensor(b.get(), "w", wb, 24));
  EXPECT_EQ(std::memcmp(wa, wb, 24), 0);

  SessionPtr c = createSession(plan.get());
  EXPECT_C_OK(mp_session_load_params(c.get(), path.c_str()));
  float wc[6];
  EXPECT_C_OK(mp_session_get_tensor(c.get(), "w", wc, 24));
  EXPECT_EQ(std::memcmp(wa, wc, 24), 0);
}

TEST(CApiTest, SessionErrors) {
  PlanPtr plan = loadPlan(makeLeastSquaresPlan());
  mp_session *session = nullptr;
  StatusHolder backend(mp_session_create(plan.get(), "tpu", &session));
  EXPECT_EQ(backend.code(), MP_STATUS_NOT_FOUND);
  EXPECT_EQ(session, nullptr);

  // A plan without persistent updates: the session uses its arena as it is
  // (with updates it plans the arena again, docs/runtime.md).
  Plan huge = makeTwoReshapesPlan().plan;
  huge.arenaSize = uint64_t(1) << 55;
  PlanPtr hugePlan = loadPlan(huge);
  StatusHolder memory(mp_session_create(hugePlan.get(), "", &session));
  EXPECT_EQ(memory.code(), MP_STATUS_INTERNAL);
  EXPECT_NE(memory.message().find("out of memory"), std::string::npos);

  SessionPtr s = createSession(plan.get());
  StatusHolder unbound(mp_session_run_step(s.get(), nullptr));
  EXPECT_EQ(unbound.code(), MP_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(unbound.message().find("never set 'x', 't'"), std::string::npos);
}

} // namespace

namespace {

TEST(CApiTest, DiagnoseAStepThatOverflows) {
  PlanPtr plan = loadPlan(makeLeastSquaresPlan());
  ASSERT_TRUE(plan);
  SessionPtr session = createSession(plan.get());
  ASSERT_TRUE(session);
  EXPECT_C_OK(mp_session_init_params(session.get(), 3));
  std::vector<float> x = leastSquaresX(0), t = leastSquaresT(0);
  t[0] = 1e38f; // finite; its squared residual is not
  int64_t xs[] = {4, 3}, ts[] = {4, 2};
  EXPECT_C_OK(mp_session_set_tensor(session.get(), "x", MP_DTYPE_F32, xs, 2,
                                    x.data(), 48));
  EXPECT_C_OK(mp_session_set_tensor(session.get(), "t", MP_DTYPE_F32, ts, 2,
                                    t.data(), 32));
  char *text = nullptr;
  EXPECT_C_OK(mp_session_diagnose_step(session.get(), 8.0f, &text));
  ASSERT_NE(text, nullptr);
  std::string diagnosis = text;
  mp_string_free(text);
  EXPECT_NE(diagnosis.find("first non-finite value: kernel #"),
            std::string::npos)
      << diagnosis;
  EXPECT_NE(diagnosis.find("not a precision problem"), std::string::npos);
  // The scale is back to the session's, and no step was counted.
  mp_scaler_stats_t stats;
  EXPECT_C_OK(mp_session_get_scaler_stats(session.get(), &stats));
  EXPECT_EQ(stats.steps_run, 0);
  EXPECT_EQ(stats.scale, 4.0f);
  StatusHolder bad(mp_session_diagnose_step(session.get(), -1.0f, &text));
  EXPECT_EQ(bad.code(), MP_STATUS_INVALID_ARGUMENT);
  StatusHolder null(mp_session_diagnose_step(session.get(), 0, nullptr));
  EXPECT_EQ(null.code(), MP_STATUS_INVALID_ARGUMENT);
}

/// mp_session_last_step_failed_check: 1 after a step that failed its
/// gradient check (a plan that checks instead of skipping), 0 after a
/// step that ran, after one that failed for another reason, and for NULL.
TEST(CApiTest, SaysWhetherTheLastStepFailedACheck) {
  LeastSquaresOptions options;
  options.lossScaling = false;
  options.checkFinite = true;
  PlanPtr plan = loadPlan(makeLeastSquaresPlan(options));
  SessionPtr session = createSession(plan.get());
  EXPECT_EQ(mp_session_last_step_failed_check(nullptr), 0);
  EXPECT_C_OK(mp_session_init_params(session.get(), 3));
  bindBatch(session.get(), 0);
  EXPECT_C_OK(mp_session_run_step(session.get(), nullptr));
  EXPECT_EQ(mp_session_last_step_failed_check(session.get()), 0);

  std::vector<float> x = leastSquaresX(1), t = leastSquaresT(1);
  x[4] = std::numeric_limits<float>::infinity();
  int64_t xs[] = {4, 3};
  EXPECT_C_OK(mp_session_set_tensor(session.get(), "x", MP_DTYPE_F32, xs, 2,
                                    x.data(), 48));
  StatusHolder failed(mp_session_run_step(session.get(), nullptr));
  EXPECT_NE(failed.code(), MP_STATUS_OK);
  EXPECT_EQ(mp_session_last_step_failed_check(session.get()), 1)
      << failed.message();

  bindBatch(session.get(), 2);
  EXPECT_C_OK(mp_session_run_step(session.get(), nullptr));
  EXPECT_EQ(mp_session_last_step_failed_check(session.get()), 0);
}

/// mp_auto_policy: for "cpu", the policy this CPU's features and its
/// measured 16-bit matmul speed make fast (derived here from both, so on
/// any CPU); "cuda": mixed_bfloat16; another target is refused.
TEST(CApiTest, AutoPolicyFollowsTheFeaturesAndTheMeasuredSpeed) {
  char *policy = nullptr, *reason = nullptr;
  EXPECT_C_OK(mp_auto_policy("cpu", &policy, &reason));
  ASSERT_NE(policy, nullptr);
  const CpuFeatureSet &f = cpuFeatureSet();
  const MatmulSpeed &speed = cpuMatmulSpeed();
  auto pays = [](bool instructions, double measured) {
    return instructions && (measured == 0 || measured >= kSixteenBitMinSpeedup);
  };
  std::string want = pays(f.fastBf16(), speed.bf16)  ? "mixed_bfloat16"
                     : pays(f.fastFp16(), speed.f16) ? "mixed_float16"
                                                     : "float32";
  EXPECT_EQ(std::string(policy), want) << reason;
  EXPECT_NE(std::string(reason).find(cpuFeatures()), std::string::npos)
      << reason;
  mp_string_free(policy);
  mp_string_free(reason);
  EXPECT_C_OK(mp_auto_policy("cuda", &policy, &reason));
  EXPECT_EQ(std::string(policy), "mixed_bfloat16");
  mp_string_free(policy);
  mp_string_free(reason);
  StatusHolder unknown(mp_auto_policy("tpu", &policy, &reason));
  EXPECT_EQ(unknown.code(), MP_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(unknown.message().find("'tpu'"), std::string::npos);
}

} // namespace
