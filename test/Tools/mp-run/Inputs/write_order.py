"""Writes recurrent.mlir's data: x [256, 3, 4] sequences in [-1, 1] and
the time step (of 3) whose first feature is largest as the label: a
labelling a model gets right only by carrying state across steps."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_files import f32, i64, savez  # noqa: E402

n, t, d = 256, 3, 4
x = [((i * 53 + s * 31 + j * 29) % 97) / 48.0 - 1.0
     for i in range(n) for s in range(t) for j in range(d)]
labels = [max(range(t), key=lambda s: x[(i * t + s) * d])
          for i in range(n)]
savez(os.path.join(sys.argv[1], "order.npz"),
      {"x": f32((n, t, d), x), "labels": i64((n,), labels)})
