"""Payment values (Q-A2, Q-Q2) and the card-by-card payment mask.

A card's payment *profile* is (a, b, m): a == b for a plain card giving m symbols a (m = 1 single,
2 double, doubled again by a Looking Glass); a != b for a Curious Companion giving m of a OR b.
Requirements are hashable: ("c", v, n) for a creature needing n of v (wild pairs allowed),
("q", ((sym, count), ...)) for a quest (exact symbols, no wilds).
"""
from __future__ import annotations

from functools import lru_cache
from itertools import product


def profile(symbols: tuple, boosted: bool = False):
    """Profile of a card with these symbols, or None for a card without symbols."""
    if not symbols:
        return None
    mult = 2 if boosted else 1
    if len(symbols) == 1:
        return (symbols[0], symbols[0], mult)
    a, b = symbols
    if a == b:
        return (a, a, 2 * mult)
    return (min(a, b), max(a, b), mult)


def creature_value(v: int, profiles) -> int:
    """val(S) = (#v in S) + sum over other symbols s of floor(#s / 2), companions chosen best."""
    counts = [0] * 9
    nv = 0
    comps = []
    for a, b, m in profiles:
        if a == b:
            if a == v:
                nv += m
            else:
                counts[a] += m
        elif a == v or b == v:
            nv += m          # giving v is never worse than feeding a pair
        else:
            comps.append((a, b, m))
    if not comps:
        return nv + sum(c >> 1 for c in counts)
    best = 0
    for choice in range(1 << len(comps)):
        c2 = counts[:]
        for i, (a, b, m) in enumerate(comps):
            c2[b if (choice >> i) & 1 else a] += m
        s = sum(c >> 1 for c in c2)
        if s > best:
            best = s
    return nv + best


def quest_met(needs: tuple, profiles) -> bool:
    """Q-Q2: at least `count` of each needed symbol, exactly matching (companions chosen best)."""
    need = dict(needs)
    counts = dict.fromkeys(need, 0)
    comps = []
    for a, b, m in profiles:
        ia, ib = a in need, b in need
        if a == b or not ib:
            if ia:
                counts[a] += m
        elif not ia:
            counts[b] += m
        else:
            comps.append((a, b, m))
    if not comps:
        return all(counts[s] >= c for s, c in need.items())
    for choice in range(1 << len(comps)):
        c2 = dict(counts)
        for i, (a, b, m) in enumerate(comps):
            c2[b if (choice >> i) & 1 else a] += m
        if all(c2[s] >= c for s, c in need.items()):
            return True
    return False


def met(req: tuple, profiles) -> bool:
    if req[0] == "c":
        return creature_value(req[1], profiles) >= req[2]
    return quest_met(req[1], profiles)


@lru_cache(maxsize=1 << 16)
def offered_flags(req: tuple, selected: tuple, items: tuple) -> tuple:
    """items[i] = profiles of one hand kind, in the order its copies are used.
    Flag i: some completion that adds the next copy of kind i reaches `req` and needs that copy
    (removing it would fall short)."""
    flags = [False] * len(items)
    for combo in product(*(range(len(p) + 1) for p in items)):
        profs = list(selected)
        for p, j in zip(items, combo):
            profs.extend(p[:j])
        if met(req, profs):
            continue
        for i, (p, j) in enumerate(zip(items, combo)):
            if not flags[i] and j < len(p) and met(req, profs + [p[j]]):
                flags[i] = True
    return tuple(flags)


def offered_kinds(req: tuple, selected: list, hand_items: dict) -> list:
    """hand_items: kind -> tuple of profiles (use order). Returns the kinds offered, ascending."""
    kinds = sorted(hand_items, key=hand_items.__getitem__)
    flags = offered_flags(req, tuple(sorted(selected)), tuple(hand_items[k] for k in kinds))
    return sorted(k for k, f in zip(kinds, flags) if f)


@lru_cache(maxsize=1 << 16)
def can_meet(req: tuple, profiles: tuple) -> bool:
    """Whether all these cards together reach the requirement (payment is monotone)."""
    return met(req, profiles)
