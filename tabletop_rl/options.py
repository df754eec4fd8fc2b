"""The suite's one `key=value` option parser (CLIs, training configs, bot specs).

    parse_options("history=none,big_stack_merge=true")   # {'history': 'none', 'big_stack_merge': True}
    parse_options(["turn_limit=50", "goal=long"])         # one pair per item (repeated --option flags)

Values: `true` / `false` (any case) are booleans; anything Python's `ast.literal_eval` reads is that
literal (ints, floats, None, quoted strings, lists); everything else is the stripped string, so
`history=none` stays the string "none" (a Fae option value). Bot specs also read `none` as None
(`BOT_WORDS`, used by `tabletop_rl.agents.arena.parse_agent`). `literal_eval` evaluates no code,
so a value from a file or a web request is safe to parse. Which keys a game accepts is checked by
`GameSpec.check_options`, not here.
"""
from __future__ import annotations

import ast
from typing import Any, Iterable

WORDS = {"true": True, "false": False}
BOT_WORDS = {**WORDS, "none": None}

__all__ = ["WORDS", "BOT_WORDS", "parse_value", "parse_options"]


def parse_value(text: str, words: dict[str, Any] = WORDS) -> Any:
    """One value: a word of `words` (case-insensitive), else a Python literal, else the string."""
    value = text.strip()
    if value.lower() in words:
        return words[value.lower()]
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value


def parse_options(items: str | Iterable[str] | None, words: dict[str, Any] = WORDS, what: str = "option") -> dict:
    """`key=value` pairs -> dict. `items`: one comma-separated string, or an iterable of pairs (one
    per item, so a value may hold a comma). Empty items are skipped; an item without `=` or with an
    empty key raises ValueError naming it (`what` says what it was, e.g. "--option")."""
    if items is None:
        return {}
    pairs = items.split(",") if isinstance(items, str) else list(items)
    out = {}
    for item in pairs:
        if not isinstance(item, str):
            raise ValueError(f"{what} {item!r} must be a string key=value")
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{what} {item.strip()!r} must look like key=value")
        out[key.strip()] = parse_value(value, words)
    return out
