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

A game declares each of its rule options once, as an `Option` in its `options` module
(`fae_rl.options.OPTIONS`, `fantastiqa_rl.options.OPTIONS`): name, values (the default first),
the rule id it selects and what each value means. From that table come the rules core's validation
(`check_values`), the env docstring's option list (`options_doc`), the CLIs' help (`options_help`)
and the web form (`tabletop_rl.agents.web.options`). An option whose values are not a short list
(Fantastiqa's `card_set`, `turn_limit`) has `values=()`, its default and a `check`.
"""
from __future__ import annotations

import ast
import textwrap
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from tabletop_rl.shown import shown

WORDS = {"true": True, "false": False}
BOT_WORDS = {**WORDS, "none": None}

__all__ = ["WORDS", "BOT_WORDS", "parse_value", "parse_options", "non_ascii_digit", "Option", "check_option", "check_values",
           "options_doc", "options_help"]

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


_NO_DEFAULT = object()


@dataclass(frozen=True)
class Option:
    """One rule option of a game (module docstring)."""

    name: str
    values: tuple  # the allowed values, the default first; () when `check` decides
    rule: str  # the rule id the option selects (docs/rules/*.md), e.g. "Q-A3"
    doc: str  # what the option and each value mean (markdown; the env docstring shows it)
    default: Any = _NO_DEFAULT  # values[0] unless given (for values=())
    check: Callable[[Any], str | None] | None = None  # an error text for a bad value, None if good (values=():
    # required; else it replaces the exact check against `values`, e.g. to take numpy's bools too)

    def __post_init__(self):
        if self.default is _NO_DEFAULT:
            if not self.values:
                raise ValueError(f"option {self.name!r}: give its values or a default")
            object.__setattr__(self, "default", self.values[0])
        if not self.values and self.check is None:
            raise ValueError(f"option {self.name!r}: values=() needs a check")

    def error(self, value) -> str | None:
        """None if `value` is allowed, else why not (the allowed values named)."""
        if self.check is None:
            if any(value == v and type(value) is type(v) for v in self.values):
                return None
            return f"bad value {shown(value)} for option {self.name!r}; allowed values: {list(self.values)}"
        why = self.check(value)
        return None if why is None else f"bad value {shown(value)} for option {self.name!r}; {why}"


def check_option(table: Iterable[Option], name: str, value) -> None:
    """ValueError naming the option and its allowed values if `value` is not allowed for `name`."""
    bad = next(o for o in table if o.name == name).error(value)
    if bad is not None:
        raise ValueError(bad)


def check_values(table: Iterable[Option], given: dict, what: str = "rule option") -> dict:
    """Every option of `table` with its value: `given`'s, else the default. An unknown name or a bad
    value raises ValueError naming it and what is allowed."""
    table = {o.name: o for o in table}
    for name in given:
        if name not in table:
            raise ValueError(f"unknown {what} {shown(name)}; allowed options: {sorted(table)}")
    out = {}
    for name, opt in table.items():
        value = given.get(name, opt.default)
        if name in given:
            bad = opt.error(value)
            if bad is not None:
                raise ValueError(bad)
        out[name] = value
    return out


def _values_text(opt: Option) -> str:
    return " | ".join(repr(v) if isinstance(v, str) else str(v) for v in opt.values) if opt.values \
        else f"default {opt.default!r}"


def options_doc(table: Iterable[Option]) -> str:
    """The options as markdown bullets (the env docstrings' list): name, values (default first),
    rule id, meaning."""
    return "\n".join(textwrap.fill(f"- `{o.name}` ({o.rule}): {_values_text(o)}. {o.doc}", width=100,
                                    subsequent_indent="  ", break_on_hyphens=False) for o in table)


def options_help(game: str, table: Iterable[Option]) -> str:
    """A game's options for a CLI's help: `name=v1|v2 (rule)`, the default first, wrapped at 100."""
    parts = [f"{o.name}={'|'.join(str(v) for v in o.values) if o.values else str(o.default) + '|...'} ({o.rule})"
             for o in table]
    return textwrap.fill(f"{game}: " + ", ".join(parts), width=100, subsequent_indent="  ", break_on_hyphens=False)
