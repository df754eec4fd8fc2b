"""`FaeVector`: N Fae games stepped at once, exact to `FaeState` (first version: loops over states).

    from fae_rl.vector import FaeVector
    v = FaeVector(num_envs=N, num_players=2, big_stack_merge=False)
    v.reset(seeds)          # game i dealt as FaeState.new(num_players, seed=seeds[i], big_stack_merge=...)
    v.current_player        # int (N,): seat to act, -1 where the game is over
    v.terminated            # bool (N,)
    v.legal_mask()          # bool (N, 330): the mover's legal actions; all False where over
    v.observe()             # float32 (N, D): row i == fae_rl.observe(state_i, current_player_i); zeros where over
    v.step(actions)         # int (N,): applied to unfinished games; finished games' entries ignored
    v.returns()             # float (N, num_players): FaeState.returns() of each game
    v.state(i)              # a FaeState equal (to_dict) to game i
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import NUM_ACTIONS
from fae_rl.observation import _check_history, observation_size
from fae_rl.observation import observe as observe_state
from fae_rl.state import FaeState, _check_num_players


def _check_num_envs(num_envs) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int; got {num_envs!r}")
    return int(num_envs)


class FaeVector:
    """N Fae games of the same table size and rules, stepped together (see module docstring)."""

    def __init__(self, num_envs: int, num_players: int = 2, big_stack_merge: bool = False):
        self.num_envs = _check_num_envs(num_envs)
        self.num_players = _check_num_players(num_players)
        if not isinstance(big_stack_merge, (bool, np.bool_)):
            raise ValueError(f"big_stack_merge must be True or False; got {big_stack_merge!r}")
        self.big_stack_merge = bool(big_stack_merge)
        self._states: list[FaeState] | None = None

    # ------------------------------------------------------------------ input checks
    def _games(self) -> list[FaeState]:
        if self._states is None:
            raise ValueError("FaeVector: call reset(seeds) before using the games")
        return self._states

    def _int_array(self, values, name: str) -> np.ndarray:
        arr = np.asarray(values)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"{name} must have shape ({self.num_envs},); got {arr.shape}")
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"{name} must be integers; got dtype {arr.dtype}")
        return arr.astype(np.int64, copy=False)

    # ------------------------------------------------------------------ dealing
    def _deal(self, i: int, seed: int) -> FaeState:
        return FaeState.new(self.num_players, seed=int(seed), big_stack_merge=self.big_stack_merge)

    def reset(self, seeds) -> None:
        """Deal every game: game i exactly as `FaeState.new(num_players, seed=seeds[i], ...)`."""
        seeds = self._int_array(seeds, "seeds")
        self._states = [self._deal(i, s) for i, s in enumerate(seeds)]

    def reset_done(self, seeds) -> np.ndarray:
        """Deal again only the games that are over, game i with `seeds[i]` (other entries ignored).

        Returns the indices of the games dealt (for an auto-resetting VecEnv).
        """
        seeds = self._int_array(seeds, "seeds")
        done = np.flatnonzero(self.terminated)
        for i in done:
            self._states[i] = self._deal(i, seeds[i])
        return done

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> np.ndarray:
        """int64 (N,): the seat to act, -1 where the game is over."""
        return np.asarray([s.current_player for s in self._games()], dtype=np.int64)

    @property
    def terminated(self) -> np.ndarray:
        """bool (N,): True where the game is over."""
        return np.asarray([s.is_terminal() for s in self._games()], dtype=bool)

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool (N, 330): the current mover's legal actions; all False where the game is over."""
        games = self._games()
        out = self._out(out, (self.num_envs, NUM_ACTIONS), bool)
        for i, s in enumerate(games):
            out[i] = s.legal_mask()
        return out

    def observe(self, seats=None, history: str = "summary", out: np.ndarray | None = None) -> np.ndarray:
        """float32 (N, D): row i == `fae_rl.observe(state_i, seats[i], history)`.

        `seats` defaults to the current movers; a seat of -1 (a finished game, by default) gives a
        row of zeros. `out`, if given, is a C-contiguous float32 (N, D) array written in place.
        """
        _check_history(history)
        games = self._games()
        seats = self.current_player if seats is None else self._int_array(seats, "seats")
        if ((seats < -1) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be in -1..{self.num_players - 1}; got {seats.tolist()}")
        out = self._out(out, (self.num_envs, observation_size(history)), np.float32)
        for i, s in enumerate(games):
            if seats[i] < 0:
                out[i] = 0.0
            else:
                out[i] = observe_state(s, int(seats[i]), history)
        return out

    def _out(self, out, shape, dtype) -> np.ndarray:
        if out is None:
            return np.empty(shape, dtype=dtype)
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous {np.dtype(dtype).name} array of shape {shape}")
        return out

    def returns(self) -> np.ndarray:
        """float64 (N, num_players): each game's `FaeState.returns()` (zeros until it is over)."""
        return np.stack([s.returns() for s in self._games()])

    def scores(self) -> np.ndarray:
        """int64 (N, 5): the colour scores from rituals (`FaeState.scores()`)."""
        return np.stack([s.scores() for s in self._games()])

    def final_colour_scores(self) -> np.ndarray:
        """int64 (N, 5): colour scores plus each seat's ritual cards on its colour (F-E2)."""
        return np.stack([s.final_colour_scores() for s in self._games()])

    def winners(self) -> np.ndarray:
        """bool (N, num_players): the winning seats of each finished game (F-E3, F-E4); all False before."""
        out = np.zeros((self.num_envs, self.num_players), dtype=bool)
        for i, s in enumerate(self._games()):
            out[i, s.winners()] = True
        return out

    def colours(self) -> np.ndarray:
        """int64 (N, num_players): each seat's secret colour (full information; not for policies)."""
        return np.asarray([s.colours for s in self._games()], dtype=np.int64)

    def state(self, i: int) -> FaeState:
        """A `FaeState` equal (to_dict) to game i (a copy: changing it does not change the game)."""
        games = self._games()
        if not -self.num_envs <= i < self.num_envs:
            raise ValueError(f"game index must be in 0..{self.num_envs - 1}; got {i}")
        return games[i].clone()

    # ------------------------------------------------------------------ transitions
    def step(self, actions) -> None:
        """Apply `actions[i]` to every unfinished game i; entries of finished games are ignored.

        An illegal action raises ValueError naming the game index and the action, and no game changes.
        """
        games = self._games()
        actions = self._int_array(actions, "actions")
        for i, s in enumerate(games):
            if not s.is_terminal() and not s.is_legal(int(actions[i])):
                reason = ""
                try:
                    s._check_action(int(actions[i]))
                except ValueError as e:
                    reason = f": {e}"
                raise ValueError(f"game {i}: action {int(actions[i])} is illegal{reason}")
        for i, s in enumerate(games):
            if not s.is_terminal():
                s.apply(int(actions[i]))

    def __repr__(self) -> str:
        if self._states is None:
            where = "not dealt"
        else:
            where = f"{int(self.terminated.sum())} over"
        return (f"FaeVector(num_envs={self.num_envs}, num_players={self.num_players}, "
                f"big_stack_merge={self.big_stack_merge}, {where})")


__all__ = ["FaeVector"]
