"""The Fae notebook runs top to bottom (with small budgets), so it never rots. (The Fantastiqa
notebook's tests are in test_fantastiqa_notebook.py; both use conftest's `run_notebook`.)"""
from __future__ import annotations


def test_quickstart_fae_runs(run_notebook):
    run = run_notebook("quickstart_fae.ipynb", train_steps=1024, eval_games=6, bc_samples=200)
    assert not run.errors, run.errors
    assert run.images >= 2  # the board render and the learning curve
    assert "winners:" in run.text and "vs random: win share" in run.text and "vs greedy: win share" in run.text
