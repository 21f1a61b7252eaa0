#!/usr/bin/env python3
"""Exports a Keras model's training step for mp, and trains the same model
in TensorFlow (float32, same init, same batches in file order) as the
reference mp's training must match.

  tf_digits.py export MODEL --data DATA --out OUT [--batch B] [--steps N]
  tf_digits.py load MODEL CHECKPOINT --data DATA

(digits_driver.py says what they write.) MODEL is mlp, cnn or transformer
(examples/frameworks/tf_models.py).
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "..", "python"))

import digits_driver  # noqa: E402
from mp_export import tf_export  # noqa: E402
from tf_models import MODELS  # noqa: E402


class TensorFlow:
    name, version, prefix, models = "TensorFlow", tf.__version__, "tf_", MODELS

    @staticmethod
    def export(built, x, y, out, stem, description):
        model, opt, to_input = built
        step = tf_export.make_step(model, opt)
        tf_export.export(model, opt, to_input(x), y, out, stem, step=step,
                         description=description)
        return lambda xb, yb: float(step(tf.constant(to_input(xb)), tf.constant(yb)))

    @staticmethod
    def float64_run(name, built, batches, state_at):
        """The model built again with float64 variables (Keras' floatx),
        given `built`'s current weights (widened exactly), and a fresh
        optimizer of the same kind."""
        tf.keras.backend.set_floatx("float64")
        try:
            model, opt, to_input = MODELS[name](len(batches[0][1]) if batches else 32)
        finally:
            tf.keras.backend.set_floatx("float32")
        model.set_weights([w.astype(np.float64) for w in built[0].get_weights()])
        step = tf_export.make_step(model, opt)
        losses, states = [], {}
        for xb, yb in batches:
            losses.append(float(step(tf.constant(to_input(xb).astype(np.float64)),
                                     tf.constant(yb))))
            if len(losses) in state_at:
                states[len(losses)] = tf_export.state_tensors(model, opt)
        return losses, states

    @staticmethod
    def evaluate(built, x, y, batch):
        """Mean loss and accuracy over the full batches, as mp-run's
        evaluation (batch statistics in batch norm, state untouched)."""
        model, _, to_input = built
        lossf = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        saved = [v.numpy() for v in model.variables]
        losses, correct, n = [], 0, 0
        for i in range(len(x) // batch):
            xb, yb = to_input(x[i * batch:(i + 1) * batch]), y[i * batch:(i + 1) * batch]
            out = model(xb, training=True)
            losses.append(float(lossf(yb, out)))
            correct += int(np.sum(np.argmax(out.numpy(), 1) == yb))
            n += len(yb)
        for v, s in zip(model.variables, saved):
            v.assign(s)
        return float(np.mean(losses)), correct / n

    @staticmethod
    def state(built):
        return tf_export.state_tensors(built[0], built[1])

    @staticmethod
    def load_checkpoint(built, path):
        return tf_export.load_checkpoint(built[0], path)


if __name__ == "__main__":
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    digits_driver.main(TensorFlow, __doc__)
