"""The one agent interface every bot of the suite implements.

An agent is seeded, and acts from what a seat may see: its observation and its action mask.
Bots that are allowed more (a search bot that determinizes, a greedy bot that reads its own
colour and the public board from the rules state) also receive the rules state and their seat;
such a bot must only use the parts of the state its seat may know (see each bot's docstring, and
the hidden-information tests that permute other seats' private state).

    agent = make_agent("fae", "greedy", seed=0)
    action = agent.act(observation, action_mask, state=state, seat=seat)
"""
from __future__ import annotations

from typing import Any

import numpy as np


class Agent:
    """Base class: seeded, acts from (observation, action_mask[, state, seat])."""

    name: str = "agent"
    #: True if the bot needs the rules state (and its seat) to act.
    uses_state: bool = False
    #: False if the bot never reads its observation (callers may then pass None and save encoding it).
    needs_observation: bool = True

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseeds the agent's generator when a seed is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, *, state: Any = None, seat: int | None = None) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def limit_blas_threads() -> None:
    """One BLAS thread (numpy's OpenBLAS) in this process. Policy bots do small matrix-vector products
    that threads do not speed up; on a busy machine (parallel games, training beside them) OpenBLAS
    threads made them about 10x slower. Called by the arena, play, evaluation and training; torch's
    own thread pool (`torch.set_num_threads`) is separate."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


class RandomAgent(Agent):
    """Uniform over the legal actions given by the mask. Works for every game."""

    name = "random"
    needs_observation = False

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])
