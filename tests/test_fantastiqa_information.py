"""information_state / sample_consistent (determinizations for IS-MCTS), and the arena and MCTS on
Fantastiqa."""
import numpy as np
import pytest

import fantastiqa_rl.spec  # noqa: F401  (attaches the methods, registers the game and its bots)
from tabletop_rl.agents import make_agent
from fantastiqa_rl import actions as A
from fantastiqa_rl.debug import check_conservation
from fantastiqa_rl.information import information_state, sample_consistent
from fantastiqa_rl.observation import action_mask, observe
from tests.fantastiqa_helpers import random_state, swap_hidden

# Private field (why not public): _rngs is replaced to show a sample does not depend on the real generators.


def sample_states():
    out = []
    for seed in range(10):
        n = 2 + seed % 3
        s = random_state(seed, 30 + 131 * seed, n)
        if not s.is_terminal():
            out.append(s)
    # A state where the mover has drawn statue cards (hidden from the others).
    for seed in range(40):
        s = random_state(seed, 4000, 3, stop=lambda x: x.phase in (A.BUY, A.CHEST) and len(x.revealed) >= 2)
        if s.phase in (A.BUY, A.CHEST):
            out.append(s)
            break
    return out


def test_methods_are_attached():
    s = random_state(0, 50, 2)
    assert s.information_state(0) == information_state(s, 0)
    assert s.sample_consistent(1, np.random.default_rng(0)).to_dict() == \
        sample_consistent(s, 1, np.random.default_rng(0)).to_dict()


def test_samples_keep_the_seat_knowledge_and_the_original():
    rng = np.random.default_rng(0)
    for s in sample_states():
        before = s.to_dict()
        for seat in range(s.n):
            info = information_state(s, seat)
            obs, mask = observe(s, seat), action_mask(s, seat)
            for _ in range(2):
                d = sample_consistent(s, seat, rng)
                assert information_state(d, seat) == info
                assert (observe(d, seat) == obs).all() and (action_mask(d, seat) == mask).all()
                check_conservation(d)
        assert s.to_dict() == before  # the real state is untouched


def test_samples_vary_the_hidden_parts():
    # a random position where every hidden part has room to vary (own deck of 4+ cards, seat 1's
    # hand of 3+ and deck of 3+)
    s = next(s for steps in range(400, 2000, 50) for s in [random_state(3, steps, 3)]
             if not s.is_terminal() and len(s.deck[0]) >= 4 and len(s.hand[1]) >= 3
             and len(s.deck[1]) >= 3)
    rng = np.random.default_rng(1)
    hands, decks, cdecks = set(), set(), set()
    for _ in range(40):
        d = sample_consistent(s, 0, rng)
        hands.add(tuple(sorted(d.hand[1])))
        decks.add(tuple(d.deck[0]))
        cdecks.add(tuple(d.creature_deck))
        assert sorted(d.hand[0]) == sorted(s.hand[0])  # own hand is known
        assert sorted(d.hand[1] + d.deck[1]) == sorted(s.hand[1] + s.deck[1])
    assert len(hands) > 10 and len(decks) > 10 and len(cdecks) > 10


def test_samples_never_read_hidden_state():
    """States that differ only where the seat cannot see give identical samples for one rng seed;
    the chance generators are re-seeded (the sample's future reshuffles are not the real ones)."""
    rng = np.random.default_rng(2)
    for s in sample_states():
        for seat in range(s.n):
            t = s.clone()
            for p in range(s.n):
                if p != seat:
                    t = swap_hidden(t, p, rng)
            rng.shuffle(t.deck[seat])
            cur = s.current_player
            if cur != seat and t.phase in (A.BUY, A.CHEST) and t.revealed:
                # another seat's drawn cards: exchange one with a card still in its statue deck
                name = ("artifact_deck", "beast_deck", "quest_deck")[t.statue_at[t.position[cur]]]
                deck = list(getattr(t, name))
                if deck:
                    t.revealed = [deck[0]] + t.revealed[1:]
                    deck[0] = s.revealed[0]
                    setattr(t, name, deck)
            for name in ("artifact_deck", "beast_deck", "quest_deck"):
                rng.shuffle(getattr(t, name))
            t._rngs = [np.random.Generator(np.random.PCG64(99)) for _ in t._rngs]
            a = sample_consistent(s, seat, np.random.default_rng(5)).to_dict()
            b = sample_consistent(t, seat, np.random.default_rng(5)).to_dict()
            assert a == b
            assert a["rng"] != s.to_dict()["rng"]


def test_samples_play_on_to_the_end():
    rng = np.random.default_rng(4)
    for s in sample_states()[:3]:
        d = sample_consistent(s, (s.current_player + 1) % s.n, rng)
        for _ in range(1500):
            if d.is_terminal():
                break
            legal = d.legal_actions()
            assert legal.size > 0
            d.apply(int(legal[rng.integers(legal.size)]))
        check_conservation(d)


def test_mcts_plays_legal_moves_reproducibly():
    for s in sample_states()[:3]:
        seat = s.current_player
        mask = action_mask(s, seat)
        moves = []
        for _ in range(2):
            bot = make_agent("fantastiqa", "mcts", seed=7, iterations=15, horizon=1)
            moves.append(bot.act(observe(s, seat), mask, state=s, seat=seat))
        assert moves[0] == moves[1] and mask[moves[0]]


def test_arena_runs_fantastiqa():
    from tabletop_rl.agents.arena import ArenaConfig, run_arena

    res = run_arena(ArenaConfig(game="fantastiqa", agents=["greedy", "random"], games=4, workers=1, seed=1),
                    write=False, plot=False, quiet=True)
    bots = {b["bot"]: b for b in res["summary"]["bots"]}
    assert bots["greedy"]["games"] == 4 and res["summary"]["games"] == 4
    assert bots["greedy"]["win_share"] + bots["random"]["win_share"] == pytest.approx(1.0)
