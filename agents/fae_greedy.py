"""The greedy Fae bot: one-move lookahead on its own colour's margin.

value(a) = change in own colour score + change in own ritual cards
           - max over the other 4 colours of their change in score.
A move that leaves rituals pending is valued at its best resolution order (every order is
searched, however many are pending); while rituals are pending, each resolve action is valued the
same way. The values are `fae_rl.margin`'s kernel over the state's row (`state_margins`), the one
implementation of the margin, which the batched greedy opponent and the MCTS priors use too. Ties
are broken uniformly with the agent's generator. Reads only its own colour and the public board
from the rules state.
"""
from __future__ import annotations

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.registry import register_agent
from fae_rl.margin import state_margins


def greedy_values(state, seat: int) -> dict[int, float]:
    """value(a) for every legal action of `seat` (the player to move), in ascending action order."""
    if seat != state.current_player:
        raise ValueError(f"greedy_values values the mover's actions: seat {seat} is not to move "
                         f"(current player {state.current_player})")
    legal = state.legal_actions()
    return dict(zip(legal.tolist(), state_margins(state)[legal].tolist()))


class FaeGreedyAgent(Agent):
    """Greedy margin bot for Fae (see module docstring). Needs the rules state and its seat."""

    name = "greedy"
    uses_state = True
    needs_observation = False

    def _best(self, state, seat) -> list[int]:
        if state is None or seat is None:
            raise ValueError("FaeGreedyAgent.act needs state= and seat= (it searches the rules state)")
        values = greedy_values(state, seat)
        best = max(values.values())
        return [a for a, v in values.items() if v == best]

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        ties = self._best(state, seat)
        return ties[self.rng.integers(len(ties))] if len(ties) > 1 else ties[0]

    def action_distribution(self, observation, action_mask, *, state=None, seat=None) -> np.ndarray:
        """The bot's policy as probabilities: uniform over the tied best actions (a soft target for
        behaviour cloning: the tie-break is noise that a student should not try to imitate)."""
        probs = np.zeros(len(action_mask), dtype=np.float32)
        ties = self._best(state, seat)
        probs[ties] = 1.0 / len(ties)
        return probs


register_agent("fae", "greedy", FaeGreedyAgent)
