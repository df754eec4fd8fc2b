"""The Abandoned Abbey expansion (option abbey=True, Q-B1..Q-B5): its rules, as a mixin of
`FantastiqaState` (the state's fields `abbey_deck`, `abbey_returned`, `abbey_aside`, `abbey_reward`
and per seat `abbey`; see `fantastiqa_rl.serialization`).

Engine readings (ASSUMED where the spec is silent):
- `goal_lines` (from the card file's abbey_goals, for the player count, or the 2-player lines with
  teams) replace the goal: a player (team) wins at once when its quest points and Abbey cards
  meet any line (Q-B1, Q-E1); checked after every quest and every claim. `goal` stays the plain
  quest goal of the card file. Without the Abbey, `goal_lines` is ((goal, 0),).
- Exploring (EXPLORE, the turn action C, Q-B2) is offered only at board positions 5, 2, 3, 4,
  with the action unused, fewer than 7 Abbey cards held (by the team with teams), and a hand card
  matching the face-up top card (so it cannot fail before the first match). ABBEY_MATCH: choose
  the hand kind to discard (CANCEL is legal before the first match only; afterwards the action
  is spent). The matched card goes to the discard pile, the Abbey card to the set-aside zone, its
  reward from the supply into the set-aside reward (Q-X1: what the supply has), then the
  explorer draws the card's `draw` into hand (Q-X1 reshuffles apply) (Q-B3).
- ABBEY_CHOICE (Q-B4) is decided with the next Abbey card FACE DOWN (ASSUMED: "flip the next
  card" means it is unseen until you continue). ABBEY_STOP claims; ABBEY_CONTINUE (legal while
  held + set aside < 7 and a card is left to flip) flips it, and with no matching hand card the
  exploration fails at once, automatically: rewards back to the supply, the set-aside Abbey
  cards face up under the deck (`abbey_returned`, in set-aside order).
- Q-B5: the deck is `abbey_deck` (face down, top LAST; its top is face up except while the
  explorer decides ABBEY_CHOICE) above `abbey_returned` (face up). Whenever the face-down part is
  empty and a card must be flipped (continuing, or after an exploration), all returned cards are
  shuffled (chance source 9) into a new face-down deck. With no Abbey card left there, EXPLORE is
  not offered.
- Abbey cards do not count in final scores (Q-E2/Q-E3) nor in the tie-break.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import LOWER_FRAME, SYMBOLS
from fantastiqa_rl.chance import RNG_ABBEY
from fantastiqa_rl.turn_flow import rules as turn_flow

ABBEY_CAP = 7                    # Q-B5: Abbey cards per player (or team)


class AbbeyRules:
    """The Abbey's queries and transitions; the phase tables of `fantastiqa_rl.rules` dispatch
    EXPLORE, ABBEY_MATCH and ABBEY_CHOICE here."""

    # ------------------------------------------------------------------ public queries
    def abbey_held(self, p: int) -> int:
        """Abbey cards held by p's side (summed per team, Q-TM2), toward the goal and the cap."""
        return sum(len(self.abbey[q]) for q in self.team(p))

    def abbey_top(self) -> int:
        """The face-up Abbey card (instance id), or -1: none left, or the top is face down
        while the explorer decides ABBEY_CHOICE."""
        if not self.abbey_deck or self.phase == A.ABBEY_CHOICE:
            return -1
        return self.abbey_deck[-1]

    # ------------------------------------------------------------------ helpers
    def _abbey_matches(self, p) -> list:
        """Hand kinds showing the face-up Abbey card's symbol (Q-B3: no wilds; a double or a
        Curious Companion matches if one of its symbols does)."""
        if not self.abbey_deck:
            return []
        sym = self.g.I_ABBEY_SYMBOL[self.abbey_deck[-1]]
        syms = self.g.K_SYMS
        return [k for k in self._kinds(self.hand[p]) if sym in syms[k]]

    def _why_no_explore(self, p) -> str:
        """Why p may not start exploring now ('' when it may; Q-B2, Q-B5)."""
        if not self.opts["abbey"]:
            return "the Abbey is not in play (option abbey=False)"
        if self.action_used:
            return "the turn action is already used (exploring is the Complete-a-Quest action)"
        if self.position[p] not in LOWER_FRAME:
            return (f"seat {p} stands at position {self.position[p]}; exploring needs one of the "
                    f"positions {list(LOWER_FRAME)} framing the Abbey")
        if self.abbey_held(p) >= ABBEY_CAP:
            return f"{'the team' if self.teams else f'seat {p}'} already holds {ABBEY_CAP} Abbey cards"
        if not self.abbey_deck:
            return "no Abbey card is left to explore"
        if not self._abbey_matches(p):
            sym = SYMBOLS[self.g.I_ABBEY_SYMBOL[self.abbey_deck[-1]]]
            return f"no hand card shows {sym}, the symbol of the face-up Abbey card"
        return ""

    def _can_continue(self, p) -> bool:
        """Q-B4/Q-B5: a card left to flip and held + set aside below the cap."""
        return (self.abbey_held(p) + len(self.abbey_aside) < ABBEY_CAP
                and bool(self.abbey_deck or self.abbey_returned))

    def _abbey_refill(self):
        """Q-B5: with no face-down card left, shuffle the returned cards into a new deck."""
        if not self.abbey_deck and self.abbey_returned:
            self.abbey_deck, self.abbey_returned = self.abbey_returned, []
            self._rng(RNG_ABBEY).shuffle(self.abbey_deck)

    def _abbey_end(self, p, claim: bool):
        """Stop (claim, Q-B4) or fail (return rewards and cards, Q-B4); the action is spent."""
        r = self.abbey_reward
        if claim:
            self.abbey[p] += self.abbey_aside
            self.gems[p] += r[0]
            self.carpets[p] += r[1]
            self.reshuffles[p] += r[2]
        else:
            self.abbey_returned += self.abbey_aside
            self.supply_gems += r[0]
            self.supply_carpets += r[1]
            self.supply_reshuffles += r[2]
        self.abbey_aside, self.abbey_reward = [], [0, 0, 0]
        self.action_used = True
        self.phase = A.MAIN
        self._abbey_refill()
        if claim and turn_flow.goal_reached(self, p):   # Q-B1, Q-E1
            turn_flow.end(self, self.team(p), "goal")

    # ------------------------------------------------------------------ decisions
    def _legal_abbey_match(self, p) -> list:
        L = self.g.layout
        return [L.hand + k for k in self._abbey_matches(p)] + ([] if self.abbey_aside else [A.CANCEL])

    def _legal_abbey_choice(self, p) -> list:
        L = self.g.layout
        return [L.abbey_stop] + ([L.abbey_continue] if self._can_continue(p) else [])

    def _start_exploring(self, p):
        """EXPLORE (the turn action C, Q-B2; legal only with the Abbey)."""
        self.abbey_aside, self.abbey_reward = [], [0, 0, 0]
        self.phase = A.ABBEY_MATCH

    def _apply_abbey_match(self, p, a):
        if a == A.CANCEL:
            self.phase = A.MAIN
            return
        g = self.g                                  # Q-B3
        i = self._find(self.hand[p], a - g.layout.hand)
        self.hand[p].remove(i)
        self.discard[p].append(i)
        c = self.abbey_deck.pop()
        self.abbey_aside.append(c)
        gems, carpets, resh = g.I_ABBEY_REWARD[c]
        self.abbey_reward[0] += self._take("supply_gems", gems)
        self.abbey_reward[1] += self._take("supply_carpets", carpets)
        self.abbey_reward[2] += self._take("supply_reshuffles", resh)
        self._draw(p, g.I_ABBEY_DRAW[c], self.hand[p])
        self.phase = A.ABBEY_CHOICE

    def _apply_abbey_choice(self, p, a):
        if a == self.g.layout.abbey_stop:
            self._abbey_end(p, claim=True)
            return
        self._abbey_refill()                        # flip the next card (Q-B4, Q-B5)
        self.phase = A.ABBEY_MATCH
        if not self._abbey_matches(p):
            self._abbey_end(p, claim=False)
