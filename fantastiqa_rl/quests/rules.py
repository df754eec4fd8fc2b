"""Completing a quest on the scalar core (Q-Q1..Q-Q3), as plain functions of a `FantastiqaState` `s`:
which quests the mover may complete now (`completable`; Q-Q1, Q-Q2) and the requirement it pays
(`quest_req`), MAIN's QUEST block (`start_quest`: pay first), the QUEST_PAY decision
(`legal_quest_pay`, `apply_quest_pay`) and the completion itself (`complete_quest`; Q-Q3, with the
goal check of Q-E1). `fantastiqa_rl.rules` calls them: `rules.legal_main` (`completable`),
`rules.MAIN_BLOCKS` (`start_quest`) and `decisions.py`'s table (QUEST_PAY). Paying card by card is shared
with the adventure's ADV_PAY (`payment.legal_pay`, `pay_step`).
Their batched ports are `fantastiqa_rl.quests.kernels`.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.payment import can_meet, card_profile, legal_pay, pay_step
from fantastiqa_rl.turn_flow import rules as turn_flow


def quest_req(s, q_inst):
    return ("q", s.g.Q_NEEDS[s.g.I_QUEST_KIND[q_inst]])


def completable(s, p):
    """Quest instances p may complete now (Q-Q1, Q-Q2), personal ones first."""
    g = s.g
    name = s.region_at[s.position[p]]
    out = []
    hand_prof = None
    for q in s.quests[p] + [q for q in s.open_quests if q >= 0]:
        if g.Q_REGION[g.I_QUEST_KIND[q]] != name:
            continue
        if hand_prof is None:
            hand_prof = [card_profile(s, i) for i in s.hand[p]]
        profs = [x for x in hand_prof if x is not None]
        profs += [card_profile(s, i) for i in s.committed[p].get(q, ())]
        profs = [x for x in profs if x is not None]
        if can_meet(quest_req(s, q), tuple(sorted(profs))):
            out.append(q)
    return out


def start_quest(s, p, q):                          # complete a quest of kind q (Q-Q1..Q-Q3): pay first
    g = s.g
    s.target = next(i for i in completable(s, p) if g.I_QUEST_KIND[i] == q)
    s.pay = []
    s.phase = A.QUEST_PAY


def legal_quest_pay(s, p) -> list:
    return legal_pay(s, p, quest_req(s, s.target), s.pay + s.committed[p].get(s.target, []))


def apply_quest_pay(s, p, a):
    if pay_step(s, p, a, A.MAIN):
        complete_quest(s, p)


def complete_quest(s, p):
    """Q-Q3."""
    g = s.g
    q = s.target
    qk = g.I_QUEST_KIND[q]
    s.discard[p] += s.pay
    s.pay = []
    s.discard[p] += s.committed[p].pop(q, [])
    pts = g.Q_POINTS[qk]
    if q in s.quests[p]:
        s.quests[p].remove(q)
    else:
        j = s.open_quests.index(q)
        s.open_quests[j] = -1
        if s.open_bonus[j]:
            s.open_bonus[j] = 0
            s.bonus_tokens[p] += 1
            pts += 1
        for o in range(s.n):                       # tokens on it return, cards to discard
            if s.quest_token[o] == q:
                s.quest_token[o] = -1
                s.discard[o] += s.committed[o].pop(q, [])
    s.completed[p].append(q)
    gems, carpets, resh = g.Q_REWARD[qk]
    s.gems[p] += s._take("supply_gems", gems)
    s.carpets[p] += s._take("supply_carpets", carpets)
    s.reshuffles[p] += s._take("supply_reshuffles", resh)
    s.scores[p] += pts
    s.action_used = True
    s.phase = A.MAIN
    if turn_flow.goal_reached(s, p):               # Q-E1 (Q-B1 lines, Q-TM2 team sums)
        turn_flow.end(s, s.team(p), "goal")
