"""The transitions the batched kernels port (`fantastiqa_rl.vector_kernels.step`), as numba functions over
one packed row (`fantastiqa_rl.vector_state`); each is a line-by-line port of the scalar method named
in its docstring (fantastiqa_rl.rules; a rule topic's steps live in its folder, dispatched here by
`apply` or called by `main`: the statues' in `fantastiqa_rl.statues.kernels`, the powers' in
`fantastiqa_rl.powers.kernels`, the end of the turn's in `fantastiqa_rl.turn_flow.kernels`, the
quests' in `fantastiqa_rl.quests.kernels`, the setup decisions' in `fantastiqa_rl.setup.kernels`, the
adventure's in `fantastiqa_rl.adventure.kernels`; `take`, `draw`, `committed_pop`, `pay_card` and
`use_carpet` are `fantastiqa_rl.vector_rows`', re-exported). Each returns True when it
applied the action and False, before changing anything, where the scalar core must (a position the
port does not cover), or where the step may shuffle and `st` is empty: `st` is the mover's chance
Generator as PCG64 state words (`fantastiqa_rl.vector_chance`), given by the caller for the steps
that need it (FantastiqaVector.step asks again with it for the games a first pass left), so that a
reshuffle (Q-X1, Q-F4) draws in the kernel exactly what the scalar core's Generator draws.
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_chance as CH
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl.adventure.kernels import adv_move, adv_pay, move_dest
from fantastiqa_rl.board import NUM_OPEN_QUESTS, P_EFFECT
from fantastiqa_rl.powers.kernels import (bell, brew_card, effects_may_reshuffle, glass, play_card, target_seat,
                                          wardrobe)
from fantastiqa_rl.quests.kernels import quest_pay, start_quest
from fantastiqa_rl.setup.kernels import setup
from fantastiqa_rl.statues.kernels import buy, chest, release, statue_option
from fantastiqa_rl.turn_flow.kernels import end_turn, finish_turn
from fantastiqa_rl.vector_rules import F_FORBID, F_MARK_FORBID, at, ln, seat_list
# take, draw, committed_pop, pay_card and use_carpet are vector_rows' (shared by topics), re-exported here
from fantastiqa_rl.vector_rows import committed_pop, draw, pay_card, sf, take, use_carpet  # noqa: F401
from fantastiqa_rl.vector_state import (L_ADVENTURE, L_BOOSTED,
                                        L_TOKEN_LEFT,
                                        P_C_CARDS, P_C_OF, P_C_ORDER,
                                        P_DECK, P_DISCARD, P_HAND,
                                        S_POS, S_RESHUFFLES,
                                        S_TOKEN,
                                        W_CANCELS, W_COUNT, W_CUR,
                                        W_KEY, W_OPEN, W_PHASE, W_PREV,
                                        W_SUPPLY, W_TARGET,
                                        W_VISITED)
from fantastiqa_rl.vector_state import kernel


# ---------------------------------------------------------------- committed maps (seat p's quest -> cards; committed_pop
# is vector_rows', shared with the quests)
@kernel
def committed_add(c, w, i, cap, p, q, x):
    """committed[p][q].append(x)."""
    R.append(c, w, i, seat_list(p, P_C_CARDS), cap, x)
    R.append(c, w, i, seat_list(p, P_C_OF), cap, q)


# ---------------------------------------------------------------- MAIN and FREE_MENU (Rules._apply_main)
@kernel
def mark(c, w, i, cap, T, p, j):
    """Rules._mark (Q-F2)."""
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
    """Rules._apply_commit_target: the first committed quest of kind qkind takes a hand card of kind target."""
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
    """Rules._commit: COMMIT_TARGET, skipped when only one quest can take the card."""
    w[i, W_TARGET] = k
    w[i, W_PHASE] = A.COMMIT_TARGET
    qs = np.empty(ln(w, i, seat_list(p, P_C_ORDER)), dtype=np.int64)
    if R.commit_targets(c, w, i, cap, T, p, k, qs) == 1:
        commit_to(c, w, i, cap, T, p, T[1][qs[0]])


@kernel
def withdraw_from(c, w, i, cap, T, p, qkind):
    """Rules._apply_withdraw_from: a committed card of kind target, from the first quest of kind qkind holding one."""
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
    """Rules._withdraw: WITHDRAW_FROM, skipped when only one quest holds that kind."""
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


@kernel
def main(c, w, i, cap, T, p, a, quest0, st):
    """Rules._apply_main (MAIN, and FREE_MENU after it set MAIN); a step that may shuffle only with
    p's Generator (`st`)."""
    K = T[2].shape[1]
    if a == A.DONE:
        return end_turn(c, w, i, cap, T, p, st)
    if a == A.FREE_ACTION:
        w[i, W_PHASE] = A.FREE_MENU
    elif a == A.VISIT_STATUE:
        w[i, W_KEY] = 0
        w[i, W_PHASE] = A.STATUE_OPTION
    elif a == A.ADVENTURE:
        w[i, W_VISITED] = 1 << w[i, sf(p, S_POS)]
        w[i, W_PREV] = -1
        w[i, W_COUNT] = 0
        R.set_len(w, i, L_ADVENTURE, 0)
        w[i, W_PHASE] = A.ADV_MOVE
    elif a == A.CARPET:
        use_carpet(w, i, p)
    elif A.MARK <= a < A.MARK + NUM_OPEN_QUESTS:
        return mark(c, w, i, cap, T, p, a - A.MARK)
    elif A.HAND <= a < A.HAND + K:
        if st.size == 0 and T[5][a - A.HAND] == P_EFFECT and effects_may_reshuffle(c, w, i, cap, T, p, a - A.HAND):
            return False                            # a draw could reshuffle: ask with the Generator
        play_card(c, w, i, cap, T, p, a - A.HAND, st)
    elif A.HAND + K <= a < A.HAND + 2 * K:
        commit(c, w, i, cap, T, p, a - A.HAND - K)
    elif A.HAND + 2 * K <= a < A.HAND + 3 * K:
        withdraw(c, w, i, cap, T, p, a - A.HAND - 2 * K)
    elif a == A.RESHUFFLE and st.size:              # Rules._reshuffle (Q-F4)
        w[i, sf(p, S_RESHUFFLES)] -= 1
        w[i, W_SUPPLY + 2] += 1
        deck = seat_list(p, P_DECK)
        R.extend(c, w, i, deck, seat_list(p, P_DISCARD), cap)
        CH.shuffle(c, i, deck * cap, ln(w, i, deck), st)
    elif quest0 <= a < quest0 + T[8].size:
        start_quest(c, w, i, cap, T, p, a - quest0)
    else:
        return False                                # RESHUFFLE without the Generator, EXPLORE
    return True


@kernel
def apply(c, w, i, cap, T, a, quest0, st):
    """Apply legal action a to game i where ported (True), else change nothing (False); `st`: the
    mover's chance Generator as state words (vector_chance), left as the step's shuffles leave it, or
    an empty array (then a step that may shuffle is left: False)."""
    ph = w[i, W_PHASE]
    p = w[i, W_CUR]
    if a == A.CANCEL and T[12][F_FORBID]:           # Rules._do: Q-T2's budget counts every CANCEL
        if not (ph == A.STATUE_OPTION or ph == A.ADV_MOVE or ph == A.ADV_PAY or ph == A.QUEST_PAY
                or ph == A.RELEASE):
            return False
        w[i, W_CANCELS] += 1
    if ph == A.END_DISCARD:
        if a == A.DONE:
            return finish_turn(c, w, i, cap, T, p, st)
        hand = seat_list(p, P_HAND)
        x = R.find(c, w, i, hand, cap, T[0], a - A.HAND, False)
        R.remove(c, w, i, hand, cap, x)
        R.append(c, w, i, seat_list(p, P_DISCARD), cap, x)
        return True
    if ph == A.MAIN:
        return main(c, w, i, cap, T, p, a, quest0, st)
    if ph == A.FREE_MENU:
        w[i, W_PHASE] = A.MAIN
        if main(c, w, i, cap, T, p, a, quest0, st):
            return True
        w[i, W_PHASE] = A.FREE_MENU                 # untouched otherwise (main changed nothing)
        return False
    if ph == A.ADV_MOVE:
        return adv_move(c, w, i, cap, T, p, a, st)
    if ph == A.ADV_PAY:
        return adv_pay(c, w, i, cap, T, p, a)
    if ph == A.QUEST_PAY:
        return quest_pay(c, w, i, cap, T, p, a)
    if ph == A.MOVE_DEST:
        return move_dest(c, w, i, cap, T, p, a, st)
    if ph == A.STATUE_OPTION:
        return statue_option(c, w, i, cap, T, p, a)
    if ph == A.BUY:
        return buy(c, w, i, cap, T, p, a)
    if ph == A.CHEST:
        return chest(c, w, i, cap, T, p, a, quest0)
    if ph == A.RELEASE:
        return release(c, w, i, cap, T, p, a)
    if ph == A.COMMIT_TARGET:
        commit_to(c, w, i, cap, T, p, a - quest0)
        return True
    if ph == A.WITHDRAW_FROM:
        withdraw_from(c, w, i, cap, T, p, a - quest0)
        return True
    if ph == A.TARGET_SEAT:
        return target_seat(c, w, i, cap, T, p, a, st)
    if ph == A.SETUP_QUEST or ph == A.SETUP_ARTIFACT or ph == A.SETUP_PLACE:
        return setup(c, w, i, cap, T, p, a, quest0)
    if ph == A.GLASS:
        return glass(c, w, i, cap, T, p, a, st)
    if ph == A.BELL:
        return bell(c, w, i, cap, T, p, a, st)
    if ph == A.BREW_CARD:
        return brew_card(c, w, i, cap, T, p, a)
    if ph == A.WARDROBE:
        return wardrobe(c, w, i, cap, T, p, a, st)
    return False
