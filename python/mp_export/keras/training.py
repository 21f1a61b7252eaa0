"""The loss, the optimizer, its learning-rate schedule and gradient clipping
of a compiled Keras 3 model, read from the Keras objects (class and
config), not traced: each becomes the step's own ops with Keras' formulas.

Losses map to the train dialect's loss ops (f64 sums, fp32 islands).
Optimizers are Keras 3's update rules as elementwise ops on a
train.gradient marker (their order of operations is Keras', so a float32
step follows Keras' own to rounding): clipping, then weight decay
p -= p * wd * lr, then the update, with the learning rate of the step's
counter (Keras' `iterations`, the steps done before this one).
"""
import keras

from ..vocabulary import DecayShape
from ..common import OPT_STATE, OUTPUT, PARAM
from ..common import Attr, ExportError, lr_schedule, step_counter as _step_counter


def _refuse(kind, what, why, todo):
    return ExportError("Keras", kind, what, why, todo)


# --- losses --------------------------------------------------------------------
_LOSS_FUNCTIONS = {
    "sparse_categorical_crossentropy": "SparseCategoricalCrossentropy",
    "categorical_crossentropy": "CategoricalCrossentropy",
    "binary_crossentropy": "BinaryCrossentropy",
    "mean_squared_error": "MeanSquaredError",
    "huber": "Huber",
}


class LossSpec:
    """A Keras loss as the train op that computes it: `kind`, its options,
    and the activation its `from_logits=False` form expects the model to end
    in (Keras takes the logits from before that softmax / sigmoid)."""

    def __init__(self, kind, config):
        self.kind, self.config = kind, config
        self.from_logits = bool(config.get("from_logits", True))
        self.activation = {"SparseCategoricalCrossentropy": "Softmax",
                           "CategoricalCrossentropy": "Softmax",
                           "BinaryCrossentropy": "Sigmoid"}.get(kind) \
            if not self.from_logits else None


def single_loss(loss, model):
    """(the one loss, the index of the output it trains or None) of a
    compiled loss: a multi-output model compiled with one loss per output,
    all None but one (keras.io's miniature GPT: [SparseCategoricalCrossentropy,
    None]), trains that output alone, as Keras does; a loss weight on it
    other than 1 is refused (it scales the loss)."""
    if not isinstance(loss, (list, tuple, dict)):
        return loss, None
    outputs = list(getattr(model, "output_names", None) or [])
    if isinstance(loss, dict):
        unknown = [k for k in loss if k not in outputs]
        if unknown:
            raise _refuse("dict", "the compiled loss", "a loss for '%s', which is not one "
                          "of the model's outputs %s" % (unknown[0], outputs),
                          "Key the losses by output name.")
        entries = [(outputs.index(k), v) for k, v in loss.items()]
    else:
        entries = list(enumerate(loss))
    used = [(i, v) for i, v in entries if v is not None]
    if len(used) != 1:
        raise _refuse(type(loss).__name__, "the compiled loss",
                      "%d losses (a multi-output model trained on several outputs)" %
                      len(used),
                      "Export a model with one loss: None for the other outputs.")
    index, chosen = used[0]
    weights = getattr(getattr(model, "_compile_loss", None), "_user_loss_weights", None)
    if weights is not None:
        weight = weights.get(outputs[index]) if isinstance(weights, dict) else \
            weights[index] if isinstance(weights, (list, tuple)) else weights
        if weight is not None and float(weight) != 1.0:
            raise _refuse("loss_weights", "the compiled loss",
                          "a loss weight of %g on output %d" % (float(weight), index),
                          "Compile without loss_weights (or 1.0).")
    return chosen, index


def loss_spec(loss):
    """The LossSpec of a compiled loss: a keras.losses object, a loss
    function, or its name."""
    where = "the compiled loss"
    if isinstance(loss, (list, tuple, dict)):
        raise _refuse(type(loss).__name__, where, "several losses (a multi-output model)",
                      "Export a model with one output and one loss.")
    if isinstance(loss, str):
        loss = keras.losses.get(loss)
    if isinstance(loss, keras.losses.Loss):
        kind = type(loss).__name__
        config = dict(getattr(loss, "_fn_kwargs", {}) or {})
        config.update(loss.get_config())
    else:
        kind = _LOSS_FUNCTIONS.get(getattr(loss, "__name__", ""))
        config = {"reduction": "sum_over_batch_size", "from_logits": False}
        if kind is None:
            raise _refuse(getattr(loss, "__name__", type(loss).__name__), where,
                          "a loss the exporter does not know (it maps Keras' own losses "
                          "to train ops rather than tracing them)",
                          "Use SparseCategoricalCrossentropy, CategoricalCrossentropy, "
                          "BinaryCrossentropy, MeanSquaredError or Huber.")
    if kind not in _LOSS_FUNCTIONS.values():
        raise _refuse(kind, where, "no mapping for this loss",
                      "Use SparseCategoricalCrossentropy, CategoricalCrossentropy, "
                      "BinaryCrossentropy, MeanSquaredError or Huber.")
    if config.get("reduction", "sum_over_batch_size") != "sum_over_batch_size":
        raise _refuse(kind, where, "reduction '%s'" % config.get("reduction"),
                      "Use the default reduction ('sum_over_batch_size').")
    if config.get("ignore_class") is not None:
        raise _refuse(kind, where, "ignore_class (Keras divides by the whole batch, "
                      "the train op by the samples kept)", "Use ignore_class=None.")
    if config.get("axis", -1) != -1:
        raise _refuse(kind, where, "axis %s" % config.get("axis"), "Use axis=-1.")
    return LossSpec(kind, config)


def _same_but_trailing_one(a, b):
    """a and b differ only by a trailing dim of 1 on one of them."""
    return (len(a) + 1 == len(b) and b[-1] == 1 and a == b[:-1]) or \
        (len(b) + 1 == len(a) and a[-1] == 1 and b == a[:-1])


def emit_loss(b, spec, pred, labels):
    """(the mean loss Value, a function seed -> d loss / d pred)."""
    kind, shape = spec.kind, pred.shape
    smoothing = float(spec.config.get("label_smoothing", 0.0) or 0.0)

    def fill(v, s=shape):
        return b.op("train.fill", [], [(s, "f32")], {"value": float(v)})

    if kind == "SparseCategoricalCrossentropy":
        if len(labels.shape) == len(shape):
            labels = b.op("train.reshape", [labels], [(labels.shape[:-1], labels.elem)])
        if tuple(labels.shape) != tuple(shape[:-1]):
            raise _refuse(kind, "the labels", "labels of shape %s for predictions %s" % (
                labels.shape, shape), "Give one class id per prediction row.")
        # [B, T, ..., C] predictions (a language model's [B, T] labels): the
        # mean over every position, Keras' sum_over_batch_size, is the mean
        # over the rows of [B * T * ..., C].
        rows = 1
        for d in shape[:-1]:
            rows *= d
        flat = (rows, shape[-1])
        logits = pred if len(shape) == 2 else b.op("train.reshape", [pred],
                                                   [(flat, pred.elem)])
        ids = labels if len(labels.shape) == 1 else b.op("train.reshape", [labels],
                                                         [((rows,), labels.elem)])
        loss = b.op("train.sparse_cross_entropy", [logits, ids], [((), "f32")],
                    comment="loss: Keras SparseCategoricalCrossentropy")

        def grad(seed):
            g = b.op("train.sparse_cross_entropy_grad", [logits, ids, seed],
                     [(flat, pred.elem)])
            return g if len(shape) == 2 else b.op("train.reshape", [g], [(shape, pred.elem)])
        return loss, grad
    if kind in ("MeanSquaredError", "Huber"):
        name = "train.mse_loss" if kind == "MeanSquaredError" else "train.huber_loss"
        props = {} if kind == "MeanSquaredError" else {"delta": float(spec.config["delta"])}
        if labels.shape != shape:
            labels = b.op("train.reshape", [labels], [(shape, labels.elem)])
        loss = b.op(name, [pred, labels], [((), "f32")], props,
                    comment="loss: Keras %s" % kind)
        return loss, lambda seed: b.op(name + "_grad", [pred, labels, seed],
                                       [(shape, pred.elem)], props)
    if _same_but_trailing_one(tuple(labels.shape), tuple(shape)):
        # Keras' squeeze_or_expand_to_same_rank: [B] labels of [B, 1]
        # predictions (a Dense(1) classifier) are [B, 1].
        labels = b.op("train.reshape", [labels], [(shape, labels.elem)])
    if labels.shape != shape:
        raise _refuse(kind, "the labels", "labels of shape %s for predictions %s" % (
            labels.shape, shape), "Give one-hot (or per-output) float labels.")
    if kind == "BinaryCrossentropy":
        if smoothing:
            labels = b.op("train.add", [b.op("train.mul", [labels, fill(1 - smoothing)],
                                             [(shape, "f32")]), fill(0.5 * smoothing)],
                          [(shape, "f32")])
        loss = b.op("train.bce_with_logits_loss", [pred, labels], [((), "f32")],
                    comment="loss: Keras BinaryCrossentropy")
        return loss, lambda seed: b.op("train.bce_with_logits_loss_grad",
                                       [pred, labels, seed], [(shape, pred.elem)])
    # CategoricalCrossentropy: mean over the batch of -sum(y' log_softmax(z)),
    # y' = y (1 - s) + s / C; its gradient (softmax(z) - y') / batch, as
    # TensorFlow's SoftmaxCrossEntropyWithLogits.
    classes, rows = shape[-1], shape[:-1]
    if smoothing:
        labels = b.op("train.add", [b.op("train.mul", [labels, fill(1 - smoothing)],
                                         [(shape, "f32")]), fill(smoothing / classes)],
                      [(shape, "f32")])
    axis = len(shape) - 1
    logp = b.op("train.log_softmax", [pred], [(shape, "f32")], {"axis": axis},
                comment="loss: Keras CategoricalCrossentropy")
    per_row = b.op("train.reduce_sum", [b.op("train.mul", [labels, logp], [(shape, "f32")])],
                   [(rows, "f32")], {"dims": [axis]})
    loss = b.op("train.neg", [b.op("train.reduce_mean", [per_row], [((), "f32")],
                                   {"dims": list(range(len(rows)))})], [((), "f32")])
    count = 1
    for d in rows:
        count *= d

    def grad(seed):
        p = b.op("train.softmax", [pred], [(shape, "f32")], {"axis": axis})
        diff = b.op("train.sub", [p, labels], [(shape, "f32")])
        scale = b.op("train.mul", [seed, b.op("train.fill", [], [((), "f32")],
                                              {"value": 1.0 / count})], [((), "f32")])
        return b.op("train.mul", [diff, b.op("train.broadcast", [scale], [(shape, "f32")],
                                             {"dims": []})], [(shape, "f32")])
    return loss, grad


# --- learning-rate schedules -----------------------------------------------------
_SCHEDULES = ("ExponentialDecay", "CosineDecay", "PolynomialDecay")
_SCHEDULE_TODO = ("Use ExponentialDecay, CosineDecay (with or without warm-up) or "
                  "PolynomialDecay(power=1).")

def learning_rate(b, optimizer):
    """The step's learning rate: a 0-d Value (train.lr_schedule of the step
    counter for a schedule, a constant otherwise)."""
    lr = optimizer._learning_rate
    name = type(optimizer).__name__
    if not isinstance(lr, keras.optimizers.schedules.LearningRateSchedule):
        return b.op("train.fill", [], [((), "f32")],
                    {"value": float(keras.ops.convert_to_numpy(optimizer.learning_rate))})
    kind = type(lr).__name__
    where = "the learning-rate schedule of %s" % name
    c = lr.get_config() if kind in _SCHEDULES else {}
    if kind == "ExponentialDecay":
        base = float(c["initial_learning_rate"])
        if c["staircase"]:
            props = {"decay": "step", "decay_steps": int(c["decay_steps"]),
                     "gamma": float(c["decay_rate"])}
        else:
            props = {"decay": "exponential",
                     "gamma": float(c["decay_rate"]) ** (1.0 / float(c["decay_steps"]))}
    elif kind == "CosineDecay":
        target = c.get("warmup_target")
        props = {"decay": "cosine", "decay_steps": int(c["decay_steps"]),
                 "end_factor": float(c["alpha"])}
        base = float(c["initial_learning_rate"])
        if target is not None and int(c.get("warmup_steps", 0)):
            props.update(warmup="linear", warmup_steps=int(c["warmup_steps"]),
                         warmup_start_factor=base / float(target))
            base = float(target)
    elif kind == "PolynomialDecay":
        if float(c["power"]) != 1.0 or c["cycle"]:
            raise _refuse(kind, where, "a power other than 1 or cycle=True",
                          "Use PolynomialDecay(power=1.0, cycle=False) (a linear decay).")
        base = float(c["initial_learning_rate"])
        props = {"decay": "linear", "decay_steps": int(c["decay_steps"]),
                 "end_factor": float(c["end_learning_rate"]) / base}
    else:
        raise _refuse(kind, where, "a schedule whose formula the exporter does not know "
                      "(it reads Keras' own schedules' configs)", _SCHEDULE_TODO)
    return lr_schedule(b, base, props, "%s: the learning rate of this step" % kind)


def _power_of_step(b, beta):
    """beta ^ (iterations + 1) in double, rounded to f32 once."""
    counter, _ = _step_counter(b)
    return b.op("train.lr_schedule", [counter], [((), "f32")],
                {"base_lr": float(beta), "gamma": float(beta), "decay": Attr("%d : i64" % DecayShape.exponential)},
                comment="%g ^ (step + 1)" % beta)


# --- the optimizer -----------------------------------------------------------------
_OPTIMIZERS = ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad")


def check_optimizer(optimizer):
    name = type(optimizer).__name__
    where = "the compiled optimizer"
    if name == "LossScaleOptimizer":
        raise _refuse(name, where, "Keras' loss scaling (mp-compile's policy does it)",
                      "Compile the model with the plain optimizer; mixed_float16 in "
                      "mp-compile adds dynamic loss scaling.")
    if name not in _OPTIMIZERS:
        raise _refuse(name, where, "no mapping for this optimizer",
                      "Use keras.optimizers.SGD (momentum, nesterov), Adam, AdamW, "
                      "RMSprop or Adagrad.")
    lr = optimizer._learning_rate
    if isinstance(lr, keras.optimizers.schedules.LearningRateSchedule) and \
            type(lr).__name__ not in _SCHEDULES:
        raise _refuse(type(lr).__name__, "the learning-rate schedule of %s" % name,
                      "a schedule whose formula the exporter does not know (it reads "
                      "Keras' own schedules' configs)", _SCHEDULE_TODO)
    c = optimizer.get_config()
    for key, why in (("use_ema", "an exponential moving average of the weights"),
                     ("gradient_accumulation_steps", "gradient accumulation"),
                     ("loss_scale_factor", "a fixed loss scale factor"),
                     ("amsgrad", "amsgrad"), ("centered", "centered RMSprop")):
        if c.get(key):
            raise _refuse(name, where, "%s (%s=%r)" % (why, key, c[key]),
                          "Leave %s at its default." % key)


class Grad:
    """A gradient Value and, for an embedding table's, its rows (values,
    ids): Keras' optimizers get such a gradient as tf.IndexedSlices and
    square and clip each row, repeated ids apart, before summing them
    (clipnorm and clipvalue keep the rows; global_clipnorm returns the
    gradient dense: `densified`)."""

    def __init__(self, b, dense, rows=None):
        self.b, self.dense, self.rows = b, dense, rows

    def map_rows(self, fn):
        """The gradient with fn applied to each row (sparse) or to all."""
        if self.rows is None:
            return Grad(self.b, fn(self.dense))
        values, ids = self.rows
        values = fn(values)
        return Grad(self.b, self.b.op("train.embedding_grad", [values, ids],
                                      [(self.dense.shape, self.dense.elem)]), (values, ids))

    def densified(self, fn):
        """fn of the dense gradient (repeated ids summed), as a dense
        Grad: what TensorFlow's tf.convert_to_tensor makes of an
        IndexedSlices before a dense op."""
        return Grad(self.b, fn(self.dense))

    def square(self):
        """g * g, or the sum of each row's square for an IndexedSlices one."""
        b = self.b
        return self.map_rows(lambda v: b.op("train.mul", [v, v], [(v.shape, v.elem)])).dense

    def sum_sq(self):
        """The sum of the squares of the rows as they are (an IndexedSlices
        one's repeated ids apart), or of the dense gradient."""
        v = self.dense if self.rows is None else self.rows[0]
        sq = self.b.op("train.mul", [v, v], [(v.shape, v.elem)])
        return self.b.op("train.reduce_sum", [sq], [((), "f32")],
                         {"dims": list(range(len(v.shape)))}) if v.shape else sq


def mark(b, grads, names):
    """Each gradient through train.gradient (an embedding table's rows, for
    an IndexedSlices one): where loss scaling unscales and checks; the
    clipping and the update come after it."""
    out = []
    for g, name in zip(grads, names):
        comment = "the gradient of '%s'; Keras' update follows as elementwise ops" % name
        if g.rows is None:
            out.append(Grad(b, b.op("train.gradient", [g.dense], [(g.dense.shape, g.dense.elem)],
                                    comment=comment)))
        else:
            values, ids = g.rows
            marked = b.op("train.gradient", [values], [(values.shape, values.elem)],
                          comment=comment + " (its rows: IndexedSlices)")
            out.append(Grad(b, b.op("train.embedding_grad", [marked, ids],
                                    [(g.dense.shape, g.dense.elem)]), (marked, ids)))
    return out


def _times(b, v, s):
    """v * s for a 0-d s."""
    return b.op("train.mul", [v, b.op("train.broadcast", [s], [(v.shape, "f32")], {"dims": []})
                              if v.shape else s], [(v.shape, v.elem)])


def _over(b, v, s):
    """v / s for a 0-d s."""
    return b.op("train.div", [v, b.op("train.broadcast", [s], [(v.shape, "f32")], {"dims": []})
                              if v.shape else s], [(v.shape, v.elem)])


def clip(b, optimizer, grads):
    """Keras' clipnorm (each gradient), global_clipnorm or clipvalue, on
    marked Grads; returns (Grads, outputs). Keras clips only with a limit
    above 0 (BaseOptimizer._clip_gradients); one of the three at most.

    An embedding table's gradient (IndexedSlices, Grad.rows): tf.clip_by_norm
    and tf.clip_by_value act on its rows and keep them; Keras' own
    clip_by_global_norm counts the rows' squares as they are in the norm but
    returns `rows * scale` dense (IndexedSlices has no __mul__: TensorFlow
    sums the repeated ids, then scales), so the optimizer squares the sum."""
    c = optimizer.get_config()

    def scalar(v):
        return b.op("train.fill", [], [((), "f32")], {"value": float(v)})

    def limit_of(key):
        value = c.get(key)
        return float(value) if value is not None and float(value) > 0 else None
    limit = limit_of("clipnorm")
    if limit is not None:
        out = []
        for g in grads:
            # tf.clip_by_norm: (g * clipnorm) / max(|g|, clipnorm); |g| = 0
            # stays 0.
            norm = b.op("train.sqrt", [g.sum_sq()], [((), "f32")])
            den = b.op("train.maximum", [norm, scalar(limit)], [((), "f32")])
            out.append(g.map_rows(lambda v, den=den: _over(b, _times(b, v, scalar(limit)), den)))
        return out, []
    limit = limit_of("global_clipnorm")
    if limit is not None:
        total = grads[0].sum_sq()
        for g in grads[1:]:
            total = b.op("train.add", [total, g.sum_sq()], [((), "f32")])
        norm = b.op("train.sqrt", [total], [((), "f32")])
        # clip_norm * min(1 / norm, 1 / clip_norm) + (norm - norm): Keras'
        # clip_by_global_norm (NaN for a norm that is not finite).
        inv = b.op("train.div", [scalar(1.0), norm], [((), "f32")])
        scale = b.op("train.mul", [scalar(limit), b.op("train.minimum", [inv, scalar(1.0 / limit)],
                                                       [((), "f32")])], [((), "f32")])
        scale = b.op("train.add", [scale, b.op("train.sub", [norm, norm], [((), "f32")])],
                     [((), "f32")])
        return [g.densified(lambda v: _times(b, v, scale)) for g in grads], \
            [(norm, OUTPUT, "grad_norm")]
    limit = limit_of("clipvalue")
    if limit is not None:
        return [g.map_rows(lambda v: b.op("train.clip_grad_value", [v], [(v.shape, v.elem)],
                                          {"clip_value": limit})) for g in grads], []
    return grads, []


def update(b, optimizer, variables, params, grads, slot_name):
    """The optimizer's update of each (variable, param Value, grad Value):
    [(new Value, role, name)]."""
    name = type(optimizer).__name__
    c = optimizer.get_config()
    lr = learning_rate(b, optimizer)
    results = []
    for var, p, grad in zip(variables, params, grads):
        shape, elem = p.shape, p.elem
        g = grad.dense

        def op(kind, *operands):
            return b.op("train." + kind, list(operands), [(shape, elem)])

        def const(v):
            return b.op("train.fill", [], [(shape, elem)], {"value": float(v)})

        def wide(s):
            return b.op("train.broadcast", [s], [(shape, elem)], {"dims": []}) if shape else s

        def state(key):
            return b.arg(shape, elem, OPT_STATE, slot_name(var, key))
        g2 = grad.square()
        rate = wide(lr)
        if c.get("weight_decay") and optimizer._use_weight_decay(var):
            p = op("sub", p, op("mul", op("mul", p, const(c["weight_decay"])), rate))
        if name == "SGD" and float(c["momentum"]) == 0.0:
            results.append((op("sub", p, op("mul", g, rate)), PARAM, var.path))
        elif name == "SGD":
            m = state("momentum")
            mu = const(c["momentum"])
            new_m = op("sub", op("mul", m, mu), op("mul", g, rate))
            step = op("sub", op("mul", new_m, mu), op("mul", g, rate)) if c["nesterov"] \
                else new_m
            results += [(op("add", p, step), PARAM, var.path),
                        (new_m, OPT_STATE, slot_name(var, "momentum"))]
        elif name in ("Adam", "AdamW"):
            m, v = state("momentum"), state("velocity")
            b1, b2 = float(c["beta_1"]), float(c["beta_2"])
            one = b.op("train.fill", [], [((), "f32")], {"value": 1.0})
            p1, p2 = _power_of_step(b, b1), _power_of_step(b, b2)
            # alpha = lr * sqrt(1 - b2^t) / (1 - b1^t)
            alpha = b.op("train.div", [
                b.op("train.mul", [lr, b.op("train.sqrt", [b.op("train.sub", [one, p2],
                                                                 [((), "f32")])],
                                            [((), "f32")])], [((), "f32")]),
                b.op("train.sub", [one, p1], [((), "f32")])], [((), "f32")])
            new_m = op("add", m, op("mul", op("sub", g, m), const(1 - b1)))
            new_v = op("add", v, op("mul", op("sub", g2, v), const(1 - b2)))
            delta = op("div", op("mul", new_m, wide(alpha)),
                       op("add", op("sqrt", new_v), const(c["epsilon"])))
            results += [(op("sub", p, delta), PARAM, var.path),
                        (new_m, OPT_STATE, slot_name(var, "momentum")),
                        (new_v, OPT_STATE, slot_name(var, "velocity"))]
        elif name == "RMSprop":
            v = state("velocity")
            rho = float(c["rho"])
            new_v = op("add", op("mul", const(rho), v), op("mul", const(1 - rho), g2))
            inc = op("div", op("mul", rate, g), op("sqrt", op("add", new_v, const(c["epsilon"]))))
            if float(c["momentum"]) > 0:
                mom = state("momentum")
                new_mom = op("add", op("mul", const(c["momentum"]), mom), inc)
                results += [(op("sub", p, new_mom), PARAM, var.path),
                            (new_mom, OPT_STATE, slot_name(var, "momentum"))]
            else:
                results.append((op("sub", p, inc), PARAM, var.path))
            results.append((new_v, OPT_STATE, slot_name(var, "velocity")))
        else:  # Adagrad
            # The state starts at zero (mp-run's optimizer state does): it
            # holds Keras' accumulator less initial_accumulator_value.
            acc = state("accumulator")
            new_acc = op("add", acc, g2)
            full = op("add", new_acc, const(c["initial_accumulator_value"]))
            delta = op("div", op("mul", rate, g), op("sqrt", op("add", full,
                                                               const(c["epsilon"]))))
            results += [(op("sub", p, delta), PARAM, var.path),
                        (new_acc, OPT_STATE, slot_name(var, "accumulator"))]
    return results


SLOTS = {"SGD": ("momentum",), "Adam": ("momentum", "velocity"),
         "AdamW": ("momentum", "velocity"), "RMSprop": ("velocity", "momentum"),
         "Adagrad": ("accumulator",)}


def slot_variables(optimizer, var):
    """{slot key: the optimizer's Keras variable} for model variable var."""
    i = optimizer._get_variable_index(var)
    lists = {"momentum": "momentums" if type(optimizer).__name__ == "SGD" else "_momentums", "velocity": "_velocities",
             "accumulator": "_accumulators"}
    out = {}
    for key in SLOTS[type(optimizer).__name__]:
        attr = getattr(optimizer, lists[key], None)
        if attr and attr[i] is not None:
            out[key] = attr[i]
    if type(optimizer).__name__ == "SGD" and not optimizer.momentum:
        out.pop("momentum", None)
    if type(optimizer).__name__ == "RMSprop" and not optimizer.momentum:
        out.pop("momentum", None)
    return out
