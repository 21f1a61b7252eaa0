"""The zoo corpus' PyTorch half (test/Exporters/zoo_corpus.py): the
torchvision, timm and Hugging Face models, their libraries' recipes, the
framework's own training (the reference) and the export as written."""
import copy
import os
import warnings

import numpy as np

from zoo_common import STEPS, _stage

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


def torch_reference(case, model, x, y, double=False, autocast=False):
    """The framework's own loop on the batch for STEPS steps: the losses, and
    the model's state before and after the first step. autocast: each step
    under torch.autocast("cpu", bfloat16), PyTorch's own mixed precision."""
    import contextlib
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
        with (torch.autocast("cpu", dtype=torch.bfloat16) if autocast
              else contextlib.nullcontext()):
            losses.append(float(train_step(x, y).detach()))
        if i < 2:
            after.append(_torch_state(model))
    return losses, before, after


def torch_perturbed(model, seed):
    """A copy of the model whose parameters are each moved by at most one
    float32 ulp (down, kept or up, at random from `seed`): the same model
    up to the rounding of its initialisation."""
    torch = _torch()
    model = copy.deepcopy(model)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            if p.is_floating_point():
                u = torch.randint(-1, 2, p.shape, generator=g)
                up = torch.nextafter(p, torch.full_like(p, float("inf")))
                down = torch.nextafter(p, torch.full_like(p, float("-inf")))
                p.copy_(torch.where(u > 0, up, torch.where(u < 0, down, p)))
    return model


def torch_export_run(build, name, case, drop, work):
    """Exports the model (drop: its drop rates as written) and compiles it;
    returns (model before training, x, y, stem)."""
    torch = _torch()
    import mp_export.torch as torch_export
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
