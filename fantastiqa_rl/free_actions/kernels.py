"""The free actions' batched kernels (Q-F1..Q-F4): numba ports, over the packed rows of
`fantastiqa_rl.vector_state`, of the scalar rules in `fantastiqa_rl.free_actions.rules`; each docstring
names the scalar function it ports line by line.

- the queries `commit_targets`, `free_actions` (`legal_free` / `has_free` with `power_ok` in one
  kernel; asked by `vector_kernels._main_row` and `vector_greedy`) and `legal_free`;
- the mask rows `_free_menu_row`, `_commit_target_row`, `_withdraw_from_row` (dispatched by
  `vector_kernels.legal`); the steps `mark`, `commit`, `withdraw` (called by `vector_steps.main`),
  `commit_to`, `withdraw_from` (dispatched by `vector_steps.apply`) and `committed_add`.
CARPET's step is `vector_rows.use_carpet` (shared with ADV_MOVE); RESHUFFLE's is `reshuffle` (called
by `vector_steps.main` with the mover's Generator). This module imports `vector_rows`, `vector_rules` (as `R`: `moves_any`, the
workspace regions; it does not import this module) and the statues' and powers' queries; its source
is hashed into the kernels' cache key (`vector_state._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_chance as CH
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl.board import P_DRAGON, P_FLY, P_KEY, P_NONE, P_PEACEFUL
from fantastiqa_rl.powers.kernels import opponents_here
from fantastiqa_rl.statues.kernels import statue_options
from fantastiqa_rl.vector_rules import R_KINDS, R_QUESTS, moves_any, reg
from fantastiqa_rl.vector_rows import ln as _len, seat_list as _seat     # the mask rows' names (vector_kernels')
from fantastiqa_rl.vector_rows import (F_MARK_FORBID, F_SIMPLE, at, committed_pop, contains, ln, seat_field,
                                       seat_list, sf)
from fantastiqa_rl.vector_state import (L_BOOSTED, L_DRAGONS, L_POWERED, L_TOKEN_LEFT, NUM_OPEN_QUESTS, P_C_CARDS,
                                        P_C_OF, P_C_ORDER, P_DECK, P_DISCARD, P_HAND, S_CARPETS, S_RESHUFFLES, S_TOKEN,
                                        W_CUR, W_OPEN, W_PHASE, W_SUPPLY, W_TARGET)
from fantastiqa_rl.vector_state import kernel


# ---------------------------------------------------------------- queries (rules.commit_targets, legal_free, has_free)
@njit(cache=True, inline="always")
def commit_targets(c, w, i, cap, T, p, k, out):
    """rules.commit_targets(s, p, k): quest instances (in committed order) into out; returns how many."""
    hk, qk, prof, syms, need_sym, need_cnt, need_n = T[0], T[1], T[2], T[6], T[9], T[10], T[11]
    order, cards, of = seat_list(p, P_C_ORDER), seat_list(p, P_C_CARDS), seat_list(p, P_C_OF)
    k_out = 0
    for t in range(ln(w, i, order)):
        q = at(c, i, order, cap, t)
        kq = qk[q]
        for j in range(need_n[kq]):
            s = need_sym[kq, j]
            if syms[k, s]:
                have = 0
                for u in range(ln(w, i, cards)):
                    if at(c, i, of, cap, u) == q:
                        kk = hk[at(c, i, cards, cap, u)]
                        if prof[0, kk, 0] == s or prof[0, kk, 1] == s:
                            have += prof[0, kk, 2]
                if have < need_cnt[kq, j]:
                    out[k_out] = q
                    k_out += 1
                    break
    return k_out


@kernel
def legal_free(c, w, i, cap, T, p, row, wi):
    """rules.legal_free(s, p) into row (bool, all False on entry); returns how many."""
    return free_actions(c, w, i, cap, T, p, row, wi, False)


# a call, not inlined: numba inlines a function by copying its IR per call site, 6 s of compile a site
# here (145 blocks), and LLVM inlines what pays
@kernel
def free_actions(c, w, i, cap, T, p, row, wi, first):
    """rules.legal_free(s, p), with powers.rules.power_ok, into row (bool, all False on entry); returns
    how many. With `first`, stops at the first one found (rules.has_free: MAIN asks only whether there
    is one)."""
    hk, simple = T[0], T[12][F_SIMPLE]
    count = 0
    if seat_field(w, i, S_CARPETS, p) and moves_any(w, i, simple, p, False, 0, -1):
        row[A.CARPET] = True
        count += 1
    if seat_field(w, i, S_RESHUFFLES, p) and ln(w, i, seat_list(p, P_DISCARD)):
        row[A.RESHUFFLE] = True
        count += 1
    tok = seat_field(w, i, S_TOKEN, p)
    for j in range(NUM_OPEN_QUESTS):
        q = w[i, W_OPEN + j]
        if q >= 0 and tok != q and not contains(c, w, i, L_TOKEN_LEFT, cap, q):
            row[A.MARK + j] = True
            count += 1
    if first and count:
        return count
    hand = seat_list(p, P_HAND)
    n_pw = ln(w, i, L_POWERED)
    # powers.rules.power_ok's position checks, once per game (each depends on the power alone, and a
    # KEY's on whether it lies in play after): -1 not computed yet, else 0 / 1
    fly = key_held = key_hand = dragon = peaceful = -1
    power, held = T[5], T[7]
    for t in range(ln(w, i, hand)):                 # powers.rules.playable_kinds
        x = at(c, i, hand, cap, t)
        k = hk[x]
        if row[A.HAND + k] or (n_pw and contains(c, w, i, L_POWERED, cap, x)):
            continue
        pw = power[k]
        if pw == P_NONE:
            ok = False
        elif pw == P_FLY:
            if fly < 0:
                fly = 1 if moves_any(w, i, simple, p, False, 0, -1) else 0
            ok = fly == 1
        elif pw == P_KEY:
            if held[k]:
                if key_held < 0:
                    key_held = 1 if statue_options(c, w, i, cap, p, 1) else 0
                ok = key_held == 1
            else:
                if key_hand < 0:
                    key_hand = 1 if statue_options(c, w, i, cap, p, 0) else 0
                ok = key_hand == 1
        elif pw == P_DRAGON or pw == P_PEACEFUL:
            if peaceful < 0:
                peaceful = 1 if opponents_here(w, i, T, p) else 0
            if dragon < 0:
                dragon = 1 if peaceful == 1 and ln(w, i, L_DRAGONS) > 0 else 0
            ok = (dragon if pw == P_DRAGON else peaceful) == 1
        else:
            ok = True                               # PLUS_STATUE, GEM, EFFECT
        if ok:
            row[A.HAND + k] = True
            count += 1
            if first:
                return count
    order = seat_list(p, P_C_ORDER)
    if ln(w, i, order):
        K = T[2].shape[1]
        targets = wi[reg(wi, R_QUESTS):reg(wi, R_QUESTS) + ln(w, i, order)]
        seen = wi[reg(wi, R_KINDS):reg(wi, R_KINDS) + K]
        seen[:] = 0
        for t in range(ln(w, i, hand)):
            k = hk[at(c, i, hand, cap, t)]
            if seen[k]:
                continue
            seen[k] = 1
            if T[2][0, k, 2] and commit_targets(c, w, i, cap, T, p, k, targets):
                row[A.HAND + K + k] = True
                count += 1
        cards = seat_list(p, P_C_CARDS)
        for t in range(ln(w, i, cards)):
            a = A.HAND + 2 * K + hk[at(c, i, cards, cap, t)]
            if not row[a]:
                row[a] = True
                count += 1
    return count


# ---------------------------------------------------------------- mask rows
@kernel
def _free_menu_row(c, w, i, cap, T, row, quest0, wi, wp):
    """rules.legal_free."""
    p = w[i, W_CUR]
    legal_free(c, w, i, cap, T, p, row, wi)


@kernel
def _commit_target_row(c, w, i, cap, T, row, quest0, wi, wp):
    """rules.legal_commit_target."""
    p = w[i, W_CUR]
    qs = wi[R.reg(wi, R.R_QUESTS):]
    for t in range(commit_targets(c, w, i, cap, T, p, w[i, W_TARGET], qs)):
        row[quest0 + T[1][qs[t]]] = True


@kernel
def _withdraw_from_row(c, w, i, cap, T, row, quest0, wi, wp):
    """rules.legal_withdraw_from."""
    hk = T[0]
    p = w[i, W_CUR]
    order, cards, of = _seat(p, P_C_ORDER), _seat(p, P_C_CARDS), _seat(p, P_C_OF)
    for t in range(_len(w, i, order)):
        q = c[i, order * cap + t]
        for u in range(_len(w, i, cards)):
            if c[i, of * cap + u] == q and hk[c[i, cards * cap + u]] == w[i, W_TARGET]:
                row[quest0 + T[1][q]] = True
                break


# ---------------------------------------------------------------- steps (committed maps: seat p's quest -> cards)
@kernel
def committed_add(c, w, i, cap, p, q, x):
    """committed[p][q].append(x)."""
    R.append(c, w, i, seat_list(p, P_C_CARDS), cap, x)
    R.append(c, w, i, seat_list(p, P_C_OF), cap, q)


@kernel
def reshuffle(c, w, i, cap, p, st):
    """rules.reshuffle (Q-F4): the discard onto the deck, shuffled with p's Generator (`st`, state
    words: vector_chance) exactly as the scalar core's `Generator.shuffle`."""
    w[i, sf(p, S_RESHUFFLES)] -= 1
    w[i, W_SUPPLY + 2] += 1
    deck = seat_list(p, P_DECK)
    R.extend(c, w, i, deck, seat_list(p, P_DISCARD), cap)
    CH.shuffle(c, i, deck * cap, ln(w, i, deck), st)


@kernel
def mark(c, w, i, cap, T, p, j):
    """rules.mark (Q-F2)."""
    q = w[i, W_OPEN + j]
    if R.contains(c, w, i, seat_list(p, P_C_ORDER), cap, q):
        return False
    old = w[i, sf(p, S_TOKEN)]
    if old >= 0:
        committed_pop(c, w, i, cap, p, old, seat_list(p, P_DISCARD))
        if T[12][F_MARK_FORBID]:
            R.append(c, w, i, L_TOKEN_LEFT, cap, old)
    w[i, sf(p, S_TOKEN)] = q
    R.append(c, w, i, seat_list(p, P_C_ORDER), cap, q)
    return True


@kernel
def commit_to(c, w, i, cap, T, p, qkind):
    """rules.apply_commit_target: the first committed quest of kind qkind takes a hand card of kind target."""
    order = seat_list(p, P_C_ORDER)
    for t in range(ln(w, i, order)):
        q = at(c, i, order, cap, t)
        if T[1][q] == qkind:
            hand = seat_list(p, P_HAND)
            x = R.find(c, w, i, hand, cap, T[0], w[i, W_TARGET], False)
            R.remove(c, w, i, hand, cap, x)
            committed_add(c, w, i, cap, p, q, x)
            w[i, W_PHASE] = A.MAIN
            return


@kernel
def commit(c, w, i, cap, T, p, k):
    """rules.commit: COMMIT_TARGET, skipped when only one quest can take the card."""
    w[i, W_TARGET] = k
    w[i, W_PHASE] = A.COMMIT_TARGET
    qs = np.empty(ln(w, i, seat_list(p, P_C_ORDER)), dtype=np.int64)
    if commit_targets(c, w, i, cap, T, p, k, qs) == 1:
        commit_to(c, w, i, cap, T, p, T[1][qs[0]])


@kernel
def withdraw_from(c, w, i, cap, T, p, qkind):
    """rules.apply_withdraw_from: a committed card of kind target, from the first quest of kind qkind holding one."""
    hk, k = T[0], w[i, W_TARGET]
    order, cards, of = seat_list(p, P_C_ORDER), seat_list(p, P_C_CARDS), seat_list(p, P_C_OF)
    for t in range(ln(w, i, order)):
        q = at(c, i, order, cap, t)
        if T[1][q] != qkind:
            continue
        first, best = -1, -1                         # queries.find over committed[p][q]
        nb = ln(w, i, L_BOOSTED)
        for u in range(ln(w, i, cards)):
            if at(c, i, of, cap, u) == q and hk[at(c, i, cards, cap, u)] == k:
                if nb == 0 or not R.contains(c, w, i, L_BOOSTED, cap, at(c, i, cards, cap, u)):
                    first = u
                    break
                best = u
        u = first if first >= 0 else best
        if u < 0:
            continue
        R.append(c, w, i, seat_list(p, P_DISCARD), cap, at(c, i, cards, cap, u))
        R.remove_at(c, w, i, cards, cap, u)
        R.remove_at(c, w, i, of, cap, u)
        w[i, W_PHASE] = A.MAIN
        return


@kernel
def withdraw(c, w, i, cap, T, p, k):
    """rules.withdraw: WITHDRAW_FROM, skipped when only one quest holds that kind."""
    hk = T[0]
    w[i, W_TARGET] = k
    w[i, W_PHASE] = A.WITHDRAW_FROM
    order, cards, of = seat_list(p, P_C_ORDER), seat_list(p, P_C_CARDS), seat_list(p, P_C_OF)
    count, only = 0, -1
    for t in range(ln(w, i, order)):
        q = at(c, i, order, cap, t)
        for u in range(ln(w, i, cards)):
            if at(c, i, of, cap, u) == q and hk[at(c, i, cards, cap, u)] == k:
                count += 1
                only = q
                break
    if count == 1:
        withdraw_from(c, w, i, cap, T, p, T[1][only])
