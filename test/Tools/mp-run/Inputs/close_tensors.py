"""Exits non-zero unless two safetensors files hold the same tensors (names,
dtypes, shapes) with values within a relative tolerance: every element
|a - b| <= tol * max(1, max |a| of the tensor). Reads F32, BF16 and F16."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_file import tensors  # noqa: E402


def values(dtype, raw):
    if dtype == "F32":
        return list(struct.unpack("<%df" % (len(raw) // 4), raw))
    if dtype == "F16":
        return list(struct.unpack("<%de" % (len(raw) // 2), raw))
    if dtype == "BF16":
        halves = struct.unpack("<%dH" % (len(raw) // 2), raw)
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0]
                for h in halves]
    sys.exit("unsupported dtype %s" % dtype)


a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
tol = float(sys.argv[3])
if a.keys() != b.keys():
    sys.exit("different tensors: %s vs %s" % (sorted(a), sorted(b)))
worst = 0.0
for name in sorted(a):
    (da, sa, ra), (db, sb, rb) = a[name], b[name]
    if (da, sa) != (db, sb):
        sys.exit("'%s': %s %s vs %s %s" % (name, da, sa, db, sb))
    if da not in ("F32", "F16", "BF16"):
        if ra != rb:
            sys.exit("'%s' differs" % name)
        continue
    va, vb = values(da, ra), values(db, rb)
    scale = max([1.0] + [abs(x) for x in va])
    for i, (x, y) in enumerate(zip(va, vb)):
        err = abs(x - y) / scale
        if not err <= tol:
            sys.exit("'%s'[%d]: %r vs %r (%.3g > %g)" % (name, i, x, y, err,
                                                        tol))
        worst = max(worst, err)
print("%d tensors within %g (worst %.3g)" % (len(a), tol, worst))
