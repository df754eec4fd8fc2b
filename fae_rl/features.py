"""Action-centric observation features: the observation option `action_features="margin"`.

The greedy bot (`agents/fae_greedy.py`) plays the action of highest one-move margin
(`fae_rl.margin`: own colour's gain + own ritual cards - the best other colour's gain, rituals
resolved in the mover's best order). A memoryless MLP can only approximate that lookahead from the
board, so with `action_features="margin"` the observation appends, per action (330 each):

- `margin`: the action's margin / 10, clipped to [-4, 4]; 0 for illegal actions;
- `best`: 1 where the action is one of the greedy bot's best (the margin's maximum), else 0.

A policy then represents greedy play at once and learning adds skill on top (`train.py` adds the
`best` block to the logits through a learned scale: `PolicyWeights.skip`). The margins use only
what the mover may know (the public board and its OWN colour, F-I1): a seat that is not to move,
or a finished game, gets zeros. The same encoder serves the scalar env (`fae_rl.env(...,
action_features="margin")`, the registry's `observe`, hence the arena and `PPOAgent`) and the
batched training env (`encode_margins` over `FaeVector.margins()`), so both compute the same
numbers (tests/test_fae_features.py).
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import NUM_ACTIONS
from fae_rl.observation import observation_size, observe
from fae_rl.state import FaeState
from fae_rl.vector import FaeVector

ACTION_FEATURE_OPTIONS = ("none", "margin")
MARGIN_SCALE = 10.0
MARGIN_CLIP = 4.0
_VECTORS: dict = {}  # (num_players, big_stack_merge) -> a 1-game FaeVector valuing scalar positions


def check_action_features(kind: str) -> None:
    if kind not in ACTION_FEATURE_OPTIONS:
        raise ValueError(f"action_features must be one of {ACTION_FEATURE_OPTIONS}; got {kind!r}")


def action_features_size(kind: str = "none") -> int:
    check_action_features(kind)
    return 0 if kind == "none" else 2 * NUM_ACTIONS


def feature_layout(history: str = "summary", kind: str = "none") -> dict[str, slice]:
    """Slices of the appended blocks in the full observation (empty for "none")."""
    start = observation_size(history)
    if action_features_size(kind) == 0:
        return {}
    return {"margin": slice(start, start + NUM_ACTIONS), "best": slice(start + NUM_ACTIONS, start + 2 * NUM_ACTIONS)}


def feature_bounds(kind: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the appended blocks."""
    size = action_features_size(kind)
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    low[:size // 2], high[:size // 2] = -MARGIN_CLIP, MARGIN_CLIP
    return low, high


def encode_margins(margins: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Fill float32 (N, 660) `out` from float64 (N, 330) margins (-inf where illegal or over)."""
    legal = np.isfinite(margins)
    m = np.where(legal, margins, 0.0)
    np.clip(m / MARGIN_SCALE, -MARGIN_CLIP, MARGIN_CLIP, out=out[:, :NUM_ACTIONS], casting="unsafe")
    best = np.where(legal, margins, -np.inf).max(axis=1, keepdims=True)
    out[:, NUM_ACTIONS:] = legal & (margins == best)
    return out


def action_features(state: FaeState, seat: int, kind: str = "margin") -> np.ndarray:
    """float32 (action_features_size(kind),): the features of `seat` (zeros unless it is to move)."""
    check_action_features(kind)
    out = np.zeros((1, action_features_size(kind)), dtype=np.float32)
    if kind == "none" or state.is_terminal() or seat != state.current_player:
        return out[0]
    key = (state.num_players, state.big_stack_merge)
    vec = _VECTORS.get(key)
    if vec is None:
        vec = _VECTORS[key] = FaeVector(1, *key)
    vec.set_state(0, state)
    return encode_margins(vec.margins(), out)[0]


_features_of = action_features  # the name is also observe_features' option below


def observe_features(state: FaeState, seat: int, history: str = "summary", action_features: str = "none") -> np.ndarray:
    """`fae_rl.observe(state, seat, history)` followed by the action features (the registry's observe)."""
    obs = observe(state, seat, history)
    if action_features == "none":
        return obs
    return np.concatenate([obs, _features_of(state, seat, action_features)])


__all__ = ["ACTION_FEATURE_OPTIONS", "action_features", "action_features_size", "encode_margins",
           "feature_bounds", "feature_layout", "observe_features"]
