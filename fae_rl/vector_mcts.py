"""Fae's information-set MCTS as a numba kernel: one search per game of a `FaeVector`, games in parallel.

    from fae_rl.vector_mcts import search_games
    actions = search_games(vec, games, seeds, iterations=300)   # int64 (len(games),)

The algorithm and its defaults are those of `make_agent("fae", "mcts")` (`tabletop_rl.agents.mcts`,
`FAE_DEFAULTS`), statement for statement, so that training can meet that search millions of times:

- every iteration determinizes the root: the other seats' colours drawn uniformly among the
  colours the searching seat does not hold (`FaeState.sample_consistent`; nothing hidden is read);
- one tree for all determinizations; in Fae the legal actions never depend on the colours, so the
  availability counts of SO-ISMCTS are the visit counts (the scalar search's `key` always matches);
- children are expanded in the prior's order under progressive widening (`ceil(widen * sqrt(n + 1))`
  children after n visits, `root_widen` at the root): the moves that trigger a ritual, best first by
  the mover's greedy margin (`fae_rl.margin`), ties by lowest id, then the other legal moves in
  random order; the prior is taken at a node's first traversal, with that determinization's colours;
- selection by UCB1, `w / n + c * sqrt(log(n_key) / n)`, each seat maximising its own value (max^n);
- the leaf is scored directly: tanh(margin_p / 10) per seat (own colour's final score minus the best
  other seat's), the game's win/loss returns at a terminal state;
- the move played is the root child with the most visits (ties: best mean value, then lowest id);
  a position with one legal action is answered without searching.

One difference from the scalar search, not a change of algorithm: its random numbers come from a
splitmix64 stream per search seeded by `seeds[k]` (itself drawn from the caller's numpy Generator),
not from the agent's Generator, so the two do not play the same games move for move. Both value a
ritual move with `fae_rl.margin` (every resolution order, however many rituals are pending; issue 38).
The head-to-head check (`benchmarks/fae_mcts_batched.py`) measures the two against each other.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from fae_rl.board import NUM_ACTIONS, NUM_COLOURS, NUM_MOVE_ACTIONS, NUM_RITUAL_CARDS, NUM_SPACES
from fae_rl.margin import MAX_ISOLATED, _best_orders, _fill_contrib, isolated_by_move, pending_spaces
# legal_actions: the one kernel of a game's legal ids (FaeState.legal_actions calls it too)
from fae_rl.vector_core import (
    B_COUNT, B_MOVE_OK, B_PENDING, B_SIZE, MSRC, NB, NB_N, W_CARDS, W_COLOURS, W_CURRENT, W_NPEND, W_RITUAL,
    W_SCORES, W_SIZE, W_TERMINAL,
    apply_action, legal_actions, ritual_gain,
)
from fae_rl.state import MAX_PLAYERS

DEFAULTS = dict(iterations=300, c=0.7, widen=2.0, root_widen=2.0)  # FAE_DEFAULTS' search settings
MAX_ITERATIONS = 20_000  # a search's tree is allocated whole: ~12 MB per game at this bound
EVAL_SCALE = 10.0  # tabletop_rl.agents.mcts.FAE_SCALE: tanh(margin / 10)
MAX_PATH = 2 * NUM_SPACES + NUM_RITUAL_CARDS + 2  # longer than any game (F-E5: at most 71 steps)


# ---------------------------------------------------------------------------- random numbers
@njit(cache=True)
def _next(state):
    """splitmix64: the next 64-bit word of the stream in state[0]."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _below(state, k):
    """A uniform int in [0, k) (53-bit float times k: bias below 2^-40 for k <= 330)."""
    u = np.float64(_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    return min(np.int64(u * k), k - 1)


# ---------------------------------------------------------------------------- game knowledge
@njit(cache=True)
def ritual_order(b, w, g, order, gains):
    """The prior's first part (`tabletop_rl.agents.mcts.fae_prior`): game g's legal actions that trigger
    a ritual (every resolve action while rituals are pending), best first by the mover's greedy
    margin (own colour's gain + own ritual cards - the best gain of any other colour, rituals
    resolved in the mover's best order), ties by lowest id. Writes them to `order` and their margins
    to `gains` (both at least NUM_ACTIONS long); returns how many."""
    return _ritual_order(b, w, g, order, gains, *_prior_scratch())


@njit(cache=True)
def _prior_scratch():
    return (np.zeros(NUM_SPACES, dtype=np.int64), np.zeros(NUM_SPACES, dtype=np.bool_),
            np.zeros(MAX_ISOLATED, dtype=np.int64), np.zeros((MAX_ISOLATED, NUM_COLOURS), dtype=np.int64),
            np.zeros((MAX_ISOLATED, MAX_ISOLATED, NUM_COLOURS), dtype=np.int64), np.zeros(MAX_ISOLATED, dtype=np.int64),
            np.zeros(MAX_ISOLATED, dtype=np.int64), np.zeros(MAX_ISOLATED, dtype=np.int64),
            np.zeros(NUM_COLOURS, dtype=np.int64), np.zeros(NUM_COLOURS, dtype=np.bool_))


@njit(cache=True)
def _ritual_value(m, first_card, own, against, spaces, rows, contrib, best_by_first, perm, heap, row):
    """The greedy margin of a move isolating the m spaces in spaces/rows (`fae_rl.margin`'s value)."""
    drawn = min(m, NUM_RITUAL_CARDS - first_card)
    if m == 1 and drawn == 1:  # the common case, without the orders' search: one ritual, one card
        for c in range(NUM_COLOURS):
            row[c] = rows[0, c]
        gain = ritual_gain(row, spaces[0], first_card)
        worst = 0
        for c in range(NUM_COLOURS):
            if against[c] and row[c] and gain > worst:
                worst = gain
        return 1 + (gain if row[own] else 0) - worst
    _fill_contrib(rows, spaces, m, first_card, drawn, contrib, row)
    return _best_orders(contrib, m, drawn, own, against, best_by_first, perm, heap)


@njit(cache=True)
def _ritual_order(b, w, g, order, gains, occupied_nb, isolating, spaces, rows, contrib, best_by_first, perm, heap,
                  row, against):
    """`ritual_order` with its scratch arrays given (`_prior_scratch`), so a search allocates them once."""
    if w[g, W_TERMINAL]:
        return 0
    own = w[g, W_COLOURS + w[g, W_CURRENT]]
    for c in range(NUM_COLOURS):
        against[c] = c != own
    first_card = w[g, W_CARDS]
    k = 0
    if w[g, W_NPEND]:
        m = pending_spaces(b, g, spaces, rows)
        drawn = min(m, NUM_RITUAL_CARDS - first_card)
        _fill_contrib(rows, spaces, m, first_card, drawn, contrib, row)
        _best_orders(contrib, m, drawn, own, against, best_by_first, perm, heap)
        for j in range(m):  # pending_spaces lists them by ascending space, so by ascending action id
            order[k] = NUM_MOVE_ACTIONS + spaces[j]
            gains[k] = best_by_first[j]
            k += 1
    else:
        # A move isolates the occupied neighbours of its source whose only occupied neighbour is
        # that source (F-R1), whatever its destination: find those sources first.
        for s in range(NUM_SPACES):
            occupied_nb[s] = 0
            for q in range(NB_N[s]):
                if b[g, B_COUNT + NB[s, q]]:
                    occupied_nb[s] += 1
        for s in range(NUM_SPACES):
            isolating[s] = False
            if b[g, B_COUNT + s]:
                for q in range(NB_N[s]):
                    n = NB[s, q]
                    if b[g, B_COUNT + n] and occupied_nb[n] == 1:
                        isolating[s] = True
                        break
        for a in range(NUM_MOVE_ACTIONS):
            if b[g, B_MOVE_OK + a] and isolating[MSRC[a]]:
                m = isolated_by_move(b, g, a, spaces, rows)
                order[k] = a
                gains[k] = _ritual_value(m, first_card, own, against, spaces, rows, contrib, best_by_first, perm,
                                         heap, row)
                k += 1
    # insertion sort by (-gain, action): stable, and the actions were listed ascending
    for i in range(1, k):
        a, v = order[i], gains[i]
        j = i - 1
        while j >= 0 and gains[j] < v:
            order[j + 1], gains[j + 1] = order[j], gains[j]
            j -= 1
        order[j + 1], gains[j + 1] = a, v
    return k


@njit(cache=True)
def leaf_values(w, g, num_players, out):
    """Every seat's value of game g as the search scores a leaf (`fae_evaluate`): the win/loss
    returns once the game is over (F-E3, F-E4), else tanh((own final score - best other seat's) / 10)."""
    _leaf_values(w, g, num_players, out, np.zeros(MAX_PLAYERS, dtype=np.int64))


@njit(cache=True)
def _leaf_values(w, g, num_players, out, mine):
    for p in range(num_players):
        mine[p] = w[g, W_SCORES + w[g, W_COLOURS + p]] + w[g, W_RITUAL + p]  # F-E2
    if w[g, W_TERMINAL]:
        best = mine[0]
        for p in range(1, num_players):
            best = max(best, mine[p])
        fewest = 1 << 30
        for p in range(num_players):
            if mine[p] == best:
                fewest = min(fewest, w[g, W_RITUAL + p])
        k = 0
        for p in range(num_players):
            if mine[p] == best and w[g, W_RITUAL + p] == fewest:
                k += 1
        for p in range(num_players):
            won = mine[p] == best and w[g, W_RITUAL + p] == fewest
            if k == num_players:
                out[p] = 0.0
            else:
                out[p] = 1.0 / k if won else -1.0 / (num_players - k)
        return
    for p in range(num_players):
        other = -(1 << 30)
        for q in range(num_players):
            if q != p:
                other = max(other, mine[q])
        out[p] = math.tanh((mine[p] - other) / EVAL_SCALE)


# ---------------------------------------------------------------------------- the search
@njit(cache=True)
def _tried(tried, node, a):
    """Whether `a` is a child of `node` (a bitmap of 64-bit words per node)."""
    return (tried[node, a >> 6] >> np.uint64(a & 63)) & np.uint64(1)


@njit(cache=True)
def search(b, w, g, seed, iterations, c, widen, root_widen, big, num_players, cap, stats):
    """The move game g's mover plays after `iterations` iterations (module docstring). `cap` bounds
    the prior's entries kept per node (no node gets more children than that). stats[0] receives
    the iterations run, stats[1] the tree's nodes."""
    legal = np.empty(NUM_ACTIONS, dtype=np.int64)
    n_root = legal_actions(b, w, g, legal)
    stats[0], stats[1] = 0, 0
    if n_root <= 1:
        return legal[0] if n_root == 1 else -1
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    max_nodes = iterations + 1
    visits = np.zeros(max_nodes, dtype=np.int64)
    value = np.zeros((max_nodes, MAX_PLAYERS), dtype=np.float64)
    mean = np.zeros((max_nodes, MAX_PLAYERS), dtype=np.float64)  # value / visits, kept for UCB
    inv_sqrt = np.zeros(max_nodes, dtype=np.float64)  # 1 / sqrt(visits)
    act = np.full(max_nodes, -1, dtype=np.int64)
    first = np.full(max_nodes, -1, dtype=np.int64)  # children: a list in expansion order
    last = np.full(max_nodes, -1, dtype=np.int64)
    nxt = np.full(max_nodes, -1, dtype=np.int64)
    n_children = np.zeros(max_nodes, dtype=np.int64)
    n_key = np.zeros(max_nodes, dtype=np.int64)  # traversals (the scalar search's n_key)
    n_legal = np.zeros(max_nodes, dtype=np.int64)
    order_len = np.full(max_nodes, -1, dtype=np.int64)  # -1: prior not taken yet
    order_pos = np.zeros(max_nodes, dtype=np.int64)
    tried = np.zeros((max_nodes, (NUM_ACTIONS + 63) // 64), dtype=np.uint64)
    order = np.zeros((max_nodes, cap), dtype=np.int16)
    order_all = np.empty(NUM_ACTIONS, dtype=np.int64)
    gains = np.empty(NUM_ACTIONS, dtype=np.int64)
    occupied_nb, isolating, spaces, rows, contrib, best_by_first, perm, heap, row5, against = _prior_scratch()
    path = np.empty(MAX_PATH, dtype=np.int64)
    vals = np.zeros(MAX_PLAYERS, dtype=np.float64)
    mine = np.zeros(MAX_PLAYERS, dtype=np.int64)
    row = np.zeros(NUM_COLOURS, dtype=np.int64)
    sb = np.empty((1, B_SIZE), dtype=np.uint8)
    sw = np.empty((1, W_SIZE), dtype=np.int64)
    seat = w[g, W_CURRENT]
    own = w[g, W_COLOURS + seat]
    others = np.empty(NUM_COLOURS - 1, dtype=np.int64)
    k = 0
    for col in range(NUM_COLOURS):
        if col != own:
            others[k] = col
            k += 1
    count = 1
    for _ in range(iterations):
        sb[0, :] = b[g, :]
        sw[0, :] = w[g, :]
        # Determinize (sample_consistent): the other seats' colours, a uniform draw without
        # replacement among the colours `seat` does not hold, given in seat order.
        for i in range(NUM_COLOURS - 1):
            j = i + _below(rng, NUM_COLOURS - 1 - i)
            others[i], others[j] = others[j], others[i]
        k = 0
        for p in range(num_players):
            if p != seat:
                sw[0, W_COLOURS + p] = others[k]
                k += 1
        node, depth = 0, 0
        path[0] = 0
        while not sw[0, W_TERMINAL]:
            player = sw[0, W_CURRENT]
            n_key[node] += 1
            if order_len[node] < 0:
                n_legal[node] = legal_actions(sb, sw, 0, legal)
                m = _ritual_order(sb, sw, 0, order_all, gains, occupied_nb, isolating, spaces, rows, contrib,
                                  best_by_first, perm, heap, row5, against)
                m = min(m, cap)
                for i in range(m):
                    order[node, i] = order_all[i]
                order_len[node] = m
            width = root_widen if node == 0 else widen
            limit = math.ceil(width * math.sqrt(visits[node] + 1))
            chosen = -1
            if n_children[node] < limit and n_children[node] < n_legal[node]:
                while order_pos[node] < order_len[node]:
                    a = np.int64(order[node, order_pos[node]])
                    order_pos[node] += 1
                    if not _tried(tried, node, a):
                        chosen = a
                        break
                if chosen < 0:  # past the ritual moves: a uniform draw among the untried (a random order)
                    n = legal_actions(sb, sw, 0, legal)
                    while True:  # rejection sampling; some legal action is untried (n_children < n_legal)
                        a = legal[_below(rng, n)]
                        if not _tried(tried, node, a):
                            chosen = a
                            break
            if chosen >= 0:
                child = count
                count += 1
                act[child] = chosen
                if last[node] < 0:
                    first[node] = child
                else:
                    nxt[last[node]] = child
                last[node] = child
                n_children[node] += 1
                tried[node, chosen >> 6] |= np.uint64(1) << np.uint64(chosen & 63)
                apply_action(sb, sw, 0, chosen, big, num_players, row)
                depth += 1
                path[depth] = child
                break
            best, best_score = -1, -np.inf
            c_log = c * math.sqrt(math.log(n_key[node]))
            ch = first[node]
            while ch >= 0:
                score = mean[ch, player] + c_log * inv_sqrt[ch]
                if score > best_score:
                    best, best_score = ch, score
                ch = nxt[ch]
            node = best
            apply_action(sb, sw, 0, act[node], big, num_players, row)
            depth += 1
            path[depth] = node
        _leaf_values(sw, 0, num_players, vals, mine)
        for d in range(depth + 1):
            nd = path[d]
            visits[nd] += 1
            inv_sqrt[nd] = 1.0 / math.sqrt(visits[nd])
            for p in range(num_players):
                value[nd, p] += vals[p]
                mean[nd, p] = value[nd, p] / visits[nd]
    stats[0], stats[1] = iterations, count
    best, ch = -1, first[0]
    while ch >= 0:
        if best < 0 or visits[ch] > visits[best] or (visits[ch] == visits[best] and (
                value[ch, seat] / visits[ch] > value[best, seat] / visits[best]
                or (value[ch, seat] / visits[ch] == value[best, seat] / visits[best] and act[ch] < act[best]))):
            best = ch
        ch = nxt[ch]
    return act[best]


@njit(cache=True, parallel=True)
def _search_games(b, w, games, seeds, iterations, c, widen, root_widen, big, num_players, cap, out, stats):
    for k in prange(games.size):
        out[k] = search(b, w, games[k], seeds[k], iterations, c, widen, root_widen, big, num_players, cap, stats[k])


# ---------------------------------------------------------------------------- the guided search's kernels
# `tabletop_rl.agents.fae_mcts_guided` drives these: the tree lives in arrays it holds (one row per
# searched game, `guided_tree`), the descents of one wave run here, the policy's prior of the new
# leaves is computed there in numpy (one forward for every leaf of the wave), and `guided_backup`
# stores it and backs the values up. Determinization, the rules kernel and the leaf values are the
# plain search's (`search` above): only selection (PUCT over the policy's prior) differs.
GUIDED_PENDING, GUIDED_NEW = -2, -1  # n_child: a leaf claimed in this wave / a node not yet evaluated


def guided_tree(games: int, iterations: int, width: int) -> dict:
    """The arrays of `games` guided searches of `iterations` iterations, `width` prior entries a node."""
    nodes = iterations + 1
    return dict(visits=np.zeros((games, nodes), dtype=np.int64),
                value=np.zeros((games, nodes, MAX_PLAYERS), dtype=np.float64),
                n_child=np.full((games, nodes), GUIDED_NEW, dtype=np.int64),
                child_act=np.zeros((games, nodes, width), dtype=np.int64),
                child_prior=np.zeros((games, nodes, width), dtype=np.float64),
                child_id=np.full((games, nodes, width), -1, dtype=np.int64),
                count=np.ones(games, dtype=np.int64))


@njit(cache=True)
def _guided_descend_game(b, w, g, t, rng, nslots, slot0, c_puct, big, num_players, visits, value, n_child, child_act,
                         child_prior, child_id, count, leaf_b, leaf_w, slot_leaf, slot_vals, slot_path, slot_depth):
    """`nslots` descents of tree t (game g's search), slots slot0.. of the wave: each determinizes the
    root (as `search`), follows PUCT to a node not yet evaluated (or the end of the game), creates at
    most one node, copies its state to leaf row slot0 + j and scores it; a virtual loss (one visit of
    value -1 for every seat) on its path keeps the wave's other descents off it until the backup."""
    row = np.zeros(NUM_COLOURS, dtype=np.int64)
    mine = np.zeros(MAX_PLAYERS, dtype=np.int64)
    vals = np.zeros(MAX_PLAYERS, dtype=np.float64)
    seat = w[g, W_CURRENT]
    own = w[g, W_COLOURS + seat]
    others = np.empty(NUM_COLOURS - 1, dtype=np.int64)
    for j in range(nslots):
        s = slot0 + j
        k = 0
        for col in range(NUM_COLOURS):
            if col != own:
                others[k] = col
                k += 1
        leaf_b[s, :] = b[g, :]
        leaf_w[s, :] = w[g, :]
        for i in range(NUM_COLOURS - 1):  # the determinization of `search`: nothing hidden is read
            q = i + _below(rng, NUM_COLOURS - 1 - i)
            others[i], others[q] = others[q], others[i]
        k = 0
        for p in range(num_players):
            if p != seat:
                leaf_w[s, W_COLOURS + p] = others[k]
                k += 1
        node, depth = 0, 0
        slot_path[s, 0] = 0
        slot_leaf[s] = -1
        while not leaf_w[s, W_TERMINAL]:
            m = n_child[t, node]
            if m == GUIDED_NEW:  # a leaf: its prior is the policy's, asked after the wave
                n_child[t, node] = GUIDED_PENDING
                slot_leaf[s] = node
                break
            if m == GUIDED_PENDING:  # another descent of this wave claimed it: scored, not evaluated twice
                break
            player = leaf_w[s, W_CURRENT]
            sqrt_n = math.sqrt(max(visits[t, node], 1))
            fpu = value[t, node, player] / visits[t, node] if visits[t, node] else 0.0
            best, best_score = 0, -np.inf
            for i in range(m):
                ch = child_id[t, node, i]
                n = visits[t, ch] if ch >= 0 else 0
                q = value[t, ch, player] / n if n else fpu
                score = q + c_puct * child_prior[t, node, i] * sqrt_n / (1 + n)
                if score > best_score:
                    best, best_score = i, score
            ch = child_id[t, node, best]
            if ch < 0:
                ch = count[t]
                count[t] += 1
                child_id[t, node, best] = ch
            apply_action(leaf_b, leaf_w, s, child_act[t, node, best], big, num_players, row)
            node = ch
            depth += 1
            slot_path[s, depth] = node
        slot_depth[s] = depth
        _leaf_values(leaf_w, s, num_players, vals, mine)
        for p in range(num_players):
            slot_vals[s, p] = vals[p]
        for d in range(depth + 1):
            nd = slot_path[s, d]
            visits[t, nd] += 1
            for p in range(num_players):
                value[t, nd, p] -= 1.0


@njit(cache=True, parallel=True)
def guided_descend(b, w, games, rng, nslots, stride, c_puct, big, num_players, visits, value, n_child, child_act,
                   child_prior, child_id, count, leaf_b, leaf_w, slot_leaf, slot_vals, slot_path, slot_depth):
    """One wave of every tree (tree t is game games[t]'s search; its slots t * stride ..)."""
    for t in prange(games.size):
        _guided_descend_game(b, w, games[t], t, rng[t:t + 1], nslots, t * stride, c_puct, big, num_players, visits,
                             value, n_child, child_act, child_prior, child_id, count, leaf_b, leaf_w, slot_leaf,
                             slot_vals, slot_path, slot_depth)


@njit(cache=True)
def guided_backup(nslots, stride, n_trees, logits, legal, visits, value, n_child, child_act, child_prior, slot_leaf, slot_vals,
                  slot_path, slot_depth, num_players):
    """After a wave: each evaluated leaf keeps its `width` most probable legal actions (policy logits,
    ties by lowest id) with their probabilities renormalized among them; every slot's value is
    backed up along its path, the virtual loss undone."""
    width = child_act.shape[2]
    for t in range(n_trees):
        for j in range(nslots):
            s = t * stride + j
            node = slot_leaf[s]
            if node >= 0:
                m = 0
                for a in range(logits.shape[1]):  # insertion into the sorted top `width` (ties: lower id first)
                    if not legal[s, a] or (m == width and logits[s, a] <= child_prior[t, node, m - 1]):
                        continue
                    i = m if m < width else width - 1
                    while i > 0 and child_prior[t, node, i - 1] < logits[s, a]:  # the last entry drops out when full
                        child_act[t, node, i] = child_act[t, node, i - 1]
                        child_prior[t, node, i] = child_prior[t, node, i - 1]
                        i -= 1
                    child_act[t, node, i] = a
                    child_prior[t, node, i] = logits[s, a]
                    m = min(m + 1, width)
                top = child_prior[t, node, 0]
                total = 0.0
                for i in range(m):
                    child_prior[t, node, i] = math.exp(child_prior[t, node, i] - top)
                    total += child_prior[t, node, i]
                for i in range(m):
                    child_prior[t, node, i] /= total
                n_child[t, node] = m
            for d in range(slot_depth[s] + 1):
                nd = slot_path[s, d]
                for p in range(num_players):
                    value[t, nd, p] += slot_vals[s, p] + 1.0


@njit(cache=True)
def guided_choice(visits, n_child, child_act, child_id, t):
    """The root's move: the child with the most visits (ties: the higher prior, i.e. the earlier entry)."""
    best, best_n = -1, -1
    for i in range(n_child[t, 0]):
        ch = child_id[t, 0, i]
        n = visits[t, ch] if ch >= 0 else 0
        if n > best_n:
            best, best_n = i, n
    return child_act[t, 0, best]


def order_cap(iterations: int, widen: float, root_widen: float) -> int:
    """The most children any node can get in `iterations` iterations (progressive widening)."""
    return min(NUM_ACTIONS, math.ceil(max(widen, root_widen) * math.sqrt(iterations + 1)))


def check_settings(iterations, c, widen, root_widen) -> tuple[int, float, float, float]:
    """The search settings as (int, float, float, float); ValueError naming the bad one."""
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
            or not 1 <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be an int in 1..{MAX_ITERATIONS}; got {iterations!r}")
    for name, x, low in (("c", c, 0.0), ("widen", widen, None), ("root_widen", root_widen, None)):
        if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not math.isfinite(x) \
                or (x < low if low is not None else x <= 0):
            raise ValueError(f"{name} must be a finite number {'>= 0' if low is not None else '> 0'}; got {x!r}")
    return int(iterations), float(c), float(widen), float(root_widen)


def search_games(vec, games, seeds, iterations: int = 300, c: float = 0.7, widen: float = 2.0,
                 root_widen: float = 2.0, stats: np.ndarray | None = None) -> np.ndarray:
    """int64 (len(games),): the searched move of the mover in each of `vec`'s games `games` (int
    indices), game games[k]'s search seeded by seeds[k]; -1 where a game is over. `stats`, if given,
    int64 (len(games), 2), receives each search's iterations and tree nodes."""
    iterations, c, widen, root_widen = check_settings(iterations, c, widen, root_widen)
    games = np.ascontiguousarray(games, dtype=np.int64)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    if games.ndim != 1 or seeds.shape != games.shape:
        raise ValueError(f"games and seeds must be 1-D of one length; got {games.shape} and {seeds.shape}")
    if games.size and (games.min() < 0 or games.max() >= vec.num_envs):
        raise ValueError(f"games must be indices in 0..{vec.num_envs - 1}")
    out = np.empty(games.size, dtype=np.int64)
    st = np.zeros((games.size, 2), dtype=np.int64) if stats is None else stats
    cap = order_cap(iterations, widen, root_widen)
    if games.size == 1:  # one search: numba's thread pool would only add its start-up (~1-7 ms under load)
        out[0] = search(vec._b, vec._w, games[0], seeds[0], iterations, c, widen, root_widen, vec.big_stack_merge,
                        vec.num_players, cap, st[0])
    elif games.size:
        _search_games(vec._b, vec._w, games, seeds, iterations, c, widen, root_widen, vec.big_stack_merge,
                      vec.num_players, cap, out, st)
    return out


__all__ = ["DEFAULTS", "GUIDED_NEW", "GUIDED_PENDING", "MAX_ITERATIONS", "check_settings", "guided_backup",
           "guided_choice", "guided_descend", "guided_tree", "leaf_values", "legal_actions", "order_cap", "ritual_order",
           "search", "search_games"]
