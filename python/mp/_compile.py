"""What mp.torch.compile and mp.keras.fit share: the policy (auto), the
mp-compile run over an exported step, and the session loaded from the
export's initial state."""
import builtins
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

from . import _native
from .errors import CompileError, Error, ExportError
from .session import Session, auto_policy

POLICIES = ("float32", "mixed_bfloat16", "mixed_float16", "auto")
_FORMAT = "entries 2"  # what a cache entry holds (2: the precision report)
_SAID = set()  # the auto decisions already printed in this process


def tool(name):
    """BUILD/bin/NAME of the build the runtime library comes from, the
    checkout's build, or NAME on PATH."""
    candidates = []
    if os.environ.get("MP_BUILD_DIR"):
        candidates.append(os.path.join(os.environ["MP_BUILD_DIR"], "bin", name))
    candidates.append(os.path.join(_native._REPO, "build", "bin", name))
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if found:
        return found
    raise Error("mp: %s not found (tried %s and PATH); build it with "
                "scripts/build.sh or set MP_BUILD_DIR" % (
                    name, ", ".join(candidates)))


def resolve_policy(policy, backend, caller):
    """(policy, reason): `policy` checked, "auto" decided for the backend's
    target and said once per process."""
    if policy not in POLICIES:
        raise Error("%s: unknown policy '%s' (expected %s)" % (
            caller, policy, ", ".join(POLICIES)))
    if policy != "auto":
        return policy, ""
    chosen, reason = auto_policy("cuda" if backend == "cuda" else "cpu")
    if (chosen, reason) not in _SAID:
        _SAID.add((chosen, reason))
        print("mp: policy auto: %s: %s" % (chosen, reason), file=sys.stderr)
    return chosen, reason


def compile_step(caller, model, export, work_dir, policy, backend,
                 compile_options, evaluation=False, fingerprint=None):
    """export(WORK) writes WORK/step.{mlir,init.safetensors} (mp_export);
    the step is compiled under `policy` (with generated code on the cpu
    backend, docs/codegen.md), as its forward-only plan with `evaluation`
    (mp-compile --eval), and loaded in a Session with the export's initial
    state. With `fingerprint` (mp/_fingerprint.py: a key of everything the
    export depends on, taken without tracing), a step compiled before
    under the same key is loaded without exporting: the session's
    `traced` is False, and its state is the one that export wrote, for
    the caller to set from the model. Returns (work_dir, whether to
    remove it, session). ExportError (the exporter's message, or what else
    the trace raised, named), CompileError (mp-compile's)."""
    from mp_export.common import ExportError as ExporterError

    remove = work_dir is None
    work_dir = work_dir or tempfile.mkdtemp(prefix="mp-step-")
    os.makedirs(work_dir, exist_ok=True)
    plan = os.path.join(work_dir, "step.%s%s.mpplan" % (
        "eval." if evaluation else "", policy))
    init = os.path.join(work_dir, "step.init.safetensors")
    command = [tool("mp-compile"), os.path.join(work_dir, "step.mlir"),
               "--mixed-precision=policy=" + policy +
               (" target=cuda" if backend == "cuda" else "") +
               (" " + compile_options if compile_options else ""),
               "-o", plan] + (["--eval"] if evaluation else [])
    if backend in (None, "", "default", "cpu"):
        command.append("--codegen=cpu")
    step_key = _step_key(fingerprint, command, plan) if fingerprint else None
    try:
        noted = _step_from_cache(step_key, plan, init)
        traced = noted is None
        if traced:
            with warnings.catch_warnings(record=True) as noted:
                warnings.simplefilter("always")
                try:
                    export(work_dir)
                except ExporterError as error:
                    raise ExportError(str(error)) from error
                except Exception as error:  # noqa: BLE001  (named, never raw)
                    # The model's own forward failing on the example, a
                    # construct the exporter did not foresee: named, the
                    # original chained.
                    raise ExportError("%s: exporting %s failed: %s: %s" % (
                        caller, type(model).__name__, type(error).__name__,
                        error)) from error
            noted = [(str(w.message), w.category.__name__, w.filename, w.lineno)
                     for w in noted]
            hit = _from_cache(command, plan)
            if not hit:
                # The precision report beside the plan (step.report); its
                # path is not in the cache keys.
                run = list(command)
                run[2] += " report=" + _report(plan)
                compiled = subprocess.run(run, capture_output=True,
                                          text=True)
                if compiled.returncode != 0:
                    raise CompileError(
                        (compiled.stderr or compiled.stdout).strip())
                _to_cache(command, plan)
        else:
            hit = True
        # The export's warnings (frozen parameters, modules in eval mode),
        # given again when the step comes from the cache.
        for message, category, filename, lineno in noted:
            warnings.warn_explicit(message, getattr(builtins, category,
                                                    UserWarning),
                                   filename, lineno)
        session = Session(plan, backend=backend)
        session.from_cache, session.traced = hit, traced
        session.report = read_report(plan)
        if evaluation:
            # The forward-only plan holds no optimizer state.
            _keep_only(init, session.tensors)
        session.load_params(init)
        if traced and step_key:
            _step_to_cache(step_key, plan, init, noted)
    except BaseException:
        if remove:
            shutil.rmtree(work_dir, ignore_errors=True)
        raise
    return work_dir, remove, session


def _keep_only(path, names):
    """Rewrites the safetensors file `path` with the tensors in `names`."""
    from mp_export.common import read_safetensors, write_safetensors
    tensors, metadata = read_safetensors(path)
    if any(name not in names for name in tensors):
        write_safetensors(path, {n: t for n, t in tensors.items() if n in names},
                          metadata)


# -- the plan cache -------------------------------------------------------
#
# A compiled plan (and its generated code) is kept under the cache folder,
# keyed by what determines it: the exported step's text, mp-compile's
# options, the mp-compile binary (path, size, modification time) and this
# CPU's features (generated code targets them). The export itself still
# runs every time: the key is the step it writes, so a model whose code
# changed can never meet another model's plan.


def cache_dir():
    """$MP_CACHE_DIR ("off": no cache), else $XDG_CACHE_HOME/mp, else
    ~/.cache/mp."""
    chosen = os.environ.get("MP_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return chosen
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mp")


def _key(first, command, plan):
    """The cache key of compiling with `command` what `first` (the step's
    text, or its fingerprint) determines: with mp-compile's options and
    binary and this CPU's features (generated code targets them)."""
    digest = hashlib.sha256(first)
    compiler = os.stat(command[0])
    options = [a for a in command[2:] if a not in ("-o", plan)]
    for part in options + [command[0], str(compiler.st_size),
                           str(compiler.st_mtime_ns),
                           auto_policy("cpu")[1], _FORMAT]:
        digest.update(b"\0" + part.encode())
    return digest.hexdigest()


def _step_text(command):
    with open(command[1], "rb") as step:
        return step.read()


def _report(plan):
    return plan[:-len(".mpplan")] + ".report.json"


def report_of(session, policy, reason):
    """The step's precision report as a dict, with policy="auto"'s decision
    ({"policy_auto": {"chosen", "reason"}}, as mp-compile writes it) when
    the policy was auto's."""
    report = dict(session.report or {})
    if reason:
        report["policy_auto"] = {"chosen": policy, "reason": reason}
    return report


def read_report(plan):
    """The precision report mp-compile wrote beside `plan` (docs/precision.md:
    per function, the ops converted, casts, fp32 islands), or None."""
    try:
        with open(_report(plan)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _files(plan):
    """The plan, its precision report and, when it has one, its
    generated-code library."""
    extra = [plan[:-len(".mpplan")] + ".code.so", _report(plan)]
    return [plan] + [path for path in extra if os.path.exists(path)]


def _entry(kind, key, required):
    """The cache folder's entry `kind`/`key` when it holds every file named
    in `required`, else None."""
    folder = cache_dir()
    if not key or not folder:
        return None
    entry = os.path.join(folder, kind, key)
    if not all(os.path.exists(os.path.join(entry, name)) for name in required):
        return None
    return entry


def _copy_out(entry, names, into):
    for name in names:
        shutil.copyfile(os.path.join(entry, name), os.path.join(into, name))


def _add_entry(kind, key, files, notes=None):
    """Adds `files` (and `notes`, as warnings.json) under `kind`/`key`, whole
    or not at all (a folder renamed into place); a cache that cannot be
    written is skipped."""
    folder = cache_dir()
    if not folder:
        return
    entry = os.path.join(folder, kind, key)
    staging = None
    try:
        os.makedirs(os.path.dirname(entry), exist_ok=True)
        staging = tempfile.mkdtemp(dir=os.path.dirname(entry))
        for path in files:
            shutil.copyfile(path, os.path.join(staging, os.path.basename(path)))
        if notes is not None:
            with open(os.path.join(staging, "warnings.json"), "w") as f:
                json.dump(notes, f)
        os.replace(staging, entry)  # fails where another process was first
    except OSError:
        if staging:
            shutil.rmtree(staging, ignore_errors=True)


def _from_cache(command, plan):
    entry = _entry("plans", _key(_step_text(command), command, plan),
                   [os.path.basename(plan)])
    if entry is None:
        return False
    cached = os.path.join(entry, os.path.basename(plan))
    _copy_out(entry, [os.path.basename(p) for p in _files(cached)],
              os.path.dirname(plan))
    return True


def _to_cache(command, plan):
    _add_entry("plans", _key(_step_text(command), command, plan), _files(plan))


# -- steps by fingerprint ---------------------------------------------------
#
# A step compiled before is found, without exporting it again, under its
# fingerprint (mp/_fingerprint.py) with mp-compile's options and binary and
# the CPU's features: the entry holds the plan, its generated code, the
# export's initial state and its warnings.


def _step_key(fingerprint, command, plan):
    return _key(fingerprint.encode(), command, plan)


def _step_from_cache(key, plan, init):
    """The export's warnings, with the entry's files copied into place; None
    when there is no entry."""
    entry = _entry("steps", key, [os.path.basename(plan), "warnings.json"])
    if entry is None:
        return None
    cached = os.path.join(entry, os.path.basename(plan))
    _copy_out(entry, [os.path.basename(p) for p in _files(cached)] +
              [os.path.basename(init)], os.path.dirname(plan))
    with open(os.path.join(entry, "warnings.json")) as f:
        return [tuple(note) for note in json.load(f)]


def _step_to_cache(key, plan, init, noted):
    _add_entry("steps", key, _files(plan) + [init], noted)
