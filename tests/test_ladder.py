"""The budget ladder (tabletop_rl.agents.ladder): the matched budget, one arena run per rung, the docs section."""
from __future__ import annotations

import json
import math

import pytest

from tabletop_rl.agents import ladder


def _rungs(*shares):
    return [{"budget": b, "win_share": s} for b, s in zip((30, 100, 300, 1000, 3000), shares)]


def test_matched_budget_interpolates_in_log_budget_where_the_share_crosses_one_half():
    m = ladder.matched_budget(_rungs(0.9, 0.7, 0.6, 0.4, 0.2))
    assert math.isclose(m["budget"], math.sqrt(300 * 1000)) and "between 300 and 1,000" in m["text"]
    m = ladder.matched_budget(_rungs(0.9, 0.5, 0.45))  # exactly 1/2 counts as matched: up to 100
    assert math.isclose(m["budget"], 100.0)
    assert ladder.matched_budget(_rungs(0.9, 0.8, 0.7, 0.6, 0.55)) == {"budget": None, "text": "> 3,000"}
    assert ladder.matched_budget(_rungs(0.4, 0.6, 0.7)) == {"budget": None, "text": "< 30"}
    # the first crossing counts (noise above it is not a second match)
    assert "between 30 and 100" in ladder.matched_budget(_rungs(0.6, 0.4, 0.55))["text"]


def test_rung_spec_puts_the_budget_in_the_entrant():
    assert ladder.rung_spec("mcts_guided:iterations={n}", 300) == "mcts_guided:iterations=300"
    assert ladder.rung_spec("ppo", 300) == "ppo"


def test_the_command_plays_each_rung_and_writes_its_section(tmp_path, capsys):
    """random against mcts_batched at two small budgets: it loses every rung, so it matches below the
    bottom rung; the section lands between its markers and a second run replaces it."""
    doc = tmp_path / "baselines.md"
    doc.write_text("# Baselines\n\nkept\n", encoding="utf-8")
    out = tmp_path / "ladder.json"
    argv = ["--game", "fae", "--entrants", "random", "--budgets", "8", "16", "--games", "6", "--doc", str(doc),
            "--json", str(out), "--quiet"]
    assert ladder.main(argv) == 0
    result = json.loads(out.read_text())
    row = result["entrants"][0]
    assert [r["budget"] for r in row["rungs"]] == [8, 16] and all(r["games"] == 6 for r in row["rungs"])
    assert all(r["win_share"] < 0.5 for r in row["rungs"]) and row["matches"]["text"] == "< 8"
    page = doc.read_text()
    assert page.startswith("# Baselines\n\nkept\n") and page.count("<!-- baselines fae ladder 2p -->") == 1
    assert "--entrants random --budgets 8 16 --games 6" in page and "| `random` |" in page
    assert ladder.main(argv) == 0 and doc.read_text().count("<!-- /baselines fae ladder 2p -->") == 1
    assert "| `random` |" in capsys.readouterr().out


def test_bad_requests_name_the_problem():
    with pytest.raises(ValueError, match="knows"):
        ladder.run_ladder("chess")
    with pytest.raises(ValueError, match="one per entrant"):
        ladder.run_ladder("fae", ["random", "greedy"], games=(4, 4, 4))
    with pytest.raises(ValueError, match="budgets"):
        ladder.run_ladder("fae", ["random"], budgets=(0,), games=(2,))
