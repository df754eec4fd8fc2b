"""The Fantastiqa quickstart notebook runs top to bottom (with small budgets), so it never rots."""
from __future__ import annotations

import os

import nbformat
from nbclient import NotebookClient

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_quickstart_fantastiqa_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("QUICKSTART_TRAIN_STEPS", "512")
    monkeypatch.setenv("QUICKSTART_BC_SAMPLES", "200")
    monkeypatch.setenv("QUICKSTART_EVAL_GAMES", "2")
    monkeypatch.setenv("QUICKSTART_MAX_STEPS", "1500")
    monkeypatch.setenv("QUICKSTART_RANDOM_TURNS", "40")
    monkeypatch.setenv("QUICKSTART_RUNS_DIR", str(tmp_path))
    path = os.path.join(ROOT, "notebooks", "quickstart_fantastiqa.ipynb")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": os.path.dirname(path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not any(o.get("output_type") == "error" for o in outputs)
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the board render
    text = "".join(o.get("text", "") for o in outputs)
    assert "winners:" in text and "vs random: win share" in text and "vs greedy: win share" in text
    assert "ADVENTURE" in text or "VISIT_STATUE" in text or "END_TURN" in text  # the legal-action listing
    assert len(list(tmp_path.glob("*/policy.npz"))) == 1
