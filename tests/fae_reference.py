"""The reference implementation of the Fae rules: the Python rules `FaeState` held before it became
one row of the batched kernels (issue 38), and the greedy margin the bots computed by playing clones.

`FaeState` (fae_rl/state.py) now calls `fae_rl.vector_core`'s kernels for legal actions and apply,
and the greedy bot and the Fae MCTS call `fae_rl.margin`'s kernels. Nothing in the package imports
this module: `tests/test_fae_reference.py` plays random games through `ReferenceState` and
`FaeState` and compares them at every step (masks, states after apply, scores, terminal, winners),
and compares `fae_rl.margin`'s greedy values with `reference_greedy_values` (the greedy bot's former
computation: every resolution order of pending rituals searched, by playing clones).

Representation (the former FaeState's, chosen for a fast Python step):
- `_druids[5*i + c]`: bytearray, druids of colour c on space i+1; `_count[i]` their sum.
- `_move_ok`: bytearray(270), 1 where the move action is legal ignoring pending rituals. Only the
  edges touching the two spaces whose counts changed are recomputed after a move.
- Ritual resolution only ever changes spaces that are isolated, whose edges are already illegal,
  so it never touches `_move_ok`.
"""
from __future__ import annotations

import numpy as np

from fae_rl.board import (
    IN_MOVES,
    INCIDENT_MOVES,
    MAX_PLAYERS,
    MAX_STACK_TO_MOVE,
    MIN_PLAYERS,
    MOVE_DST,
    MOVE_DST_ARRAY,
    MOVE_SRC,
    MOVE_SRC_ARRAY,
    NEIGHBOURS,
    NUM_ACTIONS,
    NUM_COLOURS,
    NUM_MOVE_ACTIONS,
    NUM_RITUAL_CARDS,
    NUM_SPACES,
    OUT_MOVES,
    RESOLVE_OFFSET,
    RITUAL_CARDS,
    TERRAIN,
    action_to_string,
    string_to_action,
)
from fae_rl.serialization import DICT_VERSION, state_from_dict
from fae_rl.options import check_option
from fae_rl.state import _check_num_players, _int_rows, win_loss_returns
from tabletop_rl.envs.game_state import one_integer

_EMPTY = np.zeros(0, dtype=np.int64)
_EMPTY.flags.writeable = False
_INT_TYPES = (int, np.int64, np.int32, np.intp)
_REGION_COLOURS = np.tile(np.arange(NUM_COLOURS), (NUM_SPACES // 5, 1))
_ROW_STARTS = np.arange(NUM_SPACES) * NUM_COLOURS
_ONES_SPACES = b"\x01" * NUM_SPACES
_ONES_MOVES = b"\x01" * NUM_MOVE_ACTIONS
_ALL_ACTIONS = np.arange(NUM_ACTIONS, dtype=np.int64)


class ReferenceState:
    """The Python rules of a Fae position (the former `FaeState`), for the differential tests only."""

    __slots__ = (
        "num_players", "big_stack_merge", "_druids", "_count", "colours", "_scores",
        "_ritual_cards", "_cards_used", "_current", "_pending", "_resolved", "_terminal",
        "_move_ok", "_hist_moved", "_hist_points", "_hist_last", "_legal_cache",
    )
    num_players: int  # declared for type checkers (slots hold no annotations)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(cls, num_players: int = 2, seed=None, big_stack_merge: bool = False) -> "ReferenceState":
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
    def from_deal(cls, num_players: int, regions, colours, big_stack_merge: bool = False) -> "ReferenceState":
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
        flat = np.zeros(NUM_SPACES * NUM_COLOURS, dtype=np.uint8)
        flat[_ROW_STARTS + np.asarray(rows, dtype=np.int64).ravel()] = 1
        s = cls._blank(num_players, bool(big_stack_merge), colours)
        s._druids = bytearray(flat.tobytes())
        # One druid on every space: every move along every edge is legal (F-T1).
        s._count = bytearray(_ONES_SPACES)
        s._move_ok = bytearray(_ONES_MOVES)
        return s

    @classmethod
    def _blank(cls, num_players, big_stack_merge, colours) -> "ReferenceState":
        """Every field of a start-of-game state except the board (druids, counts, legal moves)."""
        s = cls.__new__(cls)
        s.num_players = num_players
        s.big_stack_merge = big_stack_merge
        s.colours = list(colours)
        s._scores = [0] * NUM_COLOURS  # F-S3
        s._ritual_cards = [0] * num_players
        s._cards_used = 0
        s._current = 0  # F-S4
        s._pending = []
        s._resolved = bytearray(NUM_SPACES)
        s._terminal = False
        s._hist_moved = [[0] * NUM_COLOURS for _ in range(num_players)]
        s._hist_points = [[0] * NUM_COLOURS for _ in range(num_players)]
        s._hist_last = [-1] * num_players
        s._legal_cache = None
        return s

    @classmethod
    def _from_parts(cls, num_players, big_stack_merge, flat_druids, colours) -> "ReferenceState":
        """A start-of-game state from a flat list of 300 druid counts (space-major) and colours."""
        s = cls._blank(num_players, big_stack_merge, colours)
        s._druids = bytearray(flat_druids)
        s._count = bytearray(sum(s._druids[i:i + 5]) for i in range(0, 5 * NUM_SPACES, 5))
        cnt = np.frombuffer(s._count, dtype=np.uint8).astype(np.int64)
        n_src, n_dst = cnt[MOVE_SRC_ARRAY], cnt[MOVE_DST_ARRAY]
        ok = (n_src > 0) & (n_dst > 0) & (  # F-T1, F-T3, F-T4 for every move at once
            (n_src <= MAX_STACK_TO_MOVE) | (big_stack_merge & (n_dst >= n_src)))
        s._move_ok = bytearray(ok.astype(np.uint8).tobytes())
        return s

    def clone(self) -> "ReferenceState":
        s = ReferenceState.__new__(ReferenceState)
        s.num_players = self.num_players
        s.big_stack_merge = self.big_stack_merge
        s._druids = bytearray(self._druids)
        s._count = bytearray(self._count)
        s.colours = self.colours[:]
        s._scores = self._scores[:]
        s._ritual_cards = self._ritual_cards[:]
        s._cards_used = self._cards_used
        s._current = self._current
        s._pending = self._pending[:]
        s._resolved = bytearray(self._resolved)
        s._terminal = self._terminal
        s._hist_moved = [r[:] for r in self._hist_moved]
        s._hist_points = [r[:] for r in self._hist_points]
        s._hist_last = self._hist_last[:]
        s._move_ok = bytearray(self._move_ok)
        s._legal_cache = self._legal_cache  # immutable once built (callers get copies)
        return s

    def __deepcopy__(self, memo) -> "ReferenceState":
        # copy.deepcopy (OpenSpiel clones its Python states with it) gets the fast clone.
        return self.clone()

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        """Seat to act, or -1 when the game is over."""
        return -1 if self._terminal else self._current

    def is_terminal(self) -> bool:
        return self._terminal

    @property
    def cards_used(self) -> int:
        """Ritual cards drawn so far; the next card is RITUAL_CARDS[cards_used]."""
        return self._cards_used

    @property
    def pending(self) -> list[int]:
        """Spaces (1-based, ascending) with a pending ritual."""
        return sorted(i + 1 for i in self._pending)

    def druids(self) -> np.ndarray:
        """(60, 5) int array: druids of each colour on each space (row i = space i+1)."""
        return np.frombuffer(self._druids, dtype=np.uint8).astype(np.int64).reshape(NUM_SPACES, NUM_COLOURS)

    def counts(self) -> np.ndarray:
        return np.frombuffer(self._count, dtype=np.uint8).astype(np.int64)

    def scores(self) -> np.ndarray:
        """The 5 colour scores from rituals (without the end-of-game card bonus)."""
        return np.asarray(self._scores, dtype=np.int64)

    def ritual_cards(self) -> np.ndarray:
        return np.asarray(self._ritual_cards, dtype=np.int64)

    def colour_scores(self) -> list[int]:
        """`scores()` as a fresh list of ints (no array: for bots' and rewards' inner loops)."""
        return self._scores[:]

    def ritual_cards_of(self, seat: int) -> int:
        """Ritual cards held by `seat` (public)."""
        return self._ritual_cards[seat]

    def resolved(self) -> np.ndarray:
        return np.frombuffer(self._resolved, dtype=np.uint8).astype(bool)

    def legal_actions(self) -> np.ndarray:
        """Ascending int64 array of legal action ids; empty when terminal. Read-only (cached)."""
        cache = self._legal_cache
        if cache is None:
            if self._terminal:
                cache = _EMPTY.view()
            elif self._pending:
                cache = np.asarray(sorted(RESOLVE_OFFSET + 1 + i for i in self._pending), dtype=np.int64)
            else:
                cache = np.frombuffer(self._move_ok, dtype=np.uint8).nonzero()[0]
            cache.flags.writeable = False  # shared with clones: callers must not mutate it
            self._legal_cache = cache
        return cache

    def legal_mask(self) -> np.ndarray:
        """int8 (330,) mask of the legal actions of the player to move."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self._terminal:
            return mask
        if self._pending:
            for i in self._pending:
                mask[RESOLVE_OFFSET + 1 + i] = 1
        else:
            mask[:NUM_MOVE_ACTIONS] = np.frombuffer(self._move_ok, dtype=np.uint8)
        return mask

    def is_legal(self, action) -> bool:
        if type(action) in _INT_TYPES and 0 <= action < NUM_MOVE_ACTIONS and not self._pending and not self._terminal:
            return bool(self._move_ok[action])
        try:
            self._check_action(action)
        except ValueError:
            return False
        return True

    def final_colour_scores(self) -> np.ndarray:
        """F-E2: colour scores plus +1 per ritual card held by that colour's player."""
        out = list(self._scores)
        for seat, colour in enumerate(self.colours):
            out[colour] += self._ritual_cards[seat]
        return np.asarray(out, dtype=np.int64)

    def seat_scores(self) -> list[float]:
        """Each seat's score: the final score of its colour (F-E2). The suite's common name
        (`tabletop_rl.envs.game_state.GameState`); `final_colour_scores()` scores all 5 colours."""
        final = self.final_colour_scores()
        return [float(final[c]) for c in self.colours]

    def winners(self) -> list[int]:
        """Winning seats, ascending (F-E3, F-E4); [] before the end."""
        if not self._terminal:
            return []
        final = self.final_colour_scores()
        best = max(int(final[c]) for c in self.colours)  # F-E3: neutral colours cannot win
        tied = [p for p in range(self.num_players) if final[self.colours[p]] == best]
        fewest = min(self._ritual_cards[p] for p in tied)  # F-E4
        return [p for p in tied if self._ritual_cards[p] == fewest]

    def returns(self) -> np.ndarray:
        """win_loss returns per seat: zeros before the end."""
        if not self._terminal:
            return np.zeros(self.num_players, dtype=np.float64)
        return np.asarray(win_loss_returns(self.winners(), self.num_players), dtype=np.float64)

    # ------------------------------------------------------------------ transitions
    def _check_action(self, action) -> int:
        if type(action) is not int:
            action = one_integer(action)  # a 0-d integer array (SB3's predict) is its integer
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be an int in 0..{NUM_ACTIONS - 1}; got {action!r} ({type(action).__name__})")
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action {a} is out of range 0..{NUM_ACTIONS - 1}")
        if self._terminal:
            raise ValueError(f"action {a} ({action_to_string(a)}) is illegal: the game is over")
        if self._pending:
            if a >= NUM_MOVE_ACTIONS and (a - RESOLVE_OFFSET - 1) in self._pending:
                return a
            raise ValueError(
                f"action {a} ({action_to_string(a)}) is illegal: rituals are pending on spaces "
                f"{self.pending}; choose one with a resolve action (F-R2)"
            )
        if a >= NUM_MOVE_ACTIONS:
            raise ValueError(f"action {a} ({action_to_string(a)}) is illegal: no ritual is pending on that space")
        if not self._move_ok[a]:
            raise ValueError(f"action {a} ({action_to_string(a)}) is illegal: {self._why_move_illegal(a)}")
        return a

    def _why_move_illegal(self, a: int) -> str:
        src, dst = MOVE_SRC[a], MOVE_DST[a]
        if self._count[src] == 0:
            return f"source space {src + 1} is empty (F-T1)"
        if self._count[dst] == 0:
            return f"destination space {dst + 1} is empty; moving into an empty space is illegal (F-T1)"
        if self.big_stack_merge:
            return (f"source space {src + 1} holds {self._count[src]} druids (7+), more than the "
                    f"{self._count[dst]} on the destination (F-T3, F-T4)")
        return f"source space {src + 1} holds {self._count[src]} druids; 7 or more cannot move (F-T3)"

    def apply(self, action) -> None:
        """Play `action` for the current player. Illegal input raises ValueError, state unchanged."""
        # Fast path for the common case (a legal move); everything else goes through the checks.
        if type(action) in _INT_TYPES:
            a = int(action)
            if 0 <= a < NUM_MOVE_ACTIONS and not self._pending and not self._terminal and self._move_ok[a]:
                self._legal_cache = None
                self._move(a)
                return
        a = self._check_action(action)
        self._legal_cache = None
        if a >= NUM_MOVE_ACTIONS:
            space = a - RESOLVE_OFFSET - 1
            self._pending.remove(space)
            self._resolve(space)
            if not self._terminal and not self._pending:
                self._end_turn()
            return
        self._move(a)

    def _move(self, a: int) -> None:
        src, dst = MOVE_SRC[a], MOVE_DST[a]
        p = self._current
        druids, count, ok = self._druids, self._count, self._move_ok
        hist = self._hist_moved[p]
        i, j = 5 * src, 5 * dst
        for c in range(NUM_COLOURS):
            n = druids[i + c]
            if n:
                druids[j + c] += n
                hist[c] += n
                druids[i + c] = 0
        n_dst = count[dst] = count[dst] + count[src]
        count[src] = 0
        self._hist_last[p] = a
        for e in INCIDENT_MOVES[src]:
            ok[e] = 0  # the source is empty now
        # The destination grew: recompute its edges (inlined F-T1, F-T3, F-T4 for speed).
        big = self.big_stack_merge
        for e in OUT_MOVES[dst]:
            if ok[e] and n_dst > MAX_STACK_TO_MOVE:
                ok[e] = 1 if (big and count[MOVE_DST[e]] >= n_dst) else 0
        if big:
            for e in IN_MOVES[dst]:
                n_src = count[MOVE_SRC[e]]
                if n_src > MAX_STACK_TO_MOVE:
                    ok[e] = 1 if n_dst >= n_src else 0
        # F-R1: only occupied neighbours of the vacated source can become isolated.
        resolved = self._resolved
        isolated = []
        for n in NEIGHBOURS[src]:
            if count[n] and not resolved[n]:
                for m in NEIGHBOURS[n]:
                    if count[m]:
                        break
                else:
                    isolated.append(n)
        if len(isolated) == 1:
            self._resolve(isolated[0])
        elif isolated:
            self._pending = isolated  # F-R2: the mover chooses the order, one action each
            return
        if not self._terminal:
            self._end_turn()

    def _resolve(self, space: int) -> None:
        """Resolve the ritual on `space` (0-based) with the next card (F-R3..F-R8)."""
        value, blessed, cursed = RITUAL_CARDS[self._cards_used]
        self._cards_used += 1
        p = self._current
        self._ritual_cards[p] += 1  # F-R7: the mover keeps the card whatever happens
        self._resolved[space] = 1  # F-R8
        druids, i = self._druids, 5 * space
        terrain = TERRAIN[space]
        if cursed is not None and terrain == cursed:  # F-R4
            druids[i:i + 5] = [0] * NUM_COLOURS
            self._count[space] = 0
        else:
            row = druids[i:i + 5]
            if all(row):  # F-R5 strife: all 5 colours present
                row = [0 if n == 1 else n for n in row]
                druids[i:i + 5] = row
                self._count[space] = sum(row)
            remaining = self._count[space]
            if remaining:
                gain = remaining + (value if (blessed is None or terrain == blessed) else 0)  # F-R6
                for c in range(NUM_COLOURS):
                    if row[c]:
                        self._scores[c] += gain
                        self._hist_points[p][c] += gain
        if self._cards_used >= NUM_RITUAL_CARDS:  # F-E1 (and F-R9: leftovers are not scored)
            self._terminal = True
            self._pending = []

    def _end_turn(self) -> None:
        self._current = (self._current + 1) % self.num_players
        if 1 not in self._move_ok:  # F-T5: no legal move for the next player ends the game
            self._terminal = True

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict:
        """Plain-python snapshot with exactly DICT_KEYS; `from_dict(to_dict())` round-trips."""
        return {
            "version": DICT_VERSION,
            "num_players": self.num_players,
            "big_stack_merge": self.big_stack_merge,
            "druids": [list(self._druids[5 * i:5 * i + 5]) for i in range(NUM_SPACES)],
            "colours": self.colours[:],
            "scores": self._scores[:],
            "ritual_cards": self._ritual_cards[:],
            "current_player": self.current_player,
            "pending_rituals": self.pending,
            "resolved": [i + 1 for i in range(NUM_SPACES) if self._resolved[i]],
            "terminal": self._terminal,
            "history": [
                {"moved": self._hist_moved[p][:], "points": self._hist_points[p][:], "last_action": self._hist_last[p]}
                for p in range(self.num_players)
            ],
        }

    @classmethod
    def from_dict(cls, d: dict, conserved: bool = True) -> "ReferenceState":
        """Rebuild a state; a ValueError names the key of any missing, unknown or bad entry.

        `conserved=True` (default, for any dict from a file) also rejects positions play cannot
        reach: druids gone without a ritual, scores the resolved spaces cannot give, more druids
        in a region than the moves recorded (`fae_rl.serialization`). `conserved=False` skips
        only those checks: for rule scenarios set up by hand (a few stacks on an empty board)."""
        return state_from_dict(cls, d, conserved=conserved)

    def __eq__(self, other) -> bool:
        return isinstance(other, ReferenceState) and self.to_dict() == other.to_dict()

    __hash__ = None  # mutable


# ------------------------------------------------------------------ the greedy margin, by play
def _margin(state, seat: int, base_scores, base_cards: int) -> float:
    own = state.colours[seat]
    scores = state.colour_scores()
    others = max(scores[c] - base_scores[c] for c in range(NUM_COLOURS) if c != own)
    return (scores[own] - base_scores[own]) + (state.ritual_cards_of(seat) - base_cards) - others


def _best_after(state, seat: int, base_scores, base_cards: int) -> float:
    """Margin after `state`, resolving any pending rituals of `seat` in the best order."""
    if state.is_terminal() or not state.pending:
        return _margin(state, seat, base_scores, base_cards)
    best = -np.inf
    for a in state.legal_actions():
        child = state.clone()
        child.apply(int(a))
        best = max(best, _best_after(child, seat, base_scores, base_cards))
    return best


def reference_greedy_values(state, seat: int) -> dict[int, float]:
    """The greedy bot's former `greedy_values`: value(a) for every legal action of `seat` (the
    mover), each found by playing `a` on a clone and every order of the rituals it leaves pending.
    Works on any state with the public API (`ReferenceState` or `FaeState`)."""
    base_scores, base_cards = state.colour_scores(), state.ritual_cards_of(seat)
    values = {}
    for a in state.legal_actions():
        child = state.clone()
        child.apply(int(a))
        values[int(a)] = _best_after(child, seat, base_scores, base_cards)
    return values
