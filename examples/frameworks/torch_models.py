"""PyTorch models for the exporter examples and tests, on the digits data
(data/get_digits.py: 28x28 images as [N, 784] floats, 10 classes).

Each `build_<name>(batch, seed)` returns (model, optimizer, to_input,
loss_fn) with a seeded initialization; `to_input` turns a [B, 784] batch into
the model's input shape (mp-run feeds the same rows reshaped alike).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    """784-128-10 with ReLU."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    """conv3x3(8)-BN-ReLU-maxpool2 -> conv3x3(16)-BN-ReLU-avgpool2 -> global mean
    -> fc."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(x.mean(dim=(2, 3)))


class ResNetBlock(nn.Module):
    """torchvision's BasicBlock at 28x28 with 32 channels after a stem:
    conv3x3(32)-BN-ReLU, then conv3x3-BN-ReLU-conv3x3-BN plus the identity,
    ReLU, global mean, fc. Batch norm sums over 32 x 28 x 28 = 25088 values
    per channel at batch 32: where f32 sums taken one at a time lose ~1e-3
    of a gradient (the accuracy issue docs/runtime-reference.md records)."""

    def __init__(self, c=32, cin=1, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(cin, c, 3, padding=1, bias=False)
        self.bn0 = nn.BatchNorm2d(c)
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        x = F.relu(self.bn0(self.stem(x)))
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = F.relu(out + x)
        return self.fc(out.mean(dim=(2, 3)))


class TransformerBlock(nn.Module):
    """The 28 image rows as a sequence of 28 tokens: embed to d=32, one
    pre-norm block (4-head self-attention + GELU MLP), mean over tokens, fc."""

    def __init__(self, d=32, heads=4, hidden=64):
        super().__init__()
        self.heads = heads
        self.embed = nn.Linear(28, d)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        b, s, _ = x.shape
        h = self.embed(x)
        d = h.shape[-1]
        dh = d // self.heads
        q, k, v = self.qkv(self.ln1(h)).split(d, dim=-1)
        q = q.reshape(b, s, self.heads, dh).transpose(1, 2)
        k = k.reshape(b, s, self.heads, dh).transpose(1, 2)
        v = v.reshape(b, s, self.heads, dh).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(dh), dim=-1)
        o = (att @ v).transpose(1, 2).reshape(b, s, d)
        h = h + self.proj(o)
        h = h + self.fc2(F.gelu(self.fc1(self.ln2(h))))
        return self.head(h.mean(dim=1))


def build_mlp(batch=32, seed=0):
    torch.manual_seed(seed)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, opt, (lambda x: x.reshape(x.shape[0], 784)), F.cross_entropy


def build_mlp_adam(batch=32, seed=0):
    torch.manual_seed(seed)
    model = MLP()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    return model, opt, (lambda x: x.reshape(x.shape[0], 784)), F.cross_entropy


# The gradient-underflow case (docs/mixed-precision-results.md): the MLP with
# its loss multiplied by 2^-20 and the learning rate by 2^20. In float32 (and
# bf16, which has float32's range) that is the same training as build_mlp's:
# powers of two scale exactly. The logits' gradients, |p - y| / 32 * 2^-20 <=
# 2^-25, round to zero in f16 (smallest subnormal 2^-24): without loss
# scaling mixed_float16 flushes every matmul's gradient input to zero, and
# only the biases (whose gradients are f32 reductions) learn. The default
# dynamic scale, 2^15, lifts them into f16's normal range.
LOSS_FACTOR = 2.0 ** -20


def build_mlp_underflow(batch=32, seed=0):
    torch.manual_seed(seed)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1 / LOSS_FACTOR)
    return (model, opt, (lambda x: x.reshape(x.shape[0], 784)),
            (lambda out, y: F.cross_entropy(out, y) * LOSS_FACTOR))


def build_cnn(batch=32, seed=0):
    torch.manual_seed(seed)
    model = CNN()
    # lr 0.05 trains as well but amplifies rounding differences: two float32
    # runs (PyTorch's, mp's) drift 0.03 apart in loss by step 200.
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    return model, opt, (lambda x: x.reshape(x.shape[0], 1, 28, 28)), F.cross_entropy


def build_resnet(batch=32, seed=0):
    torch.manual_seed(seed)
    model = ResNetBlock()
    # lr 0.005: at 0.02 the training amplifies rounding so much that the
    # framework's own float32 and float64 losses are 7e-4 apart by step 20
    # (1e-4 at step 10), and no float32 pair can be compared to 1e-4.
    opt = torch.optim.SGD(model.parameters(), lr=0.005, momentum=0.9)
    return model, opt, (lambda x: x.reshape(x.shape[0], 1, 28, 28)), F.cross_entropy


def build_transformer(batch=32, seed=0):
    torch.manual_seed(seed)
    model = TransformerBlock()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    return model, opt, (lambda x: x.reshape(x.shape[0], 28, 28)), F.cross_entropy


MODELS = {"mlp": build_mlp, "cnn": build_cnn, "resnet": build_resnet,
          "transformer": build_transformer,
          "mlp_adam": build_mlp_adam, "mlp_underflow": build_mlp_underflow}
