"""Payment values (Q-A2, Q-Q2) and paying card by card.

A card's payment *profile* is (a, b, m): a == b for a plain card giving m symbols a (m = 1 single,
2 double, doubled again by a Looking Glass); a != b for a Curious Companion giving m of a OR b.
Requirements are hashable: ("c", v, n) for a creature needing n of v (wild pairs allowed),
("q", ((sym, count), ...)) for a quest (exact symbols, no wilds).

Paying card by card, shared by the adventure's ADV_PAY and the quests' QUEST_PAY, as plain functions
of a `FantastiqaState` `s`: the profiles of a state's cards (`card_profile`, `hand_items`,
`profiles`), the legal actions (`legal_pay`, the mask `offered_kinds`), a step of the payment
(`pay_step`: `pay_card` or `cancel_payment`). Their batched ports are `vector_rules.legal_pay`
(`vector_pay`) and `vector_rows.pay_card`.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import product

from fantastiqa_rl import actions as A
from fantastiqa_rl.queries import find


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


# ---------------------------------------------------------------- a state's cards, paid card by card
def card_profile(s, i):
    """Profile of card instance i of the state s (doubled while a Looking Glass boosts it)."""
    k = s.g.I_HAND_KIND[i]
    return s.g.K_DOUBLED_PROFILE[k] if i in s.boosted else s.g.K_PROFILE[k]


def hand_items(s, cards) -> dict:
    """kind -> tuple of payment profiles in use order (doubled copies first)."""
    items = {}
    bo = s.boosted
    HK, KP = s.g.I_HAND_KIND, s.g.K_PROFILE
    for i in cards:
        k = HK[i]
        if KP[k] is None:
            continue
        items.setdefault(k, []).append(i)
    out = {}
    for k, insts in items.items():
        if bo:
            insts.sort(key=lambda i: i not in bo)
        out[k] = tuple(card_profile(s, i) for i in insts)
    return out


def profiles(s, cards) -> tuple:
    return tuple(sorted(p for p in (card_profile(s, i) for i in cards) if p is not None))


def legal_pay(s, p, req, cards) -> list:
    """ADV_PAY's and QUEST_PAY's legal actions (`adventure.rules.legal_adv_pay`,
    `quests.rules.legal_quest_pay`): the hand kinds that still help meet `req` with `cards` chosen,
    CONFIRM once they meet it, CANCEL."""
    sel = [x for x in (card_profile(s, i) for i in cards) if x is not None]
    out = [s.g.layout.hand + k for k in offered_kinds(req, sel, hand_items(s, s.hand[p]))]
    if can_meet(req, tuple(sorted(sel))):
        out.append(A.CONFIRM)
    out.append(A.CANCEL)
    return out


def pay_step(s, p, a, back_to) -> bool:
    """ADV_PAY's and QUEST_PAY's shared protocol: CANCEL goes back to `back_to` with the cards, a
    hand card is chosen to pay; True on CONFIRM, which the decision completes itself."""
    if a == A.CONFIRM:
        return True
    if a == A.CANCEL:
        cancel_payment(s, p, back_to)
    else:
        pay_card(s, p, a - s.g.layout.hand)
    return False


def cancel_payment(s, p, back_to):
    """CANCEL of ADV_PAY or QUEST_PAY: the cards chosen to pay go back to the hand."""
    s.hand[p] += s.pay
    s.pay = []
    s.phase = back_to


def pay_card(s, p, k):
    i = find(s, s.hand[p], k, prefer_boosted=True)
    s.hand[p].remove(i)
    s.pay.append(i)
