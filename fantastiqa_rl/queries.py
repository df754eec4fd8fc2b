"""The card and board queries the rule topics share, as plain functions of a `FantastiqaState` `s`:
the kinds among card instances (`kinds`), an instance of a kind (`find`) and the moves a FLY, a
carpet or an adventure step may use (`moves`, Q-M1, Q-A3). Their batched ports are
`vector_rows.find` and `vector_rules.moves_any`.
"""
from __future__ import annotations

from fantastiqa_rl.board import NEIGHBOURS


def kinds(s, cards) -> list:
    """Distinct kinds among these instances."""
    HK = s.g.I_HAND_KIND
    return list({HK[i] for i in cards})


def find(s, cards, k, prefer_boosted=False):
    """An instance of kind k in cards: undoubled copies first (doubled first for payments)."""
    HK, bo = s.g.I_HAND_KIND, s.boosted
    best = -1
    for i in cards:
        if HK[i] == k:
            if not bo or (i in bo) == prefer_boosted:
                return i
            best = i
    return best


def moves(s, p, adventure=False, visited=None, prev=None):
    """(space, dest) pairs a FLY / carpet / subdue may use from p's position (Q-M1); in an
    adventure only into regions the path may enter (Q-A3)."""
    out = []
    if adventure:
        visited = s.visited if visited is None else visited
        prev = s.prev if prev is None else prev
        simple = s.opts["adventure_path"] == "simple"
    for c, dest in NEIGHBOURS[s.position[p]]:
        if s.board[c] < 0:
            continue
        if adventure and ((visited >> dest) & 1 if simple else dest == prev):
            continue
        out.append((c, dest))
    return out
