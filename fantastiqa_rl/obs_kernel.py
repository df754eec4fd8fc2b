"""The encoder of `fantastiqa_rl.observation.observe` as a numba kernel, for a batch of games.

Used by `fantastiqa_rl.vector.FantastiqaVector.observe`: `encode(c, w, games, seats, out, ...)`
writes each game's observation row straight from its packed rows (`fantastiqa_rl.vector_state`)
into the caller's float32 array, with the encoder's own tables (`observation._encoder`: offsets,
per-kind features, bounds; `Tables`). One kernel, no intermediate ints: it reads of a game only
what `observe` shows the seat (public state, the seat's own hand and deck, the deck's kinds counted
and never its order, of the other seats only the sizes of their hands and decks, the drawn cards to
the drawer only); tests/test_fantastiqa_vector.py permutes the other seats' hands and every deck
to hold it to that.

Bit-exact to `observe`: counts are sums of whole numbers (exact in float32), symbol units are
summed in the state's list order and scaled by the same float32 multiply, and every scaled value
is the same float64 expression rounded once to float32, as numpy does when `observe` writes a
Python float into its float32 vector. tests/test_fantastiqa_vector.py compares the two at every
step of many random and greedy games. The Abbey / team block (`abbey_view.abbey_features`) is
written by the caller.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import NUM_POSITIONS, NUM_SPACES, NUM_SYMBOLS, SPACES
from fantastiqa_rl.observation import (GEM_SCALE, MAX_PERSONAL_QUESTS, MAX_PLAYERS, SCORE_SCALE, SIZE_SCALE,
                                       TOKEN_SCALE, TURN_CLIP, _SPACE_FEATURES, _Encoder)
from fantastiqa_rl.vector_state import (L_ADVENTURE, L_ARTIFACT_DECK, L_BEAST_DECK, L_BOOSTED,
                                        L_CREATURE_DECK, L_DRAGONS, L_IN_PLAY, L_PAY, L_POWERED, L_QUEST_DECK,
                                        L_RELEASE, L_REVEALED, L_TOKEN_LEFT, NUM_OPEN_QUESTS,
                                        P_C_CARDS, P_C_OF, P_C_ORDER, P_COMPLETED, P_DECK, P_DISCARD, P_HAND,
                                        P_QUESTS, S_BONUS, S_CARPETS, S_GEMS, S_POS, S_RESHUFFLES,
                                        S_SCORES, S_TOKEN, W_ACTION_USED, W_BGEMS, W_BOARD, W_COUNT, W_CUR, W_KEY,
                                        W_LEN, W_NAMEPOS, W_OBONUS, W_OPEN, W_PHASE, W_PLUS, W_REASON, W_REGION,
                                        W_STATUE, W_SUPPLY, W_TARGET, W_TURNS, W_VISITED, kernel)
from fantastiqa_rl.vector_rules import ln, seat_field, seat_list

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


@njit(cache=True, inline="always")
def _count_kinds(row, base, c, w, i, j, cap, kinds):
    """row[base + kinds[x]] += 1 for each item x of list j."""
    for t in range(w[i, W_LEN + j]):
        row[base + kinds[c[i, j * cap + t]]] += 1.0


@njit(cache=True, inline="always")
def _quest_features(row, base, kq, name_pos_of, units, hk, qneed, qpoints, c, w, i, cap, seat, q):
    """A quest's needs, region, points and the symbol units `seat` committed to quest instance q
    (q < 0: none shown)."""
    for j in range(NUM_SYMBOLS):
        if qneed[kq, j] != 0.0:
            row[base + j] = qneed[kq, j]
    row[base + NUM_SYMBOLS + name_pos_of] += 1.0
    row[base + NUM_SYMBOLS + NUM_POSITIONS] = qpoints[kq]
    if q < 0:
        return
    b = base + NUM_SYMBOLS + NUM_POSITIONS + 1
    cards, of = seat_list(seat, P_C_CARDS), seat_list(seat, P_C_OF)
    for t in range(ln(w, i, cards)):
        if c[i, of * cap + t] == q:
            k = hk[c[i, cards * cap + t]]
            for j in range(NUM_SYMBOLS):
                row[b + j] += units[k, j]


@njit(cache=True, inline="always")
def _encode_row(row, c, w, i, seat, n, cap, off, poff, hk, qk, units, space_feat, qneed, qpoints, qregion,
                scaled_at, scaled_by, adj, K):
    """`observe(state_i, seat)` into row, read from game i's rows: only public state and `seat`'s own
    hand and deck (the deck's kinds counted, never its order); of the other seats only the sizes of
    their hands and decks."""
    row[:] = 0.0
    phase, cur = w[i, W_PHASE], w[i, W_CUR]
    terminal = phase == A.TERMINAL
    row[off[O_PHASE] + phase] += 1.0
    b = off[O_TURN_FLAGS]
    row[b] = np.float32(w[i, W_ACTION_USED])
    row[b + 1] = np.float32(w[i, W_KEY])
    row[b + 2] = np.float32(w[i, W_PLUS] / 3.0)
    cnt = w[i, W_COUNT]
    row[b + 3] = np.float32(cnt / 3.0) if cnt > 0 else np.float32(0.0)
    row[off[O_TURNS]] = np.float32(min(w[i, W_TURNS] / n, TURN_CLIP) / TURN_CLIP)
    # the observer's hand (counts and symbol units) and deck composition
    bh, bs = off[O_OWN_HAND], off[O_OWN_HAND_SYMBOLS]
    hand = seat_list(seat, P_HAND)
    for t in range(ln(w, i, hand)):
        k = hk[c[i, hand * cap + t]]
        row[bh + k] += 1.0
        for x in range(NUM_SYMBOLS):
            row[bs + x] += units[k, x]
    _count_kinds(row, off[O_OWN_DECK], c, w, i, seat_list(seat, P_DECK), cap, hk)
    # own personal quests
    lq = seat_list(seat, P_QUESTS)
    for t in range(min(ln(w, i, lq), MAX_PERSONAL_QUESTS)):
        q = c[i, lq * cap + t]
        base = off[O_OWN_QUEST0 + t]
        row[base] += 1.0
        kq = qk[q]
        _quest_features(row, base + 1, kq, w[i, W_NAMEPOS + qregion[kq]], units, hk, qneed, qpoints, c, w, i, cap,
                        seat, q)
    # every seat's public state, seat-relative
    for k in range(n):
        p = (seat + k) % n
        o = poff[k]
        row[o[0]] += 1.0
        if p == cur and not terminal:
            row[o[0] + 1] += 1.0
        pos = seat_field(w, i, S_POS, p)
        if pos >= 0:
            row[o[1] + pos] += 1.0
        x = o[2]
        row[x] = np.float32(seat_field(w, i, S_GEMS, p) / GEM_SCALE)
        row[x + 1] = np.float32(seat_field(w, i, S_CARPETS, p) / TOKEN_SCALE)
        row[x + 2] = np.float32(seat_field(w, i, S_RESHUFFLES, p) / TOKEN_SCALE)
        row[x + 3] = np.float32(seat_field(w, i, S_SCORES, p) / SCORE_SCALE)
        row[x + 4] = np.float32(seat_field(w, i, S_BONUS, p) / TOKEN_SCALE)
        row[x + 5] = np.float32(ln(w, i, seat_list(p, P_HAND)) / SIZE_SCALE)
        row[x + 6] = np.float32(ln(w, i, seat_list(p, P_DECK)) / SIZE_SCALE)
        row[x + 7] = np.float32(ln(w, i, seat_list(p, P_DISCARD)) / SIZE_SCALE)
        row[x + 8] = np.float32(ln(w, i, seat_list(p, P_COMPLETED)) / SIZE_SCALE)
        tok = seat_field(w, i, S_TOKEN, p)
        if tok >= 0:
            for x in range(NUM_OPEN_QUESTS):
                if w[i, W_OPEN + x] == tok:
                    row[o[3] + x] += 1.0
        _count_kinds(row, o[4], c, w, i, seat_list(p, P_DISCARD), cap, hk)
        # committed cards, quest by quest in the map's order (C_ORDER), as observe iterates the dict
        order, cards, of = seat_list(p, P_C_ORDER), seat_list(p, P_C_CARDS), seat_list(p, P_C_OF)
        for t in range(ln(w, i, order)):
            q = c[i, order * cap + t]
            for u in range(ln(w, i, cards)):
                if c[i, of * cap + u] == q:
                    row[o[5] + hk[c[i, cards * cap + u]]] += 1.0
        _count_kinds(row, o[6], c, w, i, seat_list(p, P_QUESTS), cap, qk)
        _count_kinds(row, o[7], c, w, i, seat_list(p, P_COMPLETED), cap, qk)
    # board
    b, x = off[O_REGION_AT], off[O_STATUE_AT]
    for r in range(NUM_POSITIONS):
        row[b + NUM_POSITIONS * r + w[i, W_REGION + r]] += 1.0
        row[x + 3 * r + w[i, W_STATUE + r]] += 1.0
    my_pos = seat_field(w, i, S_POS, seat)
    sf, sk = off[O_SPACE_FEATURES], off[O_SPACE_KIND]
    for s in range(NUM_SPACES):
        x = w[i, W_BOARD + s]
        if x < 0:
            continue
        kk = hk[x]
        base = sf + s * _SPACE_FEATURES
        for f in range(_SPACE_FEATURES):
            v = space_feat[kk, f]
            if v != 0.0:
                row[base + f] = v
        row[sk + s * K + kk] += 1.0
        if w[i, W_BGEMS + s] > 0:
            row[base + 1] += 1.0
        if my_pos >= 0 and adj[my_pos, s]:
            row[base + 2] += 1.0
    my_tok = seat_field(w, i, S_TOKEN, seat)
    for x in range(NUM_OPEN_QUESTS):
        q = w[i, W_OPEN + x]
        if q < 0:
            continue
        base = off[O_OPEN_QUEST0 + x]
        row[base] += 1.0
        if w[i, W_OBONUS + x] > 0:
            row[base + 1] += 1.0
        if my_tok == q:
            row[base + 2] += 1.0
        if seat == cur:
            for t in range(ln(w, i, L_TOKEN_LEFT)):
                if c[i, L_TOKEN_LEFT * cap + t] == q:
                    row[base + 3] += 1.0
                    break
        kq = qk[q]
        _quest_features(row, base + 4, kq, w[i, W_NAMEPOS + qregion[kq]], units, hk, qneed, qpoints, c, w, i, cap,
                        seat, q if my_tok == q else -1)
        row[off[O_OPEN_QUEST0_KIND + x] + kq] += 1.0
    b = off[O_SUPPLY]
    row[b] = np.float32(w[i, W_SUPPLY] / GEM_SCALE)
    row[b + 1] = np.float32(w[i, W_SUPPLY + 1] / TOKEN_SCALE)
    row[b + 2] = np.float32(w[i, W_SUPPLY + 2] / TOKEN_SCALE)
    row[b + 3] = np.float32(w[i, W_SUPPLY + 3] / TOKEN_SCALE)
    row[b + 4] = np.float32(ln(w, i, L_DRAGONS) / TOKEN_SCALE)
    row[b + 5] = np.float32(ln(w, i, L_CREATURE_DECK) / SIZE_SCALE)
    row[b + 6] = np.float32(ln(w, i, L_ARTIFACT_DECK) / SIZE_SCALE)
    row[b + 7] = np.float32(ln(w, i, L_BEAST_DECK) / SIZE_SCALE)
    row[b + 8] = np.float32(ln(w, i, L_QUEST_DECK) / SIZE_SCALE)
    # the decision in progress
    if not terminal:
        _count_kinds(row, off[O_PAY], c, w, i, L_PAY, cap, hk)
        _count_kinds(row, off[O_PAY], c, w, i, L_RELEASE, cap, hk)
        _count_kinds(row, off[O_ADVENTURE], c, w, i, L_ADVENTURE, cap, hk)
        _count_kinds(row, off[O_BOOSTED], c, w, i, L_BOOSTED, cap, hk)
        _count_kinds(row, off[O_POWERED], c, w, i, L_POWERED, cap, hk)
        _count_kinds(row, off[O_IN_PLAY], c, w, i, L_IN_PLAY, cap, hk)
        t = w[i, W_TARGET]
        if t >= 0:
            if phase == A.ADV_PAY or phase == A.WARDROBE:
                row[off[O_TARGET_SPACE] + t] += 1.0
            elif phase == A.QUEST_PAY:
                row[off[O_TARGET_QUEST] + qk[t]] += 1.0
            elif phase == A.COMMIT_TARGET or phase == A.WITHDRAW_FROM:
                row[off[O_TARGET_CARD] + t] += 1.0
        if phase == A.ADV_MOVE or phase == A.ADV_PAY or phase == A.MOVE_DEST:
            v = w[i, W_VISITED]
            b = off[O_VISITED]
            for r in range(NUM_POSITIONS):
                if (v >> r) & 1:
                    row[b + r] += 1.0
        if phase == A.TARGET_SEAT:
            row[off[O_TARGET_REASON] + w[i, W_REASON]] += 1.0
        if seat == cur and ln(w, i, L_REVEALED) > 0:   # drawn cards: only the drawer sees them
            if phase == A.CHEST:
                _count_kinds(row, off[O_DRAWN_QUESTS], c, w, i, L_REVEALED, cap, qk)
            else:
                _count_kinds(row, off[O_DRAWN_CARDS], c, w, i, L_REVEALED, cap, hk)
    for x in range(scaled_at.size):   # symbol units, scaled as observe's `obs *= unit_scale`
        row[scaled_at[x]] *= scaled_by[x]


@kernel  # inlines vector_rules helpers: cached under the kernel sources' hash, not this file's stamp
def encode(c, w, games, seats, out, n, cap, off, poff, hk, qk, units, space_feat, qneed, qpoints, qregion,
           scaled_at, scaled_by, adj, K):
    """out[games[g]] = `observe(state, seats[g])` of game games[g] (every other row of `out` untouched)."""
    for g in range(games.size):
        i = games[g]
        _encode_row(out[i], c, w, i, seats[g], n, cap, off, poff, hk, qk, units, space_feat, qneed, qpoints,
                    qregion, scaled_at, scaled_by, adj, K)
