"""Rule options of the Fantastiqa core: their allowed values, defaults and validation.

Each option is declared once in `RULE_OPTIONS` (name, values with the default first, rule id, what
it means): `FantastiqaState.new(..., goal=..., card_set=..., **rule_options)` checks its keywords
with it (`check_option`, `check_options`), `fantastiqa_rl.env`'s docstring lists it, the CLIs'
help and the web form read it. The rules behind each are in docs/rules/fantastiqa.md. A bad name or
value raises ValueError naming the allowed ones.
"""
from __future__ import annotations

import functools

from tabletop_rl import options as tabletop_options
from tabletop_rl.options import Option, check_values

# Q-E5 (ENGINE rule, not in the rulebook): the game ends, scored as a creature-deck end, after
# this many completed turns per player. Chosen from measured pacing (docs/rules/fantastiqa.md,
# Q-E5): 2.4x the longest median greedy game then (42 turns per player; 29 since the bot and card
# fixes of issue 15) and above every measured p95 (58; 47 since), so it only cuts games that would
# not end (random play, stalled games).
DEFAULT_TURN_LIMIT = 100


def _turn_limit(v) -> str | None:
    if v is None or (type(v) is int and v >= 1):
        return None
    return "allowed values: None (no limit) or an int >= 1 (completed turns per player)"


def _card_set(v) -> str | None:
    return None if v is None or isinstance(v, str) else "allowed values: None or a file path"


# The rule options, each declared once (tabletop_rl.options.Option): FantastiqaState.new validates
# with them, the env docstring lists them, the CLIs' help and the web form read them.
RULE_OPTIONS = (
    Option("goal", ("short", "long"), "Q-S1", "The quest goal's length: the points to win, from the card file."),
    Option("card_set", (), "Q-S2", "None (the STAND-IN cards) or the path of a card file (TOML/JSON; "
           "`generated:SEED` names a generated file).", default=None, check=_card_set),
    Option("adventure_path", ("simple", "loops"), "Q-A3", "ASSUMED: an adventure's path may not enter a region "
           "it already visited (\"simple\"), or may, without backtracking (\"loops\")."),
    Option("fly_in_adventure", (True, False), "turn action A", "A FLY card or a flying-carpet token may be a "
           "step of an adventure; False is the strict reading, no power inside an adventure."),
    Option("bought_to", ("discard", "hand"), "Q-V1", "ASSUMED: where a card bought at a statue goes."),
    Option("card_use", ("symbol_or_power", "both"), "Q-F1", "ASSUMED: a card is used for its symbols or for its "
           "power, never both; \"both\" allows both."),
    Option("draw_rule", ("up_to_5", "draw_5"), "Q-T1", "ASSUMED: the end-of-turn draw fills the hand up to 5, or "
           "draws 5."),
    Option("abbey", (False, True), "Q-B", "The Abandoned Abbey expansion."),
    Option("teams", (False, True), "Q-TM", "ASSUMED: the team variant (4 players, partners share a win)."),
    Option("mark_return", ("forbid", "allow"), "Q-F2", "An ENGINE ASSUMPTION, not in the spec: with \"forbid\", "
           "MARK cannot move your quest token back to an open quest it left this turn. The spec puts no limit on "
           "MARK, so \"allow\" lets a turn loop forever; \"forbid\" removes only such loops (every end-of-turn "
           "position stays reachable, through WITHDRAW)."),
    Option("turn_loops", ("forbid", "allow"), "Q-T2", "An ENGINE rule. With \"forbid\" every turn ends: a turn "
           "may take 3 CANCELs while another action is legal (then CANCEL is legal only where it is the only "
           "action), and a card played for its power lies in play (`turn.powered`) until the end of the turn, so "
           "a draw cannot reshuffle it back into hand. \"allow\" is the unbounded reading (the rules of "
           "`fantastiqa_v0`): a turn can loop forever (VISIT_STATUE, CANCEL, ...), which the env's step guard "
           "stops."),
    Option("turn_limit", (), "Q-E5", "An ENGINE rule: after this many completed turns PER PLAYER the game ENDS "
           "(terminal, not truncated), scored exactly like the creature-deck end (final scores, Q-E3; tie-breaks, "
           "Q-E4); `infos[agent][\"end_reason\"] == \"turn_limit\"`. Greedy games end by themselves in a median "
           "of 11-29 turns per player, p95 at most 47 (the pacing table in `docs/rules/fantastiqa.md`), so it cuts "
           "only games that would not end. It counts turns; inside one turn Q-T2 bounds the steps. `None`: the "
           "rulebook's unbounded game.", default=DEFAULT_TURN_LIMIT, check=_turn_limit),
)
# What the rules read (FantastiqaState.options): every option but goal and card_set, which
# `new` takes as its own keywords. OPTIONS: the listed values of those, the default first.
_STATE_KEYS = tuple(o.name for o in RULE_OPTIONS if o.name not in ("goal", "card_set"))
OPTIONS = {o.name: o.values for o in RULE_OPTIONS if o.name in _STATE_KEYS and o.values}
DEFAULTS = {o.name: o.default for o in RULE_OPTIONS if o.name in _STATE_KEYS}
# Q-T2 (ENGINE rule, turn_loops="forbid"): CANCELs a turn may take while another action is legal.
# Every CANCEL can be left out of a turn without changing where the turn ends (docs/rules/
# fantastiqa.md, Q-T2), so the budget only bounds the turn; 3 leaves room to look and back out.
CANCEL_BUDGET = 3


def check_options(opts: dict) -> dict:
    """The full options dict (defaults filled in) for these keyword options (every rule option but
    goal and card_set); ValueError on a bad name or value."""
    return check_values([o for o in RULE_OPTIONS if o.name in _STATE_KEYS], opts)


# check_option(name, value): ValueError if `value` is not allowed for the rule option `name` (goal, card_set, ...)
check_option = functools.partial(tabletop_options.check_option, RULE_OPTIONS)
