"""The Keras 3 exporter: a compiled model's train_step (its optimizer,
loss, metrics) written as one training step in the train dialect
(docs/exporters.md).

    import mp_export.keras
    mp_export.keras.export(model, x, y, out_dir, stem)

Modules: exporter (the trace and the step), mapper / layers / einsum
(TensorFlow ops to train ops), fold (constant parts), training (optimizers,
schedules), common (helpers they share).
"""
from .exporter import (assign_state, assign_variable, export, load_checkpoint,
                       read_variable, state_tensors, state_variables)

__all__ = ["assign_state", "assign_variable", "export", "load_checkpoint",
           "read_variable", "state_tensors", "state_variables"]
