"""The suite's game registry: one `GameSpec` per game, looked up by short name or env id."""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

# Game packages the registry imports on demand (each defines `GAME_SPEC` in `<package>.spec`).
_KNOWN_PACKAGES = {"fae": "fae_rl", "fantastiqa": "fantastiqa_rl"}
_GAMES: dict[str, "GameSpec"] = {}


@dataclass(frozen=True)
class GameSpec:
    """What the suite's tools need to know about a game."""

    name: str  # short name for CLIs, e.g. "fae"
    env_id: str  # versioned id, e.g. "fae_v0"
    env: Callable[..., Any]  # protected AEC env factory
    raw_env: Callable[..., Any]  # unprotected AEC env factory
    new_state: Callable[..., Any]  # new_state(num_players=..., seed=..., **rule_options) -> rules state
    observe: Callable[..., Any]  # observe(state, seat, **observation_options) -> ndarray
    action_mask: Callable[..., Any]  # action_mask(state, seat) -> int8 ndarray
    rule_options: tuple[str, ...] = ()  # env kwargs that are rules (passed to new_state)
    observation_options: tuple[str, ...] = ()  # env kwargs passed to observe
    min_players: int = 2
    max_players: int = 4
    gym_id: str | None = None  # single-agent Gymnasium id, e.g. "fae_rl/Fae-v0"
    extra: dict = field(default_factory=dict)

    def split_options(self, options: dict) -> tuple[dict, dict]:
        """(rule options, observation options) from env kwargs; other keys are dropped."""
        return ({k: v for k, v in options.items() if k in self.rule_options},
                {k: v for k, v in options.items() if k in self.observation_options})


def register_game(spec: GameSpec) -> None:
    _GAMES[spec.name] = spec


def _load(name: str) -> None:
    pkg = _KNOWN_PACKAGES.get(name)
    if pkg is not None and name not in _GAMES:
        importlib.import_module(pkg + ".spec")


def list_games() -> list[str]:
    """Names of the games that can be loaded."""
    for name in _KNOWN_PACKAGES:
        try:
            _load(name)
        except ImportError:
            pass
    return sorted(_GAMES)


def get_game(name_or_id: str) -> GameSpec:
    """The GameSpec for a short name ("fae") or env id ("fae_v0")."""
    base = name_or_id.rsplit("_v", 1)[0] if name_or_id not in _KNOWN_PACKAGES else name_or_id
    try:
        _load(base)
    except ImportError as exc:
        raise ValueError(f"game {name_or_id!r} could not be loaded: {exc}") from exc
    spec = _GAMES.get(base)
    if spec is None or (name_or_id != base and name_or_id != spec.env_id):
        raise ValueError(f"unknown game {name_or_id!r}; known: {list_games()} "
                         f"(env ids: {[_GAMES[g].env_id for g in _GAMES]})")
    return spec


def make(env_id: str, raw: bool = False, **kwargs):
    """Build the AEC env registered as `env_id` (e.g. "fae_v0"); `raw=True` skips protections."""
    spec = get_game(env_id)
    return (spec.raw_env if raw else spec.env)(**kwargs)
