"""What the PyTorch exporter's modules share: dtypes, the user's source
line of an FX node, the placeholders of values mapped in pieces, the
handler factories of 1:1 ops, the step counter, and what model libraries
are told while the step is traced."""
import contextlib
import os
import re
import sys

import torch

from ..vocabulary import ComparePredicate
from ..common import Attr, ExportError

aten = torch.ops.aten


_DTYPES = {torch.float32: "f32", torch.float16: "f16", torch.int64: "i64",
           torch.int32: "i32", torch.bool: "i1"}


def _elem(dtype, where):
    if dtype not in _DTYPES:
        raise ExportError("aten", str(dtype), where, "unsupported dtype",
                          "Train in float32; cast inputs before the model.")
    return _DTYPES[dtype]


def _user_frame(trace):
    """The innermost frame of an FX node's stack trace that is the user's
    code (not PyTorch's own): (file, line, source text), the file relative
    to the working directory when inside it; None without one (the backward
    pass's nodes carry no trace)."""
    if not trace:
        return None
    skip = (os.path.dirname(torch.__file__) + os.sep, _PACKAGE)
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


# The exporter's own files (all of mp_export, not only this package): a
# frame inside them is not the user's.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

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
    code = ComparePredicate.parse(predicate)

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


def _is_dropout_mask(node):
    """F.dropout as the exporter's functionalized trace holds it: a
    bernoulli.p(keep) draw of an expanded empty tensor, divided by keep, used
    only by multiplications (the forward's x * mask and the backward's
    grad * mask)."""
    if node.target != aten.bernoulli.p:
        return False
    src = node.args[0] if node.args else None
    while getattr(src, "target", None) == aten.expand.default:
        src = src.args[0]
    if getattr(src, "target", None) not in (aten.empty.memory_format,
                                            aten.empty_like.default,
                                            aten.empty_permuted.default,
                                            aten.new_empty.default):
        return False
    users = list(node.users)
    # F.dropout divides by keep with div.Scalar; stochastic depth
    # (torchvision's, timm's DropPath) with an in-place div_ by a number,
    # div.Tensor of a Python float.
    if len(users) != 1 or users[0].target not in (aten.div.Scalar, aten.div.Tensor):
        return False
    keep = node.args[1] if len(node.args) > 1 else node.kwargs.get("p", 0.5)
    scale = users[0]
    if len(scale.args) < 2 or not isinstance(scale.args[1], (int, float)):
        return False
    return abs(scale.args[1] - keep) < 1e-12 and all(
        u.target == aten.mul.Tensor for u in scale.users)


@contextlib.contextmanager
def library_tracing():
    """Tells the model libraries that know about tracing that the step is
    being traced, as torch.export / torch.compile tell them: Hugging Face
    transformers asks `is_tracing()` before data-dependent shortcuts
    (skipping an all-true attention mask, an unpacked sequence) that read a
    tensor's values into Python, which make_fx cannot trace. Its traced path
    builds the explicit mask, the same attention as the shortcut's
    is_causal. Every transformers module holding that function by name is
    patched for the trace and restored after it."""
    patched = []
    util = sys.modules.get("transformers.utils.import_utils")
    original = getattr(util, "is_tracing", None) if util else None
    if original is not None:
        def traced(*args, **kwargs):
            return True
        for name, module in list(sys.modules.items()):
            if (name == "transformers" or name.startswith("transformers.")) and \
                    getattr(module, "is_tracing", None) is original:
                module.is_tracing = traced
                patched.append(module)
    try:
        yield
    finally:
        for module in patched:
            module.is_tracing = original
