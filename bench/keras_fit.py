"""Keras' model.fit against mp.keras.fit on the same model and numpy data,
data handling included: one epoch of BATCHES shuffled batches shaped like
the bench model's example per contender, alternating the contenders in
every round; the epoch is timed by a Keras callback from on_epoch_begin to
on_epoch_end (mp's writing of the trained weights back into the model at
the epoch's end included; the trace and compile before the first epoch
not). Prints the best ms per step of each (docs/benchmarks.md).

Contenders: model.fit under float32 and under mixed_bfloat16 (Keras'
dtype policy, set before the model is built), and mp.keras.fit with
policy="auto" on the float32 model.

usage: python bench/keras_fit.py [--models resnet,causal_lm] [--batches 6]
       [--rounds 3] [--threads 2] [--split]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
sys.path.insert(0, os.path.join(HERE, "..", "python"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="resnet,causal_lm")
    parser.add_argument("--batches", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--split", action="store_true",
                        help="also print how much of mp.keras.fit's epoch "
                        "was inside session.step (the rest: data, "
                        "callbacks, the write-back)")
    args = parser.parse_args()
    os.environ.setdefault("MP_NUM_THREADS", str(args.threads))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    import keras
    import mp.keras
    import mp.session
    from models import keras_model

    in_step = [0.0]  # seconds inside Session.step, with --split
    if args.split:
        step = mp.session.Session.step

        def timed_step(self, *batch, **named):
            began = time.perf_counter()
            try:
                return step(self, *batch, **named)
            finally:
                in_step[0] += time.perf_counter() - began
        mp.session.Session.step = timed_step

    class EpochTimer(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.began = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.seconds = time.perf_counter() - self.began

    for name in args.models.split(","):
        def built(policy):
            keras.mixed_precision.set_global_policy(policy)
            keras.utils.set_random_seed(0)
            try:
                return keras_model(name)
            finally:
                keras.mixed_precision.set_global_policy("float32")

        model, x0, y0 = built("float32")
        rng = np.random.default_rng(1)
        batch = len(x0)
        x = np.concatenate([x0 if not np.issubdtype(x0.dtype, np.floating)
                            else rng.standard_normal(x0.shape, np.float32)
                            for _ in range(args.batches)])
        y = np.concatenate([y0] * args.batches)

        def keras_fit(policy):
            m = model if policy == "float32" else built(policy)[0]

            def epoch():
                timer = EpochTimer()
                m.fit(x, y, batch_size=batch, epochs=1, shuffle=True,
                      verbose=0, callbacks=[timer])
                return timer.seconds
            return epoch

        def mp_fit():
            m = built("float32")[0]

            def epoch():
                timer = EpochTimer()
                mp.keras.fit(m, x, y, batch_size=batch, epochs=1, verbose=0,
                             callbacks=[timer])
                return timer.seconds
            return epoch

        contenders = {"keras fit float32": keras_fit("float32"),
                      "keras fit mixed_bfloat16": keras_fit("mixed_bfloat16"),
                      "mp.keras.fit": mp_fit()}
        for epoch in contenders.values():  # warm-up: traces, compiles
            epoch()
        best = {c: float("inf") for c in contenders}
        for _ in range(args.rounds):
            for contender, epoch in contenders.items():
                in_step[0] = 0.0
                ms = epoch() * 1000 / args.batches
                best[contender] = min(best[contender], ms)
                if args.split and contender == "mp.keras.fit":
                    steps = in_step[0] * 1000 / args.batches
                    print("%-10s mp.keras.fit epoch %.1f ms/step, in "
                          "session.step %.1f, the rest %.1f" % (
                              name, ms, steps, ms - steps), flush=True)
        for contender, ms in best.items():
            print("%-10s %-26s %8.1f ms/step (data included)"
                  % (name, contender, ms), flush=True)


if __name__ == "__main__":
    main()
