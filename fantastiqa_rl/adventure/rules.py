"""Adventures on the scalar core (Q-A1..Q-A4, Q-M1), as plain functions of a `FantastiqaState` `s`: the
creature a step pays for (`creature_req`), the steps the hand can pay (`pay_moves`), the start of an
adventure (`start_adventure`, MAIN's ADVENTURE in `rules.MAIN_FIXED`), the ADV_MOVE, ADV_PAY and
MOVE_DEST decisions (`legal_adv_move`, `apply_adv_move`, `legal_adv_pay`, `apply_adv_pay`,
`legal_move_dest`, `apply_move_dest`) and a move (`move_to`). `fantastiqa_rl.rules` calls them
(`decisions.py`'s table, `MAIN_FIXED`, `rules.legal_main`); `FantastiqaState.payable_steps` asks `pay_moves`.
Shared with other topics: the moves a FLY, carpet or step may use (`queries.moves`), a carpet used
(`free_actions.rules.use_carpet`, MAIN's CARPET), the cards not yet played for their power
(`powers.rules.playable_kinds`), and paying card by card (`payment.legal_pay`, `pay_step`, also
QUEST_PAY). Their batched ports are `fantastiqa_rl.adventure.kernels`.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import NEIGHBOURS, P_FLY
from fantastiqa_rl.free_actions import rules as free
from fantastiqa_rl.payment import can_meet, legal_pay, pay_step, profiles
from fantastiqa_rl.powers import rules as powers
from fantastiqa_rl.powers.rules import playable_kinds
from fantastiqa_rl.queries import moves


def creature_req(s, space):
    k = s.g.I_HAND_KIND[s.board[space]]
    return ("c", s.g.K_VULN[k], s.g.K_STRENGTH[k])


def pay_moves(s, p, visited=None, prev=None):
    """Adventure steps the hand can pay for."""
    hand_prof = profiles(s, s.hand[p])
    return [(c, d) for c, d in moves(s, p, True, visited, prev)
            if can_meet(creature_req(s, c), hand_prof)]


def legal_adv_move(s, p) -> list:
    g, L = s.g, s.g.layout
    out = [A.REGION + d for _, d in pay_moves(s, p)]
    out.append(A.DONE if s.count else A.CANCEL)
    if s.opts["fly_in_adventure"] and moves(s, p, True):
        if s.carpets[p]:
            out.append(A.CARPET)
        out += [L.hand + k for k in playable_kinds(s, p) if g.K_POWER[k] == P_FLY]
    return out


def legal_move_dest(s, p) -> list:
    return [A.REGION + d for _, d in moves(s, p, s.ret == A.ADV_MOVE)]


def start_adventure(s, p):
    s.visited, s.prev, s.count = 1 << s.position[p], -1, 0
    s.adventure = []
    s.phase = A.ADV_MOVE


def apply_adv_move(s, p, a):
    L = s.g.layout
    if a == A.DONE:
        s.discard[p] += s.adventure                # Q-A4
        s.adventure = []
        s.action_used = True
        s.phase = A.MAIN
    elif a == A.CANCEL:
        s.phase = A.MAIN
    elif a == A.CARPET:
        free.use_carpet(s, p)
    elif a >= L.hand:                              # FLY card as a path step
        powers.play_card(s, p, a - L.hand)
        s.phase, s.ret = A.MOVE_DEST, A.ADV_MOVE
    else:
        dest = a - A.REGION
        s.target = next(c for c, d in NEIGHBOURS[s.position[p]] if d == dest)
        s.pay = []
        s.phase = A.ADV_PAY


def legal_adv_pay(s, p) -> list:
    return legal_pay(s, p, creature_req(s, s.target), s.pay)


def apply_adv_pay(s, p, a):
    if not pay_step(s, p, a, A.ADV_MOVE):
        return
    c = s.target
    s.adventure.append(s.board[c])
    s.adventure += s.pay
    s.pay = []
    s.board[c] = -1
    s.gems[p] += s.board_gems[c]
    s.board_gems[c] = 0
    move_to(s, p, next(d for cc, d in NEIGHBOURS[s.position[p]] if cc == c))
    s.count += 1
    s.phase = A.ADV_MOVE


def apply_move_dest(s, p, a):
    move_to(s, p, a - A.REGION)
    s.phase = s.ret
    if s.ret == A.MAIN:
        powers.run_effects(s, p)


def move_to(s, p, dest):
    s.prev = s.position[p]
    s.position[p] = dest
    s.visited |= 1 << dest
