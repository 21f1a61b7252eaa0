"""mp: mixed-precision training steps compiled by mp-compile, run in this
process (docs/python.md).

- mp.Session: a compiled plan's training step, one step per call, on the
  runtime mp-run uses (same kernels, same numbers).
- mp.torch.compile: a PyTorch model's training step exported, compiled and
  loaded in one call (imported on first use: `import mp` needs no torch).
- mp.keras.fit: a compiled Keras 3 model trained by mp in place of
  model.fit (imported on first use).
- mp.auto_policy(target): what policy="auto" picks on this machine, and why.
- mp.Error and its subclasses: every failure, with the runtime's message.
"""
from .errors import (BackendError, CompileError, DataError, Error,
                     ExportError, NumericsError, PlanError)
from .session import Session, TensorInfo, auto_policy

__all__ = [
    "BackendError", "CompileError", "DataError", "Error", "ExportError",
    "NumericsError", "PlanError", "Session", "TensorInfo", "auto_policy",
]


def __getattr__(name):
    if name in ("torch", "keras"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'mp' has no attribute '%s'" % name)
