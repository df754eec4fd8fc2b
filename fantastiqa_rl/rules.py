"""The decisions of a Fantastiqa turn, as a mixin of `FantastiqaState`: which actions are legal in each
decision (`state.phase`, one of `actions.PHASES`) and what each does, dispatched by phase through
the table `HANDLERS` at the end of this module (one pair of handlers per phase: its legal actions
and its transition; `LEGAL` and `APPLY` index them by phase). Within the main decision, the
action's transition is looked up too: by its id (`MAIN_FIXED`) or its block of ids (`MAIN_BLOCKS`).
The handlers of some decisions live
with their job: card powers and artifact effects in `fantastiqa_rl.powers`, statues in
`fantastiqa_rl.statues`, setup and the start and end of turns in `fantastiqa_rl.turn_flow`, the
Abbey in `fantastiqa_rl.abbey`, completing quests in `fantastiqa_rl.quests`, the setup decisions in
`fantastiqa_rl.setup`, adventures in `fantastiqa_rl.adventure` (topic folders: plain functions of
the state, `powers.rules`, `statues.rules`, `turn_flow.rules`, `abbey.rules`, `quests.rules`,
`setup.rules`, `adventure.rules`).

The rules are docs/rules/fantastiqa.md; the engine's readings where it is silent are listed in
`fantastiqa_rl.state`. Actions are the flat ids of `fantastiqa_rl.actions`.
"""
from __future__ import annotations

from bisect import bisect_right

from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey import rules as abbey
from fantastiqa_rl.adventure import rules as adv
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import NUM_OPEN_QUESTS
from fantastiqa_rl.chance import RNG_SEAT0
from fantastiqa_rl.options import CANCEL_BUDGET
from fantastiqa_rl.powers import rules as powers
from fantastiqa_rl.powers.rules import playable_kinds
from fantastiqa_rl.queries import find, kinds, moves
from fantastiqa_rl.quests import rules as quests
from fantastiqa_rl.setup import rules as setup
from fantastiqa_rl.statues import rules as statues
from fantastiqa_rl.turn_flow import rules as turn_flow


class Rules:
    """Card queries, and the legal actions and transitions of the turn's main decisions."""

    # ------------------------------------------------------------------ card queries
    def _commit_targets(self, p, k):
        """Quest instances a hand card of kind k may be committed to (ASSUMED: only while the
        quest still lacks one of the card's symbols, counting the cards already committed)."""
        g = self.g
        syms = g.K_SYMS[k]
        out = []
        for q, cards in self.committed[p].items():
            need = g.Q_NEEDS[g.I_QUEST_KIND[q]]
            for s, cnt in need:
                if s in syms:
                    have = 0
                    for i in cards:
                        a, b, m = g.K_PROFILE[g.I_HAND_KIND[i]]
                        if a == s or b == s:
                            have += m
                    if have < cnt:
                        out.append(q)
                        break
        return out

    # ------------------------------------------------------------------ legal actions
    def _legal_list(self) -> list:
        out = LEGAL[self.phase](self, self.cur)
        if self.cancels >= CANCEL_BUDGET and len(out) > 1 and A.CANCEL in out \
                and self.opts["turn_loops"] == "forbid":
            out.remove(A.CANCEL)                    # Q-T2: the budget is spent; back-outs end
        return out

    def _legal_none(self, p) -> list:
        return []

    def _legal_main(self, p) -> list:
        g, L = self.g, self.g.layout
        out = [A.DONE]
        if not self.action_used:
            if adv.pay_moves(self, p, 1 << self.position[p], -1):
                out.append(A.ADVENTURE)
            if statues.statue_options(self, p):
                out.append(A.VISIT_STATUE)
            out += list({L.quest + g.I_QUEST_KIND[q] for q in quests.completable(self, p)})
            if self.opts["abbey"] and not abbey.why_no_explore(self, p):
                out.append(L.explore)
        if self._has_free(p):
            out.append(A.FREE_ACTION)
        return out

    def _has_free(self, p) -> bool:
        # cheap checks first; the full list only when needed
        if (self.carpets[p] and moves(self, p)) or (self.reshuffles[p] and self.discard[p]):
            return True
        if any(q >= 0 and self.quest_token[p] != q and q not in self.token_left for q in self.open_quests):
            return True
        return bool(self._legal_free(p))

    def _legal_free(self, p) -> list:
        """Free actions (Q-F1..Q-F4) of the FREE_MENU decision."""
        g, L = self.g, self.g.layout
        out = []
        if self.carpets[p] and moves(self, p):
            out.append(A.CARPET)
        if self.reshuffles[p] and self.discard[p]:
            out.append(A.RESHUFFLE)
        for j in range(NUM_OPEN_QUESTS):
            q = self.open_quests[j]
            if q >= 0 and self.quest_token[p] != q and q not in self.token_left:
                out.append(A.MARK + j)
        for k in playable_kinds(self, p):
            if powers.power_ok(self, p, k):
                out.append(L.hand + k)
        if self.committed[p]:
            for k in kinds(self, self.hand[p]):
                if g.K_PROFILE[k] is not None and self._commit_targets(p, k):
                    out.append(L.commit + k)
            out += list({L.pick + g.I_HAND_KIND[i] for cards in self.committed[p].values() for i in cards})
        return out

    def _legal_end_discard(self, p) -> list:
        return [A.DONE] + [self.g.layout.hand + k for k in kinds(self, self.hand[p])]

    def _legal_commit_target(self, p) -> list:
        L, QK = self.g.layout, self.g.I_QUEST_KIND
        return list({L.quest + QK[q] for q in self._commit_targets(p, self.target)})

    def _legal_withdraw_from(self, p) -> list:
        L, QK, HK = self.g.layout, self.g.I_QUEST_KIND, self.g.I_HAND_KIND
        return list({L.quest + QK[q] for q, cards in self.committed[p].items()
                     if any(HK[i] == self.target for i in cards)})

    # ------------------------------------------------------------------ transitions
    def _do(self, a: int):
        if a == A.CANCEL and self.opts["turn_loops"] == "forbid":   # CANCEL's id means CANCEL
            self.cancels += 1                       # in every decision; Q-T2's budget counts it
        APPLY[self.phase](self, self.cur, a)

    def _apply_free_menu(self, p, a):
        self.phase = A.MAIN
        self._apply_main(p, a)

    def _apply_main(self, p, a):
        """MAIN (and FREE_MENU): end the turn, start a turn action, or a free action. The transition
        is the one of the action's id in MAIN_FIXED, else the one of the block of ids it falls in
        (MAIN_BLOCKS, whose first ids depend on the card set: `fantastiqa_rl.actions.ActionLayout`)."""
        fixed = MAIN_FIXED.get(a)
        if fixed is not None:
            fixed(self, p)
            return
        L = self.g.layout
        starts = (A.MARK, A.REGION, L.hand, L.commit, L.pick, L.quest, L.explore)
        i = bisect_right(starts, a) - 1
        MAIN_BLOCKS[i](self, p, a - starts[i])

    def _start_statue_visit(self, p):
        self.key, self.phase = False, A.STATUE_OPTION

    def _open_free_menu(self, p):
        self.phase = A.FREE_MENU

    def _reshuffle(self, p):                        # Q-F4
        self.reshuffles[p] -= 1
        self.supply_reshuffles += 1
        self.deck[p] += self.discard[p]
        self.discard[p] = []
        self._rng(RNG_SEAT0 + p).shuffle(self.deck[p])

    def _mark(self, p, j):                          # MARK j (Q-F2)
        q = self.open_quests[j]
        old = self.quest_token[p]
        if old >= 0:
            self.discard[p] += self.committed[p].pop(old)
            if self.opts["mark_return"] == "forbid":
                self.token_left.append(old)
        self.quest_token[p] = q
        self.committed[p][q] = []

    def _not_in_main(self, p, j):
        raise AssertionError("a REGION action is never legal in MAIN")  # apply() checked legality

    def _play_for_power(self, p, k):                # Q-F1
        powers.play_card(self, p, k)

    def _commit(self, p, k):                        # Q-F2; a single target needs no step
        self.target, self.phase = k, A.COMMIT_TARGET
        qs = self._commit_targets(p, k)
        if len(qs) == 1:
            self._do(self.g.layout.quest + self.g.I_QUEST_KIND[qs[0]])

    def _withdraw(self, p, k):                      # Q-F2
        g = self.g
        self.target, self.phase = k, A.WITHDRAW_FROM
        qs = [q for q, cards in self.committed[p].items() if any(g.I_HAND_KIND[i] == k for i in cards)]
        if len(qs) == 1:
            self._do(g.layout.quest + g.I_QUEST_KIND[qs[0]])

    def _explore(self, p, j):                       # Q-B2 (j == 0: EXPLORE, legal only with the Abbey)
        abbey.start_exploring(self, p)

    def _use_carpet(self, p):
        """CARPET (Q-F3), from MAIN or as an adventure step (ADV_MOVE): the token goes to the
        supply, then MOVE_DEST, back to the decision it came from."""
        self.carpets[p] -= 1
        self.supply_carpets += 1
        self.phase, self.ret = A.MOVE_DEST, self.phase

    def _apply_end_discard(self, p, a):
        if a == A.DONE:
            turn_flow.finish_turn(self, p)
        else:
            i = find(self, self.hand[p], a - self.g.layout.hand)
            self.hand[p].remove(i)
            self.discard[p].append(i)

    def _apply_commit_target(self, p, a):
        L, QK = self.g.layout, self.g.I_QUEST_KIND
        q = next(q for q in self.committed[p] if L.quest + QK[q] == a)
        i = find(self, self.hand[p], self.target)
        self.hand[p].remove(i)
        self.committed[p][q].append(i)
        self.phase = A.MAIN

    def _apply_withdraw_from(self, p, a):
        L, QK, HK = self.g.layout, self.g.I_QUEST_KIND, self.g.I_HAND_KIND
        q = next(q for q, cards in self.committed[p].items()
                 if L.quest + QK[q] == a and any(HK[i] == self.target for i in cards))
        i = find(self, self.committed[p][q], self.target)
        self.committed[p][q].remove(i)
        self.discard[p].append(i)
        self.phase = A.MAIN

    def _apply_terminal(self, p, a):
        raise AssertionError("no transition in a terminal state")



def _by_phase(handlers: dict) -> tuple:
    """The handlers as a tuple indexed by phase; every phase must have one."""
    missing = [PHASES[ph] for ph in range(len(PHASES)) if ph not in handlers]
    if missing:
        raise AssertionError(f"phases without a handler: {missing}")
    return tuple(handlers[ph] for ph in range(len(PHASES)))


# phase -> (legal actions of the decision: f(state, seat) -> ids, unsorted, no duplicates;
#           its transition: f(state, seat, action))
HANDLERS = {
    A.SETUP_QUEST:    (setup.legal_setup_quest, setup.apply_setup_quest),
    A.SETUP_ARTIFACT: (setup.legal_setup_artifact, setup.apply_setup_artifact),
    A.SETUP_PLACE:    (setup.legal_setup_place, setup.apply_setup_place),
    A.MAIN:           (Rules._legal_main, Rules._apply_main),
    A.FREE_MENU:      (Rules._legal_free, Rules._apply_free_menu),
    A.ADV_MOVE:       (adv.legal_adv_move, adv.apply_adv_move),
    A.ADV_PAY:        (adv.legal_adv_pay, adv.apply_adv_pay),
    A.QUEST_PAY:      (quests.legal_quest_pay, quests.apply_quest_pay),
    A.MOVE_DEST:      (adv.legal_move_dest, adv.apply_move_dest),
    A.COMMIT_TARGET:  (Rules._legal_commit_target, Rules._apply_commit_target),
    A.WITHDRAW_FROM:  (Rules._legal_withdraw_from, Rules._apply_withdraw_from),
    A.END_DISCARD:    (Rules._legal_end_discard, Rules._apply_end_discard),
    A.TERMINAL:       (Rules._legal_none, Rules._apply_terminal),
    A.STATUE_OPTION:  (statues.legal_statue_option, statues.apply_statue_option),
    A.BUY:            (statues.legal_buy, statues.apply_buy),
    A.CHEST:          (statues.legal_chest, statues.apply_chest),
    A.RELEASE:        (statues.legal_release, statues.apply_release),
    A.TARGET_SEAT:    (powers.legal_target_seat, powers.apply_target_seat),
    A.GLASS:          (powers.legal_glass, powers.apply_glass),
    A.BELL:           (powers.legal_bell, powers.apply_bell),
    A.BREW_CARD:      (powers.legal_brew_card, powers.apply_brew_card),
    A.WARDROBE:       (powers.legal_wardrobe, powers.apply_wardrobe),
    A.ABBEY_MATCH:    (abbey.legal_abbey_match, abbey.apply_abbey_match),
    A.ABBEY_CHOICE:   (abbey.legal_abbey_choice, abbey.apply_abbey_choice),
}
# MAIN's transitions: by action id, then by block of ids (first ids: A.MARK, A.REGION, and the
# layout's hand, commit, pick, quest and explore, in that order; see Rules._apply_main)
MAIN_FIXED = {
    A.DONE:         turn_flow.end_turn,
    A.ADVENTURE:    adv.start_adventure,
    A.VISIT_STATUE: Rules._start_statue_visit,
    A.FREE_ACTION:  Rules._open_free_menu,
    A.CARPET:       Rules._use_carpet,
    A.RESHUFFLE:    Rules._reshuffle,
}
MAIN_BLOCKS = (Rules._mark, Rules._not_in_main, Rules._play_for_power, Rules._commit, Rules._withdraw,
               quests.start_quest, Rules._explore)
LEGAL = _by_phase({ph: h[0] for ph, h in HANDLERS.items()})
APPLY = _by_phase({ph: h[1] for ph, h in HANDLERS.items()})
