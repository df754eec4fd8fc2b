"""`FantastiqaBatch`: Fantastiqa's batched engine (`fantastiqa_rl.vector.FantastiqaVector`) as the learner sees it.

    from tabletop_rl.envs.fantastiqa_batch import FantastiqaBatch
    b = FantastiqaBatch(num_envs=256, num_players=2)     # goal, card_set and every rule option of FantastiqaState.new

A `BatchedGame` (tabletop_rl.envs.game_state): the protocol is `FantastiqaVector`'s, delegated
(observations bit-equal to `fantastiqa_rl.observe`, masks, steps, returns, states). On top of it,
Fantastiqa's batched hooks for the learner core (`tabletop_rl.envs.learner`):
- `greedy_actions(rng, games)`: the greedy bot's move (`tabletop_rl.agents.fantastiqa_greedy`,
  one bot per game and seat, started afresh with each deal: the decisions of the scalar bot in a
  match), computed only in `games`; the bot breaks no ties at random, so `rng` is not drawn from;
- `potential(seats, kind)`: `fantastiqa_rl.rewards.POTENTIALS` ("score_diff", the game spec's
  potential, and "progress") of seats[i] in game i, read from that seat's observation: public
  information only.

It sits in the bots layer (tests/test_import_graph.py): it plays the greedy bot.
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl.rewards import POTENTIALS, potentials
from fantastiqa_rl.vector import FantastiqaVector
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent


class FantastiqaBatch:
    """N Fantastiqa games (FantastiqaVector) with the greedy bot and the potentials (module docstring)."""

    POTENTIALS = POTENTIALS

    def __init__(self, num_envs: int, num_players: int = 2, goal: str = "short", card_set: str | None = None,
                 **rule_options):
        self.engine = FantastiqaVector(num_envs, num_players, goal=goal, card_set=card_set,
                                       greedy=FantastiqaGreedyAgent, **rule_options)
        self._rule_options = dict(goal=goal, card_set=card_set, **rule_options)
        self._teams = self.engine.options["teams"] is True  # Q-TM: a side is a team
        self._phi_obs = np.zeros((self.engine.num_envs, self.engine.obs_size), dtype=np.float32)

    # ------------------------------------------------------------------ the protocol, delegated
    num_envs = property(lambda self: self.engine.num_envs)
    num_players = property(lambda self: self.engine.num_players)
    num_actions = property(lambda self: self.engine.num_actions)
    obs_size = property(lambda self: self.engine.obs_size)
    current_player = property(lambda self: self.engine.current_player)
    terminated = property(lambda self: self.engine.terminated)

    @property
    def rule_options(self) -> dict:
        """The options a game of this batch is dealt with (`FantastiqaState.new`'s keywords)."""
        return dict(self._rule_options)

    def reset(self, seeds) -> None:
        self.engine.reset(seeds)

    def reset_done(self, seeds) -> np.ndarray:
        return self.engine.reset_done(seeds)

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        return self.engine.legal_mask(out=out)

    def observe(self, seats=None, *, out: np.ndarray | None = None) -> np.ndarray:
        return self.engine.observe(seats, out=out)

    def step(self, actions, games=None) -> None:
        self.engine.step(actions, games=games)

    def returns(self) -> np.ndarray:
        return self.engine.returns()

    def state(self, i: int):
        return self.engine.state(i)

    def set_state(self, i: int, state) -> None:
        self.engine.set_state(i, state)

    # ------------------------------------------------------------------ Fantastiqa's batched hooks
    def greedy_actions(self, rng: np.random.Generator | None = None, games=None) -> np.ndarray:
        """int64 (N,): the greedy bot's move in each unfinished game of `games` (bool (N,); default
        all), -1 elsewhere. `rng` is the core's generator, unused: the bot's choices are deterministic."""
        return self.engine.greedy_actions(games=games)

    def potential(self, seats, kind: str = "score_diff") -> np.ndarray:
        """float64 (N,): potential `kind` (fantastiqa_rl.rewards) of seats[i] in game i, finished games included."""
        if kind not in POTENTIALS:
            raise ValueError(f"Fantastiqa's potentials are {POTENTIALS}; got {kind!r}")
        obs = self.engine.observe(np.asarray(seats), out=self._phi_obs)
        return potentials(obs, kind, self.num_players, self._teams, self.engine.card_set)

    def __repr__(self) -> str:
        return f"FantastiqaBatch({self.engine!r})"


__all__ = ["FantastiqaBatch"]
