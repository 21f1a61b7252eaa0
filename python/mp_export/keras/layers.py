"""The Keras mapper's layer handlers (a mixin of mapper.Mapper):
the pending patterns (integer index arithmetic, dropout's random stream,
dilated convolutions' space-to-batch), calls of nested tf.functions,
gathers and embeddings, einsum, convolutions and pooling."""
import numpy as np
import tensorflow as tf

from ..common import NCHW, NHWC, dense_constant, dropout_state
from .common import _Pending, same_pad


class LayerHandlers:
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
                          self.dropout_props(p.mask, self.out()[0])))
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
                          self.dropout_props(mask, self.out()[0])))
        else:
            put(_Pending("dropout_masked", why="a dropout gradient", value=x, mask=mask))

    def dropout_state(self):
        return dropout_state(self.b)

    def dropout_props(self, mask, shape):
        """p, site and, for a noise_shape smaller than the input
        (SpatialDropout1D/2D/3D, EfficientNet's stochastic depth: one draw
        per sample, or per sample and channel), the mask's own shape, which
        train.dropout broadcasts."""
        props = {"p": mask.p, "site": mask.site}
        drawn = tuple(int(d) for d in mask.shape)
        shape = tuple(int(d) for d in shape)
        drawn = (1,) * (len(shape) - len(drawn)) + drawn
        if drawn != shape:
            if len(drawn) != len(shape) or any(m != 1 and m != d
                                               for m, d in zip(drawn, shape)):
                raise self.err("a dropout noise_shape %s that does not broadcast to %s" % (
                    mask.shape, shape), "Use a noise_shape of 1s and the input's sizes.")
            props["mask_shape"] = list(drawn)
        return props

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
        self.const(ins[1])  # the depth must be a constant: the result type's last dim
        on, off = float(self.const(ins[2])), float(self.const(ins[3]))
        if self.attr("axis", -1) not in (-1, len(indices.shape)) or (on, off) != (1.0, 0.0):
            raise self.err("a one-hot with an axis or on/off values",
                           "Use the default axis and values.")
        put(self.b.op("train.one_hot", [indices], [self.out()]))  # C: the type's last dim

    def map_einsum(self, ins, put):
        from .einsum import einsum
        eq = self.attr("equation")
        put(einsum(self, eq, [self.val(x) for x in ins], self.out()))

    # --- convolutions and pooling ------------------------------------------------
    def conv_props(self, in_hw, k_hw):
        fmt = self.layout()
        sh = [1, 2] if fmt == "NHWC" else [2, 3]
        s = [self.attr("strides")[i] for i in sh]
        d = [(self.attr("dilations") or [1, 1, 1, 1])[i] for i in sh]
        pad = self.attr("padding")
        if pad == "VALID":
            padding = [0, 0, 0, 0]
        elif pad == "SAME":
            padding = list(same_pad(in_hw[0], k_hw[0], s[0], d[0]) +
                           same_pad(in_hw[1], k_hw[1], s[1], d[1]))
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
            same_pad(hw[0], k[0], s[0], 1) + same_pad(hw[1], k[1], s[1], 1))
        return {"layout": NHWC if fmt == "NHWC" else NCHW, "kernel": k, "strides": s,
                "padding": padding}

    def map_max_pool(self, ins, put):
        x = self.val(ins[0])
        put(self.b.op("train.max_pool2d", [x], [self.out()], self.pool_props(x.shape)))

    def map_max_pool_grad(self, ins, put):
        x, g = self.val(ins[0]), self.val(ins[2])
        put(self.b.op("train.max_pool2d_grad", [g, x], [self.out()], self.pool_props(x.shape)))

    def valid_scale(self, props, x_shape, out_shape):
        """TensorFlow's 'same' average pooling divides each window by its
        elements inside the image, train.avg_pool2d by the whole window
        (padding counted): the per-position factor window / valid, a
        constant of the output's shape (None where no window overhangs)."""
        if not any(props["padding"]):
            return None
        sh = [1, 2] if props["layout"] == NHWC else [2, 3]
        factors = []
        for axis in range(2):
            size, k, s = x_shape[sh[axis]], props["kernel"][axis], props["strides"][axis]
            before = props["padding"][2 * axis]
            factors.append([k / (min(o * s - before + k, size) - max(o * s - before, 0))
                            for o in range(out_shape[sh[axis]])])
        table = np.outer(factors[0], factors[1]).astype(np.float32)
        c = dense_constant(self.b, table, "f32")
        return self.b.op("train.broadcast", [c], [(tuple(out_shape), "f32")], {"dims": sh})

    def map_avg_pool(self, ins, put):
        x = self.val(ins[0])
        props = self.pool_props(x.shape)
        shape, elem = self.out()
        pooled = self.b.op("train.avg_pool2d", [x], [(shape, elem)], props)
        scale = self.valid_scale(props, x.shape, shape)
        put(pooled if scale is None else
            self.b.op("train.mul", [pooled, scale], [(shape, elem)]))

    def map_avg_pool_grad(self, ins, put):
        xs = [int(d) for d in self.const(ins[0])]
        g = self.val(ins[1])
        props = self.pool_props(xs)
        scale = self.valid_scale(props, xs, g.shape)
        if scale is not None:
            g = self.b.op("train.mul", [g, scale], [(g.shape, g.elem)])
        put(self.b.op("train.avg_pool2d_grad", [g], [self.out()], props))
