"""The layout of Fae's observation vector: named blocks, scales, bounds, and the tables the encoder
kernel (`fae_rl.obs_kernel`) reads. `fae_rl.observation` re-exports the public names; this module
is apart so that the kernel and the encoder import it without importing each other.
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import (
    NUM_COLOURS,
    NUM_MOVE_ACTIONS,
    NUM_RITUAL_CARDS,
    NUM_SPACES,
    NUM_TERRAINS,
    RITUAL_CARDS,
    TERRAIN,
)
from fae_rl.state import MAX_PLAYERS

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
