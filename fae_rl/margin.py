"""The greedy margin of a move, for every legal action of N games at once (numba kernels): the one
implementation every Fae bot and search uses.

margin(a) = change in the mover's colour score + change in the mover's ritual cards
            - max over the other 4 colours of their change in score,
after playing `a` and, if rituals are left pending, resolving them in the best order for the
mover. Every order is searched, however many rituals are pending (F-R2; a move isolates at most
`MAX_ISOLATED` spaces, so at most that many factorial orders, and 4+ pending rituals are rare); while
rituals are pending, each resolve action is valued at the best order that resolves it first. This is
the one-move lookahead of the greedy Fae bot (`agents/fae_greedy.py`), the prior and rollouts of
the scalar Fae MCTS (`agents/mcts.py`), the batched MCTS (`fae_rl.vector_mcts`) and the greedy
features (`fae_rl.features`), computed from the rules without cloning states: a move changes only
its source and destination, each isolated space scores from its own druids and the card it draws
(F-R3..F-R6), so a resolution order only decides which card each space draws, and the game stops
drawing after the 12th card (F-E1). `state_margins(state)` values one `FaeState` (its row) with the
same kernel `FaeVector.margins` runs over N rows. The bots' former computation (playing every
order on clones) is kept as the test oracle in `tests/fae_reference.py`.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fae_rl.board import NUM_ACTIONS, NUM_COLOURS, NUM_MOVE_ACTIONS, NUM_RITUAL_CARDS, NUM_SPACES
from fae_rl.vector_core import (
    B_COUNT, B_DRUIDS, B_MOVE_OK, B_PENDING, B_RESOLVED, MDST, MSRC, NB, NB_N, W_CARDS, W_COLOURS, W_CURRENT,
    W_NPEND, W_TERMINAL,
    ritual_gain,
)

MAX_ISOLATED = int(NB_N.max())  # a move isolates at most the source's neighbours
_ONE_GAME = np.ones(1, dtype=np.bool_)
_NOT_OWN = ~np.eye(NUM_COLOURS, dtype=np.bool_).reshape(NUM_COLOURS, 1, NUM_COLOURS)  # [own]: every other colour
# (Left writeable: numba types a read-only array apart, which would compile `margins` a second time.)


def state_margins(state) -> np.ndarray:
    """float64 (330,): the greedy margin of each legal action of `state`'s mover (a `FaeState`),
    against every colour but the mover's own; -inf where illegal or the game is over. The kernel
    `margins` over the state's one row (the call `FaeVector.margins` makes for N games)."""
    b, w = state._b, state._w
    out = np.empty((1, NUM_ACTIONS), dtype=np.float64)
    margins(b, w, _NOT_OWN[w[0, W_COLOURS + w[0, W_CURRENT]]], _ONE_GAME, out)
    return out[0]


@njit(cache=True)
def _count_after(b, g, x, src, dst):
    """Druids on space x after moving src's stack onto dst."""
    if x == src:
        return 0
    if x == dst:
        return np.int64(b[g, B_COUNT + dst]) + b[g, B_COUNT + src]
    return np.int64(b[g, B_COUNT + x])


@njit(cache=True)
def _best_orders(contrib, m, drawn, own, against, best_by_first, perm, heap):
    """Best margin over every order of the m isolated spaces, also per space resolved first.

    contrib[j, k, c]: points colour c gets if space j is resolved k-th; only the first `drawn`
    positions draw a card. The margin subtracts the largest gain among the colours flagged in
    `against`. Heap's algorithm (iterative) visits every permutation once.
    """
    sets = against.reshape(1, NUM_COLOURS)
    best = np.empty(1, dtype=np.int64)
    _best_orders_multi(contrib, m, drawn, own, sets, best, best_by_first.reshape(1, -1), perm, heap)
    return best[0]


@njit(cache=True)
def _best_orders_multi(contrib, m, drawn, own, sets, best, best_by_first, perm, heap):
    """`_best_orders` for several `against` sets at once (sets[s], best[s], best_by_first[s, j]):
    one pass over the orders serves them all."""
    n_sets = sets.shape[0]
    d = np.zeros(NUM_COLOURS, dtype=np.int64)
    for s in range(n_sets):
        best[s] = -(1 << 62)
        for j in range(m):
            best_by_first[s, j] = -(1 << 62)
    for j in range(m):
        perm[j] = j
        heap[j] = 0
    i = 0
    while True:
        for c in range(NUM_COLOURS):
            total = 0
            for k in range(drawn):
                total += contrib[perm[k], k, c]
            d[c] = total
        for s in range(n_sets):
            worst_other = 0
            for c in range(NUM_COLOURS):
                if c != own and sets[s, c] and d[c] > worst_other:
                    worst_other = d[c]
            value = drawn + d[own] - worst_other
            if value > best_by_first[s, perm[0]]:
                best_by_first[s, perm[0]] = value
            if value > best[s]:
                best[s] = value
        # next permutation
        while i < m and heap[i] >= i:
            heap[i] = 0
            i += 1
        if i >= m:
            return
        if i % 2 == 0:
            perm[0], perm[i] = perm[i], perm[0]
        else:
            perm[heap[i]], perm[i] = perm[i], perm[heap[i]]
        heap[i] += 1
        i = 0


@njit(cache=True)
def _fill_contrib(rows, spaces, m, first_card, drawn, contrib, row):
    for j in range(m):
        for k in range(drawn):
            for c in range(NUM_COLOURS):
                row[c] = rows[j, c]
            gain = ritual_gain(row, spaces[j], first_card + k)
            for c in range(NUM_COLOURS):
                contrib[j, k, c] = gain if row[c] else 0


@njit(cache=True)
def pending_spaces(b, g, spaces, rows):
    """The spaces waiting for the mover's order (F-R2) into `spaces`, their druids into `rows`; returns how many."""
    m = 0
    for i in range(NUM_SPACES):
        if b[g, B_PENDING + i]:
            spaces[m] = i
            for c in range(NUM_COLOURS):
                rows[m, c] = b[g, B_DRUIDS + NUM_COLOURS * i + c]
            m += 1
    return m


@njit(cache=True)
def isolated_by_move(b, g, a, spaces, rows):
    """The spaces move `a` would isolate (F-R1: occupied, unresolved neighbours of its source left
    with no occupied neighbour) into `spaces`, their druids after the move into `rows`; returns how many."""
    src, dst = MSRC[a], MDST[a]
    m = 0
    for k in range(NB_N[src]):
        n = NB[src, k]
        if _count_after(b, g, n, src, dst) and not b[g, B_RESOLVED + n]:
            alone = True
            for q in range(NB_N[n]):
                if _count_after(b, g, NB[n, q], src, dst):
                    alone = False
                    break
            if alone:
                spaces[m] = n
                for c in range(NUM_COLOURS):
                    rows[m, c] = b[g, B_DRUIDS + NUM_COLOURS * n + c]
                    if n == dst:
                        rows[m, c] += b[g, B_DRUIDS + NUM_COLOURS * src + c]
                m += 1
    return m


@njit(cache=True)
def _game_values(b, w, g, sets, values):
    """values[s, a] = margin of legal action a of game g's mover against the colours of sets[s];
    -inf where illegal or the game is over."""
    rows = np.zeros((MAX_ISOLATED, NUM_COLOURS), dtype=np.int64)
    spaces = np.zeros(MAX_ISOLATED, dtype=np.int64)
    contrib = np.zeros((MAX_ISOLATED, MAX_ISOLATED, NUM_COLOURS), dtype=np.int64)
    n_sets = sets.shape[0]
    best = np.zeros(n_sets, dtype=np.int64)
    best_by_first = np.zeros((n_sets, MAX_ISOLATED), dtype=np.int64)
    perm = np.zeros(MAX_ISOLATED, dtype=np.int64)
    heap = np.zeros(MAX_ISOLATED, dtype=np.int64)
    row = np.zeros(NUM_COLOURS, dtype=np.int64)
    for s in range(n_sets):
        for a in range(NUM_ACTIONS):
            values[s, a] = -np.inf
    if w[g, W_TERMINAL]:
        return
    own = w[g, W_COLOURS + w[g, W_CURRENT]]
    first_card = w[g, W_CARDS]
    if w[g, W_NPEND]:
        m = pending_spaces(b, g, spaces, rows)
        drawn = min(m, NUM_RITUAL_CARDS - first_card)
        _fill_contrib(rows, spaces, m, first_card, drawn, contrib, row)
        _best_orders_multi(contrib, m, drawn, own, sets, best, best_by_first, perm, heap)
        for s in range(n_sets):
            for j in range(m):
                values[s, NUM_MOVE_ACTIONS + spaces[j]] = best_by_first[s, j]
        return
    for a in range(NUM_MOVE_ACTIONS):
        if not b[g, B_MOVE_OK + a]:
            continue
        m = isolated_by_move(b, g, a, spaces, rows)
        if m == 0:
            for s in range(n_sets):
                values[s, a] = 0.0
            continue
        drawn = min(m, NUM_RITUAL_CARDS - first_card)
        _fill_contrib(rows, spaces, m, first_card, drawn, contrib, row)
        _best_orders_multi(contrib, m, drawn, own, sets, best, best_by_first, perm, heap)
        for s in range(n_sets):
            values[s, a] = best[s]


@njit(cache=True)
def margins(b, w, against, games, out):
    """out[g, a] = margin of legal action a of game g's mover; -inf where illegal or the game is over.

    against[g, c]: colour c's gain counts against the mover (the greedy bot: every colour but its
    own). Only rows with games[g] set are computed (the others are left as they are).
    """
    values = np.zeros((1, NUM_ACTIONS), dtype=np.float64)
    for g in range(b.shape[0]):
        if games[g]:
            _game_values(b, w, g, against[g:g + 1], values)
            for a in range(NUM_ACTIONS):
                out[g, a] = values[0, a]


@njit(cache=True)
def _scale(v, scale, clip):
    if v == -np.inf:
        return 0.0
    return min(max(v / scale, -clip), clip)


@njit(cache=True)
def features(b, w, likely, versus, games, scale, clip, feat, raw):
    """The `action_features` blocks of each flagged game's mover in one pass (`fae_rl.features`):
    feat[g] = [margin / scale, greedy-best flag] (+ [margin against likely[g] / scale, its best flag]
    if `versus`), margins clipped to [-clip, clip] and 0 where illegal; raw[g] = the greedy margins.
    Rows not flagged are zeroed in `feat` and left as they are in `raw`."""
    n_sets = 2 if versus else 1
    sets = np.zeros((n_sets, NUM_COLOURS), dtype=np.bool_)
    values = np.zeros((n_sets, NUM_ACTIONS), dtype=np.float64)
    for g in range(b.shape[0]):
        for a in range(feat.shape[1]):
            feat[g, a] = 0.0
        if not games[g]:
            continue
        own = w[g, W_COLOURS + w[g, W_CURRENT]]
        for c in range(NUM_COLOURS):
            sets[0, c] = c != own  # the greedy margin: every other colour
            if versus:
                sets[1, c] = likely[g, c] and c != own
        _game_values(b, w, g, sets, values)
        for s in range(n_sets):
            best = -np.inf
            for a in range(NUM_ACTIONS):
                if values[s, a] > best:
                    best = values[s, a]
            for a in range(NUM_ACTIONS):
                feat[g, 2 * s * NUM_ACTIONS + a] = _scale(values[s, a], scale, clip)
                if values[s, a] == best and best > -np.inf:
                    feat[g, (2 * s + 1) * NUM_ACTIONS + a] = 1.0
        for a in range(NUM_ACTIONS):
            raw[g, a] = values[0, a]


@njit(cache=True)
def pick_best(values, u, out):
    """out[g] = the floor(u[g] * ties)-th of game g's best actions (-1 if none is legal)."""
    for g in range(values.shape[0]):
        best = -np.inf
        ties = 0
        for a in range(values.shape[1]):
            v = values[g, a]
            if v > best:
                best, ties = v, 1
            elif v == best and v > -np.inf:
                ties += 1
        if ties == 0:
            out[g] = -1
            continue
        k = min(int(u[g] * ties), ties - 1)
        for a in range(values.shape[1]):
            if values[g, a] == best:
                if k == 0:
                    out[g] = a
                    break
                k -= 1
