#!/usr/bin/env python3
"""Exports a PyTorch model's training step for mp, and trains the same model
in PyTorch (float32, same init, same batches in file order) as the
reference mp's training must match.

  torch_digits.py export MODEL --data DATA --out OUT [--batch B] [--steps N]
      writes OUT/torch_MODEL.{mlir,init.safetensors,manifest.json} and
      OUT/torch_MODEL.reference.json (per-step losses, final test loss and
      accuracy of PyTorch's own training for N steps)
  torch_digits.py load MODEL CHECKPOINT --data DATA
      loads an mp-run checkpoint back into the PyTorch model and prints its
      test loss and accuracy as JSON

MODEL is mlp, mlp_adam, cnn, transformer or mlp_underflow (examples/frameworks/torch_models.py);
DATA holds train_x.npy, train_y.npy, test_x.npy, test_y.npy.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))

from mp_export import torch_export  # noqa: E402
from torch_models import MODELS  # noqa: E402


def load(data, split):
    x = torch.from_numpy(np.load(os.path.join(data, split + "_x.npy")).astype(np.float32))
    y = torch.from_numpy(np.load(os.path.join(data, split + "_y.npy")).astype(np.int64))
    return x, y


def evaluate(model, to_input, loss_fn, x, y, batch):
    """Mean loss and accuracy over the full batches, as mp-run's evaluation
    (batch statistics in batch norm: train mode, without touching state)."""
    losses, correct, n = [], 0, 0
    state = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.no_grad():
        for i in range(len(x) // batch):
            xb = to_input(x[i * batch:(i + 1) * batch])
            yb = y[i * batch:(i + 1) * batch]
            out = model(xb)
            losses.append(loss_fn(out, yb).item())
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    model.load_state_dict(state)
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
    torch.set_num_threads(1)

    model, opt, to_input, loss_fn = MODELS[args.model](args.batch)
    x, y = load(args.data, "train")
    tx, ty = load(args.data, "test")

    if args.cmd == "load":
        missing = torch_export.load_checkpoint(model, args.checkpoint)
        loss, acc = evaluate(model, to_input, loss_fn, tx, ty, args.batch)
        print(json.dumps({"test_loss": loss, "test_accuracy": acc,
                          "not_in_checkpoint": missing}))
        return

    stem = "torch_" + args.model
    torch_export.export(model, opt, to_input(x[:args.batch]), y[:args.batch],
                        args.out, stem, loss_fn=loss_fn,
                        description="examples/frameworks/torch_models.py: " + args.model)
    # PyTorch's own float32 training: file order, partial batch dropped.
    per_epoch = len(x) // args.batch
    losses = []
    for step in range(args.steps):
        i = step % per_epoch
        xb = to_input(x[i * args.batch:(i + 1) * args.batch])
        yb = y[i * args.batch:(i + 1) * args.batch]
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    test_loss, test_acc = evaluate(model, to_input, loss_fn, tx, ty, args.batch)
    with open(os.path.join(args.out, stem + ".reference.json"), "w") as f:
        json.dump({"framework": "pytorch", "version": torch.__version__,
                   "model": args.model, "batch": args.batch, "steps": args.steps,
                   "losses": losses, "test_loss": test_loss,
                   "test_accuracy": test_acc}, f, indent=1)
    print("%s: exported to %s; PyTorch fp32: %d steps, last loss %.4f, test "
          "accuracy %.2f%%" % (stem, args.out, args.steps, losses[-1], 100 * test_acc))


if __name__ == "__main__":
    main()
