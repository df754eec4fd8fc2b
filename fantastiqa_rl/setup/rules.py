"""The setup decisions on the scalar core (Q-S4, Q-S5), as plain functions of a `FantastiqaState` `s`:
each seat, from the last, picks a starting quest (SETUP_QUEST), a starting artifact
(SETUP_ARTIFACT) and a starting region (SETUP_PLACE); the first seat's place ends the setup
(`turn_flow.rules.finish_setup`). `fantastiqa_rl.decisions`' table pairs the decisions with them. The
deal before them is `turn_flow.rules.setup`. Their batched ports are `fantastiqa_rl.setup.kernels`.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import NUM_POSITIONS
from fantastiqa_rl.turn_flow import rules as turn_flow


def legal_setup_quest(s, p) -> list:
    L, QK = s.g.layout, s.g.I_QUEST_KIND
    return list({L.quest + QK[q] for q in s.offer_quests})


def legal_setup_artifact(s, p) -> list:
    L, HK = s.g.layout, s.g.I_HAND_KIND
    return list({L.pick + HK[i] for i in s.offer_artifacts})


def legal_setup_place(s, p) -> list:
    taken = set(s.position)
    return [A.REGION + r for r in range(NUM_POSITIONS) if r not in taken]


def apply_setup_quest(s, p, a):
    L, QK = s.g.layout, s.g.I_QUEST_KIND
    q = next(i for i in s.offer_quests if L.quest + QK[i] == a)
    s.offer_quests.remove(q)
    s.quests[p].append(q)
    s.committed[p][q] = []
    s.phase = A.SETUP_ARTIFACT


def apply_setup_artifact(s, p, a):
    L, HK = s.g.layout, s.g.I_HAND_KIND
    i = next(i for i in s.offer_artifacts if L.pick + HK[i] == a)
    s.offer_artifacts.remove(i)
    s.hand[p].append(i)
    s.phase = A.SETUP_PLACE


def apply_setup_place(s, p, a):
    s.position[p] = a - A.REGION
    if p > 0:
        s.cur, s.phase = p - 1, A.SETUP_QUEST
    else:
        turn_flow.finish_setup(s)
