"""Writes regression.mlir's data: x [64, 4] in [-1, 1], y = x @ w* ([64, 2],
float targets) in train.npz, and binary targets (y > 0) in binary.npz
(np.savez's layout), with the standard library only."""
import os
import struct
import sys
import zipfile


def npy(shape, values):
    dims = "".join("%d, " % d for d in shape)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") +
            struct.pack("<%df" % len(values), *values))


def savez(path, arrays):
    with zipfile.ZipFile(path, "w") as z:
        for name, data in arrays.items():
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                f.write(data)


out = sys.argv[1]
n = 64
w = [[0.5, -1.0], [1.5, 0.25], [-0.75, 0.5], [0.2, 1.0]]
x = [((i * 37 + j * 11) % 41) / 20.0 - 1.0 for i in range(n) for j in range(4)]
y = [sum(x[i * 4 + k] * w[k][c] for k in range(4)) for i in range(n) for c in range(2)]
savez(os.path.join(out, "train.npz"), {"x": npy((n, 4), x), "y": npy((n, 2), y)})
savez(os.path.join(out, "binary.npz"), {"x": npy((n, 4), x),
                                        "y": npy((n, 2), [1.0 if v > 0 else 0.0 for v in y])})
