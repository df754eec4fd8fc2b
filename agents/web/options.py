"""The rule options the web page offers, read from each game's one declaration of them (never a copy).

    page_options("fantastiqa")   # {"goal": ("short", "long"), "fly_in_adventure": (True, False), ...}

Each value tuple starts with the engine's default, so the form preselects what the game plays
when the option is not given, and a form that sends every option it shows plays what it shows.
The source is the game's option table (`GameSpec.option_table`: `fae_rl.options.RULE_OPTIONS`,
`fantastiqa_rl.options.RULE_OPTIONS`; `tabletop_rl.options.Option`, the default first). Every rule
option of a game is either offered or named in NOT_OFFERED with the reason (tests/test_web_views.py
checks both, and that each default is the engine's by playing it).
"""
from __future__ import annotations

import functools

from tabletop_rl.envs.registry import get_game

__all__ = ["page_options", "NOT_OFFERED"]

#: Rule options the page never offers: the engine plays its default.
NOT_OFFERED = {
    "card_set": "a card file on the server: a request never names a file",
    "turn_limit": "an engine bound on a game's length (Q-E5, default 100 completed turns per player)",
}


@functools.lru_cache(maxsize=None)
def page_options(game: str) -> dict[str, tuple]:
    """{option: its values, the engine's default first} for the rule options of `game` the page offers."""
    spec = get_game(game)
    table = {o.name: o for o in spec.option_table}
    out = {}
    for name in spec.rule_options:
        if name in NOT_OFFERED:
            continue
        if name not in table or len(table[name].values) < 2:
            raise ValueError(f"{game}: rule option {name!r} has no declared values (its game's option table); "
                             "declare them, or name it in NOT_OFFERED")
        out[name] = tuple(table[name].values)
    return out
