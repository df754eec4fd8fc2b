"""FantastiqaState: the rules core of Fantastiqa (base game), pure Python + numpy.

Implements docs/rules/fantastiqa.md: the base game, the Abandoned Abbey expansion (Q-B,
option `abbey=True`) and the team variant (Q-TM, option `teams=True`).
Every choice is one step of the deciding player in one flat action space (see
`fantastiqa_rl.actions` for the action table: ids, ranges and what they mean per decision;
its size is `FantastiqaState.num_actions_for(card_set, abbey)`, 405 for the STAND-IN set, 408
with the Abbey). The
decision in progress is `state.phase` / `state.phase_name` (one of `actions.PHASES`).

Modules by job. This module holds the state class (construction, public API, clone, apply); its
fields are declared once in `fantastiqa_rl.state_fields` (each with how `clone` copies it, the rule
topic that owns it, its state-dict key and meaning; `clone` is driven by it). Its rules are plain
functions of the state, no mixin: `fantastiqa_rl.rules` (the decisions dispatched by phase through
tables, MAIN's legal actions and transitions; `legal_actions` and `apply` call its `legal_list` and
`do`) and the topic folders, each with its scalar rules in `<topic>.rules` and their batched kernels
in `<topic>.kernels`: `fantastiqa_rl.statues` (statue options), `fantastiqa_rl.powers` (card
powers, artifact effects), `fantastiqa_rl.turn_flow` (setup, the start and end of turns, the end of
the game; the draw they share with the other topics is this class's `_draw`, beside `_take`),
`fantastiqa_rl.abbey` (the Abbey expansion; no kernels: not ported to the batched engine),
`fantastiqa_rl.quests`, `fantastiqa_rl.setup`, `fantastiqa_rl.adventure` and
`fantastiqa_rl.free_actions`; the topics share `fantastiqa_rl.queries` (card kinds and instances,
moves). `fantastiqa_rl.options` checks the rule options, `fantastiqa_rl.chance` names the chance
sources, `fantastiqa_rl.serialization` reads and writes the state dict, `fantastiqa_rl.text` names
actions and explains illegal ones. Below them: `cards.py` (card file format, loader, validation) ->
`game.py` (static per-game card instance tables) -> `payment.py` (payment values, paying card by
card). Every name users import from this module stays importable here.

Usage:
    s = FantastiqaState.new(num_players=2, seed=0)
    while not s.is_terminal():
        s.apply(int(s.legal_actions()[0]))
    s.winners(), s.returns()

Options: the keyword arguments of `new` (goal, card_set and the rule options), each declared once
in `fantastiqa_rl.options.RULE_OPTIONS` with its values (the default first), rule id and meaning;
`help(fantastiqa_rl.env)` lists them. A bad value raises ValueError naming the allowed values.

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
- Q-F1: a card played for its power goes to the discard pile at the end of the turn (Q-T2; with
  turn_loops="allow" at once, before its effect).
  A Looking Glass doubles one copy in hand; payments use a doubled copy first, every other move
  of that kind (commit, discard, play, release, give) an undoubled copy first.
- ADVENTURE is offered only if some adjacent creature can be paid with the hand, and a creature
  space only if the hand can pay it (payment is monotone, so no dead ends).
- A quest kind available both as a personal quest and an open quest resolves to the personal one.
- End of turn with an empty hand skips the DISCARD decision.
- Returns: k winners of N get +1/k, losers -1/(N-k); if everyone wins, all get 0.
- Q-E2 tie-break (Q-E4): final score, then completed quests, then gems, then a shared win.

The Abandoned Abbey (abbey=True, Q-B1..Q-B5): its rules and the engine's readings are in
`fantastiqa_rl.abbey.rules`.

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

from collections.abc import Callable
from operator import itemgetter

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey import ABBEY_CAP
from fantastiqa_rl.abbey import rules as abbey
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.adventure import rules as adventure
from fantastiqa_rl.chance import (NUM_CHANCE_SOURCES, RNG_ABBEY, RNG_BAZAAR, RNG_CREATURE, RNG_QUEST,
                                  RNG_SEAT0, RNG_SETUP, RNG_TOWER, STATUE_RNG)
from fantastiqa_rl.cards import resolve_card_set
from fantastiqa_rl.free_actions import rules as free_actions
from fantastiqa_rl.game import get_game
from fantastiqa_rl.options import DEFAULT_TURN_LIMIT, DEFAULTS, OPTIONS, check_option, check_options
from fantastiqa_rl.powers import R_BREW, R_DRAGON, R_PEACEFUL
from fantastiqa_rl.rules import do, legal_list, legal_main
from fantastiqa_rl.serialization import state_from_dict, state_to_dict
from fantastiqa_rl.state_fields import LIST, OPT_LIST, OWN_FLAGS, PER_SEAT, PER_SEAT_MAP, names_of
from fantastiqa_rl.text import action_to_string, describe, why_illegal
from fantastiqa_rl.turn_flow import HAND_SIZE
from fantastiqa_rl.turn_flow import rules as turn_flow
from tabletop_rl.envs.game_state import one_integer

__all__ = ["FantastiqaState", "OPTIONS", "DEFAULTS", "DEFAULT_TURN_LIMIT", "check_options", "NUM_CHANCE_SOURCES",
           "RNG_SETUP", "RNG_CREATURE", "RNG_SEAT0", "RNG_TOWER", "RNG_BAZAAR", "RNG_QUEST", "RNG_ABBEY",
           "STATUE_RNG", "HAND_SIZE", "ABBEY_CAP", "R_PEACEFUL", "R_DRAGON", "R_BREW"]

# How `clone` copies each field, from the declaration (`fantastiqa_rl.state_fields`: every field with
# its kind, owner, state-dict key and meaning); plain values and the other shared fields are shared.
_LISTS = names_of(LIST)
_NESTED = names_of(PER_SEAT)
_SEAT_MAPS = names_of(PER_SEAT_MAP)
_OPT_LISTS = names_of(OPT_LIST)
_OWN_FLAGS = names_of(OWN_FLAGS)
assert len(_LISTS) > 1          # itemgetter of one name returns the value, not a 1-tuple
_GET_LISTS = itemgetter(*_LISTS)   # the list fields' values in one C call, copied by list.copy
_COPY = list.copy


class FantastiqaState:
    """One Fantastiqa game position. Create with `FantastiqaState.new(...)`."""

    # the Abbey's public queries (Q-B, Q-TM2): functions of the state in `fantastiqa_rl.abbey.rules`,
    # bound here as methods so that bots, views and text ask the state
    abbey_held = abbey.abbey_held
    abbey_top = abbey.abbey_top

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
        check_option("goal", goal)
        check_option("card_set", card_set)
        opts = check_options(rule_options)
        if opts["teams"] and num_players != 4:
            raise ValueError(f"bad num_players {num_players!r} for teams=True; allowed values: [4]")
        if card_set is not None:
            card_set = resolve_card_set(card_set)     # a file path ("generated:7": its file); to_dict stays valid from any directory
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
        turn_flow.setup(s)
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

    def _take(self, field: str, k: int) -> int:
        """Take up to k from a supply counter (Q-X1: nothing when empty); returns what was taken."""
        have = getattr(self, field)
        t = min(have, k)
        setattr(self, field, have - t)
        return t

    def _draw(self, p, n, dest):
        """Draw n from p's deck into dest; reshuffle the discard when empty (Q-X1). Shared by the
        turn flow (`turn_flow.rules`), the powers' effects (`powers.rules`) and the Abbey, as
        `_take` is; its batched port is `fantastiqa_rl.vector_rows.draw`."""
        deck = self.deck[p]
        for _ in range(n):
            if not deck:
                if not self.discard[p]:
                    return
                deck += self.discard[p]
                self.discard[p] = []
                self._rng(RNG_SEAT0 + p).shuffle(deck)
            dest.append(deck.pop())

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
        QP, QK = self.g.Q_POINTS, self.g.I_QUEST_KIND
        return [self.scores[p] - sum(QP[QK[q]] for q in self.quests[p]) for p in range(self.n)]

    def turn_options(self, p: int) -> list:
        """Seat p's actions in the MAIN decision (turn actions, DONE, FREE_ACTION), unsorted; for bots."""
        return legal_main(self, p)

    def free_options(self, p: int) -> list:
        """Seat p's actions in the FREE_MENU decision (Q-F1..Q-F4); for bots."""
        return free_actions.legal_free(self, p)

    def payable_steps(self, p: int) -> list:
        """(space, destination) of each adventure step from p's position that p's hand can pay for."""
        return adventure.pay_moves(self, p, 1 << self.position[p], -1)

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
        cd.update(zip(_LISTS, map(_COPY, _GET_LISTS(d))))
        for f in _NESTED:
            cd[f] = [x[:] for x in d[f]]
        for f in _SEAT_MAPS:
            cd[f] = [{q: v[:] for q, v in m.items()} for m in d[f]]
        for f in _OPT_LISTS:
            if d[f] is not None:
                cd[f] = list(d[f])
        for f in _OWN_FLAGS:            # the Generators (kind "generators") stay shared, copy on write
            d[f] = [False] * NUM_CHANCE_SOURCES
            cd[f] = [False] * NUM_CHANCE_SOURCES
        return c

    def legal_actions(self) -> np.ndarray:
        if self._legal is None:
            acts = sorted(legal_list(self))
            arr = np.array(acts, dtype=np.int64)
            arr.flags.writeable = False  # shared with clones: callers must not mutate it (as Fae)
            self._legal = (arr, frozenset(acts))
        return self._legal[0]

    def legal_set(self) -> frozenset:
        self.legal_actions()
        return self._legal[1]

    def apply(self, action) -> None:
        """Apply a legal action; an illegal one raises ValueError and leaves the state unchanged."""
        if type(action) is not int:
            action = one_integer(action)  # a 0-d integer array (SB3's predict) is its integer, as in Fae
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            # as Fae: True, 1.0, np.array(1.0), Fraction(1), Decimal(1) are not actions
            raise ValueError(f"action must be an int in 0..{self.g.layout.n - 1}; got {action!r} "
                             f"({type(action).__name__})")
        a = int(action)
        if a not in self.legal_set():
            raise ValueError(f"illegal action {a} ({self.action_to_string(a)}): {self._why_illegal(a)}")
        self._legal = None
        do(self, a)

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

