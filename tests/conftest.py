"""Fixtures shared by the test files. pytest finds them here, so test files never import each other;
plain helper functions (scenario builders) live in tests/*_helpers.py."""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kernel_warmup import LOCK_ENV as _WARMUP_LOCK  # the warm-up's lock file (below), for the workers

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The checkout's root folder (README.md, notebooks/, train.py)."""
    return REPO_ROOT


@pytest.fixture
def quiet_warnings():
    """No warnings inside the test: PettingZoo's api_test warns on purpose about things the envs
    are meant to do (e.g. observation spaces of several blocks). Use it with
    `pytestmark = pytest.mark.usefixtures("quiet_warnings")`."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture(scope="session")
def fae_spec():
    """Fae's GameSpec, from the suite registry."""
    from tabletop_rl.envs.registry import get_game

    return get_game("fae")


@pytest.fixture(scope="session")
def fantastiqa_spec():
    """Fantastiqa's GameSpec, from the suite registry."""
    from tabletop_rl.envs.registry import get_game

    return get_game("fantastiqa")


@dataclass
class NotebookRun:
    """What a notebook printed and drew: every code cell's outputs, the errors among them
    (`cell i: Name: message`), the text printed, and the number of images."""
    outputs: list
    errors: list[str]
    text: str
    images: int


def notebook_report(nb) -> NotebookRun:
    cells = {i: cell.get("outputs", []) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"}
    outputs = [o for outs in cells.values() for o in outs]
    errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}" for i, outs in cells.items() for o in outs
              if o.get("output_type") == "error"]
    return NotebookRun(outputs, errors, "".join(o.get("text", "") for o in outputs),
                       sum("image/png" in o.get("data", {}) for o in outputs))


@pytest.fixture
def committed_notebook():
    """committed_notebook(name): the report of notebooks/<name> as committed (not run)."""
    import nbformat

    def read(name: str) -> NotebookRun:
        nb = nbformat.read(REPO_ROOT / "notebooks" / name, as_version=4)
        assert all(cell.get("execution_count") for cell in nb.cells if cell.cell_type == "code"), \
            f"commit {name} executed"
        return notebook_report(nb)

    return read


@pytest.fixture
def run_notebook(tmp_path, monkeypatch):
    """run_notebook(name, **budgets): notebooks/<name> run top to bottom in a fresh kernel, from
    empty outputs (the committed ones must not satisfy a check), with each budget set as the
    environment variable QUICKSTART_<NAME> and QUICKSTART_RUNS_DIR = tmp_path. Returns its
    NotebookRun. allow_errors: an error becomes an output the test's assertion names (the client
    would otherwise raise first, and an assertion on the errors could never fail)."""
    import nbformat
    from nbclient import NotebookClient

    def run(name: str, **budgets) -> NotebookRun:
        for key, value in budgets.items():
            monkeypatch.setenv(f"QUICKSTART_{key.upper()}", str(value))
        monkeypatch.setenv("QUICKSTART_RUNS_DIR", str(tmp_path))
        path = REPO_ROOT / "notebooks" / name
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
        NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        return notebook_report(nb)

    return run


# ---------------------------------------------------------------- cold numba caches under `pytest -n 2`
# A fresh clone compiles Fantastiqa's batched engine on first use (~130 s of one core), Fae's searches ~25 s.
# Under xdist each worker compiled them for itself, both at once. Instead the controller starts
# tests/kernel_warmup.py, which compiles them once into numba's cache while the workers run the other
# tests first: the files below (those that meet these kernels, in their process or in one they start)
# run last, and the first of them in each worker waits for the warm-up to end, then loads the kernels
# from the cache. A speed measure only: a file missing from the list compiles what it needs itself, as
# before; a warm-up that fails leaves the workers to do the same (and fails tests/test_kernel_warmup.py).
ENGINE_TEST_FILES = frozenset({
    "test_baselines.py", "test_card_policy.py", "test_fae_mcts_batched.py", "test_fae_mcts_guided.py",
    "test_fantastiqa_batch.py", "test_fantastiqa_card_view.py", "test_fantastiqa_declared_state.py",
    "test_fantastiqa_greedy_block.py", "test_fantastiqa_mcts_guided.py", "test_fantastiqa_notebook.py",
    "test_fantastiqa_vector.py", "test_fantastiqa_vector_greedy.py", "test_fantastiqa_vector_kernels.py",
    "test_imitation.py", "test_kernel_warmup.py", "test_learner.py", "test_policy_file.py",
    "test_ppo_agent_tables.py", "test_readme.py", "test_redteam.py", "test_redteam_state.py",
    "test_sb3_predict_actions.py", "test_short_run.py", "test_train.py", "test_vector_set_state_ranges.py"})
WARMUP_WAIT_S = 600
_warmup = []  # the controller's (process, lock path)


def pytest_configure(config):
    import subprocess
    import sys
    import tempfile

    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2 or config.option.collectonly:
        return
    try:
        import fcntl
    except ImportError:  # no flock (Windows): each worker compiles what it meets, as without the warm-up
        return
    fd, path = tempfile.mkstemp(prefix="kernel-warmup-", suffix=".lock")
    fcntl.flock(fd, fcntl.LOCK_EX)  # held by the child (it inherits the descriptor) until it exits
    proc = subprocess.Popen([sys.executable, str(REPO_ROOT / "tests" / "kernel_warmup.py"), path + ".done"],
                            pass_fds=(fd,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO_ROOT)
    os.close(fd)
    os.environ[_WARMUP_LOCK] = path
    _warmup.append((proc, path))


def pytest_unconfigure(config):
    """A run shorter than the warm-up (a few tests) does not leave it compiling behind."""
    if not _warmup:
        return
    for proc, path in _warmup:
        proc.kill()
        proc.wait()
        for f in (path, path + ".done"):
            if os.path.exists(f):
                os.unlink(f)
    _warmup.clear()
    os.environ.pop(_WARMUP_LOCK, None)  # a later pytest.main in this process starts its own


def pytest_collection_modifyitems(config, items):
    """The engine's test files last (a stable sort: every worker collects the same order, as xdist needs)."""
    if os.environ.get(_WARMUP_LOCK):
        items.sort(key=lambda item: item.path.name in ENGINE_TEST_FILES)


_warmed = False


def pytest_runtest_setup(item):
    global _warmed
    path = os.environ.get(_WARMUP_LOCK)
    if _warmed or not path or item.path.name not in ENGINE_TEST_FILES:
        return
    import fcntl
    import time

    _warmed = True
    deadline = time.monotonic() + WARMUP_WAIT_S
    try:
        f = open(path)
    except OSError:  # no lock file (a pytest run inside a test, after the run that made it): nothing to wait for
        return
    with f:
        while time.monotonic() < deadline:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)  # the warm-up has ended
                return
            except BlockingIOError:
                time.sleep(0.2)
