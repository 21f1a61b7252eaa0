"""The Python API's overhead over mp-run: the same plan trained for STEPS
steps by mp-run (--synthetic, its own timing of the steps) and by
mp.Session in a Python loop (a new numpy batch passed to step() each time,
the time of the loop), alternating, ROUNDS rounds; prints the best ms/step
of each and python/mp-run (docs/benchmarks.md).

usage: python bench/python_overhead.py BUILD_DIR PLAN... [--steps N] [--rounds N]
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import mp  # noqa: E402


def mp_run_ms(build, plan, steps):
    out = subprocess.run(
        [os.path.join(build, "bin", "mp-run"), plan, "--synthetic",
         "--synthetic-samples", "512", "--steps", str(steps), "--plain"],
        check=True, capture_output=True, text=True)
    seconds = re.search(r"^trained .* in ([0-9.]+) s", out.stdout + out.stderr,
                        re.M)
    return float(seconds.group(1)) * 1000 / steps


def batches(session, count, seed=0):
    """`count` random batches of the plan's inputs and labels."""
    rng = np.random.default_rng(seed)
    made = []
    for _ in range(count):
        batch = []
        for name in session.inputs + session.labels:
            info = session.tensors[name]
            if info.dtype.startswith("i"):
                batch.append(rng.integers(0, 2, info.shape).astype(
                    np.int64 if info.dtype == "i64" else np.int32))
            else:
                batch.append(rng.standard_normal(info.shape).astype(
                    np.float32))
        made.append(batch)
    return made


def python_ms(plan, steps):
    session = mp.Session(plan)
    session.init_params(seed=0)
    data = batches(session, steps)
    began = time.perf_counter()
    for batch in data:
        session.step(*batch)
    return (time.perf_counter() - began) * 1000 / steps


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("plans", nargs="+")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with open("/proc/cpuinfo") as cpuinfo:
        model = re.search(r"model name\s*:\s*(.*)", cpuinfo.read()).group(1)
    print("== machine: %d CPUs, %s; %d rounds of %d steps" % (
        os.cpu_count(), model, args.rounds, args.steps))
    print("%-36s %10s %10s %10s" % ("plan", "mp-run ms", "python ms",
                                     "python/mp-run"))
    for plan in args.plans:
        best_run = best_py = float("inf")
        for _ in range(args.rounds):
            best_run = min(best_run, mp_run_ms(args.build, plan, args.steps))
            best_py = min(best_py, python_ms(plan, args.steps))
        print("%-36s %10.1f %10.1f %10.3f" % (
            os.path.basename(plan), best_run, best_py, best_py / best_run))


if __name__ == "__main__":
    main()
