"""`FaeVector.set_state` / `FantastiqaVector.set_state` range-check a state object before writing it
into a row (issue 36, item 7): a state changed by hand (seat 9, a pending space of 200, phase 99, a
card id past the card file) was written, and the kernels then indexed past a table or wrote into the
next block of the row. A FaeState is one row of FaeVector's layout (issue 38), so its tampered
fields are written into its own rows here. Refused with a ValueError, nothing changes; the untouched
state (the control) still loads."""
from __future__ import annotations

import numpy as np
import pytest

from fae_rl import FaeState
from fae_rl.vector import FaeVector
from fae_rl.vector_core import (B_COUNT, B_MOVE_OK, B_PENDING, B_RESOLVED, W_CARDS, W_COLOURS, W_CURRENT, W_LAST,
                                W_MOVED, W_NPEND, W_POINTS, W_RITUAL, W_SCORES, W_TERMINAL)


def _fae_state():
    s = FaeState.new(2, seed=4)
    rng = np.random.default_rng(4)
    while len(s.pending) < 1 and not s.is_terminal():
        s.apply(int(rng.choice(s.legal_actions())))
    assert s.pending
    return s


def _set(s, name, value):
    setattr(s, name, value)


def _w(offset, value):
    """Write `value` at `offset` of the state's int64 row (a FaeState is one row of FaeVector's layout)."""
    return lambda s: s._w.__setitem__((0, offset), value)


def _b(offset, value):
    return lambda s: s._b.__setitem__((0, offset), value)


FAE_TAMPERS = {  # issue 38: a FaeState is its rows, so the tampering writes into them
    "seat 9": ("current_player", _w(W_CURRENT, 9)),
    "seat -1 before the end": ("current_player", _w(W_CURRENT, -1)),
    "pending space flag 2": ("pending_rituals", _b(B_PENDING, 2)),
    "pending count not the flags": ("pending_rituals", _w(W_NPEND, 5)),
    "colour 9": ("colours", _w(W_COLOURS + 1, 9)),
    "colours repeated": ("colours", lambda s: _set(s, "colours", [s.colours[0]] * 2)),
    "last action 5000": ("history.last_action", _w(W_LAST, 5000)),
    "200 druids on a space": ("druids", _b(0, 200)),
    "count 255": ("counts", _b(B_COUNT, 255)),
    "resolved 2": ("resolved", _b(B_RESOLVED, 2)),
    "move flag 3": ("move_ok", _b(B_MOVE_OK, 3)),
    "druids row of 299": ("_b", lambda s: _set(s, "_b", s._b[:, :-1].copy())),
    "int32 row": ("_w", lambda s: _set(s, "_w", s._w.astype(np.int32))),
    "negative score": ("scores", _w(W_SCORES, -1)),
    "13 ritual cards": ("ritual_cards", lambda s: s._w.__setitem__((0, slice(W_RITUAL, W_RITUAL + 2)), [13, 0])),
    "cards used not the cards held": ("cards_used", _w(W_CARDS, 5)),
    "terminal 2": ("terminal", _w(W_TERMINAL, 2)),
    "moved -1": ("history.moved", _w(W_MOVED, -1)),
    "points of a seat not at the table": ("history.points", _w(W_POINTS + 5 * 3, 1)),
}
@pytest.mark.parametrize("dealt", [True, False], ids=["after reset", "before reset"])
@pytest.mark.parametrize("case", list(FAE_TAMPERS))
def test_fae_vector_set_state_refuses_a_tampered_state_and_changes_nothing(case, dealt):
    field, tamper = FAE_TAMPERS[case]
    v = FaeVector(3, 2)
    if dealt:
        v.reset(np.arange(3))
    b, w = v._b.copy(), v._w.copy()
    bad = _fae_state().clone()
    tamper(bad)
    with pytest.raises(ValueError, match=rf"set_state: state\.{field} "):
        v.set_state(1, bad)
    assert np.array_equal(v._b, b) and np.array_equal(v._w, w) and v._dealt == dealt


def test_fae_vector_set_state_loads_every_state_of_random_games():
    """The control: reached states (both stack rules, every table size) load and read back equal."""
    for n in (2, 3, 4):
        v = FaeVector(2, n, big_stack_merge=n == 3)
        for seed in range(8):
            rng = np.random.default_rng(seed)
            s = FaeState.new(n, seed=seed, big_stack_merge=n == 3)
            while True:
                v.set_state(1, s)
                assert v.state(1).to_dict() == s.to_dict()
                if s.is_terminal():
                    break
                s.apply(int(rng.choice(s.legal_actions())))


# ------------------------------------------------------------------ Fantastiqa
def _fantastiqa_state(**opts):
    from fantastiqa_rl import FantastiqaState

    s = FantastiqaState.new(2, seed=5, **opts)
    rng = np.random.default_rng(5)
    while not (s.phase_name == "MAIN" and s.turns > 3):
        s.apply(int(rng.choice(s.legal_actions())))
    return s


FANTASTIQA_TAMPERS = {
    "seat 9": lambda s: _set(s, "cur", 9),
    "phase 99": lambda s: _set(s, "phase", 99),
    "return phase 99": lambda s: _set(s, "ret", 99),
    "position 9": lambda s: s.position.__setitem__(0, 9),
    "region 9": lambda s: _set(s, "region_at", (9,) + tuple(s.region_at[1:])),
    "hand card past the card file": lambda s: s.hand[0].__setitem__(0, s.g.num_instances + 10),
    "board card past the card file": lambda s: s.board.__setitem__(0, s.g.num_instances + 10),
    "open quest past the card file": lambda s: s.open_quests.__setitem__(0, s.g.num_instances),
    "previous position 40": lambda s: _set(s, "prev", 40),
    "target past the card file": lambda s: _set(s, "target", s.g.num_instances + 5),
    "reason 7": lambda s: _set(s, "reason", 7),
    "winners before the end": lambda s: _set(s, "winners_", [0]),
    "effect argument 99": lambda s: _set(s, "effects", [("gain_gems", 99, 0)]),
    "negative gems": lambda s: s.gems.__setitem__(1, -3),
    "visited bits past the board": lambda s: _set(s, "visited", 1 << 12),
}


@pytest.fixture(scope="module")
def fantastiqa_vector():
    from fantastiqa_rl.vector import FantastiqaVector

    v = FantastiqaVector(3, 2)
    v.reset(np.arange(3))
    return v


@pytest.mark.parametrize("case", list(FANTASTIQA_TAMPERS))
def test_fantastiqa_vector_set_state_refuses_a_tampered_state_and_changes_nothing(fantastiqa_vector, case):
    v = fantastiqa_vector
    v.reset(np.arange(3))
    before = [v.state(i).to_dict() for i in range(3)]
    mask = v.legal_mask().copy()
    rows = v._c.copy(), v._w.copy()
    bad = _fantastiqa_state()
    FANTASTIQA_TAMPERS[case](bad)
    with pytest.raises(ValueError, match="game 1: .*value outside what its rows hold"):
        v.set_state(1, bad)
    assert np.array_equal(v._c, rows[0]) and np.array_equal(v._w, rows[1])
    assert [v.state(i).to_dict() for i in range(3)] == before
    assert np.array_equal(v.legal_mask(), mask)


def test_fantastiqa_vector_set_state_loads_the_untouched_state(fantastiqa_vector):
    """The control of the cases above: the same position, not tampered with, is loaded."""
    v = fantastiqa_vector
    v.reset(np.arange(3))
    ok = _fantastiqa_state()
    v.set_state(1, ok)
    assert v.state(1).to_dict() == ok.to_dict()
