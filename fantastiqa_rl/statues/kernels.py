"""The statues' batched kernels (Q-V1..Q-V3): numba ports, over the packed rows of
`fantastiqa_rl.vector_state`, of the scalar rules in `fantastiqa_rl.statues.rules`; each docstring
names the scalar function it ports line by line.

- the query `statue_options` (asked by `vector_kernels._main_row` for VISIT_STATUE and by
  `free_actions.kernels.free_actions` for a KEY) and `write_statue_options`;
- the mask rows `_statue_option_row`, `_buy_row`, `_chest_row`, `_release_row`
  (dispatched by `fantastiqa_rl.vector_kernels.legal`);
- the steps `statue_option`, `buy`, `chest`, `release` (dispatched by
  `fantastiqa_rl.vector_steps.apply`) and their helpers `statue_done` and `return_revealed`;
  CHEST's `take_quest` is shared with the setup's SETUP_QUEST and is `fantastiqa_rl.vector_rows`'.

This module imports only the row primitives (`fantastiqa_rl.vector_rows`) and the tables below the
kernels, never `vector_rules` / `vector_steps` / `vector_kernels`: they import it. Its source is
hashed into the kernels' cache key (`vector_state._KERNEL_SOURCES`).
"""
from __future__ import annotations

from numba import njit

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_rows as R
from fantastiqa_rl.board import CHEST, NUM_POSITIONS
from fantastiqa_rl.statues.rules import PERSONAL_QUEST_CAP, RELEASE_MAX, STATUE_REVEAL, TELEPORT_COST
from fantastiqa_rl.vector_rows import F_TO_HAND, SUP_GEMS, at, ln, seat_field, seat_list, sf, take_quest
from fantastiqa_rl.vector_rows import ln as _len, seat_list as _seat     # the mask rows' names (vector_kernels')
from fantastiqa_rl.vector_state import (L_ARTIFACT_DECK, L_BOX, L_PAY, L_RELEASE, L_REVEALED, MAX_SEATS,
                                        P_DISCARD, P_HAND, P_QUESTS, S_GEMS, S_POS, W_ACTION_USED,
                                        W_COUNT, W_CUR, W_KEY, W_PHASE, W_PLUS, W_SEATS, W_STATUE)
from fantastiqa_rl.vector_state import kernel


# ---------------------------------------------------------------- the query (statues.rules.statue_options)
@njit(cache=True, inline="always")
def statue_options(c, w, i, cap, p, leaving):
    """Bits of the statue options at p's region: 1 STATUE_DRAW, 2 STATUE_RELEASE, 4 STATUE_TELEPORT."""
    pos = seat_field(w, i, S_POS, p)
    st = w[i, W_STATUE + pos]
    out = 0
    if ln(w, i, L_ARTIFACT_DECK + st) and not (st == CHEST and ln(w, i, seat_list(p, P_QUESTS)) >= PERSONAL_QUEST_CAP):
        out |= 1
    gems = seat_field(w, i, S_GEMS, p)
    if gems >= 1 and (ln(w, i, seat_list(p, P_HAND)) > leaving or ln(w, i, seat_list(p, P_DISCARD))):
        out |= 2
    if gems >= TELEPORT_COST:
        out |= 4
    return out


@kernel
def write_statue_options(row, bits):
    if bits & 1:
        row[A.STATUE_DRAW] = True
    if bits & 2:
        row[A.STATUE_RELEASE] = True
    if bits & 4:
        row[A.STATUE_TELEPORT] = True


# ---------------------------------------------------------------- mask rows (statues.rules.legal_*)
@kernel
def _statue_option_row(c, w, i, cap, T, row, quest0, wi, wp):
    """statues.rules.legal_statue_option."""
    p = w[i, W_CUR]
    write_statue_options(row, statue_options(c, w, i, cap, p, 0))
    if not w[i, W_KEY]:
        row[A.CANCEL] = True


@kernel
def _buy_row(c, w, i, cap, T, row, quest0, wi, wp):
    """statues.rules.legal_buy."""
    hk = T[0]
    p = w[i, W_CUR]
    row[A.DONE] = True
    K = T[2].shape[1]
    gems = w[i, W_SEATS + MAX_SEATS * S_GEMS + p]
    for t in range(_len(w, i, L_REVEALED)):
        k = hk[c[i, L_REVEALED * cap + t]]
        if T[13][k] <= gems:
            row[A.HAND + 2 * K + k] = True


@kernel
def _chest_row(c, w, i, cap, T, row, quest0, wi, wp):
    """statues.rules.legal_chest."""
    p = w[i, W_CUR]
    if w[i, W_COUNT]:
        row[A.DONE] = True
    if _len(w, i, _seat(p, P_QUESTS)) < PERSONAL_QUEST_CAP:
        for t in range(_len(w, i, L_REVEALED)):
            row[quest0 + T[1][c[i, L_REVEALED * cap + t]]] = True


@kernel
def _release_row(c, w, i, cap, T, row, quest0, wi, wp):
    """statues.rules.legal_release."""
    hk = T[0]
    p = w[i, W_CUR]
    hand = _seat(p, P_HAND)
    row[A.CANCEL] = True
    n = _len(w, i, L_PAY) + _len(w, i, L_RELEASE)
    if n:
        row[A.CONFIRM] = True
    if n < RELEASE_MAX and n < w[i, W_SEATS + MAX_SEATS * S_GEMS + p]:
        K = T[2].shape[1]
        for t in range(_len(w, i, hand)):
            row[A.HAND + hk[c[i, hand * cap + t]]] = True
        discard = _seat(p, P_DISCARD)
        for t in range(_len(w, i, discard)):
            row[A.HAND + 2 * K + hk[c[i, discard * cap + t]]] = True


# ---------------------------------------------------------------- steps (statues.rules.apply_*)
@kernel
def statue_done(w, i):
    """statues.rules.statue_done."""
    if w[i, W_KEY]:
        w[i, W_KEY] = 0
    else:
        w[i, W_ACTION_USED] = 1
    w[i, W_PHASE] = A.MAIN


@kernel
def statue_option(c, w, i, cap, T, p, a):
    """statues.rules.apply_statue_option / start_option."""
    if a == A.CANCEL:
        w[i, W_PHASE] = A.MAIN
        return True
    pos = w[i, sf(p, S_POS)]
    st = w[i, W_STATUE + pos]
    if a == A.STATUE_DRAW:                          # Q-V1: the top cards, no shuffle
        deck = L_ARTIFACT_DECK + st
        for _ in range(STATUE_REVEAL + w[i, W_PLUS]):
            k = ln(w, i, deck)
            if k == 0:
                break
            R.append(c, w, i, L_REVEALED, cap, at(c, i, deck, cap, k - 1))
            R.set_len(w, i, deck, k - 1)
        w[i, W_PLUS] = 0
        w[i, W_COUNT] = 0
        w[i, W_PHASE] = A.CHEST if st == CHEST else A.BUY
    elif a == A.STATUE_RELEASE:                     # Q-V2
        R.set_len(w, i, L_PAY, 0)
        R.set_len(w, i, L_RELEASE, 0)
        w[i, W_PHASE] = A.RELEASE
    else:                                           # Q-V3 teleport
        w[i, sf(p, S_GEMS)] -= TELEPORT_COST
        w[i, SUP_GEMS] += TELEPORT_COST
        for r in range(NUM_POSITIONS):
            if r != pos and w[i, W_STATUE + r] == st:
                w[i, sf(p, S_POS)] = r
                break
        statue_done(w, i)
    return True


@kernel
def return_revealed(c, w, i, cap):
    """statues.rules.return_revealed: the revealed cards to the bottom of their deck, in draw order."""
    st = w[i, W_STATUE + w[i, sf(w[i, W_CUR], S_POS)]]
    deck = L_ARTIFACT_DECK + st
    k, r = ln(w, i, deck), ln(w, i, L_REVEALED)
    base = deck * cap
    for t in range(k - 1, -1, -1):
        c[i, base + r + t] = c[i, base + t]
    for t in range(r):
        c[i, base + t] = at(c, i, L_REVEALED, cap, r - 1 - t)
    R.set_len(w, i, deck, k + r)
    R.set_len(w, i, L_REVEALED, 0)


@kernel
def buy(c, w, i, cap, T, p, a):
    """statues.rules.apply_buy."""
    if a == A.DONE:
        return_revealed(c, w, i, cap)
        statue_done(w, i)
        return True
    K = T[2].shape[1]
    k = a - A.HAND - 2 * K
    cost = T[13][k]
    x = R.find(c, w, i, L_REVEALED, cap, T[0], k, False)
    R.remove(c, w, i, L_REVEALED, cap, x)
    w[i, sf(p, S_GEMS)] -= cost
    w[i, SUP_GEMS] += cost
    R.append(c, w, i, seat_list(p, P_HAND if T[12][F_TO_HAND] else P_DISCARD), cap, x)
    return True


@kernel
def chest(c, w, i, cap, T, p, a, quest0):
    """statues.rules.apply_chest."""
    if a == A.DONE:
        return_revealed(c, w, i, cap)
        statue_done(w, i)
        return True
    if not take_quest(c, w, i, cap, T, p, a, quest0, L_REVEALED):
        return False
    w[i, W_COUNT] += 1
    if ln(w, i, L_REVEALED) == 0:
        statue_done(w, i)
    return True


@kernel
def release(c, w, i, cap, T, p, a):
    """statues.rules.apply_release."""
    K = T[2].shape[1]
    hand, discard = seat_list(p, P_HAND), seat_list(p, P_DISCARD)
    if a == A.CANCEL:                               # nothing released; a KEY is spent anyway
        R.extend(c, w, i, hand, L_PAY, cap)
        R.extend(c, w, i, discard, L_RELEASE, cap)
        w[i, W_KEY] = 0
        w[i, W_PHASE] = A.MAIN
    elif a == A.CONFIRM:                            # released cards leave the game, 1 gem each
        n = ln(w, i, L_PAY) + ln(w, i, L_RELEASE)
        R.extend(c, w, i, L_BOX, L_PAY, cap)
        R.extend(c, w, i, L_BOX, L_RELEASE, cap)
        w[i, sf(p, S_GEMS)] -= n
        w[i, SUP_GEMS] += n
        statue_done(w, i)
    elif a < A.HAND + K:
        x = R.find(c, w, i, hand, cap, T[0], a - A.HAND, False)
        R.remove(c, w, i, hand, cap, x)
        R.append(c, w, i, L_PAY, cap, x)
    else:
        x = R.find(c, w, i, discard, cap, T[0], a - A.HAND - 2 * K, False)
        R.remove(c, w, i, discard, cap, x)
        R.append(c, w, i, L_RELEASE, cap, x)
    return True
