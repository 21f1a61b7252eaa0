"""The torch mapper's handlers of element-wise indexing along a dim:
torch.gather (timm's LabelSmoothingCrossEntropy picks each row's label
log-probability with it), and scatter_add (gather's backward) and
scatter with a value (masked_fill by index).

Each is written with train.one_hot: along the indexed dim, of size N in
the data and K in the index, the index becomes a [..., K, N] mask of which
of the N elements each of the K positions names. A gather selects through
the mask and sums over N (one element and zeros: exact, and an infinite
element elsewhere in the row stays out, which a multiplication by the
one-hot would turn into NaN); a scatter_add sums the source over K; a
scatter of a value writes where any of the K names the element. The
memory is K x N per row: K is 1 for a label pick."""
import torch

from ..vocabulary import ComparePredicate
from ..common import Attr
from .common import _Like

aten = torch.ops.aten


def float_only(target):
    """The ops here that select through a float mask and a sum: their data
    must be floating point (an integer gather of constants, BERT's
    token_type_ids, is folded by torch_fold instead)."""
    return target in _FLOAT_ONLY


def _float_data(handler, x):
    if x.elem not in ("f32", "bf16", "f16"):
        raise handler.err(handler.name, "%s data (this op is mapped for floating-point "
                          "data; of constants it is folded)" % x.elem,
                          "Gather floats, or compute the integers from constants.")
    return x


def _one_index(handler, indices):
    """The dim and index tensor of an advanced index `x[:, idx]`: one
    integer tensor, every index before it a full slice (None)."""
    used = [i for i, t in enumerate(indices) if t is not None]
    if len(used) != 1:
        raise handler.err(handler.name, "%d index tensors in one indexing" % len(used),
                          "Index one dim with one tensor (x[:, idx]), or use "
                          "torch.index_select / torch.gather.")
    idx = handler.v(indices[used[0]])
    if idx.elem == "i1":
        raise handler.err(handler.name, "a boolean mask index (the result's shape depends "
                          "on the data)", "Multiply by the mask, or use torch.where.")
    return used[0], idx


class IndexHandlers:
    """Mixed into mapper._Mapper (self.v, self.b, self.err,
    self.transpose, self.broadcast_to, self.fill, self.reduce)."""

    def _along_last(self, x, index, dim):
        """x and index with `dim` moved last, the permutation that moves
        it back, and the [..., K, N] i1 mask: mask[..., k, n] is
        index[..., k] == n."""
        rank = len(x.shape)
        dim %= rank
        if len(index.shape) != rank or any(
                index.shape[e] != x.shape[e] for e in range(rank) if e != dim):
            raise self.err(self.name, "an index of shape %s for data of shape %s along dim "
                           "%d (only the indexed dim may differ)" % (
                               tuple(index.shape), tuple(x.shape), dim),
                           "Give the index the data's shape outside the indexed dim.")
        perm = [e for e in range(rank) if e != dim] + [dim]
        back = [perm.index(e) for e in range(rank)]
        x, index = self.transpose(x, perm), self.transpose(index, perm)
        hot_shape = tuple(index.shape) + (x.shape[-1],)
        hot = self.b.op("train.one_hot", [index], [(hot_shape, "f32")])
        zero = self.b.op("train.fill", [], [(hot_shape, "f32")], {"value": 0.0})
        mask = self.b.op("train.compare", [hot, zero], [(hot_shape, "i1")],
                         {"predicate": Attr("%d : i64" % ComparePredicate.ne)})
        return x, index, back, mask

    def _spread(self, x, at, shape):
        """x [..., M] as [..., M] spread over a new dim at `at` (-2 or -1)
        of the [..., K, N] mask shape."""
        rank = len(shape)
        unsqueezed = list(x.shape)
        unsqueezed.insert(rank - 2 if at == -2 else rank - 1, 1)
        x = self.b.op("train.reshape", [x], [(tuple(unsqueezed), x.elem)])
        return self.broadcast_to(x, shape)

    def map_gather(self, node, a, shape, elem):
        """gather(x, dim, index): out[..., k, ...] = x[..., index[..., k, ...], ...]."""
        if len(a) > 3 and a[3] or node.kwargs.get("sparse_grad"):
            raise self.err(self.name, "sparse_grad=True", "Use torch.gather without sparse_grad.")
        x, index, back, mask = self._along_last(_float_data(self, self.v(a[0])),
                                                   self.v(a[2]), a[1])
        picked = self.b.op("train.select", [mask, self._spread(x, -2, mask.shape),
                                            self.fill(0.0, _Like(mask.shape, x.elem))],
                           [(mask.shape, x.elem)])
        out = self.reduce("train.reduce_sum", picked, [-1], False, tuple(index.shape))
        return self.transpose(out, back)

    def map_index(self, node, a, shape, elem):
        """x[:, idx] (aten.index.Tensor with one integer index tensor):
        index_select's gather, any index shape ([A..., I..., B...])."""
        axis, idx = _one_index(self, a[1])
        return self.b.op("train.gather", [self.v(a[0]), idx], [(shape, elem)], {"axis": axis})

    def map_index_put(self, node, a, shape, elem):
        """index_put(x, [None.., idx], values, accumulate=True): x plus the
        values summed into the rows idx names (an advanced index's
        backward), as train.gather_grad. Without accumulate a repeated
        index would keep one of its writes: refused."""
        accumulate = a[3] if len(a) > 3 else node.kwargs.get("accumulate", False)
        if not accumulate:
            raise self.err(self.name, "an assignment through an index tensor (x[idx] = v: "
                           "a repeated index keeps one write)",
                           "Write the result with torch.where, or index_add.")
        x = self.v(a[0])
        axis, idx = _one_index(self, a[1])
        spread = tuple(x.shape[:axis]) + tuple(idx.shape) + tuple(x.shape[axis + 1:])
        values = self.broadcast_to(self.v(a[2]), spread)
        added = self.b.op("train.gather_grad", [values, idx], [(tuple(x.shape), x.elem)],
                          {"axis": axis})
        return self.b.op("train.add", [x, added], [(tuple(x.shape), x.elem)])

    def map_scatter_add(self, node, a, shape, elem):
        """scatter_add(self, dim, index, src): self plus each src element
        added at the position its index names (sums over repeated
        indices)."""
        base, index, src = _float_data(self, self.v(a[0])), self.v(a[2]), self.v(a[3])
        if tuple(src.shape) != tuple(index.shape):
            raise self.err(self.name, "a source of shape %s for an index of shape %s" % (
                tuple(src.shape), tuple(index.shape)), "Give src the index's shape.")
        x, index, back, mask = self._along_last(base, index, a[1])
        src = self.transpose(src, [back.index(e) for e in range(len(back))])
        spread = self.b.op("train.select", [mask, self._spread(src, -1, mask.shape),
                                            self.fill(0.0, _Like(mask.shape, src.elem))],
                           [(mask.shape, src.elem)])
        added = self.reduce("train.reduce_sum", spread, [-2], False, tuple(x.shape))
        out = self.b.op("train.add", [x, added], [(tuple(x.shape), x.elem)])
        return self.transpose(out, back)

    def map_scatter_value(self, node, a, shape, elem):
        """scatter(self, dim, index, value): self with `value` at every
        position some index names."""
        x, index, back, mask = self._along_last(self.v(a[0]), self.v(a[2]), a[1])
        hot = self.b.op("train.select", [mask, self.fill(1.0, _Like(mask.shape, "f32")),
                                         self.fill(0.0, _Like(mask.shape, "f32"))],
                        [(mask.shape, "f32")])
        hit = self.reduce("train.reduce_max", hot, [-2], False, tuple(x.shape))
        any_hit = self.b.op("train.compare", [hit, self.fill(0.0, _Like(x.shape, "f32"))],
                            [(tuple(x.shape), "i1")], {"predicate": Attr("%d : i64" % ComparePredicate.ne)})
        out = self.b.op("train.select", [any_hit, self.fill(float(a[3]), x), x],
                        [(tuple(x.shape), x.elem)])
        return self.transpose(out, back)



_FLOAT_ONLY = {aten.gather.default, aten.scatter_add.default}
