"""The red-team table of the state-dict and card-file loaders (benchmarks/redteam_state.py, issue
24): every mutation of a valid state dict or card file is refused with the loader's own error,
naming the key or the card and field. (Its checkpoint rows train a tiny run; tests/test_train.py
covers --resume.) On main before issue 24 these rows gave 749 unclear, 149 silently accepted and 2
crash later of 6,393."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))

import redteam_state  # noqa: E402


def test_every_state_dict_and_card_file_mutation_is_refused_clearly():
    rows = redteam_state.state_rows() + redteam_state.card_rows()
    assert len(rows) > 6000
    assert {r["target"] for r in rows} == {"fantastiqa state", "fae state", "card file"}
    assert all(r["outcome"] in redteam_state.OUTCOMES for r in rows)
    rest = [f"{r['target']}: {r['case']}: {r['outcome']}" for r in rows if r["outcome"] != "clear"]
    assert not rest, "\n".join(rest[:20])


def test_the_table_counts_every_outcome():
    rows = [{"target": "t", "case": "a", "outcome": "clear"}, {"target": "t", "case": "b", "outcome": "crash later"}]
    text = redteam_state.table(rows)
    assert text.splitlines()[2].split() == ["t", "2", "1", "0", "0", "1", "0"]


def test_issue_36_rows_are_all_clear():
    """States play reaches load (a doubled card released, played, given, drawn back; whole random
    games), SB3's predict output plays on every face and other 0-d arrays are refused, tampered state
    objects are not written into vector rows, and the AEC env edges and wrapped seeds are named. On
    the code before issue 36's fixes: 52 clear, 84 unclear, 28 silently accepted of 164."""
    import importlib.util

    rows = redteam_state.issue36_rows()
    targets = {"reached state", "vector set_state", "AEC env edge"}
    if importlib.util.find_spec("sb3_contrib") is not None:
        targets.add("SB3 predict action")
    assert {r["target"] for r in rows} == targets
    assert len(rows) >= 110
    rest = [f"{r['target']}: {r['case']}: {r['outcome']}" for r in rows if r["outcome"] != "clear"]
    assert not rest, "\n".join(rest[:20])
