"""Fixtures of the mp package's tests: the package from this checkout, the
build's tools, and plans compiled from the examples."""
import os
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
BUILD = os.environ.get("MP_BUILD_DIR", os.path.join(ROOT, "build"))
# The plan cache of this test process, not the user's.
os.environ.setdefault("MP_CACHE_DIR", tempfile.mkdtemp(prefix="mp-cache-"))


def tool(name):
    return os.path.join(BUILD, "bin", name)


@pytest.fixture(scope="session")
def compile_plan(tmp_path_factory):
    """compile_plan(example, policy) -> the path of examples/EXAMPLE.mlir
    compiled under POLICY (once per test run)."""
    made = {}
    work = tmp_path_factory.mktemp("plans")

    def compile_(example, policy):
        key = (example, policy)
        if key not in made:
            out = str(work / ("%s.%s.mpplan" % key))
            subprocess.run(
                [tool("mp-compile"),
                 os.path.join(ROOT, "examples", example + ".mlir"),
                 "--mixed-precision=policy=" + policy, "-o", out],
                check=True)
            made[key] = out
        return made[key]

    return compile_
