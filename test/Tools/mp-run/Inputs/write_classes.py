"""Writes step-state.mlir's data: x [256, 8] in [-1, 1] and the class
argmax(x @ w*) of 4 (a learnable labelling) in classes.npz."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_files import f32, i64, savez  # noqa: E402

n, d, k = 256, 8, 4
w = [[((r * 7 + c * 5) % 9) / 4.0 - 1.0 for c in range(k)] for r in range(d)]
x = [((i * 53 + j * 29) % 97) / 48.0 - 1.0 for i in range(n) for j in range(d)]
labels = []
for i in range(n):
    scores = [sum(x[i * d + r] * w[r][c] for r in range(d)) for c in range(k)]
    labels.append(max(range(k), key=lambda c: scores[c]))
savez(os.path.join(sys.argv[1], "classes.npz"),
      {"x": f32((n, d), x), "labels": i64((n,), labels)})
