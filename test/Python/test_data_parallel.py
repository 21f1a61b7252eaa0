"""`mpirun -np N mp-run` on a data-parallel step (mp-compile
--mixed-precision="... data-parallel=allreduce": train.all_reduce of the
gradients, docs/distributed.md): N ranks with the plan's batch B train as
one process with the global batch N x B, each rank reading its part of
every global batch: the same losses, parameters within 1e-6 relative
(float32, 8 steps); only rank 0 writes the checkpoint. Skipped where
mpirun or the build's MPI is missing."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import ROOT, tool

MPIRUN = shutil.which("mpirun")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
           OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
BATCH, STEPS = 32, 8  # the data-parallel plan's batch per rank


def has_mpi():
    if not MPIRUN:
        return False
    linked = subprocess.run(["ldd", tool("mp-run")], capture_output=True,
                            text=True).stdout
    return "libmpi" in linked


pytestmark = pytest.mark.skipif(not has_mpi(),
                                reason="no mpirun, or mp-run built without MPI")


def plan(tmp_path, name, batch=BATCH, options="", policy="float32"):
    """examples/mlp.mlir with `batch` rows per step, compiled under
    `policy` with more --mixed-precision `options`."""
    with open(os.path.join(ROOT, "examples", "mlp.mlir")) as f:
        mlp = f.read()
    source = tmp_path / (name + ".mlir")
    source.write_text(mlp.replace("tensor<32x", "tensor<%dx" % batch).replace(
        "tensor<32xi64>", "tensor<%dxi64>" % batch))
    out = tmp_path / (name + ".plan")
    subprocess.run([tool("mp-compile"), str(source),
                    "--mixed-precision=policy=" + policy + options, "-o",
                    str(out)], check=True)
    return out


def save_data(tmp_path, rows, seed, edit=None):
    """x.npy / y.npy of `rows` samples (x edited by `edit` first); mp-run's
    arguments for them, in file order."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 784)).astype(np.float32)
    if edit:
        edit(x)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", rng.integers(0, 10, rows).astype(np.int64))
    return ["--train-x", str(tmp_path / "x.npy"), "--train-y",
            str(tmp_path / "y.npy"), "--no-shuffle", "--seed", "0", "--plain"]


def run(command, ranks=1, env=ENV):
    prefix = [MPIRUN, "-np", str(ranks), "--oversubscribe"] if ranks > 1 else []
    done = subprocess.run(prefix + command, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def assert_same_parameters(want_file, got_file, rtol, what=""):
    """The MLP's parameters in two checkpoints within `rtol` of the largest."""
    from mp_export.common import read_safetensors
    want, _ = read_safetensors(str(want_file))
    got, _ = read_safetensors(str(got_file))
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
        scale = np.abs(want[name]).max()
        assert np.abs(got[name] - want[name]).max() <= rtol * scale, \
            (what, name)


def test_ranks_train_as_one_process_with_the_global_batch(tmp_path):
    # The gradients averaged by mp-compile's pass (two buckets of the
    # MLP's four gradients).
    data_parallel = plan(tmp_path, "dp",
                         options=" data-parallel=allreduce bucket-mb=0.005")
    data = save_data(tmp_path, 512, 0) + ["--steps", str(STEPS)]
    for ranks in (2, 4):
        one_plan = plan(tmp_path, "one%d" % ranks, BATCH * ranks)
        one = tmp_path / ("one%d.ckpt" % ranks)
        many = tmp_path / ("many%d.ckpt" % ranks)
        alone = run([tool("mp-run"), str(one_plan), "--checkpoint", str(one)]
                    + data)
        together = run([tool("mp-run"), str(data_parallel), "--checkpoint",
                        str(many)] + data, ranks)
        loss = re.compile(r"last loss ([0-9.]+)")
        assert loss.findall(together) == loss.findall(alone), ranks
        # Rank 0 speaks for the job: one summary, one checkpoint.
        assert len(loss.findall(together)) == 1
        assert_same_parameters(one, many, 1e-6, ranks)


def test_a_plan_without_reductions_is_refused_under_mpirun(tmp_path):
    plain = plan(tmp_path, "plain")
    done = subprocess.run([MPIRUN, "-np", "2", "--oversubscribe",
                           tool("mp-run"), str(plain), "--synthetic",
                           "--steps", "1"], env=ENV, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert "the plan has no gradient reductions" in done.stderr + done.stdout


def test_checkpoints_do_not_depend_on_the_ranks(tmp_path):
    """A 2-rank run's checkpoint (rank 0's: the whole state, nothing is
    sharded) resumed by one process with the global batch continues the
    same run: 4 + 4 steps give the parameters of 8 steps on 2 ranks."""
    data_parallel = plan(tmp_path, "dp", options=" data-parallel=allreduce")
    one = plan(tmp_path, "one", 2 * BATCH)
    data = save_data(tmp_path, 256, 1)
    run([tool("mp-run"), str(data_parallel), "--steps", "8", "--checkpoint",
         str(tmp_path / "straight.ckpt")] + data, 2)
    run([tool("mp-run"), str(data_parallel), "--steps", "4", "--checkpoint",
         str(tmp_path / "half.ckpt")] + data, 2)
    run([tool("mp-run"), str(one), "--steps", "8", "--resume",
         str(tmp_path / "half.ckpt"), "--resume-other-plan", "--checkpoint",
         str(tmp_path / "resumed.ckpt")] + data)
    assert_same_parameters(tmp_path / "straight.ckpt",
                           tmp_path / "resumed.ckpt", 1e-6)


def test_an_inf_on_one_rank_skips_the_step_on_every_rank(tmp_path):
    """mixed_float16: an inf in rank 1's part of the first global batch
    only. The reduced gradients carry it to every rank: each skips that
    step and halves the scale as one process with the global batch does,
    and the runs go on alike (the skipped step changed no state)."""
    parallel = " data-parallel=allreduce"
    data_parallel = plan(tmp_path, "dp16", options=parallel,
                         policy="mixed_float16")
    # The one process's step reduces too (over itself): the same f32
    # gradients as the ranks', so the runs differ by the reduction's
    # rounding alone.
    one = plan(tmp_path, "one16", 2 * BATCH, options=parallel,
               policy="mixed_float16")

    def inf_in_rank_1s_part(x):
        x[40, 3] = np.inf  # global batch 0, rows 32-63: rank 1's part

    data = save_data(tmp_path, 256, 2, inf_in_rank_1s_part) + [
        "--steps", "4", "--allow-non-finite"]
    together = run([tool("mp-run"), str(data_parallel), "--checkpoint",
                    str(tmp_path / "many.ckpt")] + data, 2)
    alone = run([tool("mp-run"), str(one), "--checkpoint",
                 str(tmp_path / "one.ckpt")] + data)
    summary = re.compile(r"loss scale ([0-9.]+); skipped ([0-9]+)")
    [(scale, skipped)] = summary.findall(alone)
    assert skipped == "1"  # the step with the inf, and only it
    assert summary.findall(together) == [(scale, skipped)]
    assert_same_parameters(tmp_path / "one.ckpt", tmp_path / "many.ckpt", 1e-5)


SCRIPT = '''
import sys

import numpy as np

import mp

plan, x, y, out, steps = sys.argv[1:6]
session = mp.Session(plan)
session.init_params(seed=0)
X, Y = np.load(x), np.load(y)
B, N, r = session.tensors["input0"].shape[0], session.world_size, session.rank
for g in range(int(steps)):
    # The user's loop feeds each rank its part of every global batch.
    rows = slice((g * N + r) * B, (g * N + r + 1) * B)
    loss = session.step(X[rows], Y[rows])
if r == 0:
    session.save_checkpoint(out)
    print("loss %.9g world %d" % (loss, N))
'''


def test_the_python_api_under_mpirun(tmp_path):
    """mp.Session of a data-parallel plan in processes mpirun started: the
    launcher's ranks (session.rank, session.world_size); the user's loop
    feeds each its part of the global batch, and the run is one process's
    with the global batch."""
    import sys
    data_parallel = plan(tmp_path, "dp", options=" data-parallel=allreduce")
    one = plan(tmp_path, "one", 2 * BATCH)
    save_data(tmp_path, 256, 3)
    (tmp_path / "loop.py").write_text(SCRIPT)
    env = dict(ENV, PYTHONPATH=os.path.join(ROOT, "python"))

    def loop(plan_path, out, ranks):
        printed = run([sys.executable, str(tmp_path / "loop.py"),
                       str(plan_path), str(tmp_path / "x.npy"),
                       str(tmp_path / "y.npy"), str(out), "4"], ranks, env)
        return re.search(r"loss (\S+) world (\d+)", printed).groups()

    alone = loop(one, tmp_path / "one.ckpt", 1)
    together = loop(data_parallel, tmp_path / "two.ckpt", 2)
    assert together[1] == "2" and alone[1] == "1"
    assert float(together[0]) == pytest.approx(float(alone[0]), rel=1e-6)
    assert_same_parameters(tmp_path / "one.ckpt", tmp_path / "two.ckpt", 1e-6)
