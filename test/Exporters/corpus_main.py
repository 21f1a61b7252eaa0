"""The command line both corpora share (torch_corpus.py, keras_corpus.py):
BUILD_DIR [--json FILE] [CASE ...]; one line per case, 'N passed, M
failed', a non-zero exit on a failure; --json writes the rows
corpus_table.py turns into the table."""
import json
import sys


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
