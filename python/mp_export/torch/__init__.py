"""The PyTorch exporter: a model, its optimizer (and schedule, clipping,
loss) or the user's own loop body, traced once and written as one training
step in the train dialect (docs/exporters.md).

    import mp_export.torch
    mp_export.torch.export(model, optimizer, x, y, out_dir, stem)
    mp_export.torch.export_step(train_step, model, optimizer, x, y, out_dir, stem)
    mp_export.torch.export_eval(model, optimizer, x, y, out_dir, stem + ".eval")

Modules: exporter (the trace and the step), mapper / layers / views /
indexing (aten ops to train ops), fold (constant parts), loop (the user's
loop body), training / timm_optim (optimizers, schedules, clipping),
evaluation (the step of the model in eval(), for mp-compile --eval),
common (helpers they share).
"""
from .evaluation import default_eval_loss, export_eval, in_eval_mode
from .exporter import export, export_step, load_checkpoint, state_tensors

__all__ = ["default_eval_loss", "export", "export_eval", "export_step",
           "in_eval_mode", "load_checkpoint", "state_tensors"]
