"""The Keras mapper's shape handlers (a mixin of mapper.Mapper: self.val,
self.const, self.attr, self.out, self.b, self.err): reshape, transpose,
reverse, tile, concat, pack / unpack, split, slices and their gradients,
pad."""
import numpy as np

from ..common import dense_constant


class ShapeHandlers:
    def moved(self, x):
        """The result of an op that only moves x's elements: TensorFlow's
        shape, x's element type (an int64 label cast to int32 stays int64:
        the step keeps integers at the width they come in, map_cast)."""
        return (self.out()[0], x.elem)

    def map_reshape(self, ins, put):
        x = self.val(ins[0])
        shape = self.moved(x)
        put(x if x.shape == shape[0] else self.b.op("train.reshape", [x], [shape]))

    def map_transpose(self, ins, put):
        perm = [int(p) for p in self.const(ins[1])]
        x = self.val(ins[0])
        put(x if perm == sorted(perm) else
            self.b.op("train.transpose", [x], [self.moved(x)], {"permutation": perm}))

    def map_reverse(self, ins, put):
        """ReverseV2 (Bidirectional's backward layer reverses the sequence;
        its gradient is ReverseV2 again): a train.gather of the positions
        in reverse order along each axis."""
        x = self.val(ins[0])
        rank = len(x.shape)
        for axis in sorted({int(d) % rank for d in np.ravel(self.const(ins[1]))}):
            order = dense_constant(self.b, np.arange(x.shape[axis] - 1, -1, -1,
                                                     dtype=np.int64), "i64")
            x = self.b.op("train.gather", [x, order], [(x.shape, x.elem)], {"axis": axis})
        put(x)

    def map_tile(self, ins, put):
        """Tile as a broadcast of x with a unit dimension before each tiled
        one: out[r, i] = x[i] for every repeat r."""
        x = self.val(ins[0])
        shape, elem = self.out()
        if self.op.type == "BroadcastTo":
            put(self.broadcast_to(x, shape))
            return
        reps = [int(r) for r in self.const(ins[1])]
        if all(r == 1 or d == 1 for r, d in zip(reps, x.shape)):
            put(self.broadcast_to(x, shape))
            return
        wide = []
        for r, d in zip(reps, x.shape):
            wide += [r, d]
        # x's dimension i is wide's 2i + 1; wide's 2i the repeats.
        y = self.b.op("train.broadcast", [x], [(tuple(wide), elem)],
                      {"dims": list(range(1, len(wide), 2))})
        put(self.b.op("train.reshape", [y], [(shape, elem)]))

    def map_concat(self, ins, put):
        shape, elem = self.out()
        dim = int(self.const(ins[-1])) % len(shape)
        parts = [self.operand(p, tuple(p.shape.as_list()), elem) for p in ins[:-1]]
        put(parts[0] if len(parts) == 1 else
            self.b.op("train.concat", parts, [(shape, elem)], {"dim": dim}))

    def map_pack(self, ins, put):
        shape, elem = self.out()
        axis = int(self.attr("axis", 0)) % len(shape)
        parts = []
        for p in ins:
            v = self.operand(p, tuple(p.shape.as_list()), elem)
            one = list(v.shape)
            one.insert(axis, 1)
            parts.append(self.b.op("train.reshape", [v], [(tuple(one), elem)]))
        put(parts[0] if len(parts) == 1 else
            self.b.op("train.concat", parts, [(shape, elem)], {"dim": axis}))

    def map_unpack(self, ins, put):
        x = self.val(ins[0])
        axis = int(self.attr("axis", 0)) % len(x.shape)
        for i in range(len(self.op.outputs)):
            offsets = [0] * len(x.shape)
            offsets[axis] = i
            part = list(x.shape)
            part[axis] = 1
            s = self.b.op("train.slice", [x], [(tuple(part), x.elem)], {"offsets": offsets})
            put(self.b.op("train.reshape", [s], [self.out(i)]), i)

    def map_split(self, ins, put):
        if self.op.type == "Split":
            x, dim = self.val(ins[1]), int(self.const(ins[0]))
        else:
            x, dim = self.val(ins[0]), int(self.const(ins[2]))
        dim %= len(x.shape)
        start = 0
        for i in range(len(self.op.outputs)):
            shape = self.out(i)
            offsets = [0] * len(x.shape)
            offsets[dim] = start
            put(self.b.op("train.slice", [x], [shape], {"offsets": offsets}), i)
            start += shape[0][dim]

    def slice_spec(self, x_shape, begin, end, strides):
        """StridedSlice's spec as (offsets, sizes, steps) of the input's
        dimensions: an ellipsis spans the dimensions the other entries
        leave; new axes and shrunk ones are the result's reshape."""
        ell, new = self.attr("ellipsis_mask", 0), self.attr("new_axis_mask", 0)
        shrink = self.attr("shrink_axis_mask", 0)
        bmask, emask = self.attr("begin_mask", 0), self.attr("end_mask", 0)
        rank = len(x_shape)
        named = sum(1 for i in range(len(begin)) if not (new >> i & 1 or ell >> i & 1))
        offsets, sizes, steps = [], [], []

        def whole(d):
            offsets.append(0)
            sizes.append(d)
            steps.append(1)
        d = 0
        for i in range(len(begin)):
            if ell >> i & 1:
                for _ in range(rank - named):
                    whole(x_shape[d])
                    d += 1
                continue
            if new >> i & 1:
                continue
            size = x_shape[d]
            d += 1
            s = int(strides[i])
            if s <= 0:
                raise self.err("a negative slice step", "Use positive steps.")
            if shrink >> i & 1:
                offsets.append(int(begin[i]) % size)
                sizes.append(1)
                steps.append(1)
                continue
            b = 0 if bmask >> i & 1 else int(begin[i])
            e = size if emask >> i & 1 else int(end[i])
            b, e, _ = slice(b, e, s).indices(size)
            offsets.append(b)
            sizes.append(max(0, -(-(e - b) // s)))
            steps.append(s)
        while d < rank:
            whole(x_shape[d])
            d += 1
        return offsets, sizes, steps

    def map_strided_slice(self, ins, put):
        x = self.val(ins[0])
        begin, end, strides = (self.const(t) for t in ins[1:4])
        offsets, sizes, steps = self.slice_spec(x.shape, begin, end, strides)
        props = {"offsets": offsets}
        if any(s != 1 for s in steps):
            props["strides"] = steps
        y = self.b.op("train.slice", [x], [(tuple(sizes), x.elem)], props)
        shape = self.moved(x)
        put(y if tuple(sizes) == shape[0] else self.b.op("train.reshape", [y], [shape]))

    def map_strided_slice_grad(self, ins, put):
        """The gradient of a strided slice of step 1: zeros around dy."""
        x_shape = [int(d) for d in self.const(ins[0])]
        begin, end, strides = (self.const(t) for t in ins[1:4])
        offsets, sizes, steps = self.slice_spec(x_shape, begin, end, strides)
        if any(s != 1 for s in steps):
            raise self.err("the gradient of a strided slice with steps",
                           "Slice with step 1.")
        dy = self.val(ins[4])
        dy = self.b.op("train.reshape", [dy], [(tuple(sizes), dy.elem)]) \
            if dy.shape != tuple(sizes) else dy
        high = [d - o - s for d, o, s in zip(x_shape, offsets, sizes)]
        put(self.b.op("train.pad", [dy], [self.out()],
                      {"low": offsets, "high": high, "value": 0.0}))

    def map_slice(self, ins, put):
        x = self.val(ins[0])
        begin = [int(b) for b in self.const(ins[1])]
        put(self.b.op("train.slice", [x], [self.moved(x)], {"offsets": begin}))

    def map_pad(self, ins, put):
        x = self.val(ins[0])
        pads = self.const(ins[1]).reshape(-1, 2)
        value = float(self.const(ins[2])) if len(ins) > 2 else 0.0
        if self.attr("mode", "CONSTANT") not in ("CONSTANT",):
            raise self.err("padding mode %s" % self.attr("mode"), "Pad with a constant.")
        put(self.b.op("train.pad", [x], [self.moved(x)],
                      {"low": [int(p) for p in pads[:, 0]],
                       "high": [int(p) for p in pads[:, 1]], "value": value}))
