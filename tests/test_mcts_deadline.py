"""Issue 24: MCTS obeys a deadline (`max_seconds`) on top of its iterations budget; without one it
is unchanged. The clock is faked (every reading advances it one second), so nothing here times."""
from __future__ import annotations

import itertools

import pytest

import tabletop_rl.agents.mcts as mcts_module
from tabletop_rl.agents import make_agent
from tabletop_rl.envs.registry import get_game


@pytest.fixture
def ticking_clock(monkeypatch):
    ticks = itertools.count()
    monkeypatch.setattr(mcts_module.time, "perf_counter", lambda: float(next(ticks)))


def _position(game: str):
    """A decision the game's MCTS searches: more than one legal move (Fantastiqa: a searched phase)."""
    from tabletop_rl.agents.fantastiqa_mcts import SEARCH_PHASES
    from fantastiqa_rl import actions as A

    spec = get_game(game)
    state = spec.new_state(num_players=2, seed=3)
    searched = {A.PHASES.index(p) for p in SEARCH_PHASES}
    while len(state.legal_actions()) < 2 or (game == "fantastiqa" and state.phase not in searched):
        state.apply(int(state.legal_actions()[0]))
    return spec, state


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_max_seconds_stops_the_search_before_its_iterations(game, ticking_clock):
    spec, state = _position(game)
    seat = state.current_player
    bot = make_agent(game, "mcts", seed=0, iterations=100_000, max_seconds=3)
    action = bot.act(None, spec.action_mask(state, seat), state=state.clone(), seat=seat)
    assert action in set(int(a) for a in state.legal_actions())
    assert 0 < bot.last_iterations < 100  # a handful of clock readings, not 100,000 iterations


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_without_a_deadline_the_search_is_unchanged(game):
    spec, state = _position(game)
    seat = state.current_player
    a = make_agent(game, "mcts", seed=4, iterations=8)
    b = make_agent(game, "mcts", seed=4, iterations=8, max_seconds=1e6)
    mask = spec.action_mask(state, seat)
    assert a.act(None, mask, state=state.clone(), seat=seat) == b.act(None, mask, state=state.clone(), seat=seat)
    assert a.last_iterations == b.last_iterations > 0


@pytest.mark.parametrize("bad", [0, -1, True, "5", float("inf"), float("nan")])
def test_max_seconds_must_be_a_positive_number(bad):
    with pytest.raises(ValueError, match="max_seconds"):
        make_agent("fae", "mcts", max_seconds=bad)
