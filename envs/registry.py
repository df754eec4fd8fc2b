"""The suite's game registry: one `GameSpec` per game, looked up by short name or env id."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from tabletop_rl.envs.game_state import GameState

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
    new_state: Callable[..., GameState]  # new_state(num_players=..., seed=..., **rule_options) -> rules state
    observe: Callable[..., np.ndarray]  # observe(state, seat, **observation_options) -> ndarray
    action_mask: Callable[[Any, int], np.ndarray]  # action_mask(state, seat) -> int8 ndarray
    rule_options: tuple[str, ...] = ()  # env kwargs that are rules (passed to new_state)
    option_table: tuple = ()  # the rule options' declarations (tabletop_rl.options.Option: values, default, rule id, doc)
    observation_options: tuple[str, ...] = ()  # env kwargs passed to observe
    min_players: int = 2
    max_players: int = 4
    gym_id: str | None = None  # single-agent Gymnasium id, e.g. "fae_rl/Fae-v0"
    # Optional hooks (None: the game has none; the tool that needs one says so).
    potential: Callable[[Any, int], float] | None = None  # score_diff potential(state, seat), public info only
    render_text: Callable[[Any], str] | None = None  # render_text(state): the text board
    render_rgb: Callable[[Any], np.ndarray] | None = None  # render_rgb(state): the image
    view_text: Callable[[Any, int], str] | None = None  # view_text(state, seat): what a human at a seat sees
    max_steps: int | None = None  # step guard of SelfPlayEnv and training's evaluation (None: the tool's own)

    def check_options(self, options: dict, also: tuple[str, ...] = ()) -> tuple[dict, dict]:
        """(rule options, observation options) of `options`; a key that is neither (nor in `also`,
        the caller's own keys) raises a ValueError naming it and the keys this game takes."""
        unknown = sorted(set(options) - set(self.rule_options) - set(self.observation_options) - set(also), key=str)
        if unknown:
            raise ValueError(f"unknown option(s) {unknown} for {self.name}; rule options: {list(self.rule_options)}, "
                             f"observation options: {list(self.observation_options)}")
        return self.split_options(options)

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
    if spec is not None and name_or_id != base and name_or_id != spec.env_id:
        raise ValueError(f"env id {name_or_id!r} is retired or unknown; {spec.name}'s current env id is "
                         f"{spec.env_id!r} (its docstring says what changed)")
    if spec is None:
        raise ValueError(f"unknown game {name_or_id!r}; known: {list_games()} "
                         f"(env ids: {[_GAMES[g].env_id for g in _GAMES]})")
    return spec


def rule_options_help() -> str:
    """Every game's rule options, a line a game (`name=v1|v2 (rule id)`, the default first): the
    CLIs' `--option` help, read from the option tables (`GameSpec.option_table`)."""
    from tabletop_rl.options import options_help

    return "\n".join(options_help(name, get_game(name).option_table) for name in list_games())


def make(env_id: str, raw: bool = False, **kwargs):
    """Build the AEC env registered as `env_id` (e.g. "fae_v0"); `raw=True` skips protections."""
    spec = get_game(env_id)
    return (spec.raw_env if raw else spec.env)(**kwargs)
