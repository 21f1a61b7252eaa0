#!/usr/bin/env python3
"""Writes the MLP training step of issue 5's CPU benchmark.

    python3 bench/gen_mlp.py [-o FILE] [--batch 256] [--dims 1024,4096,4096,1000]

MLP d0-d1-...-dn with ReLU between the layers, mean softmax cross-entropy,
plain SGD (lr 0.1): examples/mlp.mlir's model (784-256-10, batch 32) at the
size the issue measures (1024-4096-4096-1000, batch 256). Reuses the emitter
and layers of examples/generate.py. Standard library only.
"""

import argparse
import os
import sys

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(_REPO, "examples"))

from generate import (  # noqa: E402  (needs the sys.path entry above)
    Linear, TrainStep, loss_and_seed, param_name, render_file)


def build(batch, dims):
    step = TrainStep()
    e = step.e
    x = step.arg("x", (batch, dims[0]), "input")
    labels = step.arg("labels", (batch,), "label", dtype="i64")
    layers = [Linear(step, f"fc{i + 1}", dims[i], dims[i + 1])
              for i in range(len(dims) - 1)]
    e.section("forward")
    inputs, pre = [], []
    h = x
    for i, layer in enumerate(layers):
        inputs.append(h)
        z = layer.forward(e, h, f"fc{i + 1}")
        pre.append(z)
        h = e.relu(z, f"relu{i + 1}") if i + 1 < len(layers) else z
    d = loss_and_seed(step, h, labels)
    grads = {}
    for i in reversed(range(len(layers))):
        e.comment(f"fc{i + 1}")
        dx, g = layers[i].backward(e, inputs[i], d, f"fc{i + 1}",
                                   need_dx=i > 0)
        grads[i] = g
        if i > 0:
            d = e.relu_grad(dx, pre[i - 1], f"d_fc{i}_out")
    e.section("optimizer: SGD, lr 0.1")
    for i, layer in enumerate(layers):
        for p, g in zip(layer.params(), grads[i]):
            name = param_name(step, p)
            step.update("param", name, e.sgd(p, g, "new_" + name, lr=0.1))
    header = (f"MLP {'-'.join(map(str, dims))} classifier, batch {batch}, "
              "ReLU, mean softmax cross-entropy, SGD lr 0.1 "
              "(bench/gen_mlp.py).")
    return header, step


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-o", "--output")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--dims", default="1024,4096,4096,1000")
    args = parser.parse_args()
    header, step = build(args.batch, [int(d) for d in args.dims.split(",")])
    text = render_file(header, step)
    if args.output:
        with open(args.output, "w", newline="\n") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
