"""Every decision of a Fantastiqa turn with its handlers in both engines, in one table.

    from fantastiqa_rl.decisions import DECISIONS
    DECISIONS["BUY"]   # Decision(legal=statues.rules.legal_buy, apply=statues.rules.apply_buy,
                       #          mask_row="statues.kernels._buy_row", step="statues.kernels.buy", ...)

A decision (a phase of `fantastiqa_rl.actions.PHASES`) has its legal actions and its transition in the
scalar core (`fantastiqa_rl.rules.HANDLERS`: plain functions of the state, MAIN's in `fantastiqa_rl.rules`,
the others a topic folder's: `fantastiqa_rl.statues.rules`, `fantastiqa_rl.powers.rules`,
`fantastiqa_rl.turn_flow.rules`, `fantastiqa_rl.abbey.rules`, `fantastiqa_rl.quests.rules`,
`fantastiqa_rl.setup.rules`, `fantastiqa_rl.adventure.rules`, `fantastiqa_rl.free_actions.rules`)
and, where it is ported, a mask row kernel (`fantastiqa_rl.vector_kernels.legal` dispatches to it)
and a step kernel (`fantastiqa_rl.vector_steps.apply` dispatches to it; a topic folder's kernels sit
beside its rules: `fantastiqa_rl.statues.kernels`, `fantastiqa_rl.powers.kernels`,
`fantastiqa_rl.turn_flow.kernels`, `fantastiqa_rl.quests.kernels`, `fantastiqa_rl.setup.kernels`,
`fantastiqa_rl.adventure.kernels`). A decision that is not ported
says why in `scalar_because`: `FantastiqaVector` then asks the scalar core for that game (its
`counts` and `phase_counts` say how often). The dispatch chains themselves stay `if` chains in the kernels (numba has no function tables
that run as fast; `vector_kernels.legal`'s comment), so this table is the map a maintainer reads, and
`tests/test_fantastiqa_decisions.py` holds it to the code: every name resolves, every phase has an
entry, the scalar pair is `rules.HANDLERS`', and the differential runs each ported decision in its
kernels (and the unported ones on the scalar core).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from fantastiqa_rl import actions as A
from fantastiqa_rl.rules import HANDLERS


@dataclass(frozen=True)
class Decision:
    name: str                 # the phase's name (actions.PHASES)
    legal: Callable           # scalar: f(state, seat) -> the legal action ids
    apply: Callable           # scalar: f(state, seat, action)
    mask_row: str | None      # batched: "module.function" of fantastiqa_rl writing the mask row, or None
    step: str | None          # batched: "module.function" applying an action, or None
    # (module may be dotted: "statues.kernels._buy_row" is fantastiqa_rl.statues.kernels._buy_row)
    scalar_because: str = ""  # why a decision without kernels is left to the scalar core
    rare: bool = False        # the short random differential may not reach it (exercised by the long one)


# phase name -> (mask row kernel, step kernel, why scalar, rare)
_BATCHED = {
    "SETUP_QUEST": ("setup.kernels._setup_row", "setup.kernels.setup", "", False),
    "SETUP_ARTIFACT": ("setup.kernels._setup_row", "setup.kernels.setup", "", False),
    "SETUP_PLACE": ("setup.kernels._setup_row", "setup.kernels.setup", "", False),
    "MAIN": ("vector_kernels._main_row", "vector_steps.main", "", False),
    "FREE_MENU": ("free_actions.kernels._free_menu_row", "vector_steps.main", "", False),
    "ADV_MOVE": ("adventure.kernels._adv_move_row", "adventure.kernels.adv_move", "", False),
    "ADV_PAY": ("vector_kernels._pay_row", "adventure.kernels.adv_pay", "", False),
    "QUEST_PAY": ("vector_kernels._pay_row", "quests.kernels.quest_pay", "", False),
    "MOVE_DEST": ("adventure.kernels._move_dest_row", "adventure.kernels.move_dest", "", False),
    "BUY": ("statues.kernels._buy_row", "statues.kernels.buy", "", False),
    "CHEST": ("statues.kernels._chest_row", "statues.kernels.chest", "", False),
    "RELEASE": ("statues.kernels._release_row", "statues.kernels.release", "", False),
    "COMMIT_TARGET": ("free_actions.kernels._commit_target_row", "free_actions.kernels.commit_to", "", False),
    "WITHDRAW_FROM": ("free_actions.kernels._withdraw_from_row", "free_actions.kernels.withdraw_from", "", True),
    "TARGET_SEAT": ("powers.kernels._target_seat_row", "powers.kernels.target_seat", "", False),
    "STATUE_OPTION": ("statues.kernels._statue_option_row", "statues.kernels.statue_option", "", False),
    "GLASS": ("powers.kernels._effect_row", "powers.kernels.glass", "", False),
    "BELL": ("powers.kernels._effect_row", "powers.kernels.bell", "", False),
    "BREW_CARD": ("powers.kernels._effect_row", "powers.kernels.brew_card", "", True),
    "WARDROBE": ("powers.kernels._effect_row", "powers.kernels.wardrobe", "", True),
    # a discard is written inline in vector_steps.apply; DONE ends the turn here
    "END_DISCARD": ("turn_flow.kernels._end_discard_row", "turn_flow.kernels.finish_turn", "", False),
    "TERMINAL": (None, None, "a finished game has no decision (no legal action)", False),
    "ABBEY_MATCH": (None, None, "the Abbey expansion (Q-B) is not ported: its decisions come once per Abbey "
                    "visit, and option abbey=True games run them on the scalar core", True),
    "ABBEY_CHOICE": (None, None, "the Abbey expansion (Q-B), as ABBEY_MATCH", True),
}

DECISIONS = {
    name: Decision(name, HANDLERS[ph][0], HANDLERS[ph][1], *_BATCHED[name])
    for ph, name in enumerate(A.PHASES)
}


def resolve(name: str):
    """The batched handler named "module.function" (of fantastiqa_rl; module may be dotted,
    "statues.kernels._buy_row")."""
    module, _, function = name.rpartition(".")
    return getattr(importlib.import_module(f"fantastiqa_rl.{module}"), function)


__all__ = ["Decision", "DECISIONS", "resolve"]
