"""The exceptions of the mp package: one hierarchy under mp.Error.

Every failure the runtime reports through the C API becomes one of these,
with the runtime's own message (the same words mp-run prints); nothing the
package calls ends the interpreter.
"""


class Error(Exception):
    """Base of every mp exception. `code` is the runtime's status
    ("invalid_argument", "not_found", "data_loss", "unimplemented",
    "internal"), or "" for errors the package finds itself."""

    def __init__(self, message, code=""):
        super().__init__(message)
        self.message = message
        self.code = code


class ExportError(Error):
    """A model or training step the exporter cannot carry."""


class CompileError(Error):
    """mp-compile refused the step (the message names the op and, for an
    exported model, the user's source line)."""


class PlanError(Error):
    """A plan file that is missing, corrupt or of another format."""


class BackendError(Error):
    """The backend cannot run this plan here (an op or dtype it lacks, no
    device); the message says which."""


class DataError(Error):
    """A batch that does not fit the step: an unknown input name, another
    dtype or shape (the message gives the expected and the given one), or
    values the step refuses."""


class NumericsError(Error):
    """A step whose gradient check failed (inf or NaN where the plan checks
    instead of skipping). No state changed. `diagnosis` is the runtime's
    replay of the step (the first op that made inf or NaN, and the proposed
    fix), or "" when it could not be made."""

    def __init__(self, message, code="", diagnosis=""):
        super().__init__(message, code)
        self.diagnosis = diagnosis


_CODES = {
    1: "invalid_argument",
    2: "not_found",
    3: "data_loss",
    4: "unimplemented",
    5: "internal",
}


def code_name(code):
    return _CODES.get(code, "code %d" % code)
