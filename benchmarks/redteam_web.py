"""Red-team rows for the web app and the game records (issues 24 and 36): every attack the red team
tried against them, run again on this checkout, each with its outcome.

    python benchmarks/redteam_web.py          # a table of cases, then the counts (< 1 min)

Everything runs in this process (starlette's TestClient, no socket); the slow searches of issue
36's availability rows are stand-ins that think until released (at most 60 s), so the run stays
bounded. `rows()` returns one dict per case: {"target": "web app", "records" or "bot specs
(CLI)", "case": text, "outcome":
"clear" | "unclear" | "silently accepted" | "crash later" | "code executed"}. "clear": refused
with a 4xx (or an exception of the loader's own type) whose message names the problem, and no
state changed; "unclear": refused, but by a 5xx, a crash or a message-less answer; "silently
accepted": taken as if valid; "crash later": taken, then failing when used; "code executed": the
payload's marker file appeared. `benchmarks/redteam.py` imports `rows()`.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.web_helpers, run from anywhere

from starlette.testclient import TestClient  # noqa: E402

import numpy as np  # noqa: E402

from tabletop_rl.agents import make_agent  # noqa: E402
from tabletop_rl.agents.base import Agent  # noqa: E402
from tabletop_rl.agents.match import play_game  # noqa: E402
from tabletop_rl.agents.records import ReplayError, replay  # noqa: E402
from tabletop_rl.agents.web import create_app, server  # noqa: E402
from tabletop_rl.agents.web.bots import BotWorkers  # noqa: E402
from tabletop_rl.envs.registry import get_game  # noqa: E402
from tests.web_helpers import EVIL_ORIGIN, deep_json, evil_sb3_zip, looping_record  # noqa: E402

BASE = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}
JSONL = {"content-type": "application/x-ndjson"}
OUTCOMES = ("clear", "unclear", "silently accepted", "crash later", "code executed")


def _client(**app_options) -> TestClient:
    return TestClient(create_app(**app_options), base_url=BASE, raise_server_exceptions=False)


def _answer(r, unchanged: bool = True) -> str:
    """The outcome of one refused-or-not request."""
    if r.status_code < 400:
        return "silently accepted"
    try:
        message = r.json().get("error")
    except ValueError:
        message = None
    return "clear" if r.status_code < 500 and message and unchanged else "unclear"


def _row(target: str, case: str, outcome: str) -> dict:
    assert outcome in OUTCOMES, outcome
    return {"target": target, "case": case, "outcome": outcome}


# ---------------------------------------------------------------- web app
def _rce_rows(tmp: Path) -> list[dict]:
    evil, marker = tmp / "evil.zip", tmp / "pwned"
    evil_sb3_zip(evil, marker)
    payload = f"ppo:path={evil},trust_pickle=true"
    variants = [
        ("text/plain, foreign Origin (the red team's request)", {"content-type": "text/plain", "origin": EVIL_ORIGIN}),
        ("application/json, foreign Origin", {**JSON, "origin": EVIL_ORIGIN}),
        ("form-urlencoded, foreign Origin", {"content-type": "application/x-www-form-urlencoded",
                                             "origin": EVIL_ORIGIN}),
        ("multipart, foreign Origin", {"content-type": "multipart/form-data; boundary=x", "origin": EVIL_ORIGIN}),
        ("Origin null", {**JSON, "origin": "null"}),
        ("no Origin, foreign Host (DNS rebinding)", {**JSON, "host": "evil.example"}),
        ("same origin, application/json", {**JSON, "origin": BASE}),
        ("no Origin, application/json (curl)", JSON),
    ]
    out = []
    with _client() as c:
        for game in ("fae", "fantastiqa"):
            for label, headers in variants:
                r = c.post("/api/games", content=json.dumps({"game": game, "bots": [payload]}), headers=headers)
                outcome = "code executed" if marker.exists() else _answer(r, len(c.app.state.store) == 0)
                out.append(_row("web app", f"RCE bot spec ({game}): {label}", outcome))
                marker.unlink(missing_ok=True)
        # path probing: one answer whatever the path names
        (tmp / "a_dir").mkdir()
        (tmp / "notes.txt").write_text("x")
        answers = set()
        for p in (tmp / "a_dir", tmp / "notes.txt", tmp / "missing.npz", evil):
            r = c.post("/api/games", json={"game": "fae", "bots": [f"ppo:path={p}"]})
            answers.add((r.status_code, r.text.replace(str(p), "P")))
        status = next(iter(answers))[0]
        out.append(_row("web app", "probe server paths with ppo:path= (dir, non-.npz, missing, zip)",
                        "clear" if len(answers) == 1 and 400 <= status < 500 else "unclear"))
    return out


def _bot_rows() -> list[dict]:
    out = []
    with _client() as c:
        for spec, label in [("mcts:iterations=60000", "MCTS iterations 60,000"),
                            ("mcts:iterations=50,rollout_depth=100000", "MCTS keyword beyond the allow-list"),
                            ("mcts:time_limit=100000", "MCTS time_limit 100,000 s"),
                            ("random:seed=1", "a seed keyword for a bot")]:
            r = c.post("/api/games", json={"game": "fae", "bots": [spec]})
            out.append(_row("web app", label, _answer(r, len(c.app.state.store) == 0)))
        r = c.post("/api/games", json={"game": "fae", "bots": ["random"], "bot_budget": 1e6})
        out.append(_row("web app", "bot_budget 1,000,000 s", _answer(r, len(c.app.state.store) == 0)))
        # the largest search allowed (about 0.1-0.2 s for Fae's first move here) on a 0.02 s budget:
        # it stops at its deadline (0.016 s); a late answer is taken by the next advance
        g = c.post("/api/games", json={"game": "fae", "bots": ["mcts:iterations=2000"], "seat": 1,
                                       "bot_budget": 0.02}).json()
        for _ in range(50):
            r = c.post(f"/api/games/{g['id']}/advance", json={})
            if r.status_code != 503:
                break
            time.sleep(0.02)
        bot = c.app.state.store.get(g["id"], "play").bots[0]
        out.append(_row("web app", f"MCTS iterations 2,000 on a 0.02 s budget: stopped after {bot.last_iterations}",
                        "clear" if r.status_code == 200 and bot.last_iterations < bot.iterations else "unclear"))
    # four long searches must not starve a random bot of another game (separate, bounded pools)
    release = threading.Event()
    search = BotWorkers(workers=1, queue=0, name="rt-search")
    blocked = search.submit(release.wait, 60)
    try:
        with _client(workers={"search": search, "quick": BotWorkers(workers=1, queue=4, name="rt-quick")}) as c:
            g = c.post("/api/games", json={"game": "fae", "bots": ["mcts:iterations=2000"], "seat": 1}).json()
            busy = c.post(f"/api/games/{g['id']}/advance", json={})
            g = c.post("/api/games", json={"game": "fae", "bots": ["random"], "seat": 1}).json()
            quick = c.post(f"/api/games/{g['id']}/advance", json={})
            out.append(_row("web app", "search workers full: another MCTS move",
                            "clear" if busy.status_code == 503 and "busy" in busy.json()["error"] else "unclear"))
            out.append(_row("web app", "search workers full: a random bot of another game",
                            "clear" if quick.status_code == 200 else "unclear"))
    finally:
        release.set()
    blocked.result(timeout=60)
    return out


def _body_rows() -> list[dict]:
    out = []
    with _client() as c:
        big = json.dumps({"game": "fae", "bots": ["random"], "pad": "x" * (server.MAX_JSON_BYTES + 1)})
        r = c.post("/api/games", content=big, headers=JSON)
        out.append(_row("web app", "body over the limit (Content-Length)", _answer(r, len(c.app.state.store) == 0)))

        def stream():
            for _ in range(server.MAX_JSON_BYTES // 65536 + 2):
                yield b" " * 65536
        r = c.post("/api/games", content=stream(), headers=JSON)
        out.append(_row("web app", "body over the limit, streamed (no Content-Length)",
                        _answer(r, len(c.app.state.store) == 0)))
        r = c.post("/api/records", content=b"\n" * (server.MAX_RECORDS_BYTES + 1), headers=JSONL)
        out.append(_row("web app", "records upload over the limit", _answer(r, len(c.app.state.store) == 0)))
        r = c.post("/api/games", content=deep_json(100_000), headers=JSON)
        out.append(_row("web app", "100,000-deep JSON (new game)", _answer(r, len(c.app.state.store) == 0)))
        r = c.post("/api/games", content=b'{"game": "fae", "seed": ' + b"9" * 5000 + b"}", headers=JSON)
        out.append(_row("web app", "a 5,000-digit integer in JSON", _answer(r, len(c.app.state.store) == 0)))
        r = c.post("/api/records", content=b'{"seed": ' + b"9" * 5000 + b"}\n", headers=JSONL)
        out.append(_row("web app", "a 5,000-digit integer in a records line", _answer(r, len(c.app.state.store) == 0)))
        r = c.post("/api/records", content=deep_json(100_000) + b"\n", headers=JSONL)
        out.append(_row("web app", "100,000-deep JSON (records line)", _answer(r, len(c.app.state.store) == 0)))
        g = c.post("/api/games", json={"game": "fae", "bots": ["random"]}).json()
        s = c.app.state.store.get(g["id"], "play")
        before = s.state.to_dict()
        for label, headers in [("text/plain", {"content-type": "text/plain"}),
                               ("foreign Origin", {**JSON, "origin": EVIL_ORIGIN})]:
            r = c.post(f"/api/games/{g['id']}/act", content=b'{"action": 0}', headers=headers)
            out.append(_row("web app", f"move sent as {label}", _answer(r, s.state.to_dict() == before)))
        r = c.get("/api/config", headers={"host": "evil.example"})
        out.append(_row("web app", "GET with a foreign Host", _answer(r)))
    app = create_app(max_games=5, max_games_per_client=3)
    with TestClient(app, base_url=BASE, client=("10.0.0.1", 1)) as a, \
            TestClient(app, base_url=BASE, client=("10.0.0.2", 1)) as c:
        mine = [a.post("/api/games", json={"game": "fae", "bots": ["random"]}).json()["id"] for _ in range(3)]
        codes = [c.post("/api/games", json={"game": "fae", "bots": ["random"]}).status_code for _ in range(10)]
        alive = sum(a.get(f"/api/games/{k}").status_code == 200 for k in mine)
        out.append(_row("web app", f"eviction (--max-games 5): {alive} of 3 games in use survive 10 new requests",
                        "clear" if alive == 3 and 503 in codes else "silently accepted"))
    return out


# ---------------------------------------------------------------- records
def _fae_record(seed: int = 3) -> dict:
    spec = get_game("fae")
    res = play_game(spec, [make_agent("fae", "random", seed=seed), make_agent("fae", "greedy", seed=seed)], seed=seed)
    return res.to_record(spec, agents=["random", "greedy"])


def _replay_outcome(record) -> str:
    try:
        replay(record)
    except ReplayError as exc:
        return "clear" if str(exc) else "unclear"
    except Exception:  # noqa: BLE001 (any other failure is what this row reports)
        return "unclear"
    return "silently accepted"


def _record_rows() -> list[dict]:
    out = []
    loop = looping_record(100_000)  # the red team's record: 200,000+ actions, valid
    out.append(_row("records", f"replay() of the 100,000-loop record ({len(loop['actions']):,} actions)",
                    _replay_outcome(loop)))
    with _client() as c:
        r = c.post("/api/records", content=json.dumps(loop).encode(), headers=JSONL)
        out.append(_row("records", "the 100,000-loop record uploaded to the web app",
                        _answer(r, len(c.app.state.store) == 0)))
        long = looping_record(3_000)
        r = c.post("/api/records", content=json.dumps(long).encode(), headers=JSONL)
        key = r.json()["id"]
        view = c.get(f"/api/records/{key}/games/0?step={len(long['actions'])}")
        kept = len(c.app.state.store.get(key, "watch")._open[1])
        out.append(_row("records", f"a 6,000-action record watched: {kept} states kept (bound "
                                   f"{server.MAX_CHECKPOINTS})",
                        "clear" if view.status_code == 200 and kept <= server.MAX_CHECKPOINTS else "silently accepted"))
    rec = _fae_record()
    tampered = {
        "final digest": dict(rec, final_state_sha256="0" * 64),
        "returns swapped": dict(rec, returns=rec["returns"][::-1]) if rec["returns"][::-1] != rec["returns"] else None,
        "winners": dict(rec, winners=[w for w in range(2) if w not in rec["winners"]]),
        "scores": dict(rec, scores=[s + 1 for s in rec["scores"]]),
        "seed": dict(rec, seed=rec["seed"] + 1),
        "an action replaced": dict(rec, actions=[329] + rec["actions"][1:]),
        "actions cut short": dict(rec, actions=rec["actions"][:-2]),
        "an unknown field": dict(rec, extra=1),
        "num_players 9": dict(rec, num_players=9),
        "a bool action": dict(rec, actions=[True] + rec["actions"][1:]),
        "a card_set path option (Fae record)": dict(rec, options={"card_set": "/etc/passwd"}),
    }
    for label, bad in tampered.items():
        if bad is not None:
            out.append(_row("records", f"tampered record ({label}): replay()", _replay_outcome(bad)))
    with _client() as c:
        for label in ("final digest", "an action replaced", "a card_set path option (Fae record)"):
            r = c.post("/api/records", content=json.dumps(tampered[label]).encode(), headers=JSONL)
            if r.status_code == 201:  # taken; each game is checked when it is first opened
                r = c.get(f"/api/records/{r.json()['id']}/games/0?step=0")
            out.append(_row("records", f"tampered record ({label}) opened in the web app", _answer(r)))
    return out


# ---------------------------------------------------------------- issue 36: uploads, availability, digits
class _Blocking(Agent):
    """A search that thinks until `release` (the red team's 2,000-iteration Fantastiqa MCTS, which
    held a worker 1-2 minutes), bounded by 60 s."""

    def __init__(self, release: threading.Event):
        super().__init__()
        self.release, self.started = release, threading.Event()

    def act(self, observation, action_mask, *, state=None, seat=None):
        self.started.set()
        self.release.wait(60)
        return int(np.flatnonzero(action_mask)[0])


def _peer(app, address: str) -> TestClient:
    return TestClient(app, base_url=BASE, client=(address, 50000), raise_server_exceptions=False)


def _threads(calls) -> list:
    """Run each call in a thread; their answers (None for one still running after 60 s in all)."""
    out = [None] * len(calls)

    def run(i, fn):
        out[i] = fn()
    threads = [threading.Thread(target=run, args=(i, fn), daemon=True) for i, fn in enumerate(calls)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    return out


def _upload_rows() -> list[dict]:
    """Issue 36, item 2: an upload is checked whole and only its checked fields are kept."""
    out = []
    rec = _fae_record()
    with _client() as c:
        store = c.app.state.store
        for field, first in (("winners", "[]"), ("agents", "[]"), ("observation_options", "{}")):
            head = json.dumps(dict(rec, **{field: []})).encode()
            n = (server.MAX_RECORDS_BYTES - len(head) - 8) // 3  # the largest body the server reads
            cut = head.index(f'"{field}": []'.encode()) + len(field) + 4
            body = head[:cut - 1] + (first.encode() + b",") * (n - 1) + first.encode() + head[cut - 1:] + b"\n"
            r = c.post("/api/records", content=body, headers=JSONL)
            out.append(_row("records", f"upload: {field} of {n:,} empty {'objects' if first == '{}' else 'lists'} "
                                       f"({len(body) / 1e6:.1f} MB, the red "
                                       f"team's): server memory held {store.memory() / 2 ** 20:.1f} MB",
                            _answer(r, len(store) == 0)))
        for label, bad in [("winners of 500 empty lists (under the container bound)", {"winners": [[]] * 500}),
                           ("agents of 3 names for 2 seats", {"agents": ["a", "b", "c"]}),
                           ("seat 7 among the winners", {"winners": [7]}),
                           ("3 scores for 2 players", {"scores": [1.0, 2.0, 3.0]}),
                           ("an unknown observation option", {"observation_options": [{"secret": 1}, {}]}),
                           ("an observation value the game refuses", {"observation_options": [{"history": "all"}, {}]}),
                           ("an action id out of range", {"actions": [99_999] + rec["actions"][1:]}),
                           ("rewards of 900 empty lists", {"rewards": [[]] * 900}),
                           ("meta a list", {"meta": [[]] * 10})]:
            r = c.post("/api/records", content=json.dumps(dict(rec, **bad)).encode(), headers=JSONL)
            out.append(_row("records", f"upload: {label}", _answer(r, len(store) == 0)))
        labels = dict(rec, agents=["a" * 3_000_000, "b"], package_version="p" * 1_000_000, meta={"m": "m" * 1_000_000})
        r = c.post("/api/records", content=json.dumps(labels).encode(), headers=JSONL)
        kept = store.get(r.json()["id"], "watch").records[0] if r.status_code == 201 else {}
        size = server.deep_size(dict(kept, actions=list(kept.get("actions", []))))
        out.append(_row("records", f"upload: 5 MB of labels (agents, package_version, meta): {size / 1e3:.1f} kB "
                                   "kept", "clear" if r.status_code == 201 and size < 100_000
                        and set(kept) <= set(server.KEPT_FIELDS) else "silently accepted"))
    fifty = [json.dumps(_fae_record(s)) for s in range(50)]
    big = "\n".join(fifty[s % 50] for s in range(server.MAX_UPLOAD_GAMES)).encode()
    one = server.load_records(json.dumps(rec).encode()).nbytes
    app = create_app(max_memory_per_client=int(3.5 * one))
    with _peer(app, "10.0.0.1") as a, _peer(app, "10.0.0.2") as b:
        codes = [a.post("/api/records", content=json.dumps(_fae_record(s)).encode(), headers=JSONL).status_code
                 for s in range(5)]
        other = b.post("/api/records", content=json.dumps(rec).encode(), headers=JSONL).status_code
        r = b.post("/api/records", content=big, headers=JSONL)
        out.append(_row("records", f"uploads past a client's memory share ({3.5 * one / 2 ** 20:.1f} MB): {codes}, "
                                   f"another client {other}",
                        "clear" if codes == [201] * 3 + [429] * 2 and other == 201 else "silently accepted"))
        out.append(_row("records", f"a {len(big) / 1e6:.1f} MB upload of {server.MAX_UPLOAD_GAMES:,} games counted as "
                                   f"{server.load_records(big).nbytes / 2 ** 20:.1f} MB, over a client's share",
                        _answer(r, app.state.store.count("10.0.0.2") == 1)))
    return out


def _availability_rows() -> list[dict]:
    """Issue 36, item 6: one client's searches, views and sessions against everyone else's."""
    out = []
    release = threading.Event()
    app = create_app(max_games=16, max_games_per_client=8,
                     workers={"search": BotWorkers(2, 4, "rt36-s"), "quick": BotWorkers(2, 16, "rt36-q")})
    with _peer(app, "10.0.0.1") as a, _peer(app, "10.0.0.2") as b:
        try:
            games = []
            for _ in range(6):
                g = a.post("/api/games", json={"game": "fantastiqa", "bots": ["mcts:iterations=2000"], "seat": 0,
                                               "seed": 1, "bot_budget": 120}).json()  # the bot sets up first
                bot = app.state.store.get(g["id"], "play").bots[1] = _Blocking(release)
                games.append((g["id"], bot))
            first = threading.Thread(target=a.post, args=(f"/api/games/{games[0][0]}/advance",),
                                     kwargs={"json": {"all": True}}, daemon=True)
            first.start()
            games[0][1].started.wait(60)
            rest = _threads([lambda k=k: a.post(f"/api/games/{k}/advance", json={"all": True}) for k, _ in games[1:]])
            g = b.post("/api/games", json={"game": "fae", "bots": ["mcts:iterations=50"], "seat": 1, "seed": 2}).json()
            theirs = _threads([lambda: b.post(f"/api/games/{g['id']}/advance", json={})])[0]
            codes = [r.status_code if r is not None else "stuck" for r in rest]
            ok = codes == [429] * 5 and theirs is not None and theirs.status_code == 200 and not release.is_set()
            out.append(_row("web app", f"6 concurrent advance all (Fantastiqa MCTS 2,000, searches held) from one "
                                       f"client: {codes.count(429)} refused 429; another client's MCTS bot "
                                       f"{theirs.status_code if theirs is not None else 'stuck'}",
                            "clear" if ok else "unclear"))
            key = games[0][0]
            views = _threads([lambda: a.get(f"/api/games/{key}") for _ in range(45)] +
                             [lambda: a.get(f"/api/games/{key}/board.png")])
            answered = sum(r is not None and r.status_code == 200 for r in views)
            out.append(_row("web app", f"46 parallel GETs (45 views, a picture) of a game whose bot thinks: "
                                       f"{answered} answered before it moved",
                            "clear" if answered == 46 and not release.is_set() else "unclear"))
        finally:
            release.set()
        first.join(60)
    app = create_app(max_games=8)
    with _peer(app, "10.0.0.1") as a, _peer(app, "10.0.0.2") as b:
        codes = [a.post("/api/games", json={"game": "fae", "bots": ["random"]}).status_code for _ in range(8)]
        other = b.post("/api/games", json={"game": "fae", "bots": ["random"]}).status_code
        out.append(_row("web app", f"one client asks for all 8 session slots: {codes.count(201)} given, "
                                   f"{codes.count(429)} refused 429; another client {other}",
                        "clear" if codes == [201] * 2 + [429] * 6 and other == 201 else "silently accepted"))
    return out


def _digit_rows() -> list[dict]:
    """Issue 36, item 7: numbers in bot specs take ASCII digits (400 / ValueError naming the key)."""
    from tabletop_rl.agents.arena import parse_agent
    from tabletop_rl.agents.policy_versions import _table_defaults, catalogue

    out = []
    values = [("²", "superscript two"), ("١٠٠", "Arabic-Indic 100"), ("１００", "full-width 100"), ("𝟓", "math bold 5")]
    with _client() as c:
        for value, label in values:
            r = c.post("/api/games", json={"game": "fae", "bots": [f"mcts:iterations={value}"]})
            out.append(_row("web app", f"bot spec mcts:iterations={value} ({label})", _answer(r, len(c.app.state.store) == 0)))
        rec = _fae_record()
        key = c.post("/api/records", content=json.dumps(rec).encode(), headers=JSONL).json()["id"]
        for query in ("step=١", "step=%C2%B2", "seat=１"):
            r = c.get(f"/api/records/{key}/games/0?{query}")
            out.append(_row("web app", f"watch query {query}", _answer(r)))
    for value, label in values:
        try:
            parse_agent(f"mcts:iterations={value}")
            outcome = "silently accepted"
        except ValueError as exc:
            outcome = "clear" if "iterations" in str(exc) and "0-9" in str(exc) else "unclear"
        out.append(_row("bot specs (CLI)", f"mcts:iterations={value} ({label})", outcome))
    cat = catalogue("fae")
    three = next(n for n, e in cat["versions"].items() if e["players"] == 3)
    for key, label in (("³", "superscript"), ("٣", "Arabic-Indic"), ("３", "full-width")):
        try:
            _table_defaults(Path("versions.json"), cat["default"], {key: three}, cat["versions"])
            outcome = "silently accepted"
        except ValueError as exc:
            outcome = "clear" if "table_defaults" in str(exc) else "unclear"
        except Exception:  # noqa: BLE001 (any other failure is what this row reports)
            outcome = "unclear"
        out.append(_row("bot specs (CLI)", f"policy catalogue table_defaults key {key!r} ({label} 3)", outcome))
    return out


def rows() -> list[dict]:
    """Every case, run on this checkout (about 20 s)."""
    with tempfile.TemporaryDirectory() as tmp:
        return _rce_rows(Path(tmp)) + _bot_rows() + _body_rows() + _record_rows() + _upload_rows() + \
            _availability_rows() + _digit_rows()


def summary(table: list[dict]) -> list[dict]:
    """Per target: tried and the count of each outcome (the red team's table)."""
    out = []
    for target in sorted({r["target"] for r in table}, reverse=True):
        mine = [r for r in table if r["target"] == target]
        out.append({"target": target, "tried": len(mine), **{o: sum(r["outcome"] == o for r in mine) for o in OUTCOMES}})
    return out


def main() -> int:
    import warnings

    warnings.simplefilter("ignore")
    table = rows()
    width = max(len(r["case"]) for r in table)
    tw = max(len(r["target"]) for r in table)
    for r in table:
        print(f"{r['target']:{tw}}  {r['case']:{width}}  {r['outcome']}")
    print()
    print(f"{'target':{tw}}  tried  " + "  ".join(OUTCOMES))
    for s in summary(table):
        print(f"{s['target']:{tw}}  {s['tried']:5}  " + "  ".join(f"{s[o]:{len(o)}}" for o in OUTCOMES))
    return 0 if all(r["outcome"] == "clear" for r in table) else 1


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
