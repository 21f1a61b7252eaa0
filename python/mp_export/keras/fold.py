"""Constant folding of the Keras step's graph: the TensorFlow ops whose
inputs are all constants (shape arithmetic, index tables, masks), evaluated
with numpy. Each entry is (mapper, input arrays) -> array or list."""
import numpy as np


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


FOLD = {
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
    "ReverseV2": lambda m, a: np.flip(a[0], [int(d) for d in np.ravel(a[1])]),
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
