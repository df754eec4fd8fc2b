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

from fae_rl.board import NUM_ACTIONS
from fae_rl.obs_kernel import encode as _encode
from fae_rl.obs_layout import (  # noqa: F401  (re-exported: the layout is part of this module's API)
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

    Encoded by the numba kernel `fae_rl.obs_kernel.encode` over the state's row (the call
    `fae_rl.vector` makes for N games); the tests hold it byte-equal to a plain numpy statement of
    every block (tests/fae_observe_reference.py).
    """
    if not 0 <= seat < state.num_players:
        raise ValueError(f"seat must be in 0..{state.num_players - 1}; got {seat}")
    _check_history(history)
    obs = np.empty((1, _SIZES[history]), dtype=np.float32)
    _encode(state._b, state._w, np.full(1, seat, dtype=np.int64), state.num_players, history == "summary", obs)
    obs = obs[0]
    return obs


def action_mask(state: FaeState, seat: int) -> np.ndarray:
    """int8 (330,): the legal actions if `seat` is to move, else all zeros."""
    if seat != state.current_player:
        return np.zeros(NUM_ACTIONS, dtype=np.int8)
    return state.legal_mask()

