"""The command line both corpora share (torch_corpus.py, keras_corpus.py):
BUILD_DIR [--json FILE] [CASE ...]; one line per case, 'N passed, M
failed', a non-zero exit on a failure; --json writes the rows
corpus_table.py turns into the table."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
from mp_export.compare import read_metrics  # noqa: E402


def mp_run(build, work, stem, policy, steps, checkpoint=None):
    """Compiles WORK/STEM.mlir under `policy` and trains it `steps` steps on
    WORK/x.npy, y.npy from its exported initial parameters; returns the
    per-step losses (and writes the checkpoint, when given)."""
    bin_dir = os.path.join(build, "bin")
    plan = os.path.join(work, "%s.%s.mpplan" % (stem, policy))
    subprocess.run([os.path.join(bin_dir, "mp-compile"), os.path.join(work, stem + ".mlir"),
                    "--mixed-precision=policy=" + policy, "-o", plan],
                   check=True, capture_output=True, text=True)
    metrics = os.path.join(work, "metrics.%s.jsonl" % policy)
    cmd = [os.path.join(bin_dir, "mp-run"), plan, "--plain", "--no-shuffle",
           "--steps", str(steps), "--train-x", os.path.join(work, "x.npy"),
           "--train-y", os.path.join(work, "y.npy"),
           "--init-params", os.path.join(work, stem + ".init.safetensors"),
           "--log-every", "1", "--metrics", metrics]
    if checkpoint:
        cmd += ["--checkpoint", checkpoint]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    losses = read_metrics(metrics)
    if len(losses) != steps:
        raise RuntimeError("%s holds %d steps, not %d" % (metrics, len(losses), steps))
    return losses


def main(framework, cases, run_case, run_dropout):
    """run_case(build, name) -> (ok, row); run_dropout(build) -> ok."""
    build = sys.argv[1]
    args = sys.argv[2:]
    out_json = None
    if args[:1] == ["--json"]:
        out_json, args = args[1], args[2:]
    names = args or sorted(cases) + ["dropout"]
    results, rows = [], []
    for name in names:
        try:
            if name == "dropout":
                results.append(run_dropout(build))
            else:
                ok, row = run_case(build, name)
                results.append(ok)
                rows.append(dict(row, framework=framework, model=name, ok=ok))
        except Exception as e:  # noqa: BLE001 - report the case, go on
            detail = getattr(e, "stderr", "") or ""
            print("FAIL: %s: %s: %s %s" % (name, type(e).__name__, e, detail.strip()[-600:]))
            results.append(False)
            rows.append({"framework": framework, "model": name,
                         "error": str(e).splitlines()[0][:160] if str(e) else type(e).__name__})
    if out_json:
        with open(out_json, "w") as f:
            json.dump(rows, f, indent=1)
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    sys.exit(0 if all(results) else 1)
