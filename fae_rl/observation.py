"""Per-seat observation tensor and action mask for Fae (the encoder layer; no PettingZoo here).

The observation is a 1-D float32 vector; `observation_layout(history)` names its slices. It
holds only what the seat may know (F-I1): the public board and scores, the public move history,
and the seat's OWN colour. Other seats' colours never enter it. Seats are in seat-relative order
(own seat first, then the next seats in turn order) and padded to 4 seats, so the shape does not
depend on the number of players and one policy can sit at any table.

Scales keep every feature roughly in [0, 1] (druid counts / 12, scores / 100, ...); the Box bounds
in `observation_high` are the true maxima after scaling.
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import (
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_MOVE_ACTIONS,
    NUM_RITUAL_CARDS,
    NUM_SPACES,
    NUM_TERRAINS,
    RITUAL_CARDS,
    TERRAIN,
)
from fae_rl.state import MAX_PLAYERS, FaeState

HISTORY_OPTIONS = ("summary", "none")
DRUID_SCALE = 12.0  # druids of one colour
SCORE_SCALE = 100.0
_CARD_VALUES = sorted({v for v, _, _ in RITUAL_CARDS})
_CARDS_PER_VALUE = np.asarray([sum(1 for c in RITUAL_CARDS if c[0] == v) for v in _CARD_VALUES], dtype=np.float32)
# cards_left_by_value[k][v] after k cards are drawn (scaled by the stack size).
_CARDS_LEFT = np.stack([
    np.asarray([sum(1 for c in RITUAL_CARDS[k:] if c[0] == v) for v in _CARD_VALUES], dtype=np.float32) / _CARDS_PER_VALUE
    for k in range(NUM_RITUAL_CARDS + 1)
])

# (name, size, high) in order; history blocks are appended per other seat.
_BASE_BLOCKS = (
    ("druids", NUM_SPACES * NUM_COLOURS, 1.0),  # [space, colour] count / 12
    ("occupied", NUM_SPACES, 1.0),
    ("resolved", NUM_SPACES, 1.0),
    ("pending", NUM_SPACES, 1.0),
    # Derived from the public board, so a memoryless MLP sees what a move isolates (F-R1):
    ("occupied_neighbours", NUM_SPACES, 1.0),  # occupied neighbours / 6
    ("isolates_if_moved", NUM_SPACES, 1.0),  # spaces that would be isolated if this stack moved / 6
    ("terrain", NUM_SPACES * NUM_TERRAINS, 1.0),  # one-hot per space
    ("ritual_cards_left", len(_CARD_VALUES), 1.0),  # per value, share of its stack left
    ("scores", NUM_COLOURS, 8.0),  # colour scores / 100 (12 rituals x 65 < 800)
    ("ritual_cards_held", MAX_PLAYERS, 1.0),  # seat-relative, / 12
    ("seat_in_game", MAX_PLAYERS, 1.0),  # seat-relative: 1 if that seat exists at this table
    ("own_colour", NUM_COLOURS, 1.0),  # one-hot: the only private feature
)
_HISTORY_BLOCKS = (
    ("moved", NUM_COLOURS, 60.0),  # druids of each colour this seat has moved / 12 (<= 59 x 12)
    ("points", NUM_COLOURS, 8.0),  # points each colour gained from rituals it triggered / 100
    ("last_move", NUM_MOVE_ACTIONS, 1.0),  # one-hot of its last move action
)


def _check_history(history: str) -> None:
    if history not in HISTORY_OPTIONS:
        raise ValueError(f"history must be one of {HISTORY_OPTIONS}; got {history!r}")


def observation_layout(history: str = "summary") -> dict[str, slice]:
    """Slice of each named block of the observation vector.

    With history="summary", blocks `other{k}_moved`, `other{k}_points`, `other{k}_last_move` follow
    for k = 1..3, the k-th seat after the observer (zeros where that seat is not at the table).
    """
    _check_history(history)
    layout, pos = {}, 0
    blocks = list(_BASE_BLOCKS)
    if history == "summary":
        blocks += [(f"other{k}_{name}", size, high) for k in range(1, MAX_PLAYERS) for name, size, high in _HISTORY_BLOCKS]
    for name, size, _high in blocks:
        layout[name] = slice(pos, pos + size)
        pos += size
    return layout


def observation_high(history: str = "summary") -> np.ndarray:
    """Upper bounds of the observation (lower bounds are 0)."""
    _check_history(history)
    highs = [np.full(size, high, dtype=np.float32) for _, size, high in _BASE_BLOCKS]
    if history == "summary":
        highs += [np.full(size, high, dtype=np.float32) for _ in range(1, MAX_PLAYERS) for _, size, high in _HISTORY_BLOCKS]
    return np.concatenate(highs)


_LAYOUTS = {h: observation_layout(h) for h in HISTORY_OPTIONS}
_SIZES = {h: max(s.stop for s in _LAYOUTS[h].values()) for h in HISTORY_OPTIONS}
# The terrain block never changes: a template holds it, and each observation starts as its copy.
_TEMPLATES = {}
for _h in HISTORY_OPTIONS:
    _t = np.zeros(_SIZES[_h], dtype=np.float32)
    _terrain = np.zeros((NUM_SPACES, NUM_TERRAINS), dtype=np.float32)
    _terrain[np.arange(NUM_SPACES), TERRAIN] = 1.0
    _t[_LAYOUTS[_h]["terrain"]] = _terrain.ravel()
    _TEMPLATES[_h] = _t
_MAX_DEGREE = 6.0
_NO_PENDING = np.zeros(NUM_SPACES, dtype=np.uint8)


def observation_size(history: str = "summary") -> int:
    _check_history(history)
    return _SIZES[history]


def observe(state: FaeState, seat: int, history: str = "summary") -> np.ndarray:
    """The observation vector of `seat` (float32, shape `(observation_size(history),)`).

    Encoded by the numba kernel `fae_rl.obs_kernel.encode_row` (shared with `fae_rl.vector`); the
    tests hold it byte-equal to a plain numpy statement of every block (tests/fae_observe_reference.py).
    """
    if not 0 <= seat < state.num_players:
        raise ValueError(f"seat must be in 0..{state.num_players - 1}; got {seat}")
    _check_history(history)
    pending = _NO_PENDING
    if state._pending:
        pending = np.zeros(NUM_SPACES, dtype=np.uint8)
        pending[state._pending] = 1
    obs = np.empty(_SIZES[history], dtype=np.float32)
    _encode_row(
        obs, np.frombuffer(state._druids, dtype=np.uint8), np.frombuffer(state._count, dtype=np.uint8),
        np.frombuffer(state._resolved, dtype=np.uint8), pending, state._cards_used,
        np.asarray(state._scores, dtype=np.int64), np.asarray(state._ritual_cards, dtype=np.int64),
        np.asarray(state.colours, dtype=np.int64), np.asarray(state._hist_moved, dtype=np.int64).ravel(),
        np.asarray(state._hist_points, dtype=np.int64).ravel(), np.asarray(state._hist_last, dtype=np.int64),
        seat, state.num_players, history == "summary",
    )
    return obs


def action_mask(state: FaeState, seat: int) -> np.ndarray:
    """int8 (330,): the legal actions if `seat` is to move, else all zeros."""
    if seat != state.current_player:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    return state.legal_mask()


from fae_rl.obs_kernel import encode_row as _encode_row  # noqa: E402  (the kernel reads this module's tables)
