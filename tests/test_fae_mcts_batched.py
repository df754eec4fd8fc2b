"""`mcts_batched` (fae_rl.vector_mcts): the scalar Fae MCTS's prior and evaluation exactly, legal and
reproducible moves, blind to other seats' colours, one search for single and batched play, and a
batched opponent of the learner core. Its strength against the scalar `mcts` is measured by
benchmarks/fae_mcts_batched.py (a statistical check, too slow for this suite)."""
from __future__ import annotations

import numpy as np
import pytest

from fae_rl import FaeState, action_mask
from fae_rl.board import NUM_ACTIONS, NUM_MOVE_ACTIONS
from fae_rl.vector import FaeVector
from fae_rl.vector_core import B_MOVE_OK
from fae_rl.vector_mcts import MAX_ITERATIONS, leaf_values, order_cap, ritual_order, search, search_games
from tabletop_rl.agents import agent_names, make_agent
from tabletop_rl.agents.fae_mcts_batched import FaeBatchedMCTS
from tabletop_rl.agents.mcts import _fae_scored_moves, fae_evaluate
from tests.fae_helpers import assert_act_needs_the_movers_state, random_state, randomly_played_vector


def _positions(num_players: int, games: int, seed: int):
    """Every position of `games` random games (terminal ones included)."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = FaeState.new(num_players, seed=seed + g)
        yield state.clone()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
            yield state.clone()


def _one(state: FaeState) -> FaeVector:
    vec = FaeVector(1, state.num_players, state.big_stack_merge)
    vec.set_state(0, state)
    return vec


def _position(num_players: int, seed: int, plies: int) -> FaeState:
    state = random_state(seed, plies, num_players)
    assert not state.is_terminal()
    return state


def _act(bot, state):
    seat = state.current_player
    return bot.act(None, action_mask(state, seat), state=state, seat=seat)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_prior_and_leaf_values_are_the_scalar_searchs(num_players):
    """The ritual moves in the scalar prior's order with its margins (fae_prior via _fae_scored_moves),
    and fae_evaluate / the returns at every position of random games, pending rituals included."""
    order, gains, values = np.empty(NUM_ACTIONS, np.int64), np.empty(NUM_ACTIONS, np.int64), np.zeros(4)
    seen_pending = 0
    for state in _positions(num_players, 12, seed=40 + num_players):
        vec = _one(state)
        leaf_values(vec._w, 0, num_players, values)
        want = state.returns() if state.is_terminal() else fae_evaluate(state)
        assert np.allclose(values[:num_players], want)
        if state.is_terminal():
            continue
        k = ritual_order(vec._b, vec._w, 0, order, gains)
        scored = sorted(_fae_scored_moves(state), key=lambda t: (-t[0], t[1]))
        assert order[:k].tolist() == [a for _, a in scored] and gains[:k].tolist() == [int(v) for v, _ in scored]
        seen_pending += bool(state.pending)
    assert seen_pending > 0


def test_legal_reproducible_and_one_legal_action_is_not_searched():
    for num_players, seed, plies in [(2, 0, 3), (3, 1, 12), (4, 2, 20), (2, 3, 30)]:
        state = _position(num_players, seed, plies)
        moves = [_act(make_agent("fae", "mcts_batched", seed=5, iterations=80), state) for _ in range(2)]
        assert moves[0] == moves[1] and state.is_legal(moves[0])
    state = _position(2, seed=0, plies=0)
    vec, stats = _one(state), np.zeros(2, np.int64)
    b, w = vec._b.copy(), vec._w.copy()
    seed = np.uint64(1)   # search_games' seed type: another type would compile the kernel again (tens of seconds)
    assert state.is_legal(search(vec._b, vec._w, 0, seed, 50, 0.7, 2.0, 2.0, False, 2, order_cap(50, 2, 2), stats))
    assert stats.tolist() == [50, 51] and np.array_equal(b, vec._b) and np.array_equal(w, vec._w)  # rows untouched
    only = state.legal_actions()[7]
    vec._b[0, B_MOVE_OK:B_MOVE_OK + NUM_MOVE_ACTIONS] = 0  # one move left legal
    vec._b[0, B_MOVE_OK + only] = 1
    assert search(vec._b, vec._w, 0, seed, 50, 0.7, 2.0, 2.0, False, 2, 10, stats) == only and stats.tolist() == [0, 0]


def test_control_own_colour_changes_the_move():
    """The control of tests/test_mcts.py's colour-permutation test (run there for both searches): the
    searching seat's own colour does change the move in at least one of these positions."""
    changed = 0
    for seed in range(4):
        state = _position(2, seed, 16)
        seat = state.current_player
        base = _act(make_agent("fae", "mcts_batched", seed=11, iterations=120), state)
        for c in range(5):
            if c in state.colours:
                continue
            other = state.clone()
            other.colours = [c if p == seat else state.colours[p] for p in range(2)]
            changed += _act(make_agent("fae", "mcts_batched", seed=11, iterations=120), other) != base
    assert changed > 0


def test_batched_search_equals_one_search_per_game():
    """search_games over a batch (numba threads) gives each game the move its own search gives."""
    vec = randomly_played_vector(6, 3, 9)
    games, seeds = np.array([0, 2, 3, 5]), np.array([9, 8, 7, 6], dtype=np.uint64)
    stats = np.zeros((4, 2), np.int64)
    got = search_games(vec, games, seeds, iterations=60, stats=stats)
    for k, g in enumerate(games):
        assert got[k] == search_games(vec, games[k:k + 1], seeds[k:k + 1], iterations=60)[0]
        assert vec.legal_mask()[g, got[k]]
    assert (stats[:, 0] == 60).all() and (stats[:, 1] > 1).all()


def test_act_batch_in_the_learner_core_and_on_scalar_batches():
    from tabletop_rl.training.learner import make_learner_core

    core = make_learner_core("fae", 8, 2, opponents={"mcts_batched": 1.0}, seed=3)
    assert core._movers == ["agent_batch"]
    core.reset()
    rng = np.random.default_rng(0)
    finished = []
    for _ in range(60):
        masks = core.masks()
        _, _, done = core.step(np.argmax(np.where(masks, rng.random(masks.shape), -1), axis=1))
        finished += done
    assert finished and all(f["opponent"] == "mcts_batched" for f in finished)
    # the same bot on N scalar games (ScalarBatch: train.py --evaluate's cores) plays legal moves too
    scalar = make_learner_core("fae", 4, 3, batched=False, opponents={"mcts_batched": 1.0}, seed=3)
    scalar.reset()
    for _ in range(5):
        masks = scalar.masks()
        scalar.step(np.argmax(masks, axis=1))


def test_bad_settings_and_inputs_name_the_problem():
    assert "mcts_batched" in agent_names("fae") and "mcts_batched" not in agent_names("fantastiqa")
    for kwargs, needle in [({"iterations": 0}, "iterations"), ({"iterations": MAX_ITERATIONS + 1}, "iterations"),
                           ({"iterations": True}, "iterations"), ({"iterations": 2.5}, "iterations"),
                           ({"c": -0.1}, "c must"), ({"c": float("nan")}, "c must"), ({"widen": 0}, "widen"),
                           ({"root_widen": float("inf")}, "root_widen"), ({"c": "1"}, "c must")]:
        with pytest.raises(ValueError, match=needle):
            FaeBatchedMCTS(seed=0, **kwargs)
    bot = FaeBatchedMCTS(seed=0, iterations=5)
    state = _position(2, seed=1, plies=2)
    assert_act_needs_the_movers_state(bot, state)
    vec = _one(state)
    for games, seeds, needle in [([0, 1], [1, 2], "indices"), ([0], [1, 2], "one length"), ([-1], [0], "indices")]:
        with pytest.raises(ValueError, match=needle):
            search_games(vec, np.array(games), np.array(seeds, dtype=np.uint64))
    with pytest.raises(ValueError, match="shape"):
        bot.act_batch(vec, np.ones(3, dtype=bool), np.random.default_rng(0))
