"""Every decision of a Fantastiqa turn with its handlers in both engines, in one table.

    from fantastiqa_rl.decisions import DECISIONS
    DECISIONS["BUY"]   # Decision(legal="statues.rules.legal_buy", apply="statues.rules.apply_buy",
                       #          mask_row="statues.kernels._buy_row", step="statues.kernels.buy", ...)
    resolve(DECISIONS["BUY"].step)   # the function itself

A decision (a phase of `fantastiqa_rl.actions.PHASES`) has its legal actions and its transition in the
scalar core (plain functions of the state, MAIN's in `fantastiqa_rl.rules`, which resolves this table's
scalar pairs into `rules.HANDLERS`,
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
entry, `rules.HANDLERS` is the table's scalar pairs, and the differential runs each ported decision in its
kernels (and the unported ones on the scalar core).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from fantastiqa_rl import actions as A


@dataclass(frozen=True)
class Decision:
    name: str                 # the phase's name (actions.PHASES)
    legal: str                # scalar: "module.function" of fantastiqa_rl, f(state, seat) -> the legal action ids
    apply: str                # scalar: "module.function", f(state, seat, action)
    mask_row: str | None      # batched: "module.function" writing the mask row, or None
    step: str | None          # batched: "module.function" applying an action, or None
    # (module may be dotted: "statues.kernels._buy_row" is fantastiqa_rl.statues.kernels._buy_row)
    scalar_because: str = ""  # why a decision without kernels is left to the scalar core
    rare: bool = False        # the short random differential may not reach it (exercised by the long one)


# phase name -> its handlers, each "module.function" of fantastiqa_rl: the scalar core's legal actions and
# transition, then the batched mask row kernel and step kernel (None: left to the scalar core, below)
_HANDLERS = {
    "SETUP_QUEST": ("setup.rules.legal_setup_quest", "setup.rules.apply_setup_quest",
                    "setup.kernels._setup_row", "setup.kernels.setup"),
    "SETUP_ARTIFACT": ("setup.rules.legal_setup_artifact", "setup.rules.apply_setup_artifact",
                       "setup.kernels._setup_row", "setup.kernels.setup"),
    "SETUP_PLACE": ("setup.rules.legal_setup_place", "setup.rules.apply_setup_place",
                    "setup.kernels._setup_row", "setup.kernels.setup"),
    "MAIN": ("rules.legal_main", "rules.apply_main", "vector_kernels._main_row", "vector_steps.main"),
    "FREE_MENU": ("free_actions.rules.legal_free", "rules.apply_free_menu",
                  "free_actions.kernels._free_menu_row", "vector_steps.main"),
    "ADV_MOVE": ("adventure.rules.legal_adv_move", "adventure.rules.apply_adv_move",
                 "adventure.kernels._adv_move_row", "adventure.kernels.adv_move"),
    "ADV_PAY": ("adventure.rules.legal_adv_pay", "adventure.rules.apply_adv_pay",
                "vector_kernels._pay_row", "adventure.kernels.adv_pay"),
    "QUEST_PAY": ("quests.rules.legal_quest_pay", "quests.rules.apply_quest_pay",
                  "vector_kernels._pay_row", "quests.kernels.quest_pay"),
    "MOVE_DEST": ("adventure.rules.legal_move_dest", "adventure.rules.apply_move_dest",
                  "adventure.kernels._move_dest_row", "adventure.kernels.move_dest"),
    "COMMIT_TARGET": ("free_actions.rules.legal_commit_target", "free_actions.rules.apply_commit_target",
                      "free_actions.kernels._commit_target_row", "free_actions.kernels.commit_to"),
    "WITHDRAW_FROM": ("free_actions.rules.legal_withdraw_from", "free_actions.rules.apply_withdraw_from",
                      "free_actions.kernels._withdraw_from_row", "free_actions.kernels.withdraw_from"),
    # a discard is written inline in vector_steps.apply; DONE ends the turn here
    "END_DISCARD": ("turn_flow.rules.legal_end_discard", "turn_flow.rules.apply_end_discard",
                    "turn_flow.kernels._end_discard_row", "turn_flow.kernels.finish_turn"),
    "TERMINAL": ("rules.legal_none", "rules.apply_terminal", None, None),
    "STATUE_OPTION": ("statues.rules.legal_statue_option", "statues.rules.apply_statue_option",
                      "statues.kernels._statue_option_row", "statues.kernels.statue_option"),
    "BUY": ("statues.rules.legal_buy", "statues.rules.apply_buy", "statues.kernels._buy_row", "statues.kernels.buy"),
    "CHEST": ("statues.rules.legal_chest", "statues.rules.apply_chest",
              "statues.kernels._chest_row", "statues.kernels.chest"),
    "RELEASE": ("statues.rules.legal_release", "statues.rules.apply_release",
                "statues.kernels._release_row", "statues.kernels.release"),
    "TARGET_SEAT": ("powers.rules.legal_target_seat", "powers.rules.apply_target_seat",
                    "powers.kernels._target_seat_row", "powers.kernels.target_seat"),
    "GLASS": ("powers.rules.legal_glass", "powers.rules.apply_glass", "powers.kernels._effect_row", "powers.kernels.glass"),
    "BELL": ("powers.rules.legal_bell", "powers.rules.apply_bell", "powers.kernels._effect_row", "powers.kernels.bell"),
    "BREW_CARD": ("powers.rules.legal_brew_card", "powers.rules.apply_brew_card",
                  "powers.kernels._effect_row", "powers.kernels.brew_card"),
    "WARDROBE": ("powers.rules.legal_wardrobe", "powers.rules.apply_wardrobe",
                 "powers.kernels._effect_row", "powers.kernels.wardrobe"),
    "ABBEY_MATCH": ("abbey.rules.legal_abbey_match", "abbey.rules.apply_abbey_match", None, None),
    "ABBEY_CHOICE": ("abbey.rules.legal_abbey_choice", "abbey.rules.apply_abbey_choice", None, None),
}
# why a decision without kernels is left to the scalar core
_SCALAR_BECAUSE = {
    "TERMINAL": "a finished game has no decision (no legal action)",
    "ABBEY_MATCH": "the Abbey expansion (Q-B) is not ported: its decisions come once per Abbey visit, and option "
                   "abbey=True games run them on the scalar core",
    "ABBEY_CHOICE": "the Abbey expansion (Q-B), as ABBEY_MATCH",
}
# decisions the short random differential may not reach (the long one exercises them)
_RARE = ("WITHDRAW_FROM", "BREW_CARD", "WARDROBE", "ABBEY_MATCH", "ABBEY_CHOICE")

DECISIONS = {
    name: Decision(name, *_HANDLERS[name], _SCALAR_BECAUSE.get(name, ""), name in _RARE) for name in A.PHASES
}


def resolve(name: str):
    """The batched handler named "module.function" (of fantastiqa_rl; module may be dotted,
    "statues.kernels._buy_row")."""
    module, _, function = name.rpartition(".")
    return getattr(importlib.import_module(f"fantastiqa_rl.{module}"), function)


__all__ = ["Decision", "DECISIONS", "resolve"]
