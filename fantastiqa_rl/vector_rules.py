"""The rule queries the batched kernels ask (`fantastiqa_rl.vector_kernels`), as numba functions over one
packed row (`fantastiqa_rl.vector_state`): payment values and paying card by card
(`fantastiqa_rl.payment`) and the moves and adventure steps (`queries.moves`,
`adventure.rules.pay_moves`). Each is a line-by-line port of the scalar function named in its
docstring. The row primitives they use are `fantastiqa_rl.vector_rows` (re-exported here); the
completable quests are `fantastiqa_rl.quests.kernels`, the commit targets and the free actions
`fantastiqa_rl.free_actions.kernels` (both import the queries here; this module imports neither).

Card data stays data: `Cards` builds every per-kind and per-quest table from the card file's
`Game` tables (payment profiles, including Curious-Companion-style wild pairs, powers, symbols,
quest needs and regions). A card file whose quests name one symbol twice (where the scalar core
reads the needs as a dict) gets `Cards.ok = False`, and the vector leaves every decision to the
scalar core.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import NEIGHBOURS, NUM_SYMBOLS
from fantastiqa_rl.powers.rules import kind_held_in_play
from fantastiqa_rl.vector_pay import offered_by_counts
# the row primitives and flag indices, re-exported (R.ln, R.append, R.F_TEAMS, ... in the kernels)
from fantastiqa_rl.vector_rows import (F_ABBEY, F_BOTH, F_FLY_IN_ADV, F_FORBID, F_GOAL, F_MARK_FORBID,  # noqa: F401
                                       F_N, F_SIMPLE, F_TEAMS, F_TO_HAND, F_TURN_LIMIT, F_UP_TO_5, append, at,
                                       contains, extend, find, index, ln, remove, remove_at, seat_field, seat_list,
                                       set_len)
from fantastiqa_rl.vector_state import OP_ID, L_BOOSTED, L_PAY, P_C_CARDS, P_C_OF, P_HAND, S_POS, W_BOARD, W_TARGET
from fantastiqa_rl.vector_state import kernel


def _padded(rows) -> tuple[np.ndarray, np.ndarray]:
    width = max(1, max((len(r) for r in rows), default=0))
    table = np.full((len(rows), width), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        table[i, :len(r)] = r
    return table, np.asarray([len(r) for r in rows], dtype=np.int64)


NB_SPACE, NB_N = _padded([[c for c, _ in nb] for nb in NEIGHBOURS])
NB_DEST, _ = _padded([[d for _, d in nb] for nb in NEIGHBOURS])


class Cards:
    """The card file's tables for the kernels (one vector: one card file, table size and rule set)."""

    def __init__(self, g, opts: dict, n: int, goal: int = -1):
        K = g.layout.K
        self.hk = np.asarray(g.I_HAND_KIND, dtype=np.int64)
        self.qk = np.asarray(g.I_QUEST_KIND, dtype=np.int64)
        prof = np.zeros((2, K, 3), dtype=np.int64)          # [doubled?, kind] -> (a, b, m); m = 0: no symbols
        for k in range(K):
            for d, p in enumerate((g.K_PROFILE[k], g.K_DOUBLED_PROFILE[k])):
                if p is not None:
                    prof[d, k] = p
        self.prof = prof
        self.vuln = np.asarray(g.K_VULN, dtype=np.int64)
        self.strength = np.asarray(g.K_STRENGTH, dtype=np.int64)
        self.power = np.asarray(g.K_POWER, dtype=np.int64)
        self.syms = np.zeros((K, NUM_SYMBOLS), dtype=np.bool_)
        for k, ss in enumerate(g.K_SYMS):
            for s in ss:
                self.syms[k, s] = True
        self.held = np.asarray([kind_held_in_play(opts, g, k) for k in range(K)], dtype=np.bool_)
        Q = g.layout.Q
        self.qregion = np.asarray(g.Q_REGION, dtype=np.int64)
        width = max(1, max(len(nd) for nd in g.Q_NEEDS))
        self.need_sym = np.full((Q, width), -1, dtype=np.int64)
        self.need_cnt = np.zeros((Q, width), dtype=np.int64)
        self.need_n = np.asarray([len(nd) for nd in g.Q_NEEDS], dtype=np.int64)
        for q, nd in enumerate(g.Q_NEEDS):
            for j, (s, cnt) in enumerate(nd):
                self.need_sym[q, j], self.need_cnt[q, j] = s, cnt
        self.ok = all(len({s for s, _ in nd}) == len(nd) for nd in g.Q_NEEDS)
        limit = opts["turn_limit"]
        self.flags = np.asarray([opts["adventure_path"] == "simple", opts["fly_in_adventure"], opts["teams"],
                                 opts["abbey"], opts["turn_loops"] == "forbid", opts["card_use"] == "both",
                                 opts["bought_to"] == "hand", n, opts["mark_return"] == "forbid",
                                 -1 if limit is None else limit, opts["draw_rule"] == "up_to_5",
                                 -1 if opts["abbey"] else goal], dtype=np.int64)   # F_GOAL: -1 the scalar core's
        self.cost = np.asarray(g.K_COST, dtype=np.int64)
        self.gem = np.asarray(g.K_GEM, dtype=np.bool_)
        self.raven = np.asarray(g.I_IS_RAVEN, dtype=np.bool_)
        self.qpoints = np.asarray(g.Q_POINTS, dtype=np.int64)
        # per kind: its artifact effects as (op id, x, y) triples (vector_state.OP_ID), -1 padded
        width = max(1, max(len(e) for e in g.K_EFFECTS))
        self.effects = np.full((K, 3 * width), -1, dtype=np.int64)
        for k, fx in enumerate(g.K_EFFECTS):
            for j, e in enumerate(fx):
                op, x, y = (tuple(e) + (0, 0))[:3]
                self.effects[k, 3 * j:3 * j + 3] = (OP_ID[op], x, y)
        self.n_effects = np.asarray([len(e) for e in g.K_EFFECTS], dtype=np.int64)
        self.qreward = np.asarray(g.Q_REWARD, dtype=np.int64).reshape(Q, 3)   # gems, carpets, reshuffles

    def args(self) -> tuple:
        return (self.hk, self.qk, self.prof, self.vuln, self.strength, self.power, self.syms, self.held,
                self.qregion, self.need_sym, self.need_cnt, self.need_n, self.flags, self.cost, self.gem,
                self.raven, self.qpoints, self.effects, self.n_effects, self.qreward)


def workspace(cap: int, K: int) -> tuple:
    """(wi, wp): the scratch arrays one kernel call lends every query (no allocation per game)."""
    rows = max(cap, K) + 8
    return np.zeros(WI_COMP + 7 * rows, dtype=np.int64), np.zeros((3 * rows, 3), dtype=np.int64)


# regions of wi (rows = wp.shape[0] // 3 each from WI_COMP on): symbol counts, companions, quest
# lists, kinds, offsets, a counter per kind, flags; at WI_PAY_BY_COUNTS and WI_PAY_ENUMERATED, the
# number of payment masks computed from counts (vector_pay) and by enumerating (what ran: tests)
WI_COUNTS, WI_C2, WI_NEED, WI_PAY_BY_COUNTS, WI_PAY_ENUMERATED, WI_COMP = 0, 9, 18, 27, 28, 32


# regions from WI_COMP on, `rows` long each (reg(wi, R_...))
R_COMP, R_QUESTS, R_KINDS, R_START, R_COUNT, R_FLAGS, R_DESTS = range(7)


@njit(cache=True, inline="always")
def reg(wi, j):
    """Start of region j of the workspace wi."""
    return WI_COMP + j * ((wi.size - WI_COMP) // 7)


@njit(cache=True, inline="always")
def _add_list_profiles(c, w, i, cap, hk, prof, j, of, q, pr, n):
    """Append the profiles of list j's cards with symbols (only those whose entry in list `of` is q,
    where of >= 0) to pr (n used); returns the new n. Each card's profile (payment.card_profile: doubled
    where boosted) is read here, not by a function per card: a call per card costs ~50 ns even
    inlined (numba counts references to the array arguments at every call), 10x the loop's own
    work. The card tables come in as the two arrays hk, prof (T[0], T[2]), not the tuple T."""
    boosted = ln(w, i, L_BOOSTED) > 0
    for t in range(ln(w, i, j)):
        if of >= 0 and c[i, of * cap + t] != q:
            continue
        x = c[i, j * cap + t]
        d = 1 if boosted and contains(c, w, i, L_BOOSTED, cap, x) else 0
        k = hk[x]
        m = prof[d, k, 2]
        if m:
            pr[n, 0], pr[n, 1], pr[n, 2] = prof[d, k, 0], prof[d, k, 1], m
            n += 1
    return n


@njit(cache=True, inline="always")
def add_profiles(c, w, i, cap, hk, prof, j, pr, n):
    """Append the profiles of list j's cards (those with symbols) to pr (n used); returns the new n."""
    return _add_list_profiles(c, w, i, cap, hk, prof, j, -1, 0, pr, n)


@njit(cache=True, inline="always")
def add_committed_profiles(c, w, i, cap, T, p, q, pr, n):
    """Append the profiles of the cards p committed to quest q."""
    return _add_list_profiles(c, w, i, cap, T[0], T[2], seat_list(p, P_C_CARDS), seat_list(p, P_C_OF), q, pr, n)


# ---------------------------------------------------------------- payment (fantastiqa_rl.payment)
@njit(cache=True, inline="always")
def _pairs(wi, at):
    """sum(wi[at:at + NUM_SYMBOLS] >> 1)."""
    s = 0
    for x in range(NUM_SYMBOLS):
        s += wi[at + x] >> 1
    return s


@njit(cache=True, inline="always")
def _choose(wi, pr, comp, nc, choice):
    """Symbol counts at WI_C2: those at WI_COUNTS plus companion u's b symbol where bit u of choice
    is set, else its a symbol (the choices payment.creature_value / quest_met try)."""
    for x in range(NUM_SYMBOLS):
        wi[WI_C2 + x] = wi[WI_COUNTS + x]
    for u in range(nc):
        t = wi[comp + u]
        wi[WI_C2 + (pr[t, 1] if (choice >> u) & 1 else pr[t, 0])] += pr[t, 2]


# creature_value and quest_met index the workspace wi directly (symbol counts at WI_COUNTS, the
# companions' choice at WI_C2, their rows of pr from reg(wi, R_COMP)): a view per call costs more
@njit(cache=True, inline="always")
def creature_value(v, pr, n, wi):
    """payment.creature_value over the profiles pr[:n] (wi: the workspace)."""
    for x in range(NUM_SYMBOLS):
        wi[WI_COUNTS + x] = 0
    nv = 0
    comp = reg(wi, R_COMP)
    nc = 0
    for t in range(n):
        a, b, m = pr[t, 0], pr[t, 1], pr[t, 2]
        if a == b:
            if a == v:
                nv += m
            else:
                wi[WI_COUNTS + a] += m
        elif a == v or b == v:
            nv += m
        else:
            wi[comp + nc] = t
            nc += 1
    if nc == 0:
        return nv + _pairs(wi, WI_COUNTS)
    best = 0
    for choice in range(1 << nc):
        _choose(wi, pr, comp, nc, choice)
        s = _pairs(wi, WI_C2)
        if s > best:
            best = s
    return nv + best


@njit(cache=True, inline="always")
def quest_met(T, qkind, pr, n, wi):
    """payment.quest_met of quest kind qkind's needs over the profiles pr[:n] (wi: the workspace)."""
    need_sym, need_cnt, need_n = T[9], T[10], T[11]
    for x in range(NUM_SYMBOLS):
        wi[WI_NEED + x] = 0
        wi[WI_COUNTS + x] = 0
    for j in range(need_n[qkind]):
        wi[WI_NEED + need_sym[qkind, j]] = 1
    comp = reg(wi, R_COMP)
    nc = 0
    for t in range(n):
        a, b, m = pr[t, 0], pr[t, 1], pr[t, 2]
        ia, ib = wi[WI_NEED + a], wi[WI_NEED + b]
        if a == b or not ib:
            if ia:
                wi[WI_COUNTS + a] += m
        elif not ia:
            wi[WI_COUNTS + b] += m
        else:
            wi[comp + nc] = t
            nc += 1
    for choice in range(1 << nc):
        _choose(wi, pr, comp, nc, choice)
        ok = True
        for j in range(need_n[qkind]):
            if wi[WI_C2 + need_sym[qkind, j]] < need_cnt[qkind, j]:
                ok = False
                break
        if ok:
            return True
    return False


# ---------------------------------------------------------------- moving (queries.moves, adventure.rules.pay_moves)
@njit(cache=True, inline="always")
def moves_any(w, i, simple, p, adventure, visited, prev):
    """Whether queries.moves(s, p, adventure, visited, prev) is non-empty (simple: T[12][F_SIMPLE])."""
    pos = seat_field(w, i, S_POS, p)
    for j in range(NB_N[pos]):
        if w[i, W_BOARD + NB_SPACE[pos, j]] < 0:
            continue
        d = NB_DEST[pos, j]
        if adventure and (((visited >> d) & 1) if simple else d == prev):
            continue
        return True
    return False


@njit(cache=True, inline="always")
def pay_moves(c, w, i, cap, T, p, visited, prev, dests, wi, wp):
    """adventure.rules.pay_moves: writes the destinations the hand can pay a step to into dests; returns how many."""
    hk, vuln, strength, simple = T[0], T[3], T[4], T[12][F_SIMPLE]
    pos = seat_field(w, i, S_POS, p)
    pr = wp
    n = add_profiles(c, w, i, cap, hk, T[2], seat_list(p, P_HAND), pr, 0)
    k_out = 0
    for j in range(NB_N[pos]):
        x = w[i, W_BOARD + NB_SPACE[pos, j]]
        if x < 0:
            continue
        d = NB_DEST[pos, j]
        if ((visited >> d) & 1) if simple else d == prev:
            continue
        k = hk[x]
        if creature_value(vuln[k], pr, n, wi) >= strength[k]:
            dests[k_out] = d
            k_out += 1
    return k_out


# ---------------------------------------------------------------- paying card by card (payment.legal_pay)
@njit(cache=True, inline="always")
def met(T, creature, req, strength, pr, n, wi):
    """payment.met: a creature (vulnerability req, strength) or a quest (kind req)."""
    if creature:
        return creature_value(req, pr, n, wi) >= strength
    return quest_met(T, req, pr, n, wi)


@kernel
def offered(c, w, i, cap, T, p, creature, req, strength, nsel, row, wi, wp):
    """payment.offered_kinds: mark HAND k in row for each hand kind some completion of the payment
    needs its next copy for (copies in use order: doubled first), given the profiles wp[:nsel] chosen:
    from counts per symbol (vector_pay.offered_by_counts) where they apply, else by enumerating
    every completion as payment.offered_flags does (wi counts which ran)."""
    hk, prof = T[0], T[2]
    hand = seat_list(p, P_HAND)
    nh = ln(w, i, hand)
    kinds = wi[reg(wi, R_KINDS):reg(wi, R_KINDS) + nh]
    start = wi[reg(wi, R_START):reg(wi, R_START) + nh + 1]
    start[0] = 0
    items = wp[2 * (wp.shape[0] // 3):]
    nk, m = 0, 0
    for t in range(nh):
        k = hk[at(c, i, hand, cap, t)]
        if prof[0, k, 2] == 0:
            continue
        seen = False
        for u in range(nk):
            if kinds[u] == k:
                seen = True
        if seen:
            continue
        kinds[nk] = k
        for boosted_pass in (True, False):
            for u in range(nh):
                x = at(c, i, hand, cap, u)
                if hk[x] == k and (ln(w, i, L_BOOSTED) > 0 and contains(c, w, i, L_BOOSTED, cap, x)) == boosted_pass:
                    d = 1 if boosted_pass else 0            # payment.card_profile of x: its doubling known here
                    items[m, 0], items[m, 1], items[m, 2] = prof[d, k, 0], prof[d, k, 1], prof[d, k, 2]
                    m += 1
        nk += 1
        start[nk] = m
    # from counts per symbol (vector_pay) where they apply, else every completion enumerated
    need = wi[WI_NEED:WI_NEED + NUM_SYMBOLS]
    need[:] = 0
    if not creature:
        for x in range(T[11][req]):
            need[T[9][req, x]] = T[10][req, x]
    flags = wi[reg(wi, R_FLAGS):reg(wi, R_FLAGS) + nk]
    flags[:] = 0
    if offered_by_counts(creature, req, strength, need, wp, nsel, items, start, nk, flags):
        wi[WI_PAY_BY_COUNTS] += 1
        for u in range(nk):
            if flags[u]:
                row[A.HAND + kinds[u]] = True
        return
    wi[WI_PAY_ENUMERATED] += 1
    pr = wp                                          # the chosen profiles are pr[:nsel] already
    j = wi[reg(wi, R_COUNT):reg(wi, R_COUNT) + nk]
    j[:] = 0
    while True:
        n = nsel
        for u in range(nk):
            for v in range(j[u]):
                x = start[u] + v
                pr[n, 0], pr[n, 1], pr[n, 2] = items[x, 0], items[x, 1], items[x, 2]
                n += 1
        if not met(T, creature, req, strength, pr, n, wi):
            for u in range(nk):
                if not flags[u] and start[u] + j[u] < start[u + 1]:
                    x = start[u] + j[u]
                    pr[n, 0], pr[n, 1], pr[n, 2] = items[x, 0], items[x, 1], items[x, 2]
                    if met(T, creature, req, strength, pr, n + 1, wi):
                        flags[u] = 1
        u = 0
        while u < nk:                                # the next combination (itertools.product)
            j[u] += 1
            if start[u] + j[u] <= start[u + 1]:
                break
            j[u] = 0
            u += 1
        if u == nk:
            break
    for u in range(nk):
        if flags[u]:
            row[A.HAND + kinds[u]] = True


@kernel
def legal_pay(c, w, i, cap, T, p, quest_pay, row, wi, wp):
    """payment.legal_pay into row: ADV_PAY's (adventure.rules.legal_adv_pay) or, with quest_pay,
    QUEST_PAY's (quests.rules.legal_quest_pay)."""
    hk, qk = T[0], T[1]
    target = w[i, W_TARGET]
    sel = wp
    nsel = add_profiles(c, w, i, cap, hk, T[2], L_PAY, sel, 0)
    if quest_pay:
        nsel = add_committed_profiles(c, w, i, cap, T, p, target, sel, nsel)
        creature, req, strength = False, qk[target], 0
    else:
        k = hk[w[i, W_BOARD + target]]
        creature, req, strength = True, T[3][k], T[4][k]
    offered(c, w, i, cap, T, p, creature, req, strength, nsel, row, wi, wp)
    if met(T, creature, req, strength, sel, nsel, wi):
        row[A.CONFIRM] = True
    row[A.CANCEL] = True
