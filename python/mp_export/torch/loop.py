"""The user's training-step function, as export_step() reads it.

A PyTorch training loop is Python around the traced graph: zero_grad(),
loss.backward(), clip_grad_norm_, optimizer.step(), scheduler.step(), a
GradScaler. export_step() takes the loop's body as a function and

1. observes it: runs it once eagerly on the example batch with those calls
   recorded (the model's, optimizer's and schedulers' state, the gradients
   and the RNG saved before and restored after), and checks that the
   recorded calls explain everything the step did to the gradients and
   parameters: the gradients at optimizer.step() must be the backward
   pass's after the recorded clipping, and the parameters must change only
   inside optimizer.step(). Any other change (a hand-written unscale, a
   gradient edited in place, a weight clamped after the step, gradient
   accumulation) is refused, never dropped;
2. traces its forward part: the function runs again under make_fx with
   loss.backward() raising, so the traced graph ends at the tensor the user
   calls backward() on; clipping and the scheduler become the step's own
   ops (torch/training.py) from what was recorded.

A GradScaler's scale(), unscale_(), step() and update() are recognized as
hand-written loss scaling and left to mp: the exported step is the unscaled
one, and mp-compile's policy scales the loss (docs/precision.md).
"""
import contextlib
import copy
import sys
import traceback
import warnings

import torch
import torch.nn.functional as F
import torch.optim.lr_scheduler as lr_scheduler
from torch.optim.optimizer import (register_optimizer_step_post_hook,
                                   register_optimizer_step_pre_hook)

from ..common import ExportError
from .common import _user_frame


def _here():
    """The innermost frame of the user's code on the current stack."""
    return _user_frame("".join(traceback.format_stack()))


def _at(frame):
    return " at %s:%d (%s)" % frame if frame else ""


class _Backward(Exception):
    """Raised by backward() while the forward part is traced: carries the
    tensor the user differentiates."""

    def __init__(self, loss):
        super().__init__("backward")
        self.loss = loss


class Loop:
    """What one call of the step function did, in order: `events` of (kind,
    frame, info); kinds 'backward', 'clip_value', 'clip_norm', 'step',
    'schedule', 'scaler'."""

    def __init__(self, fn=None):
        self.events = []
        code = getattr(fn, "__code__", None)
        # Where errors without a call of their own point: the def line.
        self.defined = _user_frame('File "%s", line %d\n    def %s' % (
            code.co_filename, code.co_firstlineno, fn.__name__)) if code else None

    def add(self, kind, **info):
        self.events.append((kind, _here(), info))

    def of(self, kind):
        return [e for e in self.events if e[0] == kind]

    def clips(self):
        """The clipping calls in order, as training._clip takes them."""
        out = []
        for kind, _, info in self.events:
            if kind == "clip_value":
                out.append(("value", info["clip_value"], None))
            elif kind == "clip_norm":
                out.append(("norm", info["max_norm"], info["norm_type"]))
        return out

    def scheduler(self):
        found = self.of("schedule")
        return found[0][2]["scheduler"] if found else None

    def schedule_update(self):
        """A timm scheduler's step_update(num_updates) argument, or None."""
        found = self.of("schedule")
        return found[0][2].get("num_updates") if found else None

    def describe(self):
        return [dict({k: v for k, v in info.items() if isinstance(v, (int, float, str))},
                     call=kind, line="%s:%d" % frame[:2] if frame else None)
                for kind, frame, info in self.events]


def _tensors(parameters):
    if isinstance(parameters, torch.Tensor):
        return [parameters]
    return list(parameters)


@contextlib.contextmanager
def _patched(fn, names):
    """Each (owner, attribute, wrapper maker) in `names` replaced for the
    duration, and the same functions where `fn`'s module imported them by
    name (`from torch.nn.utils import clip_grad_norm_`)."""
    saved = []
    module_globals = getattr(fn, "__globals__", {})
    try:
        for owner, attr, make in names:
            original = getattr(owner, attr)
            wrapper = make(original)
            saved.append((owner, attr, original))
            setattr(owner, attr, wrapper)
            for key, value in list(module_globals.items()):
                if value is original:
                    saved.append((module_globals, key, original))
                    module_globals[key] = wrapper
        yield
    finally:
        for owner, attr, original in reversed(saved):
            if isinstance(owner, dict):
                owner[attr] = original
            else:
                setattr(owner, attr, original)


def _scheduler_classes():
    """LRScheduler and every subclass that defines its own step()."""
    seen, todo = [], [lr_scheduler.LRScheduler]
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen.append(cls)
            todo.extend(cls.__subclasses__())
    return [c for c in seen if "step" in vars(c)]


def _scaler_calls(loop):
    """GradScaler's methods as hand-written loss scaling that mp replaces:
    scale() and unscale_() leave the values alone, step(opt) is opt.step(),
    update() does nothing."""
    def scale(original):
        def wrapper(self, outputs):
            loop.add("scaler", method="scale")
            return outputs
        return wrapper

    def unscale(original):
        def wrapper(self, optimizer):
            loop.add("scaler", method="unscale_")
        return wrapper

    def step(original):
        def wrapper(self, optimizer, *args, **kwargs):
            loop.add("scaler", method="step")
            return optimizer.step(*args, **kwargs)
        return wrapper

    def update(original):
        def wrapper(self, new_scale=None):
            loop.add("scaler", method="update")
        return wrapper

    scaler = torch.amp.GradScaler
    return [(scaler, "scale", scale), (scaler, "unscale_", unscale),
            (scaler, "step", step), (scaler, "update", update)]


def _clip_calls(loop):
    def clip_norm(original):
        def wrapper(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
            tensors = _tensors(parameters)
            loop.add("clip_norm", max_norm=float(max_norm), norm_type=float(norm_type),
                     params=[id(t) for t in tensors], nonfinite=error_if_nonfinite)
            return original(tensors, max_norm, norm_type, error_if_nonfinite, foreach)
        return wrapper

    def clip_value(original):
        def wrapper(parameters, clip_value, foreach=None):
            tensors = _tensors(parameters)
            loop.add("clip_value", clip_value=float(clip_value),
                     params=[id(t) for t in tensors])
            return original(tensors, clip_value, foreach)
        return wrapper

    utils = torch.nn.utils
    return [(utils, "clip_grad_norm_", clip_norm), (utils.clip_grad, "clip_grad_norm_",
                                                    clip_norm),
            (utils, "clip_grad_value_", clip_value), (utils.clip_grad, "clip_grad_value_",
                                                      clip_value)]


def _keep_state(states, scheduler):
    """The scheduler's state before its first recorded step, to be put back."""
    if scheduler not in states:
        states[scheduler] = copy.deepcopy(scheduler.state_dict())


def _schedule_calls(loop, states):
    """Every scheduler's step(), recorded; each scheduler's state before its
    first step is kept in `states` (to be put back)."""
    depth = [0]

    def step(original):
        def wrapper(self, *args, **kwargs):
            _keep_state(states, self)
            # A SequentialLR steps its own schedulers: the outer call counts.
            if depth[0] == 0:
                loop.add("schedule", scheduler=self, name=type(self).__name__)
            depth[0] += 1
            try:
                return original(self, *args, **kwargs)
            finally:
                depth[0] -= 1
        return wrapper
    calls = [(cls, "step", step) for cls in _scheduler_classes()]
    timm = sys.modules.get("timm.scheduler.scheduler")
    if timm is not None and hasattr(timm, "Scheduler"):
        calls += _timm_schedule_calls(loop, states, timm.Scheduler)
    return calls


def _timm_schedule_calls(loop, states, base):
    """timm's schedulers (not torch's LRScheduler): step_update(num_updates)
    after each optimizer step, as timm's train.py calls it, recorded with
    its argument; step(epoch) recorded too, to be refused (a step cannot
    see epochs)."""
    def update(original):
        def wrapper(self, num_updates, *args, **kwargs):
            _keep_state(states, self)
            loop.add("schedule", scheduler=self, name=type(self).__name__,
                     num_updates=int(num_updates))
            return original(self, num_updates, *args, **kwargs)
        return wrapper

    def step(original):
        def wrapper(self, *args, **kwargs):
            _keep_state(states, self)
            loop.add("schedule", scheduler=self, name=type(self).__name__, num_updates="epoch")
            return original(self, *args, **kwargs)
        return wrapper
    return [(base, "step_update", update), (base, "step", step)]


def _snapshot(params):
    return [None if p.grad is None else p.grad.detach().clone() for p in params]


def observe(train_step, model, optimizer, x, y, params):
    """Runs train_step(x, y) once eagerly, recording its loop calls, and
    checks them (module docstring). The model's, optimizer's and recorded
    schedulers' state, the gradients and the RNG are as before on return.
    `params` are the trainable parameters; returns the Loop."""
    loop = Loop(train_step)
    tensors = [p for _, p in params]
    saved_model = copy.deepcopy(model.state_dict())
    saved_opt = copy.deepcopy(optimizer.state_dict())
    saved_grads = _snapshot(tensors)
    saved_rng = torch.get_rng_state()
    scheduler_states = {}
    seen = {}

    def backward(original):
        def wrapper(tensors_, *args, **kwargs):
            loop.add("backward", loss=tensors_)
            result = original(tensors_, *args, **kwargs)
            seen["after_backward"] = _snapshot(tensors)
            return result
        return wrapper

    def pre_step(opt, args, kwargs):
        loop.add("step", mine=opt is optimizer)
        if opt is optimizer:
            seen["at_step"] = _snapshot(tensors)
            seen["params_before_step"] = [p.detach().clone() for p in tensors]

    def post_step(opt, args, kwargs):
        if opt is optimizer:
            seen["params_after_step"] = [p.detach().clone() for p in tensors]

    params_at_start = [p.detach().clone() for p in tensors]
    hooks = [register_optimizer_step_pre_hook(pre_step),
             register_optimizer_step_post_hook(post_step)]
    try:
        with _patched(train_step, [(torch.autograd, "backward", backward)] +
                      _clip_calls(loop) + _scaler_calls(loop) +
                      _schedule_calls(loop, scheduler_states)):
            with warnings.catch_warnings():
                # The order is checked below, with the user's line.
                warnings.filterwarnings("ignore", "Detected call of `lr_scheduler.step")
                train_step(x, y)
        params_at_end = [p.detach().clone() for p in tensors]
    except ExportError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's step failed eagerly
        frame = _user_frame("".join(traceback.format_tb(e.__traceback__)))
        raise ExportError("torch", "train_step", "the step function" + _at(frame),
                          "it failed when run once on the example batch (%s: %s)" % (
                              type(e).__name__, str(e).splitlines()[0] if str(e) else ""),
                          "Make train_step(example_x, example_y) run in PyTorch.") from e
    finally:
        for h in hooks:
            h.remove()
        model.load_state_dict(saved_model)
        optimizer.load_state_dict(saved_opt)
        for scheduler, state in scheduler_states.items():
            scheduler.load_state_dict(state)
        for p, g in zip(tensors, saved_grads):
            p.grad = g
        torch.set_rng_state(saved_rng)
    _check(loop, seen, params, params_at_start, params_at_end)
    return loop


def _refuse(op, frame, why, todo, loop=None):
    raise ExportError("torch", op, "the step function" + _at(frame or (
        loop.defined if loop else None)), why, todo)


def _check(loop, seen, params, at_start, at_end):
    """The recorded calls are a step mp can carry, and they explain what the
    step did to the gradients and parameters."""
    backwards = loop.of("backward")
    steps = loop.of("step")
    if not backwards:
        _refuse("backward", None, "it never calls backward()",
                "Call loss.backward() on the step's loss.", loop)
    if len(backwards) > 1:
        _refuse("backward", backwards[1][1], "a second backward() in one step "
                "(gradient accumulation or several losses)",
                "Call backward() once, on the sum of the losses.")
    loss = backwards[0][2]["loss"]
    if not isinstance(loss, torch.Tensor) or loss.dim() != 0 or \
            not loss.is_floating_point():
        _refuse("backward", backwards[0][1], "backward() of a tensor that is not a "
                "scalar float loss", "Call backward() on the step's scalar loss.")
    foreign = [e for e in steps if not e[2]["mine"]]
    if foreign:
        _refuse("optimizer.step", foreign[0][1], "it steps an optimizer other than the "
                "one passed to export_step", "Export with that optimizer, one per step.")
    if len(steps) != 1:
        _refuse("optimizer.step", steps[1][1] if steps else None,
                "it calls optimizer.step() %d times" % len(steps),
                "Call optimizer.step() once per step.", loop)
    events = [e for e in loop.events if e[0] != "scaler"]
    kinds = [e[0] for e in events]
    at_backward, at_step = kinds.index("backward"), kinds.index("step")
    if at_step < at_backward:
        _refuse("optimizer.step", steps[0][1], "optimizer.step() before backward()",
                "Call backward() first.")
    trainable = {id(p) for _, p in params}
    for i, (kind, frame, info) in enumerate(events):
        if kind in ("clip_norm", "clip_value"):
            name = "clip_grad_norm_" if kind == "clip_norm" else "clip_grad_value_"
            if not at_backward < i < at_step:
                _refuse(name, frame, "clipping outside backward() .. optimizer.step()",
                        "Clip after backward() and before optimizer.step().")
            # Frozen parameters among them have no gradient to clip.
            if not trainable <= set(info["params"]):
                _refuse(name, frame, "it clips %d of the %d trainable parameters" % (
                            len(set(info["params"]) & trainable), len(trainable)),
                        "Clip model.parameters(): the exported step clips every gradient.")
            if info.get("nonfinite"):
                _refuse(name, frame, "error_if_nonfinite=True (the step cannot raise)",
                        "Drop it: under a 16-bit policy mp's loss scaling skips a step "
                        "with non-finite gradients.")
        if kind == "schedule" and i < at_step:
            _refuse("lr_scheduler.step", frame, "scheduler.step() before optimizer.step()",
                    "Step the scheduler after optimizer.step(), as PyTorch documents.")
    for kind in ("clip_norm", "clip_value"):
        if len(loop.of(kind)) > 1:
            _refuse("clip_grad_norm_" if kind == "clip_norm" else "clip_grad_value_",
                    loop.of(kind)[1][1], "a second clipping of the same kind",
                    "Clip once.")
    schedules = loop.of("schedule")
    if len({id(e[2]["scheduler"]) for e in schedules}) > 1 or len(schedules) > 1:
        _refuse("lr_scheduler.step", schedules[1][1], "more than one scheduler step "
                "per step", "Step one scheduler once per step (a SequentialLR or "
                "ChainedScheduler combines several).")
    _check_tensors(loop, seen, params, at_start, at_end, backwards[0][1], steps[0][1])


def _check_tensors(loop, seen, params, at_start, at_end, backward_at, step_at):
    """The gradients at optimizer.step() are backward()'s after the recorded
    clipping; the parameters change only inside optimizer.step()."""
    def same(a, b):
        if a is None or b is None:
            return a is None and b is None
        return a.shape == b.shape and torch.allclose(a, b, rtol=1e-6, atol=0.0,
                                                     equal_nan=True)

    names = [n for n, _ in params]
    before = seen["params_before_step"]
    for n, p0, p1 in zip(names, at_start, before):
        if not same(p0, p1):
            _refuse("parameter update", step_at, "parameter '%s' changes before "
                    "optimizer.step(), outside the calls the exporter reads" % n,
                    "Change parameters only through the optimizer (its weight_decay for "
                    "decay).")
    for n, p0, p1 in zip(names, seen["params_after_step"], at_end):
        if not same(p0, p1):
            _refuse("parameter update", step_at, "parameter '%s' changes after "
                    "optimizer.step() (a clamp, a projection, an average?)" % n,
                    "Remove it: the exported step cannot carry it.")
    # The recorded clipping, by PyTorch's own functions, on copies of the
    # gradients backward() left.
    tensors = []
    for g in seen["after_backward"]:
        t = torch.nn.Parameter(torch.empty(0) if g is None else torch.empty_like(g))
        t.grad = None if g is None else g.clone()
        tensors.append(t)
    live = [t for t in tensors if t.grad is not None]
    for how, value, norm_type in loop.clips():
        if how == "value":
            torch.nn.utils.clip_grad_value_(live, value)
        else:
            torch.nn.utils.clip_grad_norm_(live, value, norm_type)
    for n, want, got in zip(names, [t.grad for t in tensors], seen["at_step"]):
        if not same(want, got):
            _refuse("gradient update", step_at, "the gradient of '%s' at "
                    "optimizer.step() is not what backward()%s and the recorded "
                    "clipping give: the step changes gradients in code the exporter "
                    "does not read (hand-written unscaling, an in-place edit of .grad)" % (
                        n, _at(backward_at)),
                    "Use torch.nn.utils.clip_grad_norm_ / clip_grad_value_ for clipping, "
                    "and no loss scaling of your own (mp-compile's policy scales the "
                    "loss; a GradScaler is recognized).")


@contextlib.contextmanager
def autocast_ignored(seen):
    """While tracing: torch.autocast regions (torch.amp.autocast,
    torch.cpu.amp.autocast, ...) of the user's loop or model do nothing;
    where each was entered is added to the list `seen` (export() names
    them in a warning): the step is exported in float32 and mp's policy
    (mp-compile --mixed-precision) chooses every op's precision, loss
    scaling included (docs/precision.md). Tracing them would freeze
    PyTorch's casts into the graph."""
    from torch.amp import autocast_mode
    cls = autocast_mode.autocast
    enter, leave = cls.__enter__, cls.__exit__

    def quiet_enter(self):
        where = _at(_here()).strip() or "in the model"
        if getattr(self, "_enabled", True) and where not in seen:
            seen.append(where)
        return self

    cls.__enter__ = quiet_enter
    cls.__exit__ = lambda self, *exc: False
    try:
        yield
    finally:
        cls.__enter__, cls.__exit__ = enter, leave


@contextlib.contextmanager
def forward_part(train_step, autocasts):
    """While tracing: backward() raises _Backward with its tensor, the
    GradScaler calls do what they did when observed, and F.cross_entropy's
    label_smoothing is taken off into `found['label_smoothing']` (the
    smoothing becomes train.sparse_cross_entropy's attribute: PyTorch's
    smoothing terms would be a dozen ops around the nll_loss)."""
    found = {"label_smoothing": None}

    def backward(original):
        def wrapper(tensors_, *args, **kwargs):
            raise _Backward(tensors_)
        return wrapper

    depth = [0]

    def cross_entropy(original):
        def wrapper(*args, **kwargs):
            # PyTorch's torch-function dispatch calls F.cross_entropy (this
            # wrapper) again from inside: the outer call counts.
            if depth[0]:
                return original(*args, **kwargs)
            smoothing = float(kwargs.pop("label_smoothing", 0.0))
            if len(args) > 7:
                smoothing = float(args[7])
                args = args[:7]
            if found["label_smoothing"] not in (None, smoothing):
                raise ExportError("torch", "cross_entropy", "the step function" + _at(
                    _here()), "two cross-entropies with different label smoothing",
                    "Use one label_smoothing in the step.")
            found["label_smoothing"] = smoothing
            depth[0] += 1
            try:
                return original(*args, **kwargs)
            finally:
                depth[0] -= 1
        return wrapper

    with _patched(train_step, [(torch.autograd, "backward", backward),
                               (F, "cross_entropy", cross_entropy)] +
                  _scaler_calls(Loop())), autocast_ignored(autocasts):
        yield found
