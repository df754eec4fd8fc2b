"""Fixtures shared by the test files. pytest finds them here, so test files never import each other;
plain helper functions (scenario builders) live in tests/*_helpers.py."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

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
