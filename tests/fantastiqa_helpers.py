"""Helpers shared by the Fantastiqa rule tests: action ids by card name, and stepping."""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A


def kind(s, name):
    return next(k for k, nm in enumerate(s.g.K_NAME) if nm == name)


def qkind(s, name):
    return next(q for q, nm in enumerate(s.g.Q_NAME) if nm == name)


def HAND(s, name):
    return s.layout.hand + kind(s, name)


def PICK(s, name):
    return s.layout.pick + kind(s, name)


def COMMIT(s, name):
    return s.layout.commit + kind(s, name)


def QUEST(s, name):
    return s.layout.quest + qkind(s, name)


def at(s, p, pos):
    """Put seat p's adventurer at board position pos."""
    s.position[p] = pos
    s._legal = None


def legal(s):
    """Legal actions, with the FREE_MENU's free actions listed flat while in MAIN."""
    out = set(s.legal_actions().tolist())
    if s.phase == A.MAIN and A.FREE_ACTION in out:
        out = (out - {A.FREE_ACTION}) | set(s._legal_free(s.cur))
    return out


def do(s, a):
    """Apply a; a free action from MAIN goes through FREE_ACTION first."""
    if s.phase == A.MAIN and a not in s.legal_set() and a in s._legal_free(s.cur):
        s.apply(A.FREE_ACTION)
    s.apply(a)


def random_walk(s, rng, steps, check=None):
    """Up to `steps` uniformly random legal moves, checking the legal list (and `check(s)`) each step."""
    for _ in range(steps):
        if s.is_terminal():
            break
        la = s.legal_actions()
        assert len(la) > 0, f"empty legal set in {s.phase_name}"
        assert la.dtype == np.int64 and np.all(np.diff(la) > 0), "legal actions must be ascending int64"
        assert la[-1] < s.num_actions
        s.apply(int(la[rng.integers(len(la))]))
        if check:
            check(s)
    return s
