"""Baseline bots, matches and tournaments for every game of the suite.

    from agents import make_agent
    bot = make_agent("fae", "greedy", seed=0)
    action = bot.act(observation, action_mask, state=state, seat=seat)

Bots: `random` and `mcts` (every game), `greedy` (per game), `ppo` (a trained policy; Fae 2p ships one). See `agents.base.Agent` for the interface.
"""
from agents.base import Agent, RandomAgent
from agents.registry import agent_names, make_agent, register_agent

# Game bots register themselves on import.
from agents import fae_greedy, fantastiqa_greedy, mcts, ppo_agent  # noqa: E402,F401

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register_agent"]
