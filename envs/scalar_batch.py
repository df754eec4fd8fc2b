"""`ScalarBatch`: N scalar games of any registered game presented as one `BatchedGame`.

    from tabletop_rl.envs.scalar_batch import ScalarBatch
    b = ScalarBatch("fantastiqa", num_envs=64, num_players=2)   # rule and observation options as keywords
    b.reset(seeds)              # game i == spec.new_state(num_players, seed=seeds[i], **rule options)
    b.legal_mask(); b.observe(seats); b.step(actions, games=None); b.returns(); b.state(i)

It is the generic learner path: any game of the registry (a new one included) trains through
`tabletop_rl.training.learner` on it, exactly as it plays in the scalar env (masks, observations and
returns are the game spec's `action_mask` and `observe`), only without a batched engine's speed:
every call loops over the N games in Python. A game with a batched engine (`fae_rl.vector.FaeVector`)
presents the same protocol natively.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from tabletop_rl.envs.game_state import integers
from tabletop_rl.envs.registry import GameSpec, get_game


def observation_space(spec: GameSpec, num_players: int, rule_opts: dict, obs_opts: dict) -> spaces.Box:
    """Box of the game's observation vector, with the bounds its AEC env declares."""
    aec = spec.raw_env(num_players=num_players, **rule_opts, **obs_opts)
    space = aec.observation_space(aec.possible_agents[0])
    if isinstance(space, spaces.Dict):
        space = space["observation"]
    return spaces.Box(np.asarray(space.low, dtype=np.float32), np.asarray(space.high, dtype=np.float32),
                      dtype=np.float32)


class ScalarBatch:
    """N games of `game` (a GameSpec or a registered name), each a scalar `GameState`."""

    def __init__(self, game, num_envs: int, num_players: int = 2, **options):
        self.spec = spec = game if isinstance(game, GameSpec) else get_game(game)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int; got {num_envs!r}")
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) \
                or not spec.min_players <= num_players <= spec.max_players:
            raise ValueError(f"num_players must be in {spec.min_players}..{spec.max_players}; got {num_players!r}")
        self.rule_options, self.observation_options = spec.check_options(options)
        self.num_envs, self.num_players = int(num_envs), int(num_players)
        template = spec.new_state(num_players=self.num_players, seed=0, **self.rule_options)
        self._state_type = type(template)
        self.num_actions = int(spec.action_mask(template, 0).size)
        self.obs_size = int(np.asarray(spec.observe(template, 0, **self.observation_options)).size)
        self.games: list = []
        # Per-game caches, refreshed only for the games that changed (an opponent round steps a few
        # games of many): the mover, the end, and the mover's mask (recomputed lazily where stale).
        n = self.num_envs
        self._cur = np.full(n, -1, dtype=np.int64)
        self._term = np.zeros(n, dtype=np.bool_)
        self._mask = np.zeros((n, self.num_actions), dtype=np.bool_)
        self._stale = np.ones(n, dtype=np.bool_)
        self.POTENTIALS = ("score_diff",) if spec.potential is not None else ()

    # ------------------------------------------------------------------ sizes
    def observation_space(self) -> spaces.Box:
        return observation_space(self.spec, self.num_players, self.rule_options, self.observation_options)

    # ------------------------------------------------------------------ dealing
    def _deal(self, seed: int):
        return self.spec.new_state(num_players=self.num_players, seed=int(seed), **self.rule_options)

    def reset(self, seeds) -> None:
        seeds = integers(seeds, "seeds", (self.num_envs,))
        self.games = [self._deal(s) for s in seeds]
        self._changed(range(self.num_envs))

    def reset_done(self, seeds) -> np.ndarray:
        self._check_dealt()
        seeds = integers(seeds, "seeds", (self.num_envs,))
        done = np.flatnonzero(self._term)
        for i in done:
            self.games[i] = self._deal(seeds[i])
        self._changed(done)
        return done

    def _changed(self, games) -> None:
        """Refresh the caches of `games` after they changed."""
        for i in games:
            s = self.games[i]
            self._term[i] = end = s.is_terminal()
            self._cur[i] = -1 if end else s.current_player
            self._stale[i] = True

    def _check_dealt(self) -> None:
        if not self.games:
            raise ValueError("ScalarBatch: call reset(seeds) before using the games")

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> np.ndarray:
        self._check_dealt()
        return self._cur.copy()

    @property
    def terminated(self) -> np.ndarray:
        self._check_dealt()
        return self._term.copy()

    def _out(self, out, width: int, dtype) -> np.ndarray:
        shape = (self.num_envs, width)
        if out is None:
            return np.zeros(shape, dtype=dtype)
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype:
            raise ValueError(f"out must be a {np.dtype(dtype).name} array of shape {shape}")
        return out

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        self._check_dealt()
        self._fresh_masks()
        out = self._out(out, self.num_actions, np.bool_)
        out[:] = self._mask
        return out

    def _fresh_masks(self) -> None:
        for i in np.flatnonzero(self._stale):
            s = self.games[i]
            self._mask[i] = False if self._term[i] else self.spec.action_mask(s, s.current_player)
        self._stale[:] = False

    def observe(self, seats=None, *, out: np.ndarray | None = None) -> np.ndarray:
        seats = self.current_player if seats is None else integers(seats, "seats", (self.num_envs,))
        if ((seats < -1) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be in -1..{self.num_players - 1}; got {seats.tolist()}")
        self._check_dealt()
        out = self._out(out, self.obs_size, np.float32)
        for i, (s, seat) in enumerate(zip(self.games, seats)):
            out[i] = 0.0 if seat < 0 else self.spec.observe(s, int(seat), **self.observation_options)
        return out

    def returns(self) -> np.ndarray:
        self._check_dealt()
        return np.stack([np.asarray(s.returns(), dtype=np.float64) for s in self.games])

    def state(self, i: int):
        self._check_dealt()
        return self.games[self._index(i)].clone()

    def view(self, i: int):
        """Game i itself, not a copy: for a bot to read (never to change) without the cost of a clone."""
        self._check_dealt()
        return self.games[self._index(i)]

    def set_state(self, i: int, state) -> None:
        i = self._index(i)
        if type(state) is not self._state_type or state.num_players != self.num_players:
            raise ValueError(f"state must be a {self._state_type.__name__} of {self.num_players} players; "
                             f"got {type(state).__name__}")
        if not self.games:
            self.reset(np.zeros(self.num_envs, dtype=np.int64))
        self.games[i] = state.clone()
        self._changed([i])

    def _index(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"game index must be an int in 0..{self.num_envs - 1}; got {i!r}")
        return int(i)

    # ------------------------------------------------------------------ transitions
    def step(self, actions, games=None) -> None:
        self._check_dealt()
        actions = integers(actions, "actions", (self.num_envs,))
        if games is None:
            games = np.ones(self.num_envs, dtype=np.bool_)
        games = np.asarray(games)
        if games.shape != (self.num_envs,) or games.dtype != np.bool_:
            raise ValueError(f"games must be a bool array of shape ({self.num_envs},)")
        todo = np.flatnonzero(games & ~self._term)
        self._fresh_masks()
        for i in todo:  # every action is checked before any is applied
            a = int(actions[i])
            if not (0 <= a < self.num_actions and self._mask[i, a]):
                raise ValueError(f"game {i}: action {a} is illegal for seat {self._cur[i]}")
        for i in todo:
            self.games[i].apply(int(actions[i]))
        self._changed(todo)

    def potential(self, seats, kind: str = "score_diff") -> np.ndarray:
        """float64 (N,): the game spec's score_diff `potential(state, seat)` of seats[i] in game i."""
        if kind != "score_diff" or self.spec.potential is None:
            raise ValueError(f"{self.spec.name} has no score_diff potential (GameSpec.potential)")
        return np.fromiter((self.spec.potential(s, int(p)) for s, p in zip(self.games, seats)), np.float64,
                           self.num_envs)

    def __repr__(self) -> str:
        return f"ScalarBatch({self.spec.name!r}, num_envs={self.num_envs}, num_players={self.num_players})"


__all__ = ["ScalarBatch", "observation_space"]
