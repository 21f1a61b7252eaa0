"""Maps the nodes of one make_fx graph to train ops: the _Mapper (its
helpers, map_node, the shape and elementwise handlers; torch/layers.py has
the layers'), the tables of which aten op maps how (_ATEN, _IDENTITY, the
views) and the decomposition table the trace uses."""
import operator

from ..vocabulary import ComparePredicate
from ..common import Attr, ExportError
from .common import (_Like, _Pending, _binary, _compare, _elem, _elementwise, _reduce,
                           _user_frame, aten)
from .layers import LayerHandlers
from .views import ViewHandlers
from .indexing import IndexHandlers


class _Mapper(LayerHandlers, ViewHandlers, IndexHandlers):
    """Maps the nodes of one make_fx graph to train ops."""

    def __init__(self, builder, shapes, names):
        self.b = builder
        self.shapes = shapes      # node -> (shape, torch dtype) or list of them
        self.names = names        # placeholder node -> human name
        self.env = {}
        self.transposed = {}      # Value name -> source Value (last-two-dims transpose)
        self.buffer_updates = {}  # placeholder node -> new Value
        self.param_nodes = set()  # the parameters' placeholders
        self.name = "?"           # the node being mapped: its op
        self.where = "?"          # ... and where it is, for errors
        self.label_smoothing = 0.0  # the loss object's, read by export()

    # --- helpers ---------------------------------------------------------
    def err(self, op, why, todo):
        return ExportError("aten", op, self.where, why, todo)

    def meta(self, node, index=None):
        info = self.shapes[node]
        if index is not None:
            info = info[index]
        shape, dtype = info
        return tuple(shape), _elem(dtype, self.where)

    def v(self, arg):
        value = self.env.get(arg)
        if value is None:
            raise self.err(str(arg), "its input was not mapped", "Report this graph.")
        if isinstance(value, _Pending):
            raise self.err(str(arg), "an intermediate of a fused pattern "
                           "(%s) is used on its own" % value.kind,
                           "Use F.cross_entropy(logits, labels); for label smoothing "
                           "pass loss_fn=nn.CrossEntropyLoss(label_smoothing=e) (or "
                           "functools.partial(F.cross_entropy, label_smoothing=e)), "
                           "which the exporter reads.")
        return value

    def fill(self, value, like):
        return self.b.op("train.fill", [], [(like.shape, like.elem)],
                         {"value": float(value)})

    def broadcast_to(self, x, shape):
        shape = tuple(shape)
        if x.shape == shape:
            return x
        offset = len(shape) - len(x.shape)
        if offset < 0 or any(d != 1 and d != shape[offset + i]
                             for i, d in enumerate(x.shape)):
            raise self.err("broadcast", "cannot broadcast %s to %s" % (x.shape, shape),
                           "Report this graph.")
        if all(d == shape[offset + i] for i, d in enumerate(x.shape)) or not x.shape:
            return self.b.op("train.broadcast", [x], [(shape, x.elem)],
                             {"dims": list(range(offset, len(shape)))})
        # Drop the size-1 dims that grow, then broadcast.
        keep = [i for i, d in enumerate(x.shape) if d == shape[offset + i]]
        squeezed = self.b.op("train.reshape", [x],
                             [(tuple(x.shape[i] for i in keep), x.elem)])
        return self.b.op("train.broadcast", [squeezed], [(shape, x.elem)],
                         {"dims": [offset + i for i in keep]})

    def operand(self, arg, like_shape, elem):
        """A tensor operand broadcast to like_shape, or a scalar filled."""
        if isinstance(arg, (int, float)):
            return self.b.op("train.fill", [], [(like_shape, elem)],
                             {"value": float(arg)})
        return self.broadcast_to(self.v(arg), like_shape)

    def transpose(self, x, perm):
        perm = list(perm)
        if perm == list(range(len(perm))):
            return x
        src = self.transposed.get(x.name)
        rank = len(x.shape)
        last2 = list(range(rank - 2)) + [rank - 1, rank - 2]
        if src is not None and perm == last2:
            return src
        shape = tuple(x.shape[p] for p in perm)
        out = self.b.op("train.transpose", [x], [(shape, x.elem)],
                        {"permutation": perm})
        if rank >= 2 and perm == last2:
            self.transposed[out.name] = x
        return out

    def matmul(self, a, b, out_shape, out_elem):
        ta = self.transposed.get(a.name)
        tb = self.transposed.get(b.name)
        props = {}
        if ta is not None and (len(ta.shape) == 2 or len(b.shape) > 2):
            a, props["transpose_lhs"] = ta, True
        if tb is not None:
            b, props["transpose_rhs"] = tb, True
        return self.b.op("train.matmul", [a, b], [(out_shape, out_elem)], props)

    def reduce(self, name, x, dims, keep, out_shape):
        rank = len(x.shape)
        dims = sorted(set(d % rank for d in dims)) if dims else list(range(rank))
        props = {"dims": dims}
        if keep:
            props["keep_dims"] = True
        return self.b.op(name, [x], [(out_shape, x.elem)], props)

    # --- the mapping -----------------------------------------------------
    def map_node(self, node):
        """Maps one call_function node: by its target's entry in _ATEN, once
        getitem, unused nodes and the _IDENTITY ops are out of the way."""
        t = node.target
        a = node.args
        name = self.name = getattr(t, "__name__", str(t))
        frame = _user_frame(node.meta.get("stack_trace"))
        self.b.loc = frame[:2] if frame else None
        if frame:
            self.where = "node '%s' at %s:%d (%s)" % (node.name, frame[0],
                                                      frame[1], frame[2])
        else:
            self.where = "node '%s' (%s)" % (node.name, name)
        if t is operator.getitem:
            src = self.env[a[0]]
            self.env[node] = src[a[1]] if isinstance(src, (list, tuple)) else src
            return
        if getattr(t, "namespace", None) == "profiler":
            # record_function's markers (optimizer.zero_grad() in a step
            # function has one): no values.
            self.env[node] = None
            return
        if t is aten.copy_.default and getattr(a[0], "op", None) == "placeholder":
            self.write_back(node, a)
            return
        if t in (aten.add.Tensor, aten.add.Scalar) and isinstance(
                self.env.get(a[0]), _Pending) and self.env[a[0]].kind == "num_batches_tracked":
            self.env[node] = self.env[a[0]]  # num_batches_tracked + 1: not exported
            return
        if not node.users:
            # Unused: nothing to map (e.g. batch norm's empty "reserve"
            # tensor) unless it mutates a tensor (functionalization leaves
            # in-place ops only in PyTorch's decompositions).
            if name.split(".")[0].endswith("_"):  # add_.Tensor
                raise self.err(name, "an in-place update whose result is unused",
                               "Report this graph.")
            return
        if t in _IDENTITY:
            if t == aten._to_copy.default and self.shapes[node][1] != self.shapes[a[0]][1]:
                src, dst = self.shapes[a[0]][1], self.shapes[node][1]
                if src.is_floating_point and dst.is_floating_point:
                    raise self.err(name, "a conversion from %s to %s" % (src, dst),
                                   "Keep the model in float32; mp's passes choose the "
                                   "precision.")
                raise self.err(name, "a conversion from %s to %s of a tensor the step "
                               "computes (no train op converts between integers and "
                               "floats; one of constants or buffers is folded)" % (src, dst),
                               "Feed the values in the type the model uses them in, or "
                               "compute them from constants.")
            self.env[node] = self.env[a[0]]
            return

        shape, elem = (None, None)
        if not isinstance(self.shapes.get(node), list):
            shape, elem = self.meta(node)
        handler = _ATEN.get(t)
        if handler is None:
            handler = self.in_place_as_functional(node, t)
        if handler is None:
            raise self.no_mapping(t)
        self.env[node] = handler(self, node, a, shape, elem)

    def write_back(self, node, a):
        """copy_(placeholder, value): functionalization writing the forward's
        in-place update of an input back. A buffer's is its new value (a
        step result); the batch's is dropped (the step does not return its
        inputs, and its own ops read the updated value). A parameter's is
        refused: the optimizer's update is the step's only write to one."""
        dst = a[0]
        name = self.names.get(dst)
        if dst in self.param_nodes:
            frame = _user_frame(getattr(a[1], "meta", {}).get("stack_trace"))
            raise ExportError("torch", "in-place update", "parameter '%s'" % name + (
                " at %s:%d (%s)" % frame if frame else ""),
                "the forward overwrites a parameter (the optimizer's update is the "
                "step's only write to parameters)",
                "Move the update into the training loop after optimizer.step(), or "
                "keep that state in a buffer.")
        if name is None or name.endswith("num_batches_tracked"):
            return
        self.buffer_updates[dst] = self.map_copy(node, a, *self.meta(node))

    def in_place_as_functional(self, node, t):
        """The handler of the functional form of in-place op `t`
        (logical_and_ -> logical_and) when the tensor it mutates is a
        temporary that nothing reads after it (PyTorch's decompositions
        write such updates); None otherwise."""
        packet = t._opname
        if not packet.endswith("_") or not node.args:
            return None
        functional = _IN_PLACE_VIEWS.get(t) or getattr(
            getattr(aten, packet[:-1], None), t._overloadname, None)
        target = node.args[0]
        if functional not in _ATEN or getattr(target, "op", None) != "call_function":
            return None
        # The tensor it overwrites and every tensor sharing its memory (the
        # bases it is a view of, their other views): none may be read after
        # the update, or the functional form would give them the old values.
        aliases, todo = set(), [target]
        while todo:
            n = todo.pop()
            if n in aliases or getattr(n, "op", None) != "call_function":
                if getattr(n, "op", None) == "placeholder":
                    return None  # a parameter, a buffer, an input: state
                continue
            aliases.add(n)
            if n.target in _VIEWS and n.args:
                todo.append(n.args[0])
            todo.extend(u for u in n.users if u.target in _VIEWS or
                        u.target is operator.getitem)
        order = {n: i for i, n in enumerate(node.graph.nodes)}
        if any(order[u] > order[node] for alias in aliases for u in alias.users
               if u is not node and u.target not in _VIEWS and
               u.target is not operator.getitem):
            return None
        return _ATEN[functional]

    def no_mapping(self, t):
        """The error for aten op `t`, which has no mapping."""
        return self.err(str(t), "no mapping to the train dialect",
                        "Rewrite that part of the model with supported layers "
                        "(docs/exporters.md lists them) or add a mapping in "
                        "python/mp_export/torch/mapper.py.")

    # --- handlers, _ATEN's values: (node, node.args, the result's shape and
    # elem, both None for a node with several results) -> the node's value
    # (a Value, a list of them, or a _Pending) ----------------------------
    def map_t(self, node, a, shape, elem):
        x = self.v(a[0])  # t() of a rank < 2 tensor is the tensor itself
        return self.transpose(x, [1, 0]) if len(x.shape) == 2 else x

    def map_transpose(self, node, a, shape, elem):
        x = self.v(a[0])
        perm = list(range(len(x.shape)))
        d0, d1 = a[1] % len(perm), a[2] % len(perm)
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return self.transpose(x, perm)

    def map_permute(self, node, a, shape, elem):
        x = self.v(a[0])
        return self.transpose(x, [d % len(x.shape) for d in a[1]])

    def map_split(self, node, a, shape, elem):
        x = self.v(a[0])
        dim = (a[2] if len(a) > 2 else node.kwargs.get("dim", 0)) % len(x.shape)
        outs, start = [], 0
        for shape_i, elem_i in (self.meta(node, i) for i in range(len(self.shapes[node]))):
            offsets = [0] * len(x.shape)
            offsets[dim] = start
            outs.append(self.b.op("train.slice", [x], [(shape_i, elem_i)], {"offsets": offsets}))
            start += shape_i[dim]
        return outs

    def map_cat(self, node, a, shape, elem):
        parts = [self.v(p) for p in a[0]]
        if len(shape) != 1:
            # PyTorch's cat skips 1-D empty tensors beside tensors of
            # another rank (a legacy rule): an empty key/value cache
            # (Hugging Face's DynamicCache) concatenated with the new keys.
            parts = [p for p in parts if tuple(p.shape) != (0,)]
        dim = (a[1] if len(a) > 1 else 0) % len(shape)
        if len(parts) == 1:
            return parts[0]
        return self.b.op("train.concat", parts, [(shape, elem)], {"dim": dim})

    def map_view(self, node, a, shape, elem):
        x = self.v(a[0])
        src = x.op
        if (src is not None and src.name.startswith("train.reduce_") and
                src.props.get("keep_dims") and shape == tuple(
                    d for i, d in enumerate(x.shape) if i not in src.props["dims"])):
            # sum(keepdim=True) + view: one reduction without keep_dims
            # (the keep_dims one is left dead and dropped).
            props = {k: v for k, v in src.props.items() if k != "keep_dims"}
            return self.b.op(src.name, src.operands, [(shape, elem)], props)
        return x if x.shape == shape else self.b.op("train.reshape", [x], [(shape, elem)])

    def map_mm(self, node, a, shape, elem):
        return self.matmul(self.v(a[0]), self.v(a[1]), shape, elem)

    def map_addmm(self, node, a, shape, elem):
        if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1:
            raise self.err(self.name, "beta/alpha other than 1", "Use nn.Linear or x @ w + b.")
        mm = self.matmul(self.v(a[1]), self.v(a[2]), shape, elem)
        bias = self.v(a[0])
        if len(bias.shape) == 1 and bias.shape[0] == shape[-1]:
            return self.b.op("train.bias_add", [mm, bias], [(shape, elem)])
        return self.b.op("train.add", [mm, self.broadcast_to(bias, shape)], [(shape, elem)])

    # --- Core ATen ops of PyTorch's decompositions and everyday layers ----
    def map_where(self, node, a, shape, elem):
        cond = self.broadcast_to(self.v(a[0]), shape)
        return self.b.op("train.select", [cond, self.operand(a[1], shape, elem),
                                          self.operand(a[2], shape, elem)],
                         [(shape, elem)])

    def map_logical(self, node, a, shape, elem):
        """and / or / not of i1 tensors (masks), as selects."""
        kind = self.name.split(".")[0].replace("bitwise_", "").replace("logical_", "")
        x = self.broadcast_to(self.v(a[0]), shape)
        if x.elem != "i1":
            raise self.err(self.name, "a bitwise op on integers", "Only masks (bool) map.")
        true = self.b.op("train.fill", [], [(shape, "i1")], {"value": 1.0})
        false = self.b.op("train.fill", [], [(shape, "i1")], {"value": 0.0})
        if kind == "not":
            return self.b.op("train.select", [x, false, true], [(shape, "i1")])
        y = self.broadcast_to(self.v(a[1]), shape)
        if kind == "or":
            return self.b.op("train.select", [x, true, y], [(shape, "i1")])
        return self.b.op("train.select", [x, y, false], [(shape, "i1")])

    def map_copy(self, node, a, shape, elem):
        """copy(dst, src): src in dst's shape and dtype (a mask made float:
        1 / 0)."""
        src = self.broadcast_to(self.v(a[1]), shape)
        if src.elem == elem:
            return src
        if src.elem == "i1" and elem in ("f32", "bf16", "f16"):
            return self.b.op("train.select", [src, self.fill(1.0, _Like(shape, elem)),
                                              self.fill(0.0, _Like(shape, elem))],
                             [(shape, elem)])
        raise self.err(self.name, "a copy from %s to %s" % (src.elem, elem),
                       "Keep the model's tensors float32 (masks bool).")

    def map_any(self, node, a, shape, elem):
        """any of a mask over dims: the max of its 0 / 1 values, > 0."""
        x = self.v(a[0])
        if x.elem != "i1":
            raise self.err(self.name, "any() of a non-bool tensor", "Compare first (x != 0).")
        dims = a[1] if len(a) > 1 else []
        dims = [dims] if isinstance(dims, int) else list(dims)
        keep = a[2] if len(a) > 2 else node.kwargs.get("keepdim", False)
        like = _Like(x.shape, "f32")
        ones = self.b.op("train.select", [x, self.fill(1.0, like), self.fill(0.0, like)],
                         [(x.shape, "f32")])
        peak = self.reduce("train.reduce_max", ones, dims, keep, shape)
        zero = self.fill(0.0, _Like(shape, "f32"))
        return self.b.op("train.compare", [peak, zero], [(shape, "i1")],
                         {"predicate": Attr("%d : i64" % ComparePredicate.gt)})

    def map_scalar_tensor(self, node, a, shape, elem):
        return self.b.op("train.fill", [], [(shape, elem)], {"value": float(a[0])})

    def map_full(self, node, a, shape, elem):
        return self.b.op("train.fill", [], [(shape, elem)], {"value": float(a[1])})

    def map_clamp(self, node, a, shape, elem):
        x = self.v(a[0])
        low = a[1] if len(a) > 1 else node.kwargs.get("min")
        high = a[2] if len(a) > 2 else node.kwargs.get("max")
        if low is not None:
            x = self.b.op("train.maximum", [x, self.operand(low, shape, elem)], [(shape, elem)])
        if high is not None:
            x = self.b.op("train.minimum", [x, self.operand(high, shape, elem)], [(shape, elem)])
        return x

    def map_amax(self, node, a, shape, elem):
        keep = a[2] if len(a) > 2 else node.kwargs.get("keepdim", False)
        return self.reduce("train.reduce_max", self.v(a[0]), a[1] if len(a) > 1 else [],
                           keep, shape)

    def map_index_select(self, node, a, shape, elem):
        x = self.v(a[0])
        return self.b.op("train.gather", [x, self.v(a[2])], [(shape, elem)],
                         {"axis": a[1] % len(x.shape)})

    def map_constant_pad(self, node, a, shape, elem):
        x = self.v(a[0])
        pad = list(a[1])
        value = a[2] if len(a) > 2 else 0.0
        rank = len(x.shape)
        low, high = [0] * rank, [0] * rank
        for i in range(len(pad) // 2):  # pairs from the last dimension on
            low[rank - 1 - i], high[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
        if any(p < 0 for p in low + high):
            raise self.err(self.name, "negative padding (a crop)", "Slice instead.")
        return self.b.op("train.pad", [x], [(shape, elem)],
                         {"low": low, "high": high, "value": float(value)})

    def map_slice(self, node, a, shape, elem):
        x = self.v(a[0])
        rank = len(x.shape)
        dim = (a[1] if len(a) > 1 else 0) % rank
        start = a[2] if len(a) > 2 and a[2] is not None else 0
        step = a[4] if len(a) > 4 else 1
        size = x.shape[dim]
        start = max(0, min(size, start + size if start < 0 else start))
        offsets, strides = [0] * rank, [1] * rank
        offsets[dim], strides[dim] = start, step
        props = {"offsets": offsets}
        if step != 1:
            props["strides"] = strides
        if x.shape == shape:
            return x
        return self.b.op("train.slice", [x], [(shape, elem)], props)

    def map_slice_backward(self, node, a, shape, elem):
        grad, sizes, dim, start, end, step = a[:6]
        g = self.v(grad)
        rank = len(sizes)
        dim %= rank
        if step != 1:
            raise self.err(self.name, "the gradient of a strided slice",
                           "Slice with step 1.")
        size = sizes[dim]
        start = max(0, min(size, start + size if start < 0 else start))
        low, high = [0] * rank, [0] * rank
        low[dim] = start
        high[dim] = size - start - g.shape[dim]
        return self.b.op("train.pad", [g], [(tuple(sizes), elem)],
                         {"low": low, "high": high, "value": 0.0})

    def map_select(self, node, a, shape, elem):
        x = self.v(a[0])
        dim, index = a[1] % len(x.shape), a[2]
        index %= x.shape[dim]
        offsets = [0] * len(x.shape)
        offsets[dim] = index
        kept = list(x.shape)
        kept[dim] = 1
        part = self.b.op("train.slice", [x], [(tuple(kept), elem)], {"offsets": offsets})
        return self.b.op("train.reshape", [part], [(shape, elem)])

    def map_select_backward(self, node, a, shape, elem):
        grad, sizes, dim, index = a[:4]
        g = self.v(grad)
        rank = len(sizes)
        dim %= rank
        index %= sizes[dim]
        kept = list(sizes)
        kept[dim] = 1
        part = self.b.op("train.reshape", [g], [(tuple(kept), elem)])
        low, high = [0] * rank, [0] * rank
        low[dim], high[dim] = index, sizes[dim] - index - 1
        return self.b.op("train.pad", [part], [(tuple(sizes), elem)],
                         {"low": low, "high": high, "value": 0.0})

    def map_split_with_sizes(self, node, a, shape, elem):
        return self.map_split(node, (a[0], a[1], a[2] if len(a) > 2 else 0), shape, elem)

    def map_argmax(self, node, a, shape, elem):
        x = self.v(a[0])
        dim = a[1] if len(a) > 1 else node.kwargs.get("dim")
        if dim is None:
            raise self.err(self.name, "argmax over every dimension",
                           "Give argmax a dim.")
        keep = a[2] if len(a) > 2 else node.kwargs.get("keepdim", False)
        props = {"dim": dim % len(x.shape)}
        if keep:
            props["keep_dims"] = True
        return self.b.op("train.argmax", [x], [(shape, "i64")], props)

    def map_max_dim(self, node, a, shape, elem):
        x = self.v(a[0])
        dim = a[1] % len(x.shape)
        keep = a[2] if len(a) > 2 else False
        (vshape, _), (ishape, _) = self.meta(node, 0), self.meta(node, 1)
        values = self.reduce("train.reduce_max", x, [dim], keep, vshape)
        props = {"dim": dim}
        if keep:
            props["keep_dims"] = True
        indices = self.b.op("train.argmax", [x], [(ishape, "i64")], props)
        return [values, indices]

    def map_reciprocal(self, node, a, shape, elem):
        x = self.v(a[0])
        return self.b.op("train.div", [self.fill(1.0, x), x], [(shape, elem)])

    def map_arange(self, node, a, shape, elem):
        start = a[0]
        step = a[2] if len(a) > 2 else 1
        values = [start + i * step for i in range(shape[0])]
        text = ", ".join(("%d" % v) if elem in ("i32", "i64") else repr(float(v))
                         for v in values)
        return self.b.op("train.constant", [], [(shape, elem)],
                         {"value": Attr("dense<[%s]> : tensor<%dx%s>" % (
                             text, shape[0], elem))})


# Ops whose result shares its operand's memory: an in-place update of one
# changes the others.
_VIEWS = {aten.view.default, aten._unsafe_view.default, aten.reshape.default,
          aten.t.default, aten.transpose.int, aten.permute.default,
          aten.expand.default, aten.unsqueeze.default, aten.squeeze.dim,
          aten.squeeze.dims, aten.squeeze.default, aten.slice.Tensor,
          aten.select.int, aten.split.Tensor, aten.split_with_sizes.default,
          aten.unbind.int, aten.chunk.default, aten.alias.default,
          aten.as_strided.default, aten.diagonal.default}


# In-place view ops whose functional form has another overload name.
_IN_PLACE_VIEWS = {aten.transpose_.default: aten.transpose.int,
                   aten.t_.default: aten.t.default,
                   aten.unsqueeze_.default: aten.unsqueeze.default,
                   aten.squeeze_.dim: aten.squeeze.dim}


# Ops whose result is their first operand (a copy or a view of it).
_IDENTITY = {aten.detach.default, aten.clone.default, aten.alias.default,
             aten.lift_fresh_copy.default, aten._to_copy.default,
             aten.contiguous.default}


# aten op -> its handler (_Mapper.map_node calls it): every op that maps.
_ATEN = {
    aten.t.default: _Mapper.map_t,
    aten.transpose.int: _Mapper.map_transpose,
    aten.permute.default: _Mapper.map_permute,
    aten.split.Tensor: _Mapper.map_split,
    aten.cat.default: _Mapper.map_cat,
    aten.view.default: _Mapper.map_view,
    aten._unsafe_view.default: _Mapper.map_view,
    aten._reshape_alias.default: _Mapper.map_view,
    aten.reshape.default: _Mapper.map_view,
    aten.unsqueeze.default: _Mapper.map_view,
    aten.squeeze.dim: _Mapper.map_view,
    aten.squeeze.default: _Mapper.map_view,
    aten.flatten.using_ints: _Mapper.map_view,
    aten.expand.default: _Mapper.map_expand,
    aten.mm.default: _Mapper.map_mm,
    aten.bmm.default: _Mapper.map_mm,
    aten.addmm.default: _Mapper.map_addmm,
    aten.relu.default: _elementwise("train.relu"),
    aten.neg.default: _elementwise("train.neg"),
    aten.exp.default: _elementwise("train.exp"),
    aten.log.default: _elementwise("train.log"),
    aten.sqrt.default: _elementwise("train.sqrt"),
    aten.rsqrt.default: _elementwise("train.rsqrt"),
    aten.tanh.default: _elementwise("train.tanh"),
    aten.sigmoid.default: _elementwise("train.sigmoid"),
    aten.erf.default: _elementwise("train.erf"),
    aten.gelu.default: _Mapper.map_gelu,
    aten.gelu_backward.default: _Mapper.map_gelu_backward,
    aten.threshold_backward.default: _Mapper.map_threshold_backward,
    aten.tanh_backward.default: _elementwise("train.tanh_grad", 2),
    aten.sigmoid_backward.default: _elementwise("train.sigmoid_grad", 2),
    aten.add.Tensor: _binary("train.add"),
    aten.sub.Tensor: _binary("train.sub"),
    aten.mul.Tensor: _Mapper.map_mul,
    aten.div.Tensor: _Mapper.map_mask_scale,
    aten.add.Scalar: _binary("train.add"),
    aten.mul.Scalar: _binary("train.mul"),
    aten.div.Scalar: _Mapper.map_mask_scale,
    aten.sub.Scalar: _binary("train.sub"),
    aten.maximum.default: _binary("train.maximum"),
    aten.minimum.default: _binary("train.minimum"),
    aten.pow.Tensor_Scalar: _binary("train.pow"),
    aten.sum.dim_IntList: _reduce("train.reduce_sum", over_dims=True),
    aten.mean.dim: _reduce("train.reduce_mean", over_dims=True),
    aten.sum.default: _reduce("train.reduce_sum", over_dims=False),
    aten.mean.default: _reduce("train.reduce_mean", over_dims=False),
    aten._log_softmax.default: _Mapper.map_log_softmax,
    aten._softmax.default: _Mapper.map_softmax,
    aten._softmax_backward_data.default: _Mapper.map_softmax_backward,
    aten.nll_loss_forward.default: _Mapper.map_nll,
    aten.ones_like.default: _Mapper.map_ones_like,
    aten.nll_loss_backward.default: _Mapper.map_nll_backward,
    aten._log_softmax_backward_data.default: _Mapper.map_log_softmax_backward,
    aten.convolution.default: _Mapper.map_conv,
    aten.convolution_backward.default: _Mapper.map_conv_backward,
    aten.native_batch_norm.default: _Mapper.map_batch_norm,
    aten.native_batch_norm_backward.default: _Mapper.map_batch_norm_backward,
    aten.native_layer_norm.default: _Mapper.map_layer_norm,
    aten.native_layer_norm_backward.default: _Mapper.map_layer_norm_backward,
    aten.max_pool2d_with_indices.default: _Mapper.map_max_pool,
    aten.max_pool2d_with_indices_backward.default: _Mapper.map_max_pool_backward,
    aten.avg_pool2d.default: _Mapper.map_avg_pool,
    aten.avg_pool2d_backward.default: _Mapper.map_avg_pool_backward,
    aten.where.self: _Mapper.map_where,
    aten.mse_loss.default: _Mapper.map_pointwise_loss,
    aten.mse_loss_backward.default: _Mapper.map_pointwise_loss_backward,
    aten.huber_loss.default: _Mapper.map_pointwise_loss,
    aten.huber_loss_backward.default: _Mapper.map_pointwise_loss_backward,
    aten.binary_cross_entropy_with_logits.default: _Mapper.map_pointwise_loss,
    aten.any.dim: _Mapper.map_any,
    aten.any.dims: _Mapper.map_any,
    aten.any.default: _Mapper.map_any,
    aten.copy.default: _Mapper.map_copy,
    aten._scaled_dot_product_flash_attention_for_cpu.default: _Mapper.map_attention,
    aten._scaled_dot_product_flash_attention_for_cpu_backward.default:
        _Mapper.map_attention_backward,
    aten.empty_permuted.default: _Mapper.map_empty,
    aten.empty_like.default: _Mapper.map_empty,
    aten.empty.memory_format: _Mapper.map_empty,
    aten.bernoulli.p: _Mapper.map_bernoulli,
    aten.slice.Tensor: _Mapper.map_slice,
    aten.slice_backward.default: _Mapper.map_slice_backward,
    aten.select.int: _Mapper.map_select,
    aten.slice_scatter.default: _Mapper.map_slice_scatter,
    aten.select_scatter.default: _Mapper.map_select_scatter,
    aten.as_strided.default: _Mapper.map_as_strided,
    aten.as_strided_scatter.default: _Mapper.map_as_strided_scatter,
    aten.new_empty_strided.default: _Mapper.map_empty,
    aten.new_empty.default: _Mapper.map_empty,
    aten.select_backward.default: _Mapper.map_select_backward,
    aten.split_with_sizes.default: _Mapper.map_split_with_sizes,
    aten.squeeze.dims: _Mapper.map_view,
    aten.argmax.default: _Mapper.map_argmax,
    aten.max.dim: _Mapper.map_max_dim,
    aten.fill.Scalar: _Mapper.map_full,
    aten.clamp.Tensor: _Mapper.map_clamp,
    aten.reciprocal.default: _Mapper.map_reciprocal,
    aten.arange.start_step: _Mapper.map_arange,
    aten.bitwise_and.Tensor: _Mapper.map_logical,
    aten.bitwise_or.Tensor: _Mapper.map_logical,
    aten.bitwise_not.default: _Mapper.map_logical,
    aten.logical_and.default: _Mapper.map_logical,
    aten.logical_or.default: _Mapper.map_logical,
    aten.logical_not.default: _Mapper.map_logical,
    aten.scalar_tensor.default: _Mapper.map_scalar_tensor,
    aten.full.default: _Mapper.map_full,
    aten.full_like.default: _Mapper.map_full,
    aten.clamp.default: _Mapper.map_clamp,
    aten.hardtanh.default: _Mapper.map_clamp,
    aten.amax.default: _Mapper.map_amax,
    aten.abs.default: _elementwise("train.abs"),
    aten.sign.default: _elementwise("train.sign"),
    aten.silu.default: _elementwise("train.silu"),
    aten.silu_backward.default: _elementwise("train.silu_grad", 2),
    aten.hardswish.default: _elementwise("train.hardswish"),
    aten.hardswish_backward.default: _elementwise("train.hardswish_grad", 2),
    aten.leaky_relu.default: _Mapper.map_leaky_relu,
    aten.leaky_relu_backward.default: _Mapper.map_leaky_relu_backward,
    aten.elu.default: _Mapper.map_elu,
    aten.elu_backward.default: _Mapper.map_elu_backward,
    aten.embedding.default: _Mapper.map_embedding,
    aten.embedding_dense_backward.default: _Mapper.map_embedding_backward,
    aten.index_select.default: _Mapper.map_index_select,
    aten.gather.default: _Mapper.map_gather,
    aten.index.Tensor: _Mapper.map_index,
    aten.index_put.default: _Mapper.map_index_put,
    aten.scatter_add.default: _Mapper.map_scatter_add,
    aten.scatter.value: _Mapper.map_scatter_value,
    aten.constant_pad_nd.default: _Mapper.map_constant_pad,
    aten._adaptive_avg_pool2d.default: _Mapper.map_adaptive_avg_pool,
    aten._adaptive_avg_pool2d_backward.default: _Mapper.map_adaptive_avg_pool_backward,
    aten.native_group_norm.default: _Mapper.map_group_norm,
    aten.native_group_norm_backward.default: _Mapper.map_group_norm_backward,
}


for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    for _overload in ("Scalar", "Tensor"):
        _ATEN[getattr(getattr(aten, _name), _overload)] = _compare(_name)


if hasattr(aten, "_native_batch_norm_legit_functional"):  # PyTorch >= 2
    _ATEN[aten._native_batch_norm_legit_functional.default] = _Mapper.map_batch_norm


def _decompositions():
    """PyTorch's own decompositions into the Core ATen opset
    (torch._decomp.core_aten_decompositions), less those of the ops _ATEN
    maps whole (a batch norm's backward, the cross-entropy's nll_loss, the
    activation gradients: one train op each instead of a dozen elementwise
    ones) and of the _IDENTITY ops. So every other op a model uses (a
    non-core op like softplus or hardtanh) arrives as the Core ATen ops it
    is made of, and the exporter maps that opset rather than a list of
    layers."""
    from torch._decomp import core_aten_decompositions
    return {op: fn for op, fn in core_aten_decompositions().items()
            if op not in _ATEN and op not in _IDENTITY}
