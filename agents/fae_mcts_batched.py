"""`mcts_batched`: Fae's MCTS (`make_agent("fae", "mcts")`'s algorithm and defaults) compiled with numba.

    bot = make_agent("fae", "mcts_batched", seed=0)                 # one game, like any bot
    actions = bot.act_batch(batch, games, rng)                      # every game of a FaeBatch at once
    python train.py --preset make-train --opponents mcts_batched=1  # PPO against the search

The search is `fae_rl.vector_mcts` (see there for what it shares with the scalar `mcts` and the two
ways it differs: its random stream and the resolution order of four or more rituals in its prior).
`act` searches a one-game `FaeVector` copy of the state and `act_batch` searches the batch's own
rows, games in parallel on numba's threads (`numba.set_num_threads`): one implementation for
single and batched play. At the default 300 iterations a move costs ~0.5 ms on one core, against
~10-20 ms for the scalar `mcts`; the learner core calls `act_batch` once for all the games this
bot moves in, so PPO can train against the search at thousands of steps per second.

Like `mcts` it reads only what its seat may know: its own colour and the public board (the other
seats' colours in the rows are overwritten by each determinization, never read).
Reproducible: the same seed and position give the same move, whatever the threads.
"""
from __future__ import annotations

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.registry import register_agent

_SEED_SPACE = 2**63


class FaeBatchedMCTS(Agent):
    """Fae's ISMCTS in numba (module docstring). Settings as `make_agent("fae", "mcts")`'s."""

    name = "mcts_batched"
    uses_state = True
    needs_observation = False

    def __init__(self, seed: int | None = None, iterations: int = 300, c: float = 0.7, widen: float = 2.0,
                 root_widen: float = 2.0):
        super().__init__(seed)
        from fae_rl.vector_mcts import check_settings

        self.iterations, self.c, self.widen, self.root_widen = check_settings(iterations, c, widen, root_widen)
        self._vectors: dict = {}  # (num_players, big_stack_merge) -> a one-game FaeVector for act()

    def _search(self, vec, games: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        from fae_rl.vector_mcts import search_games

        return search_games(vec, games, seeds, self.iterations, self.c, self.widen, self.root_widen)

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        from fae_rl.state import FaeState
        from fae_rl.vector import FaeVector

        if not isinstance(state, FaeState) or seat is None:
            raise ValueError("FaeBatchedMCTS.act needs state= (a FaeState) and seat=")
        if state.is_terminal():
            raise ValueError("FaeBatchedMCTS.act: the game is over, there is nothing to play")
        if state.current_player != seat:
            raise ValueError(f"FaeBatchedMCTS.act: seat {seat} is not to move (seat {state.current_player} is)")
        key = (state.num_players, state.big_stack_merge)
        vec = self._vectors.get(key)
        if vec is None:
            vec = self._vectors[key] = FaeVector(1, *key)
        vec.set_state(0, state)
        seed = self.rng.integers(_SEED_SPACE, size=1, dtype=np.uint64)
        return int(self._search(vec, np.zeros(1, dtype=np.int64), seed)[0])

    def act_batch(self, batch, games, rng: np.random.Generator) -> np.ndarray:
        """int64 (N,): the searched move in each game of `games` (bool (N,)), -1 elsewhere. `batch` is a
        FaeBatch or a FaeVector (searched in place), or any other batch of Fae games with `state(i)`
        (ScalarBatch: copied first); one seed per searched game is drawn from `rng` (the learner core's)."""
        from fae_rl.vector import FaeVector

        games = np.asarray(games, dtype=np.bool_)
        if games.shape != (batch.num_envs,):
            raise ValueError(f"games must be a bool array of shape ({batch.num_envs},); got {games.shape}")
        idx = np.flatnonzero(games & ~np.asarray(batch.terminated))
        out = np.full(batch.num_envs, -1, dtype=np.int64)
        seeds = rng.integers(_SEED_SPACE, size=idx.size, dtype=np.uint64)
        vec = getattr(batch, "engine", batch)
        if isinstance(vec, FaeVector):
            out[idx] = self._search(vec, idx, seeds)
        elif idx.size:  # another BatchedGame of Fae (ScalarBatch): its games copied into FaeVector rows
            states = [batch.state(int(i)) for i in idx]
            vec = FaeVector(idx.size, states[0].num_players, states[0].big_stack_merge)
            for k, state in enumerate(states):
                vec.set_state(k, state)
            out[idx] = self._search(vec, np.arange(idx.size), seeds)
        return out


register_agent("fae", "mcts_batched", FaeBatchedMCTS)
