"""What both exporters share: a small builder of `train`-dialect functions
(printed as MLIR text), safetensors reading and writing (numpy only), the
manifest, and the error type that names the framework op that cannot be
mapped.

The builder keeps a list of ops and prints only those the results depend on
(dead-code elimination), so a mapping may emit a value eagerly and leave it
unused (a transpose folded into a matmul flag, for example).
"""
import json
import math
import os
import struct

import numpy as np

from .vocabulary import DecayShape, Layout, Role, WarmupShape

# The roles of a step's arguments and results (train.role), spelled by the
# ODS (include/mp/IR/Vocabulary.td).
PARAM, OPT_STATE, BUFFER = Role.Param.spelling, Role.OptState.spelling, Role.Buffer.spelling
INPUT, LABEL = Role.Input.spelling, Role.Label.spelling
LOSS, OUTPUT = Role.Loss.spelling, Role.Output.spelling


class ExportError(Exception):
    """An op or construct the exporter cannot map, with where and what to do."""

    def __init__(self, framework, op, where, why, todo):
        self.framework, self.op, self.where = framework, op, where
        self.why, self.todo = why, todo
        super().__init__(
            "%s op '%s' at %s: %s. %s" % (framework, op, where, why, todo))


# numpy dtype -> MLIR element type
_ELEMENT = {
    np.dtype("float32"): "f32", np.dtype("float16"): "f16",
    np.dtype("int64"): "i64", np.dtype("int32"): "i32", np.dtype("bool"): "i1",
}
_SAFETENSORS = {"float32": "F32", "float16": "F16", "int64": "I64",
                "int32": "I32", "bool": "BOOL", "float64": "F64"}
_FROM_SAFETENSORS = {v: np.dtype(k) for k, v in _SAFETENSORS.items()}


def element_type(dtype):
    dtype = np.dtype(dtype)
    if dtype not in _ELEMENT:
        raise ValueError("no train-dialect element type for %s" % dtype)
    return _ELEMENT[dtype]


class Value:
    """An SSA value: its printed name, static shape and element type."""

    def __init__(self, name, shape, elem, op=None):
        self.name, self.shape, self.elem, self.op = name, tuple(shape), elem, op

    @property
    def type(self):
        if not self.shape:
            return "tensor<%s>" % self.elem
        return "tensor<%sx%s>" % ("x".join(str(d) for d in self.shape),
                                  self.elem)

    def __repr__(self):
        return "%s: %s" % (self.name, self.type)


def _attr(value):
    """A Python value as an MLIR attribute (properties of generic ops)."""
    if isinstance(value, Attr):
        return value.text
    if value is True:
        return "unit"
    if isinstance(value, float) and not math.isfinite(value):
        # MLIR writes infinities and NaN as the f64's bits.
        return "0x%016X : f64" % struct.unpack("<Q", struct.pack("<d", value))[0]
    if isinstance(value, float):
        text = repr(float(value))
        if "e" in text and "." not in text:
            text = text.replace("e", ".0e")
        return "%s : f64" % text
    if isinstance(value, int):
        return "%d : i64" % value
    if isinstance(value, (list, tuple)):
        return "array<i64%s>" % "".join(
            (": " if i == 0 else ", ") + str(int(v)) for i, v in enumerate(value))
    if isinstance(value, str):
        return json.dumps(value)
    raise TypeError("cannot print %r as an attribute" % (value,))


class Attr:
    """Attribute text printed as is (an enum, a dense constant)."""

    def __init__(self, text):
        self.text = text


def _element_text(value, elem):
    if elem == "i1":
        return "true" if value else "false"
    if elem in ("i32", "i64"):
        return "%d" % value
    value = float(value)
    if not math.isfinite(value):
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", value))[0]
    return "%.9e" % value


def dense_constant(builder, array, elem):
    """A train.constant holding `array` (any rank) as `elem`: floats with 9
    significant digits, which give an f32 back exactly."""
    array = np.asarray(array)

    def nested(a):
        if a.ndim == 0:
            return _element_text(a.item(), elem)
        return "[%s]" % ", ".join(nested(x) for x in a)
    shape = "x".join(str(d) for d in array.shape)
    ty = "tensor<%s%s>" % (shape + "x" if shape else "", elem)
    return builder.op("train.constant", [], [(array.shape, elem)],
                      {"value": Attr("dense<%s> : %s" % (nested(array), ty))})


NCHW = Attr("%d : i64" % Layout.NCHW)
NHWC = Attr("%d : i64" % Layout.NHWC)


class _Op:
    def __init__(self, name, operands, results, props, comment, loc=None):
        self.name, self.operands, self.results = name, operands, results
        self.props, self.comment, self.loc = props, comment, loc


def mlir_loc(loc):
    """(file, line) as an MLIR file location, or '' for None."""
    if loc is None:
        return ""
    return " loc(%s:%d:0)" % (json.dumps(loc[0]), loc[1])


class StepBuilder:
    """Builds one `train.step` function."""

    def __init__(self, func_name="train_step"):
        self.func_name = func_name
        self.args = []      # (Value, role, train.name or None)
        self.ops = []
        self.results = []   # (Value, role, train.name or None)
        self._next = 0
        self._arg_names = set()
        # The user's source line of the ops being added (file, line), which
        # becomes their MLIR location; None: unknown.
        self.loc = None
        self._frozen = set()  # names of buffer arguments the step only reads

    def _fresh(self, hint):
        self._next += 1
        return "%%v%d" % self._next

    def arg(self, shape, elem, role, name=None):
        ident = "%%arg%d" % len(self.args)
        value = Value(ident, shape, elem)
        if name is not None:
            if (role, name) in self._arg_names:
                raise ValueError("two arguments named '%s'" % name)
            self._arg_names.add((role, name))
        self.args.append((value, role, name))
        return value

    def op(self, name, operands, result_shapes, props=None, comment=None):
        """Appends `name`(operands) with results of the given (shape, elem)
        pairs; returns the result Values (a list when there are several)."""
        props = props or {}
        base = self._fresh(name)
        results = []
        for i, (shape, elem) in enumerate(result_shapes):
            ident = base if len(result_shapes) == 1 else "%s#%d" % (base, i)
            results.append(Value(ident, shape, elem))
        op = _Op(name, list(operands), results, props, comment, self.loc)
        for r in results:
            r.op = op
        self.ops.append(op)
        return results[0] if len(results) == 1 else results

    def freeze(self, value):
        """Marks buffer argument `value` train.frozen: state the step only
        reads (no result; kept in checkpoints)."""
        self._frozen.add(value.name)

    def result(self, value, role, name=None):
        self.results.append((value, role, name))

    def _live_ops(self):
        live = set()
        for value, _, _ in self.results:
            if value.op is not None:
                live.add(id(value.op))
        for op in reversed(self.ops):
            if id(op) in live:
                for v in op.operands:
                    if v.op is not None:
                        live.add(id(v.op))
        return [op for op in self.ops if id(op) in live]

    def to_mlir(self, header=""):
        def attrs(role, name, frozen=False):
            parts = ["train.frozen"] if frozen else []
            if name is not None:
                parts.append("train.name = %s" % json.dumps(name))
            parts.append("train.role = %s" % json.dumps(role))
            return "{%s}" % ", ".join(parts)

        lines = []
        for line in header.splitlines():
            lines.append("// " + line if line else "//")
        lines.append("func.func @%s(" % self.func_name)
        lines.append(",\n".join("    %s: %s %s" % (v.name, v.type,
                                                 attrs(r, n, v.name in self._frozen))
                                for v, r, n in self.args) + ") -> (")
        lines.append(",\n".join("    %s %s" % (v.type, attrs(r, n))
                                for v, r, n in self.results) +
                     ") attributes {train.step} {")
        for op in self._live_ops():
            if op.comment:
                lines.append("  // " + op.comment)
            base = op.results[0].name.split("#")[0]
            lhs = base if len(op.results) == 1 else "%s:%d" % (base, len(op.results))
            props = ""
            if op.props:
                props = " <{%s}>" % ", ".join(
                    "%s = %s" % (k, _attr(v)) if v is not True else k
                    for k, v in sorted(op.props.items()))
            rtypes = ", ".join(r.type for r in op.results)
            if len(op.results) > 1:
                rtypes = "(%s)" % rtypes
            lines.append('  %s = "%s"(%s)%s : (%s) -> %s%s' % (
                lhs, op.name, ", ".join(v.name for v in op.operands), props,
                ", ".join(v.type for v in op.operands), rtypes,
                mlir_loc(op.loc)))
        lines.append("  return %s : %s" % (
            ", ".join(v.name for v, _, _ in self.results),
            ", ".join(v.type for v, _, _ in self.results)))
        lines.append("}")
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# safetensors (https://github.com/huggingface/safetensors format: 8-byte
# little-endian header size, JSON header, raw little-endian data)


def write_safetensors(path, tensors, metadata=None):
    """Writes {name: numpy array} atomically (temp file + rename)."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        # np.asarray, not np.ascontiguousarray: that one makes 0-d arrays 1-d.
        array = np.asarray(tensors[name], order="C")
        kind = _SAFETENSORS.get(str(array.dtype))
        if kind is None:
            raise ValueError("cannot store %s of dtype %s" % (name, array.dtype))
        data = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": kind, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    if metadata:
        header["__metadata__"] = {k: str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_safetensors(path):
    """Returns ({name: numpy array}, metadata dict)."""
    with open(path, "rb") as f:
        raw = f.read()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    metadata = header.pop("__metadata__", {})
    base = 8 + size
    tensors = {}
    for name, info in header.items():
        if info["dtype"] == "BF16":
            start, end = info["data_offsets"]
            bits = np.frombuffer(raw[base + start:base + end], dtype="<u2")
            array = (bits.astype(np.uint32) << 16).view(np.float32)
        else:
            dtype = _FROM_SAFETENSORS[info["dtype"]].newbyteorder("<")
            start, end = info["data_offsets"]
            array = np.frombuffer(raw[base + start:base + end], dtype=dtype)
        tensors[name] = array.reshape(info["shape"]).copy()
    return tensors, metadata


def write_export(out_dir, stem, builder, header, init_tensors, manifest):
    """Writes OUT/STEM.mlir, OUT/STEM.init.safetensors and
    OUT/STEM.manifest.json; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    mlir = os.path.join(out_dir, stem + ".mlir")
    init = os.path.join(out_dir, stem + ".init.safetensors")
    man = os.path.join(out_dir, stem + ".manifest.json")
    with open(mlir, "w") as f:
        f.write(builder.to_mlir(header))
    write_safetensors(init, init_tensors)
    manifest = dict(manifest)
    manifest["arguments"] = [
        {"name": n, "role": r, "shape": list(v.shape), "dtype": v.elem}
        for v, r, n in builder.args]
    manifest["results"] = [
        {"name": n, "role": r, "shape": list(v.shape), "dtype": v.elem}
        for v, r, n in builder.results]
    with open(man, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return mlir, init, man


def step_counter(builder):
    """The step's counter (steps done before this one; `step`, optimizer
    state) and its incremented value, made once per step: schedules and
    dropout read the same one."""
    if getattr(builder, "step_counter", None) is None:
        counter = builder.arg((), "i64", OPT_STATE, "step")
        one = builder.op("train.fill", [], [((), "i64")], {"value": 1.0})
        builder.step_counter = (counter, builder.op("train.add", [counter, one],
                                                    [((), "i64")]))
    return builder.step_counter


def dropout_state(builder):
    """The Philox key of the step's dropout masks (a frozen buffer,
    `dropout.key`, made once) and the step counter."""
    if getattr(builder, "dropout_key", None) is None:
        builder.dropout_key = builder.arg((), "i64", BUFFER, "dropout.key")
        builder.freeze(builder.dropout_key)
    return builder.dropout_key, step_counter(builder)[0]




def lr_schedule(builder, base, shape, comment):
    """train.lr_schedule of the step counter: `shape` holds warmup /
    decay (names), warmup_steps, decay_steps, warmup_start_factor,
    end_factor, gamma (those given)."""
    props = {"base_lr": float(base)}
    for key in ("warmup_steps", "decay_steps"):
        if key in shape:
            props[key] = int(shape[key])
    for key in ("warmup_start_factor", "end_factor", "gamma"):
        if key in shape:
            props[key] = float(shape[key])
    if "warmup" in shape:
        props["warmup"] = Attr("%d : i64" % WarmupShape.parse(shape["warmup"]))
    props["decay"] = Attr("%d : i64" % DecayShape.parse(shape.get("decay", "constant")))
    counter, _ = step_counter(builder)
    return builder.op("train.lr_schedule", [counter], [((), "f32")], props, comment=comment)
