"""`mpirun -np N mp-run` on a ZeRO-1 step (mp-compile --mixed-precision=
"... data-parallel=zero1 world-size=N", docs/distributed.md): the
gradients reduce-scattered, each rank's optimizer state a shard, the
updated parameters gathered. N ranks of batch B train as one process of
batch N x B; an inf on one rank skips the step on every rank; checkpoints
hold the state whole, so they resume on any number of ranks and under
any plan of the model. Skipped where mpirun or the build's MPI is
missing."""
import json
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import ROOT, tool
from test_data_parallel import (ENV, MPIRUN, BATCH, assert_same_parameters,
                                cnn_plan, has_mpi, plan, run, save_data)

pytestmark = pytest.mark.skipif(not has_mpi(),
                                reason="no mpirun, or mp-run built without MPI")

LOSS = re.compile(r"last loss ([0-9.]+)")


def zero1(ranks):
    return " data-parallel=zero1 world-size=%d" % ranks


def cnn_data(tmp_path, steps):
    rng = np.random.default_rng(11)
    np.save(tmp_path / "x.npy",
            rng.standard_normal((96, 1, 28, 28)).astype(np.float32))
    np.save(tmp_path / "y.npy", rng.integers(0, 10, 96).astype(np.int64))
    return ["--train-x", str(tmp_path / "x.npy"), "--train-y",
            str(tmp_path / "y.npy"), "--no-shuffle", "--seed", "0",
            "--plain", "--steps", str(steps)]


def relative_errors(want_file, got_file):
    """Per tensor of `want_file` (parameters, momentum buffers, running
    statistics): its largest difference from `got_file`'s, over its
    largest magnitude. Both must hold the same tensors, of one shape."""
    from mp_export.common import read_safetensors
    want, _ = read_safetensors(str(want_file))
    got, _ = read_safetensors(str(got_file))
    assert sorted(got) == sorted(want)
    errors = {}
    for name in want:
        assert got[name].shape == want[name].shape, name
        errors[name] = float(np.abs(got[name] - want[name]).max() /
                             max(np.abs(want[name]).max(), 1e-6))
    return errors


def test_zero1_ranks_train_as_one_process_with_the_global_batch(tmp_path):
    # The MLP (SGD: no optimizer state; the reduce-scatter and the gather
    # of its four parameters over two buckets, 10 elements over 4 ranks
    # padded), 8 steps, as allreduce's test.
    data = save_data(tmp_path, 512, 0) + ["--steps", "8"]
    for ranks in (2, 4):
        sharded = plan(tmp_path, "z%d" % ranks,
                       options=zero1(ranks) + " bucket-mb=0.005")
        one = plan(tmp_path, "one%d" % ranks, BATCH * ranks)
        alone = run([tool("mp-run"), str(one), "--checkpoint",
                     str(tmp_path / "one.ckpt")] + data)
        together = run([tool("mp-run"), str(sharded), "--checkpoint",
                        str(tmp_path / "z.ckpt")] + data, ranks)
        assert LOSS.findall(together) == LOSS.findall(alone), ranks
        assert len(LOSS.findall(together)) == 1
        assert_same_parameters(tmp_path / "one.ckpt", tmp_path / "z.ckpt",
                               1e-6, ranks)


def test_zero1_refreshes_the_16_bit_weights_it_gathers(tmp_path):
    """mixed_bfloat16 without loss scaling: the step returns the gathered
    parameters as they are (no select), and the next step's bf16 copies
    of them (hoisted casts) are made from the finished gather. 2 ranks, 6
    steps: allreduce's parameters within 1e-6."""
    data = save_data(tmp_path, 512, 7) + ["--steps", "6"]
    for mode, options in (("z", zero1(2)),
                          ("a", " data-parallel=allreduce")):
        compiled = plan(tmp_path, mode, options=options,
                        policy="mixed_bfloat16")
        run([tool("mp-run"), str(compiled), "--checkpoint",
             str(tmp_path / (mode + ".ckpt"))] + data, 2)
    errors = relative_errors(tmp_path / "a.ckpt", tmp_path / "z.ckpt")
    assert max(errors.values()) <= 1e-6, errors


def test_zero1_shards_momentum_and_saves_it_whole(tmp_path):
    """The CNN (SGD with momentum: a buffer per parameter, sharded), with
    synchronized batch norm, 5 steps: 2 ranks of 8 and 4 of 4 images
    train as allreduce does on as many ranks (within 1e-6; measured:
    bitwise, MPI summing the reduce-scatter's blocks in the all-reduce's
    order), and as one process with batches of 16: parameters and running
    statistics within 1e-5 (sync-batch-norm's bound), the momentum
    buffers (sums of gradients, relative to their own magnitude) within
    1e-4 (measured 1.0e-5 with 4 ranks, as allreduce). The checkpoint
    holds the buffers whole."""
    data = cnn_data(tmp_path, 5)
    one = cnn_plan(tmp_path, "one", 16, "")
    alone = run([tool("mp-run"), str(one), "--checkpoint",
                 str(tmp_path / "one.ckpt")] + data)
    for ranks in (2, 4):
        sharded = cnn_plan(tmp_path, "z%d" % ranks, 16 // ranks,
                           zero1(ranks) + " sync-batch-norm=true")
        replicated = cnn_plan(tmp_path, "a%d" % ranks, 16 // ranks,
                              " data-parallel=allreduce sync-batch-norm=true")
        ckpt = tmp_path / ("z%d.ckpt" % ranks)
        together = run([tool("mp-run"), str(sharded), "--checkpoint",
                        str(ckpt)] + data, ranks)
        run([tool("mp-run"), str(replicated), "--checkpoint",
             str(tmp_path / "a.ckpt")] + data, ranks)
        assert float(LOSS.findall(together)[0]) == pytest.approx(
            float(LOSS.findall(alone)[0]), rel=1e-5)
        errors = relative_errors(tmp_path / "a.ckpt", ckpt)
        assert max(errors.values()) <= 1e-6, (ranks, errors)
        errors = relative_errors(tmp_path / "one.ckpt", ckpt)
        momentum = {n: e for n, e in errors.items()
                    if n.endswith("momentum_buffer")}
        assert len(momentum) == 8
        assert max(momentum.values()) <= 1e-4, (ranks, momentum)
        assert max(e for n, e in errors.items()
                   if n not in momentum) <= 1e-5, (ranks, errors)


def test_an_inf_on_one_rank_skips_the_step_on_every_zero1_rank(tmp_path):
    """mixed_float16, an inf in rank 1's part of global batch 0 only: rank
    1's gradient shards after the reduce-scatter hold infs, rank 0's may
    not. The verdict is every rank's (train.all_ranks): both skip the step
    and back the scale off as one process does."""
    sharded = plan(tmp_path, "z16", options=zero1(2), policy="mixed_float16")
    one = plan(tmp_path, "one16", 2 * BATCH, options=" data-parallel=allreduce",
               policy="mixed_float16")

    def inf_in_rank_1s_part(x):
        x[40, 3] = np.inf

    data = save_data(tmp_path, 256, 2, inf_in_rank_1s_part) + [
        "--steps", "4", "--allow-non-finite"]
    together = run([tool("mp-run"), str(sharded), "--checkpoint",
                    str(tmp_path / "z.ckpt")] + data, 2)
    alone = run([tool("mp-run"), str(one), "--checkpoint",
                 str(tmp_path / "one.ckpt")] + data)
    summary = re.compile(r"loss scale ([0-9.]+); skipped ([0-9]+)")
    [(scale, skipped)] = summary.findall(alone)
    assert skipped == "1"
    assert summary.findall(together) == [(scale, skipped)]
    assert_same_parameters(tmp_path / "one.ckpt", tmp_path / "z.ckpt", 1e-5)


def test_zero1_checkpoints_resume_on_one_process_and_back(tmp_path):
    """2 ranks -> 1 process and 1 process -> 2 ranks, each 3 + 3 steps of
    the CNN: the parameters (within 1e-5) and momentum buffers (1e-4) of
    6 steps in one process (the checkpoint holds every tensor whole, under
    the names an allreduce or a one-process plan uses)."""
    data = cnn_data(tmp_path, 6)
    three = [a if a != "6" else "3" for a in data]
    one = cnn_plan(tmp_path, "one", 16, "")
    sharded = cnn_plan(tmp_path, "z2", 8, zero1(2) + " sync-batch-norm=true")
    run([tool("mp-run"), str(one), "--checkpoint",
         str(tmp_path / "straight.ckpt")] + data)
    # 2 ranks, then one process.
    run([tool("mp-run"), str(sharded), "--checkpoint",
         str(tmp_path / "z-half.ckpt")] + three, 2)
    resumed = run([tool("mp-run"), str(one), "--resume",
                   str(tmp_path / "z-half.ckpt"), "--resume-other-plan",
                   "--checkpoint", str(tmp_path / "to-one.ckpt")] + data)
    assert "(3 to 6)" in resumed
    # One process, then 2 ranks.
    run([tool("mp-run"), str(one), "--checkpoint",
         str(tmp_path / "half.ckpt")] + three)
    resumed = run([tool("mp-run"), str(sharded), "--resume",
                   str(tmp_path / "half.ckpt"), "--resume-other-plan",
                   "--checkpoint", str(tmp_path / "to-two.ckpt")] + data, 2)
    assert "(3 to 6)" in resumed
    for ckpt in ("to-one.ckpt", "to-two.ckpt"):
        errors = relative_errors(tmp_path / "straight.ckpt", tmp_path / ckpt)
        assert max(errors.values()) <= 1e-4, (ckpt, errors)
        assert max(e for n, e in errors.items()
                   if not n.endswith("momentum_buffer")) <= 1e-5, (ckpt,
                                                                   errors)


def test_a_zero1_plan_runs_on_its_number_of_ranks_only(tmp_path):
    sharded = plan(tmp_path, "z2", options=zero1(2))
    for ranks in (1, 4):
        command = [tool("mp-run"), str(sharded), "--synthetic", "--steps",
                   "1"]
        if ranks > 1:
            command = [MPIRUN, "-np", str(ranks), "--oversubscribe"] + command
        done = subprocess.run(command, env=ENV, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode != 0, ranks
        assert ("shards its optimizer state over 2 ranks "
                "(data-parallel=zero1 world-size=2) but runs on %d" % ranks
                ) in done.stdout + done.stderr, ranks


def test_zero1_clips_by_the_norm_of_the_whole_gradients(tmp_path):
    """examples/causal_lm.mlir (AdamW, a warm-up schedule, clip_grad_norm,
    here with max_norm 0.05 so that every step clips), float32, 2 ranks, 6
    steps on the same synthetic data: zero1, whose ranks each clip their
    shards by the norm of the whole gradients, trains as allreduce does
    (parameters, both moments and the step count within 1e-6 relative);
    the report halves the optimizer state per rank."""
    with open(os.path.join(ROOT, "examples", "causal_lm.mlir")) as f:
        text = f.read()
    (tmp_path / "step.mlir").write_text(
        text.replace("max_norm = 1.0", "max_norm = 0.05"))
    plans = {}
    for mode, options in (("zero1", zero1(2)),
                          ("allreduce", " data-parallel=allreduce")):
        plans[mode] = tmp_path / (mode + ".plan")
        subprocess.run([tool("mp-compile"), str(tmp_path / "step.mlir"),
                        "--mixed-precision=policy=float32" + options +
                        " report=" + str(tmp_path / (mode + ".json")),
                        "-o", str(plans[mode])], check=True)
        run([tool("mp-run"), str(plans[mode]), "--synthetic",
             "--synthetic-samples", "192", "--steps", "6", "--seed", "3",
             "--plain", "--checkpoint", str(tmp_path / (mode + ".ckpt"))], 2)
    errors = relative_errors(tmp_path / "allreduce.ckpt",
                             tmp_path / "zero1.ckpt")
    assert any(n.endswith("exp_avg_sq") for n in errors)
    assert max(errors.values()) <= 1e-6, errors
    with open(tmp_path / "zero1.json") as f:
        [report] = json.load(f)["functions"]
    parallel = report["data_parallel"]
    assert parallel["mode"] == "zero1"
    # Every moment is halved, the padding aside; the step count is whole.
    assert parallel["optimizer_state_bytes_per_rank"] < \
        0.51 * parallel["optimizer_state_bytes_unsharded"]


TORCH_SCRIPT = '''
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import mp

options, out, ckpt = sys.argv[1:4]
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 5))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
rng = np.random.default_rng(4)
X = torch.tensor(rng.standard_normal((128, 12)), dtype=torch.float32)
Y = torch.tensor(rng.integers(0, 5, 128), dtype=torch.int64)
B = 16
step = mp.torch.compile(model, optimizer, loss_fn=F.cross_entropy,
                        example=(X[:B], Y[:B]), policy="float32",
                        compile_options=options)
r, N = step.rank, step.world_size
for g in range(4):
    rows = slice((g * N + r) * B, (g * N + r + 1) * B)
    step(X[rows], Y[rows])
# Every rank reads the state (under zero1 a gathering collective).
state = step.state_dict()
step.save(ckpt + str(r))
# PyTorch takes the optimizer's state back: its tensors are whole.
optimizer.load_state_dict(state["optimizer"])
if r == 0:
    flat = {"model." + k: v.numpy() for k, v in state["model"].items()}
    for index, entry in state["optimizer"]["state"].items():
        for key, value in entry.items():
            flat["optimizer.%d.%s" % (index, key)] = value.numpy()
    np.savez(out, **flat)
'''


def both_modes(tmp_path, script, arguments):
    """`script` (options, then arguments(mode)) under mpirun -np 2 with a
    zero1 plan and with an allreduce plan."""
    import sys
    (tmp_path / "script.py").write_text(script)
    env = dict(ENV, PYTHONPATH=os.path.join(ROOT, "python"),
               MP_CACHE_DIR=str(tmp_path / "cache"))
    for mode, options in (("zero1", zero1(2).strip()),
                          ("allreduce", "data-parallel=allreduce")):
        run([sys.executable, str(tmp_path / "script.py"), options] +
            arguments(mode), 2, env)


def test_the_python_api_runs_zero1_as_allreduce(tmp_path):
    """mp.torch.compile(..., compile_options="data-parallel=zero1
    world-size=2") in the user's loop under mpirun -np 2, Adam: the
    state_dict (read on every rank: the shards gathered) and the
    checkpoint of each rank are allreduce's, within 1e-6, and PyTorch's
    optimizer loads the state (its tensors whole)."""
    pytest.importorskip("torch")
    both_modes(tmp_path, TORCH_SCRIPT, lambda mode: [
        str(tmp_path / (mode + ".npz")), str(tmp_path / (mode + ".ckpt"))])
    ours = np.load(tmp_path / "zero1.npz")
    theirs = np.load(tmp_path / "allreduce.npz")
    assert sorted(ours.files) == sorted(theirs.files)
    assert any(".exp_avg_sq" in name for name in ours.files)
    for name in theirs.files:
        assert ours[name].shape == theirs[name].shape, name
        scale = max(np.abs(theirs[name]).max(), 1e-6)
        assert np.abs(ours[name] - theirs[name]).max() <= 1e-6 * scale, name
    for rank in (0, 1):
        errors = relative_errors(tmp_path / ("allreduce.ckpt%d" % rank),
                                 tmp_path / ("zero1.ckpt%d" % rank))
        assert max(errors.values()) <= 1e-6, (rank, errors)


def test_keras_fit_runs_zero1_as_allreduce(tmp_path):
    """mp.keras.fit with compile_options="data-parallel=zero1
    world-size=2" (SGD with momentum: the buffers sharded) on 2 ranks: the
    History and the weights written back into the Keras model (the
    momentum gathered whole for the write-back) are allreduce's within
    1e-6."""
    pytest.importorskip("keras")
    from test_data_parallel import KERAS_SCRIPT
    both_modes(tmp_path, KERAS_SCRIPT,
               lambda mode: [str(tmp_path / (mode + ".npz")), "16"])
    ours = np.load(tmp_path / "zero1.npz")
    theirs = np.load(tmp_path / "allreduce.npz")
    for name in theirs.files:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-6,
                                   atol=1e-7, err_msg=name)
