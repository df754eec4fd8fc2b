"""The quests' batched kernels (Q-Q1..Q-Q3): numba ports, over the packed rows of
`fantastiqa_rl.vector_state`, of the scalar rules in `fantastiqa_rl.quests.rules`; each docstring names
the scalar function it ports line by line.

- `completable` (the quests p may complete now): MAIN's mask row (`vector_kernels._main_row`), the
  start of a quest and the greedy bot (`vector_greedy`) ask it;
- `start_quest` (MAIN's QUEST block, called by `fantastiqa_rl.vector_steps.main`), `quest_pay`
  (QUEST_PAY, dispatched by `vector_steps.apply`) and `complete_quest` (Q-Q3).
QUEST_PAY's mask row is `vector_kernels._pay_row` (`vector_rules.legal_pay`, shared with ADV_PAY).

This module imports the row primitives and the steps shared with other topics
(`fantastiqa_rl.vector_rows`: `take`, `committed_pop` (shared with MARK), `pay_card` (shared with
ADV_PAY)) and the payment queries of `fantastiqa_rl.vector_rules` (`add_profiles`,
`add_committed_profiles`, `quest_met`, the workspace regions; shared with the adventure, so they stay
there), as `R`; `vector_rules` does not import this module, `vector_steps` / `vector_kernels` /
`vector_greedy` do. Its source is hashed into the kernels' cache key (`vector_state._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl.board import NUM_OPEN_QUESTS
from fantastiqa_rl.vector_rows import (F_N, F_GOAL, F_TEAMS, at, committed_pop, ln, pay_card, seat_field, seat_list,
                                       sf, take)
from fantastiqa_rl.vector_rules import add_committed_profiles, add_profiles, quest_met
from fantastiqa_rl.vector_state import (L_PAY, P_COMPLETED, P_DISCARD, P_HAND, P_QUESTS, S_BONUS, S_CARPETS, S_GEMS,
                                        S_POS, S_RESHUFFLES, S_SCORES, S_TOKEN, W_ACTION_USED, W_OBONUS, W_OPEN,
                                        W_PHASE, W_REGION, W_SUPPLY, W_TARGET)
from fantastiqa_rl.vector_state import kernel


@kernel
def completable(c, w, i, cap, T, p, out, wi, wp):
    """quests.rules.completable: quest instances p may complete now, personal ones first, into out; returns how many."""
    hk, qk, prof, qregion = T[0], T[1], T[2], T[8]
    name = w[i, W_REGION + seat_field(w, i, S_POS, p)]
    quests = seat_list(p, P_QUESTS)
    nq = ln(w, i, quests)
    pr = wp
    k_out = 0
    n_hand = -1                                     # the hand's profiles at pr[:n_hand], made once
    for t in range(nq + NUM_OPEN_QUESTS):
        q = at(c, i, quests, cap, t) if t < nq else w[i, W_OPEN + t - nq]
        if q < 0 or qregion[qk[q]] != name:
            continue
        if n_hand < 0:
            n_hand = add_profiles(c, w, i, cap, hk, prof, seat_list(p, P_HAND), pr, 0)
        n = add_committed_profiles(c, w, i, cap, T, p, q, pr, n_hand)
        if quest_met(T, qk[q], pr, n, wi):
            out[k_out] = q
            k_out += 1
    return k_out


@kernel
def start_quest(c, w, i, cap, T, p, qkind):
    """quests.rules.start_quest (a rules.MAIN_BLOCKS entry): pay first for the first quest instance of kind qkind p may complete."""
    rows = max(cap, T[2].shape[1]) + 8             # R.workspace's sizes (a quest start is rare)
    wi = np.zeros(R.WI_COMP + 7 * rows, dtype=np.int64)
    wp = np.zeros((3 * rows, 3), dtype=np.int64)
    qs = wi[R.reg(wi, R.R_QUESTS):]
    for t in range(completable(c, w, i, cap, T, p, qs, wi, wp)):
        if T[1][qs[t]] == qkind:
            w[i, W_TARGET] = qs[t]
            break
    R.set_len(w, i, L_PAY, 0)
    w[i, W_PHASE] = A.QUEST_PAY


@kernel
def complete_quest(c, w, i, cap, T, p):
    """quests.rules.complete_quest (Q-Q3); False, nothing changed, where it reaches the goal (Q-E1) or the
    goal is the Abbey's lines: the scalar core ends the game."""
    flags = T[12]
    q = w[i, W_TARGET]
    kq = T[1][q]
    quests = seat_list(p, P_QUESTS)
    personal = R.contains(c, w, i, quests, cap, q)
    pts = T[16][kq]
    j = -1
    if not personal:
        for x in range(NUM_OPEN_QUESTS):
            if w[i, W_OPEN + x] == q:
                j = x
                break
        if w[i, W_OBONUS + j]:
            pts += 1
    side = pts                                      # turn_flow.rules.goal_reached after the points
    for o in range(flags[F_N]):
        if o == p or (flags[F_TEAMS] and (o - p) % 2 == 0):
            side += w[i, sf(o, S_SCORES)]
    if flags[F_GOAL] < 0 or side >= flags[F_GOAL]:
        return False
    discard = seat_list(p, P_DISCARD)
    R.extend(c, w, i, discard, L_PAY, cap)
    committed_pop(c, w, i, cap, p, q, discard)
    if personal:
        R.remove(c, w, i, quests, cap, q)
    else:
        w[i, W_OPEN + j] = -1
        if w[i, W_OBONUS + j]:
            w[i, W_OBONUS + j] = 0
            w[i, sf(p, S_BONUS)] += 1
        for o in range(flags[F_N]):                 # tokens on it return, cards to discard
            if w[i, sf(o, S_TOKEN)] == q:
                w[i, sf(o, S_TOKEN)] = -1
                committed_pop(c, w, i, cap, o, q, seat_list(o, P_DISCARD))
    R.append(c, w, i, seat_list(p, P_COMPLETED), cap, q)
    reward = T[19]
    w[i, sf(p, S_GEMS)] += take(w, i, W_SUPPLY, reward[kq, 0])
    w[i, sf(p, S_CARPETS)] += take(w, i, W_SUPPLY + 1, reward[kq, 1])
    w[i, sf(p, S_RESHUFFLES)] += take(w, i, W_SUPPLY + 2, reward[kq, 2])
    w[i, sf(p, S_SCORES)] += pts
    w[i, W_ACTION_USED] = 1
    w[i, W_PHASE] = A.MAIN
    return True


@kernel
def quest_pay(c, w, i, cap, T, p, a):
    """quests.rules.apply_quest_pay (QUEST_PAY)."""
    if a == A.CANCEL:
        R.extend(c, w, i, seat_list(p, P_HAND), L_PAY, cap)
        w[i, W_PHASE] = A.MAIN
        return True
    if a == A.CONFIRM:
        return complete_quest(c, w, i, cap, T, p)
    pay_card(c, w, i, cap, T, p, a - A.HAND)
    return True
