"""mp.keras.fit in place of model.fit: Keras' own losses on the same
batches (float32), a History, callbacks that see the trained weights at
every epoch's end, model.evaluate afterwards equal to the last validation
numbers, and partial batches refused with the remedy."""
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
tf = pytest.importorskip("tensorflow")

import mp  # noqa: E402
import mp.keras  # noqa: E402,F401

CLASSES, FEATURES, BATCH = 3, 8, 32
FLOAT32_RTOL = 1e-4  # the export corpus' float32 tolerance


def data(count, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, CLASSES, count)
    x = rng.standard_normal((count, FEATURES)).astype(np.float32)
    x[np.arange(count), y] += 2.0  # learnable
    return x, y.astype(np.int64)


def model(seed=0, optimizer=None):
    keras.utils.set_random_seed(seed)
    m = keras.Sequential([keras.Input((FEATURES,)),
                          keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(CLASSES)])
    m.compile(optimizer=optimizer or keras.optimizers.SGD(0.05, momentum=0.9),
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
    return m


def test_float32_epochs_are_keras_own():
    x, y = data(256, 1)
    ours, theirs = model(), model()
    theirs.set_weights(ours.get_weights())
    history = mp.keras.fit(ours, x, y, batch_size=BATCH, epochs=2,
                           shuffle=False, policy="float32", verbose=0)
    want = theirs.fit(x, y, batch_size=BATCH, epochs=2, shuffle=False,
                      verbose=0)
    assert history.history["loss"] == pytest.approx(want.history["loss"],
                                                    rel=FLOAT32_RTOL)
    # The compiled metrics of the training batches, as Keras reports them.
    assert history.history["accuracy"] == pytest.approx(
        want.history["accuracy"], abs=1e-6)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_training_metrics_see_the_models_own_output():
    """A model that ends in a softmax, its loss from_logits=False: the
    metrics get the probabilities (the step returns the logits the loss
    reads; the softmax is applied for them), as Keras' fit gives them."""
    x, y = data(128, 10)

    def softmax_model():
        keras.utils.set_random_seed(5)
        m = keras.Sequential([keras.Input((FEATURES,)),
                              keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(CLASSES, activation="softmax")])
        m.compile(optimizer=keras.optimizers.SGD(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(),
                  metrics=["accuracy",
                           keras.metrics.SparseCategoricalCrossentropy(name="ce"),
                           keras.metrics.SparseTopKCategoricalAccuracy(k=2)])
        return m
    ours, theirs = softmax_model(), softmax_model()
    history = mp.keras.fit(ours, x, y, batch_size=BATCH, epochs=2,
                           shuffle=False, policy="float32", verbose=0)
    want = theirs.fit(x, y, batch_size=BATCH, epochs=2, shuffle=False,
                      verbose=0)
    assert set(history.history) == set(want.history)
    for name in want.history:
        assert history.history[name] == pytest.approx(
            want.history[name], rel=FLOAT32_RTOL, abs=1e-6), name


def test_a_second_fit_goes_on_as_keras_does():
    """fit() again on a trained model: the step starts from the optimizer's
    slots and iterations (Adam's moments and bias correction), as Keras'
    second fit() does."""
    x, y = data(128, 8)
    ours = model(3, keras.optimizers.Adam(1e-2))
    theirs = model(3, keras.optimizers.Adam(1e-2))
    theirs.set_weights(ours.get_weights())
    for _ in range(2):
        history = mp.keras.fit(ours, x, y, batch_size=BATCH, epochs=1,
                               shuffle=False, policy="float32", verbose=0)
        want = theirs.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False,
                          verbose=0)
        assert history.history["loss"] == pytest.approx(
            want.history["loss"], rel=FLOAT32_RTOL)
    assert int(ours.optimizer.iterations) == int(theirs.optimizer.iterations) == 8
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_int64_labels_of_a_sequence_model():
    """Labels per position, int64 as numpy makes them: Keras' loss casts
    them to int32 and flattens them; the step keeps them int64."""
    rng = np.random.default_rng(9)
    x = rng.integers(0, 16, (64, 8)).astype(np.int64)
    y = np.roll(x, -1, axis=1)

    def lm():
        keras.utils.set_random_seed(4)
        m = keras.Sequential([keras.Input((8,), dtype="int32"),
                              keras.layers.Embedding(16, 8),
                              keras.layers.Dense(16)])
        m.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.SparseCategoricalCrossentropy(
                      from_logits=True))
        return m
    ours, theirs = lm(), lm()
    history = mp.keras.fit(ours, x, y, batch_size=16, epochs=1, shuffle=False,
                           policy="float32", verbose=0)
    want = theirs.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    assert history.history["loss"] == pytest.approx(want.history["loss"],
                                                    rel=FLOAT32_RTOL)


class Watch(keras.callbacks.Callback):
    """What a callback sees at each epoch's end: the model's validation
    loss by Keras itself, against the logs."""

    def __init__(self, val):
        super().__init__()
        self.val, self.seen = val, []

    def on_epoch_end(self, epoch, logs=None):
        loss = self.model.evaluate(*self.val, verbose=0, return_dict=True)
        self.seen.append((loss["loss"], logs["val_loss"]))


def test_dataset_callbacks_and_evaluate(tmp_path):
    x, y = data(512, 2)
    val = data(96, 3)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(
        512, seed=4).batch(BATCH, drop_remainder=True)
    m = model(1)
    watch = Watch(val)
    saved = str(tmp_path / "last.weights.h5")
    history = mp.keras.fit(
        m, dataset, epochs=3, validation_data=val, verbose=0,
        callbacks=[watch, keras.callbacks.ModelCheckpoint(
            saved, save_weights_only=True)])
    assert set(history.history) >= {"loss", "val_loss", "val_accuracy"}
    assert len(history.history["loss"]) == 3
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.mp_policy == mp.auto_policy("cpu")[0]
    assert history.mp_report["policy_auto"]["chosen"] == history.mp_policy
    assert history.mp_report["functions"][0]["ops_total"] > 0
    for seen, logged in watch.seen:
        assert seen == pytest.approx(logged, rel=1e-6)
    after = m.evaluate(*val, verbose=0, return_dict=True)
    assert after["loss"] == pytest.approx(history.history["val_loss"][-1],
                                          rel=1e-4)
    assert after["accuracy"] == history.history["val_accuracy"][-1]
    assert os.path.exists(saved)
    restored = model(9)
    restored.load_weights(saved)
    for a, b in zip(restored.get_weights(), m.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_partial_batches_and_bad_calls_are_named():
    x, y = data(100, 5)
    with pytest.raises(mp.DataError, match="not a multiple of batch_size 32"):
        mp.keras.fit(model(), x, y, batch_size=32, policy="float32",
                     verbose=0)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
    with pytest.raises(mp.DataError, match="drop_remainder=True"):
        mp.keras.fit(model(), dataset, policy="float32", verbose=0)
    bare = keras.Sequential([keras.Input((FEATURES,)),
                             keras.layers.Dense(CLASSES)])
    with pytest.raises(mp.Error, match="compile the model first"):
        mp.keras.fit(bare, x[:96], y[:96], batch_size=32, verbose=0)


def test_early_stopping_restores_the_best_trained_weights():
    """EarlyStopping(restore_best_weights=True) keeps the weights of each
    epoch's end as mp wrote them back, and leaves the best in the model:
    model.evaluate after fit gives the smallest val_loss of the History."""
    x, y = data(512, 6)
    val = data(96, 7)
    m = model(2)
    m.optimizer.learning_rate.assign(0.3)  # a val_loss that goes up and down
    history = mp.keras.fit(
        m, x, y, batch_size=BATCH, epochs=5, validation_data=val,
        verbose=0, policy="float32", seed=3,
        callbacks=[keras.callbacks.EarlyStopping(
            monitor="val_loss", patience=1, restore_best_weights=True)])
    after = m.evaluate(*val, verbose=0, return_dict=True)
    assert after["loss"] == pytest.approx(min(history.history["val_loss"]),
                                          rel=1e-4)


def test_state_written_back_whatever_its_dtype():
    """The write-back of mp.keras.fit (mp_export.keras.assign_state):
    values of the variable's dtype go through TensorFlow's assign op,
    others through Keras' assign (which casts); the optimizer's slots and
    iterations too; a wrong shape is named."""
    import mp_export.keras as exporter
    m = model(3, keras.optimizers.Adam(1e-3))
    x, y = data(64, 6)
    m.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)  # builds the slots
    state = exporter.state_tensors(m, m.optimizer)
    rng = np.random.default_rng(7)
    wanted = {name: rng.standard_normal(np.shape(value)).astype(
        np.float64 if i % 2 else np.float32) if name != "step" else
        np.array(41, np.int64) for i, (name, value) in enumerate(state.items())}
    assert exporter.assign_state(m, wanted, m.optimizer) == []
    got = exporter.state_tensors(m, m.optimizer)
    assert set(got) == set(wanted)
    for name, value in wanted.items():
        assert got[name].dtype == state[name].dtype, name
        np.testing.assert_array_equal(got[name], value.astype(got[name].dtype),
                                      err_msg=name)
    assert int(m.optimizer.iterations.numpy()) == 41
    first = m.variables[0]
    wrong = dict(wanted, **{first.path: np.zeros((1, 2), np.float32)})
    with pytest.raises(ValueError, match="'%s' has shape" % first.path):
        exporter.assign_state(m, wrong, m.optimizer, source="the test's")


@pytest.mark.parametrize("callback", ["scheduler", "plateau"])
def test_a_learning_rate_set_by_a_callback_is_followed(callback):
    """Keras' step reads the learning rate's variable at every step; mp's
    has the rate built in, so a callback that sets it (LearningRateScheduler
    at an epoch's start, ReduceLROnPlateau at an epoch's end) makes
    mp.keras.fit compile the step again from the trained state: the losses
    and weights stay Keras' own, and the change is said once."""
    x, y = data(128, 8)

    def callbacks():
        if callback == "scheduler":
            return [keras.callbacks.LearningRateScheduler(
                lambda epoch, lr: 0.05 if epoch == 0 else 0.01 * epoch)]
        # min_delta beyond any improvement: the rate drops after each epoch.
        return [keras.callbacks.ReduceLROnPlateau(
            monitor="loss", factor=0.5, patience=0, min_delta=10.0)]
    ours, theirs = model(), model()
    theirs.set_weights(ours.get_weights())
    with pytest.warns(UserWarning, match="the learning rate changed"):
        history = mp.keras.fit(ours, x, y, batch_size=BATCH, epochs=3,
                               shuffle=False, policy="float32", verbose=0,
                               callbacks=callbacks())
    want = theirs.fit(x, y, batch_size=BATCH, epochs=3, shuffle=False,
                      verbose=0, callbacks=callbacks())
    # The scheduler sets new rates before epochs 2 and 3; the plateau's
    # first drop comes at the end of epoch 2 (epoch 1 sets its best loss).
    assert history.mp_recompiles == (2 if callback == "scheduler" else 1)
    assert history.history["loss"] == pytest.approx(want.history["loss"],
                                                    rel=FLOAT32_RTOL)
    assert float(ours.optimizer.learning_rate) == \
        float(theirs.optimizer.learning_rate)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


class Scale(keras.layers.Layer):
    """Multiplies by a non-trainable coefficient a callback anneals."""

    def build(self, shape):
        self.coefficient = self.add_weight(shape=(), initializer="ones",
                                           trainable=False, name="coefficient")

    def call(self, x):
        return x * self.coefficient


class Anneal(keras.callbacks.Callback):
    """Epoch-level: sets the coefficient at every epoch's start."""

    def on_epoch_begin(self, epoch, logs=None):
        self.model.layers[1].coefficient.assign(1.0 + epoch)


class ClipAndWatch(keras.callbacks.Callback):
    """Batch-level: reads the first kernel after every batch, clips it
    (a weight constraint applied by a callback), and stops the training
    in the second epoch's third batch."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def on_train_batch_end(self, batch, logs=None):
        kernel = self.model.layers[0].kernel
        self.seen.append(float(np.abs(kernel.numpy()).sum()))
        kernel.assign(np.clip(kernel.numpy(), -0.2, 0.2))
        if len(self.seen) == 7:
            self.model.stop_training = True


@pytest.mark.parametrize("callback", [Anneal, ClipAndWatch])
def test_callbacks_read_and_assign_variables_as_in_keras(callback):
    """A callback sees the trained weights and what it assigns to a
    variable is trained with, as in Keras' own fit: at every epoch's start
    (an annealed coefficient) and, for a callback with batch hooks, around
    every batch (a kernel read, then clipped); stop_training set in a
    batch ends the epoch there."""
    def built():
        keras.utils.set_random_seed(0)
        m = keras.Sequential([keras.Input((FEATURES,)),
                              keras.layers.Dense(16, activation="relu"),
                              Scale(), keras.layers.Dense(CLASSES)])
        m.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9),
                  loss=keras.losses.SparseCategoricalCrossentropy(
                      from_logits=True))
        return m
    x, y = data(128, 9)
    ours, theirs = built(), built()
    mine, keras_own = callback(), callback()
    history = mp.keras.fit(ours, x, y, batch_size=BATCH, epochs=3,
                           shuffle=False, policy="float32", verbose=0,
                           callbacks=[mine])
    want = theirs.fit(x, y, batch_size=BATCH, epochs=3, shuffle=False,
                      verbose=0, callbacks=[keras_own])
    assert history.history["loss"] == pytest.approx(want.history["loss"],
                                                    rel=FLOAT32_RTOL)
    if callback is ClipAndWatch:
        assert len(mine.seen) == 7 and len(history.history["loss"]) == 2
        assert mine.seen == pytest.approx(keras_own.seen, rel=1e-5)
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_a_callback_assigning_what_the_step_built_in_is_refused():
    """A variable the step does not hold as state (a constant of the
    export: none such is known today) cannot follow a callback's
    assignment: read_changes names it rather than train without it."""
    import mp_export.keras as exporter
    from mp.keras import _StateExchange

    class NoState:  # a session that holds none of the model's variables
        tensors, world_size = {}, 1
    m = model(4)
    state = _StateExchange(m, exporter)
    assert state.read_changes(NoState()) == 0  # nothing assigned
    m.layers[0].bias.assign(np.ones(16, np.float32))
    with pytest.raises(mp.Error, match="assigned '%s'.*holds as a constant"
                       % m.layers[0].bias.path):
        state.read_changes(NoState())
