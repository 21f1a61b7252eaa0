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

STEPS, LR, BATCH = 20, 0.1, 8


class SiluMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 16), nn.SiLU(), nn.Linear(16, 4))

    def forward(self, x):
        return self.net(x)


class GatherScatter(nn.Module):
    """torch.gather and scatter along a middle dim, at positions the data
    picks (each column's largest |h|): the picked values read, and the
    rest with them zeroed."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(12, 16), nn.Linear(4 + 4 * 4, 4)

    def forward(self, x):
        h = torch.tanh(self.fc1(x)).view(-1, 4, 4)
        idx = h.abs().argmax(dim=1, keepdim=True)
        picked = h.gather(1, idx)
        rest = h.scatter(1, idx, 0.0)
        return self.fc2(torch.cat([picked.flatten(1) * 2, rest.flatten(1)], 1))


class AdvancedIndex(nn.Module):
    """Advanced indexing with index tensors: h[:, pick] (a [2, 2] index
    along a middle dim, a repeated row among them) and table[rows] (a
    parameter's rows: the gradient sums into the repeated row)."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(12, 16), nn.Linear(2 * 2 * 4 + 3 * 4, 4)
        self.table = nn.Parameter(torch.randn(6, 4) * 0.5)
        self.register_buffer("pick", torch.tensor([[0, 3], [1, 1]]))
        self.register_buffer("rows", torch.tensor([5, 2, 5]))

    def forward(self, x):
        h = torch.tanh(self.fc1(x)).view(-1, 4, 4)
        picked = h[:, self.pick].flatten(1)
        extra = self.table[self.rows].flatten().expand(x.shape[0], 12)
        return self.fc2(torch.cat([picked, extra * x[:, :1]], 1))


def gather_label_smoothing(logits, target, smoothing=0.1):
    """timm's LabelSmoothingCrossEntropy, written as timm writes it."""
    logprobs = F.log_softmax(logits, dim=-1)
    nll = -logprobs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
    smooth = -logprobs.mean(dim=-1)
    return ((1 - smoothing) * nll + smoothing * smooth).mean()


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(12, 16), nn.Linear(16, 16), nn.Linear(16, 4)
        self.act1, self.act2 = nn.LeakyReLU(0.2), nn.ELU(alpha=0.7)
        self.act3 = nn.Hardswish()

    def forward(self, x):
        h = self.act1(self.fc1(x))
        h = self.act2(self.fc2(h))
        return self.fc3(self.act3(F.hardtanh(h, -2.0, 2.0)))


class MaskedMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(12, 16), nn.Linear(16, 4)

    def forward(self, x):
        h = torch.clamp(self.fc1(x), -1.0, 1.5)
        h = h.masked_fill(h < 0, 0.0) + 0.1 * torch.where(h > 0.5, h, -h)
        return self.fc2(h)


class TokenBag(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.fc = nn.Linear(8, 4)

    def forward(self, tokens):
        return self.fc(self.emb(tokens).mean(dim=1))


class GroupNormCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.norm = nn.GroupNorm(2, 4)
        self.pool = nn.AdaptiveAvgPool2d((3, 3))  # 5 x 5 into 3 x 3: overlapping
        self.fc = nn.Linear(36, 4)

    def forward(self, x):
        h = self.pool(F.relu(self.norm(self.conv(x))))
        return self.fc(h.flatten(1))


class PaddedCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3)
        self.fc = nn.Linear(3 * 6 * 8, 4)

    def forward(self, x):
        h = F.pad(x, (1, 2, 0, 1), value=0.5)  # 7 x 7 -> 8 x 10
        return self.fc(F.relu(self.conv(h)).flatten(1))


class Selected(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("keep", torch.tensor([0, 2, 5, 7, 11]))
        self.fc = nn.Linear(5, 4)

    def forward(self, x):
        return self.fc(x.index_select(1, self.keep))


class Slices(nn.Module):
    """Slicing, select, cat (its gradient is slices) and argmax feeding an
    embedding."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 16)
        self.emb = nn.Embedding(16, 3)
        self.out = nn.Linear(12, 4)

    def forward(self, x):
        h = self.fc(x)
        picked = self.emb(h.argmax(dim=1))
        z = torch.cat([h[:, 2:10], h.select(1, 0).unsqueeze(1), picked], dim=1)
        return self.out(torch.tanh(z))


class Positions(nn.Module):
    """Token and learned position embeddings (torch.arange), as a language
    model's input."""

    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(20, 8)
        self.pos = nn.Embedding(5, 8)
        self.fc = nn.Linear(8, 4)

    def forward(self, tokens):
        positions = torch.arange(0, tokens.shape[1])
        h = self.tok(tokens) + self.pos(positions)
        return self.fc(F.gelu(h).mean(dim=1))


class Dropped(nn.Module):
    """nn.Dropout twice: two sites of train.dropout on the step's Philox
    state (PyTorch draws other masks: checked for training, not per step)."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(12, 32), nn.Linear(32, 4)
        self.drop1, self.drop2 = nn.Dropout(0.1), nn.Dropout(0.2)

    def forward(self, x):
        return self.fc2(self.drop2(F.relu(self.fc1(self.drop1(x)))))


class CausalSelfAttention(nn.Module):
    """F.scaled_dot_product_attention with is_causal, heads split by hand
    (as nanoGPT writes it)."""

    def __init__(self):
        super().__init__()
        self.qkv, self.proj, self.fc = nn.Linear(8, 24), nn.Linear(8, 8), nn.Linear(8, 4)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(8, dim=2)
        q, k, v = (z.view(b, t, 2, 4).transpose(1, 2) for z in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        o = o.transpose(1, 2).contiguous().view(b, t, c)
        return self.fc(self.proj(o).mean(dim=1))


class GqaRotary(nn.Module):
    """A LLaMA-style block: RMSNorm, rotary position embeddings (cos / sin
    of positions, rotate_half), grouped-query attention (4 query heads, 2
    key / value heads, enable_gqa) and a SiLU-gated MLP."""

    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(8, eps=1e-6), nn.RMSNorm(8, eps=1e-6)
        self.q, self.kv = nn.Linear(8, 8, bias=False), nn.Linear(8, 8, bias=False)
        self.o = nn.Linear(8, 8, bias=False)
        self.gate, self.up = nn.Linear(8, 16, bias=False), nn.Linear(8, 16, bias=False)
        self.down, self.head = nn.Linear(16, 8, bias=False), nn.Linear(8, 4)
        inv = 1.0 / (10000 ** (torch.arange(0, 2, 2).float() / 2))
        self.register_buffer("inv_freq", inv, persistent=False)

    @staticmethod
    def rotate_half(x):
        x1, x2 = x[..., :1], x[..., 1:]
        return torch.cat((-x2, x1), dim=-1)

    def forward(self, x):
        b, t, _ = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, t, 4, 2).transpose(1, 2)
        k, v = self.kv(h).view(b, t, 4, 2).transpose(1, 2).split(2, dim=1)
        freqs = torch.arange(t).float()[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.o(o.transpose(1, 2).reshape(b, t, 8))
        h = self.norm2(x)
        x = x + self.down(F.silu(self.gate(h)) * self.up(h))
        return self.head(x.mean(dim=1))


class ExpandedMask(nn.Module):
    """A causal mask built as Hugging Face builds it, from arange
    comparisons, as floats and expanded over the batch ([B, 1, T, T]: more
    elements than a folded constant may hold, one [T, T] repeated)."""

    def __init__(self):
        super().__init__()
        self.fc, self.head = nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x):
        b, t, _ = x.shape
        pos = torch.arange(t)
        mask = (pos[:, None] >= pos[None, :]).float()
        bias = ((1.0 - mask) * -1e4).expand(b, 1, t, t)
        h = self.fc(x)
        scores = (h @ h.transpose(1, 2)).view(b, 1, t, t) / 2.0 + bias
        att = scores.softmax(dim=-1).view(b, t, t)
        return self.head((att @ h).mean(dim=1))


class Mha(nn.Module):
    """nn.MultiheadAttention with a key padding mask."""

    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(8, 2, batch_first=True)
        self.fc = nn.Linear(8, 4)
        self.register_buffer("pad", torch.tensor([False, False, False, True, True]))

    def forward(self, x):
        mask = self.pad.expand(x.shape[0], -1)
        o, _ = self.att(x, x, x, key_padding_mask=mask, need_weights=False)
        return self.fc(o.mean(dim=1))


class LstmClassifier(nn.Module):
    """nn.LSTM over 5 steps, the last step's output classified."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(6, 8, batch_first=True)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out[:, -1])


class GruClassifier(nn.Module):
    """nn.GRU over 5 steps, two layers, the last step's output classified."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(6, 8, num_layers=2, batch_first=True)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.fc(out[:, -1])


class EncoderLayer(nn.Module):
    """nn.TransformerEncoderLayer (pre-norm, GELU; dropout 0 so that the
    losses compare: with dropout it exports too, on mp's masks)."""

    def __init__(self):
        super().__init__()
        self.enc = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                              batch_first=True, norm_first=True)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(self.enc(x).mean(dim=1))


class FrozenNormFinetune(nn.Module):
    """The fine-tuning recipe: a pretrained backbone's batch norms put in
    eval() (running statistics read, never updated) and its first
    convolution frozen (requires_grad=False), the optimizer given every
    parameter (PyTorch skips those without a gradient); the head's batch
    norm trains. A step that used batch statistics, updated the frozen
    statistics or moved the frozen convolution differs from PyTorch's from
    the first step."""

    def __init__(self, freeze_conv=True):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4)
        self.conv2, self.bn2 = nn.Conv2d(4, 6, 3), nn.BatchNorm2d(6)
        self.head = nn.Linear(6 * 3 * 3, 4)
        self.head_bn = nn.BatchNorm1d(4)
        with torch.no_grad():  # "pretrained" statistics, far from a batch's
            for bn in (self.bn1, self.bn2):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
        self.bn1.eval()
        self.bn2.eval()
        if freeze_conv:
            self.conv1.weight.requires_grad_(False)
            self.conv1.bias.requires_grad_(False)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        return self.head_bn(self.head(h.flatten(1)))


class EvalDropout(nn.Module):
    """A dropout the user switched off with eval() (as inference-like
    fine-tuning does): no random mask, the loss comparable step by step."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(12, 16), nn.Linear(16, 4)
        self.drop = nn.Dropout(0.5)
        self.drop.eval()

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


class PaddedTokens(nn.Module):
    """A token model with a padding embedding row (padding_idx=0: that row
    gets no gradient and stays as initialised), trained with PyTorch's
    default cross-entropy, whose ignore_index=-100 drops the rows Hugging
    Face pads its labels with."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8, padding_idx=0)
        self.fc = nn.Linear(8, 4)

    def forward(self, tokens):
        return self.fc(torch.tanh(self.emb(tokens)).mean(dim=1))


class MobileBlock(nn.Module):
    """The convolutions of MobileNet, ResNeXt and DeepLab: a depthwise
    (groups = channels) and a grouped (groups = 2) convolution, a dilated
    one, batch norm in training and ReLU6, and SqueezeNet's ceil-mode max
    pooling, whose last window overhangs the input."""

    def __init__(self):
        super().__init__()
        self.expand = nn.Conv2d(1, 8, 3, padding=1)
        self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.grouped = nn.Conv2d(8, 6, 1, groups=2)
        self.dilated = nn.Conv2d(6, 6, 3, padding=2, dilation=2)
        self.pool = nn.MaxPool2d(2, stride=2, ceil_mode=True)  # 7 x 7 -> 4 x 4
        self.fc = nn.Linear(6 * 4 * 4, 4)

    def forward(self, x):
        h = F.relu6(self.expand(x))
        h = F.relu6(self.bn(self.dw(h)))
        h = self.dilated(F.relu(self.grouped(h)))
        return self.fc(self.pool(h).flatten(1))


class InPlace(nn.Module):
    """In-place idioms, which the export's functionalization turns into
    functional ops: a running mean of the input kept in a buffer the forward
    updates under no_grad, ReLU(inplace=True), assignment to a slice, a
    strided slice, an element and a row of a transposed view, `+=` on a
    residual and masked_fill_."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(12, 16), nn.Linear(16, 16), nn.Linear(16, 4)
        self.act = nn.ReLU(inplace=True)
        self.register_buffer("mean", torch.zeros(12))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.mean.mul_(0.9).add_(x.mean(0), alpha=0.1)
        h = self.fc1(x - self.mean)
        h[:, :2] = 0.0
        r = self.act(h)
        h = self.fc2(r)
        h[:, 5] = h[:, 4]
        h[:, 1::4] *= 0.5
        h.t()[3] += 0.25
        h += r
        h.masked_fill_(h > 1.0, 1.0)
        return self.fc3(h)


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
