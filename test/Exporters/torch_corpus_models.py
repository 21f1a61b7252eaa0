"""The models of the PyTorch export corpus (torch_corpus.py): small
modules written the way PyTorch's documentation writes them, each reaching
a group of layers, indexing idioms or in-place updates the exporter
carries."""
import torch
import torch.nn as nn
import torch.nn.functional as F


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
