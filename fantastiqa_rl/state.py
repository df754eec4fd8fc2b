"""FantastiqaState: the rules core of Fantastiqa (base game), pure Python + numpy.

Implements docs/rules/fantastiqa.md: the base game, the Abandoned Abbey expansion (Q-B,
option `abbey=True`) and the team variant (Q-TM, option `teams=True`).
Every choice is one step of the deciding player in one flat action space (see
`fantastiqa_rl.actions` for the action table: ids, ranges and what they mean per decision;
its size is `FantastiqaState.num_actions_for(card_set, abbey)`, 405 for the STAND-IN set, 408
with the Abbey). The
decision in progress is `state.phase` / `state.phase_name` (one of `actions.PHASES`).

Layers: `cards.py` (card file format, loader, validation) -> `game.py` (static per-game card
instance tables) -> `payment.py` (payment values and the payment mask) -> this module (rules).

Usage:
    s = FantastiqaState.new(num_players=2, seed=0)
    while not s.is_terminal():
        s.apply(int(s.legal_actions()[0]))
    s.winners(), s.returns()

Options (keyword arguments of `new`, checked by `fantastiqa_rl.options`; a bad value raises
ValueError naming the allowed values):
    goal             "short" (default) | "long"                    Q-S1
    card_set         None (the STAND-IN set) | path to a card file (TOML/JSON)
    adventure_path   "simple" (default, ASSUMED: never re-enter a region of this adventure)
                     | "loops" (re-entering allowed, but not the region just left)        Q-A3
    fly_in_adventure True (default: the rulebook lets cards use powers while adventuring:
                     a FLY card / carpet may be a path step) | False (strict: none)    A
    bought_to        "discard" (default, ASSUMED) | "hand"                                Q-V1
    card_use         "symbol_or_power" (default, ASSUMED) | "both": a card played for its
                     power stays in hand for its symbols and is discarded at end of turn  Q-F1
    draw_rule        "up_to_5" (default, ASSUMED) | "draw_5"                              Q-T1
    abbey            False (default) | True: the Abandoned Abbey expansion (Q-B1..Q-B5)
    teams            False (default) | True: the team variant, 4 players only (Q-TM1..Q-TM4)
    turn_limit       100 (default, ENGINE rule) | an int >= 1 | None (no limit, the rulebook's
                     unbounded game): after that many completed turns per player the game
                     ends, terminal, scored as a creature-deck end, end_reason "turn_limit" Q-E5
    mark_return      "forbid" (default, ENGINE ASSUMPTION, not in the spec) | "allow"     Q-F2
                     "forbid": MARK may not move your token back to an open quest it left
                     this turn. The spec sets no limit on MARK, so "allow" lets a turn loop
                     forever (MARK A, MARK B, MARK A, ...), which a learning agent can fall
                     into. Nothing is lost: returning to a quest left this turn leaves it
                     empty, which WITHDRAW of its cards (and discarding at end of turn)
                     reaches without moving, so every end-of-turn position stays reachable.

Chance sources: one numpy Generator per source, spawned from the seed (`fantastiqa_rl.chance`).

ASSUMED rules and engine readings (besides the options above):
- Statues: two of each kind; regions and statues dealt at random (no free placement).
- Q-V1: unbought statue cards go to the bottom of their deck, to be drawn again in draw order.
  Drawing at a statue is allowed whether or not you can afford anything.
- Q-F2: cards may be committed only to a personal quest or to the open quest under your token,
  and only while that quest still lacks one of the card's symbols (counting what is committed);
  the token must be on an open quest to hold cards. MARK on another open quest moves the token
  (its cards go to your discard).
- Q-V2: cards to release are chosen one at a time (at most 3, at most your gems), then
  CONFIRM releases them all; CANCEL returns them (a KEY that opened the release is spent).
- Free actions are one level down: MAIN offers END, the turn actions and FREE_ACTION, which
  opens the FREE_MENU decision listing the free actions (see fantastiqa_rl.actions).
- Turn actions: ADVENTURE (A), VISIT_STATUE then STATUE_OPTION (B), QUEST q (C); the rules'
  PASS then END is one END_TURN (free actions are the same before and after the action).
- Q-F1: a card played for its power goes to the discard pile at once (before its effect).
  A Looking Glass doubles one copy in hand; payments use a doubled copy first, every other move
  of that kind (commit, discard, play, release, give) an undoubled copy first.
- ADVENTURE is offered only if some adjacent creature can be paid with the hand, and a creature
  space only if the hand can pay it (payment is monotone, so no dead ends).
- A quest kind available both as a personal quest and an open quest resolves to the personal one.
- End of turn with an empty hand skips the DISCARD decision.
- Returns: k winners of N get +1/k, losers -1/(N-k); if everyone wins, all get 0.
- Q-E2 tie-break (Q-E4): final score, then completed quests, then gems, then a shared win.

The Abandoned Abbey (abbey=True, Q-B1..Q-B5): its rules and the engine's readings are in
`fantastiqa_rl.abbey`.

Team variant (teams=True, num_players=4 only):
- Seats 0+2 play 1+3 (Q-TM1); turns keep seat order. The goal (or the goal lines) is the
  2-player one; scores and Abbey cards are summed per team for the goal and the 7-card cap; a
  team whose sum reaches the goal wins at once (both seats are winners) (Q-TM2).
- On a creature-deck end the team keys (summed final scores, then summed completed quests, then
  summed gems) decide; a tie of the teams is a shared win (Q-TM2, Q-E4).
- DRAGON, the Peaceful Dragon card, Bitter Brew and Rogue's Purse target opponents only (Q-TM3).
- Both seats of the winning team are winners, so `returns()` gives partners identical values:
  +1/2 each winner, -1/2 each loser (Q-TM4). `partner(p)`, `team_of(p)` and `team(p)` give the
  structure; a partner's hand is never shown to the other partner (observation).

State dict: `to_dict()` / `from_dict(d)` (JSON-safe, exact round trip, validated on load); the keys
are documented in `fantastiqa_rl.serialization`, and the state's fields carry the same names.
"""
from __future__ import annotations

import os

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey import ABBEY_CAP, AbbeyRules  # noqa: F401 (ABBEY_CAP re-exported)
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import (BAZAAR, CHEST, LOWER_FRAME, NEIGHBOURS, NUM_POSITIONS, P_DRAGON,
                                 P_EFFECT, P_FLY, P_GEM, P_KEY, P_NONE, P_PEACEFUL, P_PLUS,
                                 REGIONS, STATUES, SYMBOLS, TOWER)
from fantastiqa_rl.chance import (NUM_CHANCE_SOURCES, RNG_ABBEY, RNG_BAZAAR, RNG_CREATURE, RNG_QUEST,
                                  RNG_SEAT0, RNG_SETUP, RNG_TOWER, STATUE_RNG)  # noqa: F401 (re-exported)
from fantastiqa_rl.game import get_game
from fantastiqa_rl.options import DEFAULT_TURN_LIMIT, DEFAULTS, OPTIONS, check_options  # noqa: F401 (re-exported)
from fantastiqa_rl.payment import can_meet, offered_kinds
from fantastiqa_rl.serialization import state_from_dict, state_to_dict
from fantastiqa_rl.text import action_to_string, describe, why_illegal
from fantastiqa_rl.turn_flow import HAND_SIZE, TurnFlow  # noqa: F401 (HAND_SIZE re-exported)

# TARGET_SEAT reasons
R_PEACEFUL, R_DRAGON, R_BREW = 0, 1, 2

# Mutable containers copied by `clone` (plain values are shared): lists, per-player lists of lists;
# the committed dicts are copied apart.
_LISTS = ("board", "board_gems", "creature_deck", "artifact_deck", "beast_deck", "quest_deck",
          "open_quests", "open_bonus", "dragons", "box", "scores", "bonus_tokens", "gems", "carpets",
          "reshuffles", "position", "quest_token", "offer_quests", "offer_artifacts", "boosted",
          "powered", "adventure", "pay", "revealed", "effects", "in_play", "release_from_discard",
          "token_left", "abbey_deck", "abbey_returned", "abbey_aside", "abbey_reward")
_NESTED = ("deck", "hand", "discard", "quests", "completed", "abbey")


class FantastiqaState(TurnFlow, AbbeyRules):
    """One Fantastiqa game position. Create with `FantastiqaState.new(...)`."""

    # ------------------------------------------------------------------ construction
    @staticmethod
    def num_actions_for(card_set: str | None = None, abbey: bool = False) -> int:
        """Size of the flat action space for a card file (None: the STAND-IN set); the Abbey
        adds 3 actions after the QUEST range."""
        return get_game(card_set, 2, bool(abbey)).layout.n

    @classmethod
    def new(cls, num_players: int = 2, seed=None, goal: str = "short", card_set: str | None = None,
            **rule_options) -> "FantastiqaState":
        if isinstance(num_players, bool) or num_players not in (2, 3, 4):
            raise ValueError(f"bad num_players {num_players!r}; allowed values: [2, 3, 4]")
        if goal not in ("short", "long"):
            raise ValueError(f"bad goal {goal!r}; allowed values: ['short', 'long']")
        if card_set is not None and not isinstance(card_set, str):
            raise ValueError(f"bad card_set {card_set!r}; allowed values: None or a file path")
        opts = check_options(rule_options)
        if opts["teams"] and num_players != 4:
            raise ValueError(f"bad num_players {num_players!r} for teams=True; allowed values: [4]")
        if card_set is not None:
            card_set = os.path.abspath(card_set)     # to_dict stays valid from any directory
        g = get_game(card_set, num_players, opts["abbey"])
        if opts["abbey"] and not g.abbey:
            raise ValueError(f"abbey=True needs Abbey cards (type 'abbey'); card file {g.cs.path} has none")
        s = cls.__new__(cls)
        s.g, s.n, s.opts = g, num_players, opts
        s.card_set = card_set
        gp = 2 if opts["teams"] else num_players    # Q-TM2: the 2-player goal
        s.goal = g.cs.goals[goal][gp]
        s.goal_lines = tuple(tuple(x) for x in g.cs.abbey_goals[goal][gp]) if opts["abbey"] \
            else ((s.goal, 0),)
        s.goal_name = goal
        s._rngs = [np.random.Generator(np.random.PCG64(ss))
                   for ss in np.random.SeedSequence(seed).spawn(NUM_CHANCE_SOURCES)]
        s._own = [True] * NUM_CHANCE_SOURCES
        s._setup()
        return s

    def _rng(self, i: int) -> np.random.Generator:
        # Generators are shared between clones until one of them draws (copy on write).
        if not self._own[i]:
            old = self._rngs[i]
            new = np.random.Generator(np.random.PCG64(0))
            new.bit_generator.state = old.bit_generator.state
            self._rngs = list(self._rngs)
            self._rngs[i] = new
            self._own[i] = True
        return self._rngs[i]

    # ------------------------------------------------------------------ public API
    @property
    def num_players(self) -> int:
        return self.n

    @property
    def num_actions(self) -> int:
        return self.g.layout.n

    @property
    def layout(self) -> A.ActionLayout:
        return self.g.layout

    @property
    def current_player(self) -> int:
        return -1 if self.phase == A.TERMINAL else self.cur

    @property
    def phase_name(self) -> str:
        return PHASES[self.phase]

    @property
    def options(self) -> dict:
        return dict(self.opts)

    def is_terminal(self) -> bool:
        return self.phase == A.TERMINAL

    def winners(self) -> list:
        return list(self.winners_) if self.winners_ is not None else []

    def returns(self) -> np.ndarray:
        r = np.zeros(self.n, dtype=np.float64)
        w = self.winners_
        if w and len(w) < self.n:
            r[:] = -1.0 / (self.n - len(w))
            r[list(w)] = 1.0 / len(w)
        return r

    # ------------------------------------------------------------------ teams, Abbey, goal
    @property
    def teams(self) -> bool:
        return self.opts["teams"]

    def team_of(self, p: int) -> int:
        """Team index of seat p (0: seats 0+2, 1: seats 1+3); without teams, p itself."""
        return p % 2 if self.opts["teams"] else p

    def team(self, p: int) -> list:
        """Seats on p's side (Q-TM1): [p] without teams."""
        return [p % 2, p % 2 + 2] if self.opts["teams"] else [p]

    def partner(self, p: int) -> int:
        """p's partner seat, or -1 without teams."""
        return (p + 2) % 4 if self.opts["teams"] else -1

    def is_opponent(self, p: int, o: int) -> bool:
        """Q-TM3: o may be targeted by p (never p itself, never p's partner)."""
        return o != p and not (self.opts["teams"] and (o - p) % 2 == 0)

    def side_score(self, p: int) -> int:
        """Quest points of p's side (summed per team)."""
        return sum(self.scores[q] for q in self.team(p))

    def goal_lines_met(self, p: int) -> list:
        """Indices of the goal lines (points, Abbey cards) p's side meets now."""
        pts, ab = self.side_score(p), self.abbey_held(p)
        return [j for j, (a, b) in enumerate(self.goal_lines) if pts >= a and ab >= b]

    def final_scores(self) -> list:
        """Q-E3: score minus the points of personal quests not completed."""
        QP, QK = self.g.Q_POINTS, self.g.I_QK
        return [self.scores[p] - sum(QP[QK[q]] for q in self.quests[p]) for p in range(self.n)]

    def card_name(self, i: int) -> str:
        return self.g.card_name(i)

    def clone(self) -> "FantastiqaState":
        c = object.__new__(FantastiqaState)
        d = self.__dict__
        cd = c.__dict__
        cd.update(d)
        for f in _LISTS:
            cd[f] = d[f][:]
        for f in _NESTED:
            cd[f] = [x[:] for x in d[f]]
        cd["committed"] = [{q: v[:] for q, v in m.items()} for m in d["committed"]]
        if self.winners_ is not None:
            cd["winners_"] = list(self.winners_)
        self._own = [False] * NUM_CHANCE_SOURCES
        cd["_own"] = [False] * NUM_CHANCE_SOURCES
        return c

    def legal_actions(self) -> np.ndarray:
        if self._legal is None:
            acts = sorted(self._legal_list())
            arr = np.array(acts, dtype=np.int64)
            arr.flags.writeable = False  # shared with clones: callers must not mutate it (as Fae)
            self._legal = (arr, frozenset(acts))
        return self._legal[0]

    def legal_set(self) -> frozenset:
        self.legal_actions()
        return self._legal[1]

    def apply(self, action) -> None:
        """Apply a legal action; an illegal one raises ValueError and leaves the state unchanged."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            # as Fae: True, 1.0, np.array(1), Fraction(1), Decimal(1) are not actions
            raise ValueError(f"action must be an int in 0..{self.g.layout.n - 1}; got {action!r} "
                             f"({type(action).__name__})")
        a = int(action)
        if a not in self.legal_set():
            raise ValueError(f"illegal action {a} ({self.action_to_string(a)}): {self._why_illegal(a)}")
        self._legal = None
        self._do(a)

    # ------------------------------------------------------------------ helpers
    def _hk(self, i):
        return self.g.I_HK[i]

    def _kinds(self, cards) -> list:
        """Distinct kinds among these instances."""
        HK = self.g.I_HK
        return list({HK[i] for i in cards})

    def _find(self, cards, k, prefer_boosted=False):
        """An instance of kind k in cards: undoubled copies first (doubled first for payments)."""
        HK, bo = self.g.I_HK, self.boosted
        best = -1
        for i in cards:
            if HK[i] == k:
                if not bo or (i in bo) == prefer_boosted:
                    return i
                best = i
        return best

    def _profile(self, i):
        k = self.g.I_HK[i]
        return self.g.K_PROF2[k] if i in self.boosted else self.g.K_PROF[k]

    def _hand_items(self, cards) -> dict:
        """kind -> tuple of payment profiles in use order (doubled copies first)."""
        items = {}
        bo = self.boosted
        for i in cards:
            k = self.g.I_HK[i]
            if self.g.K_PROF[k] is None:
                continue
            items.setdefault(k, []).append(i)
        out = {}
        for k, insts in items.items():
            if bo:
                insts.sort(key=lambda i: i not in bo)
            out[k] = tuple(self._profile(i) for i in insts)
        return out

    def _profiles(self, cards) -> tuple:
        return tuple(sorted(p for p in (self._profile(i) for i in cards) if p is not None))

    def _creature_req(self, space):
        k = self.g.I_HK[self.board[space]]
        return ("c", self.g.K_VULN[k], self.g.K_STRENGTH[k])

    def _quest_req(self, q_inst):
        return ("q", self.g.Q_NEEDS[self.g.I_QK[q_inst]])

    def _moves(self, p, adventure=False, visited=None, prev=None):
        """(space, dest) pairs a FLY / carpet / subdue may use from p's position (Q-M1); in an
        adventure only into regions the path may enter (Q-A3)."""
        out = []
        if adventure:
            visited = self.visited if visited is None else visited
            prev = self.prev if prev is None else prev
            simple = self.opts["adventure_path"] == "simple"
        for c, dest in NEIGHBOURS[self.position[p]]:
            if self.board[c] < 0:
                continue
            if adventure and ((visited >> dest) & 1 if simple else dest == prev):
                continue
            out.append((c, dest))
        return out

    def _playable_kinds(self, p):
        """Hand kinds with a copy not yet played for its power (card_use="both")."""
        pw = self.powered
        if not pw:
            return self._kinds(self.hand[p])
        return self._kinds([i for i in self.hand[p] if i not in pw])

    def _pay_moves(self, p, visited=None, prev=None):
        """Adventure steps the hand can pay for."""
        hand_prof = self._profiles(self.hand[p])
        return [(c, d) for c, d in self._moves(p, True, visited, prev)
                if can_meet(self._creature_req(c), hand_prof)]

    def _opponents_here(self, p):
        pos = self.position[p]
        return [o for o in range(self.n) if self.is_opponent(p, o) and self.position[o] == pos]

    def _statue_options(self, p):
        """Statue options (Q-V1..Q-V3) available at p's region."""
        out = []
        st = self.statue_at[self.position[p]]
        deck = (self.artifact_deck, self.beast_deck, self.quest_deck)[st]
        if deck and not (st == CHEST and len(self.quests[p]) >= 3):
            out.append(A.STATUE_DRAW)
        if self.gems[p] >= 1 and (self.hand[p] or self.discard[p]):
            out.append(A.STATUE_RELEASE)
        if self.gems[p] >= 2:
            out.append(A.STATUE_TELEPORT)
        return out

    def _commit_targets(self, p, k):
        """Quest instances a hand card of kind k may be committed to (ASSUMED: only while the
        quest still lacks one of the card's symbols, counting the cards already committed)."""
        g = self.g
        syms = g.K_SYMS[k]
        out = []
        for q, cards in self.committed[p].items():
            need = g.Q_NEEDS[g.I_QK[q]]
            for s, cnt in need:
                if s in syms:
                    have = 0
                    for i in cards:
                        a, b, m = g.K_PROF[g.I_HK[i]]
                        if a == s or b == s:
                            have += m
                    if have < cnt:
                        out.append(q)
                        break
        return out

    def _completable(self, p):
        """Quest instances p may complete now (Q-Q1, Q-Q2), personal ones first."""
        g = self.g
        name = self.region_at[self.position[p]]
        out = []
        hand_prof = None
        for q in self.quests[p] + [q for q in self.open_quests if q >= 0]:
            if g.Q_REGION[g.I_QK[q]] != name:
                continue
            if hand_prof is None:
                hand_prof = [self._profile(i) for i in self.hand[p]]
            profs = [x for x in hand_prof if x is not None]
            profs += [self._profile(i) for i in self.committed[p].get(q, ())]
            profs = [x for x in profs if x is not None]
            if can_meet(self._quest_req(q), tuple(sorted(profs))):
                out.append(q)
        return out

    def _power_ok(self, p, k):
        pw = self.g.K_POWER[k]
        if pw == P_NONE:
            return False
        if pw == P_FLY:
            return bool(self._moves(p, self.phase == A.ADV_MOVE))
        if pw == P_KEY:
            return bool(self._statue_options(p))
        if pw == P_DRAGON:
            return bool(self.dragons) and bool(self._opponents_here(p))
        if pw == P_PEACEFUL:
            return bool(self._opponents_here(p))
        return True   # PLUS_STATUE, GEM, EFFECT

    # ------------------------------------------------------------------ legal actions
    def _legal_list(self) -> list:
        ph, p, L, g = self.phase, self.cur, self.g.layout, self.g
        if ph == A.MAIN:
            return self._legal_main(p)
        if ph == A.TERMINAL:
            return []
        if ph == A.FREE_MENU:
            return self._legal_free(p)
        if ph == A.SETUP_QUEST:
            return list({L.quest + g.I_QK[q] for q in self.offer_quests})
        if ph == A.SETUP_ARTIFACT:
            return list({L.pick + g.I_HK[i] for i in self.offer_artifacts})
        if ph == A.SETUP_PLACE:
            taken = set(self.position)
            return [A.REGION + r for r in range(NUM_POSITIONS) if r not in taken]
        if ph == A.ADV_MOVE:
            out = [A.REGION + d for _, d in self._pay_moves(p)]
            out.append(A.DONE if self.count else A.CANCEL)
            if self.opts["fly_in_adventure"] and self._moves(p, True):
                if self.carpets[p]:
                    out.append(A.CARPET)
                out += [L.hand + k for k in self._playable_kinds(p) if g.K_POWER[k] == P_FLY]
            return out
        if ph in (A.ADV_PAY, A.QUEST_PAY):
            if ph == A.ADV_PAY:
                req = self._creature_req(self.target)
                sel = [self._profile(i) for i in self.pay]
            else:
                req = self._quest_req(self.target)
                sel = [self._profile(i) for i in self.pay + self.committed[p].get(self.target, [])]
            sel = [x for x in sel if x is not None]
            out = [L.hand + k for k in offered_kinds(req, sel, self._hand_items(self.hand[p]))]
            if can_meet(req, tuple(sorted(sel))):
                out.append(A.CONFIRM)
            out.append(A.CANCEL)
            return out
        if ph == A.END_DISCARD:
            return [A.DONE] + [L.hand + k for k in self._kinds(self.hand[p])]
        if ph == A.BUY:
            gems, cost = self.gems[p], g.K_COST
            return [A.DONE] + [L.pick + k for k in self._kinds(self.revealed) if cost[k] <= gems]
        if ph == A.CHEST:
            out = [A.DONE] if self.count else []
            if len(self.quests[p]) < 3:
                out += list({L.quest + g.I_QK[q] for q in self.revealed})
            return out
        if ph == A.RELEASE:                         # choose up to 3, then CONFIRM (or CANCEL)
            out = [A.CANCEL]
            n = len(self.pay) + len(self.release_from_discard)
            if n:
                out.append(A.CONFIRM)
            if n < 3 and n < self.gems[p]:
                out += [L.hand + k for k in self._kinds(self.hand[p])]
                out += [L.pick + k for k in self._kinds(self.discard[p])]
            return out
        if ph == A.MOVE_DEST:
            return [A.REGION + d for _, d in self._moves(p, self.ret == A.ADV_MOVE)]
        if ph == A.TARGET_SEAT:
            opp = self._opponents_here(p) if self.reason != R_BREW else [o for o in range(self.n)
                                                                        if self.is_opponent(p, o)]
            return [A.SEAT + o for o in opp]
        if ph == A.STATUE_OPTION:
            return self._statue_options(p) + ([] if self.key else [A.CANCEL])
        if ph == A.COMMIT_TARGET:
            return list({L.quest + g.I_QK[q] for q in self._commit_targets(p, self.target)})
        if ph == A.WITHDRAW_FROM:
            return list({L.quest + g.I_QK[q] for q, cards in self.committed[p].items()
                         if any(g.I_HK[i] == self.target for i in cards)})
        if ph == A.GLASS:
            return [L.hand + k for k in self._kinds([i for i in self.hand[p] if i not in self.boosted])
                    if g.K_PROF[k] is not None]
        if ph == A.BELL:
            return [L.pick + k for k in self._kinds(self.revealed)]
        if ph == A.BREW_CARD:
            return ([L.hand + k for k in self._kinds(self.hand[p])]
                    + [L.pick + k for k in self._kinds(self.discard[p])])
        if ph == A.WARDROBE:
            return [A.SPACE + c for c in range(7) if self.board[c] >= 0 and c != self.target]
        if ph == A.ABBEY_MATCH:
            return self._legal_abbey_match(p)
        if ph == A.ABBEY_CHOICE:
            return self._legal_abbey_choice(p)
        raise AssertionError(f"unknown phase {ph}")

    def _legal_main(self, p) -> list:
        g, L = self.g, self.g.layout
        out = [A.DONE]
        if not self.action_used:
            if self._pay_moves(p, 1 << self.position[p], -1):
                out.append(A.ADVENTURE)
            if self._statue_options(p):
                out.append(A.VISIT_STATUE)
            out += list({L.quest + g.I_QK[q] for q in self._completable(p)})
            if self.opts["abbey"] and not self._why_no_explore(p):
                out.append(L.explore)
        if self._has_free(p):
            out.append(A.FREE_ACTION)
        return out

    def _has_free(self, p) -> bool:
        # cheap checks first; the full list only when needed
        if (self.carpets[p] and self._moves(p)) or (self.reshuffles[p] and self.discard[p]):
            return True
        if any(q >= 0 and self.quest_token[p] != q and q not in self.token_left for q in self.open_quests):
            return True
        return bool(self._legal_free(p))

    def _legal_free(self, p) -> list:
        """Free actions (Q-F1..Q-F4) of the FREE_MENU decision."""
        g, L = self.g, self.g.layout
        out = []
        if self.carpets[p] and self._moves(p):
            out.append(A.CARPET)
        if self.reshuffles[p] and self.discard[p]:
            out.append(A.RESHUFFLE)
        for j in (0, 1):
            q = self.open_quests[j]
            if q >= 0 and self.quest_token[p] != q and q not in self.token_left:
                out.append(A.MARK + j)
        for k in self._playable_kinds(p):
            if self._power_ok(p, k):
                out.append(L.hand + k)
        if self.committed[p]:
            for k in self._kinds(self.hand[p]):
                if g.K_PROF[k] is not None and self._commit_targets(p, k):
                    out.append(L.commit + k)
            out += list({L.pick + g.I_HK[i] for cards in self.committed[p].values() for i in cards})
        return out

    # ------------------------------------------------------------------ transitions
    def _do(self, a: int):
        ph, p, L, g = self.phase, self.cur, self.g.layout, self.g
        if ph == A.MAIN:
            return self._do_main(p, a)
        if ph == A.FREE_MENU:
            self.phase = A.MAIN
            return self._do_main(p, a)
        if ph == A.SETUP_QUEST:
            q = next(i for i in self.offer_quests if L.quest + g.I_QK[i] == a)
            self.offer_quests.remove(q)
            self.quests[p].append(q)
            self.committed[p][q] = []
            self.phase = A.SETUP_ARTIFACT
        elif ph == A.SETUP_ARTIFACT:
            i = next(i for i in self.offer_artifacts if L.pick + g.I_HK[i] == a)
            self.offer_artifacts.remove(i)
            self.hand[p].append(i)
            self.phase = A.SETUP_PLACE
        elif ph == A.SETUP_PLACE:
            self.position[p] = a - A.REGION
            if p > 0:
                self.cur, self.phase = p - 1, A.SETUP_QUEST
            else:
                self._finish_setup()
        elif ph == A.ADV_MOVE:
            if a == A.DONE:
                self.discard[p] += self.adventure         # Q-A4
                self.adventure = []
                self.action_used = True
                self.phase = A.MAIN
            elif a == A.CANCEL:
                self.phase = A.MAIN
            elif a == A.CARPET:
                self.carpets[p] -= 1
                self.supply_carpets += 1
                self.phase, self.ret = A.MOVE_DEST, A.ADV_MOVE
            elif a >= L.hand:                       # FLY card as a path step
                self._play_card(p, a - L.hand)
                self.phase, self.ret = A.MOVE_DEST, A.ADV_MOVE
            else:
                dest = a - A.REGION
                self.target = next(c for c, d in NEIGHBOURS[self.position[p]] if d == dest)
                self.pay = []
                self.phase = A.ADV_PAY
        elif ph == A.ADV_PAY:
            if a == A.CANCEL:
                self.hand[p] += self.pay
                self.pay = []
                self.phase = A.ADV_MOVE
            elif a == A.CONFIRM:
                c = self.target
                self.adventure.append(self.board[c])
                self.adventure += self.pay
                self.pay = []
                self.board[c] = -1
                self.gems[p] += self.board_gems[c]
                self.board_gems[c] = 0
                self._move_to(p, next(d for cc, d in NEIGHBOURS[self.position[p]] if cc == c))
                self.count += 1
                self.phase = A.ADV_MOVE
            else:
                self._pay_card(p, a - L.hand)
        elif ph == A.QUEST_PAY:
            if a == A.CANCEL:
                self.hand[p] += self.pay
                self.pay = []
                self.phase = A.MAIN
            elif a == A.CONFIRM:
                self._complete_quest(p)
            else:
                self._pay_card(p, a - L.hand)
        elif ph == A.END_DISCARD:
            if a == A.DONE:
                self._finish_turn(p)
            else:
                i = self._find(self.hand[p], a - L.hand)
                self.hand[p].remove(i)
                self.discard[p].append(i)
        elif ph == A.BUY:
            if a == A.DONE:
                self._return_revealed()
                self._statue_done()
            else:
                k = a - L.pick
                i = self._find(self.revealed, k)
                self.revealed.remove(i)
                self.gems[p] -= g.K_COST[k]
                self.supply_gems += g.K_COST[k]
                (self.hand[p] if self.opts["bought_to"] == "hand" else self.discard[p]).append(i)
        elif ph == A.CHEST:
            if a == A.DONE:
                self._return_revealed()
                self._statue_done()
            else:
                q = next(i for i in self.revealed if L.quest + g.I_QK[i] == a)
                self.revealed.remove(q)
                self.quests[p].append(q)
                self.committed[p][q] = []
                self.count += 1
                if not self.revealed:
                    self._statue_done()
        elif ph == A.RELEASE:
            if a == A.CANCEL:                       # nothing released; a KEY is spent anyway
                self.hand[p] += self.pay
                self.discard[p] += self.release_from_discard
                self.pay, self.release_from_discard = [], []
                self.key = False
                self.phase = A.MAIN
            elif a == A.CONFIRM:                    # released cards leave the game, 1 gem each
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
        elif ph == A.MOVE_DEST:
            self._move_to(p, a - A.REGION)
            self.phase = self.ret
            if self.ret == A.MAIN:
                self._run_effects(p)
        elif ph == A.TARGET_SEAT:
            o = a - A.SEAT
            if self.reason == R_DRAGON:
                self.discard[o].append(self.dragons.pop())
            else:
                self.discard[o].append(self.in_play.pop())
            self.phase = A.MAIN
            self._run_effects(p)
        elif ph == A.STATUE_OPTION:
            if a == A.CANCEL:
                self.phase = A.MAIN
            else:
                self._statue(p, a)
        elif ph == A.COMMIT_TARGET:
            q = next(q for q in self.committed[p] if L.quest + g.I_QK[q] == a)
            i = self._find(self.hand[p], self.target)
            self.hand[p].remove(i)
            self.committed[p][q].append(i)
            self.phase = A.MAIN
        elif ph == A.WITHDRAW_FROM:
            q = next(q for q, cards in self.committed[p].items()
                     if L.quest + g.I_QK[q] == a and any(g.I_HK[i] == self.target for i in cards))
            i = self._find(self.committed[p][q], self.target)
            self.committed[p][q].remove(i)
            self.discard[p].append(i)
            self.phase = A.MAIN
        elif ph == A.GLASS:
            k = a - L.hand
            self.boosted.append(next(i for i in self.hand[p] if g.I_HK[i] == k and i not in self.boosted))
            self.phase = A.MAIN
            self._run_effects(p)
        elif ph == A.BELL:
            i = self._find(self.revealed, a - L.pick)
            self.revealed.remove(i)
            self.hand[p].append(i)
            self.count -= 1
            if self.count <= 0 or not self.revealed:
                self.discard[p] += self.revealed
                self.revealed = []
                self.phase = A.MAIN
                self._run_effects(p)
        elif ph == A.BREW_CARD:
            src = self.hand[p] if a < L.commit else self.discard[p]
            i = self._find(src, (a - L.hand) % L.K)
            src.remove(i)
            self.in_play.append(i)
            self.phase, self.reason = A.TARGET_SEAT, R_BREW
        elif ph == A.ABBEY_MATCH:
            self._apply_abbey_match(p, a)
        elif ph == A.ABBEY_CHOICE:
            self._apply_abbey_choice(p, a)
        elif ph == A.WARDROBE:
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
        else:
            raise AssertionError(f"no transition for phase {PHASES[ph]}")

    def _do_main(self, p, a):
        L, g = self.g.layout, self.g
        if a == A.DONE:
            return self._end_turn(p)
        if a == L.explore:                          # Q-B2 (legal only with the Abbey)
            return self._start_exploring(p)
        if a == A.ADVENTURE:
            self.visited, self.prev, self.count = 1 << self.position[p], -1, 0
            self.adventure = []
            self.phase = A.ADV_MOVE
        elif a == A.VISIT_STATUE:
            self.key, self.phase = False, A.STATUE_OPTION
        elif a == A.FREE_ACTION:
            self.phase = A.FREE_MENU
        elif a == A.CARPET:
            self.carpets[p] -= 1
            self.supply_carpets += 1
            self.phase, self.ret = A.MOVE_DEST, A.MAIN
        elif a == A.RESHUFFLE:                      # Q-F4
            self.reshuffles[p] -= 1
            self.supply_reshuffles += 1
            self.deck[p] += self.discard[p]
            self.discard[p] = []
            self._rng(RNG_SEAT0 + p).shuffle(self.deck[p])
        elif a < A.REGION:                          # MARK j (Q-F2)
            q = self.open_quests[a - A.MARK]
            old = self.quest_token[p]
            if old >= 0:
                self.discard[p] += self.committed[p].pop(old)
                if self.opts["mark_return"] == "forbid":
                    self.token_left.append(old)
            self.quest_token[p] = q
            self.committed[p][q] = []
        elif a < L.commit:                          # play for power (Q-F1)
            self._play_card(p, a - L.hand)
        elif a < L.pick:                            # commit (Q-F2); a single target needs no step
            self.target, self.phase = a - L.commit, A.COMMIT_TARGET
            qs = self._commit_targets(p, self.target)
            if len(qs) == 1:
                self._do(L.quest + g.I_QK[qs[0]])
        elif a < L.quest:                           # withdraw (Q-F2)
            self.target, self.phase = a - L.pick, A.WITHDRAW_FROM
            qs = [q for q, cards in self.committed[p].items() if any(g.I_HK[i] == self.target for i in cards)]
            if len(qs) == 1:
                self._do(L.quest + g.I_QK[qs[0]])
        else:
            q = a - L.quest
            self.target = next(i for i in self._completable(p) if g.I_QK[i] == q)
            self.pay = []
            self.phase = A.QUEST_PAY

    def _pay_card(self, p, k):
        i = self._find(self.hand[p], k, prefer_boosted=True)
        self.hand[p].remove(i)
        self.pay.append(i)

    def _move_to(self, p, dest):
        self.prev = self.position[p]
        self.position[p] = dest
        self.visited |= 1 << dest

    def _play_card(self, p, k):
        """Play a hand card of kind k for its power (Q-F1)."""
        g = self.g
        hand = self.hand[p]
        if self.opts["card_use"] == "both" and g.K_PROF[k] is not None:
            i = next(i for i in hand if g.I_HK[i] == k and i not in self.powered)
            self.powered.append(i)                  # stays in hand for its symbols
        else:
            i = self._find(hand, k)
            hand.remove(i)
            if g.K_POWER[k] != P_PEACEFUL:
                self.discard[p].append(i)
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
                if any(self.g.K_PROF[self.g.I_HK[i]] is not None and i not in self.boosted
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

    def _statue(self, p, a):
        """Start a statue option (turn action B, or the KEY power when self.key)."""
        if a == A.STATUE_DRAW:                      # Q-V1
            st = self.statue_at[self.position[p]]
            deck = (self.artifact_deck, self.beast_deck, self.quest_deck)[st]
            for _ in range(3 + self.plus_statue):
                if not deck:
                    break
                self.revealed.append(deck.pop())
            self.plus_statue, self.count = 0, 0
            self.phase = A.CHEST if st == CHEST else A.BUY
        elif a == A.STATUE_RELEASE:                 # Q-V2
            self.pay, self.release_from_discard, self.phase = [], [], A.RELEASE
        else:                                       # Q-V3 teleport
            self.gems[p] -= 2
            self.supply_gems += 2
            pos = self.position[p]
            st = self.statue_at[pos]
            self.position[p] = next(r for r in range(NUM_POSITIONS) if r != pos and self.statue_at[r] == st)
            self._statue_done()

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

    def _complete_quest(self, p):
        """Q-Q3."""
        g = self.g
        q = self.target
        qk = g.I_QK[q]
        self.discard[p] += self.pay
        self.pay = []
        self.discard[p] += self.committed[p].pop(q, [])
        pts = g.Q_POINTS[qk]
        if q in self.quests[p]:
            self.quests[p].remove(q)
        else:
            j = self.open_quests.index(q)
            self.open_quests[j] = -1
            if self.open_bonus[j]:
                self.open_bonus[j] = 0
                self.bonus_tokens[p] += 1
                pts += 1
            for o in range(self.n):                 # tokens on it return, cards to discard
                if self.quest_token[o] == q:
                    self.quest_token[o] = -1
                    self.discard[o] += self.committed[o].pop(q, [])
        self.completed[p].append(q)
        gems, carpets, resh = g.Q_REWARD[qk]
        self.gems[p] += self._take("supply_gems", gems)
        self.carpets[p] += self._take("supply_carpets", carpets)
        self.reshuffles[p] += self._take("supply_reshuffles", resh)
        self.scores[p] += pts
        self.action_used = True
        self.phase = A.MAIN
        if self._goal_reached(p):                   # Q-E1 (Q-B1 lines, Q-TM2 team sums)
            self._end(self.team(p), "goal")

    # ------------------------------------------------------------------ state dict (fantastiqa_rl.serialization)
    def to_dict(self) -> dict:
        """JSON-safe dict; `from_dict(to_dict())` restores an identical state (keys:
        `fantastiqa_rl.serialization`)."""
        return state_to_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "FantastiqaState":
        """Rebuild a state from `to_dict()` output (also after a JSON round trip).

        The dict is validated completely first (`fantastiqa_rl.validation`: keys, types, every
        card in exactly one place, token counts, the decision in progress); any problem raises
        ValueError naming the key path."""
        return state_from_dict(cls, d)

    # ------------------------------------------------------------------ text (fantastiqa_rl.text)
    def action_to_string(self, a) -> str:
        """Readable name of action a in this state's decision context."""
        return action_to_string(self, a)

    def _why_illegal(self, a: int) -> str:
        return why_illegal(self, a)

    def __str__(self) -> str:
        return describe(self)

    __repr__ = __str__

