"""Small PyTorch training steps written the way PyTorch's documentation
writes them, each using layers the exporter reaches through PyTorch's Core
ATen decompositions or maps whole (SiLU, LeakyReLU, ELU, Hardtanh,
Hardswish, Embedding on integer tokens, GroupNorm, adaptive average pooling
with overlapping windows, F.pad, clamp and masked_fill, index_select, and
the in-place idioms functionalization carries: a buffer the forward
updates, ReLU(inplace=True), slice and element assignment, +=), and
training loops with RMSprop, Adagrad, Adam(W) and momentum SGD, learning-rate
schedulers (a LinearLR warm-up then cosine, StepLR, ExponentialLR,
OneCycleLR) and
gradient clipping by norm and by value.

For each: export -> mp-compile under float32, mixed_bfloat16 and
mixed_float16 -> mp-run STEPS (20) steps on one batch from the exported
initial parameters; the float32 per-step losses must match PyTorch's own
training on that batch to 1e-4 relative, the 16-bit runs must end within
0.05 of PyTorch's last loss, and the float32 checkpoint loaded back into a
fresh model must give PyTorch's next loss (step 21) within 1e-4.

usage: torch_corpus.py BUILD_DIR [--json FILE] [CASE ...]; prints one line
per case and 'N passed, M failed'; exits non-zero on a failure. --json
writes the rows test/Exporters/corpus_table.py turns into the table.
"""
import copy
import os
import re
import sys
import tempfile

import numpy as np

import corpus_main  # noqa: E402  (beside this file)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import mp_export.torch as torch_export  # noqa: E402

from torch_corpus_models import (  # noqa: E402  (beside this file)
    SiluMlp,
    GatherScatter,
    AdvancedIndex,
    gather_label_smoothing,
    Activations,
    MaskedMlp,
    TokenBag,
    GroupNormCnn,
    PaddedCnn,
    Selected,
    Slices,
    Positions,
    Dropped,
    CausalSelfAttention,
    GqaRotary,
    ExpandedMask,
    Mha,
    LstmClassifier,
    GruClassifier,
    EncoderLayer,
    FrozenNormFinetune,
    EvalDropout,
    PaddedTokens,
    MobileBlock,
    InPlace,
)

STEPS, LR, BATCH = 20, 0.1, 8


def image(batch):
    return torch.randn(batch, 1, 7, 7)


def sgd(params):
    return torch.optim.SGD(params, lr=LR)


def no_decay_groups(model, lr=0.02, wd=0.05):
    """timm's and Hugging Face's recipe: no weight decay on biases and
    norm weights (1-d parameters), decay on the rest."""
    decay = [p for p in model.parameters() if p.ndim > 1]
    rest = [p for p in model.parameters() if p.ndim <= 1]
    return [{"params": decay, "weight_decay": wd}, {"params": rest, "weight_decay": 0.0}]


def timm_cosine(o):
    """timm's CosineLRScheduler per update with a warm-up, one cycle
    shorter than the run (so its lr_min holds for the last steps)."""
    import timm.scheduler
    return timm.scheduler.CosineLRScheduler(o, t_initial=12, warmup_t=3, warmup_lr_init=1e-3,
                                            lr_min=2e-3, t_in_epochs=False)


def hf_schedule(name, **kw):
    def make(o):
        import transformers.optimization as hf
        return getattr(hf, name)(o, **kw)
    return make


# name -> (model class, input maker, optimizer maker, scheduler maker or None,
#          clip_grad_norm, clip_grad_value)
CASES = {
    "silu_mlp": (SiluMlp, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "activations": (Activations, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "masked_mlp": (MaskedMlp, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "token_bag": (TokenBag, lambda b: torch.randint(0, 20, (b, 5)), sgd, None, None, None),
    "group_norm_cnn": (GroupNormCnn, image, sgd, None, None, None),
    "padded_cnn": (PaddedCnn, image, sgd, None, None, None),
    "advanced_index": (AdvancedIndex, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "gather_scatter": (GatherScatter, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "index_select": (Selected, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "slices": (Slices, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "causal_attention": (CausalSelfAttention, lambda b: torch.randn(b, 5, 8), sgd, None,
                         None, None),
    "gqa_rotary_rmsnorm": (GqaRotary, lambda b: torch.randn(b, 5, 8),
                           lambda p: torch.optim.AdamW(p, lr=0.01), None, None, None),
    "expanded_mask": (ExpandedMask, lambda b: torch.randn(b, 96, 4), sgd, None, None,
                      None),
    "multihead_attention": (Mha, lambda b: torch.randn(b, 5, 8), sgd, None, None, None),
    "lstm": (LstmClassifier, lambda b: torch.randn(b, 5, 6), sgd, None, None, None),
    "gru": (GruClassifier, lambda b: torch.randn(b, 5, 6), sgd, None, None, None),
    "encoder_layer": (EncoderLayer, lambda b: torch.randn(b, 5, 8), sgd, None, None, None),
    "in_place": (InPlace, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "frozen_norm_finetune": (FrozenNormFinetune, image,
                             lambda p: torch.optim.SGD(p, lr=LR, momentum=0.9), None, None,
                             None),
    "eval_batch_norm": (lambda: FrozenNormFinetune(freeze_conv=False), image, sgd, None, None,
                        None),
    "eval_dropout": (EvalDropout, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "padding_idx_ignore_index": (
        PaddedTokens, lambda b: torch.randint(0, 20, (b, 5)).masked_fill(
            torch.rand(b, 5) < 0.3, 0), sgd, None, None, None),
    "mobile_block": (MobileBlock, image, sgd, None, None, None),
    "positions": (Positions, lambda b: torch.randint(0, 20, (b, 5)), sgd, None, None,
                  None),
    # Optimizers, schedules and clipping of the training loop.
    "rmsprop": (SiluMlp, lambda b: torch.randn(b, 12),
                lambda p: torch.optim.RMSprop(p, lr=0.01, weight_decay=1e-3), None,
                None, None),
    # torchvision's MobileNetV3 recipe: momentum 0.9, alpha 0.9, eps 0.0316.
    "rmsprop_momentum": (MobileBlock, image,
                         lambda p: torch.optim.RMSprop(p, lr=0.001, alpha=0.9, eps=0.0316,
                                                       momentum=0.9, weight_decay=1e-5),
                         None, None, None),
    "rmsprop_centered_momentum": (SiluMlp, lambda b: torch.randn(b, 12),
                                  lambda p: torch.optim.RMSprop(p, lr=0.005, centered=True,
                                                                momentum=0.5),
                                  None, None, None),
    # timm's RMSpropTF as its EfficientNet recipe builds it (square_avg from
    # 1, eps inside the root, the lr in the momentum buffer), and centered
    # with decoupled decay and the lr outside the buffer.
    "rmsproptf_timm": (MobileBlock, image,
                       lambda p: __import__("timm.optim").optim.RMSpropTF(
                           p, lr=0.001, eps=1e-3, momentum=0.9, weight_decay=1e-5),
                       None, None, None),
    "rmsproptf_centered_decoupled": (
        SiluMlp, lambda b: torch.randn(b, 12),
        lambda p: __import__("timm.optim").optim.RMSpropTF(
            p, lr=0.002, centered=True, momentum=0.5, weight_decay=0.01,
            decoupled_decay=True, lr_in_momentum=False),
        None, None, None),
    # timm's Lamb (ResNet strikes back's A1 recipe: wd 0.01, its global
    # clipping at 1.0 binding here), and with trust_clip, always_adapt and
    # decoupled decay, no bias correction and no grad averaging.
    "lamb_timm": (MobileBlock, image,
                  lambda p: __import__("timm.optim").optim.Lamb(p, lr=0.01, weight_decay=0.01),
                  None, None, None),
    "lamb_clip_adapt_decoupled": (
        SiluMlp, lambda b: torch.randn(b, 12),
        lambda p: __import__("timm.optim").optim.Lamb(
            p, lr=0.02, weight_decay=0.05, trust_clip=True, always_adapt=True,
            decoupled_decay=True, bias_correction=False, grad_averaging=False,
            max_grad_norm=0.5),
        None, None, None),
    "adagrad": (Activations, lambda b: torch.randn(b, 12),
                lambda p: torch.optim.Adagrad(p, lr=0.1), None, None, None),
    "adamw_warmup_cosine_clip": (
        SiluMlp, lambda b: torch.randn(b, 12),
        lambda p: torch.optim.AdamW(p, lr=0.02),
        lambda o: torch.optim.lr_scheduler.SequentialLR(
            o, [torch.optim.lr_scheduler.LinearLR(o, 0.1, 1.0, total_iters=2),
                torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=STEPS - 2)],
            milestones=[2]), 0.5, None),
    "momentum_step_clip_value": (
        MaskedMlp, lambda b: torch.randn(b, 12),
        lambda p: torch.optim.SGD(p, lr=LR, momentum=0.9),
        lambda o: torch.optim.lr_scheduler.StepLR(o, 2, gamma=0.5), None, 0.05),
    "sgd_one_cycle": (
        SiluMlp, lambda b: torch.randn(b, 12),
        lambda p: torch.optim.SGD(p, lr=LR),
        lambda o: torch.optim.lr_scheduler.OneCycleLR(
            o, 0.3, total_steps=STEPS + 1, pct_start=6 / 21, cycle_momentum=False), None,
        None),
    "grad_scaler_clip": (
        Activations, lambda b: torch.randn(b, 12),
        lambda p: torch.optim.SGD(p, lr=LR, momentum=0.9), None, 1.0, None),
    "autocast_grad_scaler": (
        MobileBlock, image, lambda p: torch.optim.SGD(p, lr=LR, momentum=0.9), None, 1.0,
        None),
    "label_smoothing": (SiluMlp, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "ignore_index_0": (SiluMlp, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "mse_regression": (SiluMlp, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "huber_regression": (Activations, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "l1_regression": (SiluMlp, lambda b: torch.randn(b, 12), sgd, None, None, None),
    "bce_multilabel": (Activations, lambda b: torch.randn(b, 12), sgd, None, None, None),
    # Parameter groups (per-group weight decay and lr) under one schedule.
    "adamw_groups_hf_linear": (
        MobileBlock, image,
        lambda p: torch.optim.AdamW(p, lr=0.02), hf_schedule(
            "get_linear_schedule_with_warmup", num_warmup_steps=3, num_training_steps=15),
        1.0, None),
    "adamw_groups_hf_cosine": (
        PaddedTokens, lambda b: torch.randint(0, 20, (b, 5)),
        lambda p: torch.optim.AdamW(p, lr=0.02), hf_schedule(
            "get_cosine_schedule_with_warmup", num_warmup_steps=2, num_training_steps=30),
        None, None),
    "sgd_groups_lambda_table": (
        SiluMlp, lambda b: torch.randn(b, 12),
        lambda p: torch.optim.SGD(p, lr=LR, momentum=0.9),
        lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda s: 0.97 ** s * (1 + s % 3)),
        None, None),
    "adamw_groups_timm_cosine": (
        MobileBlock, image, lambda p: torch.optim.AdamW(p, lr=0.02), timm_cosine, 1.0, None),
    "adam_exponential": (
        TokenBag, lambda b: torch.randint(0, 20, (b, 5)),
        lambda p: torch.optim.Adam(p, lr=0.01),
        lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.9), None, None),
}


# name -> (loss_fn, target maker): cases whose loss is not the default
# cross-entropy over 4 classes.
LOSSES = {
    "label_smoothing": (nn.CrossEntropyLoss(label_smoothing=0.1), None),
    "gather_scatter": (gather_label_smoothing, None),
    # Three rows of class 0, which the loss leaves out.
    "ignore_index_0": (nn.CrossEntropyLoss(ignore_index=0),
                       lambda b: torch.tensor([0, 1, 2, 3, 0, 2, 0, 1])[:b]),
    # PyTorch's defaults: two rows of -100, which the loss leaves out.
    "padding_idx_ignore_index": (F.cross_entropy,
                                 lambda b: torch.tensor([1, -100, 2, 3, 0, -100, 1, 2])[:b]),
    "mse_regression": (F.mse_loss, lambda b: torch.randn(b, 4)),
    "huber_regression": (nn.HuberLoss(delta=0.5), lambda b: torch.randn(b, 4)),
    "l1_regression": (F.l1_loss, lambda b: torch.randn(b, 4)),
    "bce_multilabel": (nn.BCEWithLogitsLoss(),
                       lambda b: torch.randint(0, 2, (b, 4)).float()),
}


def make_step(model, opt, sched, loss_fn, clip_norm, clip_value, scaler=None,
              autocast=False):
    """The training loop's body as PyTorch's docs write it (with a
    GradScaler and torch.autocast as its AMP recipe does): the reference
    runs it, and the LOOP cases export it as it is (export_step)."""
    def train_step(x, y):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = loss_fn(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
        else:
            loss.backward()
        if clip_value is not None:
            torch.nn.utils.clip_grad_value_(model.parameters(), clip_value)
        if clip_norm is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
        if scaler is not None:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        if sched and hasattr(sched, "step_update"):  # timm's: per update
            updates[0] += 1
            sched.step_update(num_updates=updates[0])
        elif sched:
            sched.step()
        return loss
    updates = [0]
    return train_step


# The cases exported from their loop body (torch_export.export_step); the
# others through export()'s arguments. grad_scaler_clip's loop scales by
# hand with torch.amp.GradScaler, which mp's own loss scaling replaces.
LOOP = {"adamw_warmup_cosine_clip", "momentum_step_clip_value", "sgd_one_cycle",
        "adam_exponential", "label_smoothing", "grad_scaler_clip", "autocast_grad_scaler",
        "adamw_groups_timm_cosine"}
SCALER = {"grad_scaler_clip", "autocast_grad_scaler"}
# A loop with torch.autocast(bfloat16) around the forward pass: exported in
# float32 (the autocast region ignored, with a warning), so the reference
# is PyTorch's float32 loop; mp's 16-bit policies replace autocast.
AUTOCAST = {"autocast_grad_scaler"}
# The LambdaLR of the user's own function, evaluated over the STEPS steps.
TABULATED = {"sgd_groups_lambda_table"}
# The cases whose optimizer gets two param groups (no_decay_groups).
GROUPS = {"adamw_groups_hf_linear", "adamw_groups_hf_cosine", "sgd_groups_lambda_table",
          "adamw_groups_timm_cosine"}


def torch_losses(model, x, y, make_opt, make_sched, clip_norm, clip_value,
                 loss_fn=F.cross_entropy, scaler=None, groups=False):
    """PyTorch's own training loop on the batch (the reference)."""
    model = copy.deepcopy(model)
    opt = make_opt(no_decay_groups(model) if groups else model.parameters())
    sched = make_sched(opt) if make_sched else None
    train_step = make_step(model, opt, sched, loss_fn, clip_norm, clip_value, scaler)
    return [train_step(x, y).item() for _ in range(STEPS + 1)]


def mp_losses(build, work, stem, policy, x, y, checkpoint=None):
    np.save(os.path.join(work, "x.npy"), x.numpy())
    np.save(os.path.join(work, "y.npy"), y.numpy())
    return corpus_main.mp_run(build, work, stem, policy, STEPS, checkpoint)


def run_dropout_case(build):
    """Dropout's masks are mp's own (Philox in the step), not PyTorch's, so
    the losses are not compared step by step: the step must hold the two
    dropout sites with PyTorch's p (and the gradient of the one a parameter
    needs), and train (the loss of the last of
    30 steps below half the first's) under float32 and mixed_bfloat16."""
    torch.manual_seed(1)
    model = Dropped()
    x, y = torch.randn(BATCH, 12), torch.randint(0, 4, (BATCH,))
    work = tempfile.mkdtemp(prefix="mp-corpus-dropout-")
    torch_export.export(model, torch.optim.SGD(model.parameters(), lr=LR), x, y, work,
                        "dropout", loss_fn=F.cross_entropy)
    text = open(os.path.join(work, "dropout.mlir")).read()
    sites = sorted(set(re.findall(r'"train\.dropout(?:_grad)?"\([^)]*\) <\{p = ([0-9.e-]+) '
                                  r': f64, site = (\d+) : i64\}>', text)))
    global STEPS
    saved, STEPS = STEPS, 30
    try:
        f32 = mp_losses(build, work, "dropout", "float32", x, y)
        bf16 = mp_losses(build, work, "dropout", "mixed_bfloat16", x, y)
    finally:
        STEPS = saved
    # drop1 acts on the input, which needs no gradient: one dropout_grad.
    ok = (sites == [("0.1", "0"), ("0.2", "1")] and
          text.count('"train.dropout_grad"') == 1 and
          f32[-1] < 0.5 * f32[0] and bf16[-1] < 0.5 * bf16[0])
    print("%s: dropout: sites %s, float32 loss %.4f -> %.4f, mixed_bfloat16 %.4f -> %.4f" % (
        "ok" if ok else "FAIL", sites, f32[0], f32[-1], bf16[0], bf16[-1]))
    # A TransformerEncoderLayer with dropout 0.1: in the attention (PyTorch's
    # math attention, then) and after it and the feed-forward.
    torch.manual_seed(1)
    enc = EncoderLayer()
    for module in enc.modules():
        if isinstance(module, nn.Dropout):
            module.p = 0.1
    enc.enc.self_attn.dropout = 0.1
    x = torch.randn(BATCH, 5, 8)
    torch_export.export(enc, torch.optim.SGD(enc.parameters(), lr=LR), x, y, work, "enc",
                        loss_fn=F.cross_entropy)
    text = open(os.path.join(work, "enc.mlir")).read()
    saved, STEPS = STEPS, 30
    try:
        losses = mp_losses(build, work, "enc", "mixed_bfloat16", x, y)
    finally:
        STEPS = saved
    enc_ok = text.count('"train.dropout"') >= 3 and losses[-1] < 0.5 * losses[0]
    print("%s: dropout in a TransformerEncoderLayer: %d dropout sites, mixed_bfloat16 "
          "loss %.4f -> %.4f" % ("ok" if enc_ok else "FAIL", text.count('"train.dropout"'),
                                 losses[0], losses[-1]))
    return ok and enc_ok and run_stochastic_depth(build)


class DepthDropped(nn.Module):
    """Residual blocks with stochastic depth as the model libraries write
    it: torchvision's StochasticDepth ("row": one draw per sample) and
    timm's drop_path (x.new_empty([B, 1, 1, 1]).bernoulli_(keep), div_)."""

    def __init__(self):
        super().__init__()
        import torchvision
        self.stem = nn.Conv2d(1, 4, 3, padding=1)
        self.block1, self.block2 = nn.Conv2d(4, 4, 3, padding=1), nn.Conv2d(4, 4, 3, padding=1)
        self.sd = torchvision.ops.StochasticDepth(0.25, "row")
        self.fc = nn.Linear(4 * 7 * 7, 4)

    def forward(self, x):
        h = F.relu(self.stem(x))
        h = h + self.sd(F.relu(self.block1(h)))
        keep = 0.75
        noise = h.new_empty((h.shape[0], 1, 1, 1)).bernoulli_(keep).div_(keep)
        h = h + F.relu(self.block2(h)) * noise
        return self.fc(h.flatten(1))


def run_stochastic_depth(build):
    """Stochastic depth drops whole samples of a branch: the step's dropout
    ops keep the per-sample mask shape [B, 1, 1, 1] (a per-element mask
    would be a different regulariser), forward and backward, and it
    trains."""
    torch.manual_seed(1)
    model = DepthDropped()
    x, y = image(BATCH), torch.randint(0, 4, (BATCH,))
    work = tempfile.mkdtemp(prefix="mp-corpus-depth-")
    torch_export.export(model, torch.optim.SGD(model.parameters(), lr=LR), x, y, work,
                        "depth", loss_fn=F.cross_entropy)
    text = open(os.path.join(work, "depth.mlir")).read()
    shapes = re.findall(r'"train\.dropout(?:_grad)?"\([^)]*\) <\{mask_shape = '
                        r'array<i64: ([0-9, ]+)>, p = ([0-9.]+)', text)
    global STEPS
    saved, STEPS = STEPS, 30
    try:
        losses = mp_losses(build, work, "depth", "float32", x, y)
    finally:
        STEPS = saved
    want = [("%d, 1, 1, 1" % BATCH, "0.25")] * 4
    ok = sorted(shapes) == want and losses[-1] < 0.5 * losses[0]
    print("%s: stochastic depth: masks %s, float32 loss %.4f -> %.4f" % (
        "ok" if ok else "FAIL", shapes, losses[0], losses[-1]))
    return ok


def run_case(build, name):
    cls, make_x, make_opt, make_sched, clip_norm, clip_value = CASES[name]
    loss_fn, make_y = LOSSES.get(name, (F.cross_entropy, None))
    torch.manual_seed(1)
    model = cls()
    x = make_x(BATCH)
    y = make_y(BATCH) if make_y else torch.randint(0, 4, (BATCH,))
    work = tempfile.mkdtemp(prefix="mp-corpus-%s-" % name)
    opt = make_opt(no_decay_groups(model) if name in GROUPS else model.parameters())
    sched = make_sched(opt) if make_sched else None
    scaler = torch.amp.GradScaler("cpu") if name in SCALER else None
    modes = [m.training for m in model.modules()]
    if name in LOOP:
        torch_export.export_step(make_step(model, opt, sched, loss_fn, clip_norm, clip_value,
                                           scaler, name in AUTOCAST), model, opt, x, y,
                                 work, name)
    else:
        torch_export.export(model, opt, x, y, work, name, loss_fn=loss_fn, scheduler=sched,
                            clip_grad_norm=clip_norm, clip_grad_value=clip_value,
                            schedule_steps=STEPS if name in TABULATED else None)
    if [m.training for m in model.modules()] != modes:
        raise AssertionError("the export changed the model's train / eval modes")
    want = torch_losses(model, x, y, make_opt, make_sched, clip_norm, clip_value, loss_fn,
                        torch.amp.GradScaler("cpu") if scaler else None, name in GROUPS)
    ckpt = os.path.join(work, "float32.safetensors")
    got = mp_losses(build, work, name, "float32", x, y, ckpt)
    worst = max(abs(g - w) / max(abs(w), 1e-6) for g, w in zip(got, want))
    bf16 = mp_losses(build, work, name, "mixed_bfloat16", x, y)
    f16 = mp_losses(build, work, name, "mixed_float16", x, y)
    # The float32 checkpoint in a fresh model: its loss on the batch is
    # PyTorch's at the next step.
    torch.manual_seed(5)
    loaded = cls()
    torch_export.load_checkpoint(loaded, ckpt)
    with torch.no_grad():
        after = float(loss_fn(loaded(x), y))
    back = abs(after - want[STEPS]) / max(abs(want[STEPS]), 1e-6)
    last = want[STEPS - 1]
    ok = worst <= 1e-4 and abs(bf16[-1] - last) <= 0.05 and abs(f16[-1] - last) <= 0.05 \
        and back <= 1e-4
    print("%s: %s: float32 losses within %.2e of PyTorch's (1e-4), step %d %.6f vs %.6f; "
          "mixed_bfloat16 %.4f, mixed_float16 %.4f; checkpoint back in PyTorch: next loss "
          "within %.1e" % ("ok" if ok else "FAIL", name, worst, STEPS, got[-1], last,
                           bf16[-1], f16[-1], back))
    return ok, {"max_rel_diff": worst,
                "reference": last, "float32": got[-1], "mixed_bfloat16": bf16[-1],
                "mixed_float16": f16[-1], "checkpoint": back}


if __name__ == "__main__":
    corpus_main.main("PyTorch", CASES, run_case, run_dropout_case)
