"""Exits non-zero unless two safetensors files hold the same tensors (names,
dtypes, shapes and bytes); their metadata (a checkpoint's plan hash and
checksum) may differ."""
import json
import struct
import sys


def tensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    return {name: (t["dtype"], t["shape"],
                   body[t["data_offsets"][0]:t["data_offsets"][1]])
            for name, t in header.items() if name != "__metadata__"}


a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
if a.keys() != b.keys():
    sys.exit("different tensors: %s vs %s" % (sorted(a), sorted(b)))
for name in sorted(a):
    if a[name] != b[name]:
        sys.exit("'%s' differs" % name)
print("%d tensors, the same bytes" % len(a))
