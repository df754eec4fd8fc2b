"""Action-centric observation features: the observation option `action_features`.

The greedy bot (`agents/fae_greedy.py`) plays the action of highest one-move margin
(`fae_rl.margin`: own colour's gain + own ritual cards - the best other colour's gain, rituals
resolved in the mover's best order). A memoryless MLP can only approximate that lookahead from the
board, so the observation may append blocks of 330 features, one per action:

- `action_features="margin"`: blocks `margin` (the action's margin / 10, clipped to [-4, 4]; 0
  for illegal actions) and `best` (1 where the action is one of the greedy bot's best, else 0).
- `action_features="versus"`: those two, then `versus` (the margin against only the colours the
  other seats most likely hold, / 10, clipped likewise) and `versus_best` (1 where the action has
  the largest `versus` margin). The greedy bot counts every other colour's gain against itself,
  but only the seats' colours compete (F-E3); the other seats' colours are secret (F-I1), so
  `versus` guesses each one from the public move history: the colour (not the mover's own) that
  scored most in the rituals that seat triggered, druids it moved breaking ties; every colour but
  the mover's while that seat has moved nothing. Measured in the batched engine (512 seat-rotated
  2-player games vs greedy): playing a `versus_best` move wins 0.65; the mover's own gain alone
  (nobody's subtracted) 0.62; the margin against the true colours 0.66 (greedy itself 0.50).

A policy then represents greedy play at once and learning adds skill on top (`train.py` adds the
blocks to the logits through learned scales: `PolicyWeights.skip`). The features use only what
the mover may know (the public board and history and its OWN colour, F-I1): a seat that is not to
move, or a finished game, gets zeros. The same encoder (`batch_features`) serves the scalar env
(`fae_rl.env(..., action_features=...)`, the registry's `observe`, hence the arena and `PPOAgent`,
through a one-game `FaeVector`) and the batched training env, so both compute the same numbers
(tests/test_fae_vector_env.py).
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import NUM_ACTIONS, NUM_COLOURS
from fae_rl.observation import observation_size, observe
from fae_rl.state import FaeState
from fae_rl.vector import FaeVector

ACTION_FEATURE_OPTIONS = ("none", "margin", "versus")
BLOCKS = {"none": (), "margin": ("margin", "best"), "versus": ("margin", "best", "versus", "versus_best")}
MARGIN_SCALE = 10.0
MARGIN_CLIP = 4.0
_VECTORS: dict = {}  # (num_players, big_stack_merge) -> a 1-game FaeVector valuing scalar positions


def check_action_features(kind: str) -> None:
    if kind not in ACTION_FEATURE_OPTIONS:
        raise ValueError(f"action_features must be one of {ACTION_FEATURE_OPTIONS}; got {kind!r}")


def action_features_size(kind: str = "none") -> int:
    check_action_features(kind)
    return len(BLOCKS[kind]) * NUM_ACTIONS


def feature_layout(history: str = "summary", kind: str = "none") -> dict[str, slice]:
    """Slices of the appended blocks in the full observation (empty for "none")."""
    check_action_features(kind)
    start = observation_size(history)
    return {name: slice(start + k * NUM_ACTIONS, start + (k + 1) * NUM_ACTIONS) for k, name in enumerate(BLOCKS[kind])}


def feature_bounds(kind: str = "none") -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the appended blocks."""
    size = action_features_size(kind)
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    for k, name in enumerate(BLOCKS[kind]):
        if not name.endswith("best"):  # margins; the `best` blocks are 0/1 flags
            low[k * NUM_ACTIONS:(k + 1) * NUM_ACTIONS] = -MARGIN_CLIP
            high[k * NUM_ACTIONS:(k + 1) * NUM_ACTIONS] = MARGIN_CLIP
    return low, high


def likely_colours(vec: FaeVector) -> np.ndarray:
    """bool (N, 5): per game, the colours the mover's opponents most likely hold (the `versus` block).

    Public information only (F-I1): for each other seat, the colour other than the mover's own that
    scored most in the rituals it triggered, plus 1/100 per druid of that colour it moved (ties:
    all tied colours); every colour but the mover's while that seat has moved nothing.
    """
    n, idx = vec.num_envs, np.arange(vec.num_envs)
    mover = np.maximum(vec.current_player, 0)
    own = vec.own_colour(mover)
    evidence = vec.history_points().astype(np.float64) + vec.history_moved() / 100.0  # (N, P, 5)
    evidence[idx, :, own] = -1.0
    top = evidence.max(axis=2, keepdims=True)
    guess = (evidence == top) | (top <= 0)  # (N, P, 5): a seat with no evidence may hold any colour
    guess[idx, mover] = False  # the mover itself
    out = guess.any(axis=1)
    out[idx, own] = False
    return out


def batch_features(vec: FaeVector, kind: str, rows: np.ndarray, out: np.ndarray,
                   margins: np.ndarray | None = None) -> np.ndarray:
    """Fill float32 (N, action_features_size(kind)) `out` with the mover's features in the games
    flagged in `rows` (bool (N,)); other rows get zeros. `margins` (float64 (N, 330)), if given,
    receives the greedy bot's margins of those rows (for a greedy opponent to reuse)."""
    if kind == "none":
        return out
    rows = rows & ~vec.terminated
    likely = likely_colours(vec) if kind == "versus" else None
    return vec.margin_features(out, rows, likely, MARGIN_SCALE, MARGIN_CLIP, raw=margins)


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
    return batch_features(vec, kind, np.ones(1, dtype=np.bool_), out)[0]


_features_of = action_features  # the name is also observe_features' option below


def observe_features(state: FaeState, seat: int, history: str = "summary", action_features: str = "none") -> np.ndarray:
    """`fae_rl.observe(state, seat, history)` followed by the action features (the registry's observe)."""
    obs = observe(state, seat, history)
    if action_features == "none":
        return obs
    return np.concatenate([obs, _features_of(state, seat, action_features)])


__all__ = ["ACTION_FEATURE_OPTIONS", "BLOCKS", "action_features", "action_features_size", "batch_features",
           "feature_bounds", "feature_layout", "likely_colours", "observe_features"]
