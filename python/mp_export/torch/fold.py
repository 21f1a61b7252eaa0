"""Constant parts of a traced PyTorch step, folded into train.constant.

Model code computes tensors that depend on neither the batch, the
parameters nor the state the step updates: rotary embeddings' cos / sin of
positions (`arange(t).float() * inv_freq`), causal masks built from
`arange` and comparisons, a module's tensor attribute (an unregistered
constant: make_fx's `get_attr`), integer positions turned into floats.
Their values are fixed by the export's shapes, so the step holds them as
constants, evaluated by PyTorch itself while the traced graph runs once
(torch_export's _ShapeRecorder): the exact values PyTorch computes, with
no train op needed for cos, sin, cumsum or an int -> float conversion of
them.

Foldable: a get_attr constant, an op whose inputs are all foldable (an op
with no tensor inputs: arange, full, ...), and a non-persistent buffer
(`register_buffer(..., persistent=False)`: not in state_dict, so no
checkpoint can give it another value). A persistent buffer is state a
checkpoint may change, and stays an input. Random ops never fold (dropout
keeps its own op). Of a foldable region, only the values other ops read
are folded, and only where the region holds something the mapper would
refuse (an op without a mapping, a dtype conversion, a get_attr): a region
of plain arange / full the mapper already maps stays as ops, keeping the
step's text small. A folded value has at most MAX_ELEMENTS elements."""
import torch

from ..common import dense_constant
from .common import _elem
from .indexing import float_only

aten = torch.ops.aten

MAX_ELEMENTS = 1 << 16
_NEVER = ("bernoulli", "rand", "normal", "uniform", "dropout", "empty", "profiler")


def _inputs(node):
    out = []

    def walk(a):
        if isinstance(a, torch.fx.Node):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            for x in a:
                walk(x)
        elif isinstance(a, dict):
            for x in a.values():
                walk(x)
    walk(node.args)
    walk(node.kwargs)
    return out


def foldable_nodes(gm, constant_placeholders):
    """The nodes of `gm` whose values are fixed by the export's shapes:
    get_attr, the placeholders in `constant_placeholders`, and ops of
    only those."""
    found = set()
    for node in gm.graph.nodes:
        if node.op == "get_attr":
            found.add(node)
        elif node.op == "placeholder":
            if node in constant_placeholders:
                found.add(node)
        elif node.op == "call_function":
            if any(k in str(node.target) for k in _NEVER):
                continue
            if all(i in found for i in _inputs(node)):
                found.add(node)
    return found


def _would_refuse(node, handled, identity, shapes):
    """Whether the mapper would refuse `node` as it is."""
    if node.op == "get_attr":
        return True
    if node.op != "call_function":
        return False
    t = node.target
    if t in identity:
        src = node.args[0] if node.args else None
        return t == aten._to_copy.default and isinstance(src, torch.fx.Node) and \
            _dtype(shapes.get(node)) != _dtype(shapes.get(src))
    if float_only(t):
        dtype = _dtype(shapes.get(node))
        return dtype is None or not dtype.is_floating_point
    return t not in handled and getattr(t, "__name__", "") != "getitem"


def _dtype(info):
    return info[1] if isinstance(info, tuple) and len(info) == 2 else None


def plan(gm, foldable, handled, identity, shapes):
    """(the nodes to replace by their values, the nodes to leave unmapped):
    the foldable nodes some other node reads, where their region holds
    something the mapper would refuse; and the nodes only those read."""
    region_refuses = {}
    for node in gm.graph.nodes:
        if node in foldable:
            region_refuses[node] = _would_refuse(node, handled, identity, shapes) or any(
                region_refuses.get(i, False) for i in _inputs(node))
    fold = set()
    for node in foldable:
        if node.op == "placeholder" or not region_refuses.get(node):
            continue
        if any(u not in foldable or u.op == "output" for u in node.users):
            fold.add(node)
    skip = set()
    for node in reversed(list(gm.graph.nodes)):
        if node in foldable and node not in fold and node.op != "placeholder" and \
                node.users and all(u in fold or u in skip for u in node.users):
            skip.add(node)
    return fold, skip


class ValueRecorder:
    """Mixed into torch_export's _ShapeRecorder: keeps the values of the
    nodes in `self.keep`."""

    def record(self, node, out):
        if node in getattr(self, "keep", ()) and isinstance(out, torch.Tensor):
            self.values[node] = out.detach().clone()


def constant(builder, node, value, where):
    """The train.constant of a folded node's value."""
    from ..common import ExportError
    if value is None:
        raise ExportError("torch", str(node.target), where,
                          "a constant part of the step that is not one tensor",
                          "Report this model.")
    elem = _elem(value.dtype, where)
    # A value repeated along some dimensions (a causal mask expanded over
    # the batch: [B, 1, T, T] of one [T, T]) is held once and broadcast.
    core = _repeated_core(value)
    if core.numel() > MAX_ELEMENTS:
        raise ExportError("torch", str(node.target), where,
                          "a constant of %d elements computed in the step (more than %d "
                          "to fold into it)" % (core.numel(), MAX_ELEMENTS),
                          "Compute it outside the step and register it as a buffer.")
    made = dense_constant(builder, core.cpu().numpy(), elem)
    if core.shape == value.shape:
        return made
    keep = [d for d in range(value.dim()) if core.shape[d] != 1 or value.shape[d] == 1]
    squeezed = builder.op("train.reshape", [made],
                          [(tuple(core.shape[d] for d in keep), elem)])
    return builder.op("train.broadcast", [squeezed], [(tuple(value.shape), elem)],
                      {"dims": keep})


def _repeated_core(value):
    """`value` with each dimension along which every slice equals the first
    cut to size 1: the smallest tensor it is a broadcast of that way."""
    core = value
    for d in range(value.dim()):
        if core.shape[d] > 1:
            first = core.narrow(d, 0, 1)
            if torch.equal(first.expand_as(core), core):
                core = first
    return core
