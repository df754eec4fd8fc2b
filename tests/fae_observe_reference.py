"""The observation encoder as plain numpy, block by block: the reference `fae_rl.observe` (a numba
kernel, `fae_rl.obs_kernel`) is held byte-equal to. This was `fae_rl.observation.observe` before
the kernel; keep it readable rather than fast.
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import NEIGHBOURS, NUM_COLOURS, NUM_RITUAL_CARDS, NUM_SPACES
from fae_rl.obs_layout import _CARDS_LEFT, _LAYOUTS, _MAX_DEGREE, _TEMPLATES, DRUID_SCALE, SCORE_SCALE
from fae_rl.state import FaeState

_L = _LAYOUTS["summary"]  # base blocks sit at the same offsets in both layouts
_S_DRUIDS, _S_OCCUPIED, _S_RESOLVED = _L["druids"], _L["occupied"], _L["resolved"]
_S_NEIGHBOURS, _S_ISOLATES = _L["occupied_neighbours"], _L["isolates_if_moved"]
_PENDING0 = _L["pending"].start
_ADJ = np.zeros((NUM_SPACES, NUM_SPACES), dtype=np.float32)
for _i, _nbs in enumerate(NEIGHBOURS):
    _ADJ[_i, list(_nbs)] = 1.0


def observe_reference(state: FaeState, seat: int, history: str = "summary") -> np.ndarray:
    """The observation vector of `seat` (float32, shape `(observation_size(history),)`)."""
    if not 0 <= seat < state.num_players:
        raise ValueError(f"seat must be in 0..{state.num_players - 1}; got {seat}")
    obs = _TEMPLATES[history].copy()
    d = state.to_dict()  # the public fields, as plain lists
    obs[_S_DRUIDS] = state.druids().ravel() * (1.0 / DRUID_SCALE)
    occupied = obs[_S_OCCUPIED]
    np.greater(state.counts(), 0, out=occupied)
    resolved = obs[_S_RESOLVED]
    resolved[:] = state.resolved()
    occupied_nb = _ADJ @ occupied
    np.multiply(occupied_nb, 1.0 / _MAX_DEGREE, out=obs[_S_NEIGHBOURS])
    # An occupied, unresolved space whose only occupied neighbour is s is isolated when s moves away.
    lonely = (occupied - resolved) * (occupied_nb == 1.0)
    isolates = obs[_S_ISOLATES]
    np.matmul(_ADJ, lonely, out=isolates)
    isolates *= occupied
    isolates *= 1.0 / _MAX_DEGREE
    for space in state.pending:
        obs[_PENDING0 + space - 1] = 1.0
    obs[_L["ritual_cards_left"]] = _CARDS_LEFT[state.cards_used]
    obs[_L["scores"]] = d["scores"]
    obs[_L["scores"]] *= 1.0 / SCORE_SCALE
    n = state.num_players
    order = [(seat + k) % n for k in range(n)]  # seat-relative
    held = _L["ritual_cards_held"].start
    present = _L["seat_in_game"].start
    for k, p in enumerate(order):
        obs[held + k] = d["ritual_cards"][p] / NUM_RITUAL_CARDS
        obs[present + k] = 1.0
    obs[_L["own_colour"].start + state.colours[seat]] = 1.0
    if history == "summary":
        for k in range(1, n):
            p = order[k]
            base = _L[f"other{k}_moved"].start
            obs[base:base + NUM_COLOURS] = d["history"][p]["moved"]
            obs[base:base + NUM_COLOURS] *= 1.0 / DRUID_SCALE
            base = _L[f"other{k}_points"].start
            obs[base:base + NUM_COLOURS] = d["history"][p]["points"]
            obs[base:base + NUM_COLOURS] *= 1.0 / SCORE_SCALE
            last = d["history"][p]["last_action"]
            if last >= 0:
                obs[_L[f"other{k}_last_move"].start + last] = 1.0
    return obs
