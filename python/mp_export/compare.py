"""Compares mp-run's per-step losses (its --metrics JSON lines, logged every
step) with a framework's reference losses (the exporter example's
*.reference.json).

    python -m mp_export.compare REFERENCE.json METRICS.jsonl [--steps N]
        [--rtol 1e-4] [--final-tol T]

Without --final-tol: the first N losses must agree to rtol (relative), or,
where the reference has the same training in float64 ("losses_float64"),
mp's losses must be as close to those exact ones as the framework's own
float32 losses are (or within rtol of them): two float32 trainings that
round differently drift apart from step to step, and a framework whose sums
are less accurate than mp's (TensorFlow's batch norm, for one) is not the
one to be matched to 1e-4. Both distances are printed.
With --final-tol: the mean of mp's last 10 logged losses must be within T
(absolute) of the mean of the reference's last 10 (the 16-bit policies).

    python -m mp_export.compare --state REFERENCE.safetensors CHECKPOINT [--rtol R]
        [--exact REFERENCE64.safetensors]

compares state instead: every tensor of the framework's state (params,
buffers such as batch-norm running statistics, optimizer state) must be in
the checkpoint with max |mp - framework| <= R * max |framework|, or, with
the float64 training's state (--exact), mp's tensor must be as close to
the float64 one as the framework's float32 tensor is (or within R of it).

    python -m mp_export.compare --state REFERENCE64.safetensors CHECKPOINT
        --framework REFERENCE.safetensors [--rtol R]

measures mp's state against the float64 training's directly (after one
step: the step's gradients, in the momentum buffers, with no drift between
two trainings yet) and prints the framework's float32 error beside it.
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


def relative_error(a, b):
    """max |a - b| / max |b| (0 for empty tensors)."""
    import numpy as np
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b))) / max(float(np.max(np.abs(b))), 1e-30) \
        if b.size else 0.0


def compare_state(reference, checkpoint, rtol, label, exact=None, framework=None):
    import numpy as np
    from .common import read_safetensors
    ref, _ = read_safetensors(reference)
    mp, _ = read_safetensors(checkpoint)
    ref64 = read_safetensors(exact)[0] if exact else {}
    worst, worst_name, bad, by_exact = 0.0, None, [], []
    for name in sorted(ref):
        if name not in mp:
            bad.append("%s missing from the checkpoint" % name)
            continue
        a, b = np.asarray(mp[name], np.float64), np.asarray(ref[name], np.float64)
        if a.shape != b.shape:
            bad.append("%s: shape %s vs %s" % (name, a.shape, b.shape))
            continue
        err = relative_error(a, b)
        if err > worst:
            worst, worst_name = err, name
        if err <= rtol:
            continue
        if name in ref64 and np.shape(ref64[name]) == a.shape:
            to_exact, fw_to_exact = relative_error(a, ref64[name]), relative_error(b, ref64[name])
            if to_exact <= max(rtol, fw_to_exact):
                by_exact.append("%s: %.2e from the framework's float32, but %.2e from "
                                "the float64 training (framework float32: %.2e)" % (
                                    name, err, to_exact, fw_to_exact))
                continue
            bad.append("%s: relative error %.2e (from the float64 training: mp %.2e, "
                       "framework float32 %.2e)" % (name, err, to_exact, fw_to_exact))
            continue
        bad.append("%s: relative error %.2e" % (name, err))
    if framework:
        fw, _ = read_safetensors(framework)
        fw_worst = max((relative_error(fw[n], ref[n]) for n in ref
                        if n in fw and np.shape(fw[n]) == np.shape(ref[n])), default=0.0)
        ok = not bad
        print("%s%s: %d state tensors match the float64 training's to %.2e relative "
              "(worst: %s; tolerance %.0e); the framework's float32: %.2e%s" % (
                  label, "ok" if ok else "FAIL", len(ref), worst, worst_name, rtol,
                  fw_worst, "".join("\n  " + b for b in bad)))
        return 0 if ok else 1
    ok = not bad
    print("%s%s: %d state tensors match the framework's to %.2e relative (worst: %s; "
          "tolerance %.0e)%s%s" % (label, "ok" if ok else "FAIL", len(ref), worst, worst_name,
                                   rtol, "".join("\n  closer to float64: " + b for b in by_exact),
                                   "".join("\n  " + b for b in bad)))
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
    parser.add_argument("--exact", default=None)
    parser.add_argument("--framework", default=None)
    args = parser.parse_args(argv)
    label = args.label + ": " if args.label else ""
    if args.state:
        return compare_state(args.reference, args.metrics, args.rtol, label, args.exact,
                             args.framework)
    with open(args.reference) as f:
        reference = json.load(f)
    ref = reference["losses"]
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

    def distance(a, b):
        return max(abs(x - y) / max(abs(y), 1e-30) for x, y in zip(a, b))
    worst = distance(mp[:n], ref[:n])
    exact = reference.get("losses_float64") or []
    m = min(n, len(exact))
    to_exact = distance(mp[:m], exact[:m]) if m else None
    fw_to_exact = distance(ref[:m], exact[:m]) if m else None
    ok = worst <= args.rtol or (
        to_exact is not None and to_exact <= max(args.rtol, fw_to_exact))
    exact_text = ""
    if to_exact is not None:
        exact_text = ("; against the float64 training over %d steps: mp %.2e, "
                      "framework float32 %.2e" % (m, to_exact, fw_to_exact))
    print("%s%s: first %d losses match the framework's float32 to %.2e relative "
          "(tolerance %.0e)%s; step 1 %.6f vs %.6f, step %d %.6f vs %.6f" % (
              label, "ok" if ok else "FAIL", n, worst, args.rtol, exact_text,
              mp[0], ref[0], n, mp[n - 1], ref[n - 1]))
    if not ok:
        for i, (x, y) in enumerate(zip(ref[:n], mp[:n])):
            print("  step %d: framework %.7f mp %.7f%s" % (
                i + 1, x, y, " float64 %.7f" % exact[i] if i < len(exact) else ""))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
