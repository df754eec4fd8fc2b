"""Baseline bots, matches and tournaments for every game of the suite.

    from tabletop_rl.agents import make_agent
    bot = make_agent("fae", "greedy", seed=0)
    action = bot.act(observation, action_mask, state=state, seat=seat)

Bots: `random` and `mcts` (every game), `greedy` (per game), `ppo` (a trained policy; Fae 2p ships one). See `tabletop_rl.agents.base.Agent` for the interface.
"""
from tabletop_rl.agents.base import Agent, RandomAgent
from tabletop_rl.agents.registry import agent_names, make_agent, register_agent

# Game bots register themselves on import.
from tabletop_rl.agents import fae_greedy, fantastiqa_greedy, fantastiqa_mcts, mcts, ppo_agent  # noqa: E402,F401

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register_agent"]
