"""The command line shared by torch_digits.py and keras_digits.py:

  export MODEL --data DATA --out OUT [--batch B] [--steps N]
      writes OUT/PREFIX_MODEL.{mlir,init.safetensors,manifest.json} and
      OUT/PREFIX_MODEL.reference.json (per-step losses, final test loss and
      accuracy of the framework's own float32 training for N steps, batches
      in file order, the partial last batch dropped, as mp-run --no-shuffle;
      and the per-step losses of the same training in float64 for the first
      --float64-steps steps, from the same initial parameters: the exact
      trajectory both float32 ones are measured against)
      and OUT/PREFIX_MODEL.reference-stepK.safetensors (its state after
      K steps for each K of --state-at, under the exported names; the
      float64 training's in OUT/PREFIX_MODEL.reference64-stepK.safetensors)
  load MODEL CHECKPOINT --data DATA [--batch B]
      loads an mp-run checkpoint back into the model and prints its test
      loss and accuracy as JSON

A framework plugs in with an object that has `name`, `version`, `prefix`,
`models` (name -> builder) and the methods `export(built, x, y, out, stem,
description)` (returns a step function: batch -> float loss),
`evaluate(built, x, y, batch)` -> (loss, accuracy),
`float64_run(name, built, batches, state_at)` -> (losses, {K: state after
K steps} for the K in `state_at`) of training a float64 copy of `built`
(its current parameters) on `batches`,
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
    e.add_argument("--state-at", default="1,20",
                   help="steps after which the state is saved (comma-separated)")
    e.add_argument("--float64-steps", type=int, default=20)
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

    def batch_at(s):
        i = s % per_epoch
        return x[i * b:(i + 1) * b], y[i * b:(i + 1) * b]
    # Before the float32 training changes the parameters.
    state_at = [int(k) for k in args.state_at.split(",") if k]
    losses64, states64 = framework.float64_run(
        args.model, built, [batch_at(s) for s in range(min(args.float64_steps, args.steps))],
        state_at)
    for k, state in states64.items():
        write_safetensors(os.path.join(args.out, "%s.reference64-step%d.safetensors" % (
            stem, k)), state)
    losses = []
    for s in range(args.steps):
        losses.append(step(*batch_at(s)))
        if s + 1 in state_at:
            write_safetensors(os.path.join(args.out, "%s.reference-step%d.safetensors" % (
                stem, s + 1)), framework.state(built))
    test_loss, test_acc = framework.evaluate(built, tx, ty, b)
    with open(os.path.join(args.out, stem + ".reference.json"), "w") as f:
        json.dump({"framework": framework.name, "version": framework.version,
                   "model": args.model, "batch": b, "steps": args.steps,
                   "losses": losses, "losses_float64": losses64,
                   "test_loss": test_loss,
                   "test_accuracy": test_acc}, f, indent=1)
    print("%s: exported to %s; %s fp32: %d steps, last loss %.4f, test "
          "accuracy %.2f%%" % (stem, args.out, framework.name, args.steps, losses[-1],
                               100 * test_acc))
