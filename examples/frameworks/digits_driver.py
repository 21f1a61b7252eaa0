"""The command line shared by torch_digits.py and tf_digits.py:

  export MODEL --data DATA --out OUT [--batch B] [--steps N]
      writes OUT/PREFIX_MODEL.{mlir,init.safetensors,manifest.json} and
      OUT/PREFIX_MODEL.reference.json (per-step losses, final test loss and
      accuracy of the framework's own float32 training for N steps, batches
      in file order, the partial last batch dropped, as mp-run --no-shuffle)
      and OUT/PREFIX_MODEL.reference-stepK.safetensors (its state after
      K = --state-at steps, under the exported names)
  load MODEL CHECKPOINT --data DATA [--batch B]
      loads an mp-run checkpoint back into the model and prints its test
      loss and accuracy as JSON

A framework plugs in with an object that has `name`, `version`, `prefix`,
`models` (name -> builder) and the methods `export(built, x, y, out, stem,
description)` (returns a step function: batch -> float loss),
`evaluate(built, x, y, batch)` -> (loss, accuracy),
`state(built)` -> {exported name: array} and
`load_checkpoint(built, path)` -> names not in the file.
"""
import argparse
import json
import os

import numpy as np
from mp_export.common import write_safetensors


def load(data, split):
    x = np.load(os.path.join(data, split + "_x.npy")).astype(np.float32)
    y = np.load(os.path.join(data, split + "_y.npy")).astype(np.int64)
    return x, y


def main(framework, doc):
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("model", choices=sorted(framework.models))
    e.add_argument("--data", required=True)
    e.add_argument("--out", required=True)
    e.add_argument("--batch", type=int, default=32)
    e.add_argument("--steps", type=int, default=20)
    e.add_argument("--state-at", type=int, default=20)
    l = sub.add_parser("load")
    l.add_argument("model", choices=sorted(framework.models))
    l.add_argument("checkpoint")
    l.add_argument("--data", required=True)
    l.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()

    built = framework.models[args.model](args.batch)
    x, y = load(args.data, "train")
    tx, ty = load(args.data, "test")

    if args.cmd == "load":
        missing = framework.load_checkpoint(built, args.checkpoint)
        loss, acc = framework.evaluate(built, tx, ty, args.batch)
        print(json.dumps({"test_loss": loss, "test_accuracy": acc,
                          "not_in_checkpoint": missing}))
        return

    stem = framework.prefix + args.model
    b = args.batch
    step = framework.export(built, x[:b], y[:b], args.out, stem,
                            "examples/frameworks/%smodels.py: %s" % (framework.prefix,
                                                                     args.model))
    per_epoch = len(x) // b
    losses = []
    for s in range(args.steps):
        i = s % per_epoch
        losses.append(step(x[i * b:(i + 1) * b], y[i * b:(i + 1) * b]))
        if s + 1 == args.state_at:
            write_safetensors(os.path.join(args.out, "%s.reference-step%d.safetensors" % (
                stem, args.state_at)), framework.state(built))
    test_loss, test_acc = framework.evaluate(built, tx, ty, b)
    with open(os.path.join(args.out, stem + ".reference.json"), "w") as f:
        json.dump({"framework": framework.name, "version": framework.version,
                   "model": args.model, "batch": b, "steps": args.steps,
                   "losses": losses, "test_loss": test_loss,
                   "test_accuracy": test_acc}, f, indent=1)
    print("%s: exported to %s; %s fp32: %d steps, last loss %.4f, test "
          "accuracy %.2f%%" % (stem, args.out, framework.name, args.steps, losses[-1],
                               100 * test_acc))
