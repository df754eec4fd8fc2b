"""Random-play properties of the Fantastiqa core: conservation, determinism, round trips,
decision coverage, bad input. Uniform-random play over legal_actions() for every seat."""
import json

import numpy as np
import pytest

from fantastiqa_rl import PHASES, FantastiqaState
from fantastiqa_rl import actions as A
from fantastiqa_rl.debug import check_conservation
from tests.fantastiqa_helpers import edited, random_walk

ALT_OPTIONS = dict(fly_in_adventure=True, card_use="both", adventure_path="loops",
                   bought_to="hand", draw_rule="draw_5", goal="long")


ROUND_TRIP_EVERY = 25   # steps between round trips of the reached state through to_dict/JSON/from_dict


def _round_trips(s):
    """A reached state saves and loads (issue 36: from_dict refused some that play reaches)."""
    d = s.to_dict()
    t = FantastiqaState.from_dict(json.loads(json.dumps(d)))
    assert t.to_dict() == d
    assert np.array_equal(t.legal_actions(), s.legal_actions())


def test_card_conservation_every_step_many_games():
    """Every card instance in exactly one zone, token totals constant, after every step; every
    ROUND_TRIP_EVERY steps the state round-trips through from_dict. The Abbey and teams games come
    after the 18 of the base and alternative options."""
    phases = set()
    steps = [0]

    def check(s):
        check_conservation(s)
        phases.add(s.phase)
        steps[0] += 1
        if steps[0] % ROUND_TRIP_EVERY == 0 or any(i not in s.hand[s.cur] for i in s.boosted):
            _round_trips(s)  # and each rare state whose doubled card has left the hand

    games = [(2 + seed % 3, seed, ALT_OPTIONS if seed % 2 else {}) for seed in range(18)]  # 17: first BREW_CARD
    games += [(2 + seed % 3, seed, {"abbey": True, **(ALT_OPTIONS if seed % 2 else {})}) for seed in range(18, 22)]
    games += [(4, seed, {"teams": True, "abbey": seed % 2 == 1}) for seed in range(22, 26)]
    for n, seed, opts in games:
        s = FantastiqaState.new(n, seed=seed, **opts)
        check_conservation(s)
        _round_trips(s)
        random_walk(s, np.random.default_rng(seed), 1500, check)
    # every decision type is reached by random play (WITHDRAW_FROM needs one kind committed to
    # two quests and is covered by test_Q_F2_withdraw_asks_which_quest)
    missing = {PHASES[p] for p in range(len(PHASES))} - {PHASES[p] for p in phases}
    # (the Abbey's decisions are reached by the abbey=True games)
    assert missing <= {"WITHDRAW_FROM", "TERMINAL"}, f"decision types never reached: {missing}"
    assert steps[0] // ROUND_TRIP_EVERY > 1000, steps[0]  # the round trips happened


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_play_to_the_end(num_players):
    """Uniform-random games played to a terminal state (the creature deck is cut short after a
    while so this stays fast): never an empty legal set; a terminal state has current_player -1,
    no legal actions, winners and zero-sum returns; applying anything then raises. Every
    ROUND_TRIP_EVERY steps, and at the end, the state round-trips through from_dict."""
    steps = [0]

    def check(s):
        steps[0] += 1
        if steps[0] % ROUND_TRIP_EVERY == 0:
            _round_trips(s)

    for seed in range(4):
        s = FantastiqaState.new(num_players, seed=100 + seed)
        rng = np.random.default_rng(seed)
        random_walk(s, rng, 400, check)
        if not s.is_terminal():
            s.box += s.creature_deck[:-4]
            del s.creature_deck[:-4]
            edited(s)
        random_walk(s, rng, 200000, check)
        assert s.is_terminal()
        _round_trips(s)
        check_conservation(s)
        assert s.current_player == -1 and len(s.legal_actions()) == 0
        assert abs(s.returns().sum()) < 1e-9 and s.winners()
        assert s.end_reason in ("goal", "creature deck empty")
        with pytest.raises(ValueError, match="game is over"):
            s.apply(0)


def test_determinism_same_seed_same_actions():
    for seed in range(30):
        a = FantastiqaState.new(2 + seed % 3, seed=seed)
        b = FantastiqaState.new(2 + seed % 3, seed=seed)
        ra, rb = np.random.default_rng(seed), np.random.default_rng(seed)
        random_walk(a, ra, 400)
        random_walk(b, rb, 400)
        assert a.to_dict() == b.to_dict()


def test_different_seeds_different_deals():
    deals = set()
    for seed in range(30):
        d = FantastiqaState.new(2, seed=seed).to_dict()
        deals.add(json.dumps([d["creature_deck"], d["artifact_deck"], d["region_at"], d["statue_at"]]))
    assert len(deals) == 30


def test_deal_independent_of_choices():
    """Each chance source has its own generator: seat 1's deck order and the creature deck do not
    depend on what the players chose in setup."""
    outs = []
    for pick in (0, -1):
        s = FantastiqaState.new(2, seed=7)
        while s.phase != A.MAIN:
            la = s.legal_actions()
            s.apply(int(la[pick]))
        outs.append((s.creature_deck[:], s.artifact_deck[:], s.beast_deck[:], s.quest_deck[:], s.region_at, s.statue_at))
    assert outs[0][0] == outs[1][0] and outs[0][1:] == outs[1][1:]


def test_round_trip_at_many_random_points():
    """to_dict/from_dict (also through JSON) restore an identical state, which then plays on
    identically, generators included."""
    for seed in range(10):
        opts = ALT_OPTIONS if seed % 2 else {}
        s = FantastiqaState.new(2 + seed % 3, seed=seed, **opts)
        rng = np.random.default_rng(seed)
        for _ in range(6):
            random_walk(s, rng, int(rng.integers(1, 400)))
            d = s.to_dict()
            t = FantastiqaState.from_dict(json.loads(json.dumps(d)))
            assert t.to_dict() == d
            assert np.array_equal(t.legal_actions(), s.legal_actions())
            s2, t2 = s.clone(), t
            r1, r2 = np.random.default_rng(seed + 99), np.random.default_rng(seed + 99)
            random_walk(s2, r1, 300)
            random_walk(t2, r2, 300)
            assert s2.to_dict() == t2.to_dict()


def test_clone_is_independent():
    s = FantastiqaState.new(3, seed=5)
    random_walk(s, np.random.default_rng(0), 300)
    before = s.to_dict()
    c = s.clone()
    random_walk(c, np.random.default_rng(1), 2000)
    assert s.to_dict() == before
    # both continue identically from the same point (copy-on-write generators)
    c1, c2 = s.clone(), s.clone()
    random_walk(c1, np.random.default_rng(3), 1500)
    random_walk(c2, np.random.default_rng(3), 1500)
    assert c1.to_dict() == c2.to_dict()


def test_illegal_action_raises_and_leaves_state_unchanged():
    s = FantastiqaState.new(2, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        random_walk(s, rng, 25)
        if s.is_terminal():
            break
        d = s.to_dict()
        legal = set(s.legal_actions().tolist())
        bad = next(a for a in range(s.num_actions) if a not in legal)
        with pytest.raises(ValueError, match=f"illegal action {bad} "):
            s.apply(bad)
        for junk in (-1, s.num_actions, 10 ** 9):
            with pytest.raises(ValueError, match="out of range"):
                s.apply(junk)
        for junk in ("x", None, 1.5):
            with pytest.raises(ValueError):
                s.apply(junk)
        assert s.to_dict() == d


def test_bad_options_name_allowed_values():
    with pytest.raises(ValueError, match=r"allowed values: \['simple', 'loops'\]"):
        FantastiqaState.new(2, adventure_path="zigzag")
    with pytest.raises(ValueError, match=r"allowed values: \[2, 3, 4\]"):
        FantastiqaState.new(5)
    with pytest.raises(ValueError, match=r"allowed values: \['short', 'long'\]"):
        FantastiqaState.new(2, goal="medium")
    with pytest.raises(ValueError, match="allowed values"):
        FantastiqaState.new(2, fly_in_adventure="yes")
    with pytest.raises(ValueError, match="unknown rule option 'colour'"):
        FantastiqaState.new(2, colour="red")
    with pytest.raises(ValueError, match=r"teams=True; allowed values: \[4\]"):
        FantastiqaState.new(2, teams=True)        # the Abbey and teams: tests/test_fantastiqa_{abbey,teams}.py
    with pytest.raises(ValueError, match=r"allowed values: \[False, True\]"):
        FantastiqaState.new(2, abbey="yes")
    with pytest.raises(ValueError, match="key 'version': missing"):  # every key is checked, by path
        FantastiqaState.from_dict({"num_players": 2})


def test_action_strings_and_str():
    s = FantastiqaState.new(2, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(300):
        for a in s.legal_actions():
            txt = s.action_to_string(int(a))
            assert txt and "INVALID" not in txt
        random_walk(s, rng, 1)
    assert "STAND-IN" in str(s)
    assert s.action_to_string(-5).startswith("INVALID")


def test_num_actions_fixed_and_legal_within_range():
    n = FantastiqaState.num_actions_for()
    assert n == A.HAND + 3 * 110 + 45 == 30 + 3 * 110 + 45
    for seed in range(4):
        s = FantastiqaState.new(2 + seed % 3, seed=seed)
        assert s.num_actions == n
        random_walk(s, np.random.default_rng(seed), 500, lambda t: None)
        assert s.legal_actions().max(initial=0) < n
