"""The TensorFlow graph of a Keras 3 model's forward and backward pass,
mapped op by op to the train dialect (keras_export.py drives it).

The graph is a `tf.function`'s concrete graph with static shapes. Shape
arithmetic (Shape, BroadcastGradientArgs, Prod, ...) is folded with numpy
(_FOLD) whenever every input is a constant. Variable reads become the
step's params and buffers; the assignments Keras makes in the forward pass
(batch-norm moving statistics) become updated buffers. Integer arithmetic
on indices that is not constant (Keras' wrap of negative embedding indices)
is not emitted: such values are _Pending and only the patterns that consume
them (the wrap's select, dropout's random stream) accept them.
"""
import numpy as np
import tensorflow as tf

from .common import NCHW, NHWC, Attr, ExportError, dense_constant, dropout_state


class _Pending:
    def __init__(self, kind, **fields):
        self.kind = kind
        self.__dict__.update(fields)


class _Resource:
    def __init__(self, kind, name=None, var=None):
        self.kind, self.name, self.var = kind, name, var


_ELEM = {tf.float32: "f32", tf.int64: "i64", tf.int32: "i32", tf.bool: "i1"}
_COMPARE = {"Equal": 0, "NotEqual": 1, "Less": 2, "LessEqual": 3, "Greater": 4,
            "GreaterEqual": 5}


def _same_pad(size, k, stride, dilation):
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def _scope(op_name):
    """The Keras layer of a graph node: its name scope without the op."""
    parts = [p for p in op_name.split("/") if p != "gradient_tape"]
    return "/".join(parts[:-1]) or op_name


class Mapper:
    def __init__(self, builder, locate=None):
        self.b = builder
        self.env = {}
        self.state = {}       # variable path -> current Value
        self.updated = {}     # variable path -> new Value
        self.lazy = {}        # tensor name -> function making its Value
        self.op = None
        self.locate = locate or (lambda op: None)
        self.dropout_site = -1
        self.sparse = {}      # dense gradient name -> (values, ids)
        # Tensor names of a called function's graph are keyed under the
        # call's name (map_call).
        self.prefix = ""

    # --- errors and operand access ------------------------------------------
    def err(self, why, todo):
        return ExportError("TensorFlow", self.op.type,
                           "node '%s' (layer %s)" % (self.op.name, _scope(self.op.name)),
                           why, todo)

    def get(self, t):
        key = self.prefix + t.name
        if key in self.lazy:
            self.env[key] = self.lazy.pop(key)()
        if key not in self.env:
            raise self.err("input '%s' was not mapped" % t.name, "Report this graph.")
        return self.env[key]

    def val(self, t):
        value = self.get(t)
        if isinstance(value, np.ndarray):
            return self.const_value(value)
        if isinstance(value, (_Pending, _Resource)):
            raise self.err("input '%s' is %s, used where a tensor is needed" % (
                t.name, getattr(value, "why", value.kind)),
                "Rewrite that part of the model with supported layers "
                "(docs/exporters.md lists them).")
        return value

    def const(self, t):
        value = self.get(t)
        if not isinstance(value, np.ndarray):
            raise self.err("input '%s' must be a compile-time constant" % t.name,
                           "Use static shapes and constant hyper-parameters.")
        return value

    def const_value(self, array, elem=None):
        array = np.asarray(array)
        if elem is None:
            elem = {"float32": "f32", "float64": "f32", "int64": "i64", "int32": "i32",
                    "bool": "i1"}.get(str(array.dtype))
            if elem is None:
                raise self.err("a constant of dtype %s" % array.dtype, "Use float32 constants.")
        if array.size and np.all(array == array.flat[0]) and elem != "i1":
            return self.b.op("train.fill", [], [(array.shape, elem)],
                             {"value": float(array.flat[0])})
        return dense_constant(self.b, array, elem)

    def fill(self, value, shape, elem="f32"):
        return self.b.op("train.fill", [], [(tuple(shape), elem)], {"value": float(value)})

    def out(self, index=0):
        o = self.op.outputs[index]
        if o.dtype not in _ELEM:
            raise self.err("result dtype %s" % o.dtype.name,
                           "Export a float32 model (mp chooses the 16-bit types).")
        if not o.shape.is_fully_defined():
            raise self.err("a dynamic shape", "Export with static shapes (a fixed batch).")
        return (tuple(o.shape.as_list()), _ELEM[o.dtype])

    def broadcast_to(self, x, shape):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        offset = len(shape) - len(x.shape)
        if offset < 0 or any(d != 1 and d != shape[offset + i] for i, d in enumerate(x.shape)):
            raise self.err("cannot broadcast %s to %s" % (x.shape, shape), "Report this graph.")
        keep = [i for i, d in enumerate(x.shape) if d == shape[offset + i]]
        if len(keep) != len(x.shape):
            x = self.b.op("train.reshape", [x], [(tuple(x.shape[i] for i in keep), x.elem)])
        return self.b.op("train.broadcast", [x], [(shape, x.elem)],
                         {"dims": [offset + i for i in keep]})

    def operand(self, t, shape, elem):
        """Input t broadcast to `shape`; a constant made in `elem`."""
        value = self.get(t)
        if isinstance(value, np.ndarray):
            return self.const_value(np.broadcast_to(value, shape).astype(
                {"f32": np.float32, "i1": np.bool_, "i32": np.int32, "i64": np.int64}[elem]),
                elem)
        return self.broadcast_to(self.val(t), shape)

    def attr(self, name, default=None):
        try:
            value = self.op.get_attr(name)
        except ValueError:
            return default
        return value.decode() if isinstance(value, bytes) else value

    # --- the mapping ----------------------------------------------------------
    def map_op(self, op):
        """Maps one graph op: plumbing, then constant folding (every input
        constant), then the pending patterns, then the tensor ops."""
        self.op = op
        self.b.loc = self.locate(op)
        t = op.type
        ins = list(op.inputs)
        names = [self.prefix + o.name for o in op.outputs]

        def put(value, i=0):
            self.env[names[i]] = value

        if t in _GRAPH_OPS:
            _GRAPH_OPS[t](self, ins, put)
            return
        vals = [self.get(x) for x in ins]
        if vals and all(isinstance(v, np.ndarray) for v in vals) and t in _FOLD:
            results = _FOLD[t](self, vals)
            if not isinstance(results, (list, tuple)):
                results = [results]
            for i, v in enumerate(results):
                put(np.asarray(v, dtype=op.outputs[i].dtype.as_numpy_dtype), i)
        elif t in _STATE_OPS:
            _STATE_OPS[t](self, ins, put)
        elif any(isinstance(v, _Pending) for v in vals):
            self.map_pending(t, ins, vals, put)
        elif t in _TENSOR_OPS:
            _TENSOR_OPS[t](self, ins, put)
        else:
            raise self.err("no mapping to the train dialect",
                           "Rewrite that part of the model with supported layers "
                           "(docs/exporters.md lists them) or add a mapping in "
                           "python/mp_export/keras_mapper.py.")

    # --- plumbing -------------------------------------------------------------
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
                raise self.err("a dynamic shape", "Export with static shapes (a fixed batch).")
            put(np.array(x.shape.as_list(), dtype=self.op.outputs[i].dtype.as_numpy_dtype), i)

    def map_size(self, ins, put):
        shape = ins[0].shape.as_list()
        put(np.array(int(np.prod(shape)) if self.op.type == "Size" else len(shape),
                     dtype=self.op.outputs[0].dtype.as_numpy_dtype))

    def map_variable_shape(self, ins, put):
        res = self.get(ins[0])
        put(np.array(res.var.shape, dtype=self.op.outputs[0].dtype.as_numpy_dtype))

    # --- variables --------------------------------------------------------------
    def map_read_variable(self, ins, put):
        res = self.get(ins[0])
        if res.kind == "seed":
            put(_Pending("seed", why="a random seed generator's state"))
        else:
            put(self.state[res.name])

    def map_assign(self, ins, put):
        res = self.get(ins[0])
        if res.kind == "seed":
            return  # mp's dropout runs on the step counter instead
        if res.kind != "buffer" or self.op.type != "AssignVariableOp":
            raise self.err("the step assigns to '%s' (a %s)" % (res.name, res.kind),
                           "Only non-trainable state (batch-norm moving statistics) may "
                           "be assigned in the forward pass; the optimizer is exported "
                           "from its Keras object.")
        value = self.val(ins[1])
        self.state[res.name] = value
        self.updated[res.name] = value

    # --- pending values: integer index arithmetic and dropout's random stream -
    def map_pending(self, t, ins, vals, put):
        pend = [v for v in vals if isinstance(v, _Pending)]
        kinds = {p.kind for p in pend}
        p = pend[0]
        if kinds <= {"seed", "index_wrap"} and t in ("Mul", "FloorMod", "Cast", "AddV2",
                                                      "Add", "Sub", "Identity"):
            put(p)
        elif kinds == {"seed"} and t == "StatelessRandomGetKeyCounter":
            put(p, 0)
            put(p, 1)
        elif t == "StatelessRandomUniformV2" and kinds == {"seed"}:
            put(_Pending("uniform", why="random numbers", shape=self.out()[0], low=0.0,
                         width=1.0))
        elif p.kind == "uniform" and t in ("Mul", "AddV2", "Add") and \
                isinstance(vals[1 - vals.index(p)], np.ndarray):
            c = float(np.ravel(vals[1 - vals.index(p)])[0])
            if t == "Mul":
                put(_Pending("uniform", why=p.why, shape=p.shape, low=p.low * c,
                             width=p.width * c))
            else:
                put(_Pending("uniform", why=p.why, shape=p.shape, low=p.low + c,
                             width=p.width))
        elif p.kind == "uniform" and t == "GreaterEqual" and vals[0] is p and \
                isinstance(vals[1], np.ndarray):
            if p.low != 0.0 or p.width != 1.0:
                raise self.err("a random mask that is not dropout's", "Use keras.layers.Dropout.")
            self.dropout_site += 1
            # The rate as the f32 Keras compares with, in its shortest form.
            put(_Pending("dropout_mask", why="a dropout mask",
                         p=float(str(np.float32(np.ravel(vals[1])[0]))),
                         site=self.dropout_site, shape=p.shape))
        elif p.kind == "dropout_mask" and t in ("SelectV2", "Select") and vals[0] is p:
            self.map_dropout_select(ins, vals, put)
        elif p.kind == "dropout_masked" and t == "Mul":
            other = vals[1 - vals.index(p)]
            scale = 1.0 / (1.0 - p.mask.p)
            if not (isinstance(other, np.ndarray) and other.size == 1 and
                    abs(float(np.ravel(other)[0]) - scale) <= 1e-6 * scale):
                raise self.err("a dropout gradient scaled by something other than "
                               "1 / (1 - rate)", "Use keras.layers.Dropout.")
            key, counter = self.dropout_state()
            put(self.b.op("train.dropout_grad", [p.value, key, counter], [self.out()],
                          {"p": p.mask.p, "site": p.mask.site}))
        elif p.kind == "dropout_masked" and t in ("Sum", "Reshape") and \
                self.op.outputs[0].shape.as_list() == list(p.value.shape):
            put(p)
        elif p.kind == "s2b":
            self.map_s2b(t, ins, vals, put)
        elif p.kind == "index_wrap" and t in ("SelectV2", "Select") and vals[0] is p:
            # where(i < 0, i + n, i): indices are in [0, n) (mp-run checks
            # embedding feeds), so the wrap is the identity.
            put(self.get(ins[2]))
        else:
            raise self.err("%s used by this op" % getattr(p, "why", p.kind),
                           "Rewrite that part of the model with supported layers "
                           "(docs/exporters.md lists them).")

    def map_dropout_select(self, ins, vals, put):
        mask = vals[0]
        zero = vals[2]
        if not (isinstance(zero, np.ndarray) and np.all(zero == 0)):
            raise self.err("a dropout mask selecting something other than zero",
                           "Use keras.layers.Dropout.")
        x = self.val(ins[1])
        scale = 1.0 / (1.0 - mask.p)
        src = x.op
        if src is not None and src.name == "train.mul" and any(
                o.op is not None and o.op.name == "train.fill" and
                abs(o.op.props["value"] - scale) <= 1e-6 * scale for o in src.operands):
            # The forward pass: x * 1 / (1 - rate) where the mask keeps.
            plain = next(o for o in src.operands
                         if not (o.op is not None and o.op.name == "train.fill"))
            plain = self.broadcast_to(plain, self.out()[0])
            key, counter = self.dropout_state()
            put(self.b.op("train.dropout", [plain, key, counter], [self.out()],
                          {"p": mask.p, "site": mask.site}))
        else:
            put(_Pending("dropout_masked", why="a dropout gradient", value=x, mask=mask))

    def dropout_state(self):
        return dropout_state(self.b)

    # --- tensor ops -------------------------------------------------------------
    def map_binary(self, ins, put):
        shape, elem = self.out()
        t = self.op.type
        if elem != "f32" and t not in ("LogicalAnd", "LogicalOr"):
            if any(isinstance(self.get(x), np.ndarray) for x in ins):
                put(_Pending("index_wrap", why="integer arithmetic on indices"))
                return
            raise self.err("integer arithmetic on tensors", "Compute in float32.")
        a = self.operand(ins[0], shape, elem)
        b = self.operand(ins[1], shape, elem)
        if t == "SquaredDifference":
            d = self.b.op("train.sub", [a, b], [(shape, elem)])
            put(self.b.op("train.mul", [d, d], [(shape, elem)]))
        elif t == "DivNoNan":
            zero = self.fill(0.0, shape)
            is_zero = self.b.op("train.compare", [b, zero], [(shape, "i1")],
                                {"predicate": Attr("0 : i64")})
            q = self.b.op("train.div", [a, b], [(shape, elem)])
            put(self.b.op("train.select", [is_zero, zero, q], [(shape, elem)]))
        elif t == "LogicalAnd":
            put(self.b.op("train.select", [a, b, self.const_value(np.zeros(shape, bool), "i1")],
                          [(shape, "i1")]))
        elif t == "LogicalOr":
            put(self.b.op("train.select", [a, self.const_value(np.ones(shape, bool), "i1"), b],
                          [(shape, "i1")]))
        else:
            put(self.b.op(_BINARY[t], [a, b], [(shape, elem)]))

    def map_compare(self, ins, put):
        shape = self.out()[0]
        a, b = self.get(ins[0]), self.get(ins[1])
        if ins[0].dtype.is_integer and self.op.type == "Less" and \
                isinstance(b, np.ndarray) and np.all(b == 0) and not isinstance(a, np.ndarray):
            put(_Pending("index_wrap", why="a test for negative indices"))
            return
        lhs = self.operand(ins[0], shape, _ELEM[ins[0].dtype])
        rhs = self.operand(ins[1], shape, lhs.elem)
        put(self.b.op("train.compare", [lhs, rhs], [(shape, "i1")],
                      {"predicate": Attr("%d : i64" % _COMPARE[self.op.type])}))

    def map_select(self, ins, put):
        shape, elem = self.out()
        cond = self.operand(ins[0], shape, "i1")
        put(self.b.op("train.select", [cond, self.operand(ins[1], shape, elem),
                                       self.operand(ins[2], shape, elem)], [(shape, elem)]))

    def map_logical_not(self, ins, put):
        shape = self.out()[0]
        x = self.val(ins[0])
        put(self.b.op("train.select", [x, self.const_value(np.zeros(shape, bool), "i1"),
                                       self.const_value(np.ones(shape, bool), "i1")],
                      [(shape, "i1")]))

    def map_cast(self, ins, put):
        x = self.val(ins[0])
        shape, elem = self.out()
        if x.elem == elem or (x.elem in ("i32", "i64") and elem in ("i32", "i64")):
            put(x)
        elif x.elem == "i1" and elem == "f32":
            put(self.b.op("train.select", [x, self.fill(1.0, shape), self.fill(0.0, shape)],
                          [(shape, elem)]))
        else:
            raise self.err("a cast from %s to %s" % (x.elem, elem),
                           "Keep the model in float32 (mp chooses the 16-bit types).")

    def map_like(self, ins, put):
        shape, elem = self.out()
        put(self.fill(0.0 if self.op.type == "ZerosLike" else 1.0, shape, elem))

    def map_fill(self, ins, put):
        shape, elem = self.out()
        value = self.get(ins[1])
        if isinstance(value, np.ndarray):
            put(self.fill(float(value), shape, elem))
        else:
            put(self.broadcast_to(self.val(ins[1]), shape))

    def map_erfc(self, ins, put):
        """erfc(x) = 1 - erf(x) (Keras' exact GELU): absolute error ~1e-7
        where erfc is small."""
        x = self.val(ins[0])
        shape = self.out()
        put(self.b.op("train.sub", [self.fill(1.0, x.shape),
                                    self.b.op("train.erf", [x], [shape])], [shape]))

    # --- dilated convolutions: SpaceToBatchND, a convolution, BatchToSpaceND
    # (TensorFlow's form). _Pending "s2b" (value v, block b, pads p) stands for
    # SpaceToBatchND(pad(v, p), b); the convolution on it is one dilated
    # train.conv2d on v.
    def map_space_to_batch(self, ins, put):
        v = self.val(ins[0])
        block = [int(d) for d in self.const(ins[1])]
        pads = [[int(a), int(b)] for a, b in self.const(ins[2]).reshape(-1, 2)]
        if self.layout() != "NHWC" or len(v.shape) != len(block) + 2:
            raise self.err("a space-to-batch other than a dilated convolution's",
                           "Report this graph.")
        put(_Pending("s2b", why="a dilated convolution's space-to-batch", value=v,
                     block=block, pads=pads))

    def pad_value(self, v, pads):
        if not any(a or b for a, b in pads):
            return v
        low = [0] + [a for a, _ in pads] + [0]
        high = [0] + [b for _, b in pads] + [0]
        shape = tuple(d + lo + hi for d, lo, hi in zip(v.shape, low, high))
        return self.b.op("train.pad", [v], [(shape, v.elem)],
                         {"low": low, "high": high, "value": 0.0})

    def s2b_props(self, p, pads):
        if len(p.block) != 2:
            raise self.err("a dilated convolution of %d spatial dimensions" % len(p.block),
                           "Use Conv1D or Conv2D.")
        if self.attr("padding") != "VALID" or any(s != 1 for s in self.attr("strides")):
            raise self.err("a dilated convolution with strides", "Use strides=1.")
        return {"layout": NHWC, "strides": [1, 1], "dilations": p.block,
                "padding": [pads[0][0], pads[0][1], pads[1][0], pads[1][1]]}

    def map_s2b(self, t, ins, vals, put):
        """The ops between a dilated convolution's SpaceToBatchND and
        BatchToSpaceND, forward and backward."""
        p = next(v for v in vals if isinstance(v, _Pending))
        depthwise = t.startswith("Depthwise")
        if t in ("Conv2D", "DepthwiseConv2dNative") and vals[0] is p:
            w, groups = self.filter_value(self.val(ins[1]), depthwise)
            props = self.s2b_props(p, p.pads)
            x = p.value
            hw = [x.shape[i + 1] + sum(p.pads[i]) - (w.shape[i] - 1) * p.block[i]
                  for i in range(2)]
            if not depthwise and x.shape[3] != w.shape[2]:
                groups = {"groups": x.shape[3] // w.shape[2]}
            y = self.b.op("train.conv2d", [x, w], [((x.shape[0], hw[0], hw[1], w.shape[3]),
                                                    x.elem)], dict(props, **groups))
            put(_Pending("s2b", why=p.why, value=y, block=p.block, pads=[[0, 0], [0, 0]]))
        elif t in ("Conv2DBackpropInput", "DepthwiseConv2dNativeBackpropInput") and vals[2] is p:
            sizes = [int(d) for d in self.const(ins[0])]
            w, groups = self.filter_value(self.val(ins[1]), depthwise)
            dy = self.pad_value(p.value, p.pads)
            n = sizes[0] // (p.block[0] * p.block[1])
            shape = (n, sizes[1] * p.block[0], sizes[2] * p.block[1], sizes[3])
            if not depthwise and shape[3] != w.shape[2]:
                groups = {"groups": shape[3] // w.shape[2]}
            dx = self.b.op("train.conv2d_backward_data", [dy, w], [(shape, dy.elem)],
                           dict(self.s2b_props(p, [[0, 0], [0, 0]]), **groups))
            put(_Pending("s2b", why=p.why, value=dx, block=p.block, pads=[[0, 0], [0, 0]]))
        elif t in ("Conv2DBackpropFilter", "DepthwiseConv2dNativeBackpropFilter") and \
                vals[0] is p and isinstance(vals[2], _Pending):
            q = vals[2]
            ws = [int(d) for d in self.const(ins[1])]
            x, dy = p.value, self.pad_value(q.value, q.pads)
            props = self.s2b_props(p, p.pads)
            if depthwise:
                kh, kw, c, m = ws
                dw = self.b.op("train.conv2d_backward_filter", [x, dy],
                               [((kh, kw, 1, c * m), "f32")], dict(props, groups=c))
                put(self.b.op("train.reshape", [dw], [self.out()]))
            else:
                groups = {"groups": x.shape[3] // ws[2]} if x.shape[3] != ws[2] else {}
                put(self.b.op("train.conv2d_backward_filter", [x, dy], [self.out()],
                              dict(props, **groups)))
        elif t == "BatchToSpaceND" and vals[0] is p:
            crops = [[int(a), int(b)] for a, b in self.const(ins[2]).reshape(-1, 2)]
            v = p.value
            if crops == p.pads:
                put(v)
                return
            full = self.pad_value(v, p.pads)
            shape = self.out()
            offsets = [0] + [a for a, _ in crops] + [0]
            put(self.b.op("train.slice", [full], [shape], {"offsets": offsets}))
        elif t in ("ExpandDims", "Reshape", "Squeeze") and vals[0] is p:
            before = ins[0].shape.as_list()
            after = self.op.outputs[0].shape.as_list()
            v = p.value
            if len(after) == len(before) + 1 and after[1] == 1 and \
                    after[:1] + after[2:] == before:
                shape = (v.shape[0], 1) + v.shape[1:]
                put(_Pending("s2b", why=p.why, block=[1] + p.block, pads=[[0, 0]] + p.pads,
                             value=self.b.op("train.reshape", [v], [(shape, v.elem)])))
            elif len(after) + 1 == len(before) and before[1] == 1 and \
                    before[:1] + before[2:] == after and p.block[0] == 1:
                shape = (v.shape[0],) + v.shape[2:]
                put(_Pending("s2b", why=p.why, block=p.block[1:], pads=p.pads[1:],
                             value=self.b.op("train.reshape", [v], [(shape, v.elem)])))
            elif before == after:
                put(p)
            else:
                raise self.err("a reshape inside a dilated convolution", "Report this graph.")
        elif t in ("Identity",):
            put(p)
        else:
            raise self.err("%s used by this op" % p.why, "Report this graph.")

    def map_softplus(self, ins, put):
        """softplus(x) = max(x, 0) + log(1 + exp(-|x|)): no overflow, an
        absolute error of about 1e-7 (where softplus is below 1e-7 it
        reads 0)."""
        x = self.val(ins[0])
        shape = self.out()
        zero = self.fill(0.0, x.shape)
        pos = self.b.op("train.maximum", [x, zero], [shape])
        e = self.b.op("train.exp", [self.b.op("train.neg", [self.b.op("train.abs", [x], [shape])],
                                              [shape])], [shape])
        tail = self.b.op("train.log", [self.b.op("train.add", [e, self.fill(1.0, x.shape)],
                                                 [shape])], [shape])
        put(self.b.op("train.add", [pos, tail], [shape]))

    def map_softplus_grad(self, ins, put):
        """SoftplusGrad(dy, x) = dy * sigmoid(x)."""
        dy, x = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        put(self.b.op("train.mul", [dy, self.b.op("train.sigmoid", [x], [shape])], [shape]))

    def map_call(self, ins, put):
        """A call of a nested tf.function (Keras runs grouped convolutions
        through one compiled with XLA; its gradient is a call too): the
        called graph's ops mapped in place, its inputs bound to the call's."""
        from tensorflow.python.framework.function_def_to_graph import function_def_to_graph
        call = self.op
        fn = call.graph._get_function(call.get_attr("f").name)
        if fn is None:
            raise self.err("a call of a function the graph does not hold", "Report this graph.")
        # The traced FuncGraph when the function object keeps it (static
        # shapes everywhere); its FunctionDef made a graph otherwise.
        inner = getattr(fn, "graph", None)
        if inner is None or len(inner.inputs) != len(ins):
            inner = function_def_to_graph(
                fn.definition, input_shapes=[None if t.dtype == tf.resource else t.shape
                                             for t in ins])
        outer_prefix = self.prefix
        values = [self.get(t) for t in ins]
        self.prefix = "%s%s/" % (outer_prefix, call.name)
        try:
            for t, v in zip(inner.inputs, values):
                self.env[self.prefix + t.name] = v
            needed, stack = set(), [t.op for t in inner.outputs]
            while stack:
                op = stack.pop()
                if op.name not in needed:
                    needed.add(op.name)
                    stack.extend(i.op for i in op.inputs)
            for op in inner.get_operations():
                if op.name in needed and op.type not in ("Placeholder", "NoOp"):
                    self.map_op(op)
            results = [self.get(t) for t in inner.outputs]
        finally:
            self.prefix = outer_prefix
            self.op = call
        for i, v in enumerate(results):
            put(v, i)

    def map_reciprocal(self, ins, put):
        x = self.val(ins[0])
        put(self.b.op("train.div", [self.fill(1.0, x.shape), x], [self.out()]))

    def map_square(self, ins, put):
        x = self.val(ins[0])
        put(self.b.op("train.mul", [x, x], [self.out()]))

    def map_relu6(self, ins, put):
        x = self.val(ins[0])
        shape = self.out()
        lo = self.b.op("train.maximum", [x, self.fill(0.0, x.shape)], [shape])
        put(self.b.op("train.minimum", [lo, self.fill(6.0, x.shape)], [shape]))

    def map_relu6_grad(self, ins, put):
        g, x = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        zero = self.fill(0.0, x.shape)
        above = self.b.op("train.compare", [x, zero], [(x.shape, "i1")],
                          {"predicate": Attr("4 : i64")})
        below = self.b.op("train.compare", [x, self.fill(6.0, x.shape)], [(x.shape, "i1")],
                          {"predicate": Attr("2 : i64")})
        inside = self.b.op("train.select", [above, below,
                                            self.const_value(np.zeros(x.shape, bool), "i1")],
                           [(x.shape, "i1")])
        put(self.b.op("train.select", [inside, g, zero], [shape]))

    def map_leaky_relu(self, ins, put):
        put(self.b.op("train.leaky_relu", [self.val(ins[0])], [self.out()],
                      {"negative_slope": float(self.attr("alpha"))}))

    def map_leaky_relu_grad(self, ins, put):
        put(self.b.op("train.leaky_relu_grad", [self.val(ins[0]), self.val(ins[1])],
                      [self.out()], {"negative_slope": float(self.attr("alpha"))}))

    def map_elu_grad(self, ins, put):
        """EluGrad(dy, y): dy where y > 0, dy * (y + 1) elsewhere (alpha 1)."""
        g, y = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        pos = self.b.op("train.compare", [y, self.fill(0.0, y.shape)], [(y.shape, "i1")],
                        {"predicate": Attr("4 : i64")})
        neg = self.b.op("train.mul", [g, self.b.op("train.add", [y, self.fill(1.0, y.shape)],
                                                   [shape])], [shape])
        put(self.b.op("train.select", [pos, g, neg], [shape]))

    def map_rsqrt_grad(self, ins, put):
        """RsqrtGrad(y, dy) = dy * -0.5 * y^3."""
        y, dy = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        y3 = self.b.op("train.mul", [self.b.op("train.mul", [y, y], [shape]), y], [shape])
        scaled = self.b.op("train.mul", [y3, self.fill(-0.5, y.shape)], [shape])
        put(self.b.op("train.mul", [dy, scaled], [shape]))

    def map_sqrt_grad(self, ins, put):
        """SqrtGrad(y, dy) = dy * 0.5 / y."""
        y, dy = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        scaled = self.b.op("train.mul", [dy, self.fill(0.5, y.shape)], [shape])
        put(self.b.op("train.div", [scaled, y], [shape]))

    def map_softmax(self, ins, put):
        x = self.val(ins[0])
        name = "train.softmax" if self.op.type == "Softmax" else "train.log_softmax"
        put(self.b.op(name, [x], [self.out()], {"axis": len(x.shape) - 1}))

    def map_reduce(self, ins, put):
        x = self.val(ins[0])
        dims = sorted({int(d) % len(x.shape) for d in np.ravel(self.const(ins[1]))})
        shape = self.out()
        if not dims:
            put(x)
            return
        name = {"Sum": "train.reduce_sum", "Mean": "train.reduce_mean",
                "Max": "train.reduce_max", "Min": "min"}[self.op.type]
        kept = tuple(d for i, d in enumerate(x.shape) if i not in dims)
        if name == "min":
            neg = self.b.op("train.neg", [x], [(x.shape, x.elem)])
            r = self.b.op("train.neg", [self.b.op("train.reduce_max", [neg], [(kept, x.elem)],
                                                  {"dims": dims})], [(kept, x.elem)])
        else:
            r = self.b.op(name, [x], [(kept, x.elem)], {"dims": dims})
        put(r if kept == shape[0] else self.b.op("train.reshape", [r], [shape]))

    def map_add_n(self, ins, put):
        shape = self.out()
        acc = self.broadcast_to(self.val(ins[0]), shape[0])
        for x in ins[1:]:
            acc = self.b.op("train.add", [acc, self.broadcast_to(self.val(x), shape[0])], [shape])
        put(acc)

    def map_matmul(self, ins, put):
        props = {}
        if self.attr("transpose_a", self.attr("adj_x", False)):
            props["transpose_lhs"] = True
        if self.attr("transpose_b", self.attr("adj_y", False)):
            props["transpose_rhs"] = True
        put(self.b.op("train.matmul", [self.val(ins[0]), self.val(ins[1])], [self.out()], props))

    def layout(self):
        fmt = self.attr("data_format", "NHWC")
        if fmt not in ("NHWC", "NCHW"):
            raise self.err("data_format %s" % fmt, "Use channels_last or channels_first.")
        return fmt

    def map_bias_add(self, ins, put):
        x = self.val(ins[0])
        props = {"dim": 1} if self.layout() == "NCHW" and len(x.shape) > 2 else {}
        put(self.b.op("train.bias_add", [x, self.val(ins[1])], [self.out()], props))

    def map_bias_add_grad(self, ins, put):
        g = self.val(ins[0])
        keep = 1 if self.layout() == "NCHW" and len(g.shape) > 2 else len(g.shape) - 1
        put(self.b.op("train.reduce_sum", [g], [self.out()],
                      {"dims": [d for d in range(len(g.shape)) if d != keep]}))

    # --- shapes -----------------------------------------------------------------
    def map_reshape(self, ins, put):
        x = self.val(ins[0])
        shape = self.out()
        put(x if x.shape == shape[0] else self.b.op("train.reshape", [x], [shape]))

    def map_transpose(self, ins, put):
        perm = [int(p) for p in self.const(ins[1])]
        x = self.val(ins[0])
        put(x if perm == sorted(perm) else
            self.b.op("train.transpose", [x], [self.out()], {"permutation": perm}))

    def map_tile(self, ins, put):
        """Tile as a broadcast of x with a unit dimension before each tiled
        one: out[r, i] = x[i] for every repeat r."""
        x = self.val(ins[0])
        shape, elem = self.out()
        if self.op.type == "BroadcastTo":
            put(self.broadcast_to(x, shape))
            return
        reps = [int(r) for r in self.const(ins[1])]
        if all(r == 1 or d == 1 for r, d in zip(reps, x.shape)):
            put(self.broadcast_to(x, shape))
            return
        wide = []
        for r, d in zip(reps, x.shape):
            wide += [r, d]
        # x's dimension i is wide's 2i + 1; wide's 2i the repeats.
        y = self.b.op("train.broadcast", [x], [(tuple(wide), elem)],
                      {"dims": list(range(1, len(wide), 2))})
        put(self.b.op("train.reshape", [y], [(shape, elem)]))

    def map_concat(self, ins, put):
        shape, elem = self.out()
        dim = int(self.const(ins[-1])) % len(shape)
        parts = [self.operand(p, tuple(p.shape.as_list()), elem) for p in ins[:-1]]
        put(parts[0] if len(parts) == 1 else
            self.b.op("train.concat", parts, [(shape, elem)], {"dim": dim}))

    def map_pack(self, ins, put):
        shape, elem = self.out()
        axis = int(self.attr("axis", 0)) % len(shape)
        parts = []
        for p in ins:
            v = self.operand(p, tuple(p.shape.as_list()), elem)
            one = list(v.shape)
            one.insert(axis, 1)
            parts.append(self.b.op("train.reshape", [v], [(tuple(one), elem)]))
        put(parts[0] if len(parts) == 1 else
            self.b.op("train.concat", parts, [(shape, elem)], {"dim": axis}))

    def map_unpack(self, ins, put):
        x = self.val(ins[0])
        axis = int(self.attr("axis", 0)) % len(x.shape)
        for i in range(len(self.op.outputs)):
            offsets = [0] * len(x.shape)
            offsets[axis] = i
            part = list(x.shape)
            part[axis] = 1
            s = self.b.op("train.slice", [x], [(tuple(part), x.elem)], {"offsets": offsets})
            put(self.b.op("train.reshape", [s], [self.out(i)]), i)

    def map_split(self, ins, put):
        if self.op.type == "Split":
            x, dim = self.val(ins[1]), int(self.const(ins[0]))
        else:
            x, dim = self.val(ins[0]), int(self.const(ins[2]))
        dim %= len(x.shape)
        start = 0
        for i in range(len(self.op.outputs)):
            shape = self.out(i)
            offsets = [0] * len(x.shape)
            offsets[dim] = start
            put(self.b.op("train.slice", [x], [shape], {"offsets": offsets}), i)
            start += shape[0][dim]

    def slice_spec(self, x_shape, begin, end, strides):
        """StridedSlice's spec as (offsets, sizes, steps) of the input's
        dimensions: an ellipsis spans the dimensions the other entries
        leave; new axes and shrunk ones are the result's reshape."""
        ell, new = self.attr("ellipsis_mask", 0), self.attr("new_axis_mask", 0)
        shrink = self.attr("shrink_axis_mask", 0)
        bmask, emask = self.attr("begin_mask", 0), self.attr("end_mask", 0)
        rank = len(x_shape)
        named = sum(1 for i in range(len(begin)) if not (new >> i & 1 or ell >> i & 1))
        offsets, sizes, steps = [], [], []

        def whole(d):
            offsets.append(0)
            sizes.append(d)
            steps.append(1)
        d = 0
        for i in range(len(begin)):
            if ell >> i & 1:
                for _ in range(rank - named):
                    whole(x_shape[d])
                    d += 1
                continue
            if new >> i & 1:
                continue
            size = x_shape[d]
            d += 1
            s = int(strides[i])
            if s <= 0:
                raise self.err("a negative slice step", "Use positive steps.")
            if shrink >> i & 1:
                offsets.append(int(begin[i]) % size)
                sizes.append(1)
                steps.append(1)
                continue
            b = 0 if bmask >> i & 1 else int(begin[i])
            e = size if emask >> i & 1 else int(end[i])
            b, e, _ = slice(b, e, s).indices(size)
            offsets.append(b)
            sizes.append(max(0, -(-(e - b) // s)))
            steps.append(s)
        while d < rank:
            whole(x_shape[d])
            d += 1
        return offsets, sizes, steps

    def map_strided_slice(self, ins, put):
        x = self.val(ins[0])
        begin, end, strides = (self.const(t) for t in ins[1:4])
        offsets, sizes, steps = self.slice_spec(x.shape, begin, end, strides)
        props = {"offsets": offsets}
        if any(s != 1 for s in steps):
            props["strides"] = steps
        y = self.b.op("train.slice", [x], [(tuple(sizes), x.elem)], props)
        shape = self.out()
        put(y if tuple(sizes) == shape[0] else self.b.op("train.reshape", [y], [shape]))

    def map_strided_slice_grad(self, ins, put):
        """The gradient of a strided slice of step 1: zeros around dy."""
        x_shape = [int(d) for d in self.const(ins[0])]
        begin, end, strides = (self.const(t) for t in ins[1:4])
        offsets, sizes, steps = self.slice_spec(x_shape, begin, end, strides)
        if any(s != 1 for s in steps):
            raise self.err("the gradient of a strided slice with steps",
                           "Slice with step 1.")
        dy = self.val(ins[4])
        dy = self.b.op("train.reshape", [dy], [(tuple(sizes), dy.elem)]) \
            if dy.shape != tuple(sizes) else dy
        high = [d - o - s for d, o, s in zip(x_shape, offsets, sizes)]
        put(self.b.op("train.pad", [dy], [self.out()],
                      {"low": offsets, "high": high, "value": 0.0}))

    def map_slice(self, ins, put):
        x = self.val(ins[0])
        begin = [int(b) for b in self.const(ins[1])]
        shape = self.out()
        put(self.b.op("train.slice", [x], [shape], {"offsets": begin}))

    def map_pad(self, ins, put):
        x = self.val(ins[0])
        pads = self.const(ins[1]).reshape(-1, 2)
        value = float(self.const(ins[2])) if len(ins) > 2 else 0.0
        if self.attr("mode", "CONSTANT") not in ("CONSTANT",):
            raise self.err("padding mode %s" % self.attr("mode"), "Pad with a constant.")
        put(self.b.op("train.pad", [x], [self.out()],
                      {"low": [int(p) for p in pads[:, 0]],
                       "high": [int(p) for p in pads[:, 1]], "value": value}))

    def map_gather(self, ins, put):
        x, indices = self.val(ins[0]), self.val(ins[1])
        axis = int(self.const(ins[2])) % len(x.shape) if len(ins) > 2 else 0
        if self.attr("batch_dims", 0):
            raise self.err("a gather with batch_dims", "Gather with batch_dims=0.")
        if axis == 0 and len(x.shape) == 2 and x.elem == "f32":
            put(self.b.op("train.embedding", [x, indices], [self.out()]))
        else:
            put(self.b.op("train.gather", [x, indices], [self.out()], {"axis": axis}))

    def map_segment_sum(self, ins, put):
        """UnsortedSegmentSum(values, ids, n): an embedding table's gradient
        (TensorFlow's IndexedSlices made dense)."""
        values, ids = self.val(ins[0]), self.val(ins[1])
        shape = self.out()
        if len(shape[0]) != 2 or len(values.shape) != len(ids.shape) + 1:
            raise self.err("a segment sum other than an embedding gradient",
                           "Report this graph.")
        dense = self.b.op("train.embedding_grad", [values, ids], [shape])
        # Keras' optimizers see this gradient as IndexedSlices: their
        # squares and clips act on each row of `values` (keras_training).
        self.sparse[dense.name] = (values, ids)
        put(dense)

    def map_one_hot(self, ins, put):
        indices = self.val(ins[0])
        depth = int(self.const(ins[1]))
        on, off = float(self.const(ins[2])), float(self.const(ins[3]))
        if self.attr("axis", -1) not in (-1, len(indices.shape)) or (on, off) != (1.0, 0.0):
            raise self.err("a one-hot with an axis or on/off values",
                           "Use the default axis and values.")
        put(self.b.op("train.one_hot", [indices], [self.out()], {"num_classes": depth}))

    def map_einsum(self, ins, put):
        from .keras_einsum import einsum
        eq = self.attr("equation")
        put(einsum(self, eq, [self.val(x) for x in ins], self.out()))

    # --- convolutions, pooling, fused batch norm ---------------------------------
    def conv_props(self, in_hw, k_hw):
        fmt = self.layout()
        sh = [1, 2] if fmt == "NHWC" else [2, 3]
        s = [self.attr("strides")[i] for i in sh]
        d = [(self.attr("dilations") or [1, 1, 1, 1])[i] for i in sh]
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
            raise self.err("padding %s" % pad, "Use 'same' or 'valid'.")
        return {"layout": NHWC if fmt == "NHWC" else NCHW, "strides": s,
                "padding": padding, "dilations": d}

    def hw(self, shape):
        return shape[1:3] if self.layout() == "NHWC" else shape[2:4]

    def filter_value(self, w, depthwise):
        """A depthwise filter [kh, kw, C, m] as the grouped filter
        [kh, kw, 1, C * m] (output channel c * m + j in both)."""
        if not depthwise:
            return w, {}
        kh, kw, c, m = w.shape
        return (self.b.op("train.reshape", [w], [((kh, kw, 1, c * m), w.elem)]),
                {"groups": c})

    def map_conv(self, ins, put):
        x, w = self.val(ins[0]), self.val(ins[1])
        depthwise = self.op.type.startswith("Depthwise")
        props = self.conv_props(self.hw(x.shape), w.shape[0:2])
        w, groups = self.filter_value(w, depthwise)
        if not depthwise and x.shape[3 if self.layout() == "NHWC" else 1] != w.shape[2]:
            groups = {"groups": x.shape[3 if self.layout() == "NHWC" else 1] // w.shape[2]}
        put(self.b.op("train.conv2d", [x, w], [self.out()], dict(props, **groups)))

    def map_conv_backprop_input(self, ins, put):
        w, g = self.val(ins[1]), self.val(ins[2])
        depthwise = self.op.type.startswith("Depthwise")
        xs = [int(d) for d in self.const(ins[0])]
        props = self.conv_props(self.hw(xs), w.shape[0:2])
        cin = xs[3 if self.layout() == "NHWC" else 1]
        w, groups = self.filter_value(w, depthwise)
        if not depthwise and cin != w.shape[2]:
            groups = {"groups": cin // w.shape[2]}
        put(self.b.op("train.conv2d_backward_data", [g, w], [self.out()], dict(props, **groups)))

    def map_conv_backprop_filter(self, ins, put):
        x, g = self.val(ins[0]), self.val(ins[2])
        depthwise = self.op.type.startswith("Depthwise")
        ws = [int(d) for d in self.const(ins[1])]
        props = self.conv_props(self.hw(x.shape), ws[0:2])
        cin = x.shape[3 if self.layout() == "NHWC" else 1]
        if depthwise:
            kh, kw, c, m = ws
            dw = self.b.op("train.conv2d_backward_filter", [x, g],
                           [((kh, kw, 1, c * m), "f32")], dict(props, groups=c))
            put(self.b.op("train.reshape", [dw], [self.out()]))
            return
        groups = {"groups": cin // ws[2]} if cin != ws[2] else {}
        put(self.b.op("train.conv2d_backward_filter", [x, g], [self.out()],
                      dict(props, **groups)))

    def pool_props(self, x_shape):
        fmt = self.layout()
        sh = [1, 2] if fmt == "NHWC" else [2, 3]
        k = [self.attr("ksize")[i] for i in sh]
        s = [self.attr("strides")[i] for i in sh]
        hw = [x_shape[i] for i in sh]
        padding = [0, 0, 0, 0] if self.attr("padding") == "VALID" else list(
            _same_pad(hw[0], k[0], s[0], 1) + _same_pad(hw[1], k[1], s[1], 1))
        return {"layout": NHWC if fmt == "NHWC" else NCHW, "kernel": k, "strides": s,
                "padding": padding}

    def map_max_pool(self, ins, put):
        x = self.val(ins[0])
        put(self.b.op("train.max_pool2d", [x], [self.out()], self.pool_props(x.shape)))

    def map_max_pool_grad(self, ins, put):
        x, g = self.val(ins[0]), self.val(ins[2])
        put(self.b.op("train.max_pool2d_grad", [g, x], [self.out()], self.pool_props(x.shape)))

    def map_avg_pool(self, ins, put):
        x = self.val(ins[0])
        props = self.pool_props(x.shape)
        if any(props["padding"]):
            raise self.err("average pooling with 'same' padding (TensorFlow divides by "
                           "the window's valid elements)", "Use padding='valid'.")
        put(self.b.op("train.avg_pool2d", [x], [self.out()], props))

    def map_avg_pool_grad(self, ins, put):
        xs = [int(d) for d in self.const(ins[0])]
        g = self.val(ins[1])
        props = self.pool_props(xs)
        if any(props["padding"]):
            raise self.err("average pooling with 'same' padding", "Use padding='valid'.")
        put(self.b.op("train.avg_pool2d_grad", [g], [self.out()], props))


def _unary(name, props=None):
    def handler(self, ins, put):
        put(self.b.op(name, [self.val(ins[0])], [self.out()], props or {}))
    return handler


def _act_grad(name, grad_first):
    """TensorFlow's activation gradients: (dy, x) or (y, dy)."""
    def handler(self, ins, put):
        a, b = self.val(ins[0]), self.val(ins[1])
        put(self.b.op(name, [a, b] if grad_first else [b, a], [self.out()]))
    return handler


_BINARY = {"Add": "train.add", "AddV2": "train.add", "Sub": "train.sub", "Mul": "train.mul",
           "RealDiv": "train.div", "Maximum": "train.maximum", "Minimum": "train.minimum",
           "Pow": "train.pow"}

_GRAPH_OPS = {
    "Const": Mapper.map_const,
    "Identity": Mapper.map_identity,
    "StopGradient": Mapper.map_identity,
    "Snapshot": Mapper.map_identity,
    "PreventGradient": Mapper.map_identity,
    "IdentityN": Mapper.map_identity_n,
    "Shape": Mapper.map_shape,
    "ShapeN": Mapper.map_shape,
    "Size": Mapper.map_size,
    "Rank": Mapper.map_size,
    "VariableShape": Mapper.map_variable_shape,
}
_STATE_OPS = {
    "ReadVariableOp": Mapper.map_read_variable,
    "AssignVariableOp": Mapper.map_assign,
    "AssignAddVariableOp": Mapper.map_assign,
    "AssignSubVariableOp": Mapper.map_assign,
}
_TENSOR_OPS = {
    "MatMul": Mapper.map_matmul, "BatchMatMulV2": Mapper.map_matmul,
    "BatchMatMulV3": Mapper.map_matmul, "BatchMatMul": Mapper.map_matmul,
    "BiasAdd": Mapper.map_bias_add, "BiasAddGrad": Mapper.map_bias_add_grad,
    "Relu": _unary("train.relu"),
    "Neg": _unary("train.neg"),
    "Exp": _unary("train.exp"),
    "Log": _unary("train.log"),
    "Sqrt": _unary("train.sqrt"),
    "Rsqrt": _unary("train.rsqrt"),
    "Tanh": _unary("train.tanh"),
    "Sigmoid": _unary("train.sigmoid"),
    "Erf": _unary("train.erf"),
    "Abs": _unary("train.abs"),
    "Sign": _unary("train.sign"),
    "Elu": _unary("train.elu", {"alpha": 1.0}),
    "Relu6": Mapper.map_relu6, "Relu6Grad": Mapper.map_relu6_grad,
    "LeakyRelu": Mapper.map_leaky_relu, "LeakyReluGrad": Mapper.map_leaky_relu_grad,
    "EluGrad": Mapper.map_elu_grad,
    "Erfc": Mapper.map_erfc,
    "Softplus": Mapper.map_softplus, "SoftplusGrad": Mapper.map_softplus_grad,
    "SpaceToBatchND": Mapper.map_space_to_batch,
    "StatefulPartitionedCall": Mapper.map_call, "PartitionedCall": Mapper.map_call,
    "Reciprocal": Mapper.map_reciprocal, "Inv": Mapper.map_reciprocal,
    "Square": Mapper.map_square,
    "ReluGrad": _act_grad("train.relu_grad", True),
    "TanhGrad": _act_grad("train.tanh_grad", False),
    "SigmoidGrad": _act_grad("train.sigmoid_grad", False),
    "RsqrtGrad": Mapper.map_rsqrt_grad, "SqrtGrad": Mapper.map_sqrt_grad,
    "Softmax": Mapper.map_softmax, "LogSoftmax": Mapper.map_softmax,
    "Cast": Mapper.map_cast,
    "ZerosLike": Mapper.map_like, "OnesLike": Mapper.map_like, "Fill": Mapper.map_fill,
    "Select": Mapper.map_select, "SelectV2": Mapper.map_select,
    "LogicalNot": Mapper.map_logical_not,
    "Sum": Mapper.map_reduce, "Mean": Mapper.map_reduce, "Max": Mapper.map_reduce,
    "Min": Mapper.map_reduce,
    "AddN": Mapper.map_add_n,
    "Reshape": Mapper.map_reshape, "ExpandDims": Mapper.map_reshape,
    "Squeeze": Mapper.map_reshape,
    "Transpose": Mapper.map_transpose,
    "Tile": Mapper.map_tile, "BroadcastTo": Mapper.map_tile,
    "ConcatV2": Mapper.map_concat, "Pack": Mapper.map_pack, "Unpack": Mapper.map_unpack,
    "Split": Mapper.map_split, "SplitV": Mapper.map_split,
    "StridedSlice": Mapper.map_strided_slice,
    "StridedSliceGrad": Mapper.map_strided_slice_grad,
    "Slice": Mapper.map_slice, "Pad": Mapper.map_pad, "PadV2": Mapper.map_pad,
    "GatherV2": Mapper.map_gather, "UnsortedSegmentSum": Mapper.map_segment_sum,
    "OneHot": Mapper.map_one_hot, "Einsum": Mapper.map_einsum,
    "Conv2D": Mapper.map_conv, "DepthwiseConv2dNative": Mapper.map_conv,
    "Conv2DBackpropInput": Mapper.map_conv_backprop_input,
    "DepthwiseConv2dNativeBackpropInput": Mapper.map_conv_backprop_input,
    "Conv2DBackpropFilter": Mapper.map_conv_backprop_filter,
    "DepthwiseConv2dNativeBackpropFilter": Mapper.map_conv_backprop_filter,
    "MaxPool": Mapper.map_max_pool, "MaxPoolGrad": Mapper.map_max_pool_grad,
    "AvgPool": Mapper.map_avg_pool, "AvgPoolGrad": Mapper.map_avg_pool_grad,
}
for _t in list(_BINARY) + ["SquaredDifference", "DivNoNan", "LogicalAnd", "LogicalOr"]:
    _TENSOR_OPS[_t] = Mapper.map_binary
for _t in _COMPARE:
    _TENSOR_OPS[_t] = Mapper.map_compare


def _bga(m, a):
    s0, s1 = [list(x) for x in a]
    n = max(len(s0), len(s1))
    s0, s1 = [1] * (n - len(s0)) + s0, [1] * (n - len(s1)) + s1
    return [np.array([i for i in range(n) if s0[i] == 1 and s1[i] != 1]),
            np.array([i for i in range(n) if s1[i] == 1 and s0[i] != 1])]


def _strided_slice(m, a):
    x, begin, end, strides = a
    offsets, sizes, steps = m.slice_spec(x.shape, begin, end, strides)
    sl = tuple(slice(o, o + s * st, st) for o, s, st in zip(offsets, sizes, steps))
    return x[sl].reshape(m.op.outputs[0].shape.as_list())


def _concat_offset(m, a):
    """Where each input of a concat starts (its gradient's slices)."""
    dim, shapes = int(a[0]), a[1:]
    out, start = [], 0
    for shape in shapes:
        offset = np.zeros_like(shape)
        offset[dim % len(shape)] = start
        out.append(offset)
        start += int(shape[dim % len(shape)])
    return out


def _band_part(m, a):
    """tf.linalg.band_part: keeps lower (negative: all) diagonals below and
    upper above the main one (Keras' causal mask)."""
    x, lower, upper = a[0], int(a[1]), int(a[2])
    r, c = x.shape[-2:]
    i, j = np.arange(r)[:, None], np.arange(c)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return np.where(keep, x, np.zeros_like(x))


_FOLD = {
    "Prod": lambda m, a: np.prod(a[0], axis=tuple(np.ravel(a[1])), keepdims=bool(m.attr("keep_dims"))),
    "Sum": lambda m, a: np.sum(a[0], axis=tuple(np.ravel(a[1])), keepdims=bool(m.attr("keep_dims"))),
    "Max": lambda m, a: np.max(a[0], axis=tuple(np.ravel(a[1])), keepdims=bool(m.attr("keep_dims"))),
    "Cast": lambda m, a: a[0],
    "Pack": lambda m, a: np.stack(a, axis=m.attr("axis", 0)),
    "ConcatV2": lambda m, a: np.concatenate(a[:-1], axis=int(a[-1])),
    "Fill": lambda m, a: np.full([int(d) for d in a[0]], a[1]),
    "Reshape": lambda m, a: np.reshape(a[0], [int(d) for d in a[1]]),
    "ExpandDims": lambda m, a: np.expand_dims(a[0], int(a[1])),
    "Squeeze": lambda m, a: np.reshape(a[0], m.op.outputs[0].shape.as_list()),
    "Maximum": lambda m, a: np.maximum(a[0], a[1]),
    "Minimum": lambda m, a: np.minimum(a[0], a[1]),
    "FloorDiv": lambda m, a: np.floor_divide(a[0], a[1]),
    "FloorMod": lambda m, a: np.mod(a[0], a[1]),
    "Add": lambda m, a: a[0] + a[1], "AddV2": lambda m, a: a[0] + a[1],
    "Sub": lambda m, a: a[0] - a[1], "Mul": lambda m, a: a[0] * a[1],
    "RealDiv": lambda m, a: a[0] / a[1],
    "DivNoNan": lambda m, a: np.where(a[1] == 0, 0, a[0] / np.where(a[1] == 0, 1, a[1])),
    "Neg": lambda m, a: -a[0], "Sqrt": lambda m, a: np.sqrt(a[0]),
    "Range": lambda m, a: np.arange(a[0], a[1], a[2]),
    "BroadcastGradientArgs": _bga, "StridedSlice": _strided_slice,
    "GatherV2": lambda m, a: np.take(a[0], a[1], axis=int(a[2])),
    "Identity": lambda m, a: a[0],
    "InvertPermutation": lambda m, a: np.argsort(a[0]),
    "Transpose": lambda m, a: np.transpose(a[0], [int(p) for p in a[1]]),
    "ZerosLike": lambda m, a: np.zeros_like(a[0]),
    "OnesLike": lambda m, a: np.ones_like(a[0]),
    "Equal": lambda m, a: a[0] == a[1], "NotEqual": lambda m, a: a[0] != a[1],
    "Less": lambda m, a: a[0] < a[1], "Greater": lambda m, a: a[0] > a[1],
    "LessEqual": lambda m, a: a[0] <= a[1], "GreaterEqual": lambda m, a: a[0] >= a[1],
    "SelectV2": lambda m, a: np.where(a[0], a[1], a[2]),
    "MatrixBandPart": _band_part,
    "ConcatOffset": _concat_offset,
    "Slice": lambda m, a: a[0][tuple(slice(int(b), None if int(n) < 0 else int(b) + int(n))
                                     for b, n in zip(a[1], a[2]))],
}
