"""The suite's one `key=value` option parser (CLIs, training configs, bot specs).

    parse_options("history=none,big_stack_merge=true")   # {'history': 'none', 'big_stack_merge': True}
    parse_options(["turn_limit=50", "goal=long"])         # one pair per item (repeated --option flags)

Values: `true` / `false` (any case) are booleans; anything Python's `ast.literal_eval` reads is that
literal (ints, floats, None, quoted strings, lists); everything else is the stripped string, so
`history=none` stays the string "none" (a Fae option value). Bot specs also read `none` as None
(`BOT_WORDS`, used by `tabletop_rl.agents.arena.parse_agent`). `literal_eval` evaluates no code,
so a value from a file or a web request is safe to parse. Which keys a game accepts is checked by
`GameSpec.check_options`, not here. Numbers take the ASCII digits 0-9 only: a value written as a
number in other digits (`iterations=²`, `١٠٠`, `１００`, `½`) raises ValueError naming its key,
where `literal_eval` would leave it a string for the option's user to trip over (`int('١٠٠')` is 100).
"""
from __future__ import annotations

import ast
import unicodedata
from typing import Any, Iterable

WORDS = {"true": True, "false": False}
BOT_WORDS = {**WORDS, "none": None}

__all__ = ["WORDS", "BOT_WORDS", "parse_value", "parse_options", "non_ascii_digit"]

#: What a number holds besides its digits (after NFKC, so the full-width forms count too).
_NUMBER_MARKS = set("+-.,_eE ")


def non_ascii_digit(text: str) -> str | None:
    """The first non-ASCII numeral of `text` when `text` is written as a number (numerals and
    signs, points, exponents only: `²`, `١٠٠`, `１００`, `-３.５`), else None; a path or a word
    holding such a character is not a number and gives None."""
    found = None
    for c in text.strip():
        if c.isnumeric():
            if not c.isascii() and found is None:
                found = c
        elif c not in _NUMBER_MARKS and unicodedata.normalize("NFKC", c) not in _NUMBER_MARKS:
            return None
    return found


def parse_value(text: str, words: dict[str, Any] = WORDS, key: str | None = None) -> Any:
    """One value: a word of `words` (case-insensitive), else a Python literal, else the string.
    A number written with other digits than ASCII's raises ValueError (naming `key` when given)."""
    value = text.strip()
    bad = non_ascii_digit(value)
    if bad is not None:
        raise ValueError(f"{key + ': ' if key else ''}{value[:40]!r} is written with the non-ASCII numeral {bad!r} "
                         f"(U+{ord(bad):04X}); numbers take the digits 0-9 only")
    if value.lower() in words:
        return words[value.lower()]
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value


def parse_options(items: str | Iterable[str] | None, words: dict[str, Any] = WORDS, what: str = "option") -> dict:
    """`key=value` pairs -> dict. `items`: one comma-separated string, or an iterable of pairs (one
    per item, so a value may hold a comma). Empty items are skipped; an item without `=` or with an
    empty key, or a number written with non-ASCII digits, raises ValueError naming it (`what` says
    what it was, e.g. "--option")."""
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
        out[key.strip()] = parse_value(value, words, key=f"{what} {key.strip()}")
    return out
