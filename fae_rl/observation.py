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

from fae_rl.board import NUM_ACTIONS, NUM_SPACES
from fae_rl.obs_kernel import encode_row as _encode_row
from fae_rl.obs_layout import (  # noqa: F401  (re-exported: the layout is part of this module's API)
    _NO_PENDING,
    _SIZES,
    DRUID_SCALE,
    HISTORY_OPTIONS,
    SCORE_SCALE,
    _check_history,
    observation_high,
    observation_layout,
    observation_size,
)
from fae_rl.state import FaeState


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

