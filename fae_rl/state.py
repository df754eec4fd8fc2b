"""The Fae rules core: state, legal actions, apply, clone, to/from dict. No PettingZoo here.

One implementation: a `FaeState` is one game in the batched row layout of `fae_rl.vector_core`
(one uint8 row `_b`: druids, counts, resolved / pending flags, legal-move flags; one int64 row `_w`:
scores, ritual cards, cards used, mover, terminal, colours, public history), and its legal actions
and moves are the numba kernels `FaeVector` steps N games with (`vector_core.legal_mask`,
`vector_core.apply_checked`: one kernel call per apply, no array allocated for it). The rules of
`docs/rules/fae.md` (F-x) live there; this class adds what one game needs around them: dealing,
clear errors for illegal actions (naming the rule), (de)serialisation, information sets, text.

The Python rules this class held before (`_move`, `_resolve`, `_end_turn`, the legal-move bits)
are kept in `tests/fae_reference.py` as the reference implementation; `tests/test_fae_reference.py`
plays random games through both and compares masks, states, scores and winners at every step.
The greedy margin of a position is one implementation too: `fae_rl.margin.state_margins(state)`,
the kernel over this row, which resolves pending rituals in the best of every order, however many
are pending (4+ included).
"""
from __future__ import annotations

import numpy as np

from fae_rl import vector_core as _core
from fae_rl.board import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOVE_DST,
    MOVE_SRC,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_MOVE_ACTIONS,
    NUM_SPACES,
    RESOLVE_OFFSET,
    action_to_string,
    string_to_action,
)
from fae_rl.serialization import DICT_KEYS, DICT_VERSION, HISTORY_KEYS, state_from_dict  # noqa: F401  (DICT_KEYS, HISTORY_KEYS: re-exported)
from fae_rl.options import check_option
from fae_rl.vector_core import (
    B_COUNT,
    B_DRUIDS,
    B_MOVE_OK,
    B_PENDING,
    B_RESOLVED,
    B_SIZE,
    W_CARDS,
    W_COLOURS,
    W_CURRENT,
    W_LAST,
    W_MOVED,
    W_NPEND,
    W_POINTS,
    W_RITUAL,
    W_SCORES,
    W_SIZE,
    W_TERMINAL,
)
from tabletop_rl.envs.game_state import one_integer

_INT_TYPES = (int, np.int64, np.int32, np.intp)
_apply_checked, _legal_actions = _core.apply_checked, _core.legal_actions  # the kernels of one step
_REGION_COLOURS = np.tile(np.arange(NUM_COLOURS), (NUM_SPACES // 5, 1))
_DRUID_END = B_DRUIDS + NUM_SPACES * NUM_COLOURS
_MOVES = slice(B_MOVE_OK, B_MOVE_OK + NUM_MOVE_ACTIONS)
_PENDING = slice(B_PENDING, B_PENDING + NUM_SPACES)


def _check_num_players(num_players) -> int:
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) or not (
        MIN_PLAYERS <= int(num_players) <= MAX_PLAYERS
    ):
        raise ValueError(f"num_players must be one of 2, 3, 4; got {num_players!r}")
    return int(num_players)


def _int_rows(rows) -> list[list[int]] | None:
    """`rows` as lists of plain ints, or None if it is not a sequence of sequences of integers."""
    try:
        out = [list(r) for r in rows]
    except TypeError:
        return None
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for r in out for x in r):
        return None
    return [[int(x) for x in r] for r in out]


def win_loss_returns(winners: list[int], num_players: int) -> list[float]:
    """k winners of N: each winner +1/k, each loser -1/(N-k); all 0 if all win (or none)."""
    k = len(winners)
    if k == 0 or k == num_players:
        return [0.0] * num_players
    return [1.0 / k if p in winners else -1.0 / (num_players - k) for p in range(num_players)]


class _Parts:
    """What `fae_rl.serialization.state_from_dict` fills in (the field names of its protocol) while it
    checks a dict; `FaeState.from_dict` then moves them into the rows. Its board is already the row."""

    @classmethod
    def _from_parts(cls, num_players, big_stack_merge, flat_druids, colours) -> "_Parts":
        p = cls()
        p.state = s = FaeState._blank(num_players, bool(big_stack_merge), colours)
        b = s._b
        b[0, B_DRUIDS:_DRUID_END] = flat_druids
        b[0, B_COUNT:B_COUNT + NUM_SPACES] = b[0, B_DRUIDS:_DRUID_END].reshape(NUM_SPACES, NUM_COLOURS).sum(axis=1)
        _core.refresh_moves(b, 0, s.big_stack_merge)
        p._move_ok = b[0, _MOVES]  # views of the row: state_from_dict reads the moves, marks the resolved
        p._resolved = b[0, B_RESOLVED:B_RESOLVED + NUM_SPACES]
        return p

    def to_state(self) -> "FaeState":
        s, w, n = self.state, self.state._w[0], self.state.num_players
        w[W_SCORES:W_SCORES + NUM_COLOURS] = self._scores
        w[W_RITUAL:W_RITUAL + n] = self._ritual_cards
        w[W_CARDS] = self._cards_used
        w[W_CURRENT] = self._current
        w[W_TERMINAL] = int(self._terminal)
        w[W_NPEND] = len(self._pending)
        s._b[0, B_PENDING + np.asarray(self._pending, dtype=np.int64)] = 1
        for p in range(n):
            w[W_MOVED + NUM_COLOURS * p:W_MOVED + NUM_COLOURS * (p + 1)] = self._hist_moved[p]
            w[W_POINTS + NUM_COLOURS * p:W_POINTS + NUM_COLOURS * (p + 1)] = self._hist_points[p]
        w[W_LAST:W_LAST + n] = self._hist_last
        return s


class FaeState:
    """A Fae game position. Build one with `FaeState.new(...)` or `FaeState.from_dict(d)`."""

    __slots__ = ("num_players", "big_stack_merge", "_b", "_w", "_legal_cache")
    num_players: int  # declared for type checkers (slots hold no annotations)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, num_players: int = 2, seed=None, big_stack_merge: bool = False) -> "FaeState":
        """Deal a new game (F-S1 board, F-S2 spirits) from one `numpy.random.Generator`.

        `seed` may be None (fresh entropy), an int, a SeedSequence or a Generator.
        """
        num_players = _check_num_players(num_players)
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        # F-S1: each region (5 consecutive spaces) gets one druid of each colour, shuffled.
        order = rng.permuted(_REGION_COLOURS, axis=1)
        colours = rng.permutation(NUM_COLOURS)[:num_players].tolist()  # F-S2
        return cls.from_deal(num_players, order.tolist(), colours, big_stack_merge)

    @classmethod
    def from_deal(cls, num_players: int, regions, colours, big_stack_merge: bool = False) -> "FaeState":
        """The start of a game from its deal: what `new` draws at random, given explicitly.

        `regions`: 12 rows, one per region; row r is a permutation of the 5 colours, its j-th entry
        the colour of the druid on space 5r + j + 1 (F-S1). `colours`: the spirit colour of each
        seat, distinct (F-S2). Used by `new` and by the OpenSpiel game's chance nodes
        (`fae_rl.openspiel`). A bad deal raises a ValueError naming the problem.
        """
        num_players = _check_num_players(num_players)
        check_option("big_stack_merge", big_stack_merge)
        rows, colours = _int_rows(regions), _int_rows([colours])
        if rows is None or len(rows) != NUM_SPACES // 5 or any(sorted(r) != list(range(NUM_COLOURS)) for r in rows):
            raise ValueError(f"regions must be {NUM_SPACES // 5} permutations of the colours 0..4; got {regions!r}")
        colours = colours[0] if colours else []
        if len(colours) != num_players or len(set(colours)) != num_players or not all(
                0 <= c < NUM_COLOURS for c in colours):
            raise ValueError(f"colours must be {num_players} distinct colours in 0..4; got {colours!r}")
        orders = np.asarray(rows, dtype=np.int64).reshape(1, NUM_SPACES)
        b, w = _core.deal_rows(orders, np.asarray([colours], dtype=np.int64))
        return cls._from_rows(num_players, bool(big_stack_merge), b, w)

    @classmethod
    def _blank(cls, num_players, big_stack_merge, colours) -> "FaeState":
        """An empty board with every other field of a start-of-game state (F-S3, F-S4: no scores, seat 0)."""
        s = cls.__new__(cls)
        s.num_players = num_players
        s.big_stack_merge = big_stack_merge
        s._b = np.zeros((1, B_SIZE), dtype=np.uint8)
        s._w = np.zeros((1, W_SIZE), dtype=np.int64)
        s._w[0, W_COLOURS:W_COLOURS + num_players] = colours
        s._w[0, W_LAST:W_LAST + MAX_PLAYERS] = -1
        s._legal_cache = None
        return s

    @classmethod
    def _from_rows(cls, num_players: int, big_stack_merge: bool, b: np.ndarray, w: np.ndarray) -> "FaeState":
        """A state owning the rows `b` (uint8 (1, B_SIZE)) and `w` (int64 (1, W_SIZE)), C-contiguous
        (`FaeVector.state` hands it copies of one game's rows)."""
        s = cls.__new__(cls)
        s.num_players, s.big_stack_merge, s._b, s._w, s._legal_cache = num_players, big_stack_merge, b, w, None
        return s

    def clone(self) -> "FaeState":
        s = FaeState.__new__(FaeState)
        s.num_players = self.num_players
        s.big_stack_merge = self.big_stack_merge
        s._b = self._b.copy()
        s._w = self._w.copy()
        s._legal_cache = self._legal_cache  # immutable once built (callers get copies)
        return s

    def __deepcopy__(self, memo) -> "FaeState":
        # copy.deepcopy (OpenSpiel clones its Python states with it) gets the fast clone.
        return self.clone()

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        """Seat to act, or -1 when the game is over."""
        w = self._w
        return -1 if w[0, W_TERMINAL] else int(w[0, W_CURRENT])

    def is_terminal(self) -> bool:
        return bool(self._w[0, W_TERMINAL])

    @property
    def colours(self) -> list[int]:
        """The spirit colour of each seat (a fresh list; assign a list to change them)."""
        return self._w[0, W_COLOURS:W_COLOURS + self.num_players].tolist()

    @colours.setter
    def colours(self, colours) -> None:
        self._w[0, W_COLOURS:W_COLOURS + self.num_players] = colours

    @property
    def cards_used(self) -> int:
        """Ritual cards drawn so far; the next card is RITUAL_CARDS[cards_used]."""
        return int(self._w[0, W_CARDS])

    @property
    def pending(self) -> list[int]:
        """Spaces (1-based, ascending) with a pending ritual."""
        if not self._w[0, W_NPEND]:
            return []
        return (np.flatnonzero(self._b[0, _PENDING]) + 1).tolist()

    def druids(self) -> np.ndarray:
        """(60, 5) int array: druids of each colour on each space (row i = space i+1)."""
        return self._b[0, B_DRUIDS:_DRUID_END].astype(np.int64).reshape(NUM_SPACES, NUM_COLOURS)

    def counts(self) -> np.ndarray:
        return self._b[0, B_COUNT:B_COUNT + NUM_SPACES].astype(np.int64)

    def scores(self) -> np.ndarray:
        """The 5 colour scores from rituals (without the end-of-game card bonus)."""
        return self._w[0, W_SCORES:W_SCORES + NUM_COLOURS].copy()

    def ritual_cards(self) -> np.ndarray:
        return self._w[0, W_RITUAL:W_RITUAL + self.num_players].copy()

    def colour_scores(self) -> list[int]:
        """`scores()` as a fresh list of ints (no array: for bots' and rewards' inner loops)."""
        return self._w[0, W_SCORES:W_SCORES + NUM_COLOURS].tolist()

    def ritual_cards_of(self, seat: int) -> int:
        """Ritual cards held by `seat` (public)."""
        return self._w[0, W_RITUAL:W_RITUAL + self.num_players].tolist()[seat]

    def resolved(self) -> np.ndarray:
        return self._b[0, B_RESOLVED:B_RESOLVED + NUM_SPACES].astype(bool)

    def _mask(self) -> np.ndarray:
        """bool (1, 330): the mover's legal actions, from the batched kernel."""
        out = np.empty((1, NUM_ACTIONS), dtype=np.bool_)
        _core.legal_mask(self._b, self._w, out)
        return out

    def legal_actions(self) -> np.ndarray:
        """Ascending int64 array of legal action ids; empty when terminal. Read-only (cached)."""
        cache = self._legal_cache
        if cache is None:
            ids = np.empty(NUM_ACTIONS, dtype=np.int64)
            cache = ids[:_legal_actions(self._b, self._w, 0, ids)]
            cache.flags.writeable = False  # shared with clones: callers must not mutate it
            self._legal_cache = cache
        return cache

    def legal_mask(self) -> np.ndarray:
        """int8 (330,) mask of the legal actions of the player to move."""
        return self._mask()[0].view(np.int8)

    def is_legal(self, action) -> bool:
        if type(action) in _INT_TYPES and 0 <= action < NUM_ACTIONS:
            return not _core._illegal(self._b, self._w, 0, int(action))
        try:
            self._check_action(action)
        except ValueError:
            return False
        return True

    def final_colour_scores(self) -> np.ndarray:
        """F-E2: colour scores plus +1 per ritual card held by that colour's player."""
        w = self._w[0].tolist()
        out = w[W_SCORES:W_SCORES + NUM_COLOURS]
        for seat in range(self.num_players):
            out[w[W_COLOURS + seat]] += w[W_RITUAL + seat]
        return np.asarray(out, dtype=np.int64)

    def seat_scores(self) -> list[float]:
        """Each seat's score: the final score of its colour (F-E2). The suite's common name
        (`tabletop_rl.envs.game_state.GameState`); `final_colour_scores()` scores all 5 colours."""
        final = self.final_colour_scores()
        return [float(final[c]) for c in self.colours]

    def winners(self) -> list[int]:
        """Winning seats, ascending (F-E3, F-E4); [] before the end."""
        if not self._w[0, W_TERMINAL]:
            return []
        final, colours, cards = self.final_colour_scores(), self.colours, self.ritual_cards().tolist()
        best = max(int(final[c]) for c in colours)  # F-E3: neutral colours cannot win
        tied = [p for p in range(self.num_players) if final[colours[p]] == best]
        fewest = min(cards[p] for p in tied)  # F-E4
        return [p for p in tied if cards[p] == fewest]

    def returns(self) -> np.ndarray:
        """win_loss returns per seat: zeros before the end."""
        if not self._w[0, W_TERMINAL]:
            return np.zeros(self.num_players, dtype=np.float64)
        return np.asarray(win_loss_returns(self.winners(), self.num_players), dtype=np.float64)

    # ------------------------------------------------------------------ transitions
    def _check_action(self, action) -> int:
        """`action` as an int if it is legal; else a ValueError naming it and why (the rule id)."""
        if type(action) is not int:
            action = one_integer(action)  # a 0-d integer array (SB3's predict) is its integer
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}; got {action!r} ({type(action).__name__})")
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action {a} is out of range 0..{NUM_ACTIONS - 1}")
        if self._w[0, W_TERMINAL]:
            raise ValueError(f"action {a} ({action_to_string(a)}) is illegal: the game is over")
        if self._w[0, W_NPEND]:
            if a >= NUM_MOVE_ACTIONS and self._b[0, B_PENDING + a - RESOLVE_OFFSET - 1]:
                return a
            raise ValueError(
                f"action {a} ({action_to_string(a)}) is illegal: rituals are pending on spaces "
                f"{self.pending}; choose one with a resolve action (F-R2)"
            )
        if a >= NUM_MOVE_ACTIONS:
            raise ValueError(f"action {a} ({action_to_string(a)}) is illegal: no ritual is pending on that space")
        if not self._b[0, B_MOVE_OK + a]:
            raise ValueError(f"action {a} ({action_to_string(a)}) is illegal: {self._why_move_illegal(a)}")
        return a

    def _why_move_illegal(self, a: int) -> str:
        src, dst = MOVE_SRC[a], MOVE_DST[a]
        n_src, n_dst = int(self._b[0, B_COUNT + src]), int(self._b[0, B_COUNT + dst])
        if n_src == 0:
            return f"source space {src + 1} is empty (F-T1)"
        if n_dst == 0:
            return f"destination space {dst + 1} is empty; moving into an empty space is illegal (F-T1)"
        if self.big_stack_merge:
            return (f"source space {src + 1} holds {n_src} druids (7+), more than the "
                    f"{n_dst} on the destination (F-T3, F-T4)")
        return f"source space {src + 1} holds {n_src} druids; 7 or more cannot move (F-T3)"

    def apply(self, action) -> None:
        """Play `action` for the current player. Illegal input raises ValueError, state unchanged."""
        # One kernel call checks and plays an integer action; anything else (or an illegal one)
        # goes through the checks, which name the problem.
        if type(action) in _INT_TYPES:
            a = int(action)
            if 0 <= a < NUM_ACTIONS and _apply_checked(self._b, self._w, 0, a, self.big_stack_merge, self.num_players):
                self._legal_cache = None
                return
        a = self._check_action(action)  # raises: the kernel refused it, or it is not a plain int
        if not _apply_checked(self._b, self._w, 0, a, self.big_stack_merge, self.num_players):
            raise RuntimeError(f"action {a}: the kernel refused an action the checks found legal")
        self._legal_cache = None

    # ------------------------------------------------------------------ information sets
    def information_state(self, seat: int) -> dict:
        """What `seat` knows (F-I1): `to_dict()` with every other seat's colour replaced by -1."""
        d = self.to_dict()
        d["colours"] = [c if p == seat else -1 for p, c in enumerate(self.colours)]
        return d

    def sample_consistent(self, seat: int, rng: np.random.Generator) -> "FaeState":
        """A full state drawn uniformly from those `seat` cannot tell apart from this one.

        In Fae the only hidden information is the other seats' colours, and no public event
        constrains them (moves and rituals are open to every player), so they are drawn uniformly
        among the colours `seat` does not hold. Reads nothing hidden from `seat`.
        """
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be in 0..{self.num_players - 1}; got {seat}")
        s = self.clone()
        own = self.colours[seat]
        others = [c for c in range(NUM_COLOURS) if c != own]
        drawn = rng.permutation(others)[: self.num_players - 1].tolist()
        s.colours = [own if p == seat else drawn.pop(0) for p in range(self.num_players)]
        return s

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict:
        """Plain-python snapshot with exactly DICT_KEYS; `from_dict(to_dict())` round-trips."""
        w, n = self._w[0].tolist(), self.num_players
        terminal = bool(w[W_TERMINAL])
        return {
            "version": DICT_VERSION,
            "num_players": n,
            "big_stack_merge": self.big_stack_merge,
            "druids": self._b[0, B_DRUIDS:_DRUID_END].reshape(NUM_SPACES, NUM_COLOURS).tolist(),
            "colours": w[W_COLOURS:W_COLOURS + n],
            "scores": w[W_SCORES:W_SCORES + NUM_COLOURS],
            "ritual_cards": w[W_RITUAL:W_RITUAL + n],
            "current_player": -1 if terminal else w[W_CURRENT],
            "pending_rituals": self.pending,
            "resolved": (np.flatnonzero(self._b[0, B_RESOLVED:B_RESOLVED + NUM_SPACES]) + 1).tolist(),
            "terminal": terminal,
            "history": [
                {"moved": w[W_MOVED + NUM_COLOURS * p:W_MOVED + NUM_COLOURS * (p + 1)],
                 "points": w[W_POINTS + NUM_COLOURS * p:W_POINTS + NUM_COLOURS * (p + 1)],
                 "last_action": w[W_LAST + p]}
                for p in range(n)
            ],
        }

    @classmethod
    def from_dict(cls, d: dict, conserved: bool = True) -> "FaeState":
        """Rebuild a state; a ValueError names the key of any missing, unknown or bad entry.

        `conserved=True` (default, for any dict from a file) also rejects positions play cannot
        reach: druids gone without a ritual, scores the resolved spaces cannot give, more druids
        in a region than the moves recorded (`fae_rl.serialization`). `conserved=False` skips
        only those checks: for rule scenarios set up by hand (a few stacks on an empty board)."""
        return state_from_dict(_Parts, d, conserved=conserved).to_state()

    # ------------------------------------------------------------------ display
    def action_to_string(self, action: int) -> str:
        return action_to_string(action)

    def string_to_action(self, text: str) -> int:
        """Action id of 'move 4->32' / '4->32' / '4 32' / 'resolve 17' (see `fae_rl.board.string_to_action`)."""
        return string_to_action(text)

    def view_text(self, seat: int) -> str:
        """What `seat` may see, as text: the public board (`str(self)`) and, while the game runs, its own
        colour. It never depends on another seat's colour (F-I1)."""
        from fae_rl.render import view_text

        return view_text(self, seat)

    def space_text(self, space: int) -> str:
        """Space `space` (1..60): terrain, druids and its neighbours with theirs."""
        from fae_rl.render import space_text

        return space_text(self, space)

    def __str__(self) -> str:
        from fae_rl.render import render_text

        return render_text(self)

    def __repr__(self) -> str:
        return (f"FaeState(num_players={self.num_players}, cards_used={self.cards_used}, "
                f"current_player={self.current_player}, terminal={self.is_terminal()})")

    def __eq__(self, other) -> bool:
        return isinstance(other, FaeState) and self.to_dict() == other.to_dict()

    __hash__ = None  # mutable
