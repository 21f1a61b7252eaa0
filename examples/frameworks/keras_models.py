"""Keras 3 models for the exporter examples and tests, on the digits data
(28x28 images as [N, 784] floats, 10 classes). Models and layers are
named, so the variable paths (and the safetensors names) are stable:
`mlp/fc1/kernel`, ...

Each `build_<name>(batch, seed)` returns (model, to_input): the model
compiled with its Keras 3 optimizer and
SparseCategoricalCrossentropy(from_logits=True), as `model.fit` would
train it.
"""
import keras
from keras import ops

L = keras.layers


def _compiled(model, optimizer):
    model.compile(optimizer=optimizer,
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def build_mlp(batch=32, seed=0):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([
        keras.Input((784,)),
        L.Dense(128, activation="relu", name="fc1"),
        L.Dense(10, name="fc2")], name="mlp")
    return _compiled(model, keras.optimizers.SGD(0.1)), (lambda x: x.reshape(x.shape[0], 784))


def build_cnn(batch=32, seed=0):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(8, 3, padding="same", use_bias=False, name="conv1"),
        L.BatchNormalization(name="bn1"), L.ReLU(name="relu1"),
        L.MaxPool2D(2, name="pool1"),
        L.Conv2D(16, 3, padding="same", use_bias=False, name="conv2"),
        L.BatchNormalization(name="bn2"), L.ReLU(name="relu2"),
        L.GlobalAveragePooling2D(name="gap"),
        L.Dense(10, name="fc")], name="cnn")
    opt = keras.optimizers.SGD(0.02, momentum=0.9)
    return _compiled(model, opt), (lambda x: x.reshape(x.shape[0], 28, 28, 1))


def build_resnet(batch=32, seed=0):
    """A ResNet basic block at 28x28 with 32 channels after a stem (as
    torch_models.ResNetBlock): conv3x3(32)-BN-ReLU, then conv3x3-BN-ReLU-
    conv3x3-BN plus the identity, ReLU, global mean, fc."""
    keras.utils.set_random_seed(seed)
    c = 32
    inputs = keras.Input((28, 28, 1))
    x = L.Conv2D(c, 3, padding="same", use_bias=False, name="stem")(inputs)
    x = L.ReLU(name="relu0")(L.BatchNormalization(name="bn0")(x))
    y = L.Conv2D(c, 3, padding="same", use_bias=False, name="conv1")(x)
    y = L.ReLU(name="relu1")(L.BatchNormalization(name="bn1")(y))
    y = L.Conv2D(c, 3, padding="same", use_bias=False, name="conv2")(y)
    y = L.BatchNormalization(name="bn2")(y)
    x = L.ReLU(name="relu2")(L.Add(name="add")([y, x]))
    x = L.GlobalAveragePooling2D(name="gap")(x)
    model = keras.Model(inputs, L.Dense(10, name="fc")(x), name="resnet")
    # lr 0.005, as torch_models.build_resnet: at 0.02, TensorFlow's own
    # float32 and float64 losses are 7e-4 apart by step 20.
    opt = keras.optimizers.SGD(0.005, momentum=0.9)
    return _compiled(model, opt), (lambda x: x.reshape(x.shape[0], 28, 28, 1))


class TransformerBlock(keras.layers.Layer):
    """The 28 image rows as 28 tokens: embed to d=32, one pre-norm block
    (4-head self-attention written with keras.ops matmuls, GELU MLP), mean
    over tokens (the classifier head follows). The test corpus
    (test/Exporters/keras_corpus.py) has Keras' MultiHeadAttention."""

    def __init__(self, d=32, heads=4, hidden=64, **kw):
        super().__init__(**kw)
        self.d, self.heads = d, heads
        self.embed = L.Dense(d, name="embed")
        self.ln1 = L.LayerNormalization(epsilon=1e-5, name="ln1")
        self.qkv = L.Dense(3 * d, name="qkv")
        self.proj = L.Dense(d, name="proj")
        self.ln2 = L.LayerNormalization(epsilon=1e-5, name="ln2")
        self.fc1 = L.Dense(hidden, name="fc1")
        self.fc2 = L.Dense(d, name="fc2")

    def call(self, x):
        s = x.shape[1]
        d, h = self.d, self.heads
        dh = d // h
        x = self.embed(x)
        q, k, v = ops.split(self.qkv(self.ln1(x)), 3, axis=-1)

        def heads(t):
            return ops.transpose(ops.reshape(t, (-1, s, h, dh)), (0, 2, 1, 3))
        q, k, v = heads(q), heads(k), heads(v)
        att = ops.softmax(ops.matmul(q, ops.transpose(k, (0, 1, 3, 2))) / (dh ** 0.5),
                          axis=-1)
        o = ops.reshape(ops.transpose(ops.matmul(att, v), (0, 2, 1, 3)), (-1, s, d))
        x = x + self.proj(o)
        x = x + self.fc2(ops.gelu(self.fc1(self.ln2(x)), approximate=False))
        return ops.mean(x, axis=1)


def build_transformer(batch=32, seed=0):
    keras.utils.set_random_seed(seed)
    inputs = keras.Input((28, 28))
    h = TransformerBlock(name="block")(inputs)
    model = keras.Model(inputs, L.Dense(10, name="head")(h), name="transformer")
    opt = keras.optimizers.SGD(0.02, momentum=0.9)
    return _compiled(model, opt), (lambda x: x.reshape(x.shape[0], 28, 28))


MODELS = {"mlp": build_mlp, "cnn": build_cnn, "resnet": build_resnet,
          "transformer": build_transformer}
