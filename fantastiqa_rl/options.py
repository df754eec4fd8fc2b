"""Rule options of the Fantastiqa core: their allowed values, defaults and validation.

`FantastiqaState.new(..., **rule_options)` checks its keyword arguments with `check_options`; the
options and what each value means are documented in `fantastiqa_rl.state` (module docstring) and
docs/rules/fantastiqa.md. A bad name or value raises ValueError naming the allowed ones.
"""
from __future__ import annotations

from tabletop_rl.shown import shown

# option -> allowed values, the default first (turn_limit, an int or None, is checked apart)
OPTIONS = {
    "adventure_path": ("simple", "loops"),
    "fly_in_adventure": (True, False),
    "bought_to": ("discard", "hand"),
    "card_use": ("symbol_or_power", "both"),
    "draw_rule": ("up_to_5", "draw_5"),
    "abbey": (False, True),
    "teams": (False, True),
    "mark_return": ("forbid", "allow"),
    "turn_loops": ("forbid", "allow"),
}
DEFAULTS = {k: v[0] for k, v in OPTIONS.items()}
# Q-E5 (ENGINE rule, not in the rulebook): the game ends, scored as a creature-deck end, after
# this many completed turns per player. Chosen from measured pacing (docs/rules/fantastiqa.md,
# Q-E5): 2.4x the longest median greedy game then (42 turns per player; 29 since the bot and card
# fixes of issue 15) and above every measured p95 (58; 47 since), so it only cuts games that would
# not end (random play, stalled games).
DEFAULT_TURN_LIMIT = 100
DEFAULTS["turn_limit"] = DEFAULT_TURN_LIMIT
# Q-T2 (ENGINE rule, turn_loops="forbid"): CANCELs a turn may take while another action is legal.
# Every CANCEL can be left out of a turn without changing where the turn ends (docs/rules/
# fantastiqa.md, Q-T2), so the budget only bounds the turn; 3 leaves room to look and back out.
CANCEL_BUDGET = 3


def check_options(opts: dict) -> dict:
    """The full options dict (defaults filled in) for these keyword options; ValueError on a bad
    name or value."""
    out = dict(DEFAULTS)
    for k, v in opts.items():
        if k == "turn_limit":                       # Q-E5: None (no limit) or an int >= 1
            if v is not None and (type(v) is not int or v < 1):
                raise ValueError(f"bad value {shown(v)} for option 'turn_limit'; allowed values: "
                                 "None (no limit) or an int >= 1 (completed turns per player)")
            out[k] = v
            continue
        if k not in OPTIONS:
            raise ValueError(f"unknown rule option {shown(k)}; allowed options: {sorted([*OPTIONS, 'turn_limit'])}")
        if v not in OPTIONS[k] or type(v) is not type(OPTIONS[k][0]):
            raise ValueError(f"bad value {shown(v)} for option {shown(k)}; allowed values: {list(OPTIONS[k])}")
        out[k] = v
    return out
