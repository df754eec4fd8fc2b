"""Q-T2: every turn ends (issue 25). A test per loop kind of the unbounded reading
(turn_loops="allow"), cards played for their power in play until the end of the turn, the in-turn
cycle search (none under the rule; the old loops found without it: the control), the bound on the
steps of one turn, no decision without a legal action, and the CANCEL budget removing no
end-of-turn position. The longer runs: benchmarks/check_fantastiqa_turns.py."""
import functools

import numpy as np
import pytest

from fantastiqa_rl import actions as A
from fantastiqa_rl import rules
from fantastiqa_rl.debug import check_conservation, move_card
from fantastiqa_rl.options import CANCEL_BUDGET
from fantastiqa_rl.state import FantastiqaState
from fantastiqa_rl.statues.rules import statue_options
from fantastiqa_rl.turn_search import (OPTION_SETS, fuzz_game, sample_states, search_turn, turn_key,
                                       turn_step_bound, with_options)
from tests.fantastiqa_helpers import HAND, edited, fresh


def find(pred, num_players=2, seeds=range(40), **options):
    """The first position of a random game (turn_loops="allow", no budget) where pred holds."""
    for seed in seeds:
        s = FantastiqaState.new(num_players, seed=seed, turn_loops="allow", **options)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            if s.phase not in (A.SETUP_QUEST, A.SETUP_ARTIFACT, A.SETUP_PLACE) and pred(s):
                return s
            la = s.legal_actions()
            s.apply(int(la[rng.integers(la.size)]))
    raise AssertionError("no such position in the random games")


def back_out(s, opening):
    """Open a decision with the actions `opening`, then CANCEL."""
    for a in opening:
        s.apply(a)
    s.apply(A.CANCEL)


# loop kind -> (where it starts, the actions that open the decision CANCEL backs out of)
LOOPS = {
    "VISIT_STATUE/CANCEL": (lambda s: s.phase == A.MAIN and A.VISIT_STATUE in s.legal_set(),
                            lambda s: [A.VISIT_STATUE], {}),
    "ADVENTURE/CANCEL": (lambda s: s.phase == A.MAIN and A.ADVENTURE in s.legal_set(),
                         lambda s: [A.ADVENTURE], {}),
    "REGION r/CANCEL after a subdue": (
        lambda s: s.phase == A.ADV_MOVE and s.count > 0 and any(A.REGION <= a < A.SPACE for a in s.legal_set()),
        lambda s: [next(a for a in s.legal_actions().tolist() if A.REGION <= a < A.SPACE)], {}),
    "QUEST q/CANCEL": (lambda s: s.phase == A.MAIN and any(a >= s.layout.quest and a < s.layout.quest + len(
        s.g.Q_NAME) for a in s.legal_set()),
        lambda s: [next(a for a in s.legal_actions().tolist() if s.layout.quest <= a < s.layout.quest
                        + len(s.g.Q_NAME))], {}),
    "STATUE_RELEASE/CANCEL": (lambda s: s.phase == A.MAIN and A.VISIT_STATUE in s.legal_set()
                              and A.STATUE_RELEASE in statue_options(s, s.cur),
                              lambda s: [A.VISIT_STATUE, A.STATUE_RELEASE], {}),
    "EXPLORE/CANCEL": (lambda s: s.phase == A.MAIN and s.layout.explore in s.legal_set(),
                       lambda s: [s.layout.explore], {"abbey": True}),
}


@pytest.mark.parametrize("name", LOOPS)
def test_each_cancel_loop_of_the_unbounded_reading_is_cut_by_the_budget(name):
    where, opening, options = LOOPS[name]
    s = find(where, **options)
    loop = opening(s)
    back_out(s, loop)                       # the first lap may leave bookkeeping (turn.visited)
    key = turn_key(s)
    for _ in range(CANCEL_BUDGET + 2):      # the unbounded reading: the identical position, every lap
        back_out(s, loop)
        assert turn_key(s) == key, f"{name}: the lap did not return to the same position"
    s = with_options(s, turn_loops="forbid")
    for lap in range(CANCEL_BUDGET):        # Q-T2: the budget's laps, then no more back-outs
        back_out(s, loop)
        assert s.cancels == lap + 1
    for a in loop:
        s.apply(a)
    assert A.CANCEL not in s.legal_set() and s.legal_actions().size > 0, name
    with pytest.raises(ValueError, match="illegal action 2 .*budget"):
        s.apply(A.CANCEL)


def test_cancel_stays_legal_where_it_is_the_only_action():
    """Spent budget: CANCEL is still legal in a decision that offers nothing else (an adventure
    before its first subdue after a carpet step left no payable way on)."""
    s = fresh(2, seed=3)
    s.cancels = CANCEL_BUDGET
    s.phase, s.count = A.ADV_MOVE, 0
    s.board = [-1] * len(s.board)           # nothing to subdue, nothing to fly over
    edited(s)
    assert s.legal_actions().tolist() == [A.CANCEL]
    s.apply(A.CANCEL)
    assert s.phase == A.MAIN


def scroll_turn(turn_loops, card="Scroll of Insight 2"):
    """Seat 0 holds only `card`, its deck and discard empty: the draw loop's position."""
    s = fresh(2, seed=0, turn_loops=turn_loops)
    s.box += s.deck[0] + s.discard[0] + s.hand[0]
    s.deck[0], s.discard[0], s.hand[0] = [], [], []
    move_card(s, card, s.hand[0])
    return edited(s)


@pytest.mark.parametrize("card", ["Scroll of Insight 2", "Lucky Coin 3"])
def test_draw_artifact_loop_of_the_unbounded_reading(card):
    """turn_loops="allow": played for its power, the card goes to the discard first, its draw
    reshuffles the discard and draws it back, so it can be played again and again (Lucky Coin
    gains a gem each lap)."""
    s = scroll_turn("allow", card)
    gems = s.gems[0]
    for lap in range(3):
        s.apply(A.FREE_ACTION)
        s.apply(HAND(s, card))
        assert [s.card_name(i) for i in s.hand[0]] == [card] and not s.deck[0] and not s.discard[0]
    assert s.gems[0] == gems + (3 if card.startswith("Lucky") else 0)


@pytest.mark.parametrize("card", ["Scroll of Insight 2", "Lucky Coin 3"])
def test_a_card_played_for_its_power_stays_in_play_until_the_end_of_the_turn(card):
    s = scroll_turn("forbid", card)
    i = s.hand[0][0]
    s.apply(A.FREE_ACTION)
    s.apply(HAND(s, card))
    assert s.powered == [i] and not s.hand[0] and not s.discard[0] and not s.deck[0]
    check_conservation(s)
    assert FantastiqaState.from_dict(s.to_dict()).to_dict() == s.to_dict()
    assert HAND(s, card) not in s.free_options(0)       # not in hand: the loop is gone
    s.apply(A.DONE)                                     # Q-T1: the cards used go to the discard
    assert s.powered == [] and i in s.discard[0] + s.hand[0] + s.deck[0]


def test_a_card_in_play_is_validated_as_a_zone():
    s = scroll_turn("forbid")
    s.apply(A.FREE_ACTION)
    s.apply(HAND(s, "Scroll of Insight 2"))
    d = s.to_dict()
    d["players"][0]["hand"].append(d["turn"]["powered"][0])
    with pytest.raises(ValueError, match=r"turn.powered\[0\].*lies in play.*also at players\[0\].hand"):
        FantastiqaState.from_dict(d)
    d = s.to_dict()
    d["turn"]["powered"] = []
    with pytest.raises(ValueError, match="is nowhere"):
        FantastiqaState.from_dict(d)
    d = s.to_dict()
    d["turn"]["cancels"] = -1
    with pytest.raises(ValueError, match=r"turn.cancels"):
        FantastiqaState.from_dict(d)
    d = scroll_turn("allow").to_dict()
    d["turn"]["cancels"] = 2
    with pytest.raises(ValueError, match=r"turn.cancels.*must be 0 with turn_loops='allow'"):
        FantastiqaState.from_dict(d)


def test_card_use_both_keeps_a_card_with_symbols_in_hand():
    """card_use="both": a card with symbols played for its power stays in hand (marked in
    turn.powered, Q-F1); one without symbols lies in play like the default's."""
    s = scroll_turn("forbid")
    s = with_options(s, card_use="both")
    s.apply(A.FREE_ACTION)
    s.apply(HAND(s, "Scroll of Insight 2"))                 # no symbols: in play
    assert not s.hand[0] and len(s.powered) == 1


# ------------------------------------------------------------------ the in-turn cycle search
# 16 positions of random games (4 per game); the mover's carpet and reshuffle tokens go back to the
# supply, so the search is complete from about half of them (with 3 carpets one turn has 10^5+
# positions; benchmarks/check_fantastiqa_turns.py searches unedited positions, more of them).
SEARCH_GAMES = [(2, 1, {}), (2, 2, {"abbey": True}), (4, 3, {"teams": True}), (2, 4, {"card_use": "both"})]
MAX_STATES = 800


def without_tokens(s):
    p = s.cur
    s.supply_carpets += s.carpets[p]
    s.supply_reshuffles += s.reshuffles[p]
    s.carpets[p] = s.reshuffles[p] = 0
    return edited(s)


@functools.cache
def searched(turn_loops: str) -> tuple:
    """(position, its search) for the sampled positions under turn_loops."""
    out = []
    for n, seed, options in SEARCH_GAMES:
        for s in sample_states(n, seed, 4, rate=0.02, turn_loops="allow", **options):
            s = with_options(without_tokens(s), turn_loops=turn_loops)
            out.append((s, search_turn(s, max_states=MAX_STATES)))
    return tuple(out)


def test_no_in_turn_cycle_and_the_longest_turn_is_within_the_bound():
    found = searched("forbid")
    assert len(found) == 4 * len(SEARCH_GAMES)
    assert all(r.cycle is None and r.dead == 0 for _, r in found)
    complete = [(s, r) for s, r in found if r.complete]
    assert len(complete) >= 5
    for s, r in complete:
        assert 1 <= r.longest <= turn_step_bound(s)


def test_control_the_search_finds_the_old_loops_without_the_rule():
    found = searched("allow")
    loops = [r.cycle for _, r in found if r.cycle is not None]
    assert len(loops) >= len(found) // 2, "the search must find the loops of the unbounded reading"
    for _, r in found:                  # each lap returns to the identical position
        if r.cycle is not None:
            s = r.cycle_at.clone()
            for a in r.cycle:
                s.apply(a)
            assert turn_key(s) == turn_key(r.cycle_at)


def test_the_budget_removes_no_end_of_turn_position(monkeypatch):
    """Every CANCEL can be left out of a turn (Q-T2): the end-of-turn positions (up to card order)
    with the budget of 3, and with a budget of 0, are those without any budget."""
    def no_cancel_count(s):             # the count matters to nothing without the budget
        return turn_key(s).replace(f'"cancels":{s.cancels}', '"cancels":0')

    compared = 0
    for s, bounded in searched("forbid"):
        if not bounded.complete:
            continue
        monkeypatch.setattr(rules, "CANCEL_BUDGET", 10 ** 9)
        unbounded = search_turn(s, max_states=MAX_STATES, key=no_cancel_count)
        monkeypatch.setattr(rules, "CANCEL_BUDGET", 0)
        none = search_turn(s, max_states=MAX_STATES)
        monkeypatch.setattr(rules, "CANCEL_BUDGET", CANCEL_BUDGET)
        assert unbounded.complete and none.complete
        assert bounded.ends == unbounded.ends == none.ends
        compared += 1
    assert compared >= 5


# ------------------------------------------------------------------ fuzz: every decision has a move, turns end
@pytest.mark.parametrize("n,options", OPTION_SETS, ids=[f"{n}p {o}" for n, o in OPTION_SETS])
def test_random_games_never_lack_a_move_and_no_turn_exceeds_the_bound(n, options):
    for seed in range(4):
        out = fuzz_game(n, seed, options)   # raises at a decision without a move or a turn over its bound
        assert 0 < out["longest_turn"] <= out["its_bound"]


@pytest.mark.parametrize("turn_loops", ["forbid", "allow"])
def test_a_key_is_playable_only_if_a_statue_option_remains_once_it_has_left_the_hand(turn_loops):
    """Found by the shipped policy's evaluation against greedy: a KEY, the only card in hand and
    the discard empty, 1 gem, at a Quest Chest with 3 personal quests. Played into play (Q-T2) it
    left no statue option (no release without a card to release), and the KEY's STATUE_OPTION has
    no CANCEL: a decision without a legal action. With turn_loops="allow" the card is in the discard
    to release, so the KEY is playable there."""
    from fantastiqa_rl.board import CHEST
    s = fresh(2, seed=0, turn_loops=turn_loops)
    s.box += s.hand[0] + s.discard[0]
    s.hand[0], s.discard[0] = [], []
    move_card(s, "I Net Key", s.hand[0])
    for name in ("Quest 12", "Quest 29", "Quest 14"):
        s.committed[0][move_card(s, name, s.quests[0])] = []
    s.supply_gems += s.gems[0] - 1
    s.gems[0] = 1
    s.position[0] = s.statue_at.index(CHEST)
    edited(s)
    key_play = HAND(s, "I Net Key")
    assert (key_play in s.free_options(0)) == (turn_loops == "allow")
    if turn_loops == "allow":
        s.apply(A.FREE_ACTION)
        s.apply(key_play)
        assert s.legal_actions().tolist() == [A.STATUE_RELEASE]


def test_greedy_games_with_random_moves_and_cancels_stay_legal():
    """The greedy bot never names a CANCEL the spent budget forbids (it did in RELEASE and in an
    adventure left with no step: 4 players, teams, seed 9 below), and its games, with random
    moves mixed in, never meet a decision without a move or a turn over its bound."""
    from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
    for n, options, seeds in ((4, {"teams": True}, [9]), (2, {}, [0, 1]), (2, {"abbey": True}, [2])):
        bots = [FantastiqaGreedyAgent(seed=p) for p in range(n)]

        def greedy(s, rng):
            if rng.random() < 0.2:
                return int(s.legal_actions()[rng.integers(s.legal_actions().size)])
            return bots[s.cur].act(None, None, state=s, seat=s.cur)

        for seed in seeds:
            out = fuzz_game(n, seed, options, cancel_rate=0.1, turn_limit=30, choose=greedy)
            assert 0 < out["longest_turn"] <= out["its_bound"]


def test_the_search_finds_the_mark_loop_with_mark_return_allow():
    """Q-T2's bound needs Q-F2's mark_return="forbid" too: with "allow" the search finds a cycle of
    free actions only (FREE_ACTION, MARK), no CANCEL in it, under turn_loops="forbid"."""
    cycles = []
    for s in sample_states(2, 5, 4, rate=0.02, mark_return="allow"):
        r = search_turn(without_tokens(s), max_states=300)
        if r.cycle is not None:
            cycles.append(r.cycle)
    assert cycles and all(A.CANCEL not in c and set(c) <= {A.FREE_ACTION, A.MARK, A.MARK + 1} for c in cycles)
