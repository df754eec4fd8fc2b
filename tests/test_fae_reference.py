"""The differential test of issue 38's one Fae implementation: `FaeState` (one row of the batched
kernels, `fae_rl.vector_core`) against the Python rules it held before (`tests/fae_reference.py`),
and `fae_rl.margin` (the one greedy margin) against the greedy bot's former computation.

Random games (both stack rules, every table size, some steered towards big stacks and rituals) are
played through both at every step: legal actions and masks, the state after each apply (to_dict),
scores, terminal, winners and returns must be equal, and an illegal action must raise the same
error in both and change neither. The controls show the comparison sees a one-move difference and
an off-by-one margin.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fae_rl import FaeState
from fae_rl.board import MOVE_DST_ARRAY, MOVE_SRC_ARRAY, NEIGHBOURS, NUM_ACTIONS, move_action
from tabletop_rl.agents import make_agent
from tabletop_rl.agents.fae_greedy import greedy_values
from tests.fae_helpers import scenario
from tests.fae_reference import ReferenceState, reference_greedy_values


def _differences(s: FaeState, r: ReferenceState) -> list[str]:
    """What differs between the kernel-backed state and the reference (empty when they agree)."""
    out = []
    pairs = {
        "to_dict": (s.to_dict(), r.to_dict()),
        "legal_actions": (s.legal_actions().tolist(), r.legal_actions().tolist()),
        "legal_mask": (s.legal_mask().tolist(), r.legal_mask().tolist()),
        "current_player": (s.current_player, r.current_player),
        "is_terminal": (s.is_terminal(), r.is_terminal()),
        "pending": (s.pending, r.pending),
        "cards_used": (s.cards_used, r.cards_used),
        "scores": (s.scores().tolist(), r.scores().tolist()),
        "ritual_cards": (s.ritual_cards().tolist(), r.ritual_cards().tolist()),
        "final_colour_scores": (s.final_colour_scores().tolist(), r.final_colour_scores().tolist()),
        "winners": (s.winners(), r.winners()),
        "returns": (s.returns().tolist(), r.returns().tolist()),
        "druids": (s.druids().tolist(), r.druids().tolist()),
        "counts": (s.counts().tolist(), r.counts().tolist()),
        "resolved": (s.resolved().tolist(), r.resolved().tolist()),
    }
    for name, (a, b) in pairs.items():
        if a != b:
            out.append(name)
    if s.legal_mask().dtype != r.legal_mask().dtype:
        out.append("legal_mask dtype")
    return out


def _error(state, action) -> str | None:
    try:
        state.apply(action)
    except ValueError as e:
        return str(e)
    return None


def _pick(s: FaeState, rng: np.random.Generator, steer: bool) -> int:
    """A random legal action; with `steer`, often a move making the biggest stack it can (big
    stacks: F-T3, F-T4; emptied spaces: rituals, several pending)."""
    legal = s.legal_actions()
    if steer and not s.pending and rng.random() < 0.6:
        counts = s.counts()
        size = counts[MOVE_SRC_ARRAY[legal]] + counts[MOVE_DST_ARRAY[legal]]
        top = legal[size == size.max()]
        return int(top[rng.integers(top.size)])
    return int(legal[rng.integers(legal.size)])


def _play_both(num_players: int, big: bool, seed: int, steer: bool) -> tuple[int, int]:
    """One game through both cores, compared at every step; returns (steps, steps with pending)."""
    s = FaeState.new(num_players, seed=seed, big_stack_merge=big)
    r = ReferenceState.new(num_players, seed=seed, big_stack_merge=big)
    return _play_on(s, r, np.random.default_rng(seed), steer)


def _play_on(s: FaeState, r: ReferenceState, rng: np.random.Generator, steer: bool) -> tuple[int, int]:
    steps = pending = 0
    while True:
        assert _differences(s, r) == [], (steps, _differences(s, r))
        if s.is_terminal():
            return steps, pending
        # An illegal action (when there is one): the same error from both, neither changes.
        illegal = np.flatnonzero(s.legal_mask() == 0)
        if illegal.size and steps % 3 == 0:
            a = int(illegal[rng.integers(illegal.size)])
            before = s.to_dict()
            assert _error(s, a) == _error(r, a) is not None
            assert s.to_dict() == before == r.to_dict()
            assert s.is_legal(a) is r.is_legal(a) is False
        a = _pick(s, rng, steer)
        assert s.is_legal(a) and r.is_legal(a)
        pending += bool(s.pending)
        s.apply(a)
        r.apply(a)
        steps += 1


@pytest.mark.parametrize("num_players,big", [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True)])
def test_kernel_state_equals_the_reference_at_every_step(num_players, big):
    steps = pending = 0
    for seed in range(24):
        n, p = _play_both(num_players, big, seed, steer=seed % 2 == 1)
        steps, pending = steps + n, pending + p
    assert steps > 500 and pending > 0


def _big_stacks(big: bool, seed: int) -> FaeState:
    """Stacks of 8 and 9 side by side, a 7 elsewhere and single druids around (set up by hand)."""
    rng = np.random.default_rng(seed)
    a = int(rng.integers(60))
    b = NEIGHBOURS[a][0]
    c = next(x for x in range(60) if x not in (a, b) and x not in NEIGHBOURS[a] and x not in NEIGHBOURS[b])
    stacks = {a + 1: {0: 4, 1: 4}, b + 1: {2: 5, 3: 4}, c + 1: {4: 4, 0: 3}}
    free = [x for x in rng.permutation(60).tolist() if x + 1 not in stacks][:28]
    for k, x in enumerate(free):
        stacks[x + 1] = {(1, 2, 3, 4)[k % 4] if k % 7 else 0: 1}
    return scenario(stacks, colours=rng.permutation(5)[:2].tolist(), big_stack_merge=big)


@pytest.mark.parametrize("big", [False, True])
def test_big_stacks_are_compared(big):
    """Positions with stacks of 7+ (F-T3; F-T4 with big_stack_merge), played on to the end through
    both; the moves of a 7+ stack are legal in some of them exactly when big_stack_merge is on."""
    big_moves = 0
    for seed in range(10):
        s = _big_stacks(big, seed)
        r = ReferenceState.from_dict(s.to_dict(), conserved=False)
        counts, legal = s.counts(), s.legal_actions()
        big_moves += int((counts[MOVE_SRC_ARRAY[legal]] > 6).sum())
        _play_on(s, r, np.random.default_rng(seed), steer=seed % 2 == 0)
    assert (big_moves > 0) == big


def test_errors_of_bad_inputs_are_the_references():
    s, r = FaeState.new(3, seed=5), ReferenceState.new(3, seed=5)
    for bad in (-1, NUM_ACTIONS, 10**30, 1.5, "3", True, None, np.int64(300), np.array(5), np.array([1, 2])):
        assert _error(s.clone(), bad) == _error(r.clone(), bad), bad
        assert s.is_legal(bad) == r.is_legal(bad), bad
    assert s.to_dict() == r.to_dict()


def test_from_dict_and_clone_agree_with_the_reference():
    rng = np.random.default_rng(1)
    s = FaeState.new(2, seed=1)
    while not s.is_terminal():
        d = s.to_dict()
        t, r = FaeState.from_dict(d), ReferenceState.from_dict(d)
        assert _differences(t, r) == [] and t == s and t.clone() == s
        s.apply(_pick(s, rng, steer=False))


def test_control_the_comparison_sees_one_move():
    """The control: after different moves the comparison reports differences."""
    s, r = FaeState.new(2, seed=3), ReferenceState.new(2, seed=3)
    legal = s.legal_actions()
    s.apply(int(legal[0]))
    r.apply(int(legal[1]))
    assert "to_dict" in _differences(s, r)


# ------------------------------------------------------------------ one greedy margin
def _positions(seed: int, num_players: int, big: bool):
    """Every position of a game, mostly greedy play (reaches rituals and pending choices)."""
    rng = np.random.default_rng(seed)
    s = FaeState.new(num_players, seed=seed, big_stack_merge=big)
    bot = make_agent("fae", "greedy", seed=seed)
    while not s.is_terminal():
        yield s
        seat = s.current_player
        if rng.random() < 0.6:
            a = bot.act(None, s.legal_mask(), state=s, seat=seat)
        else:
            a = _pick(s, rng, steer=True)
        s.apply(a)


def _isolating_scenarios():
    """Positions where one move isolates 4 or more spaces (every order of them is searched), some
    near the end of the deck (fewer cards than isolated spaces, F-E1)."""
    out = []
    for src in range(60):
        nbs = NEIGHBOURS[src]
        for k in (5, 4):
            for group in itertools.combinations(nbs, k):
                if all(m not in NEIGHBOURS[n] for n, m in itertools.combinations(group, 2)):
                    break
            else:
                continue
            break
        else:
            continue
        for cards_used, colours in ((0, [0, 1]), (5, [2, 3]), (9, [4, 0]), (10, [1, 2])):
            stacks = {src + 1: {colours[0]: 1, 3: 1}}
            for j, n in enumerate(group):
                stacks[n + 1] = {j % 5: 1 + j % 2, (j + 2) % 5: 1}
            try:
                out.append((scenario(stacks, colours=colours, cards_used=cards_used), src, group[0]))
            except (AssertionError, ValueError):
                continue
        if len(out) >= 12:
            break
    return out


def _compare_greedy(s: FaeState) -> None:
    seat = s.current_player
    new = greedy_values(s, seat)
    old = reference_greedy_values(ReferenceState.from_dict(s.to_dict(), conserved=False), seat)
    assert list(new) == list(old) and new == old, (s.to_dict(), new, old)


@pytest.mark.parametrize("num_players,big", [(2, False), (3, True), (4, False)])
def test_greedy_values_equal_the_former_computation(num_players, big):
    """`greedy_values` (the kernel) equals the bot's former clone-and-play search over many random
    positions, pending rituals included: same values, same keys in the same order, so the same ties
    and the same move for the same generator."""
    positions = pending = 0
    for seed in range(6):
        for s in _positions(100 + seed, num_players, big):
            _compare_greedy(s)
            positions += 1
            pending += bool(s.pending)
    assert positions > 150 and pending > 3


def test_four_and_more_pending_rituals_search_every_order():
    """The one rule for 4+ pending rituals: every order is searched (the reference plays them all)."""
    cases = _isolating_scenarios()
    assert len(cases) >= 4
    seen = 0
    for s, src, dst in cases:
        a = move_action(src + 1, dst + 1)
        _compare_greedy(s)
        child = s.clone()
        child.apply(a)
        if len(child.pending) >= 4:
            seen += 1
            _compare_greedy(child)
            while child.pending and not child.is_terminal():  # every step of the resolution
                _compare_greedy(child)
                child.apply(int(child.legal_actions()[0]))
    assert seen >= 4


def test_the_greedy_bot_plays_the_former_move_with_the_same_generator():
    """The bot's move, and its tie-break, are those of the former computation for the same seed."""
    checked = 0
    for s in _positions(7, 3, False):
        seat = s.current_player
        old = reference_greedy_values(ReferenceState.from_dict(s.to_dict()), seat)
        best = max(old.values())
        ties = [a for a, v in old.items() if v == best]
        for k in range(2):
            rng = np.random.default_rng(k)
            want = ties[rng.integers(len(ties))] if len(ties) > 1 else ties[0]
            assert make_agent("fae", "greedy", seed=k).act(None, s.legal_mask(), state=s, seat=seat) == want
        checked += 1
    assert checked > 30


def test_control_an_off_by_one_margin_is_seen():
    """The control: the comparison fails when one value is off by one."""
    s, _, _ = _isolating_scenarios()[0]
    new = greedy_values(s, s.current_player)
    a = next(iter(new))
    old = reference_greedy_values(ReferenceState.from_dict(s.to_dict(), conserved=False), s.current_player)
    assert new == old
    new[a] += 1
    assert new != old
