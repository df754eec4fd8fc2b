"""The red-team script (benchmarks/redteam.py) as a module, for the tests that run its payloads."""
from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "redteam.py"


@functools.cache
def redteam():
    """benchmarks/redteam.py, imported once (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("redteam", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
