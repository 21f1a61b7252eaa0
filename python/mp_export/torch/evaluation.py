"""The evaluation step of a PyTorch model: its forward pass and loss as
PyTorch's eval() runs them (batch norm on its running statistics, dropout
off), for mp-compile --eval (docs/exporters.md, "Evaluation").

A training step traced in train() mode normalizes batch norm with the
batch's statistics; its forward-only plan is not what model.eval() computes.
export_eval() traces the model with every module in eval(), restoring each
module's own mode after, whatever happens."""
import contextlib
import warnings

import torch

from .exporter import export


def default_eval_loss(example_y):
    """The loss an evaluation plan needs when none is given (its logits are
    the loss op's input): cross-entropy for class labels, else the mean
    squared error."""
    y = torch.as_tensor(example_y)
    return torch.nn.functional.mse_loss if y.is_floating_point() else \
        torch.nn.functional.cross_entropy


@contextlib.contextmanager
def in_eval_mode(model):
    """Every module of `model` in eval() inside, each back in its own mode
    after, whatever happens."""
    modes = [(m, m.training) for m in model.modules()]
    model.eval()
    try:
        yield model
    finally:
        for module, training in modes:
            module.training = training


def export_eval(model, optimizer, example_x, example_y, out_dir, stem, loss_fn=None):
    """Exports `model`'s step traced with every module in eval() (then put
    back in its own mode): compile it with `mp-compile --eval` for the
    forward-only plan of eval(). `loss_fn` as export() takes it (default
    F.cross_entropy); the optimizer is the one the parameters belong to (the
    evaluation plan drops the update). Writes OUT/STEM.{mlir,
    init.safetensors,manifest.json}; returns the paths."""
    with in_eval_mode(model), warnings.catch_warnings():
        # "N modules are in eval mode": here they are meant to be.
        warnings.filterwarnings("ignore", message="mp_export: .* in eval mode")
        return export(model, optimizer, example_x, example_y, out_dir, stem,
                      loss_fn=loss_fn)
