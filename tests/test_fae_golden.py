"""Replay every game of tests/data/fae_golden.jsonl: the engine must reproduce each step exactly."""
import json

import pytest

from fae_rl import FaeState
from tests.fae_helpers import GOLDEN_PATH

GAMES = [json.loads(line) for line in GOLDEN_PATH.read_text().splitlines() if line.strip()]


def start_state(g) -> FaeState:
    n = g["num_players"]
    return FaeState.from_dict({
        "version": 1, "num_players": n, "big_stack_merge": g["big_stack_merge"], "druids": g["druids"],
        "colours": g["colours"], "scores": [0] * 5, "ritual_cards": [0] * n, "current_player": 0,
        "pending_rituals": [], "resolved": [], "terminal": False,
        "history": [{"moved": [0] * 5, "points": [0] * 5, "last_action": -1} for _ in range(n)],
    })


def test_golden_file_has_sixteen_games_covering_the_spec():
    assert len(GAMES) == 16
    covers = set().union(*(g.get("covers", []) for g in GAMES if isinstance(g.get("covers"), list)))
    assert {"curse", "strife", "strife_empties", "value5", "blessed", "pending2", "pending3",
            "big_merge_used", "end_no_legal_move", "tie_break_win"} <= covers


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_golden_game(index):
    g = GAMES[index]
    s = start_state(g)
    for i, (action, step) in enumerate(zip(g["actions"], g["steps"], strict=True)):
        assert s.legal_actions().tolist() == step["legal_before"], f"step {i}: legal actions"
        s.apply(action)
        d = s.to_dict()
        got = {"scores": d["scores"], "ritual_cards": d["ritual_cards"], "pending": d["pending_rituals"],
               "resolved": d["resolved"], "current_player": d["current_player"], "terminal": d["terminal"]}
        assert got == {k: step[k] for k in got}, f"step {i} (action {action} = {s.action_to_string(action)})"
    assert s.is_terminal()
    assert s.final_colour_scores().tolist() == g["final_colour_scores"]
    assert s.winners() == g["winners"]
