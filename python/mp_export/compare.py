"""Compares mp-run's per-step losses (its --metrics JSON lines, logged every
step) with a framework's reference losses (the exporter example's
*.reference.json).

    python -m mp_export.compare REFERENCE.json METRICS.jsonl [--steps N]
        [--rtol 1e-4] [--final-tol T]

Without --final-tol: the first N losses must agree to rtol (relative).
With --final-tol: the mean of mp's last 10 logged losses must be within T
(absolute) of the mean of the reference's last 10 (the 16-bit policies).

    python -m mp_export.compare --state REFERENCE.safetensors CHECKPOINT [--rtol R]

compares state instead: every tensor of the framework's state (params,
buffers such as batch-norm running statistics, optimizer state) must be in
the checkpoint with max |mp - framework| <= R * max |framework|.
Prints one line per check and exits non-zero on a failure.
"""
import argparse
import json
import math
import sys


def read_metrics(path):
    losses = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if record.get("event") == "train":
                losses[record["step"]] = record["loss"]
    return [losses[s] for s in sorted(losses)]


def compare_state(reference, checkpoint, rtol, label):
    import numpy as np
    from .common import read_safetensors
    ref, _ = read_safetensors(reference)
    mp, _ = read_safetensors(checkpoint)
    worst, worst_name, bad = 0.0, None, []
    for name in sorted(ref):
        if name not in mp:
            bad.append("%s missing from the checkpoint" % name)
            continue
        a, b = np.asarray(mp[name], np.float64), np.asarray(ref[name], np.float64)
        if a.shape != b.shape:
            bad.append("%s: shape %s vs %s" % (name, a.shape, b.shape))
            continue
        err = float(np.max(np.abs(a - b))) / max(float(np.max(np.abs(b))), 1e-30) \
            if b.size else 0.0
        if err > worst:
            worst, worst_name = err, name
        if not err <= rtol:
            bad.append("%s: relative error %.2e" % (name, err))
    ok = not bad
    print("%s%s: %d state tensors match the framework's to %.2e relative (worst: %s; "
          "tolerance %.0e)%s" % (label, "ok" if ok else "FAIL", len(ref), worst, worst_name,
                                 rtol, "".join("\n  " + b for b in bad)))
    return 0 if ok else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("metrics")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--final-tol", type=float, default=None)
    parser.add_argument("--label", default="")
    parser.add_argument("--state", action="store_true")
    args = parser.parse_args(argv)
    label = args.label + ": " if args.label else ""
    if args.state:
        return compare_state(args.reference, args.metrics, args.rtol, label)
    with open(args.reference) as f:
        ref = json.load(f)["losses"]
    mp = read_metrics(args.metrics)
    if args.final_tol is not None:
        if len(mp) < 10 or len(ref) < 10:
            print("%sFAIL: fewer than 10 losses (mp %d, reference %d)" % (label, len(mp), len(ref)))
            return 1
        a = sum(ref[-10:]) / 10
        b = sum(mp[-10:]) / 10
        ok = math.isfinite(b) and abs(a - b) <= args.final_tol
        print("%s%s: final loss (mean of the last 10 steps) mp %.4f vs "
              "framework fp32 %.4f, |diff| %.4f, tolerance %.4f" % (
                  label, "ok" if ok else "FAIL", b, a, abs(a - b), args.final_tol))
        return 0 if ok else 1
    n = args.steps
    if len(mp) < n or len(ref) < n:
        print("%sFAIL: need %d losses, have mp %d, reference %d" % (label, n, len(mp), len(ref)))
        return 1
    worst = max(abs(x - y) / max(abs(x), 1e-30) for x, y in zip(ref[:n], mp[:n]))
    ok = worst <= args.rtol
    print("%s%s: first %d losses match to %.2e relative (tolerance %.0e); "
          "step 1 %.6f vs %.6f, step %d %.6f vs %.6f" % (
              label, "ok" if ok else "FAIL", n, worst, args.rtol, mp[0], ref[0],
              n, mp[n - 1], ref[n - 1]))
    if not ok:
        for i, (x, y) in enumerate(zip(ref[:n], mp[:n])):
            print("  step %d: framework %.7f mp %.7f" % (i + 1, x, y))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
