#!/usr/bin/env python3
"""Markdown tables of a bench/cpu_bench.sh run, for docs/benchmarks.md.

    python3 bench/cpu_tables.py OUT_DIR     (gemm.json, conv.json, steps.json)
    python3 bench/cpu_tables.py --peers FILE  (bench/peers/peers.py --json):
        per model and policy, each contender's ms per step and mp's time
        (mp, and mp-codegen: the plan with --codegen=cpu) over the fastest
        peer's (below 1: mp is faster), the fastest peer marked; with the
        run's limits, the GEMM-bound time (mp-bench-limit) and mp's time
        over it; for a run with peak RSS, a second table of memory
"""

import json
import os
import sys


def load(out, name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


MP_CONTENDERS = ("mp", "mp-codegen")  # mp's own plans; the rest are peers


def peers(path):
    with open(path) as f:
        run = json.load(f)
    print("%s (%s), %d threads, best of %d rounds of %d steps" % (
        run["cpu"], " ".join(run["isa"]), run["threads"], run["rounds"], run["steps"]))
    print()
    names, ours = [], []
    for r in run["rows"]:
        group = ours if r["contender"] in MP_CONTENDERS else names
        if r["contender"] not in group:
            group.append(r["contender"])
    limits = {(l["model"], l["policy"]): l["ms"] for l in run.get("limits", [])}
    print("| model | policy | " + " | ".join("%s ms" % n for n in ours + names) +
          " | " + " | ".join("%s / fastest peer" % n for n in ours) +
          (" | GEMM-bound ms | " + " | ".join("%s / GEMM-bound" % n for n in ours)
           if limits else "") + " |")
    print("|---|---|" + "---:|" * (len(ours) * 2 + len(names) +
                                   (1 + len(ours) if limits else 0)))
    cells = {}
    for r in run["rows"]:
        cells.setdefault((r["model"], r["policy"]), {})[r["contender"]] = r["ms"]
    for (model, policy), got in cells.items():
        others = {n: got[n] for n in names if n in got}
        fastest = min(others, key=others.get) if others else None
        row = ["%.1f" % got[n] if n in got else "-" for n in ours]
        for n in names:
            if n not in got:
                row.append("-")
                continue
            mark = "**" if n == fastest else ""
            row.append("%s%.1f%s" % (mark, got[n], mark))
        for n in ours:
            row.append("%.2f (%s)" % (got[n] / others[fastest], fastest)
                       if n in got and fastest else "-")
        if limits:
            limit = limits.get((model, policy))
            row.append("%.1f" % limit if limit else "-")
            for n in ours:
                row.append("%.2f" % (got[n] / limit) if limit and n in got else "-")
        print("| %s | %s | %s |" % (model, policy, " | ".join(row)))


def peers_memory(run):
    """The memory table of a run whose rows carry peak_rss_mib: every
    contender's peak RSS over the steps, mp's over PyTorch eager's and over
    the smallest peer's, and mp's own breakdown (MiB)."""
    rows = [r for r in run["rows"] if "peak_rss_mib" in r]
    if not rows:
        return
    names, ours = [], []
    for r in rows:
        group = ours if r["contender"] in MP_CONTENDERS else names
        if r["contender"] not in group:
            group.append(r["contender"])
    print()
    print("| model | policy | " + " | ".join("%s MiB" % n for n in ours + names) +
          " | mp / torch-eager | mp / smallest peer | mp: parameters | optimizer "
          "state | buffers | arena (saved activations) | second slots |")
    print("|---|---|" + "---:|" * (len(ours) + len(names) + 7))
    cells, breakdown = {}, {}
    for r in rows:
        cells.setdefault((r["model"], r["policy"]), {})[r["contender"]] = r["peak_rss_mib"]
        if r["contender"] == "mp" and r.get("mp_memory"):
            breakdown[(r["model"], r["policy"])] = r["mp_memory"]
    mib = 1024.0 * 1024.0
    for key, got in cells.items():
        peers_got = {n: got[n] for n in names if n in got}
        smallest = min(peers_got, key=peers_got.get) if peers_got else None
        row = ["%.0f" % got[n] if n in got else "-" for n in ours + names]
        mp = got.get("mp")
        eager = got.get("torch-eager")
        row.append("%.2f" % (mp / eager) if mp and eager else "-")
        row.append("%.2f (%s)" % (mp / peers_got[smallest], smallest)
                   if mp and smallest else "-")
        m = breakdown.get(key)
        if m:
            row += ["%.1f" % (m["parameters"] / mib), "%.1f" % (m["optimizer_state"] / mib),
                    "%.1f" % (m["buffers"] / mib),
                    "%.1f (%.1f)" % (m["arena"] / mib, m["saved_activations"] / mib),
                    "%.1f" % (m["second_slots"] / mib)]
        else:
            row += ["-"] * 5
        print("| %s | %s | %s |" % (key[0], key[1], " | ".join(row)))


def main(argv):
    if len(argv) == 3 and argv[1] == "--peers":
        peers(argv[2])
        with open(argv[2]) as f:
            return peers_memory(json.load(f))
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
