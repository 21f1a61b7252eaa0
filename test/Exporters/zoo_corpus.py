"""The model zoo corpus: models from the public model libraries
(torchvision, timm, Hugging Face transformers, keras.applications) and
keras.io's examples, each built as the libraries' users build it (their
constructors and configs, random initialisation: nothing is downloaded),
at a small configuration and resolution, and trained with its library's
usual recipe (torchvision's reference scripts: SGD / RMSprop / AdamW with
no weight decay on norm parameters, label smoothing, a linear warm-up into
cosine annealing or StepLR, clip_grad_norm_; PyTorch's fine-tuning
tutorial; timm's create_optimizer_v2, its losses, schedulers and
dispatch_clip_grad; Hugging Face's Trainer: AdamW on no-decay groups,
get_linear_schedule_with_warmup, clip_grad_norm_(1.0); model.compile() as
keras.io writes it).

For each model: export as written (torch_export.export_step on the
recipe's loop body, keras_export.export after model.compile) ->
mp-compile under float32, mixed_bfloat16 and mixed_float16 -> mp-run
STEPS (20) steps on one fixed batch from the exported initial parameters,
against the framework's own training loop on the same batch.

Comparison rules.

* Random regularisers (dropout, stochastic depth / drop path): mp draws
  its own masks, so such a model cannot match step by step. It runs twice:
  as written (it must export, compile under the three policies, and its
  float32 loss must fall: the mean of the last 3 steps below the first),
  and built with its drop rates at 0 through the library's constructor
  arguments (torchvision's dropout= / stochastic_depth_prob=, timm's
  drop_rate= / drop_path_rate=, the Hugging Face config's dropout fields,
  keras.io's rate arguments; keras.applications' EfficientNetB0 has no
  such argument: its Dropout layers' rate is set to 0), which is compared
  step by step as below.
* Chaotic training (deep batch-norm nets, large learning rates): float32
  rounding is amplified from step to step, so two correct float32
  implementations part after some steps. The framework is run a second
  time in float64 (torch: the model and batch .double(); Keras: floatx
  float64 with the float32 model's initial weights). The compared steps
  are the first k steps, k being the number of leading steps where the
  framework's float32 and float64 losses stay within TOL / 2 relative
  (two float32 implementations each within TOL / 2 of the float64 one are
  within TOL of each other), and at least 1: step 1 is always compared. On
  those k steps mp's float32 losses must match the framework's float32
  losses within TOL (1e-4) relative. Where the float64 run fails, k is
  STEPS.
  One float32 run agreeing with float64 is one sample: a trajectory can
  sit at a fork (a ReLU or max-pool tie, a batch-norm net's growth of
  rounding) that any ulp-level change takes the other way. So where mp
  parts from the framework within the k steps, the framework's float32
  loop is rerun three times (PERTURB_SEEDS) from its initial parameters
  with each element moved by at most one float32 ulp (down, kept or up,
  at random), the same model up to the rounding of its initialisation,
  and k ends before the first step where one of those runs is more than
  TOL / 2 from the float64 (else the float32) losses. Measured on an
  AVX2-only EPYC (2026-12-06): tv_squeezenet1_1's framework float32 run
  follows float64 to 1e-7 for 20 steps, while two of three perturbed runs
  fork at step 9 and reach 1.3e-4 at step 19, on the branch mp's float32
  run takes (to two digits); tv_resnet18's three perturbed runs are
  8e-4 to 1.4e-3 from float64 at step 4, where the unperturbed one is at
  7e-7 and mp at 7.3e-4. A real error in mp is still caught: a stable
  model's perturbed runs stay with float64 and k stays.
* The first update, always: step 1's loss is only the forward pass, so
  mp-run also trains 1 step (2 where the framework's first step changes
  nothing: a warm-up from learning rate 0) into a checkpoint, and mp's
  update of the state (parameters and buffers such as batch-norm
  statistics: after minus before) must match the framework's within
  |d_mp - d_fw| / |d_fw| <= max(UPDATE_TOL (1e-3), 3 x the framework's own
  float32-vs-float64 figure), over all floating state tensors together.
  (Adam's first step is lr * g / (|g| + eps): where a gradient element is
  a cancellation near 0 its sign, and a whole lr-sized step, is rounding
  noise; the float64 figure measures how much of that a model has.) This
  checks the gradients, the optimizer, the clipping and the first
  learning rate even where chaos leaves k = 1.
* 16-bit: mp's mixed_bfloat16 and mixed_float16 last losses must be finite
  and must not diverge: at most 0.05 above the largest of the run's first
  loss, the framework's last float32 loss and mp's last float32 loss (a
  chaotic float32 training may itself end above its start); where every
  step was compared (k = STEPS), also within 0.05 of the framework's last
  loss, as the other corpora require. A PyTorch model whose training is
  chaotic under 16-bit rounding (PyTorch's own torch.autocast bf16 run of
  the same loop fails the same check, or leaves its float32 trajectory by
  more than 10x the tolerance at some step: tv_mobilenet_v3_small and
  tv_regnet_x_400mf, whose 16-bit runs passed on an AMD EPYC and failed on
  an AMX Xeon) is held to finite 16-bit losses only, with the framework's
  autocast losses recorded beside mp's.

Each row: library, model, recipe, status (ok / refused: the exporter's
ExportError, a valid outcome, recorded with its message, never worked
around / export error: another exception inside the exporter / model
error: the library's own code failed building the model or its loop /
compile error / run error / reference error: the framework's own loop
failed / mismatch / 16-bit off / not trained), the first line of the
message, for a refusal the gap ("<framework> op '<op>'"), the worst
float32 relative difference over the compared steps, the compared step
count, the first update's difference, the last losses, the wall time.

usage: zoo_corpus.py BUILD_DIR [--json FILE] [--markdown FILE] [--quick] [--keep] [MODEL ...]
prints one line per model and 'N passed, M failed'; exits non-zero on a
failure. --quick runs six fast models across the libraries (a minute);
ctest runs them all. --json
writes the rows. --keep keeps each model's export directory.
"""
import json
import math
import os
import shutil
import sys
import tempfile
import time
import traceback

import numpy as np

# zoo_common puts python/ (mp_export) on the path first.
from zoo_common import (POLICIES, SIXTEEN_TOL, STEPS, TOL, UPDATE_TOL, Failure,
                        _first_line, _stage, mp_compile, mp_run)
from zoo_keras import (KERAS, keras_build, keras_export_run, keras_perturbed_weights,
                       keras_reference)
from zoo_torch import TORCH, TorchCase, torch_export_run, torch_perturbed, torch_reference

PERTURB_SEEDS = (1, 2, 3)


def _finite(v):
    return v is not None and math.isfinite(v)


def update_diff(before, fw_after, mp_after):
    """The step-1 update (the state after one step minus before) of mp
    against the framework's: |d_mp - d_fw| / |d_fw| over every floating
    state tensor together, the tensor with the largest relative difference,
    and the names the framework updates that mp's checkpoint lacks."""
    num = den = 0.0
    worst, worst_name, missing = -1.0, None, []
    for name, b in before.items():
        d_fw = fw_after[name] - b
        if name not in mp_after:
            if np.any(d_fw != 0):
                missing.append(name)
            continue
        e = float(np.linalg.norm(mp_after[name].reshape(b.shape) - fw_after[name]))
        d = float(np.linalg.norm(d_fw))
        num, den = num + e * e, den + d * d
        rel = e / d if d > 0 else (0.0 if e == 0 else math.inf)
        if rel > worst:
            worst, worst_name = rel, name
    return (math.sqrt(num) / math.sqrt(den) if den > 0 else math.sqrt(num)), worst_name, missing


def compared_steps(ref32, ref64):
    """The module docstring's k: the leading steps where the framework's
    float32 and float64 losses agree within TOL / 2 (at least 1)."""
    return STEPS if ref64 is None else stable_steps(ref64, [ref32])


def stable_steps(baseline, runs):
    """The leading steps where every run's losses stay within TOL / 2
    relative of the baseline's (at least 1)."""
    k = 0
    for i, b in enumerate(baseline):
        if any(abs(r[i] - b) / max(abs(b), 1e-6) > TOL / 2 for r in runs):
            break
        k += 1
    return max(k, 1)


def run_variant(build, name, case, drop, work, compare):
    """Export, compile under the three policies, run; with `compare`, the
    framework's float32 and float64 loops too. Returns a dict."""
    out = {}
    is_torch = isinstance(case, TorchCase)
    t = time.time()
    if is_torch:
        initial, x, y, stem = torch_export_run(build, name, case, drop, work)
    else:
        x, y, stem = keras_export_run(build, name, case, drop, work)
    out["export_s"] = round(time.time() - t, 1)
    t = time.time()
    for policy in POLICIES:
        _stage("compile", mp_compile, build, work, stem, policy)
    out["compile_s"] = round(time.time() - t, 1)
    t = time.time()
    runs = {}
    for policy in (POLICIES if compare else ("float32",)):
        runs[policy] = _stage("run", mp_run, build, work, stem, policy)
    out["run_s"] = round(time.time() - t, 1)
    out["losses"] = runs
    if not compare:
        f32 = runs["float32"]
        out["first"], out["last"] = f32[0], f32[-1]
        tail = f32[-3:]
        if not all(_finite(v) for v in f32) or sum(tail) / len(tail) >= f32[0]:
            raise Failure("not trained", "as written: float32 loss %.4f -> %.4f" % (
                f32[0], f32[-1]))
        return out
    t = time.time()
    ref64 = after64 = None
    if is_torch:
        ref32, before, after = _stage("reference", torch_reference, case, initial, x, y)
        try:
            ref64, _, after64 = torch_reference(case, initial, x, y, double=True)
        except Exception as e:  # noqa: BLE001
            out["float64_note"] = _first_line(str(e))[:200]
    else:
        ref32, before, after = _stage("reference", keras_reference, case, x, y)
        model = keras_build(case, False, x, compile_=False)
        weights = model.get_weights()
        own = {id(v) for v in model.trainable_weights}
        trainable = [id(v) in own for v in model.weights]
        try:
            ref64, _, after64 = keras_reference(case, x, y, "float64", weights)
        except Exception as e:  # noqa: BLE001
            out["float64_note"] = _first_line(str(e))[:200]
    out["reference_s"] = round(time.time() - t, 1)
    # The first update: step 1's, or step 2's where the first learning rate
    # is 0 (Hugging Face's warm-up starts there) and step 1 changed nothing
    # the optimizer drives.
    n_upd = 1 if update_diff(before, after[0], before)[0] > 0 else 2
    ckpt = os.path.join(work, stem + ".first-update.safetensors")
    _stage("run", mp_run, build, work, stem, "float32", n_upd, ckpt)
    from mp_export.common import read_safetensors
    mp_after = {n: v.astype(np.float64) for n, v in read_safetensors(ckpt)[0].items()}
    upd, worst_name, missing = update_diff(before, after[n_upd - 1], mp_after)
    tol = UPDATE_TOL
    if after64 is not None:
        upd64 = update_diff(before, after[n_upd - 1], after64[n_upd - 1])[0]
        out["update_rel_diff_64"] = upd64
        tol = max(UPDATE_TOL, 3 * upd64)
    out.update(update_step=n_upd, update_rel_diff=upd, update_worst=worst_name,
               update_tol=tol)
    if missing:
        raise Failure("mismatch", "the step-%d checkpoint lacks %d tensor(s) the framework "
                      "updates: %s" % (n_upd, len(missing), ", ".join(missing[:3])),
                      "numerics")
    if not upd <= tol:
        raise Failure("mismatch", "step-%d update of the state %.1e from the framework's, "
                      "tolerance %.1e (float32 vs float64 %s; worst tensor %s)" % (
                          n_upd, upd, tol, "%.1e" % out["update_rel_diff_64"]
                          if "update_rel_diff_64" in out else "not run", worst_name),
                      "numerics")
    k = compared_steps(ref32, ref64)
    got = runs["float32"]
    diffs = [abs(g - w) / max(abs(w), 1e-6) for g, w in zip(got, ref32)]
    out.update(reference=ref32, reference64=ref64, compared=k,
               max_rel_diff=max(diffs[:k]), all_steps_rel_diff=max(diffs),
               float32=got[-1], reference_last=ref32[-1],
               mixed_bfloat16=runs["mixed_bfloat16"][-1],
               mixed_float16=runs["mixed_float16"][-1])
    if not out["max_rel_diff"] <= TOL:
        # Is the framework's own float32 run stable there? Rerun it from its
        # initial parameters moved by one ulp (module docstring).
        def perturbed(seed):
            if is_torch:
                return torch_reference(case, torch_perturbed(initial, seed), x, y)[0]
            return keras_reference(case, x, y, "float32",
                                   keras_perturbed_weights(weights, trainable, seed))[0]
        runs_p = [_stage("reference", perturbed, seed) for seed in PERTURB_SEEDS]
        k = min(k, stable_steps(ref64 if ref64 is not None else ref32, runs_p))
        out.update(perturbed=[r[-1] for r in runs_p], compared=k,
                   max_rel_diff=max(diffs[:k]))
    if not out["max_rel_diff"] <= TOL:
        step = next(i for i, d in enumerate(diffs[:k]) if not d <= TOL)
        raise Failure("mismatch", "float32 step %d: mp %.6g vs %.6g (rel %.1e), %d steps "
                      "compared" % (step + 1, got[step], ref32[step], diffs[step], k),
                      "numerics")
    def off(losses, own32):
        last = losses[-1]
        bound = max(losses[0], ref32[-1], own32) + SIXTEEN_TOL
        return not _finite(last) or last > bound or (
            k == STEPS and abs(last - ref32[-1]) > SIXTEEN_TOL)

    witness = None  # the framework's own autocast bf16 losses, when asked
    for policy in POLICIES[1:]:
        losses = runs[policy]
        if not off(losses, got[-1]):
            continue
        # A model whose training is chaotic under 16-bit rounding: where
        # PyTorch's own autocast run fails the same check, mp's 16-bit run
        # is held to being finite (recorded), not to a trajectory no
        # mixed-precision training of the model keeps.
        if is_torch and witness is None:
            witness = torch_reference(case, initial, x, y, autocast=True)[0]
            out["autocast_bf16"] = witness
        # Chaotic: PyTorch's own bf16 run fails the check, or leaves its
        # float32 trajectory by more than 10x the tolerance at some step.
        chaotic = witness is not None and (
            off(witness, ref32[-1]) or
            max(abs(a - b) for a, b in zip(witness, ref32)) > 10 * SIXTEEN_TOL)
        if chaotic and all(_finite(v) for v in losses):
            out.setdefault("sixteen_note", []).append(
                "%s last %.4f; PyTorch's own autocast bf16 also leaves the float32 "
                "trajectory (last %.4f, float32 %.4f)" % (policy, losses[-1], witness[-1],
                                                           ref32[-1]))
            continue
        raise Failure("16-bit off", "%s: loss %.4f -> %.4f (framework's last %.4f)" % (
            policy, losses[0], losses[-1], ref32[-1]), "16-bit")
    return out


def run_model(build, name, keep=False):
    case = TORCH.get(name) or KERAS[name]
    row = {"library": case.library, "model": name, "recipe": case.recipe,
           "dropped": case.dropped}
    start = time.time()
    work = tempfile.mkdtemp(prefix="mp-zoo-%s-" % name)
    variants = [("written", True, False), ("comparison", False, True)] if case.dropped \
        else [("comparison", True, True)]
    failures = []
    for label, drop, compare in variants:
        try:
            result = run_variant(build, name, case, drop, work, compare)
            result.pop("losses", None)
            row[label] = dict(status="ok", **{k: v for k, v in result.items()
                                              if k not in ("reference", "reference64")})
            if compare:
                row["reference_losses"] = result["reference"]
                row["reference64_losses"] = result["reference64"]
        except Failure as f:
            row[label] = {"status": f.status, "message": f.message, "gap": f.gap}
            failures.append(f)
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    row["wall_s"] = round(time.time() - start, 1)
    if failures:
        # The as-written failure first: it is what the user meets.
        f = failures[0]
        row.update(status=f.status, message=f.message, gap=f.gap)
    else:
        row.update(status="ok")
    c = row.get("comparison", {})
    for key in ("max_rel_diff", "compared", "float32", "reference_last", "mixed_bfloat16",
                "mixed_float16", "update_rel_diff", "update_tol"):
        if key in c:
            row[key] = c[key]
    return row


def describe(row):
    c = row.get("comparison", {})
    text = "%s: %s [%s]" % ("ok" if row["status"] == "ok" else row["status"].upper(),
                            row["model"], row["library"])
    if row.get("dropped"):
        w = row.get("written", {})
        text += "; as written: %s" % (
            "trained %.4f -> %.4f" % (w["first"], w["last"]) if w.get("status") == "ok"
            else "%s (%s)" % (w.get("status"), w.get("message")))
    if "max_rel_diff" in c:
        text += "; float32 within %.1e over %d steps (all %d: %.1e), mp %.4f vs %.4f; " \
                "bf16 %.4f, f16 %.4f" % (c["max_rel_diff"], c["compared"], STEPS,
                                         c["all_steps_rel_diff"], c["float32"],
                                         c["reference_last"], c["mixed_bfloat16"],
                                         c["mixed_float16"])
    if c.get("autocast_bf16"):
        text += " (16-bit chaotic: PyTorch's own autocast bf16 %.4f, at most %.4f)" % (
            c["autocast_bf16"][-1], max(c["autocast_bf16"]))
    if "update_rel_diff" in c:
        text += "; step-%d update within %.1e (tolerance %.1e)" % (
            c["update_step"], c["update_rel_diff"], c["update_tol"])
    if c.get("status") not in (None, "ok"):
        text += "; %s: %s" % (c["status"], c.get("message"))
    return text + "; %.0f s" % row["wall_s"]


# --quick (CI): fast models across the libraries (ceil-mode pooling and
# dropout, a ViT with clipping, a frozen backbone, BERT and T5 under the
# Trainer recipe, keras.io's convnet), about a minute together.
QUICK = ["tv_squeezenet1_1", "tv_vit_small", "tv_resnet18_finetune_frozen",
         "hf_bert_classifier", "hf_t5", "keras_mnist_convnet"]


def markdown(rows, total):
    """The results as docs/generated/ZooCorpus.md's table."""
    import platform
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    out = ["# The zoo corpus", "",
           "Written by `.venv/bin/python test/Exporters/zoo_corpus.py build --markdown "
           "docs/generated/ZooCorpus.md` (%s, %s, %d steps, %.0f s); the comparison rules "
           "are in test/Exporters/zoo_corpus.py's docstring and docs/exporters.md." % (
               cpu, platform.machine(), STEPS, total), "",
           "float32: the largest relative loss difference over the compared steps "
           "(those where the framework's float32 and float64 runs agree), and over all "
           "steps; update: the first update of every state tensor against the "
           "framework's, and its tolerance.", "",
           "| library | model | recipe | status | float32 (compared steps) | all steps | "
           "update (tol) | last loss mp / framework | bf16 | f16 | s |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        c = r.get("comparison", {})
        status = r["status"] if r["status"] == "ok" else "%s: %s" % (
            r["status"], (r.get("message") or "").replace("|", "/")[:200])

        def num(key, fmt="%.1e"):
            return fmt % c[key] if key in c else ""
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |" % (
            r.get("library", ""), r["model"], r.get("recipe", "").replace("|", "/"), status,
            "%s (%s)" % (num("max_rel_diff"), c.get("compared", "")) if "max_rel_diff" in c
            else "", num("all_steps_rel_diff"),
            "%s (%s)" % (num("update_rel_diff"), num("update_tol")) if "update_rel_diff" in c
            else "",
            "%s / %s" % (num("float32", "%.4f"), num("reference_last", "%.4f"))
            if "float32" in c else "", num("mixed_bfloat16", "%.4f"),
            num("mixed_float16", "%.4f"), r.get("wall_s", 0.0)))
    ok = sum(r["status"] == "ok" for r in rows)
    out += ["", "%d of %d models train as their framework trains them." % (ok, len(rows)), ""]
    return "\n".join(out)


def main():
    build = sys.argv[1]
    args = sys.argv[2:]
    out_json, out_md, keep, quick, names = None, None, False, False, []
    while args:
        a = args.pop(0)
        if a == "--json":
            out_json = args.pop(0)
        elif a == "--markdown":
            out_md = args.pop(0)
        elif a == "--quick":
            quick = True
        elif a == "--keep":
            keep = True
        else:
            names.append(a)
    every = list(TORCH) + list(KERAS)
    names = names or (QUICK if quick else every)
    unknown = [n for n in names if n not in every]
    if unknown:
        sys.exit("unknown model(s): %s; known: %s" % (", ".join(unknown), ", ".join(every)))
    rows, start = [], time.time()
    for name in names:
        try:
            row = run_model(build, name, keep)
        except Exception as e:  # noqa: BLE001 - never stop the corpus on one model
            traceback.print_exc()
            row = {"model": name, "status": "harness error", "wall_s": 0.0,
                   "message": "%s: %s" % (type(e).__name__, _first_line(str(e)))}
        rows.append(row)
        print(describe(row) if "library" in row else "%s: %s" % (name, row["message"]),
              flush=True)
        if out_json:
            with open(out_json, "w") as f:
                json.dump(rows, f, indent=1)
    total = time.time() - start
    if out_md:
        with open(out_md, "w") as f:
            f.write(markdown(rows, total))
    ok = sum(r["status"] == "ok" for r in rows)
    print("%d passed, %d failed (%.0f s)" % (ok, len(rows) - ok, total))
    sys.exit(0 if ok == len(rows) else 1)


if __name__ == "__main__":
    main()
