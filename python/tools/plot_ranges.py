#!/usr/bin/env python3
"""Draws mp-run --ranges output: the tensors closest to overflow over time.

    python plot_ranges.py RANGES.jsonl OUT.png [--dtype f16|bf16] [--top N]
    python plot_ranges.py RANGES.jsonl --text [--dtype f16|bf16] [--top N]

Each tensor's headroom at a measured step is log2(max finite / max |x|):
how many doublings its largest value can take before it overflows the
16-bit type (f16 by default: 65504; bf16: 3.39e38). The plot shows the
--top tensors (default 8) with the least headroom at any step, one line
each, labelled with the op that made it and its source line; below zero
is overflow. The loss scale itself (scaler state, mp.scale,
mp.update_scale) is left out. --text prints the same as a table (no
matplotlib needed).
"""
import argparse
import json
import math
import sys

MAX_FINITE = {"f16": 65504.0, "bf16": 3.3895313892515355e38}
SCALE_OPS = ("mp.scale", "mp.update_scale")


def load(path):
    series = {}  # key -> {"label": str, "steps": [], "headroom": [], "overflow": []}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{number}: not a JSON line ({e})")
            for t in record["tensors"]:
                # The loss scale and the scaled seed are the scale itself.
                if t["kind"] == "scaler_state" or t.get("op") in SCALE_OPS:
                    continue
                key = t["tensor"]
                label = t["name"]
                if t.get("op"):
                    label += f" = {t['op']}"
                    if t.get("location"):
                        label += f" ({t['location'].split('/')[-1]})"
                label += f" {t['dtype']}"
                s = series.setdefault(key, {"label": label, "steps": [],
                                            "max_abs": [], "nonfinite": [],
                                            "f16_overflow": [], "bf16_overflow": []})
                s["steps"].append(record["step"])
                s["max_abs"].append(t["max_abs"])
                s["nonfinite"].append(t["nonfinite"])
                s["f16_overflow"].append(t["f16_overflow"])
                s["bf16_overflow"].append(t["bf16_overflow"])
    return series


def headroom(max_abs, nonfinite, limit):
    if nonfinite:
        return -1.0  # already inf / NaN: drawn below zero
    if max_abs <= 0:
        return math.inf
    return math.log2(limit / max_abs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ranges")
    parser.add_argument("out", nargs="?")
    parser.add_argument("--dtype", choices=sorted(MAX_FINITE), default="f16")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--text", action="store_true")
    args = parser.parse_args()
    if not args.text and not args.out:
        parser.error("give OUT.png, or --text")
    limit = MAX_FINITE[args.dtype]
    series = load(args.ranges)
    if not series:
        sys.exit(f"{args.ranges}: no measured step")
    for s in series.values():
        s["headroom"] = [headroom(m, n, limit)
                         for m, n in zip(s["max_abs"], s["nonfinite"])]
    closest = sorted(series.values(), key=lambda s: min(s["headroom"]))[: args.top]

    if args.text:
        print(f"tensors closest to {args.dtype} overflow (headroom in doublings; "
              f"<0: overflow or non-finite)")
        for s in closest:
            worst = min(s["headroom"])
            at = s["steps"][s["headroom"].index(worst)]
            frac = max(s[f"{args.dtype}_overflow"])
            print(f"  {worst:7.2f} at step {at:<6} max |x| {max(s['max_abs']):.4g}"
                  f"  overflowing {frac:.3%}  {s['label']}")
        return

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5))
    for s in closest:
        ys = [min(h, 40.0) for h in s["headroom"]]
        ax.plot(s["steps"], ys, marker="o", markersize=3, label=s["label"])
    ax.axhline(0, color="red", linewidth=1)
    ax.set_xlabel("step")
    ax.set_ylabel(f"headroom to {args.dtype} overflow (doublings)")
    ax.set_title(f"The {len(closest)} tensors closest to {args.dtype} overflow")
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
