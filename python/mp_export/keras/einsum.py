"""tf.einsum (Keras' EinsumDense and MultiHeadAttention) as transposes,
reshapes, sums and one batched train.matmul.

Two operands: every index is a batch index (in both operands and the
result), a contracted one (both operands, not the result), a free one (one
operand and the result) or a summed one (one operand only, summed first).
The lhs is brought to [batch, free_lhs, contracted], the rhs to [batch,
contracted, free_rhs], each group flattened to one dimension; the product
[batch, free_lhs, free_rhs] is unflattened and transposed to the result's
order. One operand: a sum over the indices the result drops, then a
transpose.
"""
import numpy as np

from ..common import ExportError


def _parse(eq, n):
    if "..." in eq:
        raise ValueError("an ellipsis")
    lhs, out = eq.replace(" ", "").split("->")
    ins = lhs.split(",")
    if len(ins) != n:
        raise ValueError("%d operands for %d inputs" % (len(ins), n))
    for term in ins + [out]:
        if len(set(term)) != len(term):
            raise ValueError("an index repeated in one operand (a trace or diagonal)")
    return ins, out


def _sum_away(m, x, term, keep):
    """x summed over the indices of `term` not in `keep`."""
    drop = [i for i, c in enumerate(term) if c not in keep]
    if not drop:
        return x, term
    shape = tuple(d for i, d in enumerate(x.shape) if i not in drop)
    y = m.b.op("train.reduce_sum", [x], [(shape, x.elem)], {"dims": drop})
    return y, "".join(c for c in term if c in keep)


def _arrange(m, x, term, order):
    """x transposed so its indices run in `order`."""
    if term == order:
        return x
    perm = [term.index(c) for c in order]
    shape = tuple(x.shape[p] for p in perm)
    return m.b.op("train.transpose", [x], [(shape, x.elem)], {"permutation": perm})


def _reshape(m, x, shape):
    shape = tuple(shape)
    return x if x.shape == shape else m.b.op("train.reshape", [x], [(shape, x.elem)])


def einsum(m, eq, operands, result):
    """Maps einsum `eq` of Values `operands` to a Value of type `result`
    ((shape, elem)); m is the Mapper (its builder and error)."""
    try:
        ins, out = _parse(eq, len(operands))
    except ValueError as e:
        raise m.err("einsum '%s' with %s" % (eq, e), "Write the product as matmuls.")
    if len(operands) == 1:
        x, term = _sum_away(m, operands[0], ins[0], out)
        return _reshape(m, _arrange(m, x, term, out), result[0])
    if len(operands) != 2:
        raise m.err("einsum of %d operands" % len(operands), "Use two operands.")
    (a, b), (ta, tb) = operands, ins
    a, ta = _sum_away(m, a, ta, tb + out)
    b, tb = _sum_away(m, b, tb, ta + out)
    size = {}
    for x, t in ((a, ta), (b, tb)):
        for c, d in zip(t, x.shape):
            if size.setdefault(c, d) != d:
                raise m.err("einsum '%s': index %s is %d and %d" % (eq, c, size[c], d),
                            "Report this graph.")
    batch = [c for c in out if c in ta and c in tb]
    contracted = [c for c in ta if c in tb and c not in out]
    free_a = [c for c in ta if c not in tb]
    free_b = [c for c in tb if c not in ta]

    def prod(cs):
        return int(np.prod([size[c] for c in cs])) if cs else 1
    A = _reshape(m, _arrange(m, a, ta, "".join(batch + free_a + contracted)),
                 [prod(batch), prod(free_a), prod(contracted)])
    B = _reshape(m, _arrange(m, b, tb, "".join(batch + contracted + free_b)),
                 [prod(batch), prod(contracted), prod(free_b)])
    C = m.b.op("train.matmul", [A, B], [((prod(batch), prod(free_a), prod(free_b)),
                                         A.elem)])
    order = batch + free_a + free_b
    C = _reshape(m, C, [size[c] for c in order])
    if set(order) != set(out):
        raise ExportError("TensorFlow", "Einsum", "equation '%s'" % eq,
                          "an index of the result in neither operand", "Report this graph.")
    return _reshape(m, _arrange(m, C, "".join(order), out), result[0])
