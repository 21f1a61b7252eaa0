"""python -m mp_export torch FILE.py:FUNCTION OUT_DIR [--stem NAME] [--eval-step]
python -m mp_export keras FILE.py:FUNCTION OUT_DIR [--stem NAME]

torch: FUNCTION returns (model, optimizer, example_x, example_y[, loss_fn])
(export) or (train_step, model, optimizer, example_x, example_y[, loss_fn])
(export_step: the training loop's body); --eval-step also writes
STEM.eval.* (the model traced in eval(): mp-compile --eval of it is the
forward-only plan of eval(), batch norm on its running statistics), with
loss_fn (a loop body's needs it given; default for export: cross-entropy);
keras: FUNCTION returns (compiled model, example_x, example_y)."""
import argparse
import importlib.util
import os
import sys

from .common import ExportError


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m mp_export",
        description="Exports a training step to the train dialect "
                    "(docs/exporters.md).")
    parser.add_argument("framework", choices=["torch", "keras"])
    parser.add_argument("builder", help="FILE.py:FUNCTION returning (model, optimizer, "
                                        "example_x, example_y[, loss_fn]) or (train_step, "
                                        "model, optimizer, example_x, example_y) for torch, "
                                        "(compiled model, example_x, example_y) for keras")
    parser.add_argument("out")
    parser.add_argument("--stem", default="step")
    parser.add_argument("--eval-step", action="store_true",
                        help="torch: also write STEM.eval.*, the model traced in "
                             "eval() (for mp-compile --eval)")
    args = parser.parse_args(argv)
    if args.eval_step and args.framework != "torch":
        parser.error("--eval-step is PyTorch's: a Keras export's forward-only plan "
                     "is not built from an inference-mode trace yet")
    path, _, function = args.builder.rpartition(":")
    if not path or not os.path.exists(path):
        parser.error("'%s' is not FILE.py:FUNCTION with an existing FILE" % args.builder)
    spec = importlib.util.spec_from_file_location("mp_export_user", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    built = getattr(module, function)()
    try:
        if args.framework == "torch":
            from . import torch as torch_export
            import torch
            if callable(built[0]) and not isinstance(built[0], torch.nn.Module):
                train_step, model, optimizer, x, y = built[:5]
                loss_fn = built[5] if len(built) > 5 else None
                if args.eval_step and loss_fn is None:
                    parser.error("--eval-step with a loop body: FUNCTION must also "
                                 "return the loss function (the body's loss is inside "
                                 "it): (train_step, model, optimizer, x, y, loss_fn)")
                paths = torch_export.export_step(train_step, model, optimizer, x, y,
                                                 args.out, args.stem)
            else:
                model, optimizer, x, y = built[:4]
                loss_fn = built[4] if len(built) > 4 else None
                paths = torch_export.export(model, optimizer, x, y, args.out, args.stem,
                                            loss_fn=loss_fn)
            if args.eval_step:
                paths += torch_export.export_eval(model, optimizer, x, y, args.out,
                                                  args.stem + ".eval", loss_fn=loss_fn)
        else:
            from . import keras as keras_export
            model, x, y = built[:3]
            paths = keras_export.export(model, x, y, args.out, args.stem)
    except ExportError as e:
        print("mp_export: error: %s" % e, file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
