"""The torch mapper's handlers of functionalization's view ops: an
assignment to a slice or an element (slice_scatter, select_scatter) and
the as_strided views and scatters autograd's backward of such an
assignment is written in, mapped when the strides describe a (strided)
block of a contiguous tensor, which is what slicing gives."""


class ViewHandlers:
    """Mixed into torch_mapper._Mapper (self.v, self.b, self.err, and
    self.layouts: node -> (contiguous, storage offset) of its traced
    tensor)."""

    def map_slice_scatter(self, node, a, shape, elem):
        """slice_scatter(x, src, dim, start, end, step): x with the slice
        replaced by src (functionalization's form of `h[:, :2] = v`), as
        the concatenation of x's parts around src."""
        x, src = self.v(a[0]), self.v(a[1])
        dim = (a[2] if len(a) > 2 else 0) % len(shape)
        start = a[3] if len(a) > 3 and a[3] is not None else 0
        if (a[5] if len(a) > 5 else 1) != 1:
            raise self.err(self.name, "an assignment to a strided slice",
                           "Assign to a slice with step 1.")
        size = shape[dim]
        start = max(0, min(size, start + size if start < 0 else start))
        return self.scatter_along(x, src, dim, start, shape, elem)

    def map_select_scatter(self, node, a, shape, elem):
        """select_scatter(x, src, dim, index): `h[:, i] = v`."""
        x, src = self.v(a[0]), self.v(a[1])
        dim = a[2] % len(shape)
        kept = list(shape)
        kept[dim] = 1
        src = self.b.op("train.reshape", [src], [(tuple(kept), elem)])
        return self.scatter_along(x, src, dim, a[3] % shape[dim], shape, elem)

    def scatter_along(self, x, src, dim, start, shape, elem):
        parts, stop = [], start + src.shape[dim]
        for lo, hi in ((0, start), (None, None), (stop, shape[dim])):
            if lo is None:
                parts.append(src)
            elif hi > lo:
                offsets, sizes = [0] * len(shape), list(shape)
                offsets[dim], sizes[dim] = lo, hi - lo
                parts.append(self.b.op("train.slice", [x], [(tuple(sizes), elem)],
                                       {"offsets": offsets}))
        if len(parts) == 1:
            return src
        return self.b.op("train.concat", parts, [(shape, elem)], {"dim": dim})

    def map_as_strided(self, node, a, shape, elem):
        """as_strided(x, size, stride, offset) of a contiguous x: the
        (strided) block it describes, as a slice and a reshape."""
        x = self.v(a[0])
        offsets, sizes, steps = self.strided_block(node, a, x.shape)
        props = {"offsets": offsets}
        if any(k != 1 for k in steps):
            props["strides"] = steps
        part = self.b.op("train.slice", [x], [(tuple(sizes), elem)], props)
        if tuple(sizes) == tuple(shape):
            return part
        return self.b.op("train.reshape", [part], [(tuple(shape), elem)])

    def map_as_strided_scatter(self, node, a, shape, elem):
        """as_strided_scatter(x, src, size, stride, offset): x with that
        block replaced by src."""
        x, src = self.v(a[0]), self.v(a[1])
        offsets, sizes, steps = self.strided_block(node, [a[0]] + list(a[2:]), x.shape)
        if any(k != 1 for k in steps):
            raise self.err(self.name, "an assignment to a strided block",
                           "Assign to slices with step 1.")
        if tuple(src.shape) != tuple(sizes):
            src = self.b.op("train.reshape", [src], [(tuple(sizes), elem)])
        return self.scatter_block(x, src, offsets, elem)

    def strided_block(self, node, a, in_shape):
        """(offsets, sizes, steps) per dimension of contiguous `in_shape`
        of as_strided's view (a[1] sizes, a[2] strides, a[3] storage
        offset); an error when the view is not such a block (overlapping,
        transposed, or of a non-contiguous tensor)."""
        size, stride = list(a[1]), list(a[2])
        offset = a[3] if len(a) > 3 and a[3] is not None else 0
        contiguous, base = self.layouts.get(a[0], (False, 0))
        rank = len(in_shape)
        unit = [1] * rank
        for d in range(rank - 2, -1, -1):
            unit[d] = unit[d + 1] * in_shape[d + 1]
        fail = self.err(self.name, "a strided view that is not a block of its input",
                        "Index with slices (x[:, a:b]) rather than as_strided.")
        if not contiguous or base != 0:
            raise fail
        offsets = []
        rest = offset
        for d in range(rank):
            offsets.append(rest // unit[d])
            rest %= unit[d]
        sizes, steps, last = [1] * rank, [1] * rank, -1
        for n, t in zip(size, stride):
            if n == 1:
                continue
            dims = [d for d in range(last + 1, rank) if in_shape[d] > 1 and t % unit[d] == 0
                    and offsets[d] + (n - 1) * (t // unit[d]) < in_shape[d]]
            if not dims or sizes[dims[0]] != 1:
                raise fail
            d = dims[0]
            sizes[d], steps[d], last = n, t // unit[d], d
        if any(o >= s for o, s in zip(offsets, in_shape)):
            raise fail
        return offsets, sizes, steps

    def scatter_block(self, x, src, offsets, elem):
        """x with the block of src's shape at `offsets` replaced by src."""
        for d in range(len(x.shape)):
            if src.shape[d] != x.shape[d]:
                sizes = list(x.shape)
                sizes[d] = src.shape[d]
                starts = [0] * len(x.shape)
                starts[d] = offsets[d]
                middle = self.b.op("train.slice", [x], [(tuple(sizes), elem)],
                                   {"offsets": starts})
                inner = list(offsets)
                inner[d] = 0
                middle = self.scatter_block(middle, src, inner, elem)
                return self.scatter_along(x, middle, d, offsets[d], x.shape, elem)
        return src
