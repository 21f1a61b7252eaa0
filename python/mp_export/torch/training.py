"""The optimizer, the learning-rate schedule and gradient clipping of a
PyTorch training loop as the step's own ops, read from the torch.optim
objects rather than traced."""
import functools

import numpy as np
import torch
import torch.nn.functional as F

from ..common import OPT_STATE, OUTPUT, PARAM
from ..common import ExportError, dense_constant, lr_schedule
from ..common import step_counter as _step_counter
from . import timm_optim as torch_timm_optim


def _cross_entropy_options(loss_fn):
    """(the loss to trace, its label smoothing): nn.CrossEntropyLoss or
    functools.partial(F.cross_entropy, ...) with label_smoothing is traced
    without it (PyTorch's smoothing terms would be a dozen ops around the
    nll_loss) and the smoothing becomes train.sparse_cross_entropy's own
    attribute, the same formula; ignore_index is read off the traced
    nll_loss. Any other loss is traced as it is."""
    import functools
    if isinstance(loss_fn, torch.nn.CrossEntropyLoss):
        if loss_fn.weight is not None or loss_fn.reduction != "mean":
            raise ExportError("torch.nn", "CrossEntropyLoss", "the loss",
                              "class weights or a reduction other than 'mean'",
                              "Use nn.CrossEntropyLoss() (mean, no weights).")
        ignore = loss_fn.ignore_index
        return (lambda o, t: F.cross_entropy(o, t, ignore_index=ignore),
                float(loss_fn.label_smoothing))
    if isinstance(loss_fn, functools.partial) and loss_fn.func is F.cross_entropy \
            and not loss_fn.args:
        kwargs = dict(loss_fn.keywords)
        smoothing = float(kwargs.pop("label_smoothing", 0.0))
        return functools.partial(F.cross_entropy, **kwargs), smoothing
    return loss_fn, 0.0


def _schedule(builder, scheduler, optimizer, schedule_steps=None, first_update=None):
    """A torch.optim.lr_scheduler object as the step's own ops of a step
    counter (the steps done before this one: 0 at the first step, as
    PyTorch's scheduler.step() after each optimizer.step() leaves it): one
    learning rate per param group (each group's own base lr, as PyTorch's
    schedulers scale each group's): (the lr Values, in param-group order,
    the counter arg, its incremented Value) or None."""
    if scheduler is None:
        return None
    kind = type(scheduler).__name__
    if type(scheduler).__module__.startswith("timm."):
        lrs = _timm_lrs(builder, scheduler, optimizer, first_update, schedule_steps)
        counter, new = _step_counter(builder)
        return lrs, counter, new
    if getattr(scheduler, "last_epoch", 0) != 0:
        raise ExportError("torch.optim", kind, "the scheduler",
                          "the scheduler has stepped already (last_epoch %d)" %
                          scheduler.last_epoch,
                          "Export before training, with a fresh scheduler.")
    lrs = []
    for index, group in enumerate(optimizer.param_groups):
        where = "the scheduler" + (", param group %d" % index
                                   if len(optimizer.param_groups) > 1 else "")
        comment = "%s: the learning rate of this step" % kind + (
            " (param group %d)" % index if len(optimizer.param_groups) > 1 else "")
        if kind == "LambdaLR":
            lrs.append(_lambda_lr(builder, scheduler, index, group, where, comment,
                                  schedule_steps))
            continue
        base, attrs = _schedule_shape(scheduler, group, where)
        lrs.append(lr_schedule(builder, base, attrs, comment))
    counter, new = _step_counter(builder)
    return lrs, counter, new


def _schedule_shape(scheduler, group, where):
    """(base lr, lr_schedule attributes) of one param group."""
    # The lr before any schedule: schedulers keep it as the group's
    # initial_lr (a warm-up has already scaled the group's lr).
    base = float(group.get("initial_lr", group["lr"]))

    def shape_of(s, allow_warmup):
        kind = type(s).__name__
        if kind == "StepLR":
            return {"decay": "step", "decay_steps": int(s.step_size),
                    "gamma": float(s.gamma)}
        if kind == "ExponentialLR":
            return {"decay": "exponential", "gamma": float(s.gamma)}
        if kind == "CosineAnnealingLR":
            return {"decay": "cosine", "decay_steps": int(s.T_max),
                    "end_factor": float(s.eta_min) / base}
        if kind == "LinearLR":
            start, stop, n = float(s.start_factor), float(s.end_factor), int(s.total_iters)
            if stop == 1.0 and allow_warmup:
                return {"warmup": "linear", "warmup_steps": n, "warmup_start_factor": start}
            if start == 1.0:
                return {"decay": "linear", "decay_steps": n, "end_factor": stop}
            raise ExportError("torch.optim", kind, where,
                              "a LinearLR from %g to %g (neither a warm-up to 1 nor a "
                              "decay from 1)" % (start, stop),
                              "Use a warm-up LinearLR(start, 1.0) followed by a decay "
                              "in a SequentialLR.")
        raise ExportError("torch.optim", kind, where, "no mapping for this scheduler",
                          "Use StepLR, ExponentialLR, CosineAnnealingLR, LinearLR, "
                          "OneCycleLR(cycle_momentum=False), LambdaLR or a SequentialLR "
                          "of a LinearLR warm-up and one of them.")

    kind = type(scheduler).__name__
    if kind == "OneCycleLR":
        return _one_cycle(scheduler, group, where)
    if kind == "SequentialLR":
        parts = list(scheduler._schedulers)
        milestones = list(scheduler._milestones)
        if len(parts) != 2 or type(parts[0]).__name__ != "LinearLR" or \
                float(parts[0].end_factor) != 1.0 or \
                milestones[0] != int(parts[0].total_iters):
            raise ExportError("torch.optim", kind, where,
                              "a SequentialLR other than a LinearLR warm-up to 1 whose "
                              "total_iters is the milestone, then one schedule",
                              "Use SequentialLR([LinearLR(opt, s, 1.0, total_iters=w), "
                              "decay], milestones=[w]).")
        attrs = shape_of(parts[0], True)
        decay = shape_of(parts[1], False)
        if "warmup" in decay:
            raise ExportError("torch.optim", kind, where, "two warm-ups", "Use one warm-up.")
        attrs.update(decay)
        return base, attrs
    return base, shape_of(scheduler, True)


# Hugging Face's schedules (transformers.optimization's get_*_schedule*):
# LambdaLR over a functools.partial of these functions, whose keywords
# give the lr_schedule of the same formula.
def _hf_shape(fn, kw):
    name = getattr(fn, "__name__", "")
    warm = int(kw.get("num_warmup_steps", 0))
    if name == "_get_constant_lambda":
        return {}
    if name == "_get_constant_schedule_with_warmup_lr_lambda":
        return {"warmup": "linear", "warmup_steps": warm, "warmup_start_factor": 0.0}
    total = kw.get("num_training_steps")
    if total is None or int(total) <= warm:
        return None
    shape = {"warmup": "linear", "warmup_steps": warm, "warmup_start_factor": 0.0,
             "decay_steps": int(total) - warm, "end_factor": 0.0}
    if name == "_get_linear_schedule_with_warmup_lr_lambda":
        return dict(shape, decay="linear")
    if name == "_get_cosine_schedule_with_warmup_lr_lambda" and \
            float(kw.get("num_cycles", 0.5)) == 0.5:
        return dict(shape, decay="cosine")
    return None


def _lambda_lr(builder, scheduler, index, group, where, comment, schedule_steps):
    """LambdaLR: lr = initial_lr * lr_lambda(step). Hugging Face's own
    schedules become train.lr_schedule (the same formula); any other
    function is evaluated at steps 0 .. schedule_steps - 1 (export()'s
    argument) into a table the step reads at its counter: a step past the
    table is an error at run time (train.gather's index check), never a
    silently different rate. Without schedule_steps it is refused, naming
    the function's line."""
    fn = scheduler.lr_lambdas[index]
    base = float(group.get("initial_lr", group["lr"]))
    func, kw = (fn.func, fn.keywords) if isinstance(fn, functools.partial) and \
        not fn.args else (fn, {})
    if getattr(func, "__module__", "").startswith("transformers."):
        shape = _hf_shape(func, kw)
        if shape is not None:
            if shape.get("warmup_steps", 1) == 0:  # no warm-up: factor 1 from step 0
                shape = {k: v for k, v in shape.items() if not k.startswith("warmup")}
            return lr_schedule(builder, base, shape, comment)
    code = getattr(getattr(fn, "func", fn), "__code__", None)
    line = " (%s:%d)" % (code.co_filename, code.co_firstlineno) if code else ""
    if not schedule_steps:
        raise ExportError("torch.optim", "LambdaLR", where + ", lr_lambda %s%s" % (
                              getattr(getattr(fn, "func", fn), "__name__", "?"), line),
                          "a learning-rate function the exporter cannot read as a "
                          "formula (Hugging Face's get_*_schedule_with_warmup can)",
                          "Pass schedule_steps=N to export() (the number of steps you "
                          "will train): the function is evaluated at steps 0 .. N-1 "
                          "into a table; a step past N is then an error.")
    try:
        table = np.array([base * float(fn(s)) for s in range(int(schedule_steps))],
                         dtype=np.float32)
    except Exception as e:  # noqa: BLE001 - the user's function
        raise ExportError("torch.optim", "LambdaLR", where + line,
                          "evaluating lr_lambda failed: %s: %s" % (type(e).__name__, e),
                          "Make lr_lambda a function of the step number alone.") from e
    if not np.all(np.isfinite(table)) or np.any(table < 0):
        raise ExportError("torch.optim", "LambdaLR", where + line,
                          "lr_lambda gives a negative or non-finite learning rate",
                          "Check the function.")
    counter, _ = _step_counter(builder)
    values = dense_constant(builder, table, "f32")
    return builder.op("train.gather", [values, counter], [((), "f32")], {"axis": 0},
                      comment=comment + ": LambdaLR tabulated over %d steps" %
                      int(schedule_steps))


def _timm_hold(scheduler):
    """The first t from which a timm schedule stays constant, or None:
    the cosine / tanh / poly schedulers hold lr_min after their last cycle
    (get_cycle_length), the multi-step one after its last milestone; the
    step and plateau ones never settle. Checked by evaluation as well."""
    if hasattr(scheduler, "get_cycle_length"):
        end = int(scheduler.get_cycle_length()) + 1
    elif type(scheduler).__name__ == "MultiStepLRScheduler":
        end = max(list(scheduler.decay_t) + [int(getattr(scheduler, "warmup_t", 0))]) + 1
    else:
        return None
    noise = getattr(scheduler, "noise_range_t", None)
    if noise is not None and not (isinstance(noise, (list, tuple)) and noise[1] <= end):
        return None
    return end


def _timm_values(scheduler, t, kind, where):
    if not hasattr(scheduler, "_get_values") or not hasattr(scheduler, "_add_noise"):
        raise ExportError("timm", kind, where,
                          "a timm scheduler without timm's _get_values / _add_noise (a "
                          "timm older than 0.9, or a scheduler of its own)",
                          "Use timm >= 0.9's schedulers, or a torch.optim.lr_scheduler.")
    values = scheduler._get_values(t, on_epoch=False)
    if values is None:
        raise ExportError("timm", kind, where, "step_update() leaves its rate alone",
                          "Report this scheduler.")
    values = scheduler._add_noise(list(values), t)
    return [float(v) for v in values]


def _timm_lrs(builder, scheduler, optimizer, first_update, schedule_steps):
    """A timm scheduler stepped per update (t_in_epochs=False, step_update(n)
    after each optimizer.step(), timm's train.py): at step c >= 1 the rate
    is the schedule at n0 - 1 + c, n0 being the num_updates the traced step
    passed (1 with export(scheduler=...): timm's loop from update 0), and
    at step 0 the group's rate as it stands. Evaluated by timm itself
    (noise included: timm seeds it by t) into one table per param group;
    a schedule that settles (cosine, tanh, poly after their cycles,
    multi-step after its last milestone) holds its last entry from there
    on (the step's counter clamped); any other needs schedule_steps=N, and
    a step past N is an error at run time."""
    kind = type(scheduler).__name__
    where = "the scheduler"
    if first_update == "epoch" or getattr(scheduler, "t_in_epochs", False):
        raise ExportError("timm", kind, where,
                          "a per-epoch schedule (t_in_epochs=True, or step(epoch) in the "
                          "step function): the exported step runs per update and cannot "
                          "see epochs",
                          "Build it with t_in_epochs=False and call "
                          "step_update(num_updates) after optimizer.step().")
    n0 = 1 if first_update is None else int(first_update)
    hold = _timm_hold(scheduler)
    if hold is not None:
        length, clamp = max(hold - (n0 - 1) + 1, 2), True
    elif schedule_steps:
        length, clamp = int(schedule_steps), False
    else:
        raise ExportError("timm", kind, where,
                          "a schedule that never settles (its rate keeps changing)",
                          "Pass schedule_steps=N to export() (the number of steps you will "
                          "train): it is evaluated over N steps into a table; a step past "
                          "N is then an error.")
    rows = [_timm_values(scheduler, n0 - 1 + c, kind, where) for c in range(1, length)]
    if clamp and (rows[-1] != _timm_values(scheduler, n0 - 1 + length, kind, where) or
                  rows[-1] != _timm_values(scheduler, n0 - 1 + 2 * length + 7, kind, where)):
        raise ExportError("timm", kind, where, "its rate still changes after its last cycle",
                          "Pass schedule_steps=N to export().")
    counter, _ = _step_counter(builder)
    index = counter
    if clamp:
        last = builder.op("train.fill", [], [((), "i64")], {"value": float(length - 1)})
        index = builder.op("train.minimum", [counter, last], [((), "i64")])
    lrs = []
    for g, group in enumerate(optimizer.param_groups):
        table = np.array([float(group["lr"])] + [r[g] for r in rows], dtype=np.float32)
        if not np.all(np.isfinite(table)) or np.any(table < 0):
            raise ExportError("timm", kind, where, "a negative or non-finite rate",
                              "Check the scheduler's arguments.")
        values = dense_constant(builder, table, "f32")
        lrs.append(builder.op(
            "train.gather", [values, index], [((), "f32")], {"axis": 0},
            comment="%s: the learning rate of this step%s, tabulated over %d steps%s" % (
                kind, " (param group %d)" % g if len(optimizer.param_groups) > 1 else "",
                length, ", the last held" if clamp else "")))
    return lrs


def _one_cycle(scheduler, group, where):
    """OneCycleLR's two phases as a warm-up and a decay of max_lr: phase 1
    anneals initial_lr -> max_lr over its end step (pct_start * total - 1),
    phase 2 max_lr -> min_lr until total - 1, both cosine or both linear
    (PyTorch's anneal_strategy). Its momentum cycling has no train op."""
    kind = "OneCycleLR"
    if scheduler.cycle_momentum:
        raise ExportError("torch.optim", kind, where,
                          "momentum cycling (cycle_momentum=True changes the "
                          "optimizer's momentum / beta1 every step)",
                          "Use OneCycleLR(..., cycle_momentum=False).")
    phases = scheduler._schedule_phases
    if len(phases) != 2:
        raise ExportError("torch.optim", kind, where, "three phases",
                          "Use three_phase=False.")
    end1, end2 = float(phases[0]["end_step"]), float(phases[1]["end_step"])
    if end1 != int(end1) or end1 < 1:
        raise ExportError("torch.optim", kind, where,
                          "a first phase ending at step %g (pct_start * total_steps "
                          "- 1 must be a whole number >= 1)" % end1,
                          "Choose pct_start and total_steps so that pct_start * "
                          "total_steps is a whole number.")
    shape = "cosine" if scheduler._anneal_func_type == "cos" else "linear"
    top = float(group["max_lr"])
    return top, {"warmup": shape, "warmup_steps": int(end1),
                 "warmup_start_factor": float(group["initial_lr"]) / top,
                 "decay": shape, "decay_steps": int(end2 - end1),
                 "end_factor": float(group["min_lr"]) / top}


def _clip(builder, grads, clips):
    """torch.nn.utils.clip_grad_value_ / clip_grad_norm_ of the loop as the
    step's own ops, on every gradient, in the loop's order: `clips` of
    ("value", clip_value, None) and ("norm", max_norm, norm_type), at most
    one of each. Returns (clipped grads, outputs)."""
    outputs = []
    for how, value, norm_type in clips:
        if how == "value":
            clipped = builder.op("train.clip_grad_value", grads,
                                 [(g.shape, g.elem) for g in grads],
                                 {"clip_value": float(value)})
            grads = clipped if isinstance(clipped, list) else [clipped]
        else:
            res = builder.op("train.clip_grad_norm", grads,
                             [(g.shape, g.elem) for g in grads] + [((), "f32")],
                             {"max_norm": float(value), "norm_type": float(norm_type)})
            grads, total = res[:-1], res[-1]
            outputs.append((total, OUTPUT, "grad_norm"))
    return grads, outputs


def _optimizer_update(builder, optimizer, param_names, params, grads, lrs=None):
    """Emits the optimizer ops (with each param group's learning rate: a
    0-d Value from a schedule in `lrs`, in param-group order, or the
    group's constant) and hyper-parameters; returns [(new Value, role,
    name)]."""
    results = []
    group_of, lr_of = {}, {}
    for index, group in enumerate(optimizer.param_groups):
        for p in group["params"]:
            group_of[id(p)] = group
            lr_of[id(p)] = lrs[index] if lrs else None
    kind = type(optimizer).__name__
    timm = type(optimizer).__module__.startswith("timm.")
    if kind == "Lamb" and timm:
        # Lamb's global gradient clipping reads every gradient first.
        lamb = torch_timm_optim.Lamb(builder, optimizer, grads)
    for (name, tensor), p, g in zip(param_names, params, grads):
        group = group_of.get(id(tensor))
        where = "optimizer %s, parameter '%s'" % (kind, name)
        if group is None:
            raise ExportError("torch.optim", kind, where, "the parameter is in no param group",
                              "Pass every trainable parameter to the optimizer.")
        lr = lr_of[id(tensor)]
        wd = float(group.get("weight_decay", 0.0))
        if group.get("maximize", False) or group.get("differentiable", False):
            raise ExportError("torch.optim", kind, where, "maximize/differentiable",
                              "Use the default settings.")
        fixed = {} if lr is not None else {"lr": float(group["lr"])}
        rate = [lr] if lr is not None else []
        if kind == "SGD" and group["momentum"] == 0:
            new = builder.op("train.sgd", [p, g] + rate, [(p.shape, p.elem)],
                             dict(fixed, weight_decay=wd))
            results.append((new, PARAM, name))
        elif kind == "SGD":
            buf = builder.arg(p.shape, p.elem, OPT_STATE, name + ".momentum_buffer")
            props = dict(fixed, momentum=float(group["momentum"]),
                         dampening=float(group["dampening"]), weight_decay=wd)
            if group["nesterov"]:
                props["nesterov"] = True
            new = builder.op("train.sgd_momentum", [p, g, buf] + rate,
                             [(p.shape, p.elem)] * 2, props)
            results.append((new[0], PARAM, name))
            results.append((new[1], OPT_STATE, name + ".momentum_buffer"))
        elif kind in ("Adam", "AdamW"):
            if group.get("amsgrad"):
                raise ExportError("torch.optim", kind, where, "amsgrad", "Use amsgrad=False.")
            m = builder.arg(p.shape, p.elem, OPT_STATE, name + ".exp_avg")
            v = builder.arg(p.shape, p.elem, OPT_STATE, name + ".exp_avg_sq")
            step = builder.arg((), "f32", OPT_STATE, name + ".step")
            one = builder.op("train.fill", [], [((), "f32")], {"value": 1.0})
            t = builder.op("train.add", [step, one], [((), "f32")])
            beta1, beta2 = group["betas"]
            new = builder.op("train.adam" if kind == "Adam" else "train.adamw",
                             [p, g, m, v, t] + rate, [(p.shape, p.elem)] * 3,
                             dict(fixed, beta1=float(beta1), beta2=float(beta2),
                                  epsilon=float(group["eps"]), weight_decay=wd))
            results += [(new[0], PARAM, name), (new[1], OPT_STATE, name + ".exp_avg"),
                        (new[2], OPT_STATE, name + ".exp_avg_sq"),
                        (t, OPT_STATE, name + ".step")]
        elif kind in ("RMSprop", "Adagrad") or (kind == "RMSpropTF" and timm):
            results += _elementwise_update(builder, kind, group, name, where, p, g, lr)
        elif kind == "Lamb" and timm:
            results += lamb.update(group, name, where, p, g, lr)
        else:
            raise ExportError("torch.optim", kind, where, "no mapping for this optimizer",
                              "Use torch.optim.SGD (with or without momentum), Adam, AdamW, "
                              "RMSprop or Adagrad (or timm's RMSpropTF or Lamb).")
    return results


def _elementwise_update(builder, kind, group, name, where, p, g, lr):
    """RMSprop / Adagrad as elementwise ops on a train.gradient marker (the
    dialect's form of an optimizer with no fused op), PyTorch's formulas:
    RMSprop  v = alpha v + (1 - alpha) g^2, p -= lr g / (sqrt(v) + eps);
             centered: a = alpha a + (1 - alpha) g, sqrt(v - a^2) instead;
             momentum: b = momentum b + g / (...), p -= lr b;
    Adagrad  s = s + g^2,                   p -= lr g / (sqrt(s) + eps);
    weight decay adds wd * p to g first."""
    shape, elem = p.shape, p.elem

    def op(name_, *operands):
        return builder.op("train." + name_, list(operands), [(shape, elem)])

    def const(value):
        return builder.op("train.fill", [], [(shape, elem)], {"value": float(value)})

    if kind == "Adagrad" and (group["lr_decay"] != 0 or
                              group["initial_accumulator_value"] != 0):
        raise ExportError("torch.optim", kind, where,
                          "lr_decay or initial_accumulator_value",
                          "Use Adagrad(lr_decay=0, initial_accumulator_value=0).")
    grad = builder.op("train.gradient", [g], [(shape, elem)],
                      comment="%s of '%s' as elementwise ops" % (kind, name))
    rate = const(group["lr"]) if lr is None else builder.op(
        "train.broadcast", [lr], [(shape, elem)], {"dims": []})
    if kind == "RMSpropTF":
        return torch_timm_optim.rmsprop_tf(builder, group, name, where, p, grad, rate, op,
                                           const)
    if group["weight_decay"]:
        grad = op("add", grad, op("mul", const(group["weight_decay"]), p))
    key = "square_avg" if kind == "RMSprop" else "sum"
    state = builder.arg(shape, elem, OPT_STATE, "%s.%s" % (name, key))
    square = op("mul", grad, grad)
    if kind == "RMSprop":
        alpha = float(group["alpha"])
        new_state = op("add", op("mul", const(alpha), state),
                       op("mul", const(1 - alpha), square))
    else:
        new_state = op("add", state, square)
    out = [(new_state, OPT_STATE, "%s.%s" % (name, key))]
    variance = new_state
    if kind == "RMSprop" and group["centered"]:
        # The mean gradient's square taken off: v - avg^2.
        avg = builder.arg(shape, elem, OPT_STATE, name + ".grad_avg")
        new_avg = op("add", op("mul", const(alpha), avg), op("mul", const(1 - alpha), grad))
        variance = op("sub", new_state, op("mul", new_avg, new_avg))
        out.append((new_avg, OPT_STATE, name + ".grad_avg"))
    denom = op("add", op("sqrt", variance), const(group["eps"]))
    step = op("div", grad, denom)
    if kind == "RMSprop" and group["momentum"] != 0:
        # buf = momentum buf + g / denom; p -= lr buf (PyTorch's order).
        buf = builder.arg(shape, elem, OPT_STATE, name + ".momentum_buffer")
        step = op("add", op("mul", const(group["momentum"]), buf), step)
        out.append((step, OPT_STATE, name + ".momentum_buffer"))
    new_p = op("sub", p, op("mul", rate, step))
    return [(new_p, PARAM, name)] + out

