"""The observation encoder of `fae_rl.observation.observe` as a numba kernel over the batched state.

Bit-exact to `observe`: every scaled value is produced by the same float32 arithmetic (the
lookup tables below are made by running observe's own numpy expressions on every possible count),
and the tests compare the two on every step of 1,000+ random games.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from fae_rl.board import NUM_COLOURS, NUM_MOVE_ACTIONS, NUM_RITUAL_CARDS, NUM_SPACES
from fae_rl.obs_layout import (
    _CARDS_LEFT,
    _LAYOUTS,
    _MAX_DEGREE,
    _TEMPLATES,
    DRUID_SCALE,
    SCORE_SCALE,
)
from fae_rl.state import MAX_PLAYERS
from fae_rl.vector_core import (
    B_COUNT,
    B_DRUIDS,
    B_MOVE_OK,
    B_PENDING,
    B_RESOLVED,
    NB,
    NB_N,
    W_CARDS,
    W_COLOURS,
    W_LAST,
    W_MOVED,
    W_POINTS,
    W_RITUAL,
    W_SCORES,
)

_L = _LAYOUTS["summary"]  # the base blocks sit at the same offsets in both layouts
O_DRUIDS, O_OCC, O_RES = _L["druids"].start, _L["occupied"].start, _L["resolved"].start
O_PEND, O_NB, O_ISO = _L["pending"].start, _L["occupied_neighbours"].start, _L["isolates_if_moved"].start
O_LEFT, O_SCORES = _L["ritual_cards_left"].start, _L["scores"].start
O_HELD, O_PRESENT, O_OWN = _L["ritual_cards_held"].start, _L["seat_in_game"].start, _L["own_colour"].start
# other{k}_* blocks for k = 1..3 (index 0 unused)
O_MOVED = np.asarray([0] + [_L[f"other{k}_moved"].start for k in range(1, MAX_PLAYERS)], dtype=np.int64)
O_POINTS = np.asarray([0] + [_L[f"other{k}_points"].start for k in range(1, MAX_PLAYERS)], dtype=np.int64)
O_LAST = np.asarray([0] + [_L[f"other{k}_last_move"].start for k in range(1, MAX_PLAYERS)], dtype=np.int64)
TEMPLATE_SUMMARY, TEMPLATE_NONE = _TEMPLATES["summary"], _TEMPLATES["none"]
CARDS_LEFT = _CARDS_LEFT

# observe's expressions, run on every possible integer, so the kernel copies their rounding.
DRUID_STEP = 1.0 / DRUID_SCALE
_nb = np.arange(-6, 7, dtype=np.float32)
_nb *= 1.0 / _MAX_DEGREE  # float32 arithmetic, as observe's np.multiply / *= on float32 blocks
DEGREE_F32 = _nb  # index k + 6 for k in -6..6
HELD_F32 = np.asarray([k / NUM_RITUAL_CARDS for k in range(NUM_RITUAL_CARDS + 1)], dtype=np.float32)
SCORE_MUL = np.float32(1.0 / SCORE_SCALE)  # `block *= 1/100` on a float32 block multiplies in float32
DRUID_MUL = np.float32(1.0 / DRUID_SCALE)

NB_MASK = np.asarray([sum(1 << int(n) for n in NB[i, :NB_N[i]]) for i in range(NUM_SPACES)], dtype=np.int64)


@intrinsic
def _popcount(typingctx, x):
    """Set bits of an int64: LLVM's ctpop (one popcnt instruction on x86-64)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@njit(cache=True)
def encode_row(o, druids, count, resolved, pending, cards, scores, ritual, colours, moved, points, last,
               seat, num_players, summary):
    """o[:] = observe(state, seat, history) from one game's fields (seat-indexed ones padded or not)."""
    template = TEMPLATE_SUMMARY if summary else TEMPLATE_NONE
    for k in range(o.shape[0]):  # a plain loop: faster here than numba's slice assignment
        o[k] = template[k]
    for k in range(NUM_SPACES * NUM_COLOURS):
        o[O_DRUIDS + k] = np.float32(druids[k] * DRUID_STEP)  # observe's uint8 * (1/12) in float64, then float32
    # Spaces as 60-bit sets: a neighbour count is one popcount.
    occupied = done = 0
    for i in range(NUM_SPACES):
        if count[i]:
            occupied |= np.int64(1) << i
            o[O_OCC + i] = 1.0
        if resolved[i]:
            done |= np.int64(1) << i
            o[O_RES + i] = 1.0
        if pending[i]:
            o[O_PEND + i] = 1.0
    one = 0  # spaces with exactly one occupied neighbour
    for i in range(NUM_SPACES):
        s = _popcount(occupied & NB_MASK[i])
        o[O_NB + i] = DEGREE_F32[s + 6]
        if s == 1:
            one |= np.int64(1) << i
    # observe's lonely = (occupied - resolved) * (one occupied neighbour): its +1 and -1 sets.
    plus, minus = occupied & ~done & one, ~occupied & done & one
    for i in range(NUM_SPACES):
        s = _popcount(NB_MASK[i] & plus) - _popcount(NB_MASK[i] & minus)
        if (occupied >> i) & 1:
            o[O_ISO + i] = DEGREE_F32[s + 6]
        elif s < 0:
            o[O_ISO + i] = -0.0  # observe's float32 (-k) * 0: the bytes match too
    for v in range(CARDS_LEFT.shape[1]):
        o[O_LEFT + v] = CARDS_LEFT[cards, v]
    for c in range(NUM_COLOURS):
        o[O_SCORES + c] = np.float32(scores[c]) * SCORE_MUL
    for k in range(num_players):
        p = (seat + k) % num_players
        o[O_HELD + k] = HELD_F32[ritual[p]]
        o[O_PRESENT + k] = 1.0
    o[O_OWN + colours[seat]] = 1.0
    if summary:
        for k in range(1, num_players):
            p = (seat + k) % num_players
            for c in range(NUM_COLOURS):
                o[O_MOVED[k] + c] = np.float32(moved[NUM_COLOURS * p + c]) * DRUID_MUL
                o[O_POINTS[k] + c] = np.float32(points[NUM_COLOURS * p + c]) * SCORE_MUL
            if 0 <= last[p] < NUM_MOVE_ACTIONS:
                o[O_LAST[k] + last[p]] = 1.0


@njit(cache=True)
def encode(b, w, seats, num_players, summary, out):
    """out[g] = observe(state_g, seats[g], "summary" if summary else "none"); zeros where seats[g] < 0."""
    for g in range(b.shape[0]):
        seat = seats[g]
        if seat < 0:
            out[g, :] = 0.0
            continue
        bg, wg = b[g], w[g]
        encode_row(out[g], bg[B_DRUIDS:B_COUNT], bg[B_COUNT:B_RESOLVED], bg[B_RESOLVED:B_PENDING],
                   bg[B_PENDING:B_MOVE_OK], wg[W_CARDS], wg[W_SCORES:W_RITUAL], wg[W_RITUAL:W_CARDS],
                   wg[W_COLOURS:W_MOVED], wg[W_MOVED:W_POINTS], wg[W_POINTS:W_LAST], wg[W_LAST:W_LAST + MAX_PLAYERS],
                   seat, num_players, summary)
