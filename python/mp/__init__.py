"""mp: mixed-precision training steps compiled by mp-compile, run in this
process (docs/python.md).

- mp.Session: a compiled plan's training step, one step per call, on the
  runtime mp-run uses (same kernels, same numbers).
- mp.Error and its subclasses: every failure, with the runtime's message.
"""
from .errors import (BackendError, CompileError, DataError, Error,
                     ExportError, NumericsError, PlanError)
from .session import Session, TensorInfo

__all__ = [
    "BackendError", "CompileError", "DataError", "Error", "ExportError",
    "NumericsError", "PlanError", "Session", "TensorInfo",
]
