"""LLMAgent (issue 39): a callable `prompt -> reply` plays a seat; retries and the forfeit rule; the
arena builds it by name from a module named with --import (this module registers `scripted_llm`).
No network: the "models" here are scripted functions."""
import json
import logging
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop_rl.agents import make_agent
from tabletop_rl.agents.llm_agent import MAX_RETRIES, LLMAgent, LLMForfeit, register_llm_agent
from tabletop_rl.agents.match import play_game
from tabletop_rl.envs.registry import get_game

ROOT = Path(__file__).resolve().parents[1]
LEGAL_HEADER = "Your legal actions now, one per line:\n\n"


def listed(prompt: str) -> list[str]:
    """The legal list a prompt made with include_legal=True shows."""
    assert LEGAL_HEADER in prompt
    return prompt.split(LEGAL_HEADER, 1)[1].split("\n\n", 1)[0].splitlines()


def last_listed(prompt: str) -> str:
    """A scripted model: thinks aloud, then names the last listed action (in other case)."""
    return f"Many options.\nI pick the last one.\nACTION: {listed(prompt)[-1].upper()}"


# `--import tests.test_llm_agent` registers this model for the arena (as a user's module would).
register_llm_agent("scripted_llm", last_listed, include_legal=True)


def seat_and_state():
    spec = get_game("fae")
    state = spec.new_state(num_players=2, seed=5)
    return spec, state, spec.action_mask(state, 0)


def test_a_scripted_model_plays_whole_games_of_both_games():
    for game in ("fae", "fantastiqa"):
        spec = get_game(game)
        transcript = []
        bot = LLMAgent(last_listed, include_legal=True, transcript=transcript)
        res = play_game(spec, [bot, make_agent(game, "random", seed=1)], seed=3)
        assert res.final_state.is_terminal()
        assert bot.stats["forfeits"] == 0 and bot.stats["refused"] == 0
        assert bot.stats["moves"] == bot.stats["asks"] == len(transcript) > 5
        assert all(t["action"] is not None and "ACTION:" in t["reply"] for t in transcript)


def test_a_refused_reply_is_answered_with_the_reason_and_asked_again():
    spec, state, mask = seat_and_state()
    prompts = []
    replies = iter(["I am not sure.\nLet me think.", "ACTION: move 1->60", "ACTION: " + state.action_to_string(
        int(state.legal_actions()[3]))])

    def ask(prompt):
        prompts.append(prompt)
        return next(replies)

    bot = LLMAgent(ask, retries=2)
    assert bot.act(None, mask, state=state, seat=0) == int(state.legal_actions()[3])
    assert bot.stats == {"moves": 1, "asks": 3, "refused": 2, "forfeits": 0}
    assert "refused" not in prompts[0]
    assert "refused: the reply has no line 'ACTION: <action>'" in prompts[1]
    assert "refused: 'move 1->60': spaces 1 and 60 are not adjacent" in prompts[2]
    assert LEGAL_HEADER not in prompts[0]  # by default the legal list is not shown (as Kaggle's harness)


def test_forfeit_plays_a_seeded_random_legal_move_and_counts_it(caplog):
    spec, state, mask = seat_and_state()
    calls = []

    def babble(prompt):
        calls.append(prompt)
        return "I resign to the beauty of the board."

    picks = []
    for _ in range(2):
        bot = LLMAgent(babble, retries=3, seed=11)
        with caplog.at_level(logging.WARNING):
            picks.append(bot.act(None, mask, state=state, seat=0))
        assert bot.stats == {"moves": 0, "asks": 4, "refused": 4, "forfeits": 1}
    assert picks[0] == picks[1] and mask[picks[0]]  # seeded: the same fallback move
    assert len(calls) == 8
    assert "forfeited the move" in caplog.text
    moves = {LLMAgent(babble, retries=0, seed=s).act(None, mask, state=state, seat=0) for s in range(12)}
    assert len(moves) > 3  # the fallback is random over the legal moves, not one fixed move


def test_forfeit_can_raise_instead():
    spec, state, mask = seat_and_state()
    bot = LLMAgent(lambda p: "ACTION: fly", retries=1, on_forfeit="raise")
    with pytest.raises(LLMForfeit, match="no legal action in 2 replies"):
        bot.act(None, mask, state=state, seat=0)


def test_the_models_own_errors_pass_through():
    spec, state, mask = seat_and_state()

    def down(prompt):
        raise ConnectionError("model offline")

    with pytest.raises(ConnectionError, match="offline"):
        LLMAgent(down).act(None, mask, state=state, seat=0)


@pytest.mark.parametrize("kwargs,reason", [
    ({"ask": "gpt"}, "callable"), ({"ask": len, "retries": -1}, "retries"),
    ({"ask": len, "retries": MAX_RETRIES + 1}, "retries"), ({"ask": len, "include_legal": "yes"}, "include_legal"),
    ({"ask": len, "on_forfeit": "lose"}, "on_forfeit"),
])
def test_bad_arguments_are_refused(kwargs, reason):
    with pytest.raises(ValueError, match=reason):
        LLMAgent(**kwargs)
    with pytest.raises(ValueError, match="state= and seat="):
        LLMAgent(len).act(None, np.ones(3))


def test_registered_by_name_spec_arguments_win():
    bot = make_agent("fae", "scripted_llm", seed=0, retries=4)
    assert isinstance(bot, LLMAgent) and bot.include_legal and bot.retries == 4
    with pytest.raises(ValueError, match="on_forfeit"):
        make_agent("fae", "scripted_llm", on_forfeit="lose")


def test_the_arena_rates_a_model_by_name_from_an_imported_module(tmp_path):
    """In a fresh process, as a user runs it: the module named with --import registers the model."""
    out = tmp_path / "arena"
    cmd = [sys.executable, "-m", "tabletop_rl.agents.arena", "--game", "fae", "--import", "tests.test_llm_agent",
           "--agents", "scripted_llm", "random", "--games", "4", "--workers", "1", "--out", str(out),
           "--no-plot", "--quiet"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    bots = {b["bot"]: b for b in json.loads((out / "results.json").read_text())["results"]["bots"]}
    assert set(bots) == {"scripted_llm", "random"}
    assert bots["scripted_llm"]["games"] == 4 and len(bots["scripted_llm"]["wilson95"]) == 2
    assert "Wilson 95%" in done.stdout
    rows = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and all("scripted_llm" in r["agents"] for r in rows)
