/*===- mp_runtime.h - the runtime's C API -------------------------*- C -*-===//
 *
 * Load a plan compiled by mp-compile, create a session on a backend, bind
 * inputs, run training steps, read the loss and outputs, checkpoint.
 *
 * Conventions (those of IREE's runtime API):
 *  - Handles (mp_plan, mp_session) are opaque; each *_create / *_load has a
 *    matching *_free, which accepts NULL.
 *  - Fallible calls return an mp_status*: NULL means success; otherwise the
 *    caller owns it, reads mp_status_code / mp_status_message and frees it
 *    with mp_status_free. Results come back through out_ parameters, which
 *    are only written on success.
 *  - No C++ exception ever crosses this boundary; running out of memory is
 *    an MP_STATUS_INTERNAL status.
 *  - A session is not thread-safe: call it from one thread at a time.
 *
 *===----------------------------------------------------------------------===*/
#ifndef MP_RUNTIME_MP_RUNTIME_H
#define MP_RUNTIME_MP_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===-------------------------------------------------------------------===//
 * Status
 *===-------------------------------------------------------------------===*/

typedef enum mp_status_code_t {
  MP_STATUS_OK = 0,
  MP_STATUS_INVALID_ARGUMENT = 1, /* bad input: name, dtype, shape, size */
  MP_STATUS_NOT_FOUND = 2,        /* a missing file, tensor or backend */
  MP_STATUS_DATA_LOSS = 3,        /* a corrupt or truncated file */
  MP_STATUS_UNIMPLEMENTED = 4,    /* an op or dtype the backend lacks */
  MP_STATUS_INTERNAL = 5,         /* I/O failure, out of memory, a bug */
} mp_status_code_t;

typedef struct mp_status mp_status;

/* MP_STATUS_OK for NULL. */
mp_status_code_t mp_status_code(const mp_status *status);
/* What went wrong and where; "" for NULL. Valid until the status is freed. */
const char *mp_status_message(const mp_status *status);
void mp_status_free(mp_status *status);

/*===-------------------------------------------------------------------===//
 * Plans
 *===-------------------------------------------------------------------===*/

/* Element types; the values are those of the plan format. i1 is stored as
 * one byte per element (0 or 1). */
typedef enum mp_dtype_t {
  MP_DTYPE_F32 = 0,
  MP_DTYPE_BF16 = 1,
  MP_DTYPE_F16 = 2,
  MP_DTYPE_I1 = 3,
  MP_DTYPE_I32 = 4,
  MP_DTYPE_I64 = 5,
  /* Not a dtype: makes every int32 value one of the enum's range, so a
   * value a C caller passes that is none of the above is an error the
   * functions report, not undefined behaviour in the C++ library. */
  MP_DTYPE_MAX_ENUM_ = 0x7fffffff,
} mp_dtype_t;

/* "f32", "bf16", ...; "<unknown dtype>" for other values. */
const char *mp_dtype_name(mp_dtype_t dtype);
/* Bytes per element; 0 for other values. */
size_t mp_dtype_size(mp_dtype_t dtype);

typedef struct mp_plan mp_plan;

/* Reads and validates a plan file. */
mp_status *mp_plan_load(const char *path, mp_plan **out_plan);
/* The same from bytes in memory (copied). */
mp_status *mp_plan_load_from_memory(const void *data, size_t size,
                                    mp_plan **out_plan);
void mp_plan_free(mp_plan *plan);
/* The hash checkpoints record (FNV-1a of the serialized plan). */
uint64_t mp_plan_hash(const mp_plan *plan);
/* The precision policy the plan was compiled with ("mixed_bfloat16", ...). */
const char *mp_plan_policy(const mp_plan *plan);

/*===-------------------------------------------------------------------===//
 * Sessions
 *===-------------------------------------------------------------------===*/

typedef struct mp_session mp_session;

/* Creates a session on a copy of `plan` (free the plan whenever you like).
 * `backend_name`: "cpu" (oneDNN), "cuda" (MP_STATUS_UNIMPLEMENTED, with the
 * reason, where no GPU can run it) or "reference"; NULL, "" or "default"
 * pick the default: cpu where oneDNN is built in and loads, else reference.
 * Every kernel is checked against the backend and all memory is allocated
 * here: a session that was created runs. Persistent tensors start at zero
 * (loss-scaler state at its initial value); see mp_session_init_params. */
mp_status *mp_session_create(const mp_plan *plan, const char *backend_name,
                             mp_session **out_session);
void mp_session_free(mp_session *session);
const char *mp_session_backend_name(const mp_session *session);
/* A data-parallel plan (with train.all_reduce) created in a process an MPI
 * launcher started runs on the launcher's ranks (docs/distributed.md): this
 * process's rank and their number; 0 and 1 otherwise. */
int mp_session_rank(const mp_session *session);
int mp_session_world_size(const mp_session *session);
/* The number of ranks a data-parallel=zero1 plan shards its optimizer state
 * over (it runs on exactly that many); 0 for any other plan. Such a plan's
 * optimizer state is seen whole through this API (its info's shape, get,
 * set, checkpoints) though each rank keeps only its shard: reading it
 * (mp_session_get_tensor, mp_session_save_checkpoint) gathers every rank's
 * shard, a collective every rank must make, in the same order. */
int mp_session_sharded_over(const mp_session *session);
/* Seconds the steps run so far waited for their gradient reductions (what
 * overlap with the backward pass did not hide); 0 in one process. */
double mp_session_collective_wait_seconds(const mp_session *session);
/* Sums `count` floats at `data` over every rank of the session's job, in
 * place, waiting for it (each rank must call it alike): for what the
 * caller reports for the whole job (a metric's totals). One process: the
 * identity. */
mp_status *mp_session_all_reduce_sum(mp_session *session, float *data,
                                     size_t count);
/* Ends the whole job (every rank, through the launcher) with exit code
 * `code`: for an error on one rank that the others would otherwise meet
 * as a timeout in their next reduction. Without MPI running: exit(code). */
void mp_abort_ranks(int code);

typedef enum mp_tensor_role_t {
  MP_TENSOR_ROLE_PARAM = 1,
  MP_TENSOR_ROLE_OPT_STATE = 2,
  MP_TENSOR_ROLE_BUFFER = 3,
  MP_TENSOR_ROLE_SCALER_STATE = 4,
  MP_TENSOR_ROLE_INPUT = 5,
  MP_TENSOR_ROLE_LABEL = 6,
  MP_TENSOR_ROLE_OUTPUT = 7, /* a result of the step: the loss, outputs */
} mp_tensor_role_t;

typedef struct mp_tensor_info_t {
  const char *name; /* valid while the session lives */
  mp_tensor_role_t role;
  mp_dtype_t dtype;
  size_t rank;
  const int64_t *shape; /* `rank` dims, valid while the session lives */
  uint64_t byte_size;
} mp_tensor_info_t;

/* The named tensors: params, optimizer state, buffers, scaler state,
 * inputs, labels, then the step's results. */
size_t mp_session_tensor_count(const mp_session *session);
mp_status *mp_session_tensor_info_at(const mp_session *session, size_t index,
                                     mp_tensor_info_t *out_info);
mp_status *mp_session_tensor_info(const mp_session *session, const char *name,
                                  mp_tensor_info_t *out_info);

/* Copies `bytes` bytes into an input, label or persistent tensor; `dtype`,
 * the shape and `bytes` must be exactly the tensor's (the message says
 * what differs). Inputs and labels keep their value until set again. */
mp_status *mp_session_set_tensor(mp_session *session, const char *name,
                                 mp_dtype_t dtype, const int64_t *shape,
                                 size_t rank, const void *data, size_t bytes);
/* Binds the caller's memory as the input or label `name` for the next
 * mp_session_run_step, without a copy: the step reads `data`, which must stay
 * unchanged until that call returns. Checked as mp_session_set_tensor, and
 * `data` aligned to the element size. The binding lasts one step: bind or
 * set the tensor again for the next (a failed step keeps a copy). Returns
 * MP_STATUS_UNIMPLEMENTED where a copy is needed instead (device memory, a
 * step that writes into the tensor's memory, unaligned data): call
 * mp_session_set_tensor then. */
mp_status *mp_session_bind_tensor(mp_session *session, const char *name,
                                  mp_dtype_t dtype, const int64_t *shape,
                                  size_t rank, const void *data, size_t bytes);
/* Copies a tensor into `out_data`, `bytes` being its exact byte size.
 * Results hold the values of the last step. */
mp_status *mp_session_get_tensor(const mp_session *session, const char *name,
                                 void *out_data, size_t bytes);

/* Seeded, deterministic initialization of the params (docs/runtime.md). */
mp_status *mp_session_init_params(mp_session *session, uint64_t seed);
/* Loads params (and buffers, when present) from a safetensors file. */
mp_status *mp_session_load_params(mp_session *session, const char *path);

/* Runs one training step; `out_loss` (may be NULL) receives the loss. On
 * failure no persistent tensor changes. */
mp_status *mp_session_run_step(mp_session *session, float *out_loss);
/* 1 when the last mp_session_run_step failed because a check of the step
 * did not hold (a non-finite gradient where the plan checks instead of
 * skipping: the status message names it), else 0 (also for NULL). */
int mp_session_last_step_failed_check(const mp_session *session);

/* Replays one step with a finiteness check after every kernel and writes
 * the diagnosis to `*out_text` (several lines: the first kernel that made
 * inf or NaN from finite inputs, its op, source line and precision
 * decision, its operands' ranges, and the proposed fix; or that the batch
 * or state is already non-finite, or that every value was finite). Call it
 * after mp_session_run_step failed on a gradient check or reported a
 * skipped step: the session still holds the state before that step and
 * its batch. `loss_scale` > 0 sets the loss scale for the replay (the one
 * the failing step ran with; a skipped step has lowered it since), then
 * restores it; 0 keeps the current one. Changes no state. Free the text
 * with mp_string_free. See docs/mp-run.md, "When training goes
 * non-finite". */
mp_status *mp_session_diagnose_step(mp_session *session, float loss_scale,
                                    char **out_text);
void mp_string_free(char *text);

/* policy=auto: the precision policy that is fast and safe for `target`
 * ("cpu": this machine's CPU; "cuda") and why, in one sentence; free both
 * with mp_string_free. MP_STATUS_INVALID_ARGUMENT for another target. */
mp_status *mp_auto_policy(const char *target, char **out_policy,
                          char **out_reason);

typedef struct mp_scaler_stats_t {
  int64_t steps_run;
  int64_t steps_skipped;      /* steps whose gradients were inf or NaN */
  int64_t last_overflow_step; /* 0-based, -1 if none */
  float scale;                /* current loss scale; 1 without a dynamic one */
  int has_scaler;             /* the plan reports the scaler's verdict */
  int has_dynamic_scale;      /* the plan keeps a "loss_scale" state */
} mp_scaler_stats_t;

mp_status *mp_session_get_scaler_stats(const mp_session *session,
                                       mp_scaler_stats_t *out_stats);

/* Writes every persistent tensor and the step counters to a safetensors
 * file, atomically. */
mp_status *mp_session_save_checkpoint(const mp_session *session,
                                      const char *path);

/* Flags of mp_session_load_checkpoint. */
#define MP_CHECKPOINT_IGNORE_PLAN_HASH 1u

/* Restores a checkpoint; nothing changes unless all of it matches the plan.
 * MP_CHECKPOINT_IGNORE_PLAN_HASH loads one saved by another plan of the
 * same model (another policy); see docs/runtime.md. */
mp_status *mp_session_load_checkpoint(mp_session *session, const char *path,
                                      uint32_t flags);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MP_RUNTIME_MP_RUNTIME_H */
