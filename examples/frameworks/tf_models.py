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


MODELS = {"mlp": build_mlp, "cnn": build_cnn}
