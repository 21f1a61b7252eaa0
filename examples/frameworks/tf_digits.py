#!/usr/bin/env python3
"""Exports a Keras model's training step for mp, and trains the same model
in TensorFlow (float32, same init, same batches in file order) as the
reference mp's training must match.

  tf_digits.py export MODEL --data DATA --out OUT [--batch B] [--steps N]
      writes OUT/tf_MODEL.{mlir,init.safetensors,manifest.json} and
      OUT/tf_MODEL.reference.json (per-step losses, final test loss and
      accuracy of TensorFlow's own training for N steps)
  tf_digits.py load MODEL CHECKPOINT --data DATA
      loads an mp-run checkpoint back into the Keras model and prints its
      test loss and accuracy as JSON

MODEL is mlp, cnn or transformer (examples/frameworks/tf_models.py).
"""
import argparse
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))

from mp_export import tf_export  # noqa: E402
from tf_models import MODELS  # noqa: E402


def load(data, split):
    x = np.load(os.path.join(data, split + "_x.npy")).astype(np.float32)
    y = np.load(os.path.join(data, split + "_y.npy")).astype(np.int64)
    return x, y


def evaluate(model, to_input, x, y, batch):
    """Mean loss and accuracy over the full batches, as mp-run's evaluation
    (batch statistics in batch norm, state untouched)."""
    lossf = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    saved = [v.numpy() for v in model.variables]
    losses, correct, n = [], 0, 0
    for i in range(len(x) // batch):
        xb, yb = to_input(x[i * batch:(i + 1) * batch]), y[i * batch:(i + 1) * batch]
        out = model(xb, training=True)
        losses.append(float(lossf(yb, out)))
        correct += int(np.sum(np.argmax(out.numpy(), 1) == yb))
        n += len(yb)
    for v, s in zip(model.variables, saved):
        v.assign(s)
    return float(np.mean(losses)), correct / n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("model", choices=sorted(MODELS))
    e.add_argument("--data", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--batch", type=int, default=32)
    e.add_argument("--steps", type=int, default=20)
    l = sub.add_parser("load")
    l.add_argument("model", choices=sorted(MODELS))
    l.add_argument("checkpoint")
    l.add_argument("--data", required=True)
    l.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    model, opt, to_input = MODELS[args.model](args.batch)
    x, y = load(args.data, "train")
    tx, ty = load(args.data, "test")

    if args.cmd == "load":
        missing = tf_export.load_checkpoint(model, args.checkpoint)
        loss, acc = evaluate(model, to_input, tx, ty, args.batch)
        print(json.dumps({"test_loss": loss, "test_accuracy": acc,
                          "not_in_checkpoint": missing}))
        return

    stem = "tf_" + args.model
    step = tf_export.make_step(model, opt)
    tf_export.export(model, opt, to_input(x[:args.batch]), y[:args.batch], args.out, stem,
                     step=step, description="examples/frameworks/tf_models.py: " + args.model)
    per_epoch = len(x) // args.batch
    losses = []
    for s in range(args.steps):
        i = s % per_epoch
        xb = tf.constant(to_input(x[i * args.batch:(i + 1) * args.batch]))
        yb = tf.constant(y[i * args.batch:(i + 1) * args.batch])
        losses.append(float(step(xb, yb)))
    test_loss, test_acc = evaluate(model, to_input, tx, ty, args.batch)
    with open(os.path.join(args.out, stem + ".reference.json"), "w") as f:
        json.dump({"framework": "tensorflow", "version": tf.__version__,
                   "model": args.model, "batch": args.batch, "steps": args.steps,
                   "losses": losses, "test_loss": test_loss,
                   "test_accuracy": test_acc}, f, indent=1)
    print("%s: exported to %s; TensorFlow fp32: %d steps, last loss %.4f, test "
          "accuracy %.2f%%" % (stem, args.out, args.steps, losses[-1], 100 * test_acc))


if __name__ == "__main__":
    main()
