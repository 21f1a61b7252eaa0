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


def test_quickstart_from_pytorch(tmp_path):
    pytest.importorskip("torch")
    script = tmp_path / "quickstart.py"
    script.write_text(snippet("quickstart-torch"))
    env = dict(os.environ, MP_BUILD_DIR=BUILD,
               PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", out.stdout)]
    assert len(losses) == 3, out.stdout
