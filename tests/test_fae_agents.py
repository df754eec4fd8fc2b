"""Baseline bots for Fae: the greedy definition, tie-breaking, the agent interface and the play CLI."""
import numpy as np
import pytest

import fae_rl
from tabletop_rl.agents import RandomAgent, agent_names, make_agent
from tabletop_rl.agents.fae_greedy import greedy_values
from tabletop_rl.agents.match import play_game
from tabletop_rl.agents.play import main as play_main
from fae_rl import move_action, resolve_action
from tests.fae_helpers import scenario


def test_registry_lists_bots_and_rejects_unknown_names():
    assert {"random", "greedy"} <= set(agent_names("fae"))
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        make_agent("fae", "nope")


def test_greedy_value_is_own_gain_plus_cards_minus_best_other_gain():
    # Seat 0 holds colour 0. Moving 1 -> 3 (Mountains, card 0: no bonus) scores 4 for colours 0 and 1:
    # value = 4 + 1 card - 4 = 1.  Moving 57 -> 58 isolates 58 (Forest): 2 points for neutral
    # colour 4, one card for seat 0: value = 0 + 1 - 2 = -1.
    s = scenario({1: {0: 3}, 3: {1: 1}, 57: {4: 1}, 58: {4: 1}}, colours=[0, 1])
    v = greedy_values(s, 0)
    assert v[move_action(1, 3)] == 1
    assert v[move_action(57, 58)] == -1
    bot = make_agent("fae", "greedy", seed=0)
    assert v[move_action(3, 1)] == 1  # the same stack formed on space 1 (Forest: no bonus either)
    best = {move_action(1, 3), move_action(3, 1)}
    assert max(v.values()) == 1 and {a for a, x in v.items() if x == 1} == best
    assert bot.act(fae_rl.observe(s, 0), fae_rl.action_mask(s, 0), state=s, seat=0) in best


def test_greedy_values_pending_moves_at_their_best_resolution_order():
    # 1 -> 2 isolates 2 and 4 (both Mushrooms) with cards 3 (curses M) and 4 (blesses M, +2).
    # Seat 0 (colour 2) wants space 4 (its colour) resolved second: value = 4 + 2 cards - 0.
    s = scenario({1: {0: 1}, 2: {1: 1}, 4: {2: 2}, 57: {4: 1}, 58: {4: 1}}, cards_used=3, colours=[2, 0])
    v = greedy_values(s, 0)
    assert v[move_action(1, 2)] == 4 + 2
    s.apply(move_action(1, 2))
    pv = greedy_values(s, 0)
    assert pv == {resolve_action(2): 6, resolve_action(4): 2 - 4}


def test_greedy_breaks_ties_with_its_own_generator():
    s = fae_rl.FaeState.new(2, seed=0)  # the first move scores nothing: all 270 moves tie
    obs, mask = fae_rl.observe(s, 0), fae_rl.action_mask(s, 0)
    picks = {make_agent("fae", "greedy", seed=k).act(obs, mask, state=s, seat=0) for k in range(20)}
    assert len(picks) > 5
    a = make_agent("fae", "greedy", seed=3)
    b = make_agent("fae", "greedy", seed=3)
    assert a.act(obs, mask, state=s, seat=0) == b.act(obs, mask, state=s, seat=0)


def test_greedy_beats_random_and_never_plays_illegal_moves(fae_spec):
    wins = 0
    for g in range(40):
        bots = [make_agent("fae", "greedy", seed=g), RandomAgent(seed=g)]
        if g % 2:
            bots.reverse()
        result = play_game(fae_spec, bots, seed=g)
        wins += (g % 2) in result.winners
    assert wins >= 30


def test_random_agent_uses_only_the_mask():
    mask = np.zeros(330, dtype=np.int8)
    mask[[5, 9]] = 1
    picks = {RandomAgent(seed=k).act(None, mask) for k in range(30)}
    assert picks == {5, 9}
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent(0).act(None, np.zeros(330, dtype=np.int8))


def test_play_cli_prints_win_rates(capsys):
    assert play_main(["fae", "--agents", "greedy", "random", "--games", "6", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "greedy#0" in out and "random#1" in out and "seat 1" in out
    with pytest.raises(ValueError, match="one bot per seat"):
        play_main(["fae", "--agents", "greedy", "--games", "2", "--players", "2"])
