"""The transitions the batched kernels port (`fantastiqa_rl.vector_kernels.step`), as numba functions over
one packed row (`fantastiqa_rl.vector_state`); each is a line-by-line port of the scalar function named
in its docstring: here the dispatch (`apply`: `rules.do` and each phase's transition; `main`:
`rules.apply_main`); a rule topic's steps live in its folder, dispatched here by `apply` or called by
`main`: the statues' in `fantastiqa_rl.statues.kernels`, the powers' in
`fantastiqa_rl.powers.kernels`, the end of the turn's in `fantastiqa_rl.turn_flow.kernels`, the
quests' in `fantastiqa_rl.quests.kernels`, the setup decisions' in `fantastiqa_rl.setup.kernels`, the
adventure's in `fantastiqa_rl.adventure.kernels`, the free actions' in
`fantastiqa_rl.free_actions.kernels`; the row primitives are `fantastiqa_rl.vector_rows`'). Each returns True when it
applied the action and False, before changing anything, where the scalar core must (a position the
port does not cover), or where the step may shuffle and `st` is empty: `st` is the mover's chance
Generator as PCG64 state words (`fantastiqa_rl.vector_chance`), given by the caller for the steps
that need it (FantastiqaVector.step asks again with it for the games a first pass left), so that a
reshuffle (Q-X1, Q-F4) draws in the kernel exactly what the scalar core's Generator draws.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl.adventure.kernels import adv_move, adv_pay, move_dest
from fantastiqa_rl.board import NUM_OPEN_QUESTS, P_EFFECT
from fantastiqa_rl.free_actions.kernels import commit, commit_to, mark, reshuffle, withdraw, withdraw_from
from fantastiqa_rl.powers.kernels import (bell, brew_card, effects_may_reshuffle, glass, play_card, target_seat,
                                          wardrobe)
from fantastiqa_rl.quests.kernels import quest_pay, start_quest
from fantastiqa_rl.setup.kernels import setup
from fantastiqa_rl.statues.kernels import buy, chest, release, statue_option
from fantastiqa_rl.turn_flow.kernels import end_turn, finish_turn
from fantastiqa_rl.vector_rules import F_FORBID, seat_list
from fantastiqa_rl.vector_rows import sf, use_carpet
from fantastiqa_rl.vector_state import (L_ADVENTURE, P_DISCARD, P_HAND, S_POS, W_CANCELS, W_COUNT, W_CUR, W_KEY,
                                        W_PHASE, W_PREV, W_VISITED)
from fantastiqa_rl.vector_state import kernel


# ---------------------------------------------------------------- MAIN and FREE_MENU (rules.apply_main)
@kernel
def main(c, w, i, cap, T, p, a, quest0, st):
    """rules.apply_main (MAIN, and FREE_MENU after it set MAIN); a step that may shuffle only with
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
    elif a == A.RESHUFFLE and st.size:              # it shuffles: only with the Generator
        reshuffle(c, w, i, cap, p, st)
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
    if a == A.CANCEL and T[12][F_FORBID]:           # rules.do: Q-T2's budget counts every CANCEL
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
