"""Bots by (game, name): `make_agent("fae", "greedy", seed=0)`.

Game packages register their own bots when `agents` is imported; `random` works for every game.
"""
from __future__ import annotations

from typing import Callable

from tabletop_rl.agents.base import Agent, RandomAgent

_FACTORIES: dict[tuple[str, str], Callable[..., Agent]] = {}


def register_agent(game: str, name: str, factory: Callable[..., Agent]) -> None:
    """Register `factory(seed=..., **kwargs) -> Agent` as bot `name` for `game` ("*" = every game)."""
    _FACTORIES[(game, name)] = factory


def unregister_agent(game: str, name: str) -> None:
    """Forget bot `name` of `game` (a no-op if it is not registered): a tool's temporary bot
    (the exploit probe's bound target) leaves the registry as it found it."""
    _FACTORIES.pop((game, name), None)


def agent_names(game: str) -> list[str]:
    return sorted({n for (g, n) in _FACTORIES if g in (game, "*")})


def make_agent(game: str, name: str, seed: int | None = None, **kwargs) -> Agent:
    """Build bot `name` for `game`. Unknown names raise a ValueError listing the known ones."""
    factory = _FACTORIES.get((game, name)) or _FACTORIES.get(("*", name))
    if factory is None:
        raise ValueError(f"unknown agent {name!r} for game {game!r}; known: {agent_names(game)}")
    if "trust_pickle" in kwargs and not isinstance(kwargs["trust_pickle"], bool):
        # only an explicit Python True unpickles; a parsed string ("no") or 1 is a mistake, said so
        raise ValueError(f"trust_pickle must be True or False; got {kwargs['trust_pickle']!r}")
    return factory(seed=seed, **kwargs)


register_agent("*", "random", RandomAgent)
