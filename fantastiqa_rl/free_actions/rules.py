"""The free actions on the scalar core (Q-F1..Q-F4), as plain functions of a `FantastiqaState` `s`:
whether any is open (`has_free`, MAIN's FREE_ACTION), the FREE_MENU decision's legal actions
(`legal_free`), and the transitions of `rules.MAIN_FIXED` / `rules.MAIN_BLOCKS` they own: opening the
menu (`open_free_menu`), a flying carpet (`use_carpet`, Q-F3; also an adventure step), a reshuffle
(`reshuffle`, Q-F4), marking an open quest (`mark`, Q-F2), committing a hand card to a quest and
withdrawing one (`commit`, `withdraw`, Q-F2; the quests a card may join: `commit_targets`) with their
decisions COMMIT_TARGET and WITHDRAW_FROM (`legal_commit_target` / `apply_commit_target`,
`legal_withdraw_from` / `apply_withdraw_from`). Playing a card for its power (Q-F1) is
`powers.rules.play_card` (`power_ok` says which); FREE_MENU's transition is MAIN's
(`rules.apply_free_menu`). Their batched ports are `fantastiqa_rl.free_actions.kernels`.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import NUM_OPEN_QUESTS
from fantastiqa_rl.chance import RNG_SEAT0
from fantastiqa_rl.powers.rules import playable_kinds, power_ok
from fantastiqa_rl.queries import find, kinds, moves


def has_free(s, p) -> bool:
    # cheap checks first; the full list only when needed
    if (s.carpets[p] and moves(s, p)) or (s.reshuffles[p] and s.discard[p]):
        return True
    if any(q >= 0 and s.quest_token[p] != q and q not in s.token_left for q in s.open_quests):
        return True
    return bool(legal_free(s, p))


def legal_free(s, p) -> list:
    """Free actions (Q-F1..Q-F4) of the FREE_MENU decision."""
    g, L = s.g, s.g.layout
    out = []
    if s.carpets[p] and moves(s, p):
        out.append(A.CARPET)
    if s.reshuffles[p] and s.discard[p]:
        out.append(A.RESHUFFLE)
    for j in range(NUM_OPEN_QUESTS):
        q = s.open_quests[j]
        if q >= 0 and s.quest_token[p] != q and q not in s.token_left:
            out.append(A.MARK + j)
    for k in playable_kinds(s, p):
        if power_ok(s, p, k):
            out.append(L.hand + k)
    if s.committed[p]:
        for k in kinds(s, s.hand[p]):
            if g.K_PROFILE[k] is not None and commit_targets(s, p, k):
                out.append(L.commit + k)
        out += list({L.pick + g.I_HAND_KIND[i] for cards in s.committed[p].values() for i in cards})
    return out


def commit_targets(s, p, k):
    """Quest instances a hand card of kind k may be committed to (ASSUMED: only while the
    quest still lacks one of the card's symbols, counting the cards already committed)."""
    g = s.g
    syms = g.K_SYMS[k]
    out = []
    for q, cards in s.committed[p].items():
        need = g.Q_NEEDS[g.I_QUEST_KIND[q]]
        for sym, cnt in need:
            if sym in syms:
                have = 0
                for i in cards:
                    a, b, m = g.K_PROFILE[g.I_HAND_KIND[i]]
                    if a == sym or b == sym:
                        have += m
                if have < cnt:
                    out.append(q)
                    break
    return out


def legal_commit_target(s, p) -> list:
    L, QK = s.g.layout, s.g.I_QUEST_KIND
    return list({L.quest + QK[q] for q in commit_targets(s, p, s.target)})


def legal_withdraw_from(s, p) -> list:
    L, QK, HK = s.g.layout, s.g.I_QUEST_KIND, s.g.I_HAND_KIND
    return list({L.quest + QK[q] for q, cards in s.committed[p].items()
                 if any(HK[i] == s.target for i in cards)})


def open_free_menu(s, p):
    s.phase = A.FREE_MENU


def use_carpet(s, p):
    """CARPET (Q-F3), from MAIN or as an adventure step (ADV_MOVE): the token goes to the
    supply, then MOVE_DEST, back to the decision it came from."""
    s.carpets[p] -= 1
    s.supply_carpets += 1
    s.phase, s.ret = A.MOVE_DEST, s.phase


def reshuffle(s, p):                            # Q-F4
    s.reshuffles[p] -= 1
    s.supply_reshuffles += 1
    s.deck[p] += s.discard[p]
    s.discard[p] = []
    s._rng(RNG_SEAT0 + p).shuffle(s.deck[p])


def mark(s, p, j):                              # MARK j (Q-F2)
    q = s.open_quests[j]
    old = s.quest_token[p]
    if old >= 0:
        s.discard[p] += s.committed[p].pop(old)
        if s.opts["mark_return"] == "forbid":
            s.token_left.append(old)
    s.quest_token[p] = q
    s.committed[p][q] = []


def commit(s, p, k):                            # Q-F2; a single target needs no step
    s.target, s.phase = k, A.COMMIT_TARGET
    qs = commit_targets(s, p, k)
    if len(qs) == 1:
        apply_commit_target(s, p, s.g.layout.quest + s.g.I_QUEST_KIND[qs[0]])


def withdraw(s, p, k):                          # Q-F2; a single quest holding the kind needs no step
    g = s.g
    s.target, s.phase = k, A.WITHDRAW_FROM
    qs = [q for q, cards in s.committed[p].items() if any(g.I_HAND_KIND[i] == k for i in cards)]
    if len(qs) == 1:
        apply_withdraw_from(s, p, g.layout.quest + g.I_QUEST_KIND[qs[0]])


def apply_commit_target(s, p, a):
    L, QK = s.g.layout, s.g.I_QUEST_KIND
    q = next(q for q in s.committed[p] if L.quest + QK[q] == a)
    i = find(s, s.hand[p], s.target)
    s.hand[p].remove(i)
    s.committed[p][q].append(i)
    s.phase = A.MAIN


def apply_withdraw_from(s, p, a):
    L, QK, HK = s.g.layout, s.g.I_QUEST_KIND, s.g.I_HAND_KIND
    q = next(q for q, cards in s.committed[p].items()
             if L.quest + QK[q] == a and any(HK[i] == s.target for i in cards))
    i = find(s, s.committed[p][q], s.target)
    s.committed[p][q].remove(i)
    s.discard[p].append(i)
    s.phase = A.MAIN
