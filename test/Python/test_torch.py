"""mp.torch.compile in a plain PyTorch loop: a small CNN trained over a
DataLoader with random augmentation reaches the accuracy of the same loop
under torch.autocast; the batches it saw, fed to mp-run, give its
parameters bit for bit (one engine, two front doors); what would train
differently from the user's model is refused."""
import os
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import mp  # noqa: E402
import mp.torch  # noqa: E402,F401
from conftest import tool  # noqa: E402

CLASSES, SIDE, BATCH, EPOCHS = 4, 12, 32, 4
# float32 steps against PyTorch's own: the export corpus' tolerance
# (docs/exporters.md), per-step losses within 1e-4 relative.
FLOAT32_RTOL = 1e-4
# The autocast run and mp's may end this far apart in test accuracy (both
# train from the same initial weights on the same batches, with bf16
# rounding in other places; 1 of the 256 test images is 0.004).
ACCURACY_TOLERANCE = 0.06


class Shapes(torch.utils.data.Dataset):
    """Class c: a brighter c-th quadrant on strong noise; a random shift
    and noise drawn anew on every read (each epoch's batches differ)."""

    def __init__(self, count, seed, augment):
        g = torch.Generator().manual_seed(seed)
        self.labels = torch.randint(0, CLASSES, (count,), generator=g)
        self.base = torch.randn(count, 1, SIDE, SIDE, generator=g) * 1.2
        h = SIDE // 2
        for i, c in enumerate(self.labels.tolist()):
            r, col = divmod(c, 2)
            self.base[i, 0, r * h:(r + 1) * h, col * h:(col + 1) * h] += 0.35
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = self.base[i]
        if self.augment:
            x = x + 0.1 * torch.randn_like(x)
            # A shift of up to one pixel each way keeps the quadrant.
            shift = torch.randint(-1, 2, (2,)).tolist()
            x = torch.roll(x, shifts=shift, dims=(-2, -1))
        return x, self.labels[i]


def cnn():
    return nn.Sequential(
        # No bias before the batch norm: its gradient is 0 up to rounding,
        # which Adam would blow up to steps of lr either way.
        nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
        nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(64, CLASSES))


def accuracy(model, data):
    model.eval()
    with torch.no_grad():
        x = torch.stack([data[i][0] for i in range(len(data))])
        right = (model(x).argmax(1) == data.labels).float().mean().item()
    model.train()
    return right


def loader(seed):
    return torch.utils.data.DataLoader(
        Shapes(512, 1, augment=True), batch_size=BATCH, shuffle=True,
        drop_last=True, generator=torch.Generator().manual_seed(seed))


def test_trains_like_autocast_and_like_mp_run(tmp_path):
    torch.manual_seed(0)
    test = Shapes(256, 2, augment=False)
    model = cnn()
    reference = cnn()
    reference.load_state_dict(model.state_dict())

    # The user's loop under autocast (bf16), PyTorch's own.
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.05, momentum=0.9)
    torch.manual_seed(10)  # the same augmentations in both loops
    for _ in range(EPOCHS):
        for x, y in loader(3):
            optimizer.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(reference(x), y)
            loss.backward()
            optimizer.step()
    autocast_accuracy = accuracy(reference, test)

    # The same loop with mp.torch.compile.
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x0, y0 = next(iter(loader(4)))
    step = mp.torch.compile(model, optimizer, example=(x0, y0),
                            policy="mixed_bfloat16",
                            work_dir=str(tmp_path / "step"))
    [decided] = step.report["functions"]  # the precision report
    assert decided["policy"] == "mixed_bfloat16" and decided["ops_converted"] > 0
    assert "train.sparse_cross_entropy" in decided["fp32_ops"]
    assert "policy_auto" not in step.report
    seen_x, seen_y, losses = [], [], []
    torch.manual_seed(10)
    for _ in range(EPOCHS):
        for x, y in loader(3):
            seen_x.append(x.numpy().copy())
            seen_y.append(y.numpy().copy())
            losses.append(step(x, y))
    assert losses[-1] < losses[0]
    step.sync_to(model)
    mp_accuracy = accuracy(model, test)
    print("test accuracy: autocast bf16 %.3f, mp mixed_bfloat16 %.3f"
          % (autocast_accuracy, mp_accuracy))
    assert autocast_accuracy > 0.6, autocast_accuracy  # chance: 0.25
    assert abs(mp_accuracy - autocast_accuracy) <= ACCURACY_TOLERANCE, (
        mp_accuracy, autocast_accuracy)

    # sync_to wrote exactly the step's state into the nn.Module.
    trained = step.state_dict()["model"]
    for name, value in model.state_dict().items():
        if name in trained:
            assert torch.equal(value, trained[name]), name

    # The same batches through mp-run: the same parameters, bit for bit.
    np.save(tmp_path / "x.npy", np.concatenate(seen_x))
    np.save(tmp_path / "y.npy", np.concatenate(seen_y))
    checkpoint = tmp_path / "mp-run.ckpt"
    work = str(tmp_path / "step")
    subprocess.run(
        [tool("mp-run"), os.path.join(work, "step.mixed_bfloat16.mpplan"),
         "--train-x", str(tmp_path / "x.npy"), "--train-y",
         str(tmp_path / "y.npy"), "--init-params",
         os.path.join(work, "step.init.safetensors"), "--no-shuffle",
         "--steps", str(len(seen_x)), "--plain", "--replay", "off",
         "--checkpoint", str(checkpoint)],
        check=True, capture_output=True)
    from_mp_run = mp.Session(os.path.join(work, "step.mixed_bfloat16.mpplan"))
    from_mp_run.load_checkpoint(checkpoint)
    for name in step.session.params:
        assert step.session.get(name).tobytes() == \
            from_mp_run.get(name).tobytes(), name


def test_float32_step_is_pytorchs_and_resumes_bitwise(tmp_path):
    torch.manual_seed(1)
    model = cnn()
    reference = cnn()
    reference.load_state_dict(model.state_dict())
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = list(loader(5))[:6]
    step = mp.torch.compile(model, optimizer, example=batches[0],
                            policy="float32")
    ref_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-3)
    for i, (x, y) in enumerate(batches):
        ref_optimizer.zero_grad()
        loss = nn.functional.cross_entropy(reference(x), y)
        loss.backward()
        ref_optimizer.step()
        assert step(x, y) == pytest.approx(loss.item(), rel=FLOAT32_RTOL), i
        if i == 2:
            step.save(tmp_path / "half.ckpt")
    other = cnn()
    resumed = mp.torch.compile(other, torch.optim.Adam(other.parameters(),
                                                       lr=1e-3),
                               example=batches[0], policy="float32")
    resumed.load(tmp_path / "half.ckpt")
    for x, y in batches[3:]:
        resumed(x, y)
    for name in step.session.tensors:
        info = step.session.tensors[name]
        if info.role in ("param", "buffer", "optimizer_state"):
            assert step.session.get(name).tobytes() == \
                resumed.session.get(name).tobytes(), name
    step.sync_to()
    for name, value in reference.state_dict().items():
        if value.is_floating_point():
            torch.testing.assert_close(model.state_dict()[name], value,
                                       rtol=1e-4, atol=1e-5, msg=name)


def test_starts_from_the_optimizers_own_state():
    """A model and optimizer PyTorch has already trained: the step goes on
    from the optimizer's state (Adam's moments and step count), as
    optimizer.step() would, not from zero."""
    torch.manual_seed(6)
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    batches = list(loader(11))[:5]
    for x, y in batches[:2]:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    reference = cnn()
    reference.load_state_dict(model.state_dict())
    ref_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-2)
    ref_optimizer.load_state_dict(optimizer.state_dict())
    step = mp.torch.compile(model, optimizer, example=batches[0],
                            policy="float32")
    for i, (x, y) in enumerate(batches[2:]):
        ref_optimizer.zero_grad()
        loss = nn.functional.cross_entropy(reference(x), y)
        loss.backward()
        ref_optimizer.step()
        assert step(x, y) == pytest.approx(loss.item(), rel=FLOAT32_RTOL), i
    assert step.state_dict()["optimizer"]["state"][0]["step"].item() == 5


def test_refuses_what_would_train_differently():
    torch.manual_seed(2)
    model = cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    x, y = next(iter(loader(6)))
    step = mp.torch.compile(model, optimizer, example=(x, y),
                            policy="float32")
    step(x, y)
    with pytest.raises(mp.DataError, match="drop_last=True"):
        step(x[:5], y[:5])
    with pytest.raises(mp.DataError, match="got float64"):
        step(x.double(), y)
    with pytest.raises(mp.DataError, match=r"takes 2 tensors \(input0, "
                       r"label0\), got 1"):
        step(x)
    for group in optimizer.param_groups:
        group["lr"] = 0.01
    with pytest.raises(mp.Error, match="optimizer changed after compile.*lr"):
        step(x, y)
    for group in optimizer.param_groups:
        group["lr"] = 0.05
    step(x, y)
    with torch.no_grad():
        model[0].weight.mul_(2)
    with pytest.raises(mp.Error, match="'0.weight' was written in place"):
        step(x, y)
    step.sync_to()  # the step's weights back into the model: in step again
    model[-1].weight = nn.Parameter(torch.zeros(CLASSES, 64))
    with pytest.raises(mp.Error, match="'8.weight' was replaced"):
        step(x, y)
    model = cnn()
    step = mp.torch.compile(model, torch.optim.SGD(model.parameters(), lr=0.1),
                            example=(x, y), policy="float32")
    model.eval()
    with pytest.raises(mp.Error, match="switched to eval"):
        step(x, y)


def test_export_and_compile_errors_are_exceptions():
    model = cnn()
    x, y = next(iter(loader(7)))
    with pytest.raises(mp.ExportError):
        mp.torch.compile(model, torch.optim.LBFGS(model.parameters()),
                         example=(x, y), policy="float32")
    # The model's own forward failing on the example: named, not raw.
    with pytest.raises(mp.ExportError):
        mp.torch.compile(model, torch.optim.SGD(model.parameters(), lr=0.1),
                         example=(x.repeat(1, 3, 1, 1), y), policy="float32")
    with pytest.raises(mp.CompileError, match="deny-add|unknown"):
        mp.torch.compile(model, torch.optim.SGD(model.parameters(), lr=0.1),
                         example=(x, y), policy="mixed_bfloat16",
                         compile_options="deny-add=no.such_op")
    with pytest.raises(mp.Error, match="got 3 tensors; a model of several "
                       "inputs is not supported yet"):
        mp.torch.compile(model, torch.optim.SGD(model.parameters(), lr=0.1),
                         example=(x, x, y))
    with pytest.raises(mp.Error, match="unknown policy"):
        mp.torch.compile(model, torch.optim.SGD(model.parameters(), lr=0.1),
                         example=(x, y), policy="bf16")


def test_loop_body_form_trains_as_the_loop_does():
    """train_step=: the user's own loop body (zero_grad, forward, loss,
    backward, clip_grad_norm_, step), as PyTorch runs it."""
    torch.manual_seed(3)
    model = cnn()
    reference = cnn()
    reference.load_state_dict(model.state_dict())

    def body(model, optimizer):
        def train_step(x, y):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            return loss
        return train_step

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    batches = list(loader(8))[:5]
    step = mp.torch.compile(model, optimizer, example=batches[0],
                            train_step=body(model, optimizer),
                            policy="float32")
    ref_step = body(reference, torch.optim.SGD(reference.parameters(),
                                               lr=0.1, momentum=0.9))
    for i, (x, y) in enumerate(batches):
        want = ref_step(x, y).item()
        assert step(x, y) == pytest.approx(want, rel=FLOAT32_RTOL), i
    # The loop body's loss is inside it: eval names what it needs.
    assert step.eval(x)[0] is None
    with pytest.raises(mp.Error, match="loop body.*loss_fn="):
        step.eval(x, y)


def test_policy_auto_is_the_machines():
    model = cnn()
    x, y = next(iter(loader(9)))
    step = mp.torch.compile(model, torch.optim.SGD(model.parameters(), lr=0.1),
                            example=(x, y))
    want, reason = mp.auto_policy("cpu")
    assert step.policy == want == step.session.policy
    assert step.policy_reason == reason
    # The precision report, with auto's decision in it.
    assert step.report["policy_auto"] == {"chosen": want, "reason": reason}
    [function] = step.report["functions"]
    assert function["policy"] == want and function["ops_total"] > 0
    if want != "float32":
        assert function["ops_converted"] > 0
    assert np.isfinite(step(x, y))


def cnn_with_dropout():
    return nn.Sequential(*cnn()[:-1], nn.Dropout(0.5), nn.Linear(64, CLASSES))


def test_eval_is_pytorchs_eval_forward():
    """step.eval(x, y): mp's forward-only plan of the model in eval()
    (batch norm on its running statistics, dropout off) on the trained
    state is PyTorch's eval() forward of a model loaded from
    step.state_dict() (float32: the loss within 1e-4), for a batch of
    another size too; the model's own modes are left as they were."""
    torch.manual_seed(4)
    model = cnn_with_dropout()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    batches = list(loader(10))[:4]
    step = mp.torch.compile(model, optimizer, example=batches[0],
                            policy="float32")
    for x, y in batches[:3]:
        step(x, y)
    x, y = batches[3]
    loss, logits = step.eval(x, y)
    assert logits.shape == (BATCH, CLASSES)

    assert model.training and all(m.training for m in model.modules())
    pytorch = cnn_with_dropout()
    missing, unexpected = pytorch.load_state_dict(step.state_dict()["model"],
                                                  strict=False)
    assert not unexpected
    assert all(name.endswith("num_batches_tracked") for name in missing)
    pytorch.eval()
    with torch.no_grad():
        want = pytorch(x)
        want_loss = nn.functional.cross_entropy(want, y)
    assert loss.item() == pytest.approx(want_loss.item(), rel=FLOAT32_RTOL)
    torch.testing.assert_close(logits, want, rtol=1e-4, atol=1e-5)
    # A batch of another size: a plan of its own.
    loss5, logits5 = step.eval(x[:5], y[:5])
    torch.testing.assert_close(logits5, want[:5], rtol=1e-4, atol=1e-5)
    assert loss5.item() == pytest.approx(
        nn.functional.cross_entropy(want[:5], y[:5]).item(), rel=FLOAT32_RTOL)
    # Training goes on after an evaluation, and eval follows it.
    step(*batches[0])
    pytorch.load_state_dict(step.state_dict()["model"], strict=False)
    with torch.no_grad():
        want = pytorch(x)
    loss2, logits2 = step.eval(x, y)
    assert loss2.item() != loss.item()
    torch.testing.assert_close(logits2, want, rtol=1e-4, atol=1e-5)
    assert step.eval(x)[0] is None


def test_state_dict_in_torchs_own_layout():
    """step.state_dict(): the model's state_dict keys and the optimizer's
    own layout, so that PyTorch's model and optimizer take them and go on
    training as the step does; and another step takes them back."""
    torch.manual_seed(5)
    model = cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = list(loader(11))[:5]
    step = mp.torch.compile(model, optimizer, example=batches[0],
                            policy="float32")
    for x, y in batches[:3]:
        step(x, y)
    state = step.state_dict()
    assert sorted(state["optimizer"]["state"][0]) == ["exp_avg", "exp_avg_sq",
                                                      "step"]
    assert state["optimizer"]["state"][0]["step"].item() == 3

    pytorch = cnn()
    pytorch.load_state_dict(state["model"], strict=False)
    pytorch_optimizer = torch.optim.Adam(pytorch.parameters(), lr=1e-3)
    pytorch_optimizer.load_state_dict(state["optimizer"])
    x, y = batches[3]
    pytorch_optimizer.zero_grad()
    loss = nn.functional.cross_entropy(pytorch(x), y)
    loss.backward()
    pytorch_optimizer.step()
    assert step(x, y) == pytest.approx(loss.item(), rel=FLOAT32_RTOL)
    after = step.state_dict()["model"]
    for name, value in pytorch.state_dict().items():
        if name in after:
            torch.testing.assert_close(after[name], value, rtol=1e-4,
                                       atol=1e-6, msg=name)

    other = cnn()
    again = mp.torch.compile(other, torch.optim.Adam(other.parameters(),
                                                     lr=1e-3),
                             example=batches[0], policy="float32")
    again.load_state_dict(step.state_dict())
    for each in (step, again):
        each(*batches[4])
    for name, info in step.session.tensors.items():
        if info.role in ("param", "buffer", "optimizer_state"):
            assert step.session.get(name).tobytes() == \
                again.session.get(name).tobytes(), name


def test_second_compile_of_the_same_step_takes_the_cached_plan(
        tmp_path, monkeypatch):
    monkeypatch.setenv("MP_CACHE_DIR", str(tmp_path / "cache"))
    torch.manual_seed(6)
    model = cnn()
    x, y = next(iter(loader(12)))
    state = {k: v.clone() for k, v in model.state_dict().items()}
    first = mp.torch.compile(model, torch.optim.SGD(model.parameters(),
                                                    lr=0.1),
                             example=(x, y), policy="float32")
    assert not first.from_cache
    again = mp.torch.compile(model, torch.optim.SGD(model.parameters(),
                                                    lr=0.1),
                             example=(x, y), policy="float32")
    assert again.from_cache
    assert again(x, y) == first(x, y)
    # Found by its fingerprint, without tracing: a model built again (other
    # weights, dropout, an optimizer PyTorch has stepped) trains bitwise as
    # the step traced from it does.
    torch.manual_seed(7)
    batches = list(loader(13))[:3]

    def built(seed):
        torch.manual_seed(seed)
        model = cnn_with_dropout()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        return model, optimizer

    built(20)  # the first build, traced and cached
    mp.torch.compile(*built(20), example=(x, y), policy="float32")
    torch.manual_seed(99)  # dropout's key comes from the seed, as export's
    fast = mp.torch.compile(*built(21), example=(x, y), policy="float32")
    assert fast.from_cache and not fast.traced
    with monkeypatch.context() as off:
        off.setenv("MP_CACHE_DIR", "off")
        torch.manual_seed(99)
        traced = mp.torch.compile(*built(21), example=(x, y), policy="float32")
    assert traced.traced and traced.fingerprint_unavailable
    for name, info in traced.session.tensors.items():
        if info.role not in ("input", "label", "output"):
            assert fast.session.get(name).tobytes() == \
                traced.session.get(name).tobytes(), name
    for batch in batches:
        assert fast(*batch) == traced(*batch)
    # Another policy, or another learning rate (another exported step):
    # compiled, not taken from the cache.
    model.load_state_dict(state)
    other = mp.torch.compile(model, torch.optim.SGD(model.parameters(),
                                                    lr=0.2),
                             example=(x, y), policy="float32")
    assert not other.from_cache
    monkeypatch.setenv("MP_CACHE_DIR", "off")
    assert not mp.torch.compile(model, torch.optim.SGD(model.parameters(),
                                                       lr=0.1),
                                example=(x, y), policy="float32").from_cache


def test_a_hugging_face_lm_as_configured_by_default():
    """GPT-2 with its default use_cache=True: the forward concatenates the
    new keys to an empty 1-D cache, which PyTorch's cat skips; float32
    steps are PyTorch's."""
    transformers = pytest.importorskip("transformers")
    import copy
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2,
                                     vocab_size=64, n_positions=16,
                                     bos_token_id=0, eos_token_id=0,
                                     attn_pdrop=0.0, resid_pdrop=0.0,
                                     embd_pdrop=0.0)
    assert config.use_cache

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.gpt = transformers.GPT2LMHeadModel(config)

        def forward(self, ids):
            return self.gpt(input_ids=ids).logits

    def loss_fn(logits, labels):
        return nn.functional.cross_entropy(logits.reshape(-1, 64),
                                           labels.reshape(-1))

    model = LM()
    reference = copy.deepcopy(model)
    x, y = torch.randint(0, 64, (2, 16)), torch.randint(0, 64, (2, 16))
    step = mp.torch.compile(model, torch.optim.AdamW(model.parameters(),
                                                     lr=1e-3),
                            loss_fn=loss_fn, example=(x, y), policy="float32")
    ref_optimizer = torch.optim.AdamW(reference.parameters(), lr=1e-3)
    for i in range(3):
        ref_optimizer.zero_grad()
        loss = loss_fn(reference(x), y)
        loss.backward()
        ref_optimizer.step()
        assert step(x, y) == pytest.approx(loss.item(), rel=FLOAT32_RTOL), i


BUILDER = '''
import torch
from torch import nn


def build():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False),
                          nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                          nn.Dropout(0.3), nn.Linear(4 * 6 * 6, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, opt, torch.randn(8, 1, 6, 6), torch.randint(0, 3, (8,))
'''


def test_cli_eval_step_is_pytorchs_eval(tmp_path):
    """python -m mp_export --eval-step: the step traced in eval(), whose
    forward-only plan (mp-compile --eval) gives mp-run's evaluation the
    loss of PyTorch's eval() forward on the trained weights (batch norm on
    its running statistics, dropout off), not the training form's."""
    import re
    import sys
    (tmp_path / "build.py").write_text(BUILDER)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", "..", "python"))
    subprocess.run([sys.executable, "-m", "mp_export", "torch",
                    "%s:build" % (tmp_path / "build.py"), str(out),
                    "--eval-step"], check=True, env=env, capture_output=True)
    g = torch.Generator().manual_seed(1)
    data = {"x": torch.randn(32, 1, 6, 6, generator=g),
            "y": torch.randint(0, 3, (32,), generator=g),
            "tx": torch.randn(16, 1, 6, 6, generator=g),
            "ty": torch.randint(0, 3, (16,), generator=g)}
    for name, value in data.items():
        np.save(tmp_path / ("%s.npy" % name), value.numpy())
    for stem, extra in (("step", []), ("step.eval", ["--eval"])):
        subprocess.run([tool("mp-compile"), str(out / (stem + ".mlir")),
                        "--mixed-precision=policy=float32", "-o",
                        str(tmp_path / (stem + ".plan"))] + extra, check=True)
    ran = subprocess.run(
        [tool("mp-run"), str(tmp_path / "step.plan"), "--init-params",
         str(out / "step.init.safetensors"), "--train-x",
         str(tmp_path / "x.npy"), "--train-y", str(tmp_path / "y.npy"),
         "--steps", "4", "--no-shuffle", "--eval-plan",
         str(tmp_path / "step.eval.plan"), "--test-x", str(tmp_path / "tx.npy"),
         "--test-y", str(tmp_path / "ty.npy"), "--checkpoint",
         str(tmp_path / "ck.safetensors"), "--plain"],
        check=True, capture_output=True, text=True)
    evaluated = float(re.search(r"eval step 4: loss ([0-9.]+)",
                                ran.stdout + ran.stderr).group(1))
    import importlib.util
    spec = importlib.util.spec_from_file_location("build", tmp_path / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.build()[0]
    import mp_export.torch as exporter
    exporter.load_checkpoint(model, str(tmp_path / "ck.safetensors"))
    model.eval()
    with torch.no_grad():
        want = nn.functional.cross_entropy(model(data["tx"]), data["ty"]).item()
        model[1].train()  # batch norm on the batch's statistics alone
        trained_form = nn.functional.cross_entropy(model(data["tx"]),
                                                   data["ty"]).item()
    assert evaluated == pytest.approx(want, abs=1e-4)  # printed to 4 places
    assert abs(trained_form - want) > 1e-2  # the test can tell them apart
