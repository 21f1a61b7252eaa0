"""TensorFlow 2 / Keras -> train dialect.

The step is a `tf.function` (forward under a `GradientTape`, the tape's
gradient, a Keras optimizer's `apply_gradients`), taken as a concrete graph
with static shapes. Its raw ops are mapped one by one, each by its entry in
_GRAPH_OPS, _STATE_OPS or _TENSOR_OPS (docs/exporters.md sums them up):
variable reads become params (trainable variables), buffers (batch-norm
moving statistics) or optimizer state (slots); the optimizer's apply ops and
batch norm's AssignVariableOps become updated results with the variable's
name.

Shape arithmetic of the gradient graph (Shape, BroadcastGradientArgs, Prod,
...) is folded with numpy (_FOLD): every shape is static. The mean loss is
recognized as SparseSoftmaxCrossEntropyWithLogits -> Sum -> divide by the
batch size (Keras' SparseCategoricalCrossentropy(from_logits=True)), and
`tf.ones_like(loss)` (the tape's output gradient in `make_step`) is the seed.

Safetensors names are the Keras variable paths without ':0'
(`conv1/kernel`, `bn1/moving_mean`); optimizer slots are
`<variable>/momentum`. Keras' momentum slot holds -lr * (PyTorch's momentum
buffer): the exported state follows PyTorch (train.sgd_momentum), and
`load_checkpoint` converts back.
"""
import numpy as np
import tensorflow as tf

from .common import (NCHW, NHWC, ExportError, StepBuilder, read_safetensors,
                     write_export)


def variable_name(v):
    name = v.name
    return name[:-2] if name.endswith(":0") else name


SEED_NAME = "mp_grad_seed"


def make_step(model, optimizer, loss_fn=None):
    """The standard training step: what `export` traces."""
    loss_fn = loss_fn or tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables,
                              output_gradients=tf.ones_like(loss, name=SEED_NAME))
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


class _Pending:
    def __init__(self, kind, **fields):
        self.kind = kind
        self.__dict__.update(fields)


class _Resource:
    def __init__(self, kind, name=None, value=None, var=None):
        self.kind, self.name, self.value, self.var = kind, name, value, var


_ELEM = {tf.float32: "f32", tf.float16: "f16", tf.int64: "i64", tf.int32: "i32",
         tf.bool: "i1"}


def _same_pad(size, k, stride, dilation):
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


class _Mapper:
    def __init__(self, builder, batch):
        self.b = builder
        self.batch = batch
        self.env = {}
        self.state = {}       # variable name -> current Value
        self.updated = {}     # variable name -> (role, Value)
        self.op = None

    def err(self, why, todo):
        return ExportError("TensorFlow", self.op.type, "node '%s'" % self.op.name, why, todo)

    def get(self, t):
        value = self.env.get(t.name)
        if value is None:
            raise self.err("input '%s' was not mapped" % t.name, "Report this graph.")
        return value

    def val(self, t):
        value = self.get(t)
        if isinstance(value, np.ndarray):
            return self.const_value(value)
        if not hasattr(value, "shape") or isinstance(value, (_Pending, _Resource)):
            raise self.err("input '%s' is %s, used where a tensor is needed" % (
                t.name, getattr(value, "kind", type(value).__name__)),
                "Use Keras' SparseCategoricalCrossentropy(from_logits=True) and the "
                "standard step (mp_export.tf_export.make_step).")
        return value

    def const(self, t):
        value = self.get(t)
        if not isinstance(value, np.ndarray):
            raise self.err("input '%s' must be a compile-time constant" % t.name,
                           "Use static shapes and constant hyper-parameters.")
        return value

    def const_value(self, array):
        array = np.asarray(array)
        elem = {np.dtype("float32"): "f32", np.dtype("int64"): "i64",
                np.dtype("int32"): "i32"}.get(array.dtype)
        if elem is None:
            raise self.err("a constant of dtype %s" % array.dtype, "Use float32 constants.")
        if array.size and np.all(array == array.flat[0]):
            return self.b.op("train.fill", [], [(array.shape, elem)],
                             {"value": float(array.flat[0])})
        raise self.err("a non-uniform constant tensor", "Report this graph.")

    def out(self, shape=None, index=0):
        o = self.op.outputs[index]
        if o.dtype not in _ELEM:
            raise self.err("result dtype %s" % o.dtype.name, "Train in float32.")
        if shape is None:
            if not o.shape.is_fully_defined():
                raise self.err("a dynamic shape", "Export with static shapes.")
            shape = tuple(o.shape.as_list())
        return (tuple(shape), _ELEM[o.dtype])

    def broadcast_to(self, x, shape):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        offset = len(shape) - len(x.shape)
        keep = [i for i, d in enumerate(x.shape) if d == shape[offset + i]]
        if offset < 0 or any(d != 1 for i, d in enumerate(x.shape) if i not in keep):
            raise self.err("cannot broadcast %s to %s" % (x.shape, shape), "Report this graph.")
        if len(keep) != len(x.shape):
            x = self.b.op("train.reshape", [x], [(tuple(x.shape[i] for i in keep), x.elem)])
        return self.b.op("train.broadcast", [x], [(shape, x.elem)],
                         {"dims": [offset + i for i in keep]})

    def attr(self, name, default=None):
        try:
            value = self.op.get_attr(name)
        except ValueError:
            return default
        return value.decode() if isinstance(value, bytes) else value

    def layout(self):
        fmt = self.attr("data_format", "NHWC")
        if fmt not in ("NHWC", "NCHW"):
            raise self.err("data_format %s" % fmt, "Use NHWC or NCHW.")
        return fmt

    def conv_props(self, in_hw, k_hw):
        fmt = self.layout()
        strides = self.attr("strides")
        dil = self.attr("dilations", [1, 1, 1, 1])
        sh = [1, 2] if fmt == "NHWC" else [2, 3]
        s = [strides[i] for i in sh]
        d = [dil[i] for i in sh]
        pad = self.attr("padding")
        if pad == "VALID":
            padding = [0, 0, 0, 0]
        elif pad == "SAME":
            padding = list(_same_pad(in_hw[0], k_hw[0], s[0], d[0]) +
                           _same_pad(in_hw[1], k_hw[1], s[1], d[1]))
        elif pad == "EXPLICIT":
            ep = self.attr("explicit_paddings")
            padding = [ep[2 * sh[0]], ep[2 * sh[0] + 1], ep[2 * sh[1]], ep[2 * sh[1] + 1]]
        else:
            raise self.err("padding %s" % pad, "Use SAME or VALID.")
        return fmt, {"layout": NHWC if fmt == "NHWC" else NCHW, "strides": s,
                     "padding": padding, "dilations": d}

    def pool_props(self, x_shape):
        fmt = self.layout()
        sh = [1, 2] if fmt == "NHWC" else [2, 3]
        k = [self.attr("ksize")[i] for i in sh]
        s = [self.attr("strides")[i] for i in sh]
        pad = self.attr("padding")
        hw = [x_shape[i] for i in sh]
        padding = [0, 0, 0, 0] if pad == "VALID" else list(
            _same_pad(hw[0], k[0], s[0], 1) + _same_pad(hw[1], k[1], s[1], 1))
        return {"layout": NHWC if fmt == "NHWC" else NCHW, "kernel": k, "strides": s,
                "padding": padding}

    # --- the mapping -----------------------------------------------------
    def map_op(self, op):
        """Maps one graph op. First match wins: the backward pass's seed,
        _GRAPH_OPS, constant folding (_FOLD, all inputs constant),
        _STATE_OPS, the loss's way to the logits' gradient (map_pending),
        _TENSOR_OPS."""
        self.op = op
        t = op.type
        ins = list(op.inputs)
        names = [o.name for o in op.outputs]

        def put(value, i=0):
            self.env[names[i]] = value

        if t == "OnesLike" or op.name.split("/")[-1] == SEED_NAME:
            self.map_seed(ins, put)
        elif t in _GRAPH_OPS:
            _GRAPH_OPS[t](self, ins, put)
        elif all(isinstance(self.get(x), np.ndarray) for x in ins) and t in _FOLD:
            self.fold(ins, put)
        elif t in _STATE_OPS:
            _STATE_OPS[t](self, ins, put)
        elif any(isinstance(self.get(x), _Pending) and self.get(x).kind in
                 ("sce", "sce_sum", "seed", "sce_backprop") for x in ins):
            self.map_pending(t, ins, put)
        elif t in _TENSOR_OPS:
            _TENSOR_OPS[t](self, ins, put)
        else:
            raise self.err("no mapping to the train dialect",
                           "Rewrite that part of the model with supported layers "
                           "(docs/exporters.md lists them) or add a mapping in "
                           "python/mp_export/tf_export.py.")

    # --- handlers, the tables' values: (op inputs, put) where put(value, i)
    # sets output i of self.op -------------------------------------------
    def map_seed(self, ins, put):
        """tf.ones_like(loss, name=SEED_NAME), which TensorFlow folds to a
        Const for a static shape."""
        src = getattr(self, "loss", None)
        if src is None:
            raise self.err("the loss is not the batch mean of a sparse softmax "
                           "cross-entropy (mp's steps end in train.sparse_cross_entropy)",
                           "Use SparseCategoricalCrossentropy(from_logits=True).")
        if src.shape != () or (self.op.type == "OnesLike" and self.get(ins[0]) is not src):
            raise self.err("ones_like of something other than the loss",
                           "Only the seed of the backward pass maps.")
        put(_Pending("seed", value=self.b.op("train.grad_seed", [src], [((), src.elem)],
                                             comment="backward: d loss / d loss"),
                     scale=1.0, shape=()))

    def map_const(self, ins, put):
        put(tf.make_ndarray(self.op.get_attr("value")))

    def map_identity(self, ins, put):
        put(self.get(ins[0]))

    def map_identity_n(self, ins, put):
        for i, x in enumerate(ins):
            put(self.get(x), i)

    def map_shape(self, ins, put):
        for i, x in enumerate(ins):
            if not x.shape.is_fully_defined():
                raise self.err("a dynamic shape", "Export with static shapes.")
            put(np.array(x.shape.as_list(), dtype=self.op.outputs[i].dtype.as_numpy_dtype), i)

    def map_size(self, ins, put):
        shape = ins[0].shape.as_list()
        put(np.array(int(np.prod(shape)) if self.op.type == "Size" else len(shape),
                     dtype=self.op.outputs[0].dtype.as_numpy_dtype))

    def fold(self, ins, put):
        """An op of constants, evaluated with numpy."""
        values = _FOLD[self.op.type](self, [self.get(x) for x in ins])
        if not isinstance(values, (list, tuple)):
            values = [values]
        for i, v in enumerate(values):
            put(np.asarray(v, dtype=self.op.outputs[i].dtype.as_numpy_dtype))

    def map_read_variable(self, ins, put):
        res = self.get(ins[0])
        if res.kind == "hyper":
            put(np.asarray(res.value))
        elif res.kind == "iterations":
            raise self.err("the step reads the optimizer's step counter ('iterations', "
                           "e.g. for Adam's bias correction), which is not exported",
                           "Use tf.keras.optimizers.legacy.SGD (with or without "
                           "momentum); legacy Adam (ResourceApplyAdam) is not mapped.")
        else:
            put(self.state[res.name])

    def map_assign(self, ins, put):
        res = self.get(ins[0])
        value = self.get(ins[1])
        if res.kind != "buffer" or not isinstance(value, _Pending) or value.kind != "bn_stat":
            raise self.err("assignment to '%s'" % (res.name or res.kind),
                           "Only batch-norm moving statistics may be assigned in the step.")
        self.state[res.name] = value.value
        self.updated[res.name] = ("buffer", value.value)

    def map_assign_add(self, ins, put):
        res = self.get(ins[0])
        if res.kind != "iterations":
            raise self.err("assign-add to '%s'" % (res.name or res.kind),
                           "Only the optimizer's step counter may be incremented.")

    def map_sparse_softmax_ce(self, ins, put):
        logits, labels = self.val(ins[0]), self.val(ins[1])
        put(_Pending("sce", logits=logits, labels=labels, scale=1.0))
        put(_Pending("sce_backprop", logits=logits, labels=labels), 1)

    def map_matmul(self, ins, put):
        ta = self.attr("transpose_a", self.attr("adj_x", False))
        tb = self.attr("transpose_b", self.attr("adj_y", False))
        props = {}
        if ta:
            props["transpose_lhs"] = True
        if tb:
            props["transpose_rhs"] = True
        put(self.b.op("train.matmul", [self.val(ins[0]), self.val(ins[1])], [self.out()], props))

    def map_bias_add(self, ins, put):
        x = self.val(ins[0])
        props = {"dim": 1} if self.layout() == "NCHW" and len(x.shape) > 2 else {}
        put(self.b.op("train.bias_add", [x, self.val(ins[1])], [self.out()], props))

    def map_bias_add_grad(self, ins, put):
        g = self.val(ins[0])
        keep = 1 if self.layout() == "NCHW" and len(g.shape) > 2 else len(g.shape) - 1
        put(self.b.op("train.reduce_sum", [g], [self.out()],
                      {"dims": [d for d in range(len(g.shape)) if d != keep]}))

    def map_split(self, ins, put):
        x = self.val(ins[1])
        dim = int(self.const(ins[0])) % len(x.shape)
        start = 0
        for i in range(len(self.op.outputs)):
            shape = self.out(index=i)
            offsets = [0] * len(x.shape)
            offsets[dim] = start
            put(self.b.op("train.slice", [x], [shape], {"offsets": offsets}), i)
            start += shape[0][dim]

    def map_rsqrt_grad(self, ins, put):
        """RsqrtGrad(y, dy) = dy * -0.5 * y^3."""
        b = self.b
        y, dy = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        y2 = b.op("train.mul", [y, y], [shape])
        y3 = b.op("train.mul", [y2, y], [shape])
        minus_half = self.const_value(np.full(shape[0], -0.5, np.float32))
        scaled = b.op("train.mul", [y3, minus_half], [shape])
        put(b.op("train.mul", [dy, scaled], [shape]))

    def map_sqrt_grad(self, ins, put):
        """SqrtGrad(y, dy) = dy * 0.5 / y."""
        y, dy = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        half = self.const_value(np.full(shape[0], 0.5, np.float32))
        scaled = self.b.op("train.mul", [dy, half], [shape])
        put(self.b.op("train.div", [scaled, y], [shape]))

    def map_add_n(self, ins, put):
        shape = self.out()
        acc = self.broadcast_to(self.val(ins[0]), shape[0])
        for x in ins[1:]:
            acc = self.b.op("train.add", [acc, self.broadcast_to(self.val(x), shape[0])], [shape])
        put(acc)

    def map_concat(self, ins, put):
        parts = [self.val(p) for p in ins[:-1]]
        dim = int(self.const(ins[-1])) % len(parts[0].shape)
        put(self.b.op("train.concat", parts, [self.out()], {"dim": dim}))

    def map_square(self, ins, put):
        """Square(x) = x * x; SquaredDifference(x, y) = (x - y) * (x - y)."""
        shape = self.out()
        d = self.broadcast_to(self.val(ins[0]), shape[0])
        if self.op.type == "SquaredDifference":
            d = self.b.op("train.sub", [d, self.broadcast_to(self.val(ins[1]), shape[0])], [shape])
        put(self.b.op("train.mul", [d, d], [shape]))

    def map_reshape(self, ins, put):
        x = self.val(ins[0])
        shape = self.out()
        put(x if x.shape == shape[0] else self.b.op("train.reshape", [x], [shape]))

    def map_transpose(self, ins, put):
        perm = [int(p) for p in self.const(ins[1])]
        put(self.b.op("train.transpose", [self.val(ins[0])], [self.out()], {"permutation": perm}))

    def map_tile(self, ins, put):
        x = self.val(ins[0])
        shape = self.out()[0]
        if any(d != 1 and d != s for d, s in zip(x.shape, shape[len(shape) - len(x.shape):])):
            raise self.err("tiling a dimension of size > 1", "Report this graph.")
        put(self.broadcast_to(x, shape))

    def map_conv(self, ins, put):
        x, w = self.val(ins[0]), self.val(ins[1])
        _, props = self.conv_props(
            x.shape[1:3] if self.layout() == "NHWC" else x.shape[2:4], w.shape[0:2])
        put(self.b.op("train.conv2d", [x, w], [self.out()], props))

    def map_conv_backprop_input(self, ins, put):
        w, g = self.val(ins[1]), self.val(ins[2])
        xs = [int(d) for d in self.const(ins[0])]
        _, props = self.conv_props(xs[1:3] if self.layout() == "NHWC" else xs[2:4],
                                   w.shape[0:2])
        put(self.b.op("train.conv2d_backward_data", [g, w], [self.out()], props))

    def map_conv_backprop_filter(self, ins, put):
        x, g = self.val(ins[0]), self.val(ins[2])
        ws = [int(d) for d in self.const(ins[1])]
        _, props = self.conv_props(
            x.shape[1:3] if self.layout() == "NHWC" else x.shape[2:4], ws[0:2])
        put(self.b.op("train.conv2d_backward_filter", [x, g], [self.out()], props))

    def map_max_pool(self, ins, put):
        x = self.val(ins[0])
        put(self.b.op("train.max_pool2d", [x], [self.out()], self.pool_props(x.shape)))

    def map_max_pool_grad(self, ins, put):
        x, g = self.val(ins[0]), self.val(ins[2])
        put(self.b.op("train.max_pool2d_grad", [g, x], [self.out()], self.pool_props(x.shape)))

    def map_batch_norm_grad(self, ins, put):
        g, x, scale = self.val(ins[0]), self.val(ins[1]), self.val(ins[2])
        r1, r2 = self.get(ins[3]), self.get(ins[4])
        if not (isinstance(r1, _Pending) and r1.kind == "bn_reserve"):
            raise self.err("reserve space not from FusedBatchNormV3", "Report this graph.")
        res = self.b.op("train.batch_norm_grad", [g, x, scale, r1.value, r2.value],
                        [(x.shape, x.elem), (scale.shape, scale.elem), (scale.shape, scale.elem)],
                        {"feature_dim": r1.feature_dim})
        for i in range(3):
            put(res[i], i)

    def map_zeros_like(self, ins, put):
        """Maps to nothing: an op that reads it fails ('input ... was not
        mapped')."""

    def map_batch_norm(self, ins, put):
        if not self.attr("is_training"):
            raise self.err("batch norm in inference mode", "Call the model with training=True.")
        x = self.val(ins[0])
        scale, offset = self.val(ins[1]), self.val(ins[2])
        mean, var = self.val(ins[3]), self.val(ins[4])
        feature_dim = len(x.shape) - 1 if self.layout() == "NHWC" else 1
        factor = float(self.attr("exponential_avg_factor", 1.0))
        c = (scale.shape, "f32")
        res = self.b.op("train.batch_norm", [x, scale, offset, mean, var],
                        [(x.shape, x.elem), c, c, c, c],
                        {"epsilon": float(self.attr("epsilon")), "momentum": factor,
                         "feature_dim": feature_dim})
        put(res[0], 0)
        put(_Pending("bn_stat", value=res[1]), 1)
        put(_Pending("bn_stat", value=res[2]), 2)
        put(_Pending("bn_reserve", value=res[3], feature_dim=feature_dim), 3)
        put(_Pending("bn_reserve", value=res[4], feature_dim=feature_dim), 4)
        put(_Pending("bn_reserve", value=None, feature_dim=feature_dim), 5)

    def map_pending(self, t, ins, put):
        """The loss and its seed's way to the logits' gradient."""
        vals = [self.get(x) for x in ins]
        p = next(v for v in vals if isinstance(v, _Pending))
        others = [v for v in vals if v is not p]
        scalar = None
        if len(others) == 1 and isinstance(others[0], np.ndarray) and others[0].size == 1:
            scalar = float(others[0].ravel()[0])
        if p.kind in ("sce", "sce_sum") and t == "Mul" and scalar is not None:
            put(_Pending(p.kind, logits=p.logits, labels=p.labels, scale=p.scale * scalar))
        elif p.kind == "sce" and t == "Sum":
            put(_Pending("sce_sum", logits=p.logits, labels=p.labels, scale=p.scale))
        elif p.kind == "sce_sum" and t == "Sum":
            put(p)
        elif p.kind == "sce_sum" and t in ("DivNoNan", "RealDiv") and vals[0] is p \
                and scalar is not None:
            if abs(p.scale / scalar - 1.0 / self.batch) > 1e-7 / self.batch:
                raise self.err("a loss that is not the batch mean",
                               "Use SparseCategoricalCrossentropy(from_logits=True) with "
                               "the default reduction and no sample weights.")
            loss = self.b.op("train.sparse_cross_entropy", [p.logits, p.labels], [((), "f32")],
                             comment="loss: mean softmax cross-entropy")
            self.loss = loss
            put(loss)
        elif p.kind == "seed" and t in ("DivNoNan", "RealDiv", "Mul") and vals[0] is p \
                and scalar is not None:
            factor = 1.0 / scalar if t != "Mul" else scalar
            put(_Pending("seed", value=p.value, scale=p.scale * factor,
                         shape=tuple(self.op.outputs[0].shape.as_list())))
        elif p.kind == "seed" and t == "Mul" and vals[1] is p and scalar is not None:
            put(_Pending("seed", value=p.value, scale=p.scale * scalar,
                         shape=tuple(self.op.outputs[0].shape.as_list())))
        elif p.kind == "seed" and t in ("Reshape", "Tile", "ExpandDims", "BroadcastTo"):
            put(_Pending("seed", value=p.value, scale=p.scale,
                         shape=tuple(self.op.outputs[0].shape.as_list())))
        elif t == "Mul" and {v.kind for v in vals if isinstance(v, _Pending)} == {"seed", "sce_backprop"}:
            seed = next(v for v in vals if v.kind == "seed")
            bp = next(v for v in vals if v.kind == "sce_backprop")
            if abs(seed.scale - 1.0 / self.batch) > 1e-7 / self.batch:
                raise self.err("a loss gradient that is not the batch mean's",
                               "Use the standard step (mp_export.tf_export.make_step).")
            put(self.b.op("train.sparse_cross_entropy_grad",
                          [bp.logits, bp.labels, seed.value], [(bp.logits.shape, bp.logits.elem)]))
        else:
            raise self.err("the loss or its gradient (%s) is used in a way the exporter "
                           "does not recognize" % ", ".join(
                               getattr(v, "kind", "constant" if isinstance(v, np.ndarray)
                                       else "tensor") for v in vals),
                           "Use SparseCategoricalCrossentropy(from_logits=True) and "
                           "mp_export.tf_export.make_step.")

    def map_apply(self, ins, put):
        t = self.op.type
        res = self.get(ins[0])
        if res.kind != "param":
            raise self.err("an optimizer update of '%s'" % (res.name or res.kind),
                           "Only trainable variables may be updated by the optimizer.")
        p = self.state[res.name]
        if t == "ResourceApplyGradientDescent":
            lr = float(self.const(ins[1]))
            g = self.val(ins[2])
            new = self.b.op("train.sgd", [p, g], [(p.shape, p.elem)], {"lr": lr})
        else:
            slot = self.get(ins[1])
            lr = float(self.const(ins[2]))
            g = self.val(ins[3])
            momentum = float(self.const(ins[4]))
            if slot.kind != "slot":
                raise self.err("momentum accumulator is not an optimizer slot", "Report this graph.")
            props = {"lr": lr, "momentum": momentum}
            if self.attr("use_nesterov"):
                props["nesterov"] = True
            new, buf = self.b.op("train.sgd_momentum", [p, g, self.state[slot.name]],
                                 [(p.shape, p.elem)] * 2, props)
            self.state[slot.name] = buf
            self.updated[slot.name] = ("opt_state", buf)
            self.slot_lr = getattr(self, "slot_lr", {})
            self.slot_lr[slot.name] = lr
        self.state[res.name] = new
        self.updated[res.name] = ("param", new)


def _unary(train_op):
    """The handler of a 1:1 op on one tensor."""
    def handler(self, ins, put):
        put(self.b.op(train_op, [self.val(ins[0])], [self.out()]))
    return handler


def _act_grad(train_op, grad_first):
    """The handler of an activation's gradient: train's (dy, saved value)
    from TF's ReluGrad(gradients, features), or TanhGrad(y, dy) and
    SigmoidGrad(y, dy), which take the forward output first."""
    def handler(self, ins, put):
        g, saved = (ins[0], ins[1]) if grad_first else (ins[1], ins[0])
        put(self.b.op(train_op, [self.val(g), self.val(saved)], [self.out()]))
    return handler


def _binary(train_op):
    """The handler of a binary op, both operands broadcast to the result."""
    def handler(self, ins, put):
        shape = self.out()
        lhs = self.broadcast_to(self.val(ins[0]), shape[0])
        rhs = self.broadcast_to(self.val(ins[1]), shape[0])
        put(self.b.op(train_op, [lhs, rhs], [shape]))
    return handler


def _reduce(train_op):
    """The handler of a reduction over constant axes (none: the input)."""
    def handler(self, ins, put):
        x = self.val(ins[0])
        dims = sorted(set(int(d) % len(x.shape) for d in np.ravel(self.const(ins[1])))) \
            if x.shape else []
        if not dims:
            put(x)
            return
        props = {"dims": dims}
        if self.attr("keep_dims"):
            props["keep_dims"] = True
        put(self.b.op(train_op, [x], [self.out()], props))
    return handler


# Op type -> handler, in three tables by precedence (_Mapper.map_op).
# Graph plumbing, before constant folding.
_GRAPH_OPS = {
    "Const": _Mapper.map_const,
    "Identity": _Mapper.map_identity,
    "StopGradient": _Mapper.map_identity,
    "Snapshot": _Mapper.map_identity,
    "IdentityN": _Mapper.map_identity_n,
    "Shape": _Mapper.map_shape,
    "ShapeN": _Mapper.map_shape,
    "Size": _Mapper.map_size,
    "Rank": _Mapper.map_size,
}
# Variables, optimizer updates and the loss, after constant folding.
_STATE_OPS = {
    "ReadVariableOp": _Mapper.map_read_variable,
    "AssignVariableOp": _Mapper.map_assign,
    "AssignAddVariableOp": _Mapper.map_assign_add,
    "ResourceApplyGradientDescent": _Mapper.map_apply,
    "ResourceApplyKerasMomentum": _Mapper.map_apply,
    "SparseSoftmaxCrossEntropyWithLogits": _Mapper.map_sparse_softmax_ce,
}
# Tensor ops, where no input is the loss on its way to the logits' gradient.
_TENSOR_OPS = {
    "MatMul": _Mapper.map_matmul,
    "BatchMatMulV2": _Mapper.map_matmul,
    "BatchMatMul": _Mapper.map_matmul,
    "BiasAdd": _Mapper.map_bias_add,
    "BiasAddGrad": _Mapper.map_bias_add_grad,
    "Relu": _unary("train.relu"),
    "Neg": _unary("train.neg"),
    "Exp": _unary("train.exp"),
    "Log": _unary("train.log"),
    "Sqrt": _unary("train.sqrt"),
    "Rsqrt": _unary("train.rsqrt"),
    "Tanh": _unary("train.tanh"),
    "Sigmoid": _unary("train.sigmoid"),
    "Erf": _unary("train.erf"),
    "ReluGrad": _act_grad("train.relu_grad", grad_first=True),
    "TanhGrad": _act_grad("train.tanh_grad", grad_first=False),
    "SigmoidGrad": _act_grad("train.sigmoid_grad", grad_first=False),
    "Add": _binary("train.add"),
    "AddV2": _binary("train.add"),
    "Sub": _binary("train.sub"),
    "Mul": _binary("train.mul"),
    "RealDiv": _binary("train.div"),
    "Maximum": _binary("train.maximum"),
    "Minimum": _binary("train.minimum"),
    "Pow": _binary("train.pow"),
    "Split": _Mapper.map_split,
    "RsqrtGrad": _Mapper.map_rsqrt_grad,
    "SqrtGrad": _Mapper.map_sqrt_grad,
    "AddN": _Mapper.map_add_n,
    "ConcatV2": _Mapper.map_concat,
    "SquaredDifference": _Mapper.map_square,
    "Square": _Mapper.map_square,
    "Sum": _reduce("train.reduce_sum"),
    "Mean": _reduce("train.reduce_mean"),
    "Max": _reduce("train.reduce_max"),
    "Reshape": _Mapper.map_reshape,
    "ExpandDims": _Mapper.map_reshape,
    "Squeeze": _Mapper.map_reshape,
    "Transpose": _Mapper.map_transpose,
    "Tile": _Mapper.map_tile,
    "BroadcastTo": _Mapper.map_tile,
    "Softmax": _unary("train.softmax"),
    "LogSoftmax": _unary("train.log_softmax"),
    "Conv2D": _Mapper.map_conv,
    "Conv2DBackpropInput": _Mapper.map_conv_backprop_input,
    "Conv2DBackpropFilter": _Mapper.map_conv_backprop_filter,
    "MaxPool": _Mapper.map_max_pool,
    "MaxPoolGrad": _Mapper.map_max_pool_grad,
    "FusedBatchNormV3": _Mapper.map_batch_norm,
    "FusedBatchNormGradV3": _Mapper.map_batch_norm_grad,
    "ZerosLike": _Mapper.map_zeros_like,
}


def _bga(m, a):
    s0, s1 = [list(x) for x in a]
    n = max(len(s0), len(s1))
    s0, s1 = [1] * (n - len(s0)) + s0, [1] * (n - len(s1)) + s1
    r0 = [i for i in range(n) if s0[i] == 1 and s1[i] != 1]
    r1 = [i for i in range(n) if s1[i] == 1 and s0[i] != 1]
    return [np.array(r0), np.array(r1)]


def _range(m, a):
    return np.arange(a[0], a[1], a[2])


def _strided_slice(m, a):
    op = m.op
    if any(op.get_attr(k) for k in ("ellipsis_mask", "new_axis_mask")):
        raise m.err("strided slice with ellipsis/new axis on constants", "Report this graph.")
    x, begin, end, strides = a
    sl = []
    for i in range(len(begin)):
        bi = None if op.get_attr("begin_mask") >> i & 1 else int(begin[i])
        ei = None if op.get_attr("end_mask") >> i & 1 else int(end[i])
        if op.get_attr("shrink_axis_mask") >> i & 1:
            sl.append(int(begin[i]))
        else:
            sl.append(slice(bi, ei, int(strides[i])))
    return x[tuple(sl)]


_FOLD = {
    "Prod": lambda m, a: np.prod(a[0], axis=tuple(np.ravel(a[1])), keepdims=bool(m.attr("keep_dims"))),
    "Sum": lambda m, a: np.sum(a[0], axis=tuple(np.ravel(a[1])), keepdims=bool(m.attr("keep_dims"))),
    "Cast": lambda m, a: a[0],
    "Pack": lambda m, a: np.stack(a, axis=m.attr("axis", 0)),
    "ConcatV2": lambda m, a: np.concatenate(a[:-1], axis=int(a[-1])),
    "Fill": lambda m, a: np.full([int(d) for d in a[0]], a[1]),
    "Reshape": lambda m, a: np.reshape(a[0], [int(d) for d in a[1]]),
    "Maximum": lambda m, a: np.maximum(a[0], a[1]),
    "Minimum": lambda m, a: np.minimum(a[0], a[1]),
    "FloorDiv": lambda m, a: np.floor_divide(a[0], a[1]),
    "FloorMod": lambda m, a: np.mod(a[0], a[1]),
    "Add": lambda m, a: a[0] + a[1], "AddV2": lambda m, a: a[0] + a[1],
    "Sub": lambda m, a: a[0] - a[1], "Mul": lambda m, a: a[0] * a[1],
    "RealDiv": lambda m, a: a[0] / a[1],
    "DivNoNan": lambda m, a: np.where(a[1] == 0, 0, a[0] / np.where(a[1] == 0, 1, a[1])),
    "Neg": lambda m, a: -a[0],
    "Range": _range, "BroadcastGradientArgs": _bga, "StridedSlice": _strided_slice,
    "GatherV2": lambda m, a: np.take(a[0], a[1], axis=int(a[2])),
    "Identity": lambda m, a: a[0],
    "InvertPermutation": lambda m, a: np.argsort(a[0]),
}


def export(model, optimizer, example_x, example_y, out_dir, stem, loss_fn=None,
           step=None, description=""):
    """Exports `step` (default: make_step(model, optimizer, loss_fn)) for
    batches shaped like example_x / example_y. Writes
    OUT/STEM.{mlir,init.safetensors,manifest.json}; returns the paths."""
    legacy = getattr(getattr(tf.keras.optimizers, "legacy", None), "Optimizer", None)
    if legacy is not None and not isinstance(optimizer, legacy):
        name = type(optimizer).__name__
        raise ExportError("Keras", name, "the optimizer",
                          "Keras' new optimizers update variables through generic "
                          "assignments, which the exporter does not map",
                          "Use tf.keras.optimizers.legacy.%s (SGD, with or without "
                          "momentum, is supported)." % name)
    step = step or make_step(model, optimizer, loss_fn)
    x_spec = tf.TensorSpec(example_x.shape, tf.float32, name="x")
    y_spec = tf.TensorSpec(example_y.shape, tf.int64, name="y")
    cf = step.get_concrete_function(x_spec, y_spec)
    graph = cf.graph
    batch = int(example_x.shape[0])

    # Which captured resource is which variable.
    kinds = {}
    trainable = {id(v.handle): v for v in model.trainable_variables}
    for v in model.variables:
        if id(v.handle) not in trainable:
            kinds[id(v.handle)] = ("buffer", v)
    for v in model.trainable_variables:
        kinds[id(v.handle)] = ("param", v)
    slots = {}
    for v in model.trainable_variables:
        for slot_name in getattr(optimizer, "get_slot_names", lambda: [])():
            try:
                s = optimizer.get_slot(v, slot_name)
            except (KeyError, ValueError):
                continue
            kinds[id(s.handle)] = ("slot", s)
            slots[id(s.handle)] = "%s/%s" % (variable_name(v), slot_name)
    iterations = getattr(optimizer, "iterations", None)
    if iterations is not None:
        kinds[id(iterations.handle)] = ("iterations", iterations)

    builder = StepBuilder()
    mapper = _Mapper(builder, batch)
    placeholders = [op for op in graph.get_operations() if op.type == "Placeholder"]
    captured = {internal.name: external for external, internal in graph.captures}
    inputs = [t for t in graph.inputs if t.name not in captured]
    if len(inputs) != 2:
        raise ExportError("TensorFlow", "Placeholder", "the step's signature",
                          "expected two inputs (x, y), got %d" % len(inputs),
                          "Give the step exactly the batch's inputs and labels.")
    mapper.env[inputs[0].name] = builder.arg(tuple(inputs[0].shape.as_list()), "f32", "input")
    mapper.env[inputs[1].name] = builder.arg(tuple(inputs[1].shape.as_list()), "i64", "label")

    param_args, buffer_args, slot_args = [], [], []
    init = {}
    for op in placeholders:
        t = op.outputs[0]
        if t.name not in captured:
            continue
        ext = captured[t.name]
        kind = kinds.get(id(ext))
        if kind is None:
            if t.dtype == tf.resource:
                # An optimizer hyper-parameter (learning rate, momentum):
                # frozen at its current value.
                dtype = None
                for consumer in t.consumers():
                    if consumer.type == "ReadVariableOp":
                        dtype = consumer.get_attr("dtype")
                value = tf.raw_ops.ReadVariableOp(resource=ext, dtype=dtype).numpy() \
                    if dtype is not None else None
                mapper.env[t.name] = _Resource("hyper", value=value)
            else:
                mapper.env[t.name] = ext.numpy()
            continue
        role, var = kind
        if role == "iterations":
            mapper.env[t.name] = _Resource("iterations")
            continue
        name = slots.get(id(ext)) if role == "slot" else variable_name(var)
        shape = tuple(var.shape.as_list())
        train_role = {"param": "param", "buffer": "buffer", "slot": "opt_state"}[role]
        mapper.env[t.name] = _Resource(role, name=name, var=var)
        (param_args if role == "param" else buffer_args if role == "buffer" else slot_args
         ).append((name, shape, train_role, var))
    # Arguments in a stable order: params, buffers, optimizer state.
    order = {variable_name(v): i for i, v in enumerate(model.variables)}
    for group in (param_args, buffer_args, slot_args):
        group.sort(key=lambda a: (order.get(a[0].rsplit("/", 1)[0] if a[2] == "opt_state"
                                            else a[0], 0), a[0]))
        for name, shape, role, var in group:
            mapper.state[name] = builder.arg(shape, "f32", role, name)
            if role != "opt_state":
                init[name] = var.numpy().astype(np.float32)

    # Only what the loss and the state updates depend on.
    sinks = [o.op for o in cf.outputs] + [
        op for op in graph.get_operations()
        if op.type.startswith("ResourceApply") or op.type in ("AssignVariableOp",
                                                               "AssignAddVariableOp")]
    needed, stack = set(), list(sinks)
    while stack:
        op = stack.pop()
        if op.name in needed:
            continue
        needed.add(op.name)
        stack.extend(i.op for i in op.inputs)
    for op in graph.get_operations():
        if op.name in needed and op.type != "Placeholder" and op.type != "NoOp":
            try:
                mapper.map_op(op)
            except ExportError:
                raise
            except Exception as e:  # noqa: BLE001 - a bug or an unforeseen graph
                raise ExportError("TensorFlow", op.type, "node '%s'" % op.name,
                                  "the exporter failed on it (%s: %s)" % (type(e).__name__, e),
                                  "Report this graph; it is not exported.") from e

    loss = mapper.val(cf.outputs[0])
    builder.result(loss, "loss")
    for group in (param_args, buffer_args, slot_args):
        for name, shape, role, var in group:
            if name not in mapper.updated:
                raise ExportError("TensorFlow", "variable", "'%s'" % name,
                                  "the step reads it but never updates it",
                                  "Freeze it outside the step or make it trainable.")
            builder.result(mapper.updated[name][1], role, name)

    manifest = {"framework": "tensorflow", "framework_version": tf.__version__,
                "model": model.name, "optimizer": {"class": type(optimizer).__name__,
                                                   "config": {k: (float(v) if isinstance(v, (float, np.floating)) else v)
                                                              for k, v in optimizer.get_config().items()
                                                              if isinstance(v, (int, float, str, bool))}},
                "batch": batch,
                "names": "Keras variable paths without ':0'; optimizer slots '<variable>/<slot>'",
                "momentum_convention": "opt_state '<variable>/momentum' holds PyTorch's momentum "
                                       "buffer b; Keras' slot is -lr * b",
                "slot_lr": getattr(mapper, "slot_lr", {})}
    header = ("Exported by python/mp_export from TensorFlow %s (tf.function concrete graph).\n"
              "%s\nmodel %s, optimizer %s, batch %d" % (
                  tf.__version__, description, model.name, type(optimizer).__name__, batch))
    return write_export(out_dir, stem, builder, header, init, manifest)


def state_tensors(model, optimizer=None):
    """The model's (and a legacy SGD optimizer's momentum) state as numpy
    arrays under the names the export gives them; momentum slots converted
    to PyTorch's convention (b = -a / lr), as the export keeps them."""
    out = {variable_name(v): v.numpy().copy() for v in model.variables}
    if optimizer is not None and "momentum" in getattr(optimizer, "get_slot_names", list)():
        lr = float(tf.keras.backend.get_value(optimizer.learning_rate))
        for v in model.trainable_variables:
            try:
                slot = optimizer.get_slot(v, "momentum")
            except (KeyError, ValueError):
                continue
            out[variable_name(v) + "/momentum"] = -slot.numpy() / lr
    return out


def load_checkpoint(model, path, optimizer=None):
    """Loads an mp-run checkpoint (or any safetensors file with Keras
    variable paths) into `model`; returns the variable names not in the file.
    With `optimizer` (legacy SGD with momentum, slots already built), also
    sets the momentum slots (Keras' convention: -lr * buffer)."""
    tensors, _ = read_safetensors(path)
    missing = []
    for v in model.variables:
        name = variable_name(v)
        if name in tensors:
            if tuple(tensors[name].shape) != tuple(v.shape.as_list()):
                raise ValueError("'%s' has shape %s in %s but %s in the model" % (
                    name, tensors[name].shape, path, v.shape))
            v.assign(tensors[name])
        else:
            missing.append(name)
    if model.variables and len(missing) == len(model.variables):
        raise ValueError("%s has none of the model's variable paths (%s, ...): "
                         "a checkpoint of another model?" % (path, missing[0]))
    if optimizer is not None:
        lr = float(tf.keras.backend.get_value(optimizer.learning_rate))
        for v in model.trainable_variables:
            key = variable_name(v) + "/momentum"
            if key in tensors:
                optimizer.get_slot(v, "momentum").assign(-lr * tensors[key])
    return missing
