"""tests/kernel_warmup.py, which conftest starts beside `pytest -n 2` workers to compile the slowest numba
kernels once (docs/usage/development.md): it works, and its list of test files names real ones."""
from __future__ import annotations

import os
from pathlib import Path

from tests import kernel_warmup

HERE = Path(__file__).parent


def test_the_warm_up_compiles_what_it_plays():
    """Under xdist this file runs after the warm-up (it is in ENGINE_TEST_FILES): its process must have
    finished every kernel, or each worker would be compiling them again unseen. Alone, it runs here."""
    lock = os.environ.get(kernel_warmup.LOCK_ENV)
    if lock:
        assert Path(lock + ".done").read_text() == "compiled\n", "the warm-up did not finish"
    else:
        kernel_warmup.main([])


def test_the_engine_test_files_exist():
    from tests.conftest import ENGINE_TEST_FILES

    assert "test_kernel_warmup.py" in ENGINE_TEST_FILES
    missing = sorted(name for name in ENGINE_TEST_FILES if not (HERE / name).is_file())
    assert not missing, f"tests/conftest.py's ENGINE_TEST_FILES names no such file: {missing}"
