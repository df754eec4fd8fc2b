"""The kernels of `fantastiqa_rl.vector.FantastiqaVector`: numba ports of `FantastiqaState`'s decisions over
the packed rows of `fantastiqa_rl.vector_state` (c: list items, w: scalars and lengths), for a batch.

- `legal(...)`: each game's legal actions, for the decisions ported (one function per decision,
  named after the scalar function it ports; here MAIN's `_main_row` and the payments' `_pay_row`; the
  rule queries they ask are `fantastiqa_rl.vector_rules`; a rule topic's own rows live in its folder:
  the statues' in `fantastiqa_rl.statues.kernels`, the powers' in `fantastiqa_rl.powers.kernels`,
  the setup decisions' in `fantastiqa_rl.setup.kernels`, the adventure's in
  `fantastiqa_rl.adventure.kernels`, END_DISCARD's in `fantastiqa_rl.turn_flow.kernels`, the free
  actions' in `fantastiqa_rl.free_actions.kernels`);
- `step(...)`: each game's action applied where ported (`fantastiqa_rl.vector_steps.apply`).
(The observation is `fantastiqa_rl.obs_kernel.encode`, straight from the rows.)
Each of `legal` and `step` says per game whether it did (1) or left the game to the caller (0), who
runs the scalar core on it (FantastiqaVector's fallback); a game left is unchanged. A kernel draws
from a chance Generator only in a reshuffle, and only from the state words `step` is handed
(`fantastiqa_rl.vector_chance`). Card data comes in as tables built from the card file
(`vector_rules.Cards`); nothing about a card is compiled in. Which decisions are ported: the module
docstring of `fantastiqa_rl.vector`; tests/test_fantastiqa_vector_kernels.py checks that each runs
here and equals the scalar core.
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.options import CANCEL_BUDGET
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl import vector_steps as S
from fantastiqa_rl.adventure.kernels import _adv_move_row, _move_dest_row
from fantastiqa_rl.free_actions.kernels import _commit_target_row, _free_menu_row, _withdraw_from_row, free_actions
from fantastiqa_rl.powers.kernels import _effect_row, _target_seat_row
from fantastiqa_rl.quests.kernels import completable
from fantastiqa_rl.setup.kernels import _setup_row
from fantastiqa_rl.statues.kernels import _buy_row, _chest_row, _release_row, _statue_option_row, statue_options
from fantastiqa_rl.turn_flow.kernels import _end_discard_row
from fantastiqa_rl.vector_rules import Cards  # noqa: F401  (the tables the kernels take)
from fantastiqa_rl.vector_state import MAX_SEATS, S_POS, W_ACTION_USED, W_CANCELS, W_CUR, W_PHASE, W_SEATS
from fantastiqa_rl.vector_state import kernel


# ---------------------------------------------------------------- legal actions
@kernel
def _main_row(c, w, i, cap, T, row, scratch, quest0, wi, wp):
    """rules.legal_main; False (the scalar core) with the Abbey, for its EXPLORE."""
    if T[12][R.F_ABBEY]:
        return False
    p = w[i, W_CUR]
    row[A.DONE] = True
    if not w[i, W_ACTION_USED]:
        pos = w[i, W_SEATS + MAX_SEATS * S_POS + p]
        dests = wi[R.reg(wi, R.R_DESTS):]
        if R.pay_moves(c, w, i, cap, T, p, 1 << pos, -1, dests, wi, wp):
            row[A.ADVENTURE] = True
        if statue_options(c, w, i, cap, p, 0):
            row[A.VISIT_STATUE] = True
        qs = wi[R.reg(wi, R.R_QUESTS):]
        for t in range(completable(c, w, i, cap, T, p, qs, wi, wp)):
            row[quest0 + T[1][qs[t]]] = True
    if free_actions(c, w, i, cap, T, p, scratch, wi, True):   # free_actions.rules.has_free: any free action
        row[A.FREE_ACTION] = True
        scratch[:] = False
    return True


@kernel
def _pay_row(c, w, i, cap, T, row, quest0, wi, wp):
    ph = w[i, W_PHASE]
    p = w[i, W_CUR]
    R.legal_pay(c, w, i, cap, T, p, ph == A.QUEST_PAY, row, wi, wp)


@kernel
def _cancel_budget(w, i, flags, row):
    """rules.legal_list: once Q-T2's budget is spent, CANCEL is legal only where nothing else is."""
    if flags[R.F_FORBID] and w[i, W_CANCELS] >= CANCEL_BUDGET and row[A.CANCEL]:
        if np.count_nonzero(row) > 1:
            row[A.CANCEL] = False


@kernel
def legal(c, w, games, out, cap, T, quest0, wi, wp):
    """out[i] = the legal actions of game i (cleared here first: the row is then in the cache), for
    the decisions ported; returns 1 per game handled, 0 where the caller must ask the scalar core."""
    done = np.zeros(games.size, dtype=np.int8)
    scratch = np.zeros(out.shape[1], dtype=np.bool_)
    for g in range(games.size):
        # one function per kind of decision, dispatched here (one function holding them all, or a
        # dispatcher function, ran ~5x slower per game)
        i = games[g]
        ph = w[i, W_PHASE]
        row = out[i]
        row[:] = False
        ok = True
        if ph == A.END_DISCARD:
            _end_discard_row(c, w, i, cap, T, row)
        elif ph == A.MAIN:
            ok = _main_row(c, w, i, cap, T, row, scratch, quest0, wi, wp)
        elif ph == A.SETUP_QUEST or ph == A.SETUP_ARTIFACT or ph == A.SETUP_PLACE:
            _setup_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.FREE_MENU:
            _free_menu_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.STATUE_OPTION:
            _statue_option_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.ADV_MOVE:
            _adv_move_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.ADV_PAY or ph == A.QUEST_PAY:
            _pay_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.MOVE_DEST:
            _move_dest_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.BUY:
            _buy_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.CHEST:
            _chest_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.RELEASE:
            _release_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.COMMIT_TARGET:
            _commit_target_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.WITHDRAW_FROM:
            _withdraw_from_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.TARGET_SEAT:
            _target_seat_row(c, w, i, cap, T, row, quest0, wi, wp)
        elif ph == A.GLASS or ph == A.BELL or ph == A.BREW_CARD or ph == A.WARDROBE:
            _effect_row(c, w, i, cap, T, row, quest0, wi, wp)
        else:
            ok = False
        if ok and (ph == A.STATUE_OPTION or ph == A.ADV_MOVE or ph == A.ADV_PAY or ph == A.QUEST_PAY
                   or ph == A.RELEASE):
            _cancel_budget(w, i, T[12], row)
        if ok:
            done[g] = 1
    return done


@kernel
def first_illegal(legal, games, actions):
    """The first g where actions[g] is out of range or not legal[games[g]]; -1 if none."""
    for g in range(games.size):
        a = actions[g]
        if a < 0 or a >= legal.shape[1] or not legal[games[g], a]:
            return g
    return -1


# ---------------------------------------------------------------- transitions
@kernel
def step(c, w, games, actions, cap, T, quest0, rng):
    """Apply actions[g] (legal: the caller checked) to game games[g] where ported (vector_steps.apply);
    returns 1 per game stepped, 0 where the caller must (nothing of that game changed then).
    rng: (games.size, 6) uint64, row g the state words of game g's mover's Generator
    (vector_chance), advanced by the step's shuffles; or (0, 6): no Generators, so a step that may
    shuffle is left to the caller."""
    done = np.zeros(games.size, dtype=np.int8)
    none = np.empty(0, dtype=np.uint64)
    for g in range(games.size):
        st = rng[g] if rng.shape[0] else none
        if S.apply(c, w, games[g], cap, T, actions[g], quest0, st):
            done[g] = 1
    return done
