"""Exporters of framework training steps to mp's `train` dialect.

    python -m mp_export torch MODULE.py:FUNCTION OUT_DIR [--stem NAME]
    python -m mp_export tf    MODULE.py:FUNCTION OUT_DIR [--stem NAME]

docs/exporters.md is the user guide. The framework modules are imported
lazily: `mp_export.common` needs numpy only.
"""
