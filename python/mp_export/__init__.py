"""Exporters of framework training steps to mp's `train` dialect.

    python -m mp_export torch FILE.py:FUNCTION OUT_DIR [--stem NAME]
    python -m mp_export tf    FILE.py:FUNCTION OUT_DIR [--stem NAME]

FUNCTION() returns (model, optimizer, example_x, example_y) or (model,
optimizer, example_x, example_y, loss_fn). docs/exporters.md is the user
guide. The framework modules are imported lazily: `mp_export.common` needs
numpy only.
"""
