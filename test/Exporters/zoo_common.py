"""What the zoo corpus' parts share (test/Exporters/zoo_corpus.py): its
step count and tolerances, mp-compile / mp-run of an exported step, and
the failures a stage ends in."""
import os
import subprocess
import sys
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
sys.path.insert(0, here)

from mp_export.common import ExportError  # noqa: E402
from mp_export.compare import read_metrics  # noqa: E402

STEPS = 20
TOL = 1e-4
UPDATE_TOL = 1e-3
SIXTEEN_TOL = 0.05
POLICIES = ("float32", "mixed_bfloat16", "mixed_float16")
COMPILE_TIMEOUT, RUN_TIMEOUT = 600, 900


# --- mp-compile / mp-run ----------------------------------------------------
def _binary(build, name):
    """build/bin/NAME, waiting up to 5 minutes while it is being relinked."""
    path = os.path.join(build, "bin", name)
    for _ in range(30):
        if os.access(path, os.X_OK):
            return path
        time.sleep(10)
    raise FileNotFoundError(path)


def mp_compile(build, work, stem, policy):
    plan = os.path.join(work, "%s.%s.mpplan" % (stem, policy))
    subprocess.run([_binary(build, "mp-compile"), os.path.join(work, stem + ".mlir"),
                    "--mixed-precision=policy=" + policy, "-o", plan],
                   check=True, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    return plan


def mp_run(build, work, stem, policy, steps=STEPS, checkpoint=None):
    """Trains WORK/STEM.<policy>.mpplan `steps` steps on WORK/x.npy, y.npy
    from the exported initial parameters; the per-step losses (and writes
    the checkpoint, when given)."""
    plan = os.path.join(work, "%s.%s.mpplan" % (stem, policy))
    metrics = os.path.join(work, "metrics.%s.%s.%d.jsonl" % (stem, policy, steps))
    if os.path.exists(metrics):  # mp-run appends
        os.unlink(metrics)
    subprocess.run([_binary(build, "mp-run"), plan, "--plain", "--no-shuffle",
                    "--steps", str(steps), "--train-x", os.path.join(work, "x.npy"),
                    "--train-y", os.path.join(work, "y.npy"),
                    "--init-params", os.path.join(work, stem + ".init.safetensors"),
                    "--log-every", "1", "--metrics", metrics, "--no-stop-on-nan"] +
                   (["--checkpoint", checkpoint] if checkpoint else []),
                   check=True, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    losses = read_metrics(metrics)
    if len(losses) != steps:
        raise RuntimeError("%s holds %d steps, not %d" % (metrics, len(losses), steps))
    return losses


# --- running a case -----------------------------------------------------------
class Failure(Exception):
    def __init__(self, status, message, gap=None):
        super().__init__(message)
        self.status, self.message, self.gap = status, message, gap


def _first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def _classify(e, stage):
    """An exception of `stage` ('export', 'compile', 'run', 'reference')
    as a Failure: status, first line, gap (what blocks it)."""
    if isinstance(e, Failure):
        return e
    if isinstance(e, ExportError):
        return Failure("refused", _first_line(str(e)), "%s op '%s'" % (e.framework, e.op))
    if isinstance(e, subprocess.TimeoutExpired):
        tool = os.path.basename(e.cmd[0]) if e.cmd else stage
        return Failure("%s timeout" % stage, "%s ran over %ds" % (tool, e.timeout))
    if isinstance(e, subprocess.CalledProcessError):
        tool = os.path.basename(e.cmd[0])
        lines = [l.strip() for l in (e.stderr or "").splitlines() if l.strip()]
        err = next((l for l in lines if "error" in l.lower()), lines[0] if lines else "")
        status = "compile error" if tool == "mp-compile" else "run error"
        return Failure(status, "%s exit %d: %s" % (tool, e.returncode, err[:300]))
    text = _first_line(str(e)) or type(e).__name__
    return Failure("%s error" % stage, "%s: %s" % (type(e).__name__, text[:300]))


def _stage(stage, fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - classified, the corpus goes on
        if os.environ.get("ZOO_TRACE"):
            traceback.print_exc()
        raise _classify(e, stage) from e
