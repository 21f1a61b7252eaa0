"""The fingerprint under which mp.torch.compile finds a step it compiled
before without tracing (python/mp/_fingerprint.py): the same for a model
built again, another for anything that changes the step the export would
write (a changed one meeting an old plan would train another model)."""
import sys

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from mp._fingerprint import example_signature, fingerprint  # noqa: E402

SCALE = 1.0  # read by Scaled.forward at run time


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.register_buffer("mask", torch.ones(3), persistent=False)
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        return helper(self.fc(x)) * SCALE * self.mask


def helper(h):
    return torch.relu(h)


def key(model, optimizer=None, *parts):
    optimizer = optimizer or torch.optim.SGD(model.parameters(), lr=0.1)
    digest, why = fingerprint(model, optimizer, parts or (
        example_signature(torch.zeros(8, 4)),))
    assert digest, why
    return digest


def test_a_model_built_again_has_the_same_key():
    torch.manual_seed(0)
    first = key(Scaled())
    torch.manual_seed(1)
    again = Scaled()  # other weights: state, not the step
    again.count += 5  # a persistent buffer's value: state too
    assert key(again) == first


def test_what_changes_the_step_changes_the_key(monkeypatch):
    base = key(Scaled())

    def changed(edit):
        model = Scaled()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        parts = edit(model, optimizer)
        if not isinstance(parts, tuple):  # an edit of the model or optimizer
            parts = (example_signature(torch.zeros(8, 4)),)
        return key(model, optimizer, *parts)

    edits = {
        "a module attribute": lambda m, o: setattr(m.fc, "in_features", 5),
        "eval mode": lambda m, o: m.fc.eval(),
        "requires_grad": lambda m, o: m.fc.bias.requires_grad_(False),
        "a non-persistent buffer's value": lambda m, o: m.mask.mul_(2),
        "a forward hook": lambda m, o: m.fc.register_forward_hook(
            lambda mod, i, out: out * 2),
        "a learning rate": lambda m, o: o.param_groups[0].update(lr=0.2),
        "the example's shape": lambda m, o: (example_signature(torch.zeros(9, 4)),),
        "the example's dtype": lambda m, o: (example_signature(
            torch.zeros(8, 4, dtype=torch.float64)),),
        "a loss function": lambda m, o: (example_signature(torch.zeros(8, 4)),
                                         nn.functional.mse_loss),
    }
    for what, edit in edits.items():
        assert changed(edit) != base, what


def test_globals_and_code_the_forward_reads(monkeypatch):
    base = key(Scaled())
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 2.0)
    assert key(Scaled()) != base, "a module-level constant"
    monkeypatch.setattr(sys.modules[__name__], "SCALE", 1.0)
    assert key(Scaled()) == base
    def other(h):
        return torch.sigmoid(h)
    other.__name__ = other.__qualname__ = "helper"  # only its code differs
    monkeypatch.setattr(sys.modules[__name__], "helper", other)
    assert key(Scaled()) != base, "a helper function's code"


def test_a_closure_of_the_loop_body():
    model = Scaled()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def body_with(max_norm):
        def train_step(x, y):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
        return train_step

    assert key(model, optimizer, body_with(1.0)) == \
        key(model, optimizer, body_with(1.0))
    assert key(model, optimizer, body_with(1.0)) != \
        key(model, optimizer, body_with(0.5))


def test_optimizer_state_it_holds_not_its_values():
    model = Scaled()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    fresh = key(model, optimizer)
    model(torch.ones(8, 4)).sum().backward()
    optimizer.step()
    stepped = key(model, optimizer)
    assert stepped != fresh
    optimizer.step()
    assert key(model, optimizer) == stepped


def test_a_librarys_module_data(tmp_path, monkeypatch):
    """An installed library's code is taken by its file; the flags its
    code reads at run time are hashed (timm's set_fused_attn)."""
    folder = tmp_path / "site-packages"
    folder.mkdir()
    (folder / "fakelib_mp.py").write_text(
        "import torch\nFUSED = True\n"
        "class Block(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * 2 if FUSED else x\n")
    monkeypatch.syspath_prepend(str(folder))
    import fakelib_mp
    model = nn.Sequential(nn.Linear(4, 4), fakelib_mp.Block())
    base = key(model)
    monkeypatch.setattr(fakelib_mp, "FUSED", False)
    assert key(model) != base


def test_what_cannot_be_hashed_gives_no_key():
    model = Scaled()
    model.generator = torch.Generator()  # a C object without attributes
    digest, why = fingerprint(model, torch.optim.SGD(model.parameters(), lr=0.1), ())
    assert digest is None and "Generator" in why
    big = Scaled()
    big.table = torch.zeros(5 << 20)  # 20 MB, not state
    digest, why = fingerprint(big, torch.optim.SGD(big.parameters(), lr=0.1), ())
    assert digest is None and "MB" in why


def test_zoo_models_have_keys_that_follow_their_configuration():
    """Models of the zoos get a key (no trace on a second compile), and a
    run-time switch of their library changes it: timm's fused attention,
    Hugging Face's attention implementation."""
    timm = pytest.importorskip("timm")
    transformers = pytest.importorskip("transformers")
    vit = key(timm.create_model("vit_tiny_patch16_224", num_classes=4))
    timm.layers.set_fused_attn(False)
    try:
        assert key(timm.create_model("vit_tiny_patch16_224", num_classes=4)) != vit
    finally:
        timm.layers.set_fused_attn(True)
    config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64,
                                     bos_token_id=0, eos_token_id=0)
    default = transformers.GPT2LMHeadModel(config)
    assert key(transformers.GPT2LMHeadModel(config)) == key(default)
    config._attn_implementation = "eager" if \
        default.config._attn_implementation != "eager" else "sdpa"
    assert key(transformers.GPT2LMHeadModel(config)) != key(default)
