"""PyTorch -> train dialect.

The forward pass, the loss and `torch.autograd.grad` are traced with
`make_fx` into one joint graph of aten ops; each aten op is mapped to train
ops by its entry in _ATEN (docs/exporters.md sums them up). The
`ones_like(loss)` that starts the backward pass becomes `train.grad_seed`. The optimizer update is read from
the `torch.optim` object (its class, hyper-parameters and param groups) and
becomes `train.sgd` / `train.sgd_momentum` / `train.adam` / `train.adamw` per
parameter: tracing PyTorch's in-place, foreach-vectorized optimizer code would
give a graph of mutations that only pattern matching could turn back into the
update it already names.

Safetensors names are `state_dict()` keys, so a trained checkpoint loads back
with `load_checkpoint(model, path)`.
"""
import contextlib
import operator
import os
import re
import warnings

import numpy as np
import torch
import torch.nn.functional as F
from torch.fx.experimental.proxy_tensor import make_fx

from .common import (Attr, ExportError, NCHW, StepBuilder, element_type,
                     write_export)

aten = torch.ops.aten

_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.int64: "i64",
           torch.int32: "i32", torch.bool: "i1"}


def _elem(dtype, where):
    if dtype not in _DTYPES:
        raise ExportError("aten", str(dtype), where, "unsupported dtype",
                          "Train in float32; cast inputs before the model.")
    return _DTYPES[dtype]


def _functional_call(module, tensors, args):
    try:
        from torch.func import functional_call  # PyTorch >= 2.0
    except ImportError:
        from torch.nn.utils.stateless import functional_call
    return functional_call(module, tensors, args)


def _user_frame(trace):
    """The innermost frame of an FX node's stack trace that is the user's
    code (not PyTorch's own): (file, line, source text), the file relative
    to the working directory when inside it; None without one (the backward
    pass's nodes carry no trace)."""
    if not trace:
        return None
    skip = (os.path.dirname(torch.__file__) + os.sep,
            os.path.dirname(os.path.abspath(__file__)) + os.sep)
    lines = trace.splitlines()
    found = None
    for i, line in enumerate(lines):
        m = _FRAME.match(line.strip())
        if not m or os.path.abspath(m.group(1)).startswith(skip):
            continue
        text = lines[i + 1].strip() if i + 1 < len(lines) else ""
        path = m.group(1)
        rel = os.path.relpath(path)
        found = (rel if not rel.startswith("..") else path, int(m.group(2)), text)
    return found


def _decomposed_from(trace):
    """The torch function (`softplus`) whose call is the innermost line of
    an FX node's stack trace, when that line is inside PyTorch: the node
    then comes from PyTorch's decomposition of it. None otherwise."""
    if not trace:
        return None
    lines = [line.strip() for line in trace.splitlines() if line.strip()]
    frames = [i for i, line in enumerate(lines) if _FRAME.match(line)]
    if not frames or frames[-1] + 1 >= len(lines):
        return None
    m = _FRAME.match(lines[frames[-1]])
    if not os.path.abspath(m.group(1)).startswith(
            os.path.dirname(torch.__file__) + os.sep):
        return None
    call = re.search(r"\b(?:F|torch|functional)\.([a-z_0-9]+)\(",
                     lines[frames[-1] + 1])
    return call.group(1) if call else None


_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


class _Like:
    """A shape and element type standing for a Value (for fill)."""

    def __init__(self, shape, elem):
        self.shape, self.elem = shape, elem


class _Pending:
    """A value the graph builds in pieces that map to one train op later."""

    def __init__(self, kind, **fields):
        self.kind = kind
        self.__dict__.update(fields)


class _Mapper:
    """Maps the nodes of one make_fx graph to train ops."""

    def __init__(self, builder, shapes, names):
        self.b = builder
        self.shapes = shapes      # node -> (shape, torch dtype) or list of them
        self.names = names        # placeholder node -> human name
        self.env = {}
        self.transposed = {}      # Value name -> source Value (last-two-dims transpose)
        self.buffer_updates = {}  # placeholder node -> new Value
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
        if not node.users:
            # Unused: nothing to map (e.g. batch norm's empty "reserve"
            # tensor) unless it mutates state.
            in_place = name.split(".")[0].endswith("_")  # add_.Tensor
            if in_place and not self.names.get(a[0], "").endswith("num_batches_tracked"):
                raise self.err(name, "an in-place update whose result is unused",
                               "Only batch norm's own buffer updates map.")
            return
        if t in _IDENTITY:
            if t == aten._to_copy.default and self.shapes[node][1] != self.shapes[a[0]][1]:
                raise self.err(name, "dtype conversion", "Keep the model in float32; "
                               "mp's passes choose the precision.")
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
                        "python/mp_export/torch_export.py.")

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
        dim = (a[1] if len(a) > 1 else 0) % len(shape)
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

    def map_expand(self, node, a, shape, elem):
        return self.broadcast_to(self.v(a[0]), shape)

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

    def map_gelu(self, node, a, shape, elem):
        approximate = node.kwargs.get("approximate", a[1] if len(a) > 1 else "none")
        props = {"tanh_approx": True} if approximate == "tanh" else {}
        return self.b.op("train.gelu", [self.v(a[0])], [(shape, elem)], props)

    def map_gelu_backward(self, node, a, shape, elem):
        approximate = node.kwargs.get("approximate", a[2] if len(a) > 2 else "none")
        props = {"tanh_approx": True} if approximate == "tanh" else {}
        return self.b.op("train.gelu_grad", [self.v(a[0]), self.v(a[1])], [(shape, elem)], props)

    def map_threshold_backward(self, node, a, shape, elem):
        if a[2] != 0:
            raise self.err(self.name, "threshold %r (only ReLU's 0 maps)" % a[2], "Use nn.ReLU.")
        return self.b.op("train.relu_grad", [self.v(a[0]), self.v(a[1])], [(shape, elem)])

    def map_log_softmax(self, node, a, shape, elem):
        x = self.v(a[0])
        out = self.b.op("train.log_softmax", [x], [(shape, elem)], {"axis": a[1] % len(shape)})
        self.log_softmax_input = getattr(self, "log_softmax_input", {})
        self.log_softmax_input[out.name] = x
        return out

    def map_softmax(self, node, a, shape, elem):
        return self.b.op("train.softmax", [self.v(a[0])], [(shape, elem)],
                         {"axis": a[1] % len(shape)})

    def map_softmax_backward(self, node, a, shape, elem):
        return self.b.op("train.softmax_grad", [self.v(a[0]), self.v(a[1])],
                         [(shape, elem)], {"axis": a[2] % len(shape)})

    def map_nll(self, node, a, shape, elem):
        log_probs, labels, weight, reduction, ignore = a[:5]
        self.check_nll(weight, reduction, ignore)
        lp = self.v(log_probs)
        logits = getattr(self, "log_softmax_input", {}).get(lp.name)
        if logits is None or len(logits.shape) != 2:
            raise self.err(self.name, "nll_loss of something other than log_softmax of "
                           "[N, C] logits",
                           "Use F.cross_entropy(logits, labels) on [N, C] logits.")
        loss = self.b.op("train.sparse_cross_entropy", [logits, self.v(labels)],
                         [((), "f32")], self.ce_props(ignore),
                         comment="loss: mean softmax cross-entropy")
        self.loss = loss
        return [loss, _Pending("nll_total_weight")]

    def pointwise_loss_props(self, name, reduction, delta=None):
        if reduction != 1:
            raise self.err(self.name, "a reduction other than 'mean'",
                           "Use the loss's default reduction='mean'.")
        return {"delta": float(delta)} if delta is not None else {}

    def map_pointwise_loss(self, node, a, shape, elem):
        """mse_loss / huber_loss / binary_cross_entropy_with_logits (mean):
        the train op, its sum in f64."""
        op = {"mse_loss": "train.mse_loss", "huber_loss": "train.huber_loss",
              "binary_cross_entropy_with_logits": "train.bce_with_logits_loss"}[
                  self.name.split(".")[0]]
        if op == "train.bce_with_logits_loss":
            if (len(a) > 2 and a[2] is not None) or (len(a) > 3 and a[3] is not None) \
                    or node.kwargs.get("weight") is not None \
                    or node.kwargs.get("pos_weight") is not None:
                raise self.err(self.name, "weight or pos_weight",
                               "Use F.binary_cross_entropy_with_logits without weights.")
            props = self.pointwise_loss_props(op, a[4] if len(a) > 4 else
                                              node.kwargs.get("reduction", 1))
        elif op == "train.huber_loss":
            props = self.pointwise_loss_props(op, a[2] if len(a) > 2 else 1,
                                              a[3] if len(a) > 3 else 1.0)
        else:
            props = self.pointwise_loss_props(op, a[2] if len(a) > 2 else 1)
        x, t = self.v(a[0]), self.v(a[1])
        loss = self.b.op(op, [x, t], [((), "f32")], props,
                         comment="loss: mean %s" % op.split(".")[1])
        self.loss = loss
        return loss

    def map_pointwise_loss_backward(self, node, a, shape, elem):
        grad, x, t = self.v(a[0]), self.v(a[1]), self.v(a[2])
        if self.name.startswith("huber"):
            op, props = "train.huber_loss_grad", self.pointwise_loss_props(
                "huber", a[3], a[4])
        else:
            op, props = "train.mse_loss_grad", self.pointwise_loss_props("mse", a[3])
        return self.b.op(op, [x, t, grad], [(shape, elem)], props)

    def map_ones_like(self, node, a, shape, elem):
        src = self.v(a[0])
        if src.shape != () or a[0] is not self.loss_node:
            raise self.err(self.name, "ones_like of something other than the loss",
                           "Only the seed of the backward pass maps.")
        return self.b.op("train.grad_seed", [src], [((), src.elem)],
                         comment="backward: d loss / d loss")

    def map_nll_backward(self, node, a, shape, elem):
        seed, _, labels, weight, reduction, ignore = a[:6]
        self.check_nll(weight, reduction, ignore)
        return _Pending("nll_loss_backward", seed=self.v(seed),
                        log_probs=self.v(a[1]), labels=self.v(labels), ignore=ignore)

    def map_log_softmax_backward(self, node, a, shape, elem):
        grad = self.env.get(a[0])
        if isinstance(grad, _Pending) and grad.kind == "nll_loss_backward":
            logits = self.log_softmax_input.get(grad.log_probs.name)
            if logits is None:
                raise self.err(self.name, "nll_loss of something other than a log_softmax",
                               "Use F.cross_entropy.")
            return self.b.op("train.sparse_cross_entropy_grad",
                             [logits, grad.labels, grad.seed], [(shape, elem)],
                             self.ce_props(grad.ignore))
        return self.b.op("train.log_softmax_grad", [self.v(a[0]), self.v(a[1])],
                         [(shape, elem)], {"axis": a[2] % len(shape)})

    def map_conv(self, node, a, shape, elem):
        x, w, bias, stride, padding, dilation, transposed, _out_pad, groups = a
        props = self.conv_props(stride, padding, dilation, transposed, groups)
        out = self.b.op("train.conv2d", [self.v(x), self.v(w)], [(shape, elem)], props)
        if bias is not None:
            out = self.b.op("train.bias_add", [out, self.v(bias)], [(shape, elem)], {"dim": 1})
        return out

    def map_conv_backward(self, node, a, shape, elem):
        grad, x, w, bias_sizes, stride, padding, dilation, transposed, _op, groups, mask = a
        props = self.conv_props(stride, padding, dilation, transposed, groups)
        g, xv, wv = self.v(grad), self.v(x), self.v(w)
        outs = [None, None, None]
        if mask[0]:
            outs[0] = self.b.op("train.conv2d_backward_data", [g, wv], [(xv.shape, xv.elem)], props)
        if mask[1]:
            outs[1] = self.b.op("train.conv2d_backward_filter", [xv, g], [(wv.shape, wv.elem)],
                                props)
        if mask[2]:
            outs[2] = self.b.op("train.reduce_sum", [g], [((g.shape[1],), g.elem)],
                                {"dims": [0, 2, 3]})
        return outs

    def map_batch_norm(self, node, a, shape, elem):
        x, weight, bias, rmean, rvar, training, momentum, eps = a[:8]
        if not training:
            raise self.err(self.name, "batch norm in eval mode",
                           "Call model.train() before exporting.")
        if weight is None or bias is None or rmean is None or rvar is None:
            raise self.err(self.name, "batch norm without affine parameters or running statistics",
                           "Use nn.BatchNorm2d(affine=True, track_running_stats=True).")
        xv = self.v(x)
        c = (self.v(weight).shape, "f32")
        res = self.b.op("train.batch_norm",
                        [xv, self.v(weight), self.v(bias), self.v(rmean), self.v(rvar)],
                        [(xv.shape, xv.elem), c, c, c, c],
                        {"epsilon": float(eps), "momentum": float(momentum), "feature_dim": 1})
        self.buffer_updates[rmean] = res[1]
        self.buffer_updates[rvar] = res[2]
        return [res[0], res[3], res[4]]

    def map_batch_norm_backward(self, node, a, shape, elem):
        grad, x, weight, _rm, _rv, save_mean, save_invstd, train = a[:8]
        if not train:
            raise self.err(self.name, "batch norm in eval mode",
                           "Call model.train() before exporting.")
        xv = self.v(x)
        w = self.v(weight)
        return self.b.op("train.batch_norm_grad", [self.v(grad), xv, w, self.v(save_mean),
                                                  self.v(save_invstd)],
                         [(xv.shape, xv.elem), (w.shape, w.elem), (w.shape, w.elem)])

    def map_layer_norm(self, node, a, shape, elem):
        x, normalized, weight, bias, eps = a[:5]
        xv = self.v(x)
        axis = len(xv.shape) - len(normalized)
        if weight is None or bias is None:
            raise self.err(self.name, "layer norm without weight and bias",
                           "Use nn.LayerNorm(elementwise_affine=True).")
        stat = (xv.shape[:axis], "f32")
        return self.b.op("train.layer_norm", [xv, self.v(weight), self.v(bias)],
                         [(xv.shape, xv.elem), stat, stat],
                         {"axis": axis, "epsilon": float(eps)})

    def map_layer_norm_backward(self, node, a, shape, elem):
        grad, x, normalized, mean, rstd, weight, bias = a[:7]
        xv = self.v(x)
        w = self.v(weight)
        return self.b.op("train.layer_norm_grad",
                         [self.v(grad), xv, w, self.v(mean), self.v(rstd)],
                         [(xv.shape, xv.elem), (w.shape, w.elem), (w.shape, w.elem)],
                         {"axis": len(xv.shape) - len(normalized)})

    def map_max_pool(self, node, a, shape, elem):
        x = self.v(a[0])
        props = self.pool_props(a[1:])
        out = self.b.op("train.max_pool2d", [x], [(shape, elem)] if shape else
                        [(self.meta(node, 0))], props)
        return [out, _Pending("max_pool_indices", x=x)]

    def map_max_pool_backward(self, node, a, shape, elem):
        grad, x = self.v(a[0]), self.v(a[1])
        props = self.pool_props(a[2:])
        return self.b.op("train.max_pool2d_grad", [grad, x], [(x.shape, x.elem)], props)

    def avg_pool_props(self, a):
        """avg_pool2d's (kernel, stride, padding, ceil_mode, count_include_pad,
        divisor_override) as train pooling attributes: mp's average divides by
        the full window, PyTorch's default count_include_pad=True."""
        padding = a[2] if len(a) > 2 else [0, 0]
        include_pad = a[4] if len(a) > 4 else True
        divisor = a[5] if len(a) > 5 else None
        if divisor is not None or (not include_pad and any(padding)):
            raise self.err(self.name, "divisor_override or count_include_pad=False "
                           "with padding", "Use nn.AvgPool2d's defaults.")
        return self.pool_props((a[0], a[1] if len(a) > 1 else [], padding, [1, 1],
                                a[3] if len(a) > 3 else False))

    def map_avg_pool(self, node, a, shape, elem):
        props = self.avg_pool_props(a[1:])
        return self.b.op("train.avg_pool2d", [self.v(a[0])], [(shape, elem)], props)

    def map_avg_pool_backward(self, node, a, shape, elem):
        grad, x = self.v(a[0]), self.v(a[1])
        props = self.avg_pool_props(a[2:])
        return self.b.op("train.avg_pool2d_grad", [grad], [(x.shape, x.elem)], props)

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
                         {"predicate": Attr("4 : i64")})

    def map_scalar_tensor(self, node, a, shape, elem):
        return self.b.op("train.fill", [], [(shape, elem)], {"value": float(a[0])})

    def map_full(self, node, a, shape, elem):
        return self.b.op("train.fill", [], [(shape, elem)], {"value": float(a[1])})

    def map_clamp(self, node, a, shape, elem):
        x = self.v(a[0])
        low = a[1] if len(a) > 1 else node.kwargs.get("min")
        high = a[2] if len(a) > 2 else node.kwargs.get("max")
        if low is not None:
            x = self.b.op("train.maximum", [x, self.fill(low, x)], [(shape, elem)])
        if high is not None:
            x = self.b.op("train.minimum", [x, self.fill(high, x)], [(shape, elem)])
        return x

    def map_amax(self, node, a, shape, elem):
        keep = a[2] if len(a) > 2 else node.kwargs.get("keepdim", False)
        return self.reduce("train.reduce_max", self.v(a[0]), a[1] if len(a) > 1 else [],
                           keep, shape)

    def map_leaky_relu(self, node, a, shape, elem):
        slope = a[1] if len(a) > 1 else 0.01
        return self.b.op("train.leaky_relu", [self.v(a[0])], [(shape, elem)],
                         {"negative_slope": float(slope)})

    def map_leaky_relu_backward(self, node, a, shape, elem):
        if a[3]:
            raise self.err(self.name, "the gradient of an in-place leaky_relu",
                           "Use nn.LeakyReLU() (inplace=False).")
        return self.b.op("train.leaky_relu_grad", [self.v(a[0]), self.v(a[1])],
                         [(shape, elem)], {"negative_slope": float(a[2])})

    def map_elu(self, node, a, shape, elem):
        alpha = a[1] if len(a) > 1 else 1.0
        if (len(a) > 2 and a[2] != 1) or (len(a) > 3 and a[3] != 1):
            raise self.err(self.name, "elu with a scale or input_scale (SELU, CELU)",
                           "Use nn.ELU.")
        return self.b.op("train.elu", [self.v(a[0])], [(shape, elem)],
                         {"alpha": float(alpha)})

    def map_elu_backward(self, node, a, shape, elem):
        grad, alpha, scale, input_scale, is_result, x = a[:6]
        if scale != 1 or input_scale != 1 or is_result:
            raise self.err(self.name, "the gradient of SELU, CELU or an in-place ELU",
                           "Use nn.ELU() (inplace=False).")
        return self.b.op("train.elu_grad", [self.v(grad), self.v(x)], [(shape, elem)],
                         {"alpha": float(alpha)})

    def map_embedding(self, node, a, shape, elem):
        weight, indices = self.v(a[0]), self.v(a[1])
        return self.b.op("train.embedding", [weight, indices], [(shape, elem)])

    def map_embedding_backward(self, node, a, shape, elem):
        grad, indices, _num, padding_idx = a[:4]
        if padding_idx is not None and padding_idx >= 0:
            raise self.err(self.name, "an embedding with padding_idx (its row gets no "
                           "gradient)", "Use nn.Embedding without padding_idx, or mask "
                           "the padding positions' loss (ignore_index).")
        if len(a) > 4 and a[4]:
            raise self.err(self.name, "scale_grad_by_freq", "Use nn.Embedding's default "
                           "scale_grad_by_freq=False.")
        return self.b.op("train.embedding_grad", [self.v(grad), self.v(indices)],
                         [(shape, elem)])

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

    def map_adaptive_avg_pool(self, node, a, shape, elem):
        return self.b.op("train.adaptive_avg_pool2d", [self.v(a[0])], [(shape, elem)],
                         {"layout": NCHW})

    def map_adaptive_avg_pool_backward(self, node, a, shape, elem):
        grad, x = self.v(a[0]), self.v(a[1])
        return self.b.op("train.adaptive_avg_pool2d_grad", [grad], [(x.shape, x.elem)],
                         {"layout": NCHW})

    def map_group_norm(self, node, a, shape, elem):
        x, weight, bias, _n, _c, _hw, groups, eps = a[:8]
        if weight is None or bias is None:
            raise self.err(self.name, "group norm without weight and bias",
                           "Use nn.GroupNorm(affine=True).")
        xv = self.v(x)
        stat = ((xv.shape[0], groups), "f32")
        return self.b.op("train.group_norm", [xv, self.v(weight), self.v(bias)],
                         [(xv.shape, xv.elem), stat, stat],
                         {"groups": int(groups), "epsilon": float(eps), "feature_dim": 1})

    def map_group_norm_backward(self, node, a, shape, elem):
        grad, x, mean, rstd, weight, _n, _c, _hw, groups = a[:9]
        xv, w = self.v(x), self.v(weight)
        return self.b.op("train.group_norm_grad",
                         [self.v(grad), xv, w, self.v(mean), self.v(rstd)],
                         [(xv.shape, xv.elem), (w.shape, w.elem), (w.shape, w.elem)],
                         {"groups": int(groups), "feature_dim": 1})

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
        (vshape, velem), (ishape, _) = self.meta(node, 0), self.meta(node, 1)
        values = self.reduce("train.reduce_max", x, [dim], keep, vshape)
        props = {"dim": dim}
        if keep:
            props["keep_dims"] = True
        indices = self.b.op("train.argmax", [x], [(ishape, "i64")], props)
        return [values, indices]

    def map_fill_scalar(self, node, a, shape, elem):
        return self.b.op("train.fill", [], [(shape, elem)], {"value": float(a[1])})

    def map_clamp_tensor(self, node, a, shape, elem):
        x = self.v(a[0])
        low = a[1] if len(a) > 1 else node.kwargs.get("min")
        high = a[2] if len(a) > 2 else node.kwargs.get("max")
        if low is not None:
            x = self.b.op("train.maximum", [x, self.operand(low, shape, elem)], [(shape, elem)])
        if high is not None:
            x = self.b.op("train.minimum", [x, self.operand(high, shape, elem)], [(shape, elem)])
        return x

    def map_reciprocal(self, node, a, shape, elem):
        x = self.v(a[0])
        return self.b.op("train.div", [self.fill(1.0, x), x], [(shape, elem)])

    def map_arange(self, node, a, shape, elem):
        start, end = a[0], a[1]
        step = a[2] if len(a) > 2 else 1
        values = [start + i * step for i in range(shape[0])]
        text = ", ".join(("%d" % v) if elem in ("i32", "i64") else repr(float(v))
                         for v in values)
        return self.b.op("train.constant", [], [(shape, elem)],
                         {"value": Attr("dense<[%s]> : tensor<%dx%s>" % (
                             text, shape[0], elem))})

    # --- attention ---------------------------------------------------------
    def attention_props(self, node, dropout_p, causal):
        if dropout_p:
            raise self.err(self.name, "dropout inside the attention (dropout_p %g)" % dropout_p,
                           "Use dropout_p=0 (a dropout on the attention's output maps).")
        props = {"causal": True} if causal else {}
        scale = node.kwargs.get("scale")
        if scale is not None:
            props["scale"] = float(scale)
        mask = node.kwargs.get("attn_mask")
        return props, ([self.v(mask)] if mask is not None else [])

    def map_attention(self, node, a, shape, elem):
        q, k, v = (self.v(x) for x in a[:3])
        dropout_p = a[3] if len(a) > 3 else node.kwargs.get("dropout_p", 0.0)
        causal = a[4] if len(a) > 4 else node.kwargs.get("is_causal", False)
        props, mask = self.attention_props(node, dropout_p, causal)
        out_shape, out_elem = self.meta(node, 0)
        out = self.b.op("train.attention", [q, k, v] + mask, [(out_shape, out_elem)], props)
        return [out, _Pending("attention_logsumexp")]

    def map_attention_backward(self, node, a, shape, elem):
        grad, q, k, v = (self.v(x) for x in a[:4])
        props, mask = self.attention_props(node, a[6], a[7])
        return self.b.op("train.attention_grad", [grad, q, k, v] + mask,
                         [(q.shape, q.elem), (k.shape, k.elem), (v.shape, v.elem)], props)

    # --- dropout: train.dropout on the step's Philox state ----------------
    def map_empty(self, node, a, shape, elem):
        return _Pending("empty")

    def map_bernoulli(self, node, a, shape, elem):
        if not _is_dropout_mask(node):
            raise self.err(self.name, "random numbers other than F.dropout's mask",
                           "Use nn.Dropout / F.dropout.")
        keep = float(a[1] if len(a) > 1 else node.kwargs.get("p", 0.5))
        self.dropout_site = getattr(self, "dropout_site", -1) + 1
        # PyTorch passes keep = 1 - p: 15 digits give p back (0.1, not
        # 0.09999999999999998).
        return _Pending("dropout_mask", p=round(1.0 - keep, 15), site=self.dropout_site,
                        used=False)

    def map_mask_scale(self, node, a, shape, elem):
        mask = self.env.get(a[0])
        if isinstance(mask, _Pending) and mask.kind == "dropout_mask":
            return mask  # the 1 / keep scaling is train.dropout's own
        handler = self.in_place_as_functional(node, aten.div_.Scalar)
        if handler is None:
            raise self.no_mapping(node.target)
        return handler(self, node, a, shape, elem)

    def map_mul(self, node, a, shape, elem):
        masks = [self.env.get(x) for x in a[:2]]
        for i, mask in enumerate(masks):
            if isinstance(mask, _Pending) and mask.kind == "dropout_mask":
                x = self.v(a[1 - i])
                key, counter = self.dropout_state()
                name = "train.dropout_grad" if mask.used else "train.dropout"
                mask.used = True
                return self.b.op(name, [x, key, counter], [(shape, elem)],
                                 {"p": mask.p, "site": mask.site})
        return _MUL(self, node, a, shape, elem)

    def dropout_state(self):
        """The Philox key (a frozen buffer) and the step counter."""
        if not hasattr(self, "dropout_key"):
            self.dropout_key = self.b.arg((), "i64", "buffer", "dropout.key")
            self.b.freeze(self.dropout_key)
        return self.dropout_key, _step_counter(self.b)[0]

    def map_add_(self, node, a, shape, elem):
        """num_batches_tracked += 1: not exported (the value stays); an add_
        into a temporary nothing reads afterwards: an add."""
        if self.names.get(a[0], "").endswith("num_batches_tracked"):
            return self.env[a[0]]
        handler = self.in_place_as_functional(node, aten.add_.Tensor)
        if handler is None:
            raise self.no_mapping(node.target)
        return handler(self, node, a, shape, elem)

    # --- shared pieces of the handlers ------------------------------------
    def pool_props(self, a):
        kernel = list(a[0])
        strides = list(a[1]) if len(a) > 1 and a[1] else kernel
        padding = list(a[2]) if len(a) > 2 else [0, 0]
        dilation = list(a[3]) if len(a) > 3 else [1, 1]
        ceil = a[4] if len(a) > 4 else False
        if len(padding) == 1:
            padding = padding * 2
        if any(d != 1 for d in dilation) or ceil:
            raise self.err(self.name, "dilated or ceil-mode pooling", "Use plain pooling.")
        return {"layout": NCHW, "kernel": kernel, "strides": strides,
                "padding": [padding[0], padding[0], padding[1], padding[1]]}

    def ce_props(self, ignore):
        """The cross-entropy's options: PyTorch's ignore_index when it is not
        the default -100 (with -100 a label of -100 is a run-time error
        rather than an ignored row: the fast cpu kernels run without the
        option), and the loss object's label_smoothing (export() reads it)."""
        props = {}
        if ignore != -100:
            props["ignore_index"] = int(ignore)
        if self.label_smoothing:
            props["label_smoothing"] = float(self.label_smoothing)
        return props

    def check_nll(self, weight, reduction, ignore):
        if weight is not None or reduction != 1:
            raise self.err(self.name, "class weights or a reduction other than 'mean'",
                           "Use F.cross_entropy(logits, labels) (mean, no weights).")

    def conv_props(self, stride, padding, dilation, transposed, groups):
        if transposed or groups != 1:
            raise self.err(self.name, "transposed or grouped convolution",
                           "Use nn.Conv2d with groups=1.")
        if len(stride) != 2:
            raise self.err(self.name, "a %d-D convolution" % len(stride), "Use nn.Conv2d.")
        return {"layout": NCHW, "strides": list(stride),
                "padding": [padding[0], padding[0], padding[1], padding[1]],
                "dilations": list(dilation)}


def _elementwise(train_op, arity=1):
    """The handler of a 1:1 op: `arity` tensor operands, one result."""
    def handler(self, node, a, shape, elem):
        return self.b.op(train_op, [self.v(x) for x in a[:arity]], [(shape, elem)])
    return handler


def _binary(train_op):
    """The handler of a binary op with broadcasting and scalar operands (and
    add/sub's `alpha`, which scales the right-hand side)."""
    def handler(self, node, a, shape, elem):
        alpha = node.kwargs.get("alpha", 1)
        lhs = self.operand(a[0], shape, elem)
        rhs = self.operand(a[1], shape, elem)
        if alpha != 1:
            rhs = self.b.op("train.mul", [rhs, self.fill(alpha, rhs)], [(shape, elem)])
        return self.b.op(train_op, [lhs, rhs], [(shape, elem)])
    return handler


_MUL, _DIV = _binary("train.mul"), _binary("train.div")


def _compare(predicate):
    """eq/ne/lt/le/gt/ge of a tensor and a tensor or scalar: train.compare
    (i1) on the operands broadcast to the result's shape."""
    code = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}[predicate]

    def handler(self, node, a, shape, elem):
        lhs = self.broadcast_to(self.v(a[0]), shape)
        rhs = self.operand(a[1], shape, lhs.elem)
        return self.b.op("train.compare", [lhs, rhs], [(shape, "i1")],
                         {"predicate": Attr("%d : i64" % code)})
    return handler


def _reduce(train_op, over_dims):
    """The handler of sum/mean over the dims argument (and keepdim), or over
    every dim."""
    def handler(self, node, a, shape, elem):
        if not over_dims:
            return self.reduce(train_op, self.v(a[0]), [], False, shape)
        keep = a[2] if len(a) > 2 else node.kwargs.get("keepdim", False)
        return self.reduce(train_op, self.v(a[0]), a[1], keep, shape)
    return handler


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
    aten.div.Tensor: _binary("train.div"),
    aten.add.Scalar: _binary("train.add"),
    aten.mul.Scalar: _binary("train.mul"),
    aten.div.Scalar: _binary("train.div"),
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
    aten.add_.Tensor: _Mapper.map_add_,
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
    aten.bernoulli_.float: _Mapper.map_bernoulli,
    aten.div_.Scalar: _Mapper.map_mask_scale,
    aten.slice.Tensor: _Mapper.map_slice,
    aten.slice_backward.default: _Mapper.map_slice_backward,
    aten.select.int: _Mapper.map_select,
    aten.select_backward.default: _Mapper.map_select_backward,
    aten.split_with_sizes.default: _Mapper.map_split_with_sizes,
    aten.squeeze.dims: _Mapper.map_view,
    aten.argmax.default: _Mapper.map_argmax,
    aten.max.dim: _Mapper.map_max_dim,
    aten.fill.Scalar: _Mapper.map_fill_scalar,
    aten.clamp.Tensor: _Mapper.map_clamp_tensor,
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


def _is_dropout_mask(node):
    """F.dropout as PyTorch's CPU autograd traces it: bernoulli_(keep) of
    an empty tensor, divided in place by keep, used only by multiplications
    (the forward's x * mask and the backward's grad * mask)."""
    if node.target != aten.bernoulli_.float:
        return False
    users = list(node.users)
    if len(users) != 1 or users[0].target != aten.div_.Scalar:
        return False
    keep = node.args[1] if len(node.args) > 1 else node.kwargs.get("p", 0.5)
    scale = users[0]
    return abs(scale.args[1] - keep) < 1e-12 and all(
        u.target == aten.mul.Tensor for u in scale.users)


@contextlib.contextmanager
def _without_onednn_rnn():
    """oneDNN off (its fused mkldnn_rnn_layer has no mapping; without it
    nn.LSTM / nn.GRU run as PyTorch's per-step ops), silencing the TF32
    notice the flags print."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with torch.backends.mkldnn.flags(enabled=False):
            yield


def _cross_entropy_options(loss_fn):
    """(the loss to trace, its label smoothing): nn.CrossEntropyLoss or
    functools.partial(F.cross_entropy, ...) with label_smoothing is traced
    without it (PyTorch's smoothing terms would be a dozen ops around the
    nll_loss) and the smoothing becomes train.sparse_cross_entropy's own
    attribute, the same formula; ignore_index is read off the traced
    nll_loss. Any other loss is traced as it is."""
    import functools
    if isinstance(loss_fn, torch.nn.CrossEntropyLoss):
        if loss_fn.weight is not None or loss_fn.reduction != "mean":
            raise ExportError("torch.nn", "CrossEntropyLoss", "the loss",
                              "class weights or a reduction other than 'mean'",
                              "Use nn.CrossEntropyLoss() (mean, no weights).")
        ignore = loss_fn.ignore_index
        return (lambda o, t: F.cross_entropy(o, t, ignore_index=ignore),
                float(loss_fn.label_smoothing))
    if isinstance(loss_fn, functools.partial) and loss_fn.func is F.cross_entropy \
            and not loss_fn.args:
        kwargs = dict(loss_fn.keywords)
        smoothing = float(kwargs.pop("label_smoothing", 0.0))
        return functools.partial(F.cross_entropy, **kwargs), smoothing
    return loss_fn, 0.0


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


def _modules_calling(model, tensors, example_x, op):
    """The modules whose forward calls aten `op` (str), found by running the
    forward once more under a dispatch mode with a module stack: make_fx
    does not record module paths."""
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        return None
    stack, found, handles = [], [], []

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if str(func) == op and stack and stack[-1] not in found:
                found.append(stack[-1])
            return func(*args, **(kwargs or {}))

    for name, module in model.named_modules():
        label = "module '%s' (%s)" % (name, type(module).__name__) if name else \
            "the model's own forward (%s)" % type(module).__name__
        # Hooks must return None: a value would replace the input/output.
        handles.append(module.register_forward_pre_hook(
            lambda m, i, label=label: stack.append(label)))
        handles.append(module.register_forward_hook(lambda m, i, o: [stack.pop()] and None))
    try:
        with torch.no_grad(), Mode():
            _functional_call(model, {k: v.detach().clone() for k, v in tensors.items()},
                             (example_x,))
    except Exception:  # noqa: BLE001 - best effort: the error says where it can
        return None
    finally:
        for h in handles:
            h.remove()
    return found


class _ShapeRecorder(torch.fx.Interpreter):
    def __init__(self, gm):
        super().__init__(gm)
        self.shapes = {}

    def run_node(self, n):
        out = super().run_node(n)

        def info(t):
            return (tuple(t.shape), t.dtype) if isinstance(t, torch.Tensor) else None
        if isinstance(out, (tuple, list)):
            self.shapes[n] = [info(t) for t in out]
        elif isinstance(out, torch.Tensor):
            self.shapes[n] = info(out)
        return out


def _step_counter(builder):
    """The step's counter (steps done before this one; `step`, optimizer
    state) and its incremented value, made once per step: the schedule and
    dropout read the same one."""
    if getattr(builder, "step_counter", None) is None:
        counter = builder.arg((), "i64", "opt_state", "step")
        one = builder.op("train.fill", [], [((), "i64")], {"value": 1.0})
        builder.step_counter = (counter, builder.op("train.add", [counter, one],
                                                    [((), "i64")]))
    return builder.step_counter


def _schedule(builder, scheduler, optimizer):
    """A torch.optim.lr_scheduler object as train.lr_schedule of a step
    counter (the steps done before this one: 0 at the first step, as
    PyTorch's scheduler.step() after each optimizer.step() leaves it):
    (the lr Value, the counter arg, its incremented Value) or None."""
    if scheduler is None:
        return None
    if len(optimizer.param_groups) != 1:
        raise ExportError("torch.optim", type(scheduler).__name__, "the scheduler",
                          "a schedule of several param groups",
                          "Use one param group with a scheduler.")
    # The lr before any schedule: schedulers keep it as the group's
    # initial_lr (a warm-up has already scaled the group's lr).
    group = optimizer.param_groups[0]
    base = float(group.get("initial_lr", group["lr"]))
    where = "the scheduler"

    def shape_of(s, allow_warmup):
        kind = type(s).__name__
        if kind == "StepLR":
            return {"decay": "step", "decay_steps": int(s.step_size),
                    "gamma": float(s.gamma)}
        if kind == "ExponentialLR":
            return {"decay": "exponential", "gamma": float(s.gamma)}
        if kind == "CosineAnnealingLR":
            return {"decay": "cosine", "decay_steps": int(s.T_max),
                    "end_factor": float(s.eta_min) / base}
        if kind == "LinearLR":
            start, stop, n = float(s.start_factor), float(s.end_factor), int(s.total_iters)
            if stop == 1.0 and allow_warmup:
                return {"warmup": "linear", "warmup_steps": n, "warmup_start_factor": start}
            if start == 1.0:
                return {"decay": "linear", "decay_steps": n, "end_factor": stop}
            raise ExportError("torch.optim", kind, where,
                              "a LinearLR from %g to %g (neither a warm-up to 1 nor a "
                              "decay from 1)" % (start, stop),
                              "Use a warm-up LinearLR(start, 1.0) followed by a decay "
                              "in a SequentialLR.")
        raise ExportError("torch.optim", kind, where, "no mapping for this scheduler",
                          "Use StepLR, ExponentialLR, CosineAnnealingLR, LinearLR, "
                          "OneCycleLR(cycle_momentum=False) or a SequentialLR of a "
                          "LinearLR warm-up and one of them.")

    kind = type(scheduler).__name__
    if kind == "OneCycleLR":
        base, attrs = _one_cycle(scheduler, group, where)
    elif kind == "SequentialLR":
        parts = list(scheduler._schedulers)
        milestones = list(scheduler._milestones)
        if len(parts) != 2 or type(parts[0]).__name__ != "LinearLR" or \
                float(parts[0].end_factor) != 1.0 or \
                milestones[0] != int(parts[0].total_iters):
            raise ExportError("torch.optim", kind, where,
                              "a SequentialLR other than a LinearLR warm-up to 1 whose "
                              "total_iters is the milestone, then one schedule",
                              "Use SequentialLR([LinearLR(opt, s, 1.0, total_iters=w), "
                              "decay], milestones=[w]).")
        attrs = shape_of(parts[0], True)
        decay = shape_of(parts[1], False)
        if "warmup" in decay:
            raise ExportError("torch.optim", kind, where, "two warm-ups", "Use one warm-up.")
        attrs.update(decay)
    if kind not in ("OneCycleLR", "SequentialLR"):
        attrs = shape_of(scheduler, True)
    if getattr(scheduler, "last_epoch", 0) != 0:
        raise ExportError("torch.optim", kind, where,
                          "the scheduler has stepped already (last_epoch %d)" %
                          scheduler.last_epoch,
                          "Export before training, with a fresh scheduler.")
    props = {"base_lr": base}
    for key in ("warmup_steps", "decay_steps"):
        if key in attrs:
            props[key] = int(attrs[key])
    for key in ("warmup_start_factor", "end_factor", "gamma"):
        if key in attrs:
            props[key] = float(attrs[key])
    warmups = {"linear": 0, "cosine": 1}
    decays = {"constant": 0, "linear": 1, "cosine": 2, "step": 3, "exponential": 4}
    if "warmup" in attrs:
        props["warmup"] = Attr("%d : i64" % warmups[attrs["warmup"]])
    props["decay"] = Attr("%d : i64" % decays[attrs.get("decay", "constant")])
    counter, new = _step_counter(builder)
    lr = builder.op("train.lr_schedule", [counter], [((), "f32")], props,
                    comment="%s: the learning rate of this step" % kind)
    return lr, counter, new


def _one_cycle(scheduler, group, where):
    """OneCycleLR's two phases as a warm-up and a decay of max_lr: phase 1
    anneals initial_lr -> max_lr over its end step (pct_start * total - 1),
    phase 2 max_lr -> min_lr until total - 1, both cosine or both linear
    (PyTorch's anneal_strategy). Its momentum cycling has no train op."""
    kind = "OneCycleLR"
    if scheduler.cycle_momentum:
        raise ExportError("torch.optim", kind, where,
                          "momentum cycling (cycle_momentum=True changes the "
                          "optimizer's momentum / beta1 every step)",
                          "Use OneCycleLR(..., cycle_momentum=False).")
    phases = scheduler._schedule_phases
    if len(phases) != 2:
        raise ExportError("torch.optim", kind, where, "three phases",
                          "Use three_phase=False.")
    end1, end2 = float(phases[0]["end_step"]), float(phases[1]["end_step"])
    if end1 != int(end1) or end1 < 1:
        raise ExportError("torch.optim", kind, where,
                          "a first phase ending at step %g (pct_start * total_steps "
                          "- 1 must be a whole number >= 1)" % end1,
                          "Choose pct_start and total_steps so that pct_start * "
                          "total_steps is a whole number.")
    shape = "cosine" if scheduler._anneal_func_type == "cos" else "linear"
    top = float(group["max_lr"])
    return top, {"warmup": shape, "warmup_steps": int(end1),
                 "warmup_start_factor": float(group["initial_lr"]) / top,
                 "decay": shape, "decay_steps": int(end2 - end1),
                 "end_factor": float(group["min_lr"]) / top}


def _clip(builder, grads, clip_grad_norm, clip_grad_value, norm_type):
    """torch.nn.utils.clip_grad_value_ / clip_grad_norm_ of the loop as the
    step's own ops, on every gradient: (clipped grads, outputs)."""
    outputs = []
    if clip_grad_value is not None:
        clipped = builder.op("train.clip_grad_value", grads,
                             [(g.shape, g.elem) for g in grads],
                             {"clip_value": float(clip_grad_value)})
        grads = clipped if isinstance(clipped, list) else [clipped]
    if clip_grad_norm is not None:
        res = builder.op("train.clip_grad_norm", grads,
                         [(g.shape, g.elem) for g in grads] + [((), "f32")],
                         {"max_norm": float(clip_grad_norm), "norm_type": float(norm_type)})
        grads, total = res[:-1], res[-1]
        outputs.append((total, "output", "grad_norm"))
    return grads, outputs


def _optimizer_update(builder, optimizer, param_names, params, grads, lr=None):
    """Emits the optimizer ops (with the learning rate `lr`, a 0-d Value
    from a schedule, or each group's constant); returns [(new Value, role,
    name)]."""
    results = []
    group_of = {}
    for group in optimizer.param_groups:
        for p in group["params"]:
            group_of[id(p)] = group
    kind = type(optimizer).__name__
    for (name, tensor), p, g in zip(param_names, params, grads):
        group = group_of.get(id(tensor))
        where = "optimizer %s, parameter '%s'" % (kind, name)
        if group is None:
            raise ExportError("torch.optim", kind, where, "the parameter is in no param group",
                              "Pass every trainable parameter to the optimizer.")
        wd = float(group.get("weight_decay", 0.0))
        if group.get("maximize", False) or group.get("differentiable", False):
            raise ExportError("torch.optim", kind, where, "maximize/differentiable",
                              "Use the default settings.")
        fixed = {} if lr is not None else {"lr": float(group["lr"])}
        rate = [lr] if lr is not None else []
        if kind == "SGD" and group["momentum"] == 0:
            new = builder.op("train.sgd", [p, g] + rate, [(p.shape, p.elem)],
                             dict(fixed, weight_decay=wd))
            results.append((new, "param", name))
        elif kind == "SGD":
            buf = builder.arg(p.shape, p.elem, "opt_state", name + ".momentum_buffer")
            props = dict(fixed, momentum=float(group["momentum"]),
                         dampening=float(group["dampening"]), weight_decay=wd)
            if group["nesterov"]:
                props["nesterov"] = True
            new = builder.op("train.sgd_momentum", [p, g, buf] + rate,
                             [(p.shape, p.elem)] * 2, props)
            results.append((new[0], "param", name))
            results.append((new[1], "opt_state", name + ".momentum_buffer"))
        elif kind in ("Adam", "AdamW"):
            if group.get("amsgrad"):
                raise ExportError("torch.optim", kind, where, "amsgrad", "Use amsgrad=False.")
            m = builder.arg(p.shape, p.elem, "opt_state", name + ".exp_avg")
            v = builder.arg(p.shape, p.elem, "opt_state", name + ".exp_avg_sq")
            step = builder.arg((), "f32", "opt_state", name + ".step")
            one = builder.op("train.fill", [], [((), "f32")], {"value": 1.0})
            t = builder.op("train.add", [step, one], [((), "f32")])
            beta1, beta2 = group["betas"]
            new = builder.op("train.adam" if kind == "Adam" else "train.adamw",
                             [p, g, m, v, t] + rate, [(p.shape, p.elem)] * 3,
                             dict(fixed, beta1=float(beta1), beta2=float(beta2),
                                  epsilon=float(group["eps"]), weight_decay=wd))
            results += [(new[0], "param", name), (new[1], "opt_state", name + ".exp_avg"),
                        (new[2], "opt_state", name + ".exp_avg_sq"),
                        (t, "opt_state", name + ".step")]
        elif kind in ("RMSprop", "Adagrad"):
            results += _elementwise_update(builder, kind, group, name, where, p, g, lr)
        else:
            raise ExportError("torch.optim", kind, where, "no mapping for this optimizer",
                              "Use torch.optim.SGD (with or without momentum), Adam, AdamW, "
                              "RMSprop or Adagrad.")
    return results


def _elementwise_update(builder, kind, group, name, where, p, g, lr):
    """RMSprop / Adagrad as elementwise ops on a train.gradient marker (the
    dialect's form of an optimizer with no fused op), PyTorch's formulas:
    RMSprop  v = alpha v + (1 - alpha) g^2, p -= lr g / (sqrt(v) + eps);
    Adagrad  s = s + g^2,                   p -= lr g / (sqrt(s) + eps);
    weight decay adds wd * p to g first."""
    shape, elem = p.shape, p.elem

    def op(name_, *operands):
        return builder.op("train." + name_, list(operands), [(shape, elem)])

    def const(value):
        return builder.op("train.fill", [], [(shape, elem)], {"value": float(value)})

    if kind == "RMSprop" and (group["centered"] or group["momentum"] != 0):
        raise ExportError("torch.optim", kind, where, "centered or momentum RMSprop",
                          "Use RMSprop(centered=False, momentum=0).")
    if kind == "Adagrad" and (group["lr_decay"] != 0 or
                              group["initial_accumulator_value"] != 0):
        raise ExportError("torch.optim", kind, where,
                          "lr_decay or initial_accumulator_value",
                          "Use Adagrad(lr_decay=0, initial_accumulator_value=0).")
    grad = builder.op("train.gradient", [g], [(shape, elem)],
                      comment="%s of '%s' as elementwise ops" % (kind, name))
    if group["weight_decay"]:
        grad = op("add", grad, op("mul", const(group["weight_decay"]), p))
    key = "square_avg" if kind == "RMSprop" else "sum"
    state = builder.arg(shape, elem, "opt_state", "%s.%s" % (name, key))
    square = op("mul", grad, grad)
    if kind == "RMSprop":
        alpha = float(group["alpha"])
        new_state = op("add", op("mul", const(alpha), state),
                       op("mul", const(1 - alpha), square))
    else:
        new_state = op("add", state, square)
    denom = op("add", op("sqrt", new_state), const(group["eps"]))
    rate = const(group["lr"]) if lr is None else builder.op(
        "train.broadcast", [lr], [(shape, elem)], {"dims": []})
    new_p = op("sub", p, op("mul", rate, op("div", grad, denom)))
    return [(new_p, "param", name), (new_state, "opt_state", "%s.%s" % (name, key))]


def export(model, optimizer, example_x, example_y, out_dir, stem, loss_fn=None,
           description="", scheduler=None, clip_grad_norm=None, clip_grad_value=None,
           norm_type=2.0):
    """Exports one training step of `model` + `loss_fn` (default
    F.cross_entropy) + `optimizer` for batches shaped like the examples.
    What the training loop does between backward() and step() is the
    step's too, when given: `clip_grad_value` (clip_grad_value_ first),
    `clip_grad_norm` (clip_grad_norm_'s max_norm, with `norm_type`), and
    `scheduler` (a torch.optim.lr_scheduler stepped once per step, after
    optimizer.step(), as PyTorch's loop does).
    Writes OUT/STEM.{mlir,init.safetensors,manifest.json}; returns the paths."""
    loss_fn, label_smoothing = _cross_entropy_options(loss_fn or F.cross_entropy)
    model.train()
    params = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    buffers = list(model.named_buffers())
    pnames = [n for n, _ in params]
    bnames = [n for n, _ in buffers]

    def step(param_list, buffer_list, x, y):
        tensors = dict(zip(pnames, param_list))
        tensors.update(zip(bnames, buffer_list))
        out = _functional_call(model, tensors, (x,))
        loss = loss_fn(out, y)
        grads = torch.autograd.grad(loss, param_list)
        return [loss] + list(grads)

    for n, t in params + buffers:
        if t.is_floating_point() and t.dtype != torch.float32:
            raise ExportError("torch", str(t.dtype), "'%s'" % n, "a %s tensor" % t.dtype,
                              "Export the float32 model: mp's passes choose the "
                              "precision (docs/precision.md).")
    if example_x.is_floating_point() and example_x.dtype != torch.float32:
        raise ExportError("torch", str(example_x.dtype), "the input", "a non-float32 input",
                          "Feed float32 inputs.")

    p0 = [p.detach().clone().requires_grad_() for _, p in params]
    b0 = [b.detach().clone() for _, b in buffers]
    # oneDNN's fused RNN kernels (mkldnn_rnn_layer) are off while tracing:
    # nn.LSTM / nn.GRU then run as PyTorch's per-step ops, which map.
    try:
        with _without_onednn_rnn():
            gm = make_fx(step, decomposition_table=_decompositions(),
                         record_stack_traces=True)(p0, b0, example_x, example_y)
    except (RuntimeError, NotImplementedError) as e:
        raise ExportError("make_fx", type(e).__name__, "tracing the step",
                          "PyTorch could not trace it: %s" % str(e).splitlines()[0],
                          "Rewrite the failing part without in-place updates of views; "
                          "if the model runs eagerly, report this model.") from e
    rec = _ShapeRecorder(gm)
    # The graph holds its backward ops: it runs without autograd (which
    # would refuse a decomposition's in-place update of a view).
    with torch.no_grad(), _without_onednn_rnn():
        rec.run([p.detach().clone() for _, p in params],
                [b.detach().clone() for _, b in buffers], example_x, example_y)

    for node in gm.graph.nodes:
        target = str(node.target)
        if node.op == "call_function" and any(
                k in target for k in ("bernoulli", "dropout", "rand", "normal", "uniform_")) \
                and not _is_dropout_mask(node):
            frame = _user_frame(node.meta.get("stack_trace"))
            where = "node '%s'" % node.name + (
                " at %s:%d (%s)" % frame if frame else "")
            raise ExportError("aten", target, where,
                              "random numbers other than F.dropout's mask (which maps to "
                              "train.dropout) have no train-dialect op and would be "
                              "frozen into the graph",
                              "Draw the noise outside the step (an input), or use "
                              "nn.Dropout.")

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    np_, nb = len(params), len(buffers)
    if len(placeholders) != np_ + nb + 2:
        raise ExportError("make_fx", "placeholder", "the traced step",
                          "expected %d inputs, got %d" % (np_ + nb + 2, len(placeholders)),
                          "Report this model.")
    builder = StepBuilder()
    names = {}
    mapper = _Mapper(builder, rec.shapes, names)
    mapper.label_smoothing = label_smoothing
    xs, ys = placeholders[-2], placeholders[-1]
    mapper.env[xs] = builder.arg(tuple(example_x.shape), _elem(example_x.dtype, "input"), "input")
    mapper.env[ys] = builder.arg(tuple(example_y.shape), _elem(example_y.dtype, "label"), "label")
    pvals = []
    for node, (n, p) in zip(placeholders[:np_], params):
        names[node] = n
        mapper.env[node] = builder.arg(tuple(p.shape), _elem(p.dtype, n), "param", n)
        pvals.append(mapper.env[node])
    bnodes = []
    for node, (n, buf) in zip(placeholders[np_:np_ + nb], buffers):
        names[node] = n
        if n.endswith("num_batches_tracked"):
            mapper.env[node] = _Pending("num_batches_tracked")
            continue
        mapper.env[node] = builder.arg(tuple(buf.shape), _elem(buf.dtype, n), "buffer", n)
        bnodes.append((node, n))

    output = next(n for n in gm.graph.nodes if n.op == "output")
    mapper.loss_node = output.args[0][0]
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            continue
        if node.op != "call_function":
            raise ExportError("make_fx", node.op, "node '%s'" % node.name,
                              "the traced step reads a tensor it does not take as an input "
                              "(a constant or a module attribute)",
                              "Register tensors as parameters or buffers.")
        try:
            try:
                mapper.map_node(node)
            except ExportError:
                raise
            except Exception as e:  # noqa: BLE001 - a bug or an unforeseen graph
                raise ExportError("aten", str(node.target), "node '%s'" % node.name,
                                  "the exporter failed on it (%s: %s)" % (type(e).__name__, e),
                                  "Report this graph; it is not exported.") from e
        except ExportError as e:
            if e.framework != "aten":
                raise
            tensors = dict(params)
            tensors.update(buffers)
            # An op of PyTorch's decomposition of a function the model
            # calls (F.softplus -> log1p): the modules calling that function.
            origin = _decomposed_from(node.meta.get("stack_trace"))
            lookup = "aten.%s.default" % origin if origin else str(node.target)
            modules = _modules_calling(model, tensors, example_x, lookup)
            if modules is None:
                raise
            where = e.where
            if origin:
                where += ", from PyTorch's decomposition of %s" % origin
            if modules:
                where += ", called by %s" % ", ".join(modules)
            elif not origin:
                where += ", in the backward pass or the loss"
            raise ExportError("aten", e.op, where, e.why, e.todo) from None

    outs = output.args[0]
    loss = mapper.v(outs[0])
    grads = [mapper.v(o) for o in outs[1:1 + np_]]
    builder.result(loss, "loss")
    grads, outputs = _clip(builder, grads, clip_grad_norm, clip_grad_value, norm_type)
    schedule = _schedule(builder, scheduler, optimizer)
    updates = _optimizer_update(builder, optimizer, params, pvals, grads,
                                schedule[0] if schedule else None)
    if schedule:
        outputs.append((schedule[0], "output", "lr"))
    if getattr(builder, "step_counter", None) is not None:
        updates.append((builder.step_counter[1], "opt_state", "step"))
    for value, role, name in outputs:
        builder.result(value, role, name)
    for value, role, name in updates:
        if role == "param":
            builder.result(value, role, name)
    for node, n in bnodes:
        new = mapper.buffer_updates.get(node)
        if new is None:
            # A buffer the step only reads (an index table, a mask): frozen
            # state, kept in checkpoints.
            builder.freeze(mapper.env[node])
            continue
        builder.result(new, "buffer", n)
    for value, role, name in updates:
        if role == "opt_state":
            builder.result(value, role, name)

    init = {n: p.detach().cpu().numpy().astype(np.float32) for n, p in params}
    # Buffers keep their dtype: an integer one (an index table) is i64 in the
    # step as in the model.
    init.update({n: b.detach().cpu().numpy().astype(
                     np.float32 if b.is_floating_point() else b.numpy().dtype)
                 for n, b in buffers if not n.endswith("num_batches_tracked")})
    if hasattr(mapper, "dropout_key"):
        # The Philox key of the step's dropout masks: from PyTorch's seed, so
        # a seeded export is reproducible.
        init["dropout.key"] = np.array(torch.initial_seed() & (2**63 - 1), dtype=np.int64)
    manifest = {"framework": "pytorch", "framework_version": torch.__version__,
                "model": type(model).__name__,
                "optimizer": {"class": type(optimizer).__name__,
                              "param_groups": [{k: v for k, v in g.items() if k != "params"}
                                               for g in optimizer.param_groups]},
                "scheduler": type(scheduler).__name__ if scheduler else None,
                "clip_grad_norm": clip_grad_norm, "clip_grad_value": clip_grad_value,
                "batch": int(example_x.shape[0]),
                "names": "state_dict keys (optimizer state: '<param>.<state key>')",
                "not_exported": [n for n in bnames if n.endswith("num_batches_tracked")]}
    header = ("Exported by python/mp_export from PyTorch %s (make_fx).\n%s\n"
              "model %s, optimizer %s, batch %d" % (
                  torch.__version__, description, type(model).__name__,
                  type(optimizer).__name__, example_x.shape[0]))
    return write_export(out_dir, stem, builder, header, init, manifest)


def state_tensors(model, optimizer=None):
    """The model's (and optimizer's) state as numpy arrays under the names
    the export gives them: what an mp-run checkpoint of the same training
    holds (num_batches_tracked aside)."""
    out = {n: t.detach().cpu().numpy().copy() for n, t in model.state_dict().items()
           if not n.endswith("num_batches_tracked")}
    if optimizer is not None:
        for name, p in model.named_parameters():
            for key, value in optimizer.state.get(p, {}).items():
                if key in ("momentum_buffer", "exp_avg", "exp_avg_sq", "step", "square_avg",
                           "sum") and value is not None:
                    # A copy: the optimizer updates its tensors in place.
                    out["%s.%s" % (name, key)] = np.array(
                        value.detach().cpu().numpy() if torch.is_tensor(value) else value,
                        dtype=np.float32, copy=True)
    return out


def load_checkpoint(model, path, optimizer=None):
    """Loads an mp-run checkpoint (or any safetensors file with state_dict
    names) into `model`; returns the names it did not find in the file (e.g.
    num_batches_tracked, which the export leaves out). With `optimizer`
    (torch.optim.SGD with momentum), also loads the momentum buffers."""
    from .common import read_safetensors
    tensors, _ = read_safetensors(path)
    state = model.state_dict()
    missing = []
    for name in state:
        if name in tensors:
            value = torch.from_numpy(tensors[name]).to(state[name].dtype)
            if tuple(value.shape) != tuple(state[name].shape):
                raise ValueError("'%s' has shape %s in %s but %s in the model" % (
                    name, tuple(value.shape), path, tuple(state[name].shape)))
            state[name] = value
        else:
            missing.append(name)
    if len(missing) == len(state):
        raise ValueError("%s has none of the model's state_dict names (%s, ...): "
                         "a checkpoint of another model?" % (path, next(iter(state), "")))
    model.load_state_dict(state)
    if optimizer is not None:
        named = dict(model.named_parameters())
        for name, p in named.items():
            key = name + ".momentum_buffer"
            if key in tensors:
                optimizer.state[p]["momentum_buffer"] = torch.from_numpy(tensors[key]).clone()
    return missing
