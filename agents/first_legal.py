"""A bot whose weakness is known: it always plays its lowest legal action id ("first", every game).

    make_agent("fae", "first")
    python -m tabletop_rl.agents.exploit --game fae --target first --minutes 1

It never looks at the position, so a best response beats it almost always: the exploitability
probe (`tabletop_rl.agents.exploit`) is tested on it. Deterministic; batched for the learner core.
"""
from __future__ import annotations

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.registry import register_agent


class FirstLegalAgent(Agent):
    """Plays the lowest legal action id, in one game (`act`) or in many (`act_batch`)."""

    name = "first"
    needs_observation = False

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("FirstLegalAgent.act: the action mask has no legal action")
        return int(legal[0])

    def act_batch(self, batch, games, rng) -> np.ndarray:
        """int64 (N,): the lowest legal action of each game of `games` (bool (N,)), -1 elsewhere."""
        return np.where(np.asarray(games, dtype=np.bool_), np.argmax(batch.legal_mask(), axis=1), -1)


register_agent("*", "first", FirstLegalAgent)
