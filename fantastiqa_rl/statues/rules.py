"""The statues' rules on the scalar core (Q-V1..Q-V3), as plain functions of a `FantastiqaState` `s`
and a seat `p`: the options at a statue, drawing and buying (BUY) or keeping quests (CHEST),
releasing cards (RELEASE) and teleporting. `fantastiqa_rl.decisions`' table pairs each decision with
its `legal_*` / `apply_*` here; `rules.legal_main` (VISIT_STATUE) and `powers.rules.power_ok` (KEY) ask
`statue_options`; MAIN's VISIT_STATUE is `start_statue_visit` (`rules.MAIN_FIXED`). Their batched
ports are `fantastiqa_rl.statues.kernels`.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import CHEST, NUM_POSITIONS
from fantastiqa_rl.queries import find, kinds

PERSONAL_QUEST_CAP = 3           # Q-V1: personal quests a seat may hold
STATUE_REVEAL = 3                # Q-V1: cards drawn at a statue (+1 per PLUS_STATUE)
RELEASE_MAX = 3                  # Q-V2: cards released at once
TELEPORT_COST = 2                # Q-V3: gems


def statue_options(s, p, leaving: int = 0):
    """Statue options (Q-V1..Q-V3) available at p's region; `leaving` hand cards about to leave
    the hand without reaching the discard (a KEY played into play, Q-T2) do not count."""
    out = []
    st = s.statue_at[s.position[p]]
    deck = (s.artifact_deck, s.beast_deck, s.quest_deck)[st]
    if deck and not (st == CHEST and len(s.quests[p]) >= PERSONAL_QUEST_CAP):
        out.append(A.STATUE_DRAW)
    if s.gems[p] >= 1 and (len(s.hand[p]) > leaving or s.discard[p]):
        out.append(A.STATUE_RELEASE)
    if s.gems[p] >= TELEPORT_COST:
        out.append(A.STATUE_TELEPORT)
    return out


def legal_statue_option(s, p) -> list:
    return statue_options(s, p) + ([] if s.key else [A.CANCEL])


def legal_buy(s, p) -> list:
    gems, cost = s.gems[p], s.g.K_COST
    return [A.DONE] + [s.g.layout.pick + k for k in kinds(s, s.revealed) if cost[k] <= gems]


def legal_chest(s, p) -> list:
    L, QK = s.g.layout, s.g.I_QUEST_KIND
    out = [A.DONE] if s.count else []
    if len(s.quests[p]) < PERSONAL_QUEST_CAP:
        out += list({L.quest + QK[q] for q in s.revealed})
    return out


def legal_release(s, p) -> list:
    """Choose up to RELEASE_MAX cards (1 gem each), then CONFIRM (or CANCEL)."""
    L = s.g.layout
    out = [A.CANCEL]
    n = len(s.pay) + len(s.release_from_discard)
    if n:
        out.append(A.CONFIRM)
    if n < RELEASE_MAX and n < s.gems[p]:
        out += [L.hand + k for k in kinds(s, s.hand[p])]
        out += [L.pick + k for k in kinds(s, s.discard[p])]
    return out


def start_statue_visit(s, p):                  # MAIN's VISIT_STATUE (Q-V1)
    s.key, s.phase = False, A.STATUE_OPTION


def start_option(s, p, a):
    """Start a statue option (turn action B, or the KEY power when s.key)."""
    if a == A.STATUE_DRAW:                      # Q-V1
        st = s.statue_at[s.position[p]]
        deck = (s.artifact_deck, s.beast_deck, s.quest_deck)[st]
        for _ in range(STATUE_REVEAL + s.plus_statue):
            if not deck:
                break
            s.revealed.append(deck.pop())
        s.plus_statue, s.count = 0, 0
        s.phase = A.CHEST if st == CHEST else A.BUY
    elif a == A.STATUE_RELEASE:                 # Q-V2
        s.pay, s.release_from_discard, s.phase = [], [], A.RELEASE
    else:                                       # Q-V3 teleport
        s.gems[p] -= TELEPORT_COST
        s.supply_gems += TELEPORT_COST
        pos = s.position[p]
        st = s.statue_at[pos]
        s.position[p] = next(r for r in range(NUM_POSITIONS) if r != pos and s.statue_at[r] == st)
        statue_done(s)


def apply_statue_option(s, p, a):
    if a == A.CANCEL:
        s.phase = A.MAIN
    else:
        start_option(s, p, a)


def apply_buy(s, p, a):
    if a == A.DONE:
        return_revealed(s)
        statue_done(s)
        return
    k = a - s.g.layout.pick
    cost = s.g.K_COST[k]
    i = find(s, s.revealed, k)
    s.revealed.remove(i)
    s.gems[p] -= cost
    s.supply_gems += cost
    (s.hand[p] if s.opts["bought_to"] == "hand" else s.discard[p]).append(i)


def apply_chest(s, p, a):
    if a == A.DONE:
        return_revealed(s)
        statue_done(s)
        return
    L, QK = s.g.layout, s.g.I_QUEST_KIND
    q = next(i for i in s.revealed if L.quest + QK[i] == a)
    s.revealed.remove(q)
    s.quests[p].append(q)
    s.committed[p][q] = []
    s.count += 1
    if not s.revealed:
        statue_done(s)


def apply_release(s, p, a):
    L = s.g.layout
    if a == A.CANCEL:                           # nothing released; a KEY is spent anyway
        s.hand[p] += s.pay
        s.discard[p] += s.release_from_discard
        s.pay, s.release_from_discard = [], []
        s.key = False
        s.phase = A.MAIN
    elif a == A.CONFIRM:                        # released cards leave the game, 1 gem each
        n = len(s.pay) + len(s.release_from_discard)
        s.box += s.pay + s.release_from_discard
        s.pay, s.release_from_discard = [], []
        s.gems[p] -= n
        s.supply_gems += n
        statue_done(s)
    elif a < L.commit:
        i = find(s, s.hand[p], a - L.hand)
        s.hand[p].remove(i)
        s.pay.append(i)
    else:
        i = find(s, s.discard[p], a - L.pick)
        s.discard[p].remove(i)
        s.release_from_discard.append(i)


def return_revealed(s):
    st = s.statue_at[s.position[s.cur]]
    deck = (s.artifact_deck, s.beast_deck, s.quest_deck)[st]
    deck[:0] = s.revealed[::-1]                 # bottom, to be drawn again in draw order
    s.revealed = []


def statue_done(s):
    if s.key:
        s.key = False
    else:
        s.action_used = True
    s.phase = A.MAIN
