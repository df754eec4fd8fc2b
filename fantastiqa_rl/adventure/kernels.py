"""The adventure's batched kernels (Q-A1..Q-A4, Q-M1): numba ports, over the packed rows of
`fantastiqa_rl.vector_state`, of the scalar rules in `fantastiqa_rl.adventure.rules`; each docstring
names the scalar function it ports line by line.

- the mask rows `_adv_move_row` and `_move_dest_row` (dispatched by
  `fantastiqa_rl.vector_kernels.legal`);
- the steps `adv_move`, `adv_pay` and `move_dest` (dispatched by `fantastiqa_rl.vector_steps.apply`)
  and the move `move_to`.
Shared and left out: ADV_PAY's mask row `vector_kernels._pay_row` (`vector_rules.legal_pay`, also
QUEST_PAY's); the steps a FLY, carpet or adventure may use (`vector_rules.moves_any`, `pay_moves`,
also asked by MAIN's row, the free actions and the greedy bot); `use_carpet` (also MAIN's CARPET)
and `pay_card` (also QUEST_PAY's) are `fantastiqa_rl.vector_rows`'; `vector_pay` serves QUEST_PAY as
well and stays.

This module imports the row primitives and shared steps (`fantastiqa_rl.vector_rows`), the queries of
`fantastiqa_rl.vector_rules` (as `R`: `pay_moves`, `moves_any`, the neighbour tables, the workspace
regions; `vector_rules` does not import this module) and the powers' kernels (a FLY card played as a
step, the effects after a MOVE_DEST from MAIN). `vector_steps` / `vector_kernels` import it. Its
source is hashed into the kernels' cache key (`vector_state._KERNEL_SOURCES`).
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl.board import P_FLY
from fantastiqa_rl.powers.kernels import effects_may_reshuffle, play_card, run_effects
from fantastiqa_rl.vector_rules import NB_DEST, NB_N, NB_SPACE
from fantastiqa_rl.vector_rows import ln as _len, seat_list as _seat     # the mask rows' names (vector_kernels')
from fantastiqa_rl.vector_rows import pay_card, seat_list, sf, use_carpet
from fantastiqa_rl.vector_state import (L_ADVENTURE, L_PAY, L_POWERED, MAX_SEATS, P_DISCARD, P_HAND, S_CARPETS,
                                        S_GEMS, S_POS, W_ACTION_USED, W_BGEMS, W_BOARD, W_COUNT, W_CUR, W_PHASE,
                                        W_PREV, W_RET, W_SEATS, W_TARGET, W_VISITED)
from fantastiqa_rl.vector_state import kernel


@kernel
def _adv_move_row(c, w, i, cap, T, row, quest0, wi, wp):
    """adventure.rules.legal_adv_move."""
    flags = T[12]
    hk = T[0]
    p = w[i, W_CUR]
    hand = _seat(p, P_HAND)
    visited, prev = w[i, W_VISITED], w[i, W_PREV]
    dests = wi[R.reg(wi, R.R_DESTS):]
    for t in range(R.pay_moves(c, w, i, cap, T, p, visited, prev, dests, wi, wp)):
        row[A.REGION + dests[t]] = True
    row[A.DONE if w[i, W_COUNT] else A.CANCEL] = True
    if flags[R.F_FLY_IN_ADV] and R.moves_any(w, i, flags[R.F_SIMPLE], p, True, visited, prev):
        if w[i, W_SEATS + MAX_SEATS * S_CARPETS + p]:
            row[A.CARPET] = True
        n_pw = _len(w, i, L_POWERED)
        for t in range(_len(w, i, hand)):
            x = c[i, hand * cap + t]
            if T[5][hk[x]] == P_FLY and not (n_pw and R.contains(c, w, i, L_POWERED, cap, x)):
                row[A.HAND + hk[x]] = True


@kernel
def _move_dest_row(c, w, i, cap, T, row, quest0, wi, wp):
    """adventure.rules.legal_move_dest."""
    flags = T[12]
    p = w[i, W_CUR]
    adventure = w[i, W_RET] == A.ADV_MOVE
    visited, prev = w[i, W_VISITED], w[i, W_PREV]
    pos = w[i, W_SEATS + MAX_SEATS * S_POS + p]
    for j in range(R.NB_N[pos]):
        if w[i, W_BOARD + R.NB_SPACE[pos, j]] < 0:
            continue
        d = R.NB_DEST[pos, j]
        if adventure and (((visited >> d) & 1) if flags[R.F_SIMPLE] else d == prev):
            continue
        row[A.REGION + d] = True


@kernel
def move_to(w, i, p, dest):
    """adventure.rules.move_to."""
    w[i, W_PREV] = w[i, sf(p, S_POS)]
    w[i, sf(p, S_POS)] = dest
    w[i, W_VISITED] |= 1 << dest


@kernel
def adv_move(c, w, i, cap, T, p, a, st):
    """adventure.rules.apply_adv_move."""
    K = T[2].shape[1]
    if a == A.DONE:
        R.extend(c, w, i, seat_list(p, P_DISCARD), L_ADVENTURE, cap)   # Q-A4
        w[i, W_ACTION_USED] = 1
        w[i, W_PHASE] = A.MAIN
    elif a == A.CANCEL:
        w[i, W_PHASE] = A.MAIN
    elif a == A.CARPET:
        use_carpet(w, i, p)
    elif A.HAND <= a < A.HAND + K:                  # FLY card as a path step
        play_card(c, w, i, cap, T, p, a - A.HAND, st)
        w[i, W_PHASE] = A.MOVE_DEST
        w[i, W_RET] = A.ADV_MOVE
    else:
        dest = a - A.REGION
        pos = w[i, sf(p, S_POS)]
        for j in range(NB_N[pos]):
            if NB_DEST[pos, j] == dest:
                w[i, W_TARGET] = NB_SPACE[pos, j]
                break
        R.set_len(w, i, L_PAY, 0)
        w[i, W_PHASE] = A.ADV_PAY
    return True


@kernel
def adv_pay(c, w, i, cap, T, p, a):
    """adventure.rules.apply_adv_pay."""
    if a == A.CANCEL:                               # payment.cancel_payment
        R.extend(c, w, i, seat_list(p, P_HAND), L_PAY, cap)
        w[i, W_PHASE] = A.ADV_MOVE
    elif a == A.CONFIRM:
        s = w[i, W_TARGET]
        R.append(c, w, i, L_ADVENTURE, cap, w[i, W_BOARD + s])
        R.extend(c, w, i, L_ADVENTURE, L_PAY, cap)
        w[i, W_BOARD + s] = -1
        w[i, sf(p, S_GEMS)] += w[i, W_BGEMS + s]
        w[i, W_BGEMS + s] = 0
        pos = w[i, sf(p, S_POS)]
        for j in range(NB_N[pos]):
            if NB_SPACE[pos, j] == s:
                move_to(w, i, p, NB_DEST[pos, j])
                break
        w[i, W_COUNT] += 1
        w[i, W_PHASE] = A.ADV_MOVE
    else:
        pay_card(c, w, i, cap, T, p, a - A.HAND)
    return True


@kernel
def move_dest(c, w, i, cap, T, p, a, st):
    """adventure.rules.apply_move_dest."""
    ret = w[i, W_RET]
    if ret == A.MAIN and st.size == 0 and effects_may_reshuffle(c, w, i, cap, T, p, -1):
        return False
    move_to(w, i, p, a - A.REGION)
    w[i, W_PHASE] = ret
    if ret == A.MAIN:
        run_effects(c, w, i, cap, T, p, st)
    return True
