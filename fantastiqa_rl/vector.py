"""`FantastiqaVector`: N Fantastiqa games stepped at once, exact to `FantastiqaState`.

    from fantastiqa_rl.vector import FantastiqaVector
    v = FantastiqaVector(num_envs=1024, num_players=2)   # goal, card_set and every rule option of FantastiqaState.new
    v.reset(seeds)          # game i dealt exactly as FantastiqaState.new(num_players, seed=seeds[i], **options)
    v.current_player        # int64 (N,): the seat to act, -1 where the game is over
    v.terminated            # bool (N,)
    v.legal_mask()          # bool (N, num_actions): the mover's legal actions; all False where over
    v.observe()             # float32 (N, D): row i == fantastiqa_rl.observe(state_i, current_player_i); zeros where over
    v.step(actions)         # int (N,): applied to every unfinished game; finished games' entries are ignored
    v.returns()             # float64 (N, num_players): FantastiqaState.returns() of each game (zeros until over)
    v.state(i)              # a FantastiqaState equal (to_dict) to game i (a copy)
    v.set_state(i, state)   # load game i from a FantastiqaState (for search and bots)
    v.reset_done(seeds)     # deal again only the finished games; returns their indices
    v.greedy_actions()      # int64 (N,): the greedy bot's move per game (-1 where over), with
                            # FantastiqaVector(..., greedy=FantastiqaGreedyAgent) (see below)
    v.counts                # what ran where: kernel_steps, fallback_steps, kernel_masks, fallback_masks,
                            # kernel_shuffles (kernel steps that drew from a Generator: reshuffles),
                            # kernel_greedy, fallback_greedy (after the first greedy_actions),
                            # unpacks (states built from rows), pay_masks_by_counts / pay_masks_enumerated
                            # (the payment masks' two paths, vector_pay)
    v.phase_counts          # the same per decision (int64 per phase)

`legal_mask(out=None)` and `observe(seats=None, out=None)` write into preallocated buffers: without
`out`, into the vector's own (N, A) bool and (N, D) float32 arrays, which the next call overwrites
(copy a result to keep it). `observe(seats=...)` observes game i from seat seats[i] (-1: zeros; a
finished game too, its final position), as `fantastiqa_rl.observe(state_i, seats[i])`.

Design (by the lead, issue 25): the games live in fixed-size integer arrays
(`fantastiqa_rl.vector_state`: card lists, board, tokens, supply, turn sub-state; an exact round
trip to `FantastiqaState`), and numba kernels port the scalar core's hot decisions over them
(`fantastiqa_rl.vector_kernels` dispatches; the rule queries are `vector_rules`, the transitions
`vector_steps`, each a line-by-line port of the scalar method it names). Anything a kernel does not
port runs through the scalar core itself, per game and step (the fallback): the game's
`FantastiqaState` (cached while valid, else built from its row) gets `legal_actions` / `apply`, and is
packed back. So exactness holds by construction for everything not ported, and the ported paths are
tested equal at every step (tests/test_fantastiqa_vector.py, tests/test_fantastiqa_vector_kernels.py).
Chance: each game keeps its own chance Generators (the scalar core's objects, shared copy-on-write
with `state(i)` copies exactly as `FantastiqaState.clone` shares them), and they stay the one source
of chance. A kernel draws only in a reshuffle (a draw that reshuffles the discard, Q-X1, or
RESHUFFLE, Q-F4), with the mover's Generator handed to it as PCG64 state words
(`fantastiqa_rl.vector_chance`: numpy's PCG64 and `Generator.shuffle` ported bit-exact); `step`
asks the kernel first without Generators, then again, with them, for the games it left (~3% of
random-play steps), and writes the states the kernel leaves back into the Generators.

Ported (kernel masks and steps; `counts` / `phase_counts` say what ran where): setup (but the last
placement, which shuffles), MAIN (mask: not with the Abbey, whose EXPLORE is the scalar core's;
steps: DONE, every turn action, every free action), FREE_MENU, ADV_MOVE, ADV_PAY / QUEST_PAY
(payments card by card, wild pairs included; the mask from counts per symbol, `vector_pay`;
completing a quest), MOVE_DEST, STATUE_OPTION, BUY, CHEST, RELEASE, COMMIT_TARGET, WITHDRAW_FROM,
TARGET_SEAT, the artifact effects with GLASS, BELL, BREW_CARD and WARDROBE, and END_DISCARD with
the end of the turn (draw, turn limit, Ravens, replenish, the end by score). Not ported (the scalar
core): a quest completion that reaches the goal (the end of the game) or any with the Abbey's goal
lines, the Abbey's decisions and the end of setup (it shuffles the decks with other sources).
Every option value runs the kernels (the option flags are kernel inputs), except a card file whose
quest names one symbol twice (`vector_rules.Cards.ok`), which runs wholly on the scalar core; with
the Abbey the MAIN mask is the scalar core's.

The observation: one kernel (`fantastiqa_rl.obs_kernel.encode`) writes each row straight from the
game's rows into the caller's array, bit-equal to `fantastiqa_rl.observe` (the Abbey / team block is
the scalar `abbey_features` of the game's state).

The greedy opponent: the rules package may not import bots (tests/test_import_graph.py), so the bot
comes in as an argument: `FantastiqaVector(..., greedy=FantastiqaGreedyAgent)`
(`tabletop_rl.agents.fantastiqa_greedy`; any zero-argument factory of an `Agent` with `uses_state`);
without one, `greedy_actions` raises ValueError saying so. For the bot class itself (it names its
batched form, `FantastiqaGreedyAgent.batched_form == "fantastiqa_rl.vector_greedy"`, on the class,
so a subclass or another factory does not inherit it) `greedy_actions` runs the policy's numba port
over the rows (`fantastiqa_rl.vector_greedy`, every decision, the Abbey and teams included), with
the scalar bot on that game's state where the port declines (a Glass trial through a step the
step kernel leaves to the scalar core); the bot's memory per seat (its statue plan and Glass
choice) is shared by both paths, so every move is the bot's (tests/test_fantastiqa_vector_greedy.py,
at every step). Any other factory: one instance per (game, seat) on the game's `FantastiqaState`.
`counts["kernel_greedy"]` / `["fallback_greedy"]` (and `phase_counts`) say which decided.

Errors: an illegal action raises ValueError naming the game index, the action and why (the scalar
core's words, with the rule id), and no game changes (every action is checked before any is
applied); malformed inputs (wrong shape, non-integers, seats out of range) raise ValueError too.
An option value is refused at construction exactly as `FantastiqaState.new` refuses it (every value
it accepts is supported: a decision the kernels do not port is played by the scalar core's rules).

Speed (`python benchmarks/bench_fantastiqa_vector.py`: 2 players, uniformly random legal play from
positions spread along whole games, engine time only; the table, the kernels' own times and why the
targets are missed are in docs/benchmarks.md). The issue's targets are >= 20x each; measured in one
run on the 2 quiet cores (2026-12-02, load 0.8-1.0):

    contender                                          per s   ratio   vs                 target
    FantastiqaVector N=1024 mask+step                 496244    3.95   scalar core        >= 20  missed
    FantastiqaVector N=1024 observe+mask+step         269822   10.70   fantastiqa_rl.env  >= 20  missed
    FantastiqaVector N=1024 greedy_actions            312525    9.77   scalar greedy bot  >= 20  missed
    FantastiqaVector N=1024 greedy_actions, mask held 436543   13.65   scalar greedy bot  >= 20  missed
    numba compile: 89 s cold cache, 1.0 s warm; the greedy kernel's first call 111 s cold, 0.1 s warm

The kernels alone (`--kernels`, rows in cache) take 0.51 us a game for the mask, 0.62 for the step
and 1.24 for the observation, and the greedy kernel 1.92 us a decision: more than the 20x budgets
(~0.38 us for a mask and a step, ~2.0 us with the observation, ~1.55 us a greedy decision).
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl import obs_kernel as _kernel
from fantastiqa_rl import vector_kernels as K
from fantastiqa_rl import vector_chance as CH
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl import vector_greedy as VG
from fantastiqa_rl import vector_state as VS
from fantastiqa_rl.abbey_view import abbey_features
from fantastiqa_rl.chance import RNG_SEAT0
from fantastiqa_rl.observation import _encoder
from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.envs.game_state import integers


_SEED = np.random.SeedSequence(0)   # any seed: a copy's state is overwritten (a SeedSequence made once is cheaper)


_NO_GENERATORS = np.empty((0, CH.STATE_WORDS), dtype=np.uint64)   # K.step's first pass: no shuffles


def _copy_generator(g: np.random.Generator) -> np.random.Generator:
    """A Generator in g's exact state, drawing apart from it."""
    new = np.random.Generator(np.random.PCG64(_SEED))
    new.bit_generator.state = g.bit_generator.state
    return new


def _check_num_envs(num_envs) -> int:
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int; got {num_envs!r}")
    return int(num_envs)


class FantastiqaVector:
    """N Fantastiqa games of one table size and rule set, stepped together (see the module docstring)."""

    def __init__(self, num_envs: int, num_players: int = 2, goal: str = "short", card_set: str | None = None,
                 greedy=None, **rule_options):
        self.num_envs = _check_num_envs(num_envs)
        if greedy is not None and not callable(greedy):
            raise ValueError(f"greedy must be a bot class or factory (e.g. FantastiqaGreedyAgent); got {greedy!r}")
        self._greedy = greedy
        # FantastiqaState.new checks every argument (a bad value raises ValueError naming it); the
        # probe game also gives the card tables the encoder and the kernels need.
        probe = FantastiqaState.new(num_players, seed=0, goal=goal, card_set=card_set, **rule_options)
        self.num_players = n = probe.n
        self.goal, self.card_set, self.options = goal, probe.card_set, probe.options
        self._rule_options = dict(rule_options)
        self.num_actions = probe.num_actions
        enc = _encoder(probe.card_set, probe.n)
        self.observation_size = self.obs_size = enc.size  # obs_size: the BatchedGame protocol's name
        self._tables = _kernel.Tables(enc).args()
        self._abbey_block = enc.layout["abbey"] if probe.opts["abbey"] or probe.opts["teams"] else None
        # the games: rows of (c, w) (vector_state), each game's own chance Generators beside them
        self._cap = VS.capacity(probe.g)
        self._fixed = VS.template(probe)
        self._strings = VS.Strings()
        cards = K.Cards(probe.g, probe.opts, n, goal=probe.goal)
        self._T = cards.args()
        self._kernels = cards.ok       # False: every decision by the scalar core (see vector_rules.Cards)
        self._quest0 = probe.layout.quest
        self._ws = R.workspace(self._cap, probe.layout.K)
        c_type, w_type = VS.row_dtypes(probe.g)
        self._c = np.zeros((self.num_envs, VS.num_lists(n) * self._cap), dtype=c_type)
        self._w = np.zeros((self.num_envs, VS.w_size(n)), dtype=w_type)
        self._limits = (int(np.iinfo(c_type).max), int(np.iinfo(w_type).max))
        self._rngs: list = [None] * self.num_envs
        self._own: list = [None] * self.num_envs
        # a FantastiqaState per game, valid where _obj_ok (the scalar fallback and the greedy bots use it)
        self._obj: list = [None] * self.num_envs
        self._obj_ok = np.zeros(self.num_envs, dtype=np.bool_)
        self._dealt = False
        self._cur = np.full(self.num_envs, -1, dtype=np.int64)     # current_player of each game
        self._legal = np.zeros((self.num_envs, self.num_actions), dtype=np.bool_)  # valid where _legal_ok
        self._legal_ok = np.zeros(self.num_envs, dtype=np.bool_)
        self._mask = np.zeros((self.num_envs, self.num_actions), dtype=np.bool_)
        self._obs = np.zeros((self.num_envs, self.observation_size), dtype=np.float32)
        self._agents: list | None = None   # greedy bots per (game, seat), made on first use
        # what ran where (tests assert the kernels ran; the benchmark prints it)
        self._counts = {"kernel_steps": 0, "fallback_steps": 0, "kernel_masks": 0, "fallback_masks": 0,
                        "kernel_shuffles": 0, "unpacks": 0, "pay_masks_by_counts": 0, "pay_masks_enumerated": 0}
        # the same per decision (phase index, actions.PHASES) the game was in
        self._phase_counts = {k: np.zeros(len(A.PHASES), dtype=np.int64) for k in
                              ("kernel_steps", "fallback_steps", "kernel_masks", "fallback_masks")}
        self._tally: list = []   # (what, phases, done) of the calls not yet added to the counts (_count)

    # ------------------------------------------------------------------ input checks
    def _check_dealt(self) -> None:
        if not self._dealt:
            raise ValueError("FantastiqaVector: call reset(seeds) before using the games")

    def _int_array(self, values, name: str) -> np.ndarray:
        return np.ascontiguousarray(integers(values, name, (self.num_envs,)))

    def _check_index(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.num_envs:
            raise ValueError(f"game index must be an int in 0..{self.num_envs - 1}; got {i!r}")
        return int(i)

    def _out(self, out, own: np.ndarray) -> np.ndarray:
        if out is None:
            return own
        if not isinstance(out, np.ndarray) or out.shape != own.shape or out.dtype != own.dtype \
                or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError(f"out must be a writeable C-contiguous {own.dtype.name} array of shape {own.shape}; "
                             f"got {getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
        return out

    # ------------------------------------------------------------------ rows <-> FantastiqaState
    def _store(self, games: list, states: list) -> None:
        """Pack `states` into the rows of `games` (they become those games, with their Generators)."""
        wire: list = []
        starts = []
        strings, pack = self._strings, VS.pack
        for s in states:
            starts.append(len(wire))
            pack(s, strings, wire)
        idx = np.asarray(games, dtype=np.int64)
        bad = VS.scatter(np.asarray(wire, dtype=np.int64), np.asarray(starts, dtype=np.int64), idx,
                         self._c, self._w, self._cap, *self._limits)
        if bad >= 0:   # not reachable by the rules (no zone holds more than every card); no row was written
            raise ValueError(f"game {games[bad]}: a card list longer than the {self._cap} the batch holds, or a "
                             f"value outside what its rows hold ({self._c.dtype} items, {self._w.dtype} scalars)")
        for i, s in zip(games, states):
            self._obj[i] = s
            self._rngs[i], self._own[i] = s._rngs, s._own
        self._obj_ok[idx] = True
        self._legal_ok[idx] = False
        self._update_cur(idx)

    def _count(self, what: str, phases: np.ndarray, done: np.ndarray) -> None:
        """Count games handled by a kernel (done == 1) or the scalar core, per phase. Kept aside and
        added up when `counts` or `phase_counts` is read (two bincounts a call were ~15% of a card-view
        learner's env time over 16 card files: many calls of a few games each)."""
        self._tally.append((what, phases, done))
        if len(self._tally) >= 4096:
            self._add_tally()

    def _add_tally(self) -> None:
        tally, self._tally = self._tally, []
        for what in {t[0] for t in tally}:
            phases = np.concatenate([t[1] for t in tally if t[0] == what])
            fast = np.concatenate([t[2] for t in tally if t[0] == what]) == 1
            for kind, sel in (("kernel_", fast), ("fallback_", ~fast)):
                name = kind + what
                self._counts[name] += int(sel.sum())
                self._phase_counts[name] += np.bincount(phases[sel], minlength=len(A.PHASES))

    @property
    def counts(self) -> dict:
        """What ran where (module docstring): a dict of ints."""
        if self._tally:
            self._add_tally()
        return self._counts

    @property
    def phase_counts(self) -> dict:
        """The same per decision: int64 per phase (actions.PHASES)."""
        if self._tally:
            self._add_tally()
        return self._phase_counts

    def _update_cur(self, idx: np.ndarray) -> None:
        w = self._w
        self._cur[idx] = np.where(w[idx, VS.W_PHASE] == A.TERMINAL, -1, w[idx, VS.W_CUR])

    def _game(self, i: int) -> FantastiqaState:
        """Game i as a FantastiqaState (the cached one, or built from its row): the scalar core's view."""
        if not self._obj_ok[i]:
            wire = VS.gather(self._c, self._w, i, self._cap).tolist()
            self._obj[i] = VS.unpack(wire, self._fixed, self._rngs[i], self._own[i], self._strings)
            self._obj_ok[i] = True
            self._counts["unpacks"] += 1
        return self._obj[i]

    # ------------------------------------------------------------------ dealing
    def _deal(self, games: list, seeds: np.ndarray) -> None:
        """Deal `games` (indices) with their seeds; a bad seed raises before any game changes."""
        bad = [int(seeds[i]) for i in games if seeds[i] < 0]
        if bad:
            raise ValueError(f"seeds must be non-negative ints; got {bad[:5]}")
        dealt = [FantastiqaState.new(self.num_players, seed=int(seeds[i]), goal=self.goal, card_set=self.card_set,
                                     **self._rule_options) for i in games]
        if games:
            self._store(games, dealt)
        self._dealt = True
        for i in games:
            self._reset_agents(i)

    def _reset_agents(self, i: int) -> None:
        if self._agents is not None:
            for agent in self._agents[i]:
                agent.reset()

    def reset(self, seeds) -> None:
        """Deal every game: game i exactly as `FantastiqaState.new(num_players, seed=seeds[i], **options)`."""
        self._deal(list(range(self.num_envs)), self._int_array(seeds, "seeds"))

    def reset_done(self, seeds) -> np.ndarray:
        """Deal again only the games that are over, game i with `seeds[i]` (other entries ignored).

        Returns the indices of the games dealt (for an auto-resetting VecEnv).
        """
        self._check_dealt()
        seeds = self._int_array(seeds, "seeds")
        done = np.flatnonzero(self._cur < 0)
        self._deal(done.tolist(), seeds)
        return done

    # ------------------------------------------------------------------ queries
    @property
    def terminated(self) -> np.ndarray:
        """bool (N,): True where the game is over."""
        self._check_dealt()
        return self._cur < 0

    @property
    def current_player(self) -> np.ndarray:
        """int64 (N,): the seat to act, -1 where the game is over."""
        self._check_dealt()
        return self._cur.copy()

    def _fill_legal(self, games: np.ndarray) -> None:
        """Make self._legal valid for `games` (unfinished): the kernel where ported, else the scalar core."""
        need = games[~self._legal_ok[games]]
        if not need.size:
            return
        legal = self._legal
        if self._kernels:    # the kernel clears each row of `need` before filling it
            done = K.legal(self._c, self._w, need, legal, self._cap, self._T, self._quest0, *self._ws)
        else:
            legal[need] = False
            done = np.zeros(need.size, dtype=np.int8)
        rest = need[done == 0].tolist()
        self._count("masks", self._w[need, VS.W_PHASE], done)
        wi = self._ws[0]
        for name, at in (("pay_masks_by_counts", R.WI_PAY_BY_COUNTS), ("pay_masks_enumerated", R.WI_PAY_ENUMERATED)):
            self._counts[name] += int(wi[at])
            wi[at] = 0
        for i in rest:
            legal[i, self._game(i).legal_actions()] = True
        self._legal_ok[need] = True

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool (N, num_actions): the current mover's legal actions; all False where the game is over."""
        self._check_dealt()
        out = self._out(out, self._mask)
        live = np.flatnonzero(self._cur >= 0)
        self._fill_legal(live)
        if live.size == self.num_envs:
            np.copyto(out, self._legal)
        else:
            out[:] = False
            out[live] = self._legal[live]
        return out

    def observe(self, seats=None, out: np.ndarray | None = None) -> np.ndarray:
        """float32 (N, D): row i == `fantastiqa_rl.observe(state_i, seats[i])`.

        `seats` defaults to the current movers; a seat of -1 (a finished game, by default) gives a
        row of zeros. Without `out`, the result is the vector's own buffer (overwritten by the next
        call); `out`, if given, is a C-contiguous float32 (N, D) array written in place.
        """
        self._check_dealt()
        if seats is None:
            seats = self._cur
        else:
            seats = self._int_array(seats, "seats")
            if ((seats < -1) | (seats >= self.num_players)).any():
                raise ValueError(f"seats must be in -1..{self.num_players - 1}; got {seats.tolist()}")
        out = self._out(out, self._obs)
        rows = np.flatnonzero(seats >= 0)
        if rows.size < self.num_envs:
            out[seats < 0] = 0.0
        if rows.size:
            _kernel.encode(self._c, self._w, rows, seats[rows], out, self.num_players, self._cap, *self._tables)
            if self._abbey_block is not None:
                block = self._abbey_block
                for i, seat in zip(rows.tolist(), seats[rows].tolist()):
                    out[i, block] = abbey_features(self._game(i), seat)
        return out

    def observe_cards(self, seats=None, out: np.ndarray | None = None) -> np.ndarray:
        """float32 (N, card_view.VIEW_SIZE): row i == `fantastiqa_rl.card_view.observe_cards(state_i, seats[i])`
        (the card view of `observe`'s row and the seat's mask, by the same `CardView.encode`); zeros where
        seats[i] is -1."""
        from fantastiqa_rl.card_view import VIEW_SIZE, card_view

        flat = FantastiqaVector.observe(self, seats)   # the flat rows (a subclass may observe otherwise); checks `seats`
        seats = self._cur.copy() if seats is None else np.asarray(seats)
        if out is None:
            out = np.zeros((self.num_envs, VIEW_SIZE), dtype=np.float32)
        elif not isinstance(out, np.ndarray) or out.shape != (self.num_envs, VIEW_SIZE) or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape ({self.num_envs}, {VIEW_SIZE})")
        mask = FantastiqaVector.legal_mask(self) & (seats == self._cur)[:, None]  # the seat's own mask (zeros: not to move)
        live = seats >= 0
        if live.all():
            card_view(self.card_set).encode(flat, mask, out=out)
        else:  # encode only the games asked for: the learner core asks for the few games a snapshot plays
            out[~live] = 0.0
            g = np.flatnonzero(live)
            if g.size:
                out[g] = card_view(self.card_set).encode(flat[g], mask[g])
        return out

    def returns(self) -> np.ndarray:
        """float64 (N, num_players): each game's `FantastiqaState.returns()` (zeros until it is over)."""
        self._check_dealt()
        n, w = self.num_players, self._w
        r = np.zeros((self.num_envs, n), dtype=np.float64)
        for i in np.flatnonzero(w[:, VS.W_NWIN] > 0).tolist():
            k = int(w[i, VS.W_NWIN])
            if k < n:      # as FantastiqaState.returns
                r[i] = -1.0 / (n - k)
                r[i, w[i, VS.W_WIN:VS.W_WIN + k]] = 1.0 / k
        return r

    def state(self, i: int) -> FantastiqaState:
        """A `FantastiqaState` equal (to_dict) to game i (a copy: changing it does not change the game)."""
        self._check_dealt()
        i = self._check_index(i)
        s = self._game(i)
        c = s.clone()      # the clone and game i now share their Generators copy-on-write
        self._own[i] = s._own
        return c

    def set_state(self, i: int, state: FantastiqaState) -> None:
        """Make game i equal (to_dict) to `state` (a copy of it), which must be a game of this vector's
        table size, goal, card file and rule options. The greedy bots of game i start afresh."""
        i = self._check_index(i)
        if not isinstance(state, FantastiqaState):
            raise ValueError(f"state must be a FantastiqaState; got {type(state).__name__}")
        mine = (self.num_players, self.goal, self.card_set, self.options)
        theirs = (state.num_players, state.goal_name, state.card_set, state.options)
        if theirs != mine:
            raise ValueError(f"state is a game of (num_players, goal, card_set, options) {theirs}; this "
                             f"FantastiqaVector plays {mine}")
        if not self._dealt:
            self.reset(np.zeros(self.num_envs, dtype=np.int64))
        mine = state.clone()
        mine._rngs = [_copy_generator(g) for g in state._rngs]   # game i draws apart from `state`
        mine._own = [True] * len(mine._rngs)
        self._store([i], [mine])
        self._reset_agents(i)

    # ------------------------------------------------------------------ transitions
    def step(self, actions, games=None) -> None:
        """Apply `actions[i]` to every unfinished game i (only where the bool (N,) `games` is True, if
        given); entries of finished or unchosen games are ignored.

        An illegal action raises ValueError naming the game index and the action, and no game changes.
        """
        self._check_dealt()
        actions = self._int_array(actions, "actions")
        live = np.flatnonzero(self._chosen(games))
        if not live.size:
            return
        self._fill_legal(live)
        moves = actions[live]
        bad = K.first_illegal(self._legal, live, moves)
        if bad >= 0:
            i, a = int(live[bad]), int(moves[bad])
            try:   # the scalar core words the reason (on a copy, so that no game changes)
                self.state(i).apply(a)
            except ValueError as e:
                raise ValueError(f"game {i}: {e}") from None
            raise ValueError(f"game {i}: action {a} is illegal")  # unreachable unless the mask and apply disagree
        phases = self._w[live, VS.W_PHASE]
        if self._kernels:
            done = K.step(self._c, self._w, live, moves, self._cap, self._T, self._quest0, _NO_GENERATORS)
            if not done.all():
                self._step_with_chance(live, moves, done)
        else:
            done = np.zeros(live.size, dtype=np.int8)
        self._count("steps", phases, done)
        fast = live[done == 1]
        self._obj_ok[fast] = False
        rest = done == 0
        slow, slow_moves = live[rest].tolist(), moves[rest].tolist()
        if slow:
            states = [self._game(i) for i in slow]
            for s, a in zip(states, slow_moves):
                s.apply(a)
            self._store(slow, states)
        self._legal_ok[live] = False
        self._update_cur(fast)

    def _step_with_chance(self, live: np.ndarray, moves: np.ndarray, done: np.ndarray) -> None:
        """The second pass of `step`, for the games the kernel left without Generators (a step that
        may shuffle: a draw reshuffling the discard, Q-X1, or RESHUFFLE, Q-F4): the kernel again, given
        each mover's Generator as state words (vector_chance), which it shuffles with exactly as
        `Generator.shuffle`; the states it leaves go back into the Generators (copied first where a
        copy shares one). done[g] becomes 1 where it stepped; the rest are the scalar core's."""
        left = np.flatnonzero(done == 0)
        games = live[left]
        seats = self._w[games, VS.W_CUR].tolist()
        rng = np.empty((left.size, CH.STATE_WORDS), dtype=np.uint64)
        for g, (i, p) in enumerate(zip(games.tolist(), seats)):
            rng[g] = CH.read(self._rngs[i][RNG_SEAT0 + p])
        before = rng.copy()
        again = K.step(self._c, self._w, games, moves[left], self._cap, self._T, self._quest0, rng)
        drew = (again == 1) & (rng != before).any(axis=1)   # a game left (0) is unchanged, its Generator too
        for g in np.flatnonzero(drew).tolist():
            CH.write(self._generator(int(games[g]), RNG_SEAT0 + seats[g]), rng[g])
        self._counts["kernel_shuffles"] += int(drew.sum())
        done[left] = again

    def _generator(self, i: int, source: int) -> np.random.Generator:
        """Game i's Generator of chance source `source`, copied first where it is shared with a copy
        (copy on write, as FantastiqaState._rng)."""
        rngs, own = self._rngs[i], self._own[i]
        if not own[source]:
            rngs = self._rngs[i] = list(rngs)
            rngs[source] = _copy_generator(rngs[source])
            own[source] = True
        return rngs[source]

    def _chosen(self, games) -> np.ndarray:
        """bool (N,): the unfinished games, of those `games` (a bool (N,) array, or None: all) names."""
        want = self._cur >= 0
        if games is not None:
            games = np.asarray(games)
            if games.shape != (self.num_envs,) or games.dtype != np.bool_:
                raise ValueError(f"games must be a bool array of shape ({self.num_envs},); got "
                                 f"{getattr(games, 'dtype', '')} {games.shape}")
            want &= games
        return want

    # ------------------------------------------------------------------ greedy opponent
    def greedy_actions(self, games=None) -> np.ndarray:
        """int64 (N,): per unfinished game, the move the `greedy` bot makes there (one bot per seat,
        as in a match); -1 where the game is over or not in `games` (bool (N,)). The bot that
        `fantastiqa_rl.vector_greedy` ports decides in its kernel, the scalar bot where the kernel
        leaves a game (counts["kernel_greedy"] / ["fallback_greedy"]); any other factory is run per game."""
        self._check_dealt()
        if self._greedy is None:
            raise ValueError("greedy_actions needs the bot: FantastiqaVector(..., greedy=FantastiqaGreedyAgent) "
                             "(from tabletop_rl.agents.fantastiqa_greedy)")
        want = self._chosen(games)
        if self._agents is None:
            self._greedy_batch = None
            if self._kernels and VG.ports(self._greedy):
                self._greedy_batch = VG.BatchedGreedy(self._greedy, self._fixed, self.num_envs)
                self._agents = self._greedy_batch.handles      # the vector's resets reach its memory
            else:
                self._agents = [[self._greedy() for _ in range(self.num_players)] for _ in range(self.num_envs)]
            for kind in ("kernel_greedy", "fallback_greedy"):
                self.counts[kind] = 0
                self.phase_counts[kind] = np.zeros(len(A.PHASES), dtype=np.int64)
        out = np.full(self.num_envs, -1, dtype=np.int64)
        live = np.flatnonzero(want)
        if self._greedy_batch is not None:
            out[live], fast = self._greedy_batch.actions(self, live)
        else:
            agents = self._agents
            for i in live.tolist():
                s = self._game(i)
                p = s.cur
                out[i] = agents[i][p].act(None, None, state=s, seat=p)
                self._own[i] = s._own   # a bot's clones share the Generators copy-on-write
            fast = np.zeros(live.size, dtype=np.bool_)
        self._count("greedy", self._w[live, VS.W_PHASE], fast)
        return out

    def __repr__(self) -> str:
        where = f"{int(self.terminated.sum())} of {self.num_envs} over" if self._dealt else "not dealt"
        return (f"FantastiqaVector(num_envs={self.num_envs}, num_players={self.num_players}, goal={self.goal!r}; "
                f"{where})")


__all__ = ["FantastiqaVector"]
