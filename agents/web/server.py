"""The web app: play against the bots and watch recorded games in a browser (Starlette + uvicorn).

    python -m tabletop_rl.agents.web --open            # http://127.0.0.1:8000
    python -m tabletop_rl.agents.web --host 0.0.0.0 --port 9000

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
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import secrets
import tempfile
import threading
import time
from importlib import resources

from tabletop_rl.agents import agent_names, make_agent
from tabletop_rl.agents.arena import parse_agent
from tabletop_rl.agents.match import bot_action
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
                   "abbey": [False, True], "teams": [False, True], "mark_return": ["forbid", "allow"]},
}
MAX_RECORDS_BYTES = 20 * 1024 * 1024
MAX_RECORD_ACTIONS = 200_000
MAX_LOG = 300  # moves sent with a view (the latest)
FINISH_TURN_STEPS = 5_000
DEFAULT_BOT_BUDGET = 30.0
_BOT_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="web-bot")


class RequestError(Exception):
    """A request the server refuses: `status` (4xx, or 5xx for a failing bot) and a message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------- sessions
class PlaySession:
    """One game: a person at `seat`, bots at the other seats."""

    kind = "play"

    def __init__(self, game: str, players: int, seat: int, bot_specs: list[str], options: dict, seed: int,
                 bot_budget: float):
        self.game, self.spec, self.seat = game, get_game(game), seat
        self.players, self.options, self.seed, self.bot_budget = players, options, seed, bot_budget
        self.state = self.spec.new_state(num_players=players, seed=seed, **options)
        self.labels = []
        self.bots = []
        others = iter(bot_specs)
        for s in range(players):
            if s == seat:
                self.labels.append("you")
                self.bots.append(None)
                continue
            text = next(others)
            name, kwargs = parse_agent(text)
            try:
                bot = make_agent(game, name, seed=seed + 1000 * (s + 1), **kwargs)
            except (TypeError, ValueError, OSError) as exc:
                raise RequestError(400, f"bot {text!r} for seat {s}: {exc}") from None
            bot.reset(seed + 7919 * (s + 1))
            self.labels.append(text)
            self.bots.append(bot)
        self.helpers: dict = {}  # name -> the bot that plays the rest of your turn when asked
        self.log: list[dict] = []
        self.actions: list[int] = []
        self.lock = threading.Lock()
        self.pending = None  # (future, number of actions when it was asked) of a bot past its budget

    def apply(self, action: int) -> None:
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
    """Uploaded records; the states of one game are kept (replayed on demand)."""

    kind = "watch"

    def __init__(self, records: list[dict]):
        self.records = records
        self.lock = threading.Lock()
        self._cached: tuple[int, list] | None = None

    def states(self, g: int) -> list:
        from tabletop_rl.agents.records import ReplayError, replay

        if not 0 <= g < len(self.records):
            raise RequestError(404, f"game {g} is not in these records (0..{len(self.records) - 1})")
        if self._cached is None or self._cached[0] != g:
            try:
                self._cached = (g, replay(self.records[g]))
            except (ReplayError, ValueError, TypeError, KeyError) as exc:
                raise RequestError(400, f"record {g} cannot be replayed: {exc}") from None
        return self._cached[1]


class Store:
    """Sessions by unguessable id, at most `max_games`, each dropped `max_age` s after its last use."""

    def __init__(self, max_games: int = 64, max_age: float = 6 * 3600.0):
        self.max_games, self.max_age = int(max_games), float(max_age)
        self._items: dict[str, list] = {}  # id -> [session, last use]
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        for key in [k for k, (_, t) in self._items.items() if now - t > self.max_age]:
            del self._items[key]

    def add(self, session) -> str:
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            while len(self._items) >= self.max_games:  # drop the least recently used
                del self._items[min(self._items, key=lambda k: self._items[k][1])]
            key = secrets.token_urlsafe(18)
            self._items[key] = [session, now]
        return key

    def get(self, key: str, kind: str):
        now = time.monotonic()
        with self._lock:
            self._expire(now)
            item = self._items.get(key)
            if item is None or item[0].kind != kind:
                raise RequestError(404, f"no {kind} session {key!r} (unknown, or dropped after "
                                        f"{self.max_age:.0f} s unused or when more than {self.max_games} were open)")
            item[1] = now
            return item[0]

    def __len__(self) -> int:
        return len(self._items)


# ---------------------------------------------------------------- validation helpers
def _int(body: dict, key: str, lo: int, hi: int, default=None) -> int:
    v = body.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise RequestError(400, f"{key} must be an integer in {lo}..{hi}; got {v!r}")
    return v


def _object(raw: bytes) -> dict:
    try:
        body = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RequestError(400, f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise RequestError(400, f"the request body must be a JSON object; got {type(body).__name__}")
    return body


def new_game(body: dict) -> PlaySession:
    game = body.get("game")
    if game not in GAMES:
        raise RequestError(400, f"game must be one of {list(GAMES)}; got {game!r}")
    spec = get_game(game)
    players = _int(body, "players", spec.min_players, spec.max_players, default=2)
    seat = _int(body, "seat", 0, players - 1, default=0)
    bots = body.get("bots", ["random"] * (players - 1))
    if not isinstance(bots, list) or len(bots) != players - 1 or not all(isinstance(b, str) and b for b in bots):
        raise RequestError(400, f"bots must list {players - 1} bot names (the other seats in order); got {bots!r}")
    known = agent_names(game)
    for b in bots:
        if b.partition(":")[0].strip() not in known:
            raise RequestError(400, f"unknown bot {b!r} for {game}; known: {known}")
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise RequestError(400, f"options must be an object; got {options!r}")
    for k, v in options.items():
        allowed = OPTIONS[game].get(k)
        if allowed is None:
            raise RequestError(400, f"unknown option {k!r} for {game}; options: {sorted(OPTIONS[game])}")
        if v not in allowed or type(v) is not type(allowed[0]):
            raise RequestError(400, f"option {k} must be one of {allowed}; got {v!r}")
    seed = body.get("seed")
    seed = secrets.randbits(31) if seed is None else _int(body, "seed", 0, 2 ** 31 - 1)
    budget = body.get("bot_budget", DEFAULT_BOT_BUDGET)
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= 600:
        raise RequestError(400, f"bot_budget must be a number of seconds in (0, 600]; got {budget!r}")
    try:
        return PlaySession(game, players, seat, bots, dict(options), seed, float(budget))
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
            raise RequestError(400, f"action must be an integer action id; got {a!r}")
        if not _legal(s, s.seat, a):
            raise RequestError(400, f"action {a} is not legal now; the legal ones are listed in choices")
        s.apply(a)


#: Bots that may play the rest of the person's turn ("Finish my turn"); quick ones only.
HELPERS = ("random", "greedy")


def finish_turn(s: PlaySession, body: dict) -> None:
    """A quick bot (body {"bot": "random"|"greedy"}, default random) plays the rest of the person's turn."""
    name = body.get("bot", "random")
    if name not in HELPERS or name not in agent_names(s.game):
        raise RequestError(400, f"bot must be one of {[h for h in HELPERS if h in agent_names(s.game)]}; got {name!r}")
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
            future = _BOT_POOL.submit(bot_action, bot, s.spec, s.state.clone(), seat)
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
        raise RequestError(400, f"all must be true or false; got {every!r}")
    bot_step(s)
    while every and not s.state.is_terminal() and s.state.current_player != s.seat:
        bot_step(s)


# ---------------------------------------------------------------- records
def load_records(raw: bytes) -> WatchSession:
    from tabletop_rl.agents.records import read_records

    if len(raw) > MAX_RECORDS_BYTES:
        raise RequestError(413, f"records file is larger than {MAX_RECORDS_BYTES} bytes")
    fd, path = tempfile.mkstemp(suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        try:
            records = list(read_records(path))
        except (ValueError, UnicodeDecodeError) as exc:
            raise RequestError(400, str(exc).replace(path, "records")) from None
    finally:
        os.unlink(path)
    if not records:
        raise RequestError(400, "the records file holds no game")
    for i, r in enumerate(records):
        where = f"record {i}"
        if r.get("game") not in GAMES:
            raise RequestError(400, f"{where}: game must be one of {list(GAMES)}; got {r.get('game')!r}")
        opts = r.get("options")
        if isinstance(opts, dict) and opts.get("card_set", 0) is None:  # the default card set, said explicitly
            opts = {k: v for k, v in opts.items() if k != "card_set"}
            r["options"] = opts
        if not isinstance(opts, dict) or any(k not in OPTIONS[r["game"]] for k in opts):
            raise RequestError(400, f"{where}: options must be an object of {sorted(OPTIONS[r['game']])}; "
                                    f"got {opts!r}")
        acts = r.get("actions")
        if not isinstance(acts, list) or len(acts) > MAX_RECORD_ACTIONS or not all(
                isinstance(a, int) and not isinstance(a, bool) for a in acts):
            raise RequestError(400, f"{where}: actions must be a list of at most {MAX_RECORD_ACTIONS} integers")
        seed = r.get("seed")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RequestError(400, f"{where}: seed must be an integer; got {seed!r}")
        n = r.get("num_players")
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4:
            raise RequestError(400, f"{where}: num_players must be 2..4; got {n!r}")
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
        states = w.states(g)
        game = w.records[g]["game"]
        n = len(states) - 1
        if step is None:
            step = 0
        if not 0 <= step <= n:
            raise RequestError(400, f"step must be in 0..{n}; got {step}")
        if seat is not None and not 0 <= seat < states[0].num_players:
            raise RequestError(400, f"seat must be in 0..{states[0].num_players - 1} or public; got {seat}")
        over = states[step].is_terminal()
        actions = w.records[g]["actions"]
        moves = [move_text(game, states[i], actions[i], seat, over=over) for i in range(step)]
        return {"kind": "watch", "game": game, "index": g, "step": step, "steps": n, "seat": seat,
                "agents": _labels(w.records[g]) or None, "log": moves[-MAX_LOG:], "moves": step,
                "view": state_view(game, states[step], seat)}


# ---------------------------------------------------------------- the app
def config() -> dict:
    out = {}
    for game in GAMES:
        spec = get_game(game)
        out[game] = {"min_players": spec.min_players, "max_players": spec.max_players,
                     "bots": agent_names(game), "options": OPTIONS[game]}
    return {"games": out, "bot_budget": DEFAULT_BOT_BUDGET}


def create_app(max_games: int = 64, max_age: float = 6 * 3600.0):
    """The Starlette app; `app.state.store` holds the sessions."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    store = Store(max_games=max_games, max_age=max_age)
    static_dir = str(resources.files("tabletop_rl.agents.web") / "static")

    async def on_request_error(request, exc: RequestError):
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def on_http_error(request, exc: HTTPException):
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    async def index(request: Request):
        return FileResponse(os.path.join(static_dir, "index.html"))

    async def api_config(request: Request):
        return JSONResponse(await run_in_threadpool(config))

    def _play_view(key: str, s: PlaySession) -> dict:
        with s.lock:
            out = s.view()
        out["id"] = key
        return out

    async def create_game(request: Request):
        body = _object(await request.body())
        s = await run_in_threadpool(new_game, body)
        key = store.add(s)
        return JSONResponse(await run_in_threadpool(_play_view, key, s), status_code=201)

    async def get_play(request: Request):
        key = request.path_params["key"]
        s = store.get(key, "play")
        return JSONResponse(await run_in_threadpool(_play_view, key, s))

    def _mutate(fn):
        async def endpoint(request: Request):
            key = request.path_params["key"]
            s = store.get(key, "play")
            body = _object(await request.body())
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
        raw = await request.body()
        w = await run_in_threadpool(load_records, raw)
        key = store.add(w)
        return JSONResponse({"id": key, "games": records_summary(w)}, status_code=201)

    def _query_int(request: Request, name: str, public_ok: bool = False):
        v = request.query_params.get(name)
        if v is None or (public_ok and v == "public"):
            return None
        try:
            return int(v)
        except ValueError:
            raise RequestError(400, f"{name} must be an integer{' or public' if public_ok else ''}; got {v!r}") \
                from None

    def _game_index(request: Request) -> int:
        try:
            return int(request.path_params["g"])
        except ValueError:
            raise RequestError(400, f"game index must be an integer; got {request.path_params['g']!r}") from None

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
                states = w.states(g)
                if not 0 <= step < len(states):
                    raise RequestError(400, f"step must be in 0..{len(states) - 1}; got {step}")
                return board_png(w.records[g]["game"], states[step])
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
    app = Starlette(routes=routes, exception_handlers={RequestError: on_request_error, HTTPException: on_http_error})
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
    args = parser.parse_args(argv)
    if args.max_games < 1 or args.max_age <= 0:
        parser.error("--max-games must be >= 1 and --max-age > 0")
    import uvicorn

    limit_blas_threads()
    app = create_app(max_games=args.max_games, max_age=args.max_age)
    url = f"http://{args.host}:{args.port}/"
    if args.open:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    print(f"tabletop-rl web app on {url}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0

