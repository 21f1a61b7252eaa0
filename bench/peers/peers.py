#!/usr/bin/env python3
"""mp against the frameworks on the same models, on this machine, in one
run: the training step of the bench models (bench/peers/models.py writes them
in PyTorch and Keras 3) under float32 and bf16 mixed precision, in

  mp               mp-run on mp-compile's plan (policy float32 /
                   mixed_bfloat16): bench/gen_models.py's step (mlp, cnn,
                   transformer; synthetic data) or mp_export's export of
                   the PyTorch model (resnet, causal_lm; its example batch)
  mp-codegen       the same plan compiled with --codegen=cpu: runs of
                   elementwise kernels on generated code (docs/codegen.md)
  torch-eager      PyTorch eager, float32 / torch.autocast("cpu", bfloat16)
  torch-compile    torch.compile(model) (inductor), the same two
  mp-python        the PyTorch loop with mp.torch.compile (docs/python.md):
                   the model compiled once (policy float32 / mixed_bfloat16,
                   generated code on), then step(x, y) from Python
  tf               Keras 3 on TensorFlow, train_on_batch, the float32 /
                   mixed_bfloat16 dtype policy

`--models zoo` runs the zoo models instead (bench/peers/zoo.py: torchvision,
timm, Hugging Face and keras.applications models as their users build
them; mp exports each with the project's exporters), each against its own
framework's contenders.

Besides the time, every contender's peak resident memory is measured the
same way: the process's RSS high-water mark over the timed steps (the
framework workers reset it with /proc/self/clear_refs after their warm-up;
each mp-run round is a fresh process, its whole run's VmHWM, which mp-run
--verbose prints). mp's own breakdown (parameters, optimizer state, buffers, arena,
saved activations) comes from mp-run --verbose.

Each contender is one long-lived worker process per (model, policy): it
builds, warms up (compiles), then times --steps steps whenever the driver
asks; the driver asks every worker in turn, --rounds times (a busy moment
of the machine hits all contenders), and keeps each one's best round, in
ms per step. Threads: --threads for every contender (PyTorch's intra-op
threads, TensorFlow's intra-op threads, mp-run --threads).

    .venv/bin/python bench/peers/peers.py
        [--models mlp,cnn,transformer,resnet,causal_lm]
        [--contenders mp,mp-codegen,torch-eager,torch-compile,tf]
        [--rounds 3] [--policies float32,bf16]
        [--steps 10] [--threads 2] [--build build] [--json FILE]

In every round, mp-bench-limit also times mp's plan's matmuls and
convolutions alone on oneDNN (the step's GEMM-bound time: its
contractions at oneDNN's standalone rate for those shapes; the best round
kept, like the contenders'). Prints one
table per model and writes the rows and limits as JSON (--json), which
bench/cpu_tables.py --peers turns into mp's ratio to each peer and to the
limit.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
POLICIES = ("float32", "bf16")


def torch_worker(model_name, policy, compiled, threads):
    import torch
    sys.path.insert(0, HERE)
    import zoo
    from models import torch_model
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    if model_name in zoo.TORCH:
        model, opt, x, y, compute_loss = zoo.torch_zoo(model_name)
    else:
        model, opt, x, y, loss_fn = torch_model(model_name)

        def compute_loss(m, x, y):
            return loss_fn(m(x), y)
    model.train()
    fwd = torch.compile(model) if compiled else model
    bf16 = policy == "bf16"

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss = compute_loss(fwd, x, y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(3):  # compiles (torch.compile) and creates primitives
        step()
    return lambda n: timed(step, n, lambda: None)


def mp_python_worker(model_name, policy, threads):
    """The user's PyTorch loop with mp.torch.compile (docs/python.md): the
    same model, optimizer, loss and batch as torch_worker's, compiled once,
    then step(x, y) per step from Python."""
    import torch
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    os.environ.setdefault("MP_NUM_THREADS", str(threads))
    import mp.torch
    from models import torch_model
    torch.manual_seed(0)
    model, opt, x, y, loss_fn = torch_model(model_name)
    model.train()
    step = mp.torch.compile(model, opt, loss_fn=loss_fn, example=(x, y),
                            policy="mixed_bfloat16" if policy == "bf16"
                            else "float32")
    for _ in range(3):  # first touch of the session's memory
        step(x, y)
    return lambda n: timed(lambda: step(x, y), n, lambda: None)


def tf_worker(model_name, policy, threads):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    import keras
    keras.mixed_precision.set_global_policy(
        "mixed_bfloat16" if policy == "bf16" else "float32")
    keras.utils.set_random_seed(0)
    sys.path.insert(0, HERE)
    import zoo
    from models import keras_model
    model, x, y = (zoo.keras_zoo(model_name) if model_name in zoo.KERAS else
                   keras_model(model_name))
    for _ in range(3):  # traces and compiles the train function
        model.train_on_batch(x, y)
    return lambda n: timed(lambda: model.train_on_batch(x, y), n, lambda: None)


def timed(step, n, sync):
    start = time.perf_counter()
    for _ in range(n):
        step()
    sync()
    return (time.perf_counter() - start) * 1000.0 / n


def peak_rss_kb():
    """This process's resident-set high-water mark (VmHWM), in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def worker_main(args):
    """One contender: reads 'run N' lines, answers ms per step and the peak
    RSS over the timed steps so far (reset after the warm-up)."""
    if args.contender == "tf":
        run = tf_worker(args.model, args.policy, args.threads)
    elif args.contender == "mp-python":
        run = mp_python_worker(args.model, args.policy, args.threads)
    else:
        run = torch_worker(args.model, args.policy, args.contender == "torch-compile",
                           args.threads)
    try:  # the warm-up's (and compilation's) peak is not the step's
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    print("ready", flush=True)
    for line in sys.stdin:
        if not line.startswith("run "):
            break
        ms = run(int(line.split()[1]))
        print("%.3f %d" % (ms, peak_rss_kb()), flush=True)


class Worker:
    def __init__(self, contender, model, policy, threads):
        self.name = contender
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--worker", contender,
             "--model", model, "--policy", policy, "--threads", str(threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if line != "ready":
            raise RuntimeError("%s (%s, %s) did not start: %r" % (contender, model,
                                                                  policy, line))

    def run(self, steps):
        self.proc.stdin.write("run %d\n" % steps)
        self.proc.stdin.flush()
        ms, kb = self.proc.stdout.readline().split()
        self.peak_kb = int(kb)
        return float(ms)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def export_torch(model_name, work):
    """mp_export's export of models.torch_model(model_name) (seed 0) into
    WORK: the step's MLIR, its initial parameters and the example batch as
    x.npy / y.npy; returns the data arguments for mp-run."""
    import numpy as np
    import torch
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from models import torch_model
    import mp_export.torch as torch_export
    torch.manual_seed(0)
    model, opt, x, y, loss_fn = torch_model(model_name)
    torch_export.export(model, opt, x, y, work, model_name, loss_fn=loss_fn)
    stem = os.path.join(work, model_name)
    np.save(stem + ".x.npy", x.numpy())
    np.save(stem + ".y.npy", y.numpy())
    return ["--train-x", stem + ".x.npy", "--train-y", stem + ".y.npy",
            "--init-params", stem + ".init.safetensors"]


def export_zoo(model_name, work):
    """The project's exporter on a zoo model, as a user would call it: the
    PyTorch loop body through torch_export.export_step, a compiled Keras
    model through keras_export.export. Returns mp-run's data arguments."""
    import numpy as np
    sys.path.insert(0, HERE)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import zoo
    stem = os.path.join(work, model_name)
    if model_name in zoo.KERAS:
        import mp_export.keras as keras_export
        model, x, y = zoo.keras_zoo(model_name)
        keras_export.export(model, x, y, work, model_name)
    else:
        import mp_export.torch as torch_export
        model, opt, x, y, compute_loss = zoo.torch_zoo(model_name)

        def train_step(x, y):
            loss = compute_loss(model, x, y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            return loss
        torch_export.export_step(train_step, model, opt, x, y, work, model_name)
        x, y = x.numpy(), y.numpy()
    np.save(stem + ".x.npy", x)
    np.save(stem + ".y.npy", y)
    return ["--train-x", stem + ".x.npy", "--train-y", stem + ".y.npy",
            "--init-params", stem + ".init.safetensors"]


class Limit:
    """The GEMM-bound time of an mp plan, timed in the rounds like a
    contender (the machine's speed moves between rounds: each round's
    measure, the best kept): mp-bench-limit runs each of the plan's
    matmuls and convolutions alone on oneDNN (best of 4 calls) and sums."""

    name = "GEMM-bound"

    def __init__(self, mp_run):
        self.plan = mp_run.plan
        self.threads = mp_run.threads
        self.binary = os.path.join(os.path.dirname(mp_run.binary), "mp-bench-limit")

    def run(self, steps):
        out = subprocess.run([self.binary, self.plan, "--threads", str(self.threads),
                              "--min-time", "0", "--max-reps", "2"],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)["limit_ms"]

    def close(self):
        pass


class MpRun:
    """mp-run on a plan, one process per round: the mean of its per-step
    times (--log-every 1) after the first step, which creates oneDNN's
    primitives (the others warm up before they are timed, too)."""

    def __init__(self, build, model, policy, threads, work, codegen=False):
        sys.path.insert(0, HERE)
        import zoo
        from models import EXPORTED, SIZES
        self.name = "mp-codegen" if codegen else "mp"
        self.batch = zoo.batch_of(model) if model in zoo.MODELS else SIZES[model]["batch"]
        mlir = os.path.join(work, model + ".mlir")
        data = os.path.join(work, model + ".data")
        if not os.path.exists(mlir):
            if model in zoo.MODELS:
                with open(data, "w") as f:
                    f.write("\n".join(export_zoo(model, work)))
            elif model in EXPORTED:
                with open(data, "w") as f:
                    f.write("\n".join(export_torch(model, work)))
            else:
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_models.py"),
                                model, "-o", mlir], check=True)
        self.data = (open(data).read().split("\n") if os.path.exists(data) else
                     ["--synthetic", "--synthetic-samples", str(4 * self.batch)])
        self.plan = os.path.join(work, "%s.%s%s.mpplan" % (
            model, policy, ".codegen" if codegen else ""))
        mp_policy = "mixed_bfloat16" if policy == "bf16" else "float32"
        subprocess.run([os.path.join(build, "bin", "mp-compile"), mlir,
                        "--mixed-precision=policy=" + mp_policy, "-o", self.plan] +
                       (["--codegen=cpu"] if codegen else []), check=True)
        self.binary = os.path.join(build, "bin", "mp-run")
        self.threads = threads
        # mp's own breakdown of the step's memory (one step, --verbose).
        verbose = subprocess.run([self.binary, self.plan] + self.data + [
                                  "--steps", "1", "--plain", "--verbose",
                                  "--threads", str(threads)],
                                 check=True, capture_output=True, text=True).stderr
        found = re.search(r"memory: arena (\d+) bytes, activations saved for the "
                          r"backward pass (\d+) bytes, second slots of double-buffered "
                          r"state (\d+) bytes; parameters (\d+) bytes, optimizer state "
                          r"(\d+) bytes, buffers (\d+) bytes", verbose)
        self.breakdown = dict(zip(("arena", "saved_activations", "second_slots",
                                   "parameters", "optimizer_state", "buffers"),
                                  (int(v) for v in found.groups()))) if found else {}

    def run(self, steps):
        # The peak RSS from mp-run itself (--verbose: VmHWM since its exec;
        # the rusage of a child forked from this large Python process
        # would count this process's pages too).
        out = subprocess.run([self.binary, self.plan] + self.data + [
                              "--steps", str(steps + 1), "--plain", "--verbose",
                              "--log-every", "1", "--threads", str(self.threads)],
                             check=True, capture_output=True, text=True).stderr
        peak = re.search(r"peak resident memory ([0-9.]+) MiB", out)
        self.peak_kb = int(float(peak.group(1)) * 1024) if peak else 0
        rates = [float(r) for r in re.findall(r"^step \d+/\d+ .* ([0-9.]+) examples/s",
                                              out, re.M)]
        if len(rates) != steps + 1:
            raise RuntimeError("mp-run printed %d step lines, not %d: %s" % (
                len(rates), steps + 1, out[-500:]))
        return sum(self.batch * 1000.0 / r for r in rates[1:]) / steps

    def close(self):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp,cnn,transformer,resnet,causal_lm")
    parser.add_argument("--contenders", default="mp,torch-eager,torch-compile,tf")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--policies", default=",".join(POLICIES))
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--json")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--model", help=argparse.SUPPRESS)
    parser.add_argument("--policy", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.contender = args.worker
        return worker_main(args)

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown CPU")
    flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo")
                  if l.startswith("flags")), [])
    isa = [f for f in ("amx_bf16", "avx512_fp16", "avx512_bf16", "avx512f", "avx2")
           if f in flags]
    print("== %s (%s), %d CPUs, %d threads, best of %d rounds of %d steps" % (
        cpu, " ".join(isa), os.cpu_count(), args.threads, args.rounds, args.steps))
    work = tempfile.mkdtemp(prefix="mp-peers-")
    sys.path.insert(0, HERE)
    import zoo
    models = []
    for m in args.models.split(","):
        models += list(zoo.MODELS) if m == "zoo" else [m]
    rows, limits = [], []
    for model in models:
        for policy in args.policies.split(","):
            contenders = []
            for name in args.contenders.split(","):
                # A zoo model races its own framework's contenders.
                if (model in zoo.TORCH and name == "tf") or (
                        model in zoo.KERAS and name.startswith("torch")):
                    continue
                if name in ("mp", "mp-codegen"):
                    contenders.append(MpRun(args.build, model, policy, args.threads,
                                            work, codegen=name == "mp-codegen"))
                else:
                    contenders.append(Worker(name, model, policy, args.threads))
            # The GEMM-bound limit of the plan (mp's and mp-codegen's have the
            # same contractions: one of them), timed in the rounds too.
            plan = next((c for c in contenders if isinstance(c, MpRun)), None)
            if plan:
                contenders.append(Limit(plan))
            best = {c.name: float("inf") for c in contenders}
            peak = {c.name: 0 for c in contenders}
            for _ in range(args.rounds):
                for c in contenders:
                    best[c.name] = min(best[c.name], c.run(args.steps))
                    peak[c.name] = max(peak[c.name], getattr(c, "peak_kb", 0))
            for c in contenders:
                c.close()
            for c in contenders:
                name, ms = c.name, best[c.name]
                if name == Limit.name:
                    limits.append({"model": model, "policy": policy, "ms": round(ms, 2)})
                    print("%-22s %-8s %-14s %9.1f ms/step" % (model, policy, name, ms),
                          flush=True)
                    continue
                row = {"model": model, "policy": policy, "contender": name,
                       "ms": round(ms, 2), "peak_rss_mib": round(peak[name] / 1024.0, 1)}
                if getattr(c, "breakdown", None):
                    row["mp_memory"] = c.breakdown
                rows.append(row)
                print("%-22s %-8s %-14s %9.1f ms/step %8.1f MiB peak RSS" % (
                    model, policy, name, ms, row["peak_rss_mib"]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cpu": cpu, "isa": isa, "threads": args.threads,
                       "rounds": args.rounds, "steps": args.steps, "rows": rows,
                       "limits": limits}, f,
                      indent=1)


if __name__ == "__main__":
    sys.exit(main())
