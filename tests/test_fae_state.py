"""Rules-core API: to_dict/from_dict, clone, determinism, bad input, random-play invariants."""
import copy
import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fae_rl import FaeState
from fae_rl.state import DICT_KEYS
from tests.fae_helpers import random_state


# ------------------------------------------------------------------ to_dict / from_dict
def test_to_dict_has_exactly_the_documented_keys_and_plain_types():
    d = random_state(3, 20, 3).to_dict()
    assert tuple(d) == DICT_KEYS
    assert json.loads(json.dumps(d)) == d

    def plain(x):
        if isinstance(x, dict):
            return all(plain(v) for v in x.values())
        if isinstance(x, list):
            return all(plain(v) for v in x)
        return type(x) in (int, bool)
    assert plain(d)
    assert len(d["druids"]) == 60 and all(len(r) == 5 for r in d["druids"])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 80), n=st.integers(2, 4), big=st.booleans())
def test_from_dict_round_trip_at_random_points(seed, steps, n, big):
    s = random_state(seed, steps, n, big)
    d = s.to_dict()
    t = FaeState.from_dict(copy.deepcopy(d))
    assert t.to_dict() == d
    # The rebuilt state plays on identically.
    assert t.legal_actions().tolist() == s.legal_actions().tolist()
    if not s.is_terminal():
        a = int(s.legal_actions()[0])
        s.apply(a)
        t.apply(a)
        assert t.to_dict() == s.to_dict()


@pytest.mark.parametrize("mutate, key", [
    (lambda d: d.pop("scores"), "scores"),
    (lambda d: d.update(extra=1), "extra"),
    (lambda d: d.update(version=2), "version"),
    (lambda d: d.update(num_players=5), "num_players"),
    (lambda d: d.update(num_players=True), "num_players"),
    (lambda d: d.update(big_stack_merge=1), "big_stack_merge"),
    (lambda d: d["druids"].pop(), "druids"),
    (lambda d: d["druids"][0].__setitem__(0, 1.5), "druids"),
    (lambda d: d["druids"][0].__setitem__(0, 13), "druids"),
    (lambda d: d.update(colours=[1, 1]), "colours"),
    (lambda d: d.update(scores=[0, 0, 0, 0]), "scores"),
    (lambda d: d.update(ritual_cards=[1, 0]), "resolved"),
    (lambda d: d.update(current_player=-1), "current_player"),
    (lambda d: d.update(current_player=np.int64(0)), "current_player"),
    (lambda d: d.update(pending_rituals=[5]), "pending_rituals"),
    (lambda d: d.update(resolved=[3, 2]), "resolved"),
    (lambda d: d.update(terminal="no"), "terminal"),
    (lambda d: d.update(history=[]), "history"),
    (lambda d: d["history"][0].update(points=[1, 0, 0, 0, 0]), "history"),
    (lambda d: d["history"][0].update(last_action=400), "last_action"),
])
def test_from_dict_rejects_bad_data_naming_the_key(mutate, key):
    d = FaeState.new(2, seed=0).to_dict()
    mutate(d)
    with pytest.raises(ValueError, match=key):
        FaeState.from_dict(d)


def test_from_dict_rejects_unreachable_positions():
    d = FaeState.new(2, seed=0).to_dict()
    d["druids"] = [[0] * 5 for _ in range(60)]
    d["druids"][0][0] = 1  # one lonely druid: the 59 others vanished without a ritual
    with pytest.raises(ValueError, match="'druids'.*no ritual was resolved"):
        FaeState.from_dict(d)


def _played(seed, steps, n=2):
    rng = np.random.default_rng(seed)
    s = FaeState.new(n, seed=seed)
    for _ in range(steps):
        if s.is_terminal():
            break
        s.apply(int(rng.choice(s.legal_actions())))
    return s


def test_from_dict_accepts_every_reached_position():
    """The conservation checks are sound: positions of random games always load (F-R4..F-R6)."""
    for seed in range(40):
        s = _played(seed, 10 + 7 * seed, 2 + seed % 3)
        assert FaeState.from_dict(s.to_dict()) == s


def test_from_dict_rejects_druids_vanishing_without_a_curse():
    """F-R4/F-R5: two druids on the board and no ritual card drawn; or druids gone from a game
    whose resolved spaces still hold their colour."""
    d = FaeState.new(2, seed=0).to_dict()
    d["druids"] = [[0] * 5 for _ in range(60)]
    d["druids"][0][:2] = [1, 1]
    with pytest.raises(ValueError, match="'druids'.*no ritual was resolved"):
        FaeState.from_dict(d)
    for seed in range(200):  # rituals resolved, all still holding colour c: take a druid of c elsewhere
        d = _played(seed, 20 + seed).to_dict()
        res = set(d["resolved"])
        if not res:
            continue
        for c in range(5):
            donors = [i for i in range(60) if i + 1 not in res and d["druids"][i][c] > 0]
            if donors and all(d["druids"][x - 1][c] > 0 for x in res):
                d["druids"][donors[0]][c] -= 1
                with pytest.raises(ValueError, match="'druids'.*every resolved space still holds"):
                    FaeState.from_dict(d)
                return
    pytest.fail("no game with a resolved ritual found")


def test_from_dict_rejects_colour_columns_swapped_against_scores_or_moves():
    """F-S1/F-R6: swapping two colours' druid columns (scores, history and seats' colours kept)
    contradicts the scores earned on resolved spaces or the druid moves of each colour."""
    found = {"scores": 0, "druids": 0}
    for seed in range(60):
        d = _played(seed, 15 + 2 * seed).to_dict()
        for c1, c2 in [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]:
            e = json.loads(json.dumps(d))
            for row in e["druids"]:
                row[c1], row[c2] = row[c2], row[c1]
            if e["druids"] == d["druids"]:
                continue
            try:
                FaeState.from_dict(e)
            except ValueError as exc:
                key = "scores" if "'scores'" in str(exc) else "druids" if "'druids'" in str(exc) else None
                assert key, exc
                found[key] += 1
    assert found["scores"] > 0 and found["druids"] > 0, found


# ------------------------------------------------------------------ clone and equality
def test_clone_is_independent():
    s = random_state(1, 10)
    c = s.clone()
    assert c == s
    c.apply(int(c.legal_actions()[0]))
    assert c != s
    assert s.to_dict() == random_state(1, 10).to_dict()


# ------------------------------------------------------------------ determinism (>= 50 seeds)
@pytest.mark.parametrize("n", [2, 3, 4])
def test_same_seed_same_game_different_seeds_different_deals(n):
    deals = set()
    for seed in range(60):
        a, b = random_state(seed, 200, n), random_state(seed, 200, n)
        assert a.to_dict() == b.to_dict()
        start = FaeState.new(n, seed=seed)
        deals.add((tuple(map(tuple, start.druids().tolist())), tuple(start.colours)))
    assert len(deals) == 60


def test_seed_accepts_generator_and_none():
    a = FaeState.new(2, seed=np.random.default_rng(7))
    b = FaeState.new(2, seed=np.random.default_rng(7))
    assert a == b
    assert FaeState.new(2, seed=None).druids().sum() == 60


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("action, match", [
    (330, "out of range"), (-1, "out of range"), (1.0, "must be an int"), ("3", "must be an int"),
    (True, "must be an int"), (None, "must be an int"), (270, "no ritual is pending"),
])
def test_bad_actions_raise_and_leave_state_unchanged(action, match):
    s = random_state(2, 5)
    before = s.to_dict()
    with pytest.raises(ValueError, match=match):
        s.apply(action)
    assert s.to_dict() == before


def test_illegal_move_names_action_and_reason():
    s = random_state(4, 30)
    illegal = sorted(set(range(270)) - set(s.legal_actions().tolist()))[0]
    before = s.to_dict()
    with pytest.raises(ValueError, match=rf"action {illegal} \(move \d+->\d+\) is illegal: "):
        s.apply(illegal)
    assert s.to_dict() == before


def test_terminal_state_rejects_actions():
    s = random_state(5, 500)
    assert s.is_terminal()
    with pytest.raises(ValueError, match="game is over"):
        s.apply(0)


@pytest.mark.parametrize("kw, match", [
    (dict(num_players=1), "num_players"), (dict(num_players=5), "num_players"),
    (dict(num_players="2"), "num_players"), (dict(big_stack_merge="yes"), "big_stack_merge"),
])
def test_bad_options(kw, match):
    with pytest.raises(ValueError, match=match):
        FaeState.new(**kw)


# ------------------------------------------------------------------ random-play fuzzing
def test_two_thousand_random_games_keep_the_invariants():
    rng = np.random.default_rng(2024)
    for game in range(2000):
        n = 2 + game % 3
        s = FaeState.new(n, seed=game, big_stack_merge=game % 5 == 0)
        prev_scores = s.scores()
        moves = steps = 0
        frozen = {}
        while not s.is_terminal():
            legal = s.legal_actions()
            assert legal.size > 0 and (np.diff(legal) > 0).all()
            a = int(legal[rng.integers(legal.size)])
            moves += a < 270
            steps += 1
            cards_before = s.cards_used
            total_before = s.counts().sum()
            s.apply(a)
            total = s.counts().sum()
            # druids on board + returned = 60: they only leave the board through a ritual
            assert total <= total_before and (total == total_before or s.cards_used > cards_before)
            scores = s.scores()
            assert (scores >= prev_scores).all()
            prev_scores = scores
            assert s.cards_used <= 12 and s.ritual_cards().sum() == s.cards_used
            d = s.druids()
            for i in np.flatnonzero(s.resolved()):
                if i in frozen:
                    assert (d[i] == frozen[i]).all()
                else:
                    frozen[i] = d[i].copy()
        assert moves <= 59 and steps <= 71
        assert len(frozen) == s.cards_used
        w = s.winners()
        assert w and w == sorted(w)
        assert abs(s.returns().sum()) < 1e-9


def test_round_trip_with_one_ritual_left_pending():
    # Regression: after one of two pending rituals is resolved, the last one waits for its own action.
    s = random_state(2, 31, 2)
    assert len(s.pending) == 1
    assert FaeState.from_dict(s.to_dict()).to_dict() == s.to_dict()


def test_conserved_false_only_skips_the_conservation_checks():
    """Hand-built rule scenarios (a few stacks on an empty board) load with conserved=False; the
    type and range checks still apply."""
    d = FaeState.new(2, seed=0).to_dict()
    d["druids"] = [[0] * 5 for _ in range(60)]
    d["druids"][0][:2] = [1, 1]
    d["druids"][1][2] = 1
    with pytest.raises(ValueError, match="'druids'"):
        FaeState.from_dict(d)
    assert FaeState.from_dict(d, conserved=False).to_dict() == d
    d["druids"][0][0] = -1
    with pytest.raises(ValueError, match="'druids'"):
        FaeState.from_dict(d, conserved=False)


# ------------------------------------------------------------------ what the moves so far imply (issue 24)
def _pending_state(count):
    """A random position with `count` rituals pending (several spaces isolated by one move)."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s = FaeState.new(2, seed=seed)
        while not s.is_terminal():
            if len(s.pending) >= count:
                return s
            s.apply(int(rng.choice(s.legal_actions())))
    raise AssertionError("no such position")


def test_terminal_at_the_deal_is_refused():
    d = FaeState.new(3, seed=0).to_dict()
    d["terminal"], d["current_player"] = True, -1
    with pytest.raises(ValueError, match=r"'terminal'.*0 of 12 ritual cards"):
        FaeState.from_dict(d)
    mid = random_state(4, 10, 2).to_dict()
    assert not mid["terminal"]
    mid["terminal"], mid["current_player"] = True, -1
    with pytest.raises(ValueError, match=r"'terminal'"):
        FaeState.from_dict(mid)


@pytest.mark.parametrize("keep", [0, 1])
def test_dropped_pending_rituals_are_refused(keep):
    s = _pending_state(2)
    d = s.to_dict()
    assert FaeState.from_dict(d).to_dict() == d
    d["pending_rituals"] = d["pending_rituals"][:keep]
    with pytest.raises(ValueError, match=r"'pending_rituals' must list every isolated"):
        FaeState.from_dict(d)


@pytest.mark.parametrize("field,value", [("moved", [1, 0, 0, 0, 0]), ("last_action", 7)])
def test_history_counters_without_moves_are_refused(field, value):
    # (points without a move were refused already: no resolved space can have paid them, F-R6)
    d = FaeState.new(2, seed=0).to_dict()
    d["history"][1][field] = value
    with pytest.raises(ValueError, match=r"'history'.*seat 1 has made no move"):
        FaeState.from_dict(d)
    mid = random_state(5, 1, 2).to_dict()        # seat 0 moved once, seat 1 not yet
    mid["history"][1][field] = value
    with pytest.raises(ValueError, match=r"'history'.*seat 1 has made no move"):
        FaeState.from_dict(mid)


def test_a_seat_that_moved_has_its_last_move_recorded():
    d = random_state(6, 6, 2).to_dict()
    d["history"][0]["last_action"] = -1
    with pytest.raises(ValueError, match=r"seat 0 made \d move"):
        FaeState.from_dict(d)


def test_current_player_must_be_the_seat_whose_turn_it_is():
    d = random_state(7, 5, 3).to_dict()
    for seat in range(3):
        if seat != d["current_player"]:
            e = copy.deepcopy(d)
            e["current_player"] = seat
            with pytest.raises(ValueError, match=r"'current_player'.*F-S4"):
                FaeState.from_dict(e)


def test_history_moved_is_bounded_by_the_moves_made():
    d = random_state(8, 6, 2).to_dict()
    d["history"][0]["moved"][1] = 10 ** 9
    with pytest.raises(ValueError, match=r"'history\.moved'"):
        FaeState.from_dict(d)
    d = random_state(8, 6, 2).to_dict()
    d["history"][1]["moved"][1] += 40             # 3 moves cannot carry 40 more druids of one colour
    with pytest.raises(ValueError, match=r"'history': seat 1 made \d move"):
        FaeState.from_dict(d)


@pytest.mark.parametrize("key", ["version", "pending_rituals"])
def test_deeply_nested_values_are_a_value_error(key):
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    d = FaeState.new(2, seed=0).to_dict()
    d[key] = deep
    with pytest.raises(ValueError, match=key.split("_")[0]):
        FaeState.from_dict(d)
