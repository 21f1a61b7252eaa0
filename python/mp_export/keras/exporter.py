"""Keras 3 (TensorFlow backend) -> train dialect.

`export(model, x, y, out, stem)` exports the training step of a compiled
Keras model — what `model.fit` runs per batch: the forward pass with
training=True, the compiled loss plus `model.losses` (regularizers and
`add_loss` terms), their gradient, the optimizer's clipping, weight decay
and update with its learning-rate schedule.

- The forward and backward passes are traced: a `tf.function` runs the
  model under a GradientTape and asks for the gradient of the predictions
  (and of each `model.losses` term) with respect to the trainable
  variables, given as placeholders; its concrete graph is mapped op by op
  (keras/mapper.py). Keras' own assignments in the forward pass (batch-norm
  moving statistics) become updated buffers; RNN layers are traced unrolled.
- The loss and the optimizer are read from their Keras objects
  (keras/training.py): the loss becomes the train loss op on the model's
  predictions (the logits before a final softmax / sigmoid, as Keras takes
  them), and its gradient the placeholder's value.

Names are the Keras variable paths (`sequential/fc1/kernel`); optimizer
slots `<path>/momentum`, `<path>/velocity`, `<path>/accumulator`; the step
counter (Keras' `iterations`) is `step`.
"""
import os
import traceback as _tb

import numpy as np
import tensorflow as tf
import keras

from . import training
from ..common import BUFFER, INPUT, LABEL, LOSS, OPT_STATE, OUTPUT, PARAM
from ..common import (ExportError, StepBuilder, read_safetensors, step_counter as _step_counter,
                     write_export)
from .mapper import Mapper, _Resource

# The exporter's own files (all of mp_export): a frame inside them is
# not the user's.
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_FRAMEWORK_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (tf, keras)) + (_HERE,)


def _user_frame(op):
    """The innermost frame of the op's creation traceback that is the
    user's code inside the export (a custom layer's call): (file, line,
    text) or None."""
    frames = list(getattr(op, "traceback", None) or [])
    paths = [os.path.abspath(f.filename if hasattr(f, "filename") else f[0]) for f in frames]
    inside = [i for i, p in enumerate(paths) if p.startswith(_HERE)]
    found = None
    for i in range(inside[-1] + 1 if inside else len(frames), len(frames)):
        frame, apath = frames[i], paths[i]
        if apath.startswith(_FRAMEWORK_DIRS) or "site-packages" in apath or \
                "<frozen" in apath:
            continue
        rel = os.path.relpath(apath)
        found = (rel if not rel.startswith("..") else apath,
                 int(frame.lineno if hasattr(frame, "lineno") else frame[1]),
                 (getattr(frame, "line", None) or "").strip())
    return found


def _forward_op(graph, op):
    """A gradient op's forward op ('gradient_tape/a/b/MatMul/MatMul_1' ->
    'a/b/MatMul'), or the op itself."""
    if not op.name.startswith("gradient_tape/"):
        return op
    parts = op.name.split("/")[1:]
    for n in range(len(parts) - 1, 0, -1):
        try:
            return graph.get_operation_by_name("/".join(parts[:n]))
        except (KeyError, ValueError):
            continue
    return op


def _seed_states(model):
    """The state variables of the model's SeedGenerators (dropout's)."""
    out = {}
    for layer in model._flatten_layers():
        for value in list(vars(layer).values()):
            if isinstance(value, keras.random.SeedGenerator):
                out[id(value.state.value.handle)] = value.state
    return out


def _check_model(model, spec_loss, trains_one_output=False):
    where = "the model"
    if type(model).train_step is not keras.Model.train_step:
        raise ExportError("Keras", type(model).__name__ + ".train_step", where,
                          "a custom train_step (its logic would not be part of the export)",
                          "Use the default train_step; put the logic in the model's layers "
                          "or in a compiled loss.")
    for cls in type(model).__mro__:
        if cls is keras.Model:
            break
        if "compute_loss" in vars(cls):
            raise ExportError("Keras", cls.__name__ + ".compute_loss", where,
                              "a custom compute_loss", "Use the compiled loss.")
    policy = keras.config.dtype_policy().name
    for layer in model._flatten_layers():
        # Keras' own dtype policy names (its float32 is the same word as ours).
        name = getattr(layer.dtype_policy, "name", "float32")
        if getattr(layer.dtype_policy, "name", "float32") != "float32":
            raise ExportError("Keras", type(layer).__name__, "layer '%s'" % layer.name,
                              "dtype policy '%s' (global '%s')" % (name, policy),
                              "Export the float32 model: mp-compile's --mixed-precision "
                              "policy chooses the 16-bit types.")
    for v in model.trainable_variables:
        if getattr(v, "constraint", None) is not None:
            raise ExportError("Keras", type(v.constraint).__name__, "variable '%s'" % v.path,
                              "a weight constraint (applied after each update; no train op)",
                              "Remove the constraint.")
    if len(model.outputs if hasattr(model, "_outputs") and model._outputs else [0]) > 1 \
            and not trains_one_output:
        raise ExportError("Keras", "outputs", where, "several outputs under one loss",
                          "Export a model with one output, or compile one loss per "
                          "output with None for all but the one trained.")


class _Unrolled:
    """RNN layers traced unrolled (a While loop has no mapping)."""

    def __init__(self, model):
        self.layers = [l for l in model._flatten_layers() if hasattr(l, "unroll")
                       and isinstance(l, keras.layers.RNN)]

    def __enter__(self):
        self.saved = [l.unroll for l in self.layers]
        for l in self.layers:
            l.unroll = True

    def __exit__(self, *exc):
        for l, u in zip(self.layers, self.saved):
            l.unroll = u


def _elem(dtype, what):
    dtype = tf.as_dtype(dtype)
    table = {tf.float32: "f32", tf.int32: "i32", tf.int64: "i64", tf.float64: "f32"}
    if dtype not in table:
        raise ExportError("Keras", what, "the %s" % what, "dtype %s" % dtype.name,
                          "Feed float32 inputs or integer token ids.")
    return table[dtype]


def slot_name(var, key):
    return "%s/%s" % (var.path, key)


def export(model, example_x, example_y, out_dir, stem, optimizer=None, loss=None,
           description="", predictions=False):
    """Exports the training step of `model` (compiled, or given `optimizer`
    and `loss`) for batches shaped like example_x / example_y. With
    `predictions`, the step also returns the predictions the loss reads as
    the output `predictions` (the logits where the loss applies a softmax or
    sigmoid: the manifest's "predictions_activation"), for the training
    metrics. Writes OUT/STEM.{mlir,init.safetensors,manifest.json}; returns
    the paths."""
    optimizer = optimizer or getattr(model, "optimizer", None)
    loss = loss or getattr(model, "loss", None)
    if optimizer is None or loss is None:
        raise ExportError("Keras", "compile", "the model", "no optimizer or loss",
                          "Call model.compile(optimizer=..., loss=...) or pass them.")
    loss, output_index = training.single_loss(loss, model)
    spec = training.loss_spec(loss)

    def trained_output(out):
        """The output the loss trains (of a multi-output model's)."""
        return out if output_index is None else out[output_index]
    training.check_optimizer(optimizer)
    x_np, y_np = np.asarray(example_x), np.asarray(example_y)
    x_dtype = tf.float32 if x_np.dtype == np.float64 else tf.as_dtype(x_np.dtype)
    # Keras casts y_true to the predictions' type for every loss but the
    # sparse cross-entropy's class ids: integer labels of a binary
    # cross-entropy are a float32 label input (mp-run converts integer data).
    y_dtype = tf.float32 if y_np.dtype.kind == "f" or \
        spec.kind != "SparseCategoricalCrossentropy" else tf.as_dtype(y_np.dtype)
    if not model.built:
        model(tf.constant(x_np[:1], dtype=x_dtype))
    _check_model(model, spec, output_index is not None)
    if not optimizer.built:
        optimizer.build(model.trainable_variables)
    trainable = list(model.trainable_variables)
    # The predictions' shape (inference mode: no state changes).
    pred_shape = tuple(trained_output(model(tf.constant(x_np, dtype=x_dtype),
                                            training=False)).shape)

    cf = _trace_step(model, spec, trained_output, trainable, x_np, x_dtype, pred_shape)
    graph = cf.graph
    n_regs = len(cf.outputs) - 1 - len(trainable)

    builder = StepBuilder()

    def locate(op):
        if op.graph is not graph:
            return builder.loc  # inside a called function: the call's line
        frame = _user_frame(_forward_op(graph, op))
        return frame[:2] if frame else None
    mapper = Mapper(builder, locate)
    captured = {internal.name: external for external, internal in graph.captures}
    inputs = [t for t in graph.inputs if t.name not in captured]
    x_arg = builder.arg(tuple(x_np.shape), _elem(x_dtype, "input"), INPUT)
    y_arg = builder.arg(tuple(y_np.shape), _elem(y_dtype, "label"), LABEL)
    mapper.env[inputs[0].name] = x_arg

    init, buffers, params = _bind_state(builder, mapper, graph, captured, model, trainable)
    by_path = {v.path: v for v in trainable}
    outs = []
    for t in cf.outputs:
        while t.op.type == "Identity":
            t = t.op.inputs[0]
        outs.append(t)
    pred_t, reg_ts, grad_ts = outs[0], outs[1:1 + n_regs], outs[1 + n_regs:]
    total = {}

    def loss_and_seed():
        if not total:
            pred = mapper.get(pred_t)
            builder.loc = None
            value, grad_of = training.emit_loss(builder, spec, pred, y_arg)
            for r in reg_ts:
                reg = mapper.val(r)
                value = builder.op("train.add", [value, reg], [((), "f32")],
                                   comment="plus model.losses (regularizers)")
            seed = builder.op("train.grad_seed", [value], [((), "f32")],
                              comment="backward: d loss / d loss")
            total.update(loss=value, seed=seed, d_pred=grad_of(seed), pred=pred)
        return total
    mapper.lazy[inputs[1].name] = lambda: loss_and_seed()["d_pred"]
    mapper.lazy[inputs[2].name] = lambda: loss_and_seed()["seed"]

    _map_graph(mapper, graph, [o.op for o in outs], model)
    grads = [training.Grad(builder, mapper.val(g)) for g in grad_ts]
    for g in grads:
        g.rows = mapper.sparse.get(g.dense.name)
    state = loss_and_seed()
    builder.loc = None
    builder.result(state["loss"], LOSS)
    grads = training.mark(builder, grads, [v.path for v in params])
    grads, outputs = training.clip(builder, optimizer, grads)
    if predictions:
        outputs.append((state["pred"], OUTPUT, "predictions"))
    updates = training.update(builder, optimizer, [by_path[v.path] for v in params],
                              [mapper.state[v.path] for v in params], grads, slot_name)
    # Keras' iterations, always: a checkpoint resumes Keras' optimizer.
    updates.append((_step_counter(builder)[1], OPT_STATE, "step"))
    _emit_results(builder, mapper, outputs, updates, buffers)
    if getattr(builder, "dropout_key", None) is not None:
        # The Philox key of the step's dropout masks: from the first Keras
        # seed generator's state, so a seeded export is reproducible.
        states = list(_seed_states(model).values())
        seed = int(keras.ops.convert_to_numpy(states[0]).ravel()[0]) if states else 0
        init["dropout.key"] = np.array(seed & (2**63 - 1), dtype=np.int64)

    init.update(_optimizer_state(builder, model, optimizer))
    manifest, header = _manifest(model, optimizer, spec, x_np, description)
    if predictions:
        manifest["predictions_activation"] = spec.activation
    return write_export(out_dir, stem, builder, header, init, manifest)


def _optimizer_state(builder, model, optimizer):
    """An optimizer that has stepped already (a second fit(), a model
    trained a while): its slots and iterations, so the step goes on as
    Keras' next step would (learning-rate schedules from its iteration);
    a slot the step does not hold is refused, never dropped."""
    if int(keras.ops.convert_to_numpy(optimizer.iterations)) == 0:
        return {}
    declared = {name: value for value, role, name in builder.args if role == OPT_STATE}
    state = {}
    for name, value in state_tensors(model, optimizer).items():
        if name in declared:
            state[name] = value.astype(np.int64 if declared[name].elem == "i64"
                                       else np.float32)
    for name in _slots(model, optimizer):
        if name not in declared:
            raise ExportError("Keras", type(optimizer).__name__, "slot '%s'" % name,
                              "the optimizer has stepped already and holds this slot, "
                              "which the exported step does not carry",
                              "Export before training, with a fresh optimizer.")
    return state


def _trace_step(model, spec, trained_output, trainable, x_np, x_dtype, pred_shape):
    """The step's forward and backward passes traced once as a tf.function's
    concrete graph: inputs x, the predictions' gradient and the
    regularizers' seed; outputs the predictions (the loss's input: its
    logits where the loss applies an activation), the regularizers and the
    gradients. A failure in the user's or Keras' code is an ExportError at
    the user's line."""
    def predictions(out):
        if spec.activation is None:
            return out
        logits = getattr(out, "_keras_logits", None)
        if logits is not None:
            return logits
        if out.op.type != spec.activation:
            raise ExportError("Keras", spec.kind, "the compiled loss",
                              "from_logits=False on predictions that are not a %s's "
                              "(produced by %s)" % (spec.activation.lower(), out.op.type),
                              "End the model in a %s activation or use from_logits=True."
                              % spec.activation.lower())
        return out.op.inputs[0]

    @tf.function(autograph=False)
    def passes(x, d_pred, seed):
        with tf.GradientTape() as tape:
            pred = predictions(trained_output(model(x, training=True)))
            regs = [tf.reduce_sum(tf.cast(l, tf.float32)) for l in model.losses]
        grads = tape.gradient([pred] + regs, [v.value for v in trainable],
                              output_gradients=[d_pred] + [seed] * len(regs))
        missing = [v.path for v, g in zip(trainable, grads) if g is None]
        if missing:
            raise ExportError("Keras", "gradient", "variable '%s'" % missing[0],
                              "a trainable variable the loss does not depend on",
                              "Freeze it (trainable=False) or use it.")
        return [pred] + regs + [tf.convert_to_tensor(g) for g in grads]

    with _Unrolled(model):
        try:
            cf = passes.get_concrete_function(
                tf.TensorSpec(x_np.shape, x_dtype, name="x"),
                tf.TensorSpec(pred_shape, tf.float32, name="d_pred"),
                tf.TensorSpec((), tf.float32, name="seed"))
        except ExportError:
            raise
        except Exception as e:  # noqa: BLE001 - tracing failed in user or Keras code
            frames = [f for f in _tb.extract_tb(e.__traceback__)
                      if not os.path.abspath(f.filename).startswith(_FRAMEWORK_DIRS)]
            where = "%s:%d" % (frames[-1].filename, frames[-1].lineno) if frames else \
                "the model's call"
            raise ExportError("Keras", "trace", where, "tracing the step failed (%s: %s)" % (
                type(e).__name__, str(e).splitlines()[0] if str(e) else ""),
                "Make the model run under tf.function with static shapes.") from e
    return cf


def _bind_state(builder, mapper, graph, captured, model, trainable):
    """The graph's captured variables as the step's params and buffers (the
    seed generators' states as seeds): (initial values, buffers, params in
    the gradients' order)."""
    roles = {id(v.value.handle): (PARAM, v) for v in trainable}
    seeds = _seed_states(model)
    for v in model.non_trainable_variables:
        h = id(v.value.handle)
        if h in seeds:
            roles[h] = ("seed", v)
        elif h not in roles:
            roles[h] = (BUFFER, v)
    init, buffers, params = {}, [], []
    for op in graph.get_operations():
        if op.type != "Placeholder" or op.outputs[0].name not in captured:
            continue
        t = op.outputs[0]
        ext = captured[t.name]
        role = roles.get(id(ext))
        if role is None:
            raise ExportError("TensorFlow", "capture", "'%s'" % t.name,
                              "the step captures a tensor or variable that is not the "
                              "model's", "Keep the step's state in the model's variables.")
        kind, var = role
        mapper.env[t.name] = _Resource(kind, var.path, var)
        if kind == "seed":
            continue
        if var.dtype != "float32":
            raise ExportError("Keras", "variable", "'%s'" % var.path,
                              "a %s variable" % var.dtype, "Keep the model's state float32.")
        value = builder.arg(tuple(var.shape), "f32", kind, var.path)
        mapper.state[var.path] = value
        init[var.path] = keras.ops.convert_to_numpy(var).astype(np.float32)
        (params if kind == PARAM else buffers).append(var)
    # The params in the order of the gradients (the trainable variables').
    captured_paths = {v.path for v in params}
    params = [v for v in trainable if v.path in captured_paths]
    return init, buffers, params



def _map_graph(mapper, graph, sinks, model):
    """Maps every op the step's outputs and Keras' assignments need, in
    graph order; an op the mapper refuses is named at the user's line."""
    sinks = sinks + [op for op in graph.get_operations() if op.type.startswith("Assign")]
    needed, stack = set(), list(sinks)
    while stack:
        op = stack.pop()
        if op.name in needed:
            continue
        needed.add(op.name)
        stack.extend(i.op for i in op.inputs)
        stack.extend(op.control_inputs)
    with _Unrolled(model):
        for op in graph.get_operations():
            if op.name not in needed or op.type in ("Placeholder", "NoOp"):
                continue
            try:
                mapper.map_op(op)
            except ExportError as e:
                frame = _user_frame(_forward_op(graph, op))
                if frame:
                    e.where += " at %s:%d" % frame[:2] + (" (%s)" % frame[2] if frame[2] else "")
                    e.args = ("%s op '%s' at %s: %s. %s" % (e.framework, e.op, e.where,
                                                            e.why, e.todo),)
                raise
            except Exception as e:  # noqa: BLE001 - a bug or an unforeseen graph
                raise ExportError("TensorFlow", op.type, "node '%s'" % op.name,
                                  "the exporter failed on it (%s: %s)" % (type(e).__name__, e),
                                  "Report this model; it is not exported.") from e


def _emit_results(builder, mapper, outputs, updates, buffers):
    """The step's results in the plan's order: the clipping's outputs, the
    params' updates, the buffers (updated, or frozen where the step only
    reads them), the optimizer's state."""
    for value, role, name in outputs:
        builder.result(value, role, name)
    for value, role, name in updates:
        if role == PARAM:
            builder.result(value, role, name)
    for var in buffers:
        if var.path in mapper.updated:
            builder.result(mapper.updated[var.path], BUFFER, var.path)
        else:
            builder.freeze(mapper.state[var.path])
    for value, role, name in updates:
        if role == OPT_STATE:
            builder.result(value, role, name)


def _manifest(model, optimizer, spec, x_np, description):
    """The export's manifest and the MLIR file's header."""
    c = optimizer.get_config()
    manifest = {"framework": "keras", "framework_version": keras.__version__,
                "tensorflow_version": tf.__version__, "model": model.name,
                "optimizer": {"class": type(optimizer).__name__,
                              "config": {k: v for k, v in c.items()
                                         if isinstance(v, (int, float, str, bool))}},
                "loss": {"class": spec.kind, "config": {k: v for k, v in spec.config.items()
                                                        if isinstance(v, (int, float, str, bool))}},
                "batch": int(x_np.shape[0]),
                "names": "Keras variable paths; optimizer slots '<path>/<slot>'; "
                         "Keras' iterations is 'step'",
                "accumulator_convention": "Adagrad's '<path>/accumulator' holds Keras' "
                                          "accumulator less initial_accumulator_value"}
    header = ("Exported by python/mp_export from Keras %s on TensorFlow %s.\n%s\n"
              "model %s, optimizer %s, loss %s, batch %d" % (
                  keras.__version__, tf.__version__, description, model.name,
                  type(optimizer).__name__, spec.kind, x_np.shape[0]))
    return manifest, header


def _slots(model, optimizer):
    if optimizer is None or not optimizer.built:
        return {}
    out = {}
    for v in model.trainable_variables:
        for key, slot in training.slot_variables(optimizer, v).items():
            out[slot_name(v, key)] = (slot, key)
    return out


def state_variables(model, optimizer=None):
    """[(name, Keras variable, offset)]: the names the export gives the
    model's (and optimizer's) state, each with the variable that holds it
    and what the variable holds beyond mp's value (Adagrad's accumulator
    starts at initial_accumulator_value, mp's at zero); the step counter
    is ("step", optimizer.iterations, 0). Seed generators are not state."""
    seeds = _seed_states(model)
    out = [(v.path, v, 0.0) for v in model.variables
           if id(v.value.handle) not in seeds]
    offset = 0.0
    if optimizer is not None and type(optimizer).__name__ == "Adagrad":
        offset = float(optimizer.initial_accumulator_value)
    for name, (slot, key) in _slots(model, optimizer).items():
        out.append((name, slot, offset if key == "accumulator" else 0.0))
    if optimizer is not None:
        out.append(("step", optimizer.iterations, 0))
    return out


def state_tensors(model, optimizer=None):
    """The model's (and optimizer's) state as numpy arrays under the names
    the export gives them: what an mp-run checkpoint of the same training
    holds (seed generators aside)."""
    out = {}
    for name, variable, offset in state_variables(model, optimizer):
        value = keras.ops.convert_to_numpy(variable).copy()
        out[name] = value - offset if offset else value
    if "step" in out:
        out["step"] = np.array(int(out["step"]), np.int64)
    return out


def load_checkpoint(model, path, optimizer=None):
    """Loads an mp-run checkpoint (or any safetensors file with Keras
    variable paths) into `model` (and the optimizer's slots and iterations,
    when given and built); returns the variable paths not in the file."""
    tensors, _ = read_safetensors(path)
    return assign_state(model, tensors, optimizer, source=path)


def read_variable(variable):
    """The variable's value as a new numpy array, through TensorFlow's read
    op (a third of keras.ops.convert_to_numpy's time on a small LM's 112
    variables)."""
    tf_variable = variable.value
    return tf.raw_ops.ReadVariableOp(resource=tf_variable.handle,
                                     dtype=tf_variable.dtype).numpy()


def assign_variable(variable, value):
    """variable.assign(value); through TensorFlow's assign op directly when
    the numpy value already has the variable's dtype and shape: Keras'
    assign converts and checks at about 0.4 ms a variable (43 ms for the
    112 of the bench's causal LM and its AdamW slots), the op alone takes
    about a fifth of that. Returns the value the variable holds: `value`
    itself, or read back where Keras converted it."""
    value = np.asarray(value)
    if value.dtype.name == variable.dtype and \
            tuple(value.shape) == tuple(variable.shape):
        tf.raw_ops.AssignVariableOp(resource=variable.value.handle,
                                    value=value)
        return value
    variable.assign(value)
    return read_variable(variable)


def assign_state(model, tensors, optimizer=None, source="the state"):
    """Assigns `tensors` (a mapping of the export's names, as
    state_tensors gives them, to numpy arrays: `in` and `[]` are all it
    needs, so values can be read on demand) to the model's variables (and
    the optimizer's slots and iterations, when given and built); returns
    the variable paths not in it. `source` names the mapping in errors."""
    seeds = _seed_states(model)
    missing = []
    variables = [v for v in model.variables if id(v.value.handle) not in seeds]
    for v in variables:
        if v.path in tensors:
            value = tensors[v.path]
            if tuple(value.shape) != tuple(v.shape):
                raise ValueError("'%s' has shape %s in %s but %s in the model" % (
                    v.path, value.shape, source, tuple(v.shape)))
            assign_variable(v, value)
        else:
            missing.append(v.path)
    if variables and len(missing) == len(variables):
        raise ValueError("%s has none of the model's variable paths (%s, ...): "
                         "a checkpoint of another model?" % (source, missing[0]))
    offset = 0.0
    if optimizer is not None and type(optimizer).__name__ == "Adagrad":
        offset = float(optimizer.initial_accumulator_value)
    for name, (slot, key) in _slots(model, optimizer).items():
        if name in tensors:
            value = tensors[name]
            assign_variable(slot, value + offset if key == "accumulator" else value)
    if optimizer is not None and "step" in tensors:
        optimizer.iterations.assign(int(tensors["step"]))
    return missing
