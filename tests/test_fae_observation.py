"""The observation encoder: layout, bounds and the derived isolation features."""
import numpy as np
import pytest

import fae_rl
from fae_rl.board import MOVE_SRC, NEIGHBOURS
from fae_rl.observation import observation_high, observation_layout
from tests.fae_helpers import random_state


@pytest.mark.parametrize("history", ["summary", "none"])
def test_layout_tiles_the_vector_and_values_stay_in_bounds(history):
    layout = observation_layout(history)
    spans = sorted((s.start, s.stop) for s in layout.values())
    assert spans[0][0] == 0 and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert spans[-1][1] == fae_rl.observation_size(history)
    high = observation_high(history)
    for seed in range(30):
        s = random_state(seed, seed * 2, 2 + seed % 3)
        for seat in range(s.num_players):
            o = fae_rl.observe(s, seat, history)
            assert o.dtype == np.float32 and (o >= 0).all() and (o <= high).all()


def test_isolates_if_moved_predicts_the_rituals_a_move_triggers():
    # F-R1: the feature of a source space = spaces isolated by moving its stack, whatever the destination.
    layout = observation_layout()
    checked = 0
    for seed in range(120):
        s = random_state(seed, seed % 45, 2)
        if s.is_terminal() or s.pending:
            continue
        o = fae_rl.observe(s, 0)
        iso = np.rint(o[layout["isolates_if_moved"]] * 6).astype(int)
        nb = np.rint(o[layout["occupied_neighbours"]] * 6).astype(int)
        counts = s.counts()
        assert nb.tolist() == [sum(counts[m] > 0 for m in NEIGHBOURS[i]) for i in range(60)]
        for a in s.legal_actions():
            t = s.clone()
            t.apply(int(a))
            if not t.is_terminal():
                assert iso[MOVE_SRC[a]] == t.cards_used - s.cards_used + len(t.pending)
                checked += 1
    assert checked > 1000
