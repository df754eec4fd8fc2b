"""The Fae rules: numba kernels over a struct of arrays, the one implementation of every rule.

`FaeState` (one game: one row) and `FaeVector` (N games: N rows) both call these kernels for their
legal actions and moves. The former Python rules are kept in `tests/fae_reference.py` as the
reference that `tests/test_fae_reference.py` plays against them at every step of random games.

N games live in two C-contiguous arrays, one row per game, so a kernel touches one game's data
in two cache-friendly runs and a helper needs only `(b, w, g)`:
- `b` uint8 (N, B_SIZE): druids (60 x 5), counts, resolved / pending flags, legal-move flags
  (updated incrementally by `_move`, as the reference `tests/fae_reference.py` does).
- `w` int64 (N, W_SIZE): colour scores, ritual cards per seat, cards used, mover, terminal,
  number pending, colours, and the public history (moved, points, last action per seat).
Seat-indexed fields are padded to 4 seats.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fae_rl.board import (
    IN_MOVES,
    INCIDENT_MOVES,
    MAX_PLAYERS,
    MAX_STACK_TO_MOVE,
    MOVE_DST,
    MOVE_SRC,
    NEIGHBOURS,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_MOVE_ACTIONS,
    NUM_RITUAL_CARDS,
    NUM_SPACES,
    OUT_MOVES,
    RITUAL_CARDS,
    TERRAIN,
)

# Column offsets in `b` (uint8).
B_DRUIDS = 0
B_COUNT = B_DRUIDS + NUM_SPACES * NUM_COLOURS
B_RESOLVED = B_COUNT + NUM_SPACES
B_PENDING = B_RESOLVED + NUM_SPACES
B_MOVE_OK = B_PENDING + NUM_SPACES
B_SIZE = B_MOVE_OK + NUM_MOVE_ACTIONS
# Column offsets in `w` (int64); per-seat blocks hold MAX_PLAYERS seats.
W_SCORES = 0
W_RITUAL = W_SCORES + NUM_COLOURS
W_CARDS = W_RITUAL + MAX_PLAYERS
W_CURRENT = W_CARDS + 1
W_TERMINAL = W_CURRENT + 1
W_NPEND = W_TERMINAL + 1
W_COLOURS = W_NPEND + 1
W_MOVED = W_COLOURS + MAX_PLAYERS  # seat p, colour c at W_MOVED + 5p + c
W_POINTS = W_MOVED + MAX_PLAYERS * NUM_COLOURS
W_LAST = W_POINTS + MAX_PLAYERS * NUM_COLOURS
W_SIZE = W_LAST + MAX_PLAYERS


def _padded(rows) -> tuple[np.ndarray, np.ndarray]:
    """Ragged tuples as a (len, max) int64 table padded with -1, and the row lengths."""
    table = np.full((len(rows), max(len(r) for r in rows)), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        table[i, :len(r)] = r
    return table, np.asarray([len(r) for r in rows], dtype=np.int64)


NB, NB_N = _padded(NEIGHBOURS)
OUT, OUT_N = _padded(OUT_MOVES)
IN, IN_N = _padded(IN_MOVES)
INC, INC_N = _padded(INCIDENT_MOVES)
MSRC = np.asarray(MOVE_SRC, dtype=np.int64)
MDST = np.asarray(MOVE_DST, dtype=np.int64)
TERR = np.asarray(TERRAIN, dtype=np.int64)
CARD_VALUE = np.asarray([v for v, _, _ in RITUAL_CARDS], dtype=np.int64)
CARD_BLESS = np.asarray([-1 if b is None else b for _, b, _ in RITUAL_CARDS], dtype=np.int64)  # -1: every terrain
CARD_CURSE = np.asarray([-1 if c is None else c for _, _, c in RITUAL_CARDS], dtype=np.int64)  # -1: none


def deal_rows(orders: np.ndarray, colours: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows (b, w) of k games at their deal (plain numpy, once per game): orders[j] (60,) the
    colour of the druid on each space (F-S1: one per space), colours[j] (num_players,) the seats'
    colours (F-S2); no scores, seat 0 to move (F-S3, F-S4). Shared by `FaeState.from_deal` and
    `FaeVector`'s deal."""
    k, n = colours.shape
    b = np.zeros((k, B_SIZE), dtype=np.uint8)
    b[np.arange(k)[:, None], B_DRUIDS + NUM_COLOURS * np.arange(NUM_SPACES) + orders] = 1
    b[:, B_COUNT:B_COUNT + NUM_SPACES] = 1  # one druid on every space: every move is legal (F-T1)
    b[:, B_MOVE_OK:B_MOVE_OK + NUM_MOVE_ACTIONS] = 1
    w = np.zeros((k, W_SIZE), dtype=np.int64)
    w[:, W_COLOURS:W_COLOURS + n] = colours
    w[:, W_LAST:W_LAST + MAX_PLAYERS] = -1  # no seat has moved
    return b, w


@njit(cache=True)
def ritual_gain(row, space, card) -> int:
    """Points each colour present after the ritual scores (F-R3..F-R6), given the druid row.

    `row` (5 ints) is changed in place to what stays on the space: zeros if cursed (F-R4), the
    singletons removed under strife (F-R5). Returns 0 when nothing scores.
    """
    t = TERR[space]
    if CARD_CURSE[card] >= 0 and t == CARD_CURSE[card]:
        for c in range(NUM_COLOURS):
            row[c] = 0
        return 0
    strife = True
    for c in range(NUM_COLOURS):
        if row[c] == 0:
            strife = False
    remaining = 0
    for c in range(NUM_COLOURS):
        if strife and row[c] == 1:
            row[c] = 0
        remaining += row[c]
    if remaining == 0:
        return 0
    bless = CARD_BLESS[card]
    return remaining + (CARD_VALUE[card] if (bless < 0 or t == bless) else 0)


@njit(cache=True)
def _clear_pending(b, w, g):
    for i in range(NUM_SPACES):
        b[g, B_PENDING + i] = 0
    w[g, W_NPEND] = 0


@njit(cache=True)
def _resolve(b, w, g, space, row):
    """The ritual on `space` with the next card (F-R3..F-R9); `row` is int64 scratch (5,)."""
    card = w[g, W_CARDS]
    w[g, W_CARDS] = card + 1
    p = w[g, W_CURRENT]
    w[g, W_RITUAL + p] += 1  # F-R7
    b[g, B_RESOLVED + space] = 1  # F-R8
    i = B_DRUIDS + NUM_COLOURS * space
    for c in range(NUM_COLOURS):
        row[c] = b[g, i + c]
    gain = ritual_gain(row, space, card)
    count = 0
    for c in range(NUM_COLOURS):
        b[g, i + c] = row[c]
        count += row[c]
        if gain and row[c]:
            w[g, W_SCORES + c] += gain
            w[g, W_POINTS + NUM_COLOURS * p + c] += gain
    b[g, B_COUNT + space] = count
    if card + 1 >= NUM_RITUAL_CARDS:  # F-E1 (F-R9: leftovers are not scored)
        w[g, W_TERMINAL] = 1
        _clear_pending(b, w, g)


@njit(cache=True)
def _end_turn(b, w, g, num_players):
    w[g, W_CURRENT] = (w[g, W_CURRENT] + 1) % num_players
    for e in range(NUM_MOVE_ACTIONS):
        if b[g, B_MOVE_OK + e]:
            return
    w[g, W_TERMINAL] = 1  # F-T5


@njit(cache=True)
def _move(b, w, g, a, big, num_players, row):
    """Move action `a` (F-T1..F-T5, F-R1, F-R2), statement for statement the reference's `_move`
    (tests/fae_reference.py)."""
    src, dst = MSRC[a], MDST[a]
    p = w[g, W_CURRENT]
    i, j = B_DRUIDS + NUM_COLOURS * src, B_DRUIDS + NUM_COLOURS * dst
    for c in range(NUM_COLOURS):
        n = b[g, i + c]
        if n:
            b[g, j + c] += n
            w[g, W_MOVED + NUM_COLOURS * p + c] += n
            b[g, i + c] = 0
    n_dst = np.int64(b[g, B_COUNT + dst]) + b[g, B_COUNT + src]
    b[g, B_COUNT + dst] = n_dst
    b[g, B_COUNT + src] = 0
    w[g, W_LAST + p] = a
    for k in range(INC_N[src]):
        b[g, B_MOVE_OK + INC[src, k]] = 0
    for k in range(OUT_N[dst]):
        e = OUT[dst, k]
        if b[g, B_MOVE_OK + e] and n_dst > MAX_STACK_TO_MOVE:
            b[g, B_MOVE_OK + e] = 1 if (big and b[g, B_COUNT + MDST[e]] >= n_dst) else 0
    if big:
        for k in range(IN_N[dst]):
            e = IN[dst, k]
            n_src = b[g, B_COUNT + MSRC[e]]
            if n_src > MAX_STACK_TO_MOVE:
                b[g, B_MOVE_OK + e] = 1 if n_dst >= n_src else 0
    # F-R1: only occupied neighbours of the vacated source can become isolated. Flag each as
    # pending; a single one is resolved at once, several wait for the mover's order (F-R2).
    first, isolated = -1, 0
    for k in range(NB_N[src]):
        n = NB[src, k]
        if b[g, B_COUNT + n] and not b[g, B_RESOLVED + n]:
            alone = True
            for q in range(NB_N[n]):
                if b[g, B_COUNT + NB[n, q]]:
                    alone = False
                    break
            if alone:
                isolated += 1
                if first < 0:
                    first = n
                b[g, B_PENDING + n] = 1
    if isolated == 1:
        b[g, B_PENDING + first] = 0
        _resolve(b, w, g, first, row)
    elif isolated > 1:
        w[g, W_NPEND] = isolated
        return
    if not w[g, W_TERMINAL]:
        _end_turn(b, w, g, num_players)


@njit(cache=True)
def _illegal(b, w, g, a) -> bool:
    """Action `a` is not legal for game g's mover (or the game is over)."""
    if w[g, W_TERMINAL] or a < 0 or a >= NUM_ACTIONS:
        return True
    if w[g, W_NPEND]:  # F-R2: only a pending ritual may be resolved
        return a < NUM_MOVE_ACTIONS or not b[g, B_PENDING + a - NUM_MOVE_ACTIONS]
    return a >= NUM_MOVE_ACTIONS or not b[g, B_MOVE_OK + a]


@njit(cache=True)
def first_illegal(b, w, actions) -> int:
    """Index of the first unfinished game whose action is illegal, or -1."""
    for g in range(b.shape[0]):
        if not w[g, W_TERMINAL] and _illegal(b, w, g, actions[g]):
            return g
    return -1


@njit(cache=True)
def apply_checked(b, w, g, a, big, num_players) -> bool:
    """Play `a` in game g if it is legal there (True); else change nothing (False). One call per
    `FaeState.apply`: the check and the move without a Python round trip between them."""
    if _illegal(b, w, g, a):
        return False
    apply_action(b, w, g, a, big, num_players, np.empty(NUM_COLOURS, dtype=np.int64))
    return True


@njit(cache=True)
def refresh_moves(b, g, big):
    """B_MOVE_OK of game g from its counts alone (F-T1, F-T3, F-T4 for every move at once): for a
    position built from a dict; play keeps the flags up to date incrementally (`_move`)."""
    for e in range(NUM_MOVE_ACTIONS):
        n_src = np.int64(b[g, B_COUNT + MSRC[e]])
        n_dst = np.int64(b[g, B_COUNT + MDST[e]])
        ok = n_src > 0 and n_dst > 0 and (n_src <= MAX_STACK_TO_MOVE or (big and n_dst >= n_src))
        b[g, B_MOVE_OK + e] = 1 if ok else 0


@njit(cache=True)
def apply_action(b, w, g, a, big, num_players, row):
    """Play `a` in game g (unfinished, `a` legal: not checked); `row` is int64 scratch (5,)."""
    if a < NUM_MOVE_ACTIONS:
        _move(b, w, g, a, big, num_players, row)
    else:
        space = a - NUM_MOVE_ACTIONS
        b[g, B_PENDING + space] = 0
        w[g, W_NPEND] -= 1
        _resolve(b, w, g, space, row)
        if not w[g, W_TERMINAL] and w[g, W_NPEND] == 0:
            _end_turn(b, w, g, num_players)


@njit(cache=True)
def step(b, w, actions, big, num_players):
    """Play actions[g] in every unfinished game g (the actions are already checked)."""
    row = np.empty(NUM_COLOURS, dtype=np.int64)
    for g in range(b.shape[0]):
        if not w[g, W_TERMINAL]:
            apply_action(b, w, g, actions[g], big, num_players, row)


@njit(cache=True)
def legal_actions(b, w, g, out) -> int:
    """The legal action ids of game g's mover, ascending, into `out` (int64, at least NUM_ACTIONS
    long); returns how many (0 where the game is over). `legal_mask`'s row as ids, for one game
    (`FaeState.legal_actions`: one call, and no array returned through numba's boxing)."""
    n = 0
    if w[g, W_TERMINAL]:
        return 0
    if w[g, W_NPEND]:
        for i in range(NUM_SPACES):
            if b[g, B_PENDING + i]:
                out[n] = NUM_MOVE_ACTIONS + i
                n += 1
        return n
    for a in range(NUM_MOVE_ACTIONS):
        if b[g, B_MOVE_OK + a]:
            out[n] = a
            n += 1
    return n


@njit(cache=True)
def legal_mask(b, w, out):
    """out[g] = the legal-action mask of game g's mover (all False where the game is over)."""
    for g in range(b.shape[0]):
        if w[g, W_TERMINAL]:
            for a in range(NUM_ACTIONS):
                out[g, a] = False
        elif w[g, W_NPEND]:
            for a in range(NUM_MOVE_ACTIONS):
                out[g, a] = False
            for i in range(NUM_SPACES):
                out[g, NUM_MOVE_ACTIONS + i] = b[g, B_PENDING + i] != 0
        else:
            for a in range(NUM_MOVE_ACTIONS):
                out[g, a] = b[g, B_MOVE_OK + a] != 0
            for i in range(NUM_SPACES):
                out[g, NUM_MOVE_ACTIONS + i] = False
