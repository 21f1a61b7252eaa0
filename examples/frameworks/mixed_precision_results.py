#!/usr/bin/env python3
"""Writes docs/mixed-precision-results.md's table and plot: every exporter
example (and the gradient-underflow case) trained by mp-run under float32,
mixed_bfloat16, mixed_float16 with dynamic loss scaling and mixed_float16
without loss scaling, next to the framework's own float32 training, in the
manner of Micikevicius et al. 2017, Table 1.

  mixed_precision_results.py --bin BUILD/bin --out DIR [--steps N] [--data DATA]

Writes DIR/results.json, DIR/table.md and DIR/mixed-precision-underflow.png.
Needs the .venv of scripts/setup.sh (torch, keras on tensorflow, matplotlib).
"""
import argparse
import json
import os

import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.normpath(os.path.join(here, "..", ".."))

CASES = [("torch", "mlp"), ("torch", "cnn"), ("torch", "transformer"),
         ("keras", "mlp"), ("keras", "cnn"), ("keras", "transformer"), ("torch", "mlp_underflow")]
CONFIGS = [("fp32", "policy=float32"),
           ("bf16", "policy=mixed_bfloat16"),
           ("fp16 + loss scaling", "policy=mixed_float16 loss-scale=dynamic"),
           ("fp16, no loss scaling", "policy=mixed_float16 loss-scale=none")]
# Only for the underflow case: dynamic scaling that starts at 1 (where
# every gradient underflows, as without scaling) and doubles every 10 finite
# steps, to show the scaler finding its range (the plot's second panel).
EXTRA = [("fp16 + loss scaling from 1, growth every 10",
          "policy=mixed_float16 loss-scale=dynamic init-scale=1 growth-interval=10")]
TAIL = 20  # final loss: mean of the last TAIL steps (the same batches everywhere)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, **kw)


def metrics(path):
    rows = [json.loads(l) for l in open(path)]
    return [r for r in rows if r["event"] == "train"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--data", default=None)
    parser.add_argument("--cases", default=None,
                        help="comma-separated subset, e.g. torch_mlp_underflow")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    data = args.data or os.path.join(args.out, "data")
    if not os.path.exists(os.path.join(data, "train_x.npy")):
        run([sys.executable, os.path.join(root, "data", "get_digits.py"), data])
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    results = []
    cases = [c for c in CASES if args.cases is None or
             "%s_%s" % c in args.cases.split(",")]
    for framework, model in cases:
        stem = "%s_%s" % (framework, model)
        script = os.path.join(here, framework + "_digits.py")
        run([sys.executable, script, "export", model, "--data", data, "--out", args.out,
             "--steps", str(args.steps)], env=env)
        ref = json.load(open(os.path.join(args.out, stem + ".reference.json")))
        # The underflow case's loss is the cross-entropy times a constant;
        # report the cross-entropy.
        factor = 2.0 ** 20 if model == "mlp_underflow" else 1.0
        row = {"case": stem, "framework_fp32": {
            "final_loss": factor * sum(ref["losses"][-TAIL:]) / TAIL,
            "test_accuracy": ref["test_accuracy"]}, "runs": {}}
        configs = CONFIGS + (EXTRA if model == "mlp_underflow" else [])
        for i, (label, options) in enumerate(configs):
            tag = "c%d" % i
            plan = os.path.join(args.out, "%s.%s.mpplan" % (stem, tag))
            ckpt = os.path.join(args.out, "%s.%s.safetensors" % (stem, tag))
            met = os.path.join(args.out, "%s.%s.jsonl" % (stem, tag))
            mlir = os.path.join(args.out, stem + ".mlir")
            run([os.path.join(args.bin, "mp-compile"), mlir,
                 "--mixed-precision=" + options, "-o", plan])
            run([os.path.join(args.bin, "mp-run"), plan, "--plain", "--no-shuffle",
                 "--steps", str(args.steps), "--train-x", os.path.join(data, "train_x.npy"),
                 "--train-y", os.path.join(data, "train_y.npy"),
                 "--init-params", os.path.join(args.out, stem + ".init.safetensors"),
                 "--log-every", "1", "--metrics", met, "--checkpoint", ckpt,
                 "--no-stop-on-nan"])
            steps = metrics(met)
            losses = [factor * r["loss"] for r in steps]
            # Test accuracy: the checkpoint loaded back into the framework
            # (batch statistics in batch norm, as mp-run's evaluation).
            load_model = "mlp" if model == "mlp_underflow" else model
            loaded = json.loads(run([sys.executable, script, "load", load_model, ckpt,
                                     "--data", data], env=env).stdout)
            row["runs"][label] = {
                "final_loss": sum(losses[-TAIL:]) / TAIL,
                "test_accuracy": loaded["test_accuracy"],
                "test_loss": loaded["test_loss"],
                "skipped": steps[-1]["skipped"], "final_scale": steps[-1]["loss_scale"],
                "losses": losses, "scales": [r["loss_scale"] for r in steps]}
            print("%-22s %-22s loss %.4f accuracy %.2f%%" % (
                stem, label, row["runs"][label]["final_loss"],
                100 * loaded["test_accuracy"]), flush=True)
        results.append(row)

    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"steps": args.steps, "tail": TAIL, "results": results}, f)

    under = next(r for r in results if r["case"] == "torch_mlp_underflow")
    extra_lines = []
    for label, _ in EXTRA:
        r = under["runs"][label]
        first_low = next((i + 1 for i, l in enumerate(r["losses"]) if l < 2.0), None)
        extra_lines.append(
            "torch_mlp_underflow, %s: final loss %.3f, test accuracy %.1f%%, %d steps "
            "skipped, scale %g at the end; the loss first drops below 2.0 at step %s" % (
                label, r["final_loss"], 100 * r["test_accuracy"], r["skipped"],
                r["final_scale"], first_low))
    lines = ["| model (exported from) | framework fp32 | " +
             " | ".join(label for label, _ in CONFIGS) + " |",
             "| --- | --- |" + " --- |" * len(CONFIGS)]
    for row in results:
        cells = ["%.3f / %.1f%%" % (row["framework_fp32"]["final_loss"],
                                    100 * row["framework_fp32"]["test_accuracy"])]
        for label, _ in CONFIGS:
            r = row["runs"][label]
            cell = "%.3f / %.1f%%" % (r["final_loss"], 100 * r["test_accuracy"])
            if r["skipped"]:
                cell += " (%d skipped)" % r["skipped"]
            cells.append(cell)
        lines.append("| %s | %s |" % (row["case"], " | ".join(cells)))
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n\n" + "\n".join(extra_lines) + "\n")
    print("\n".join(lines + extra_lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    styles = ["-", "--", ":", "-", "-"]
    for (label, _), style in zip(CONFIGS + EXTRA, styles):
        ax1.plot(range(1, args.steps + 1), under["runs"][label]["losses"], style,
                 label=label, linewidth=1.2)
    ax1.set_ylabel("cross-entropy (loss / 2^-20)")
    ax1.set_title("Gradient underflow: MLP with loss x 2^-20, lr x 2^20 (digits, batch 32)")
    ax1.legend()
    ax1.grid(alpha=0.3)
    for label, _ in [CONFIGS[2]] + EXTRA:
        ax2.plot(range(1, args.steps + 1), under["runs"][label]["scales"], label=label,
                 linewidth=1.2)
    ax2.set_yscale("log", base=2)
    ax2.set_ylabel("loss scale")
    ax2.set_xlabel("step")
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "mixed-precision-underflow.png"), dpi=100)


if __name__ == "__main__":
    main()
