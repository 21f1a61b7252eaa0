"""The table of every Core ATen op (the ops PyTorch tags `core`) with what
the PyTorch exporter does with it: the train ops it maps to, or why it is
refused; and the non-core aten ops the exporter keeps whole instead of
taking PyTorch's decomposition.

    python -m mp_export.aten_table            # prints the table (markdown)
    python -m mp_export.aten_table --check F  # exits 1 unless F holds it

docs/generated/CoreAtenOps.md is its output for the PyTorch that
scripts/setup.sh installs; the ctest exporters/core-aten-table checks it.
"""
import argparse
import inspect
import re
import sys

import torch

from .torch import mapper as torch_mapper

aten = torch.ops.aten

# Why a Core ATen op without a mapping is refused, by the first pattern its
# name matches (op name without the overload).
_REASONS = [
    (r"^_native_batch_norm_legit_no_training$",
     "does not arise: a batch norm module in eval mode traces as "
     "`native_batch_norm` with training=False (below), mapped to its formula "
     "on the running statistics"),
    (r"^_native_batch_norm_legit$",
     "does not arise: the exporter keeps `native_batch_norm` whole (below)"),
    (r"^native_dropout$",
     "does not arise: F.dropout traces as a bernoulli draw of an empty "
     "tensor (functionalized: `bernoulli.p` of an expanded `empty`), a "
     "division by keep and `mul`s, which map to `train.dropout` / "
     "`train.dropout_grad` on the step's Philox state"),
    (r"^(rand|randn|randperm)$",
     "random numbers other than dropout's: no train op (feed noise as an "
     "input)"),
    (r"^(sym_|_local_scalar_dense|nonzero|empty_strided|copy|"
     r"masked_scatter|index_put|sort|topk|unique)",
     "data-dependent shapes, storage or in-place semantics: mp's steps are "
     "static and functional"),
    (r"(3d|pool3d|pad3d)$", "3-D: the train dialect's images are 2-D"),
    (r"^(_fft|_cdist|_pdist|grid_sampler|col2im|upsample|_embedding_bag|cumsum|"
     r"prod|flip|diagonal|repeat|reflection_pad|replication_pad|scatter|"
     r"gather|var|amin|argmin|min|max|any|"
     r"index)", "no train op for it yet"),
    (r"^(bitwise_xor|logical_xor|fmod|remainder|floor|ceil|round|trunc|div)",
     "integer and rounding arithmetic: no train op for it yet"),
    (r"^(sin|cos|tan|asin|acos|atan|sinh|cosh|asinh|acosh|atanh|atan2|log10|"
     r"log2|log1p|expm1|reciprocal|isinf|isnan|pow)",
     "elementwise math beyond the train dialect's (exp, log, sqrt, rsqrt, "
     "tanh, sigmoid, erf, pow by a scalar): no train op for it yet"),
]


def _core_ops():
    ops = []
    for name in dir(aten):
        packet = getattr(aten, name, None)
        if not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            op = getattr(packet, overload)
            if torch.Tag.core in op.tags:
                ops.append(op)
    return sorted(ops, key=str)


def _train_ops(handler):
    """The train ops a handler emits: the op-name literals in its source,
    the strings its factory closed over (_elementwise("train.abs")), and
    the ops of the _Mapper helpers it calls."""
    found = []
    for cell in getattr(handler, "__closure__", None) or ():
        value = cell.cell_contents
        if isinstance(value, str) and value.startswith("train."):
            found.append(value)
    try:
        source = inspect.getsource(handler)
    except (OSError, TypeError):
        source = ""
    found += re.findall(r'"(train\.[a-z_0-9]*[a-z0-9])"', source)
    for call, op in (("self.matmul(", "train.matmul"),
                     ("self.transpose(", "train.transpose"),
                     ("self.broadcast_to(", "train.broadcast")):
        if call in source:
            found.append(op)
    return list(dict.fromkeys(found))


# Ops whose handler's effect the source scan cannot say.
_NOTES = {
    aten.add_.Tensor: "an add a decomposition writes in place into a temporary nothing "
                      "reads afterwards: `train.add` (the model's own `+=` arrives "
                      "functionalized, as `add`); other in-place adds are refused",
    aten.nll_loss_backward.default: "with the `_log_softmax_backward_data` after it: "
                                    "`train.sparse_cross_entropy_grad`",
    aten.bernoulli.p: "F.dropout's mask (of an expanded empty tensor, then `div` by keep, "
                      "then `mul`s): `train.dropout` / `dropout_grad`, a frozen "
                      "`dropout.key` and the step counter; other uses refused",
    aten.div.Scalar: "`train.div`; the dropout mask's 1 / keep: nothing (in "
                     "`train.dropout`)",
    aten.empty.memory_format: "an empty tensor (dropout's draw, a copy's destination): "
                              "nothing; read as a value: refused",
    aten.empty_permuted.default: "the dropout mask's empty tensor: nothing",
    aten.empty_like.default: "the dropout mask's empty tensor: nothing",
    aten.new_empty.default: "a copy's empty destination: nothing",
    aten.new_empty_strided.default: "a copy's empty destination (autograd's backward of "
                                    "a slice assignment): nothing",
    aten.slice_scatter.default: "`train.slice`, `train.concat` (the operand's parts "
                                "around the source; a step, by a `train.reshape` "
                                "first); a step that does not divide the dimension "
                                "refused",
    aten.select_scatter.default: "`train.reshape`, `train.slice`, `train.concat`",
    aten.as_strided.default: "a block of a contiguous tensor read in the shape the "
                             "strides step through: `train.reshape`, `train.slice`; "
                             "overlapping or transposed views refused",
    aten.as_strided_scatter.default: "the same blocks: `train.reshape`, `train.slice`, "
                                     "`train.concat`",
    aten.split_with_sizes.default: "`train.slice` per part",
    aten.native_batch_norm.default: "training: `train.batch_norm`; a module in eval mode: "
                                    "its formula on the running statistics (`train.rsqrt`, "
                                    "`train.mul`, `train.add`, `train.broadcast`), which "
                                    "stay frozen",
    aten.native_batch_norm_backward.default: "training: `train.batch_norm_grad`; eval mode: "
                                             "`train.mul`, `train.sub`, `train.reduce_sum`",
    aten.embedding_dense_backward.default: "`train.embedding_grad`; with padding_idx the "
                                           "padding positions' rows zeroed first "
                                           "(`train.compare`, `train.select`)",
}


def _status(op):
    if op in torch_mapper._IDENTITY:
        return "maps", "nothing (the operand itself)"
    if op in _NOTES:
        return "maps", _NOTES[op]
    handler = torch_mapper._ATEN.get(op)
    if handler is not None:
        ops = _train_ops(handler)
        return "maps", ", ".join("`%s`" % o for o in ops) if ops else "(see the handler)"
    name = str(op).split(".")[1]
    for pattern, reason in _REASONS:
        if re.search(pattern, name):
            return "refused", reason
    return "refused", "no train op mapped yet"


def table():
    core = _core_ops()
    lines = ["# Core ATen ops and the PyTorch exporter", "",
             "GENERATED by `python -m mp_export.aten_table` (PyTorch %s): do not "
             "edit. Every op PyTorch tags `core` (%d), what "
             "the PyTorch exporter (`python/mp_export/torch/mapper.py`) maps it to, or why it is refused "
             "(an export that meets a refused op fails naming it, the user's "
             "source line and the module); then the non-core ops the exporter "
             "keeps whole rather than taking PyTorch's decomposition." % (
                 torch.__version__.split("+")[0], len(core)), "",
             "| Core ATen op | | train dialect, or the reason |", "| --- | --- | --- |"]
    maps = 0
    for op in core:
        status, what = _status(op)
        maps += status == "maps"
        lines.append("| `%s` | %s | %s |" % (str(op).replace("aten.", "", 1), status, what))
    lines += ["", "%d of %d core ops map." % (maps, len(core)), "",
              "| kept whole (not core) | train dialect |", "| --- | --- |"]
    core_set = set(core)
    for op in sorted(torch_mapper._ATEN, key=str):
        if op in core_set:
            continue
        lines.append("| `%s` | %s |" % (str(op).replace("aten.", "", 1),
                                         _status(op)[1]))
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", metavar="FILE",
                        help="exit 1 unless FILE holds the table")
    args = parser.parse_args(argv)
    text = table()
    if args.check:
        with open(args.check) as f:
            if f.read() != text:
                print("%s differs from `python -m mp_export.aten_table`: rewrite it "
                      "with `PYTHONPATH=python .venv/bin/python -m mp_export.aten_table "
                      "> %s`" % (args.check, args.check))
                return 1
        print("%s is current" % args.check)
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
