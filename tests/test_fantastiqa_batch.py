"""FantastiqaBatch (tabletop_rl.agents.fantastiqa_batch): the learner core over FantastiqaVector plays the
games the core over N scalar games (ScalarBatch) plays; its greedy bot and potentials are the scalar ones."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop_rl.agents import make_agent
from tabletop_rl.envs import get_game
from tabletop_rl.agents.fantastiqa_batch import FantastiqaBatch
from tabletop_rl.envs.game_state import BatchedGame
from tabletop_rl.training.learner import make_batch, make_learner_core
from tabletop_rl.envs.scalar_batch import ScalarBatch

from tests.batch_helpers import assert_same_trace, learner_trace, random_actions


def test_fantastiqa_is_batched_and_a_batched_game():
    b = make_batch("fantastiqa", 3)
    assert isinstance(b, FantastiqaBatch)
    assert isinstance(make_batch("fantastiqa", 3, batched=False), ScalarBatch)
    b.reset(np.arange(3))
    assert isinstance(b, BatchedGame)
    assert b.rule_options["goal"] == "short" and b.POTENTIALS == ("score_diff", "progress")
    with pytest.raises(ValueError, match="potentials are"):
        b.potential(np.zeros(3, dtype=np.int64), "seat_diff")


@pytest.mark.parametrize("reward", ["score_diff", "win_loss"])
def test_core_over_fantastiqa_batch_equals_core_over_scalar_games(reward):
    """Random opponents, step guard included: identical observations, masks, rewards and finished games,
    over several deals of every game."""
    kw = dict(num_players=2, opponents={"random": 1.0}, reward=reward, win_bonus=1.0, max_steps=500,
              cut_reward=-2.0, seed=3)
    fast, slow = make_learner_core("fantastiqa", 4, **kw), make_learner_core("fantastiqa", 4, batched=False, **kw)
    assert isinstance(fast.batch, FantastiqaBatch) and isinstance(slow.batch, ScalarBatch)
    fast.reset()
    slow.reset()
    a, b = learner_trace(fast, 600), learner_trace(slow, 600)
    assert_same_trace(a, b)
    assert sum(len(x[4]) for x in a) >= 4  # games were cut and dealt again


def test_batched_greedy_opponent_plays_the_scalar_greedy_bots_games():
    """Greedy opponents: the core's batched greedy (FantastiqaBatch.greedy_actions) and its per-game
    scalar bots (ScalarBatch) make the same moves, to the end of the first games. (After that the
    deals differ: the per-game bots draw a reset seed from the core's generator, the batched one none.)"""
    kw = dict(num_players=2, opponents={"greedy": 1.0}, reward="score_diff", seed=5)
    fast, slow = make_learner_core("fantastiqa", 3, **kw), make_learner_core("fantastiqa", 3, batched=False, **kw)
    assert fast._movers == ["greedy"] and slow._movers == ["agent"]
    fast.reset()
    slow.reset()
    a, b = learner_trace(fast, 5000, until_finished=True), learner_trace(slow, 5000, until_finished=True)
    assert_same_trace(a, b)
    assert a[-1][4] and len(a) > 50  # whole games, played to their end


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, {"goal": "long"}), (4, {"teams": True})])
def test_greedy_actions_are_the_scalar_bots_decisions(num_players, options):
    """Per game and seat, the scalar greedy bot (make_agent) asked at the same states, while every seat
    plays greedy in some games and random in the others."""
    n = 4
    b = FantastiqaBatch(n, num_players, **options)
    b.reset(np.arange(n) + 40)
    bots = [[make_agent("fantastiqa", "greedy") for _ in range(num_players)] for _ in range(n)]
    rng = np.random.default_rng(1)
    greedy_games = np.array([True, True, False, True])
    for _ in range(400):
        if b.terminated.all():
            break
        got = b.greedy_actions(rng, games=greedy_games)
        for i in range(n):
            s = b.state(i)
            want = bots[i][s.current_player].act(None, None, state=s, seat=s.current_player) \
                if greedy_games[i] and not s.is_terminal() else -1
            assert got[i] == want, (i, s.phase_name)
        b.step(np.where(greedy_games, got, random_actions(b.legal_mask(), rng)))


def _public_progress(s, p) -> float:
    """Seat p's steps towards points ("progress" less the score) from the state's public fields: an
    independent reference."""
    cards = len(s.hand[p]) + len(s.deck[p]) + len(s.discard[p]) + sum(len(c) for c in s.committed[p].values())
    return 0.1 * s.gems[p] + 0.1 * cards + 0.5 * len(s.completed[p])


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, {}), (4, {"teams": True})])
def test_potentials_equal_the_spec_and_the_public_state(num_players, options):
    """score_diff == the game spec's potential; progress == score_diff + the public progress of the own
    side minus the best opposing side's while the game runs, score_diff once it is over; at every seat."""
    spec = get_game("fantastiqa")
    n = 3
    b = FantastiqaBatch(n, num_players, **options)
    b.reset(np.arange(n) + 7)
    rng = np.random.default_rng(0)
    moved = ended = False
    for t in range(3000):
        seats = np.full(n, t % num_players)
        score = b.potential(seats, "score_diff")
        progress = b.potential(seats, "progress")
        for i in range(n):
            s, p = b.state(i), int(seats[i])
            assert score[i] == spec.potential(s, p)
            side = lambda q: sum(_public_progress(s, r) for r in s.team(q))  # noqa: E731
            ahead = side(p) - max(side(q) for q in range(num_players) if s.is_opponent(p, q))
            assert progress[i] == pytest.approx(score[i] + (0.0 if s.is_terminal() else ahead), abs=1e-9)
            moved |= score[i] != 0
        ended |= b.terminated.any()
        if b.terminated.all():
            break
        b.step(b.greedy_actions(rng) if t % 4 else random_actions(b.legal_mask(), rng))
    assert moved and ended


@pytest.mark.parametrize("options", [dict(action_features="greedy"),
                                     dict(view="cards", action_features="greedy", card_sets="standin;generated:4")])
def test_observing_some_games_gives_their_rows_and_zeros(options):
    """The learner core observes only its snapshot opponents' games (the other seats -1): those rows are
    the full observation's, the greedy block included, and the rest zeros; a card file with no game asked
    for is skipped (FantastiqaCardSets)."""
    b = make_batch("fantastiqa", 6, 2, **options)
    b.reset(np.arange(6))
    rng = np.random.default_rng(1)
    for _ in range(40):
        b.step(random_actions(b.legal_mask(), rng))
    cur = b.current_player.copy()
    full = b.observe(cur).copy()
    for asked in ([0, 4], [1], [3, 4, 5], []):
        seats = np.full(6, -1)
        seats[asked] = cur[asked]
        got = b.observe(seats)
        rest = np.setdiff1d(np.arange(6), asked)
        assert got[asked].tobytes() == full[asked].tobytes() and not got[rest].any(), asked
    assert full[:, -b.num_actions:].any()  # control: the rows hold a greedy block (a mover's), not zeros


def test_card_sets_legal_mask_writes_a_good_out_and_refuses_a_bad_one():
    """FantastiqaCardSets.legal_mask(out=...): a good buffer gets the same mask as the batch's own; a
    wrong shape, dtype or layout, a read-only array or a list raises ValueError and no row of the batch's
    own mask changes."""
    b = FantastiqaBatch(6, 2, view="cards", card_sets="standin;generated:4")
    b.reset(np.arange(6))
    want = b.legal_mask().copy()
    out = np.zeros_like(want)
    assert b.legal_mask(out=out) is out and np.array_equal(out, want)
    bad = [np.zeros((6, want.shape[1] - 1), dtype=np.bool_), np.zeros(want.shape, dtype=np.int8),
           np.zeros((want.shape[1], 6), dtype=np.bool_).T, want.tolist(), np.zeros_like(want)]
    bad[-1].flags.writeable = False   # read-only: refused before any file's rows are asked for
    for buf in bad:
        with pytest.raises(ValueError, match="out must be"):
            b.legal_mask(out=buf)
        assert np.array_equal(b.legal_mask(), want)


def _parts_masks(b) -> np.ndarray:
    """Each card file's own mask, asked of its batch afresh."""
    return np.concatenate([p.legal_mask().copy() for p in b.parts])


def test_card_sets_keep_a_files_mask_until_one_of_its_games_moves_or_is_dealt():
    """FantastiqaCardSets computes a file's mask rows again only after one of that file's games moved, was
    dealt (reset, reset_done) or loaded (set_state): at every step of play where only some files' games
    move (as in the learner core's opponent rounds), its mask is the files' own. reset_done, called at
    every step as the learner core may, gives the indices of the games it dealt, over all files."""
    b = FantastiqaBatch(9, 2, view="cards", card_sets="standin;generated:4;generated:7")
    b.reset(np.arange(9))
    rng = np.random.default_rng(3)
    kept = moved = 0
    dealt_late = False   # a game of a file after the first dealt again: its indices are offset
    for t in range(6000):
        kept += int(not b._stale.all())   # a file's rows are reused by this call
        mask = b.legal_mask()
        assert np.array_equal(mask, _parts_masks(b)), t
        games = rng.random(9) < (0.9 if t % 3 == 0 else 0.2)   # often only a file or two moves
        b.step(random_actions(mask, rng), games=games)
        moved += int(games.any())
        if t % 50 == 49:
            b.set_state(4, b.state(0))   # another file's state: game 4 gets a new deal of its own file
            assert np.array_equal(b.legal_mask(), _parts_masks(b))
        done = np.flatnonzero(b.terminated)
        assert np.array_equal(b.reset_done(rng.integers(2**31, size=9)), done)
        dealt_late |= bool((done >= b.starts[1]).any())
        if t >= 400 and dealt_late:
            break
    assert moved > 100 and kept > 100 and dealt_late


def test_card_sets_mask_is_not_the_kept_rows():
    """A caller writing into the returned mask does not change the next one."""
    b = FantastiqaBatch(4, 2, view="cards", card_sets="standin;generated:4")
    b.reset(np.arange(4))
    want = b.legal_mask().copy()
    b.legal_mask()[:] = False
    assert np.array_equal(b.legal_mask(), want) and want.any()
