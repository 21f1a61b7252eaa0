"""The runtime's C API (runtime/include/mp/runtime/mp_runtime.h) through
ctypes, from libmp_runtime_c.so, which the normal build writes to
BUILD/lib.

Why ctypes and not a compiled extension (docs/python.md): a call costs
about a microsecond against steps of milliseconds, ctypes releases the GIL
for the whole call (the step runs while other Python threads, a
DataLoader's for one, go on), and the package needs nothing compiled
against a particular Python.
"""
import ctypes
import os

from .errors import Error

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(os.path.dirname(_HERE))
_NAME = "libmp_runtime_c.so"


def library_candidates():
    """Where the library is looked for, in order: $MP_RUNTIME_LIBRARY,
    $MP_BUILD_DIR/lib, then the checkout's build/lib."""
    paths = []
    if os.environ.get("MP_RUNTIME_LIBRARY"):
        paths.append(os.environ["MP_RUNTIME_LIBRARY"])
    if os.environ.get("MP_BUILD_DIR"):
        paths.append(os.path.join(os.environ["MP_BUILD_DIR"], "lib", _NAME))
    paths.append(os.path.join(_REPO, "build", "lib", _NAME))
    return paths


class TensorInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("role", ctypes.c_int),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_size_t),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("byte_size", ctypes.c_uint64),
    ]


class ScalerStats(ctypes.Structure):
    _fields_ = [
        ("steps_run", ctypes.c_int64),
        ("steps_skipped", ctypes.c_int64),
        ("last_overflow_step", ctypes.c_int64),
        ("scale", ctypes.c_float),
        ("has_scaler", ctypes.c_int),
        ("has_dynamic_scale", ctypes.c_int),
    ]


_P = ctypes.c_void_p
_STATUS = ctypes.c_void_p

# name: (result type, argument types)
_SIGNATURES = {
    "mp_status_code": (ctypes.c_int, [_STATUS]),
    "mp_status_message": (ctypes.c_char_p, [_STATUS]),
    "mp_status_free": (None, [_STATUS]),
    "mp_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "mp_plan_load": (_STATUS, [ctypes.c_char_p, ctypes.POINTER(_P)]),
    "mp_plan_free": (None, [_P]),
    "mp_plan_hash": (ctypes.c_uint64, [_P]),
    "mp_plan_policy": (ctypes.c_char_p, [_P]),
    "mp_session_create": (_STATUS, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
    "mp_session_free": (None, [_P]),
    "mp_session_backend_name": (ctypes.c_char_p, [_P]),
    "mp_session_tensor_count": (ctypes.c_size_t, [_P]),
    "mp_session_tensor_info_at": (
        _STATUS, [_P, ctypes.c_size_t, ctypes.POINTER(TensorInfo)]),
    "mp_session_set_tensor": (
        _STATUS, [_P, ctypes.c_char_p, ctypes.c_int,
                  ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                  ctypes.c_void_p, ctypes.c_size_t]),
    "mp_session_bind_tensor": (
        _STATUS, [_P, ctypes.c_char_p, ctypes.c_int,
                  ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t,
                  ctypes.c_void_p, ctypes.c_size_t]),
    "mp_session_rank": (ctypes.c_int, [_P]),
    "mp_session_world_size": (ctypes.c_int, [_P]),
    "mp_session_sharded_over": (ctypes.c_int, [_P]),
    "mp_abort_ranks": (None, [ctypes.c_int]),
    "mp_session_collective_wait_seconds": (ctypes.c_double, [_P]),
    "mp_session_all_reduce_sum": (_P, [_P, _P, ctypes.c_size_t]),
    "mp_session_get_tensor": (
        _STATUS, [_P, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]),
    "mp_session_init_params": (_STATUS, [_P, ctypes.c_uint64]),
    "mp_session_load_params": (_STATUS, [_P, ctypes.c_char_p]),
    "mp_session_run_step": (_STATUS, [_P, ctypes.POINTER(ctypes.c_float)]),
    "mp_session_last_step_failed_check": (ctypes.c_int, [_P]),
    "mp_session_diagnose_step": (
        _STATUS, [_P, ctypes.c_float, ctypes.POINTER(ctypes.c_void_p)]),
    "mp_string_free": (None, [ctypes.c_void_p]),
    "mp_auto_policy": (
        _STATUS, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                  ctypes.POINTER(ctypes.c_void_p)]),
    "mp_session_get_scaler_stats": (
        _STATUS, [_P, ctypes.POINTER(ScalerStats)]),
    "mp_session_save_checkpoint": (_STATUS, [_P, ctypes.c_char_p]),
    "mp_session_load_checkpoint": (
        _STATUS, [_P, ctypes.c_char_p, ctypes.c_uint32]),
}

_lib = None


def lib():
    """The loaded library, with every function's signature declared."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in library_candidates():
        if not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            loaded = ctypes.CDLL(path)
        except OSError as error:
            tried.append("%s (%s)" % (path, error))
            continue
        for name, (result, args) in _SIGNATURES.items():
            function = getattr(loaded, name)
            function.restype = result
            function.argtypes = args
        _lib = loaded
        return _lib
    raise Error(
        "mp: the runtime library %s was not found; tried %s. Build it with "
        "scripts/build.sh (or cmake --build build --target mp_runtime_c), or "
        "set MP_RUNTIME_LIBRARY to its path" % (_NAME, "; ".join(tried)))


def take_status(status):
    """(code, message) of a returned mp_status*, which is freed; (0, "")
    for success."""
    if not status:
        return 0, ""
    native = lib()
    code = native.mp_status_code(status)
    message = native.mp_status_message(status).decode("utf-8", "replace")
    native.mp_status_free(status)
    return code, message
