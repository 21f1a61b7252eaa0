"""The zoo corpus' Keras half (test/Exporters/zoo_corpus.py): the
keras.applications models and keras.io's examples, compiled as keras.io
writes them, Keras' own training (the reference) and the export as
written."""
import os
import warnings

import numpy as np

from zoo_common import STEPS, _stage

# --- keras.applications and keras.io ------------------------------------------
def _keras():
    import keras
    return keras


def kapp(name, **kw):
    def make(drop):
        keras = _keras()
        model = getattr(keras.applications, name)(include_top=True, weights=None,
                                                   input_shape=(32, 32, 3), classes=10, **kw)
        if not drop:
            _keras_no_dropout(model)
        return model
    return make


def _keras_no_dropout(model):
    """keras.applications exposes no drop-rate argument: the comparison
    build sets its Dropout layers' rate to 0."""
    keras = _keras()
    for layer in model._flatten_layers(include_self=False, recursive=True):
        if isinstance(layer, keras.layers.Dropout):
            layer.rate = 0.0


def keras_transfer(drop):
    """keras.io's transfer-learning guide: a frozen base model
    (base_model.trainable = False) called with training=False, a new head
    with Dropout(0.2)."""
    keras = _keras()
    L = keras.layers
    base_model = keras.applications.MobileNetV2(include_top=False, weights=None,
                                                input_shape=(32, 32, 3))
    base_model.trainable = False
    inputs = keras.Input(shape=(32, 32, 3))
    x = base_model(inputs, training=False)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dropout(0.2 if drop else 0.0)(x)
    outputs = L.Dense(10)(x)
    return keras.Model(inputs, outputs)


def mnist_convnet(drop):
    """keras.io/examples/vision/mnist_convnet."""
    keras = _keras()
    L = keras.layers
    return keras.Sequential([
        keras.Input(shape=(28, 28, 1)),
        L.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        L.MaxPooling2D(pool_size=(2, 2)),
        L.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        L.MaxPooling2D(pool_size=(2, 2)),
        L.Flatten(),
        L.Dropout(0.5 if drop else 0.0),
        L.Dense(10, activation="softmax")])


def text_embedding_gap(drop):
    """tensorflow.org's basic text classification: Embedding, Dropout,
    GlobalAveragePooling1D, Dropout, Dense(1, sigmoid) (a Sequential built
    on its first call)."""
    keras = _keras()
    L = keras.layers
    rate = 0.2 if drop else 0.0
    return keras.Sequential([L.Embedding(200, 16), L.Dropout(rate), L.GlobalAveragePooling1D(),
                             L.Dropout(rate), L.Dense(1, activation="sigmoid")])


def _keras_io_layers():
    """keras.io's TransformerBlock and TokenAndPositionEmbedding (its
    text_classification_with_transformer and miniature GPT examples)."""
    keras = _keras()
    L, ops = keras.layers, keras.ops

    class TransformerBlock(L.Layer):
        def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1, causal=False):
            super().__init__()
            self.att = L.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
            self.ffn = keras.Sequential([L.Dense(ff_dim, activation="relu"),
                                         L.Dense(embed_dim)])
            self.layernorm1 = L.LayerNormalization(epsilon=1e-6)
            self.layernorm2 = L.LayerNormalization(epsilon=1e-6)
            self.dropout1 = L.Dropout(rate)
            self.dropout2 = L.Dropout(rate)
            self.causal = causal

        def call(self, inputs):
            if self.causal:
                # keras.io builds the mask with its causal_attention_mask
                # (below); with Keras 3.15's TensorFlow backend that
                # ops.tile(mask, <a tensor of repeats>) fails while the
                # functional model is built ("Iterating over a symbolic
                # tf.Tensor"), so the model does not build at all: the same
                # lower-triangular mask through Keras 3's own argument.
                attn_output = self.att(inputs, inputs, use_causal_mask=True)
            else:
                attn_output = self.att(inputs, inputs)
            attn_output = self.dropout1(attn_output)
            out1 = self.layernorm1(inputs + attn_output)
            ffn_output = self.ffn(out1)
            ffn_output = self.dropout2(ffn_output)
            return self.layernorm2(out1 + ffn_output)

    class TokenAndPositionEmbedding(L.Layer):
        def __init__(self, maxlen, vocab_size, embed_dim):
            super().__init__()
            self.token_emb = L.Embedding(input_dim=vocab_size, output_dim=embed_dim)
            self.pos_emb = L.Embedding(input_dim=maxlen, output_dim=embed_dim)

        def call(self, x):
            maxlen = ops.shape(x)[-1]
            positions = ops.arange(start=0, stop=maxlen, step=1)
            positions = self.pos_emb(positions)
            x = self.token_emb(x)
            return x + positions

    return TransformerBlock, TokenAndPositionEmbedding


def transformer_classifier(drop):
    """keras.io/examples/nlp/text_classification_with_transformer (maxlen 16,
    vocab 200, embed 16, 2 heads, ff 16)."""
    keras = _keras()
    L = keras.layers
    TransformerBlock, TokenAndPositionEmbedding = _keras_io_layers()
    rate = 0.1 if drop else 0.0
    inputs = L.Input(shape=(16,))
    x = TokenAndPositionEmbedding(16, 200, 16)(inputs)
    x = TransformerBlock(16, 2, 16, rate=rate)(x)
    x = L.GlobalAveragePooling1D()(x)
    x = L.Dropout(rate)(x)
    x = L.Dense(20, activation="relu")(x)
    x = L.Dropout(rate)(x)
    outputs = L.Dense(2, activation="softmax")(x)
    return keras.Model(inputs=inputs, outputs=outputs)


def bidirectional_lstm(drop):
    """keras.io/examples/nlp/bidirectional_lstm_imdb (vocab 200, 16 wide)."""
    keras = _keras()
    L = keras.layers
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = L.Embedding(200, 16)(inputs)
    x = L.Bidirectional(L.LSTM(8, return_sequences=True))(x)
    x = L.Bidirectional(L.LSTM(8))(x)
    outputs = L.Dense(1, activation="sigmoid")(x)
    return keras.Model(inputs, outputs)


def miniature_gpt(drop):
    """keras.io/examples/generative/text_generation_with_miniature_gpt
    (maxlen 16, vocab 200, embed 16, 2 heads): outputs [logits, x], loss
    [SparseCategoricalCrossentropy(from_logits=True), None]; the causal
    mask through use_causal_mask=True (TransformerBlock.call)."""
    keras = _keras()
    L = keras.layers
    TransformerBlock, TokenAndPositionEmbedding = _keras_io_layers()
    inputs = L.Input(shape=(16,), dtype="int32")
    x = TokenAndPositionEmbedding(16, 200, 16)(inputs)
    x = TransformerBlock(16, 2, 16, rate=0.1 if drop else 0.0, causal=True)(x)
    outputs = L.Dense(200)(x)
    return keras.Model(inputs=inputs, outputs=[outputs, x])


def k_images(size=32, channels=3, classes=10, one_hot=False):
    def make():
        rng = np.random.default_rng(11)
        x = rng.standard_normal((8, size, size, channels)).astype(np.float32)
        y = rng.integers(0, classes, 8).astype(np.int64)
        return x, (np.eye(classes, dtype=np.float32)[y] if one_hot else y)
    return make


def k_tokens(seq=16, vocab=200, labels="binary"):
    def make():
        rng = np.random.default_rng(11)
        x = rng.integers(1, vocab, (8, seq)).astype(np.int32)
        if labels == "binary":
            y = rng.integers(0, 2, 8).astype(np.int64)
        elif labels == "next":
            y = np.concatenate([x[:, 1:], rng.integers(1, vocab, (8, 1))], 1).astype(np.int32)
        else:
            y = rng.integers(0, labels, 8).astype(np.int64)
        return x, y
    return make


class KerasCase:
    def __init__(self, library, recipe, build, batch, optimizer, loss, dropped=False):
        self.library, self.recipe, self.build, self.batch = library, recipe, build, batch
        self.optimizer, self.loss, self.dropped = optimizer, loss, dropped


def _scce_logits():
    return _keras().losses.SparseCategoricalCrossentropy(from_logits=True)


KERAS = {
    "keras_mobilenet_v2": KerasCase(
        "keras.applications", "MobileNetV2(32x32, classes=10); Adam, "
        "sparse_categorical_crossentropy", kapp("MobileNetV2"), k_images(),
        lambda: "adam", lambda: "sparse_categorical_crossentropy"),
    "keras_efficientnet_b0": KerasCase(
        "keras.applications", "EfficientNetB0(32x32, classes=10) from scratch as keras.io: "
        "adam, categorical_crossentropy (one-hot)", kapp("EfficientNetB0"),
        k_images(one_hot=True), lambda: "adam", lambda: "categorical_crossentropy",
        dropped=True),
    "keras_resnet50": KerasCase(
        "keras.applications", "ResNet50(32x32, classes=10); SGD(0.01, momentum 0.9), "
        "sparse_categorical_crossentropy", kapp("ResNet50"), k_images(),
        lambda: _keras().optimizers.SGD(0.01, momentum=0.9),
        lambda: "sparse_categorical_crossentropy"),
    "keras_densenet121": KerasCase(
        "keras.applications", "DenseNet121(32x32, classes=10); Adam, "
        "sparse_categorical_crossentropy", kapp("DenseNet121"), k_images(),
        lambda: "adam", lambda: "sparse_categorical_crossentropy"),
    "keras_nasnet_mobile": KerasCase(
        "keras.applications", "NASNetMobile(32x32, classes=10); Adam, "
        "sparse_categorical_crossentropy", kapp("NASNetMobile"), k_images(),
        lambda: "adam", lambda: "sparse_categorical_crossentropy"),
    "keras_transfer_mobilenet_v2": KerasCase(
        "keras.io", "transfer learning guide: frozen MobileNetV2 base (training=False), "
        "GAP, Dropout(0.2), Dense(10); Adam, SCCE(from_logits)", keras_transfer, k_images(),
        lambda: _keras().optimizers.Adam(), _scce_logits, dropped=True),
    "keras_mnist_convnet": KerasCase(
        "keras.io", "mnist_convnet: 2 conv + pool, Dropout(0.5), softmax; adam, "
        "categorical_crossentropy", mnist_convnet, k_images(28, 1, one_hot=True),
        lambda: "adam", lambda: "categorical_crossentropy", dropped=True),
    "keras_text_embedding_gap": KerasCase(
        "keras.io", "text classification: Embedding, Dropout, GlobalAveragePooling1D, "
        "Dense(1, sigmoid); adam, BinaryCrossentropy, int labels [B]", text_embedding_gap,
        k_tokens(), lambda: "adam", lambda: _keras().losses.BinaryCrossentropy(),
        dropped=True),
    "keras_transformer_classifier": KerasCase(
        "keras.io", "text_classification_with_transformer: TokenAndPositionEmbedding, "
        "TransformerBlock, GAP, Dropout, softmax; adam, sparse_categorical_crossentropy",
        transformer_classifier, k_tokens(labels=2), lambda: "adam",
        lambda: "sparse_categorical_crossentropy", dropped=True),
    "keras_bidirectional_lstm": KerasCase(
        "keras.io", "bidirectional_lstm_imdb: Embedding, 2 Bidirectional(LSTM), sigmoid; "
        "adam, binary_crossentropy, int labels [B]", bidirectional_lstm, k_tokens(),
        lambda: "adam", lambda: "binary_crossentropy"),
    "keras_miniature_gpt": KerasCase(
        "keras.io", "text_generation_with_miniature_gpt: causal TransformerBlock, outputs "
        "[logits, x], loss [SCCE(from_logits), None] on [B, T] labels; adam",
        miniature_gpt, k_tokens(labels="next"), lambda: "adam",
        lambda: [_scce_logits(), None], dropped=True),
}


def keras_build(case, drop, x, seed=3, compile_=True):
    keras = _keras()
    keras.backend.clear_session()  # the same layer names every time
    keras.utils.set_random_seed(seed)
    model = case.build(drop)
    if not model.built:
        # Built on a first call, as keras_export builds it (x[:1]).
        model(keras.ops.convert_to_tensor(x[:1]))
    if compile_:
        model.compile(optimizer=case.optimizer(), loss=case.loss())
    return model


def _keras_state(model):
    import mp_export.keras as keras_export
    return {n: v.astype(np.float64) for n, v in keras_export.state_tensors(model).items()
            if v.dtype.kind == "f"}


def keras_reference(case, x, y, floatx="float32", weights=None):
    keras = _keras()
    keras.config.set_floatx(floatx)
    try:
        model = keras_build(case, False, x)
        if weights is not None:
            model.set_weights([w.astype(floatx) if w.dtype.kind == "f" else w
                               for w in weights])
        xs = x.astype(floatx) if x.dtype.kind == "f" else x
        ys = y.astype(floatx) if y.dtype.kind == "f" else y
        out, before, after = [], _keras_state(model), []
        for i in range(STEPS):
            loss = model.train_on_batch(xs, ys)
            out.append(float(loss[0] if isinstance(loss, (list, tuple)) else loss))
            if i < 2:
                after.append(_keras_state(model))
        return out, before, after
    finally:
        keras.config.set_floatx("float32")


def keras_perturbed_weights(weights, trainable, seed):
    """The weights with each trainable floating tensor's elements moved by
    at most one float32 ulp (down, kept or up, at random from `seed`)."""
    rng = np.random.default_rng(seed)
    out = []
    for w, t in zip(weights, trainable):
        if t and w.dtype.kind == "f":
            u = rng.integers(-1, 2, w.shape)
            w = np.where(u > 0, np.nextafter(w, np.inf), np.where(u < 0, np.nextafter(
                w, -np.inf), w)).astype(w.dtype)
        out.append(w)
    return out


def keras_export_run(build, name, case, drop, work):
    import mp_export.keras as keras_export
    x, y = case.batch()
    np.save(os.path.join(work, "x.npy"), x)
    np.save(os.path.join(work, "y.npy"), y)
    model = _stage("model", keras_build, case, drop, x)
    stem = name + ("" if drop else "_nodrop")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _stage("export", keras_export.export, model, x, y, work, stem)
    return x, y, stem
