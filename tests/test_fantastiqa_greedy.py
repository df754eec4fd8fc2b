"""The greedy Fantastiqa bot: legal, deterministic, uses only its seat's knowledge, and plays
better than random."""
import numpy as np
import pytest

from tabletop_rl.agents.base import RandomAgent
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
from tabletop_rl.agents.registry import make_agent
from fantastiqa_rl import FantastiqaState


def mask_of(s):
    m = np.zeros(s.num_actions, dtype=bool)
    m[s.legal_actions()] = True
    return m


def play(s, agents, turn_cap=100):
    while not s.is_terminal() and s.turns < turn_cap * s.n:
        a = agents[s.cur].act(None, mask_of(s), state=s, seat=s.cur)
        assert a in s.legal_set()
        s.apply(a)
    return s


def test_registered_and_needs_state():
    a = make_agent("fantastiqa", "greedy", seed=0)
    assert isinstance(a, FantastiqaGreedyAgent) and a.uses_state and a.name == "greedy"
    with pytest.raises(ValueError):
        a.act(None, np.ones(5, dtype=bool))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_greedy_games_end_by_the_rules(n):
    ended = 0
    for seed in range(6):
        s = play(FantastiqaState.new(n, seed=seed), [FantastiqaGreedyAgent(i) for i in range(n)])
        ended += s.is_terminal()
    assert ended >= 4


def test_greedy_is_deterministic():
    runs = [play(FantastiqaState.new(3, seed=4), [FantastiqaGreedyAgent(i) for i in range(3)]).to_dict()
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_greedy_beats_random():
    wins = 0
    games = 12
    for seed in range(games):
        g = seed % 2                                  # seat-rotated
        agents = [None, None]
        agents[g] = FantastiqaGreedyAgent(seed)
        agents[1 - g] = RandomAgent(seed)
        s = play(FantastiqaState.new(2, seed=seed), agents, turn_cap=150)
        wins += g in s.winners() and len(s.winners()) == 1
    assert wins >= 9


def test_Q_I1_greedy_ignores_hidden_information():
    """Its action does not change when other seats' hands and decks are exchanged (same counts)
    or when any deck, its own included, is reordered."""
    rng = np.random.default_rng(1)
    compared = 0
    for seed in range(12):
        s = FantastiqaState.new(3, seed=seed)
        agents = [FantastiqaGreedyAgent(i) for i in range(3)]
        for _ in range(int(rng.integers(20, 400))):
            if s.is_terminal():
                break
            s.apply(agents[s.cur].act(None, mask_of(s), state=s, seat=s.cur))
        if s.is_terminal():
            continue
        me = s.cur
        t = s.clone()
        for p in range(3):
            if p != me:
                pool = t.hand[p] + t.deck[p]
                rng.shuffle(pool)
                t.hand[p], t.deck[p] = pool[:len(t.hand[p])], pool[len(t.hand[p]):]
            rng.shuffle(t.deck[p])
        for d in (t.cdeck, t.adeck, t.bdeck, t.qdeck):
            rng.shuffle(d)
        t._legal = None
        a1 = FantastiqaGreedyAgent(0).act(None, mask_of(s), state=s, seat=me)
        a2 = FantastiqaGreedyAgent(0).act(None, mask_of(t), state=t, seat=me)
        assert a1 == a2
        compared += 1
    assert compared >= 8
