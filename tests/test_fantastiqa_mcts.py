"""The Fantastiqa MCTS (`tabletop_rl.agents.fantastiqa_mcts`): legal, reproducible, blind to other
seats' hands and every deck order (Q-I1), stronger than random, its knobs validated."""
from __future__ import annotations

import numpy as np
import pytest

from fantastiqa_rl import actions as A
from fantastiqa_rl.observation import action_mask
from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.agents import make_agent
from tabletop_rl.agents.fantastiqa_mcts import FantastiqaMCTSAgent, fantastiqa_evaluate
from tabletop_rl.agents.match import play_game
from tabletop_rl.envs.registry import get_game
from tests.fantastiqa_helpers import greedy_position, own_hand_swaps, random_state, reorder_decks, swap_hidden

SPEC = get_game("fantastiqa")
SMALL = dict(iterations=6, horizon=1)  # the tests' budget: the defaults' code paths, less work


def _act(bot, s):
    seat = s.current_player
    return bot.act(None, action_mask(s, seat), state=s, seat=seat)


def test_registered_with_fantastiqa_knowledge():
    bot = make_agent("fantastiqa", "mcts", seed=0)
    assert isinstance(bot, FantastiqaMCTSAgent) and bot.evaluate is fantastiqa_evaluate
    assert bot.iterations == 24 and bot.horizon == 2 and bot.paired and bot.margin == 0.03


@pytest.mark.parametrize("paired", [True, False])
@pytest.mark.parametrize("seed,plies", [(0, 30), (1, 80), (2, 150), (3, 260)])
def test_plays_legal_moves_and_same_seed_same_move(seed, plies, paired):
    s = greedy_position(seed, plies)
    before = s.to_dict()
    moves = [_act(make_agent("fantastiqa", "mcts", seed=5, paired=paired, **SMALL), s) for _ in range(2)]
    assert moves[0] == moves[1] and action_mask(s, s.current_player)[moves[0]]
    assert s.to_dict() == before  # the search works on determinizations, never on the state
    bot = make_agent("fantastiqa", "mcts", seed=5, paired=paired, **SMALL)
    assert _act(bot, s) == moves[0] and 0 < bot.last_iterations <= max(SMALL["iterations"], 4)


def test_margin_keeps_the_greedy_move_and_zero_margin_lets_the_search_decide():
    """With margin 1.99 (values lie in [-1, 1]: only a sure win against a sure loss would pass it)
    the bot plays the greedy move here; with margin 0 it departs from it somewhere on these
    positions (so the search matters)."""
    greedy = make_agent("fantastiqa", "greedy", seed=0)
    departed = 0
    for seed, plies in ((0, 30), (1, 80), (2, 150), (3, 260), (6, 40), (7, 90)):
        s = greedy_position(seed, plies)
        g = _act(greedy, s)
        assert _act(make_agent("fantastiqa", "mcts", seed=1, margin=1.99, **SMALL), s) == g
        departed += _act(make_agent("fantastiqa", "mcts", seed=1, margin=0.0, **SMALL), s) != g
    assert departed > 0


def test_time_limit_runs_and_is_legal():
    s = greedy_position(2, 100)
    bot = make_agent("fantastiqa", "mcts", seed=0, time_limit=0.05, horizon=1)
    assert action_mask(s, s.current_player)[_act(bot, s)] and bot.last_iterations >= 2


def test_searches_only_the_chosen_decisions_and_forced_ones_never():
    s = greedy_position(4, 40)
    bot = make_agent("fantastiqa", "mcts", seed=0, **SMALL)
    move = _act(bot, s)
    assert bot.last_iterations > 0
    # the moves it compared (a teacher's choice set): greedy's first, the move among them, each legal
    greedy = make_agent("fantastiqa", "greedy", seed=0)
    cands = bot.last_candidates
    assert cands[0] == _act(greedy, s) and move in cands and 2 <= len(set(cands)) == len(cands) <= 4
    assert action_mask(s, s.current_player)[cands].all()
    assert set(bot.last_gains) == set(cands) and bot.last_gains[cands[0]] == 0.0, "each one's gain over greedy's"
    other = [x for x in A.PHASES if x not in ("TERMINAL", s.phase_name)]
    bot.search_phases = make_agent("fantastiqa", "mcts", seed=0, search_phases="+".join(other)).search_phases
    assert _act(bot, s) == _act(greedy, s) and bot.last_iterations == 0 and bot.last_candidates is None and bot.last_gains is None
    # one legal action: played at once
    s = FantastiqaState.new(2, seed=3)
    greedy = [make_agent("fantastiqa", "greedy", seed=i) for i in range(2)]
    while s.legal_actions().size != 1:
        s.apply(greedy[s.current_player].act(None, None, state=s, seat=s.current_player))
    bot = make_agent("fantastiqa", "mcts", seed=0, search_phases=A.PHASES[s.phase], **SMALL)
    assert _act(bot, s) == int(s.legal_actions()[0]) and bot.last_iterations == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_decision_ignores_other_hands_and_deck_orders(seed):
    """Q-I1: change only what the seat to move cannot know; the same seed gives the same move."""
    s = greedy_position(seed + 10, 60 + 45 * seed)
    seat = s.current_player
    rng = np.random.default_rng(seed)
    move = _act(make_agent("fantastiqa", "mcts", seed=3, **SMALL), s)
    for t in (swap_hidden(s, 1 - seat, rng), reorder_decks(s, rng)):
        assert _act(make_agent("fantastiqa", "mcts", seed=3, **SMALL), t) == move


def test_own_hand_change_changes_the_decision_control():
    """Control for the test above (so it can fail): the same swap on the seat's OWN hand, which
    it does see, changes its move somewhere."""
    changed = 0
    for s, _, t in own_hand_swaps(8):   # 8 positions since Q-T2 (issue 25) changed play: the 4 before showed no change
        changed += _act(make_agent("fantastiqa", "mcts", seed=3, **SMALL), t) != \
            _act(make_agent("fantastiqa", "mcts", seed=3, **SMALL), s)
    assert changed > 0


def test_evaluation_is_a_bounded_margin():
    s = greedy_position(5, 120)
    v = fantastiqa_evaluate(s)
    assert len(v) == 2 and all(-1 < x < 1 for x in v) and v[0] == pytest.approx(-v[1])
    t = s.clone()
    t.scores[0] += 3  # three more quest points for seat 0: better for seat 0
    assert fantastiqa_evaluate(t)[0] > v[0]
    for n, opts in ((3, {}), (4, {"teams": True})):
        s = random_state(7, 150, n, **opts)
        v = fantastiqa_evaluate(s)
        assert len(v) == n and all(-1 < x < 1 for x in v)
        if opts:
            assert v[0] == v[2] and v[1] == v[3]  # Q-TM4: partners share one value


def test_beats_random_in_a_small_match():
    wins = 0
    for seed, seats in ((0, ("mcts", "random")), (0, ("random", "mcts"))):
        bots = [make_agent("fantastiqa", name, seed=seed, **(SMALL if name == "mcts" else {})) for name in seats]
        res = play_game(SPEC, bots, seed=seed)
        wins += seats.index("mcts") in res.winners
    assert wins == 2


@pytest.mark.parametrize("kwargs, words", [
    ({"iterations": 0}, "iterations"), ({"horizon": 0}, "horizon"), ({"horizon": 1.5}, "horizon"),
    ({"max_rollout_steps": True}, "max_rollout_steps"), ({"search_phases": "MAIN+NOPE"}, "unknown decision"),
    ({"search_phases": ""}, "at least one"), ({"search_phases": ["TERMINAL"]}, "unknown decision"),
    ({"search_phases": 3}, "phase names"), ({"widen": 0}, "widen"), ({"c": -1}, "c must"),
    ({"margin": -0.1}, "margin"), ({"margin": 2}, "margin"), ({"margin": "0.1"}, "margin"),
    ({"paired": "yes"}, "paired"), ({"max_candidates": 1}, "max_candidates"), ({"time_limit": 0}, "time_limit"),
])
def test_bad_knobs_name_the_problem(kwargs, words):
    with pytest.raises(ValueError, match=words):
        make_agent("fantastiqa", "mcts", seed=0, **kwargs)


def test_arena_form_of_the_knobs():
    from tabletop_rl.agents.arena import parse_agent

    name, kwargs = parse_agent("mcts:iterations=8,horizon=3,search_phases=MAIN+BUY")
    bot = make_agent("fantastiqa", name, seed=0, **kwargs)
    assert bot.iterations == 8 and bot.horizon == 3 and bot.search_phases == {A.MAIN, A.BUY}
