"""Play one game between bots on any registered game, straight on the rules core (no env overhead)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from agents.base import Agent
from envs.registry import GameSpec


@dataclass
class GameResult:
    seed: int | None
    num_players: int
    returns: list[float]  # per seat
    winners: list[int]  # seats
    actions: list[int] = field(default_factory=list)
    steps: int = 0


def play_game(spec: GameSpec, agents: list[Agent], seed: int | None = None, agent_seeds=None,
              rule_options: dict | None = None, observation_options: dict | None = None,
              max_steps: int = 1_000_000) -> GameResult:
    """Seat i is played by agents[i]. Each agent is reset with agent_seeds[i] when given."""
    n = len(agents)
    state = spec.new_state(num_players=n, seed=seed, **(rule_options or {}))
    for i, agent in enumerate(agents):
        agent.reset(None if agent_seeds is None else agent_seeds[i])
    obs_opts = observation_options or {}
    actions = []
    while not state.is_terminal() and len(actions) < max_steps:
        seat = state.current_player
        agent = agents[seat]
        mask = spec.action_mask(state, seat)
        obs = spec.observe(state, seat, **obs_opts)
        action = int(agent.act(obs, mask, state=state if agent.uses_state else None,
                               seat=seat if agent.uses_state else None))
        if not mask[action]:
            raise RuntimeError(f"{agent!r} chose illegal action {action} at seat {seat}")
        state.apply(action)
        actions.append(action)
    returns = [float(r) for r in np.asarray(state.returns())]
    return GameResult(seed, n, returns, list(state.winners()), actions, len(actions))
