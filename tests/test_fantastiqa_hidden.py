"""Q-I1: an agent's observation, mask and renders never reveal another player's hand or any deck order.

Each test changes only what seat i may not know (another seat's hand/deck split, a deck's order,
another seat's drawn statue cards) and checks that seat i's view is unchanged; the control tests
change what seat i does know and check that the view changes (so the tests can fail).
"""
import numpy as np
import pytest

from fantastiqa_rl import actions as A
from fantastiqa_rl.observation import action_mask, observation_layout, observe
from fantastiqa_rl.render import render_rgb, render_text
from tests.fantastiqa_helpers import edited, random_state, reorder_decks, swap_hidden


def states(n, count=12):
    out = []
    for seed in range(count):
        s = random_state(seed, 40 + 97 * seed, n)
        if not s.is_terminal():
            out.append(s)
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_observation_ignores_other_hands_and_every_deck_order(n):
    rng = np.random.default_rng(n)
    changed = 0
    for s in states(n, count=16):
        for seat in range(n):
            base, mask = observe(s, seat), action_mask(s, seat)
            for p in range(n):
                t = swap_hidden(s, p, rng) if p != seat else reorder_decks(s, rng)
                if p != seat and sorted(t.hand[p]) != sorted(s.hand[p]):
                    changed += 1
                assert (observe(t, seat) == base).all(), (seat, p, s.phase_name)
                assert (action_mask(t, seat) == mask).all()
            t = reorder_decks(s, rng)
            assert (observe(t, seat) == base).all()
    assert changed > 20  # the swaps did change hidden hands


def test_control_own_hand_and_public_changes_are_visible():
    rng = np.random.default_rng(0)
    seen = 0
    for s in states(3):
        for seat in range(3):
            t = swap_hidden(s, seat, rng)
            if sorted(s.g.I_HAND_KIND[i] for i in t.hand[seat]) != sorted(s.g.I_HAND_KIND[i] for i in s.hand[seat]):
                assert not (observe(t, seat) == observe(s, seat)).all()
                seen += 1
        t = s.clone()
        t.gems[1] += 1
        assert not (observe(t, 0) == observe(s, 0)).all()
    assert seen > 5


def test_drawn_statue_cards_are_seen_by_the_drawer_only():
    found = 0
    for seed in range(60):
        s = random_state(seed, 4000, 3, stop=lambda x: x.phase == A.BUY and len(x.revealed) >= 2)
        if s.phase != A.BUY:
            continue
        found += 1
        cur = s.current_player
        lay = observation_layout()
        assert observe(s, cur)[lay["drawn_cards"]].sum() == len(s.revealed)
        # Swap the drawn cards with cards still in the statue deck: others cannot tell.
        name = ("artifact_deck", "beast_deck", "quest_deck")[s.statue_at[s.position[cur]]]
        deck = getattr(s, name)
        if not deck:
            continue
        t = s.clone()
        k = min(len(deck), len(s.revealed))
        new_deck = list(deck)
        t.revealed, new_deck[:k] = new_deck[:k], list(s.revealed[:k]) + []
        t.revealed = t.revealed + list(s.revealed[k:])
        setattr(t, name, new_deck)
        edited(t)
        for seat in range(3):
            if seat != cur:
                assert observe(s, seat)[lay["drawn_cards"]].sum() == 0
                assert (observe(t, seat) == observe(s, seat)).all()
        if sorted(s.g.I_HAND_KIND[i] for i in t.revealed) != sorted(s.g.I_HAND_KIND[i] for i in s.revealed):
            assert not (observe(t, cur) == observe(s, cur)).all()
        if found >= 6:
            break
    assert found >= 3


def test_non_movers_get_an_all_zero_mask():
    for n in (2, 4):
        for s in states(n, 6):
            for seat in range(n):
                m = action_mask(s, seat)
                assert m.dtype == np.int8 and m.shape == (s.num_actions,)
                assert m.any() == (seat == s.current_player)
                if seat == s.current_player:
                    assert (np.flatnonzero(m) == s.legal_actions()).all()


def test_renders_hide_other_hands_and_deck_orders():
    rng = np.random.default_rng(3)
    for s in states(3, 3):
        img = render_rgb(s)
        for seat in range(3):
            text = render_text(s, seat=seat)
            for p in range(3):
                if p == seat:
                    continue
                t = reorder_decks(swap_hidden(s, p, rng), rng)
                assert render_text(t, seat=seat) == text
                assert (render_rgb(t) == img).all()
