"""The card-by-card payment mask (`payment.offered_flags`) from counts per symbol, for the batched kernels.

`payment.offered_flags` (and `vector_rules.offered`, its port) enumerate every completion of a
payment: every number of copies of every hand kind. Here the same flags come from counts:

- a hand kind's flag asks whether some sub-multiset X of the hand's other cards (the kind's own
  copies but one included) leaves the payment unmet while X plus the kind's next copy meets it
  (payment is monotone). Where every copy of a kind has one profile (no Looking Glass splits a
  kind into doubled and plain copies), copies of one profile are interchangeable, so X is any
  sub-multiset of the hand less one copy of that profile;
- a plain card is a count of one symbol (a creature's vulnerability v counts whole, another symbol
  by pairs; a quest counts only needed symbols): per symbol the reachable counts are the subset
  sums of its cards' multiplicities (a bit set), and for the symbols no wild pair touches the
  reachable values combine by a sum-set (creature) or need only the whole hand (quest);
- a Curious-Companion-style wild pair (a, b, m) that must choose (a creature: neither symbol is v;
  a quest: both are needed; otherwise it is a plain card of the symbol it gives) is enumerated:
  taken or not, and every choice of every taken or selected pair, over the few symbols the pairs
  and the kind's own card touch; the value of X is its best choice, as `payment.creature_value`
  and `payment.quest_met` read it.

`offered_by_counts` returns False where it does not apply (a kind of mixed profiles, or counts past
the bit sets' 62), and the caller enumerates (`vector_rules.offered`). Exact by construction;
tests/test_fantastiqa_vector_kernels.py holds it equal to `payment.offered_flags` on random hands
with wild pairs and counts which path ran.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fantastiqa_rl.board import NUM_SYMBOLS
from fantastiqa_rl.vector_state import kernel

_BITS = 62          # reachable counts and values live in int64 bit sets: 0..61


@njit(cache=True, inline="always")
def _plain_symbol(a, b, creature, v, need):
    """The symbol a card (a, b) counts as where it needs no choice; -1: it must choose (a wild
    pair); -2: it counts for nothing (a quest's card of no needed symbol)."""
    if creature:
        if a == b or a == v or b == v:
            return v if (a == v or b == v) else a
        return -1
    ia, ib = need[a] > 0, need[b] > 0
    if a == b or not ib:
        return a if ia else -2
    if not ia:
        return b
    return -1


@njit(cache=True, inline="always")
def _value(s, y, creature, v):
    """A creature's value from y symbols s (v whole, another symbol by pairs)."""
    return y if s == v else y >> 1


@kernel
def _best(base, x, esym, ne, chooser, nch, creature, v, need, cnt):
    """The best over the wild pairs' choices (chooser[:nch], rows (a, b, m)) of the payment over the
    enumerated symbols esym[:ne] with counts base[s] + x[e]: a creature's value there, or for a
    quest 1 if every needed symbol there is met, else 0."""
    best = -1
    for choice in range(1 << nch):
        for e in range(ne):
            cnt[e] = base[esym[e]] + x[e]
        for u in range(nch):
            s = chooser[u, 1] if (choice >> u) & 1 else chooser[u, 0]
            for e in range(ne):
                if esym[e] == s:
                    cnt[e] += chooser[u, 2]
        if creature:
            val = 0
            for e in range(ne):
                val += _value(esym[e], cnt[e], creature, v)
        else:
            val = 1
            for e in range(ne):
                if cnt[e] < need[esym[e]]:
                    val = 0
                    break
        if val > best:
            best = val
    return best


@kernel
def offered_by_counts(creature, v, strength, need, sel, nsel, items, start, nk, flags):
    """flags[u] = 1 where hand kind u (its copies' profiles at items[start[u]:start[u + 1]], rows
    (a, b, m)) is offered for the payment with the profiles sel[:nsel] chosen already: a creature
    of vulnerability v and strength `strength` (creature True), or a quest needing need[s] of each
    symbol s (creature False). Returns False, flags untouched, where counts do not apply."""
    # one profile per kind, or the caller enumerates
    for u in range(nk):
        for t in range(start[u] + 1, start[u + 1]):
            if items[t, 0] != items[start[u], 0] or items[t, 1] != items[start[u], 1] or \
                    items[t, 2] != items[start[u], 2]:
                return False
    m_all = start[nk]
    base = np.zeros(NUM_SYMBOLS, dtype=np.int64)      # the selected cards' plain counts
    total = np.zeros(NUM_SYMBOLS, dtype=np.int64)     # selected + hand, per symbol: the bound
    pairs = np.empty((nsel + m_all + 1, 3), dtype=np.int64)   # wild pairs: selected first, then the hand's
    n_sel_pairs = 0
    for t in range(nsel):
        s = _plain_symbol(sel[t, 0], sel[t, 1], creature, v, need)
        if s >= 0:
            base[s] += sel[t, 2]
            total[s] += sel[t, 2]
        elif s == -1:
            pairs[n_sel_pairs, 0], pairs[n_sel_pairs, 1], pairs[n_sel_pairs, 2] = sel[t, 0], sel[t, 1], sel[t, 2]
            n_sel_pairs += 1
    n_pairs = n_sel_pairs
    pair_of = np.full(m_all, -1, dtype=np.int64)   # item t's index among the hand's wild pairs
    for t in range(m_all):
        s = _plain_symbol(items[t, 0], items[t, 1], creature, v, need)
        if s >= 0:
            total[s] += items[t, 2]
        elif s == -1:
            pair_of[t] = n_pairs - n_sel_pairs
            pairs[n_pairs, 0], pairs[n_pairs, 1], pairs[n_pairs, 2] = items[t, 0], items[t, 1], items[t, 2]
            n_pairs += 1
    for s in range(NUM_SYMBOLS):
        if total[s] >= _BITS:
            return False
    n_hand_pairs = n_pairs - n_sel_pairs
    if n_pairs > 6 or strength >= _BITS:
        return False
    # per symbol: the hand's reachable plain counts (bit sets) and, for a creature, the values they give
    full = np.ones(NUM_SYMBOLS, dtype=np.int64)
    for t in range(m_all):
        s = _plain_symbol(items[t, 0], items[t, 1], creature, v, need)
        if s >= 0:
            full[s] |= full[s] << items[t, 2]
    got = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    if creature:
        for s in range(NUM_SYMBOLS):
            for y in range(total[s] - base[s] + 1):
                if (full[s] >> y) & 1:
                    got[s] |= 1 << _value(s, base[s] + y, creature, v)
    paired = np.zeros(NUM_SYMBOLS, dtype=np.bool_)     # symbols a wild pair touches
    for t in range(n_pairs):
        paired[pairs[t, 0]] = True
        paired[pairs[t, 1]] = True
    esym = np.empty(NUM_SYMBOLS, dtype=np.int64)
    x = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    vals = np.empty((NUM_SYMBOLS, _BITS), dtype=np.int64)
    nv = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    at = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    chooser = np.empty((n_pairs + 1, 3), dtype=np.int64)
    cnt = np.empty(NUM_SYMBOLS, dtype=np.int64)
    for u in range(nk):
        a, b, m = items[start[u], 0], items[start[u], 1], items[start[u], 2]
        mine = _plain_symbol(a, b, creature, v, need)
        if mine == -2:                                 # counts for nothing: never needed
            continue
        own_pair = pair_of[start[u]]
        # the hand less one copy of this kind: only this card's symbol's reachable counts change
        own = 1
        if mine >= 0:
            for t in range(m_all):
                if t != start[u] and _plain_symbol(items[t, 0], items[t, 1], creature, v, need) == mine:
                    own |= own << items[t, 2]
        # the symbols enumerated (esym[:ne]): those the wild pairs and this card touch
        ne = 0
        for s in range(NUM_SYMBOLS):
            if paired[s] or s == mine or (mine == -1 and (s == a or s == b)):
                esym[ne] = s
                ne += 1
        # the other symbols: a creature's reachable values (a sum-set); a quest's needs met by the whole hand
        reach = 1
        feasible = True
        for s in range(NUM_SYMBOLS):
            if paired[s] or s == mine or (mine == -1 and (s == a or s == b)):
                continue
            if creature:
                nxt = 0
                for r in range(total[s] + 1):
                    if (got[s] >> r) & 1:
                        nxt |= reach << r
                reach = nxt & ((1 << _BITS) - 1)
            elif need[s] > 0 and total[s] < need[s]:
                feasible = False
        if not feasible:
            continue
        for e in range(ne):
            s = esym[e]
            bits = own if s == mine else full[s]
            k = 0
            for y in range(total[s] - base[s] + 1):
                if (bits >> y) & 1:
                    vals[e, k] = y
                    k += 1
            nv[e] = k
        # enumerate the wild pairs of the hand taken (this kind's copy aside) and the enumerated counts
        found = False
        for taken in range(1 << n_hand_pairs):
            if own_pair >= 0 and (taken >> own_pair) & 1:
                continue                                # X holds the hand less this copy
            nch = 0
            for t in range(n_sel_pairs):
                chooser[nch, 0], chooser[nch, 1], chooser[nch, 2] = pairs[t, 0], pairs[t, 1], pairs[t, 2]
                nch += 1
            for t in range(n_hand_pairs):
                if (taken >> t) & 1:
                    r = n_sel_pairs + t
                    chooser[nch, 0], chooser[nch, 1], chooser[nch, 2] = pairs[r, 0], pairs[r, 1], pairs[r, 2]
                    nch += 1
            at[:ne] = 0
            while True:
                for e in range(ne):
                    x[e] = vals[e, at[e]]
                lo = _best(base, x, esym, ne, chooser, nch, creature, v, need, cnt)
                if mine >= 0:
                    for e in range(ne):
                        if esym[e] == mine:
                            x[e] += m
                    hi = _best(base, x, esym, ne, chooser, nch, creature, v, need, cnt)
                    for e in range(ne):
                        if esym[e] == mine:
                            x[e] -= m
                else:
                    chooser[nch, 0], chooser[nch, 1], chooser[nch, 2] = a, b, m
                    hi = _best(base, x, esym, ne, chooser, nch + 1, creature, v, need, cnt)
                if creature:
                    # some reachable value r of the other symbols with r + lo < strength <= r + hi
                    low, high = strength - hi, strength - lo - 1
                    if high >= 0 and low <= high:
                        if low < 0:
                            low = 0
                        if high >= _BITS:
                            high = _BITS - 1
                        window = ((1 << (high + 1)) - 1) ^ ((1 << low) - 1)
                        if reach & window:
                            found = True
                elif hi == 1 and lo == 0:
                    found = True
                if found:
                    break
                e = 0
                while e < ne:                            # the next combination of counts
                    at[e] += 1
                    if at[e] < nv[e]:
                        break
                    at[e] = 0
                    e += 1
                if e == ne:
                    break
            if found:
                break
        if found:
            flags[u] = 1
    return True
