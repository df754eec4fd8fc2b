"""The flow of a Fantastiqa game, as a mixin of `FantastiqaState`: the deal and the setup (Q-S1..Q-S6),
the start of a turn with the board replenished (Q-R1..Q-R4), the end of a turn (Q-T1), drawing
(Q-X1), and the end of the game (Q-E1..Q-E5, Q-TM2).
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import BAZAAR, CHEST, NUM_OPEN_QUESTS, NUM_POSITIONS, NUM_SPACES, TOWER
from fantastiqa_rl.chance import (RNG_ABBEY, RNG_BAZAAR, RNG_CREATURE, RNG_QUEST, RNG_SEAT0, RNG_SETUP,
                                  RNG_TOWER)
from fantastiqa_rl.powers import held_in_play

HAND_SIZE = 5                    # Q-S6, Q-T1: cards in hand after the draw
START_TOKENS = 3                 # Q-S3: gems, flying carpets and reshuffle tokens of each seat
RAVEN_GEMS = 5                   # Q-R3: the Raven takes half from the richest holding this many
RAVEN_DEPTH = 10                 # Q-R3: a Raven of the game-start fill goes into this many top cards


class TurnFlow:
    """Setup, turns and the end of the game; the decisions themselves are `fantastiqa_rl.rules`."""

    def _setup(self):
        """The deal (Q-S2, Q-S3): board, decks, supply, starting cards and tokens; then the setup
        decisions start with the last seat (Q-S4)."""
        g, n = self.g, self.n
        r = self._rng(RNG_SETUP)
        self.region_at = tuple(int(x) for x in r.permutation(NUM_POSITIONS))
        self.statue_at = tuple(int(x) for x in r.permutation([TOWER, TOWER, BAZAAR, BAZAAR, CHEST, CHEST]))
        self.name_pos = tuple(self.region_at.index(x) for x in range(NUM_POSITIONS))
        # Q-S2: sections shuffled one by one; section I on top (= end of the list).
        self.creature_deck = []
        for sec in sorted(g.sections, reverse=True):
            part = list(g.sections[sec])
            self._rng(RNG_CREATURE).shuffle(part)
            self.creature_deck += part
        self.artifact_deck, self.beast_deck, self.quest_deck = list(g.artifacts), list(g.beasts), list(g.quests)
        self._rng(RNG_TOWER).shuffle(self.artifact_deck)
        self._rng(RNG_BAZAAR).shuffle(self.beast_deck)
        self._rng(RNG_QUEST).shuffle(self.quest_deck)
        self.board, self.board_gems = [-1] * NUM_SPACES, [0] * NUM_SPACES
        self.open_quests, self.open_bonus = [-1] * NUM_OPEN_QUESTS, [0] * NUM_OPEN_QUESTS
        sup = g.cs.supply
        self.supply_gems, self.supply_carpets = sup["gems"], sup["carpets"]
        self.supply_reshuffles, self.supply_bonus_tokens = sup["reshuffles"], sup["bonus_tokens"]
        self.dragons = list(g.dragon_supply)
        self.abbey_deck, self.abbey_returned, self.abbey_aside, self.abbey_reward = [], [], [], [0, 0, 0]
        if self.opts["abbey"]:                      # Q-B1: the Abbey deck, top card face up
            self.box = list(g.box)
            self.abbey_deck = list(g.abbey)
            self._rng(RNG_ABBEY).shuffle(self.abbey_deck)
        else:
            self.box = list(g.box) + list(g.abbey)  # abbey=False: the Abbey cards stay boxed
        self.deck = [[] for _ in range(n)]
        self.hand = [list(g.start_cards[p]) for p in range(n)]   # held aside until Q-S6
        self.discard = [[] for _ in range(n)]
        self.quests = [[] for _ in range(n)]
        self.completed = [[] for _ in range(n)]
        self.abbey = [[] for _ in range(n)]
        self.committed = [{} for _ in range(n)]
        self.scores, self.bonus_tokens = [0] * n, [0] * n
        self.gems, self.carpets, self.reshuffles = [0] * n, [0] * n, [0] * n
        for p in range(n):     # Q-S3, from the general supply
            self.gems[p] = self._take("supply_gems", START_TOKENS)
            self.carpets[p] = self._take("supply_carpets", START_TOKENS)
            self.reshuffles[p] = self._take("supply_reshuffles", START_TOKENS)
        self.position, self.quest_token = [-1] * n, [-1] * n
        self.offer_quests, self.offer_artifacts = list(g.start_quests), list(g.start_artifacts)
        self.turns, self.cur, self.phase = 0, n - 1, A.SETUP_QUEST     # Q-S4: reverse seat order
        self.winners_ = None
        self.end_reason = ""
        self._reset_turn()
        self._legal = None

    def _reset_turn(self):
        self.action_used, self.plus_statue, self.visited, self.prev = False, 0, 0, -1
        self.target, self.count, self.key, self.reason, self.ret = -1, 0, False, 0, A.MAIN
        self.boosted, self.powered, self.adventure, self.pay = [], [], [], []
        self.revealed, self.effects, self.in_play, self.release_from_discard = [], [], [], []
        self.token_left = []      # open quests the mover's token left this turn (mark_return="forbid")
        self.cancels = 0          # CANCELs taken this turn (Q-T2's budget, turn_loops="forbid")

    def _draw(self, p, n, dest):
        """Draw n from p's deck into dest; reshuffle the discard when empty (Q-X1)."""
        deck = self.deck[p]
        for _ in range(n):
            if not deck:
                if not self.discard[p]:
                    return
                deck += self.discard[p]
                self.discard[p] = []
                self._rng(RNG_SEAT0 + p).shuffle(deck)
            dest.append(deck.pop())

    def _finish_setup(self):
        """Q-S5, Q-S6, then seat 0's first turn."""
        r = self._rng(RNG_SETUP)
        rest = list(self.offer_quests)
        r.shuffle(rest)
        for j in range(NUM_OPEN_QUESTS):
            self.open_quests[j] = rest.pop()
            self.open_bonus[j] = self._take("supply_bonus_tokens", 1)
        self.box += rest + self.offer_artifacts
        self.offer_quests, self.offer_artifacts = [], []
        for p in range(self.n):
            self.deck[p] = self.hand[p]
            self.hand[p] = []
            self._rng(RNG_SEAT0 + p).shuffle(self.deck[p])
            self._draw(p, HAND_SIZE, self.hand[p])
        self.cur = 0
        self._start_turn(game_start=True)

    def _start_turn(self, game_start):
        self._reset_turn()
        self._replenish(game_start)
        if self.phase != A.TERMINAL:
            self.phase = A.MAIN

    def _replenish(self, game_start):
        """Q-R1..Q-R4."""
        g, deck = self.g, self.creature_deck
        aside = []
        for c in range(NUM_SPACES):
            while self.board[c] < 0:
                if not deck:                        # Q-R2
                    self._end_by_score("creature deck empty")
                    return
                i = deck.pop()
                if g.I_IS_RAVEN[i]:
                    if game_start:
                        aside.append(i)
                    else:
                        self._raven()
                        self.box.append(i)
                    continue
                self.board[c] = i
                if g.K_GEM[g.I_HAND_KIND[i]]:
                    self.board_gems[c] = self._take("supply_gems", 1)
        if aside:                                   # Q-R3: into the top 10 cards
            t = min(RAVEN_DEPTH, len(deck))
            top = deck[len(deck) - t:] + aside
            self._rng(RNG_CREATURE).shuffle(top)
            del deck[len(deck) - t:]
            deck += top
        for j in range(NUM_OPEN_QUESTS):                            # Q-R4
            if self.open_quests[j] < 0 and self.quest_deck:
                self.open_quests[j] = self.quest_deck.pop()
                self.open_bonus[j] = self._take("supply_bonus_tokens", 1)

    def _raven(self):
        """Q-R3: every seat tied for the most gems, with RAVEN_GEMS or more, loses half to the supply."""
        mx = max(self.gems)
        if mx >= RAVEN_GEMS:
            for o in range(self.n):
                if self.gems[o] == mx:
                    self.gems[o] -= mx // 2
                    self.supply_gems += mx // 2

    def _end_turn(self, p):
        if self.powered:                            # the cards used for their power go now (Q-T1)
            for i in self.powered:
                if held_in_play(self.opts, self.g, i):
                    self.discard[p].append(i)
                elif i in self.hand[p]:             # card_use="both": it stayed in hand
                    self.hand[p].remove(i)
                    self.discard[p].append(i)
            self.powered = []
        if self.hand[p]:
            self.phase = A.END_DISCARD
        else:
            self._finish_turn(p)

    def _finish_turn(self, p):
        n = HAND_SIZE - len(self.hand[p]) if self.opts["draw_rule"] == "up_to_5" else HAND_SIZE
        self._draw(p, max(0, n), self.hand[p])
        self.turns += 1
        limit = self.opts["turn_limit"]
        if limit is not None and self.turns >= limit * self.n:      # Q-E5
            self._end_by_score("turn_limit")
            return
        self.cur = (p + 1) % self.n
        self._start_turn(game_start=False)

    def _goal_reached(self, p) -> bool:
        """Q-E1 / Q-B1 / Q-TM2: p's side meets a goal line."""
        pts, lines = self.side_score(p), self.goal_lines
        if len(lines) == 1 and lines[0][1] == 0:
            return pts >= lines[0][0]
        ab = self.abbey_held(p)
        return any(pts >= a and ab >= b for a, b in lines)

    def _end_by_score(self, reason):
        """Q-E2..Q-E4 (the creature deck ran out) and Q-E5 (the turn limit): highest final score;
        then completed quests, then gems; else shared."""
        fs = self.final_scores()
        keys = [tuple(sum(x) for x in zip(*((fs[q], len(self.completed[q]), self.gems[q])
                                             for q in self.team(p)))) for p in range(self.n)]
        best = max(keys)
        self._end([p for p in range(self.n) if keys[p] == best], reason)

    def _end(self, winners, reason):
        self.winners_ = winners
        self.end_reason = reason
        self.phase = A.TERMINAL
        self._legal = None
