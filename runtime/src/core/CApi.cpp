//===- CApi.cpp - the runtime's C API -------------------------------------===//
//
// Thin wrappers: check the C arguments, call the C++ layer, turn its Status
// into an mp_status. Every entry point runs inside guard(), so that no
// exception (std::bad_alloc is the only one the runtime can meet) escapes
// into C.
//
//===----------------------------------------------------------------------===//
#include "mp/runtime/mp_runtime.h"

#include "mp/runtime/Backend.h"
#include "mp/runtime/Checkpoint.h"
#include "mp/runtime/CpuFeatures.h"
#include "mp/runtime/Replay.h"
#include "mp/runtime/Session.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

using namespace mp::rt;

struct mp_status {
  mp_status_code_t code;
  std::string message;
};

struct mp_plan {
  Plan plan;
  uint64_t hash;
};

struct mp_session {
  std::unique_ptr<Session> session;
};

static_assert(static_cast<int>(StatusCode::InvalidArgument) ==
                      MP_STATUS_INVALID_ARGUMENT &&
                  static_cast<int>(StatusCode::Internal) == MP_STATUS_INTERNAL,
              "C status codes mirror StatusCode");
static_assert(static_cast<int>(DType::I64) == MP_DTYPE_I64 &&
                  static_cast<int>(TensorKind::Label) == MP_TENSOR_ROLE_LABEL,
              "C enums mirror the plan's");

/// Returned when not even a status can be allocated; never freed.
static mp_status outOfMemory{MP_STATUS_INTERNAL, "out of memory"};

static mp_status *makeStatus(mp_status_code_t code,
                             const std::string &message) {
  try {
    return new mp_status{code, message};
  } catch (...) {
    return &outOfMemory;
  }
}

static mp_status *toStatus(const Status &status) {
  if (status.isOk())
    return nullptr;
  return makeStatus(static_cast<mp_status_code_t>(status.code()),
                    status.message());
}

/// Runs `body(function)` (returning a Status) with every exception turned
/// into a status; `function` names the C entry point in messages.
template <typename Body>
static mp_status *guard(const char *function, Body &&body) {
  try {
    return toStatus(body(function));
  } catch (const std::bad_alloc &) {
    return makeStatus(MP_STATUS_INTERNAL, "out of memory");
  } catch (...) {
    return makeStatus(MP_STATUS_INTERNAL, "unexpected C++ exception");
  }
}

static Status nullArgument(const char *function, const char *argument) {
  return invalidArgument(std::string(function) + ": '" + argument +
                         "' is NULL");
}

#define MP_CHECK_ARG(arg)                                                      \
  do {                                                                         \
    if (!(arg))                                                                \
      return nullArgument(function, #arg);                                     \
  } while (false)

extern "C" {

mp_status_code_t mp_status_code(const mp_status *status) {
  return status ? status->code : MP_STATUS_OK;
}

const char *mp_status_message(const mp_status *status) {
  return status ? status->message.c_str() : "";
}

void mp_status_free(mp_status *status) {
  if (status != &outOfMemory)
    delete status;
}

const char *mp_dtype_name(mp_dtype_t dtype) {
  return dtypeName(static_cast<DType>(dtype));
}

size_t mp_dtype_size(mp_dtype_t dtype) {
  return dtypeSize(static_cast<DType>(dtype));
}

/// Wraps a parsed plan into a handle.
static Status adoptPlan(StatusOr<Plan> plan, mp_plan **out_plan) {
  if (!plan.isOk())
    return plan.status();
  uint64_t hash = planHash(*plan);
  *out_plan = new mp_plan{std::move(*plan), hash};
  return Status::ok();
}

mp_status *mp_plan_load(const char *path, mp_plan **out_plan) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(path);
    MP_CHECK_ARG(out_plan);
    return adoptPlan(readPlanFile(path), out_plan);
  });
}

mp_status *mp_plan_load_from_memory(const void *data, size_t size,
                                    mp_plan **out_plan) {
  return guard(__func__, [&](const char *function) -> Status {
    if (!data && size)
      return nullArgument(function, "data");
    MP_CHECK_ARG(out_plan);
    const auto *bytes = static_cast<const uint8_t *>(data);
    return adoptPlan(parsePlan(std::vector<uint8_t>(bytes, bytes + size),
                               "<plan in memory>"),
                     out_plan);
  });
}

void mp_plan_free(mp_plan *plan) { delete plan; }

uint64_t mp_plan_hash(const mp_plan *plan) { return plan ? plan->hash : 0; }

const char *mp_plan_policy(const mp_plan *plan) {
  return plan ? plan->plan.policy.c_str() : "";
}

mp_status *mp_session_create(const mp_plan *plan, const char *backend_name,
                             mp_session **out_session) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(plan);
    MP_CHECK_ARG(out_session);
    StatusOr<std::unique_ptr<Session>> session =
        Session::create(plan->plan, backend_name ? backend_name : "default");
    if (!session.isOk())
      return session.status();
    // In a process an MPI launcher started: a data-parallel plan on its
    // ranks, any other refused (each rank would train alone).
    MP_RETURN_IF_ERROR((*session)->joinLauncher("this process"));
    *out_session = new mp_session{std::move(*session)};
    return Status::ok();
  });
}

void mp_session_free(mp_session *session) { delete session; }

int mp_session_rank(const mp_session *session) {
  return session ? session->session->communicator().rank() : 0;
}

int mp_session_world_size(const mp_session *session) {
  return session ? session->session->communicator().size() : 1;
}

int mp_session_sharded_over(const mp_session *session) {
  return session ? static_cast<int>(session->session->shardedOver()) : 0;
}

mp_status *mp_session_all_reduce_sum(mp_session *session, float *data,
                                     size_t count) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(data || count == 0);
    return session->session->allReduceSum(data, count);
  });
}

double mp_session_collective_wait_seconds(const mp_session *session) {
  return session ? session->session->collectiveWaitSeconds() : 0.0;
}

void mp_abort_ranks(int code) { mp::rt::abortRanks(code); }

const char *mp_session_backend_name(const mp_session *session) {
  return session ? session->session->backendName() : "";
}

size_t mp_session_tensor_count(const mp_session *session) {
  return session ? session->session->tensors().size() : 0;
}

/// A malloc'ed copy of `text` in *out (freed with mp_string_free).
static Status copyString(const char *function, const std::string &text,
                         char **out) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (!copy)
    return internalError(std::string(function) + ": out of memory");
  std::memcpy(copy, text.c_str(), text.size() + 1);
  *out = copy;
  return Status::ok();
}

static void fillInfo(const TensorInfo &info, mp_tensor_info_t *out) {
  // A ZeRO-1 shard is shown whole.
  const std::vector<int64_t> &shape = info.fullShape();
  out->name = info.name.c_str();
  out->role = info.isOutput ? MP_TENSOR_ROLE_OUTPUT
                            : static_cast<mp_tensor_role_t>(info.kind);
  out->dtype = static_cast<mp_dtype_t>(info.dtype);
  out->rank = shape.size();
  out->shape = shape.data();
  out->byte_size = info.fullByteSize();
}

mp_status *mp_session_tensor_info_at(const mp_session *session, size_t index,
                                     mp_tensor_info_t *out_info) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(out_info);
    const std::vector<TensorInfo> &infos = session->session->tensors();
    if (index >= infos.size())
      return invalidArgument("tensor index " + std::to_string(index) +
                             " is out of range: the session has " +
                             std::to_string(infos.size()));
    fillInfo(infos[index], out_info);
    return Status::ok();
  });
}

mp_status *mp_session_tensor_info(const mp_session *session, const char *name,
                                  mp_tensor_info_t *out_info) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(name);
    MP_CHECK_ARG(out_info);
    const TensorInfo *info = session->session->findTensor(name);
    if (!info)
      return notFound("the plan has no tensor named '" + std::string(name) +
                      "'");
    fillInfo(*info, out_info);
    return Status::ok();
  });
}

mp_status *mp_session_set_tensor(mp_session *session, const char *name,
                                 mp_dtype_t dtype, const int64_t *shape,
                                 size_t rank, const void *data, size_t bytes) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(name);
    // ZeRO-1's sharded state is set whole: this rank keeps its shard.
    const TensorInfo *info = session->session->findTensor(name);
    if (info && info->sharded) {
      std::vector<int64_t> given(shape, shape + (shape ? rank : 0));
      if (static_cast<DType>(dtype) != info->dtype || given != info->wholeShape)
        return invalidArgument(
            std::string("tensor '") + name + "' is " + dtypeName(info->dtype) +
            formatShape(info->wholeShape) + ", not " +
            dtypeName(static_cast<DType>(dtype)) + formatShape(given));
      return session->session->setStateFromWhole(*info, data, bytes);
    }
    return session->session->setTensor(name, static_cast<DType>(dtype), shape,
                                       rank, data, bytes);
  });
}

mp_status *mp_session_bind_tensor(mp_session *session, const char *name,
                                  mp_dtype_t dtype, const int64_t *shape,
                                  size_t rank, const void *data, size_t bytes) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(name);
    return session->session->bindTensor(name, static_cast<DType>(dtype), shape,
                                        rank, data, bytes);
  });
}

mp_status *mp_session_get_tensor(const mp_session *session, const char *name,
                                 void *out_data, size_t bytes) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(name);
    // ZeRO-1's sharded state is read whole: every rank's shard gathered
    // (a collective: every rank reads it).
    const TensorInfo *info = session->session->findTensor(name);
    if (info && info->sharded)
      return session->session->gatherState(*info, out_data, bytes);
    return session->session->getTensor(name, out_data, bytes);
  });
}

mp_status *mp_session_init_params(mp_session *session, uint64_t seed) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    return session->session->initParams(seed);
  });
}

mp_status *mp_session_load_params(mp_session *session, const char *path) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(path);
    return loadParams(*session->session, path);
  });
}

mp_status *mp_session_run_step(mp_session *session, float *out_loss) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    return session->session->runStep(out_loss);
  });
}

int mp_session_last_step_failed_check(const mp_session *session) {
  return session && session->session->lastStepFailedCheck() ? 1 : 0;
}

mp_status *mp_session_diagnose_step(mp_session *session, float loss_scale,
                                    char **out_text) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(out_text);
    if (!(loss_scale >= 0) || !std::isfinite(loss_scale))
      return invalidArgument(std::string(function) +
                             ": loss_scale must be finite and >= 0");
    Session &s = *session->session;
    const TensorInfo *scale = s.findTensor(Session::kLossScaleName);
    float before = s.scalerStats().scale;
    auto setScale = [&](float value) -> Status {
      if (!scale)
        return Status::ok();
      return s.setTensor(scale->name, DType::F32, scale->shape, &value,
                         sizeof(value));
    };
    if (loss_scale > 0)
      MP_RETURN_IF_ERROR(setScale(loss_scale));
    StatusOr<ReplayFinding> finding = replayStep(s);
    if (loss_scale > 0)
      MP_RETURN_IF_ERROR(setScale(before));
    if (!finding.isOk())
      return finding.status();
    double used = s.scalerStats().enabled
                      ? (loss_scale > 0 ? loss_scale : before)
                      : 0.0;
    return copyString(function, diagnose(s, *finding, used).text, out_text);
  });
}

void mp_string_free(char *text) { std::free(text); }

mp_status *mp_auto_policy(const char *target, char **out_policy,
                          char **out_reason) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(target);
    MP_CHECK_ARG(out_policy);
    MP_CHECK_ARG(out_reason);
    std::string reason, policy = chooseAutoPolicy(target, reason);
    if (policy.empty())
      return invalidArgument(std::string(function) + ": unknown target '" +
                             target + "' (cpu or cuda)");
    char *chosen = nullptr;
    MP_RETURN_IF_ERROR(copyString(function, policy, &chosen));
    Status copied = copyString(function, reason, out_reason);
    if (!copied.isOk()) {
      std::free(chosen);
      return copied;
    }
    *out_policy = chosen;
    return Status::ok();
  });
}

mp_status *mp_session_get_scaler_stats(const mp_session *session,
                                       mp_scaler_stats_t *out_stats) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(out_stats);
    ScalerStats stats = session->session->scalerStats();
    out_stats->steps_run = stats.stepsRun;
    out_stats->steps_skipped = stats.stepsSkipped;
    out_stats->last_overflow_step = stats.lastOverflowStep;
    out_stats->scale = stats.scale;
    out_stats->has_scaler = stats.enabled;
    out_stats->has_dynamic_scale = stats.dynamicScale;
    return Status::ok();
  });
}

mp_status *mp_session_save_checkpoint(const mp_session *session,
                                      const char *path) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(path);
    return saveCheckpoint(*session->session, path);
  });
}

mp_status *mp_session_load_checkpoint(mp_session *session, const char *path,
                                      uint32_t flags) {
  return guard(__func__, [&](const char *function) -> Status {
    MP_CHECK_ARG(session);
    MP_CHECK_ARG(path);
    if (flags & ~MP_CHECKPOINT_IGNORE_PLAN_HASH)
      return invalidArgument(std::string(function) + ": unknown flags " +
                             std::to_string(flags));
    CheckpointLoadOptions options;
    options.ignorePlanHash = flags & MP_CHECKPOINT_IGNORE_PLAN_HASH;
    return loadCheckpoint(*session->session, path, options);
  });
}

} // extern "C"
