"""The notebooks run top to bottom (with small budgets), so they never rot."""
from __future__ import annotations

import os

import nbformat
from nbclient import NotebookClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_quickstart_fae_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("QUICKSTART_TRAIN_STEPS", "1024")
    monkeypatch.setenv("QUICKSTART_EVAL_GAMES", "6")
    monkeypatch.setenv("QUICKSTART_BC_SAMPLES", "200")
    monkeypatch.setenv("QUICKSTART_RUNS_DIR", str(tmp_path))
    path = os.path.join(ROOT, "notebooks", "quickstart_fae.ipynb")
    nb = nbformat.read(path, as_version=4)
    # allow_errors: an error becomes an output, so the assertion below names it (the client would
    # otherwise raise first and the assertion could never fail).
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    outputs = {i: cell.get("outputs", []) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"}
    errors = [f"cell {i}: {o.get('ename')}: {o.get('evalue')}" for i, outs in outputs.items() for o in outs
              if o.get("output_type") == "error"]
    assert not errors, errors
    images = [o for outs in outputs.values() for o in outs if "image/png" in o.get("data", {})]
    assert len(images) >= 2  # the board render and the learning curve
    text = "".join(o.get("text", "") for outs in outputs.values() for o in outs)
    assert "winners:" in text and "vs random: win share" in text and "vs greedy: win share" in text
    assert len(list(tmp_path.glob("*/policy.npz"))) == 1
