"""Access to one packed row of `fantastiqa_rl.vector_state` (row i of c: list items, w: scalars and
lengths; list capacity cap): the primitives every batched kernel module uses, with the indices of
`Cards.flags`, the supply's columns, and the two steps several topics share: `take` from the supply
and `draw` (a seat's draw, reshuffling with its Generator). They sit below every kernel module so
that a rule topic's kernels (`fantastiqa_rl.statues.kernels`, `fantastiqa_rl.powers.kernels`) can
use them and still be imported by the shared queries, steps and dispatchers (`vector_rules`,
`vector_steps`, `vector_kernels`): `vector_rules` re-exports them (`R.ln`, `R.append`, ... are these functions).
"""
from __future__ import annotations

from numba import njit

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_chance as CH
from fantastiqa_rl.vector_state import (G_LISTS, L_BOOSTED, L_PAY, MAX_SEATS, P_C_CARDS, P_C_OF, P_C_ORDER, P_DECK,
                                        P_DISCARD, P_HAND, P_LISTS, P_QUESTS, S_CARPETS, W_LEN, W_PHASE, W_RET, W_SEATS,
                                        W_SUPPLY)
from fantastiqa_rl.vector_state import kernel

# flags (Cards.flags, built by vector_rules.Cards)
(F_SIMPLE, F_FLY_IN_ADV, F_TEAMS, F_ABBEY, F_FORBID, F_BOTH, F_TO_HAND, F_N, F_MARK_FORBID, F_TURN_LIMIT,
 F_UP_TO_5, F_GOAL) = range(12)


# columns of w: the supply counters
SUP_GEMS, SUP_CARPETS, SUP_BONUS = W_SUPPLY, W_SUPPLY + 1, W_SUPPLY + 3


@njit(cache=True, inline="always")
def sf(p, f):
    """Column of seat p's field f in w."""
    return W_SEATS + MAX_SEATS * f + p


# ---------------------------------------------------------------- row access (row i of c / w, capacity cap)
@njit(cache=True, inline="always")
def ln(w, i, j):
    """Length of list j."""
    return w[i, W_LEN + j]


@njit(cache=True, inline="always")
def at(c, i, j, cap, t):
    """Item t of list j."""
    return c[i, j * cap + t]


@njit(cache=True, inline="always")
def seat_list(p, f):
    return G_LISTS + P_LISTS * p + f


@njit(cache=True, inline="always")
def seat_field(w, i, f, p):
    return w[i, W_SEATS + MAX_SEATS * f + p]


@kernel
def append(c, w, i, j, cap, x):
    k = w[i, W_LEN + j]
    c[i, j * cap + k] = x
    w[i, W_LEN + j] = k + 1


@njit(cache=True, inline="always")
def set_len(w, i, j, k):
    w[i, W_LEN + j] = k


@kernel
def remove_at(c, w, i, j, cap, t):
    """del list_j[t]."""
    k = w[i, W_LEN + j]
    base = j * cap
    for u in range(t, k - 1):
        c[i, base + u] = c[i, base + u + 1]
    w[i, W_LEN + j] = k - 1


@kernel
def index(c, w, i, j, cap, x):
    """list_j.index(x), or -1."""
    base = j * cap
    for t in range(w[i, W_LEN + j]):
        if c[i, base + t] == x:
            return t
    return -1


@njit(cache=True, inline="always")
def contains(c, w, i, j, cap, x):
    """x in list_j."""
    return index(c, w, i, j, cap, x) >= 0


@kernel
def remove(c, w, i, j, cap, x):
    """list_j.remove(x) (x is there)."""
    remove_at(c, w, i, j, cap, index(c, w, i, j, cap, x))


@kernel
def extend(c, w, i, dst, src, cap):
    """list_dst += list_src; list_src = []."""
    for t in range(w[i, W_LEN + src]):
        append(c, w, i, dst, cap, c[i, src * cap + t])
    w[i, W_LEN + src] = 0


@kernel
def find(c, w, i, j, cap, hk, k, prefer_boosted):
    """queries.find: an instance of kind k in list j, undoubled copies first (doubled first to pay)."""
    base = j * cap
    nb = w[i, W_LEN + L_BOOSTED]
    best = -1
    for t in range(w[i, W_LEN + j]):
        x = c[i, base + t]
        if hk[x] == k:
            if nb == 0 or contains(c, w, i, L_BOOSTED, cap, x) == prefer_boosted:
                return x
            best = x
    return best


# ---------------------------------------------------------------- the supply and the draw
# (shared by the steps of several topics: the turn flow, quests, the powers' effects; moved from
# vector_steps, which re-exports them, with R.extend / R.append / R.set_len called by name here)
@kernel
def take(w, i, col, k):
    """FantastiqaState._take: up to k from the supply counter at column col; returns what was taken."""
    t = min(w[i, col], k)
    w[i, col] -= t
    return t


@kernel
def draw(c, w, i, cap, p, k, dst, st):
    """FantastiqaState._draw of k cards from p's deck into list dst; where the deck runs out and the
    discard is not empty, the discard becomes the deck, shuffled with p's Generator (Q-X1: `st`, its
    state words); without `st` (size 0) return False, unchanged."""
    deck, discard = seat_list(p, P_DECK), seat_list(p, P_DISCARD)
    if k > ln(w, i, deck) and ln(w, i, discard) and st.size == 0:
        return False
    for _ in range(k):
        t = ln(w, i, deck)
        if t == 0:
            if ln(w, i, discard) == 0:
                return True
            extend(c, w, i, deck, discard, cap)   # deck += discard (the deck is empty); shuffle(deck)
            t = ln(w, i, deck)
            CH.shuffle(c, i, deck * cap, t, st)
        append(c, w, i, dst, cap, at(c, i, deck, cap, t - 1))
        set_len(w, i, deck, t - 1)
    return True


# ---------------------------------------------------------------- steps shared by topics: the quests, the free
# actions and the adventure (committed_pop, pay_card: moved from vector_steps, which re-exports them), the
# setup and the statues (take_quest: moved from statues.kernels), MAIN's and ADV_MOVE's CARPET (use_carpet:
# moved from vector_steps)
@kernel
def committed_pop(c, w, i, cap, p, q, dst):
    """list_dst += committed[p].pop(q, []) (in commit order). Shared: MARK (free_actions.kernels.mark) and
    completing a quest (quests.kernels.complete_quest)."""
    order, cards, of = seat_list(p, P_C_ORDER), seat_list(p, P_C_CARDS), seat_list(p, P_C_OF)
    t = index(c, w, i, order, cap, q)
    if t < 0:
        return
    remove_at(c, w, i, order, cap, t)
    u = 0
    while u < ln(w, i, cards):
        if at(c, i, of, cap, u) == q:
            append(c, w, i, dst, cap, at(c, i, cards, cap, u))
            remove_at(c, w, i, cards, cap, u)
            remove_at(c, w, i, of, cap, u)
        else:
            u += 1


@kernel
def pay_card(c, w, i, cap, T, p, k):
    """payment.pay_card. Shared: ADV_PAY (adventure.kernels.adv_pay) and QUEST_PAY (quests.kernels.quest_pay)."""
    hand = seat_list(p, P_HAND)
    x = find(c, w, i, hand, cap, T[0], k, True)
    remove(c, w, i, hand, cap, x)
    append(c, w, i, L_PAY, cap, x)


@kernel
def take_quest(c, w, i, cap, T, p, a, quest0, src):
    """The first quest of list src whose QUEST action is a becomes a personal quest of p, with an empty
    committed list (statues.rules.apply_chest, setup.rules.apply_setup_quest;
    shared by the statues' CHEST and the setup's SETUP_QUEST); False, unchanged, if none."""
    for t in range(ln(w, i, src)):
        q = at(c, i, src, cap, t)
        if quest0 + T[1][q] == a:
            if contains(c, w, i, seat_list(p, P_C_ORDER), cap, q):
                return False
            remove_at(c, w, i, src, cap, t)
            append(c, w, i, seat_list(p, P_QUESTS), cap, q)
            append(c, w, i, seat_list(p, P_C_ORDER), cap, q)
            return True
    return False


@kernel
def use_carpet(w, i, p):
    """free_actions.rules.use_carpet (Q-F3). Shared: MAIN's CARPET (vector_steps.main) and ADV_MOVE's
    (adventure.kernels.adv_move)."""
    w[i, sf(p, S_CARPETS)] -= 1
    w[i, SUP_CARPETS] += 1
    w[i, W_RET] = w[i, W_PHASE]
    w[i, W_PHASE] = A.MOVE_DEST
