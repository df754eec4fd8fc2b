"""The Abandoned Abbey (option abbey=True): one test per rule id Q-B1..Q-B5 of
docs/rules/fantastiqa.md on hand-built positions, card conservation with the Abbey,
random games, round trips, the Abbey view (fantastiqa_rl.abbey_view) and the greedy bot's
stop threshold.

STAND-IN Abbey cards used below ("Abbey jj": symbol SYM[jj // 2], reward cycle 1 gem, 2 gems,
carpet, reshuffle; draw 2 when jj % 3 == 2): 00 SWORD 1 gem, 01 SWORD 2 gems, 02 FIRE carpet
draw 2, 03 FIRE reshuffle, 04 WATER 1 gem, 05 WATER 2 gems draw 2, 10 NET carpet."""
import json

import numpy as np
import pytest

from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
from fantastiqa_rl import FantastiqaState
from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey_view import (ABBEY_FEATURES_SIZE, ABBEY_LAYOUT, abbey_features, abbey_text,
                                      shuffle_abbey_hidden)
from fantastiqa_rl.board import LOWER_FRAME, SYMBOL_INDEX, SYMBOLS
from fantastiqa_rl.debug import (check_conservation, move_card, set_abbey_deck,
                                 set_hand)
from fantastiqa_rl.state import ABBEY_CAP
from tests.fantastiqa_helpers import HAND, ITEMS, at, edited, random_walk
from tests.fantastiqa_helpers import fresh as fresh_game

# Private field (why not public): _rngs[9] is re-seeded to choose an Abbey draw; no public call picks a card.


# ---------------------------------------------------------------- helpers
def fresh(n=2, seed=0, **kw):
    return fresh_game(n, seed, abbey=True, **kw)


def set_deck(s, p, names):
    """Seat p's draw deck becomes these cards (names[-1] drawn first); the old deck is boxed."""
    s.box += s.deck[p]
    s.deck[p] = []
    for nm in names:
        move_card(s, nm, s.deck[p])
    edited(s)


def hold_abbey(s, p, names):
    for nm in names:
        move_card(s, nm, s.abbey[p])
    edited(s)




def boxed_start_quest(s, p, extra=0, frame=False):
    """A boxed starting quest made p's personal quest (with frame=True one whose region is at a
    position framing the Abbey); p stands in its region holding the household items it needs
    (plus `extra` single creatures of that symbol)."""
    q = next(i for i in s.box if i in s.g.start_quests
             and (not frame or s.name_pos[s.g.Q_REGION[s.g.I_QUEST_KIND[i]]] in LOWER_FRAME))
    s.box.remove(q)
    s.quests[p].append(q)
    s.committed[p][q] = []
    (sym, cnt), = s.g.Q_NEEDS[s.g.I_QUEST_KIND[q]]
    at(s, p, s.name_pos[s.g.Q_REGION[s.g.I_QUEST_KIND[q]]])
    set_hand(s, p, [ITEMS[sym]] * cnt + [f"I {SYMBOLS[sym].title()} Gem"] * extra)
    return q


def names(s, cards):
    return [s.card_name(i) for i in cards]


def legal(s):
    return set(s.legal_actions().tolist())


def explorer(seed=0, deck=("Abbey 05", "Abbey 02"), hand=("Candle", "Spatula"), draws=(), **kw):
    """Seat 0 in MAIN at position 3 (framing the Abbey) with this Abbey deck, hand and draws."""
    s = fresh(seed=seed, **kw)
    at(s, 0, 3)
    set_abbey_deck(s, list(deck))
    set_hand(s, 0, list(hand))
    set_deck(s, 0, list(draws))
    s.box += s.discard[0]
    s.discard[0] = []
    check_conservation(s)
    return s


# ---------------------------------------------------------------- Q-B1
def test_Q_B1_abbey_deck_face_up_top_and_goal_lines_replace_the_goal():
    s = FantastiqaState.new(2, seed=0, abbey=True)
    abbey_cards = set(s.g.abbey)
    assert len(abbey_cards) == 18 and set(s.abbey_deck) == abbey_cards
    assert not abbey_cards & set(s.box) and not s.abbey_returned
    assert s.abbey_top() == s.abbey_deck[-1] >= 0                       # top card face up
    assert s.goal_lines == ((9, 0), (8, 3), (7, 5)) and s.goal == 9
    assert FantastiqaState.new(3, seed=0, abbey=True, goal="long").goal_lines == ((10, 0), (9, 3), (8, 5))
    assert s.num_actions == 408 == FantastiqaState.num_actions_for(abbey=True)
    base = FantastiqaState.new(2, seed=0)
    assert base.num_actions == 405 and base.goal_lines == ((9, 0),) and abbey_cards <= set(base.box)
    # the Abbey deck has its own chance source: every other deal is the same with the Abbey
    for f in ("creature_deck", "artifact_deck", "beast_deck", "quest_deck", "region_at", "statue_at"):
        assert getattr(s, f) == getattr(base, f)
    check_conservation(s)


def test_Q_B1_meeting_any_goal_line_wins_at_once():
    # (8, 3): 8 points and a third Abbey card claimed -> wins
    s = explorer(seed=1, hand=("Candle",))
    s.scores = [8, 12]                                 # seat 1 is ahead but did not reach a line by a change
    hold_abbey(s, 0, ["Abbey 10", "Abbey 11"])
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    s.apply(s.layout.abbey_stop)
    assert s.is_terminal() and s.winners() == [0] and s.end_reason == "goal"
    assert s.goal_lines_met(0) == [1]
    # 7 points and 4 Abbey cards meet no line
    s = explorer(seed=1, hand=("Candle",))
    s.scores[0] = 7
    hold_abbey(s, 0, ["Abbey 10", "Abbey 11", "Abbey 12"])
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    s.apply(s.layout.abbey_stop)
    assert not s.is_terminal() and s.goal_lines_met(0) == []
    # a quest completed with 5 Abbey cards held: (7, 5) is met at 7 points
    s = fresh(seed=2)
    s.scores[0] = 6
    hold_abbey(s, 0, ["Abbey 10", "Abbey 11", "Abbey 12", "Abbey 13", "Abbey 14"])
    q = boxed_start_quest(s, 0)
    s.apply(s.layout.quest + s.g.I_QUEST_KIND[q])
    while A.CONFIRM not in legal(s):
        s.apply(int(min(legal(s) - {A.CANCEL})))
    s.apply(A.CONFIRM)
    assert s.is_terminal() and s.winners() == [0] and s.scores[0] == 7
    check_conservation(s)


# ---------------------------------------------------------------- Q-B2
def test_Q_B2_exploring_is_the_quest_action_from_the_four_framing_regions():
    s = explorer(seed=3)
    for pos in range(6):
        at(s, 0, pos)
        assert (s.layout.explore in legal(s)) == (pos in LOWER_FRAME), pos
    at(s, 0, 0)
    with pytest.raises(ValueError, match=r"EXPLORE.*positions \[5, 2, 3, 4\]"):
        s.apply(s.layout.explore)
    at(s, 0, 2)
    s.apply(s.layout.explore)
    assert s.phase == A.ABBEY_MATCH
    s.apply(HAND(s, "Candle"))
    s.apply(s.layout.abbey_stop)
    assert s.position[0] == 2, "the standee stays"
    assert s.action_used and s.layout.explore not in legal(s)
    assert A.ADVENTURE not in legal(s) and A.VISIT_STATUE not in legal(s)
    assert not any(s.layout.quest <= a < s.layout.quest + s.layout.Q for a in legal(s)), \
        "no quest in the same turn as exploring"
    with pytest.raises(ValueError, match="turn action is already used"):
        s.apply(s.layout.explore)
    # and after a quest, no exploring
    t = fresh(seed=4)
    q = boxed_start_quest(t, 0, extra=1, frame=True)
    set_abbey_deck(t, ["Abbey %02d" % (2 * t.g.Q_NEEDS[t.g.I_QUEST_KIND[q]][0][0])])
    assert t.layout.explore in legal(t)
    t.apply(t.layout.quest + t.g.I_QUEST_KIND[q])
    while A.CONFIRM not in legal(t):
        t.apply(int(min(legal(t) - {A.CANCEL})))
    t.apply(A.CONFIRM)
    assert len(t.hand[0]) == 1
    assert t.layout.explore not in legal(t)
    check_conservation(t)


# ---------------------------------------------------------------- Q-B3
def test_Q_B3_exact_match_discard_set_aside_and_draw():
    s = explorer(seed=5, deck=("Abbey 05", "Abbey 02"),
                 hand=("Spatula", "Spatula", "III Fire Gem", "Candle", "Dog"),
                 draws=("Peaceful Dragon", "Bat", "Net"))
    s.apply(s.layout.explore)
    # FIRE: Candle and the double FIRE creature match; two SWORDs are no wild (no wilds)
    assert legal(s) == {HAND(s, "Candle"), HAND(s, "III Fire Gem"), A.CANCEL}
    before = s.to_dict()
    with pytest.raises(ValueError, match="does not show FIRE"):
        s.apply(HAND(s, "Spatula"))
    with pytest.raises(ValueError, match="illegal action 405"):
        s.apply(s.layout.explore)
    assert s.to_dict() == before, "a rejected input never changes the state"
    carpets = s.supply_carpets
    s.apply(HAND(s, "Candle"))
    assert names(s, s.discard[0]) == ["Candle"]
    assert names(s, s.abbey_aside) == ["Abbey 02"] and s.abbey_reward == [0, 1, 0]
    assert s.supply_carpets == carpets - 1 and s.carpets[0] == before["players"][0]["tokens"]["carpets"]
    assert sorted(names(s, s.hand[0])) == ["Bat", "Dog", "III Fire Gem", "Net", "Spatula", "Spatula"], \
        "Abbey 02 shows draw 2: Net and Bat drawn"
    assert s.phase == A.ABBEY_CHOICE and s.abbey_top() == -1, "the next card is face down"
    assert not s.abbey[0], "set aside, unclaimed"
    check_conservation(s)


def test_Q_B3_no_match_no_exploring_and_cancel_before_the_first_match():
    s = explorer(seed=6, deck=("Abbey 02",), hand=("Spatula", "Pail"))
    assert s.layout.explore not in legal(s)
    with pytest.raises(ValueError, match="no hand card shows FIRE"):
        s.apply(s.layout.explore)
    s = explorer(seed=6)
    d0 = s.to_dict()
    s.apply(s.layout.explore)
    s.apply(A.CANCEL)
    assert s.phase == A.MAIN and not s.action_used
    d1 = s.to_dict()
    d0["phase"] = d1["phase"]
    assert d1["turn"]["cancels"] == d0["turn"]["cancels"] + 1       # Q-T2's budget counts it
    d0["turn"]["cancels"] = d1["turn"]["cancels"]
    assert d0 == d1, "CANCEL before the first match changes nothing else"
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    assert A.CANCEL not in legal(s)


# ---------------------------------------------------------------- Q-B4
def test_Q_B4_stop_claims_what_is_set_aside():
    s = explorer(seed=7, deck=("Abbey 04", "Abbey 05", "Abbey 02"), hand=("Candle", "Pail"),
                 draws=("Peaceful Dragon",) * 4)
    gems, carpets = s.gems[0], s.carpets[0]
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))                          # Abbey 02: carpet
    assert legal(s) == {s.layout.abbey_stop, s.layout.abbey_continue}
    s.apply(s.layout.abbey_continue)                    # flips Abbey 05 (WATER), Pail matches
    assert s.phase == A.ABBEY_MATCH and s.card_name(s.abbey_top()) == "Abbey 05"
    assert legal(s) == {HAND(s, "Pail")}, "no CANCEL once begun"
    s.apply(HAND(s, "Pail"))                            # Abbey 05: 2 gems
    s.apply(s.layout.abbey_stop)
    assert sorted(names(s, s.abbey[0])) == ["Abbey 02", "Abbey 05"]
    assert s.gems[0] == gems + 2 and s.carpets[0] == carpets + 1
    assert not s.abbey_aside and s.abbey_reward == [0, 0, 0] and s.phase == A.MAIN and s.action_used
    assert s.card_name(s.abbey_top()) == "Abbey 04", "the top card is face up after exploring"
    check_conservation(s)


def test_Q_B4_failure_returns_rewards_and_cards_face_up_to_the_bottom():
    s = explorer(seed=8, deck=("Abbey 00", "Abbey 04", "Abbey 05", "Abbey 02"),
                 hand=("Candle", "Pail"), draws=("Peaceful Dragon",) * 4)
    hold_abbey(s, 0, ["Abbey 10"])                      # from an earlier turn
    sup = (s.supply_gems, s.supply_carpets, s.supply_reshuffles)
    gems = s.gems[0]
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))                          # Abbey 02 (carpet)
    s.apply(s.layout.abbey_continue)
    s.apply(HAND(s, "Pail"))                            # Abbey 05 (2 gems)
    assert s.abbey_reward == [2, 1, 0]
    s.apply(s.layout.abbey_continue)                    # Abbey 04 (WATER): no WATER left in hand
    assert s.phase == A.MAIN and s.action_used, "fails at once, the action is spent"
    assert names(s, s.abbey_returned) == ["Abbey 02", "Abbey 05"], "face up to the bottom"
    assert (s.supply_gems, s.supply_carpets, s.supply_reshuffles) == sup and s.gems[0] == gems
    assert names(s, s.abbey[0]) == ["Abbey 10"], "nothing from earlier turns is lost"
    assert s.card_name(s.abbey_top()) == "Abbey 04", "the card that failed stays face up on top"
    assert names(s, s.abbey_deck) == ["Abbey 00", "Abbey 04"]
    check_conservation(s)


# ---------------------------------------------------------------- Q-B5
def test_Q_B5_seven_card_cap():
    s = explorer(seed=9)
    hold_abbey(s, 0, [f"Abbey {j}" for j in range(10, 17)])
    assert len(s.abbey[0]) == ABBEY_CAP and s.layout.explore not in legal(s)
    with pytest.raises(ValueError, match="already holds 7"):
        s.apply(s.layout.explore)
    s = explorer(seed=9)
    hold_abbey(s, 0, [f"Abbey {j}" for j in range(10, 16)])
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    assert legal(s) == {s.layout.abbey_stop}, "held 6 + set aside 1 = 7: no continuing"
    with pytest.raises(ValueError, match="cap 7"):
        s.apply(s.layout.abbey_continue)
    s.apply(s.layout.abbey_stop)
    assert len(s.abbey[0]) == 7
    check_conservation(s)


def test_Q_B5_returned_cards_are_reshuffled_when_they_are_next():
    # after an exploration empties the face-down deck
    s = explorer(seed=10, deck=("Abbey 02",), hand=("Candle",))
    set_abbey_deck(s, ["Abbey 02"], returned=["Abbey 00", "Abbey 01"])
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    s.apply(s.layout.abbey_stop)
    assert sorted(names(s, s.abbey_deck)) == ["Abbey 00", "Abbey 01"] and not s.abbey_returned
    assert s.abbey_top() == s.abbey_deck[-1]
    # during an exploration: continuing onto returned cards shuffles them first
    s = explorer(seed=11, hand=("Candle", "III Fire Gem"), draws=("Peaceful Dragon",) * 4)
    set_abbey_deck(s, ["Abbey 02"], returned=["Abbey 03"])
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    assert s.layout.abbey_continue in legal(s)
    s.apply(s.layout.abbey_continue)
    assert names(s, s.abbey_deck) == ["Abbey 03"] and not s.abbey_returned and s.phase == A.ABBEY_MATCH
    s.apply(HAND(s, "III Fire Gem"))
    assert s.layout.abbey_continue not in legal(s), "no card left to flip"
    s.apply(s.layout.abbey_stop)
    assert not s.abbey_deck and not s.abbey_returned and s.abbey_top() == -1
    assert s.layout.explore not in legal(s)
    check_conservation(s)
    # the reshuffle draws from the Abbey's own chance source (slot 9), reproducibly
    orders = set()
    for seed in range(6):
        t = explorer(seed=12)
        set_abbey_deck(t, ["Abbey 02"], returned=[f"Abbey {j:02d}" for j in range(4, 12)])
        t._rngs[9] = np.random.Generator(np.random.PCG64(seed))
        t.apply(t.layout.explore)
        t.apply(HAND(t, "Candle"))
        u = t.clone()
        t.apply(t.layout.abbey_stop)
        u.apply(u.layout.abbey_stop)
        assert t.abbey_deck == u.abbey_deck
        orders.add(tuple(t.abbey_deck))
    assert len(orders) > 1


# ---------------------------------------------------------------- whole games
def test_abbey_card_conservation_every_step_round_trips_and_decision_coverage():
    phases = set()

    def check(s):
        check_conservation(s)
        phases.add(s.phase)

    for seed in range(6):
        s = FantastiqaState.new(2 + seed % 3, seed=seed, abbey=True,
                                **({"card_use": "both", "goal": "long"} if seed % 2 else {}))
        check_conservation(s)
        rng = np.random.default_rng(seed)
        for _ in range(6):
            random_walk(s, rng, 250, check)
            d = json.loads(json.dumps(s.to_dict()))
            t = FantastiqaState.from_dict(d)
            assert t.to_dict() == s.to_dict()
            assert np.array_equal(t.legal_actions(), s.legal_actions())
    assert {A.ABBEY_MATCH, A.ABBEY_CHOICE} <= phases


def test_abbey_random_games_end_without_error_and_are_deterministic():
    for seed in range(3):
        n = 2 + seed
        runs = []
        for _ in range(2):
            s = FantastiqaState.new(n, seed=200 + seed, abbey=True)
            rng = np.random.default_rng(seed)
            random_walk(s, rng, 300)
            if not s.is_terminal():                    # cut the creature deck short (fast)
                s.box += s.creature_deck[:-4]
                del s.creature_deck[:-4]
                edited(s)
            random_walk(s, rng, 200000)
            assert s.is_terminal() and s.winners() and abs(s.returns().sum()) < 1e-9
            check_conservation(s)
            runs.append(s.to_dict())
        assert runs[0] == runs[1]


def test_base_game_dict_has_no_abbey_keys():
    d = FantastiqaState.new(2, seed=0).to_dict()
    assert "abbey_deck" not in d and "abbey_aside" not in d["turn"]
    assert d["options"]["abbey"] is False and d["options"]["teams"] is False


def test_action_strings_with_the_abbey():
    s = explorer(seed=13)
    assert s.action_to_string(s.layout.explore).startswith("EXPLORE the Abbey (face up: Abbey 02, FIRE)")
    s.apply(s.layout.explore)
    assert s.action_to_string(HAND(s, "Candle")) == "MATCH the Abbey card with Candle"
    s.apply(HAND(s, "Candle"))
    assert "STOP" in s.action_to_string(s.layout.abbey_stop)
    assert "CONTINUE" in s.action_to_string(s.layout.abbey_continue)
    assert "Abbey: face up -" in str(s) and "set aside ['Abbey 02']" in str(s)
    assert s.layout.decode(s.layout.abbey_continue) == ("ABBEY_CONTINUE", 0)
    assert FantastiqaState.new(2, seed=0).layout.decode(405) == ("INVALID", 405)


def test_abbey_needs_abbey_cards_in_the_card_file(tmp_path):
    from fantastiqa_rl.cards import STANDIN_PATH
    text = open(STANDIN_PATH).read()
    cut = text.index("# --- Abandoned Abbey")
    p = tmp_path / "no_abbey.toml"
    p.write_text(text[:cut])
    with pytest.raises(ValueError, match="abbey=True needs Abbey cards"):
        FantastiqaState.new(2, card_set=str(p), abbey=True)
    assert FantastiqaState.new(2, card_set=str(p)).num_actions == 405


# ---------------------------------------------------------------- the Abbey view
def test_abbey_features_show_public_abbey_information():
    s = explorer(seed=14, deck=("Abbey 05", "Abbey 02"), hand=("Candle", "Pail"),
                 draws=("Peaceful Dragon",) * 3)
    set_abbey_deck(s, ["Abbey 05", "Abbey 02"], returned=["Abbey 00"])
    hold_abbey(s, 1, ["Abbey 10", "Abbey 11"])
    L = ABBEY_LAYOUT
    x = abbey_features(s, 0)
    assert x.shape == (ABBEY_FEATURES_SIZE,) and x.dtype == np.float32
    assert x.min() >= 0 and x.max() <= 1
    top = x[L["top"]]
    assert top[0] == 1 and top[1 + SYMBOL_INDEX["FIRE"]] == 1 and top[1:10].sum() == 1
    assert list(top[10:14]) == [0, 1, 0, 1]                  # carpet, draw 2
    assert x[L["deck"]][0] == pytest.approx(1 / 18) and x[L["deck"]][1] == pytest.approx(1 / 18)
    assert x[L["returned_symbols"]][SYMBOL_INDEX["SWORD"]] == pytest.approx(0.5)
    assert x[L["held"]][1] == pytest.approx(2 / 7) and abbey_features(s, 1)[L["held"]][0] == pytest.approx(2 / 7)
    assert x[L["side_held"]][1] == pytest.approx(2 / 7)
    assert list(x[L["lines"]][:9]) == pytest.approx([1, 1, 0, 1, 8 / 9, 3 / 7, 1, 7 / 9, 5 / 7])
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    x = abbey_features(s, 1)
    assert x[L["top"]].sum() == 0, "the next card is face down while the explorer decides"
    assert x[L["aside"]][0] == 1 and x[L["aside"]][1] == pytest.approx(1 / 7)
    assert x[L["aside"]][2 + SYMBOL_INDEX["FIRE"]] == pytest.approx(0.5)
    assert x[L["aside"]][12] == pytest.approx(1 / 4)        # a carpet set aside
    txt = abbey_text(s)
    assert "face down (the explorer decides" in txt and "set aside ['Abbey 02']" in txt
    assert "returned ['Abbey 00']" in txt and "(8, 3)" in txt
    base = FantastiqaState.new(2, seed=0)
    xb = abbey_features(base, 0)
    assert xb[L["top"]].sum() == 0 and xb[L["team"]][0] == 1 and abbey_text(base) == ""
    with pytest.raises(ValueError, match="seat must be in 0..1"):
        abbey_features(s, 2)


def test_abbey_view_and_hidden_shuffle_never_read_hidden_order():
    rng = np.random.default_rng(0)
    for seed in range(8):
        s = FantastiqaState.new(2 + seed % 3, seed=seed, abbey=True)
        random_walk(s, rng, int(rng.integers(50, 900)))
        if s.is_terminal():
            continue
        t = s.clone()
        shuffle_abbey_hidden(t, np.random.default_rng(seed))
        for p in range(s.n):                           # other hands and all deck orders hidden
            if p != 0:
                pool = t.hand[p] + t.deck[p]
                rng.shuffle(pool)
                t.hand[p], t.deck[p] = pool[:len(t.hand[p])], pool[len(t.hand[p]):]
        assert np.array_equal(abbey_features(s, 0), abbey_features(t, 0))
        assert abbey_text(s) == abbey_text(t)
        assert t.abbey_top() == s.abbey_top() and t.abbey_returned == s.abbey_returned
        assert sorted(t.abbey_deck) == sorted(s.abbey_deck)
        a, b = s.clone(), t.clone()
        shuffle_abbey_hidden(a, np.random.default_rng(99))
        shuffle_abbey_hidden(b, np.random.default_rng(99))
        assert a.abbey_deck == b.abbey_deck, "the re-deal depends only on public information and rng"
        check_conservation(a)


# ---------------------------------------------------------------- greedy bot
def greedy_choice(s):
    mask = np.zeros(s.num_actions, dtype=bool)
    mask[s.legal_actions()] = True
    return FantastiqaGreedyAgent(0).act(None, mask, state=s, seat=s.cur)


def test_greedy_stop_threshold():
    # one card set aside: continue iff P(match) > 1/2
    s = explorer(seed=15, deck=("Abbey 04", "Abbey 05", "Abbey 02"), hand=("Candle", "Pail"),
                 draws=("Peaceful Dragon",) * 3)
    assert greedy_choice(s) == s.layout.explore
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    assert greedy_choice(s) == s.layout.abbey_continue           # WATER, WATER: P = 1
    s = explorer(seed=15, deck=("Abbey 10", "Abbey 05", "Abbey 02"), hand=("Candle", "Pail"),
                 draws=("Peaceful Dragon",) * 3)
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    assert greedy_choice(s) == s.layout.abbey_stop               # P = 1/2, not > 1/2
    # claiming now meets a goal line: stop even with P = 1
    s = explorer(seed=15, deck=("Abbey 04", "Abbey 05", "Abbey 02"), hand=("Candle", "Pail"),
                 draws=("Peaceful Dragon",) * 3)
    s.scores[0] = 8
    hold_abbey(s, 0, ["Abbey 10", "Abbey 11"])
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    assert greedy_choice(s) == s.layout.abbey_stop
    s.apply(s.layout.abbey_stop)
    assert s.is_terminal() and s.winners() == [0]
    # holding 5 (the largest goal-line count), it no longer explores
    s = explorer(seed=15)
    hold_abbey(s, 0, [f"Abbey {j}" for j in range(10, 15)])
    assert s.layout.explore in legal(s) and greedy_choice(s) != s.layout.explore


def test_greedy_plays_abbey_games_to_the_end():
    """Greedy Abbey games end by the rulebook (the goal, most of them, or the creature deck), never
    at the Q-E5 turn limit."""
    ends = []
    for seed in range(3):
        n = 2 + seed
        s = FantastiqaState.new(n, seed=seed, abbey=True)
        bots = [FantastiqaGreedyAgent(seed * 10 + i) for i in range(n)]
        mask = np.zeros(s.num_actions, dtype=bool)
        while not s.is_terminal() and s.turns < 100 * n:
            mask[:] = False
            mask[s.legal_actions()] = True
            s.apply(bots[s.cur].act(None, mask, state=s, seat=s.cur))
        assert s.is_terminal() and s.end_reason in ("goal", "creature deck empty")
        ends.append(s.end_reason)
        check_conservation(s)
    assert ends.count("goal") >= 2, ends
