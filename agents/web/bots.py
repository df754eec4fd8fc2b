"""The bots a web request may choose, and the worker threads that compute their moves.

A request names a bot as `name` or `name:key=value,...`, but only from an allow-list: the
registered names in `WEB_BOTS`, each with the numeric parameters a request may set and their
bounds (`mcts:iterations=N`, N <= MAX_MCTS_ITERATIONS). Nothing else is taken from a request: no
file path, no `trust_pickle`, no other keyword of `make_agent` (the arena's spec parser is not
used here). Trained policies beyond the shipped ones are the server's: `--policy NAME=PATH`
loads a `.npz` (never a pickle) when the server starts, and a request picks it by name
(`ppo:policy=NAME`); a shipped version is picked by its catalogue name (`ppo:version=NAME`,
`tabletop_rl.agents.policy_versions`), never by a path. The answer to a refused parameter never depends on its value, so it tells
nothing about the server's files.

Moves are computed in worker threads, which cannot be stopped, so each is bounded instead: a
search bot (MCTS) gets a deadline (`max_seconds`) inside its time budget, quick bots and search
bots have workers of their own (a busy search never delays a random bot), and each pool accepts
at most `workers + queue` moves at once: past that a request gets a 503 at once instead of
waiting behind the others. A session has at most one move in flight (`server.start_bot_move`),
and one client at most `moves_per_client`, `searches_per_client` of them searches
(`guard.ClientQuota`): one client's searches cannot fill the search workers.
"""
from __future__ import annotations

import concurrent.futures
import functools
import re
import threading

from tabletop_rl.agents import agent_names, make_agent
from tabletop_rl.agents.policy_versions import default_version, version_names
from tabletop_rl.agents.web.guard import RequestError

MAX_MCTS_ITERATIONS = 2_000
#: bot name -> {parameter a request may set: (lowest, highest)}.
WEB_BOTS = {"random": {}, "greedy": {}, "ppo": {}, "mcts": {"iterations": (1, MAX_MCTS_ITERATIONS)}}
#: Bots that search (and run under a deadline, in the search workers).
SEARCH_BOTS = ("mcts",)
#: The share of the bot's time budget its search may use (the rest: observation, answer).
DEADLINE_SHARE = 0.8
MAX_SPEC_CHARS = 120
#: A number in a request: 1 to 12 ASCII digits (never `str.isdigit`, which takes '²' and '١').
ASCII_DIGITS = re.compile(r"[0-9]{1,12}")


def parse_bot(text, game: str, policies: dict) -> tuple[str, dict]:
    """A request's bot spec -> (registered name, parameters), or a RequestError (400)."""
    if not isinstance(text, str) or not text or len(text) > MAX_SPEC_CHARS:
        raise RequestError(400, f"a bot must be a name of at most {MAX_SPEC_CHARS} characters; got {str(text)[:40]!r}")
    name, _, rest = text.partition(":")
    name = name.strip()
    if name not in WEB_BOTS or name not in agent_names(game):
        raise RequestError(400, f"unknown bot {name!r} for {game}; the web app offers {offered(game, policies)}")
    params: dict = {}
    for item in (x.strip() for x in rest.split(",")) if rest.strip() else ():
        key, eq, value = (x.strip() for x in item.partition("="))
        if key in params:
            raise RequestError(400, f"bot {name!r}: parameter {key!r} is given twice")
        if name == "ppo" and key == "policy" and eq:
            if value not in policies.get(game, {}):
                raise RequestError(400, f"bot 'ppo': no server policy {value!r} for {game}; "
                                        f"the server has {sorted(policies.get(game, {}))}")
            params[key] = value
            continue
        if name == "ppo" and key == "version" and eq:
            if value not in version_names(game):
                raise RequestError(400, f"bot 'ppo': no shipped {game} policy version {value[:40]!r}; "
                                        f"the shipped ones are {version_names(game)}")
            params[key] = value
            continue
        bounds = WEB_BOTS[name].get(key)
        if bounds is None or not eq:
            allowed = [f"{k}={lo}..{hi}" for k, (lo, hi) in WEB_BOTS[name].items()] + (
                ["policy=NAME", "version=NAME"] if name == "ppo" else [])
            raise RequestError(400, f"bot {name!r}: parameter {key[:40]!r} is not one a request may set "
                                    f"(allowed: {allowed or 'none'})")
        lo, hi = bounds
        # ASCII digits only: str.isdigit() also takes '²' (int() then fails: a 500 before) and
        # Arabic-Indic or full-width digits (which int() reads)
        if not (ASCII_DIGITS.fullmatch(value) and lo <= int(value) <= hi):
            raise RequestError(400, f"bot {name!r}: {key} must be an integer in {lo}..{hi} written with the "
                                    f"digits 0-9; got {value[:20]!r}")
        params[key] = int(value)
    if {"policy", "version"} <= set(params):
        raise RequestError(400, "bot 'ppo': give policy=NAME or version=NAME, not both")
    return name, params


def offered(game: str, policies: dict) -> list[str]:
    """The bot specs the page lists for `game` (the shipped versions other than the default as
    `ppo:version=NAME`, server policies as `ppo:policy=NAME`)."""
    names = [n for n in agent_names(game) if n in WEB_BOTS]
    shipped = [v for v in version_names(game) if v != default_version(game)] if "ppo" in names else []
    return names + [f"ppo:version={v}" for v in shipped] + [f"ppo:policy={p}" for p in sorted(policies.get(game, {}))]


@functools.lru_cache(maxsize=None)
def default_params(game: str) -> dict:
    """{bot: {parameter a request may set: the bot's own default}} for `game` (the page shows
    these, e.g. MCTS's iterations: 300 for Fae, 24 for Fantastiqa), read from the bot itself."""
    names = [n for n in agent_names(game) if WEB_BOTS.get(n)]
    return {n: {k: getattr(make_agent(game, n, seed=0), k) for k in WEB_BOTS[n]} for n in names}


def build_bot(game: str, name: str, params: dict, seed: int, budget: float, policies: dict):
    """The agent for a parsed spec: search bots get the deadline `DEADLINE_SHARE * budget`."""
    kwargs = dict(params)
    if name in SEARCH_BOTS:
        kwargs["max_seconds"] = DEADLINE_SHARE * budget
    if name == "ppo" and "policy" in kwargs:
        kwargs["weights"] = policies[game][kwargs.pop("policy")]
    return make_agent(game, name, seed=seed, **kwargs)


def load_policies(named: dict) -> dict:
    """`{NAME: path of a .npz}` (the server's own files, from --policy) -> {game: {NAME: PolicyWeights}}."""
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    out: dict = {}
    for name, path in named.items():
        if not str(path).endswith(".npz"):
            raise ValueError(f"--policy {name}: the web app loads .npz policies only (never a pickle); got {path}")
        weights = PolicyWeights.load(path)
        game = weights.meta.get("game", "fae")
        if game not in ("fae", "fantastiqa"):
            raise ValueError(f"--policy {name}: its meta names game {game!r}, not one the web app plays")
        out.setdefault(game, {})[name] = weights
    return out


class BotWorkers:
    """Threads for bot moves that accept at most `workers + queue` moves at once (else a 503)."""

    def __init__(self, workers: int, queue: int, name: str):
        self.workers, self.queue = int(workers), int(queue)
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix=name)
        self._slots = threading.BoundedSemaphore(self.workers + self.queue)

    def submit(self, fn, *args) -> concurrent.futures.Future:
        if not self._slots.acquire(blocking=False):
            raise RequestError(503, f"the server is busy: {self.workers + self.queue} bot moves are being "
                                    "computed or waiting; try again in a moment")
        try:
            future = self._pool.submit(fn, *args)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        return future
