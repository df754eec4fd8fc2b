"""The web app: play against the bots and watch recorded games in a browser (Starlette + uvicorn).

    python -m tabletop_rl.agents.web --open            # http://127.0.0.1:8000
    python -m tabletop_rl.agents.web --host 0.0.0.0 --allowed-host 192.168.1.20 --port 9000
    python -m tabletop_rl.agents.web --policy mine=runs/R/policy.npz   # bot ppo:policy=mine

JSON API (the page in `static/` uses it; every error is a 4xx/5xx with {"error": message} and
leaves the game as it was):

    GET  /api/config                         games, their bots, options and player counts
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
`max_games` games and records, each for at most `max_age` seconds after its last use. A bot
acts on a copy of the state in a worker thread with a time budget: a bot that raises, returns an
illegal action or runs past its budget is reported to the page (the game is unchanged; the page
can try again, and a late answer is used then).

Threat note. The server is meant for this machine (default 127.0.0.1); any web page the user
opens can send it requests, so a request is data and may choose only:
- a game of GAMES, players and seat in the game's range, rule options from OPTIONS (never a
  file: Fantastiqa's card_set is not offered), a seed in 0..2**31-1, a bot_budget in
  (0, MAX_BOT_BUDGET] seconds;
- bots by registered name from `bots.WEB_BOTS`, with only their bounded numeric parameters
  (`mcts:iterations` <= `bots.MAX_MCTS_ITERATIONS`) or a server policy by name
  (`ppo:policy=NAME`, loaded from `--policy NAME=PATH` at start); never a path, `trust_pickle`
  or any other keyword of `make_agent`;
- its move (a legal action id) and, for records, JSON lines that `records.replay` checks.
Every request must name an allowed Host; every POST must be `application/json` (records:
JSON lines) and same-origin when it sends an Origin (`guard`). Bounds: bodies MAX_JSON_BYTES
(records MAX_RECORDS_BYTES: at most MAX_RECORD_ACTIONS actions a game, MAX_UPLOAD_ACTIONS and
MAX_UPLOAD_GAMES an upload), refused by Content-Length or mid-stream (413); JSON too deep: 400;
at most `max_games` sessions, none dropped while used in the last `min_idle` seconds (a new one
is refused, 503, instead); a watched game keeps at most MAX_CHECKPOINTS states (replayed from
the nearest one); a game at most MAX_PLAY_ACTIONS moves; at most one bot move in flight per
session, searches stopped by a deadline inside the budget, and bounded worker queues (503).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import secrets
import tempfile
import threading
import time
from importlib import resources

from tabletop_rl.agents import agent_names, make_agent
from tabletop_rl.agents.match import bot_action
from tabletop_rl.agents.web import guard
from tabletop_rl.agents.web.bots import (ASCII_DIGITS, SEARCH_BOTS, WEB_BOTS, BotWorkers, build_bot, load_policies,
                                         offered, parse_bot)
from tabletop_rl.agents.web.guard import RequestError
from tabletop_rl.agents.web.views import board_png, move_text, state_view
from tabletop_rl.envs.registry import get_game

GAMES = ("fae", "fantastiqa")
#: Options the page offers (name -> allowed values; the first is the default). Fantastiqa's
#: `card_set` (a file path) is not offered: a request never names a file on the server.
OPTIONS = {
    "fae": {"big_stack_merge": [False, True]},
    "fantastiqa": {"goal": ["short", "long"], "adventure_path": ["simple", "loops"],
                   "fly_in_adventure": [False, True], "bought_to": ["discard", "hand"],
                   "card_use": ["symbol_or_power", "both"], "draw_rule": ["up_to_5", "draw_5"],
                   "abbey": [False, True], "teams": [False, True], "mark_return": ["forbid", "allow"],
                   "turn_loops": ["forbid", "allow"]},
}
MAX_JSON_BYTES = 1 << 20  # a move or a new game is a few hundred bytes
MAX_RECORDS_BYTES = 8 << 20
MAX_RECORD_ACTIONS = 20_000  # real games: Fae about 40 actions, Fantastiqa under 2,000
MAX_UPLOAD_ACTIONS = 500_000
MAX_UPLOAD_GAMES = 5_000
MAX_PLAY_ACTIONS = MAX_RECORD_ACTIONS
MAX_CHECKPOINTS = 64  # states kept of the watched game; a view replays from the nearest one
MIN_CHECKPOINT_EVERY = 50
MAX_LOG = 300  # moves sent with a view (the latest)
FINISH_TURN_STEPS = 5_000
DEFAULT_BOT_BUDGET = 30.0
MAX_BOT_BUDGET = 120.0
JSON_TYPES = ("application/json",)
RECORDS_TYPES = ("application/json", "application/x-ndjson", "application/jsonl")


# ---------------------------------------------------------------- sessions
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
        self.labels, self.bots, self.workers = [], [], []
        others = iter(bot_specs)
        for s in range(players):
            if s == seat:
                self.labels.append("you")
                self.bots.append(None)
                self.workers.append(None)
                continue
            text = next(others)
            name, params = parse_bot(text, game, policies)
            bot = build_bot(game, name, params, seed + 1000 * (s + 1), bot_budget, policies)
            bot.reset(seed + 7919 * (s + 1))
            self.labels.append(text)
            self.bots.append(bot)
            self.workers.append(workers["search" if name in SEARCH_BOTS else "quick"])
        self.helpers: dict = {}  # name -> the bot that plays the rest of your turn when asked
        self.log: list[dict] = []
        self.actions: list[int] = []
        self.lock = threading.Lock()
        self.pending = None  # (future, number of actions when it was asked) of a bot past its budget

    def apply(self, action: int) -> None:
        if len(self.actions) >= MAX_PLAY_ACTIONS:
            raise RequestError(409, f"the game passed {MAX_PLAY_ACTIONS} moves, the most a web game may have")
        before = self.state.clone()
        self.state.apply(action)
        self.actions.append(int(action))
        self.log.append({"mover": int(before.current_player),
                         "yours": move_text(self.game, before, action, self.seat, over=False),
                         "all": move_text(self.game, before, action, None, over=True)})

    def view(self) -> dict:
        over = self.state.is_terminal()
        texts = [e["all"] if over else e["yours"] for e in self.log[-MAX_LOG:]]
        out = {"id": None, "kind": "play", "game": self.game, "seat": self.seat, "players": self.players,
               "labels": self.labels, "options": self.options, "moves": len(self.log), "log": texts,
               "view": state_view(self.game, self.state, self.seat)}
        if over:
            out["seed"] = self.seed
        return out


class WatchSession:
    """Uploaded records. The watched game is replayed once to check it, keeping at most
    MAX_CHECKPOINTS of its states; a view replays from the nearest one (only one game at a time)."""

    kind = "watch"

    def __init__(self, records: list[dict]):
        self.records = records
        self.lock = threading.Lock()
        self._open: tuple | None = None  # (game index, checkpoints, every, final state is terminal)

    def _checkpoints(self, g: int) -> tuple:
        from tabletop_rl.agents.records import ReplayError, replay

        if not 0 <= g < len(self.records):
            raise RequestError(404, f"game {g} is not in these records (0..{len(self.records) - 1})")
        if self._open is None or self._open[0] != g:
            record = self.records[g]
            every = max(MIN_CHECKPOINT_EVERY, -(-len(record["actions"]) // MAX_CHECKPOINTS))
            kept = []
            try:
                for i, state in enumerate(replay(record, stream=True, max_steps=MAX_RECORD_ACTIONS)):
                    if i % every == 0:
                        kept.append(state.clone())
            except (ReplayError, ValueError, TypeError, KeyError) as exc:
                raise RequestError(400, f"record {g} cannot be replayed: {exc}") from None
            self._open = (g, kept, every, state.is_terminal())
        return self._open

    def steps(self, g: int) -> int:
        self._checkpoints(g)
        return len(self.records[g]["actions"])

    def over_at(self, g: int, step: int) -> bool:
        """Whether the game is over at `step` (only ever at its last step)."""
        return step == self.steps(g) and self._checkpoints(g)[3]

    def state_at(self, g: int, step: int, first: int | None = None, each=None):
        """The state after `step` actions (a copy), replayed from the checkpoint at or before
        `first` (default `step`); `each(state, action)` sees the states first..step-1 with their action."""
        _, kept, every, _ = self._checkpoints(g)
        first = step if first is None else first
        i = first // every * every
        state = kept[i // every].clone()
        actions = self.records[g]["actions"]
        for i in range(i, step):
            if each is not None and i >= first:
                each(state, actions[i])
            state.apply(actions[i])
        return state


class Store:
    """Sessions by unguessable id, at most `max_games`, each dropped `max_age` s after its last use.

    When full, a new session replaces the least recently used one only if that one has been
    unused for `min_idle` s; else the new one is refused (503): no client can drop the games
    others are playing."""

    def __init__(self, max_games: int = 64, max_age: float = 6 * 3600.0, min_idle: float = 600.0):
        self.max_games, self.max_age, self.min_idle = int(max_games), float(max_age), float(min_idle)
        self._items: dict[str, list] = {}  # id -> [session, last use]
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        for key in [k for k, (_, t) in self._items.items() if now - t > self.max_age]:
            del self._items[key]

    def add(self, session) -> str:
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            if len(self._items) >= self.max_games:
                oldest = min(self._items, key=lambda k: self._items[k][1])
                if now - self._items[oldest][1] < self.min_idle:
                    raise RequestError(503, f"the server holds {self.max_games} games and records, all used in "
                                            f"the last {self.min_idle:.0f} s; try again later")
                del self._items[oldest]
            key = secrets.token_urlsafe(18)
            self._items[key] = [session, now]
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


def finish_turn(s: PlaySession, body: dict) -> None:
    """A quick bot (body {"bot": "random"|"greedy"}, default random) plays the rest of the person's turn."""
    name = body.get("bot", "random")
    if name not in HELPERS or name not in agent_names(s.game):
        raise RequestError(400, f"bot must be one of {[h for h in HELPERS if h in agent_names(s.game)]}; "
                                f"got {str(name)[:40]}")
    with s.lock:
        _check_over_and_turn(s, mine=True)
        helper = s.helpers.get(name)
        if helper is None:
            helper = s.helpers[name] = make_agent(s.game, name, seed=s.seed + 104729 + len(s.helpers))
        for _ in range(FINISH_TURN_STEPS):
            if s.state.is_terminal() or s.state.current_player != s.seat:
                return
            s.apply(bot_action(helper, s.spec, s.state.clone(), s.seat))  # checked legal
        raise RequestError(500, f"your turn did not end within {FINISH_TURN_STEPS} moves of the {name} bot")


def bot_step(s: PlaySession) -> None:
    with s.lock:
        _check_over_and_turn(s, mine=False)
        seat = s.state.current_player
        bot = s.bots[seat]
        if s.pending is not None and s.pending[1] == len(s.actions):
            future = s.pending[0]
        else:
            # a trained policy observes with the options it was trained on (as in `match.play_game`)
            opts = {k: v for k, v in (getattr(bot, "observation_options", None) or {}).items()
                    if k in s.spec.observation_options}
            future = s.workers[seat].submit(bot_action, bot, s.spec, s.state.clone(), seat, opts)
        try:
            action = future.result(timeout=s.bot_budget)
        except concurrent.futures.TimeoutError:
            s.pending = (future, len(s.actions))
            raise RequestError(503, f"bot {s.labels[seat]!r} (player_{seat}) did not move within its "
                                    f"{s.bot_budget:g} s budget; try again to wait for it") from None
        except Exception as exc:  # noqa: BLE001 (any failure of a bot is reported, never crashes the server)
            s.pending = None
            raise RequestError(502, f"bot {s.labels[seat]!r} (player_{seat}) failed: "
                                    f"{type(exc).__name__}: {exc}") from None
        s.pending = None  # bot_action checked the action (an illegal one failed above, as a 502)
        s.apply(action)


def advance(s: PlaySession, body: dict) -> None:
    """One bot move; with {"all": true} every bot move up to the person's turn or the end."""
    every = body.get("all", False)
    if not isinstance(every, bool):
        raise RequestError(400, f"all must be true or false; got {str(every)[:40]}")
    bot_step(s)
    while every and not s.state.is_terminal() and s.state.current_player != s.seat:
        bot_step(s)


# ---------------------------------------------------------------- records
def load_records(raw: bytes) -> WatchSession:
    """Parse and bound an upload (each game is checked by replaying it when it is first watched)."""
    from tabletop_rl.agents.records import Record, read_records

    if len(raw) > MAX_RECORDS_BYTES:
        raise RequestError(413, f"records file is larger than {MAX_RECORDS_BYTES} bytes")
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        try:
            records = []
            for r in read_records(path):
                if len(records) >= MAX_UPLOAD_GAMES:
                    raise RequestError(400, f"the records file holds more than {MAX_UPLOAD_GAMES} games")
                # kept: the fields replay checks (labels the page does not show are dropped)
                kept = Record({k: v for k, v in r.items() if k not in ("meta", "rewards")})
                kept.source = r.source.replace(path, "records")
                records.append(kept)
        except (ValueError, UnicodeDecodeError) as exc:
            raise RequestError(400, str(exc).replace(path, "records")) from None
    finally:
        os.unlink(path)
    if not records:
        raise RequestError(400, "the records file holds no game")
    total = 0
    for i, r in enumerate(records):
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
        acts = r.get("actions")
        if not isinstance(acts, list) or len(acts) > MAX_RECORD_ACTIONS or not all(
                isinstance(a, int) and not isinstance(a, bool) for a in acts):
            raise RequestError(400, f"{where}: actions must be a list of at most {MAX_RECORD_ACTIONS} integers")
        total += len(acts)
        if total > MAX_UPLOAD_ACTIONS:
            raise RequestError(400, f"the records hold more than {MAX_UPLOAD_ACTIONS} actions in all")
        seed = r.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RequestError(400, f"{where}: seed must be an integer; got {str(seed)[:40]}")
        n = r.get("num_players")
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4:
            raise RequestError(400, f"{where}: num_players must be 2..4; got {str(n)[:40]}")
    return WatchSession(records)


def _labels(record: dict) -> list[str]:
    """The record's bot names (optional, free text: shown as text only)."""
    agents = record.get("agents")
    return [str(a)[:80] for a in agents[:record["num_players"]]] if isinstance(agents, list) else []


def records_summary(w: WatchSession) -> list[dict]:
    return [{"index": i, "game": r["game"], "num_players": r["num_players"], "moves": len(r["actions"]),
             "agents": _labels(r)} for i, r in enumerate(w.records)]


def watch_view(w: WatchSession, g: int, step, seat) -> dict:
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
        moves: list[str] = []
        state = w.state_at(g, step, first=max(0, step - MAX_LOG),
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
                     "bots": offered(game, policies or {}), "options": OPTIONS[game]}
    params = {name: {k: list(b) for k, b in p.items()} for name, p in WEB_BOTS.items() if p}
    return {"games": out, "bot_budget": DEFAULT_BOT_BUDGET, "max_bot_budget": MAX_BOT_BUDGET, "bot_params": params}


def create_app(max_games: int = 64, max_age: float = 6 * 3600.0, *, allowed_hosts=guard.LOOPBACK_HOSTS,
               policies: dict | None = None, min_idle: float = 600.0, workers: dict | None = None):
    """The Starlette app; `app.state.store` holds the sessions.

    `allowed_hosts`: the names a request's Host may carry (`guard.allowed_hosts_for`);
    `policies`: the server's own policies, {game: {name: PolicyWeights}} (`bots.load_policies`);
    `workers`: the bot worker pools (default `default_workers()`)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    store = Store(max_games=max_games, max_age=max_age, min_idle=min_idle)
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

    async def api_config(request: Request):
        return JSONResponse(await run_in_threadpool(config, policies))

    def _play_view(key: str, s: PlaySession) -> dict:
        with s.lock:
            out = s.view()
        out["id"] = key
        return out

    async def create_game(request: Request):
        body = guard.parse_object(await post_body(request))
        s = await run_in_threadpool(new_game, body, policies, workers)
        key = store.add(s)
        return JSONResponse(await run_in_threadpool(_play_view, key, s), status_code=201)

    async def get_play(request: Request):
        key = request.path_params["key"]
        s = store.get(key, "play")
        return JSONResponse(await run_in_threadpool(_play_view, key, s))

    def _mutate(fn):
        async def endpoint(request: Request):
            body = guard.parse_object(await post_body(request))
            key = request.path_params["key"]
            s = store.get(key, "play")
            await run_in_threadpool(fn, s, body)
            return JSONResponse(await run_in_threadpool(_play_view, key, s))
        return endpoint

    async def play_png(request: Request):
        s = store.get(request.path_params["key"], "play")

        def draw():
            with s.lock:
                return board_png(s.game, s.state)
        return Response(await run_in_threadpool(draw), media_type="image/png")

    async def upload_records(request: Request):
        raw = await post_body(request, MAX_RECORDS_BYTES, RECORDS_TYPES)
        w = await run_in_threadpool(load_records, raw)
        key = store.add(w)
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
                return board_png(w.records[g]["game"], w.state_at(g, step))
        return Response(await run_in_threadpool(draw), media_type="image/png")

    routes = [
        Route("/", index),
        Route("/api/config", api_config),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{key}", get_play),
        Route("/api/games/{key}/act", _mutate(human_act), methods=["POST"]),
        Route("/api/games/{key}/advance", _mutate(advance), methods=["POST"]),
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
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="a host name or address clients use to reach the server (repeatable; needed with "
                             "--host 0.0.0.0; the loopback names are allowed otherwise)")
    parser.add_argument("--policy", action="append", default=[], metavar="NAME=PATH",
                        help="a policy .npz the page offers as bot ppo:policy=NAME (repeatable; never a pickle)")
    args = parser.parse_args(argv)
    if args.max_games < 1 or args.max_age <= 0:
        parser.error("--max-games must be >= 1 and --max-age > 0")
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
    app = create_app(max_games=args.max_games, max_age=args.max_age, allowed_hosts=hosts, policies=policies)
    url = f"http://{args.host}:{args.port}/"
    if args.open:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    print(f"tabletop-rl web app on {url}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0

