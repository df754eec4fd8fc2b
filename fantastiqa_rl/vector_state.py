"""N Fantastiqa games packed into two fixed-size integer arrays, with an exact round trip to `FantastiqaState`.

`fantastiqa_rl.vector.FantastiqaVector` holds its games here; the rules kernels
(`fantastiqa_rl.vector_kernels`) read and write these rows. One row per game:
- `w` int32 (N, W_SIZE): the scalars (phase, seat, turn sub-state, supply, board, open quests,
  per-seat counters padded to 4 seats, winners, end reason) and, at W_LEN + j, the length of list j;
- `c` (N, num_lists * cap): list j's items at c[j * cap : j * cap + length] (card instance ids,
  quest instances, effect triples), top of a deck LAST as in the state dict; uint8 where every item
  of the card file fits (the STAND-IN set: 207 instances), else int16 (`row_dtypes`).
The rows are small on purpose, for the caches at N = 1024 (the mask kernel: 0.51 us a game on rows in
cache, 0.68 out of it; with the inlined observation encoder, the smaller rows gave mask+step +9% and
observe+mask+step +16% alternated against int16 / int64 rows, docs/benchmarks.md). Two uint8 items
read from c must not be subtracted from each other in a kernel (numba types uint8 - uint8 as uint64).
Lists 0..G_LISTS-1 are the game's (`GLOBAL_LISTS`); seat p's lists follow at G_LISTS + P_LISTS * p
(`SEAT_LISTS`). A seat's committed map is three lists: its quests in insertion order (C_ORDER), the
committed cards (C_CARDS) and each card's quest (C_OF), in the order the cards were committed.
Strings (end_reason, effect ops) are ids into a per-vector table (`Strings`), so nothing about a card
or a rule text is compiled in.

Transfers go through a flat "wire" list of ints (the scalars, then the lengths of every list, then
their items): `pack(state, strings, out)` appends one state's wire (Python, one pass over its
lists), `scatter` writes wires into rows (numba); `gather` reads rows back into wires and
`unpack(wire, template, rngs)` builds the `FantastiqaState` (Python). The chance Generators never
enter the arrays: the vector keeps each game's own Generator objects beside them.
tests/test_fantastiqa_vector_state.py checks `to_dict` equality of the round trip at every step of
random games.
"""
from __future__ import annotations

import hashlib
from itertools import chain
from pathlib import Path

import numpy as np
from numba.core import types as nbtypes
from numba.core.caching import FunctionCache, IndexDataCacheFile
from numba.core.registry import CPUDispatcher

from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import NUM_OPEN_QUESTS, NUM_POSITIONS, NUM_SPACES
from fantastiqa_rl.cards import EFFECT_OPS as CARD_EFFECT_OPS
from fantastiqa_rl.state import FantastiqaState



# ---------------------------------------------------------------- the kernels' decorator
# The modules whose source the compiled kernels hold: the kernel modules, and the modules whose
# constants and tables they freeze in at compile time (numba reads a global's value once).
# A module that uses @kernel must be listed (its own file is no longer the stamp): `kernel` checks.
# Names are relative to fantastiqa_rl; a rule topic's modules are dotted ("statues.kernels").
_KERNEL_SOURCES = ("vector_state", "vector_chance", "vector_pay", "vector_rows", "vector_rules", "vector_steps",
                   "vector_kernels", "vector_greedy", "obs_kernel", "observation", "actions", "board", "cards",
                   "powers.rules", "powers.kernels", "statues.rules", "statues.kernels", "turn_flow.rules",
                   "turn_flow.kernels", "quests.rules", "quests.kernels", "setup.rules", "setup.kernels",
                   "adventure.rules", "adventure.kernels", "free_actions.rules", "free_actions.kernels",
                   "options", "abbey.rules")


def _sources_stamp() -> str:
    """A hash of every file in _KERNEL_SOURCES: the cache key of each kernel (`kernel`)."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for m in _KERNEL_SOURCES:
        h.update(m.encode() + b"\0" + here.joinpath(*m.split(".")).with_suffix(".py").read_bytes() + b"\0")
    return h.hexdigest()


_STAMP = _sources_stamp()


class _KernelCache(FunctionCache):
    """numba's cache (cache=True) stamps each function with its own file only, so a kernel kept the
    compiled code of another module's function it calls after that module changed. Here every
    kernel's index carries the hash of all the kernel sources: any change there makes every index
    stale, and numba compiles again and overwrites it (nothing is deleted)."""

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = IndexDataCacheFile(cache_path=self._cache_path, filename_base=self._impl.filename_base,
                                              source_stamp=_STAMP)


class _Kernel(CPUDispatcher):
    """A numba dispatcher compiled once per argument types. A plain njit function called from another
    one with a constant argument (a list id, a seat 0) compiles a specialization for that value
    (Literal[int](14)): the vector kernels compiled 446 specializations of 144 functions, 2.5x the
    182 distinct ones (the greedy kernel compiled the whole step tree three times: for i, 0 and 1)."""

    def get_call_template(self, args, kws):
        return super().get_call_template(tuple(nbtypes.unliteral(a) for a in args), kws)

    def enable_caching(self):
        self._cache = _KernelCache(self.py_func)


def kernel(fn):
    """@kernel: @njit(cache=True) for the vector kernels, one compile per argument types (`_Kernel`),
    cached under the hash of the kernel sources (`_KernelCache`)."""
    if fn.__module__.removeprefix("fantastiqa_rl.") not in _KERNEL_SOURCES:
        raise ValueError(f"@kernel on {fn.__module__}.{fn.__qualname__}: add its module to _KERNEL_SOURCES, or its "
                         f"cached code would outlive changes to its own file")
    disp = _Kernel(py_func=fn, locals={}, targetoptions={"nopython": True, "boundscheck": None})
    disp.enable_caching()
    return disp


MAX_SEATS = 4
# scalars of w
(W_PHASE, W_CUR, W_TURNS, W_NWIN) = range(4)          # W_NWIN: number of winners, -1 for None
W_WIN = 4                                             # 4 winner seats, in the state's order
(W_END_REASON, W_ACTION_USED, W_PLUS, W_VISITED, W_PREV, W_TARGET, W_COUNT, W_KEY, W_REASON, W_RET,
 W_CANCELS) = range(8, 19)
W_ABBEY_REWARD = 19                                   # 3: gems, carpets, reshuffles
W_SUPPLY = 22                                         # 4: gems, carpets, reshuffles, bonus tokens
W_REGION = 26
W_STATUE = W_REGION + NUM_POSITIONS
W_NAMEPOS = W_STATUE + NUM_POSITIONS
W_BOARD = W_NAMEPOS + NUM_POSITIONS
W_BGEMS = W_BOARD + NUM_SPACES
W_OPEN = W_BGEMS + NUM_SPACES
W_OBONUS = W_OPEN + NUM_OPEN_QUESTS
W_SEATS = W_OBONUS + NUM_OPEN_QUESTS                  # per-seat fields, field-major: W_SEATS + 4 * f + p
(S_SCORES, S_BONUS, S_GEMS, S_CARPETS, S_RESHUFFLES, S_TOKEN, S_POS) = range(7)
SEAT_FIELDS = ("scores", "bonus_tokens", "gems", "carpets", "reshuffles", "quest_token", "position")
W_LEN = W_SEATS + MAX_SEATS * len(SEAT_FIELDS)        # list lengths start here

GLOBAL_LISTS = ("creature_deck", "artifact_deck", "beast_deck", "quest_deck", "dragons", "box", "offer_quests",
                "offer_artifacts", "abbey_deck", "abbey_returned", "abbey_aside", "boosted", "powered",
                "adventure", "pay", "revealed", "in_play", "release_from_discard", "token_left", "effects")
(L_CREATURE_DECK, L_ARTIFACT_DECK, L_BEAST_DECK, L_QUEST_DECK, L_DRAGONS, L_BOX, L_OFFER_QUESTS,
 L_OFFER_ARTIFACTS, L_ABBEY_DECK, L_ABBEY_RETURNED, L_ABBEY_ASIDE, L_BOOSTED, L_POWERED, L_ADVENTURE, L_PAY,
 L_REVEALED, L_IN_PLAY, L_RELEASE, L_TOKEN_LEFT, L_EFFECTS) = range(len(GLOBAL_LISTS))
G_LISTS = len(GLOBAL_LISTS)
SEAT_LISTS = ("deck", "hand", "discard", "quests", "completed", "abbey", "c_order", "c_cards", "c_of")
(P_DECK, P_HAND, P_DISCARD, P_QUESTS, P_COMPLETED, P_ABBEY, P_C_ORDER, P_C_CARDS, P_C_OF) = range(len(SEAT_LISTS))
P_LISTS = len(SEAT_LISTS)
_PLAIN_SEAT_LISTS = SEAT_LISTS[:P_C_ORDER]


def num_lists(n: int) -> int:
    return G_LISTS + P_LISTS * n


def w_size(n: int) -> int:
    return W_LEN + num_lists(n)


def seat_list(p: int, f: int) -> int:
    """Index of seat p's list f (P_HAND, ...)."""
    return G_LISTS + P_LISTS * p + f


def capacity(g) -> int:
    """Items one list can hold: every card instance (no zone holds more), and every effect triple."""
    longest = max((len(e) for e in g.K_EFFECTS), default=0)
    cap = max(g.num_instances, 3 * longest, NUM_OPEN_QUESTS)
    if g.num_instances > np.iinfo(np.int16).max:
        raise ValueError(f"card file with {g.num_instances} card instances: the batched engine holds at most "
                         f"{np.iinfo(np.int16).max}")
    return cap


def row_dtypes(g) -> tuple:
    """(c dtype, w dtype) of a card file's rows: c uint8 where every item fits (card instances, quest
    instances, effect op ids and arguments), else int16; w int32 (every scalar is bounded far below)."""
    top = max(g.num_instances - 1, EFFECT_ARG_MAX, len(END_REASONS) + len(EFFECT_OPS) - 1)
    return (np.uint8 if top <= np.iinfo(np.uint8).max else np.int16), np.int32


EFFECT_ARG_MAX = 20     # cards.py: an effect's arguments are in [0, 20]

# end reasons the kernels write and the effect ops they read (the first ids of every Strings table)
END_REASONS = ("", "creature deck empty", "turn_limit", "goal")
REASON_DECK, REASON_TURN_LIMIT, REASON_GOAL = 1, 2, 3
EFFECT_OPS = tuple(sorted(CARD_EFFECT_OPS))
OP_ID = {op: len(END_REASONS) + j for j, op in enumerate(EFFECT_OPS)}


class Strings:
    """Ids of the strings a state holds (end_reason, effect ops): a table grown as new ones appear."""

    def __init__(self):
        self.names: list[str] = list(END_REASONS) + list(EFFECT_OPS)
        self.ids: dict[str, int] = {name: j for j, name in enumerate(self.names)}

    def id(self, name: str) -> int:
        i = self.ids.get(name)
        if i is None:
            i = self.ids[name] = len(self.names)
            self.names.append(name)
        return i


def pack(s: FantastiqaState, strings: Strings, out: list) -> None:
    """Append the wire of state `s` (see the module docstring) to `out`."""
    n = s.n
    pad = (0,) * (MAX_SEATS - n)
    win = s.winners_
    wins = (-1, 0, 0, 0, 0) if win is None else (len(win), *win, *(0,) * (MAX_SEATS - len(win)))
    out += (s.phase, s.cur, s.turns, *wins, strings.id(s.end_reason), int(s.action_used), s.plus_statue,
            s.visited, s.prev, s.target, s.count, int(s.key), s.reason, s.ret, s.cancels, *s.abbey_reward,
            s.supply_gems, s.supply_carpets, s.supply_reshuffles, s.supply_bonus_tokens,
            *s.region_at, *s.statue_at, *s.name_pos, *s.board, *s.board_gems, *s.open_quests, *s.open_bonus,
            *s.scores, *pad, *s.bonus_tokens, *pad, *s.gems, *pad, *s.carpets, *pad, *s.reshuffles, *pad,
            *s.quest_token, *pad, *s.position, *pad)
    effects = [x for op, a, b in s.effects for x in (strings.id(op), a, b)]
    lists = [s.creature_deck, s.artifact_deck, s.beast_deck, s.quest_deck, s.dragons, s.box, s.offer_quests,
             s.offer_artifacts, s.abbey_deck, s.abbey_returned, s.abbey_aside, s.boosted, s.powered, s.adventure,
             s.pay, s.revealed, s.in_play, s.release_from_discard, s.token_left, effects]
    for p in range(n):
        m = s.committed[p]
        cards = list(chain.from_iterable(m.values()))
        of = [q for q, cs in m.items() for _ in cs]
        lists += (s.deck[p], s.hand[p], s.discard[p], s.quests[p], s.completed[p], s.abbey[p], list(m), cards, of)
    out += map(len, lists)
    out += chain.from_iterable(lists)


def template(probe: FantastiqaState) -> dict:
    """The fields every game of one vector shares (card tables, options, goal), for `unpack`."""
    keep = ("g", "n", "opts", "card_set", "goal", "goal_lines", "goal_name")
    return {k: probe.__dict__[k] for k in keep}


def unpack(wire: list, fixed: dict, rngs: list, own: list, strings: Strings) -> FantastiqaState:
    """The `FantastiqaState` of one game's wire; it draws from `rngs` (the game's own Generators,
    shared copy-on-write where `own` is False, as `FantastiqaState.clone` leaves them)."""
    s = object.__new__(FantastiqaState)
    d = s.__dict__
    d.update(fixed)
    n = fixed["n"]
    d["_rngs"], d["_own"] = rngs, own
    d["phase"], d["cur"], d["turns"] = wire[W_PHASE], wire[W_CUR], wire[W_TURNS]
    nw = wire[W_NWIN]
    d["winners_"] = None if nw < 0 else wire[W_WIN:W_WIN + nw]
    d["end_reason"] = strings.names[wire[W_END_REASON]]
    d["action_used"], d["plus_statue"] = bool(wire[W_ACTION_USED]), wire[W_PLUS]
    d["visited"], d["prev"], d["target"], d["count"] = wire[W_VISITED], wire[W_PREV], wire[W_TARGET], wire[W_COUNT]
    d["key"], d["reason"], d["ret"], d["cancels"] = bool(wire[W_KEY]), wire[W_REASON], wire[W_RET], wire[W_CANCELS]
    d["abbey_reward"] = wire[W_ABBEY_REWARD:W_ABBEY_REWARD + 3]
    d["supply_gems"], d["supply_carpets"], d["supply_reshuffles"], d["supply_bonus_tokens"] = \
        wire[W_SUPPLY:W_SUPPLY + 4]
    d["region_at"] = tuple(wire[W_REGION:W_REGION + NUM_POSITIONS])
    d["statue_at"] = tuple(wire[W_STATUE:W_STATUE + NUM_POSITIONS])
    d["name_pos"] = tuple(wire[W_NAMEPOS:W_NAMEPOS + NUM_POSITIONS])
    d["board"], d["board_gems"] = wire[W_BOARD:W_BOARD + NUM_SPACES], wire[W_BGEMS:W_BGEMS + NUM_SPACES]
    d["open_quests"] = wire[W_OPEN:W_OPEN + NUM_OPEN_QUESTS]
    d["open_bonus"] = wire[W_OBONUS:W_OBONUS + NUM_OPEN_QUESTS]
    for f, name in enumerate(SEAT_FIELDS):
        at = W_SEATS + MAX_SEATS * f
        d[name] = wire[at:at + n]
    nl = num_lists(n)
    lens = wire[W_LEN:W_LEN + nl]
    at = W_LEN + nl
    lists = []
    for k in lens:
        lists.append(wire[at:at + k])
        at += k
    for j, name in enumerate(GLOBAL_LISTS[:L_EFFECTS]):
        d[name] = lists[j]
    fx = lists[L_EFFECTS]
    names = strings.names
    d["effects"] = [(names[fx[j]], fx[j + 1], fx[j + 2]) for j in range(0, len(fx), 3)]
    for f, name in enumerate(_PLAIN_SEAT_LISTS):
        d[name] = [lists[G_LISTS + P_LISTS * p + f] for p in range(n)]
    committed = []
    for p in range(n):
        base = G_LISTS + P_LISTS * p
        m = {q: [] for q in lists[base + P_C_ORDER]}
        for i, q in zip(lists[base + P_C_CARDS], lists[base + P_C_OF]):
            m[q].append(i)
        committed.append(m)
    d["committed"] = committed
    d["_legal"] = None
    return s


NUM_PHASES = len(PHASES)
_TERMINAL = PHASES.index("TERMINAL")
_OP_LO, _OP_HI = len(END_REASONS), len(END_REASONS) + len(EFFECT_OPS) - 1


@kernel
def _within(wire, at, k, lo, hi):
    """Whether the k scalars at wire[at:] are all in lo..hi."""
    for x in range(k):
        v = wire[at + x]
        if v < lo or v > hi:
            return False
    return True


@kernel
def _in_range(wire, at, n, cap):
    """Whether the scalars of the wire at wire[at:] are in the ranges the rules give them, so that no
    kernel reads past a table or writes past a block with them (issue 36: a state object changed by
    hand, seat 9 or phase 99, was written into a row). Card and quest ids are below `cap`, which is
    the card file's number of instances (`capacity`: no effect list comes near it). Only ranges:
    from_dict checks what play reaches."""
    if not (_within(wire, at + W_PHASE, 1, 0, NUM_PHASES - 1) and _within(wire, at + W_CUR, 1, 0, n - 1)
            and _within(wire, at + W_RET, 1, 0, NUM_PHASES - 1) and wire[at + W_RET] != _TERMINAL):
        return False
    nw = wire[at + W_NWIN]
    if nw < -1 or nw > n or not _within(wire, at + W_WIN, max(nw, 0), 0, n - 1) \
            or not _within(wire, at + W_WIN + max(nw, 0), MAX_SEATS - max(nw, 0), 0, 0):
        return False
    if (nw < 0) != (wire[at + W_PHASE] != _TERMINAL):       # winners exactly when the game is over
        return False
    if not (_within(wire, at + W_END_REASON, 1, 0, len(END_REASONS) - 1)
            and _within(wire, at + W_ACTION_USED, 1, 0, 1) and _within(wire, at + W_KEY, 1, 0, 1)
            and _within(wire, at + W_VISITED, 1, 0, (1 << NUM_POSITIONS) - 1)
            and _within(wire, at + W_PREV, 1, -1, NUM_POSITIONS - 1)
            and _within(wire, at + W_TARGET, 1, -1, max(cap, NUM_SPACES) - 1)
            and _within(wire, at + W_REASON, 1, 0, 2)
            and _within(wire, at + W_TURNS, 1, 0, 1 << 30) and _within(wire, at + W_PLUS, 1, 0, 1 << 30)
            and _within(wire, at + W_COUNT, 1, 0, 1 << 30) and _within(wire, at + W_CANCELS, 1, 0, 1 << 30)
            and _within(wire, at + W_ABBEY_REWARD, 3, 0, 1 << 30) and _within(wire, at + W_SUPPLY, 4, 0, 1 << 30)
            and _within(wire, at + W_REGION, NUM_POSITIONS, 0, NUM_POSITIONS - 1)
            and _within(wire, at + W_STATUE, NUM_POSITIONS, 0, 2)
            and _within(wire, at + W_NAMEPOS, NUM_POSITIONS, 0, NUM_POSITIONS - 1)
            and _within(wire, at + W_BOARD, NUM_SPACES, -1, cap - 1) and _within(wire, at + W_BGEMS, NUM_SPACES, 0, 1)
            and _within(wire, at + W_OPEN, NUM_OPEN_QUESTS, -1, cap - 1)
            and _within(wire, at + W_OBONUS, NUM_OPEN_QUESTS, 0, 1)):
        return False
    for f in range(len(SEAT_FIELDS)):
        base = at + W_SEATS + MAX_SEATS * f
        if f == S_TOKEN:
            lo, hi = -1, cap - 1
        elif f == S_POS:
            lo, hi = -1, NUM_POSITIONS - 1
        else:
            lo, hi = 0, 1 << 30
        if not (_within(wire, base, n, lo, hi) and _within(wire, base + n, MAX_SEATS - n, 0, 0)):
            return False
    return True


@kernel
def _fits(wire, at, nl, cap, c_max, w_max):
    """Whether the wire at wire[at:] fits a row: every list within the capacity, every card or quest
    id below `cap` (and in 0..c_max), every effect an (op id, 0..EFFECT_ARG_MAX, 0..EFFECT_ARG_MAX)
    triple, every scalar in -w_max..w_max (a value outside would wrap silently) and in its range
    (`_in_range`)."""
    for x in range(W_LEN + nl):
        v = wire[at + x]
        if v > w_max or v < -w_max:
            return False
    if not _in_range(wire, at, (nl - G_LISTS) // P_LISTS, cap):
        return False
    src = at + W_LEN + nl
    for lj in range(nl):
        k = wire[at + W_LEN + lj]
        if k < 0 or k > cap:
            return False
        if lj == L_EFFECTS:
            if k % 3:
                return False
            for t in range(0, k, 3):
                op = wire[src + t]
                if op < _OP_LO or op > _OP_HI or not _within(wire, src + t + 1, 2, 0, EFFECT_ARG_MAX):
                    return False
        else:
            for t in range(k):
                v = wire[src + t]
                if v < 0 or v >= cap or v > c_max:
                    return False
        src += k
    return True


@kernel
def scatter(wire, starts, games, c, w, cap, c_max, w_max):
    """Write the wire at wire[starts[j]:] into row games[j] of (c, w), all or nothing: returns the
    first j whose wire does not fit a row (`_fits`), having written no row; else -1."""
    nl = w.shape[1] - W_LEN
    for j in range(games.size):
        if not _fits(wire, starts[j], nl, cap, c_max, w_max):
            return j
    for j in range(games.size):
        i, at = games[j], starts[j]
        for x in range(W_LEN + nl):
            w[i, x] = wire[at + x]
        src = at + W_LEN + nl
        for lj in range(nl):
            k = wire[at + W_LEN + lj]
            dst = lj * cap
            for t in range(k):
                c[i, dst + t] = wire[src + t]
            src += k
    return -1


@kernel
def gather(c, w, i, cap):
    """The wire of row i (int64)."""
    nl = w.shape[1] - W_LEN
    total = W_LEN + nl
    for lj in range(nl):
        total += w[i, W_LEN + lj]
    out = np.empty(total, dtype=np.int64)
    for x in range(W_LEN + nl):
        out[x] = w[i, x]
    at = W_LEN + nl
    for lj in range(nl):
        k = w[i, W_LEN + lj]
        base = lj * cap
        for t in range(k):
            out[at + t] = c[i, base + t]
        at += k
    return out
