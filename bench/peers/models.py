"""The bench models of bench/gen_models.py written in PyTorch and in Keras 3:
the same layers, sizes, loss and optimizer as the train-dialect steps mp
runs, for the side-by-side run of bench/peers/peers.py.

mlp: 1024-4096-4096-1000 (batch 256), ReLU, mean softmax cross-entropy,
  SGD lr 0.1.
cnn: 32x32x3 images (batch 64): [3x3 conv (no bias) -> batch norm -> ReLU]
  with 32 channels, 2x2 max pool, the same with 64 channels, global average
  pool, a linear head to 10 classes; SGD lr 0.05 momentum 0.9.
transformer: one pre-LN encoder block (d_model 512, 8 heads, FFN 2048,
  exact GELU, no dropout) on [16, 128, 512] features, a final layer norm,
  mean over the sequence, a linear head to 10 classes; AdamW lr 1e-3,
  weight decay 0.01.
resnet: examples/frameworks/torch_models.py's ResNetBlock (torchvision's
  BasicBlock after a stem: conv3x3(32)-BN-ReLU, conv3x3-BN-ReLU-conv3x3-BN
  plus the identity, ReLU, global mean, fc) on 32x32x3 images, batch 64;
  SGD lr 0.005 momentum 0.9.
causal_lm: examples/causal_lm.py's architecture at bench size: token and
  learned positional embeddings (vocabulary 512, 128 positions), 2 pre-LN
  blocks of causal attention (d_model 256, 4 heads; PyTorch's
  scaled_dot_product_attention with is_causal, Keras's MultiHeadAttention
  with use_causal_mask) and an exact-GELU MLP of 1024, a final layer norm,
  a linear head (not tied: Keras has no tied head), mean cross-entropy
  over every position, batch 16; AdamW lr 1e-3, weight decay 0.01. No
  dropout, schedule or clipping (the example's are its training recipe,
  not its cost).

mp runs gen_models.py's train-dialect steps for the first three and
mp_export's export of the PyTorch model for resnet and causal_lm.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SIZES = {
    "mlp": {"batch": 256, "dims": (1024, 4096, 4096, 1000)},
    "cnn": {"batch": 64, "image": (3, 32, 32), "classes": 10},
    "transformer": {"batch": 16, "seq": 128, "d_model": 512, "heads": 8,
                    "d_ff": 2048, "classes": 10},
    "resnet": {"batch": 64, "image": (3, 32, 32), "channels": 32, "classes": 10},
    "causal_lm": {"batch": 16, "seq": 128, "vocab": 512, "d_model": 256, "heads": 4,
                  "d_ff": 1024, "layers": 2},
}
EXPORTED = ("resnet", "causal_lm")  # mp runs mp_export's export of torch_model


def torch_model(name):
    """(module, optimizer, x, y, loss_fn) for PyTorch: the step is
    loss_fn(module(x), y), backward, optimizer.step()."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    s = SIZES[name]
    if name == "mlp":
        d = s["dims"]
        layers = []
        for i in range(len(d) - 1):
            layers.append(nn.Linear(d[i], d[i + 1]))
            if i + 2 < len(d):
                layers.append(nn.ReLU())
        model = nn.Sequential(*layers)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(s["batch"], d[0])
        y = torch.randint(0, d[-1], (s["batch"],))
        return model, opt, x, y, F.cross_entropy
    if name == "cnn":
        c = s["image"][0]

        def block(cin, cout):
            return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                    nn.ReLU()]
        model = nn.Sequential(*block(c, 32), nn.MaxPool2d(2), *block(32, 64),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                              nn.Linear(64, s["classes"]))
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        x = torch.randn(s["batch"], *s["image"])
        y = torch.randint(0, s["classes"], (s["batch"],))
        return model, opt, x, y, F.cross_entropy

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            dm = s["d_model"]
            self.ln1, self.ln2, self.norm = (nn.LayerNorm(dm), nn.LayerNorm(dm),
                                             nn.LayerNorm(dm))
            self.q, self.k, self.v, self.o = (nn.Linear(dm, dm) for _ in range(4))
            self.fc1, self.fc2 = nn.Linear(dm, s["d_ff"]), nn.Linear(s["d_ff"], dm)
            self.head = nn.Linear(dm, s["classes"])

        def forward(self, x):
            b, t, dm = x.shape
            h_ = s["heads"]

            def split(z):
                return z.view(b, t, h_, dm // h_).transpose(1, 2)
            a = self.ln1(x)
            q, k, v = split(self.q(a)), split(self.k(a)), split(self.v(a))
            probs = torch.softmax(q @ k.transpose(-1, -2) / (dm // h_) ** 0.5, dim=-1)
            ctx = (probs @ v).transpose(1, 2).reshape(b, t, dm)
            h = x + self.o(ctx)
            z = h + self.fc2(F.gelu(self.fc1(self.ln2(h))))
            return self.head(self.norm(z).mean(dim=1))

    if name == "resnet":
        return _torch_resnet(s)
    if name == "causal_lm":
        return _torch_causal_lm(s)
    model = Block()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    x = torch.randn(s["batch"], s["seq"], s["d_model"])
    y = torch.randint(0, s["classes"], (s["batch"],))
    return model, opt, x, y, F.cross_entropy


def _torch_resnet(s):
    """The examples' ResNet basic block (examples/frameworks/torch_models.py)
    on 3-channel images."""
    import torch
    import torch.nn.functional as F
    sys.path.insert(0, os.path.join(ROOT, "examples", "frameworks"))
    from torch_models import ResNetBlock

    model = ResNetBlock(s["channels"], s["image"][0], s["classes"])
    opt = torch.optim.SGD(model.parameters(), lr=0.005, momentum=0.9)
    x = torch.randn(s["batch"], *s["image"])
    y = torch.randint(0, s["classes"], (s["batch"],))
    return model, opt, x, y, F.cross_entropy


def _torch_causal_lm(s):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self, d, heads, d_ff):
            super().__init__()
            self.heads = heads
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.fc1, self.fc2 = nn.Linear(d, d_ff), nn.Linear(d_ff, d)

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                       for z in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    class CausalLM(nn.Module):
        def __init__(self):
            super().__init__()
            d = s["d_model"]
            self.tok = nn.Embedding(s["vocab"], d)
            self.pos = nn.Embedding(s["seq"], d)
            self.blocks = nn.ModuleList(Block(d, s["heads"], s["d_ff"])
                                        for _ in range(s["layers"]))
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, s["vocab"], bias=False)

        def forward(self, tokens):
            x = self.tok(tokens) + self.pos(torch.arange(tokens.shape[1]))
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x))

    def loss_fn(logits, targets):
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten())

    model = CausalLM()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    x = torch.randint(0, s["vocab"], (s["batch"], s["seq"]))
    y = torch.randint(0, s["vocab"], (s["batch"], s["seq"]))
    return model, opt, x, y, loss_fn


def keras_model(name):
    """(compiled model, x, y) for Keras 3 (channels-last images, as Keras
    users write them)."""
    import keras
    import numpy as np

    s = SIZES[name]
    rng = np.random.default_rng(0)
    layers = keras.layers
    if name == "mlp":
        d = s["dims"]
        inputs = keras.Input((d[0],))
        h = inputs
        for i in range(1, len(d)):
            h = layers.Dense(d[i], activation="relu" if i + 1 < len(d) else None)(h)
        model = keras.Model(inputs, layers.Activation("linear", dtype="float32")(h))
        opt = keras.optimizers.SGD(0.1)
        x = rng.standard_normal((s["batch"], d[0]), dtype=np.float32)
        y = rng.integers(0, d[-1], s["batch"])
    elif name == "cnn":
        c, hh, ww = s["image"]
        inputs = keras.Input((hh, ww, c))
        h = inputs
        for i, cout in enumerate((32, 64)):
            h = layers.Conv2D(cout, 3, padding="same", use_bias=False)(h)
            h = layers.BatchNormalization(momentum=0.9, epsilon=1e-5)(h)
            h = layers.ReLU()(h)
            if i == 0:
                h = layers.MaxPooling2D(2)(h)
        h = layers.GlobalAveragePooling2D()(h)
        out = layers.Dense(s["classes"])(h)
        model = keras.Model(inputs, layers.Activation("linear", dtype="float32")(out))
        opt = keras.optimizers.SGD(0.05, momentum=0.9)
        x = rng.standard_normal((s["batch"], hh, ww, c), dtype=np.float32)
        y = rng.integers(0, s["classes"], s["batch"])
    elif name == "resnet":
        c, hh, ww = s["image"]
        ch = s["channels"]
        inputs = keras.Input((hh, ww, c))

        def conv_bn(t):
            t = layers.Conv2D(ch, 3, padding="same", use_bias=False)(t)
            return layers.BatchNormalization(momentum=0.9, epsilon=1e-5)(t)
        h = layers.ReLU()(conv_bn(inputs))
        r = conv_bn(layers.ReLU()(conv_bn(h)))
        h = layers.ReLU()(layers.Add()([r, h]))
        out = layers.Dense(s["classes"])(layers.GlobalAveragePooling2D()(h))
        model = keras.Model(inputs, layers.Activation("linear", dtype="float32")(out))
        opt = keras.optimizers.SGD(0.005, momentum=0.9)
        x = rng.standard_normal((s["batch"], hh, ww, c), dtype=np.float32)
        y = rng.integers(0, s["classes"], s["batch"])
    elif name == "causal_lm":
        model = _keras_causal_lm(keras, s)
        opt = keras.optimizers.AdamW(1e-3, weight_decay=0.01)
        x = rng.integers(0, s["vocab"], (s["batch"], s["seq"]))
        y = rng.integers(0, s["vocab"], (s["batch"], s["seq"]))
    else:
        dm, heads = s["d_model"], s["heads"]
        inputs = keras.Input((s["seq"], dm))
        z = _keras_pre_ln_block(keras, inputs, heads, dm, s["d_ff"], causal=False)
        z = layers.LayerNormalization(epsilon=1e-5)(z)
        out = layers.Dense(s["classes"])(layers.GlobalAveragePooling1D()(z))
        model = keras.Model(inputs, layers.Activation("linear", dtype="float32")(out))
        opt = keras.optimizers.AdamW(1e-3, weight_decay=0.01)
        x = rng.standard_normal((s["batch"], s["seq"], dm), dtype=np.float32)
        y = rng.integers(0, s["classes"], s["batch"])
    model.compile(optimizer=opt,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model, x, y


def _keras_pre_ln_block(keras, x, heads, d, d_ff, causal):
    """x + attention(norm(x)), then + an exact-GELU MLP of the norm."""
    layers = keras.layers
    a = layers.LayerNormalization(epsilon=1e-5)(x)
    a = layers.MultiHeadAttention(heads, d // heads)(a, a, use_causal_mask=causal)
    x = layers.Add()([x, a])
    m = layers.LayerNormalization(epsilon=1e-5)(x)
    m = layers.Dense(d_ff, activation=lambda t: keras.activations.gelu(
        t, approximate=False))(m)
    return layers.Add()([x, layers.Dense(d)(m)])


def _keras_causal_lm(keras, s):
    layers = keras.layers
    d = s["d_model"]

    class PositionEmbedding(layers.Layer):
        """Adds a learned [seq, d_model] table (keras_hub's PositionEmbedding
        without the library)."""

        def build(self, shape):
            self.table = self.add_weight(shape=(shape[1], shape[2]),
                                         initializer="random_normal", name="table")

        def call(self, x):
            return x + keras.ops.cast(self.table, x.dtype)

    tokens = keras.Input((s["seq"],), dtype="int32")
    x = PositionEmbedding()(layers.Embedding(s["vocab"], d)(tokens))
    for _ in range(s["layers"]):
        x = _keras_pre_ln_block(keras, x, s["heads"], d, s["d_ff"], causal=True)
    x = layers.LayerNormalization(epsilon=1e-5)(x)
    out = layers.Dense(s["vocab"], use_bias=False)(x)
    return keras.Model(tokens, layers.Activation("linear", dtype="float32")(out))
