"""mp.Session: a plan trained in this process gives mp-run's numbers bit for
bit (one engine, two front doors); bad batches, a failed gradient check and
bad files are Python exceptions that change no state; a checkpoint resumes
bitwise."""
import os
import subprocess
import sys

import numpy as np
import pytest

import mp
from conftest import ROOT, tool

BATCH, FEATURES, CLASSES, STEPS = 32, 784, 10, 6


def dataset(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH * STEPS, FEATURES)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH * STEPS).astype(np.int64)
    return x, y


def dataset_batches(seed):
    """dataset(seed) as STEPS (x, y) batches."""
    x, y = dataset(seed)
    return [(x[i * BATCH:(i + 1) * BATCH], y[i * BATCH:(i + 1) * BATCH])
            for i in range(STEPS)]


def params(session):
    return {name: session.get(name) for name in session.params}


def same(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].tobytes() == b[name].tobytes(), name


@pytest.mark.parametrize("policy", ["float32", "mixed_bfloat16"])
def test_same_numbers_as_mp_run(compile_plan, tmp_path, policy):
    plan = compile_plan("mlp", policy)
    x, y = dataset()
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    checkpoint = tmp_path / "mp-run.ckpt"
    subprocess.run(
        [tool("mp-run"), plan, "--data", "input0=%s" % (tmp_path / "x.npy"),
         "--data", "label0=%s" % (tmp_path / "y.npy"), "--steps", str(STEPS),
         "--no-shuffle", "--seed", "0", "--plain", "--replay", "off",
         "--checkpoint", str(checkpoint)],
        check=True, capture_output=True)

    session = mp.Session(plan)
    assert session.policy == policy
    assert session.inputs == ["input0"] and session.labels == ["label0"]
    session.init_params(seed=0)
    losses = []
    for step in range(STEPS):
        rows = slice(step * BATCH, (step + 1) * BATCH)
        losses.append(session.step(x[rows], y[rows]))
    assert all(np.isfinite(losses))
    assert session.scaler_stats()["steps_run"] == STEPS

    from_mp_run = mp.Session(plan)
    from_mp_run.load_checkpoint(checkpoint)
    same(params(session), params(from_mp_run))


def test_checkpoint_resumes_bitwise(compile_plan, tmp_path):
    plan = compile_plan("mlp", "mixed_bfloat16")
    batches = dataset_batches(1)
    first = mp.Session(plan)
    first.init_params(seed=5)
    for batch in batches[:3]:
        first.step(*batch)
    first.save_checkpoint(tmp_path / "half.ckpt")
    for batch in batches[3:]:
        first.step(*batch)

    resumed = mp.Session(plan)
    resumed.load_checkpoint(tmp_path / "half.ckpt")
    assert resumed.scaler_stats()["steps_run"] == 3
    for batch in batches[3:]:
        resumed.step(*batch)
    same(params(first), params(resumed))
    assert resumed.scaler_stats() == first.scaler_stats()


def test_bad_batches_name_the_tensor_and_change_nothing(compile_plan):
    session = mp.Session(compile_plan("mlp", "float32"))
    session.init_params(seed=0)
    x, y = dataset()
    x, y = x[:BATCH], y[:BATCH]
    before = params(session)

    with pytest.raises(mp.DataError, match=r"'input0' takes f32\[32, 784\], "
                       r"got float64\[32, 784\]"):
        session.step(x.astype(np.float64), y)
    with pytest.raises(mp.DataError, match=r"'input0' takes f32\[32, 784\], "
                       r"got float32\[31, 784\]"):
        session.step(x[:31], y)
    with pytest.raises(mp.DataError, match="no tensor 'images'"):
        session.step(images=x, label0=y)
    with pytest.raises(mp.DataError, match="takes 2 tensors"):
        session.step(x, y, y)
    with pytest.raises(mp.DataError, match="'label0' takes i64"):
        session.step(x, y.astype(np.float32))
    # A label outside the classes: the runtime's error, as a DataError.
    with pytest.raises(mp.DataError, match="label"):
        session.step(x, np.full(BATCH, CLASSES, dtype=np.int64))
    same(before, params(session))
    assert session.scaler_stats()["steps_run"] == 0

    # Narrower integers whose values fit are taken.
    assert np.isfinite(session.step(x, y.astype(np.int32)))


def test_a_batch_is_read_in_place_for_its_step(compile_plan):
    """step(x, y) reads the batch where it is (bound for that step, no
    copy): the next step needs a batch again and says so; set() copies and
    keeps. Both give the same numbers."""
    plan = compile_plan("mlp", "mixed_bfloat16")
    bound, copied = mp.Session(plan), mp.Session(plan)
    bound.init_params(seed=0)
    copied.init_params(seed=0)
    for x, y in dataset_batches(4):
        copied.set("input0", x)
        copied.set("label0", y)
        assert bound.step(x, y) == copied.step()
    same(params(bound), params(copied))
    with pytest.raises(mp.DataError, match="bound to the caller's memory for "
                                           "the last step only"):
        bound.step()
    bound.set("input0", x)
    bound.set("label0", y)
    assert np.isfinite(bound.step()) and np.isfinite(bound.step())


def test_failed_gradient_check_is_a_numerics_error(compile_plan):
    session = mp.Session(compile_plan("mlp", "float32"))
    session.init_params(seed=0)
    x, y = dataset()
    x, y = x[:BATCH].copy(), y[:BATCH]
    session.step(x, y)
    before = params(session)
    x[3, 7] = np.nan
    with pytest.raises(mp.NumericsError) as failed:
        session.step(x, y)
    assert "gradient" in str(failed.value)
    assert failed.value.diagnosis  # the replay of the step
    same(before, params(session))
    x[3, 7] = 0.5
    assert np.isfinite(session.step(x, y))


def test_torch_tensors_and_the_bf16_rule(compile_plan):
    torch = pytest.importorskip("torch")
    session = mp.Session(compile_plan("mlp", "float32"))
    session.init_params(seed=0)
    x, y = dataset()
    assert np.isfinite(session.step(torch.from_numpy(x[:BATCH]),
                                    torch.from_numpy(y[:BATCH])))
    # float32 -> bf16 rounds to nearest even, as torch does.
    from mp.session import _from_bf16_bits, _to_bf16_bits
    values = np.concatenate([
        np.random.default_rng(2).standard_normal(4096).astype(np.float32),
        np.array([0.0, -0.0, np.inf, -np.inf, 1 + 2 ** -8, 1 + 3 * 2 ** -8,
                  3.3895314e38], dtype=np.float32)])
    want = torch.from_numpy(values).to(torch.bfloat16).view(torch.int16)
    got = _to_bf16_bits(values)
    assert got.tobytes() == want.numpy().tobytes()
    assert np.isnan(_from_bf16_bits(_to_bf16_bits(
        np.array([np.nan], dtype=np.float32)))).all()


def test_bad_files_and_backends():
    with pytest.raises(mp.PlanError, match="no-such.mpplan"):
        mp.Session("/nonexistent/no-such.mpplan")
    with pytest.raises(mp.Error) as unknown:
        mp.Session(__file__)
    assert unknown.value.code in ("data_loss", "invalid_argument")


def test_unknown_backend_is_named(compile_plan):
    with pytest.raises(mp.BackendError, match="gpu9"):
        mp.Session(compile_plan("mlp", "float32"), backend="gpu9")


def test_ctrl_c_leaves_whole_steps(compile_plan):
    """Ctrl-C (SIGINT) in the middle of training: the step running then is
    applied whole or not at all, and the session goes on; its state is that
    of exactly `steps_run` whole steps."""
    import os
    import signal
    import threading

    plan = compile_plan("mlp", "mixed_bfloat16")
    batches = dataset_batches(3)
    session = mp.Session(plan)
    session.init_params(seed=0)
    timer = threading.Timer(0.02, os.kill, (os.getpid(), signal.SIGINT))
    interrupted = False
    timer.start()
    try:
        for _ in range(10000):
            for batch in batches:
                session.step(*batch)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        timer.cancel()
    assert interrupted
    done = session.scaler_stats()["steps_run"]
    assert done > 0

    replay = mp.Session(plan)
    replay.init_params(seed=0)
    for i in range(done):
        replay.step(*batches[i % STEPS])
    same(params(session), params(replay))
    session.step(*batches[done % STEPS])  # still usable


def test_ranks_of_an_mpi_job_are_refused(compile_plan, monkeypatch):
    """Started by mpirun as one of several ranks: refused (each would train
    alone), unless independent runs are meant."""
    plan = compile_plan("mlp", "float32")
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    with pytest.raises(mp.Error, match="one of 2 ranks.*MP_INDEPENDENT_RANKS"):
        mp.Session(plan)
    monkeypatch.setenv("MP_INDEPENDENT_RANKS", "1")
    assert mp.Session(plan).inputs == ["input0"]


def test_auto_policy_names_its_reason():
    policy, reason = mp.auto_policy("cpu")
    assert policy in ("float32", "mixed_bfloat16", "mixed_float16")
    assert reason.startswith("this CPU (")
    assert mp.auto_policy("cuda")[0] == "mixed_bfloat16"
    with pytest.raises(mp.Error, match="unknown target 'tpu'"):
        mp.auto_policy("tpu")


def test_auto_policy_measures_once_per_machine(tmp_path):
    """policy=auto's 16-bit matmul speed is measured where the CPU has the
    instructions, kept in the cache folder and read by later processes (the
    same words); a corrupt kept file is measured again, not an error."""
    env = dict(os.environ, MP_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.path.join(ROOT, "python"))
    code = "import mp; print(*mp.auto_policy('cpu'), sep='\\n')"

    def ask():
        return subprocess.run([sys.executable, "-c", code], env=env,
                              capture_output=True, text=True,
                              check=True).stdout.splitlines()

    policy, reason = ask()
    kept = sorted(tmp_path.glob("matmul-speed-*.txt"))
    assert bool(kept) == ("matmuls ran at" in reason), (reason, kept)
    assert ask() == [policy, reason]
    for path in kept:
        path.write_text("mp-matmul-speed 1; not this machine\nbf16=9\n")
    again = ask()
    assert again[0] == policy
    for path in kept:
        assert path.read_text().splitlines()[0] != \
            "mp-matmul-speed 1; not this machine"
