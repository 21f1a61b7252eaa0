"""mp.torch.compile: a PyTorch model's training step, exported, compiled and
trained in the user's own loop (docs/python.md).

    step = mp.torch.compile(model, optimizer, example=(x, y),
                            policy="mixed_bfloat16")
    for x, y in loader:            # any DataLoader, augmentation, new data
        loss = step(x, y)          # a float
    step.sync_to(model)            # the trained weights, into the nn.Module

The step is the one PyTorch would run (mp_export: the model's forward, the
loss, backward, clipping, the optimizer and its schedule), traced once on
`example`; mp trains its own copy of the state from then on. A model or
optimizer changed after compile() (a parameter replaced or written in
place, train()/eval() switched) would be trained differently, so step()
refuses it, naming what changed; sync_to() and load_state_dict() are the
ways state moves between the two.
"""
import os
import shutil

import numpy as np
import torch

from ._compile import cache_dir, compile_step, report_of, resolve_policy
from ._fingerprint import example_signature, fingerprint
from .errors import DataError, Error



def _model_state(model):
    """What step() checks has not changed since compile: each parameter
    and buffer object with its in-place version counter, and every
    module's train/eval mode."""
    tensors = [(name, id(t), t._version)
               for name, t in list(model.named_parameters()) +
               list(model.named_buffers())]
    modes = [(name, m.training) for name, m in model.named_modules()]
    return tensors, modes


def _tracked_batches(model):
    """The batch norm counters the model's training forward increments
    (num_batches_tracked of each module in training mode that tracks
    running statistics): {state_dict key: value}. The export leaves them
    out (they count, they do not train); the step keeps them as PyTorch
    would, one per step run."""
    counters = {}
    for prefix, module in model.named_modules():
        count = getattr(module, "num_batches_tracked", None)
        if torch.is_tensor(count) and module.training and \
                getattr(module, "track_running_stats", False):
            counters[(prefix + "." if prefix else "") +
                     "num_batches_tracked"] = int(count)
    return counters


def _hyperparameters(optimizer):
    """The optimizer's param groups without their tensors: what the step
    baked in."""
    def plain(value):
        return value.tolist() if torch.is_tensor(value) else value
    return [{k: plain(v) for k, v in group.items() if k != "params"}
            for group in optimizer.param_groups]


def _changed(before, after):
    """A sentence on the first difference of two _model_state()s, or ""."""
    (tensors0, modes0), (tensors1, modes1) = before, after
    names0 = {n: (i, v) for n, i, v in tensors0}
    names1 = {n: (i, v) for n, i, v in tensors1}
    for name in names0:
        if name not in names1:
            return "'%s' was removed" % name
        if names0[name][0] != names1[name][0]:
            return "'%s' was replaced by another tensor" % name
        if names0[name][1] != names1[name][1]:
            return "'%s' was written in place" % name
    for name in names1:
        if name not in names0:
            return "'%s' was added" % name
    for (name, mode0), (_, mode1) in zip(modes0, modes1):
        if mode0 != mode1:
            return "%s was switched to %s()" % (
                "module '%s'" % name if name else "the model",
                "train" if mode1 else "eval")
    return ""


class CompiledStep:
    """A compiled training step (mp.torch.compile): call it with a batch."""

    def __init__(self, model, optimizer, session, work_dir, remove_work_dir,
                 names, loss_fn, example, options):
        self.model, self.optimizer, self.session = model, optimizer, session
        self.work_dir = work_dir
        self._remove = remove_work_dir
        self._names = names  # the model's state_dict keys the step holds
        self._loss_fn = loss_fn  # eval()'s; None: a loop body's own
        self._example = example  # (x, y): eval()'s labels when none given
        self.policy, self._backend, self._compile_options = options
        self._evals = {}  # batch shapes -> [eval session, state version]
        self._version = 0  # counts changes of the trained state
        self._state = _model_state(model)
        self._groups = _hyperparameters(optimizer)
        # num_batches_tracked: its value at compile and the steps run then.
        self._batches = {name: (count, self._steps_run())
                         for name, count in _tracked_batches(model).items()}

    @property
    def rank(self):
        """This process's rank in an mpirun job (0 in one process): the
        step of `compile_options="data-parallel=allreduce"` runs on the
        launcher's ranks, each feeding its part of every global batch."""
        return self.session.rank

    @property
    def world_size(self):
        """The number of ranks (1 in one process)."""
        return self.session.world_size

    # -- training ---------------------------------------------------------

    def __call__(self, *batch):
        """One training step on `batch` (the example's order: inputs, then
        labels); returns the loss as a float. A batch of another shape (a
        last partial batch) is refused: use DataLoader(drop_last=True)."""
        changed = _changed(self._state, _model_state(self.model))
        if changed:
            raise Error(
                "mp.torch: the model changed after compile(): %s; mp trains "
                "its own copy of the state, so the change would not be "
                "trained. Move state with step.load_state_dict() / "
                "step.sync_to(model), or compile again" % changed)
        groups = _hyperparameters(self.optimizer)
        if groups != self._groups:
            group = next(i for i, (a, b) in enumerate(zip(self._groups, groups))
                         if a != b) if len(groups) == len(self._groups) else 0
            keys = sorted(k for k in set(groups[group]) | set(self._groups[group])
                          if groups[group].get(k) != self._groups[group].get(k))
            raise Error(
                "mp.torch: the optimizer changed after compile(): param group "
                "%d's %s (a scheduler.step() or an assignment in the loop?); "
                "the compiled step has its hyper-parameters and schedule "
                "built in: pass the scheduler to compile() instead, or "
                "compile again" % (group, ", ".join(keys)))
        names = self.session.inputs + self.session.labels
        if len(batch) != len(names):
            # A tensor left out would keep the last step's value: a step on
            # stale labels, without a word.
            raise DataError("the step takes %d tensors (%s), got %d" % (
                len(names), ", ".join(names), len(batch)))
        for name, value in zip(names, batch):
            info = self.session.tensors[name]
            shape = tuple(getattr(value, "shape", ()))
            if shape and info.shape and shape[1:] == info.shape[1:] and \
                    shape[0] != info.shape[0]:
                raise DataError(
                    "'%s' holds a batch of %d, the step was compiled for %d "
                    "(the example's): a last partial batch? Use "
                    "DataLoader(..., drop_last=True)" % (name, shape[0],
                                                        info.shape[0]))
        self._version += 1
        return self.session.step(*batch)

    def _set_initial_state(self):
        """A step found by its fingerprint holds the initial state of the
        export that compiled it: the model's and optimizer's current state
        replace it, as export would write it (mp_export.torch)."""
        tensors = self.session.tensors
        model = dict(self.model.named_parameters())
        model.update(self.model.named_buffers())
        for name, value in model.items():
            if name in tensors and tensors[name].role in ("param", "buffer"):
                self.session.set(name, value.detach())
        if "dropout.key" in tensors:
            self.session.set("dropout.key", np.array(
                torch.initial_seed() & (2**63 - 1), dtype=np.int64))
        state = self.optimizer.state_dict()["state"]
        if state:
            self.load_state_dict({"optimizer": {"state": state}})

    def scaler_stats(self):
        return self.session.scaler_stats()

    def eval(self, x, y=None):
        """The model's forward pass as PyTorch's eval() runs it (batch norm
        on its running statistics, dropout off) on the current trained
        state, run by mp: (loss, logits) as torch tensors, the loss by the
        step's loss_fn (None without labels `y`). The forward-only plan of
        the model traced in eval() (mp-compile --eval), under the step's
        policy, compiled on first use for each batch shape (kept, and in
        the plan cache) and given the trained state before it runs."""
        if y is not None and self._loss_fn is None:
            raise Error("step.eval: the step was compiled from a loop body, "
                        "whose loss is inside it: pass loss_fn= to "
                        "compile() for eval()'s loss, or call eval(x)")
        x = torch.as_tensor(x)
        label = self._example[1]
        labels = torch.as_tensor(y) if y is not None else torch.zeros(
            (x.shape[0],) + tuple(label.shape[1:]), dtype=label.dtype)
        key = (tuple(x.shape), x.dtype, tuple(labels.shape), labels.dtype)
        if key not in self._evals:
            self._evals[key] = [self._compile_eval(x, labels), -1]
        entry = self._evals[key]
        session = entry[0]
        if entry[1] != self._version:
            # The trained state (parameters, running statistics) into the
            # evaluation plan's copy of it.
            for name, info in session.tensors.items():
                if info.role in ("param", "buffer") and \
                        name in self.session.tensors:
                    session.set(name, self.session.get(name))
            entry[1] = self._version
        loss = session.step(x, labels)
        logits = torch.from_numpy(session.get("logits"))
        return (None if y is None else torch.tensor(loss)), logits

    def _compile_eval(self, x, labels):
        """The evaluation plan for batches shaped like (x, labels): the
        model traced with every module in eval() (mp_export.torch.
        export_eval, which restores their modes)."""
        import mp_export.torch as exporter
        # eval(x) of a loop-body step: the plan needs a loss op to find the
        # logits; the loss itself is not returned.
        loss_fn = self._loss_fn or exporter.default_eval_loss(labels)
        # The key of the model as export_eval traces it: in eval().
        with exporter.in_eval_mode(self.model):
            key = None if cache_dir() is None else fingerprint(
                self.model, self.optimizer, (
                    "eval", loss_fn, example_signature(x),
                    example_signature(labels), self.policy, self._backend,
                    self._compile_options))[0]
        _, _, session = compile_step(
            "step.eval", self.model,
            lambda out: exporter.export_eval(self.model, self.optimizer, x,
                                             labels, out, "step",
                                             loss_fn=loss_fn),
            os.path.join(self.work_dir, "eval-%d" % len(self._evals)),
            self.policy, self._backend, self._compile_options,
            evaluation=True, fingerprint=key)
        return session

    # -- state ------------------------------------------------------------

    def _steps_run(self):
        return self.session.scaler_stats()["steps_run"]

    def _batches_tracked(self):
        """Each num_batches_tracked as PyTorch's loop would have it now:
        one more per step run (skipped steps too: their forward ran)."""
        run = self._steps_run()
        return {name: count + run - since
                for name, (count, since) in self._batches.items()}

    def sync_to(self, model=None):
        """Writes the trained parameters and buffers into `model` (default:
        the compiled one), in place, under their state_dict keys, so that
        torch.save(model.state_dict()) and PyTorch's own forward see them."""
        model = model if model is not None else self.model
        if not isinstance(model, torch.nn.Module):
            raise Error("sync_to takes a torch.nn.Module, got %s"
                        % type(model).__name__)
        state = model.state_dict()
        with torch.no_grad():
            for name in self._names:
                if name in state:
                    value = torch.from_numpy(self.session.get(name))
                    state[name].copy_(value.to(state[name].dtype))
            for name, count in self._batches_tracked().items():
                if name in state:
                    state[name].fill_(count)
        if model is self.model:
            self._state = _model_state(model)

    def _optimizer_names(self):
        """Per index of torch's optimizer.state_dict() (the params in
        param-group order): the parameter's name in the model."""
        named = {id(p): n for n, p in self.model.named_parameters()}
        return [named.get(id(p)) for group in self.optimizer.param_groups
                for p in group["params"]]

    def state_dict(self):
        """{"model": the model's state_dict, "optimizer": the optimizer's
        own state_dict layout ({"state": {index: {"momentum_buffer": ...,
        "exp_avg": ..., "step": ...}}, "param_groups": [...]}, which
        optimizer.load_state_dict takes), "scaler": the loss scaler's
        tensors}: copies of the step's trained state."""
        model, scaler, state = {}, {}, {}
        for name, info in self.session.tensors.items():
            if info.role in ("param", "buffer") and name in self._names:
                model[name] = torch.from_numpy(self.session.get(name))
            elif info.role == "scaler_state":
                scaler[name] = torch.from_numpy(self.session.get(name))
        for name, count in self._batches_tracked().items():
            model[name] = torch.tensor(count, dtype=torch.int64)
        for index, param in enumerate(self._optimizer_names()):
            entry = {}
            for name, info in self.session.tensors.items():
                if info.role == "optimizer_state" and param and \
                        name.startswith(param + ".") and \
                        "." not in name[len(param) + 1:]:
                    value = torch.from_numpy(self.session.get(name))
                    key = name[len(param) + 1:]
                    # torch keeps Adam's step as a float32 scalar tensor.
                    entry[key] = value.to(torch.float32) if key == "step" \
                        else value
            if entry:
                state[index] = entry
        groups = self.optimizer.state_dict()["param_groups"]
        return {"model": model, "scaler": scaler,
                "optimizer": {"state": state, "param_groups": groups}}

    def load_state_dict(self, state):
        """Sets the step's state from a state_dict(): "model" (a model's own
        state_dict keys), "optimizer" (torch's optimizer.state_dict()
        layout), "scaler". What the step does not hold is an error; the
        optimizer's hyper-parameters are the compiled step's and are not
        changed (compile again for others)."""
        self._version += 1
        for name, value in state.get("model", {}).items():
            if name in self._batches:
                self._batches[name] = (int(value), self._steps_run())
                continue
            if name not in self.session.tensors:
                raise DataError("the step holds no '%s' (model)" % name)
            self.session.set(name, value)
        for name, value in state.get("scaler", {}).items():
            if name not in self.session.tensors:
                raise DataError("the step holds no '%s' (scaler)" % name)
            self.session.set(name, value)
        names = self._optimizer_names()
        for index, entry in state.get("optimizer", {}).get("state",
                                                           {}).items():
            if not 0 <= int(index) < len(names) or names[int(index)] is None:
                raise DataError("optimizer state #%s: the optimizer has %d "
                                "parameters" % (index, len(names)))
            for key, value in entry.items():
                if value is None:  # SGD's momentum_buffer before momentum
                    continue
                name = "%s.%s" % (names[int(index)], key)
                info = self.session.tensors.get(name)
                value = torch.as_tensor(value)
                if info is None and not value.any():
                    # State at zero the step does not hold starts there
                    # anyway (Adagrad's step count before its first step),
                    # as mp_export takes it.
                    continue
                if info is None:
                    raise DataError("the step holds no '%s' (optimizer)" % name)
                if info.dtype == "i64":
                    value = value.to(torch.int64)
                self.session.set(name, value.reshape(info.shape))

    def save(self, path):
        """A checkpoint of everything the step holds (mp-run's format); a
        resume with load() is bitwise."""
        self.session.save_checkpoint(path)

    def load(self, path):
        self._version += 1
        self.session.load_checkpoint(path)

    def close(self):
        for session, _ in self._evals.values():
            session.close()
        self._evals = {}
        self.session.close()
        if self._remove and self.work_dir and os.path.isdir(self.work_dir):
            shutil.rmtree(self.work_dir, ignore_errors=True)
            self.work_dir = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


def compile(model, optimizer=None, loss_fn=None, example=None, *,
            train_step=None, policy="auto", backend=None,
            scheduler=None, clip_grad_norm=None, clip_grad_value=None,
            norm_type=2.0, schedule_steps=None, compile_options="",
            work_dir=None):
    """Exports, compiles and loads one training step of `model`.

    - `model`, `optimizer`, `loss_fn` (default F.cross_entropy): the step
      PyTorch's loop would run; `scheduler`, `clip_grad_norm`,
      `clip_grad_value` as mp_export.torch.export takes them.
    - `train_step`: instead, the user's own loop body f(x, y) (zero_grad,
      forward, loss, backward, clipping, optimizer.step, scheduler.step,
      GradScaler), read from the function as mp_export.torch.export_step
      does.
    - `example`: (x, y), a batch of the shape every step gets.
    - `policy`: "auto" (the default: mp.auto_policy() for the backend's
      target, said once per process with the reason), float32,
      mixed_bfloat16 or mixed_float16; `compile_options`: more
      --mixed-precision options ("deny-add=...").
    - `backend`: as mp.Session's.

    The step starts from the model's current state. Raises ExportError
    (the exporter's message, naming the user's source line), CompileError
    (mp-compile's) or the Session's errors."""
    if not isinstance(example, (tuple, list)) or len(example) != 2:
        raise Error(
            "mp.torch.compile needs example=(x, y): one input batch and its "
            "labels, of the shape every step gets (got %s; a model of "
            "several inputs is not supported yet: pack them into one tensor "
            "or use mp_export with a wrapper module)" % (
                "%d tensors" % len(example) if isinstance(example,
                                                           (tuple, list))
                else type(example).__name__))
    if optimizer is None:
        raise Error("mp.torch.compile needs the optimizer the step updates "
                    "the model with")
    policy, reason = resolve_policy(policy, backend, "mp.torch.compile")
    import mp_export.torch as exporter

    x, y = example

    def export(out):
        if train_step is not None:
            exporter.export_step(train_step, model, optimizer, x, y, out,
                                 "step", schedule_steps=schedule_steps)
        else:
            exporter.export(model, optimizer, x, y, out, "step",
                            loss_fn=loss_fn, scheduler=scheduler,
                            clip_grad_norm=clip_grad_norm,
                            clip_grad_value=clip_grad_value,
                            norm_type=norm_type,
                            schedule_steps=schedule_steps)

    key, why = (None, "the plan cache is off") if cache_dir() is None else \
        fingerprint(model, optimizer, (
            "train", loss_fn, train_step, scheduler, clip_grad_norm,
            clip_grad_value, norm_type, schedule_steps, example_signature(x),
            example_signature(y), policy, backend, compile_options))
    work_dir, remove, session = compile_step(
        "mp.torch.compile", model, export, work_dir, policy, backend,
        compile_options, fingerprint=key)
    names = [n for n in model.state_dict() if n in session.tensors]
    # eval()'s loss: the compiled one (export's default: cross-entropy);
    # a loop body's is inside it, unless loss_fn names it.
    step = CompiledStep(model, optimizer, session, work_dir, remove, names,
                        loss_fn if train_step is not None else
                        loss_fn or torch.nn.functional.cross_entropy,
                        (x, torch.as_tensor(y)),
                        (policy, backend, compile_options))
    step.from_cache = session.from_cache  # the plan came from the cache
    # Whether the step was traced; why a step found by its fingerprint
    # could not be (None: it could).
    step.traced, step.fingerprint_unavailable = session.traced, why
    if not session.traced:
        step._set_initial_state()
    step.policy, step.policy_reason = policy, reason
    # The precision report (docs/precision.md) as a dict.
    step.report = report_of(session, policy, reason)
    return step

