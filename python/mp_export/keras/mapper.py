"""The TensorFlow graph of a Keras 3 model's forward and backward pass,
mapped op by op to the train dialect (keras/exporter.py drives it).

The graph is a `tf.function`'s concrete graph with static shapes. Shape
arithmetic (Shape, BroadcastGradientArgs, Prod, ...) is folded with numpy
(keras/fold.py) whenever every input is a constant. This file holds the
mapper's core, the elementwise and reduction handlers and the tables;
keras/shapes.py the shape handlers, keras/layers.py the layer handlers
and the pending patterns.
Variable reads become the step's params and buffers; the assignments Keras
makes in the forward pass (batch-norm moving statistics) become updated
buffers. Integer arithmetic
on indices that is not constant (Keras' wrap of negative embedding indices)
is not emitted: such values are _Pending and only the patterns that consume
them (the wrap's select, dropout's random stream) accept them.
"""
import numpy as np
import tensorflow as tf

from ..vocabulary import ComparePredicate
from ..common import BUFFER
from ..common import Attr, ExportError, dense_constant
from .common import _Pending
from .fold import FOLD as _FOLD
from .layers import LayerHandlers
from .shapes import ShapeHandlers


class _Resource:
    def __init__(self, kind, name=None, var=None):
        self.kind, self.name, self.var = kind, name, var


_ELEM = {tf.float32: "f32", tf.int64: "i64", tf.int32: "i32", tf.bool: "i1"}
_COMPARE = {"Equal": ComparePredicate.eq, "NotEqual": ComparePredicate.ne,
            "Less": ComparePredicate.lt, "LessEqual": ComparePredicate.le,
            "Greater": ComparePredicate.gt, "GreaterEqual": ComparePredicate.ge}


def _scope(op_name):
    """The Keras layer of a graph node: its name scope without the op."""
    parts = [p for p in op_name.split("/") if p != "gradient_tape"]
    return "/".join(parts[:-1]) or op_name


class Mapper(LayerHandlers, ShapeHandlers):
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
                           "python/mp_export/keras/mapper.py.")

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
        if res.kind != BUFFER or self.op.type != "AssignVariableOp":
            raise self.err("the step assigns to '%s' (a %s)" % (res.name, res.kind),
                           "Only non-trainable state (batch-norm moving statistics) may "
                           "be assigned in the forward pass; the optimizer is exported "
                           "from its Keras object.")
        value = self.val(ins[1])
        self.state[res.name] = value
        self.updated[res.name] = value

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
                                {"predicate": Attr("%d : i64" % ComparePredicate.eq)})
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
        elif x.elem in ("i32", "i64") and elem.startswith("f") and self._only_cast_back():
            # Integer ids through a float Input and back (a Sequential built
            # on integer ids casts them to its float input, its Embedding
            # back to int32): the ids themselves. TensorFlow's round trip
            # is exact below 2^24 (float32's integers); larger ids it would
            # round, mp keeps.
            put(x)
        elif x.elem == "i1" and elem == "f32":
            put(self.b.op("train.select", [x, self.fill(1.0, shape), self.fill(0.0, shape)],
                          [(shape, elem)]))
        elif x.elem.startswith("f") and elem.startswith("i"):
            # Float to integer: token ids fed through a float Input (an
            # Embedding casts them), or ids computed from floats; the step
            # has no float -> integer op.
            raise self.err("a cast from %s to %s (integer ids made from floats: an "
                           "Embedding fed by a float Input casts it)" % (x.elem, elem),
                           "Declare the ids' input as integers: keras.Input(shape, "
                           "dtype='int32'), and feed integer arrays.")
        else:
            raise self.err("a cast from %s to %s" % (x.elem, elem),
                           "Keep the model in float32 (mp chooses the 16-bit types).")

    def _only_cast_back(self):
        """This op's outputs feed only Casts to integer types."""
        consumers = [c for out in self.op.outputs for c in out.consumers()]
        return bool(consumers) and all(
            c.type == "Cast" and c.outputs[0].dtype.is_integer for c in consumers)

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
                          {"predicate": Attr("%d : i64" % ComparePredicate.gt)})
        below = self.b.op("train.compare", [x, self.fill(6.0, x.shape)], [(x.shape, "i1")],
                          {"predicate": Attr("%d : i64" % ComparePredicate.lt)})
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
                        {"predicate": Attr("%d : i64" % ComparePredicate.gt)})
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
    "Transpose": Mapper.map_transpose, "ReverseV2": Mapper.map_reverse,
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
