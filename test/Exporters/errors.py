"""The exporters' refusals and the safetensors helpers (run by errors.sh):
each unsupported construct must raise ExportError naming the framework op,
where it is and what to do, instead of writing a different graph.
Prints 'N passed, M failed'; exits non-zero on a failure."""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from mp_export.common import ExportError, read_safetensors, write_safetensors  # noqa: E402

results = []


def check(name, fn, *needles, absent=()):
    """fn must raise ExportError whose message contains every needle and
    none of `absent`."""
    try:
        fn()
    except ExportError as e:
        text = str(e)
        missing = [n for n in needles if n not in text] + [
            "no " + n for n in absent if n in text]
        ok = not missing
        print("%s: %s: %s" % ("ok" if ok else "FAIL", name, text if ok else
                               "message lacks %s: %s" % (missing, text)))
    except Exception as e:  # noqa: BLE001
        ok = False
        print("FAIL: %s: raised %s: %s" % (name, type(e).__name__, e))
    else:
        ok = False
        print("FAIL: %s: exported without an error" % name)
    results.append(ok)


def safetensors_round_trip():
    tensors = {"a.weight": np.arange(6, dtype=np.float32).reshape(2, 3),
               "b": np.array([1, -2], dtype=np.int64), "s": np.float32(3.5).reshape(())}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "t.safetensors")
        write_safetensors(path, tensors, {"note": "x"})
        back, meta = read_safetensors(path)
    ok = meta == {"note": "x"} and set(back) == set(tensors) and all(
        back[k].dtype == tensors[k].dtype and np.array_equal(back[k], tensors[k])
        for k in tensors)
    print("%s: safetensors write/read round trip" % ("ok" if ok else "FAIL"))
    results.append(ok)


def torch_cases():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import mp_export.torch as torch_export

    class Dropout(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(x + 0.1 * torch.randn_like(x))

    class Plain(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(x)

    class Clamped(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            with torch.no_grad():
                self.fc.weight.clamp_(-0.5, 0.5)
            return self.fc(x)

    x, y = torch.randn(4, 8), torch.randint(0, 4, (4,))
    out = tempfile.mkdtemp()

    m = Dropout()
    check("torch noise", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "d"),
        "aten op", "randn", "random numbers other than F.dropout's mask",
        "Draw the noise outside the step", "errors.py:",
        "(return self.fc(x + 0.1 * torch.randn_like(x)))")
    class TwoSoftplus(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.out = nn.Linear(8, 8), nn.Linear(8, 4)
            self.act1, self.act2 = nn.Softplus(), nn.Softplus()

        def forward(self, x):
            x = self.act1(self.fc(x))
            return self.out(self.act2(x))

    m = TwoSoftplus()
    check("torch error names the culprit module only", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "s"),
        "log1p", "(x = self.act1(self.fc(x)))", "called by module 'act1' (Softplus)",
        absent=("act2",))
    m = Clamped()
    check("torch parameter updated in the forward", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "c"),
        "in-place update", "parameter 'fc.weight'", "errors.py:",
        "(self.fc.weight.clamp_(-0.5, 0.5))", "after optimizer.step()")
    # What the training loop does that the export would otherwise drop.
    m = Plain()
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    torch.optim.lr_scheduler.StepLR(opt, 2)
    check("torch scheduler not passed", lambda: torch_export.export(
        m, opt, x, y, out, "sch"), "lr_scheduler", "initial_lr", "scheduler=sched")
    m = Plain()
    m.fc.weight.register_hook(lambda g: g * 0.5)
    check("torch gradient hook", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "hk"),
        "register_hook", "fc.weight", "gradient hook")
    m = Plain()
    m.fc.register_full_backward_hook(lambda mod, gi, go: None)
    check("torch module backward hook", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "mh"),
        "module backward hook", "module 'fc' (Linear)")
    m = Plain()
    check("torch Adamax", lambda: torch_export.export(
        m, torch.optim.Adamax(m.parameters(), lr=0.1), x, y, out, "r"),
        "Adamax", "fc.weight", "no mapping for this optimizer", "RMSprop or Adagrad")
    check("torch Adam amsgrad", lambda: torch_export.export(
        m, torch.optim.Adam(m.parameters(), lr=0.1, amsgrad=True), x, y, out, "r"),
        "Adam", "amsgrad", "amsgrad=False")
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    check("torch OneCycleLR cycling momentum", lambda: torch_export.export(
        m, opt, x, y, out, "r",
        scheduler=torch.optim.lr_scheduler.OneCycleLR(opt, 0.5, total_steps=10)),
        "OneCycleLR", "momentum cycling", "cycle_momentum=False")
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    check("torch CyclicLR", lambda: torch_export.export(
        m, opt, x, y, out, "r",
        scheduler=torch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, cycle_momentum=False)),
        "CyclicLR", "no mapping for this scheduler", "CosineAnnealingLR")
    opt = torch.optim.SGD(m.parameters(), lr=0.1)

    def warmup(step):
        return min(1.0, (step + 1) / 10)
    check("torch LambdaLR of the user's function without schedule_steps",
          lambda: torch_export.export(
              m, opt, x, y, out, "r",
              scheduler=torch.optim.lr_scheduler.LambdaLR(opt, warmup)),
          "LambdaLR", "lr_lambda warmup", "errors.py:", "schedule_steps=N")

    class Upsampler(nn.Module):
        def __init__(self):
            super().__init__()
            self.up = nn.ConvTranspose2d(1, 2, 2, stride=2)
            self.fc = nn.Linear(2 * 4 * 4, 4)

        def forward(self, x):
            return self.fc(self.up(x.view(-1, 1, 2, 4)[:, :, :, :2]).flatten(1))
    m = Upsampler()
    check("torch transposed convolution names the module", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "t"),
        "transposed convolution", "module 'up' (ConvTranspose2d)", absent=("'fc'",))
    class ArgmaxFeature(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc, self.out = nn.Linear(8, 4), nn.Linear(5, 4)

        def forward(self, x):
            h = self.fc(x)
            return self.out(torch.cat([h, h.argmax(1, keepdim=True).float()], 1))
    m = ArgmaxFeature()
    check("torch integer to float conversion", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "i"),
        "conversion from torch.int64 to torch.float32", "errors.py:", ".float()",
        "no train op converts between integers and floats")
    m = Plain()
    for p in m.parameters():
        p.requires_grad_(False)
    check("torch model with every parameter frozen", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "f"),
        "requires_grad", "nothing to train")
    m = Plain()
    check("torch summed loss", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out, "s",
        loss_fn=lambda o, t: F.cross_entropy(o, t, reduction="sum")),
        "nll_loss_forward", "reduction other than 'mean'")
    loop_cases(torch, nn, F, torch_export, x, y, out, Plain)
    # A checkpoint of another model is refused, not half-loaded.
    wrong = os.path.join(out, "wrong.safetensors")
    write_safetensors(wrong, {"conv.weight": np.zeros((2, 2), np.float32)})
    try:
        torch_export.load_checkpoint(Plain(), wrong)
        ok, text = False, "loaded without an error"
    except ValueError as e:
        ok, text = "another model" in str(e), str(e)
    print("%s: torch load_checkpoint of another model's file: %s" % ("ok" if ok else "FAIL", text))
    results.append(ok)

    # The user's source lines become the ops' MLIR locations.
    m = Plain()
    torch_export.export(m, torch.optim.SGD(m.parameters(), lr=0.1), x, y, out,
                        "plain")
    with open(os.path.join(out, "plain.mlir")) as f:
        text = f.read()
    line = next(i for i, l in enumerate(open(__file__), 1)
                if "return self.fc(x)" in l)
    want = '"train.matmul"'
    ok = any(want in l and ('errors.py":%d:0)' % line) in l
             for l in text.splitlines())
    print("%s: torch source lines as MLIR locations: %s" % (
        "ok" if ok else "FAIL",
        "the matmul at errors.py:%d" % line if ok else "no matmul op with "
        "loc(...errors.py\":%d:0) in %s" % (line, text)))
    results.append(ok)

    m = Plain().half()
    check("torch float16 model", lambda: torch_export.export(
        m, torch.optim.SGD(m.parameters(), lr=0.1), x.half(), y, out, "h"),
        "torch.float16", "float32")


def loop_cases(torch, nn, F, torch_export, x, y, out, Plain):
    """export_step: what a step function does that the step cannot carry is
    refused with the line that does it (or the optimizer.step() it comes
    before); the model's state is as before the export."""
    m = Plain()
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    before = {k: v.clone() for k, v in m.state_dict().items()}

    def loop(body):
        return lambda: torch_export.export_step(body, m, opt, x, y, out, "loop")

    def edits_grad(x, y):
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
        m.fc.weight.grad *= 0.5
        opt.step()
    check("torch step function edits a gradient", loop(edits_grad), "gradient update",
          "'fc.weight'", "(opt.step())", "(F.cross_entropy(m(x), y).backward())",
          "in code the exporter does not read")

    def manual_unscale(x, y):
        opt.zero_grad()
        (F.cross_entropy(m(x), y) * 1024).backward()
        for p in m.parameters():
            p.grad /= 1024
        opt.step()
    check("torch step function scales the loss by hand", loop(manual_unscale),
          "gradient update", "hand-written unscaling", "a GradScaler is recognized")

    def clamps_after(x, y):
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
        opt.step()
        with torch.no_grad():
            m.fc.weight.clamp_(-0.1, 0.1)
    check("torch step function clamps a weight after the step", loop(clamps_after),
          "parameter update", "'fc.weight' changes after optimizer.step()")

    def clips_some(x, y):
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
        torch.nn.utils.clip_grad_norm_([m.fc.weight], 1.0)
        opt.step()
    check("torch step function clips some parameters", loop(clips_some),
          "clip_grad_norm_", "clips 1 of the 2 trainable parameters",
          "(torch.nn.utils.clip_grad_norm_([m.fc.weight], 1.0))")

    def accumulates(x, y):
        opt.zero_grad()
        F.cross_entropy(m(x[:2]), y[:2]).backward()
        F.cross_entropy(m(x[2:]), y[2:]).backward()
        opt.step()
    check("torch step function accumulates gradients", loop(accumulates),
          "a second backward()", "(F.cross_entropy(m(x[2:]), y[2:]).backward())")

    def never_steps(x, y):
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
    check("torch step function without optimizer.step()", loop(never_steps),
          "optimizer.step() 0 times", "(def never_steps)")
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)

    def schedules_first(x, y):
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
        sched.step()
        opt.step()
    check("torch step function steps the scheduler first", loop(schedules_first),
          "lr_scheduler.step", "before optimizer.step()", "(sched.step())")
    opt.param_groups[0].pop("initial_lr")

    def fails(x, y):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y[:1])
        loss.backward()
        opt.step()
    check("torch step function that fails eagerly", loop(fails), "train_step",
          "(loss = F.cross_entropy(m(x), y[:1]))", "ValueError")
    ok = all(torch.equal(before[k], v) for k, v in m.state_dict().items()) and \
        not opt.state_dict()["state"] and m.fc.weight.grad is None
    print("%s: torch export_step leaves the model and optimizer as they were" % (
        "ok" if ok else "FAIL"))
    results.append(ok)


def cli_case():
    """python -m mp_export: exit status 1 and the error on stderr."""
    import subprocess
    d = tempfile.mkdtemp()
    with open(os.path.join(d, "m.py"), "w") as f:
        f.write("import torch, torch.nn as nn\n"
                "def build():\n"
                "    m = nn.Sequential(nn.Linear(8, 4), nn.Softplus(), nn.Linear(4, 3))\n"
                "    return (m, torch.optim.SGD(m.parameters(), lr=0.1), torch.randn(2, 8),\n"
                "            torch.randint(0, 3, (2,)))\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..",
                                                   "python"))
    r = subprocess.run([sys.executable, "-m", "mp_export", "torch",
                        os.path.join(d, "m.py") + ":build", d], env=env, text=True,
                       capture_output=True)
    # Softplus arrives as the Core ATen ops of PyTorch's decomposition; the
    # first one without a mapping is named, with the function it came from
    # and the module calling it.
    ok = r.returncode == 1 and "mp_export: error: aten op 'aten.log1p.default'" in r.stderr \
        and "from PyTorch's decomposition of softplus" in r.stderr \
        and "called by module '1' (Softplus)" in r.stderr
    print("%s: python -m mp_export on an unmappable model: exit %d, %s" % (
        "ok" if ok else "FAIL", r.returncode, r.stderr.strip().splitlines()[-1:]))
    results.append(ok)
    # A builder returning the loop's body first: export_step, its clipping in
    # the step.
    with open(os.path.join(d, "loop.py"), "w") as f:
        f.write("import torch, torch.nn as nn, torch.nn.functional as F\n"
                "def build():\n"
                "    m = nn.Linear(8, 3)\n"
                "    opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
                "    def train_step(x, y):\n"
                "        opt.zero_grad()\n"
                "        F.cross_entropy(m(x), y).backward()\n"
                "        torch.nn.utils.clip_grad_norm_(m.parameters(), 0.5)\n"
                "        opt.step()\n"
                "    return train_step, m, opt, torch.randn(2, 8), torch.randint(0, 3, (2,))\n")
    r = subprocess.run([sys.executable, "-m", "mp_export", "torch",
                        os.path.join(d, "loop.py") + ":build", d, "--stem", "loop"], env=env,
                       text=True, capture_output=True)
    text = open(os.path.join(d, "loop.mlir")).read() if r.returncode == 0 else ""
    ok = r.returncode == 0 and '"train.clip_grad_norm"' in text and "max_norm = 0.5 : f64" in text
    print("%s: python -m mp_export with a step function: exit %d, %s" % (
        "ok" if ok else "FAIL", r.returncode, "clip_grad_norm in the step" if ok else
        (r.stderr.strip().splitlines()[-1:] or text[:300])))
    results.append(ok)


def keras_cases():
    """What a Keras 3 step may hold that the export cannot carry: each is an
    error naming it, never dropped. (Regularizers are carried: the corpus
    trains them against Keras.)"""
    import keras
    import mp_export.keras as keras_export
    L = keras.layers
    x = np.random.rand(4, 8).astype(np.float32)
    y = np.array([0, 1, 2, 3], dtype=np.int64)
    out = tempfile.mkdtemp()
    scce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def compiled(layers, opt=None, loss=scce, name="m"):
        m = keras.Sequential([keras.Input((8,))] + layers, name=name)
        m.compile(optimizer=opt or keras.optimizers.SGD(0.1), loss=loss)
        return m

    m = compiled([L.Dense(4, kernel_constraint=keras.constraints.MaxNorm(1.0))])
    check("keras weight constraint", lambda: keras_export.export(m, x, y, out, "c"),
          "MaxNorm", "weight constraint", "Remove the constraint")

    class Custom(keras.Sequential):
        def train_step(self, data):
            return super().train_step(data)
    m = Custom([keras.Input((8,)), L.Dense(4)])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss=scce)
    check("keras custom train_step", lambda: keras_export.export(m, x, y, out, "t"),
          "Custom.train_step", "custom train_step")

    class Decay(keras.optimizers.schedules.LearningRateSchedule):
        def __call__(self, step):
            return 0.1 / (1.0 + keras.ops.cast(step, "float32"))
    m = compiled([L.Dense(4)], keras.optimizers.SGD(Decay()))
    check("keras custom schedule", lambda: keras_export.export(m, x, y, out, "s"),
          "Keras op 'Decay'", "formula the exporter does not know")
    m = compiled([L.Dense(4)], keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.1)))
    check("keras LossScaleOptimizer", lambda: keras_export.export(m, x, y, out, "o"),
          "LossScaleOptimizer", "mixed_float16 in mp-compile")
    m = compiled([L.Dense(4)], keras.optimizers.Adam(0.1, use_ema=True))
    check("keras EMA", lambda: keras_export.export(m, x, y, out, "e"),
          "use_ema", "moving average")
    m = compiled([L.Dense(4)], keras.optimizers.Lion(0.1))
    check("keras unmapped optimizer", lambda: keras_export.export(m, x, y, out, "l"),
          "Keras op 'Lion'", "no mapping for this optimizer")
    m = compiled([L.Dense(4)], loss=lambda t, o: keras.ops.mean(o * o))
    check("keras custom loss", lambda: keras_export.export(m, x, y, out, "f"),
          "a loss the exporter does not know")
    m = compiled([L.Dense(4)], loss=keras.losses.SparseCategoricalCrossentropy())
    check("keras probabilities not from a softmax", lambda: keras_export.export(
        m, x, y, out, "p"), "from_logits=False", "not a softmax")
    m = compiled([L.Dense(6), L.Lambda(lambda t: keras.ops.sin(t), name="wave"), L.Dense(4)],
                 name="waves")
    check("keras unmapped op", lambda: keras_export.export(m, x, y, out, "u"),
          "TensorFlow op 'Sin'", "layer waves_1/wave", "no mapping")
    inputs = keras.Input((8,))
    hidden = L.Dense(4)(inputs)
    m = keras.Model(inputs, [L.Dense(4)(hidden), hidden])
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss=[scce, scce])
    check("keras two trained outputs", lambda: keras_export.export(m, x, y, out, "2"),
          "2 losses", "None for the other outputs")
    m.compile(optimizer=keras.optimizers.SGD(0.1), loss=[scce, None], loss_weights=[0.5, 1.0])
    check("keras loss weight", lambda: keras_export.export(m, x, y, out, "w"),
          "loss_weights", "0.5 on output 0")
    m = compiled([L.Dense(4)], loss=keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, ignore_class=0))
    check("keras ignore_class", lambda: keras_export.export(m, x, y, out, "i"),
          "ignore_class", "Use ignore_class=None")
    keras.config.set_dtype_policy("mixed_bfloat16")
    try:
        m = compiled([L.Dense(4)])
    finally:
        keras.config.set_dtype_policy("float32")
    check("keras mixed policy", lambda: keras_export.export(m, x, y, out, "b"),
          "mixed_bfloat16", "Export the float32 model")

    # A model written in the user's file: the error names its line.
    src = os.path.join(out, "user_layer.py")
    with open(src, "w") as f:
        f.write("import keras\n"
                "class Wave(keras.layers.Layer):\n"
                "    def call(self, x):\n"
                "        return keras.ops.sin(x)\n")
    sys.path.insert(0, out)
    import user_layer
    m = compiled([L.Dense(6), user_layer.Wave(), L.Dense(4)], name="userline")
    check("keras error names the user's line", lambda: keras_export.export(
        m, x, y, out, "ul"), "'Sin'", "user_layer.py:4")


safetensors_round_trip()
for cases, module in ((torch_cases, "torch"), (keras_cases, "keras")):
    try:
        __import__(module)
    except ImportError as e:
        print("FAIL: cannot import %s (%s); run scripts/setup.sh" % (module, e))
        results.append(False)
        continue
    cases()
    if module == "torch":
        cli_case()
print("%d passed, %d failed" % (sum(results), len(results) - sum(results)))
sys.exit(0 if all(results) else 1)
