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

Options (keyword arguments of `new`; a bad value raises ValueError naming the allowed values):
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

Chance sources. `np.random.SeedSequence(seed).spawn(10)` gives, in this order:
    0 setup (board deal: regions and statues to positions; starting-quest shuffle, Q-S5)
    1 creature deck (section shuffles, Raven insertion)   2..5 personal deck of seat 0..3
    6 Artifact Tower deck   7 Beast Bazaar deck   8 quest deck (Quest Chest)
    9 Abbey deck (setup shuffle and every reshuffle of returned cards; never drawn without abbey)
Each source only ever draws from its own generator, so a deal does not depend on the choices.

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

The Abandoned Abbey (abbey=True), engine readings (ASSUMED where the spec is silent):
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

State dict (`to_dict`, JSON-safe, exact round trip). Cards are instance ids; `card_name(i)`.
    version, card_set, num_players, options, goal, phase, current, turns, winners, end_reason,
    region_at[6], statue_at[6], board[7] (-1 empty), board_gems[7], creature_deck, artifact_deck,
    beast_deck, quest_deck (decks: top card LAST), open_quests[2], open_bonus[2],
    supply{gems, carpets, reshuffles, bonus_tokens, dragons}, box,
    players[p]{deck, hand, discard, committed{quest: cards}, quests, completed, abbey, scores,
               bonus_tokens, gems, tokens{carpets, reshuffles, quest_token}, position},
    setup_offer{quests, artifacts}, turn{action_used, plus_statue, boosted, powered, visited,
    prev, adventure, pay (cards chosen to pay, or to release from hand), target, revealed,
    count, key, effects, in_play, release_from_discard, token_left (open quests the token left
    this turn), reason, ret},
    rng[10] (bit_generator.state of each chance source)
  and only with abbey=True: abbey_deck (top LAST), abbey_returned, and in `turn`: abbey_aside
  (Abbey cards set aside in the current exploration), abbey_reward [gems, carpets, reshuffles]
  set aside with them. (Without the Abbey these keys are absent and the dict is unchanged.)
"""
from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import (BAZAAR, CHEST, LOWER_FRAME, NEIGHBOURS, NUM_POSITIONS, P_DRAGON,
                                 P_EFFECT, P_FLY, P_GEM, P_KEY, P_NONE, P_PEACEFUL, P_PLUS,
                                 REGIONS, STATUES, SYMBOLS, TOWER)
from fantastiqa_rl.game import get_game
from fantastiqa_rl.payment import can_meet, offered_kinds

OPTIONS = {
    "adventure_path": ("simple", "loops"),
    "fly_in_adventure": (True, False),
    "bought_to": ("discard", "hand"),
    "card_use": ("symbol_or_power", "both"),
    "draw_rule": ("up_to_5", "draw_5"),
    "abbey": (False, True),
    "teams": (False, True),
    "mark_return": ("forbid", "allow"),
}
DEFAULTS = {k: v[0] for k, v in OPTIONS.items()}
# Q-E5 (ENGINE rule, not in the rulebook): the game ends, scored as a creature-deck end, after
# this many completed turns per player. Chosen from measured pacing (docs/rules/fantastiqa.md,
# Q-E5): 2.4x the longest median greedy game (42 turns per player) and above every measured
# p95 (58), so it only cuts games that would not end (random play, greedy livelocks).
DEFAULT_TURN_LIMIT = 100
DEFAULTS["turn_limit"] = DEFAULT_TURN_LIMIT
NUM_CHANCE_SOURCES = 10
RNG_SETUP, RNG_CREATURE, RNG_SEAT0, RNG_TOWER, RNG_BAZAAR, RNG_QUEST, RNG_ABBEY = 0, 1, 2, 6, 7, 8, 9
STATUE_RNG = {TOWER: RNG_TOWER, BAZAAR: RNG_BAZAAR, CHEST: RNG_QUEST}
HAND_SIZE = 5
ABBEY_CAP = 7                    # Q-B5: Abbey cards per player (or team)
# TARGET_SEAT reasons
R_PEACEFUL, R_DRAGON, R_BREW = 0, 1, 2

# Mutable fields: plain values, lists, per-player lists of lists, and the committed dicts.
_SCALARS = ("phase", "cur", "turns", "action_used", "plus", "visited", "prev", "target", "count",
            "key", "reason", "ret", "end_reason", "sup_gems", "sup_carpets", "sup_reshuffles",
            "sup_bonus")
_LISTS = ("board", "board_gems", "cdeck", "adeck", "bdeck", "qdeck", "open_q", "open_bonus",
          "dragons", "box", "scores", "bonus", "gems", "carpets", "reshuffles", "position",
          "token", "offer_q", "offer_a", "boosted", "powered", "adv", "pay", "revealed",
          "effects", "in_play", "sel_discard", "left_q", "abdeck", "abret", "abaside", "abreward")
_NESTED = ("deck", "hand", "discard", "quests", "completed", "abbey")


def _check_options(opts: dict) -> dict:
    out = dict(DEFAULTS)
    for k, v in opts.items():
        if k == "turn_limit":                       # Q-E5: None (no limit) or an int >= 1
            if v is not None and (type(v) is not int or v < 1):
                raise ValueError(f"bad value {v!r} for option 'turn_limit'; allowed values: "
                                 "None (no limit) or an int >= 1 (completed turns per player)")
            out[k] = v
            continue
        if k not in OPTIONS:
            raise ValueError(f"unknown rule option {k!r}; allowed options: {sorted([*OPTIONS, 'turn_limit'])}")
        if v not in OPTIONS[k] or type(v) is not type(OPTIONS[k][0]):
            raise ValueError(f"bad value {v!r} for option {k!r}; allowed values: {list(OPTIONS[k])}")
        out[k] = v
    return out


class FantastiqaState:
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
        opts = _check_options(rule_options)
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

    def _setup(self):
        g, n = self.g, self.n
        r = self._rng(RNG_SETUP)
        self.region_at = tuple(int(x) for x in r.permutation(NUM_POSITIONS))
        self.statue_at = tuple(int(x) for x in r.permutation([TOWER, TOWER, BAZAAR, BAZAAR, CHEST, CHEST]))
        self.name_pos = tuple(self.region_at.index(x) for x in range(NUM_POSITIONS))
        # Q-S2: sections shuffled one by one; section I on top (= end of the list).
        self.cdeck = []
        for sec in sorted(g.sections, reverse=True):
            part = list(g.sections[sec])
            self._rng(RNG_CREATURE).shuffle(part)
            self.cdeck += part
        self.adeck, self.bdeck, self.qdeck = list(g.artifacts), list(g.beasts), list(g.quests)
        self._rng(RNG_TOWER).shuffle(self.adeck)
        self._rng(RNG_BAZAAR).shuffle(self.bdeck)
        self._rng(RNG_QUEST).shuffle(self.qdeck)
        self.board, self.board_gems = [-1] * 7, [0] * 7
        self.open_q, self.open_bonus = [-1, -1], [0, 0]
        sup = g.cs.supply
        self.sup_gems, self.sup_carpets = sup["gems"], sup["carpets"]
        self.sup_reshuffles, self.sup_bonus = sup["reshuffles"], sup["bonus_tokens"]
        self.dragons = list(g.dragon_supply)
        self.abdeck, self.abret, self.abaside, self.abreward = [], [], [], [0, 0, 0]
        if self.opts["abbey"]:                      # Q-B1: the Abbey deck, top card face up
            self.box = list(g.box)
            self.abdeck = list(g.abbey)
            self._rng(RNG_ABBEY).shuffle(self.abdeck)
        else:
            self.box = list(g.box) + list(g.abbey)  # abbey=False: the Abbey cards stay boxed
        self.deck = [[] for _ in range(n)]
        self.hand = [list(g.start_cards[p]) for p in range(n)]   # held aside until Q-S6
        self.discard = [[] for _ in range(n)]
        self.quests = [[] for _ in range(n)]
        self.completed = [[] for _ in range(n)]
        self.abbey = [[] for _ in range(n)]
        self.committed = [{} for _ in range(n)]
        self.scores, self.bonus = [0] * n, [0] * n
        self.gems, self.carpets, self.reshuffles = [0] * n, [0] * n, [0] * n
        for p in range(n):     # Q-S3, from the general supply
            self.gems[p] = self._take("sup_gems", 3)
            self.carpets[p] = self._take("sup_carpets", 3)
            self.reshuffles[p] = self._take("sup_reshuffles", 3)
        self.position, self.token = [-1] * n, [-1] * n
        self.offer_q, self.offer_a = list(g.start_quests), list(g.start_artifacts)
        self.turns, self.cur, self.phase = 0, n - 1, A.SETUP_QUEST     # Q-S4: reverse seat order
        self.winners_ = None
        self.end_reason = ""
        self._reset_turn()
        self._legal = None

    def _reset_turn(self):
        self.action_used, self.plus, self.visited, self.prev = False, 0, 0, -1
        self.target, self.count, self.key, self.reason, self.ret = -1, 0, False, 0, A.MAIN
        self.boosted, self.powered, self.adv, self.pay = [], [], [], []
        self.revealed, self.effects, self.in_play, self.sel_discard = [], [], [], []
        self.left_q = []      # open quests the mover's token left this turn (mark_return="forbid")

    def _take(self, field: str, k: int) -> int:
        """Take up to k from a supply counter (Q-X1: nothing when empty); returns what was taken."""
        have = getattr(self, field)
        t = min(have, k)
        setattr(self, field, have - t)
        return t

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

    def abbey_held(self, p: int) -> int:
        """Abbey cards held by p's side (summed per team, Q-TM2), toward the goal and the cap."""
        return sum(len(self.abbey[q]) for q in self.team(p))

    def side_score(self, p: int) -> int:
        """Quest points of p's side (summed per team)."""
        return sum(self.scores[q] for q in self.team(p))

    def goal_lines_met(self, p: int) -> list:
        """Indices of the goal lines (points, Abbey cards) p's side meets now."""
        pts, ab = self.side_score(p), self.abbey_held(p)
        return [j for j, (a, b) in enumerate(self.goal_lines) if pts >= a and ab >= b]

    def abbey_top(self) -> int:
        """The face-up Abbey card (instance id), or -1: none left, or the top is face down
        while the explorer decides ABBEY_CHOICE."""
        if not self.abdeck or self.phase == A.ABBEY_CHOICE:
            return -1
        return self.abdeck[-1]

    def final_scores(self) -> list:
        """Q-E3: score minus the points of personal quests not completed."""
        QP, QK = self.g.Q_POINTS, self.g.I_QK
        return [self.scores[p] - sum(QP[QK[q]] for q in self.quests[p]) for p in range(self.n)]

    def turn_options(self, p: int) -> list:
        """Seat p's actions in the MAIN decision (turn actions, DONE, FREE_ACTION), unsorted; for bots."""
        return self._legal_main(p)

    def free_options(self, p: int) -> list:
        """Seat p's actions in the FREE_MENU decision (Q-F1..Q-F4); for bots."""
        return self._legal_free(p)

    def payable_steps(self, p: int) -> list:
        """(space, destination) of each adventure step from p's position that p's hand can pay for."""
        return self._pay_moves(p, 1 << self.position[p], -1)

    def seat_scores(self) -> list[float]:
        """`final_scores()` as floats: the suite's common name (`tabletop_rl.envs.game_state.GameState`)."""
        return [float(x) for x in self.final_scores()]

    # Determinization (Q-I1), defined in `fantastiqa_rl.information`, which attaches it at import.
    sample_consistent: Callable[[int, np.random.Generator], FantastiqaState]

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
        deck = (self.adeck, self.bdeck, self.qdeck)[st]
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
        for q in self.quests[p] + [q for q in self.open_q if q >= 0]:
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

    def _abbey_matches(self, p) -> list:
        """Hand kinds showing the face-up Abbey card's symbol (Q-B3: no wilds; a double or a
        Curious Companion matches if one of its symbols does)."""
        if not self.abdeck:
            return []
        sym = self.g.I_AB_SYM[self.abdeck[-1]]
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
        if not self.abdeck:
            return "no Abbey card is left to explore"
        if not self._abbey_matches(p):
            sym = SYMBOLS[self.g.I_AB_SYM[self.abdeck[-1]]]
            return f"no hand card shows {sym}, the symbol of the face-up Abbey card"
        return ""

    def _can_continue(self, p) -> bool:
        """Q-B4/Q-B5: a card left to flip and held + set aside below the cap."""
        return (self.abbey_held(p) + len(self.abaside) < ABBEY_CAP
                and bool(self.abdeck or self.abret))

    def _abbey_refill(self):
        """Q-B5: with no face-down card left, shuffle the returned cards into a new deck."""
        if not self.abdeck and self.abret:
            self.abdeck, self.abret = self.abret, []
            self._rng(RNG_ABBEY).shuffle(self.abdeck)

    def _abbey_end(self, p, claim: bool):
        """Stop (claim, Q-B4) or fail (return rewards and cards, Q-B4); the action is spent."""
        r = self.abreward
        if claim:
            self.abbey[p] += self.abaside
            self.gems[p] += r[0]
            self.carpets[p] += r[1]
            self.reshuffles[p] += r[2]
        else:
            self.abret += self.abaside
            self.sup_gems += r[0]
            self.sup_carpets += r[1]
            self.sup_reshuffles += r[2]
        self.abaside, self.abreward = [], [0, 0, 0]
        self.action_used = True
        self.phase = A.MAIN
        self._abbey_refill()
        if claim and self._goal_reached(p):         # Q-B1, Q-E1
            self._end(self.team(p), "goal")

    def _goal_reached(self, p) -> bool:
        """Q-E1 / Q-B1 / Q-TM2: p's side meets a goal line."""
        pts, lines = self.side_score(p), self.goal_lines
        if len(lines) == 1 and lines[0][1] == 0:
            return pts >= lines[0][0]
        ab = self.abbey_held(p)
        return any(pts >= a and ab >= b for a, b in lines)

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
            return list({L.quest + g.I_QK[q] for q in self.offer_q})
        if ph == A.SETUP_ARTIFACT:
            return list({L.pick + g.I_HK[i] for i in self.offer_a})
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
            n = len(self.pay) + len(self.sel_discard)
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
            return [L.hand + k for k in self._abbey_matches(p)] + ([] if self.abaside else [A.CANCEL])
        if ph == A.ABBEY_CHOICE:
            return [L.abbey_stop] + ([L.abbey_continue] if self._can_continue(p) else [])
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
        if any(q >= 0 and self.token[p] != q and q not in self.left_q for q in self.open_q):
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
            q = self.open_q[j]
            if q >= 0 and self.token[p] != q and q not in self.left_q:
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
            q = next(i for i in self.offer_q if L.quest + g.I_QK[i] == a)
            self.offer_q.remove(q)
            self.quests[p].append(q)
            self.committed[p][q] = []
            self.phase = A.SETUP_ARTIFACT
        elif ph == A.SETUP_ARTIFACT:
            i = next(i for i in self.offer_a if L.pick + g.I_HK[i] == a)
            self.offer_a.remove(i)
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
                self.discard[p] += self.adv         # Q-A4
                self.adv = []
                self.action_used = True
                self.phase = A.MAIN
            elif a == A.CANCEL:
                self.phase = A.MAIN
            elif a == A.CARPET:
                self.carpets[p] -= 1
                self.sup_carpets += 1
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
                self.adv.append(self.board[c])
                self.adv += self.pay
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
                self.sup_gems += g.K_COST[k]
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
                self.discard[p] += self.sel_discard
                self.pay, self.sel_discard = [], []
                self.key = False
                self.phase = A.MAIN
            elif a == A.CONFIRM:                    # released cards leave the game, 1 gem each
                n = len(self.pay) + len(self.sel_discard)
                self.box += self.pay + self.sel_discard
                self.pay, self.sel_discard = [], []
                self.gems[p] -= n
                self.sup_gems += n
                self._statue_done()
            elif a < L.commit:
                i = self._find(self.hand[p], a - L.hand)
                self.hand[p].remove(i)
                self.pay.append(i)
            else:
                i = self._find(self.discard[p], a - L.pick)
                self.discard[p].remove(i)
                self.sel_discard.append(i)
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
            if a == A.CANCEL:
                self.phase = A.MAIN
            else:                                   # Q-B3
                i = self._find(self.hand[p], a - L.hand)
                self.hand[p].remove(i)
                self.discard[p].append(i)
                c = self.abdeck.pop()
                self.abaside.append(c)
                gems, carpets, resh = g.I_AB_REWARD[c]
                self.abreward[0] += self._take("sup_gems", gems)
                self.abreward[1] += self._take("sup_carpets", carpets)
                self.abreward[2] += self._take("sup_reshuffles", resh)
                self._draw(p, g.I_AB_DRAW[c], self.hand[p])
                self.phase = A.ABBEY_CHOICE
        elif ph == A.ABBEY_CHOICE:
            if a == L.abbey_stop:
                self._abbey_end(p, claim=True)
            else:                                   # flip the next card (Q-B4, Q-B5)
                self._abbey_refill()
                self.phase = A.ABBEY_MATCH
                if not self._abbey_matches(p):
                    self._abbey_end(p, claim=False)
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
            self.abaside, self.abreward = [], [0, 0, 0]
            self.phase = A.ABBEY_MATCH
            return
        if a == A.ADVENTURE:
            self.visited, self.prev, self.count = 1 << self.position[p], -1, 0
            self.adv = []
            self.phase = A.ADV_MOVE
        elif a == A.VISIT_STATUE:
            self.key, self.phase = False, A.STATUE_OPTION
        elif a == A.FREE_ACTION:
            self.phase = A.FREE_MENU
        elif a == A.CARPET:
            self.carpets[p] -= 1
            self.sup_carpets += 1
            self.phase, self.ret = A.MOVE_DEST, A.MAIN
        elif a == A.RESHUFFLE:                      # Q-F4
            self.reshuffles[p] -= 1
            self.sup_reshuffles += 1
            self.deck[p] += self.discard[p]
            self.discard[p] = []
            self._rng(RNG_SEAT0 + p).shuffle(self.deck[p])
        elif a < A.REGION:                          # MARK j (Q-F2)
            q = self.open_q[a - A.MARK]
            old = self.token[p]
            if old >= 0:
                self.discard[p] += self.committed[p].pop(old)
                if self.opts["mark_return"] == "forbid":
                    self.left_q.append(old)
            self.token[p] = q
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
            self.plus += 1
        elif pw == P_GEM:
            self.gems[p] += self._take("sup_gems", 1)
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
                self.gems[p] += self._take("sup_gems", x)
            elif op == "draw":
                self._draw(p, x, self.hand[p])
            elif op == "gain_carpet":
                self.carpets[p] += self._take("sup_carpets", x)
            elif op == "gain_reshuffle":
                self.reshuffles[p] += self._take("sup_reshuffles", x)
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
            deck = (self.adeck, self.bdeck, self.qdeck)[st]
            for _ in range(3 + self.plus):
                if not deck:
                    break
                self.revealed.append(deck.pop())
            self.plus, self.count = 0, 0
            self.phase = A.CHEST if st == CHEST else A.BUY
        elif a == A.STATUE_RELEASE:                 # Q-V2
            self.pay, self.sel_discard, self.phase = [], [], A.RELEASE
        else:                                       # Q-V3 teleport
            self.gems[p] -= 2
            self.sup_gems += 2
            pos = self.position[p]
            st = self.statue_at[pos]
            self.position[p] = next(r for r in range(NUM_POSITIONS) if r != pos and self.statue_at[r] == st)
            self._statue_done()

    def _return_revealed(self):
        st = self.statue_at[self.position[self.cur]]
        deck = (self.adeck, self.bdeck, self.qdeck)[st]
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
            j = self.open_q.index(q)
            self.open_q[j] = -1
            if self.open_bonus[j]:
                self.open_bonus[j] = 0
                self.bonus[p] += 1
                pts += 1
            for o in range(self.n):                 # tokens on it return, cards to discard
                if self.token[o] == q:
                    self.token[o] = -1
                    self.discard[o] += self.committed[o].pop(q, [])
        self.completed[p].append(q)
        gems, carpets, resh = g.Q_REWARD[qk]
        self.gems[p] += self._take("sup_gems", gems)
        self.carpets[p] += self._take("sup_carpets", carpets)
        self.reshuffles[p] += self._take("sup_reshuffles", resh)
        self.scores[p] += pts
        self.action_used = True
        self.phase = A.MAIN
        if self._goal_reached(p):                   # Q-E1 (Q-B1 lines, Q-TM2 team sums)
            self._end(self.team(p), "goal")

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

    def _end_turn(self, p):
        if self.powered:                            # card_use="both": used cards go now (Q-T1)
            for i in self.powered:
                if i in self.hand[p]:
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

    def _finish_setup(self):
        """Q-S5, Q-S6, then seat 0's first turn."""
        r = self._rng(RNG_SETUP)
        rest = list(self.offer_q)
        r.shuffle(rest)
        for j in (0, 1):
            self.open_q[j] = rest.pop()
            self.open_bonus[j] = self._take("sup_bonus", 1)
        self.box += rest + self.offer_a
        self.offer_q, self.offer_a = [], []
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
        g, deck = self.g, self.cdeck
        aside = []
        for c in range(7):
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
                if g.K_GEM[g.I_HK[i]]:
                    self.board_gems[c] = self._take("sup_gems", 1)
        if aside:                                   # Q-R3: into the top 10 cards
            t = min(10, len(deck))
            top = deck[len(deck) - t:] + aside
            self._rng(RNG_CREATURE).shuffle(top)
            del deck[len(deck) - t:]
            deck += top
        for j in (0, 1):                            # Q-R4
            if self.open_q[j] < 0 and self.qdeck:
                self.open_q[j] = self.qdeck.pop()
                self.open_bonus[j] = self._take("sup_bonus", 1)

    def _raven(self):
        mx = max(self.gems)
        if mx >= 5:
            for o in range(self.n):
                if self.gems[o] == mx:
                    self.gems[o] -= mx // 2
                    self.sup_gems += mx // 2

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

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        """JSON-safe dict; `from_dict(to_dict())` restores an identical state (keys: module doc)."""
        n = self.n
        players = []
        for p in range(n):
            players.append({
                "deck": list(self.deck[p]), "hand": list(self.hand[p]),
                "discard": list(self.discard[p]),
                "committed": {str(q): list(c) for q, c in self.committed[p].items()},
                "quests": list(self.quests[p]), "completed": list(self.completed[p]),
                "abbey": list(self.abbey[p]), "scores": self.scores[p],
                "bonus_tokens": self.bonus[p], "gems": self.gems[p],
                "tokens": {"carpets": self.carpets[p], "reshuffles": self.reshuffles[p],
                           "quest_token": self.token[p]},
                "position": self.position[p],
            })
        d = {
            "version": 1,
            "card_set": self.card_set, "num_players": n, "options": dict(self.opts),
            "goal": self.goal_name, "phase": PHASES[self.phase], "current": self.cur,
            "turns": self.turns,
            "winners": None if self.winners_ is None else list(self.winners_),
            "end_reason": self.end_reason,
            "region_at": list(self.region_at), "statue_at": list(self.statue_at),
            "board": list(self.board), "board_gems": list(self.board_gems),
            "creature_deck": list(self.cdeck), "artifact_deck": list(self.adeck),
            "beast_deck": list(self.bdeck), "quest_deck": list(self.qdeck),
            "open_quests": list(self.open_q), "open_bonus": list(self.open_bonus),
            "supply": {"gems": self.sup_gems, "carpets": self.sup_carpets,
                       "reshuffles": self.sup_reshuffles, "bonus_tokens": self.sup_bonus,
                       "dragons": list(self.dragons)},
            "box": list(self.box),
            "players": players,
            "setup_offer": {"quests": list(self.offer_q), "artifacts": list(self.offer_a)},
            "turn": {"action_used": self.action_used, "plus_statue": self.plus,
                     "boosted": list(self.boosted), "powered": list(self.powered),
                     "visited": self.visited, "prev": self.prev, "adventure": list(self.adv),
                     "pay": list(self.pay), "target": self.target, "revealed": list(self.revealed),
                     "count": self.count, "key": self.key,
                     "effects": [list(e) for e in self.effects], "in_play": list(self.in_play),
                     "release_from_discard": list(self.sel_discard),
                     "token_left": list(self.left_q),
                     "reason": self.reason, "ret": PHASES[self.ret]},
            "rng": [_rng_state_to_json(r.bit_generator.state) for r in self._rngs],
        }
        if self.opts["abbey"]:
            d["abbey_deck"], d["abbey_returned"] = list(self.abdeck), list(self.abret)
            d["turn"]["abbey_aside"], d["turn"]["abbey_reward"] = list(self.abaside), list(self.abreward)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "FantastiqaState":
        """Rebuild a state from `to_dict()` output (also after a JSON round trip).

        The dict is validated completely first (`fantastiqa_rl.validation`: keys, types, every
        card in exactly one place, token counts, the decision in progress); any problem raises
        ValueError naming the key path."""
        from fantastiqa_rl.validation import check_decision, validate_state_dict

        s = validate_state_dict(d, cls.new)
        try:
            s.phase, s.cur, s.turns = PHASES.index(d["phase"]), d["current"], d["turns"]
            s.winners_ = None if d["winners"] is None else list(d["winners"])
            s.end_reason = d["end_reason"]
            s.region_at, s.statue_at = tuple(d["region_at"]), tuple(d["statue_at"])
            s.name_pos = tuple(s.region_at.index(x) for x in range(NUM_POSITIONS))
            s.board, s.board_gems = list(d["board"]), list(d["board_gems"])
            s.cdeck, s.adeck = list(d["creature_deck"]), list(d["artifact_deck"])
            s.bdeck, s.qdeck = list(d["beast_deck"]), list(d["quest_deck"])
            s.open_q, s.open_bonus = list(d["open_quests"]), list(d["open_bonus"])
            sp = d["supply"]
            s.sup_gems, s.sup_carpets = sp["gems"], sp["carpets"]
            s.sup_reshuffles, s.sup_bonus = sp["reshuffles"], sp["bonus_tokens"]
            s.dragons, s.box = list(sp["dragons"]), list(d["box"])
            P = d["players"]
            s.deck = [list(x["deck"]) for x in P]
            s.hand = [list(x["hand"]) for x in P]
            s.discard = [list(x["discard"]) for x in P]
            s.committed = [{int(q): list(c) for q, c in x["committed"].items()} for x in P]
            s.quests = [list(x["quests"]) for x in P]
            s.completed = [list(x["completed"]) for x in P]
            s.abbey = [list(x["abbey"]) for x in P]
            s.scores = [x["scores"] for x in P]
            s.bonus = [x["bonus_tokens"] for x in P]
            s.gems = [x["gems"] for x in P]
            s.carpets = [x["tokens"]["carpets"] for x in P]
            s.reshuffles = [x["tokens"]["reshuffles"] for x in P]
            s.token = [x["tokens"]["quest_token"] for x in P]
            s.position = [x["position"] for x in P]
            s.offer_q = list(d["setup_offer"]["quests"])
            s.offer_a = list(d["setup_offer"]["artifacts"])
            t = d["turn"]
            s.action_used, s.plus = t["action_used"], t["plus_statue"]
            s.boosted, s.powered = list(t["boosted"]), list(t["powered"])
            s.visited, s.prev, s.adv = t["visited"], t["prev"], list(t["adventure"])
            s.pay, s.target, s.revealed = list(t["pay"]), t["target"], list(t["revealed"])
            s.count, s.key = t["count"], t["key"]
            s.effects = [tuple(e) for e in t["effects"]]
            s.in_play, s.reason, s.ret = list(t["in_play"]), t["reason"], PHASES.index(t["ret"])
            s.sel_discard = list(t["release_from_discard"])
            s.left_q = list(t["token_left"])
            if s.opts["abbey"]:
                s.abdeck, s.abret = list(d["abbey_deck"]), list(d["abbey_returned"])
                s.abaside, s.abreward = list(t["abbey_aside"]), list(t["abbey_reward"])
            for r, st in zip(s._rngs, d["rng"]):
                r.bit_generator.state = _rng_state_from_json(st)
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError(f"from_dict: malformed state dict ({type(e).__name__}: {e})") from None
        s._legal = None
        check_decision(s)
        return s

    # ------------------------------------------------------------------ text
    def action_to_string(self, a) -> str:
        """Readable name of action a in this state's decision context."""
        L, g = self.g.layout, self.g
        name, idx = L.decode(a if isinstance(a, int) else int(a) if isinstance(a, (np.integer,)) else -1)
        ph = self.phase
        if name == "INVALID":
            return f"INVALID({a!r})"
        if name == "EXPLORE":
            top = self.abdeck[-1] if self.abdeck else -1
            return "EXPLORE the Abbey" + (f" (face up: {self.card_name(top)}, "
                                          f"{SYMBOLS[g.I_AB_SYM[top]]})" if top >= 0 else "")
        if name in A.ABBEY_NAMES:
            return {"ABBEY_STOP": f"STOP exploring, claim {len(self.abaside)} Abbey card(s)",
                    "ABBEY_CONTINUE": "CONTINUE exploring (flip the next Abbey card)"}[name]
        if name in A.FIXED_NAMES:
            if a == A.DONE:
                return {A.MAIN: "END_TURN", A.ADV_MOVE: "STOP_ADVENTURE",
                        A.END_DISCARD: "KEEP_REST_AND_DRAW"}.get(ph, "DONE")
            return name
        if name == "MARK":
            q = self.open_q[idx]
            return f"MARK open quest {idx}" + (f" ({self.card_name(q)})" if q >= 0 else "")
        if name == "REGION":
            verb = {A.SETUP_PLACE: "PLACE at", A.ADV_MOVE: "SUBDUE towards",
                    A.MOVE_DEST: "MOVE to"}.get(ph, "REGION")
            rn = REGIONS[self.region_at[idx]] if hasattr(self, "region_at") else "?"
            return f"{verb} position {idx} ({rn})"
        if name == "SPACE":
            b = self.board[idx]
            return f"SWAP space c{idx}" + (f" ({self.card_name(b)})" if b >= 0 else "")
        if name == "SEAT":
            return f"TARGET seat {idx}"
        if name == "QUEST":
            verb = {A.SETUP_QUEST: "TAKE starting quest", A.MAIN: "COMPLETE quest",
                    A.CHEST: "KEEP quest", A.COMMIT_TARGET: "COMMIT to quest",
                    A.WITHDRAW_FROM: "WITHDRAW from quest"}.get(ph, "QUEST")
            return f"{verb} {g.Q_NAME[idx]}"
        card = g.K_NAME[idx]
        if name == "HAND":
            verb = {A.MAIN: "PLAY", A.ADV_PAY: "PAY", A.QUEST_PAY: "PAY", A.END_DISCARD: "DISCARD",
                    A.RELEASE: "RELEASE from hand", A.GLASS: "DOUBLE", A.BREW_CARD: "GIVE from hand",
                    A.ADV_MOVE: "FLY with", A.ABBEY_MATCH: "MATCH the Abbey card with"}.get(ph, "HAND")
            return f"{verb} {card}"
        if name == "COMMIT":
            return f"COMMIT {card}"
        verb = {A.SETUP_ARTIFACT: "TAKE starting artifact", A.BUY: "BUY", A.BELL: "KEEP",
                A.RELEASE: "RELEASE from discard", A.BREW_CARD: "GIVE from discard",
                A.MAIN: "WITHDRAW"}.get(ph, "PICK")
        return f"{verb} {card}"

    def _why_illegal(self, a: int) -> str:
        L = self.g.layout
        name, _ = L.decode(a)
        if self.phase == A.TERMINAL:
            return "the game is over"
        if name == "INVALID":
            return f"out of range [0, {L.n})"
        if name in ("HAND", "COMMIT") and self.phase != A.SETUP_PLACE:
            k = a - (L.hand if name == "HAND" else L.commit)
            if self.phase not in (A.SETUP_QUEST, A.SETUP_ARTIFACT) and not any(
                    self.g.I_HK[i] == k for i in self.hand[self.cur]):
                return f"seat {self.cur} holds no such card in hand (decision {PHASES[self.phase]})"
        if self.phase in (A.ADV_PAY, A.QUEST_PAY) and name == "HAND":
            return "the card cannot help complete this payment (it would be surplus or unusable)"
        if name == "EXPLORE" and self.phase == A.MAIN and self._why_no_explore(self.cur):
            return self._why_no_explore(self.cur)
        if self.phase == A.ABBEY_MATCH and name == "HAND":
            return (f"the card does not show {SYMBOLS[self.g.I_AB_SYM[self.abdeck[-1]]]}, the symbol "
                    "of the face-up Abbey card (no wilds)")
        if self.phase == A.ABBEY_CHOICE and name == "ABBEY_CONTINUE":
            return (f"cannot continue: {'the team' if self.teams else f'seat {self.cur}'} holds "
                    f"{self.abbey_held(self.cur)} Abbey card(s) + {len(self.abaside)} set aside "
                    f"(cap {ABBEY_CAP}), or no Abbey card is left to flip")
        if name == "MARK" and self.phase == A.FREE_MENU and self.open_q[a - A.MARK] in self.left_q:
            return ("mark_return='forbid': the quest token left this open quest earlier this turn "
                    "and may not return to it (use WITHDRAW to empty it instead)")
        if self.phase == A.ABBEY_MATCH and a == A.CANCEL:
            return "cannot cancel after the first match (the exploration has begun)"
        return (f"not legal in decision {PHASES[self.phase]} of seat {self.cur}; legal: "
                + ", ".join(self.action_to_string(int(x)) for x in self.legal_actions()[:12])
                + (" ..." if len(self.legal_actions()) > 12 else ""))

    def __str__(self) -> str:
        g = self.g
        nm = self.card_name
        lines = [f"Fantastiqa ({g.cs.name} cards) {self.n} players, goal {self.goal}, "
                 f"turns {self.turns}, decision {PHASES[self.phase]}, seat {self.current_player}"]
        for pos in range(NUM_POSITIONS):
            who = [str(p) for p in range(self.n) if self.position[p] == pos]
            lines.append(f"  pos {pos}: {REGIONS[self.region_at[pos]]:<13} {STATUES[self.statue_at[pos]]:<14}"
                         f" adventurers [{','.join(who)}]")
        for c in range(7):
            b = self.board[c]
            if b >= 0:
                k = g.I_HK[b]
                lines.append(f"  c{c}: {nm(b)} (needs {SYMBOLS[g.K_VULN[k]]} x{g.K_STRENGTH[k]})"
                             + (" +gem" if self.board_gems[c] else ""))
            else:
                lines.append(f"  c{c}: empty")
        oq = [nm(q) + (" +1" if self.open_bonus[j] else "") if q >= 0 else "-" for j, q in enumerate(self.open_q)]
        lines.append(f"  open quests: {oq}; creature deck {len(self.cdeck)}")
        for p in range(self.n):
            lines.append(f"  seat {p}: score {self.scores[p]} gems {self.gems[p]} carpets {self.carpets[p]}"
                         f" reshuffles {self.reshuffles[p]} deck {len(self.deck[p])} discard {len(self.discard[p])}"
                         f" quests {[nm(q) for q in self.quests[p]]}")
            lines.append(f"          hand {sorted(nm(i) for i in self.hand[p])}")
        if self.opts["abbey"]:
            top = self.abbey_top()
            lines.append(f"  Abbey: face up {nm(top) + ' (' + SYMBOLS[g.I_AB_SYM[top]] + ')' if top >= 0 else '-'};"
                         f" face down {len(self.abdeck) - (top >= 0)}; returned {[nm(i) for i in self.abret]};"
                         f" set aside {[nm(i) for i in self.abaside]}; held {[len(x) for x in self.abbey]};"
                         f" goal lines {list(self.goal_lines)}")
        if self.opts["teams"]:
            lines.append("  teams: seats 0+2 vs 1+3 (scores summed: "
                         f"{self.side_score(0)} vs {self.side_score(1)})")
        if self.winners_ is not None:
            lines.append(f"  winners {self.winners_} ({self.end_reason})")
        return "\n".join(lines)

    __repr__ = __str__


def _rng_state_to_json(st: dict) -> dict:
    return {k: (_rng_state_to_json(v) if isinstance(v, dict) else v) for k, v in st.items()}


def _rng_state_from_json(st: dict) -> dict:
    return {k: (_rng_state_from_json(v) if isinstance(v, dict) else v) for k, v in st.items()}
