#!/usr/bin/env python3
"""How the mixed-precision pipeline's run time grows with the graph size.

    python3 bench/pipeline_bench.py [--sizes 1000,10000,100000]
        [--policies mixed_bfloat16,mixed_float16] [--repeat 3]
        [--timing-repeat 1] [--repeat-limit 20] [--timeout 900]
        [--mp-opt build/bin/mp-opt] [--json FILE] [--keep DIR]

For each size N, bench/gen_graph.py writes a training step of about N `train`
ops into a temporary directory. On it the script times, as the best of
--repeat wall-clock runs each:

  baseline  mp-opt FILE -o /dev/null       (start-up, parse, verify, print)
  pipeline  mp-opt FILE --mp-mixed-precision=policy=P -o /dev/null

for every policy P; pipeline - baseline is the passes' own cost (the printer
has more to print after the pipeline, casts included, so that difference also
counts the printing of what the passes added). A command is not repeated
after a run slower than --repeat-limit seconds (or after a failing run).
One more run of each command with --mlir-timing (or --timing-repeat runs,
keeping each pass's minimum) gives the per-pass breakdown. Each run's peak
RSS comes from wait4().

Prints a table of the times and seconds per 1k ops, the per-pass breakdown,
and the scaling exponent between consecutive sizes, k = log(t2/t1) /
log(n2/n1): 1 is linear, 2 quadratic. --json FILE writes all of it.

The mp-opt binary is copied into the temporary directory first, so a rebuild
that relinks it halfway through does not mix two binaries in one table.
Standard library only. This is a benchmark, not a test: it never fails on a
slow result; a failing mp-opt run is reported as such in the tables.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import signal
import tempfile
import threading
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_REPO = os.path.dirname(_HERE)
sys.path.insert(0, _HERE)

import gen_graph  # noqa: E402  (needs the sys.path entry above)


# ===----------------------------------------------------------------------===
# Running mp-opt
# ===----------------------------------------------------------------------===


def run_once(cmd, timeout=None):
    """Runs cmd with stdout discarded; returns (wall seconds, rc, stderr,
    peak RSS in MiB, user + system CPU seconds). A run past `timeout`
    seconds is killed (rc -9)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=err)
        timer = threading.Timer(timeout, proc.kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            if timer:
                timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if proc.returncode == -signal.SIGKILL and timeout and wall >= timeout:
        stderr = f"error: killed after the {timeout} s timeout\n" + stderr
    return (wall, proc.returncode, stderr, usage.ru_maxrss / 1024.0,
            usage.ru_utime + usage.ru_stime)


def first_error(stderr):
    for line in stderr.splitlines():
        if "error:" in line:
            return line.strip()
    lines = stderr.strip().splitlines()
    return lines[0].strip() if lines else ""


def best_of(cmd, repeat, repeat_limit, timeout):
    """The fastest of `repeat` runs. Stops early on a failing run, and after
    a run slower than `repeat_limit` seconds (at that scale the noise that
    repeating removes does not matter, and the runs are expensive)."""
    walls, rss, cpu = [], [], []
    for _ in range(repeat):
        wall, rc, stderr, peak, cpu_s = run_once(cmd, timeout)
        walls.append(wall)
        rss.append(peak)
        cpu.append(cpu_s)
        if rc != 0:
            return {"ok": False, "rc": rc, "error": first_error(stderr),
                    "seconds": min(walls), "runs": walls,
                    "peak_rss_mib": max(rss), "cpu_seconds": min(cpu)}
        if wall > repeat_limit:
            break
    return {"ok": True, "rc": 0, "seconds": min(walls), "runs": walls,
            "peak_rss_mib": max(rss), "cpu_seconds": min(cpu)}


_TIMING_LINE = re.compile(
    r"^\s*(?P<wall>[0-9.]+) \(\s*[0-9.]+%\)  (?P<indent>\s*)(?P<name>\S.*?)\s*$")


def parse_timing(stderr):
    """The Wall Time column of an --mlir-timing report, as {name: seconds};
    a nested entry (an analysis under its pass) is 'parent / name'."""
    passes, parents = {}, []
    in_report = False
    for line in stderr.splitlines():
        if "----Wall Time----" in line:
            in_report = True
            continue
        if not in_report:
            continue
        m = _TIMING_LINE.match(line)
        if not m:
            continue
        depth = len(m.group("indent")) // 2
        name = m.group("name")
        parents[depth:] = [name]
        key = " / ".join(parents[:depth + 1])
        passes[key] = passes.get(key, 0.0) + float(m.group("wall"))
    return passes


def timed_breakdown(cmd, timeout, repeat=1, repeat_limit=float("inf")):
    """--mlir-timing's per-pass wall times. With repeat > 1, each pass's
    time (and the process wall time) is its minimum over the runs; stops
    repeating after a failing run or one slower than repeat_limit."""
    best = {"ok": True, "runs": 0, "wall_seconds": None, "passes": {}}
    for _ in range(repeat):
        wall, rc, stderr, peak, _ = run_once(cmd + ["--mlir-timing"], timeout)
        best["runs"] += 1
        best["ok"] = best["ok"] and rc == 0
        best["wall_seconds"] = wall if best["wall_seconds"] is None \
            else min(best["wall_seconds"], wall)
        for name, t in parse_timing(stderr).items():
            best["passes"][name] = min(best["passes"].get(name, t), t)
        if rc != 0 or wall > repeat_limit:
            break
    return best


# ===----------------------------------------------------------------------===
# Reporting
# ===----------------------------------------------------------------------===


def exponent(t1, t2, n1, n2):
    if t1 <= 0 or t2 <= 0 or n1 == n2:
        return None
    return math.log(t2 / t1) / math.log(n2 / n1)


def fmt_s(seconds):
    return f"{seconds:.3f}"


def fmt_runs(result):
    return ", ".join(f"{t:.3f}" for t in result["runs"])


def fmt_k(k):
    return "   -" if k is None else f"{k:4.2f}"


def render_table(header, rows, align=None):
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]
    align = align or ["<"] + [">"] * (len(header) - 1)
    def line(cells):
        return "| " + " | ".join(f"{str(c):{a}{w}}" for c, a, w in
                                 zip(cells, align, widths)) + " |"
    sep = "|" + "|".join(("-" * (w + 1) + ":") if a == ">"
                         else ("-" * (w + 2)) for a, w in zip(align, widths)) \
        + "|"
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def main_table(results):
    header = ["ops", "policy", "baseline s", "pipeline s", "pipeline-base s",
              "pipeline s/1k ops", "own s/1k ops", "peak RSS MiB", "status"]
    rows = []
    for r in results:
        base = r["baseline"]
        kops = r["ops"] / 1000.0
        rows.append([r["ops"], "(parse+print only)", fmt_s(base["seconds"]),
                     "", "", "", "", f"{base['peak_rss_mib']:.0f}",
                     "ok" if base["ok"] else "FAIL"])
        for policy, p in r["pipeline"].items():
            own = p["seconds"] - base["seconds"]
            rows.append([r["ops"], policy, "", fmt_s(p["seconds"]),
                         fmt_s(own), f"{p['seconds'] / kops:.4f}",
                         f"{own / kops:.4f}", f"{p['peak_rss_mib']:.0f}",
                         "ok" if p["ok"] else f"FAIL (rc {p['rc']})"])
    return render_table(header, rows, ["<"] * 2 + [">"] * 6 + ["<"])


def scaling_table(results, policies):
    """k between consecutive sizes for baseline, pipeline and own cost."""
    header = ["ops", "baseline k"]
    for policy in policies:
        header += [f"{policy} k", f"{policy} own k"]
    rows = []
    for r1, r2 in zip(results, results[1:]):
        n1, n2 = r1["ops"], r2["ops"]
        b1, b2 = r1["baseline"]["seconds"], r2["baseline"]["seconds"]
        row = [f"{n1} -> {n2}", fmt_k(exponent(b1, b2, n1, n2))]
        for policy in policies:
            p1, p2 = r1["pipeline"][policy], r2["pipeline"][policy]
            ok = p1["ok"] and p2["ok"]
            t1, t2 = p1["seconds"], p2["seconds"]
            row += [fmt_k(exponent(t1, t2, n1, n2)) + ("" if ok else " (FAIL)"),
                    fmt_k(exponent(t1 - b1, t2 - b2, n1, n2))
                    + ("" if ok else " (FAIL)")]
        rows.append(row)
    return render_table(header, rows)


def pass_table(results, policy):
    """--mlir-timing wall seconds per pass (and per 1k ops) for each size."""
    names = []
    for r in results:
        for name in r["timing"][policy]["passes"]:
            if name not in names:
                names.append(name)
    header = ["pass"]
    for r in results:
        header += [f"{r['ops']} ops s", "s/1k ops"]
    header += ["k (last two sizes)"] if len(results) > 1 else []
    rows = []
    for name in names:
        row = [name]
        secs = []
        for r in results:
            t = r["timing"][policy]["passes"].get(name)
            secs.append(t)
            row += ["" if t is None else fmt_s(t),
                    "" if t is None else f"{t / (r['ops'] / 1000.0):.4f}"]
        if len(results) > 1:
            t1, t2 = secs[-2], secs[-1]
            row.append(fmt_k(None if t1 is None or t2 is None
                             else exponent(t1, t2, results[-2]["ops"],
                                           results[-1]["ops"])))
        rows.append(row)
    wall = ["(process wall time)"]
    for r in results:
        t = r["timing"][policy]["wall_seconds"]
        wall += [fmt_s(t), f"{t / (r['ops'] / 1000.0):.4f}"]
    if len(results) > 1:
        wall.append("")
    rows.append(wall)
    failed = [str(r["ops"]) for r in results
              if not r["timing"][policy]["ok"]]
    note = (f"\n(mp-opt FAILED on the {', '.join(failed)}-op graph: the "
            f"timings stop where it failed)" if failed else "")
    return render_table(header, rows) + note


def machine_info():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu_model": model or platform.processor(),
            "platform": platform.platform(), "python": platform.python_version(),
            "loadavg_at_start": list(os.getloadavg())}


# ===----------------------------------------------------------------------===
# Driver
# ===----------------------------------------------------------------------===


def parse_sizes(text):
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        mult = 1
        if part.endswith("k"):
            part, mult = part[:-1], 1000
        sizes.append(int(float(part) * mult))
    return sizes


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Times --mp-mixed-precision on generated graphs of "
                    "growing size.")
    ap.add_argument("--mp-opt", default=os.path.join(_REPO, "build", "bin",
                                                     "mp-opt"),
                    help="the mp-opt binary (default: build/bin/mp-opt in "
                         "the repository)")
    ap.add_argument("--sizes", default="1000,10000,100000",
                    help="comma-separated op counts; 10k is 10000")
    ap.add_argument("--policies", default="mixed_bfloat16,mixed_float16")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs per command, the best one counts")
    ap.add_argument("--repeat-limit", type=float, default=20.0,
                    help="no more runs of a command after one slower than "
                         "this many seconds (default 20)")
    ap.add_argument("--timing-repeat", type=int, default=1,
                    help="--mlir-timing runs per command; each pass's "
                         "minimum counts (default 1)")
    ap.add_argument("--timeout", type=float, default=900.0,
                    help="kill a run after this many seconds (default 900)")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--keep", help="write the generated graphs here instead "
                                   "of a temporary directory")
    args = ap.parse_args(argv)

    sizes = parse_sizes(args.sizes)
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    if not os.access(args.mp_opt, os.X_OK):
        ap.error(f"{args.mp_opt} is not an executable (build mp-opt first, "
                 f"or pass --mp-opt)")

    machine = machine_info()
    print(f"machine: {machine['nproc']} CPUs, {machine['cpu_model']}; "
          f"load average at start {machine['loadavg_at_start'][0]:.2f}")
    mp_opt_stat = os.stat(args.mp_opt)
    mp_opt_mtime = datetime.datetime.fromtimestamp(
        mp_opt_stat.st_mtime, datetime.timezone.utc).isoformat(
            timespec="seconds")
    print(f"mp-opt: {args.mp_opt} (built {mp_opt_mtime}); best of "
          f"{args.repeat} runs per command (1 once a run takes over "
          f"{args.repeat_limit:g} s)")

    results = []
    with tempfile.TemporaryDirectory(prefix="mp-bench-") as tmp:
        mp_opt = os.path.join(tmp, "mp-opt")
        shutil.copy2(args.mp_opt, mp_opt)
        graph_dir = args.keep or tmp
        os.makedirs(graph_dir, exist_ok=True)
        for size in sizes:
            path = os.path.join(graph_dir, f"graph_{size}.mlir")
            start = time.perf_counter()
            text, ops, blocks = gen_graph.render(size)
            with open(path, "w", newline="\n") as f:
                f.write(text)
            gen_s = time.perf_counter() - start
            print(f"\n{ops} ops ({blocks} blocks, "
                  f"{len(text) / 2**20:.1f} MiB, generated in {gen_s:.2f} s)",
                  flush=True)
            base_cmd = [mp_opt, path, "-o", os.devnull]
            entry = {"requested_ops": size, "ops": ops, "blocks": blocks,
                     "file_bytes": len(text),
                     "baseline": best_of(base_cmd, args.repeat,
                                         args.repeat_limit, args.timeout),
                     "pipeline": {}, "timing": {}}
            print(f"  baseline            {entry['baseline']['seconds']:.3f} s"
                  f"  (runs: {fmt_runs(entry['baseline'])})"
                  + ("" if entry["baseline"]["ok"] else
                     f"  FAILED: {entry['baseline']['error']}"), flush=True)
            entry["timing"]["baseline"] = timed_breakdown(
                base_cmd, args.timeout, args.timing_repeat, args.repeat_limit)
            for policy in policies:
                cmd = [mp_opt, path,
                       f"--mp-mixed-precision=policy={policy}", "-o",
                       os.devnull]
                p = best_of(cmd, args.repeat, args.repeat_limit, args.timeout)
                entry["pipeline"][policy] = p
                entry["timing"][policy] = timed_breakdown(
                    cmd, args.timeout, args.timing_repeat, args.repeat_limit)
                status = "" if p["ok"] else f"  FAILED: {p['error']}"
                print(f"  {policy:<18}  {p['seconds']:.3f} s  (runs: "
                      f"{fmt_runs(p)}){status}", flush=True)
            results.append(entry)

    print(f"\n## Wall-clock time, best of {args.repeat} (of 1 past "
          f"{args.repeat_limit:g} s)\n")
    print(main_table(results))
    if len(results) > 1:
        print("\n## Scaling exponent k = log(t2/t1) / log(n2/n1) "
              "(1 = linear, 2 = quadratic)\n")
        print(scaling_table(results, policies))
    for policy in ["baseline"] + policies:
        runs = ("one run each" if args.timing_repeat == 1 else
                f"minimum per pass over {args.timing_repeat} runs")
        print(f"\n## --mlir-timing breakdown: {policy} ({runs})\n")
        print(pass_table(results, policy))

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine,
                       "mp_opt": {"path": args.mp_opt, "mtime": mp_opt_mtime},
                       "repeat": args.repeat,
                       "repeat_limit_s": args.repeat_limit,
                       "timing_repeat": args.timing_repeat,
                       "policies": policies,
                       "results": results}, f, indent=2)
            f.write("\n")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
