"""PyTorch -> train dialect: export() and the checkpoint helpers.

The step is `torch.func.grad_and_value` of the forward pass and the loss,
traced by `make_fx` under `torch.func.functionalize` (aot_autograd's order:
autograd above functionalization) with PyTorch's Core ATen decompositions
(mapper._decompositions) into one functional joint graph of aten ops:
the model's in-place ops arrive as functional ones, a buffer's update as a
copy_ into it at the end. torch/mapper.py (with torch/layers.py and
torch/views.py) maps each aten op to train ops by its entry in _ATEN
(docs/exporters.md and docs/generated/CoreAtenOps.md sum them up). The
`ones_like(loss)` that starts the backward pass becomes `train.grad_seed`.
The optimizer update, the learning-rate schedule and clipping are read from
the torch.optim objects and export()'s arguments (torch/training.py):
tracing PyTorch's in-place, foreach-vectorized optimizer code would give a
graph of mutations that only pattern matching could turn back into the
update it already names.

Safetensors names are `state_dict()` keys, so a trained checkpoint loads back
with `load_checkpoint(model, path)`.
"""
import contextlib
import re
import traceback
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

from ..common import BUFFER, INPUT, LABEL, LOSS, OPT_STATE, OUTPUT, PARAM
from ..common import ExportError, StepBuilder, write_export
from .common import (_decomposed_from, _elem, _is_dropout_mask, _user_frame,
                           library_tracing)
from .mapper import _Mapper, _Pending, _decompositions
from . import fold as torch_fold, loop as torch_loop
from .training import _clip, _cross_entropy_options, _optimizer_update, _schedule


def _functional_call(module, tensors, args):
    try:
        from torch.func import functional_call  # PyTorch >= 2.0
    except ImportError:
        from torch.nn.utils.stateless import functional_call
    return functional_call(module, tensors, args)


@contextlib.contextmanager
def _without_onednn_rnn():
    """oneDNN off (its fused mkldnn_rnn_layer has no mapping; without it
    nn.LSTM / nn.GRU run as PyTorch's per-step ops), silencing the TF32
    notice the flags print."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with torch.backends.mkldnn.flags(enabled=False):
            yield


def _modules_calling(model, tensors, example_x, op):
    """The modules whose forward calls aten `op` (an overload such as
    'aten.mul.Tensor', or a packet such as 'aten.conv_transpose2d' for any of
    its overloads), found by running the
    forward once more under a dispatch mode with a module stack: make_fx
    does not record module paths."""
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        return None
    stack, found, handles = [], [], []

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = str(func)
            if (name == op or name.rsplit(".", 1)[0] == op) and stack and \
                    stack[-1] not in found:
                found.append(stack[-1])
            return func(*args, **(kwargs or {}))

    for name, module in model.named_modules():
        label = "module '%s' (%s)" % (name, type(module).__name__) if name else \
            "the model's own forward (%s)" % type(module).__name__
        # Hooks must return None: a value would replace the input/output.
        handles.append(module.register_forward_pre_hook(
            lambda m, i, label=label: stack.append(label)))
        handles.append(module.register_forward_hook(lambda m, i, o: [stack.pop()] and None))
    try:
        with torch.no_grad(), Mode():
            _functional_call(model, {k: v.detach().clone() for k, v in tensors.items()},
                             (example_x,))
    except Exception:  # noqa: BLE001 - best effort: the error says where it can
        return None
    finally:
        for h in handles:
            h.remove()
    return found


def _on_line(modules, frame):
    """Of the modules calling an op, those the user's line calls
    (`self.act2(x)` -> module '...act2'), when it names some: the culprit,
    not every module of that kind."""
    if not frame or len(modules) < 2:
        return modules
    called = re.findall(r"self\.([A-Za-z_][\w.]*)\s*\(", frame[2])
    paths = [re.match(r"module '([^']*)'", m) for m in modules]
    kept = [m for m, p in zip(modules, paths) if p and any(
        p.group(1) == c or p.group(1).endswith("." + c) for c in called)]
    return kept or modules


def _eval_modules(model):
    """The modules in eval mode whose own behaviour it changes (batch
    norms, dropouts), by name: "" for the model itself."""
    out = []
    for name, module in model.named_modules():
        if not module.training and isinstance(module, (
                torch.nn.modules.batchnorm._BatchNorm, torch.nn.modules.dropout._DropoutNd,
                torch.nn.modules.instancenorm._InstanceNorm)):
            out.append(name)
    return out


def _state_notes(frozen, evaluating, autocasts=()):
    """One line each for what the step keeps fixed as the user set it, and
    the torch.autocast regions it does not trace."""
    notes = []
    if autocasts:
        notes.append("torch.autocast %s not traced: the step is exported in float32 and "
                     "mp-compile's --mixed-precision policy chooses each op's precision "
                     "(and scales the loss)" % ", ".join(autocasts))

    def names(items):
        return ", ".join(items[:6]) + (", ... (%d in all)" % len(items) if len(items) > 6
                                       else "")
    if frozen:
        notes.append("%d parameters with requires_grad=False are read and never updated: "
                     "%s" % (len(frozen), names([n for n, _ in frozen])))
    if evaluating:
        notes.append("%d modules are in eval mode (batch norm on its running statistics, "
                     "which stay unchanged; dropout off): %s" % (
                         len(evaluating), names(evaluating)))
    return notes


class _ShapeRecorder(torch.fx.Interpreter, torch_fold.ValueRecorder):
    def __init__(self, gm, keep=()):
        super().__init__(gm)
        self.shapes = {}
        self.layouts = {}  # node -> (contiguous, storage offset): as_strided's input
        self.keep, self.values = set(keep), {}  # torch_fold: the constants' values

    def run_node(self, n):
        out = super().run_node(n)
        self.record(n, out)

        def info(t):
            return (tuple(t.shape), t.dtype) if isinstance(t, torch.Tensor) else None
        if isinstance(out, (tuple, list)):
            self.shapes[n] = [info(t) for t in out]
        elif isinstance(out, torch.Tensor):
            self.shapes[n] = info(out)
            self.layouts[n] = (out.is_contiguous(), out.storage_offset())
        return out


def _check_loop(model, optimizer, params, scheduler):
    """What of the training loop the export would drop, refused: a
    learning-rate scheduler built on the optimizer but not given, gradient
    hooks on parameters and backward hooks on modules (the traced backward
    does not run them)."""
    for group in optimizer.param_groups:
        if "initial_lr" in group and scheduler is None:
            raise ExportError("torch.optim", "lr_scheduler", "the optimizer",
                              "a learning-rate scheduler was built on it (its param groups "
                              "hold 'initial_lr') but is not part of the export, whose "
                              "learning rate would stay %g" % group["lr"],
                              "Pass the scheduler: export(..., scheduler=sched), or "
                              "step it in the function given to export_step().")
    for n, p in params:
        if getattr(p, "_backward_hooks", None) or getattr(p, "_post_accumulate_grad_hooks",
                                                           None):
            raise ExportError("torch", "register_hook", "parameter '%s'" % n,
                              "a gradient hook (the exported backward pass does not run "
                              "Python hooks)", "Remove the hook, or express it in the "
                              "model's forward pass.")
    for name, module in model.named_modules():
        # Forward hooks run inside functional_call and are traced.
        if module._backward_hooks or module._backward_pre_hooks:
            raise ExportError("torch", "module backward hook", "module '%s' (%s)" % (
                name or "<root>", type(module).__name__),
                "a backward hook (the exported backward pass does not run Python "
                "hooks)", "Remove the hook.")


class _LossFn:
    """export()'s step: loss_fn(model(x), y); the loop's clipping and
    scheduler from export()'s arguments."""

    def __init__(self, model, loss_fn, scheduler, clips, schedule_steps=None):
        self.loss_fn, self.smoothing = _cross_entropy_options(loss_fn or F.cross_entropy)
        self.model, self.scheduler, self.clips = model, scheduler, clips
        self.schedule_steps = schedule_steps
        self.manifest = {}
        self.autocasts = []

    def loss(self, tensors, x, y):
        return self.loss_fn(_functional_call(self.model, tensors, (x,)), y)

    def tracing(self):
        @contextlib.contextmanager
        def context():
            with torch_loop.autocast_ignored(self.autocasts):
                yield {"label_smoothing": self.smoothing}
        return context()


class _Caller(torch.nn.Module):
    """The user's step function as a module holding the model, so that
    functional_call swaps the model's tensors while the function runs."""

    def __init__(self, model, train_step):
        super().__init__()
        self.model, self.train_step = model, train_step

    def forward(self, x, y):
        try:
            self.train_step(x, y)
        except torch_loop._Backward as b:
            return b.loss
        raise ExportError("torch", "backward", "the step function",
                          "backward() was not reached while tracing",
                          "Call loss.backward() in every step.")


class _StepFn:
    """export_step()'s step: the user's function, observed (torch_loop)."""

    def __init__(self, model, optimizer, train_step, x, y, params, schedule_steps=None):
        self.loop = torch_loop.observe(train_step, model, optimizer, x, y, params)
        self.train_step, self.caller = train_step, _Caller(model, train_step)
        self.scheduler, self.clips = self.loop.scheduler(), self.loop.clips()
        self.schedule_update = self.loop.schedule_update()
        self.schedule_steps = schedule_steps
        self.autocasts = []
        self.manifest = {"step_function": getattr(train_step, "__qualname__", "train_step"),
                         "loop": self.loop.describe()}

    def loss(self, tensors, x, y):
        return _functional_call(self.caller, {"model." + k: v for k, v in tensors.items()},
                                (x, y))

    def tracing(self):
        return torch_loop.forward_part(self.train_step, self.autocasts)


def export(model, optimizer, example_x, example_y, out_dir, stem, loss_fn=None,
           description="", scheduler=None, clip_grad_norm=None, clip_grad_value=None,
           norm_type=2.0, schedule_steps=None):
    """Exports one training step of `model` + `loss_fn` (default
    F.cross_entropy) + `optimizer` for batches shaped like the examples.
    What the training loop does between backward() and step() is the
    step's too, when given: `clip_grad_value` (clip_grad_value_ first),
    `clip_grad_norm` (clip_grad_norm_'s max_norm, with `norm_type`), and
    `scheduler` (a torch.optim.lr_scheduler stepped once per step, after
    optimizer.step(), as PyTorch's loop does). export_step() reads them
    from the loop itself. `schedule_steps`: the number of steps a LambdaLR
    of the user's own function is evaluated over (Hugging Face's schedules
    need none).
    Writes OUT/STEM.{mlir,init.safetensors,manifest.json}; returns the paths."""
    clips = ([("value", clip_grad_value, None)] if clip_grad_value is not None else []) + \
        ([("norm", clip_grad_norm, norm_type)] if clip_grad_norm is not None else [])
    return _export(model, optimizer, example_x, example_y, out_dir, stem, description,
                   lambda params: _LossFn(model, loss_fn, scheduler, clips, schedule_steps))


def export_step(train_step, model, optimizer, example_x, example_y, out_dir, stem,
                description="", schedule_steps=None):
    """Exports the training step `train_step(x, y)` as the user's loop runs
    it: zero_grad(), the forward pass and the loss, loss.backward(), any
    torch.nn.utils.clip_grad_norm_ / clip_grad_value_, optimizer.step(), a
    scheduler's step() and a GradScaler's calls, read from the function
    (torch/loop.py): it runs once eagerly on the examples (the state is
    restored after), and what it does that the step cannot carry is
    refused. `model` and `optimizer` are the objects the function uses.
    Writes OUT/STEM.{mlir,init.safetensors,manifest.json}; returns the paths."""
    return _export(model, optimizer, example_x, example_y, out_dir, stem, description,
                   lambda params: _StepFn(model, optimizer, train_step, example_x,
                                          example_y, params, schedule_steps))


def _export(model, optimizer, example_x, example_y, out_dir, stem, description, source):
    """export() and export_step(): `source(params)` gives the step's loss
    function, the tracing context, the scheduler and the clipping."""
    # The model is traced in the train / eval state its modules are in, as
    # the user set it (a module in eval(): batch norm on its running
    # statistics, which stay unchanged, and dropout off), as PyTorch would
    # train it; the state is never changed here.
    evaluating = _eval_modules(model)
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    # Parameters with requires_grad=False (a frozen backbone, frozen norms)
    # are inputs the step reads and never updates: frozen state, under their
    # state_dict names, like a buffer the step only reads.
    frozen = [(n, p) for n, p in model.named_parameters() if not p.requires_grad]
    if not params:
        raise ExportError("torch", "requires_grad", "the model",
                          "no parameter requires a gradient: there is nothing to train",
                          "Set requires_grad=True on the parameters to train.")
    buffers = list(model.named_buffers()) + frozen
    pnames = [n for n, _ in params]
    bnames = [n for n, _ in buffers]

    def forward(param_list, buffer_list, x, y):
        tensors = dict(zip(pnames, param_list))
        tensors.update(zip(bnames, buffer_list))
        return step_source.loss(tensors, x, y)

    def step(param_list, buffer_list, x, y):
        # torch.func's gradient, then functionalization (applied in
        # export() around this step), the order aot_autograd uses: autograd
        # sees the model's own ops (an in-place one included), and the
        # joint graph holds only functional ones; an update of a buffer
        # arrives as copy_(buffer, new value) at the end.
        grads, loss = torch.func.grad_and_value(forward)(param_list, buffer_list, x, y)
        return [loss] + list(grads)

    _check_dtypes(params + buffers, example_x)
    step_source = source(params)
    scheduler = step_source.scheduler
    _check_loop(model, optimizer, params, scheduler)
    gm, label_smoothing = _trace(step, step_source, params, buffers, example_x, example_y)
    # The step's constant parts (torch/fold.py): what depends only on the
    # export's shapes, constants and non-persistent buffers.
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    persistent = set(model.state_dict())
    constant_inputs = {node for node, (n, _) in zip(placeholders[len(params):], buffers)
                       if n not in persistent}
    foldable = torch_fold.foldable_nodes(gm, constant_inputs)
    rec = _ShapeRecorder(gm, foldable)
    # The graph holds its backward ops: it runs without autograd (which
    # would refuse a decomposition's in-place update of a view).
    with torch.no_grad(), _without_onednn_rnn():
        rec.run([p.detach().clone() for _, p in params],
                [b.detach().clone() for _, b in buffers], example_x, example_y)
    from .mapper import _ATEN, _IDENTITY
    fold, unmapped = torch_fold.plan(gm, foldable, _ATEN, _IDENTITY, rec.shapes)

    _refuse_random(gm)

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    np_, nb = len(params), len(buffers)
    if len(placeholders) != np_ + nb + 2:
        raise ExportError("make_fx", "placeholder", "the traced step",
                          "expected %d inputs, got %d" % (np_ + nb + 2, len(placeholders)),
                          "Report this model.")
    builder = StepBuilder()
    names = {}
    mapper = _Mapper(builder, rec.shapes, names)
    mapper.label_smoothing = label_smoothing
    mapper.layouts = rec.layouts
    xs, ys = placeholders[-2], placeholders[-1]
    mapper.env[xs] = builder.arg(tuple(example_x.shape), _elem(example_x.dtype, "input"), INPUT)
    mapper.env[ys] = builder.arg(tuple(example_y.shape), _elem(example_y.dtype, "label"), LABEL)
    pvals = []
    mapper.param_nodes = set(placeholders[:np_])
    for node, (n, p) in zip(placeholders[:np_], params):
        names[node] = n
        mapper.env[node] = builder.arg(tuple(p.shape), _elem(p.dtype, n), PARAM, n)
        pvals.append(mapper.env[node])
    bnodes = []
    for node, (n, buf) in zip(placeholders[np_:np_ + nb], buffers):
        names[node] = n
        if n.endswith("num_batches_tracked"):
            mapper.env[node] = _Pending("num_batches_tracked")
            continue
        mapper.env[node] = builder.arg(tuple(buf.shape), _elem(buf.dtype, n), BUFFER, n)
        bnodes.append((node, n))

    output = next(n for n in gm.graph.nodes if n.op == "output")
    mapper.loss_node = output.args[0][0]
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            continue
        if node in fold:
            mapper.env[node] = torch_fold.constant(builder, node, rec.values.get(node),
                                                   "node '%s'" % node.name)
            continue
        if node in unmapped:
            continue
        if node.op != "call_function":
            raise ExportError("make_fx", node.op, "node '%s'" % node.name,
                              "the traced step reads a tensor it does not take as an input "
                              "(a constant or a module attribute)",
                              "Register tensors as parameters or buffers.")
        try:
            try:
                mapper.map_node(node)
            except ExportError:
                raise
            except Exception as e:  # noqa: BLE001 - a bug or an unforeseen graph
                raise ExportError("aten", str(node.target), "node '%s'" % node.name,
                                  "the exporter failed on it (%s: %s)" % (type(e).__name__, e),
                                  "Report this graph; it is not exported.") from e
        except ExportError as e:
            attributed = _attributed(e, node, model, params, buffers, example_x)
            if attributed is e:
                raise
            raise attributed from None
    outs = output.args[0]
    loss = mapper.v(outs[0])
    grads = [mapper.v(o) for o in outs[1:1 + np_]]
    builder.result(loss, LOSS)
    grads, outputs = _clip(builder, grads, step_source.clips)
    schedule = _schedule(builder, scheduler, optimizer, step_source.schedule_steps,
                         getattr(step_source, "schedule_update", None))
    updates = _optimizer_update(builder, optimizer, params, pvals, grads,
                                schedule[0] if schedule else None)
    if schedule:
        # The first group's rate is the step's "lr"; the others "lr.<group>".
        for index, lr in enumerate(schedule[0]):
            outputs.append((lr, OUTPUT, "lr" if index == 0 else "lr.%d" % index))
    if getattr(builder, "step_counter", None) is not None:
        updates.append((builder.step_counter[1], OPT_STATE, "step"))
    _emit_results(builder, mapper, outputs, updates, bnodes)

    init = _initial_values(builder, params, buffers)
    init.update(_optimizer_state(builder, optimizer, params))
    manifest, header = _manifest(model, optimizer, scheduler, step_source, example_x, bnames,
                                 frozen, evaluating, description)
    return write_export(out_dir, stem, builder, header, init, manifest)


def _check_dtypes(tensors, example_x):
    """Refuses a model or input that is not float32: mp's passes choose the
    precision."""
    for n, t in tensors:
        if t.is_floating_point() and t.dtype != torch.float32:
            raise ExportError("torch", str(t.dtype), "'%s'" % n, "a %s tensor" % t.dtype,
                              "Export the float32 model: mp's passes choose the "
                              "precision (docs/precision.md).")
    if example_x.is_floating_point() and example_x.dtype != torch.float32:
        raise ExportError("torch", str(example_x.dtype), "the input", "a non-float32 input",
                          "Feed float32 inputs.")



def _trace(step, step_source, params, buffers, example_x, example_y):
    """The step traced by make_fx under functionalization with PyTorch's
    Core ATen decompositions: (the graph module, the loss's label
    smoothing). A failure is an ExportError at the user's line; the
    parameters' .grad are put back either way."""
    p0 = [p.detach().clone() for _, p in params]
    b0 = [b.detach().clone() for _, b in buffers]
    grads0 = [p.grad for _, p in params]
    # oneDNN's fused RNN kernels (mkldnn_rnn_layer) are off while tracing:
    # nn.LSTM / nn.GRU then run as PyTorch's per-step ops, which map.
    try:
        with _without_onednn_rnn(), library_tracing(), step_source.tracing() as found:
            gm = make_fx(torch.func.functionalize(step), decomposition_table=_decompositions(),
                         record_stack_traces=True)(p0, b0, example_x, example_y)
        label_smoothing = found["label_smoothing"] or 0.0
    except (RuntimeError, NotImplementedError) as e:
        frame = _user_frame("".join(traceback.format_tb(e.__traceback__)))
        raise ExportError("make_fx", type(e).__name__, "tracing the step" + (
                              " at %s:%d (%s)" % frame if frame else ""),
                          "PyTorch could not trace it: %s" % str(e).splitlines()[0],
                          "Rewrite the failing part without in-place updates of views; "
                          "if the model runs eagerly, report this model.") from e
    finally:
        # The step function's zero_grad() ran on the model while tracing.
        for (_, p), g in zip(params, grads0):
            p.grad = g
    return gm, label_smoothing


def _refuse_random(gm):
    """Random numbers other than dropout's mask would be frozen into the
    graph: refused at the user's line."""
    for node in gm.graph.nodes:
        target = str(node.target)
        if node.op == "call_function" and any(
                k in target for k in ("bernoulli", "dropout", "rand", "normal", "uniform_")) \
                and not _is_dropout_mask(node):
            frame = _user_frame(node.meta.get("stack_trace"))
            where = "node '%s'" % node.name + (
                " at %s:%d (%s)" % frame if frame else "")
            raise ExportError("aten", target, where,
                              "random numbers other than F.dropout's mask (which maps to "
                              "train.dropout) have no train-dialect op and would be "
                              "frozen into the graph",
                              "Draw the noise outside the step (an input), or use "
                              "nn.Dropout.")


def _attributed(e, node, model, params, buffers, example_x):
    """An aten op the mapper refuses, named by the modules that call it
    (and by the function PyTorch decomposed it from); `e` itself where it
    is not an aten op's or no module calls it."""
    if e.framework != "aten":
        return e
    tensors = dict(params)
    tensors.update(buffers)
    # An op of PyTorch's decomposition of a function the model
    # calls (F.softplus -> log1p): the modules calling that function.
    origin = _decomposed_from(node.meta.get("stack_trace"))
    lookup = "aten.%s" % origin if origin else str(node.target)
    modules = _modules_calling(model, tensors, example_x, lookup)
    if origin and not modules:
        # A composite (conv_transpose2d) the dispatcher has already
        # decomposed on the way to the mode: the op itself.
        modules = _modules_calling(model, tensors, example_x, str(node.target))
    if modules is None:
        return e
    modules = _on_line(modules, _user_frame(node.meta.get("stack_trace")))
    where = e.where
    if origin:
        where += ", from PyTorch's decomposition of %s" % origin
    if modules:
        where += ", called by %s" % ", ".join(modules)
    elif not origin and not _user_frame(node.meta.get("stack_trace")):
        where += ", in the backward pass or the loss"
    return ExportError("aten", e.op, where, e.why, e.todo)


def _emit_results(builder, mapper, outputs, updates, bnodes):
    """The step's results in the plan's order: the clipping's and the
    schedule's outputs, the params' updates, the buffers (updated, or
    frozen where the step only reads them), the optimizer's state."""
    for value, role, name in outputs:
        builder.result(value, role, name)
    for value, role, name in updates:
        if role == PARAM:
            builder.result(value, role, name)
    for node, n in bnodes:
        new = mapper.buffer_updates.get(node)
        if new is None:
            # A buffer the step only reads (an index table, a mask): frozen
            # state, kept in checkpoints.
            builder.freeze(mapper.env[node])
            continue
        builder.result(new, BUFFER, n)
    for value, role, name in updates:
        if role == OPT_STATE:
            builder.result(value, role, name)


def _initial_values(builder, params, buffers):
    """The step's initial state: params f32, buffers in their dtype,
    optimizer state that does not start at zero, the dropout key."""
    init = {n: p.detach().cpu().numpy().astype(np.float32) for n, p in params}
    # Buffers keep their dtype: an integer one (an index table) is i64 in the
    # step as in the model.
    init.update({n: b.detach().cpu().numpy().astype(
                     np.float32 if b.is_floating_point() else b.numpy().dtype)
                 for n, b in buffers if not n.endswith("num_batches_tracked")})
    # Optimizer state that does not start at zero (timm's RMSpropTF: its
    # square_avg starts at 1).
    for n, (shape, value) in getattr(builder, "state_fill", {}).items():
        init[n] = np.full(shape, value, dtype=np.float32)
    if getattr(builder, "dropout_key", None) is not None:
        # The Philox key of the step's dropout masks: from PyTorch's seed, so
        # a seeded export is reproducible.
        init["dropout.key"] = np.array(torch.initial_seed() & (2**63 - 1), dtype=np.int64)
    return init


def _optimizer_state(builder, optimizer, params):
    """The optimizer's own state where it has some (an optimizer that has
    already stepped: momentum, Adam's moments and step count), under the
    step's names, so the step goes on from it as optimizer.step() would;
    state the step does not hold is refused, never dropped."""
    declared = {name: value for value, role, name in builder.args if role == OPT_STATE}
    named = dict((id(p), n) for n, p in params)
    init = {}
    for group in optimizer.param_groups:
        for p in group["params"]:
            for key, value in optimizer.state.get(p, {}).items():
                if value is None:  # SGD's momentum_buffer before momentum
                    continue
                n = named.get(id(p), "a frozen parameter")
                name = "%s.%s" % (n, key)
                array = np.asarray(value.detach().cpu().numpy() if torch.is_tensor(value)
                                   else value)
                if name not in declared and not array.any():
                    # State at zero that the step does not hold starts there
                    # anyway (Adagrad's step count before its first step).
                    continue
                if name not in declared:
                    raise ExportError(
                        "torch.optim", type(optimizer).__name__, "parameter '%s'" % n,
                        "the optimizer already holds state '%s' for it, which the exported "
                        "step does not carry (it would start from zero)" % key,
                        "Export before the optimizer's first step, or use an optimizer "
                        "whose state the step holds (docs/exporters.md).")
                target = declared[name]
                if tuple(array.shape) != tuple(target.shape):
                    raise ExportError("torch.optim", type(optimizer).__name__,
                                      "state '%s'" % name, "shape %s, the step's is %s" % (
                                          tuple(array.shape), tuple(target.shape)),
                                      "Report this optimizer.")
                init[name] = array.astype(np.int64 if target.elem == "i64" else np.float32)
    return init


def _manifest(model, optimizer, scheduler, step_source, example_x, bnames, frozen,
              evaluating, description):
    """The export's manifest and the MLIR file's header (with the notes on
    frozen parameters, eval modules and autocast, also warned)."""
    manifest = {"framework": "pytorch", "framework_version": torch.__version__,
                "model": type(model).__name__,
                "optimizer": {"class": type(optimizer).__name__,
                              "param_groups": [{k: v for k, v in g.items() if k != "params"}
                                               for g in optimizer.param_groups]},
                "scheduler": type(scheduler).__name__ if scheduler else None,
                "clipping": [{"clip": how, "value": v, "norm_type": t}
                             for how, v, t in step_source.clips],
                "batch": int(example_x.shape[0]),
                "names": "state_dict keys (optimizer state: '<param>.<state key>')",
                "not_exported": [n for n in bnames if n.endswith("num_batches_tracked")],
                "frozen_parameters": [n for n, _ in frozen],
                "eval_modules": evaluating}
    manifest.update(step_source.manifest)
    header = ("Exported by python/mp_export from PyTorch %s (make_fx, functionalized).\n%s\n"
              "model %s, optimizer %s, batch %d" % (
                  torch.__version__, description, type(model).__name__,
                  type(optimizer).__name__, example_x.shape[0]))
    for line in _state_notes(frozen, evaluating, step_source.autocasts):
        header += "\n" + line
        warnings.warn("mp_export: " + line, stacklevel=3)
    return manifest, header


def state_tensors(model, optimizer=None):
    """The model's (and optimizer's) state as numpy arrays under the names
    the export gives them: what an mp-run checkpoint of the same training
    holds (num_batches_tracked aside)."""
    out = {n: t.detach().cpu().numpy().copy() for n, t in model.state_dict().items()
           if not n.endswith("num_batches_tracked")}
    if optimizer is not None:
        for name, p in model.named_parameters():
            for key, value in optimizer.state.get(p, {}).items():
                if key in ("momentum_buffer", "exp_avg", "exp_avg_sq", "step", "square_avg",
                           "sum", "grad_avg") and value is not None:
                    # A copy: the optimizer updates its tensors in place.
                    out["%s.%s" % (name, key)] = np.array(
                        value.detach().cpu().numpy() if torch.is_tensor(value) else value,
                        dtype=np.float32, copy=True)
    return out


def load_checkpoint(model, path, optimizer=None):
    """Loads an mp-run checkpoint (or any safetensors file with state_dict
    names) into `model`; returns the names it did not find in the file (e.g.
    num_batches_tracked, which the export leaves out). With `optimizer`
    (torch.optim.SGD with momentum), also loads the momentum buffers."""
    from ..common import read_safetensors
    tensors, _ = read_safetensors(path)
    state = model.state_dict()
    missing = []
    for name in state:
        if name in tensors:
            value = torch.from_numpy(tensors[name]).to(state[name].dtype)
            if tuple(value.shape) != tuple(state[name].shape):
                raise ValueError("'%s' has shape %s in %s but %s in the model" % (
                    name, tuple(value.shape), path, tuple(state[name].shape)))
            state[name] = value
        else:
            missing.append(name)
    if len(missing) == len(state):
        raise ValueError("%s has none of the model's state_dict names (%s, ...): "
                         "a checkpoint of another model?" % (path, next(iter(state), "")))
    model.load_state_dict(state)
    if optimizer is not None:
        named = dict(model.named_parameters())
        for name, p in named.items():
            key = name + ".momentum_buffer"
            if key in tensors:
                optimizer.state[p]["momentum_buffer"] = torch.from_numpy(tensors[key]).clone()
    return missing
