"""`mcts_guided` (tabletop_rl.agents.fae_mcts_guided over fae_rl.vector_mcts's guided kernels): the
policy's prior is the `ppo` bot's own policy on the seat's observation, the moves are legal and
reproducible, blind to the other seats' colours (with the own-colour control), one search for single
and batched play. Its strength is measured by the ladder (tabletop_rl.agents.ladder, docs/baselines.md)."""
from __future__ import annotations

import numpy as np
import pytest

from fae_rl import FaeState, action_mask
from fae_rl.board import NUM_MOVE_ACTIONS
from fae_rl.vector_core import B_MOVE_OK
from fae_rl.vector import FaeVector
from tabletop_rl.agents import agent_names, make_agent
from tabletop_rl.agents.fae_mcts_guided import FaeGuidedMCTS
from tests.fae_helpers import assert_act_needs_the_movers_state, other_colourings, random_state, randomly_played_vector

# a few iterations and waves, and settings every test shares: each kernel compiles once for the suite
ITERATIONS = 40


def _act(bot, state):
    seat = state.current_player
    return bot.act(None, action_mask(state, seat), state=state, seat=seat)


def _position(num_players: int, seed: int, plies: int) -> FaeState:
    state = random_state(seed, plies, num_players)
    assert not state.is_terminal()
    return state


def test_one_iteration_plays_the_policys_own_move():
    """With one iteration only the root's prior is taken, so the move is the prior's most probable:
    the `ppo` bot's argmax move with the same version, on positions of 2 and 3 players (each table's default)."""
    for num_players, seed, plies in [(2, 0, 0), (2, 1, 7), (2, 2, 19), (3, 3, 11), (2, 4, 30)]:
        state = _position(num_players, seed, plies)
        if state.legal_actions().size < 2:
            continue
        ppo = make_agent("fae", "ppo", num_players=num_players, deterministic=True)  # its argmax (fae_2p_v7 plays sampled)
        from tabletop_rl.envs import get_game

        seat = state.current_player
        obs = get_game("fae").observe(state, seat, **ppo.observation_options)
        want = ppo.act(obs, action_mask(state, seat), state=state, seat=seat)
        assert _act(make_agent("fae", "mcts_guided", seed=0, iterations=1), state) == want


@pytest.mark.parametrize("num_players,seed,plies", [(2, 0, 4), (2, 3, 20), (3, 1, 9)])
def test_decision_ignores_other_seats_colours(num_players, seed, plies):
    """Permute the other seats' colours (and the unheld ones): the same seed gives the same move."""
    state = _position(num_players, seed, plies)
    base = _act(make_agent("fae", "mcts_guided", seed=11, iterations=ITERATIONS), state)
    assert state.is_legal(base)
    others = other_colourings(state, state.current_player, np.random.default_rng(seed))
    assert others
    for other in others:
        assert _act(make_agent("fae", "mcts_guided", seed=11, iterations=ITERATIONS), other) == base


def test_control_own_colour_changes_the_move():
    """The control: the searching seat's own colour (which it may see) changes the move in at least one
    of these positions, so the test above could fail."""
    changed = 0
    for seed in range(4):
        state = _position(2, seed, 16)
        seat = state.current_player
        base = _act(make_agent("fae", "mcts_guided", seed=11, iterations=ITERATIONS), state)
        for c in range(5):
            if c in state.colours:
                continue
            other = state.clone()
            other.colours = [c if p == seat else state.colours[p] for p in range(2)]
            changed += _act(make_agent("fae", "mcts_guided", seed=11, iterations=ITERATIONS), other) != base
    assert changed > 0


def test_reproducible_legal_and_batched_equals_one_search_per_game():
    """Same seed, same move; act_batch's trees (numba threads) give each game the move of its own
    search; a position with one legal move is not searched."""
    bot = FaeGuidedMCTS(seed=0, iterations=ITERATIONS)
    vec = randomly_played_vector(5, 2, 11)
    games, seeds = np.array([0, 2, 3, 4]), np.array([9, 8, 7, 6], dtype=np.uint64)
    before = (vec._b.copy(), vec._w.copy())
    got = bot._search(vec, games, seeds)
    assert np.array_equal(before[0], vec._b) and np.array_equal(before[1], vec._w)  # the rows are not played on
    for k, g in enumerate(games):
        assert vec.legal_mask()[g, got[k]]
        assert got[k] == bot._search(vec, games[k:k + 1], seeds[k:k + 1])[0]
    assert np.array_equal(got, bot._search(vec, games, seeds))
    moves = bot.act_batch(vec, np.array([True, False, True, False, False]), np.random.default_rng(1))
    assert moves[1] == moves[3] == moves[4] == -1 and vec.legal_mask()[[0, 2], moves[[0, 2]]].all()
    state = _position(2, 0, 5)
    vec = FaeVector(1, 2)
    vec.set_state(0, state)
    only = int(state.legal_actions()[3])
    vec._b[0, B_MOVE_OK:B_MOVE_OK + NUM_MOVE_ACTIONS] = 0
    vec._b[0, B_MOVE_OK + only] = 1
    assert bot._search(vec, np.zeros(1, np.int64), np.ones(1, np.uint64))[0] == only


def test_a_leaf_keeps_its_most_probable_legal_moves_and_the_backup_undoes_the_virtual_loss():
    """guided_backup: the `width` best legal logits in order (ties: lower id first), renormalized
    probabilities, and the path's values get the leaf value (the descent's -1 virtual loss undone)."""
    from fae_rl.vector_mcts import guided_backup, guided_tree

    rng = np.random.default_rng(0)
    logits = np.round(rng.normal(size=(1, 330)), 1)  # rounded: ties happen
    legal = rng.random((1, 330)) < 0.3
    tree = guided_tree(1, 4, 8)
    tree["value"][0, [0, 1], :] = -1.0  # the virtual loss of a descent root -> node 1
    path, vals = np.array([[0, 1] + [0] * 70]), np.array([[0.25, -0.25, 0.0, 0.0]])
    guided_backup(1, 1, 1, logits, legal, tree["visits"], tree["value"], tree["n_child"], tree["child_act"],
                  tree["child_prior"], np.array([1]), vals, path, np.array([1]), 2)
    legal_ids = np.flatnonzero(legal[0])
    want = legal_ids[np.argsort(-logits[0, legal_ids], kind="stable")][:8]
    assert tree["n_child"][0, 1] == 8 and tree["child_act"][0, 1].tolist() == want.tolist()
    p = np.exp(logits[0, want] - logits[0, want].max())
    assert np.allclose(tree["child_prior"][0, 1], p / p.sum())
    assert np.allclose(tree["value"][0, [0, 1], :2], [[0.25, -0.25], [0.25, -0.25]])


def test_a_game_against_the_plain_search_plays_to_the_end():
    from tabletop_rl.agents.match import play_game
    from tabletop_rl.envs import get_game

    bots = [make_agent("fae", "mcts_guided", seed=1, iterations=ITERATIONS), make_agent("fae", "mcts_batched", seed=2,
                                                                                          iterations=ITERATIONS)]
    result = play_game(get_game("fae"), bots, seed=3)  # an illegal move would raise
    assert result.final_state.is_terminal() and result.steps > 20


def test_registered_and_bad_settings_name_the_problem():
    assert "mcts_guided" in agent_names("fae") and type(make_agent("fae", "mcts_guided", seed=0)) is FaeGuidedMCTS
    for kwargs, needle in [({"iterations": 0}, "iterations"), ({"iterations": 2.5}, "iterations"),
                           ({"c_puct": -1.0}, "c_puct"), ({"c_puct": float("nan")}, "c_puct"), ({"width": 0}, "width"), ({"width": True}, "width"),
                           ({"wave": 1000}, "wave"), ({"policy": "nope"}, "nope")]:
        with pytest.raises(ValueError, match=needle):
            FaeGuidedMCTS(seed=0, **kwargs)
    bot = FaeGuidedMCTS(seed=0, iterations=5, policy="fae_2p_v4")
    state = _position(2, seed=1, plies=2)
    assert_act_needs_the_movers_state(bot, state)
