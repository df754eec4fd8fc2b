"""The team variant (option teams=True, 4 players): one test per rule id Q-TM1..Q-TM4 of
docs/rules/fantastiqa.md, with and without the Abbey; random and greedy team games; the team
structure in the Abbey/team view (partner seat, never the partner's hand); the generic MCTS."""
import numpy as np
import pytest

from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
from tabletop_rl.agents.mcts import MCTSAgent
from fantastiqa_rl import FantastiqaState
from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey_view import ABBEY_LAYOUT, abbey_features, abbey_text
from fantastiqa_rl.board import SYMBOLS
from fantastiqa_rl.debug import check_conservation, move_card, set_abbey_deck, set_hand
from fantastiqa_rl.turn_flow import rules as turn_flow
from tests.fantastiqa_helpers import HAND, ITEMS, at, do, edited, legal
from tests.fantastiqa_helpers import fresh as fresh_game

# Private calls (why not public): turn_flow.rules.end_by_score / end end a game on a set-up position, which play
# reaches only after long random walks; see tests/test_fantastiqa_rules.py.



def fresh(seed=0, **kw):
    return fresh_game(4, seed, teams=True, **kw)


def set_gems(s, gems):
    s.supply_gems += sum(s.gems) - sum(gems)
    s.gems = list(gems)


def complete_boxed_start_quest(s, p):
    """p takes a boxed 1-point starting quest, stands in its region and completes it."""
    q = next(i for i in s.box if i in s.g.start_quests)
    s.box.remove(q)
    s.quests[p].append(q)
    s.committed[p][q] = []
    (sym, cnt), = s.g.Q_NEEDS[s.g.I_QUEST_KIND[q]]
    at(s, p, s.name_pos[s.g.Q_REGION[s.g.I_QUEST_KIND[q]]])
    set_hand(s, p, [ITEMS[sym]] * cnt)
    s.apply(s.layout.quest + s.g.I_QUEST_KIND[q])
    while A.CONFIRM not in legal(s):
        s.apply(int(min(legal(s) - {A.CANCEL})))
    s.apply(A.CONFIRM)


# ---------------------------------------------------------------- Q-TM1
def test_Q_TM1_seats_0_2_against_1_3_in_seat_order():
    for n in (2, 3):
        with pytest.raises(ValueError, match=r"teams=True; allowed values: \[4\]"):
            FantastiqaState.new(n, teams=True)
    s = FantastiqaState.new(4, seed=0, teams=True)
    assert [s.partner(p) for p in range(4)] == [2, 3, 0, 1]
    assert [s.team(p) for p in range(4)] == [[0, 2], [1, 3], [0, 2], [1, 3]]
    assert [s.team_of(p) for p in range(4)] == [0, 1, 0, 1]
    assert not s.is_opponent(0, 2) and s.is_opponent(0, 1) and s.is_opponent(0, 3) and not s.is_opponent(0, 0)
    seen = []
    while s.phase != A.MAIN:                            # setup in reverse seat order (Q-S4)
        if not seen or seen[-1] != s.cur:
            seen.append(s.cur)
        s.apply(int(s.legal_actions()[0]))
    assert seen == [3, 2, 1, 0]
    order = []
    for _ in range(6):                                  # turns keep seat order
        order.append(s.cur)
        s.apply(A.DONE)
        if s.phase == A.END_DISCARD:
            s.apply(A.DONE)
    assert order == [0, 1, 2, 3, 0, 1]
    b = FantastiqaState.new(4, seed=0)
    assert b.partner(0) == -1 and b.team(2) == [2] and b.is_opponent(0, 2)


# ---------------------------------------------------------------- Q-TM2
def test_Q_TM2_two_player_goal_and_summed_scores():
    assert FantastiqaState.new(4, teams=True).goal == 9 and FantastiqaState.new(4).goal == 7
    assert FantastiqaState.new(4, teams=True, goal="long").goal == 11
    assert FantastiqaState.new(4, teams=True, abbey=True).goal_lines == ((9, 0), (8, 3), (7, 5))
    s = fresh(seed=1)
    s.scores = [4, 6, 4, 2]                             # 8 vs 8
    complete_boxed_start_quest(s, 0)                    # +1: seats 0+2 reach 9
    assert s.is_terminal() and s.winners() == [0, 2] and s.end_reason == "goal"
    s = fresh(seed=1)
    s.scores = [7, 0, 0, 0]                             # 7 alone would meet the 4-player goal
    complete_boxed_start_quest(s, 0)
    assert not s.is_terminal() and s.side_score(0) == 8
    check_conservation(s)


def test_Q_TM2_abbey_cards_summed_for_the_cap_and_the_goal_lines():
    s = fresh(seed=2, abbey=True)
    at(s, 0, 3)
    set_abbey_deck(s, ["Abbey 05", "Abbey 02"])
    set_hand(s, 0, ["Candle"])
    for nm in ("Abbey 10", "Abbey 11", "Abbey 12", "Abbey 13"):
        move_card(s, nm, s.abbey[2])
    for nm in ("Abbey 14", "Abbey 15", "Abbey 16"):
        move_card(s, nm, s.abbey[0])
    edited(s)
    assert s.abbey_held(0) == s.abbey_held(2) == 7 and s.abbey_held(1) == 0
    with pytest.raises(ValueError, match="the team already holds 7"):
        s.apply(s.layout.explore)
    s.box += s.abbey[0]                                 # 4 held by the partner
    s.abbey[0] = []
    s.scores = [4, 9, 3, 0]                             # 7 points for 0+2, seat 1 alone has 9 but no change
    edited(s)
    s.apply(s.layout.explore)
    s.apply(HAND(s, "Candle"))
    s.apply(s.layout.abbey_stop)                        # the team's 5th Abbey card: (7, 5) met
    assert s.is_terminal() and s.winners() == [0, 2]
    check_conservation(s)


def test_Q_TM2_deck_out_compares_team_sums_then_tie_breaks():
    s = fresh(seed=3)
    for p in range(4):
        s.box += s.quests[p]
        s.quests[p] = []
        s.committed[p] = {}
        s.completed[p] = []
    s.scores = [3, 5, 3, 0]                             # seat 1 is the best player; 0+2 the best team
    turn_flow.end_by_score(s, "creature deck empty")
    assert s.winners() == [0, 2]
    s.phase, s.winners_ = A.MAIN, None
    s.scores = [3, 3, 3, 3]
    set_gems(s, [1, 3, 1, 0])                           # tie on points and quests: gems 2 vs 3
    turn_flow.end_by_score(s, "creature deck empty")
    assert s.winners() == [1, 3]
    s.phase, s.winners_ = A.MAIN, None
    set_gems(s, [2, 2, 1, 1])
    turn_flow.end_by_score(s, "creature deck empty")
    assert s.winners() == [0, 1, 2, 3] and list(s.returns()) == [0, 0, 0, 0]


# ---------------------------------------------------------------- Q-TM3
def test_Q_TM3_dragons_target_opponents_only():
    s = fresh(seed=4)
    for p in range(4):
        at(s, p, p)
    at(s, 2, 0)                                         # only the partner shares seat 0's region
    set_hand(s, 0, ["I Broom Dragon", "Peaceful Dragon"])
    assert HAND(s, "I Broom Dragon") not in legal(s) and HAND(s, "Peaceful Dragon") not in legal(s)
    at(s, 3, 0)
    do(s, HAND(s, "I Broom Dragon"))
    assert legal(s) == {A.SEAT + 3}
    do(s, A.SEAT + 3)
    do(s, HAND(s, "Peaceful Dragon"))
    assert legal(s) == {A.SEAT + 3}
    check_conservation(s)


def test_Q_TM3_bitter_brew_and_rogues_purse_target_opponents_only():
    s = fresh(seed=5)
    set_hand(s, 0, ["Bitter Brew 3", "Spatula", "Rogue's Purse"])
    do(s, HAND(s, "Bitter Brew 3"))
    do(s, HAND(s, "Spatula"))
    assert legal(s) == {A.SEAT + 1, A.SEAT + 3}
    do(s, A.SEAT + 1)
    assert s.card_name(s.discard[1][-1]) == "Spatula"
    set_gems(s, [1, 5, 5, 0])
    do(s, HAND(s, "Rogue's Purse"))
    assert s.gems == [2, 4, 5, 0], "the richer partner keeps its gems"
    check_conservation(s)


# ---------------------------------------------------------------- Q-TM4
@pytest.mark.parametrize("abbey", [False, True])
def test_Q_TM4_partners_receive_identical_returns_random_games(abbey):
    for seed in range(3):
        s = FantastiqaState.new(4, seed=300 + seed, teams=True, abbey=abbey)
        rng = np.random.default_rng(seed)
        steps = 0
        while not s.is_terminal():
            if steps == 300:                            # cut the creature deck short (fast)
                s.box += s.creature_deck[:-4]
                del s.creature_deck[:-4]
                edited(s)
            la = s.legal_actions()
            assert len(la) > 0
            s.apply(int(la[rng.integers(len(la))]))
            steps += 1
            if steps % 50 == 0:
                check_conservation(s)
        r = s.returns()
        w = s.winners()
        assert w in ([0, 2], [1, 3], [0, 1, 2, 3])
        assert r[0] == r[2] and r[1] == r[3] and abs(r.sum()) < 1e-9
        check_conservation(s)
    s = fresh(seed=6)
    turn_flow.end(s, [1, 3], "goal")
    assert list(s.returns()) == [-0.5, 0.5, -0.5, 0.5]


# ---------------------------------------------------------------- team structure in the view
def test_team_view_shows_the_partner_seat_never_the_partners_hand():
    s = fresh(seed=7, abbey=True)
    L = ABBEY_LAYOUT
    for seat in range(4):
        x = abbey_features(s, seat)
        assert list(x[L["team"]]) == [1, 0, 1, 0] and list(x[L["partner"]]) == [0, 0, 1, 0]
        assert x[L["options"]].tolist() == [1, 1]
    rng = np.random.default_rng(0)
    for _ in range(20):                                 # the partner's hand/deck split is hidden
        t = s.clone()
        pool = t.hand[2] + t.deck[2]
        rng.shuffle(pool)
        t.hand[2], t.deck[2] = pool[:len(t.hand[2])], pool[len(t.hand[2]):]
        assert np.array_equal(abbey_features(t, 0), abbey_features(s, 0))
        assert abbey_text(t) == abbey_text(s)
    assert "Teams: seats 0+2" in abbey_text(s) and "teams: seats 0+2 vs 1+3" in str(s)
    assert list(abbey_features(FantastiqaState.new(4, seed=0), 1)[L["team"]]) == [1, 0, 0, 0]


# ---------------------------------------------------------------- bots
@pytest.mark.parametrize("abbey", [False, True])
def test_greedy_plays_team_games_to_the_end(abbey):
    for seed in range(2):
        s = FantastiqaState.new(4, seed=seed, teams=True, abbey=abbey)
        bots = [FantastiqaGreedyAgent(seed * 10 + i) for i in range(4)]
        mask = np.zeros(s.num_actions, dtype=bool)
        while not s.is_terminal() and s.turns < 400:
            mask[:] = False
            mask[s.legal_actions()] = True
            s.apply(bots[s.cur].act(None, mask, state=s, seat=s.cur))
        assert s.is_terminal() and s.winners() in ([0, 2], [1, 3])
        check_conservation(s)


def test_generic_mcts_plays_for_the_team():
    """The suite's MCTS needs no change for teams: partners' returns are identical, so a seat
    that can win for its team takes the win (here a perfect-information determinizer)."""
    s = fresh(seed=8)
    s.scores = [4, 0, 4, 0]
    q = next(i for i in s.box if i in s.g.start_quests)
    s.box.remove(q)
    s.quests[0].append(q)
    s.committed[0][q] = []
    (sym, cnt), = s.g.Q_NEEDS[s.g.I_QUEST_KIND[q]]
    at(s, 0, s.name_pos[s.g.Q_REGION[s.g.I_QUEST_KIND[q]]])
    set_hand(s, 0, [ITEMS[sym]] * cnt + [f"I {SYMBOLS[sym].title()} Gem"])
    s.sample_consistent = lambda seat, rng: s.clone()  # noqa: E731 (perfect information here)
    bot = MCTSAgent(seed=0, iterations=60, rollout_depth=6)
    for _ in range(8):
        if s.is_terminal():
            break
        mask = np.zeros(s.num_actions, dtype=bool)
        mask[s.legal_actions()] = True
        s.apply(bot.act(None, mask, state=s, seat=s.cur))
    assert s.is_terminal() and s.winners() == [0, 2]
