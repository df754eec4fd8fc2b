"""The encoder of `fantastiqa_rl.observation.observe` as a numba kernel, for a batch of games.

Used by `fantastiqa_rl.vector.FantastiqaVector.observe`. Two steps:
- `pack(state, seat, out)` appends what the seat's observation reads of one state to a flat list
  of ints: public state, the seat's own hand and deck (the kernel only counts the deck's kinds,
  never reads its order), and of the other seats only the sizes of their hands and decks, so the
  kernel cannot show what `observe` does not (the drawn cards are packed, and shown to the drawer
  only, as `observe` does);
- `encode(...)` fills one float32 row per game from the packed ints, with the encoder's own
  tables (`observation._encoder`: offsets, per-kind features, bounds).

Bit-exact to `observe`: counts are sums of whole numbers (exact in float32), symbol units are
scaled by the same float32 multiply, and every scaled value is the same float64 expression rounded
once to float32, as numpy does when `observe` writes a Python float into its float32 vector.
tests/test_fantastiqa_vector.py compares the two at every step of many random and greedy games.
The Abbey / team block (`abbey_view.abbey_features`) is written by the caller.
"""
from __future__ import annotations

from itertools import chain

import numpy as np
from numba import njit

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import NUM_POSITIONS, NUM_SPACES, NUM_SYMBOLS, SPACES
from fantastiqa_rl.observation import (GEM_SCALE, MAX_PERSONAL_QUESTS, MAX_PLAYERS, SCORE_SCALE, SIZE_SCALE,
                                       TOKEN_SCALE, TURN_CLIP, _SPACE_FEATURES, _Encoder)

# Offsets the kernel needs, in this order (OFF[j] = encoder offset of _OFF_NAMES[j]).
_OFF_NAMES = ("phase", "turn_flags", "turns", "own_hand", "own_deck", "own_hand_symbols",
              "own_quest0", "own_quest1", "own_quest2",
              "region_at", "statue_at", "space_features", "space_kind",
              "open_quest0", "open_quest1", "open_quest0_kind", "open_quest1_kind",
              "supply", "pay", "target_space", "target_quest", "target_card", "adventure", "visited",
              "boosted", "powered", "in_play", "target_reason", "drawn_cards", "drawn_quests")
_PLAYER_BLOCKS = ("flags", "position", "counters", "token", "discard", "committed", "quests", "completed")
# their indices in OFF, as constants the kernel compiles in
(O_PHASE, O_TURN_FLAGS, O_TURNS, O_OWN_HAND, O_OWN_DECK, O_OWN_HAND_SYMBOLS, O_OWN_QUEST0, O_OWN_QUEST1,
 O_OWN_QUEST2, O_REGION_AT, O_STATUE_AT, O_SPACE_FEATURES, O_SPACE_KIND, O_OPEN_QUEST0, O_OPEN_QUEST1,
 O_OPEN_QUEST0_KIND, O_OPEN_QUEST1_KIND, O_SUPPLY, O_PAY, O_TARGET_SPACE, O_TARGET_QUEST, O_TARGET_CARD,
 O_ADVENTURE, O_VISITED, O_BOOSTED, O_POWERED, O_IN_PLAY, O_TARGET_REASON, O_DRAWN_CARDS, O_DRAWN_QUESTS) = range(len(_OFF_NAMES))

# Packed layout of one game: fixed fields; then per-seat fields, field-major (field f of seat p at
# H_PLAYERS + f * n + p); then the lengths of the card / quest lists (list j's length at
# lists_at + j, see _LIST_*), their contents in that order, and last each seat's committed map
# (number of quests, then per quest: quest, number of cards, the cards).
H_SEAT, H_PHASE, H_CUR, H_USED, H_KEY, H_PLUS, H_COUNT, H_TURNS, H_N, H_TARGET, H_VISITED, H_REASON = range(12)
H_OPEN, H_BONUS, H_SUPPLY, H_REGION, H_STATUE, H_NAMEPOS = 12, 14, 16, 25, 31, 37
H_BOARD, H_GEMS = 43, 43 + NUM_SPACES
H_PLAYERS = H_GEMS + NUM_SPACES
F_POS, F_GEMS, F_CARPETS, F_RESHUFFLES, F_SCORE, F_BONUS, F_HAND, F_DECK, F_DISCARD, F_COMPLETED, F_TOKEN = range(11)
_NF = 11
# lists: the observer's hand and deck, per seat discard, quests, completed (n each), then the turn's
L_HAND, L_DECK, L_SEATS = 0, 1, 2
L_PAY, L_RELEASE, L_ADVENTURE, L_BOOSTED, L_POWERED, L_IN_PLAY, L_REVEALED, L_TOKEN_LEFT = range(8)  # after 2 + 3n


def pack(s, seat: int, out: list) -> None:
    """Append the ints `encode` reads for `seat`'s observation of state `s` to `out` (only public
    state and `seat`'s own hand and deck)."""
    hand, deck, discard, completed = s.hand, s.deck, s.discard, s.completed
    out += (seat, s.phase, s.cur, int(s.action_used), int(s.key), s.plus_statue, s.count, s.turns, s.n,
            s.target, s.visited, s.reason, *s.open_quests, *s.open_bonus,
            s.supply_gems, s.supply_carpets, s.supply_reshuffles, s.supply_bonus_tokens, len(s.dragons),
            len(s.creature_deck), len(s.artifact_deck), len(s.beast_deck), len(s.quest_deck),
            *s.region_at, *s.statue_at, *s.name_pos, *s.board, *s.board_gems,
            *s.position, *s.gems, *s.carpets, *s.reshuffles, *s.scores, *s.bonus_tokens,
            *map(len, hand), *map(len, deck), *map(len, discard), *map(len, completed), *s.quest_token)
    lists = (hand[seat], deck[seat], *discard, *s.quests, *completed, s.pay, s.release_from_discard, s.adventure,
             s.boosted, s.powered, s.in_play, s.revealed, s.token_left)
    out += map(len, lists)
    out += chain.from_iterable(lists)
    for m in s.committed:
        out.append(len(m))
        for q, cards in m.items():
            out += (q, len(cards), *cards)


class Tables:
    """The encoder's tables as contiguous arrays for the kernel (one card set and player count)."""

    def __init__(self, e: _Encoder):
        self.size = e.size
        self.off = np.asarray([e.off[name] for name in _OFF_NAMES], dtype=np.int64)
        self.poff = np.asarray([[e.poff[k][b] for b in _PLAYER_BLOCKS] for k in range(MAX_PLAYERS)], dtype=np.int64)
        self.hk = np.ascontiguousarray(e.HK[:-1], dtype=np.int64)
        self.qk = np.ascontiguousarray(e.QK[:-1], dtype=np.int64)
        self.units = np.ascontiguousarray(e.units, dtype=np.float32)
        self.space_feat = np.ascontiguousarray(e.space_feat, dtype=np.float32)
        self.qneed = np.ascontiguousarray(e.qneed, dtype=np.float32)
        self.qpoints = np.ascontiguousarray(e.qpoints, dtype=np.float32)
        self.qregion = np.asarray(e.qregion, dtype=np.int64)
        scaled = np.flatnonzero(e.unit_scale != 1.0)
        self.scaled_at = scaled.astype(np.int64)
        self.scaled_by = e.unit_scale[scaled].astype(np.float32)
        adj = np.zeros((NUM_POSITIONS, NUM_SPACES), dtype=np.bool_)
        for c, (a, b) in enumerate(SPACES):
            adj[a, c] = adj[b, c] = True
        self.adj = adj
        self.K = e.K

    def args(self) -> tuple:
        return (self.off, self.poff, self.hk, self.qk, self.units, self.space_feat, self.qneed, self.qpoints,
                self.qregion, self.scaled_at, self.scaled_by, self.adj, self.K)


@njit(cache=True)
def _find_committed(d, at, q):
    """Position (start, length) of quest q's committed cards in a packed committed map at `at`, or (0, 0)."""
    m = d[at]
    j = at + 1
    for _ in range(m):
        if d[j] == q:
            return j + 2, d[j + 1]
        j += 2 + d[j + 1]
    return 0, 0


@njit(cache=True)
def _quest_features(row, base, qk, name_pos_of, units, hk, qneed, qpoints, d, c0, cn):
    for j in range(NUM_SYMBOLS):
        if qneed[qk, j] != 0.0:
            row[base + j] = qneed[qk, j]
    row[base + NUM_SYMBOLS + name_pos_of] += 1.0
    row[base + NUM_SYMBOLS + NUM_POSITIONS] = qpoints[qk]
    b = base + NUM_SYMBOLS + NUM_POSITIONS + 1
    for t in range(cn):
        k = hk[d[c0 + t]]
        for j in range(NUM_SYMBOLS):
            row[b + j] += units[k, j]


@njit(cache=True)
def _encode_row(row, d, at, off, poff, hk, qk, units, space_feat, qneed, qpoints, qregion, scaled_at, scaled_by,
                adj, K):
    row[:] = 0.0
    seat, phase, cur, n = d[at + H_SEAT], d[at + H_PHASE], d[at + H_CUR], d[at + H_N]
    terminal = phase == A.TERMINAL
    pl = at + H_PLAYERS
    # where each list starts (start[j], length d[lens + j]); the committed maps follow the last
    lens = pl + _NF * n
    n_lists = L_SEATS + 3 * n + 8
    start = np.empty(n_lists + 1, dtype=np.int64)
    start[0] = lens + n_lists
    for x in range(n_lists):
        start[x + 1] = start[x] + d[lens + x]
    comm = np.empty(n, dtype=np.int64)
    j = start[n_lists]
    for p in range(n):
        comm[p] = j
        m = d[j]
        j += 1
        for _ in range(m):
            j += 2 + d[j + 1]
    turn = L_SEATS + 3 * n    # index of the first of the turn's lists (L_PAY)
    row[off[O_PHASE] + phase] += 1.0
    b = off[O_TURN_FLAGS]
    row[b] = np.float32(d[at + H_USED])
    row[b + 1] = np.float32(d[at + H_KEY])
    row[b + 2] = np.float32(d[at + H_PLUS] / 3.0)
    cnt = d[at + H_COUNT]
    row[b + 3] = np.float32(cnt / 3.0) if cnt > 0 else np.float32(0.0)
    row[off[O_TURNS]] = np.float32(min(d[at + H_TURNS] / n, TURN_CLIP) / TURN_CLIP)
    # the observer's hand (counts and symbol units) and deck composition
    bh, bs = off[O_OWN_HAND], off[O_OWN_HAND_SYMBOLS]
    for t in range(d[lens + L_HAND]):
        k = hk[d[start[L_HAND] + t]]
        row[bh + k] += 1.0
        for x in range(NUM_SYMBOLS):
            row[bs + x] += units[k, x]
    bd = off[O_OWN_DECK]
    for t in range(d[lens + L_DECK]):
        row[bd + hk[d[start[L_DECK] + t]]] += 1.0
    name_pos = at + H_NAMEPOS
    # own personal quests
    lq = L_SEATS + n + seat
    for t in range(min(d[lens + lq], MAX_PERSONAL_QUESTS)):
        q = d[start[lq] + t]
        base = off[O_OWN_QUEST0 + t]
        row[base] += 1.0
        c0, cn = _find_committed(d, comm[seat], q)
        kq = qk[q]
        _quest_features(row, base + 1, kq, d[name_pos + qregion[kq]], units, hk, qneed, qpoints, d, c0, cn)
    # every seat's public state, seat-relative
    for k in range(n):
        p = (seat + k) % n
        o = poff[k]
        row[o[0]] += 1.0
        if p == cur and not terminal:
            row[o[0] + 1] += 1.0
        if d[pl + F_POS * n + p] >= 0:
            row[o[1] + d[pl + F_POS * n + p]] += 1.0
        c = o[2]
        row[c] = np.float32(d[pl + F_GEMS * n + p] / GEM_SCALE)
        row[c + 1] = np.float32(d[pl + F_CARPETS * n + p] / TOKEN_SCALE)
        row[c + 2] = np.float32(d[pl + F_RESHUFFLES * n + p] / TOKEN_SCALE)
        row[c + 3] = np.float32(d[pl + F_SCORE * n + p] / SCORE_SCALE)
        row[c + 4] = np.float32(d[pl + F_BONUS * n + p] / TOKEN_SCALE)
        row[c + 5] = np.float32(d[pl + F_HAND * n + p] / SIZE_SCALE)
        row[c + 6] = np.float32(d[pl + F_DECK * n + p] / SIZE_SCALE)
        row[c + 7] = np.float32(d[pl + F_DISCARD * n + p] / SIZE_SCALE)
        row[c + 8] = np.float32(d[pl + F_COMPLETED * n + p] / SIZE_SCALE)
        tok = d[pl + F_TOKEN * n + p]
        if tok >= 0:
            for x in range(2):
                if d[at + H_OPEN + x] == tok:
                    row[o[3] + x] += 1.0
        ld = L_SEATS + p
        for t in range(d[lens + ld]):
            row[o[4] + hk[d[start[ld] + t]]] += 1.0
        jj = comm[p] + 1
        for _ in range(d[comm[p]]):
            cn = d[jj + 1]
            for t in range(cn):
                row[o[5] + hk[d[jj + 2 + t]]] += 1.0
            jj += 2 + cn
        ld = L_SEATS + n + p
        for t in range(d[lens + ld]):
            row[o[6] + qk[d[start[ld] + t]]] += 1.0
        ld = L_SEATS + 2 * n + p
        for t in range(d[lens + ld]):
            row[o[7] + qk[d[start[ld] + t]]] += 1.0
    # board
    b, c = off[O_REGION_AT], off[O_STATUE_AT]
    for r in range(NUM_POSITIONS):
        row[b + NUM_POSITIONS * r + d[at + H_REGION + r]] += 1.0
        row[c + 3 * r + d[at + H_STATUE + r]] += 1.0
    my_pos = d[pl + F_POS * n + seat]
    sf, sk = off[O_SPACE_FEATURES], off[O_SPACE_KIND]
    for c in range(NUM_SPACES):
        i = d[at + H_BOARD + c]
        if i < 0:
            continue
        kk = hk[i]
        base = sf + c * _SPACE_FEATURES
        for x in range(_SPACE_FEATURES):
            v = space_feat[kk, x]
            if v != 0.0:
                row[base + x] = v
        row[sk + c * K + kk] += 1.0
        if d[at + H_GEMS + c] > 0:
            row[base + 1] += 1.0
        if my_pos >= 0 and adj[my_pos, c]:
            row[base + 2] += 1.0
    my_tok = d[pl + F_TOKEN * n + seat]
    tl = turn + L_TOKEN_LEFT
    for x in range(2):
        q = d[at + H_OPEN + x]
        if q < 0:
            continue
        base = off[O_OPEN_QUEST0 + x]
        row[base] += 1.0
        if d[at + H_BONUS + x] > 0:
            row[base + 1] += 1.0
        if my_tok == q:
            row[base + 2] += 1.0
        if seat == cur:
            for t in range(d[lens + tl]):
                if d[start[tl] + t] == q:
                    row[base + 3] += 1.0
                    break
        c0, cn = 0, 0
        if my_tok == q:
            c0, cn = _find_committed(d, comm[seat], q)
        kq = qk[q]
        _quest_features(row, base + 4, kq, d[name_pos + qregion[kq]], units, hk, qneed, qpoints, d, c0, cn)
        row[off[O_OPEN_QUEST0_KIND + x] + kq] += 1.0
    b = off[O_SUPPLY]
    sp = at + H_SUPPLY
    row[b] = np.float32(d[sp] / GEM_SCALE)
    row[b + 1] = np.float32(d[sp + 1] / TOKEN_SCALE)
    row[b + 2] = np.float32(d[sp + 2] / TOKEN_SCALE)
    row[b + 3] = np.float32(d[sp + 3] / TOKEN_SCALE)
    row[b + 4] = np.float32(d[sp + 4] / TOKEN_SCALE)
    for x in range(4):
        row[b + 5 + x] = np.float32(d[sp + 5 + x] / SIZE_SCALE)
    # the decision in progress
    if not terminal:
        for lj, blk in ((L_PAY, O_PAY), (L_RELEASE, O_PAY), (L_ADVENTURE, O_ADVENTURE), (L_BOOSTED, O_BOOSTED),
                        (L_POWERED, O_POWERED), (L_IN_PLAY, O_IN_PLAY)):
            bb = off[blk]
            for t in range(d[lens + turn + lj]):
                row[bb + hk[d[start[turn + lj] + t]]] += 1.0
        t = d[at + H_TARGET]
        if t >= 0:
            if phase == A.ADV_PAY or phase == A.WARDROBE:
                row[off[O_TARGET_SPACE] + t] += 1.0
            elif phase == A.QUEST_PAY:
                row[off[O_TARGET_QUEST] + qk[t]] += 1.0
            elif phase == A.COMMIT_TARGET or phase == A.WITHDRAW_FROM:
                row[off[O_TARGET_CARD] + t] += 1.0
        if phase == A.ADV_MOVE or phase == A.ADV_PAY or phase == A.MOVE_DEST:
            v = d[at + H_VISITED]
            bb = off[O_VISITED]
            for r in range(NUM_POSITIONS):
                if (v >> r) & 1:
                    row[bb + r] += 1.0
        if phase == A.TARGET_SEAT:
            row[off[O_TARGET_REASON] + d[at + H_REASON]] += 1.0
        lr = turn + L_REVEALED
        if seat == cur and d[lens + lr] > 0:   # drawn cards: only the drawer sees them
            if phase == A.CHEST:
                bb = off[O_DRAWN_QUESTS]
                for t in range(d[lens + lr]):
                    row[bb + qk[d[start[lr] + t]]] += 1.0
            else:
                bb = off[O_DRAWN_CARDS]
                for t in range(d[lens + lr]):
                    row[bb + hk[d[start[lr] + t]]] += 1.0
    for x in range(scaled_at.size):   # symbol units, scaled as observe's `obs *= unit_scale`
        row[scaled_at[x]] *= scaled_by[x]


@njit(cache=True)
def encode(d, starts, rows, out, off, poff, hk, qk, units, space_feat, qneed, qpoints, qregion, scaled_at,
           scaled_by, adj, K):
    """out[rows[g]] = the observation packed at d[starts[g]:] (every other row of `out` untouched)."""
    for g in range(rows.size):
        _encode_row(out[rows[g]], d, starts[g], off, poff, hk, qk, units, space_feat, qneed, qpoints, qregion,
                    scaled_at, scaled_by, adj, K)
