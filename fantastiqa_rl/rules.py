"""The decisions of a Fantastiqa turn, dispatched by phase, as plain functions of a `FantastiqaState`
`s`: which actions are legal in each decision (`state.phase`, one of `actions.PHASES`) and what each
does, through `HANDLERS` at the end of this module (one pair of handlers per phase: its legal
actions and its transition, named in the one table of the decisions, `fantastiqa_rl.decisions`,
beside their kernels; `LEGAL` and `APPLY` index them by phase; `legal_list` and `do` are the
state's entries). Within the main decision, the action's transition is looked up too: by
its id (`MAIN_FIXED`) or its block of ids (`MAIN_BLOCKS`). This module holds MAIN's legal actions
(`legal_main`) and its transition (`apply_main`, also FREE_MENU's: `apply_free_menu`); every other
handler lives with its rule topic, a folder of plain functions of the state: card powers and
artifact effects in `fantastiqa_rl.powers`, statues in `fantastiqa_rl.statues`, setup, the start and
end of turns in `fantastiqa_rl.turn_flow`, the Abbey in `fantastiqa_rl.abbey`, completing quests in
`fantastiqa_rl.quests`, the setup decisions in `fantastiqa_rl.setup`, adventures in
`fantastiqa_rl.adventure`, the free actions in `fantastiqa_rl.free_actions` (each `<topic>.rules`).

The rules are docs/rules/fantastiqa.md; the engine's readings where it is silent are listed in
`fantastiqa_rl.state`. Actions are the flat ids of `fantastiqa_rl.actions`.
"""
from __future__ import annotations

from bisect import bisect_right

from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey import rules as abbey
from fantastiqa_rl.adventure import rules as adv
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.free_actions import rules as free
from fantastiqa_rl.options import CANCEL_BUDGET
from fantastiqa_rl.powers import rules as powers
from fantastiqa_rl.quests import rules as quests
from fantastiqa_rl.statues import rules as statues
from fantastiqa_rl.turn_flow import rules as turn_flow


def legal_list(s) -> list:
    """The legal actions of the decision in progress (`FantastiqaState.legal_actions` sorts them)."""
    out = LEGAL[s.phase](s, s.cur)
    if s.cancels >= CANCEL_BUDGET and len(out) > 1 and A.CANCEL in out \
            and s.opts["turn_loops"] == "forbid":
        out.remove(A.CANCEL)                        # Q-T2: the budget is spent; back-outs end
    return out


def do(s, a: int):
    """Apply legal action a (`FantastiqaState.apply` checked it)."""
    if a == A.CANCEL and s.opts["turn_loops"] == "forbid":   # CANCEL's id means CANCEL
        s.cancels += 1                              # in every decision; Q-T2's budget counts it
    APPLY[s.phase](s, s.cur, a)


def legal_none(s, p) -> list:
    return []


def legal_main(s, p) -> list:
    g, L = s.g, s.g.layout
    out = [A.DONE]
    if not s.action_used:
        if adv.pay_moves(s, p, 1 << s.position[p], -1):
            out.append(A.ADVENTURE)
        if statues.statue_options(s, p):
            out.append(A.VISIT_STATUE)
        out += list({L.quest + g.I_QUEST_KIND[q] for q in quests.completable(s, p)})
        if s.opts["abbey"] and not abbey.why_no_explore(s, p):
            out.append(L.explore)
    if free.has_free(s, p):
        out.append(A.FREE_ACTION)
    return out


def apply_free_menu(s, p, a):
    s.phase = A.MAIN
    apply_main(s, p, a)


def apply_main(s, p, a):
    """MAIN (and FREE_MENU): end the turn, start a turn action, or a free action. The transition
    is the one of the action's id in MAIN_FIXED, else the one of the block of ids it falls in
    (MAIN_BLOCKS, whose first ids depend on the card set: `fantastiqa_rl.actions.ActionLayout`)."""
    fixed = MAIN_FIXED.get(a)
    if fixed is not None:
        fixed(s, p)
        return
    L = s.g.layout
    starts = (A.MARK, A.REGION, L.hand, L.commit, L.pick, L.quest, L.explore)
    i = bisect_right(starts, a) - 1
    MAIN_BLOCKS[i](s, p, a - starts[i])


def not_in_main(s, p, j):
    raise AssertionError("a REGION action is never legal in MAIN")  # apply() checked legality


def apply_terminal(s, p, a):
    raise AssertionError("no transition in a terminal state")


def _by_phase(handlers: dict) -> tuple:
    """The handlers as a tuple indexed by phase; every phase must have one."""
    missing = [PHASES[ph] for ph in range(len(PHASES)) if ph not in handlers]
    if missing:
        raise AssertionError(f"phases without a handler: {missing}")
    return tuple(handlers[ph] for ph in range(len(PHASES)))


# MAIN's transitions: by action id, then by block of ids (first ids: A.MARK, A.REGION, and the
# layout's hand, commit, pick, quest and explore, in that order; see apply_main)
MAIN_FIXED = {
    A.DONE:         turn_flow.end_turn,
    A.ADVENTURE:    adv.start_adventure,
    A.VISIT_STATUE: statues.start_statue_visit,
    A.FREE_ACTION:  free.open_free_menu,
    A.CARPET:       free.use_carpet,
    A.RESHUFFLE:    free.reshuffle,
}
MAIN_BLOCKS = (free.mark, not_in_main, powers.play_card, free.commit, free.withdraw, quests.start_quest,
               abbey.start_exploring)
# phase -> (legal actions of the decision: f(state, seat) -> ids, unsorted, no duplicates; its transition:
# f(state, seat, action)), from the one table of the decisions (`fantastiqa_rl.decisions`, which names them and
# their kernels), resolved here, below MAIN's handlers that it names
from fantastiqa_rl.decisions import DECISIONS, resolve  # noqa: E402

HANDLERS = {PHASES.index(name): (resolve(d.legal), resolve(d.apply)) for name, d in DECISIONS.items()}
LEGAL = _by_phase({ph: h[0] for ph, h in HANDLERS.items()})
APPLY = _by_phase({ph: h[1] for ph, h in HANDLERS.items()})
