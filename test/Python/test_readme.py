"""The README's quick start runs as written (so it cannot go stale)."""
import os
import re
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT


def snippet(marker):
    with open(os.path.join(ROOT, "README.md")) as readme:
        text = readme.read()
    found = re.search(r"<!-- %s[^>]*-->\s*```python\n(.*?)```" % marker, text,
                      re.S)
    assert found, "README.md has no %s block" % marker
    return found.group(1)


def run(tmp_path, marker):
    script = tmp_path / (marker + ".py")
    script.write_text(snippet(marker))
    env = dict(os.environ, MP_BUILD_DIR=BUILD, TF_CPP_MIN_LOG_LEVEL="3",
               PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_quickstart_from_pytorch(tmp_path):
    pytest.importorskip("torch")
    stdout = run(tmp_path, "quickstart-torch")
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", stdout)]
    assert len(losses) == 3, stdout


def test_quickstart_from_keras(tmp_path):
    pytest.importorskip("keras")
    stdout = run(tmp_path, "quickstart-keras")
    # The History's three epochs of loss and of validation accuracy.
    assert len(re.findall(r"\[([0-9.e-]+, ){2}[0-9.e-]+\]", stdout)) == 2, \
        stdout
