"""The setup decisions' batched kernels (Q-S4, Q-S5): numba ports, over the packed rows of
`fantastiqa_rl.vector_state`, of the scalar rules in `fantastiqa_rl.setup.rules`; each docstring names
the scalar functions it ports line by line.

- the mask row `_setup_row` (SETUP_QUEST, SETUP_ARTIFACT, SETUP_PLACE; dispatched by
  `fantastiqa_rl.vector_kernels.legal`);
- the step `setup` (dispatched by `fantastiqa_rl.vector_steps.apply`): every setup decision but the
  last seat's SETUP_PLACE, whose end of setup (`turn_flow.rules.finish_setup`) shuffles and is left to
  the scalar core. A starting quest is taken by `take_quest`, which the statues' CHEST shares: it is
  `fantastiqa_rl.vector_rows`'.

This module imports only the row primitives (`fantastiqa_rl.vector_rows`) and the tables below the
kernels, never `vector_rules` / `vector_steps` / `vector_kernels`: they import it. Its source is
hashed into the kernels' cache key (`vector_state._KERNEL_SOURCES`).
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_rows as R
from fantastiqa_rl.vector_rows import at, ln, seat_list, sf, take_quest
from fantastiqa_rl.vector_rows import ln as _len                   # the mask rows' name (vector_kernels')
from fantastiqa_rl.vector_state import (L_OFFER_ARTIFACTS, L_OFFER_QUESTS, MAX_SEATS, NUM_POSITIONS, P_HAND,
                                        S_POS, W_CUR, W_PHASE, W_SEATS)
from fantastiqa_rl.vector_state import kernel


@kernel
def _setup_row(c, w, i, cap, T, row, quest0, wi, wp):
    """setup.rules.legal_setup_quest, legal_setup_artifact, legal_setup_place."""
    flags = T[12]
    hk = T[0]
    ph = w[i, W_PHASE]
    if ph == A.SETUP_QUEST:                         # legal_setup_quest
        for t in range(_len(w, i, L_OFFER_QUESTS)):
            row[quest0 + T[1][c[i, L_OFFER_QUESTS * cap + t]]] = True
        return True
    if ph == A.SETUP_ARTIFACT:                      # legal_setup_artifact
        K = T[2].shape[1]
        for t in range(_len(w, i, L_OFFER_ARTIFACTS)):
            row[A.HAND + 2 * K + hk[c[i, L_OFFER_ARTIFACTS * cap + t]]] = True
        return True
    if ph == A.SETUP_PLACE:                         # legal_setup_place
        for r in range(NUM_POSITIONS):
            row[A.REGION + r] = True
        for o in range(flags[R.F_N]):
            if w[i, W_SEATS + MAX_SEATS * S_POS + o] >= 0:
                row[A.REGION + w[i, W_SEATS + MAX_SEATS * S_POS + o]] = False
        return True
    return True


@kernel
def setup(c, w, i, cap, T, p, a, quest0):
    """setup.rules.apply_setup_quest, apply_setup_artifact, apply_setup_place: SETUP_QUEST,
    SETUP_ARTIFACT, and SETUP_PLACE but the last seat's (its end of setup shuffles)."""
    ph = w[i, W_PHASE]
    if ph == A.SETUP_QUEST:
        if not take_quest(c, w, i, cap, T, p, a, quest0, L_OFFER_QUESTS):
            return False
        w[i, W_PHASE] = A.SETUP_ARTIFACT
        return True
    if ph == A.SETUP_ARTIFACT:
        K = T[2].shape[1]
        for t in range(ln(w, i, L_OFFER_ARTIFACTS)):
            x = at(c, i, L_OFFER_ARTIFACTS, cap, t)
            if A.HAND + 2 * K + T[0][x] == a:
                R.remove_at(c, w, i, L_OFFER_ARTIFACTS, cap, t)
                R.append(c, w, i, seat_list(p, P_HAND), cap, x)
                w[i, W_PHASE] = A.SETUP_PLACE
                return True
        return False
    if p == 0:
        return False                                # turn_flow.rules.finish_setup shuffles
    w[i, sf(p, S_POS)] = a - A.REGION
    w[i, W_CUR] = p - 1
    w[i, W_PHASE] = A.SETUP_QUEST
    return True
