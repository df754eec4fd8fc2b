"""A user's own opponent and reward, as `train.py --imports tests.learner_helpers` loads them."""
from __future__ import annotations

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.registry import register_agent

REWARD_CALLS = []  # batch sizes reward_fn was called with (the test reads it)


class LowestLegal(Agent):
    """Plays its lowest legal action id; batched: one call for all the games it moves in."""

    name = "lowest"
    needs_observation = False

    def act(self, observation, action_mask, *, state=None, seat=None):
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, batch, games, rng):
        return np.argmax(batch.legal_mask(), axis=1)


def step_penalty(batch, seats, dones):
    """-0.01 per learner step: a reward over the whole batch."""
    REWARD_CALLS.append(batch.num_envs)
    return np.full(batch.num_envs, -0.01)


register_agent("*", "lowest", LowestLegal)
