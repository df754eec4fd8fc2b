"""One test per rule id of docs/rules/fantastiqa.md (Q-x), on hand-built positions.

Positions are built from a real game after setup with fantastiqa_rl.debug helpers, which move
card instances between zones (so card conservation still holds)."""
import numpy as np
import pytest

from fantastiqa_rl import FantastiqaState
from fantastiqa_rl import actions as A
from fantastiqa_rl.board import CHEST, NEIGHBOURS, SPACES, TOWER
from fantastiqa_rl.debug import (check_conservation, instances_of, move_card, place_creature,
                                 play_setup, set_hand)
from fantastiqa_rl.statues.rules import statue_options
from fantastiqa_rl.turn_flow import rules as turn_flow
from tests.fantastiqa_helpers import COMMIT, HAND, ITEMS, PICK, QUEST, at, do, edited, fresh, legal, qkind

# Private calls (why not public): scenario tests drive internal transitions (turn_flow.rules.replenish,
# end_turn, end_by_score; the state's _draw) and the statue query (statues.rules.statue_options) directly, since play reaches these
# positions only after long random walks; their public names belong to the split of fantastiqa_rl/state.py
# (issue 17, part B).


# ---------------------------------------------------------------- helpers
def test_free_actions_are_one_level_down():
    s = fresh(2, seed=1)
    main = set(s.legal_actions().tolist())
    assert main <= {A.DONE, A.ADVENTURE, A.VISIT_STATUE, A.FREE_ACTION} | set(
        range(s.layout.quest, s.layout.n))
    assert A.FREE_ACTION in main                     # carpets and marks are available
    free = s.free_options(0)
    s.apply(A.FREE_ACTION)
    assert s.phase == A.FREE_MENU and sorted(free) == s.legal_actions().tolist()
    assert A.DONE not in free and A.CANCEL not in free


def clear_space(s, c):
    if s.board[c] >= 0:
        s.box.append(s.board[c])
        s.supply_gems += s.board_gems[c]
        s.board[c], s.board_gems[c] = -1, 0
    edited(s)


def only_space(s, pos, space, creature, gems=0):
    """Seat 0 at pos; the only occupied space next to pos is `space`, holding `creature`."""
    at(s, 0, pos)
    for c, _ in NEIGHBOURS[pos]:
        clear_space(s, c)
    place_creature(s, space, creature, gems)


def hand_names(s, p):
    return sorted(s.card_name(i) for i in s.hand[p])


def quest_pos(s, qname):
    return s.name_pos[s.g.Q_REGION[qkind(s, qname)]]




def subdue(s, dest):
    """In ADV_MOVE: go to dest, paying with the adventurer item of the creature's vulnerability."""
    do(s, A.REGION + dest)
    c = s.target
    k = s.g.I_HAND_KIND[s.board[c]]
    for _ in range(s.g.K_STRENGTH[k]):
        do(s, HAND(s, ITEMS[s.g.K_VULN[k]]))
    do(s, A.CONFIRM)


def give_personal_quest(s, p, qname):
    q = move_card(s, qname, s.quests[p])
    s.committed[p][q] = []
    return q


# ---------------------------------------------------------------- board, setup
def test_Q_M1_adjacency_needs_an_occupied_space():
    s = fresh()
    at(s, 0, 0)
    s.carpets[0] = 1
    for c, _ in NEIGHBOURS[0]:
        clear_space(s, c)
    assert A.CARPET not in legal(s) and A.ADVENTURE not in legal(s)
    place_creature(s, 0, "I Fire Gem")            # c0 joins positions 0 and 1
    do(s, A.CARPET)
    assert legal(s) == {A.REGION + 1}
    do(s, A.REGION + 1)
    assert s.position[0] == 1 and s.board[0] >= 0  # a carpet does not subdue
    assert {(a, b) for a, b in SPACES} >= {(5, 2)} and (0, 2) not in SPACES  # no diagonals


@pytest.mark.parametrize("n,short,long", [(2, 9, 11), (3, 8, 10), (4, 7, 9)])
def test_Q_S1_goal_by_player_count_and_length(n, short, long):
    assert FantastiqaState.new(n, seed=0).goal == short
    assert FantastiqaState.new(n, seed=0, goal="long").goal == long


@pytest.mark.parametrize("n,counts", [(2, (18, 18, 9)), (3, (18, 9, 18)), (4, (18, 18, 18))])
def test_Q_S2_creature_deck_sections_and_never_reshuffled(n, counts):
    s = FantastiqaState.new(n, seed=3)
    g = s.g
    kinds = g.cs.kinds
    deck = s.creature_deck[::-1]                           # top first
    secs = [kinds[g.I_KIND[i]].section for i in deck]
    assert secs == sorted(secs), "section I on top, then II, then III"
    creatures = [i for i in deck if not g.I_IS_RAVEN[i]]
    assert tuple(sum(1 for i in creatures if kinds[g.I_KIND[i]].section == k) for k in (1, 2, 3)) == counts
    assert sum(1 for i in deck if g.I_IS_RAVEN[i]) == 3
    play_setup(s)
    start = list(s.creature_deck)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        if s.is_terminal():
            break
        do(s, int(rng.choice(s.legal_actions())))
        assert s.creature_deck == start[:len(s.creature_deck)], "the creature deck is only ever drawn from"


def test_Q_S3_starting_resources():
    s = FantastiqaState.new(3, seed=1)
    for p in range(3):
        assert (s.gems[p], s.carpets[p], s.reshuffles[p], s.quest_token[p]) == (3, 3, 3, -1)
        names = sorted(s.card_name(i) for i in s.hand[p])
        assert names == sorted(["Spatula", "Candle", "Pail", "Broom", "Cat", "Net", "Helmet", "Bat",
                                "Toothbrush", "Dog", "Peaceful Dragon"])
    check_conservation(s)


def test_Q_S4_reverse_seat_order_and_distinct_regions():
    s = FantastiqaState.new(3, seed=2)
    order = []
    while s.phase != A.MAIN:
        order.append((s.cur, s.phase_name))
        if s.phase == A.SETUP_PLACE:
            taken = {p for p in s.position if p >= 0}
            assert legal(s) == {A.REGION + r for r in range(6) if r not in taken}
        do(s, int(s.legal_actions()[-1]))
    assert [c for c, ph in order if ph == "SETUP_QUEST"] == [2, 1, 0]
    assert order[:3] == [(2, "SETUP_QUEST"), (2, "SETUP_ARTIFACT"), (2, "SETUP_PLACE")]
    assert len(set(s.position)) == 3
    for p in range(3):
        assert len(s.quests[p]) == 1
        assert s.g.cs.kinds[s.g.I_KIND[s.quests[p][0]]].type == "start_quest"


def test_Q_S5_open_quests_from_unchosen_starting_quests():
    s = fresh(2, seed=4)
    kinds = s.g.cs.kinds
    assert all(kinds[s.g.I_KIND[q]].type == "start_quest" for q in s.open_quests)
    assert s.open_bonus == [1, 1]
    boxed = [kinds[s.g.I_KIND[i]].type for i in s.box]
    assert boxed.count("start_quest") == 9 - 2 - 2
    assert boxed.count("start_artifact") == 5 - 2
    check_conservation(s)


def test_Q_S6_twelve_card_decks_and_seat0_starts():
    s = fresh(4, seed=5)
    for p in range(4):
        assert len(s.hand[p]) == 5 and len(s.deck[p]) == 7 and not s.discard[p]
        types = [s.g.cs.kinds[s.g.I_KIND[i]].type for i in s.hand[p] + s.deck[p]]
        assert types.count("start_artifact") == 1
    assert s.cur == 0 and s.phase == A.MAIN and s.turns == 0


# ---------------------------------------------------------------- replenish
def test_Q_R1_refill_in_order_with_gems():
    s = fresh(2, seed=6)
    clear_space(s, 2)
    clear_space(s, 5)
    top = s.creature_deck[-2:][::-1]
    gems_before = s.supply_gems
    assert not any(s.g.I_IS_RAVEN[i] for i in top)   # section I has no Raven
    turn_flow.replenish(s, False)
    assert s.board[2] == top[0] and s.board[5] == top[1]     # c2 filled before c5
    want = [int(s.g.K_GEM[s.g.I_HAND_KIND[i]]) for i in top]
    assert [s.board_gems[2], s.board_gems[5]] == want
    assert s.supply_gems == gems_before - sum(want)
    check_conservation(s)


def test_Q_R2_empty_creature_deck_ends_game():
    s = fresh(2, seed=7)
    s.box += s.creature_deck
    s.creature_deck = []
    clear_space(s, 0)
    do(s, A.DONE)
    while not s.is_terminal():
        do(s, A.DONE)                            # keep the hand, draw, next seat's replenish
    assert s.end_reason == "creature deck empty" and s.winners()
    check_conservation(s)


def test_Q_R3_raven_halves_richest_players():
    s = fresh(3, seed=8)
    s.supply_gems += sum(s.gems)
    s.gems = [0, 0, 0]
    for p, g in enumerate((7, 7, 4)):
        s.gems[p] = g
        s.supply_gems -= g
    raven = instances_of(s, "Raven II")[0]
    s.creature_deck.remove(raven)
    s.creature_deck.append(raven)                          # on top of the creature deck
    clear_space(s, 3)
    turn_flow.replenish(s, False)
    assert s.gems == [4, 4, 4] and raven in s.box and s.board[3] >= 0
    # nobody at 5 or more: nothing happens
    raven3 = instances_of(s, "Raven III")[0]
    s.creature_deck.remove(raven3)
    s.creature_deck.append(raven3)
    clear_space(s, 3)
    turn_flow.replenish(s, False)
    assert s.gems == [4, 4, 4]
    check_conservation(s)


def test_Q_R3_raven_in_game_start_fill_goes_into_top_ten():
    for seed in range(6):
        s = FantastiqaState.new(2, seed=seed)
        while not (s.phase == A.SETUP_PLACE and s.cur == 0):
            do(s, int(s.legal_actions()[0]))
        raven = instances_of(s, "Raven II")[0]
        s.creature_deck.remove(raven)
        s.creature_deck.insert(len(s.creature_deck) - 3, raven)   # the fourth card from the top
        gems = list(s.gems)
        do(s, int(s.legal_actions()[0]))
        assert raven not in s.board and s.gems == gems
        assert raven in s.creature_deck[-11:], "shuffled into the top 10 (plus itself)"
        assert all(b >= 0 and not s.g.I_IS_RAVEN[b] for b in s.board)


def test_Q_R4_open_quests_refilled_with_bonus_if_any():
    s = fresh(2, seed=9)
    s.quest_deck.append(s.open_quests[0])
    s.open_quests[0], s.open_bonus[0] = -1, 0
    s.supply_bonus_tokens += 1
    s.supply_bonus_tokens, spare = 0, s.supply_bonus_tokens
    top = s.quest_deck[-1]
    turn_flow.replenish(s, False)
    assert s.open_quests[0] == top and s.open_bonus[0] == 0        # no bonus token left
    s.supply_bonus_tokens = spare
    s.quest_deck.append(s.open_quests[1])
    s.open_quests[1], s.supply_bonus_tokens = -1, s.supply_bonus_tokens + s.open_bonus[1]
    s.open_bonus[1] = 0
    turn_flow.replenish(s, False)
    assert s.open_bonus[1] == 1
    check_conservation(s)


# ---------------------------------------------------------------- adventure
def test_Q_A1_subdue_with_matching_symbols_and_move():
    s = fresh(2, seed=10, fly_in_adventure=False)      # no carpet step in this adventure
    only_space(s, 0, 0, "I Fire Gem", gems=1)      # needs SWORD x1, towards position 1
    set_hand(s, 0, ["Pail"])
    assert A.ADVENTURE not in legal(s)
    set_hand(s, 0, ["Spatula", "Pail"])
    do(s, A.ADVENTURE)
    assert legal(s) == {A.REGION + 1, A.CANCEL}
    do(s, A.REGION + 1)
    assert legal(s) == {HAND(s, "Spatula"), A.CANCEL}
    do(s, HAND(s, "Spatula"))
    assert legal(s) == {A.CONFIRM, A.CANCEL}
    gems = s.gems[0]
    do(s, A.CONFIRM)
    assert s.position[0] == 1 and s.board[0] == -1 and s.gems[0] == gems + 1
    check_conservation(s)


def test_Q_A2_wild_pair_and_double_cards():
    s = fresh(2, seed=11, fly_in_adventure=False)      # no carpet step in this adventure
    only_space(s, 0, 0, "I Fire Gem")              # needs SWORD x1
    set_hand(s, 0, ["Candle"])
    assert A.ADVENTURE not in legal(s), "a single other symbol is no wild"
    set_hand(s, 0, ["Candle", "Candle"])
    do(s, A.ADVENTURE)
    do(s, A.REGION + 1)
    do(s, HAND(s, "Candle"))
    assert A.CONFIRM not in legal(s) and HAND(s, "Candle") in legal(s)
    do(s, HAND(s, "Candle"))
    assert A.CONFIRM in legal(s)
    do(s, A.CANCEL)
    assert hand_names(s, 0) == ["Candle", "Candle"] and s.phase == A.ADV_MOVE
    do(s, A.CANCEL)
    assert s.phase == A.MAIN and not s.action_used
    # a double card is a wild pair on its own; a pair stands in for ONE symbol only
    only_space(s, 0, 0, "II Fire Gem")             # needs SWORD x2
    set_hand(s, 0, ["III Water Gem", "Pail"])
    assert A.ADVENTURE not in legal(s)
    set_hand(s, 0, ["III Water Gem", "Spatula"])
    do(s, A.ADVENTURE)
    assert legal(s) == {A.REGION + 1, A.CANCEL}
    do(s, A.REGION + 1)
    assert legal(s) == {HAND(s, "III Water Gem"), HAND(s, "Spatula"), A.CANCEL}


def test_Q_A2_no_wilds_for_quests():
    s = fresh(2, seed=12)
    q = give_personal_quest(s, 0, "Start Quest Sword")      # needs SWORD x2
    at(s, 0, quest_pos(s, "Start Quest Sword"))
    set_hand(s, 0, ["Candle", "Candle", "Pail", "Pail"])
    assert QUEST(s, "Start Quest Sword") not in legal(s)
    set_hand(s, 0, ["Spatula", "Spatula"])
    assert QUEST(s, "Start Quest Sword") in legal(s)
    assert q in s.quests[0]


def test_Q_A3_simple_path_never_reenters():
    s = fresh(2, seed=13)
    at(s, 0, 0)
    for c in range(7):
        place_creature(s, c, ["I Fire Gem", "I Water Gem", "I Tooth Gem", "I Net Gem",
                              "I Helmet Gem", "I Bat Gem", "I Wand Gem"][c])
    names = ["Spatula", "Candle", "Pail", "Broom", "Cat", "Net", "Helmet", "Bat", "Toothbrush"]
    set_hand(s, 0, names)
    do(s, A.ADVENTURE)
    # c0 (0-1) needs SWORD; path 0 -> 1 -> 2 -> 5 -> back to 0 is a loop through c5
    for dest in (1, 2, 5):
        subdue(s, dest)
        assert s.position[0] == dest
    assert A.REGION + 0 not in legal(s), "start region may not be re-entered (simple)"
    assert A.REGION + 4 in legal(s) and A.DONE in legal(s)


def test_Q_A3_loops_option_allows_reentry():
    s = fresh(2, seed=13, adventure_path="loops")
    at(s, 0, 0)
    for c in range(7):
        place_creature(s, c, ["I Fire Gem", "I Water Gem", "I Tooth Gem", "I Net Gem",
                              "I Helmet Gem", "I Bat Gem", "I Wand Gem"][c])
    set_hand(s, 0, ["Spatula", "Candle", "Pail", "Broom", "Cat", "Net", "Helmet", "Bat", "Toothbrush"])
    do(s, A.ADVENTURE)
    for dest in (1, 2, 5):
        subdue(s, dest)
    assert A.REGION + 0 in legal(s), "loops: the start region may be re-entered"
    subdue(s, 0)
    assert A.REGION + 5 not in legal(s), "no backtracking (the space just used is empty anyway)"


def test_Q_A4_spent_and_subdued_go_to_discard_after_adventure():
    s = fresh(2, seed=14)
    only_space(s, 0, 0, "I Fire Gem", gems=1)
    set_hand(s, 0, ["Spatula"])
    disc = len(s.discard[0])
    do(s, A.ADVENTURE)
    do(s, A.REGION + 1)
    do(s, HAND(s, "Spatula"))
    do(s, A.CONFIRM)
    assert len(s.discard[0]) == disc and len(s.adventure) == 2       # held until the adventure ends
    assert A.CANCEL not in legal(s), "no cancel after a confirmed subdue"
    do(s, A.DONE)
    assert sorted(s.card_name(i) for i in s.discard[0][-2:]) == ["I Fire Gem", "Spatula"]
    assert s.action_used and A.ADVENTURE not in legal(s)
    check_conservation(s)


# ---------------------------------------------------------------- statues
def _at_statue(s, st):
    pos = s.statue_at.index(st)
    at(s, 0, pos)
    return pos


def test_Q_V1_tower_draw_buy_and_bottom_in_draw_order():
    s = fresh(2, seed=15)
    _at_statue(s, TOWER)
    s.gems[0], s.supply_gems = 20, s.supply_gems + s.gems[0] - 20
    set_hand(s, 0, ["I Water Plus Statue"])
    do(s, HAND(s, "I Water Plus Statue"))           # PLUS_STATUE: +1 card on the next draw
    top4 = s.artifact_deck[-4:][::-1]
    do(s, A.VISIT_STATUE)
    do(s, A.STATUE_DRAW)
    assert s.revealed == top4 and s.phase == A.BUY
    buy = top4[1]
    cost = s.g.K_COST[s.g.I_HAND_KIND[buy]]
    do(s, s.layout.pick + s.g.I_HAND_KIND[buy])
    assert s.gems[0] == 20 - cost and buy in s.discard[0]
    do(s, A.DONE)
    rest = [i for i in top4 if i != buy]
    assert s.artifact_deck[:3][::-1] == rest, "the rest at the bottom, drawn again in draw order"
    assert s.action_used and s.plus_statue == 0
    check_conservation(s)


def test_Q_V1_bought_to_hand_option_and_chest():
    s = fresh(2, seed=16, bought_to="hand")
    _at_statue(s, TOWER)
    s.gems[0], s.supply_gems = 20, s.supply_gems + s.gems[0] - 20
    do(s, A.VISIT_STATUE)
    do(s, A.STATUE_DRAW)
    i = s.revealed[0]
    do(s, s.layout.pick + s.g.I_HAND_KIND[i])
    assert i in s.hand[0]
    s = fresh(2, seed=16)
    _at_statue(s, CHEST)
    do(s, A.VISIT_STATUE)
    do(s, A.STATUE_DRAW)
    assert A.DONE not in legal(s), "keep at least one quest"
    q = s.revealed[0]
    do(s, s.layout.quest + s.g.I_QUEST_KIND[q])
    assert q in s.quests[0] and A.DONE in legal(s)
    do(s, int(max(legal(s))))                        # a second one: 3 personal quests now
    assert len(s.quests[0]) == 3 and legal(s) == {A.DONE}
    do(s, A.DONE)
    assert A.STATUE_DRAW not in statue_options(s, 0), "unavailable while holding 3 quests"


def test_Q_V2_release_up_to_three_for_a_gem_each():
    s = fresh(2, seed=17)
    s.gems[0], s.supply_gems = 5, s.supply_gems + s.gems[0] - 5
    set_hand(s, 0, ["Peaceful Dragon", "Dog", "Cat", "Bat"])
    s.discard[0].append(s.hand[0].pop())               # Bat in the discard pile
    do(s, A.VISIT_STATUE)
    do(s, A.STATUE_RELEASE)
    assert legal(s) == {A.CANCEL, PICK(s, "Bat")} | {HAND(s, x) for x in ("Peaceful Dragon", "Dog", "Cat")}
    do(s, HAND(s, "Cat"))
    do(s, A.CANCEL)                                  # chosen cards come back, action unused
    assert hand_names(s, 0) == ["Cat", "Dog", "Peaceful Dragon"] and not s.action_used
    do(s, A.VISIT_STATUE)
    do(s, A.STATUE_RELEASE)
    for a in (HAND(s, "Peaceful Dragon"), HAND(s, "Dog"), PICK(s, "Bat")):
        do(s, a)
    assert legal(s) == {A.CONFIRM, A.CANCEL} and s.gems[0] == 5, "at most 3"
    do(s, A.CONFIRM)
    assert s.gems[0] == 2 and s.action_used
    assert {s.card_name(i) for i in s.box[-3:]} == {"Peaceful Dragon", "Dog", "Bat"}
    check_conservation(s)
    # never more cards than gems
    s2 = fresh(2, seed=17)
    s2.supply_gems += s2.gems[0] - 1
    s2.gems[0] = 1
    do(s2, A.VISIT_STATUE)
    do(s2, A.STATUE_RELEASE)
    do(s2, int(max(legal(s2))))
    assert legal(s2) == {A.CONFIRM, A.CANCEL}


def test_Q_V3_teleport_to_twin_statue_for_two_gems():
    s = fresh(2, seed=18)
    pos = _at_statue(s, CHEST)
    twin = [r for r in range(6) if r != pos and s.statue_at[r] == CHEST][0]
    s.gems[0] = 2
    s.supply_gems += 1
    do(s, A.VISIT_STATUE)
    do(s, A.STATUE_TELEPORT)
    assert s.position[0] == twin and s.gems[0] == 0 and s.action_used
    check_conservation(s)


# ---------------------------------------------------------------- quests
def test_Q_Q1_one_quest_per_turn_in_its_region():
    s = fresh(2, seed=19)
    give_personal_quest(s, 0, "Start Quest Sword")
    give_personal_quest(s, 0, "Quest 00")        # Forest too
    at(s, 0, (quest_pos(s, "Start Quest Sword") + 1) % 6)
    set_hand(s, 0, ["Spatula", "Spatula"])
    assert QUEST(s, "Start Quest Sword") not in legal(s)
    at(s, 0, quest_pos(s, "Start Quest Sword"))
    do(s, QUEST(s, "Start Quest Sword"))
    do(s, HAND(s, "Spatula"))
    do(s, HAND(s, "Spatula"))
    do(s, A.CONFIRM)
    assert not any(a >= s.layout.quest for a in legal(s)), "one quest per turn"


def test_Q_Q2_exact_symbols_and_committed_cards_count():
    s = fresh(2, seed=20)
    q = give_personal_quest(s, 0, "Quest 00")      # SWORD x2, FIRE x1 (A=0, B=1)
    assert s.g.Q_NEEDS[s.g.I_QUEST_KIND[q]] == ((0, 2), (1, 1))
    at(s, 0, quest_pos(s, "Quest 00"))
    set_hand(s, 0, ["Spatula", "Candle", "Spatula"])
    do(s, COMMIT(s, "Spatula"))                   # single target: no second step
    assert s.phase == A.MAIN and len(s.committed[0][q]) == 1
    move_card(s, "Pail", s.hand[0])
    assert hand_names(s, 0) == ["Candle", "Pail", "Spatula"]
    do(s, QUEST(s, "Quest 00"))
    assert legal(s) == {HAND(s, "Spatula"), HAND(s, "Candle"), A.CANCEL}, "Pail is no use"
    do(s, HAND(s, "Spatula"))
    assert HAND(s, "Spatula") not in legal(s), "a third SWORD would be surplus"
    do(s, HAND(s, "Candle"))
    assert A.CONFIRM in legal(s)


def test_Q_Q3_score_bonus_reward_and_discard():
    s = fresh(2, seed=21)
    q = s.open_quests[0]
    qk = s.g.I_QUEST_KIND[q]
    needs = s.g.Q_NEEDS[qk]
    names = ["Spatula", "Candle", "Pail", "Broom", "Cat", "Net", "Helmet", "Bat", "Toothbrush"]
    at(s, 0, s.name_pos[s.g.Q_REGION[qk]])
    set_hand(s, 0, [names[sym] for sym, c in needs for _ in range(c)])
    gems = s.gems[0]
    do(s, s.layout.quest + qk)
    while A.CONFIRM not in legal(s):
        do(s, int(min(legal(s) - {A.CANCEL})))
    do(s, A.CONFIRM)
    assert s.scores[0] == s.g.Q_POINTS[qk] + 1 and s.bonus_tokens[0] == 1
    assert s.gems[0] == gems + s.g.Q_REWARD[qk][0]
    assert q in s.completed[0] and s.open_quests[0] == -1 and not s.hand[0]
    check_conservation(s)


# ---------------------------------------------------------------- free actions
def test_Q_F1_powers_and_symbol_or_power():
    s = fresh(2, seed=22)
    at(s, 1, s.position[0])
    set_hand(s, 0, ["Dog", "I Fire Key", "I Broom Dragon", "Peaceful Dragon", "I Sword Fly"])
    g0 = s.gems[0]
    do(s, HAND(s, "Dog"))                          # GEM
    assert s.gems[0] == g0 + 1
    do(s, HAND(s, "I Broom Dragon"))               # DRAGON: a supply dragon to an opponent here
    assert legal(s) == {A.SEAT + 1}
    n_disc = len(s.discard[1])
    do(s, A.SEAT + 1)
    assert len(s.discard[1]) == n_disc + 1 and s.card_name(s.discard[1][-1]) == "Peaceful Dragon"
    do(s, HAND(s, "Peaceful Dragon"))              # the card itself goes to the opponent
    do(s, A.SEAT + 1)
    assert s.card_name(s.discard[1][-1]) == "Peaceful Dragon" and len(s.discard[1]) == n_disc + 2
    do(s, HAND(s, "I Fire Key"))                   # KEY: a statue option as a free action
    assert s.phase == A.STATUE_OPTION and A.CANCEL not in legal(s)
    do(s, A.STATUE_TELEPORT)
    assert not s.action_used
    assert "I Sword Fly" in hand_names(s, 0)
    do(s, HAND(s, "I Sword Fly"))                  # FLY; the card is now in the discard
    assert s.phase == A.MOVE_DEST
    assert "I Sword Fly" not in hand_names(s, 0)
    check_conservation(s)


def test_Q_F1_card_use_both_keeps_symbols():
    s = fresh(2, seed=22, card_use="both")
    set_hand(s, 0, ["I Water Plus Statue"])
    do(s, HAND(s, "I Water Plus Statue"))
    assert hand_names(s, 0) == ["I Water Plus Statue"] and s.plus_statue == 1
    assert HAND(s, "I Water Plus Statue") not in legal(s), "its power is used"
    do(s, A.DONE)                                   # the used card is discarded at end of turn
    assert instances_of(s, "I Water Plus Statue")[0] in s.discard[0]


def test_Q_F1_artifact_effects_from_card_file():
    s = fresh(3, seed=23)
    s.supply_gems += sum(s.gems) - 12
    s.gems = [3, 5, 4]
    set_hand(s, 0, ["Rogue's Purse", "Looking Glass", "Spatula", "Wardrobe 4", "Bitter Brew 3"])
    do(s, HAND(s, "Rogue's Purse"))                 # its effects in order: double a card, then steal
    assert legal(s) == {HAND(s, "Spatula")} and s.gems == [3, 5, 4]
    do(s, HAND(s, "Spatula"))
    assert [s.card_name(i) for i in s.boosted] == ["Spatula"]
    assert s.gems == [5, 4, 3]
    do(s, HAND(s, "Looking Glass"))                 # no card left to double: no decision, no effect
    assert s.phase == A.MAIN and [s.card_name(i) for i in s.boosted] == ["Spatula"]
    b0, b1 = s.board[0], s.board[1]
    do(s, HAND(s, "Wardrobe 4"))
    do(s, A.SPACE + 0)
    do(s, A.SPACE + 1)
    assert (s.board[0], s.board[1]) == (b1, b0)
    do(s, HAND(s, "Bitter Brew 3"))
    do(s, HAND(s, "Spatula"))
    assert legal(s) == {A.SEAT + 1, A.SEAT + 2}
    do(s, A.SEAT + 2)
    assert s.card_name(s.discard[2][-1]) == "Spatula"
    check_conservation(s)


def test_Q_F1_looking_glass_doubles_for_payment():
    s = fresh(2, seed=24)
    only_space(s, 0, 0, "II Fire Gem")              # needs SWORD x2
    set_hand(s, 0, ["Looking Glass", "Spatula"])
    assert A.ADVENTURE not in legal(s)
    do(s, HAND(s, "Looking Glass"))
    do(s, HAND(s, "Spatula"))
    do(s, A.ADVENTURE)
    do(s, A.REGION + 1)
    do(s, HAND(s, "Spatula"))
    assert A.CONFIRM in legal(s)


def test_Q_F1_bell_draw_keep_discard():
    s = fresh(2, seed=25)
    set_hand(s, 0, ["Bell of Summoning", "Spatula"])
    top3 = s.deck[0][-3:][::-1]
    do(s, HAND(s, "Bell of Summoning"))
    assert s.phase == A.GLASS and s.revealed == []   # the double first (STAND-IN), then the draw
    do(s, HAND(s, "Spatula"))
    assert s.revealed == top3 and s.phase == A.BELL
    do(s, s.layout.pick + s.g.I_HAND_KIND[top3[2]])
    assert top3[2] in s.hand[0] and all(i in s.discard[0] for i in top3[:2])
    check_conservation(s)


def test_Q_F2_commit_mark_withdraw_and_token_return():
    s = fresh(3, seed=26)
    j = 0
    q = s.open_quests[j]
    need_sym = s.g.Q_NEEDS[s.g.I_QUEST_KIND[q]][0][0]
    names = ["Spatula", "Candle", "Pail", "Broom", "Cat", "Net", "Helmet", "Bat", "Toothbrush"]
    card = names[need_sym]
    s.quests[0] = []
    s.box.append(next(iter(s.committed[0])))
    s.committed[0] = {}
    set_hand(s, 0, [card])
    assert COMMIT(s, card) not in legal(s), "no target without a personal quest or a token"
    do(s, A.MARK + j)
    assert s.quest_token[0] == q
    do(s, COMMIT(s, card))
    assert len(s.committed[0][q]) == 1
    do(s, PICK(s, card))                            # withdraw to discard
    assert not s.committed[0][q] and s.card_name(s.discard[0][-1]) == card
    s.committed[0][q].append(s.discard[0].pop())    # committed again
    # the opponent completes the quest: our token returns and our cards go to our discard
    s.cur = 1
    at(s, 1, s.name_pos[s.g.Q_REGION[s.g.I_QUEST_KIND[q]]])
    needs = s.g.Q_NEEDS[s.g.I_QUEST_KIND[q]]
    s.deck[1] += s.hand[1]
    s.hand[1] = []
    for sym, c in needs:
        for _ in range(c):
            move_card(s, names[sym], s.hand[1], exclude=[s.committed[0][q]])
    do(s, s.layout.quest + s.g.I_QUEST_KIND[q])
    while A.CONFIRM not in legal(s):
        do(s, int(min(legal(s) - {A.CANCEL})))
    do(s, A.CONFIRM)
    assert s.quest_token[0] == -1 and q not in s.committed[0]
    assert s.card_name(s.discard[0][-1]) == card
    check_conservation(s)


@pytest.mark.parametrize("seed", range(5))
def test_Q_F2_mark_cannot_return_to_a_quest_left_this_turn(seed):
    # mark_return="forbid" (default, engine assumption): no MARK A, MARK B, MARK A ... loop.
    s = fresh(2, seed=seed)
    qa, qb = s.open_quests
    do(s, A.MARK + 0)
    do(s, A.MARK + 1)
    assert s.quest_token[0] == qb and s.token_left == [qa]
    assert A.MARK + 0 not in legal(s) and A.MARK + 1 not in legal(s)
    assert A.FREE_ACTION in s.legal_set()          # carpets and reshuffles are still free actions
    s.apply(A.FREE_ACTION)
    before = s.to_dict()
    with pytest.raises(ValueError, match="left this open quest earlier this turn"):
        s.apply(A.MARK + 0)
    assert s.to_dict() == before, "an illegal action leaves the state unchanged"
    back = FantastiqaState.from_dict(before)
    assert back.token_left == [qa] and back.to_dict() == before
    # The next turn starts afresh: the same seat may MARK the quest it left.
    for _ in range(100):
        if s.cur != 0:
            break
        s.apply(next((a for a in (A.CANCEL, A.DONE) if a in s.legal_set()), int(s.legal_actions()[0])))
    assert s.token_left == []
    # "allow" (the spec's silence read literally): the token may go back, so turns can loop.
    t = fresh(2, seed=seed, mark_return="allow")
    for _ in range(3):
        do(t, A.MARK + 0)
        do(t, A.MARK + 1)
    assert t.quest_token[0] == qb and A.MARK + 0 in legal(t)
    with pytest.raises(ValueError, match="allowed values: \\['forbid', 'allow'\\]"):
        FantastiqaState.new(2, seed=0, mark_return="never")


def test_Q_F2_withdraw_asks_which_quest():
    s = fresh(2, seed=27)
    q1 = give_personal_quest(s, 0, "Start Quest Sword")
    q2 = give_personal_quest(s, 0, "Quest 09")      # A = 0: SWORD x2 too
    move_card(s, "Spatula", s.committed[0][q1])
    move_card(s, "Spatula", s.committed[0][q2], exclude=[s.committed[0][q1]])
    edited(s)
    do(s, PICK(s, "Spatula"))
    assert s.phase == A.WITHDRAW_FROM
    assert legal(s) == {QUEST(s, "Start Quest Sword"), QUEST(s, "Quest 09")}
    do(s, QUEST(s, "Quest 09"))
    assert not s.committed[0][q2] and len(s.committed[0][q1]) == 1


def test_Q_F3_carpet_moves_without_subduing():
    s = fresh(2, seed=28)
    at(s, 0, 5)
    do(s, A.CARPET)
    dests = {a - A.REGION for a in legal(s)}
    assert dests == {d for c, d in NEIGHBOURS[5] if s.board[c] >= 0}
    board = list(s.board)
    do(s, A.REGION + min(dests))
    assert s.position[0] == min(dests) and s.board == board and s.carpets[0] == 2


def test_Q_F4_reshuffle_token():
    s = fresh(2, seed=29)
    s.discard[0] += s.hand[0][:2]
    del s.hand[0][:2]
    edited(s)
    both = sorted(s.deck[0] + s.discard[0])
    do(s, A.RESHUFFLE)
    assert sorted(s.deck[0]) == both and not s.discard[0] and s.reshuffles[0] == 2
    check_conservation(s)


# ---------------------------------------------------------------- end of turn, running out
def test_Q_T1_discard_then_draw_up_to_five():
    s = fresh(2, seed=30)
    h = list(s.hand[0])
    do(s, A.DONE)
    assert s.phase == A.END_DISCARD
    do(s, s.layout.hand + s.g.I_HAND_KIND[h[0]])
    do(s, A.DONE)
    assert len(s.hand[0]) == 5 and s.cur == 1
    s2 = fresh(2, seed=30, draw_rule="draw_5")
    do(s2, A.DONE)
    do(s2, A.DONE)
    assert len(s2.hand[0]) == 10


def test_Q_X1_running_out():
    s = fresh(2, seed=31)
    # personal deck empty -> shuffle the discard; both empty -> draw fewer
    s.discard[0] += s.deck[0]
    s.deck[0] = []
    s._draw(0, 3, s.hand[0])
    assert len(s.hand[0]) == 8 and len(s.deck[0]) == 4
    s.discard[0] += s.deck[0]
    s.deck[0] = []
    s.box += s.discard[0]
    s.discard[0] = []
    s._draw(0, 3, s.hand[0])
    assert len(s.hand[0]) == 8
    # statue deck empty -> option unavailable; supply empty -> nothing gained
    _at_statue(s, TOWER)
    s.box += s.artifact_deck
    s.artifact_deck = []
    s.supply_gems += s.gems[0]
    s.gems[0] = 0
    assert A.STATUE_DRAW not in statue_options(s, 0)
    s.supply_gems, spare = 0, s.supply_gems
    set_hand(s, 0, ["Dog"])
    do(s, HAND(s, "Dog"))
    assert s.gems[0] == 0
    s.supply_gems = spare
    # no Peaceful Dragon in the supply -> DRAGON cannot be played
    at(s, 1, s.position[0])
    s.box += s.dragons
    s.dragons = []
    set_hand(s, 0, ["I Broom Dragon"])
    assert HAND(s, "I Broom Dragon") not in legal(s)
    check_conservation(s)


def test_Q_I1_legal_actions_ignore_hidden_information():
    """The mover's legal actions do not depend on other hands or on any deck order."""
    rng = np.random.default_rng(0)
    for seed in range(20):
        s = fresh(3, seed=seed)
        for _ in range(int(rng.integers(0, 200))):
            if s.is_terminal():
                break
            do(s, int(rng.choice(s.legal_actions())))
        if s.is_terminal():
            continue
        t = s.clone()
        for p in range(3):
            if p != t.cur:
                pool = t.hand[p] + t.deck[p]
                rng.shuffle(pool)
                t.hand[p], t.deck[p] = pool[:len(t.hand[p])], pool[len(t.hand[p]):]
        rng.shuffle(t.creature_deck)
        rng.shuffle(t.artifact_deck)
        edited(t)
        assert np.array_equal(t.legal_actions(), s.legal_actions())


# ---------------------------------------------------------------- end of the game
def test_Q_E1_goal_reached_wins_at_once():
    s = fresh(2, seed=32)
    s.scores[0] = s.goal - 1
    give_personal_quest(s, 0, "Start Quest Sword")
    at(s, 0, quest_pos(s, "Start Quest Sword"))
    set_hand(s, 0, ["Spatula", "Spatula"])
    s.scores[1] = s.goal + 3                            # outscored, but did not reach it by a change
    do(s, QUEST(s, "Start Quest Sword"))
    do(s, HAND(s, "Spatula"))
    do(s, HAND(s, "Spatula"))
    do(s, A.CONFIRM)
    assert s.is_terminal() and s.winners() == [0] and s.end_reason == "goal"
    assert list(s.returns()) == [1.0, -1.0]


def test_Q_E2_Q_E3_deck_out_final_scores_count_personal_quests_against():
    s = fresh(2, seed=33)
    s.scores = [5, 4]
    give_personal_quest(s, 0, "Quest 05")             # 4 points against seat 0
    s.box += s.creature_deck
    s.creature_deck = []
    clear_space(s, 0)
    turn_flow.end_turn(s, 0)
    while not s.is_terminal():
        do(s, A.DONE)
    assert s.final_scores() == [5 - 4 - 1, 4 - 1]     # starting quests are 1 point each
    assert s.winners() == [1] and s.scores == [5, 4]


def test_Q_E4_ties_completed_quests_then_gems_then_shared():
    s = fresh(3, seed=34)
    for p in range(3):
        s.box += s.quests[p]
        s.quests[p] = []
        s.committed[p] = {}
    s.scores = [3, 3, 2]
    s.completed[0] = []
    s.completed[1] = []
    s.supply_gems += sum(s.gems)
    s.gems = [2, 2, 9]
    s.supply_gems -= 13
    turn_flow.end_by_score(s, "creature deck empty")
    assert s.winners() == [0, 1]
    assert np.allclose(s.returns(), [0.5, 0.5, -1.0])
    s.phase, s.winners_ = A.MAIN, None
    s.gems = [2, 1, 10]
    turn_flow.end_by_score(s, "creature deck empty")
    assert s.winners() == [0]


def test_Q_E5_turn_limit_ends_the_game_scored_like_a_deck_out():
    """Q-E5: after N x turn_limit completed turns the game ends, terminal, end_reason
    "turn_limit", with Q-E2/Q-E3 final scores (personal quests count against)."""
    s = fresh(2, seed=33, turn_limit=1)
    s.scores = [5, 4]
    give_personal_quest(s, 0, "Quest 05")             # 4 points against seat 0
    do(s, A.DONE)
    while s.cur == 0:
        do(s, A.DONE)                                 # seat 0 keeps its hand and draws
    assert not s.is_terminal() and s.turns == 1      # one turn is not the limit of 2 seats
    while not s.is_terminal():
        do(s, A.DONE)
    assert s.turns == 2 and s.end_reason == "turn_limit"
    assert s.final_scores() == [5 - 4 - 1, 4 - 1] and s.winners() == [1]
    assert list(s.returns()) == [-1.0, 1.0]
    check_conservation(s)


@pytest.mark.parametrize("gems,winners", [((2, 5), [1]), ((5, 2), [0]), ((4, 4), [0, 1])])
def test_Q_E5_turn_limit_uses_the_Q_E4_tie_breaks(gems, winners):
    """Q-E5 + Q-E4: equal final scores and completed quests: most gems, then a shared win."""
    s = fresh(2, seed=34, turn_limit=1)
    for p in range(2):
        s.box += s.quests[p]
        s.quests[p], s.committed[p], s.completed[p] = [], {}, []
    s.scores = [3, 3]
    s.supply_gems += sum(s.gems) - sum(gems)
    s.gems = list(gems)
    while not s.is_terminal():
        do(s, A.DONE)
    assert s.end_reason == "turn_limit" and s.winners() == winners


def test_Q_E5_turn_limit_option_values_and_round_trip():
    assert FantastiqaState.new(2, seed=0).opts["turn_limit"] == 100     # the documented default
    assert FantastiqaState.new(2, seed=0, turn_limit=None).opts["turn_limit"] is None
    for bad in (0, -3, 2.5, "10", True):
        with pytest.raises(ValueError, match="turn_limit"):
            FantastiqaState.new(2, seed=0, turn_limit=bad)
    s = fresh(3, seed=5, turn_limit=7)
    assert FantastiqaState.from_dict(s.to_dict()).opts["turn_limit"] == 7


@pytest.mark.parametrize("fly", [False, True])
def test_A_fly_in_adventure_option(fly):
    """Option fly_in_adventure (turn action A; default True, the rulebook's "some cards let you use
    special powers while adventuring"; False is the strict reading): a FLY card or a carpet as
    one step of an adventure path, into a region the path may enter."""
    s = fresh(2, seed=35, fly_in_adventure=fly)
    at(s, 0, 0)
    place_creature(s, 0, "I Fire Gem")              # c0: 0-1, needs SWORD
    place_creature(s, 5, "II Fire Gem")             # c5: 0-5, needs SWORD x2
    place_creature(s, 4, "I Tooth Gem")             # c4: 5-4
    set_hand(s, 0, ["Spatula", "I Sword Fly"])
    do(s, A.ADVENTURE)
    flying = {HAND(s, "I Sword Fly"), A.CARPET}
    if not fly:
        assert not flying & legal(s)
        return
    assert flying <= legal(s)
    do(s, A.CARPET)
    assert legal(s) == {A.REGION + 1, A.REGION + 5}
    do(s, A.REGION + 5)
    assert s.phase == A.ADV_MOVE and s.position[0] == 5 and s.board[5] >= 0 and s.carpets[0] == 2
    assert A.REGION + 0 not in legal(s)             # the start region stays visited
    check_conservation(s)
