"""Exits non-zero unless two safetensors files hold the same tensors (names,
dtypes, shapes and bytes); their metadata (a checkpoint's plan hash and
checksum) may differ."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from safetensors_file import tensors  # noqa: E402


a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
if a.keys() != b.keys():
    sys.exit("different tensors: %s vs %s" % (sorted(a), sorted(b)))
for name in sorted(a):
    if a[name] != b[name]:
        sys.exit("'%s' differs" % name)
print("%d tensors, the same bytes" % len(a))
