"""`FaeBatch`: Fae's batched engine (`fae_rl.vector.FaeVector`) as the learner sees it.

    from tabletop_rl.envs.fae_batch import FaeBatch
    b = FaeBatch(num_envs=512, num_players=2, history="none", action_features="versus")

A `BatchedGame` (tabletop_rl.envs.game_state) whose `observe(seats)` is exactly
`spec.observe(state, seat, history=..., action_features=...)`, what the scalar env, the arena and
`PPOAgent` see: the board observation of `fae_rl.observe` followed by the per-action blocks of
`fae_rl.features`, those only where the seat is the mover (F-I1: another seat sees zeros there).
On top of the protocol it has Fae's batched hooks for the learner core:
- `greedy_actions(rng, games)`: the greedy bot's move (one-move margin lookahead, ties uniform),
  computed only in `games`;
- `potential(seats, kind)`: "score_diff" (the game spec's potential: own colour score + own ritual
  cards - best other colour's score) or "seat_diff" (the final margin so far against the other
  SEATS' colours only, F-E2/F-E3: the potential that decides the game; it reads the other seats'
  secret colours, a training signal never shown to a policy).
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import NUM_ACTIONS
from fae_rl.features import action_features_size, batch_features, check_action_features, feature_bounds, feature_layout
from fae_rl.observation import _check_history, observation_high, observation_layout, observation_size
from fae_rl.vector import FaeVector
from tabletop_rl.envs.rewards import SCORE_DIFF

POTENTIALS = (SCORE_DIFF, "seat_diff")  # Fae's potentials: the spec's score_diff and its own seat_diff


class FaeBatch:
    """N Fae games (FaeVector) observed with the learner's options (module docstring)."""

    POTENTIALS = POTENTIALS

    def __init__(self, num_envs: int, num_players: int = 2, big_stack_merge: bool = False, history: str = "summary",
                 action_features: str = "none"):
        _check_history(history)
        check_action_features(action_features)
        self.engine = FaeVector(num_envs, num_players, big_stack_merge)
        self.history, self.action_features = history, action_features
        n = self.engine.num_envs
        self.n_base = observation_size(history)
        self._obs_size = self.n_base + action_features_size(action_features)
        low, high = feature_bounds(action_features)
        self.obs_low = np.concatenate([np.zeros(self.n_base, dtype=np.float32), low])
        self.obs_high = np.concatenate([observation_high(history), high])
        self._base = np.zeros((n, self.n_base), dtype=np.float32)
        self._feat = np.zeros((n, action_features_size(action_features)), dtype=np.float32)
        self._margins = np.zeros((n, NUM_ACTIONS), dtype=np.float64)

    # ------------------------------------------------------------------ the protocol, delegated
    num_envs = property(lambda self: self.engine.num_envs)
    num_players = property(lambda self: self.engine.num_players)
    num_actions = property(lambda self: NUM_ACTIONS)
    obs_size = property(lambda self: self._obs_size)
    current_player = property(lambda self: self.engine.current_player)
    terminated = property(lambda self: self.engine.terminated)

    @property
    def rule_options(self) -> dict:
        return {"big_stack_merge": self.engine.big_stack_merge}

    @property
    def action_blocks(self) -> dict:
        """name -> (slice, starts on): the per-action blocks (fae_rl.features) train.py's policy adds
        to its logits; the greedy margin and best flag start at skip_init, the others at 0."""
        return {name: (sl, name in ("margin", "best"))
                for name, sl in feature_layout(self.history, self.action_features).items()}

    @property
    def constant_inputs(self) -> tuple:
        """Observation slices equal in every game (the terrain): the policy's MLPs leave them out."""
        return (observation_layout(self.history)["terrain"],)

    def reset(self, seeds) -> None:
        self.engine.reset(seeds)

    def reset_done(self, seeds) -> np.ndarray:
        return self.engine.reset_done(seeds)

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        return self.engine.legal_mask(out=out)

    def step(self, actions, games=None) -> None:
        self.engine.step(actions, games=games)

    def returns(self) -> np.ndarray:
        return self.engine.returns()

    def state(self, i: int):
        return self.engine.state(i)

    def set_state(self, i: int, state) -> None:
        self.engine.set_state(i, state)

    def observe(self, seats=None, *, out: np.ndarray | None = None) -> np.ndarray:
        v = self.engine
        cur = v.current_player
        seats = cur if seats is None else np.asarray(seats)
        if out is None:
            out = np.zeros((v.num_envs, self._obs_size), dtype=np.float32)
        v.observe(seats=seats, history=self.history, out=self._base)
        out[:, :self.n_base] = self._base
        if self._feat.shape[1]:
            movers = (seats == cur) & (seats >= 0)  # F-I1: the per-action blocks only where the seat is to move
            if movers.any():
                batch_features(v, self.action_features, movers, self._feat, margins=self._margins)
                out[:, self.n_base:] = self._feat
            else:  # e.g. the final positions: no kernel pass
                out[:, self.n_base:] = 0.0
        return out

    # ------------------------------------------------------------------ Fae's batched hooks
    def greedy_actions(self, rng: np.random.Generator, games=None) -> np.ndarray:
        """int64 (N,): the greedy bot's move in each game of `games` (bool (N,); default: all unfinished)."""
        v = self.engine
        games = ~v.terminated if games is None else np.asarray(games, dtype=np.bool_)
        out = np.full(v.num_envs, -1, dtype=np.int64)
        g = np.flatnonzero(games)
        if g.size:
            margins = v.margins(out=self._margins, games=games)[g]
            best = margins == margins.max(axis=1, keepdims=True)
            out[g] = np.argmax(np.where(best, rng.random(margins.shape), -1.0), axis=1)
        return out

    def potential(self, seats, kind: str = "score_diff") -> np.ndarray:
        """float64 (N,): `kind`'s potential (module docstring) of seats[i] in game i."""
        v, idx = self.engine, np.arange(self.engine.num_envs)
        seats = np.asarray(seats)
        if kind == "seat_diff":
            final = np.take_along_axis(v.final_colour_scores(), v.colours(), axis=1).astype(np.float64)
            mine = final[idx, seats]
            final[idx, seats] = -np.inf
            return mine - final.max(axis=1)
        if kind != "score_diff":
            raise ValueError(f"Fae's potentials are {POTENTIALS}; got {kind!r}")
        scores = v.scores().astype(np.float64)
        own = v.colours()[idx, seats]
        mine = scores[idx, own] + v.ritual_cards()[idx, seats]
        scores[idx, own] = -np.inf
        return mine - scores.max(axis=1)

    def __repr__(self) -> str:
        return f"FaeBatch({self.engine!r}, history={self.history!r}, action_features={self.action_features!r})"


__all__ = ["FaeBatch", "POTENTIALS"]
