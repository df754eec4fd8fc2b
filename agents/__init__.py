"""Baseline bots, matches and tournaments for every game of the suite.

This folder is the package `tabletop_rl.agents` (pyproject.toml `[tool.setuptools.package-dir]`): import it by that name, not as `agents`.

    from tabletop_rl.agents import make_agent
    bot = make_agent("fae", "greedy", seed=0)
    action = bot.act(observation, action_mask, state=state, seat=seat)

Bots: `random`, `first` (its lowest legal action: a known weakness) and `mcts` (every game), `greedy`
(per game), `ppo` (a trained policy; shipped by version for Fae and Fantastiqa), `mcts_batched` (Fae),
`mcts_guided` (search with a policy's prior: Fae, and Fantastiqa's paired search),
and, when OpenSpiel is installed (the `openspiel` extra), `openspiel_mcts` and `openspiel_ismcts` for
Fae (`tabletop_rl.agents.openspiel_bots`). See `tabletop_rl.agents.base.Agent` for the interface.
"""
from tabletop_rl.agents.base import Agent, RandomAgent
from tabletop_rl.agents.registry import agent_names, make_agent, register_agent

# Game bots register themselves on import.
from tabletop_rl.agents import fae_greedy, fae_mcts_batched, fae_mcts_guided, fantastiqa_greedy, fantastiqa_mcts, first_legal, mcts, ppo_agent  # noqa: E402,F401



def _register_openspiel_bots() -> None:
    """Register OpenSpiel's bots by name when OpenSpiel is installed; OpenSpiel itself is imported
    only when one of them is built (importing it costs time every bot-free user would pay)."""
    import importlib.util

    if importlib.util.find_spec("pyspiel") is None:
        return

    def lazy(name):
        def factory(seed=None, **kwargs):
            from tabletop_rl.agents import openspiel_bots

            return openspiel_bots.BOTS[name](seed=seed, **kwargs)

        return factory

    for name in ("openspiel_mcts", "openspiel_ismcts"):
        register_agent("fae", name, lazy(name))


_register_openspiel_bots()

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent", "register_agent"]
