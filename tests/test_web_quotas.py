"""Issue 36, items 2 and 6: what one client can make the web server hold.

Item 2: a records upload is checked whole before it is kept (`records.check_setup`: the checks
`replay` makes before replaying), only the checked fields are kept, sized by num_players, and a
session's memory is counted against the store's and the client's bounds.
Item 6: views answer while a bot thinks (the move is awaited outside the session's lock), and each
client (its address) has bounded shares: sessions, memory, bot moves and searches in flight.

Requests that the old server would block on run in threads joined with a timeout (a deadlock
guard, never a speed check); the bots block on events the test releases."""
from __future__ import annotations

import json
import sys
import threading
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from tabletop_rl.agents import make_agent  # noqa: E402
from tabletop_rl.agents.base import Agent  # noqa: E402
from tabletop_rl.agents.match import play_game  # noqa: E402
from tabletop_rl.agents.web import create_app, server  # noqa: E402
from tabletop_rl.agents.web.bots import BotWorkers  # noqa: E402
from tabletop_rl.envs.registry import get_game  # noqa: E402

BASE = "http://127.0.0.1:8000"
JSONL = {"content-type": "application/x-ndjson"}
GUARD_S = 30  # how long a request may stay blocked before the test calls it stuck


def _client(app, peer: str) -> TestClient:
    return TestClient(app, base_url=BASE, client=(peer, 50000))


def _record(seed: int = 3) -> dict:
    spec = get_game("fae")
    res = play_game(spec, [make_agent("fae", "random", seed=seed), make_agent("fae", "greedy", seed=seed)], seed=seed)
    return res.to_record(spec, agents=["random", "greedy"])


def _held(obj) -> int:
    """Bytes `obj` holds (the test's own measure, independent of the server's)."""
    seen, stack, total = set(), [obj], 0
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        total += sys.getsizeof(x)
        if isinstance(x, dict):
            stack += [*x.keys(), *x.values()]
        elif isinstance(x, (list, tuple)):
            stack += list(x)
    return total


# ---------------------------------------------------------------- item 2: uploads
@pytest.fixture
def client():
    app = create_app(max_games=8, max_age=3600)
    with _client(app, "10.0.0.1") as c:
        yield c


def _upload(client, *records):
    return client.post("/api/records", content="\n".join(json.dumps(r) for r in records).encode(), headers=JSONL)


@pytest.mark.parametrize("field, value, words", [
    ("winners", [[]] * 500, "field 'winners'"),  # under the container bound: refused by the record check
    ("winners", [5], "field 'winners'"),
    ("agents", [[]] * 500, "field 'agents'"),
    ("agents", ["a", "b", "c"], "field 'agents'"),
    ("observation_options", [{}] * 3, "field 'observation_options'"),
    ("observation_options", [{"history": "none", "secret": 1}, {}], "observation_options[0]"),
    ("observation_options", [{"history": "everything"}, {}], "observation_options[0]"),
    ("scores", [1.0, 2.0, 3.0], "field 'scores'"),
    ("returns", [[]] * 2, "field 'returns'"),
    ("rewards", [[]] * 900, "field 'rewards'"),
    ("final_state_sha256", [[]] * 300, "field 'final_state_sha256'"),
    ("env_version", 99, "field 'env_version'"),
    ("format", "mine", "field 'format'"),
    ("ended", "bored", "field 'ended'"),
    ("extra", 1, "field 'extra'"),
    ("meta", [[]] * 500, "field 'meta'"),
    ("actions", [99_999], "field 'actions[0]'"),  # an action id out of range: refused at upload now
])
def test_every_field_of_an_upload_is_checked_before_it_is_kept(client, field, value, words):
    r = _upload(client, _record(), dict(_record(4), **{field: value}))
    assert r.status_code == 400 and words in r.json()["error"] and "records:2" in r.json()["error"], r.text
    assert len(r.json()["error"]) <= 500  # a field of many items is named, never printed whole
    assert len(client.app.state.store) == 0


def test_the_checked_record_is_kept(client):
    """The control: the same records, untampered, are kept and replay."""
    r = _upload(client, _record(), _record(4))
    assert r.status_code == 201, r.text
    assert client.get(f"/api/records/{r.json()['id']}/games/1?step=3").status_code == 200


def test_millions_of_empty_lists_are_refused_before_they_are_parsed(client):
    """The red team's upload: winners (or agents, observation_options) holding empty lists."""
    for field in ("winners", "agents", "observation_options", "meta"):
        bad = dict(_record(), **{field: [[]] * 200_000})
        r = _upload(client, bad)
        assert r.status_code == 400 and "JSON arrays and objects" in r.json()["error"], (field, r.text)
    assert len(client.app.state.store) == 0


def test_only_checked_fields_are_kept_with_labels_cut(client):
    rec = dict(_record(), agents=["a" * 3_000_000, "b" * 100], package_version="p" * 1_000_000,
               meta={"note": "m" * 1_000_000}, rewards=[0.5, -0.5])
    r = _upload(client, rec)
    assert r.status_code == 201, r.text
    kept = client.app.state.store.get(r.json()["id"], "watch").records[0]
    assert set(kept) <= set(server.KEPT_FIELDS) and "meta" not in kept and "package_version" not in kept
    assert [len(a) for a in kept["agents"]] == [server.MAX_LABEL_CHARS, server.MAX_LABEL_CHARS]
    assert _held(dict(kept, actions=list(kept["actions"]))) < 100_000  # 5 MB sent, a few kB kept
    assert r.json()["games"][0]["agents"] == ["a" * server.MAX_LABEL_CHARS, "b" * server.MAX_LABEL_CHARS]
    assert client.get(f"/api/records/{r.json()['id']}/games/0?step=5").status_code == 200  # still replays


def test_a_sessions_memory_is_counted_and_bounded_per_client():
    """Uploads count their bytes (not only their actions): one client's share is bounded (429), the
    store's too, and a session over the share is refused (413)."""
    one = server.load_records(json.dumps(_record()).encode()).nbytes
    app = create_app(max_games=64, max_memory=40 * one, max_memory_per_client=int(3.5 * one))
    with _client(app, "10.0.0.1") as a, _client(app, "10.0.0.2") as b:
        codes = [_upload(a, _record(i)).status_code for i in range(4)]
        assert codes == [201, 201, 201, 429], codes
        assert "MB" in _upload(a, _record()).json()["error"]
        assert app.state.store.memory("10.0.0.1") <= 3.5 * one
        assert _upload(b, _record()).status_code == 201  # another client still gets its share
        big = _upload(b, *[_record()] * 2000)  # one session over a client's share
        assert big.status_code == 413 and "MB of server memory" in big.json()["error"]
        assert app.state.store.memory() == sum(s.nbytes for s, _, _ in app.state.store._items.values())


def test_a_clients_own_idle_session_makes_room_for_its_next():
    app = create_app(max_games=8, max_games_per_client=2, min_idle=0.0)
    with _client(app, "10.0.0.1") as a, _client(app, "10.0.0.2") as b:
        theirs = [b.post("/api/games", json={"game": "fae", "bots": ["random"]}).json()["id"] for _ in range(2)]
        mine = [a.post("/api/games", json={"game": "fae", "bots": ["random"]}).json()["id"] for _ in range(3)]
        assert a.get(f"/api/games/{mine[0]}").status_code == 404  # its own least recently used went
        assert all(b.get(f"/api/games/{k}").status_code == 200 for k in theirs)
        assert app.state.store.count("10.0.0.1") == 2


# ---------------------------------------------------------------- item 6: availability
def test_one_client_cannot_hold_every_session_slot():
    app = create_app(max_games=8)  # a client's share: 2
    with _client(app, "10.0.0.1") as a, _client(app, "10.0.0.2") as b:
        codes = [a.post("/api/games", json={"game": "fae", "bots": ["random"]}).status_code for _ in range(4)]
        assert codes == [201, 201, 429, 429], codes
        r = a.post("/api/games", json={"game": "fae", "bots": ["random"]})
        assert "the most one client may hold" in r.json()["error"]
        assert b.post("/api/games", json={"game": "fae", "bots": ["random"]}).status_code == 201
        ipv6 = [_client(app, f"2001:db8::{i}") for i in (1, 2, 3)]  # one machine's /64 is one client
        with ipv6[0] as c0, ipv6[1] as c1, ipv6[2] as c2:
            assert [c.post("/api/games", json={"game": "fae", "bots": ["random"]}).status_code
                    for c in (c0, c1, c2)] == [201, 201, 429]


class Blocking(Agent):
    """Moves once `release` is set; `started` says it is thinking."""

    def __init__(self, release: threading.Event):
        super().__init__()
        self.release, self.started = release, threading.Event()

    def act(self, observation, action_mask, *, state=None, seat=None):
        self.started.set()
        self.release.wait(GUARD_S)
        return int(np.flatnonzero(action_mask)[0])


def _in_thread(fn, *args, **kwargs):
    out: dict = {}
    t = threading.Thread(target=lambda: out.setdefault("r", fn(*args, **kwargs)), daemon=True)
    t.start()
    return t, out


def _join(threads) -> None:
    """Join every thread within one GUARD_S in all (a stuck request is then reported as stuck)."""
    deadline = time.monotonic() + GUARD_S
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))


def _bot_game(c, app, release, bot="mcts:iterations=5", game="fae"):
    g = c.post("/api/games", json={"game": game, "bots": [bot], "seat": 1, "seed": 1})
    assert g.status_code == 201, g.text
    s = app.state.store.get(g.json()["id"], "play")
    s.bots[0] = Blocking(release)
    return g.json()["id"], s.bots[0]


def test_views_answer_while_the_bot_thinks():
    """45 GETs of a game whose bot is thinking all answer before it moves (they waited in the
    session lock behind the bot before, holding the server's threads)."""
    release = threading.Event()
    app = create_app(max_games=8, workers={"search": BotWorkers(2, 4, "t-s"), "quick": BotWorkers(2, 4, "t-q")})
    with _client(app, "10.0.0.1") as c:  # released before the client closes (it waits for its requests)
        try:
            key, bot = _bot_game(c, app, release)
            mover, moved = _in_thread(c.post, f"/api/games/{key}/advance", json={"all": True})
            assert bot.started.wait(GUARD_S)
            views = [_in_thread(c.get, f"/api/games/{key}") for _ in range(45)]
            png = _in_thread(c.get, f"/api/games/{key}/board.png")
            _join([t for t, _ in views] + [png[0]])
            answered = [out["r"].status_code for t, out in views if not t.is_alive()]
            assert not release.is_set() and not moved  # the bot is still thinking
            assert answered == [200] * 45 and png[1].get("r") and png[1]["r"].status_code == 200
            assert all(out["r"].json()["moves"] == 0 for _, out in views)
            release.set()
            mover.join(GUARD_S)
            assert moved["r"].status_code == 200 and moved["r"].json()["moves"] >= 1
        finally:
            release.set()


def test_one_clients_searches_cannot_fill_the_search_workers():
    """6 concurrent advances (all: true) of one client's MCTS games: one search in flight, the
    rest 429 at once; another client's MCTS bot still moves."""
    release = threading.Event()
    search = BotWorkers(workers=2, queue=4, name="t-s")
    app = create_app(max_games=16, max_games_per_client=8, workers={"search": search, "quick": BotWorkers(2, 4, "t-q")})
    with _client(app, "10.0.0.1") as a, _client(app, "10.0.0.2") as b:
        try:
            games = [_bot_game(a, app, release) for _ in range(6)]
            first = _in_thread(a.post, f"/api/games/{games[0][0]}/advance", json={"all": True})
            assert games[0][1].started.wait(GUARD_S)
            rest = [_in_thread(a.post, f"/api/games/{k}/advance", json={"all": True}) for k, _ in games[1:]]
            _join([t for t, _ in rest])
            codes = [out["r"].status_code if not t.is_alive() else "stuck" for t, out in rest]
            assert codes == [429] * 5, codes
            assert "search" in rest[0][1]["r"].json()["error"]
            g = b.post("/api/games", json={"game": "fae", "bots": ["mcts:iterations=5"], "seat": 1, "seed": 2}).json()
            other = _in_thread(b.post, f"/api/games/{g['id']}/advance", json={})
            other[0].join(GUARD_S)
            assert not release.is_set() and other[1]["r"].status_code == 200, other[1]
            assert app.state.quota.in_flight("10.0.0.1") == (1, 1)
            release.set()
            first[0].join(GUARD_S)
            assert first[1]["r"].status_code == 200
        finally:
            release.set()


def test_a_move_past_its_budget_still_counts_until_its_worker_is_done():
    release = threading.Event()
    app = create_app(max_games=8, workers={"search": BotWorkers(2, 4, "t-s"), "quick": BotWorkers(2, 4, "t-q")})
    with _client(app, "10.0.0.1") as a:
        try:
            key, bot = _bot_game(a, app, release)
            app.state.store.get(key, "play").bot_budget = 0.05
            r = a.post(f"/api/games/{key}/advance", json={})
            assert r.status_code == 503 and "budget" in r.json()["error"]
            assert app.state.quota.in_flight("10.0.0.1") == (1, 1)  # the worker still thinks
            key2, _ = _bot_game(a, app, release)
            r = a.post(f"/api/games/{key2}/advance", json={})
            assert r.status_code == 429, r.text
            release.set()
            for _ in range(100):  # the late answer is taken by the next advance
                r = a.post(f"/api/games/{key}/advance", json={})
                if r.status_code != 503:
                    break
            assert r.status_code == 200 and r.json()["moves"] == 1
        finally:
            release.set()


def test_the_client_quota_counts_moves_and_searches():
    from tabletop_rl.agents.web.guard import ClientQuota, RequestError, client_key

    q = ClientQuota(moves=2, searches=1)
    q.acquire("a", search=True)
    with pytest.raises(RequestError) as err:
        q.acquire("a", search=True)
    assert err.value.status == 429 and "search" in err.value.message
    q.acquire("a", search=False)
    with pytest.raises(RequestError, match="bot moves in flight"):
        q.acquire("a", search=False)
    q.acquire("b", search=True)  # another client has its own
    q.release("a", search=True)
    q.release("a", search=False)
    assert q.in_flight("a") == (0, 0) and q.in_flight("b") == (1, 1)
    assert [client_key(c) for c in (("127.0.0.1", 1), ("::ffff:10.1.2.3", 1), ("2001:db8:0:0:1::9", 2), None)] == \
        ["127.0.0.1", "10.1.2.3", "2001:db8::/64", "unknown"]
