#!/usr/bin/env python3
"""Exports a compiled Keras 3 model's training step for mp, and trains the
same model with Keras (train_on_batch: float32, same init, same batches in
file order) as the reference mp's training must match.

  keras_digits.py export MODEL --data DATA --out OUT [--batch B] [--steps N]
  keras_digits.py load MODEL CHECKPOINT --data DATA

(digits_driver.py says what they write.) MODEL is mlp, cnn, resnet or
transformer (examples/frameworks/keras_models.py).
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))

import digits_driver  # noqa: E402
import mp_export.keras as keras_export  # noqa: E402
from keras_models import MODELS  # noqa: E402


class Keras:
    name, version, prefix, models = "Keras", keras.__version__, "keras_", MODELS

    @staticmethod
    def export(built, x, y, out, stem, description):
        model, to_input = built
        keras_export.export(model, to_input(x), y, out, stem, description=description)
        return lambda xb, yb: float(model.train_on_batch(to_input(xb), yb))

    @staticmethod
    def float64_run(name, built, batches, state_at):
        """The model built again with float64 variables (Keras' floatx),
        given `built`'s current weights (widened exactly), and a fresh
        optimizer of the same kind."""
        # The dtype policy, not only floatx: layers take their variables'
        # and computations' dtype from it.
        keras.config.set_dtype_policy("float64")
        try:
            model, to_input = MODELS[name](len(batches[0][1]) if batches else 32)
        finally:
            keras.config.set_dtype_policy("float32")
        model.set_weights([w.astype(np.float64) for w in built[0].get_weights()])
        losses, states = [], {}
        for xb, yb in batches:
            losses.append(float(model.train_on_batch(to_input(xb).astype(np.float64), yb)))
            if len(losses) in state_at:
                states[len(losses)] = keras_export.state_tensors(model, model.optimizer)
        return losses, states

    @staticmethod
    def evaluate(built, x, y, batch):
        """Mean loss and accuracy over the full batches, as mp-run's
        evaluation (batch statistics in batch norm, state untouched)."""
        model, to_input = built
        lossf = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        saved = [keras.ops.convert_to_numpy(v) for v in model.variables]
        losses, correct, n = [], 0, 0
        for i in range(len(x) // batch):
            xb, yb = to_input(x[i * batch:(i + 1) * batch]), y[i * batch:(i + 1) * batch]
            out = model(xb, training=True)
            losses.append(float(lossf(yb, out)))
            correct += int(np.sum(np.argmax(keras.ops.convert_to_numpy(out), 1) == yb))
            n += len(yb)
        for v, s in zip(model.variables, saved):
            v.assign(s)
        return float(np.mean(losses)), correct / n

    @staticmethod
    def state(built):
        return keras_export.state_tensors(built[0], built[0].optimizer)

    @staticmethod
    def load_checkpoint(built, path):
        return keras_export.load_checkpoint(built[0], path)


if __name__ == "__main__":
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    digits_driver.main(Keras, __doc__)
