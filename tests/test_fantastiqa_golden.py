"""Replay every game of tests/data/fantastiqa_golden.jsonl: the engine must reproduce each step's
state digest exactly (regenerate deliberately with `python -m tests.fantastiqa_golden --write`)."""
import json

import pytest

from fantastiqa_rl import FantastiqaState
from tests.fantastiqa_golden import PATH, digest

GAMES = [json.loads(line) for line in PATH.read_text().splitlines() if line.strip()]
# the games recorded before Q-T2 (fantastiqa_v0): actions and results only
V0_GAMES = [json.loads(line) for line in (PATH.parent / "fantastiqa_golden_v0.jsonl").read_text().splitlines()
            if line.strip()]


def test_golden_file_covers_player_counts_variants_options_and_endings():
    assert len(GAMES) >= 12
    covers = set().union(*(g["covers"] for g in GAMES))
    assert {"2p", "3p", "4p", "abbey", "teams", "adventure_path=loops", "fly_in_adventure=False",
            "bought_to=hand", "card_use=both", "draw_rule=draw_5", "mark_return=allow", "turn_loops=allow",
            "goal", "creature deck empty", "turn_limit"} <= covers
    assert all(len(g["actions"]) == len(g["digests"]) > 50 for g in GAMES)


@pytest.mark.parametrize("index", range(len(GAMES)), ids=[g["name"] for g in GAMES])
def test_golden_game(index):
    g = GAMES[index]
    s = FantastiqaState.new(g["num_players"], seed=g["seed"], goal=g["goal"], **g["options"])
    for i, (action, want) in enumerate(zip(g["actions"], g["digests"], strict=True)):
        assert not s.is_terminal(), f"step {i}: the game ended early"
        assert action in s.legal_set(), f"step {i}: action {action} is not legal in {s.phase_name}"
        s.apply(action)
        assert digest(s) == want, f"step {i} (action {action}): state differs from the recorded game"
    assert s.is_terminal()
    f = g["final"]
    assert (s.winners(), s.end_reason, s.turns) == (f["winners"], f["end_reason"], f["turns"])
    assert (list(s.scores), list(s.final_scores())) == (f["scores"], f["final_scores"])


@pytest.mark.parametrize("index", range(len(V0_GAMES)), ids=[g["name"] for g in V0_GAMES])
def test_unbounded_reading_replays_the_v0_games(index):
    """turn_loops="allow" (Q-T2's unbounded reading) is the rules before Q-T2: every fantastiqa_v0
    golden game replays under it, legal at every step, to the same result."""
    g = V0_GAMES[index]
    s = FantastiqaState.new(g["num_players"], seed=g["seed"], goal=g["goal"], **g["options"], turn_loops="allow")
    for i, action in enumerate(g["actions"]):
        assert action in s.legal_set(), f"step {i}: action {action} is not legal in {s.phase_name}"
        s.apply(action)
    f = g["final"]
    assert (s.winners(), s.end_reason, s.turns) == (f["winners"], f["end_reason"], f["turns"])
    assert (list(s.scores), list(s.final_scores())) == (f["scores"], f["final_scores"])


def test_the_v0_games_differ_under_q_t2():
    """Control: under the default turn_loops="forbid" some v0 game takes another course (an action
    becomes illegal or the result changes), so the replay above is a real check of the option."""
    changed = 0
    for g in V0_GAMES:
        s = FantastiqaState.new(g["num_players"], seed=g["seed"], goal=g["goal"], **g["options"])
        for action in g["actions"]:
            if s.is_terminal() or action not in s.legal_set():
                break
            s.apply(action)
        changed += (s.winners(), s.end_reason, s.turns) != (g["final"]["winners"], g["final"]["end_reason"],
                                                            g["final"]["turns"])
    assert changed > 0
