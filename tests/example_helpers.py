"""Load a script of examples/ as a module, so the tests run the code users copy."""
from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load_example(name: str) -> ModuleType:
    """`examples/<name>.py` imported as module `name`."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
