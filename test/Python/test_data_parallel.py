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


def plan(tmp_path, mlir_text, name, options=""):
    source = tmp_path / (name + ".mlir")
    source.write_text(mlir_text)
    out = tmp_path / (name + ".plan")
    subprocess.run([tool("mp-compile"), str(source),
                    "--mixed-precision=policy=float32" + options, "-o",
                    str(out)], check=True)
    return out


def run(command, ranks=1):
    prefix = [MPIRUN, "-np", str(ranks), "--oversubscribe"] if ranks > 1 else []
    done = subprocess.run(prefix + command, env=ENV, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_ranks_train_as_one_process_with_the_global_batch(tmp_path):
    from mp_export.common import read_safetensors
    with open(os.path.join(ROOT, "examples", "mlp.mlir")) as f:
        mlp = f.read()
    # The gradients averaged by mp-compile's pass (two buckets of the
    # MLP's four gradients).
    data_parallel = plan(tmp_path, mlp, "dp",
                         " data-parallel=allreduce bucket-mb=0.005")
    rng = np.random.default_rng(0)
    x = tmp_path / "x.npy"
    y = tmp_path / "y.npy"
    np.save(x, rng.standard_normal((512, 784)).astype(np.float32))
    np.save(y, rng.integers(0, 10, 512).astype(np.int64))
    data = ["--train-x", str(x), "--train-y", str(y), "--steps", str(STEPS),
            "--no-shuffle", "--seed", "0", "--plain"]
    for ranks in (2, 4):
        batch = BATCH * ranks
        one_plan = plan(tmp_path, mlp.replace(
            "tensor<32x", "tensor<%dx" % batch).replace(
            "tensor<32xi64>", "tensor<%dxi64>" % batch), "one%d" % ranks)
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
        want, _ = read_safetensors(str(one))
        got, _ = read_safetensors(str(many))
        for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
            scale = np.abs(want[name]).max()
            assert np.abs(got[name] - want[name]).max() <= 1e-6 * scale, \
                (ranks, name)


def test_a_plan_without_reductions_is_refused_under_mpirun(tmp_path):
    plain = tmp_path / "plain.plan"
    subprocess.run([tool("mp-compile"), os.path.join(ROOT, "examples",
                                                     "mlp.mlir"),
                    "--mixed-precision=policy=float32", "-o", str(plain)],
                   check=True)
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
    from mp_export.common import read_safetensors
    with open(os.path.join(ROOT, "examples", "mlp.mlir")) as f:
        mlp = f.read()
    data_parallel = plan(tmp_path, mlp, "dp", " data-parallel=allreduce")
    one = plan(tmp_path, mlp.replace("tensor<32x", "tensor<64x").replace(
        "tensor<32xi64>", "tensor<64xi64>"), "one")
    rng = np.random.default_rng(1)
    np.save(tmp_path / "x.npy", rng.standard_normal((256, 784)).astype(np.float32))
    np.save(tmp_path / "y.npy", rng.integers(0, 10, 256).astype(np.int64))
    data = ["--train-x", str(tmp_path / "x.npy"), "--train-y",
            str(tmp_path / "y.npy"), "--no-shuffle", "--seed", "0", "--plain"]
    run([tool("mp-run"), str(data_parallel), "--steps", "8", "--checkpoint",
         str(tmp_path / "straight.ckpt")] + data, 2)
    run([tool("mp-run"), str(data_parallel), "--steps", "4", "--checkpoint",
         str(tmp_path / "half.ckpt")] + data, 2)
    run([tool("mp-run"), str(one), "--steps", "8", "--resume",
         str(tmp_path / "half.ckpt"), "--resume-other-plan", "--checkpoint",
         str(tmp_path / "resumed.ckpt")] + data)
    want, _ = read_safetensors(str(tmp_path / "straight.ckpt"))
    got, _ = read_safetensors(str(tmp_path / "resumed.ckpt"))
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
        scale = np.abs(want[name]).max()
        assert np.abs(got[name] - want[name]).max() <= 1e-6 * scale, name


def test_an_inf_on_one_rank_skips_the_step_on_every_rank(tmp_path):
    """mixed_float16: an inf in rank 1's part of the first global batch
    only. The reduced gradients carry it to every rank: each skips that
    step and halves the scale as one process with the global batch does,
    and the runs go on alike (the skipped step changed no state)."""
    from mp_export.common import read_safetensors
    with open(os.path.join(ROOT, "examples", "mlp.mlir")) as f:
        mlp = f.read()
    f16 = " data-parallel=allreduce"
    source = tmp_path / "mlp.mlir"
    source.write_text(mlp)
    data_parallel = tmp_path / "dp16.plan"
    subprocess.run([tool("mp-compile"), str(source),
                    "--mixed-precision=policy=mixed_float16" + f16, "-o",
                    str(data_parallel)], check=True)
    one_source = tmp_path / "one.mlir"
    one_source.write_text(mlp.replace("tensor<32x", "tensor<64x").replace(
        "tensor<32xi64>", "tensor<64xi64>"))
    one = tmp_path / "one16.plan"
    # The one process's step reduces too (over itself): the same f32
    # gradients as the ranks', so the runs differ by the reduction's
    # rounding alone.
    subprocess.run([tool("mp-compile"), str(one_source),
                    "--mixed-precision=policy=mixed_float16" + f16, "-o",
                    str(one)], check=True)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    x[40, 3] = np.inf  # global batch 0, rows 32-63: rank 1's part
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", rng.integers(0, 10, 256).astype(np.int64))
    data = ["--train-x", str(tmp_path / "x.npy"), "--train-y",
            str(tmp_path / "y.npy"), "--no-shuffle", "--seed", "0", "--plain",
            "--steps", "4", "--allow-non-finite"]
    together = run([tool("mp-run"), str(data_parallel), "--checkpoint",
                    str(tmp_path / "many.ckpt")] + data, 2)
    alone = run([tool("mp-run"), str(one), "--checkpoint",
                 str(tmp_path / "one.ckpt")] + data)
    summary = re.compile(r"loss scale ([0-9.]+); skipped ([0-9]+)")
    [(scale, skipped)] = summary.findall(alone)
    assert skipped == "1"  # the step with the inf, and only it
    assert summary.findall(together) == [(scale, skipped)]
    want, _ = read_safetensors(str(tmp_path / "one.ckpt"))
    got, _ = read_safetensors(str(tmp_path / "many.ckpt"))
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
        scale = np.abs(want[name]).max()
        assert np.abs(got[name] - want[name]).max() <= 1e-5 * scale, name


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
    from mp_export.common import read_safetensors
    with open(os.path.join(ROOT, "examples", "mlp.mlir")) as f:
        mlp = f.read()
    data_parallel = plan(tmp_path, mlp, "dp", " data-parallel=allreduce")
    one = plan(tmp_path, mlp.replace("tensor<32x", "tensor<64x").replace(
        "tensor<32xi64>", "tensor<64xi64>"), "one")
    rng = np.random.default_rng(3)
    np.save(tmp_path / "x.npy", rng.standard_normal((256, 784)).astype(np.float32))
    np.save(tmp_path / "y.npy", rng.integers(0, 10, 256).astype(np.int64))
    (tmp_path / "loop.py").write_text(SCRIPT)
    env = dict(ENV, PYTHONPATH=os.path.join(ROOT, "python"))

    def loop(plan_path, out, ranks):
        prefix = [MPIRUN, "-np", str(ranks), "--oversubscribe"] if ranks > 1 \
            else []
        done = subprocess.run(prefix + [sys.executable, str(tmp_path / "loop.py"),
                                        str(plan_path), str(tmp_path / "x.npy"),
                                        str(tmp_path / "y.npy"), str(out), "4"],
                              env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout.split()

    alone = loop(one, tmp_path / "one.ckpt", 1)
    together = loop(data_parallel, tmp_path / "two.ckpt", 2)
    assert together[3] == "2" and alone[3] == "1"
    assert float(together[1]) == pytest.approx(float(alone[1]), rel=1e-6)
    want, _ = read_safetensors(str(tmp_path / "one.ckpt"))
    got, _ = read_safetensors(str(tmp_path / "two.ckpt"))
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
        scale = np.abs(want[name]).max()
        assert np.abs(got[name] - want[name]).max() <= 1e-6 * scale, name
