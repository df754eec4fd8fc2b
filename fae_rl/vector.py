"""`FaeVector`: N Fae games stepped at once, exact to `FaeState`, for fast batched training.

    from fae_rl.vector import FaeVector
    v = FaeVector(num_envs=1024, num_players=2, big_stack_merge=False)
    v.reset(seeds)          # game i dealt exactly as FaeState.new(num_players, seed=seeds[i], big_stack_merge=...)
    v.current_player        # int64 (N,): the seat to act, -1 where the game is over
    v.terminated            # bool (N,)
    v.legal_mask()          # bool (N, 330): the current mover's legal actions; all False where over
    v.observe()             # float32 (N, D): row i == fae_rl.observe(state_i, current_player_i); zeros where over
    v.step(actions)         # int (N,): applied to every unfinished game; finished games' entries are ignored
    v.returns()             # float64 (N, num_players): FaeState.returns() of each game (zeros until over)
    v.state(i)              # a FaeState equal (to_dict) to game i

For a training loop, on top (same meanings):
- `observe(seats=None, history="summary", out=None)`: row i == `fae_rl.observe(state_i, seats[i],
  history)`; seats default to the movers, a seat of -1 gives zeros (so finished games, by default);
  an explicit seat observes a finished game too (its final position). `out` is filled in place.
- `legal_mask(out=None)`: likewise into a preallocated bool array.
- `reset_done(seeds)`: deals again only the finished games, game i with `seeds[i]` (the other entries
  are ignored), and returns their indices: the auto-reset of a VecEnv.
- `scores()` (N, 5) colour scores from rituals, `final_colour_scores()` (N, 5) with the ritual-card
  bonus (F-E2), `winners()` bool (N, num_players) (F-E3, F-E4; all False before the end),
  `colours()` (N, num_players), `cards_used` (N,).
- `greedy_actions(rng, games=None)`: for each unfinished game an action of the greedy bot's best set
  (`agents/fae_greedy.py`: one-move margin lookahead searching every ritual resolution order),
  ties broken uniformly with `rng` (one Generator, or a sequence of N Generators, one per game);
  -1 for finished games; `games=` (a bool mask or game indices) computes only those games
  (-1 for the others). `margins()` gives the values it maximises (`fae_rl.margin`).

Errors: an illegal action raises ValueError naming the game index, the action and why, and no
game changes (every action is checked before any is applied); malformed inputs (wrong shape,
non-integers, seats out of range) raise ValueError too.

Representation: a struct of arrays (`fae_rl.vector_core`: one uint8 and one int64 row per game)
stepped by numba kernels; observations by `fae_rl.obs_kernel` (the same kernel `fae_rl.observe`
uses), greedy margins by `fae_rl.margin`. Kernels are compiled once per machine (`cache=True`:
~14-19 s cold for all of them, ~1 s to load from `__pycache__` afterwards). Dealing uses numpy's
Generator per game, exactly as `FaeState.new` (~55 us a game, so it is the slow part of an
auto-reset: ~1 us per step amortised over a ~47-move random game).
Building a FaeVector fixes glibc's malloc thresholds for the process once (`_settle_malloc`: freed
heap is kept for reuse rather than trimmed and refaulted every step, which made a fresh process that
never observed several times slower; issue 38), unless the user set them.

Speed (`python benchmarks/bench_vector.py`: N = 1024 games, 2 players, uniformly random legal
play, 1 process, engine time only: the clock runs inside legal_mask/observe/step, and for
connect_four_v3 inside last()/step(); 2-core machine, other jobs paused, load ~2):

    contender                              steps/s   ratio  vs
    connect_four_v3 raw_env (last+step)      17656
    connect_four_v3 env() (last+step)         9300
    FaeVector mask+step                    2297380   130.1  raw_env   (target >= 100)
    FaeVector observe+mask+step             490876    52.8  env()     (target >= 50)
    FaeVector observe(none)+mask+step       665112    71.5  env()
    FaeVector greedy_actions                 91415 positions/s
    reset_done                               23948 games dealt/s (off the clock above)
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

from fae_rl import margin as _margin
from fae_rl import obs_kernel as _obs
from fae_rl import vector_core as _core
from fae_rl.board import NUM_ACTIONS, NUM_COLOURS, NUM_MOVE_ACTIONS, NUM_RITUAL_CARDS, NUM_SPACES
from fae_rl.observation import _check_history, observation_size
from fae_rl.options import check_option
from fae_rl.serialization import DRUIDS_PER_COLOUR, MAX_MOVED, MAX_POINTS
from fae_rl.state import _REGION_COLOURS, FaeState, _check_num_players
from fae_rl.vector_core import (
    B_COUNT,
    W_NPEND,
    B_DRUIDS,
    B_MOVE_OK,
    B_PENDING,
    B_RESOLVED,
    W_CARDS,
    W_COLOURS,
    W_CURRENT,
    W_LAST,
    W_MOVED,
    W_POINTS,
    W_RITUAL,
    W_SCORES,
    W_TERMINAL,
)
from tabletop_rl.envs.game_state import integers
from tabletop_rl.shown import shown

_SEATS = 4  # seat-indexed blocks of the int64 rows are padded to MAX_PLAYERS

# glibc <malloc.h>: mallopt parameters, and the ceiling glibc itself lets its dynamic mmap threshold
# reach on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX); the trim threshold is twice it, as glibc sets them.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 32 << 20
_TRIM_THRESHOLD = 2 * _MMAP_THRESHOLD
_MALLOC_ENV = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_")
_malloc_settled: bool | None = None  # None: not tried yet in this process


def _settle_malloc() -> bool:
    """Keep freed heap memory for reuse in this process (glibc only; once per process; True if set).

    Issue 38: a fresh process stepped several times slower until its first `observe()`. Not the
    kernels: glibc's malloc starts with a 128 KiB mmap threshold and raises it (and the trim
    threshold, to twice it) only when a larger mmapped block is freed. A mask+step loop picking
    random legal actions with numpy frees 2.7 MB blocks (np.cumsum's (N, 330) int64 at N = 1024), so
    the trim threshold sat at 5.4 MB while one step's temporaries peaked just above it: every step
    grew the heap with brk, faulted its pages in afresh and trimmed them off again. observe() ended
    it by accident: its float32 (N, 1703) result (7 MB), once freed, lifted both thresholds above that
    peak (FantastiqaVector's construction frees a block as large). Fixing both here, at glibc's own
    ceiling, ends it from the first step for every loop in the process, numpy's temporaries
    included; the cost is up to 64 MiB of freed heap kept. Thresholds the user set (MALLOC_*_
    variables, GLIBC_TUNABLES glibc.malloc.*) are left alone. Measured: benchmarks/ab_fae_vector_observe.py.
    """
    global _malloc_settled
    if _malloc_settled is not None:
        return _malloc_settled
    _malloc_settled = False
    try:
        glibc = bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError, AttributeError):  # not glibc, or no confstr (Windows)
        glibc = False
    if not glibc or any(k in os.environ for k in _MALLOC_ENV) or "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    # The mmap threshold first: setting either one stops glibc's own adjustment, and a trim
    # threshold without it would leave every block over 128 KiB to mmap (a fault per page, each time).
    if mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD):
        _malloc_settled = bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))
    return _malloc_settled


def _check_num_envs(num_envs) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int; got {num_envs!r}")
    return int(num_envs)


def _bad(name: str, problem: str) -> ValueError:
    return ValueError(f"set_state: state.{name} {problem}")


def _check_fields(state: FaeState, n: int) -> None:
    """The ranges of every field of the state's rows that `set_state` copies, so that no kernel
    indexes past a table or a block with them (issue 36: a state changed by hand, seat 9 or a count
    of 255, was written into the rows). Only ranges (a few us): `FaeState.from_dict` checks what play
    reaches. The fields are named as `FaeState.to_dict` names them."""
    b, w = state._b, state._w
    for name, row, dtype, size in (("_b", b, np.uint8, _core.B_SIZE), ("_w", w, np.int64, _core.W_SIZE)):
        ok = isinstance(row, np.ndarray) and row.dtype == dtype and row.shape == (1, size)
        if not (ok and row.flags.c_contiguous):
            raise _bad(name, f"must be a C-contiguous {np.dtype(dtype).name} array of shape (1, {size}); "
                             f"got {shown(row)}")
    b, w = b[0], w[0]

    def check(name, values, lo, hi):
        if values.size and (values.min() < lo or values.max() > hi):
            raise _bad(name, f"must hold values in {lo}..{hi}; got {values.tolist()}")

    check("druids", b[B_DRUIDS:B_COUNT], 0, DRUIDS_PER_COLOUR)
    check("counts", b[B_COUNT:B_RESOLVED], 0, NUM_SPACES)
    check("resolved", b[B_RESOLVED:B_PENDING], 0, 1)
    check("pending_rituals", b[B_PENDING:B_MOVE_OK], 0, 1)
    check("move_ok", b[B_MOVE_OK:B_MOVE_OK + NUM_MOVE_ACTIONS], 0, 1)
    flagged = int(b[B_PENDING:B_MOVE_OK].sum())
    if w[W_NPEND] != flagged:
        raise _bad("pending_rituals", f"count {w[W_NPEND]} is not the {flagged} spaces flagged")
    colours = w[W_COLOURS:W_COLOURS + n]
    check("colours", colours, 0, NUM_COLOURS - 1)
    if len(set(colours.tolist())) != n:
        raise _bad("colours", f"must be distinct; got {colours.tolist()}")
    check("scores", w[W_SCORES:W_SCORES + NUM_COLOURS], 0, MAX_POINTS)
    check("ritual_cards", w[W_RITUAL:W_RITUAL + n], 0, NUM_RITUAL_CARDS)
    held = int(w[W_RITUAL:W_RITUAL + n].sum())
    if held != w[W_CARDS]:
        raise _bad("cards_used", f"must be the ritual cards held ({held}); got {w[W_CARDS]}")
    check("terminal", w[W_TERMINAL:W_TERMINAL + 1], 0, 1)
    check("current_player", w[W_CURRENT:W_CURRENT + 1], 0, n - 1)
    check("history.moved", w[W_MOVED:W_MOVED + NUM_COLOURS * n], 0, MAX_MOVED)
    check("history.points", w[W_POINTS:W_POINTS + NUM_COLOURS * n], 0, MAX_POINTS)
    check("history.last_action", w[W_LAST:W_LAST + n], -1, NUM_MOVE_ACTIONS - 1)
    for name, start, width in (("ritual_cards", W_RITUAL, 1), ("colours", W_COLOURS, 1),
                               ("history.moved", W_MOVED, NUM_COLOURS), ("history.points", W_POINTS, NUM_COLOURS)):
        if w[start + width * n:start + width * _SEATS].any():
            raise _bad(name, f"must be 0 for the seats past {n}")
    if (w[W_LAST + n:W_LAST + _SEATS] != -1).any():
        raise _bad("history.last_action", f"must be -1 for the seats past {n}")


class FaeVector:
    """N Fae games of one table size and rule set, stepped together (see the module docstring)."""

    def __init__(self, num_envs: int, num_players: int = 2, big_stack_merge: bool = False):
        self.num_envs = _check_num_envs(num_envs)
        self.num_players = _check_num_players(num_players)
        check_option("big_stack_merge", big_stack_merge)
        self.big_stack_merge = bool(big_stack_merge)
        _settle_malloc()  # before the first step, not at the first observe() (issue 38)
        self._b = np.zeros((self.num_envs, _core.B_SIZE), dtype=np.uint8)
        self._w = np.zeros((self.num_envs, _core.W_SIZE), dtype=np.int64)
        self._not_own = np.zeros((self.num_envs, NUM_COLOURS), dtype=np.bool_)  # margins' default `against`
        self._dealt = False

    # ------------------------------------------------------------------ input checks
    def _check_dealt(self) -> None:
        if not self._dealt:
            raise ValueError("FaeVector: call reset(seeds) before using the games")

    def _int_array(self, values, name: str) -> np.ndarray:
        return np.ascontiguousarray(integers(values, name, (self.num_envs,)))

    def _out(self, out, shape, dtype) -> np.ndarray:
        if out is None:
            return np.empty(shape, dtype=dtype)
        if not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != dtype or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous {np.dtype(dtype).name} array of shape {shape}; "
                             f"got {getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
        return out

    # ------------------------------------------------------------------ dealing
    def _deal(self, games: np.ndarray, seeds: np.ndarray) -> None:
        """Deal `games` exactly as FaeState.new does (F-S1 board, F-S2 spirits), one Generator each."""
        k = games.size
        orders = np.empty((k, NUM_SPACES), dtype=np.int64)
        colours = np.empty((k, self.num_players), dtype=np.int64)
        for j, seed in enumerate(seeds[games]):
            rng = np.random.default_rng(int(seed))
            orders[j] = rng.permuted(_REGION_COLOURS, axis=1).ravel()
            colours[j] = rng.permutation(NUM_COLOURS)[:self.num_players]
        b, w = _core.deal_rows(orders, colours)
        self._b[games] = b
        self._w[games] = w

    def reset(self, seeds) -> None:
        """Deal every game: game i exactly as `FaeState.new(num_players, seed=seeds[i], big_stack_merge)`."""
        seeds = self._int_array(seeds, "seeds")
        self._deal(np.arange(self.num_envs), seeds)
        self._dealt = True

    def reset_done(self, seeds) -> np.ndarray:
        """Deal again only the games that are over, game i with `seeds[i]` (other entries ignored).

        Returns the indices of the games dealt (for an auto-resetting VecEnv).
        """
        self._check_dealt()
        seeds = self._int_array(seeds, "seeds")
        done = np.flatnonzero(self._w[:, W_TERMINAL])
        if done.size:
            self._deal(done, seeds)
        return done

    # ------------------------------------------------------------------ queries
    @property
    def num_actions(self) -> int:
        """Width of `legal_mask()` (the suite's `BatchedGame` protocol)."""
        return NUM_ACTIONS

    @property
    def obs_size(self) -> int:
        """Width of `observe()` with its default history ("summary")."""
        return observation_size("summary")

    @property
    def terminated(self) -> np.ndarray:
        """bool (N,): True where the game is over."""
        self._check_dealt()
        return self._w[:, W_TERMINAL] != 0

    @property
    def current_player(self) -> np.ndarray:
        """int64 (N,): the seat to act, -1 where the game is over."""
        self._check_dealt()
        return np.where(self._w[:, W_TERMINAL] != 0, -1, self._w[:, W_CURRENT])

    @property
    def cards_used(self) -> np.ndarray:
        """int64 (N,): ritual cards drawn so far in each game."""
        self._check_dealt()
        return self._w[:, W_CARDS].copy()

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool (N, 330): the current mover's legal actions; all False where the game is over."""
        self._check_dealt()
        out = self._out(out, (self.num_envs, NUM_ACTIONS), np.bool_)
        _core.legal_mask(self._b, self._w, out)
        return out

    def observe(self, seats=None, history: str = "summary", out: np.ndarray | None = None) -> np.ndarray:
        """float32 (N, D): row i == `fae_rl.observe(state_i, seats[i], history)`.

        `seats` defaults to the current movers; a seat of -1 (a finished game, by default) gives a
        row of zeros. `out`, if given, is a C-contiguous float32 (N, D) array written in place.
        """
        self._check_dealt()
        _check_history(history)
        if seats is None:
            seats = self.current_player
        else:
            seats = self._int_array(seats, "seats")
            if ((seats < -1) | (seats >= self.num_players)).any():
                raise ValueError(f"seats must be in -1..{self.num_players - 1}; got {seats.tolist()}")
        out = self._out(out, (self.num_envs, observation_size(history)), np.float32)
        _obs.encode(self._b, self._w, seats, self.num_players, history == "summary", out)
        return out

    def scores(self) -> np.ndarray:
        """int64 (N, 5): the colour scores from rituals (`FaeState.scores()`)."""
        self._check_dealt()
        return self._w[:, W_SCORES:W_SCORES + NUM_COLOURS].copy()

    def ritual_cards(self) -> np.ndarray:
        """int64 (N, num_players): ritual cards each seat took."""
        self._check_dealt()
        return self._w[:, W_RITUAL:W_RITUAL + self.num_players].copy()

    def colours(self) -> np.ndarray:
        """int64 (N, num_players): each seat's secret colour (full information: not for policies)."""
        self._check_dealt()
        return self._w[:, W_COLOURS:W_COLOURS + self.num_players].copy()

    def own_colour(self, seats) -> np.ndarray:
        """int64 (N,): the colour of seat seats[i] in game i (what that seat itself may know)."""
        self._check_dealt()
        seats = self._int_array(seats, "seats")
        if ((seats < 0) | (seats >= self.num_players)).any():
            raise ValueError(f"seats must be in 0..{self.num_players - 1}; got {seats.tolist()}")
        return self._w[np.arange(self.num_envs), W_COLOURS + seats]

    def history_points(self) -> np.ndarray:
        """int64 (N, num_players, 5): points each colour scored in rituals each seat triggered (public)."""
        self._check_dealt()
        n = self.num_players
        return self._w[:, W_POINTS:W_POINTS + NUM_COLOURS * n].reshape(self.num_envs, n, NUM_COLOURS).copy()

    def history_moved(self) -> np.ndarray:
        """int64 (N, num_players, 5): druids of each colour each seat has moved (public)."""
        self._check_dealt()
        n = self.num_players
        return self._w[:, W_MOVED:W_MOVED + NUM_COLOURS * n].reshape(self.num_envs, n, NUM_COLOURS).copy()

    def final_colour_scores(self) -> np.ndarray:
        """int64 (N, 5): colour scores plus +1 per ritual card held by that colour's seat (F-E2)."""
        out = self.scores()
        np.add.at(out, (np.arange(self.num_envs)[:, None], self.colours()), self.ritual_cards())
        return out

    def winners(self) -> np.ndarray:
        """bool (N, num_players): the winning seats of each finished game (F-E3, F-E4); all False before."""
        final = np.take_along_axis(self.final_colour_scores(), self.colours(), axis=1)
        tied = final == final.max(axis=1, keepdims=True)  # F-E3: only the seats' colours compete
        cards = np.where(tied, self.ritual_cards(), np.iinfo(np.int64).max)
        won = tied & (cards == cards.min(axis=1, keepdims=True))  # F-E4
        return won & self.terminated[:, None]

    def returns(self) -> np.ndarray:
        """float64 (N, num_players): each game's `FaeState.returns()` (zeros until it is over)."""
        won = self.winners()
        k = won.sum(axis=1, keepdims=True)
        n = self.num_players
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(won, 1.0 / k, -1.0 / (n - k))
        out[(k[:, 0] == 0) | (k[:, 0] == n)] = 0.0  # nobody or everybody won: all 0 (win_loss_returns)
        return out

    def state(self, i: int) -> FaeState:
        """A `FaeState` equal (to_dict) to game i (a copy: changing it does not change the game)."""
        self._check_dealt()
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"game index must be an int in 0..{self.num_envs - 1}; got {i!r}")
        b, w = self._b[i:i + 1].copy(), self._w[i:i + 1].copy()
        return FaeState._from_rows(self.num_players, self.big_stack_merge, b, w)

    def set_state(self, i: int, state: FaeState) -> None:
        """Make game i equal (to_dict) to `state` (a FaeState of this table size and rule set).

        The inverse of `state(i)`: a checkpoint restores its games with it (from `FaeState.from_dict`,
        which validates them), and `fae_rl.action_features` values one position with the batched kernels.
        """
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"game index must be an int in 0..{self.num_envs - 1}; got {i!r}")
        if not isinstance(state, FaeState):
            raise ValueError(f"state must be a FaeState; got {type(state).__name__}")
        if (state.num_players, state.big_stack_merge) != (self.num_players, self.big_stack_merge):
            raise ValueError(f"state has {state.num_players} players, big_stack_merge={state.big_stack_merge}; this "
                             f"FaeVector has {self.num_players}, {self.big_stack_merge}")
        _check_fields(state, self.num_players)  # before anything is written: a refused state changes nothing
        if not self._dealt:
            self._deal(np.arange(self.num_envs), np.zeros(self.num_envs, dtype=np.int64))
            self._dealt = True
        self._b[i] = state._b[0]  # a FaeState is one game in this layout
        self._w[i] = state._w[0]

    # ------------------------------------------------------------------ transitions
    def step(self, actions, games=None) -> None:
        """Apply `actions[i]` to every unfinished game i; entries of finished games are ignored.

        `games` (optional, bool (N,) or game indices): step only these games; the others are left as they are and
        their entries ignored, as for finished games (a training loop moves the opponents' games
        while the learner's wait).
        An illegal action raises ValueError naming the game index and the action, and no game changes.
        """
        self._check_dealt()
        actions = self._int_array(actions, "actions")
        games = self._games_mask(games)
        if games is not None:
            idx = np.flatnonzero(games)
            if idx.size == self.num_envs:
                games = None
            else:
                sub = FaeVector.__new__(FaeVector)
                sub.num_envs, sub.num_players, sub.big_stack_merge = idx.size, self.num_players, self.big_stack_merge
                sub._b, sub._w, sub._dealt = self._b[idx], self._w[idx], True
                try:
                    sub.step(actions[idx])
                except ValueError as e:
                    g, _, rest = str(e).partition(": ")
                    raise ValueError(f"game {idx[int(g.split()[1])]}: {rest}") from None
                self._b[idx], self._w[idx] = sub._b, sub._w
                return
        bad = _core.first_illegal(self._b, self._w, actions)
        if bad >= 0:
            a = int(actions[bad])
            try:  # the scalar core words the reason, with the rule id (F-x)
                self.state(bad)._check_action(a)
            except ValueError as e:
                raise ValueError(f"game {bad}: {e}") from None
            raise ValueError(f"game {bad}: action {a} is illegal")  # unreachable unless the cores disagree
        _core.step(self._b, self._w, actions, self.big_stack_merge, self.num_players)

    # ------------------------------------------------------------------ greedy opponent
    def margins(self, out: np.ndarray | None = None, games=None, against=None) -> np.ndarray:
        """float64 (N, 330): the greedy bot's value of each legal action of the mover (`fae_rl.margin`);
        -inf where the action is illegal or the game is over.

        `games`: bool (N,) or game indices, compute only these rows (the others of `out` are left as they are).
        `against`: bool (N, 5), the colours whose gain counts against the mover; by default every
        colour but the mover's own (the greedy bot, which does not know the others' colours).
        """
        self._check_dealt()
        out = self._out(out, (self.num_envs, NUM_ACTIONS), np.float64)
        games = self._games_mask(games)
        games = np.ones(self.num_envs, dtype=np.bool_) if games is None else games
        if against is None:
            against = self._not_own
            own = self._w[np.arange(self.num_envs), W_COLOURS + self._w[:, W_CURRENT]]
            against[:] = True
            against[np.arange(self.num_envs), own] = False
        else:
            against = np.asarray(against, dtype=np.bool_)
            if against.shape != (self.num_envs, NUM_COLOURS):
                raise ValueError(f"against must be a bool array of shape ({self.num_envs}, {NUM_COLOURS}); got {against.shape}")
        _margin.margins(self._b, self._w, against, games, out)
        return out

    def margin_features(self, out: np.ndarray, games: np.ndarray, likely: np.ndarray | None, scale: float,
                        clip: float, raw: np.ndarray | None = None) -> np.ndarray:
        """The kernel behind `fae_rl.features.batch_features` (see there): fills float32 (N, 660)
        `out` (or (N, 1320) with `likely`, bool (N, 5)) for the flagged `games`, zeros elsewhere;
        `raw` (float64 (N, 330)), if given, receives those games' greedy margins."""
        self._check_dealt()
        versus = likely is not None
        out = self._out(out, (self.num_envs, (4 if versus else 2) * NUM_ACTIONS), np.float32)
        raw = self._out(raw, (self.num_envs, NUM_ACTIONS), np.float64)
        games = np.asarray(games, dtype=np.bool_)
        if games.shape != (self.num_envs,):
            raise ValueError(f"games must be a bool array of shape ({self.num_envs},); got {games.shape}")
        likely = np.zeros((self.num_envs, NUM_COLOURS), dtype=np.bool_) if likely is None else \
            np.ascontiguousarray(likely, dtype=np.bool_)
        _margin.features(self._b, self._w, likely, versus, games, float(scale), float(clip), out, raw)
        return out

    def greedy_actions(self, rng, games=None) -> np.ndarray:
        """int64 (N,): per unfinished game, one of the greedy bot's best actions (ties uniform); -1 where over.

        `rng`: a numpy Generator, or a sequence of N Generators (game i draws from rng[i]).
        `games` (optional, bool (N,) or game indices): compute only for these games, -1 for the
        others (where the caller's own policy moves). A game gets the action the full call would
        give it: a single Generator still draws N numbers, and only the chosen games' own
        Generators draw.
        """
        self._check_dealt()
        games = self._games_mask(games)
        if isinstance(rng, np.random.Generator):
            u = rng.random(self.num_envs)
        else:
            rngs = list(rng)
            if len(rngs) != self.num_envs or not all(isinstance(r, np.random.Generator) for r in rngs):
                raise ValueError(f"rng must be a numpy Generator or a sequence of {self.num_envs} Generators")
            u = np.zeros(self.num_envs)
            for i in (range(self.num_envs) if games is None else np.flatnonzero(games).tolist()):
                u[i] = rngs[i].random()
        out = np.full(self.num_envs, -1, dtype=np.int64)
        if games is None:
            _margin.pick_best(self.margins(), u, out)
            return out
        idx = np.flatnonzero(games)
        picked = np.empty(idx.size, dtype=np.int64)
        _margin.pick_best(self.margins(games=games)[idx], u[idx], picked)
        out[idx] = picked
        return out

    def _games_mask(self, games) -> np.ndarray | None:
        """`games` as a bool (N,) mask: None stays None; a bool (N,) array, or distinct int game
        indices in 0..N-1. Anything else raises ValueError naming the problem."""
        if games is None:
            return None
        games = np.asarray(games)
        wanted = f"games must be a bool array of shape ({self.num_envs},) or distinct int game indices in " \
                 f"0..{self.num_envs - 1}"
        if games.dtype == np.bool_:
            if games.shape != (self.num_envs,):
                raise ValueError(f"{wanted}; got a bool array of shape {games.shape}")
            return games
        if games.ndim != 1 or not (games.size == 0 or np.issubdtype(games.dtype, np.integer)):
            raise ValueError(f"{wanted}; got a {games.ndim}-D {games.dtype} array")
        games = games.astype(np.int64)
        if games.size and (games.min() < 0 or games.max() >= self.num_envs):
            raise ValueError(f"{wanted}; got indices {games.min()}..{games.max()}")
        if np.unique(games).size != games.size:
            raise ValueError(f"{wanted}; got a repeated index")
        mask = np.zeros(self.num_envs, dtype=np.bool_)
        mask[games] = True
        return mask

    def __repr__(self) -> str:
        where = f"{int(self.terminated.sum())} of {self.num_envs} over" if self._dealt else "not dealt"
        return (f"FaeVector(num_envs={self.num_envs}, num_players={self.num_players}, "
                f"big_stack_merge={self.big_stack_merge}; {where})")


__all__ = ["FaeVector"]
