#!/usr/bin/env python3
"""Writes the training steps of the CPU benchmark at realistic sizes.

    python3 bench/gen_models.py mlp [-o FILE] [--batch 256]
        [--dims 1024,4096,4096,1000]
    python3 bench/gen_models.py cnn [-o FILE] [--batch 64] [--image 3,32,32]
    python3 bench/gen_models.py transformer [-o FILE] [--batch 16]
        [--seq 128] [--d-model 512] [--heads 8] [--d-ff 2048]

mlp: d0-d1-...-dn with ReLU between the layers, mean softmax cross-entropy,
plain SGD (lr 0.1): examples/mlp.mlir's model (784-256-10, batch 32) at the
size the issue measures. cnn and transformer: examples/cnn.mlir's and
examples/transformer.mlir's models (examples/generate.py) at the issue's
sizes (32x32x3 images, batch 64; d_model 512, 8 heads, sequence 128, batch
16, FFN 4 x d_model). Standard library only.
"""

import argparse
import os
import sys

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(_REPO, "examples"))

from generate import (  # noqa: E402  (needs the sys.path entry above)
    Linear, TrainStep, build_cnn, build_transformer, loss_and_seed,
    param_name, render_file)


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
              "(bench/gen_models.py).")
    return header, step


def ints(text):
    return [int(v) for v in text.split(",")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model", choices=["mlp", "cnn", "transformer"])
    parser.add_argument("-o", "--output")
    parser.add_argument("--batch", type=int)
    parser.add_argument("--dims", type=ints, default=[1024, 4096, 4096, 1000])
    parser.add_argument("--image", type=ints, default=[3, 32, 32])
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--d-model", type=int, default=512)
    parser.add_argument("--heads", type=int, default=8)
    parser.add_argument("--d-ff", type=int)
    args = parser.parse_args()
    if args.model == "mlp":
        header, step = build(args.batch or 256, args.dims)
    elif args.model == "cnn":
        batch = args.batch or 64
        _, step = build_cnn(batch, args.image)
        header = (f"examples/cnn.mlir's CNN on {'x'.join(map(str, args.image))}"
                  f" images, batch {batch} (bench/gen_models.py).")
    else:
        batch, d_ff = args.batch or 16, args.d_ff or 4 * args.d_model
        if args.d_model % args.heads:
            parser.error("--d-model must be a multiple of --heads")
        _, step = build_transformer(batch, args.seq, args.d_model, args.heads,
                                    d_ff)
        header = (f"examples/transformer.mlir's pre-LN encoder block, d_model "
                  f"{args.d_model}, {args.heads} heads, FFN {d_ff}, sequence "
                  f"{args.seq}, batch {batch} (bench/gen_models.py).")
    text = render_file(header, step)
    if args.output:
        with open(args.output, "w", newline="\n") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
