"""The web app: play against the bots and watch recorded games in a browser (Starlette + uvicorn).

    python -m tabletop_rl.agents.web --open            # http://127.0.0.1:8000
    python -m tabletop_rl.agents.web --host 0.0.0.0 --allowed-host 192.168.1.20 --port 9000
    python -m tabletop_rl.agents.web --policy mine=runs/R/policy.npz   # bot ppo:policy=mine

JSON API (the page in `static/` uses it; every error is a 4xx/5xx with {"error": message} and
leaves the game as it was):

    GET  /api/config                         games, their bots (with their defaults), options (the engine's
                                             default first: `options.page_options`) and player counts
    POST /api/games                          {game, players, seat, bots, options, seed?, bot_budget?}
    GET  /api/games/{id}                     the game as your seat sees it
    POST /api/games/{id}/act                 {action}: your move
    POST /api/games/{id}/advance             one bot move (the page steps them); {"all": true}: all
                                             of them up to your turn
    POST /api/games/{id}/finish_turn         {bot?}: a quick bot (random, greedy) plays the rest of your turn
    GET  /api/games/{id}/board.png           the public picture (rgb render)
    POST /api/records                        body: a records.jsonl (arena output or --record)
    GET  /api/records/{id}/games/{g}?step=&seat=      one step as a seat (or `public`) sees it
    GET  /api/records/{id}/games/{g}/board.png?step=  its public picture

Games live in memory under an unguessable id (`secrets.token_urlsafe`); the store keeps at most
`max_games` games and records and `max_memory` bytes of them (each session's memory is counted:
its records, the states it keeps, its moves), each for at most `max_age` seconds after its last
use. A bot acts on a copy of the state in a worker thread with a time budget: a bot that raises,
returns an illegal action or runs past its budget is reported to the page (the game is unchanged;
the page can try again, and a late answer is used then). The request waits for the bot's move
without holding the game's lock or a thread, so views of the game answer meanwhile; every view is
made from a copy taken under a short lock.

Threat note. The server is meant for this machine (default 127.0.0.1); any web page the user
opens can send it requests, so a request is data and may choose only:
- a game of GAMES, players and seat in the game's range, rule options from OPTIONS (never a
  file: Fantastiqa's card_set is not offered), a seed in 0..2**31-1, a bot_budget in
  (0, MAX_BOT_BUDGET] seconds;
- bots by registered name from `bots.WEB_BOTS`, with only their bounded numeric parameters
  (`mcts:iterations` <= `bots.MAX_MCTS_ITERATIONS`, ASCII digits) or a server policy by name
  (`ppo:policy=NAME`, loaded from `--policy NAME=PATH` at start); never a path, `trust_pickle`
  or any other keyword of `make_agent`;
- its move (a legal action id) and, for records, JSON lines whose every field is checked at
  upload as `records.replay` checks it before replaying (`records.check_setup`: types, the game,
  sizes bounded by num_players, the options the rules and the observation take, action ids in
  range); only those fields are kept (labels cut to MAX_LABEL_CHARS), and each game is replayed
  when it is first watched.
Every request must name an allowed Host; every POST must be `application/json` (records:
JSON lines) and same-origin when it sends an Origin (`guard`). Bounds: bodies MAX_JSON_BYTES
(records MAX_RECORDS_BYTES: at most MAX_RECORD_ACTIONS actions a game, MAX_UPLOAD_ACTIONS and
MAX_UPLOAD_GAMES an upload, MAX_UPLOAD_CONTAINERS JSON arrays and objects, MAX_UPLOADS_AT_ONCE
being parsed), refused by Content-Length or mid-stream (413); JSON too deep: 400; at most
`max_games` sessions and `max_memory` bytes, none dropped while used in the last `min_idle`
seconds (a new one is refused, 503, instead); per client (`guard.client_key`, its address): at
most `max_games_per_client` sessions and `max_memory_per_client` bytes (its own least recently
used session idle for `min_idle` s is replaced, else 429), and `moves_per_client` bot moves in
flight, `searches_per_client` of them searches (429; `guard.ClientQuota`); a watched game keeps at
most MAX_CHECKPOINTS states (replayed from the nearest one); a game at most MAX_PLAY_ACTIONS
moves (its log the latest MAX_LOG); at most one bot move in flight per session, searches stopped
by a deadline inside the budget, and bounded worker queues (503).
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import secrets
import sys
import tempfile
import threading
import time
from array import array
from importlib import resources

from tabletop_rl.agents import agent_names, make_agent
from tabletop_rl.agents.match import bot_action
from tabletop_rl.agents.web import guard
from tabletop_rl.agents.web.bots import (ASCII_DIGITS, SEARCH_BOTS, WEB_BOTS, BotWorkers, build_bot, default_params,
                                         load_policies, offered, parse_bot)
from tabletop_rl.agents.web.guard import ClientQuota, RequestError
from tabletop_rl.agents.web.options import page_options
from tabletop_rl.agents.web.views import board_png, move_text, state_view
from tabletop_rl.envs.registry import get_game

GAMES = ("fae", "fantastiqa")
#: Options the page offers (name -> allowed values; the first is the engine's default), read from
#: each game's own declarations (`options.page_options`). Fantastiqa's `card_set` (a file path) is
#: not offered: a request never names a file on the server.
OPTIONS = {game: page_options(game) for game in GAMES}
MAX_JSON_BYTES = 1 << 20  # a move or a new game is a few hundred bytes
MAX_RECORDS_BYTES = 8 << 20
MAX_RECORD_ACTIONS = 20_000  # real games: Fae about 40 actions, Fantastiqa under 2,000
MAX_UPLOAD_ACTIONS = 500_000
MAX_UPLOAD_GAMES = 5_000
MAX_PLAY_ACTIONS = MAX_RECORD_ACTIONS
MAX_CHECKPOINTS = 64  # states kept of the watched game; a view replays from the nearest one
MIN_CHECKPOINT_EVERY = 50
MAX_LOG = 300  # moves sent with a view (the latest; a game keeps only these texts)
MAX_UPLOAD_CONTAINERS = 100_000  # JSON arrays and objects in an upload (a record has about 10 + num_players)
MAX_LINE_CONTAINERS = 1_000
MAX_UPLOADS_AT_ONCE = 2  # uploads parsed at once (each may take ~10x its bytes while parsed)
MAX_LABEL_CHARS = 80  # a record's bot names are kept this long (labels: shown as text only)
MAX_MEMORY = 512 << 20  # bytes of sessions the store keeps (default --max-memory-mb)
#: The fields of an uploaded record the server keeps (after checking them all): what `replay`
#: checks, and the bot names. package_version, rewards and meta are dropped.
KEPT_FIELDS = ("format", "format_version", "game", "env_id", "env_version", "num_players", "options",
               "observation_options", "seed", "actions", "returns", "winners", "scores", "final_state_sha256",
               "ended", "illegal_action", "agents")
FINISH_TURN_STEPS = 5_000
DEFAULT_BOT_BUDGET = 30.0
MAX_BOT_BUDGET = 120.0
JSON_TYPES = ("application/json",)
RECORDS_TYPES = ("application/json", "application/x-ndjson", "application/jsonl")


# ---------------------------------------------------------------- sessions
def deep_size(obj) -> int:
    """Bytes held by `obj` and everything in it (dicts, lists, tuples, arrays, strings, numbers),
    each object counted once (`sys.getsizeof`): what a session's data costs the server."""
    seen: set[int] = set()
    stack, total = [obj], 0
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        total += sys.getsizeof(x)
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
    return total


def state_bytes(state) -> int:
    """An estimate of one rules state's memory: its `to_dict()` measured by `deep_size`."""
    return deep_size(state.to_dict())


SESSION_BYTES = 64 << 10  # a session's own objects, its bots' and helpers' (counted once each)
LOG_ENTRY_BYTES = 600  # one move's texts in a game's log (a dict of three short strings)


class PlaySession:
    """One game: a person at `seat`, bots at the other seats."""

    kind = "play"

    def __init__(self, game: str, players: int, seat: int, bot_specs: list[str], options: dict, seed: int,
                 bot_budget: float, policies: dict | None = None, workers: dict | None = None):
        self.game, self.spec, self.seat = game, get_game(game), seat
        self.players, self.options, self.seed, self.bot_budget = players, options, seed, bot_budget
        self.state = self.spec.new_state(num_players=players, seed=seed, **options)
        policies = policies or {}
        workers = workers or default_workers()
        self.labels, self.bots, self.workers, self.searches = [], [], [], []
        others = iter(bot_specs)
        for s in range(players):
            if s == seat:
                self.labels.append("you")
                self.bots.append(None)
                self.workers.append(None)
                self.searches.append(False)
                continue
            text = next(others)
            name, params = parse_bot(text, game, policies)
            bot = build_bot(game, name, params, seed + 1000 * (s + 1), bot_budget, policies)
            bot.reset(seed + 7919 * (s + 1))
            self.labels.append(text)
            self.bots.append(bot)
            self.workers.append(workers["search" if name in SEARCH_BOTS else "quick"])
            self.searches.append(name in SEARCH_BOTS)
        self.helpers: dict = {}  # name -> the bot that plays the rest of your turn when asked
        self.log: collections.deque = collections.deque(maxlen=MAX_LOG)  # the latest moves' texts
        self.actions = array("i")  # every move (4 bytes each)
        self.lock = threading.Lock()  # held for short steps only, never while a bot thinks
        self.pending = None  # (future, number of actions when it was asked) of the bot move in flight
        self._state_bytes = state_bytes(self.state)

    @property
    def nbytes(self) -> int:
        """What the game holds: its state (and a copy for a view or a bot), its moves and log."""
        return SESSION_BYTES + 2 * self._state_bytes + self.actions.itemsize * len(self.actions) + \
            LOG_ENTRY_BYTES * len(self.log)

    def apply(self, action: int) -> None:
        if len(self.actions) >= MAX_PLAY_ACTIONS:
            raise RequestError(409, f"the game passed {MAX_PLAY_ACTIONS} moves, the most a web game may have")
        before = self.state.clone()
        self.state.apply(action)
        self.actions.append(int(action))
        self.log.append({"mover": int(before.current_player),
                         "yours": move_text(self.game, before, action, self.seat, over=False),
                         "all": move_text(self.game, before, action, None, over=True)})

    def snapshot(self) -> tuple:
        """What a view needs, copied (take it under `lock`): the state, the log, the move count."""
        return self.state.clone(), list(self.log), len(self.actions)

    def view(self, snapshot: tuple | None = None) -> dict:
        """The person's view, made from `snapshot` (default: one taken now; no lock needed for it)."""
        state, log, moves = snapshot or self.snapshot()
        over = state.is_terminal()
        texts = [e["all"] if over else e["yours"] for e in log[-MAX_LOG:]]
        out = {"id": None, "kind": "play", "game": self.game, "seat": self.seat, "players": self.players,
               "labels": self.labels, "options": self.options, "moves": moves, "log": texts,
               "view": state_view(self.game, state, self.seat)}
        if over:
            out["seed"] = self.seed
        return out


def replayable(record: dict) -> dict:
    """A kept record as `records.replay` reads it (its actions a list again), knowing its source."""
    from tabletop_rl.agents.records import Record

    out = Record(record)
    out["actions"] = list(record["actions"])
    out.source = getattr(record, "source", None)
    return out


class WatchSession:
    """Uploaded records (checked, only the checked fields kept: `load_records`). The watched game is
    replayed once to check it, keeping at most MAX_CHECKPOINTS of its states; a view replays from the
    nearest one (only one game at a time), outside the lock."""

    kind = "watch"

    def __init__(self, records: list[dict], state_size: int = 0):
        self.records = records
        self.lock = threading.Lock()
        self._open: tuple | None = None  # (game index, checkpoints, every, final state is terminal)
        # the records and, reserved, the checkpoints of the largest game's states
        self.nbytes = SESSION_BYTES + deep_size(records) + MAX_CHECKPOINTS * state_size

    def _checkpoints(self, g: int) -> tuple:
        from tabletop_rl.agents.records import ReplayError, replay

        if not 0 <= g < len(self.records):
            raise RequestError(404, f"game {g} is not in these records (0..{len(self.records) - 1})")
        if self._open is None or self._open[0] != g:
            record = self.records[g]
            every = max(MIN_CHECKPOINT_EVERY, -(-len(record["actions"]) // MAX_CHECKPOINTS))
            kept = []
            try:
                for i, state in enumerate(replay(replayable(record), stream=True, max_steps=MAX_RECORD_ACTIONS)):
                    if i % every == 0:
                        kept.append(state.clone())
            except (ReplayError, ValueError, TypeError, KeyError) as exc:
                raise RequestError(400, f"record {g} cannot be replayed: {str(exc)[:500]}") from None
            self._open = (g, kept, every, state.is_terminal())
        return self._open

    def steps(self, g: int) -> int:
        self._checkpoints(g)
        return len(self.records[g]["actions"])

    def over_at(self, g: int, step: int) -> bool:
        """Whether the game is over at `step` (only ever at its last step)."""
        return step == self.steps(g) and self._checkpoints(g)[3]

    def start_at(self, g: int, first: int) -> tuple:
        """(a copy of the checkpoint at or before `first`, its step); take it under `lock`."""
        _, kept, every, _ = self._checkpoints(g)
        i = first // every * every
        return kept[i // every].clone(), i

    def state_at(self, g: int, step: int, first: int | None = None, each=None, start: tuple | None = None):
        """The state after `step` actions (a copy), replayed from `start` (default: `start_at(g,
        first)`, `first` default `step`); `each(state, action)` sees the states first..step-1 with
        their action. With `start` given, no lock is needed."""
        first = step if first is None else first
        state, i = start or self.start_at(g, first)
        actions = self.records[g]["actions"]
        for i in range(i, step):
            if each is not None and i >= first:
                each(state, actions[i])
            state.apply(actions[i])
        return state


class Store:
    """Sessions by unguessable id: at most `max_games` and `max_memory` bytes of them (each
    session's `nbytes`), each dropped `max_age` s after its last use.

    When full, a new session replaces the least recently used ones only if they have been unused
    for `min_idle` s; else the new one is refused (503): no client can drop the games others are
    playing. Per client (`guard.client_key`): at most `max_games_per_client` sessions and
    `max_memory_per_client` bytes; past that a client's own least recently used session goes if
    it is idle for `min_idle` s, else the new one is refused (429): no client can hold every slot."""

    def __init__(self, max_games: int = 64, max_age: float = 6 * 3600.0, min_idle: float = 600.0,
                 max_memory: int = MAX_MEMORY, max_games_per_client: int | None = None,
                 max_memory_per_client: int | None = None):
        self.max_games, self.max_age, self.min_idle = int(max_games), float(max_age), float(min_idle)
        self.max_memory = int(max_memory)
        self.max_games_per_client = max(1, self.max_games // 4) if max_games_per_client is None \
            else int(max_games_per_client)
        self.max_memory_per_client = max(1, self.max_memory // 4) if max_memory_per_client is None \
            else int(max_memory_per_client)
        self._items: dict[str, list] = {}  # id -> [session, last use, client]
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        for key in [k for k, (_, t, _) in self._items.items() if now - t > self.max_age]:
            del self._items[key]

    def _make_room(self, now: float, keys: list, count: int, memory: int, need: int, status: int, who: str,
                   share: str = "") -> None:
        """Drop the least recently used of `keys` (each idle for min_idle s) until fewer than `count`
        remain and their bytes plus `need` fit in `memory`; else a RequestError (`status`)."""
        keys = sorted(keys, key=lambda k: self._items[k][1])
        held = sum(self._items[k][0].nbytes for k in keys)
        while keys and (len(keys) >= count or held + need > memory):
            if now - self._items[keys[0]][1] < self.min_idle:
                what = f"{count} games and records" if len(keys) >= count else \
                    f"{held / 2 ** 20:.0f} MB of games and records (of {memory / 2 ** 20:.0f} MB)"
                raise RequestError(status, f"{who} {what}{share}, all used in the last {self.min_idle:.0f} s; "
                                           "try again later")
            held -= self._items[keys[0]][0].nbytes
            del self._items[keys.pop(0)]

    def add(self, session, client: str = "local") -> str:
        """Keep `session` for `client`; its id. Makes room as the class says, else 413/429/503."""
        need, most = session.nbytes, min(self.max_memory_per_client, self.max_memory)
        if need > most:
            raise RequestError(413, f"this would take {need / 2 ** 20:.1f} MB of server memory; one client may "
                                    f"hold {most / 2 ** 20:.1f} MB")
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            # a client's share (a bound no smaller than the server's is the server's own: checked next)
            count = self.max_games_per_client if self.max_games_per_client < self.max_games else sys.maxsize
            memory = self.max_memory_per_client if self.max_memory_per_client < self.max_memory else sys.maxsize
            mine = [k for k, item in self._items.items() if item[2] == client]
            self._make_room(now, mine, count, memory, need, 429, "this client holds", " (the most one client may hold)")
            self._make_room(now, list(self._items), self.max_games, self.max_memory, need, 503, "the server holds")
            key = secrets.token_urlsafe(18)
            self._items[key] = [session, now, client]
        return key

    def get(self, key: str, kind: str):
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            item = self._items.get(key)
            if item is None or item[0].kind != kind:
                raise RequestError(404, f"no {kind} session {key[:40]!r} (unknown, or dropped after "
                                        f"{self.max_age:.0f} s unused, or {self.min_idle:.0f} s unused when "
                                        f"{self.max_games} were open)")
            item[1] = now
            return item[0]

    def memory(self, client: str | None = None) -> int:
        """Bytes the sessions hold (`nbytes`), all or `client`'s."""
        with self._lock:
            return sum(s.nbytes for s, _, c in self._items.values() if client is None or c == client)

    def count(self, client: str) -> int:
        """Sessions `client` holds."""
        with self._lock:
            return sum(c == client for _, _, c in self._items.values())

    def __len__(self) -> int:
        return len(self._items)


# ---------------------------------------------------------------- validation helpers
def _int(body: dict, key: str, lo: int, hi: int, default=None) -> int:
    v = body.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise RequestError(400, f"{key} must be an integer in {lo}..{hi}; got {str(v)[:40]}")
    return v


_WORKERS: dict = {}
_WORKERS_LOCK = threading.Lock()


def default_workers() -> dict:
    """The process's worker pools for bot moves, made once (so every app and session shares one
    bound): searches and quick bots apart (see `bots`)."""
    with _WORKERS_LOCK:
        if not _WORKERS:
            _WORKERS.update(search=BotWorkers(workers=2, queue=4, name="web-search"),
                            quick=BotWorkers(workers=2, queue=16, name="web-bot"))
        return _WORKERS


def new_game(body: dict, policies: dict | None = None, workers: dict | None = None) -> PlaySession:
    game = body.get("game")
    if game not in GAMES:
        raise RequestError(400, f"game must be one of {list(GAMES)}; got {game!r}")
    spec = get_game(game)
    players = _int(body, "players", spec.min_players, spec.max_players, default=2)
    seat = _int(body, "seat", 0, players - 1, default=0)
    bots = body.get("bots", ["random"] * (players - 1))
    if not isinstance(bots, list) or len(bots) != players - 1 or not all(isinstance(b, str) and b for b in bots):
        raise RequestError(400, f"bots must list {players - 1} bot names (the other seats in order); "
                                f"got {str(bots)[:200]}")
    for b in bots:
        parse_bot(b, game, policies or {})
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise RequestError(400, f"options must be an object; got {str(options)[:200]}")
    for k, v in options.items():
        allowed = OPTIONS[game].get(k)
        if allowed is None:
            raise RequestError(400, f"unknown option {k[:40]!r} for {game}; options: {sorted(OPTIONS[game])}")
        if type(v) is not type(allowed[0]) or v not in allowed:
            raise RequestError(400, f"option {k} must be one of {allowed}; got {str(v)[:40]}")
    seed = body.get("seed")
    seed = secrets.randbits(31) if seed is None else _int(body, "seed", 0, 2 ** 31 - 1)
    budget = body.get("bot_budget", DEFAULT_BOT_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= MAX_BOT_BUDGET:
        raise RequestError(400, f"bot_budget must be a number of seconds in (0, {MAX_BOT_BUDGET:g}]; "
                                f"got {str(budget)[:40]}")
    try:
        return PlaySession(game, players, seat, bots, dict(options), seed, float(budget), policies, workers)
    except ValueError as exc:  # the rules refuse the options (e.g. teams with 2 players)
        raise RequestError(400, str(exc)) from None


def _check_over_and_turn(s: PlaySession, mine: bool) -> None:
    if s.state.is_terminal():
        raise RequestError(409, "the game is over")
    cur = s.state.current_player
    if mine and cur != s.seat:
        raise RequestError(409, f"it is player_{cur}'s turn, not yours (player_{s.seat})")
    if not mine and cur == s.seat:
        raise RequestError(409, f"it is your turn (player_{s.seat}); the bots wait for you")


def _legal(s: PlaySession, seat: int, action: int) -> bool:
    mask = s.spec.action_mask(s.state, seat)
    return 0 <= action < mask.shape[0] and bool(mask[action])


def human_act(s: PlaySession, body: dict) -> None:
    with s.lock:
        _check_over_and_turn(s, mine=True)
        a = body.get("action")
        if isinstance(a, bool) or not isinstance(a, int):
            raise RequestError(400, f"action must be an integer action id; got {str(a)[:40]}")
        if not _legal(s, s.seat, a):
            raise RequestError(400, f"action {a} is not legal now; the legal ones are listed in choices")
        s.apply(a)


#: Bots that may play the rest of the person's turn ("Finish my turn"); quick ones only.
HELPERS = ("random", "greedy")


def finish_turn(s: PlaySession, body: dict, quota: ClientQuota | None = None, client: str = "local") -> None:
    """A quick bot (body {"bot": "random"|"greedy"}, default random) plays the rest of the person's
    turn, one move at a time under the lock (a view between two moves sees the game as it is)."""
    name = body.get("bot", "random")
    if name not in HELPERS or name not in agent_names(s.game):
        raise RequestError(400, f"bot must be one of {[h for h in HELPERS if h in agent_names(s.game)]}; "
                                f"got {str(name)[:40]}")
    with s.lock:
        _check_over_and_turn(s, mine=True)
    with (quota or ClientQuota()).holding(client):
        for _ in range(FINISH_TURN_STEPS):
            with s.lock:
                if s.state.is_terminal() or s.state.current_player != s.seat:
                    return
                helper = s.helpers.get(name)
                if helper is None:
                    helper = s.helpers[name] = make_agent(s.game, name, seed=s.seed + 104729 + len(s.helpers))
                s.apply(bot_action(helper, s.spec, s.state.clone(), s.seat))  # checked legal
    raise RequestError(500, f"your turn did not end within {FINISH_TURN_STEPS} moves of the {name} bot")


def start_bot_move(s: PlaySession, quota: ClientQuota | None = None, client: str = "local") -> tuple:
    """Under the lock, briefly: the bot move now due, as (future, moves when asked, seat). The move
    in flight if there is one (a session has at most one), else a new one on a copy of the state,
    counted against `client` (`quota`)."""
    with s.lock:
        _check_over_and_turn(s, mine=False)
        seat = s.state.current_player
        if s.pending is not None and s.pending[1] == len(s.actions):
            return s.pending[0], s.pending[1], seat
        bot = s.bots[seat]
        # a trained policy observes with the options it was trained on (as in `match.play_game`)
        opts = {k: v for k, v in (getattr(bot, "observation_options", None) or {}).items()
                if k in s.spec.observation_options}
        future = (quota or ClientQuota()).submit(client, s.searches[seat], s.workers[seat], bot_action, bot,
                                                 s.spec, s.state.clone(), seat, opts)
        s.pending = (future, len(s.actions))
        return future, len(s.actions), seat


def finish_bot_move(s: PlaySession, future, asked: int, seat: int) -> bool:
    """Under the lock, briefly: apply the finished `future`'s move (unless another request did);
    True when the bots are still to move."""
    with s.lock:
        if s.pending is not None and s.pending[0] is future:
            s.pending = None
            try:
                action = future.result(timeout=0)
            except Exception as exc:  # noqa: BLE001 (any failure of a bot is reported, never crashes the server)
                raise RequestError(502, f"bot {s.labels[seat]!r} (player_{seat}) failed: "
                                        f"{type(exc).__name__}: {str(exc)[:300]}") from None
            if len(s.actions) == asked:  # bot_action checked the action (an illegal one failed above, as a 502)
                s.apply(action)
        return not s.state.is_terminal() and s.state.current_player != s.seat


async def wait_move(future, timeout: float) -> bool:
    """Wait for a worker's `future` in the event loop (no thread, no lock held): whether it is done
    within `timeout` s. The future is never cancelled: a late move is taken by the next advance."""
    wrapped = asyncio.wrap_future(future)
    wrapped.add_done_callback(lambda f: f.cancelled() or f.exception())  # a failure is read from `future`
    done, _ = await asyncio.wait({wrapped}, timeout=timeout)
    return bool(done)


async def advance(s: PlaySession, body: dict, quota: ClientQuota | None = None, client: str = "local") -> None:
    """One bot move; with {"all": true} every bot move up to the person's turn or the end. The
    request waits for each move without the session's lock (views answer meanwhile)."""
    from starlette.concurrency import run_in_threadpool

    every = body.get("all", False)
    if not isinstance(every, bool):
        raise RequestError(400, f"all must be true or false; got {str(every)[:40]}")
    more = True
    while more:
        future, asked, seat = await run_in_threadpool(start_bot_move, s, quota, client)
        if not await wait_move(future, s.bot_budget):
            raise RequestError(503, f"bot {s.labels[seat]!r} (player_{seat}) did not move within its "
                                    f"{s.bot_budget:g} s budget; try again to wait for it")
        more = await run_in_threadpool(finish_bot_move, s, future, asked, seat) and every


# ---------------------------------------------------------------- records
_UPLOADS = threading.BoundedSemaphore(MAX_UPLOADS_AT_ONCE)


def _count_containers(raw: bytes) -> None:
    """Refuse (400) an upload holding more JSON arrays and objects than real records do, before it
    is parsed: each costs ~60 bytes parsed from 2 bytes sent (a line of `[[],[],...]`)."""
    total = raw.count(b"[") + raw.count(b"{")
    if total > MAX_UPLOAD_CONTAINERS:
        raise RequestError(400, f"the records hold more than {MAX_UPLOAD_CONTAINERS} JSON arrays and objects "
                                "(a record has about 10 + num_players)")
    for lineno, line in enumerate(raw.split(b"\n"), 1):
        if line.count(b"[") + line.count(b"{") > MAX_LINE_CONTAINERS:
            raise RequestError(400, f"records:{lineno}: more than {MAX_LINE_CONTAINERS} JSON arrays and objects "
                                    "in one record")


def load_records(raw: bytes) -> WatchSession:
    """Parse and check an upload: every field of every record as `records.replay` checks it before
    replaying (`records.check_setup`), action ids in range; keep only those fields, bounded by
    num_players (each game is replayed when it is first watched). At most MAX_UPLOADS_AT_ONCE
    uploads are parsed at once (503 past that)."""
    if len(raw) > MAX_RECORDS_BYTES:
        raise RequestError(413, f"records file is larger than {MAX_RECORDS_BYTES} bytes")
    _count_containers(raw)
    if not _UPLOADS.acquire(blocking=False):
        raise RequestError(503, f"the server is checking {MAX_UPLOADS_AT_ONCE} uploads; try again in a moment")
    try:
        return _load_records(raw)
    finally:
        _UPLOADS.release()


def _load_records(raw: bytes) -> WatchSession:
    from tabletop_rl.agents.records import read_records

    fd, path = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        try:
            records, setups, total = [], {}, 0
            for r in read_records(path):
                if len(records) >= MAX_UPLOAD_GAMES:
                    raise RequestError(400, f"the records file holds more than {MAX_UPLOAD_GAMES} games")
                r.source = r.source.replace(path, "records")
                total += _check_upload_fields(r, len(records))
                if total > MAX_UPLOAD_ACTIONS:
                    raise RequestError(400, f"the records hold more than {MAX_UPLOAD_ACTIONS} actions in all")
                records.append(_kept_record(r, setups))
        except (ValueError, UnicodeDecodeError) as exc:  # ReplayError too: it names records:line and the field
            raise RequestError(400, str(exc).replace(path, "records")[:500]) from None
    finally:
        os.unlink(path)
    if not records:
        raise RequestError(400, "the records file holds no game")
    return WatchSession(records, max(size for _, _, size in setups.values()))


def _check_upload_fields(r: dict, i: int) -> int:
    """The web app's own bounds on a record (before `records.check_setup`): its number of actions."""
    where = f"record {i}"
    if r.get("game") not in GAMES:
        raise RequestError(400, f"{where}: game must be one of {list(GAMES)}; got {str(r.get('game'))[:40]}")
    opts = r.get("options")
    if isinstance(opts, dict) and opts.get("card_set", 0) is None:  # the default card set, said explicitly
        opts = {k: v for k, v in opts.items() if k != "card_set"}
        r["options"] = opts
    if not isinstance(opts, dict) or any(k not in OPTIONS[r["game"]] for k in opts):
        raise RequestError(400, f"{where}: options must be an object of {sorted(OPTIONS[r['game']])}; "
                                f"got {str(opts)[:200]}")
    for k, v in opts.items():
        allowed = OPTIONS[r["game"]][k]
        if type(v) is not type(allowed[0]) or v not in allowed:
            raise RequestError(400, f"{where}: option {k} must be one of {allowed}; got {str(v)[:40]}")
    acts = r.get("actions")
    if not isinstance(acts, list) or len(acts) > MAX_RECORD_ACTIONS or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in acts):
        raise RequestError(400, f"{where}: actions must be a list of at most {MAX_RECORD_ACTIONS} integers")
    seed = r.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RequestError(400, f"{where}: seed must be an integer; got {str(seed)[:40]}")
    n = r.get("num_players")
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4:
        raise RequestError(400, f"{where}: num_players must be 2..4; got {str(n)[:40]}")
    return len(acts)


def _kept_record(r, setups: dict):
    """`r` checked as `replay` checks it before replaying (`records.check_setup`; the rules and the
    observation are asked once per distinct setup), its actions in range; returns what the server
    keeps: KEPT_FIELDS, actions as 4-byte ints, labels cut, one copy of each setup's options."""
    from tabletop_rl.agents.records import FORMAT, Record, ReplayError, check_setup, validate_record

    spec = validate_record(r)  # every field: types, sizes bounded by num_players, the game
    n = r["num_players"]
    key = json.dumps([r["game"], n, r["options"], r.get("observation_options")], sort_keys=True)
    if key not in setups:
        spec, state = check_setup(r, seed=0)  # the options the rules and the observation take
        size = spec.action_mask(state, 0).shape[0]
        setups[key] = ((dict(r["options"]), r.get("observation_options")), size, state_bytes(state))
    (options, seat_options), size, _ = setups[key]
    for i, a in enumerate(r["actions"]):
        if not 0 <= a < size:
            raise ReplayError(f"{r.source}: field 'actions[{i}]': {a} is not an action id of {spec.name} "
                              f"(0..{size - 1})")
    kept = Record({k: r[k] for k in KEPT_FIELDS if k in r})
    kept.source = r.source
    kept.update(format=FORMAT, game=spec.name, env_id=spec.env_id, options=options, actions=array("i", r["actions"]))
    if seat_options is not None:
        kept["observation_options"] = seat_options
    if "agents" in r:
        kept["agents"] = [a[:MAX_LABEL_CHARS] for a in r["agents"]]
    return kept


def _labels(record: dict) -> list[str]:
    """The record's bot names (optional, free text: shown as text only)."""
    agents = record.get("agents")
    return [str(a)[:MAX_LABEL_CHARS] for a in agents[:record["num_players"]]] if isinstance(agents, list) else []


def records_summary(w: WatchSession) -> list[dict]:
    return [{"index": i, "game": r["game"], "num_players": r["num_players"], "moves": len(r["actions"]),
             "agents": _labels(r)} for i, r in enumerate(w.records)]


def watch_view(w: WatchSession, g: int, step, seat) -> dict:
    """Step `step` of game `g` as `seat` sees it: the checkpoint copied under the lock, the moves
    from it replayed and the view made outside it."""
    with w.lock:
        n = w.steps(g)
        game, record = w.records[g]["game"], w.records[g]
        step = 0 if step is None else step
        if not 0 <= step <= n:
            raise RequestError(400, f"step must be in 0..{n}; got {step}")
        players = record["num_players"]
        if seat is not None and not 0 <= seat < players:
            raise RequestError(400, f"seat must be in 0..{players - 1} or public; got {seat}")
        over = w.over_at(g, step)
        first = max(0, step - MAX_LOG)
        start = w.start_at(g, first)
    moves: list[str] = []
    state = w.state_at(g, step, first=first, start=start,
                       each=lambda st, a: moves.append(move_text(game, st, a, seat, over=over)))
    return {"kind": "watch", "game": game, "index": g, "step": step, "steps": n, "seat": seat,
            "agents": _labels(record) or None, "log": moves, "moves": step,
            "view": state_view(game, state, seat)}


# ---------------------------------------------------------------- the app
def config(policies: dict | None = None) -> dict:
    out = {}
    for game in GAMES:
        spec = get_game(game)
        out[game] = {"min_players": spec.min_players, "max_players": spec.max_players,
                     "bots": offered(game, policies or {}), "options": OPTIONS[game],
                     "bot_defaults": default_params(game)}
    params = {name: {k: list(b) for k, b in p.items()} for name, p in WEB_BOTS.items() if p}
    return {"games": out, "bot_budget": DEFAULT_BOT_BUDGET, "max_bot_budget": MAX_BOT_BUDGET, "bot_params": params}


def create_app(max_games: int = 64, max_age: float = 6 * 3600.0, *, allowed_hosts=guard.LOOPBACK_HOSTS,
               policies: dict | None = None, min_idle: float = 600.0, workers: dict | None = None,
               max_memory: int = MAX_MEMORY, max_games_per_client: int | None = None,
               max_memory_per_client: int | None = None, moves_per_client: int = 2, searches_per_client: int = 1):
    """The Starlette app; `app.state.store` holds the sessions, `app.state.quota` the moves in flight.

    `allowed_hosts`: the names a request's Host may carry (`guard.allowed_hosts_for`);
    `policies`: the server's own policies, {game: {name: PolicyWeights}} (`bots.load_policies`);
    `workers`: the bot worker pools (default `default_workers()`); `max_memory`: bytes of sessions
    kept; per client (`guard.client_key`): `max_games_per_client` sessions (default a quarter of
    `max_games`), `max_memory_per_client` bytes (default a quarter of `max_memory`),
    `moves_per_client` bot moves in flight, `searches_per_client` of them searches."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    store = Store(max_games=max_games, max_age=max_age, min_idle=min_idle, max_memory=max_memory,
                  max_games_per_client=max_games_per_client, max_memory_per_client=max_memory_per_client)
    quota = ClientQuota(moves=moves_per_client, searches=searches_per_client)
    allowed = tuple(guard.host_name(h) for h in allowed_hosts)
    policies = policies or {}
    workers = workers or default_workers()
    static_dir = str(resources.files("tabletop_rl.agents.web") / "static")

    class HostCheck:
        """Every request must name an allowed host (DNS rebinding: a foreign name that resolves here)."""

        def __init__(self, app):
            self.app = app

        async def __call__(self, scope, receive, send):
            if scope["type"] in ("http", "websocket"):
                try:
                    guard.check_host(Headers(scope=scope), allowed)
                except RequestError as exc:
                    await JSONResponse({"error": exc.message}, status_code=exc.status)(scope, receive, send)
                    return
            await self.app(scope, receive, send)

    async def post_body(request: Request, limit: int = MAX_JSON_BYTES, types=JSON_TYPES) -> bytes:
        """A POST's body once it has passed the origin, content-type and size checks (`guard`)."""
        guard.check_post(request.headers, request.url.scheme, types)
        return await guard.read_body(request, limit)

    async def on_request_error(request, exc: RequestError):
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def on_http_error(request, exc: HTTPException):
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    async def index(request: Request):
        return FileResponse(os.path.join(static_dir, "index.html"))

    async def favicon(request: Request):
        # a client that does not read the page's icon link asks for /favicon.ico: the same SVG, not a 404 in the log
        return FileResponse(os.path.join(static_dir, "favicon.svg"), media_type="image/svg+xml")

    async def api_config(request: Request):
        return JSONResponse(await run_in_threadpool(config, policies))

    def client(request: Request) -> str:
        return guard.client_key(request.scope.get("client"))

    def _play_view(key: str, s: PlaySession) -> dict:
        with s.lock:  # only to copy what the view needs
            snap = s.snapshot()
        out = s.view(snap)
        out["id"] = key
        return out

    async def create_game(request: Request):
        body = guard.parse_object(await post_body(request))
        s = await run_in_threadpool(new_game, body, policies, workers)
        key = store.add(s, client(request))
        return JSONResponse(await run_in_threadpool(_play_view, key, s), status_code=201)

    async def get_play(request: Request):
        key = request.path_params["key"]
        s = store.get(key, "play")
        return JSONResponse(await run_in_threadpool(_play_view, key, s))

    def _mutate(fn, waits: bool = False):
        async def endpoint(request: Request):
            body = guard.parse_object(await post_body(request))
            key = request.path_params["key"]
            s = store.get(key, "play")
            if waits:  # awaits the bot's move in the event loop, without the lock or a thread
                await fn(s, body, quota, client(request))
            else:
                await run_in_threadpool(fn, s, body, quota, client(request))
            return JSONResponse(await run_in_threadpool(_play_view, key, s))
        return endpoint

    def _act(s: PlaySession, body: dict, quota, who) -> None:
        human_act(s, body)

    async def play_png(request: Request):
        s = store.get(request.path_params["key"], "play")

        def draw():
            with s.lock:
                state = s.state.clone()
            return board_png(s.game, state)
        return Response(await run_in_threadpool(draw), media_type="image/png")

    async def upload_records(request: Request):
        raw = await post_body(request, MAX_RECORDS_BYTES, RECORDS_TYPES)
        w = await run_in_threadpool(load_records, raw)
        key = store.add(w, client(request))
        return JSONResponse({"id": key, "games": records_summary(w)}, status_code=201)

    def _query_int(request: Request, name: str, public_ok: bool = False):
        v = request.query_params.get(name)
        if v is None or (public_ok and v == "public"):
            return None
        if not ASCII_DIGITS.fullmatch(v):  # int() also reads ' 1', '1_0', '١' and '１'
            raise RequestError(400, f"{name} must be an integer (digits 0-9){' or public' if public_ok else ''}; "
                                    f"got {v[:40]!r}")
        return int(v)

    def _game_index(request: Request) -> int:
        g = request.path_params["g"]
        if not ASCII_DIGITS.fullmatch(g):
            raise RequestError(400, f"game index must be an integer (digits 0-9); got {g[:40]!r}")
        return int(g)

    async def get_watch(request: Request):
        w = store.get(request.path_params["key"], "watch")
        g = _game_index(request)
        step, seat = _query_int(request, "step"), _query_int(request, "seat", public_ok=True)
        out = await run_in_threadpool(watch_view, w, g, step, seat)
        out["id"] = request.path_params["key"]
        return JSONResponse(out)

    async def watch_png(request: Request):
        w = store.get(request.path_params["key"], "watch")
        g, step = _game_index(request), _query_int(request, "step") or 0

        def draw():
            with w.lock:
                n = w.steps(g)
                if not 0 <= step <= n:
                    raise RequestError(400, f"step must be in 0..{n}; got {step}")
                start = w.start_at(g, step)
            return board_png(w.records[g]["game"], w.state_at(g, step, start=start))
        return Response(await run_in_threadpool(draw), media_type="image/png")

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/config", api_config),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{key}", get_play),
        Route("/api/games/{key}/act", _mutate(_act), methods=["POST"]),
        Route("/api/games/{key}/advance", _mutate(advance, waits=True), methods=["POST"]),
        Route("/api/games/{key}/finish_turn", _mutate(finish_turn), methods=["POST"]),
        Route("/api/games/{key}/board.png", play_png),
        Route("/api/records", upload_records, methods=["POST"]),
        Route("/api/records/{key}/games/{g}", get_watch),
        Route("/api/records/{key}/games/{g}/board.png", watch_png),
        Mount("/static", app=StaticFiles(directory=static_dir), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(HostCheck)],
                    exception_handlers={RequestError: on_request_error, HTTPException: on_http_error})
    app.state.store = store
    app.state.quota = quota
    return app


def main(argv=None) -> int:
    from tabletop_rl.agents.base import limit_blas_threads

    parser = argparse.ArgumentParser(prog="python -m tabletop_rl.agents.web", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument("--max-games", type=int, default=64, help="games and records kept in memory")
    parser.add_argument("--max-age", type=float, default=6 * 3600.0, help="seconds a game is kept after its last use")
    parser.add_argument("--max-memory-mb", type=int, default=MAX_MEMORY >> 20,
                        help="memory the kept games and records may take, in MB (each session's is counted)")
    parser.add_argument("--max-games-per-client", type=int, default=None,
                        help="games and records one client (address) may hold (default a quarter of --max-games, "
                             "and of the memory; behind a reverse proxy every request is one client: raise it)")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a host name or address clients use to reach the server (repeatable; needed with "
                             "--host 0.0.0.0; the loopback names are allowed otherwise)")
    parser.add_argument("--policy", action="append", default=[], metavar="NAME=PATH",
                        help="a policy .npz the page offers as bot ppo:policy=NAME (repeatable; never a pickle)")
    args = parser.parse_args(argv)
    if args.max_games < 1 or args.max_age <= 0 or args.max_memory_mb < 1:
        parser.error("--max-games and --max-memory-mb must be >= 1 and --max-age > 0")
    if args.max_games_per_client is not None and not 1 <= args.max_games_per_client <= args.max_games:
        parser.error("--max-games-per-client must be in 1..--max-games")
    hosts = guard.allowed_hosts_for(args.host, args.allowed_host)
    if not hosts:
        parser.error(f"--host {args.host!r} listens on every address: name the ones clients use with --allowed-host")
    named = dict(p.partition("=")[::2] for p in args.policy)
    if len(named) != len(args.policy) or not all(k.replace("_", "").replace("-", "").isalnum() and v
                                                   for k, v in named.items()):
        parser.error("--policy takes NAME=PATH (NAME: letters, digits, - and _), each NAME once")
    try:
        policies = load_policies(named)
    except ValueError as exc:
        parser.error(str(exc))
    import uvicorn

    limit_blas_threads()
    app = create_app(max_games=args.max_games, max_age=args.max_age, allowed_hosts=hosts, policies=policies,
                     max_memory=args.max_memory_mb << 20, max_games_per_client=args.max_games_per_client)
    url = f"http://{args.host}:{args.port}/"
    if args.open:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    print(f"tabletop-rl web app on {url}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0

