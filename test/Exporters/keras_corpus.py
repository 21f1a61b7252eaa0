"""Small Keras 3 training steps written the way Keras' documentation writes
them: compiled Sequential and functional models and one subclassed layer,
with Keras 3's own optimizers (SGD with momentum / Nesterov, Adam, AdamW,
RMSprop, Adagrad), weight decay, clipnorm / global_clipnorm / clipvalue,
learning-rate schedules, regularizers, and the common losses and layers
(Dense, Conv1D/2D, DepthwiseConv2D, SeparableConv2D, BatchNormalization,
LayerNormalization, GroupNormalization, Embedding on integer tokens,
MultiHeadAttention, LSTM / GRU, pooling).

For each: export -> mp-compile under float32, mixed_bfloat16 and
mixed_float16 -> mp-run STEPS steps on one batch from the exported initial
parameters; the float32 per-step losses must match Keras' own
`train_on_batch` on that batch to 1e-4 relative, the 16-bit runs must end
within 0.05 of Keras' last loss, and the float32 checkpoint loaded back into
the Keras model must give the variables mp trained (and Keras' loss on the
batch within 1e-4 of mp's next step's).

usage: keras_corpus.py BUILD_DIR [--json FILE] [CASE ...]; prints one line
per case and 'N passed, M failed'; exits non-zero on a failure. --json
writes the rows test/Exporters/corpus_table.py turns into the table.
"""
import os
import re
import sys
import tempfile

import numpy as np

import corpus_main  # noqa: E402  (beside this file)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
from keras import layers as L  # noqa: E402

import mp_export.keras as keras_export  # noqa: E402
import zoo_keras  # noqa: E402  (beside this file)

STEPS, BATCH = 20, 8
K = keras.optimizers
S = keras.optimizers.schedules


def _rng():
    return np.random.default_rng(7)


def vectors(n=12):
    return lambda: _rng().standard_normal((BATCH, n)).astype(np.float32)


def images(h=8, w=8, c=3):
    return lambda: _rng().standard_normal((BATCH, h, w, c)).astype(np.float32)


def sequences(t=6, f=5):
    return lambda: _rng().standard_normal((BATCH, t, f)).astype(np.float32)


def tokens(t=7, vocab=20):
    return lambda: _rng().integers(0, vocab, (BATCH, t)).astype(np.int32)


def classes(n=4):
    return lambda: _rng().integers(0, n, BATCH).astype(np.int64)


def one_hot(n=4):
    return lambda: np.eye(n, dtype=np.float32)[_rng().integers(0, n, BATCH)]


def targets(shape):
    return lambda: _rng().standard_normal((BATCH,) + shape).astype(np.float32)


def binary(n=3):
    return lambda: (_rng().random((BATCH, n)) > 0.5).astype(np.float32)


# --- the models, each a function returning an uncompiled model ---------------
def mlp_l2_layernorm():
    return keras.Sequential([
        keras.Input((12,)),
        L.Dense(16, activation="relu", kernel_regularizer=keras.regularizers.L2(1e-2)),
        L.LayerNormalization(),
        L.Dense(4)])


def mlp_gelu_l1l2():
    inputs = keras.Input((12,))
    h = L.Dense(16, activation="gelu", kernel_regularizer=keras.regularizers.L1L2(1e-3, 1e-3),
                bias_regularizer="l2")(inputs)
    h = L.Dense(16, activation="tanh", activity_regularizer=keras.regularizers.L2(1e-3))(h)
    return keras.Model(inputs, L.Dense(4)(h))


def cnn_batchnorm():
    return keras.Sequential([
        keras.Input((8, 8, 3)),
        L.Conv2D(6, 3, padding="same", use_bias=False), L.BatchNormalization(), L.ReLU(),
        L.MaxPooling2D(),
        L.Conv2D(8, 3, strides=2, padding="valid"), L.Activation("relu"),
        L.GlobalAveragePooling2D(), L.Dense(4)])


def separable_cnn():
    return keras.Sequential([
        keras.Input((8, 8, 3)),
        L.Conv2D(8, 3, padding="same", activation="relu"),
        L.DepthwiseConv2D(3, padding="same", depth_multiplier=2),
        L.BatchNormalization(), L.Activation("relu6"),
        L.SeparableConv2D(8, 3, padding="same", activation="relu"),
        L.AveragePooling2D(2), L.Flatten(), L.Dense(4)])


def grouped_conv():
    return keras.Sequential([
        keras.Input((8, 8, 4)),
        L.Conv2D(8, 3, padding="same", activation="silu"),
        L.GroupNormalization(groups=4), L.Conv2D(8, 1), L.LeakyReLU(0.1),
        L.GlobalMaxPooling2D(), L.Dense(4)])


def grouped_dilated_cnn():
    return keras.Sequential([
        keras.Input((10, 10, 4)),
        L.Conv2D(8, 3, groups=2, padding="same", activation="relu"),
        L.Conv2D(8, 3, dilation_rate=2, padding="same", activation="relu"),
        L.DepthwiseConv2D(3, dilation_rate=2, padding="valid"),
        L.GlobalAveragePooling2D(), L.Dense(4)])


def temporal_conv():
    """A TCN-style stack: causal, dilated Conv1D with residuals."""
    inputs = keras.Input((16, 3))
    h = L.Conv1D(8, 1)(inputs)
    for rate in (1, 2, 4):
        h = h + L.Conv1D(8, 3, padding="causal", dilation_rate=rate, activation="relu")(h)
    return keras.Model(inputs, L.Dense(4)(L.GlobalAveragePooling1D()(h)))


def upsampling_autoencoder():
    """Conv, pooling, UpSampling2D (repeats) and a decoder, as Keras'
    autoencoder examples write it, trained as a classifier."""
    return keras.Sequential([
        keras.Input((8, 8, 3)),
        L.Conv2D(6, 3, padding="same", activation="relu"), L.MaxPooling2D(2),
        L.UpSampling2D(2), L.Conv2D(4, 3, padding="same", activation="relu"),
        L.GlobalAveragePooling2D(), L.RepeatVector(3), L.Flatten(), L.Dense(4)])


def tiled_features():
    return keras.Sequential([
        keras.Input((12,)), L.Dense(6, activation="tanh"),
        L.Lambda(lambda t: keras.ops.tile(keras.ops.expand_dims(t, 1), (1, 3, 2))),
        L.Flatten(), L.Dense(4)])


def mobilenet_block():
    """An inverted-residual-style block as keras.applications writes one."""
    inputs = keras.Input((8, 8, 3))
    h = L.ZeroPadding2D(1)(inputs)
    h = L.Conv2D(8, 3, strides=2, use_bias=False)(h)
    h = L.ReLU(6.0)(L.BatchNormalization()(h))
    r = L.DepthwiseConv2D(3, padding="same", use_bias=False)(h)
    r = L.ReLU(6.0)(L.BatchNormalization()(r))
    r = L.Conv2D(8, 1, use_bias=False)(r)
    h = L.Add()([h, r])
    return keras.Model(inputs, L.Dense(4)(L.GlobalAveragePooling2D()(h)))


def decoder():
    return keras.Sequential([
        keras.Input((4, 4, 3)),
        L.Conv2DTranspose(6, 3, strides=2, padding="same", activation="relu"),
        L.Cropping2D(1), L.Conv2D(4, 3), L.Flatten(), L.Dense(4)])


def bidir():
    return keras.Sequential([keras.Input((6, 5)), L.Bidirectional(L.LSTM(4)), L.Dense(4)])


def bidir_sequences():
    """keras.io's bidirectional LSTM text classifier: two stacked
    Bidirectional LSTMs, the first returning sequences (the backward
    layer's outputs are reversed back: ReverseV2)."""
    return keras.Sequential([keras.Input((6, 5)),
                             L.Bidirectional(L.LSTM(4, return_sequences=True)),
                             L.Bidirectional(L.LSTM(3)), L.Dense(4)])


def merges_prelu_rmsnorm():
    inputs = keras.Input((12,))
    a = L.Dense(8)(inputs)
    b = L.Dense(8, activation="sigmoid")(inputs)
    h = L.PReLU()(L.Concatenate()([L.Multiply()([a, b]), a]))
    h = L.RMSNormalization()(h)
    return keras.Model(inputs, L.Dense(4)(L.Softmax()(h)))


def mish_unit_norm():
    return keras.Sequential([keras.Input((12,)), L.Dense(8), L.UnitNormalization(),
                             L.Dense(8, activation="mish"), L.Dense(4)])


def conv1d_classifier():
    return keras.Sequential([
        keras.Input((16, 3)),
        L.Conv1D(8, 3, padding="same", activation="relu"),
        L.MaxPooling1D(2), L.Conv1D(8, 3, strides=2, activation="elu"),
        L.GlobalAveragePooling1D(), L.Dense(4)])


def token_bag():
    inputs = keras.Input((7,), dtype="int32")
    h = L.Embedding(20, 8)(inputs)
    h = L.GlobalAveragePooling1D()(h)
    return keras.Model(inputs, L.Dense(4)(L.Dense(16, activation="relu")(h)))


def ids_sequential_binary():
    """keras.io's text classifiers as written: a Sequential with no Input,
    built on integer ids (so Keras casts them to its float input and the
    Embedding back), one sigmoid unit."""
    return keras.Sequential([L.Embedding(20, 8), L.GlobalAveragePooling1D(),
                             L.Dense(1, activation="sigmoid")])


def two_outputs():
    """Logits and the hidden features (keras.io's miniature GPT returns
    [logits, x] and trains the logits alone)."""
    inputs = keras.Input((12,))
    h = L.Dense(16, activation="relu")(inputs)
    return keras.Model(inputs, [L.Dense(4)(h), h])


def same_avg_pool():
    """'same' average pooling whose edge windows overhang (5 x 5 in 3 x 3
    windows, stride 2; 2 x 2 at stride 1): TensorFlow divides them by
    their valid elements (NASNet's reduction cells pool so)."""
    return keras.Sequential([keras.Input((5, 5, 3)), L.Conv2D(4, 1, activation="relu"),
                             L.AveragePooling2D(3, strides=2, padding="same"),
                             L.AveragePooling2D(2, strides=1, padding="same"),
                             L.Flatten(), L.Dense(4)])


def attention_block():
    inputs = keras.Input((7,), dtype="int32")
    h = L.Embedding(20, 8)(inputs)
    a = L.MultiHeadAttention(num_heads=2, key_dim=4)(h, h)
    h = L.LayerNormalization(epsilon=1e-6)(h + a)
    f = L.Dense(8)(L.Dense(16, activation="gelu")(h))
    h = L.LayerNormalization()(h + f)
    return keras.Model(inputs, L.Dense(4)(L.GlobalAveragePooling1D()(h)))


def causal_attention():
    inputs = keras.Input((6, 5))
    h = L.Dense(8)(inputs)
    a = L.MultiHeadAttention(num_heads=2, key_dim=4)(h, h, use_causal_mask=True)
    return keras.Model(inputs, L.Dense(4)(L.Flatten()(h + a)))


# keras.io's layer of its text examples, as written there (the zoo corpus'
# copy of keras.io's code).
TokenAndPositionEmbedding = zoo_keras._keras_io_layers()[1]


def causal_lm():
    """keras.io's miniature GPT: token and position embeddings, a causal
    self-attention block, a [B, T, vocab] output trained on [B, T] next
    tokens with SparseCategoricalCrossentropy(from_logits=True)."""
    inputs = keras.Input((7,), dtype="int32")
    h = TokenAndPositionEmbedding(7, 20, 8)(inputs)
    a = L.MultiHeadAttention(num_heads=2, key_dim=4)(h, h, use_causal_mask=True)
    h = L.LayerNormalization(epsilon=1e-6)(h + a)
    h = L.LayerNormalization(epsilon=1e-6)(h + L.Dense(8)(L.Dense(16, activation="relu")(h)))
    return keras.Model(inputs, L.Dense(20)(h))


def lstm_classifier():
    return keras.Sequential([keras.Input((6, 5)), L.LSTM(8), L.Dense(4)])


def stacked_gru():
    return keras.Sequential([keras.Input((6, 5)), L.GRU(8, return_sequences=True),
                             L.GRU(6), L.Dense(4)])


def softmax_head():
    return keras.Sequential([keras.Input((12,)), L.Dense(16, activation="relu"),
                             L.Dense(4, activation="softmax")])


def multilabel():
    return keras.Sequential([keras.Input((12,)), L.Dense(16, activation="relu"), L.Dense(3)])


def sigmoid_head():
    return keras.Sequential([keras.Input((12,)), L.Dense(16, activation="relu"),
                             L.Dense(3, activation="sigmoid")])


def regression():
    return keras.Sequential([keras.Input((12,)), L.Dense(16, activation="swish"),
                             L.Dense(2)])


class Residual(keras.layers.Layer):
    """A subclassed layer, as Keras' guide writes one."""

    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.fc = L.Dense(units, activation="relu")
        self.norm = L.LayerNormalization()

    def call(self, x):
        return self.norm(x + self.fc(x))


def subclassed_residual():
    return keras.Sequential([keras.Input((12,)), L.Dense(16), Residual(16), Residual(16),
                             L.Dense(4)])


SCCE = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# name: (model, input, labels, optimizer, loss)
CASES = {
    "mlp_adam_l2_layernorm": (mlp_l2_layernorm, vectors(), classes(),
                              lambda: K.Adam(0.01), SCCE),
    "mlp_gelu_sgd_nesterov_regularizers": (
        mlp_gelu_l1l2, vectors(), classes(),
        lambda: K.SGD(0.05, momentum=0.9, nesterov=True), SCCE),
    "cnn_batchnorm_sgd_momentum": (cnn_batchnorm, images(), classes(),
                                   lambda: K.SGD(0.05, momentum=0.9), SCCE),
    "separable_cnn_rmsprop": (separable_cnn, images(), classes(),
                              lambda: K.RMSprop(0.001), SCCE),
    "conv_groupnorm_adamw_clipnorm": (grouped_conv, images(c=4), classes(),
                                    lambda: K.AdamW(0.005, weight_decay=0.01, clipnorm=0.5),
                                    SCCE),
    "grouped_dilated_cnn_adam": (grouped_dilated_cnn, images(10, 10, 4), classes(),
                                 lambda: K.Adam(0.005), SCCE),
    "temporal_conv_sgd": (temporal_conv, sequences(16, 3), classes(),
                          lambda: K.SGD(0.05, momentum=0.9), SCCE),
    "upsampling_repeat_rmsprop": (upsampling_autoencoder, images(), classes(),
                                  lambda: K.RMSprop(0.002), SCCE),
    "tiled_features_sgd": (tiled_features, vectors(), classes(), lambda: K.SGD(0.1), SCCE),
    "mobilenet_block_adam": (mobilenet_block, images(), classes(), lambda: K.Adam(0.005),
                             SCCE),
    "conv_transpose_decoder_sgd": (decoder, images(4, 4, 3), classes(),
                                   lambda: K.SGD(0.05, momentum=0.9), SCCE),
    "bidirectional_lstm_adam": (bidir, sequences(), classes(), lambda: K.Adam(0.01), SCCE),
    "bidirectional_sequences_sgd": (bidir_sequences, sequences(), classes(),
                                    lambda: K.SGD(0.1, momentum=0.9), SCCE),
    "merges_prelu_rmsnorm_adam": (merges_prelu_rmsnorm, vectors(), classes(),
                                  lambda: K.Adam(0.01), SCCE),
    "mish_unit_norm_sgd": (mish_unit_norm, vectors(), classes(), lambda: K.SGD(0.1), SCCE),
    "conv1d_adagrad": (conv1d_classifier, sequences(16, 3), classes(),
                       lambda: K.Adagrad(0.05), SCCE),
    "embedding_adamw_exponential_decay": (
        token_bag, tokens(), classes(),
        lambda: K.AdamW(S.ExponentialDecay(0.01, decay_steps=5, decay_rate=0.5)), SCCE),
    # An Embedding's gradient reaches Keras' optimizer as tf.IndexedSlices,
    # one row per token (56 tokens, 19 distinct ids here). global_clipnorm
    # (Keras' own clip_by_global_norm) takes the norm of the rows as they
    # are but returns `rows * scale`, a dense tensor that sums repeated ids:
    # Adam / RMSprop / Adagrad then square the sum, clipped or not (a norm
    # of 0.24 to 0.57 here: 10.0 and 1.0 never clip, 0.1 clips every step).
    # clipnorm and clipvalue keep the rows, which the optimizers square one
    # by one (0.05 and 0.005 clip the embedding's gradient).
    "embedding_adam_global_clipnorm": (token_bag, tokens(), classes(),
                                       lambda: K.Adam(0.01, global_clipnorm=10.0), SCCE),
    "embedding_adam_global_clipnorm_clipping": (
        token_bag, tokens(), classes(), lambda: K.Adam(0.01, global_clipnorm=0.1), SCCE),
    "embedding_adamw_global_clipnorm": (
        token_bag, tokens(), classes(),
        lambda: K.AdamW(0.01, weight_decay=0.05, global_clipnorm=0.1), SCCE),
    "embedding_rmsprop_momentum_global_clipnorm": (
        token_bag, tokens(), classes(),
        lambda: K.RMSprop(0.005, momentum=0.5, global_clipnorm=1.0), SCCE),
    "embedding_adagrad_global_clipnorm": (
        token_bag, tokens(), classes(),
        lambda: K.Adagrad(0.01, initial_accumulator_value=1e-4, global_clipnorm=10.0), SCCE),
    "embedding_adam_clipnorm": (token_bag, tokens(), classes(),
                                lambda: K.Adam(0.01, clipnorm=0.05), SCCE),
    "embedding_rmsprop_clipvalue": (token_bag, tokens(), classes(),
                                    lambda: K.RMSprop(0.005, clipvalue=0.005), SCCE),
    "attention_adam_cosine_warmup": (
        attention_block, tokens(), classes(),
        lambda: K.Adam(S.CosineDecay(0.001, decay_steps=15, alpha=0.1, warmup_target=0.01,
                                     warmup_steps=5)), SCCE),
    # SGD: Adam's m / sqrt(v) turns the query weights' gradients, sums that
    # cancel to 1e-9 at initialization, into lr-sized steps whose signs are
    # rounding noise, in TensorFlow as in mp.
    "attention_sgd_global_clipnorm": (attention_block, tokens(), classes(),
                                      lambda: K.SGD(0.05, momentum=0.9, global_clipnorm=1.0),
                                      SCCE),
    "causal_attention_sgd": (causal_attention, sequences(), classes(),
                             lambda: K.SGD(0.05), SCCE),
    "causal_lm_token_labels": (causal_lm, tokens(), tokens(),
                               lambda: K.Adam(0.01),
                               keras.losses.SparseCategoricalCrossentropy(from_logits=True)),
    "lstm_adam_clipvalue": (lstm_classifier, sequences(), classes(),
                            lambda: K.Adam(0.01, clipvalue=0.1), SCCE),
    "stacked_gru_rmsprop_momentum": (stacked_gru, sequences(), classes(),
                                     lambda: K.RMSprop(0.005, momentum=0.5), SCCE),
    "softmax_categorical_label_smoothing": (
        softmax_head, vectors(), one_hot(),
        lambda: K.SGD(S.ExponentialDecay(0.1, 4, 0.8, staircase=True)),
        keras.losses.CategoricalCrossentropy(label_smoothing=0.1)),
    "softmax_sparse_string_loss": (softmax_head, vectors(), classes(),
                                   lambda: K.Adam(0.01), "sparse_categorical_crossentropy"),
    "multilabel_bce_logits": (multilabel, vectors(), binary(),
                              lambda: K.Adam(0.01),
                              keras.losses.BinaryCrossentropy(from_logits=True)),
    "sigmoid_bce_label_smoothing": (sigmoid_head, vectors(), binary(),
                                    lambda: K.SGD(0.1, momentum=0.5),
                                    keras.losses.BinaryCrossentropy(label_smoothing=0.2)),
    # [B] integer labels of a Dense(1) sigmoid: Keras casts them to float
    # and expands them to [B, 1].
    "ids_sequential_binary_int_labels": (
        ids_sequential_binary, tokens(), lambda: _rng().integers(0, 2, BATCH).astype(np.int64),
        lambda: K.Adam(0.02), "binary_crossentropy"),
    "two_outputs_one_loss": (two_outputs, vectors(), classes(), lambda: K.Adam(0.01),
                             [keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                              None]),
    "same_avg_pool_sgd": (same_avg_pool, images(5, 5, 3), classes(),
                          lambda: K.SGD(0.1, momentum=0.9), SCCE),
    "regression_mse_polynomial": (
        regression, vectors(), targets((2,)),
        lambda: K.SGD(S.PolynomialDecay(0.05, 10, end_learning_rate=0.01)), "mse"),
    "regression_huber": (regression, vectors(), targets((2,)),
                         lambda: K.Adam(0.01), keras.losses.Huber(delta=0.5)),
    "subclassed_residual_adamw": (subclassed_residual, vectors(), classes(),
                                  lambda: K.AdamW(0.005), SCCE),
}


def build(name, seed=3):
    make_model, _, _, make_opt, loss = CASES[name]
    keras.backend.clear_session()  # the same layer names (variable paths) every time
    keras.utils.set_random_seed(seed)
    model = make_model()
    model.compile(optimizer=make_opt(), loss=loss)
    return model


mp_run = corpus_main.mp_run


def run_case(build_dir, name):
    _, make_x, make_y, _, _ = CASES[name]
    x, y = make_x(), make_y()
    work = tempfile.mkdtemp(prefix="mp-keras-%s-" % name)
    np.save(os.path.join(work, "x.npy"), x)
    np.save(os.path.join(work, "y.npy"), y)
    model = build(name)
    keras_export.export(model, x, y, work, name)
    reference = build(name)
    want = [float(reference.train_on_batch(x, y)) for _ in range(STEPS + 1)]
    ckpt = os.path.join(work, "float32.safetensors")
    got = mp_run(build_dir, work, name, "float32", STEPS, ckpt)
    worst = max(abs(g - w) / max(abs(w), 1e-6) for g, w in zip(got, want))
    bf16 = mp_run(build_dir, work, name, "mixed_bfloat16", STEPS)
    f16 = mp_run(build_dir, work, name, "mixed_float16", STEPS)
    # The checkpoint back in a fresh Keras model: its loss on the batch is
    # mp's loss at the next step (Keras' 21st).
    loaded = build(name, seed=11)
    if not loaded.built:  # a Sequential without an Input: built on its first call
        loaded(x[:1])
    loaded.optimizer.build(loaded.trainable_variables)
    keras_export.load_checkpoint(loaded, ckpt, loaded.optimizer)
    after = float(loaded.train_on_batch(x, y))
    back = abs(after - want[STEPS]) / max(abs(want[STEPS]), 1e-6)
    ok = worst <= 1e-4 and abs(bf16[-1] - want[STEPS - 1]) <= 0.05 and \
        abs(f16[-1] - want[STEPS - 1]) <= 0.05 and back <= 1e-4
    print("%s: %s: float32 losses within %.2e of Keras' (1e-4), step %d %.6f vs %.6f; "
          "mixed_bfloat16 %.4f, mixed_float16 %.4f; checkpoint back in Keras: next loss "
          "within %.1e" % ("ok" if ok else "FAIL", name, worst, STEPS, got[-1],
                           want[STEPS - 1], bf16[-1], f16[-1], back))
    return ok, {"max_rel_diff": worst,
                "float32": got[-1], "reference": want[STEPS - 1], "mixed_bfloat16": bf16[-1],
                "mixed_float16": f16[-1], "checkpoint": back}


def run_dropout(build_dir):
    """Dropout's masks are mp's own (Philox in the step), not Keras', so the
    losses are not compared step by step: the step must hold both dropout
    sites with Keras' rates, and train under float32 and mixed_bfloat16."""
    keras.utils.set_random_seed(3)
    model = keras.Sequential([keras.Input((12,)), L.Dense(32, activation="relu"),
                              L.Dropout(0.2), L.Dense(32, activation="relu"), L.Dropout(0.1),
                              L.Dense(4)])
    model.compile(optimizer=K.SGD(0.1, momentum=0.9), loss=SCCE)
    x, y = vectors()(), classes()()
    work = tempfile.mkdtemp(prefix="mp-keras-dropout-")
    np.save(os.path.join(work, "x.npy"), x)
    np.save(os.path.join(work, "y.npy"), y)
    keras_export.export(model, x, y, work, "dropout")
    text = open(os.path.join(work, "dropout.mlir")).read()
    sites = sorted(set(re.findall(r'"train\.dropout(?:_grad)?"\([^)]*\) <\{p = ([0-9.e-]+) '
                                  r': f64, site = (\d+) : i64\}>', text)))
    f32 = mp_run(build_dir, work, "dropout", "float32", 30)
    bf16 = mp_run(build_dir, work, "dropout", "mixed_bfloat16", 30)
    rates = [(float(p), s) for p, s in sites]
    ok = rates == [(0.1, "1"), (0.2, "0")] and \
        f32[-1] < 0.5 * f32[0] and bf16[-1] < 0.5 * bf16[0]
    print("%s: dropout: sites %s, float32 loss %.4f -> %.4f, mixed_bfloat16 %.4f -> %.4f" % (
        "ok" if ok else "FAIL", rates, f32[0], f32[-1], bf16[0], bf16[-1]))
    return ok and run_noise_shape(build_dir)


def run_noise_shape(build_dir):
    """Dropout with a noise_shape: SpatialDropout2D (one draw per sample and
    channel, [B, 1, 1, C]), SpatialDropout1D ([B, 1, C]) and Dropout with
    noise_shape=(None, 1, 1, 1) (EfficientNet's stochastic depth: one per
    sample). The step's dropout ops keep those mask shapes, forward and
    backward (a per-element mask would be a different regulariser), and
    it trains."""
    keras.utils.set_random_seed(3)
    inp = keras.Input((8, 8, 3))
    h = L.Conv2D(6, 3, padding="same", activation="relu")(inp)
    h = L.SpatialDropout2D(0.3)(h)
    h = L.Conv2D(6, 3, padding="same", activation="relu")(h)
    h = L.Add()([h, L.Dropout(0.2, noise_shape=(None, 1, 1, 1))(
        L.Conv2D(6, 3, padding="same")(h))])
    h = L.Reshape((64, 6))(h)
    h = L.SpatialDropout1D(0.25)(h)
    out = L.Dense(4)(L.GlobalAveragePooling1D()(h))
    model = keras.Model(inp, out)
    model.compile(optimizer=K.Adam(0.02), loss=SCCE)
    x, y = images()(), classes()()
    work = tempfile.mkdtemp(prefix="mp-keras-noise-shape-")
    np.save(os.path.join(work, "x.npy"), x)
    np.save(os.path.join(work, "y.npy"), y)
    keras_export.export(model, x, y, work, "noise")
    text = open(os.path.join(work, "noise.mlir")).read()
    shapes = sorted(re.findall(r'"train\.dropout(?:_grad)?"\([^)]*\) <\{mask_shape = '
                               r'array<i64: ([0-9, ]+)>, p = ([0-9.e-]+)', text))
    b = len(x)
    want = sorted([("%d, 1, 1, 6" % b, "0.3")] * 2 + [("%d, 1, 1, 1" % b, "0.2")] * 2 +
                  [("%d, 1, 6" % b, "0.25")] * 2)
    f32 = mp_run(build_dir, work, "noise", "float32", 30)
    ok = shapes == want and f32[-1] < 0.8 * f32[0]
    print("%s: dropout noise_shape: masks %s, float32 loss %.4f -> %.4f" % (
        "ok" if ok else "FAIL", shapes, f32[0], f32[-1]))
    return ok


if __name__ == "__main__":
    corpus_main.main("Keras", CASES, run_case, run_dropout)
