"""mp.keras.fit: a compiled Keras 3 model trained by mp, in place of
model.fit (docs/python.md).

    model.compile(optimizer=..., loss=..., metrics=[...])
    history = mp.keras.fit(model, dataset, epochs=5,
                           validation_data=(x_val, y_val),
                           callbacks=[keras.callbacks.ModelCheckpoint(...)])
    model.evaluate(x_test, y_test)     # the trained weights are the model's

The step is the model's own train step (mp_export.keras: its forward, its
compiled loss and optimizer), traced once on the first batch; mp trains
its copy of the state and writes the weights and optimizer slots back
into the Keras model at the end of every epoch, before the callbacks run,
so that ModelCheckpoint, EarlyStopping(restore_best_weights=True) and
model.evaluate see the trained model. The History has the epoch's mean
training loss, the compiled metrics of the training batches (Keras' own
metric objects, fed the predictions the step returns) and the validation
loss and metrics, which Keras computes itself (model.evaluate on the
written-back weights). A learning rate set by a callback during fit is
followed: the step is compiled again from the trained state, with the new
rate (a schedule object needs no recompile).
"""
import inspect
import itertools
import json
import os
import shutil
import warnings

import numpy as np

from ._compile import compile_step, report_of, resolve_policy
from .errors import DataError, Error


def _source(x, y, batch_size, shuffle, seed, steps_per_epoch):
    """(example batch, epoch(index, rank, ranks) -> iterator of (x, y)
    numpy batches, batches_per_epoch(ranks) or None) for numpy arrays, a
    tf.data.Dataset or a Python generator of batches. Numpy arrays are
    shared among the ranks of a data-parallel step (rank r takes the r-th
    batch_size rows of each global batch of ranks x batch_size, shuffled
    alike on every rank); datasets and generators are each rank's own."""
    if hasattr(x, "element_spec"):  # tf.data.Dataset of (x, y) batches
        if y is not None:
            raise DataError("mp.keras.fit: a tf.data.Dataset carries its "
                            "labels; y must be None")

        def epoch(*_):
            for element in x:
                if not isinstance(element, (tuple, list)) or \
                        len(element) != 2:
                    raise DataError(
                        "mp.keras.fit: the dataset's elements must be (x, y) "
                        "batches (sample weights are not supported), got %s"
                        % type(element).__name__)
                yield element[0].numpy(), element[1].numpy()
        first = next(epoch(0), None)
        if first is None:
            raise DataError("mp.keras.fit: the dataset is empty")
        return first, epoch, lambda _: steps_per_epoch
    if inspect.isgenerator(x) or hasattr(x, "__next__"):
        if steps_per_epoch is None:
            raise DataError("mp.keras.fit: a generator needs steps_per_epoch "
                            "(how many of its batches make an epoch)")
        try:
            first = next(x)
        except StopIteration:
            raise DataError("mp.keras.fit: the generator is empty") from None
        stream = itertools.chain([first], x)

        def epoch(*_):
            for batch in itertools.islice(stream, steps_per_epoch):
                yield np.asarray(batch[0]), np.asarray(batch[1])
        return (np.asarray(first[0]), np.asarray(first[1])), epoch, \
            lambda _: steps_per_epoch
    if y is None:
        raise DataError("mp.keras.fit: numpy inputs need their labels y")
    x, y = np.asarray(x), np.asarray(y)
    batch_size = batch_size or 32
    if len(x) != len(y):
        raise DataError("mp.keras.fit: x has %d samples, y %d" % (len(x),
                                                                   len(y)))
    if len(x) < batch_size or len(x) % batch_size:
        raise DataError(
            "mp.keras.fit: x has %d samples, not a multiple of batch_size %d: "
            "mp trains whole batches of one shape (Keras would train a last "
            "batch of %d); choose a batch_size that divides %d or drop the "
            "rest" % (len(x), batch_size, len(x) % batch_size, len(x)))
    rng = []  # made on first use, when the ranks are known

    def batches(ranks):
        count = len(x) // (batch_size * ranks)
        return count if steps_per_epoch is None else min(count,
                                                         steps_per_epoch)

    def epoch(_, rank=0, ranks=1):
        if not rng:
            # Every rank shuffles alike: without a seed, several ranks
            # take seed 0 (one process stays random, as Keras is).
            rng.append(np.random.default_rng(
                0 if seed is None and ranks > 1 else seed))
        order = rng[0].permutation(len(x)) if shuffle else np.arange(len(x))
        for i in range(batches(ranks)):
            start = (i * ranks + rank) * batch_size
            rows = order[start:start + batch_size]
            yield x[rows], y[rows]
    return (x[:batch_size], y[:batch_size]), epoch, batches


def _constant_learning_rate(optimizer):
    """The optimizer's learning rate as the exporter builds it into the
    step (a float), or None under a schedule (the step computes that one
    from its counter, as Keras does)."""
    import keras
    if isinstance(optimizer._learning_rate,
                  keras.optimizers.schedules.LearningRateSchedule):
        return None
    return float(keras.ops.convert_to_numpy(optimizer.learning_rate))


def _changed_on_all_ranks(changed, session, what="the learning rate was"):
    """Whether a callback changed `what`, agreed by every rank of a
    data-parallel step (each rank's callbacks see the same losses and
    metrics, so they decide alike; ranks that did not would train
    different steps: refused)."""
    if session.world_size == 1:
        return changed
    votes = int(session.all_reduce_sum(
        np.array([1.0 if changed else 0.0], np.float32))[0])
    if 0 < votes < session.world_size:
        raise Error(
            "mp.keras.fit: %s changed on %d of %d ranks only (a callback "
            "that read a rank's own numbers?): the ranks would train "
            "different steps" % (what, votes, session.world_size))
    return votes == session.world_size


def _note_recompile(old, new, recompiles):
    """Says once per fit why the step is compiled again."""
    if recompiles == 0:
        warnings.warn(
            "mp.keras.fit: the learning rate changed from %r to %r during "
            "fit (a callback: LearningRateScheduler, ReduceLROnPlateau?); "
            "the step has a constant rate built in, so it is compiled again "
            "from the trained state at each change, as Keras' step reads the "
            "new rate (to train without recompiling, give the optimizer a "
            "keras.optimizers.schedules schedule)" % (old, new),
            stacklevel=3)


class _StateExchange:
    """The trained state between the session and the Keras model, as
    Keras' own step shares it with callbacks: written into the model's
    variables for callbacks that read them (write_back), and whatever a
    callback assigned since read into the session (read_changes: an
    annealed coefficient, weights a callback sets), each variable compared
    with the value it was last seen holding."""

    _ROLES = ("param", "buffer", "optimizer_state")

    def __init__(self, model, exporter):
        self._exporter = exporter
        self._pairs = exporter.state_variables(model, model.optimizer)
        self._known = {}
        self.remember()

    def remember(self):
        """The model's values now: what a step exported now starts from."""
        self._known = {name: self._exporter.read_variable(variable)
                       for name, variable, _ in self._pairs}

    @staticmethod
    def _same(a, b):
        """Bit for bit (a NaN is its own value; the integer view compares
        at array_equal's speed, where equal_nan costs five times that)."""
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.itemsize in (1, 2, 4, 8):
            kind = np.dtype("u%d" % a.dtype.itemsize)
            a = np.ascontiguousarray(a).view(kind)
            b = np.ascontiguousarray(b).view(kind)
        return np.array_equal(a, b)

    def _in(self, session, name):
        info = session.tensors.get(name)
        return info is not None and info.role in self._ROLES

    def write_back(self, session):
        # Straight from the session's memory into the Keras variables (a
        # checkpoint file written and parsed back cost 130-170 ms an epoch
        # on the bench's causal LM, 8% of a 6-batch epoch's steps). bf16
        # comes back widened; under data-parallel=zero1 a read gathers the
        # shards, a collective every rank makes in the same order.
        for name, variable, offset in self._pairs:
            if self._in(session, name):
                value = session.get(name)
                self._known[name] = self._exporter.assign_variable(
                    variable, value + offset if offset else value)

    def read_changes(self, session):
        """Sets into the session every variable a callback assigned since
        it was last written or read; returns how many."""
        changed = 0
        for name, variable, offset in self._pairs:
            now = self._exporter.read_variable(variable)
            if self._same(now, self._known[name]):
                continue
            if not self._in(session, name):
                # Not state of the step (none such is known today): its
                # value was built in, and a new one would be ignored.
                raise Error(
                    "mp.keras.fit: a callback assigned '%s', which the "
                    "compiled step holds as a constant; assign it before "
                    "fit" % name)
            session.set(name, now - offset if offset else now)
            self._known[name] = now
            changed += 1
        _changed_on_all_ranks(changed > 0, session,
                              "the model's variables were")
        return changed


def _logs_only_at_batches():
    """Keras' callbacks whose batch hooks read only the logs."""
    import keras
    cb = keras.callbacks
    return (cb.ProgbarLogger, cb.History, cb.TerminateOnNaN, cb.TensorBoard)


def _may_assign(callback):
    """Whether `callback` may assign the model's variables while it trains:
    any but Keras' own that only read them or the logs (the learning rate
    is followed apart, and EarlyStopping restores its best weights only
    when the training stops)."""
    import keras
    cb = keras.callbacks
    return not isinstance(callback, _logs_only_at_batches() + (
        cb.CSVLogger, cb.ModelCheckpoint, cb.EarlyStopping,
        cb.LearningRateScheduler, cb.ReduceLROnPlateau, cb.RemoteMonitor))


def _batch_level(callback):
    """Whether `callback` may read or assign the model's variables between
    batches (a batch hook of its own, or ModelCheckpoint / BackupAndRestore
    saving every few batches), beyond Keras' callbacks that read only the
    logs there."""
    import keras
    cb = keras.callbacks
    if isinstance(callback, _logs_only_at_batches()):
        return False
    if isinstance(callback, (cb.ModelCheckpoint, cb.BackupAndRestore)):
        return getattr(callback, "save_freq", "epoch") != "epoch"
    for hook in ("on_train_batch_begin", "on_train_batch_end",
                 "on_batch_begin", "on_batch_end"):
        own = getattr(callback, hook, None)
        if getattr(own, "__func__", own) is not getattr(cb.Callback, hook):
            return True
    return False


def _activated(predictions, activation):
    """The model's output from the predictions the loss reads: the logits
    before the softmax / sigmoid a from_logits=False loss looks through."""
    if activation == "Softmax":
        shifted = np.exp(predictions - predictions.max(axis=-1, keepdims=True))
        return shifted / shifted.sum(axis=-1, keepdims=True)
    if activation == "Sigmoid":
        return 1.0 / (1.0 + np.exp(-predictions))
    return predictions


def _metric_results(metrics, session):
    """The compiled metrics' results, of the whole job's batches: on several
    ranks each rank's metric totals (Keras' metric variables: totals,
    counts, confusion counts, all sums) are summed over the ranks for the
    result, then each rank's own are put back."""
    if session.world_size == 1:
        return {name: float(value)
                for name, value in metrics.result().items()}
    variables = metrics.variables
    local = [np.asarray(v.numpy()) for v in variables]
    total = session.all_reduce_sum(np.concatenate(
        [np.ravel(value).astype(np.float32) for value in local])
        if local else np.zeros(0, np.float32))
    offset = 0
    for variable, value in zip(variables, local):
        variable.assign(total[offset:offset + value.size].reshape(
            value.shape).astype(value.dtype))
        offset += value.size
    results = {name: float(value)
               for name, value in metrics.result().items()}
    for variable, value in zip(variables, local):
        variable.assign(value)
    return results


def fit(model, x=None, y=None, batch_size=None, epochs=1, verbose="auto",
        callbacks=None, validation_data=None, shuffle=True, initial_epoch=0,
        steps_per_epoch=None, policy="auto", backend=None,
        compile_options="", work_dir=None, seed=None):
    """Trains the compiled Keras `model` with mp: model.fit's arguments
    (x, y as numpy arrays with batch_size, or x a tf.data.Dataset of
    (x, y) batches, or a generator with steps_per_epoch), plus `policy`
    ("auto" by default: mp.auto_policy()), `backend` and `compile_options`
    as mp.torch.compile takes them. Returns Keras' History. Every batch
    has the first batch's shape: a partial batch is a DataError (batch the
    dataset with drop_remainder=True)."""
    import keras
    import mp_export.keras as exporter

    if getattr(model, "optimizer", None) is None or \
            getattr(model, "loss", None) is None:
        raise Error("mp.keras.fit: compile the model first "
                    "(model.compile(optimizer=..., loss=...))")
    policy, reason = resolve_policy(policy, backend, "mp.keras.fit")
    example, epoch_batches, batches = _source(x, y, batch_size, shuffle,
                                              seed, steps_per_epoch)
    # The compiled metrics (accuracy, ...) of the training batches, as
    # Keras' fit reports them: the step returns the predictions the loss
    # reads, and Keras' own metric objects take them. A model trained on
    # one of several outputs gets none (its metrics are per output).
    metrics = getattr(model, "_compile_metrics", None)
    if isinstance(model.loss, (list, tuple, dict)):
        metrics = None
    given_dir = work_dir

    def compiled():
        """(work_dir, remove, session) of the model's step as it is now."""
        return compile_step(
            "mp.keras.fit", model,
            lambda out: exporter.export(model, example[0], example[1], out,
                                        "step",
                                        predictions=metrics is not None),
            given_dir, policy, backend, compile_options)
    # The step has the optimizer's constant learning rate built in, where
    # Keras' step reads its variable at every step: a callback that sets it
    # (LearningRateScheduler, ReduceLROnPlateau) is followed by compiling
    # the step again from the model's trained state (below).
    baked_lr = _constant_learning_rate(model.optimizer)
    work_dir, remove, session = compiled()
    activation = None
    if metrics is not None:
        with open(os.path.join(work_dir, "step.manifest.json")) as f:
            activation = json.load(f).get("predictions_activation")
    shapes = [session.tensors[n].shape for n in session.inputs +
              session.labels]
    from_cache = session.from_cache
    report = report_of(session, policy, reason)

    state = _StateExchange(model, exporter)
    # Callbacks that read or assign variables between batches get the
    # state exchanged around every batch; the others at every epoch's end
    # (written) and next start (read).
    every_batch = any(_batch_level(c) for c in callbacks or [])
    every_epoch = any(_may_assign(c) for c in callbacks or [])

    def write_back():
        state.write_back(session)

    # Under mpirun, a data-parallel step's ranks each train on their part
    # of every global batch; rank 0 alone shows progress.
    rank, ranks = session.rank, session.world_size
    steps = batches(ranks)
    if ranks > 1 and steps == 0:
        raise DataError(
            "mp.keras.fit: %d samples make no global batch of %d ranks x "
            "batch_size %d" % (len(x), ranks, batch_size))
    verbose = 1 if verbose == "auto" else int(verbose)
    if rank != 0:
        verbose = 0
    callbacks = keras.callbacks.CallbackList(
        callbacks, add_history=True, add_progbar=verbose != 0, model=model,
        verbose=verbose, epochs=epochs, steps=steps)
    model.stop_training = False
    recompiles = 0
    try:
        callbacks.on_train_begin()
        logs = {}
        for epoch in range(initial_epoch, epochs):
            callbacks.on_epoch_begin(epoch)
            if metrics is not None:
                metrics.reset_state()
            losses = []
            for index, (xb, yb) in enumerate(epoch_batches(epoch, rank,
                                                           ranks)):
                for name, value, shape in zip(("x", "y"), (xb, yb), shapes):
                    if tuple(np.shape(value)) != tuple(shape):
                        raise DataError(
                            "mp.keras.fit: batch %d of epoch %d has %s %s, "
                            "the step was compiled for %s (the first "
                            "batch's): a last partial batch? Batch the "
                            "dataset with drop_remainder=True" % (
                                index, epoch + 1, name,
                                list(np.shape(value)), list(shape)))
                callbacks.on_train_batch_begin(index)
                if (index == 0 and every_epoch) or every_batch:
                    state.read_changes(session)
                lr = _constant_learning_rate(model.optimizer)
                if _changed_on_all_ranks(lr != baked_lr, session):
                    # As the end of one fit and the start of another:
                    # the trained state into the model, the step
                    # exported from it with the new rate.
                    _note_recompile(baked_lr, lr, recompiles)
                    write_back()
                    # The loss scaler's state is mp's own, not the
                    # model's: carried into the new session as it is.
                    scaler = {name: session.get(name)
                              for name, info in session.tensors.items()
                              if info.role == "scaler_state"}
                    session.close()
                    if remove:
                        shutil.rmtree(work_dir, ignore_errors=True)
                    work_dir, remove, session = None, False, None
                    work_dir, remove, session = compiled()
                    for name, value in scaler.items():
                        session.set(name, value)
                    state.remember()
                    baked_lr = lr
                    recompiles += 1
                losses.append(session.step(xb, yb))
                logs = {"loss": float(np.mean(losses))}
                if metrics is not None:
                    metrics.update_state(yb, _activated(
                        session.get("predictions"), activation))
                    logs.update(_metric_results(metrics, session))
                if every_batch:
                    write_back()
                callbacks.on_train_batch_end(index, logs)
                if model.stop_training:  # as Keras' fit: the epoch ends
                    break
            if not losses:
                raise DataError("mp.keras.fit: epoch %d had no batches"
                                % (epoch + 1))
            if every_batch:  # what the last batch's callbacks assigned
                state.read_changes(session)
            write_back()
            if validation_data is not None:
                if hasattr(validation_data, "element_spec"):
                    val = model.evaluate(validation_data, verbose=0,
                                         return_dict=True)
                else:
                    vx, vy = validation_data[:2]
                    val = model.evaluate(vx, vy, batch_size=batch_size,
                                         verbose=0, return_dict=True)
                logs.update({"val_" + k: float(v) for k, v in val.items()})
            callbacks.on_epoch_end(epoch, logs)
            if model.stop_training:
                break
        callbacks.on_train_end(logs)
    finally:
        if session is not None:
            session.close()
        if remove:
            shutil.rmtree(work_dir, ignore_errors=True)
    history = model.history
    history.mp_policy, history.mp_policy_reason = policy, reason
    history.mp_from_cache = from_cache
    # Times the step was compiled again for a learning rate set during fit.
    history.mp_recompiles = recompiles
    history.mp_report = report  # the precision report, a dict
    return history
