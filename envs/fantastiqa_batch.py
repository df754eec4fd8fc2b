"""`FantastiqaBatch`: Fantastiqa's batched engine (`fantastiqa_rl.vector.FantastiqaVector`) as the learner sees it.

    from tabletop_rl.envs.fantastiqa_batch import FantastiqaBatch
    b = FantastiqaBatch(num_envs=256, num_players=2)     # goal, card_set and every rule option of FantastiqaState.new

A `BatchedGame` (tabletop_rl.envs.game_state): a `FantastiqaVector` (its protocol unchanged:
observations bit-equal to `fantastiqa_rl.observe`, masks, steps, returns, states) with the
greedy bot plugged in and Fantastiqa's batched hooks for the learner core (`tabletop_rl.envs.learner`):
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


class FantastiqaBatch(FantastiqaVector):
    """N Fantastiqa games with the greedy bot and the potentials (module docstring)."""

    POTENTIALS = POTENTIALS

    def __init__(self, num_envs: int, num_players: int = 2, goal: str = "short", card_set: str | None = None,
                 **rule_options):
        super().__init__(num_envs, num_players, goal=goal, card_set=card_set, greedy=FantastiqaGreedyAgent,
                         **rule_options)
        self.rule_options = dict(goal=goal, card_set=card_set, **rule_options)  # how the core deals a cut game again
        self._teams = self.options["teams"] is True  # Q-TM: a side is a team
        self._phi_obs = np.zeros((self.num_envs, self.obs_size), dtype=np.float32)

    def greedy_actions(self, rng: np.random.Generator | None = None, games=None) -> np.ndarray:
        """int64 (N,): the greedy bot's move in each unfinished game of `games` (bool (N,); default
        all), -1 elsewhere. `rng` is the core's generator, unused: the bot's choices are deterministic."""
        return super().greedy_actions(games=games)

    def potential(self, seats, kind: str = "score_diff") -> np.ndarray:
        """float64 (N,): potential `kind` (fantastiqa_rl.rewards) of seats[i] in game i, finished games included."""
        if kind not in POTENTIALS:
            raise ValueError(f"Fantastiqa's potentials are {POTENTIALS}; got {kind!r}")
        obs = self.observe(np.asarray(seats), out=self._phi_obs)
        return potentials(obs, kind, self.num_players, self._teams, self.card_set)

    def __repr__(self) -> str:
        return "FantastiqaBatch" + super().__repr__()[len("FantastiqaVector"):]


__all__ = ["FantastiqaBatch"]
