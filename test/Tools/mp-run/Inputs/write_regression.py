"""Writes regression.mlir's data: x [64, 4] in [-1, 1], y = x @ w* ([64, 2],
float targets) in train.npz, and binary targets (y > 0) in binary.npz."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npy_files import f32, savez  # noqa: E402

out = sys.argv[1]
n = 64
w = [[0.5, -1.0], [1.5, 0.25], [-0.75, 0.5], [0.2, 1.0]]
x = [((i * 37 + j * 11) % 41) / 20.0 - 1.0 for i in range(n) for j in range(4)]
y = [sum(x[i * 4 + k] * w[k][c] for k in range(4)) for i in range(n) for c in range(2)]
savez(os.path.join(out, "train.npz"), {"x": f32((n, 4), x), "y": f32((n, 2), y)})
savez(os.path.join(out, "binary.npz"), {"x": f32((n, 4), x),
                                        "y": f32((n, 2), [1.0 if v > 0 else 0.0 for v in y])})
