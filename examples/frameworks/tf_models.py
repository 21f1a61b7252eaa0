"""Keras models for the exporter examples and tests, on the digits data
(28x28 images as [N, 784] floats, 10 classes). Layers are named, so the
variable paths (and the safetensors names) are stable: `fc1/kernel`, ...

Each `build_<name>(batch, seed)` returns (model, optimizer, to_input).
The optimizers are Keras' legacy ones (`tf.keras.optimizers.legacy`),
whose updates are single raw ops (ResourceApplyGradientDescent,
ResourceApplyKerasMomentum) that the exporter maps.
"""
import tensorflow as tf

L = tf.keras.layers


def build_mlp(batch=32, seed=0):
    tf.keras.utils.set_random_seed(seed)
    model = tf.keras.Sequential([
        L.Dense(128, activation="relu", name="fc1", input_shape=(784,)),
        L.Dense(10, name="fc2")], name="mlp")
    return model, tf.keras.optimizers.legacy.SGD(0.1), (lambda x: x.reshape(x.shape[0], 784))


def build_cnn(batch=32, seed=0):
    tf.keras.utils.set_random_seed(seed)
    model = tf.keras.Sequential([
        L.Conv2D(8, 3, padding="same", use_bias=False, name="conv1",
                 input_shape=(28, 28, 1)),
        L.BatchNormalization(name="bn1"), L.ReLU(name="relu1"),
        L.MaxPool2D(2, name="pool1"),
        L.Conv2D(16, 3, padding="same", use_bias=False, name="conv2"),
        L.BatchNormalization(name="bn2"), L.ReLU(name="relu2"),
        L.GlobalAveragePooling2D(name="gap"),
        L.Dense(10, name="fc")], name="cnn")
    opt = tf.keras.optimizers.legacy.SGD(0.02, momentum=0.9)
    return model, opt, (lambda x: x.reshape(x.shape[0], 28, 28, 1))


def build_resnet(batch=32, seed=0):
    """A ResNet basic block at 28x28 with 32 channels after a stem (as
    torch_models.ResNetBlock): conv3x3(32)-BN-ReLU, then conv3x3-BN-ReLU-
    conv3x3-BN plus the identity, ReLU, global mean, fc."""
    tf.keras.utils.set_random_seed(seed)
    c = 32
    inputs = tf.keras.Input((28, 28, 1), batch_size=batch)
    x = L.Conv2D(c, 3, padding="same", use_bias=False, name="stem")(inputs)
    x = L.ReLU(name="relu0")(L.BatchNormalization(name="bn0")(x))
    y = L.Conv2D(c, 3, padding="same", use_bias=False, name="conv1")(x)
    y = L.ReLU(name="relu1")(L.BatchNormalization(name="bn1")(y))
    y = L.Conv2D(c, 3, padding="same", use_bias=False, name="conv2")(y)
    y = L.BatchNormalization(name="bn2")(y)
    x = L.ReLU(name="relu2")(L.Add(name="add")([y, x]))
    x = L.GlobalAveragePooling2D(name="gap")(x)
    model = tf.keras.Model(inputs, L.Dense(10, name="fc")(x), name="resnet")
    # lr 0.005, as torch_models.build_resnet: at 0.02, TensorFlow's own
    # float32 and float64 losses are 7e-4 apart by step 20.
    opt = tf.keras.optimizers.legacy.SGD(0.005, momentum=0.9)
    return model, opt, (lambda x: x.reshape(x.shape[0], 28, 28, 1))


class TransformerBlock(tf.keras.layers.Layer):
    """The 28 image rows as 28 tokens: embed to d=32, one pre-norm block
    (4-head self-attention written with matmuls, GELU MLP), mean over
    tokens (the classifier head follows). Written with tf ops rather than
    Keras' MultiHeadAttention, whose Einsum the exporter does not map."""

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
        b, s = x.shape[0], x.shape[1]
        d, h = self.d, self.heads
        dh = d // h
        x = self.embed(x)
        q, k, v = tf.split(self.qkv(self.ln1(x)), 3, axis=-1)

        def heads(t):
            return tf.transpose(tf.reshape(t, [b, s, h, dh]), [0, 2, 1, 3])
        q, k, v = heads(q), heads(k), heads(v)
        att = tf.nn.softmax(tf.matmul(q, k, transpose_b=True) / (dh ** 0.5), axis=-1)
        o = tf.reshape(tf.transpose(tf.matmul(att, v), [0, 2, 1, 3]), [b, s, d])
        x = x + self.proj(o)
        x = x + self.fc2(tf.nn.gelu(self.fc1(self.ln2(x))))
        return tf.reduce_mean(x, axis=1)


def build_transformer(batch=32, seed=0):
    tf.keras.utils.set_random_seed(seed)
    inputs = tf.keras.Input((28, 28), batch_size=batch)
    h = TransformerBlock(name="block")(inputs)
    model = tf.keras.Model(inputs, L.Dense(10, name="head")(h), name="transformer")
    opt = tf.keras.optimizers.legacy.SGD(0.02, momentum=0.9)
    return model, opt, (lambda x: x.reshape(x.shape[0], 28, 28))


MODELS = {"mlp": build_mlp, "cnn": build_cnn, "resnet": build_resnet,
          "transformer": build_transformer}
