"""The torch mapper's handlers of functionalization's view ops: an
assignment to a slice or an element (slice_scatter, select_scatter) and
the as_strided views and scatters autograd's backward of such an
assignment is written in, mapped when the strides describe a block of a
contiguous tensor read in another shape, which is what slicing and
indexing give."""


class ViewHandlers:
    """Mixed into mapper._Mapper (self.v, self.b, self.err, and
    self.layouts: node -> (contiguous, storage offset) of its traced
    tensor)."""

    def map_slice_scatter(self, node, a, shape, elem):
        """slice_scatter(x, src, dim, start, end, step): x with the slice
        replaced by src (functionalization's form of `h[:, :2] = v`), as
        the concatenation of x's parts around src."""
        x, src = self.v(a[0]), self.v(a[1])
        dim = (a[2] if len(a) > 2 else 0) % len(shape)
        start = a[3] if len(a) > 3 and a[3] is not None else 0
        step = a[5] if len(a) > 5 else 1
        size = shape[dim]
        start = max(0, min(size, start + size if start < 0 else start))
        if step == 1:
            return self.scatter_along(x, src, dim, start, shape, elem)
        if size % step:
            raise self.err(self.name, "an assignment to a slice whose step does not "
                           "divide the dimension", "Assign to a slice with step 1.")
        # x[..., start::step, ...] is a block of x read with dimension `dim`
        # split into (size / step, step).
        radix = list(shape[:dim]) + [size // step, step] + list(shape[dim + 1:])
        block = list(src.shape[:dim]) + [src.shape[dim], 1] + list(src.shape[dim + 1:])
        offsets = [0] * len(radix)
        offsets[dim], offsets[dim + 1] = start // step, start % step
        out = self.scatter_block(self.reshaped(x, radix, elem),
                                 self.reshaped(src, block, elem), offsets, elem)
        return self.reshaped(out, shape, elem)

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
        """as_strided(x, size, stride, offset) of a contiguous x: x seen in
        the shape whose dimensions the view's strides step through, where
        the view is a block, sliced, then given the view's shape."""
        x = self.v(a[0])
        radix, offsets, sizes = self.strided_block(a, x.shape)
        x = self.reshaped(x, radix, elem)
        part = self.b.op("train.slice", [x], [(tuple(sizes), elem)], {"offsets": offsets})
        return self.reshaped(part, shape, elem)

    def map_as_strided_scatter(self, node, a, shape, elem):
        """as_strided_scatter(x, src, size, stride, offset): x with that
        view replaced by src, as a block scatter in the same shape."""
        x, src = self.v(a[0]), self.v(a[1])
        radix, offsets, sizes = self.strided_block([a[0]] + list(a[2:]), x.shape)
        out = self.scatter_block(self.reshaped(x, radix, elem),
                                 self.reshaped(src, sizes, elem), offsets, elem)
        return self.reshaped(out, shape, elem)

    def reshaped(self, x, shape, elem):
        if tuple(x.shape) == tuple(shape):
            return x
        return self.b.op("train.reshape", [x], [(tuple(shape), elem)])

    def strided_block(self, a, in_shape):
        """(shape, offsets, sizes): the shape a contiguous tensor of
        `in_shape` is read in so that as_strided's view (a[1] sizes, a[2]
        strides, a[3] storage offset) is the block `sizes` at `offsets`.
        Each stride of the view (largest first) is a dimension of that
        shape; an error when the view is not such a block (overlapping,
        transposed, or of a non-contiguous tensor)."""
        size, stride = list(a[1]), list(a[2])
        offset = a[3] if len(a) > 3 and a[3] is not None else 0
        contiguous, base = self.layouts.get(a[0], (False, 0))
        total = 1
        for n in in_shape:
            total *= n
        fail = self.err(self.name, "a strided view that is not a block of its input",
                        "Index with slices (x[:, a:b]) rather than as_strided.")
        steps = [(t, n) for n, t in zip(size, stride) if n > 1]
        if not contiguous or base != 0 or not 0 <= offset < max(total, 1) or any(
                t <= 0 for t, _ in steps):
            raise fail
        radix, prev = [], total
        for t, _ in steps:
            if t >= prev or prev % t:
                raise fail  # overlapping, transposed or not a block
            radix.append(prev // t)
            prev = t
        radix.append(prev)
        offsets, rest = [], offset
        unit = total
        for r in radix:
            unit //= r
            offsets.append(rest // unit)
            rest %= unit
        sizes = [n for _, n in steps] + [1]
        if any(o + n > r for o, n, r in zip(offsets, sizes, radix)):
            raise fail
        return radix, offsets, sizes

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
