"""The powers' batched kernels (Q-F1: card powers and artifact effects): numba ports, over the packed
rows of `fantastiqa_rl.vector_state`, of the scalar rules in `fantastiqa_rl.powers.rules`; each
docstring names the scalar function it ports line by line.

- the query `opponents_here` (asked by `free_actions.kernels.free_actions`, which ports both
  `free_actions.rules.legal_free` and `powers.rules.power_ok`);
- the mask rows `_target_seat_row` and `_effect_row` (GLASS, BELL, BREW_CARD, WARDROBE), dispatched
  by `fantastiqa_rl.vector_kernels.legal`;
- the steps `target_seat`, `glass`, `bell`, `brew_card`, `wardrobe` (dispatched by
  `fantastiqa_rl.vector_steps.apply`), `play_card` (called by `vector_steps.main` and `adv_move`),
  `run_effects` and `effects_may_reshuffle` (also called by `adventure.kernels.move_dest` and `vector_steps.main`).

This module imports only the row primitives (`fantastiqa_rl.vector_rows`, which also hold the
supply's `take` and the reshuffling `draw` that the effects share with the turn flow) and the tables
below the kernels, never `vector_rules` / `vector_steps` / `vector_kernels`: they import it. Its
source is hashed into the kernels' cache key (`vector_state._KERNEL_SOURCES`).
"""
from __future__ import annotations

from numba import njit

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_rows as R
from fantastiqa_rl.board import NUM_SPACES, P_DRAGON, P_EFFECT, P_FLY, P_GEM, P_KEY, P_PEACEFUL, P_PLUS
from fantastiqa_rl.powers.rules import R_BREW, R_DRAGON, R_PEACEFUL
from fantastiqa_rl.vector_rows import (F_BOTH, F_FORBID, F_N, F_TEAMS, SUP_CARPETS, SUP_GEMS, at, draw, ln,
                                       seat_field, seat_list, sf, take)
from fantastiqa_rl.vector_rows import ln as _len, seat_list as _seat     # the mask rows' names (vector_kernels')
from fantastiqa_rl.vector_state import (OP_ID, L_BOOSTED, L_DRAGONS, L_EFFECTS, L_IN_PLAY, L_POWERED, L_REVEALED,
                                        MAX_SEATS, P_DECK, P_DISCARD, P_HAND, S_CARPETS, S_GEMS, S_POS,
                                        S_RESHUFFLES, W_BGEMS, W_BOARD, W_COUNT, W_CUR, W_KEY, W_PHASE, W_PLUS,
                                        W_REASON, W_RET, W_SEATS, W_SUPPLY, W_TARGET)
from fantastiqa_rl.vector_state import kernel


# ---------------------------------------------------------------- the query (powers.rules.opponents_here)
@njit(cache=True, inline="always")
def opponents_here(w, i, T, p):
    """Whether powers.rules.opponents_here(s, p) is non-empty."""
    n, teams = T[12][F_N], T[12][F_TEAMS]
    pos = seat_field(w, i, S_POS, p)
    for o in range(n):
        if o != p and not (teams and (o - p) % 2 == 0) and seat_field(w, i, S_POS, o) == pos:
            return True
    return False


# ---------------------------------------------------------------- mask rows (powers.rules.legal_*)
@kernel
def _target_seat_row(c, w, i, cap, T, row, quest0, wi, wp):
    """powers.rules.legal_target_seat."""
    flags = T[12]
    p = w[i, W_CUR]
    pos = w[i, W_SEATS + MAX_SEATS * S_POS + p]
    for o in range(flags[R.F_N]):
        if o != p and not (flags[R.F_TEAMS] and (o - p) % 2 == 0) and \
                (w[i, W_REASON] == R_BREW or w[i, W_SEATS + MAX_SEATS * S_POS + o] == pos):
            row[A.SEAT + o] = True


@kernel
def _effect_row(c, w, i, cap, T, row, quest0, wi, wp):
    """powers.rules.legal_glass, legal_bell, legal_brew_card, legal_wardrobe."""
    hk, ph = T[0], w[i, W_PHASE]
    K = T[2].shape[1]
    hand = _seat(w[i, W_CUR], P_HAND)
    if ph == A.GLASS:
        for t in range(_len(w, i, hand)):
            x = c[i, hand * cap + t]
            if T[2][0, hk[x], 2] and not R.contains(c, w, i, L_BOOSTED, cap, x):
                row[A.HAND + hk[x]] = True
    elif ph == A.BELL:
        for t in range(_len(w, i, L_REVEALED)):
            row[A.HAND + 2 * K + hk[c[i, L_REVEALED * cap + t]]] = True
    elif ph == A.BREW_CARD:
        for t in range(_len(w, i, hand)):
            row[A.HAND + hk[c[i, hand * cap + t]]] = True
        discard = _seat(w[i, W_CUR], P_DISCARD)
        for t in range(_len(w, i, discard)):
            row[A.HAND + 2 * K + hk[c[i, discard * cap + t]]] = True
    else:                                           # WARDROBE
        for s_ in range(NUM_SPACES):
            if w[i, W_BOARD + s_] >= 0 and s_ != w[i, W_TARGET]:
                row[A.SPACE + s_] = True


# ---------------------------------------------------------------- playing a card (powers.rules.play_card)
@kernel
def play_card(c, w, i, cap, T, p, k, st):
    """powers.rules.play_card (Q-F1); for an artifact without `st`, the caller checked that its effects draw
    no reshuffle."""
    hk, prof, power, flags = T[0], T[2], T[5], T[12]
    hand = seat_list(p, P_HAND)
    pw = power[k]
    x = -1
    if flags[F_BOTH] and prof[0, k, 2]:
        for t in range(ln(w, i, hand)):
            y = at(c, i, hand, cap, t)
            if hk[y] == k and not R.contains(c, w, i, L_POWERED, cap, y):
                x = y
                break
        R.append(c, w, i, L_POWERED, cap, x)        # stays in hand for its symbols
    else:
        x = R.find(c, w, i, hand, cap, hk, k, False)
        R.remove(c, w, i, hand, cap, x)
        if pw == P_PEACEFUL:
            pass                                    # given away (TARGET_SEAT)
        elif flags[F_FORBID]:
            R.append(c, w, i, L_POWERED, cap, x)    # Q-T2: in play until the end of the turn
        else:
            R.append(c, w, i, seat_list(p, P_DISCARD), cap, x)
    if pw == P_FLY:
        if w[i, W_PHASE] == A.MAIN:
            w[i, W_PHASE] = A.MOVE_DEST
            w[i, W_RET] = A.MAIN
    elif pw == P_KEY:
        w[i, W_KEY] = 1
        w[i, W_PHASE] = A.STATUE_OPTION
    elif pw == P_PLUS:
        w[i, W_PLUS] += 1
    elif pw == P_GEM:
        w[i, sf(p, S_GEMS)] += take(w, i, SUP_GEMS, 1)
    elif pw == P_DRAGON:
        w[i, W_PHASE] = A.TARGET_SEAT
        w[i, W_REASON] = R_DRAGON
    elif pw == P_PEACEFUL:
        R.append(c, w, i, L_IN_PLAY, cap, x)
        w[i, W_PHASE] = A.TARGET_SEAT
        w[i, W_REASON] = R_PEACEFUL
    elif pw == P_EFFECT:                            # effects = list(K_EFFECTS[k]), then resolved
        R.set_len(w, i, L_EFFECTS, 0)
        for j in range(3 * T[18][k]):
            R.append(c, w, i, L_EFFECTS, cap, T[17][k, j])
        run_effects(c, w, i, cap, T, p, st)


# ---------------------------------------------------------------- TARGET_SEAT (powers.rules.apply_target_seat)
@kernel
def target_seat(c, w, i, cap, T, p, a, st):
    """powers.rules.apply_target_seat."""
    if st.size == 0 and effects_may_reshuffle(c, w, i, cap, T, p, -1):
        return False
    o = a - A.SEAT
    src = L_DRAGONS if w[i, W_REASON] == R_DRAGON else L_IN_PLAY
    k = ln(w, i, src)
    R.append(c, w, i, seat_list(o, P_DISCARD), cap, at(c, i, src, cap, k - 1))
    R.set_len(w, i, src, k - 1)
    w[i, W_PHASE] = A.MAIN
    run_effects(c, w, i, cap, T, p, st)
    return True


# ---------------------------------------------------------------- artifact effects (powers.rules.run_effects)
OP_GAIN_GEMS, OP_DRAW, OP_GAIN_CARPET, OP_GAIN_RESHUFFLE = (OP_ID["gain_gems"], OP_ID["draw"], OP_ID["gain_carpet"],
                                                          OP_ID["gain_reshuffle"])
OP_STEAL, OP_DOUBLE, OP_DRAW_KEEP = OP_ID["steal_richer"], OP_ID["double_symbols"], OP_ID["draw_keep"]
OP_GIVE, OP_SWAP = OP_ID["give_card"], OP_ID["swap_creatures"]


@kernel
def effects_may_reshuffle(c, w, i, cap, T, p, k):
    """Whether the queued effects (and those of a card of kind k about to be played, k >= 0) draw
    more cards than p's deck holds: a draw could reshuffle (the caller leaves the step to the
    scalar core; erring on the safe side)."""
    need = 0
    for t in range(0, ln(w, i, L_EFFECTS), 3):
        op = at(c, i, L_EFFECTS, cap, t)
        if op == OP_DRAW or op == OP_DRAW_KEEP:
            need += at(c, i, L_EFFECTS, cap, t + 1)
    if k >= 0:
        fx = T[17]
        for j in range(T[18][k]):
            op = fx[k, 3 * j]
            if op == OP_DRAW or op == OP_DRAW_KEEP:
                need += fx[k, 3 * j + 1]
    return need > ln(w, i, seat_list(p, P_DECK))


@kernel
def run_effects(c, w, i, cap, T, p, st):
    """powers.rules.run_effects: resolve queued effects until one needs a decision (the caller gave p's
    Generator `st`, or checked with effects_may_reshuffle that no draw reshuffles)."""
    hk, prof, n, teams = T[0], T[2], T[12][F_N], T[12][F_TEAMS]
    hand, discard = seat_list(p, P_HAND), seat_list(p, P_DISCARD)
    while ln(w, i, L_EFFECTS) and w[i, W_PHASE] == A.MAIN:
        op, x, y = at(c, i, L_EFFECTS, cap, 0), at(c, i, L_EFFECTS, cap, 1), at(c, i, L_EFFECTS, cap, 2)
        for _ in range(3):
            R.remove_at(c, w, i, L_EFFECTS, cap, 0)
        if op == OP_GAIN_GEMS:
            w[i, sf(p, S_GEMS)] += take(w, i, SUP_GEMS, x)
        elif op == OP_DRAW:
            draw(c, w, i, cap, p, x, hand, st)
        elif op == OP_GAIN_CARPET:
            w[i, sf(p, S_CARPETS)] += take(w, i, SUP_CARPETS, x)
        elif op == OP_GAIN_RESHUFFLE:
            w[i, sf(p, S_RESHUFFLES)] += take(w, i, W_SUPPLY + 2, x)
        elif op == OP_STEAL:
            mine = w[i, sf(p, S_GEMS)]
            for o in range(n):
                if o != p and not (teams and (o - p) % 2 == 0) and w[i, sf(o, S_GEMS)] > mine:
                    w[i, sf(o, S_GEMS)] -= 1
                    w[i, sf(p, S_GEMS)] += 1
        elif op == OP_DOUBLE:
            for t in range(ln(w, i, hand)):
                xx = at(c, i, hand, cap, t)
                if prof[0, hk[xx], 2] and not R.contains(c, w, i, L_BOOSTED, cap, xx):
                    w[i, W_PHASE] = A.GLASS
                    break
        elif op == OP_DRAW_KEEP:
            draw(c, w, i, cap, p, x, L_REVEALED, st)
            if ln(w, i, L_REVEALED):
                if y <= 0:
                    R.extend(c, w, i, discard, L_REVEALED, cap)
                else:
                    w[i, W_COUNT] = y
                    w[i, W_PHASE] = A.BELL
        elif op == OP_GIVE:
            if ln(w, i, hand) or ln(w, i, discard):
                w[i, W_PHASE] = A.BREW_CARD
        elif op == OP_SWAP:
            full = 0
            for s_ in range(NUM_SPACES):
                if w[i, W_BOARD + s_] >= 0:
                    full += 1
            if full >= 2:
                w[i, W_TARGET] = -1
                w[i, W_PHASE] = A.WARDROBE


@kernel
def glass(c, w, i, cap, T, p, a, st):
    """powers.rules.apply_glass."""
    if st.size == 0 and effects_may_reshuffle(c, w, i, cap, T, p, -1):
        return False
    k = a - A.HAND
    hand = seat_list(p, P_HAND)
    for t in range(ln(w, i, hand)):
        x = at(c, i, hand, cap, t)
        if T[0][x] == k and not R.contains(c, w, i, L_BOOSTED, cap, x):
            R.append(c, w, i, L_BOOSTED, cap, x)
            break
    w[i, W_PHASE] = A.MAIN
    run_effects(c, w, i, cap, T, p, st)
    return True


@kernel
def bell(c, w, i, cap, T, p, a, st):
    """powers.rules.apply_bell."""
    if st.size == 0 and effects_may_reshuffle(c, w, i, cap, T, p, -1):
        return False
    K = T[2].shape[1]
    x = R.find(c, w, i, L_REVEALED, cap, T[0], a - A.HAND - 2 * K, False)
    R.remove(c, w, i, L_REVEALED, cap, x)
    R.append(c, w, i, seat_list(p, P_HAND), cap, x)
    w[i, W_COUNT] -= 1
    if w[i, W_COUNT] <= 0 or ln(w, i, L_REVEALED) == 0:
        R.extend(c, w, i, seat_list(p, P_DISCARD), L_REVEALED, cap)
        w[i, W_PHASE] = A.MAIN
        run_effects(c, w, i, cap, T, p, st)
    return True


@kernel
def brew_card(c, w, i, cap, T, p, a):
    """powers.rules.apply_brew_card."""
    K = T[2].shape[1]
    src = seat_list(p, P_HAND if a < A.HAND + K else P_DISCARD)
    x = R.find(c, w, i, src, cap, T[0], (a - A.HAND) % K, False)
    R.remove(c, w, i, src, cap, x)
    R.append(c, w, i, L_IN_PLAY, cap, x)
    w[i, W_PHASE] = A.TARGET_SEAT
    w[i, W_REASON] = R_BREW
    return True


@kernel
def wardrobe(c, w, i, cap, T, p, a, st):
    """powers.rules.apply_wardrobe."""
    s_ = a - A.SPACE
    t = w[i, W_TARGET]
    if t < 0:
        w[i, W_TARGET] = s_
        return True
    if st.size == 0 and effects_may_reshuffle(c, w, i, cap, T, p, -1):
        return False
    w[i, W_BOARD + t], w[i, W_BOARD + s_] = w[i, W_BOARD + s_], w[i, W_BOARD + t]
    w[i, W_BGEMS + t], w[i, W_BGEMS + s_] = w[i, W_BGEMS + s_], w[i, W_BGEMS + t]
    w[i, W_TARGET] = -1
    w[i, W_PHASE] = A.MAIN
    run_effects(c, w, i, cap, T, p, st)
    return True
