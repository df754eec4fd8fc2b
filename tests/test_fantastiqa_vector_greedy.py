"""fantastiqa_rl.vector_greedy: FantastiqaVector.greedy_actions' numba port of the greedy bot.

At every step of greedy-vs-greedy and greedy-vs-random games (2-4 players, both goals, the Abbey,
teams, option values, a card file with wild pairs) the batch's move equals the scalar bot's
(`make_agent("fantastiqa", "greedy")`, one per game and seat, deciding in every position, so its
memory evolves as the batch's does); the kernel actually decides (counts); finished games give
-1; only the bot class itself gets the kernel; and the move never depends on another seat's hand
or any deck order (with a control that the check does catch a dependence).
"""
import numpy as np
import pytest

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_greedy as VG
from fantastiqa_rl.vector import FantastiqaVector
from tabletop_rl.agents import make_agent
from tabletop_rl.agents import fantastiqa_greedy as greedy_module
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent, _distances
from tests.fantastiqa_helpers import reorder_decks, swap_hidden
from tests.fantastiqa_vector_helpers import TURN_LIMIT, make, standin_variant

# (num_players, goal, options, greedy seats): None: every seat greedy, else the others play at random
CONFIGS = [
    (2, "short", {}, None), (2, "short", {}, (0,)), (3, "long", {}, (1,)), (4, "short", {}, None),
    (3, "short", {"abbey": True}, None), (4, "short", {"teams": True}, (0, 1)),
    (4, "long", {"teams": True, "abbey": True}, None), (2, "short", {"card_use": "both"}, None),
    (2, "short", {"bought_to": "hand", "adventure_path": "loops"}, None),
    (3, "short", {"fly_in_adventure": False, "draw_rule": "draw_5", "mark_return": "allow"}, (0, 2)),
]
GAMES = 10


def play(num_players, goal, options, greedy_seats, seeds, rng):
    """Play the games; at every step every game's batched move must equal its scalar bot's. Returns
    the vector and the number of moves compared."""
    v, refs = make(num_players, goal, dict(options, turn_limit=TURN_LIMIT), seeds)
    bots = [[make_agent("fantastiqa", "greedy") for _ in range(num_players)] for _ in seeds]
    compared = 0
    while not v.terminated.all():
        got = v.greedy_actions()
        moves = got.copy()
        for i, s in enumerate(refs):
            if s.is_terminal():
                assert got[i] == -1
                continue
            want = bots[i][s.cur].act(None, None, state=s, seat=s.cur)
            assert got[i] == want, (i, s.cur, s.phase_name, got[i], want)
            compared += 1
            if greedy_seats is not None and s.cur not in greedy_seats:
                legal = s.legal_actions()
                moves[i] = legal[rng.integers(legal.size)]
        v.step(moves)
        for i, s in enumerate(refs):
            if not s.is_terminal():
                s.apply(int(moves[i]))
    assert all(s.is_terminal() for s in refs)
    return v, compared


def phase_counts(v, name) -> dict:
    return {A.PHASES[j]: int(x) for j, x in enumerate(v.phase_counts[name]) if x}


@pytest.mark.parametrize("num_players,goal,options,greedy_seats", CONFIGS,
                         ids=[f"{n}p-{g}-{o}-{s}" for n, g, o, s in CONFIGS])
def test_the_batched_move_is_the_bots_at_every_step(num_players, goal, options, greedy_seats):
    seeds = np.arange(GAMES) + 300 + 10 * num_players + len(options)
    v, compared = play(num_players, goal, options, greedy_seats, seeds, np.random.default_rng(num_players))
    assert compared > 200
    fast, slow = phase_counts(v, "kernel_greedy"), phase_counts(v, "fallback_greedy")
    assert v.counts["kernel_greedy"] + v.counts["fallback_greedy"] == compared
    # the kernel decides all but (rarely) a Glass trial the step kernel declines (the Bell)
    assert set(slow) <= {"MAIN", "FREE_MENU"} and sum(slow.values()) <= compared // 100, slow
    if options.get("abbey"):
        assert fast["ABBEY_CHOICE"] > 5 and fast["ABBEY_MATCH"] > 5 and fast["FREE_MENU"] > 20, fast
    assert fast["MAIN"] > 50 and fast["END_DISCARD"] > 50 and fast["ADV_PAY"] > 20, fast


def wild_card_file(tmp_path) -> str:
    """The STAND-IN set with Curious-Companion-style wild pairs on other items than the kernel tests'
    (a payment and the bot's symbol counts use either symbol) and one creature fewer."""
    def edit(d):
        wild = {"Pail": ["WATER", "TOOTH"], "Broom": ["BROOM", "NET"], "Bat": ["BAT", "FIRE"]}
        for card in d["card"]:
            if card["name"] in wild:
                card["symbols"] = wild[card["name"]]
        d["card"].remove(next(c for c in d["card"] if c["type"] == "creature"))
    return standin_variant(tmp_path, "greedy wilds", edit)


def test_a_card_file_with_wild_pairs(tmp_path):
    path = wild_card_file(tmp_path)
    v, compared = play(2, "short", {"card_use": "both", "card_set": path}, None, np.arange(GAMES) + 70,
                       np.random.default_rng(1))
    assert v.card_set == path and compared > 200 and v.counts["fallback_greedy"] == 0
    g = v.state(0).g
    assert sum(p is not None and p[0] != p[1] for p in g.K_PROFILE) >= 3


def test_the_glass_tried_on_row_copies_decides_like_the_bot():
    # the STAND-IN starting artifacts double a card: greedy games play the Glass, chosen by the trial
    v, _ = play(2, "short", {}, None, np.arange(12) + 500, np.random.default_rng(2))
    fast = phase_counts(v, "kernel_greedy")
    assert fast.get("GLASS", 0) >= 5, fast


def test_finished_games_give_minus_one_and_unchosen_games_too():
    v, _ = make(2, "short", {"turn_limit": 2}, np.arange(4))
    want = np.array([True, False, True, True])
    got = v.greedy_actions(want)
    assert got[1] == -1 and (got[want] >= 0).all()
    while not v.terminated[0]:
        v.step(v.greedy_actions())
    got = v.greedy_actions()
    assert (got[v.terminated] == -1).all() and (got[~v.terminated] >= 0).all()


def test_only_the_bot_class_itself_gets_the_kernel():
    class Mine(FantastiqaGreedyAgent):     # a subclass may change the policy: it keeps the scalar bot
        pass

    assert VG.ports(FantastiqaGreedyAgent) is True
    assert VG.ports(Mine) is False and VG.ports(lambda: FantastiqaGreedyAgent()) is False
    assert VG.ports(make_agent("fantastiqa", "greedy")) is False      # an instance is no factory
    seeds = np.arange(4) + 9
    batched, _ = make(2, "short", {"turn_limit": 3}, seeds)
    scalar = FantastiqaVector(4, 2, greedy=Mine, turn_limit=3)
    scalar.reset(seeds)
    while not batched.terminated.all():
        a, b = batched.greedy_actions(), scalar.greedy_actions()
        assert np.array_equal(a, b)
        batched.step(a)
        scalar.step(b)
    assert scalar.counts["kernel_greedy"] == 0 and scalar.counts["fallback_greedy"] > 100
    assert batched.counts["kernel_greedy"] > 100 and batched.counts["fallback_greedy"] == 0


def test_the_board_distances_and_effect_lists_are_the_bots():
    assert VG.distances().tolist() == _distances()
    assert VG.GOOD_EFFECTS == greedy_module.GOOD_EFFECTS      # the kernel's copies of the bot's lists


def test_greedy_actions_needs_the_bot_with_the_kernel_too():
    v = FantastiqaVector(2)
    v.reset([0, 1])
    with pytest.raises(ValueError, match="greedy=FantastiqaGreedyAgent"):
        v.greedy_actions()


def sampled_states(num_players, seeds, every=7):
    """Non-setup positions along greedy games."""
    out = []
    for seed in seeds:
        v, refs = make(num_players, "short", {"turn_limit": 6}, [seed])
        s, step = refs[0], 0
        while not s.is_terminal():
            if step % every == 0 and s.phase not in (A.SETUP_QUEST, A.SETUP_ARTIFACT, A.SETUP_PLACE):
                out.append(s.clone())
            a = int(v.greedy_actions()[0])
            v.step(np.array([a]))
            s.apply(a)
            step += 1
    return out


def moves_of(states, num_players):
    v = FantastiqaVector(len(states), num_players, greedy=FantastiqaGreedyAgent, turn_limit=6)
    for i, s in enumerate(states):
        v.set_state(i, s)
    got = v.greedy_actions()
    assert v.counts["fallback_greedy"] == 0
    return got


@pytest.mark.parametrize("num_players", [2, 3])
def test_the_move_ignores_other_hands_and_every_deck_order(num_players):
    rng = np.random.default_rng(num_players)
    states = sampled_states(num_players, [21, 22])
    assert len(states) > 40
    base = moves_of(states, num_players)
    for o in range(num_players):
        others = [swap_hidden(s, o, rng) if o != s.cur else reorder_decks(s, rng) for s in states]
        assert np.array_equal(moves_of(others, num_players), base), o
    # control: the mover's own hidden cards do change its moves, so the comparison can fail
    own = [swap_hidden(s, s.cur, rng) for s in states]
    assert (moves_of(own, num_players) != base).sum() >= 3
