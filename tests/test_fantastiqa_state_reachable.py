"""Fantastiqa `from_dict` refuses states play cannot reach (issue 24, section 4): each case below
loaded before (and most then misbehaved: a score of 999, a loser paid as the winner, a setup that
crashed 13 steps later, an adventure whose paid cards vanished). Reachable states of random and
greedy games still load (tests/test_state_dict_fuzz.py, and the round trips here)."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent


def _dict(s) -> dict:
    return json.loads(json.dumps(s.to_dict()))


def _random_until(pred, seed=0, n=2, max_games=40, **opts):
    """The first position of seeded random games where pred(state) holds."""
    for g in range(max_games):
        rng = np.random.default_rng(seed + g)
        s = FantastiqaState.new(num_players=n, seed=seed + g, **opts)
        while not s.is_terminal():
            if pred(s):
                return s
            s.apply(int(rng.choice(s.legal_actions())))
    raise AssertionError("no such position in the seeded games")


def _greedy_game(seed, n=2):
    s = FantastiqaState.new(num_players=n, seed=seed)
    bots = [FantastiqaGreedyAgent(seed * 10 + p) for p in range(n)]
    while not s.is_terminal():
        s.apply(bots[s.cur].act(None, None, state=s, seat=s.cur))
    return s


def _refused(d, pattern):
    with pytest.raises(ValueError, match=pattern):
        FantastiqaState.from_dict(d)


def test_scores_must_follow_from_completed_quests_and_bonus_tokens():
    s = _random_until(lambda s: s.phase_name == "MAIN" and s.turns > 6)
    d = _dict(s)
    assert FantastiqaState.from_dict(d).to_dict() == s.to_dict()
    for score in (999, d["players"][1]["scores"] + 1):
        e = copy.deepcopy(d)
        e["players"][1]["scores"] = score
        _refused(e, r"players\[1\]\.scores.*completed quests and bonus tokens")
    e = copy.deepcopy(d)                       # a bonus token moved from the supply to a player: no point for it
    e["supply"]["bonus_tokens"] -= 1
    e["players"][0]["bonus_tokens"] += 1
    _refused(e, r"players\[0\]\.scores")


def test_a_finished_games_winners_are_the_ones_the_rules_give():
    s = next(g for g in (_greedy_game(seed) for seed in range(10)) if g.end_reason == "goal")
    d = _dict(s)
    assert FantastiqaState.from_dict(d).returns().tolist() == s.returns().tolist()
    loser = 1 - d["winners"][0]
    for winners in ([loser], [0, 1]):
        e = copy.deepcopy(d)
        e["winners"] = winners
        _refused(e, r"key 'winners'.*rules give")
    e = copy.deepcopy(d)
    e["end_reason"] = "creature deck empty"  # the deck can still fill the board
    _refused(e, r"key 'end_reason'")
    e = copy.deepcopy(d)
    e["end_reason"] = "bored"
    _refused(e, r"key 'end_reason'")


def test_a_turn_limit_end_is_scored_by_final_scores_and_tie_breaks():
    s = FantastiqaState.new(num_players=3, seed=5, turn_limit=2)
    rng = np.random.default_rng(5)
    while not s.is_terminal():
        s.apply(int(rng.choice(s.legal_actions())))
    d = _dict(s)
    assert d["end_reason"] == "turn_limit"
    FantastiqaState.from_dict(d)
    e = copy.deepcopy(d)
    e["winners"] = [p for p in range(3) if p not in d["winners"]][:1]
    _refused(e, r"key 'winners'.*turn_limit")
    e = copy.deepcopy(d)
    e["turns"] += 1
    _refused(e, r"key 'end_reason'.*turn_limit")


def test_an_unfinished_game_has_not_reached_the_goal_or_the_turn_limit():
    s = _random_until(lambda s: s.phase_name == "MAIN" and s.turns > 2, turn_limit=4)
    e = _dict(s)
    e["turns"] = 4 * 2
    _refused(e, r"key 'turns'.*turn limit")


def test_a_doubled_card_is_one_of_the_movers_cards():
    s = _random_until(lambda s: s.phase_name == "MAIN" and s.turns > 4)
    d = _dict(s)
    other = 1 - d["current"]
    for place in (d["players"][other]["deck"], d["players"][other]["hand"], d["creature_deck"]):
        e = copy.deepcopy(d)
        e["turn"]["boosted"] = [place[0]]
        _refused(e, r"turn\.boosted\[0\].*mover")


def test_current_changed_during_setup_is_refused():
    s = FantastiqaState.new(num_players=3, seed=1)
    rng = np.random.default_rng(1)
    for steps in range(8):                    # every setup decision of the 3 seats
        d = _dict(s)
        assert d["phase"].startswith("SETUP")
        FantastiqaState.from_dict(d)
        for seat in range(3):
            if seat != d["current"]:
                e = copy.deepcopy(d)
                e["current"] = seat
                _refused(e, r"key 'current'.*Q-S4")
        s.apply(int(rng.choice(s.legal_actions())))


def test_phase_changed_mid_adventure_is_refused():
    s = _random_until(lambda s: s.phase_name == "ADV_MOVE" and s.adventure)
    d = _dict(s)
    for phase in ("MAIN", "FREE_MENU", "END_DISCARD"):
        e = copy.deepcopy(d)
        e["phase"] = phase
        _refused(e, r"key 'phase'.*turn\.adventure")


def test_phase_changed_while_paying_is_refused():
    s = _random_until(lambda s: s.phase_name in ("ADV_PAY", "QUEST_PAY") and s.pay)
    e = _dict(s)
    e["phase"] = "MAIN"
    _refused(e, r"key 'phase'.*turn\.pay")


@pytest.mark.parametrize("option", ["adventure_path", "draw_rule", "abbey", "turn_limit", "mark_return"])
def test_missing_option_keys_are_refused_not_filled_with_defaults(option):
    d = _dict(FantastiqaState.new(num_players=2, seed=0))
    del d["options"][option]
    _refused(d, rf"options\.{option}.*missing")


def test_every_quest_pile_of_committed_cards_is_kept():
    """A dropped (empty) pile of a personal quest loaded, then crashed when the rules looked it up."""
    s = _random_until(lambda s: s.phase_name == "MAIN" and s.turns > 4)
    d = _dict(s)
    e = copy.deepcopy(d)
    q = next(iter(e["players"][0]["committed"]))
    moved = e["players"][0]["committed"].pop(q)
    e["players"][0]["discard"] += moved          # keep every card in one place
    _refused(e, r"players\[0\]\.committed.*Q-F2")
    e = copy.deepcopy(d)
    e["players"][1]["committed"][str(e["quest_deck"][0])] = []   # a pile for a quest the player does not hold
    _refused(e, r"players\[1\]\.committed")


@pytest.mark.parametrize("key,value", [("has_uint32", -1), ("has_uint32", 1.5), ("uinteger", 2 ** 40),
                                       ("uinteger", 0.5)])
def test_chance_source_states_are_checked_exactly(key, value):
    """numpy casts these silently (1.5 -> 1, -1 -> a huge uint), so the dict loaded a changed state."""
    d = _dict(FantastiqaState.new(num_players=2, seed=0))
    d["rng"][4][key] = value
    _refused(d, rf"rng\[4\]\.{key}")


def test_chance_source_inner_state_is_an_int():
    d = _dict(FantastiqaState.new(num_players=2, seed=0))
    d["rng"][2]["state"]["inc"] = float(d["rng"][2]["state"]["inc"])
    _refused(d, r"rng\[2\]\.state\.inc")


@pytest.mark.parametrize("key", ["version", "turns", "phase"])
def test_deeply_nested_values_are_named_not_a_recursion_error(key):
    deep: list = []
    for _ in range(10_000):
        deep = [deep]
    d = _dict(FantastiqaState.new(num_players=2, seed=0))
    d[key] = deep
    _refused(d, rf"key '{key}'")


_MAIN = "MAIN"


@pytest.mark.parametrize("start,phase,pattern,opts", [
    (_MAIN, "ADV_PAY", r"turn\.(visited|target)", {}),
    (_MAIN, "QUEST_PAY", r"turn\.target", {}),
    ("CHEST", "BELL", r"turn\.(revealed|count)", {}),
    ("BUY", "CHEST", r"turn\.revealed", {}),
    (_MAIN, "ABBEY_CHOICE", r"turn\.abbey_aside", {"abbey": True}),
])
def test_a_decision_set_by_hand_without_what_it_reads_is_refused(start, phase, pattern, opts):
    """Each of these loaded and most crashed once the decision resolved (StopIteration paying a
    creature that is not next to the mover, AssertionError keeping quest cards with the Bell)."""
    s = _random_until(lambda s: s.phase_name == start and s.turns > 2 and (start == _MAIN or s.revealed), **opts)
    e = _dict(s)
    e["phase"] = phase
    _refused(e, pattern)


def test_adventure_payment_targets_a_creature_next_to_the_mover():
    s = _random_until(lambda s: s.phase_name == "ADV_PAY")
    d = _dict(s)
    FantastiqaState.from_dict(d)
    from fantastiqa_rl.board import NEIGHBOURS
    far = [c for c in range(7) if c not in {cc for cc, _ in NEIGHBOURS[d["players"][d["current"]]["position"]]}
           and d["board"][c] >= 0]
    e = copy.deepcopy(d)
    e["turn"]["target"] = far[0]
    _refused(e, r"turn\.target.*next to region")


# ------------------------------------------------------------------ doubled cards where play moves them (issue 36, item 4)
def _round_trips(s):
    d = _dict(s)
    t = FantastiqaState.from_dict(d)
    assert t.to_dict() == s.to_dict()
    assert np.array_equal(t.legal_actions(), s.legal_actions())
    return d


def test_the_issue_36_position_round_trips():
    """The issue's repro: 400 random moves from seed 3; the doubled Helmet was then released at a
    statue (into the box), and from_dict refused the state as 'not one of seat 0's cards'."""
    s = FantastiqaState.new(2, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(400):
        s.apply(int(rng.choice(s.legal_actions())))
    assert s.boosted and s.boosted[0] in s.box
    _round_trips(s)


def _doubled_in(zone):
    """pred(state): a doubled card of the turn lies in `zone` (a function state -> its cards)."""
    return lambda s: bool(s.boosted) and any(i in zone(s) for i in s.boosted)


def _opponents_discards(s):
    return [i for o in range(s.n) if s.is_opponent(s.cur, o) for i in s.discard[o]]


def _held_in_play(s):
    from fantastiqa_rl.powers import held_in_play
    return [i for i in s.powered if held_in_play(s.opts, s.g, i)]


_LIMIT = {"turn_limit": 30}
# where play moves a doubled card, and the first seeded random game (n players, options) that does it
DOUBLED_ZONES = {
    "played for its power, in play (Q-T2; teams)": (_held_in_play, 4, 20, dict(
        _LIMIT, teams=True, fly_in_adventure=False, bought_to="hand")),
    "released into the box (Q-V2)": (lambda s: s.box, 4, 109, dict(
        _LIMIT, card_use="both", fly_in_adventure=False, bought_to="hand")),
    "chosen from the discard to release (Q-V2; teams)": (lambda s: s.release_from_discard, 4, 173, dict(
        _LIMIT, teams=True, card_use="both", draw_rule="draw_5", bought_to="discard", turn_loops="allow")),
    "drawn by a Bell from the deck after a reshuffle (teams)": (lambda s: s.revealed, 4, 220, dict(
        _LIMIT, teams=True, draw_rule="draw_5", mark_return="allow", turn_loops="allow")),
    "given by a Bitter Brew, in play (Abbey)": (lambda s: s.in_play, 3, 270, dict(
        _LIMIT, abbey=True, fly_in_adventure=False, mark_return="allow", turn_loops="allow")),
    "given by a Bitter Brew, in an opponent's discard (Abbey)": (_opponents_discards, 3, 270, dict(
        _LIMIT, abbey=True, fly_in_adventure=False, mark_return="allow", turn_loops="allow")),
}


@pytest.mark.parametrize("where", list(DOUBLED_ZONES))
def test_a_doubled_card_wherever_play_moves_it_round_trips(where):
    """Each loaded before only while the card was in the mover's hand, deck, discard, payment,
    adventure or committed cards; play also releases, plays for its power and gives doubled cards."""
    zone, n, seed, opts = DOUBLED_ZONES[where]
    s = _random_until(_doubled_in(zone), seed=seed, n=n, max_games=3, **opts)
    _round_trips(s)


def test_a_doubled_card_in_a_partners_or_an_opponents_other_zones_is_refused():
    """The controls: a Bitter Brew gives only to opponents, and nothing moves a doubled card into
    another seat's hand or deck, or a partner's discard."""
    zone, n, seed, opts = DOUBLED_ZONES["played for its power, in play (Q-T2; teams)"]
    s = _random_until(lambda s: s.phase_name == "MAIN" and s.turns > 8 and all(s.discard), seed=seed, n=n, **opts)
    d = _dict(s)
    cur = d["current"]
    partner = next(p for p in range(4) if p != cur and not s.is_opponent(cur, p))
    opponent = next(p for p in range(4) if s.is_opponent(cur, p))
    for seat, key in ((partner, "discard"), (partner, "hand"), (opponent, "hand"), (opponent, "deck")):
        e = copy.deepcopy(d)
        e["turn"]["boosted"] = [e["players"][seat][key][0]]
        _refused(e, r"turn\.boosted\[0\].*mover")
    e = copy.deepcopy(d)
    e["turn"]["boosted"] = [e["players"][opponent]["discard"][0]]   # what a Brew does: loads
    FantastiqaState.from_dict(e)
