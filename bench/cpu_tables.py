#!/usr/bin/env python3
"""Markdown tables of a bench/cpu_bench.sh run, for docs/benchmarks.md.

    python3 bench/cpu_tables.py OUT_DIR     (gemm.json, conv.json, steps.json)
"""

import json
import os
import sys


def load(out, name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    out = argv[1]
    gemm = load(out, "gemm.json")["results"]
    print("| size | dtype | ours GFLOPS | oneDNN GFLOPS | ours / oneDNN |")
    print("|---:|---|---:|---:|---:|")
    for r in gemm:
        print(f"| {r['m']} | {r['in']} | {r['ours_gflops']:.0f} | "
              f"{r['onednn_gflops']:.0f} | {r['ours_over_onednn']:.2f} |")
    print()
    conv = load(out, "conv.json")["results"]
    print("| layer | op | dtype | ours ms | oneDNN plain layouts ms | "
          "oneDNN blocked, no reorders ms | ours / blocked |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in conv:
        print(f"| {r['layer']} | {r['op']} | {r['in']} | {r['ours_ms']:.2f} | "
              f"{r['onednn_plain_ms']:.1f} | {r['onednn_blocked_ms']:.2f} | "
              f"{r['ours_over_onednn_blocked']:.2f} |")
    print()
    steps = load(out, "steps.json")
    by = {(s["model"], s["policy"]): s for s in steps}
    print("| model | float32 ms | mixed_bfloat16 ms | speed-up | cast ms "
          "(share) | saved activations MiB fp32 / bf16 (ratio) | arena MiB "
          "fp32 / bf16 (ratio) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for model in ("mlp_big", "cnn_big", "transformer_big"):
        f, b = by[(model, "float32")], by[(model, "mixed_bfloat16")]
        mib = 1 << 20
        print(f"| {model} | {f['ms_per_step']:.1f} | {b['ms_per_step']:.1f} | "
              f"{f['ms_per_step'] / b['ms_per_step']:.2f}x | "
              f"{b['cast_ms_per_step']:.1f} ({100 * b['cast_share']:.1f}%) | "
              f"{f['saved_activation_bytes'] / mib:.1f} / "
              f"{b['saved_activation_bytes'] / mib:.1f} "
              f"({b['saved_activation_bytes'] / f['saved_activation_bytes']:.2f}) | "
              f"{f['arena_bytes'] / mib:.1f} / {b['arena_bytes'] / mib:.1f} "
              f"({b['arena_bytes'] / f['arena_bytes']:.2f}) |")


if __name__ == "__main__":
    main(sys.argv)
