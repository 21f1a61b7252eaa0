/*===- embed.c - train with the mp runtime from C -------------------------===//
 *
 *   embed PLAN [STEPS [CHECKPOINT]]
 *
 * Loads a plan (written by mp-compile), creates a session on the default
 * backend, initializes the params, binds one synthetic batch to every input
 * and label, runs STEPS training steps printing the loss, and reports what
 * the loss scaler did. With CHECKPOINT it then saves a checkpoint, restores
 * it into a second session and checks that both compute the same next
 * step, bit for bit. Exits non-zero on any error or if the loss did not go
 * down.
 *
 *===----------------------------------------------------------------------===*/
#include "mp/runtime/mp_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every fallible call returns NULL or a status the caller must free. */
static int check(mp_status *status, const char *what) {
  if (!status)
    return 1;
  fprintf(stderr, "embed: %s failed (code %d): %s\n", what,
          (int)mp_status_code(status), mp_status_message(status));
  mp_status_free(status);
  return 0;
}

static const char *roleName(mp_tensor_role_t role) {
  static const char *names[] = {"?",      "param", "opt_state", "buffer",
                                "scaler", "input", "label",     "output"};
  return role >= 1 && role <= 7 ? names[role] : "?";
}

/* Fills a batch tensor with a fixed pseudo-random pattern: floats uniform
 * in [-1, 1], integers (class labels) 0. The same batch every step: the
 * model should fit it. */
static int bindSynthetic(mp_session *session, const mp_tensor_info_t *info) {
  unsigned char *data = malloc(info->byte_size ? info->byte_size : 1);
  if (!data)
    return 0;
  memset(data, 0, info->byte_size);
  size_t count = info->byte_size / mp_dtype_size(info->dtype);
  uint32_t state = 12345;
  for (size_t i = 0; i < count && info->dtype == MP_DTYPE_F32; ++i) {
    state = state * 1664525u + 1013904223u;
    ((float *)data)[i] = (float)(state >> 8) / 8388608.0f - 1.0f;
  }
  int ok =
      check(mp_session_set_tensor(session, info->name, info->dtype, info->shape,
                                  info->rank, data, info->byte_size),
            info->name);
  free(data);
  return ok;
}

/* Creates a session on `plan` with every input and label bound. */
static mp_session *openSession(const mp_plan *plan) {
  mp_session *session = NULL;
  if (!check(mp_session_create(plan, NULL, &session), "mp_session_create"))
    return NULL;
  size_t count = mp_session_tensor_count(session);
  for (size_t i = 0; i < count; ++i) {
    mp_tensor_info_t info;
    if (!check(mp_session_tensor_info_at(session, i, &info), "tensor info")) {
      mp_session_free(session);
      return NULL;
    }
    if ((info.role == MP_TENSOR_ROLE_INPUT ||
         info.role == MP_TENSOR_ROLE_LABEL) &&
        !bindSynthetic(session, &info)) {
      mp_session_free(session);
      return NULL;
    }
  }
  return session;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: embed PLAN [STEPS [CHECKPOINT]]\n");
    return 2;
  }
  int steps = argc > 2 ? atoi(argv[2]) : 20;
  const char *checkpoint = argc > 3 ? argv[3] : NULL;

  mp_plan *plan = NULL;
  if (!check(mp_plan_load(argv[1], &plan), "mp_plan_load"))
    return 1;
  printf("plan %s: policy %s, hash %016llx\n", argv[1], mp_plan_policy(plan),
         (unsigned long long)mp_plan_hash(plan));

  mp_session *session = openSession(plan);
  if (!session) {
    mp_plan_free(plan);
    return 1;
  }
  printf("backend: %s\n", mp_session_backend_name(session));
  int ok = 1;
  for (size_t i = 0; ok && i < mp_session_tensor_count(session); ++i) {
    mp_tensor_info_t info;
    if (!(ok = check(mp_session_tensor_info_at(session, i, &info), "info")))
      break;
    printf("  %-10s %-28s %s[", roleName(info.role), info.name,
           mp_dtype_name(info.dtype));
    for (size_t d = 0; d < info.rank; ++d)
      printf(d ? ", %lld" : "%lld", (long long)info.shape[d]);
    printf("]\n");
  }

  ok = ok && check(mp_session_init_params(session, 42), "init params");
  float first = 0, loss = 0;
  for (int step = 0; ok && step < steps; ++step) {
    ok = check(mp_session_run_step(session, &loss), "mp_session_run_step");
    if (step == 0)
      first = loss;
    if (ok)
      printf("step %3d  loss %.6g\n", step, loss);
  }

  mp_scaler_stats_t stats;
  if (ok && (ok = check(mp_session_get_scaler_stats(session, &stats),
                        "scaler stats"))) {
    printf("steps run: %lld, skipped: %lld, last overflow: %lld, "
           "loss scale: %g%s\n",
           (long long)stats.steps_run, (long long)stats.steps_skipped,
           (long long)stats.last_overflow_step, stats.scale,
           stats.has_dynamic_scale ? "" : " (none)");
  }
  if (ok && steps > 1 && !(loss < first)) {
    fprintf(stderr, "embed: the loss did not go down (%g -> %g)\n", first,
            loss);
    ok = 0;
  }

  if (ok && checkpoint) {
    /* Save, restore into a new session, and compare the next step. */
    mp_session *resumed = NULL;
    float next = 0, resumedNext = 0;
    ok = check(mp_session_save_checkpoint(session, checkpoint), "save") &&
         (resumed = openSession(plan)) != NULL &&
         check(mp_session_load_checkpoint(resumed, checkpoint, 0), "load") &&
         check(mp_session_run_step(session, &next), "step") &&
         check(mp_session_run_step(resumed, &resumedNext), "resumed step");
    if (ok && memcmp(&next, &resumedNext, sizeof(float)) != 0) {
      fprintf(stderr, "embed: resumed step differs: %.9g vs %.9g\n", next,
              resumedNext);
      ok = 0;
    }
    if (ok)
      printf("checkpoint %s: resumed step matches (loss %.6g)\n", checkpoint,
             resumedNext);
    mp_session_free(resumed);
  }

  mp_session_free(session);
  mp_plan_free(plan);
  return ok ? 0 : 1;
}
