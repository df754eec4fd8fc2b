"""The turn flow's batched kernels (Q-R1..Q-R4, Q-T1, Q-E2..Q-E5): numba ports, over the packed rows of
`fantastiqa_rl.vector_state`, of the scalar rules in `fantastiqa_rl.turn_flow.rules`; each docstring
names the scalar function it ports line by line.

- `end_turn` (MAIN's DONE, called by `fantastiqa_rl.vector_steps.main`) and `finish_turn` (the draw,
  the turn limit, the next turn; END_DISCARD's DONE, dispatched by `vector_steps.apply`);
- `reset_turn` and `replenish` (the start of the next turn, with the Raven), `end_by_score`;
- END_DISCARD's mask row `_end_discard_row` (dispatched by `fantastiqa_rl.vector_kernels.legal`; the
  discard itself is a branch of `vector_steps.apply`).
The setup is not ported past the setup decisions (`setup.kernels.setup` leaves the last seat's
SETUP_PLACE, whose `turn_flow.rules.finish_setup` shuffles, to the scalar core), nor is the
Abbey's goal check (`quests.kernels.complete_quest` returns False where `goal_reached` could end the game).

This module imports only the row primitives (`fantastiqa_rl.vector_rows`, which also hold the
supply's `take` and the reshuffling `draw` that the turn flow shares with the quests and the powers'
effects), the tables below the kernels and this topic's `rules.py` (HAND_SIZE, RAVEN_GEMS), never
`vector_rules` / `vector_steps` / `vector_kernels`: they import it. Its source is hashed into the
kernels' cache key (`vector_state._KERNEL_SOURCES`).
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_rows as R
from fantastiqa_rl.board import NUM_OPEN_QUESTS, NUM_SPACES
from fantastiqa_rl.turn_flow.rules import HAND_SIZE, RAVEN_GEMS
from fantastiqa_rl.vector_rows import (F_N, F_TEAMS, F_TURN_LIMIT, F_UP_TO_5, SUP_BONUS, SUP_GEMS, at, draw, ln,
                                       seat_list, sf, take)
from fantastiqa_rl.vector_state import (L_ADVENTURE, L_BOOSTED, L_BOX, L_CREATURE_DECK, L_EFFECTS, L_IN_PLAY, L_PAY,
                                        L_POWERED, L_QUEST_DECK, L_RELEASE, L_REVEALED, L_TOKEN_LEFT, P_COMPLETED,
                                        P_DECK, P_DISCARD, P_HAND, P_QUESTS, REASON_DECK, REASON_TURN_LIMIT,
                                        S_GEMS, S_SCORES, W_ACTION_USED, W_BGEMS, W_BOARD, W_CANCELS, W_COUNT,
                                        W_CUR, W_END_REASON, W_KEY, W_NWIN, W_OBONUS, W_OPEN, W_PHASE, W_PLUS,
                                        W_PREV, W_REASON, W_RET, W_TARGET, W_TURNS, W_VISITED, W_WIN)
from fantastiqa_rl.vector_state import kernel


# ---------------------------------------------------------------- END_DISCARD's mask row
@kernel
def _end_discard_row(c, w, i, cap, T, row):
    """turn_flow.rules.legal_end_discard."""
    hk = T[0]
    hand = seat_list(w[i, W_CUR], P_HAND)
    row[A.DONE] = True
    for t in range(ln(w, i, hand)):
        row[A.HAND + hk[c[i, hand * cap + t]]] = True


# ---------------------------------------------------------------- the end of a turn and of the game
@kernel
def end_by_score(c, w, i, cap, T, reason):
    """turn_flow.rules.end_by_score: highest (final score, completed quests, gems) per side; else shared."""
    qk, qpoints, n, teams = T[1], T[16], T[12][F_N], T[12][F_TEAMS]
    fs = np.zeros(n, dtype=np.int64)
    for p in range(n):
        fs[p] = w[i, sf(p, S_SCORES)]
        quests = seat_list(p, P_QUESTS)
        for t in range(ln(w, i, quests)):
            fs[p] -= qpoints[qk[at(c, i, quests, cap, t)]]
    keys = np.zeros((n, 3), dtype=np.int64)
    for p in range(n):
        for q in range(n):
            if q == p or (teams and q % 2 == p % 2):
                keys[p, 0] += fs[q]
                keys[p, 1] += ln(w, i, seat_list(q, P_COMPLETED))
                keys[p, 2] += w[i, sf(q, S_GEMS)]
    best = 0
    for p in range(1, n):
        for x in range(3):                          # lexicographic: max(keys)
            if keys[p, x] != keys[best, x]:
                if keys[p, x] > keys[best, x]:
                    best = p
                break
    k = 0
    for p in range(n):
        if keys[p, 0] == keys[best, 0] and keys[p, 1] == keys[best, 1] and keys[p, 2] == keys[best, 2]:
            w[i, W_WIN + k] = p
            k += 1
    w[i, W_NWIN] = k
    w[i, W_END_REASON] = reason
    w[i, W_PHASE] = A.TERMINAL


@kernel
def reset_turn(w, i):
    """turn_flow.rules.reset_turn."""
    w[i, W_ACTION_USED] = 0
    w[i, W_PLUS] = 0
    w[i, W_VISITED] = 0
    w[i, W_PREV] = -1
    w[i, W_TARGET] = -1
    w[i, W_COUNT] = 0
    w[i, W_KEY] = 0
    w[i, W_REASON] = 0
    w[i, W_RET] = A.MAIN
    for j in (L_BOOSTED, L_POWERED, L_ADVENTURE, L_PAY, L_REVEALED, L_EFFECTS, L_IN_PLAY, L_RELEASE,
              L_TOKEN_LEFT):
        R.set_len(w, i, j, 0)
    w[i, W_CANCELS] = 0


@kernel
def replenish(c, w, i, cap, T):
    """turn_flow.rules.replenish(game_start=False) (Q-R1..Q-R4): a Raven now is resolved, never set aside."""
    hk, gem, raven, n = T[0], T[14], T[15], T[12][F_N]
    deck = L_CREATURE_DECK
    for s in range(NUM_SPACES):
        while w[i, W_BOARD + s] < 0:
            k = ln(w, i, deck)
            if k == 0:                               # Q-R2
                end_by_score(c, w, i, cap, T, REASON_DECK)
                return
            x = at(c, i, deck, cap, k - 1)
            R.set_len(w, i, deck, k - 1)
            if raven[x]:                             # Q-R3
                mx = w[i, sf(0, S_GEMS)]
                for o in range(1, n):
                    mx = max(mx, w[i, sf(o, S_GEMS)])
                if mx >= RAVEN_GEMS:
                    for o in range(n):
                        if w[i, sf(o, S_GEMS)] == mx:
                            w[i, sf(o, S_GEMS)] -= mx // 2
                            w[i, SUP_GEMS] += mx // 2
                R.append(c, w, i, L_BOX, cap, x)
                continue
            w[i, W_BOARD + s] = x
            if gem[hk[x]]:
                w[i, W_BGEMS + s] = take(w, i, SUP_GEMS, 1)
    for j in range(NUM_OPEN_QUESTS):                                # Q-R4
        k = ln(w, i, L_QUEST_DECK)
        if w[i, W_OPEN + j] < 0 and k:
            w[i, W_OPEN + j] = at(c, i, L_QUEST_DECK, cap, k - 1)
            R.set_len(w, i, L_QUEST_DECK, k - 1)
            w[i, W_OBONUS + j] = take(w, i, SUP_BONUS, 1)


@kernel
def finish_turn(c, w, i, cap, T, p, st):
    """turn_flow.rules.finish_turn: draw (see `draw`), the turn limit, the next turn."""
    flags = T[12]
    n = flags[F_N]
    hand = seat_list(p, P_HAND)
    k = HAND_SIZE - ln(w, i, hand) if flags[F_UP_TO_5] else HAND_SIZE
    if not draw(c, w, i, cap, p, max(0, k), hand, st):
        return False
    w[i, W_TURNS] += 1
    limit = flags[F_TURN_LIMIT]
    if limit >= 0 and w[i, W_TURNS] >= limit * n:    # Q-E5
        end_by_score(c, w, i, cap, T, REASON_TURN_LIMIT)
        return True
    w[i, W_CUR] = (p + 1) % n
    reset_turn(w, i)                                # turn_flow.rules.start_turn
    replenish(c, w, i, cap, T)
    if w[i, W_PHASE] != A.TERMINAL:
        w[i, W_PHASE] = A.MAIN
    return True


@kernel
def end_turn(c, w, i, cap, T, p, st):
    """turn_flow.rules.end_turn: the cards used for their power go to the discard; then END_DISCARD or the draw."""
    hk, held = T[0], T[7]
    hand, discard = seat_list(p, P_HAND), seat_list(p, P_DISCARD)
    n_pw = ln(w, i, L_POWERED)
    left = ln(w, i, hand)
    for t in range(n_pw):
        x = at(c, i, L_POWERED, cap, t)
        if not held[hk[x]] and R.contains(c, w, i, hand, cap, x):
            left -= 1
    if left == 0:
        deck = seat_list(p, P_DECK)      # the hand will be empty: both draw rules draw HAND_SIZE
        if HAND_SIZE > ln(w, i, deck) and (ln(w, i, discard) + n_pw) and st.size == 0:
            return False                            # the draw may reshuffle: ask with the Generator
    for t in range(n_pw):
        x = at(c, i, L_POWERED, cap, t)
        if held[hk[x]]:
            R.append(c, w, i, discard, cap, x)
        elif R.contains(c, w, i, hand, cap, x):
            R.remove(c, w, i, hand, cap, x)
            R.append(c, w, i, discard, cap, x)
    R.set_len(w, i, L_POWERED, 0)
    if ln(w, i, hand):
        w[i, W_PHASE] = A.END_DISCARD
        return True
    return finish_turn(c, w, i, cap, T, p, st)

