"""The statues (turn action B, Q-V1..Q-V3; also opened by the KEY power), as a mixin of
`FantastiqaState`: the options at a statue, drawing and buying (BUY) or keeping quests (CHEST),
releasing cards (RELEASE) and teleporting. `fantastiqa_rl.rules` dispatches those decisions here.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import CHEST, NUM_POSITIONS

PERSONAL_QUEST_CAP = 3           # Q-V1: personal quests a seat may hold
STATUE_REVEAL = 3                # Q-V1: cards drawn at a statue (+1 per PLUS_STATUE)
RELEASE_MAX = 3                  # Q-V2: cards released at once
TELEPORT_COST = 2                # Q-V3: gems


class Statues:
    """Statue options and the decisions they open."""

    def _statue_options(self, p, leaving: int = 0):
        """Statue options (Q-V1..Q-V3) available at p's region; `leaving` hand cards about to leave
        the hand without reaching the discard (a KEY played into play, Q-T2) do not count."""
        out = []
        st = self.statue_at[self.position[p]]
        deck = (self.artifact_deck, self.beast_deck, self.quest_deck)[st]
        if deck and not (st == CHEST and len(self.quests[p]) >= PERSONAL_QUEST_CAP):
            out.append(A.STATUE_DRAW)
        if self.gems[p] >= 1 and (len(self.hand[p]) > leaving or self.discard[p]):
            out.append(A.STATUE_RELEASE)
        if self.gems[p] >= TELEPORT_COST:
            out.append(A.STATUE_TELEPORT)
        return out

    def _legal_statue_option(self, p) -> list:
        return self._statue_options(p) + ([] if self.key else [A.CANCEL])

    def _legal_buy(self, p) -> list:
        gems, cost = self.gems[p], self.g.K_COST
        return [A.DONE] + [self.g.layout.pick + k for k in self._kinds(self.revealed) if cost[k] <= gems]

    def _legal_chest(self, p) -> list:
        L, QK = self.g.layout, self.g.I_QUEST_KIND
        out = [A.DONE] if self.count else []
        if len(self.quests[p]) < PERSONAL_QUEST_CAP:
            out += list({L.quest + QK[q] for q in self.revealed})
        return out

    def _legal_release(self, p) -> list:
        """Choose up to RELEASE_MAX cards (1 gem each), then CONFIRM (or CANCEL)."""
        L = self.g.layout
        out = [A.CANCEL]
        n = len(self.pay) + len(self.release_from_discard)
        if n:
            out.append(A.CONFIRM)
        if n < RELEASE_MAX and n < self.gems[p]:
            out += [L.hand + k for k in self._kinds(self.hand[p])]
            out += [L.pick + k for k in self._kinds(self.discard[p])]
        return out

    def _statue(self, p, a):
        """Start a statue option (turn action B, or the KEY power when self.key)."""
        if a == A.STATUE_DRAW:                      # Q-V1
            st = self.statue_at[self.position[p]]
            deck = (self.artifact_deck, self.beast_deck, self.quest_deck)[st]
            for _ in range(STATUE_REVEAL + self.plus_statue):
                if not deck:
                    break
                self.revealed.append(deck.pop())
            self.plus_statue, self.count = 0, 0
            self.phase = A.CHEST if st == CHEST else A.BUY
        elif a == A.STATUE_RELEASE:                 # Q-V2
            self.pay, self.release_from_discard, self.phase = [], [], A.RELEASE
        else:                                       # Q-V3 teleport
            self.gems[p] -= TELEPORT_COST
            self.supply_gems += TELEPORT_COST
            pos = self.position[p]
            st = self.statue_at[pos]
            self.position[p] = next(r for r in range(NUM_POSITIONS) if r != pos and self.statue_at[r] == st)
            self._statue_done()

    def _apply_statue_option(self, p, a):
        if a == A.CANCEL:
            self.phase = A.MAIN
        else:
            self._statue(p, a)

    def _apply_buy(self, p, a):
        if a == A.DONE:
            self._return_revealed()
            self._statue_done()
            return
        k = a - self.g.layout.pick
        cost = self.g.K_COST[k]
        i = self._find(self.revealed, k)
        self.revealed.remove(i)
        self.gems[p] -= cost
        self.supply_gems += cost
        (self.hand[p] if self.opts["bought_to"] == "hand" else self.discard[p]).append(i)

    def _apply_chest(self, p, a):
        if a == A.DONE:
            self._return_revealed()
            self._statue_done()
            return
        L, QK = self.g.layout, self.g.I_QUEST_KIND
        q = next(i for i in self.revealed if L.quest + QK[i] == a)
        self.revealed.remove(q)
        self.quests[p].append(q)
        self.committed[p][q] = []
        self.count += 1
        if not self.revealed:
            self._statue_done()

    def _apply_release(self, p, a):
        L = self.g.layout
        if a == A.CANCEL:                           # nothing released; a KEY is spent anyway
            self.hand[p] += self.pay
            self.discard[p] += self.release_from_discard
            self.pay, self.release_from_discard = [], []
            self.key = False
            self.phase = A.MAIN
        elif a == A.CONFIRM:                        # released cards leave the game, 1 gem each
            n = len(self.pay) + len(self.release_from_discard)
            self.box += self.pay + self.release_from_discard
            self.pay, self.release_from_discard = [], []
            self.gems[p] -= n
            self.supply_gems += n
            self._statue_done()
        elif a < L.commit:
            i = self._find(self.hand[p], a - L.hand)
            self.hand[p].remove(i)
            self.pay.append(i)
        else:
            i = self._find(self.discard[p], a - L.pick)
            self.discard[p].remove(i)
            self.release_from_discard.append(i)

    def _return_revealed(self):
        st = self.statue_at[self.position[self.cur]]
        deck = (self.artifact_deck, self.beast_deck, self.quest_deck)[st]
        deck[:0] = self.revealed[::-1]              # bottom, to be drawn again in draw order
        self.revealed = []

    def _statue_done(self):
        if self.key:
            self.key = False
        else:
            self.action_used = True
        self.phase = A.MAIN
