"""The greedy Fantastiqa bot: legal, deterministic, uses only its seat's knowledge, and plays
better than random."""
import json
import tomllib

import numpy as np
import pytest

from tabletop_rl.agents.base import RandomAgent
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
from tabletop_rl.agents.registry import make_agent
from fantastiqa_rl import STANDIN_PATH, FantastiqaState
from fantastiqa_rl import actions as A
from tests.fantastiqa_helpers import edited


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
        s = play(FantastiqaState.new(n, seed=seed, turn_limit=None), [FantastiqaGreedyAgent(i) for i in range(n)])
        ended += s.is_terminal()                      # by the rulebook's own ends (no Q-E5 limit)
    assert ended >= 4


def old_supply_card_file(tmp_path):
    """The STAND-IN file with the supplies it had before issue 15 (80 gems, 24 carpets, 24
    reshuffle tokens, 8 Peaceful Dragons in the supply) and its old starting artifacts (only the
    Looking Glass doubled a card): the setting of the recorded livelock."""
    d = tomllib.load(open(STANDIN_PATH, "rb"))
    d["supply"].update(gems=80, carpets=24, reshuffles=24)
    for c in d["card"]:
        if c["name"] in ("Rogue's Purse", "Bell of Summoning"):
            c["effects"] = [e for e in c["effects"] if e != "double_symbols"]
        if c["name"] in ("Dog", "Peaceful Dragon"):
            del c["total"]
        if c["name"] == "Peaceful Dragon":
            c["supply"] = 8
    p = tmp_path / "old_supply.json"
    p.write_text(json.dumps(d))
    return str(p)


def test_Q_E5_the_greedy_livelock_now_ends_and_a_stalled_game_ends_at_the_turn_limit(tmp_path):
    """Issue 15's livelock: greedy vs greedy, Abbey, seed 1069, 2 players (old supplies, old
    starting artifacts, strict fly reading): both bots drew at statues every turn, one hoarded the
    gems, nobody subdued, so the creature deck never ran out. The greedy bot now plays its Looking
    Glass to complete quests, and that game ends by the goal without any limit.

    A game nobody moves forward (every seat ends its turn at once: no subdue, no quest, so no
    rulebook end ever comes) still runs after 150 turns per player without a limit; under the
    default Q-E5 limit it ends at 100, terminal, scored with the tie-breaks (Q-E4: a shared win)."""
    path = old_supply_card_file(tmp_path)
    opts = dict(card_set=path, abbey=True, fly_in_adventure=False)
    bots = [FantastiqaGreedyAgent(10690 + i) for i in range(2)]
    s = play(FantastiqaState.new(2, seed=1069, turn_limit=None, **opts), bots, turn_cap=150)
    assert s.is_terminal() and s.end_reason == "goal"

    class Stall:
        def act(self, observation, action_mask, *, state=None, seat=None):
            legal = np.flatnonzero(action_mask)
            return A.DONE if A.DONE in legal else int(legal[0])

    s = play(FantastiqaState.new(2, seed=1069, turn_limit=None), [Stall(), Stall()], turn_cap=150)
    assert not s.is_terminal() and s.turns == 300 and s.scores == [0, 0]
    s = play(FantastiqaState.new(2, seed=1069), [Stall(), Stall()], turn_cap=150)
    assert s.is_terminal() and s.end_reason == "turn_limit" and s.turns == 200
    assert sorted(s.winners()) == [0, 1] and list(s.returns()) == [0.0, 0.0]


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
        for d in (t.creature_deck, t.artifact_deck, t.beast_deck, t.quest_deck):
            rng.shuffle(d)
        edited(t)
        a1 = FantastiqaGreedyAgent(0).act(None, mask_of(s), state=s, seat=me)
        a2 = FantastiqaGreedyAgent(0).act(None, mask_of(t), state=t, seat=me)
        assert a1 == a2
        compared += 1
    assert compared >= 8


def test_Q_F1_greedy_plays_the_looking_glass_to_complete_a_quest():
    """The bot used to pick the Looking Glass at setup (its first choice) and never play it. Now
    it plays the Glass when doubling a hand card lets it complete a quest this turn, and then
    completes one in the same turn."""
    glass_turns = completed = 0
    for seed in range(6):
        s = FantastiqaState.new(2, seed=seed)
        bots = [FantastiqaGreedyAgent(seed * 10 + i) for i in range(2)]
        watch = None                                  # (seat, turn, score) after a Glass was played
        while not s.is_terminal():
            p = s.cur
            if s.phase == A.GLASS:
                glass_turns += 1
                watch = (p, s.turns, s.scores[p])
            s.apply(bots[p].act(None, mask_of(s), state=s, seat=p))
            if watch and s.turns != watch[1]:         # the turn ended: was a quest completed in it?
                completed += s.scores[watch[0]] > watch[2] or (s.is_terminal() and watch[0] in s.winners())
                watch = None
        if watch:
            completed += s.scores[watch[0]] > watch[2]
    assert glass_turns >= 3
    assert completed == glass_turns
