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
  loss, as the other corpora require.

Each row: library, model, recipe, status (ok / refused: the exporter's
ExportError, a valid outcome, recorded with its message, never worked
around / export error: another exception inside the exporter / model
error: the library's own code failed building the model or its loop /
compile error / run error / reference error: the framework's own loop
failed / mismatch / 16-bit off / not trained), the first line of the
message, for a refusal the gap ("<framework> op '<op>'"), the worst
float32 relative difference over the compared steps, the compared step
count, the first update's difference, the last losses, the wall time.

usage: zoo_corpus.py BUILD_DIR [--json FILE] [--quick] [--keep] [MODEL ...]
prints one line per model and 'N passed, M failed'; exits non-zero on a
failure. --quick runs a few fast representative models (CI). --json
writes the rows. --keep keeps each model's export directory.
"""
import copy
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
sys.path.insert(0, here)

from mp_export.common import ExportError  # noqa: E402
from mp_export.compare import read_metrics  # noqa: E402

STEPS = 20
TOL = 1e-4
UPDATE_TOL = 1e-3
SIXTEEN_TOL = 0.05
POLICIES = ("float32", "mixed_bfloat16", "mixed_float16")
COMPILE_TIMEOUT, RUN_TIMEOUT = 600, 900


# --- mp-compile / mp-run ----------------------------------------------------
def _binary(build, name):
    """build/bin/NAME, waiting up to 5 minutes while it is being relinked."""
    path = os.path.join(build, "bin", name)
    for _ in range(30):
        if os.access(path, os.X_OK):
            return path
        time.sleep(10)
    raise FileNotFoundError(path)


def mp_compile(build, work, stem, policy):
    plan = os.path.join(work, "%s.%s.mpplan" % (stem, policy))
    subprocess.run([_binary(build, "mp-compile"), os.path.join(work, stem + ".mlir"),
                    "--mixed-precision=policy=" + policy, "-o", plan],
                   check=True, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    return plan


def mp_run(build, work, stem, policy, steps=STEPS, checkpoint=None):
    """Trains WORK/STEM.<policy>.mpplan `steps` steps on WORK/x.npy, y.npy
    from the exported initial parameters; the per-step losses (and writes
    the checkpoint, when given)."""
    plan = os.path.join(work, "%s.%s.mpplan" % (stem, policy))
    metrics = os.path.join(work, "metrics.%s.%s.%d.jsonl" % (stem, policy, steps))
    if os.path.exists(metrics):  # mp-run appends
        os.unlink(metrics)
    subprocess.run([_binary(build, "mp-run"), plan, "--plain", "--no-shuffle",
                    "--steps", str(steps), "--train-x", os.path.join(work, "x.npy"),
                    "--train-y", os.path.join(work, "y.npy"),
                    "--init-params", os.path.join(work, stem + ".init.safetensors"),
                    "--log-every", "1", "--metrics", metrics, "--no-stop-on-nan"] +
                   (["--checkpoint", checkpoint] if checkpoint else []),
                   check=True, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    losses = read_metrics(metrics)
    if len(losses) != steps:
        raise RuntimeError("%s holds %d steps, not %d" % (metrics, len(losses), steps))
    return losses


# --- torchvision / timm / Hugging Face ----------------------------------------
def _torch():
    import torch
    return torch


def tv_weight_decay_groups(model, weight_decay, norm_weight_decay=0.0, custom_keys=()):
    """torchvision's references/classification/utils.py set_weight_decay:
    norm layers' parameters get norm_weight_decay, `custom_keys` (name,
    decay) theirs, the rest weight_decay."""
    torch = _torch()
    norm_classes = (torch.nn.modules.batchnorm._BatchNorm, torch.nn.LayerNorm,
                    torch.nn.GroupNorm, torch.nn.modules.instancenorm._InstanceNorm,
                    torch.nn.LocalResponseNorm)
    params = {"other": [], "norm": []}
    decay = {"other": weight_decay, "norm": norm_weight_decay}
    for key, _ in custom_keys:
        params[key] = []
    custom = dict(custom_keys)

    def visit(module, prefix=""):
        for name, p in module.named_parameters(recurse=False):
            if not p.requires_grad:
                continue
            full = "%s.%s" % (prefix, name) if prefix else name
            key = next((k for k in custom if full == k or full.endswith("." + k) or name == k),
                       None)
            if key is not None:
                params[key].append(p)
            elif isinstance(module, norm_classes):
                params["norm"].append(p)
            else:
                params["other"].append(p)
        for child_name, child in module.named_children():
            visit(child, "%s.%s" % (prefix, child_name) if prefix else child_name)
    visit(model)
    decay.update(custom)
    return [{"params": params[k], "weight_decay": decay[k]} for k in params if params[k]]


def tv_warmup_cosine(opt, warmup=3, decay=0.01):
    """torchvision's reference: --lr-warmup-method linear into
    --lr-scheduler cosineannealinglr (stepped per update here: one batch)."""
    torch = _torch()
    S = torch.optim.lr_scheduler
    return S.SequentialLR(opt, [S.LinearLR(opt, start_factor=decay, total_iters=warmup),
                                S.CosineAnnealingLR(opt, T_max=STEPS - warmup)],
                          milestones=[warmup])


def torch_classifier_loop(opt, sched=None, label_smoothing=0.0, clip=None, criterion=None):
    """The loop of torchvision's train_one_epoch: criterion(model(x), y),
    backward, optional clip_grad_norm_, step, then the scheduler."""
    torch = _torch()

    def make(model):
        o = opt(model)
        s = sched(o) if sched else None
        crit = criterion() if criterion else torch.nn.CrossEntropyLoss(
            label_smoothing=label_smoothing)

        def train_step(x, y):
            output = model(x)
            loss = crit(output, y)
            o.zero_grad()
            loss.backward()
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            o.step()
            if s is not None:
                s.step()
            return loss
        return o, train_step
    return make


def timm_loop(opt_name, lr, weight_decay, loss, sched=None, clip=None, **opt_kw):
    """timm's train.py: create_optimizer_v2 (weight decay -> param groups
    without decay on biases, norms and model.no_weight_decay()), its loss,
    dispatch_clip_grad, and a timm scheduler's step_update(num_updates)."""
    def make(model):
        import timm.optim
        import timm.utils
        o = timm.optim.create_optimizer_v2(model, opt=opt_name, lr=lr,
                                           weight_decay=weight_decay, **opt_kw)
        s = sched(o) if sched else None
        crit = loss()
        num_updates = [0]

        def train_step(x, y):
            output = model(x)
            l = crit(output, y)
            o.zero_grad()
            l.backward()
            if clip is not None:
                timm.utils.dispatch_clip_grad(model.parameters(), clip, mode="norm")
            o.step()
            num_updates[0] += 1
            if s is not None:
                if hasattr(s, "step_update"):
                    s.step_update(num_updates=num_updates[0])
                else:
                    s.step()
            return l
        return o, train_step
    return make


def timm_cosine(warmup=3):
    def make(o):
        import timm.scheduler
        return timm.scheduler.CosineLRScheduler(o, t_initial=STEPS, warmup_t=warmup,
                                                warmup_lr_init=1e-5, t_in_epochs=False)
    return make


def torch_cosine(o):
    return _torch().optim.lr_scheduler.CosineAnnealingLR(o, T_max=STEPS)


def hf_loop(lr=5e-3, weight_decay=0.01, warmup=3, max_grad_norm=1.0):
    """Hugging Face Trainer's step: AdamW on its decay / no-decay groups
    (get_decay_parameter_names: no decay on biases and norm weights),
    get_linear_schedule_with_warmup, model(**inputs).loss, backward,
    clip_grad_norm_(max_grad_norm), step, scheduler step, zero_grad."""
    def make(model):
        torch = _torch()
        from transformers.optimization import get_linear_schedule_with_warmup
        from transformers.trainer_pt_utils import get_parameter_names
        forbidden = [r"bias", r"layernorm", r"rmsnorm", r"(?:^|\.)norm(?:$|\.)", r"_norm(?:$|\.)"]
        decay = get_parameter_names(model, [torch.nn.LayerNorm], forbidden)
        groups = [
            {"params": [p for n, p in model.named_parameters()
                        if n in decay and p.requires_grad], "weight_decay": weight_decay},
            {"params": [p for n, p in model.named_parameters()
                        if n not in decay and p.requires_grad], "weight_decay": 0.0}]
        o = torch.optim.AdamW(groups, lr=lr)
        s = get_linear_schedule_with_warmup(o, num_warmup_steps=warmup,
                                            num_training_steps=STEPS + 5)

        def train_step(x, y):
            outputs = model(input_ids=x, labels=y)
            loss = outputs.loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            o.step()
            s.step()
            model.zero_grad()
            return loss
        return o, train_step
    return make


def images(batch=8, size=32, classes=10):
    def make():
        torch = _torch()
        g = torch.Generator().manual_seed(11)
        return (torch.randn(batch, 3, size, size, generator=g),
                torch.randint(0, classes, (batch,), generator=g))
    return make


def soft_images(batch=8, size=32, classes=10, smoothing=0.1):
    """Images with the soft targets timm's Mixup hands SoftTargetCrossEntropy
    (one-hot smoothed; mixing itself is data preparation)."""
    def make():
        torch = _torch()
        x, y = images(batch, size, classes)()
        soft = torch.full((batch, classes), smoothing / classes)
        soft[torch.arange(batch), y] += 1.0 - smoothing
        return x, soft
    return make


def token_ids(batch=8, seq=16, vocab=128, labels="same", classes=4, label_seq=8):
    def make():
        torch = _torch()
        g = torch.Generator().manual_seed(11)
        ids = torch.randint(1, vocab, (batch, seq), generator=g)
        if labels == "same":
            return ids, ids.clone()
        if labels == "classes":
            return ids, torch.randint(0, classes, (batch,), generator=g)
        return ids, torch.randint(1, vocab, (batch, label_seq), generator=g)
    return make


def tv(name, **kw):
    def make(drop):
        import torchvision
        return getattr(torchvision.models, name)(weights=None, num_classes=10,
                                                 **(kw if drop else _no_drop(kw)))
    return make


def _no_drop(kw):
    return {k: (0.0 if k in ("dropout", "stochastic_depth_prob", "drop_rate",
                             "drop_path_rate", "dropout_aux") else v) for k, v in kw.items()}


def tv_finetune(frozen):
    """PyTorch's transfer-learning tutorial on a torchvision resnet18 (random
    weights here, standing in for the pretrained ones): `frozen`, the
    "ConvNet as fixed feature extractor" recipe (every backbone parameter
    requires_grad=False, a new fc head; the model stays in train mode, so
    the frozen batch norms still normalise with batch statistics and update
    their running statistics); else the whole net fine-tuned with its batch
    norms in eval() (running statistics frozen)."""
    def make(drop):
        import torchvision
        torch = _torch()
        model = torchvision.models.resnet18(weights=None)
        if frozen:
            for param in model.parameters():
                param.requires_grad = False
        model.fc = torch.nn.Linear(model.fc.in_features, 10)
        if not frozen:
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.eval()
        return model
    return make


def tv_vit(drop):
    import torchvision
    return torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
        num_classes=10, dropout=0.0, attention_dropout=0.0)


def timm_model(name, **kw):
    def make(drop):
        import timm
        return timm.create_model(name, pretrained=False, num_classes=10,
                                 **(kw if drop else _no_drop(kw)))
    return make


def hf_model(cls_name, config_name, drops, **cfg):
    def make(drop):
        import transformers
        kw = dict(cfg)
        if not drop:
            kw.update({k: 0.0 for k in drops})
        config = getattr(transformers, config_name)(**kw)
        return getattr(transformers, cls_name)(config)
    return make


SGD_TV = dict(lr=0.05, momentum=0.9)


def _sgd(lr, wd, norm_wd=0.0, momentum=0.9, nesterov=False):
    return lambda m: _torch().optim.SGD(tv_weight_decay_groups(m, wd, norm_wd), lr=lr,
                                        momentum=momentum, nesterov=nesterov)


def _steplr(step, gamma):
    return lambda o: _torch().optim.lr_scheduler.StepLR(o, step_size=step, gamma=gamma)


class TorchCase:
    def __init__(self, library, recipe, build, batch, loop, dropped=False):
        self.library, self.recipe, self.build = library, recipe, build
        self.batch, self.loop, self.dropped = batch, loop, dropped


def _timm_loss(name, **kw):
    def make():
        import timm.loss
        return getattr(timm.loss, name)(**kw)
    return make


TORCH = {
    # torchvision, as its reference training scripts train them.
    "tv_resnet18": TorchCase(
        "torchvision", "SGD lr0.01 m0.9 wd1e-4 (no norm decay), warm-up+cosine, "
        "label smoothing 0.1",
        tv("resnet18"), images(),
        torch_classifier_loop(_sgd(0.01, 1e-4), tv_warmup_cosine, label_smoothing=0.1)),
    "tv_mobilenet_v2": TorchCase(
        "torchvision", "SGD lr0.01 m0.9 wd4e-5, StepLR(1, 0.98)", tv("mobilenet_v2", dropout=0.2),
        images(), torch_classifier_loop(_sgd(0.01, 4e-5, 4e-5), _steplr(1, 0.98)),
        dropped=True),
    "tv_mobilenet_v3_small": TorchCase(
        "torchvision", "RMSprop(alpha .9, eps .0316, m0.9, wd1e-5), StepLR(2, 0.973)",
        tv("mobilenet_v3_small", dropout=0.2), images(),
        torch_classifier_loop(lambda m: _torch().optim.RMSprop(
            m.parameters(), lr=0.01, alpha=0.9, eps=0.0316, momentum=0.9,
            weight_decay=1e-5), _steplr(2, 0.973)), dropped=True),
    "tv_efficientnet_b0": TorchCase(
        "torchvision", "SGD lr0.01 m0.9 wd2e-5 (no norm decay), warm-up+cosine, "
        "label smoothing 0.1",
        tv("efficientnet_b0", dropout=0.2, stochastic_depth_prob=0.2), images(),
        torch_classifier_loop(_sgd(0.01, 2e-5), tv_warmup_cosine, label_smoothing=0.1),
        dropped=True),
    "tv_squeezenet1_1": TorchCase(
        "torchvision", "SGD lr0.01 m0.9 wd1e-4, StepLR(10, 0.1); 34x34: ceil-mode pools overhang",
        tv("squeezenet1_1", dropout=0.5), images(size=34),
        torch_classifier_loop(_sgd(0.01, 1e-4, 1e-4), _steplr(10, 0.1)), dropped=True),
    "tv_regnet_x_400mf": TorchCase(
        "torchvision", "SGD lr0.01 m0.9 wd5e-5 (no norm decay), warm-up+cosine, "
        "label smoothing 0.1",
        tv("regnet_x_400mf"), images(),
        torch_classifier_loop(_sgd(0.01, 5e-5), tv_warmup_cosine, label_smoothing=0.1)),
    "tv_convnext_tiny": TorchCase(
        "torchvision", "AdamW wd0.05 (no norm decay), warm-up+cosine, label smoothing 0.1",
        tv("convnext_tiny", stochastic_depth_prob=0.1), images(),
        torch_classifier_loop(lambda m: _torch().optim.AdamW(
            tv_weight_decay_groups(m, 0.05, 0.0), lr=1e-3), tv_warmup_cosine,
            label_smoothing=0.1), dropped=True),
    "tv_shufflenet_v2_x0_5": TorchCase(
        "torchvision", "SGD lr0.02 m0.9 wd2e-5 (no norm decay), warm-up+cosine, "
        "label smoothing 0.1",
        tv("shufflenet_v2_x0_5"), images(),
        torch_classifier_loop(_sgd(0.02, 2e-5), tv_warmup_cosine, label_smoothing=0.1)),
    "tv_googlenet": TorchCase(
        "torchvision", "SGD lr0.01 m0.9 wd1e-4, StepLR(10, 0.1); aux_logits=False, "
        "init_weights=True",
        tv("googlenet", aux_logits=False, init_weights=True, dropout=0.2), images(),
        torch_classifier_loop(_sgd(0.01, 1e-4, 1e-4), _steplr(10, 0.1)), dropped=True),
    "tv_vit_small": TorchCase(
        "torchvision", "VisionTransformer(32px, patch 8, 2 layers, dim 32); AdamW wd0.3 "
        "(no decay: norms, class_token, pos_embedding), warm-up+cosine, label smoothing "
        "0.11, clip_grad_norm 1",
        tv_vit, images(),
        torch_classifier_loop(lambda m: _torch().optim.AdamW(tv_weight_decay_groups(
            m, 0.3, 0.0, (("class_token", 0.0), ("pos_embedding", 0.0))), lr=3e-3),
            tv_warmup_cosine, label_smoothing=0.11, clip=1.0)),
    "tv_resnet18_finetune_frozen": TorchCase(
        "torchvision", "fine-tuning: backbone requires_grad=False (train mode), new fc; "
        "SGD(fc) m0.9 lr1e-3, StepLR(7, 0.1)", tv_finetune(True), images(),
        torch_classifier_loop(lambda m: _torch().optim.SGD(m.fc.parameters(), lr=1e-3,
                                                           momentum=0.9), _steplr(7, 0.1))),
    "tv_resnet18_finetune_bn_eval": TorchCase(
        "torchvision", "fine-tuning: BatchNorms in eval(), new fc, all trained; "
        "SGD m0.9 lr1e-2 wd1e-4, StepLR(7, 0.1)", tv_finetune(False), images(),
        torch_classifier_loop(lambda m: _torch().optim.SGD(m.parameters(), lr=1e-2,
                                                           momentum=0.9, weight_decay=1e-4),
                              _steplr(7, 0.1))),
    # timm, with its optimizer factory and losses (train.py's loop).
    "timm_resnet18": TorchCase(
        "timm", "create_optimizer_v2('sgd': Nesterov, wd1e-4 groups), "
        "LabelSmoothingCrossEntropy(0.1), CosineAnnealingLR",
        timm_model("resnet18"), images(),
        timm_loop("sgd", 0.01, 1e-4, _timm_loss("LabelSmoothingCrossEntropy", smoothing=0.1),
                  torch_cosine)),
    "timm_resnet18_a1": TorchCase(
        "timm", "ResNet strikes back A1: create_optimizer_v2('lamb', wd0.01), "
        "BinaryCrossEntropy(smoothing 0.1), timm CosineLRScheduler warm-up (step_update), "
        "drop_path 0.05",
        timm_model("resnet18", drop_path_rate=0.05), images(),
        timm_loop("lamb", 5e-3, 0.01, _timm_loss("BinaryCrossEntropy", smoothing=0.1),
                  timm_cosine()), dropped=True),
    "timm_vit_tiny": TorchCase(
        "timm", "vit_tiny_patch16_224(img_size=32, patch_size=8); create_optimizer_v2("
        "'adamw', wd0.05: no decay on 1-d, pos_embed, cls_token), SoftTargetCrossEntropy "
        "(mixup targets), dispatch_clip_grad 1.0, CosineAnnealingLR, drop_path 0.1",
        timm_model("vit_tiny_patch16_224", img_size=32, patch_size=8, drop_path_rate=0.1),
        soft_images(),
        timm_loop("adamw", 5e-4, 0.05, _timm_loss("SoftTargetCrossEntropy"), torch_cosine,
                  clip=1.0), dropped=True),
    "timm_convnext_atto": TorchCase(
        "timm", "create_optimizer_v2('adamw', wd0.05), LabelSmoothingCrossEntropy(0.1), "
        "CosineAnnealingLR, drop_path 0.1",
        timm_model("convnext_atto", drop_path_rate=0.1), images(),
        timm_loop("adamw", 2e-3, 0.05, _timm_loss("LabelSmoothingCrossEntropy", smoothing=0.1),
                  torch_cosine), dropped=True),
    "timm_efficientnet_b0": TorchCase(
        "timm", "create_optimizer_v2('rmsproptf', eps 1e-3, wd1e-5), "
        "LabelSmoothingCrossEntropy(0.1), timm CosineLRScheduler warm-up, drop 0.2, "
        "drop_path 0.2",
        timm_model("efficientnet_b0", drop_rate=0.2, drop_path_rate=0.2), images(),
        timm_loop("rmsproptf", 1e-3, 1e-5, _timm_loss("LabelSmoothingCrossEntropy",
                                                      smoothing=0.1),
                  timm_cosine(), eps=1e-3), dropped=True),
    "timm_mobilenetv3_small_050": TorchCase(
        "timm", "create_optimizer_v2('adamw', wd0.01), LabelSmoothingCrossEntropy(0.1), "
        "CosineAnnealingLR, drop 0.2, drop_path 0.1",
        timm_model("mobilenetv3_small_050", drop_rate=0.2, drop_path_rate=0.1), images(),
        timm_loop("adamw", 2e-3, 0.01, _timm_loss("LabelSmoothingCrossEntropy", smoothing=0.1),
                  torch_cosine), dropped=True),
    # Hugging Face transformers, tiny configs, trained as Trainer trains.
    "hf_gpt2": TorchCase(
        "transformers", "GPT2LMHeadModel (2 layers, 32 wide, vocab 128, seq 16), "
        "model(ids, labels=ids).loss; Trainer: AdamW no-decay groups, linear warm-up, clip 1.0",
        hf_model("GPT2LMHeadModel", "GPT2Config", ("resid_pdrop", "embd_pdrop", "attn_pdrop"),
                 vocab_size=128, n_positions=32, n_embd=32, n_layer=2, n_head=2,
                 bos_token_id=1, eos_token_id=2, use_cache=False),
        token_ids(), hf_loop(), dropped=True),
    "hf_bert_classifier": TorchCase(
        "transformers", "BertForSequenceClassification (2 layers, 32 wide, 4 labels), "
        "model(ids, labels=y).loss; Trainer recipe",
        hf_model("BertForSequenceClassification", "BertConfig",
                 ("hidden_dropout_prob", "attention_probs_dropout_prob"),
                 vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64, max_position_embeddings=32, num_labels=4),
        token_ids(labels="classes"), hf_loop(lr=1e-3), dropped=True),
    "hf_llama": TorchCase(
        "transformers", "LlamaForCausalLM (2 layers, 32 wide, 4 heads, 2 KV heads: GQA, "
        "RMSNorm, rotary), model(ids, labels=ids).loss; Trainer recipe",
        hf_model("LlamaForCausalLM", "LlamaConfig", (),
                 vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                 use_cache=False),
        token_ids(), hf_loop()),
    "hf_t5": TorchCase(
        "transformers", "T5ForConditionalGeneration (2+2 layers, d_model 32), "
        "model(input_ids, labels).loss; Trainer recipe",
        hf_model("T5ForConditionalGeneration", "T5Config", ("dropout_rate",),
                 vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                 decoder_start_token_id=0, pad_token_id=0, use_cache=False),
        token_ids(labels="seq"), hf_loop(), dropped=True),
    "hf_bart": TorchCase(
        "transformers", "BartForConditionalGeneration (2+2 layers, d_model 32), "
        "model(input_ids, labels).loss; Trainer recipe",
        hf_model("BartForConditionalGeneration", "BartConfig",
                 ("dropout", "attention_dropout", "activation_dropout"),
                 vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2,
                 encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                 decoder_ffn_dim=64, max_position_embeddings=32, use_cache=False),
        token_ids(labels="seq"), hf_loop(), dropped=True),
}


def _torch_state(model):
    """The floating state under its first state_dict name (a tied weight,
    e.g. T5's shared embedding and lm_head, is one tensor: the export and
    mp's checkpoint name it once)."""
    out, seen = {}, set()
    for n, t in model.state_dict(keep_vars=True).items():
        if t.is_floating_point() and t.data_ptr() not in seen:
            seen.add(t.data_ptr())
            out[n] = t.detach().cpu().double().numpy().copy()
    return out


def torch_reference(case, model, x, y, double=False):
    """The framework's own loop on the batch for STEPS steps: the losses, and
    the model's state before and after the first step."""
    torch = _torch()
    model = copy.deepcopy(model)
    if double:
        model = model.double()
        x = x.double() if x.is_floating_point() else x
        y = y.double() if y.is_floating_point() else y
    _, train_step = case.loop(model)
    torch.manual_seed(0)
    before, losses, after = _torch_state(model), [], []
    for i in range(STEPS):
        losses.append(float(train_step(x, y).detach()))
        if i < 2:
            after.append(_torch_state(model))
    return losses, before, after


def torch_export_run(build, name, case, drop, work):
    """Exports the model (drop: its drop rates as written) and compiles it;
    returns (model before training, x, y, stem)."""
    torch = _torch()
    from mp_export import torch_export
    def build_model():
        torch.manual_seed(0)
        model = case.build(drop)
        x, y = case.batch()
        initial = copy.deepcopy(model)
        opt, train_step = case.loop(model)
        return model, x, y, initial, opt, train_step
    model, x, y, initial, opt, train_step = _stage("model", build_model)
    stem = name + ("" if drop else "_nodrop")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _stage("export", torch_export.export_step, train_step, model, opt, x, y, work, stem)
    np.save(os.path.join(work, "x.npy"), x.numpy())
    np.save(os.path.join(work, "y.npy"), y.numpy())
    return initial, x, y, stem


# --- keras.applications and keras.io ------------------------------------------
def _keras():
    import keras
    return keras


def kapp(name, **kw):
    def make(drop):
        keras = _keras()
        model = getattr(keras.applications, name)(include_top=True, weights=None,
                                                   input_shape=(32, 32, 3), classes=10, **kw)
        if not drop:
            _keras_no_dropout(model)
        return model
    return make


def _keras_no_dropout(model):
    """keras.applications exposes no drop-rate argument: the comparison
    build sets its Dropout layers' rate to 0."""
    keras = _keras()
    for layer in model._flatten_layers(include_self=False, recursive=True):
        if isinstance(layer, keras.layers.Dropout):
            layer.rate = 0.0


def keras_transfer(drop):
    """keras.io's transfer-learning guide: a frozen base model
    (base_model.trainable = False) called with training=False, a new head
    with Dropout(0.2)."""
    keras = _keras()
    L = keras.layers
    base_model = keras.applications.MobileNetV2(include_top=False, weights=None,
                                                input_shape=(32, 32, 3))
    base_model.trainable = False
    inputs = keras.Input(shape=(32, 32, 3))
    x = base_model(inputs, training=False)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dropout(0.2 if drop else 0.0)(x)
    outputs = L.Dense(10)(x)
    return keras.Model(inputs, outputs)


def mnist_convnet(drop):
    """keras.io/examples/vision/mnist_convnet."""
    keras = _keras()
    L = keras.layers
    return keras.Sequential([
        keras.Input(shape=(28, 28, 1)),
        L.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        L.MaxPooling2D(pool_size=(2, 2)),
        L.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        L.MaxPooling2D(pool_size=(2, 2)),
        L.Flatten(),
        L.Dropout(0.5 if drop else 0.0),
        L.Dense(10, activation="softmax")])


def text_embedding_gap(drop):
    """tensorflow.org's basic text classification: Embedding, Dropout,
    GlobalAveragePooling1D, Dropout, Dense(1, sigmoid) (a Sequential built
    on its first call)."""
    keras = _keras()
    L = keras.layers
    rate = 0.2 if drop else 0.0
    return keras.Sequential([L.Embedding(200, 16), L.Dropout(rate), L.GlobalAveragePooling1D(),
                             L.Dropout(rate), L.Dense(1, activation="sigmoid")])


def _keras_io_layers():
    """keras.io's TransformerBlock and TokenAndPositionEmbedding (its
    text_classification_with_transformer and miniature GPT examples)."""
    keras = _keras()
    L, ops = keras.layers, keras.ops

    class TransformerBlock(L.Layer):
        def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1, causal=False):
            super().__init__()
            self.att = L.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
            self.ffn = keras.Sequential([L.Dense(ff_dim, activation="relu"),
                                         L.Dense(embed_dim)])
            self.layernorm1 = L.LayerNormalization(epsilon=1e-6)
            self.layernorm2 = L.LayerNormalization(epsilon=1e-6)
            self.dropout1 = L.Dropout(rate)
            self.dropout2 = L.Dropout(rate)
            self.causal = causal

        def call(self, inputs):
            if self.causal:
                # keras.io builds the mask with its causal_attention_mask
                # (below); with Keras 3.15's TensorFlow backend that
                # ops.tile(mask, <a tensor of repeats>) fails while the
                # functional model is built ("Iterating over a symbolic
                # tf.Tensor"), so the model does not build at all: the same
                # lower-triangular mask through Keras 3's own argument.
                attn_output = self.att(inputs, inputs, use_causal_mask=True)
            else:
                attn_output = self.att(inputs, inputs)
            attn_output = self.dropout1(attn_output)
            out1 = self.layernorm1(inputs + attn_output)
            ffn_output = self.ffn(out1)
            ffn_output = self.dropout2(ffn_output)
            return self.layernorm2(out1 + ffn_output)

    class TokenAndPositionEmbedding(L.Layer):
        def __init__(self, maxlen, vocab_size, embed_dim):
            super().__init__()
            self.token_emb = L.Embedding(input_dim=vocab_size, output_dim=embed_dim)
            self.pos_emb = L.Embedding(input_dim=maxlen, output_dim=embed_dim)

        def call(self, x):
            maxlen = ops.shape(x)[-1]
            positions = ops.arange(start=0, stop=maxlen, step=1)
            positions = self.pos_emb(positions)
            x = self.token_emb(x)
            return x + positions

    return TransformerBlock, TokenAndPositionEmbedding


def transformer_classifier(drop):
    """keras.io/examples/nlp/text_classification_with_transformer (maxlen 16,
    vocab 200, embed 16, 2 heads, ff 16)."""
    keras = _keras()
    L = keras.layers
    TransformerBlock, TokenAndPositionEmbedding = _keras_io_layers()
    rate = 0.1 if drop else 0.0
    inputs = L.Input(shape=(16,))
    x = TokenAndPositionEmbedding(16, 200, 16)(inputs)
    x = TransformerBlock(16, 2, 16, rate=rate)(x)
    x = L.GlobalAveragePooling1D()(x)
    x = L.Dropout(rate)(x)
    x = L.Dense(20, activation="relu")(x)
    x = L.Dropout(rate)(x)
    outputs = L.Dense(2, activation="softmax")(x)
    return keras.Model(inputs=inputs, outputs=outputs)


def bidirectional_lstm(drop):
    """keras.io/examples/nlp/bidirectional_lstm_imdb (vocab 200, 16 wide)."""
    keras = _keras()
    L = keras.layers
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = L.Embedding(200, 16)(inputs)
    x = L.Bidirectional(L.LSTM(8, return_sequences=True))(x)
    x = L.Bidirectional(L.LSTM(8))(x)
    outputs = L.Dense(1, activation="sigmoid")(x)
    return keras.Model(inputs, outputs)


def miniature_gpt(drop):
    """keras.io/examples/generative/text_generation_with_miniature_gpt
    (maxlen 16, vocab 200, embed 16, 2 heads): outputs [logits, x], loss
    [SparseCategoricalCrossentropy(from_logits=True), None]; the causal
    mask through use_causal_mask=True (TransformerBlock.call)."""
    keras = _keras()
    L = keras.layers
    TransformerBlock, TokenAndPositionEmbedding = _keras_io_layers()
    inputs = L.Input(shape=(16,), dtype="int32")
    x = TokenAndPositionEmbedding(16, 200, 16)(inputs)
    x = TransformerBlock(16, 2, 16, rate=0.1 if drop else 0.0, causal=True)(x)
    outputs = L.Dense(200)(x)
    return keras.Model(inputs=inputs, outputs=[outputs, x])


def k_images(size=32, channels=3, classes=10, one_hot=False):
    def make():
        rng = np.random.default_rng(11)
        x = rng.standard_normal((8, size, size, channels)).astype(np.float32)
        y = rng.integers(0, classes, 8).astype(np.int64)
        return x, (np.eye(classes, dtype=np.float32)[y] if one_hot else y)
    return make


def k_tokens(seq=16, vocab=200, labels="binary"):
    def make():
        rng = np.random.default_rng(11)
        x = rng.integers(1, vocab, (8, seq)).astype(np.int32)
        if labels == "binary":
            y = rng.integers(0, 2, 8).astype(np.int64)
        elif labels == "next":
            y = np.concatenate([x[:, 1:], rng.integers(1, vocab, (8, 1))], 1).astype(np.int32)
        else:
            y = rng.integers(0, labels, 8).astype(np.int64)
        return x, y
    return make


class KerasCase:
    def __init__(self, library, recipe, build, batch, optimizer, loss, dropped=False):
        self.library, self.recipe, self.build, self.batch = library, recipe, build, batch
        self.optimizer, self.loss, self.dropped = optimizer, loss, dropped


def _scce_logits():
    return _keras().losses.SparseCategoricalCrossentropy(from_logits=True)


KERAS = {
    "keras_mobilenet_v2": KerasCase(
        "keras.applications", "MobileNetV2(32x32, classes=10); Adam, "
        "sparse_categorical_crossentropy", kapp("MobileNetV2"), k_images(),
        lambda: "adam", lambda: "sparse_categorical_crossentropy"),
    "keras_efficientnet_b0": KerasCase(
        "keras.applications", "EfficientNetB0(32x32, classes=10) from scratch as keras.io: "
        "adam, categorical_crossentropy (one-hot)", kapp("EfficientNetB0"),
        k_images(one_hot=True), lambda: "adam", lambda: "categorical_crossentropy",
        dropped=True),
    "keras_resnet50": KerasCase(
        "keras.applications", "ResNet50(32x32, classes=10); SGD(0.01, momentum 0.9), "
        "sparse_categorical_crossentropy", kapp("ResNet50"), k_images(),
        lambda: _keras().optimizers.SGD(0.01, momentum=0.9),
        lambda: "sparse_categorical_crossentropy"),
    "keras_densenet121": KerasCase(
        "keras.applications", "DenseNet121(32x32, classes=10); Adam, "
        "sparse_categorical_crossentropy", kapp("DenseNet121"), k_images(),
        lambda: "adam", lambda: "sparse_categorical_crossentropy"),
    "keras_nasnet_mobile": KerasCase(
        "keras.applications", "NASNetMobile(32x32, classes=10); Adam, "
        "sparse_categorical_crossentropy", kapp("NASNetMobile"), k_images(),
        lambda: "adam", lambda: "sparse_categorical_crossentropy"),
    "keras_transfer_mobilenet_v2": KerasCase(
        "keras.io", "transfer learning guide: frozen MobileNetV2 base (training=False), "
        "GAP, Dropout(0.2), Dense(10); Adam, SCCE(from_logits)", keras_transfer, k_images(),
        lambda: _keras().optimizers.Adam(), _scce_logits, dropped=True),
    "keras_mnist_convnet": KerasCase(
        "keras.io", "mnist_convnet: 2 conv + pool, Dropout(0.5), softmax; adam, "
        "categorical_crossentropy", mnist_convnet, k_images(28, 1, one_hot=True),
        lambda: "adam", lambda: "categorical_crossentropy", dropped=True),
    "keras_text_embedding_gap": KerasCase(
        "keras.io", "text classification: Embedding, Dropout, GlobalAveragePooling1D, "
        "Dense(1, sigmoid); adam, BinaryCrossentropy, int labels [B]", text_embedding_gap,
        k_tokens(), lambda: "adam", lambda: _keras().losses.BinaryCrossentropy(),
        dropped=True),
    "keras_transformer_classifier": KerasCase(
        "keras.io", "text_classification_with_transformer: TokenAndPositionEmbedding, "
        "TransformerBlock, GAP, Dropout, softmax; adam, sparse_categorical_crossentropy",
        transformer_classifier, k_tokens(labels=2), lambda: "adam",
        lambda: "sparse_categorical_crossentropy", dropped=True),
    "keras_bidirectional_lstm": KerasCase(
        "keras.io", "bidirectional_lstm_imdb: Embedding, 2 Bidirectional(LSTM), sigmoid; "
        "adam, binary_crossentropy, int labels [B]", bidirectional_lstm, k_tokens(),
        lambda: "adam", lambda: "binary_crossentropy"),
    "keras_miniature_gpt": KerasCase(
        "keras.io", "text_generation_with_miniature_gpt: causal TransformerBlock, outputs "
        "[logits, x], loss [SCCE(from_logits), None] on [B, T] labels; adam",
        miniature_gpt, k_tokens(labels="next"), lambda: "adam",
        lambda: [_scce_logits(), None], dropped=True),
}


def keras_build(case, drop, x, seed=3, compile_=True):
    keras = _keras()
    keras.backend.clear_session()  # the same layer names every time
    keras.utils.set_random_seed(seed)
    model = case.build(drop)
    if not model.built:
        # Built on a first call, as keras_export builds it (x[:1]).
        model(keras.ops.convert_to_tensor(x[:1]))
    if compile_:
        model.compile(optimizer=case.optimizer(), loss=case.loss())
    return model


def _keras_state(model):
    from mp_export import keras_export
    return {n: v.astype(np.float64) for n, v in keras_export.state_tensors(model).items()
            if v.dtype.kind == "f"}


def keras_reference(case, x, y, floatx="float32", weights=None):
    keras = _keras()
    keras.config.set_floatx(floatx)
    try:
        model = keras_build(case, False, x)
        if weights is not None:
            model.set_weights([w.astype(floatx) if w.dtype.kind == "f" else w
                               for w in weights])
        xs = x.astype(floatx) if x.dtype.kind == "f" else x
        ys = y.astype(floatx) if y.dtype.kind == "f" else y
        out, before, after = [], _keras_state(model), []
        for i in range(STEPS):
            loss = model.train_on_batch(xs, ys)
            out.append(float(loss[0] if isinstance(loss, (list, tuple)) else loss))
            if i < 2:
                after.append(_keras_state(model))
        return out, before, after
    finally:
        keras.config.set_floatx("float32")


def keras_export_run(build, name, case, drop, work):
    from mp_export import keras_export
    x, y = case.batch()
    np.save(os.path.join(work, "x.npy"), x)
    np.save(os.path.join(work, "y.npy"), y)
    model = _stage("model", keras_build, case, drop, x)
    stem = name + ("" if drop else "_nodrop")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _stage("export", keras_export.export, model, x, y, work, stem)
    return x, y, stem


# --- running a case -----------------------------------------------------------
class Failure(Exception):
    def __init__(self, status, message, gap=None):
        super().__init__(message)
        self.status, self.message, self.gap = status, message, gap


def _first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def _classify(e, stage):
    """An exception of `stage` ('export', 'compile', 'run', 'reference')
    as a Failure: status, first line, gap (what blocks it)."""
    if isinstance(e, Failure):
        return e
    if isinstance(e, ExportError):
        return Failure("refused", _first_line(str(e)), "%s op '%s'" % (e.framework, e.op))
    if isinstance(e, subprocess.TimeoutExpired):
        tool = os.path.basename(e.cmd[0]) if e.cmd else stage
        return Failure("%s timeout" % stage, "%s ran over %ds" % (tool, e.timeout))
    if isinstance(e, subprocess.CalledProcessError):
        tool = os.path.basename(e.cmd[0])
        lines = [l.strip() for l in (e.stderr or "").splitlines() if l.strip()]
        err = next((l for l in lines if "error" in l.lower()), lines[0] if lines else "")
        status = "compile error" if tool == "mp-compile" else "run error"
        return Failure(status, "%s exit %d: %s" % (tool, e.returncode, err[:300]))
    text = _first_line(str(e)) or type(e).__name__
    return Failure("%s error" % stage, "%s: %s" % (type(e).__name__, text[:300]))


def _stage(stage, fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - classified, the corpus goes on
        if os.environ.get("ZOO_TRACE"):
            traceback.print_exc()
        raise _classify(e, stage) from e


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
    if ref64 is None:
        return STEPS
    k = 0
    for a, b in zip(ref32, ref64):
        if abs(a - b) / max(abs(b), 1e-6) > TOL / 2:
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
        try:
            weights = keras_build(case, False, x, compile_=False).get_weights()
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
        step = next(i for i, d in enumerate(diffs[:k]) if not d <= TOL)
        raise Failure("mismatch", "float32 step %d: mp %.6g vs %.6g (rel %.1e), %d steps "
                      "compared" % (step + 1, got[step], ref32[step], diffs[step], k),
                      "numerics")
    for policy in POLICIES[1:]:
        losses = runs[policy]
        last = losses[-1]
        bound = max(losses[0], ref32[-1], got[-1]) + SIXTEEN_TOL
        if not _finite(last) or last > bound or (
                k == STEPS and abs(last - ref32[-1]) > SIXTEEN_TOL):
            raise Failure("16-bit off", "%s: loss %.4f -> %.4f (framework's last %.4f)" % (
                policy, losses[0], last, ref32[-1]), "16-bit")
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
