"""mp.Session: a compiled training step (a plan from mp-compile) run in this
process, one step per call, on the runtime mp-run uses (docs/python.md).

    import mp
    session = mp.Session("step.mpplan")          # backend: cpu where it loads
    session.init_params(seed=0)                  # or load_params / load_checkpoint
    for x, y in batches:                         # any loader: new data each step
        loss = session.step(x, y)                # inputs, then labels, in plan order
    session.save_checkpoint("step.ckpt")

Batches are numpy arrays or CPU torch tensors (anything np.asarray takes).
Each is checked against the plan's tensor before the step: an unknown
name, another shape, float64 data, or an integer array whose values do not
fit are a DataError naming the tensor with what it expects and what it got.
The rule for dtypes: the tensor's own dtype is taken as it is; float32 data
for a bf16 or f16 tensor is rounded to it once (to nearest even); integers
of another width are taken when every value fits.
"""
import ctypes
import sys
import threading

import numpy as np

from . import _native
from .errors import (BackendError, DataError, Error, NumericsError,
                     PlanError, code_name)

# The C API's enums (runtime/include/mp/runtime/mp_runtime.h).
_F32, _BF16, _F16, _I1, _I32, _I64 = range(6)
_UNIMPLEMENTED = 4  # MP_STATUS_UNIMPLEMENTED: bind_tensor asks for a copy
_NUMPY = {_F32: np.float32, _F16: np.float16, _I1: np.bool_,
          _I32: np.int32, _I64: np.int64, _BF16: np.uint16}
_ROLES = {1: "param", 2: "optimizer_state", 3: "buffer", 4: "scaler_state",
          5: "input", 6: "label", 7: "output"}
_CHECKPOINT_IGNORE_PLAN_HASH = 1


class TensorInfo:
    """A named tensor of the step: `role` ("param", "optimizer_state",
    "buffer", "scaler_state", "input", "label", "output"), `dtype` ("f32",
    "bf16", "f16", "i1", "i32", "i64") and `shape`."""

    def __init__(self, name, role, dtype, shape, code):
        self.name, self.role, self.dtype = name, role, dtype
        self.shape = tuple(shape)
        self._code = code

    def __repr__(self):
        return "TensorInfo(%r, %s, %s%s)" % (self.name, self.role, self.dtype,
                                             list(self.shape))


def _raise(code, message, default=Error):
    """The exception for a C API status: `default` (what the call's
    failures are: BackendError for a session's creation, DataError for a
    tensor's), except that an op or dtype a backend lacks is a
    BackendError, and a missing or corrupt file a PlanError where the call
    names no class of its own."""
    if code == 0:
        return
    name = code_name(code)
    if code == 4:  # unimplemented
        raise BackendError(message, name)
    if code in (2, 3) and default is Error:  # not_found, data_loss
        raise PlanError(message, name)
    raise default(message, name)


def _to_bf16_bits(values):
    """float32 -> bf16 bit patterns, rounded to nearest even; NaN stays a
    (quiet) NaN."""
    bits = values.view(np.uint32)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> 16) & 1))) >> 16
    rounded = rounded.astype(np.uint16)
    nan = np.isnan(values)
    if nan.any():
        rounded[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)
    return rounded


def _from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _as_array(value):
    """A numpy view of `value` where it is one already (numpy arrays, CPU
    torch tensors: no copy), a converted array otherwise."""
    if hasattr(value, "detach") and hasattr(value, "dtype"):
        tensor = value.detach()
        if getattr(tensor, "device", None) is not None and \
                str(tensor.device) != "cpu":
            tensor = tensor.cpu()
        if str(tensor.dtype) == "torch.bfloat16":
            import torch
            return tensor.contiguous().view(torch.int16).numpy().view(
                np.uint16), True
        return tensor.numpy(), False
    return np.asarray(value), False


def auto_policy(target="cpu"):
    """(policy, reason): what policy="auto" picks for `target` ("cpu": this
    machine's CPU; "cuda") and why: mixed_bfloat16 where bf16 matmuls are
    native and measured at least 1.2x as fast as f32 ones here,
    mixed_float16 where only fp16 ones are, else float32 (docs/python.md;
    the measurement is kept in the cache folder, once per machine)."""
    native = _native.lib()
    policy, reason = ctypes.c_void_p(), ctypes.c_void_p()
    code, message = _native.take_status(native.mp_auto_policy(
        str(target).encode(), ctypes.byref(policy), ctypes.byref(reason)))
    _raise(code, message)
    out = (ctypes.string_at(policy.value).decode(),
           ctypes.string_at(reason.value).decode())
    native.mp_string_free(policy)
    native.mp_string_free(reason)
    return out


def _abort_ranks_on_uncaught(session):
    """Under several ranks: an exception nothing catches ends the whole
    job once its traceback is printed (mp_abort_ranks), as mp-run
    ends it on an error, rather than leaving the other ranks to wait for
    this one until their reductions time out (mpi4py's `-m mpi4py` does
    the same)."""
    if getattr(sys.excepthook, "_mp_aborts_ranks", False):
        return
    previous, native = sys.excepthook, session._native

    def hook(kind, value, traceback):
        previous(kind, value, traceback)
        sys.stderr.flush()
        native.mp_abort_ranks(1)
    hook._mp_aborts_ranks = True
    sys.excepthook = hook


class Session:
    """A plan's training step, run in this process. `backend`: "cpu",
    "reference", "cuda" or None (the default: cpu where oneDNN loads)."""

    def __init__(self, plan, backend=None):
        self._session = None
        self._lock = threading.Lock()
        self._bound = {}  # name -> the array bound for the next step
        native = _native.lib()
        handle = ctypes.c_void_p()
        path = str(plan).encode()
        code, message = _native.take_status(
            native.mp_plan_load(path, ctypes.byref(handle)))
        _raise(code, message, PlanError)
        try:
            self.policy = native.mp_plan_policy(handle).decode()
            self.plan_hash = native.mp_plan_hash(handle)
            session = ctypes.c_void_p()
            code, message = _native.take_status(native.mp_session_create(
                handle, str(backend).encode() if backend else None,
                ctypes.byref(session)))
            _raise(code, message, BackendError)
        finally:
            native.mp_plan_free(handle)
        self._session = session
        self._native = native
        # A data-parallel plan under mpirun runs on the launcher's ranks;
        # mp_session_create set it up, and refused any other plan there.
        self.rank = native.mp_session_rank(session)
        self.world_size = native.mp_session_world_size(session)
        # A data-parallel=zero1 plan keeps each rank's shard of the
        # optimizer state; it is read and written whole here, reading it
        # (get, save_checkpoint) gathering every rank's: a collective.
        self.sharded_over = native.mp_session_sharded_over(session)
        if self.world_size > 1:
            _abort_ranks_on_uncaught(self)
        self.backend = native.mp_session_backend_name(session).decode()
        self.tensors = {}
        info = _native.TensorInfo()
        for i in range(native.mp_session_tensor_count(session)):
            code, message = _native.take_status(
                native.mp_session_tensor_info_at(session, i,
                                                 ctypes.byref(info)))
            _raise(code, message)
            name = info.name.decode()
            self.tensors[name] = TensorInfo(
                name, _ROLES.get(info.role, str(info.role)),
                native.mp_dtype_name(info.dtype).decode(),
                [info.shape[d] for d in range(info.rank)], info.dtype)
        self.inputs = [t.name for t in self.tensors.values()
                       if t.role == "input"]
        self.labels = [t.name for t in self.tensors.values()
                       if t.role == "label"]
        self.params = [t.name for t in self.tensors.values()
                       if t.role == "param"]

    # -- lifetime ---------------------------------------------------------

    def close(self):
        """Frees the session's memory; the object is unusable after."""
        if self._session:
            self._native.mp_session_free(self._session)
            self._session = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._session:
            raise Error("mp.Session: used after close()")
        return self._session

    # -- tensors ----------------------------------------------------------

    def _info(self, name):
        info = self.tensors.get(name)
        if info is None:
            raise DataError("the step has no tensor '%s' (its inputs: %s; "
                            "labels: %s)" % (name, ", ".join(self.inputs),
                                             ", ".join(self.labels)))
        return info

    def _converted(self, info, value):
        array, is_bf16_bits = _as_array(value)
        given = "%s%s" % (array.dtype, list(array.shape))
        expected = "%s%s" % (info.dtype, list(info.shape))
        if tuple(array.shape) != info.shape:
            raise DataError("'%s' takes %s, got %s" % (info.name, expected,
                                                       given))
        code = info._code
        if array.dtype == np.float64:
            raise DataError(
                "'%s' takes %s, got float64%s: convert it, e.g. "
                ".astype(np.float32)" % (info.name, expected,
                                         list(array.shape)))
        if code == _BF16:
            if is_bf16_bits:
                out = array
            elif array.dtype == np.float32:
                out = _to_bf16_bits(np.ascontiguousarray(array))
            else:
                raise DataError("'%s' takes %s (bf16 or float32 data), got %s"
                                % (info.name, expected, given))
        elif code in (_F32, _F16):
            want = _NUMPY[code]
            if array.dtype == want:
                out = array
            elif code == _F16 and array.dtype == np.float32:
                out = array.astype(np.float16)
            else:
                raise DataError("'%s' takes %s, got %s" % (info.name,
                                                           expected, given))
        else:
            want = np.dtype(_NUMPY[code])
            if array.dtype == want:
                out = array
            elif array.dtype.kind in "biu" and want.kind in "biu":
                if array.size and want.kind != "b":
                    lo, hi = np.iinfo(want).min, np.iinfo(want).max
                    if array.min() < lo or array.max() > hi:
                        raise DataError(
                            "'%s' takes %s, got %s with values outside %s"
                            % (info.name, expected, given, want))
                elif array.size and want.kind == "b" and \
                        not np.isin(array, (0, 1)).all():
                    raise DataError("'%s' takes %s, got %s with values other "
                                    "than 0 and 1" % (info.name, expected,
                                                      given))
                out = array.astype(want)
            else:
                raise DataError("'%s' takes %s, got %s" % (info.name,
                                                           expected, given))
        return np.ascontiguousarray(out)

    def set(self, name, value):
        """Sets an input, label or persistent tensor (params, optimizer
        state, buffers) to `value` (checked: see the module's rule)."""
        info = self._info(name)
        array = self._converted(info, value)
        shape = (ctypes.c_int64 * max(1, len(info.shape)))(*info.shape)
        with self._lock:
            code, message = _native.take_status(
                self._native.mp_session_set_tensor(
                    self._handle(), name.encode(), info._code, shape,
                    len(info.shape), array.ctypes.data, array.nbytes))
        _raise(code, message, DataError)

    def get(self, name, raw=False):
        """A copy of tensor `name` (a result holds the last step's value).
        bf16 tensors come back widened to float32, or with `raw` as their
        uint16 bit patterns."""
        info = self._info(name)
        out = np.empty(info.shape, dtype=_NUMPY[info._code])
        with self._lock:
            code, message = _native.take_status(
                self._native.mp_session_get_tensor(
                    self._handle(), name.encode(), out.ctypes.data,
                    out.nbytes))
        _raise(code, message)
        if info._code == _BF16 and not raw:
            return _from_bf16_bits(out)
        return out

    # -- training ---------------------------------------------------------

    def init_params(self, seed=0):
        """Seeded, deterministic initialization of the params (mp-run's
        --seed does the same)."""
        self._call("mp_session_init_params", ctypes.c_uint64(seed))

    def load_params(self, path):
        """Params (and buffers) from a safetensors file."""
        self._call("mp_session_load_params", str(path).encode(),
                   error=PlanError)

    def step(self, *batch, **named):
        """Runs one training step on `batch` (the plan's inputs, then its
        labels, in order) and/or `named` tensors; returns the loss. A step
        that fails changes no state: a failed gradient check raises
        NumericsError (with the runtime's diagnosis), bad data DataError."""
        names = self.inputs + self.labels
        if len(batch) > len(names):
            raise DataError("step() takes %d tensors (%s), got %d"
                            % (len(names), ", ".join(names), len(batch)))
        for name, value in zip(names, batch):
            if name in named:
                raise DataError("'%s' given twice" % name)
            named[name] = value
        bound, kept = {}, {}
        for name, value in named.items():
            info = self._info(name)
            if info.role in ("input", "label"):
                bound[name] = self._converted(info, value)
            else:
                kept[name] = value
        for name, value in kept.items():
            self.set(name, value)
        loss = ctypes.c_float()
        with self._lock:
            handle = self._handle()
            # The batch is read where it is (numpy's memory, a torch
            # tensor's): bound for this step, without the runtime's copy;
            # copied where the runtime cannot read it in place.
            for name, array in bound.items():
                # Alive while the runtime may read it: until the step has
                # run (or until a later one, if a check below raises).
                self._bound[name] = array
                info = self.tensors[name]
                shape = (ctypes.c_int64 * max(1, len(info.shape)))(*info.shape)
                args = (handle, name.encode(), info._code, shape,
                        len(info.shape), array.ctypes.data, array.nbytes)
                code, message = _native.take_status(
                    self._native.mp_session_bind_tensor(*args))
                if code == _UNIMPLEMENTED:
                    code, message = _native.take_status(
                        self._native.mp_session_set_tensor(*args))
                _raise(code, message, DataError)
            code, message = _native.take_status(
                self._native.mp_session_run_step(handle, ctypes.byref(loss)))
            self._bound = {}  # the runtime has let go of every binding
            failed_check = code != 0 and \
                self._native.mp_session_last_step_failed_check(handle)
            diagnosis = self._diagnosis() if failed_check else ""
        if failed_check:
            raise NumericsError(message, code_name(code), diagnosis)
        _raise(code, message, DataError)
        return loss.value

    def _diagnosis(self):
        text = ctypes.c_void_p()
        code, _ = _native.take_status(self._native.mp_session_diagnose_step(
            self._session, 0.0, ctypes.byref(text)))
        if code != 0 or not text.value:
            return ""
        value = ctypes.string_at(text.value).decode("utf-8", "replace")
        self._native.mp_string_free(text)
        return value

    @property
    def collective_wait_seconds(self):
        """Seconds the steps run so far waited for their gradient
        reductions (a data-parallel plan on several ranks; 0 otherwise):
        what overlap with the backward pass did not hide."""
        return self._native.mp_session_collective_wait_seconds(
            self._handle())

    def all_reduce_sum(self, values):
        """`values` (float32) summed over every rank of the job; every rank
        must call it alike (between steps). One process: a copy."""
        data = np.ascontiguousarray(values, dtype=np.float32).copy()
        self._call("mp_session_all_reduce_sum",
                   data.ctypes.data_as(ctypes.c_void_p), data.size)
        return data

    def scaler_stats(self):
        """The loss scaler's state: steps_run, steps_skipped,
        last_overflow_step (-1: none), scale, has_scaler,
        has_dynamic_scale."""
        stats = _native.ScalerStats()
        self._call("mp_session_get_scaler_stats", ctypes.byref(stats))
        return {"steps_run": stats.steps_run,
                "steps_skipped": stats.steps_skipped,
                "last_overflow_step": stats.last_overflow_step,
                "scale": stats.scale,
                "has_scaler": bool(stats.has_scaler),
                "has_dynamic_scale": bool(stats.has_dynamic_scale)}

    # -- checkpoints ------------------------------------------------------

    def save_checkpoint(self, path):
        """Every persistent tensor and the step counters, written
        atomically (mp-run --checkpoint's format: it resumes from it).
        Under a data-parallel=zero1 plan (`sharded_over` ranks) the
        optimizer state is gathered whole first: every rank calls this,
        and each writes `path`."""
        self._call("mp_session_save_checkpoint", str(path).encode())

    def load_checkpoint(self, path, other_plan=False):
        """Restores a checkpoint (nothing changes unless all of it matches);
        `other_plan`: one saved by another plan of the same model."""
        self._call("mp_session_load_checkpoint", str(path).encode(),
                   ctypes.c_uint32(_CHECKPOINT_IGNORE_PLAN_HASH
                                   if other_plan else 0),
                   error=PlanError)

    def _call(self, function, *args, error=Error):
        with self._lock:
            code, message = _native.take_status(
                getattr(self._native, function)(self._handle(), *args))
        _raise(code, message, error)
