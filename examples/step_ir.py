"""The IR emitter and the training-step signature behind the
example steps (generate.py, causal_lm.py) and the bench graphs
(bench/gen_models.py, bench/gen_graph.py); the layers are in
step_layers.py.

Standard library only.
"""

import math

# ===----------------------------------------------------------------------===
# A tiny IR emitter
# ===----------------------------------------------------------------------===


def tensor_type(shape, dtype="f32"):
    """tensor<2x3xf32>, or tensor<f32> for a 0-d tensor."""
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{dtype}>"


def fmt_float(v):
    """An MLIR float literal that parses back to the same double."""
    s = repr(float(v))
    mantissa, _, exponent = s.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


def fmt_attr(value):
    if isinstance(value, float):
        return f"{fmt_float(value)} : f64"
    if isinstance(value, int):
        return f"{value} : i64"
    if isinstance(value, (list, tuple)):
        return "array<i64: " + ", ".join(str(v) for v in value) + ">"
    return str(value)  # already spelled out


def fmt_attr_dict(attrs):
    """{a = 1 : i64, unit_attr}; attributes set to None or False are left out
    (unit attributes are spelled with True)."""
    parts = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        parts.append(key if value is True else f"{key} = {fmt_attr(value)}")
    return " {" + ", ".join(parts) + "}" if parts else ""


class Value:
    """An SSA value: how to refer to it, and its static shape and dtype."""

    def __init__(self, ref, shape, dtype="f32"):
        self.ref = ref
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype)

    def __repr__(self):
        return f"{self.ref}: {self.type}"


def _check(cond, message):
    if not cond:
        raise ValueError(message)


class Emitter:
    """Writes one `train` op per line and allocates readable, unique SSA names
    from hints. Each op method computes its result shapes (so that a shape
    mistake fails here, in Python) and spells the op exactly as its
    assemblyFormat in TrainOps.td does."""

    def __init__(self):
        self.lines = []
        self.used = set()
        self.num_ops = 0
        self.flattened = {}  # ref -> its flatten_2d reshape

    # -- names, comments -----------------------------------------------------

    def fresh(self, hint):
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
        if not base or base[0].isdigit():
            base = "v" + base
        name, i = base, 1
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return "%" + name

    def section(self, title):
        if self.lines:
            self.lines.append("")
        self.lines.append(f"  // ===== {title} =====")

    def comment(self, text):
        self.lines.append(f"  // {text}")

    # -- the generic op writer -------------------------------------------------

    def op(self, hint, mnemonic, text, results):
        """Writes `%hint = train.<mnemonic> <text>`; `results` is a list of
        (shape, dtype). Returns one Value, or a list for several results."""
        name = self.fresh(hint)
        lhs = name if len(results) == 1 else f"{name}:{len(results)}"
        self.lines.append(f"  {lhs} = train.{mnemonic} {text}")
        self.num_ops += 1
        if len(results) == 1:
            return Value(name, *results[0])
        return [Value(f"{name}#{i}", *r) for i, r in enumerate(results)]

    @staticmethod
    def _refs(*values):
        return ", ".join(v.ref for v in values)

    # -- elementwise -----------------------------------------------------------

    def unary(self, mnemonic, x, hint, **attrs):
        return self.op(hint, mnemonic,
                       f"{x.ref}{fmt_attr_dict(attrs)} : {x.type}",
                       [(x.shape, x.dtype)])

    def binary(self, mnemonic, a, b, hint):
        _check(a.type == b.type, f"{mnemonic}: {a} vs {b}")
        return self.op(hint, mnemonic, f"{self._refs(a, b)} : {a.type}",
                       [(a.shape, a.dtype)])

    def add(self, a, b, hint):
        return self.binary("add", a, b, hint)

    def mul(self, a, b, hint):
        return self.binary("mul", a, b, hint)

    def relu(self, x, hint):
        return self.unary("relu", x, hint)

    def gelu(self, x, hint):
        return self.unary("gelu", x, hint)

    def activation_grad(self, mnemonic, grad, saved, hint, **attrs):
        _check(grad.type == saved.type, f"{mnemonic}: {grad} vs {saved}")
        return self.op(hint, mnemonic,
                       f"{self._refs(grad, saved)}{fmt_attr_dict(attrs)}"
                       f" : {grad.type}", [(grad.shape, grad.dtype)])

    def relu_grad(self, grad, x, hint):
        """grad * (x > 0); `x` is relu's forward input."""
        return self.activation_grad("relu_grad", grad, x, hint)

    def gelu_grad(self, grad, x, hint):
        """grad * gelu'(x); `x` is gelu's forward input."""
        return self.activation_grad("gelu_grad", grad, x, hint)

    # -- contractions ------------------------------------------------------------

    def matmul(self, a, b, hint, transpose_lhs=False, transpose_rhs=False):
        m, k = (a.shape[-1], a.shape[-2]) if transpose_lhs else a.shape[-2:]
        k2, n = (b.shape[-1], b.shape[-2]) if transpose_rhs else b.shape[-2:]
        _check(k == k2, f"matmul contracts {k} with {k2}: {a}, {b}")
        _check(len(b.shape) == 2 or b.shape[:-2] == a.shape[:-2],
               f"matmul batch dims: {a}, {b}")
        shape = a.shape[:-2] + (m, n)
        attrs = fmt_attr_dict({"transpose_lhs": transpose_lhs,
                               "transpose_rhs": transpose_rhs})
        return self.op(hint, "matmul",
                       f"{self._refs(a, b)}{attrs} : {a.type}, {b.type}"
                       f" -> {tensor_type(shape)}", [(shape, "f32")])

    def bias_add(self, x, bias, hint):
        """x + bias along the last dimension."""
        _check(bias.shape == x.shape[-1:], f"bias_add: {x}, {bias}")
        return self.op(hint, "bias_add",
                       f"{self._refs(x, bias)} : {x.type}, {bias.type}",
                       [(x.shape, x.dtype)])

    def _conv_text(self, a, b, result_shape, stride, pad, groups=1):
        attrs = fmt_attr_dict({
            "strides": None if stride == 1 else [stride, stride],
            "padding": None if pad == 0 else [pad] * 4,
            "groups": None if groups == 1 else groups})
        return (f"NCHW {self._refs(a, b)}{attrs} : {a.type}, {b.type}"
                f" -> {tensor_type(result_shape)}")

    @staticmethod
    def conv_output_shape(x_shape, w_shape, stride, pad, groups=1):
        n, c, h, w = x_shape
        o, i, kh, kw = w_shape
        _check(c == i * groups and o % groups == 0,
               f"conv2d: {c} input channels, filter wants {i} x {groups}")
        return (n, o, (h + 2 * pad - kh) // stride + 1,
                (w + 2 * pad - kw) // stride + 1)

    def conv2d(self, x, w, hint, stride=1, pad=0, groups=1):
        """NCHW input, OIHW filter ([O, C / groups, KH, KW]), symmetric
        padding."""
        shape = self.conv_output_shape(x.shape, w.shape, stride, pad, groups)
        return self.op(hint, "conv2d",
                       self._conv_text(x, w, shape, stride, pad, groups),
                       [(shape, "f32")])

    def conv2d_backward_data(self, dy, w, x_shape, hint, stride=1, pad=0,
                             groups=1):
        _check(self.conv_output_shape(x_shape, w.shape, stride, pad, groups)
               == dy.shape, "conv2d_backward_data shapes")
        return self.op(hint, "conv2d_backward_data",
                       self._conv_text(dy, w, x_shape, stride, pad, groups),
                       [(x_shape, "f32")])

    def conv2d_backward_filter(self, x, dy, w_shape, hint, stride=1, pad=0,
                               groups=1):
        _check(self.conv_output_shape(x.shape, w_shape, stride, pad, groups)
               == dy.shape, "conv2d_backward_filter shapes")
        return self.op(hint, "conv2d_backward_filter",
                       self._conv_text(x, dy, w_shape, stride, pad, groups),
                       [(w_shape, "f32")])

    # -- normalization -------------------------------------------------------------

    def batch_norm(self, x, scale, offset, running_mean, running_var, hint,
                   momentum=0.1, epsilon=1e-5):
        """Training form over NCHW channels. Returns [y, new_running_mean,
        new_running_var, saved_mean, saved_inv_std]."""
        c = (x.shape[1],)
        for v in (scale, offset, running_mean, running_var):
            _check(v.shape == c, f"batch_norm per-feature tensor {v}")
        attrs = fmt_attr_dict({
            "momentum": None if momentum == 0.1 else momentum,
            "epsilon": None if epsilon == 1e-5 else epsilon})
        return self.op(hint, "batch_norm",
                       f"{self._refs(x, scale, offset, running_mean, running_var)}"
                       f"{attrs} : {x.type}, {scale.type}",
                       [(x.shape, "f32")] + [(c, "f32")] * 4)

    def batch_norm_grad(self, dy, x, scale, saved_mean, saved_inv_std, hint):
        """Returns [grad_x, grad_scale, grad_offset]."""
        return self.op(hint, "batch_norm_grad",
                       f"{self._refs(dy, x, scale, saved_mean, saved_inv_std)}"
                       f" : {x.type}, {scale.type}",
                       [(x.shape, "f32"), (scale.shape, "f32"),
                        (scale.shape, "f32")])

    def layer_norm(self, x, scale, offset, hint):
        """Over the last dimension. Returns [y, mean, inv_std]."""
        _check(scale.shape == x.shape[-1:], f"layer_norm scale {scale}")
        stats = x.shape[:-1]
        return self.op(hint, "layer_norm",
                       f"{self._refs(x, scale, offset)} : {x.type},"
                       f" {scale.type} -> {tensor_type(stats)}",
                       [(x.shape, "f32"), (stats, "f32"), (stats, "f32")])

    def layer_norm_grad(self, dy, x, scale, mean, inv_std, hint):
        """Returns [grad_x, grad_scale, grad_offset]."""
        return self.op(hint, "layer_norm_grad",
                       f"{self._refs(dy, x, scale, mean, inv_std)} : {x.type},"
                       f" {scale.type}, {mean.type}",
                       [(x.shape, "f32"), (scale.shape, "f32"),
                        (scale.shape, "f32")])

    # -- softmax and losses ------------------------------------------------------------

    def softmax(self, x, hint):
        return self.unary("softmax", x, hint)

    def softmax_grad(self, grad, y, hint):
        """y * (grad - sum(grad * y)); `y` is softmax's output."""
        return self.activation_grad("softmax_grad", grad, y, hint)

    def sparse_cross_entropy(self, logits, labels, hint="loss"):
        return self.op(hint, "sparse_cross_entropy",
                       f"{self._refs(logits, labels)} : {logits.type},"
                       f" {labels.type} -> tensor<f32>", [((), "f32")])

    def sparse_cross_entropy_grad(self, logits, labels, seed, hint):
        return self.op(hint, "sparse_cross_entropy_grad",
                       f"{self._refs(logits, labels, seed)} : {logits.type},"
                       f" {labels.type}, {seed.type}", [(logits.shape, "f32")])

    def grad_seed(self, loss, hint="seed"):
        return self.op(hint, "grad_seed", f"{loss.ref} : {loss.type}",
                       [((), loss.dtype)])

    # -- reductions and pooling ----------------------------------------------------------

    def reduce(self, mnemonic, x, dims, hint):
        shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
        return self.op(hint, mnemonic,
                       f"{x.ref}{fmt_attr_dict({'dims': list(dims)})}"
                       f" : {x.type} -> {tensor_type(shape)}", [(shape, "f32")])

    def reduce_sum(self, x, dims, hint):
        return self.reduce("reduce_sum", x, dims, hint)

    def reduce_mean(self, x, dims, hint):
        return self.reduce("reduce_mean", x, dims, hint)

    def max_pool2d(self, x, k, hint):
        """k x k window, stride k, no padding."""
        n, c, h, w = x.shape
        shape = (n, c, h // k, w // k)
        attrs = fmt_attr_dict({"kernel": [k, k], "strides": [k, k]})
        return self.op(hint, "max_pool2d",
                       f"NCHW {x.ref}{attrs} : {x.type} -> {tensor_type(shape)}",
                       [(shape, "f32")])

    def max_pool2d_grad(self, grad, x, k, hint):
        attrs = fmt_attr_dict({"kernel": [k, k], "strides": [k, k]})
        return self.op(hint, "max_pool2d_grad",
                       f"NCHW {self._refs(grad, x)}{attrs} : {grad.type},"
                       f" {x.type}", [(x.shape, "f32")])

    def global_avg_pool2d(self, x, hint):
        shape = x.shape[:2]
        return self.op(hint, "global_avg_pool2d",
                       f"NCHW {x.ref} : {x.type} -> {tensor_type(shape)}",
                       [(shape, "f32")])

    def global_avg_pool2d_grad(self, grad, x_shape, hint):
        return self.op(hint, "global_avg_pool2d_grad",
                       f"NCHW {grad.ref} : {grad.type} -> {tensor_type(x_shape)}",
                       [(x_shape, "f32")])

    # -- shapes and constants ------------------------------------------------------------

    def reshape(self, x, shape, hint):
        _check(math.prod(shape) == math.prod(x.shape), f"reshape {x} {shape}")
        return self.op(hint, "reshape",
                       f"{x.ref} : {x.type} -> {tensor_type(shape, x.dtype)}",
                       [(shape, x.dtype)])

    def flatten_2d(self, x):
        """x viewed as [rows, last dim]; emitted once per value."""
        if len(x.shape) <= 2:
            return x
        if x.ref not in self.flattened:
            rows = math.prod(x.shape[:-1])
            self.flattened[x.ref] = self.reshape(
                x, (rows, x.shape[-1]), x.ref[1:].replace("#", "_") + "_2d")
        return self.flattened[x.ref]

    def transpose(self, x, perm, hint):
        shape = tuple(x.shape[p] for p in perm)
        return self.op(hint, "transpose",
                       f"{x.ref}{fmt_attr_dict({'permutation': list(perm)})}"
                       f" : {x.type} -> {tensor_type(shape, x.dtype)}",
                       [(shape, x.dtype)])

    def broadcast(self, x, dims, shape, hint):
        """Dimension i of x goes to dimension dims[i] of the result."""
        for i, d in enumerate(dims):
            _check(x.shape[i] in (1, shape[d]), f"broadcast {x} to {shape}")
        return self.op(hint, "broadcast",
                       f"{x.ref}{fmt_attr_dict({'dims': list(dims)})}"
                       f" : {x.type} -> {tensor_type(shape, x.dtype)}",
                       [(shape, x.dtype)])

    def fill(self, value, shape, hint, dtype="f32"):
        return self.op(hint, "fill",
                       f"{fmt_float(value)} : {tensor_type(shape, dtype)}",
                       [(shape, dtype)])

    def constant(self, dense, shape, dtype, hint):
        return self.op(hint, "constant",
                       f"dense<{dense}> : {tensor_type(shape, dtype)}",
                       [(shape, dtype)])

    # -- embeddings, dropout -------------------------------------------------------------

    def embedding(self, table, ids, hint):
        """Rows of the [V, D] table: ids [I...] -> [I..., D]."""
        shape = ids.shape + table.shape[1:]
        return self.op(hint, "embedding",
                       f"{self._refs(table, ids)} : {table.type}, {ids.type}"
                       f" -> {tensor_type(shape, table.dtype)}",
                       [(shape, table.dtype)])

    def embedding_grad(self, grad, ids, table_shape, hint):
        return self.op(hint, "embedding_grad",
                       f"{self._refs(grad, ids)} : {grad.type}, {ids.type}"
                       f" -> {tensor_type(table_shape)}", [(table_shape, "f32")])

    def dropout(self, x, key, counter, p, site, hint, grad=False):
        """train.dropout (or, with `grad`, its gradient: the same mask)."""
        attrs = fmt_attr_dict({"p": p, "site": site or None})
        return self.op(hint, "dropout_grad" if grad else "dropout",
                       f"{self._refs(x, key, counter)}{attrs} : {x.type},"
                       f" {key.type}, {counter.type}", [(x.shape, x.dtype)])

    # -- per-step state ---------------------------------------------------------------------

    def lr_schedule(self, step, hint, base_lr, warmup_steps, decay_steps,
                    end_factor, warmup="linear", decay="cosine"):
        """The rate after `step` steps: a warm-up, then a decay."""
        shapes = ("" if warmup == "linear" else f" warmup {warmup}") + \
            ("" if decay == "constant" else f" decay {decay}")
        attrs = fmt_attr_dict({"base_lr": base_lr,
                               "warmup_steps": warmup_steps,
                               "decay_steps": decay_steps,
                               "end_factor": end_factor})
        return self.op(hint, "lr_schedule",
                       f"{step.ref}{shapes}{attrs} : {step.type}",
                       [((), "f32")])

    def clip_grad_norm(self, grads, max_norm, hint):
        """Returns [clipped gradients..., total norm]."""
        return self.op(hint, "clip_grad_norm",
                       f"{self._refs(*grads)}"
                       f"{fmt_attr_dict({'max_norm': max_norm})}"
                       f" : {', '.join(g.type for g in grads)}",
                       [(g.shape, g.dtype) for g in grads] + [((), "f32")])

    # -- optimizers -----------------------------------------------------------------------

    def sgd(self, param, grad, hint, lr):
        _check(param.type == grad.type, f"sgd: {param} vs {grad}")
        return self.op(hint, "sgd",
                       f"{self._refs(param, grad)}{fmt_attr_dict({'lr': lr})}"
                       f" : {param.type}", [(param.shape, "f32")])

    def sgd_momentum(self, param, grad, buf, hint, lr, momentum):
        """Returns [new_param, new_momentum_buffer]."""
        _check(param.type == grad.type == buf.type, f"sgd_momentum {param}")
        attrs = fmt_attr_dict({"lr": lr, "momentum": momentum})
        return self.op(hint, "sgd_momentum",
                       f"{self._refs(param, grad, buf)}{attrs} : {param.type}",
                       [(param.shape, "f32")] * 2)

    def adamw(self, param, grad, exp_avg, exp_avg_sq, step, hint, lr,
              weight_decay, mnemonic="adamw"):
        """Returns [new_param, new_exp_avg, new_exp_avg_sq]; `lr` is a
        number (the attribute) or a Value (train.lr_schedule's result);
        `mnemonic` "adam" for Adam (L2 weight decay, default 0)."""
        _check(param.type == grad.type == exp_avg.type == exp_avg_sq.type,
               f"adamw {param}")
        operand = isinstance(lr, Value)
        rate = f" lr {lr.ref}" if operand else ""
        attrs = fmt_attr_dict({"lr": None if operand else lr,
                               "weight_decay": weight_decay})
        return self.op(hint, mnemonic,
                       f"{self._refs(param, grad, exp_avg, exp_avg_sq, step)}"
                       f"{rate}{attrs} : {param.type}, {step.type}",
                       [(param.shape, "f32")] * 3)


# ===----------------------------------------------------------------------===
# A training-step function: its signature (roles, names) and its body
# ===----------------------------------------------------------------------===


class TrainStep:
    """Collects arguments with their roles, the body, and the updated value
    of every persistent argument; renders `func.func @train_step`."""

    PERSISTENT = ("param", "opt_state", "buffer", "scaler_state")

    def __init__(self):
        self.e = Emitter()
        self.args = []      # (Value, role, name or None)
        self.updates = {}   # (role, name) -> Value
        self.loss = None
        self.frozen = set()  # refs of frozen buffer arguments
        self.outputs = []   # (Value, name): results after the loss

    def arg(self, hint, shape, role, name=None, dtype="f32"):
        _check(name is not None or role not in self.PERSISTENT,
               f"argument {hint}: persistent state needs a train.name")
        value = Value(self.e.fresh(hint), shape, dtype)
        self.args.append((value, role, name))
        return value

    def param(self, name, shape):
        return self.arg(name, shape, "param", name)

    def state(self, name, shape, dtype="f32", role="opt_state"):
        return self.arg(name, shape, role, name, dtype)

    def frozen_buffer(self, name, shape, dtype="f32"):
        """A buffer the step only reads (`train.frozen`): no result."""
        value = self.arg(name, shape, "buffer", name, dtype)
        self.frozen.add(value.ref)
        return value

    def output(self, name, value):
        """A result the step reports (`output`), logged by mp-run by name
        when it is a scalar."""
        self.outputs.append((value, name))

    def update(self, role, name, value):
        key = (role, name)
        _check(key not in self.updates, f"{key} updated twice")
        self.updates[key] = value

    @staticmethod
    def _role_attrs(role, name):
        attrs = f'train.role = "{role}"'
        return f'{{train.name = "{name}", {attrs}}}' if name else f"{{{attrs}}}"

    def render(self):
        _check(self.loss is not None and self.loss.type == "tensor<f32>",
               "the loss must be a tensor<f32>")
        results = [(self.loss, "loss", None)]
        results += [(v, "output", name) for v, name in self.outputs]
        for value, role, name in self.args:
            if value.ref in self.frozen:
                continue
            if role in self.PERSISTENT:
                new = self.updates.get((role, name))
                _check(new is not None, f"{role} '{name}' is never updated")
                _check(new.type == value.type, f"{role} '{name}' changes type")
                results.append((new, role, name))
        _check(len(results) == len(self.updates) + 1 + len(self.outputs),
               "stray update")

        def arg_attrs(v, role, name):
            attrs = self._role_attrs(role, name)
            return attrs[:-1] + ", train.frozen}" if v.ref in self.frozen \
                else attrs
        arg_lines = [f"    {v.ref}: {v.type} {arg_attrs(v, role, name)}"
                     for v, role, name in self.args]
        res_lines = [f"    {v.type} {self._role_attrs(role, name)}"
                     for v, role, name in results]
        out = ["func.func @train_step("]
        out.append(",\n".join(arg_lines) + ") -> (")
        out.append(",\n".join(res_lines) + ") attributes {train.step} {")
        out.extend(self.e.lines)
        out.append("")
        out.append("  // ===== results: loss, "
                   + ("outputs, " if self.outputs else "")
                   + "then every persistent argument's new value =====")
        refs = [v.ref for v, _, _ in results]
        types = [v.type for v, _, _ in results]
        out.append("  return " + _wrap(refs, "         "))
        out.append("      : " + _wrap(types, "        "))
        out.append("}")
        return "\n".join(out) + "\n"


def _wrap(items, indent, width=80):
    """Joins items with ', ', breaking lines before `width` columns."""
    lines, line = [], ""
    for item in items:
        piece = item if not line else ", " + item
        if line and len(indent) + len(line) + len(piece) > width:
            lines.append(line + ",")
            line = item
        else:
            line += piece
    lines.append(line)
    return ("\n" + indent).join(lines)
