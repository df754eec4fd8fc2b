"""The Fantastiqa quickstart notebook: committed executed (it teaches without running), free of
`sys.path` hacks and private attributes, and it still runs top to bottom (with small budgets)."""
from __future__ import annotations

import re

import nbformat


def test_quickstart_fantastiqa_is_committed_executed_and_clean(committed_notebook, repo_root):
    run = committed_notebook("quickstart_fantastiqa.ipynb")
    assert not run.errors, run.errors
    assert run.images == 2  # board, win shares: shown unrun
    nb = nbformat.read(repo_root / "notebooks" / "quickstart_fantastiqa.ipynb", as_version=4)
    source = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert "sys.path" not in source
    assert not re.search(r"\.unwrapped\b|\._[a-z]", source), "use public APIs only"


def test_quickstart_fantastiqa_runs(run_notebook, tmp_path):
    run = run_notebook("quickstart_fantastiqa.ipynb", train_steps=512, bc_samples=200, eval_games=2,
                       max_steps=1500, random_turns=40)
    assert not run.errors, run.errors
    assert run.images == 2  # the board render, the win shares
    text = run.text
    assert "winners:" in text and "this run vs random: win share" in text and "vs greedy: win share" in text
    assert "shipped policy vs random: win share" in text
    assert "ADVENTURE" in text or "VISIT_STATUE" in text or "END_TURN" in text  # the legal-action listing
    assert len(list(tmp_path.glob("*/policy.npz"))) == 1
