"""Writes the small .npy files the mp-run error tests feed it."""
import os
import struct
import sys


def npy(path, descr, shape, payload):
    dims = "".join("%d, " % d for d in shape) if len(shape) > 1 else "%d," % shape[0]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1") + payload)


out = sys.argv[1]
npy(os.path.join(out, "x784.npy"), "<f4", (32, 784), struct.pack("<%df" % (32 * 784), *([0.5] * (32 * 784))))
npy(os.path.join(out, "x_wrong.npy"), "<f4", (32, 10), struct.pack("<320f", *([0.0] * 320)))
npy(os.path.join(out, "x_int.npy"), "<i8", (32, 784), struct.pack("<%dq" % (32 * 784), *([1] * (32 * 784))))
npy(os.path.join(out, "x_big.npy"), "<i8", (32, 784), struct.pack("<%dq" % (32 * 784), *([1] * 100 + [2**24 + 1] + [1] * (32 * 784 - 101))))
npy(os.path.join(out, "y32.npy"), "<i8", (32,), struct.pack("<32q", *[i % 10 for i in range(32)]))
npy(os.path.join(out, "y_short.npy"), "<i8", (31,), struct.pack("<31q", *([1] * 31)))
npy(os.path.join(out, "y_neg.npy"), "<i8", (32,), struct.pack("<32q", *([1] * 5 + [-1] + [2] * 26)))
npy(os.path.join(out, "y_bad.npy"), "<i8", (32,), struct.pack("<32q", *([3] * 31 + [42])))
with open(os.path.join(out, "corrupt.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00\xff\x00{'descr'")

# Faults (faults.mlir): one NaN among the inputs, all of them NaN, inf in
# the test set, a label past the classes deep in a file, a shape whose
# dimensions overflow when multiplied.
nan_one = [0.5] * (64 * 784)
nan_one[1000 * 0 + 784 * 37 + 5] = float("nan")
npy(os.path.join(out, "x_nan.npy"), "<f4", (64, 784), struct.pack("<%df" % (64 * 784), *nan_one))
npy(os.path.join(out, "x_allnan.npy"), "<f4", (64, 784), struct.pack("<%df" % (64 * 784), *([float("nan")] * (64 * 784))))
inf_test = [0.25] * (32 * 784)
inf_test[784 * 3 + 700] = float("-inf")
npy(os.path.join(out, "x_inf.npy"), "<f4", (32, 784), struct.pack("<%df" % (32 * 784), *inf_test))
npy(os.path.join(out, "x64.npy"), "<f4", (64, 784), struct.pack("<%df" % (64 * 784), *([0.5] * (64 * 784))))
npy(os.path.join(out, "y64.npy"), "<i8", (64,), struct.pack("<64q", *[i % 10 for i in range(64)]))
npy(os.path.join(out, "y64_far.npy"), "<i8", (64,), struct.pack("<64q", *([1] * 60 + [10] + [1] * 3)))
npy(os.path.join(out, "x_overflow.npy"), "<f4", (0, 4611686018427387904, 4611686018427387904), b"")
