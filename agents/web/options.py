"""The rule options the web page offers, read from each game's own declarations (never a copy).

    page_options("fantastiqa")   # {"goal": ("short", "long"), "fly_in_adventure": (True, False), ...}

Each value tuple starts with the engine's default, so the form preselects what the game plays
when the option is not given, and a form that sends every option it shows plays what it shows.
Sources, in order: the game's options table (`fantastiqa_rl.options.OPTIONS`, default first), then
the default of the keyword in the game's `new_state` signature (`FaeState.new(big_stack_merge=
False)`, `FantastiqaState.new(goal="short")`), whose other values are the other bool or the
values in `_OTHER_VALUES`. Every rule option of a game is either offered or named in NOT_OFFERED
with the reason (tests/test_web_views.py checks both, and that each default is the engine's by
playing it).
"""
from __future__ import annotations

import functools
import importlib
import inspect

from tabletop_rl.envs.registry import get_game

__all__ = ["page_options", "NOT_OFFERED"]

#: Rule options the page never offers: the engine plays its default.
NOT_OFFERED = {
    "card_set": "a card file on the server: a request never names a file",
    "turn_limit": "an engine bound on a game's length (Q-E5, default 100 completed turns per player)",
}
#: The values of an option its game declares only by its keyword's default (not in an options
#: table): FantastiqaState.new checks goal against these.
_OTHER_VALUES = {("fantastiqa", "goal"): ("short", "long")}


def _table(game: str) -> dict:
    """The game package's options table (name -> values, the default first), or {}."""
    package = get_game(game).new_state.__module__.split(".")[0]
    try:
        module = importlib.import_module(package + ".options")
    except ModuleNotFoundError:
        return {}
    return dict(getattr(module, "OPTIONS", {}))


@functools.lru_cache(maxsize=None)
def page_options(game: str) -> dict[str, tuple]:
    """{option: its values, the engine's default first} for the rule options of `game` the page offers."""
    spec = get_game(game)
    table, params = _table(game), inspect.signature(spec.new_state).parameters
    out = {}
    for name in spec.rule_options:
        if name in NOT_OFFERED:
            continue
        if name in table:
            out[name] = tuple(table[name])
            continue
        if name not in params or params[name].default is inspect.Parameter.empty:
            raise ValueError(f"{game}: rule option {name!r} has no declared default (options table or "
                             "new_state keyword); declare one, or name it in NOT_OFFERED")
        default = params[name].default
        values = (False, True) if isinstance(default, bool) else _OTHER_VALUES.get((game, name))
        if values is None or default not in values:
            raise ValueError(f"{game}: rule option {name!r}: its values are not declared; add them to the "
                             "game's options table")
        out[name] = (default, *[v for v in values if v != default])
    return out
