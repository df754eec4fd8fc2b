"""Baseline bots, matches and tournaments for every game of the suite.

    from agents import make_agent
    bot = make_agent("fae", "greedy", seed=0)
    action = bot.act(observation, action_mask, state=state, seat=seat)

Bots: `random` and `mcts` (every game), `greedy` (per game). See `agents.base.Agent` for the interface.
"""
from agents.base import Agent, RandomAgent
from agents.registry import agent_names, make_agent, register_agent

# Game bots register themselves on import.
from agents import fae_greedy, mcts  # noqa: E402,F401

try:  # the Fantastiqa bot arrives with its rules core
    from agents import fantastiqa_greedy  # noqa: F401
except ImportError:
    pass

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register_agent"]
