"""The Makefile's torch install is the caller's choice (issue 27, item 2): TORCH_SPEC and
TORCH_INDEX reach the torch line of both environments, and the default asks pip's configured
index only (CI reaches only PyPI and the local wheel cache)."""
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def torch_lines(target: str, *variables: str) -> list[str]:
    """The torch install lines `make -n -B target` would run (-n: print only; -B: as if .venv were new)."""
    out = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), target, *variables], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return [line for line in out.splitlines() if "pip install" in line and "torch" in line and " -e " not in line]


@pytest.mark.parametrize("target,python", [("venv", ".venv/bin/python"), ("venv-rllib", ".venv-rllib/bin/python")])
def test_torch_line_uses_the_variables(target, python):
    assert torch_lines(target) == [f'{python} -m pip install -q "torch==2.13.0" ']
    spec, index = "torch==2.13.0+cpu", "https://download.pytorch.org/whl/cpu"
    assert torch_lines(target, f"TORCH_SPEC={spec}", f"TORCH_INDEX={index}") == [
        f'{python} -m pip install -q "{spec}" --index-url "{index}"']
    assert torch_lines(target, f"TORCH_INDEX={index}") == [
        f'{python} -m pip install -q "torch==2.13.0" --index-url "{index}"']
