"""The depthwise-separable CNN example (separable_cnn.mlir) and its data.

    python3 examples/separable_cnn.py data OUT_DIR

writes train.npz (2048 images) and test.npz (512) of 1x16x16 textures in 4
classes (horizontal, vertical and diagonal stripes, checkerboards) with a
random period, phase, contrast and noise per image, from a fixed seed:
`x` [N, 1, 16, 16] f32 and `labels` [N] i64. The orientation is what a
class is, so the model must learn oriented filters.

The step (built by generate.py, which writes separable_cnn.mlir):
a 3x3 stem convolution, two depthwise-separable blocks (a 3x3 depthwise
convolution, groups = channels, then a 1x1 pointwise one, each with batch
norm and ReLU; the first block ends in a 2x2 max pool), global average
pooling and a linear head; Adam (lr 3e-3). Standard library only.
"""

import os
import struct
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from step_ir import TrainStep  # noqa: E402
from step_layers import (  # noqa: E402
    ConvBnRelu, Linear, adam_state, adam_update, loss_and_seed)

SIDE = 16
CLASSES = 4

SEPARABLE_CNN_HEADER = """\
Depthwise-separable CNN (MobileNet's building block) on 1x16x16 textures of 4
classes (examples/separable_cnn.py has the data), batch 32, NCHW:
  stem   conv 3x3 1->16, batch norm, relu
  block1 depthwise 3x3 (groups 16), bn, relu; pointwise 1x1 16->32, bn, relu;
         max pool 2x2
  block2 depthwise 3x3 (groups 32), bn, relu; pointwise 1x1 32->64, bn, relu
  head   global average pool, linear 64->4
Loss: mean softmax cross-entropy. Optimizer: Adam (lr 3e-3, betas (0.9,
0.999), eps 1e-8) with one shared step counter "step"."""


def build_separable_cnn(batch=32, lr=3e-3):
    step = TrainStep()
    e = step.e
    x = step.arg("x", (batch, 1, SIDE, SIDE), "input", "x")
    labels = step.arg("labels", (batch,), "label", "labels", dtype="i64")
    stem = ConvBnRelu(step, "stem.conv", "stem.bn", 1, 16)
    dw1 = ConvBnRelu(step, "block1.dw", "block1.dw_bn", 16, 16, groups=16)
    pw1 = ConvBnRelu(step, "block1.pw", "block1.pw_bn", 16, 32, k=1)
    dw2 = ConvBnRelu(step, "block2.dw", "block2.dw_bn", 32, 32, groups=32)
    pw2 = ConvBnRelu(step, "block2.pw", "block2.pw_bn", 32, 64, k=1)
    fc = Linear(step, "fc", 64, CLASSES)
    layers = [stem, dw1, pw1, dw2, pw2]
    params = [p for layer in layers for p in layer.params()] + fc.params()
    moments, step_count = adam_state(step, params)

    e.section("forward")
    r = stem.forward(step, x, "stem", "stem_bn")
    r = dw1.forward(step, r, "b1_dw", "b1_dw_bn")
    r1 = pw1.forward(step, r, "b1_pw", "b1_pw_bn")
    p1 = e.max_pool2d(r1, 2, "pool1")
    r = dw2.forward(step, p1, "b2_dw", "b2_dw_bn")
    r2 = pw2.forward(step, r, "b2_pw", "b2_pw_bn")
    pooled = e.global_avg_pool2d(r2, "gap")
    logits = fc.forward(e, pooled, "logits")

    d_logits = loss_and_seed(step, logits, labels)
    d_pooled, grads_fc = fc.backward(e, pooled, d_logits, "fc")
    d = e.global_avg_pool2d_grad(d_pooled, r2.shape, "d_b2_pw_relu")
    d, g_pw2 = pw2.backward(e, d, "b2_pw")
    d, g_dw2 = dw2.backward(e, d, "b2_dw")
    d = e.max_pool2d_grad(d, r1, 2, "d_b1_pw_relu")
    d, g_pw1 = pw1.backward(e, d, "b1_pw")
    d, g_dw1 = dw1.backward(e, d, "b1_dw")
    _, g_stem = stem.backward(e, d, "stem", need_dx=False)
    grads = g_stem + g_dw1 + g_pw1 + g_dw2 + g_pw2 + grads_fc

    e.section(f"optimizer: Adam, lr {lr}")
    adam_update(step, params, grads, moments, step_count, lr=lr,
                weight_decay=None, mnemonic="adam")
    return SEPARABLE_CNN_HEADER, step


# ===----------------------------------------------------------------------===
# The data
# ===----------------------------------------------------------------------===

class Lcg:
    """A 64-bit linear congruential generator (Knuth's MMIX constants)."""

    def __init__(self, seed):
        self.state = seed

    def uniform(self):
        self.state = (self.state * 6364136223846793005
                      + 1442695040888963407) % 2 ** 64
        return (self.state >> 11) / 2.0 ** 53


def texture(label, rng):
    period = 2 + int(rng.uniform() * 4)      # 2 .. 5 pixels
    phase = int(rng.uniform() * period)
    contrast = 0.5 + rng.uniform()
    pixels = []
    for i in range(SIDE):
        for j in range(SIDE):
            if label == 0:
                on = (i + phase) // period % 2
            elif label == 1:
                on = (j + phase) // period % 2
            elif label == 2:
                on = (i + j + phase) // period % 2
            else:
                on = ((i + phase) // period + (j + phase) // period) % 2
            noise = (rng.uniform() - 0.5) * 2.0
            pixels.append(contrast * (on - 0.5) + noise)
    return pixels


def write_set(path, n, rng):
    xs, labels = [], []
    for k in range(n):
        label = int(rng.uniform() * CLASSES)
        xs += texture(label, rng)
        labels.append(label)

    def npy(descr, shape, fmt, values):
        dims = "".join("%d, " % d for d in shape) if len(shape) != 1 \
            else "%d," % shape[0]
        header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" \
            % (descr, dims)
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
                + header.encode("latin1")
                + struct.pack("<%d%s" % (len(values), fmt), *values))

    with zipfile.ZipFile(path, "w") as z:
        with z.open("x.npy", "w", force_zip64=True) as f:
            f.write(npy("<f4", (n, 1, SIDE, SIDE), "f", xs))
        with z.open("labels.npy", "w", force_zip64=True) as f:
            f.write(npy("<i8", (n,), "q", labels))


def main(argv):
    if len(argv) == 3 and argv[1] == "data":
        os.makedirs(argv[2], exist_ok=True)
        rng = Lcg(2026)
        write_set(os.path.join(argv[2], "train.npz"), 2048, rng)
        write_set(os.path.join(argv[2], "test.npz"), 512, rng)
        print(f"wrote 2048 training and 512 test images to {argv[2]}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
