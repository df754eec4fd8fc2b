"""Card powers (Q-F1) and artifact effects, as a mixin of `FantastiqaState`: which powers can be
played, what they do, and the decisions they open (TARGET_SEAT for DRAGON, the Peaceful Dragon and
Bitter Brew; GLASS, BELL, BREW_CARD, WARDROBE for artifact effects). `fantastiqa_rl.rules`
dispatches those decisions here.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import (NUM_SPACES, P_DRAGON, P_EFFECT, P_FLY, P_GEM, P_KEY, P_NONE, P_PEACEFUL,
                                 P_PLUS)
from fantastiqa_rl.statues.rules import statue_options

# TARGET_SEAT reasons (state.reason)
R_PEACEFUL, R_DRAGON, R_BREW = 0, 1, 2


def held_in_play(opts: dict, g, i: int) -> bool:
    """Whether card i of `turn.powered` (played for its power this turn) lies in play, in no other
    zone, until the end of the turn (Q-T2, option turn_loops="forbid"). Otherwise the list only
    marks it: with card_use="both" a card with symbols stays in hand for them (Q-F1)."""
    return kind_held_in_play(opts, g, g.I_HAND_KIND[i])


def kind_held_in_play(opts: dict, g, k: int) -> bool:
    """`held_in_play` for a card of kind k (a Peaceful Dragon is given away instead)."""
    if opts["card_use"] == "both" and g.K_PROFILE[k] is not None:
        return False
    return opts["turn_loops"] == "forbid"


class Powers:
    """Playing cards for their power and resolving artifact effects."""

    def _power_ok(self, p, k):
        """Whether a hand card of kind k may be played for its power now (it would do something)."""
        pw = self.g.K_POWER[k]
        if pw == P_NONE:
            return False
        if pw == P_FLY:
            return bool(self._moves(p, self.phase == A.ADV_MOVE))
        if pw == P_KEY:     # the options once the card has left the hand (into play, Q-T2)
            return bool(statue_options(self, p, leaving=int(kind_held_in_play(self.opts, self.g, k))))
        if pw == P_DRAGON:
            return bool(self.dragons) and bool(self._opponents_here(p))
        if pw == P_PEACEFUL:
            return bool(self._opponents_here(p))
        return True   # PLUS_STATUE, GEM, EFFECT

    def _opponents_here(self, p):
        pos = self.position[p]
        return [o for o in range(self.n) if self.is_opponent(p, o) and self.position[o] == pos]

    def _legal_target_seat(self, p) -> list:
        if self.reason == R_BREW:
            opp = [o for o in range(self.n) if self.is_opponent(p, o)]
        else:
            opp = self._opponents_here(p)
        return [A.SEAT + o for o in opp]

    def _legal_glass(self, p) -> list:
        g = self.g
        return [g.layout.hand + k for k in self._kinds([i for i in self.hand[p] if i not in self.boosted])
                if g.K_PROFILE[k] is not None]

    def _legal_bell(self, p) -> list:
        return [self.g.layout.pick + k for k in self._kinds(self.revealed)]

    def _legal_brew_card(self, p) -> list:
        L = self.g.layout
        return ([L.hand + k for k in self._kinds(self.hand[p])]
                + [L.pick + k for k in self._kinds(self.discard[p])])

    def _legal_wardrobe(self, p) -> list:
        return [A.SPACE + c for c in range(NUM_SPACES) if self.board[c] >= 0 and c != self.target]

    def _play_card(self, p, k):
        """Play a hand card of kind k for its power (Q-F1)."""
        g = self.g
        hand = self.hand[p]
        if self.opts["card_use"] == "both" and g.K_PROFILE[k] is not None:
            i = next(i for i in hand if g.I_HAND_KIND[i] == k and i not in self.powered)
            self.powered.append(i)                  # stays in hand for its symbols
        else:
            i = self._find(hand, k)
            hand.remove(i)
            if g.K_POWER[k] == P_PEACEFUL:
                pass                                # given away below (TARGET_SEAT)
            elif self.opts["turn_loops"] == "forbid":
                self.powered.append(i)              # Q-T2: in play until the end of the turn
            else:
                self.discard[p].append(i)           # the unbounded reading: discarded at once
        pw = g.K_POWER[k]
        if pw == P_FLY:
            if self.phase == A.MAIN:
                self.phase, self.ret = A.MOVE_DEST, A.MAIN
        elif pw == P_KEY:
            self.key, self.phase = True, A.STATUE_OPTION
        elif pw == P_PLUS:
            self.plus_statue += 1
        elif pw == P_GEM:
            self.gems[p] += self._take("supply_gems", 1)
        elif pw == P_DRAGON:
            self.phase, self.reason = A.TARGET_SEAT, R_DRAGON
        elif pw == P_PEACEFUL:
            self.in_play.append(i)
            self.phase, self.reason = A.TARGET_SEAT, R_PEACEFUL
        elif pw == P_EFFECT:
            self.effects = list(g.K_EFFECTS[k])
            self._run_effects(p)

    def _run_effects(self, p):
        """Resolve queued artifact effects until one needs a decision."""
        while self.effects and self.phase == A.MAIN:
            op, x, y = self.effects.pop(0)
            if op == "gain_gems":
                self.gems[p] += self._take("supply_gems", x)
            elif op == "draw":
                self._draw(p, x, self.hand[p])
            elif op == "gain_carpet":
                self.carpets[p] += self._take("supply_carpets", x)
            elif op == "gain_reshuffle":
                self.reshuffles[p] += self._take("supply_reshuffles", x)
            elif op == "steal_richer":
                mine = self.gems[p]
                for o in range(self.n):
                    if self.is_opponent(p, o) and self.gems[o] > mine:
                        self.gems[o] -= 1
                        self.gems[p] += 1
            elif op == "double_symbols":
                if any(self.g.K_PROFILE[self.g.I_HAND_KIND[i]] is not None and i not in self.boosted
                       for i in self.hand[p]):
                    self.phase = A.GLASS
            elif op == "draw_keep":
                self._draw(p, x, self.revealed)
                if self.revealed:
                    if y <= 0:
                        self.discard[p] += self.revealed
                        self.revealed = []
                    else:
                        self.count, self.phase = y, A.BELL
            elif op == "give_card":
                if self.hand[p] or self.discard[p]:
                    self.phase = A.BREW_CARD
            elif op == "swap_creatures":
                if sum(1 for b in self.board if b >= 0) >= 2:
                    self.target, self.phase = -1, A.WARDROBE

    def _apply_target_seat(self, p, a):
        o = a - A.SEAT
        if self.reason == R_DRAGON:
            self.discard[o].append(self.dragons.pop())
        else:
            self.discard[o].append(self.in_play.pop())
        self.phase = A.MAIN
        self._run_effects(p)

    def _apply_glass(self, p, a):
        k = a - self.g.layout.hand
        HK = self.g.I_HAND_KIND
        self.boosted.append(next(i for i in self.hand[p] if HK[i] == k and i not in self.boosted))
        self.phase = A.MAIN
        self._run_effects(p)

    def _apply_bell(self, p, a):
        i = self._find(self.revealed, a - self.g.layout.pick)
        self.revealed.remove(i)
        self.hand[p].append(i)
        self.count -= 1
        if self.count <= 0 or not self.revealed:
            self.discard[p] += self.revealed
            self.revealed = []
            self.phase = A.MAIN
            self._run_effects(p)

    def _apply_brew_card(self, p, a):
        L = self.g.layout
        src = self.hand[p] if a < L.commit else self.discard[p]
        i = self._find(src, (a - L.hand) % L.K)
        src.remove(i)
        self.in_play.append(i)
        self.phase, self.reason = A.TARGET_SEAT, R_BREW

    def _apply_wardrobe(self, p, a):
        c = a - A.SPACE
        if self.target < 0:
            self.target = c
        else:
            t, b, bg = self.target, self.board, self.board_gems
            b[t], b[c] = b[c], b[t]
            bg[t], bg[c] = bg[c], bg[t]
            self.target = -1
            self.phase = A.MAIN
            self._run_effects(p)
