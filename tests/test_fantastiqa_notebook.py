"""The Fantastiqa quickstart notebook: committed executed (it teaches without running), free of
`sys.path` hacks and private attributes, and it still runs top to bottom (with small budgets)."""
from __future__ import annotations

import os
import re

import nbformat
from nbclient import NotebookClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = os.path.join(ROOT, "notebooks", "quickstart_fantastiqa.ipynb")


def _outputs(nb):
    return [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]


def _errors(nb) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for o in _outputs(nb) if o.get("output_type") == "error"]


def test_quickstart_fantastiqa_is_committed_executed_and_clean():
    nb = nbformat.read(PATH, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert all(cell.get("execution_count") for cell in code), "commit the notebook executed"
    assert not _errors(nb)
    assert sum("image/png" in o.get("data", {}) for o in _outputs(nb)) == 2  # board, win shares: shown unrun
    source = "\n".join(cell.source for cell in code)
    assert "sys.path" not in source
    assert not re.search(r"\.unwrapped\b|\._[a-z]", source), "use public APIs only"


def test_quickstart_fantastiqa_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("QUICKSTART_TRAIN_STEPS", "512")
    monkeypatch.setenv("QUICKSTART_BC_SAMPLES", "200")
    monkeypatch.setenv("QUICKSTART_EVAL_GAMES", "2")
    monkeypatch.setenv("QUICKSTART_MAX_STEPS", "1500")
    monkeypatch.setenv("QUICKSTART_RANDOM_TURNS", "40")
    monkeypatch.setenv("QUICKSTART_RUNS_DIR", str(tmp_path))
    nb = nbformat.read(PATH, as_version=4)
    for cell in nb.cells:  # run it fresh: the committed outputs must not satisfy the checks below
        if cell.cell_type == "code":
            cell.outputs = []
    # allow_errors: an error becomes an output, so the assertion below names it (the client would
    # otherwise raise first and the assertion could never fail).
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": os.path.dirname(PATH)}}).execute()
    assert not _errors(nb)
    outputs = _outputs(nb)
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 2  # the board render, the win shares
    text = "".join(o.get("text", "") for o in outputs)
    assert "winners:" in text and "this run vs random: win share" in text and "vs greedy: win share" in text
    assert "shipped policy vs random: win share" in text
    assert "ADVENTURE" in text or "VISIT_STATUE" in text or "END_TURN" in text  # the legal-action listing
    assert len(list(tmp_path.glob("*/policy.npz"))) == 1
