"""Issue 24, the web app: no request runs code, names a server file or exhausts the machine.

The RCE payload is the red team's: a bot spec `ppo:path=<evil.zip>,trust_pickle=true` whose zip
holds a cloudpickled `lr_schedule` that creates a marker file when unpickled. Every variant must
get a 4xx and leave no marker."""
from __future__ import annotations

import json
import threading

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from tabletop_rl.agents.ppo_agent import SHIPPED  # noqa: E402
from tabletop_rl.agents.web import create_app, server  # noqa: E402
from tabletop_rl.agents.web.bots import BotWorkers, load_policies  # noqa: E402
from tabletop_rl.agents.web.guard import RequestError  # noqa: E402
from tests.web_helpers import EVIL_ORIGIN, deep_json, looping_record, evil_sb3_zip  # noqa: E402

BASE = "http://127.0.0.1:8000"
JSON = {"content-type": "application/json"}


@pytest.fixture
def app():
    return create_app(max_games=8, max_age=3600)


@pytest.fixture
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


def _game(client, **body):
    r = client.post("/api/games", json={"game": "fae", "bots": ["random"], "seed": 1, **body})
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("headers", [
    {"content-type": "text/plain", "origin": EVIL_ORIGIN},  # the red team's request
    {"content-type": "application/json", "origin": EVIL_ORIGIN},
    {"content-type": "application/x-www-form-urlencoded", "origin": EVIL_ORIGIN},
    {"content-type": "multipart/form-data; boundary=x", "origin": EVIL_ORIGIN},
    {"content-type": "text/plain"},
    {"origin": "null", "content-type": "application/json"},
    {"content-type": "application/json", "host": "evil.example"},  # DNS rebinding: no Origin, foreign Host
    {"content-type": "application/json", "host": "evil.example", "origin": "http://evil.example"},
    {"content-type": "application/json"},  # same origin: the spec itself is refused
    {"content-type": "application/json", "origin": BASE},
])
@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_the_rce_payload_and_its_variants_get_4xx_and_never_run(client, tmp_path, headers, game):
    marker, evil = tmp_path / "pwned", tmp_path / "evil.zip"
    evil_sb3_zip(evil, marker)
    for spec in [f"ppo:path={evil},trust_pickle=true", f"ppo:trust_pickle=true,path={evil}",
                 f"mcts:iterations=5,path={evil}", f"ppo: path = {evil} , trust_pickle = True"]:
        body = json.dumps({"game": game, "bots": [spec]})
        r = client.post("/api/games", content=body, headers=headers)
        assert 400 <= r.status_code < 500, (spec, headers, r.status_code, r.text)
        assert not marker.exists()
    assert len(client.app.state.store) == 0


def test_refusals_do_not_tell_which_server_paths_exist(client, tmp_path):
    (tmp_path / "a_dir").mkdir()
    (tmp_path / "notes.txt").write_text("x")
    evil_sb3_zip(tmp_path / "evil.zip", tmp_path / "pwned")
    answers = set()
    for path in [tmp_path / "a_dir", tmp_path / "notes.txt", tmp_path / "missing.npz", tmp_path / "evil.zip",
                 SHIPPED["fae"]]:
        r = client.post("/api/games", json={"game": "fae", "bots": [f"ppo:path={path}"]})
        answers.add((r.status_code, r.text.replace(str(path), "P")))
    assert len(answers) == 1 and next(iter(answers))[0] == 400, answers
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("spec, words", [
    ("mcts:iterations=999999", "iterations must be an integer in 1..2000"),
    ("mcts:iterations=5,rollout_depth=3", "not one a request may set"),
    ("mcts:time_limit=1000", "not one a request may set"),
    ("mcts:iterations=5,iterations=6", "given twice"),
    ("random:seed=5", "not one a request may set"),
    ("ppo:trust_pickle=true", "not one a request may set"),
    ("ppo:policy=/etc/passwd", "no server policy"),
    ("x" * 500, "at most 120 characters"),
])
def test_bots_are_chosen_by_name_with_bounded_parameters_only(client, spec, words):
    r = client.post("/api/games", json={"game": "fae", "bots": [spec]})
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_an_mcts_bot_searches_under_a_deadline_inside_its_budget(client, app):
    g = _game(client, bots=["mcts:iterations=2000"], bot_budget=4)
    bot = app.state.store.get(g["id"], "play").bots[1]
    assert bot.iterations == 2000 and 0 < bot.max_seconds <= 4
    assert client.get("/api/config").json()["bot_params"] == {"mcts": {"iterations": [1, 2000]}}
    r = client.post("/api/games", json={"game": "fae", "bots": ["random"], "bot_budget": 601})
    assert r.status_code == 400 and "bot_budget" in r.json()["error"]


def test_server_policies_are_chosen_by_name(tmp_path):
    app = create_app(policies=load_policies({"mine": str(SHIPPED["fae"])}))
    with TestClient(app, base_url=BASE) as c:
        assert "ppo:policy=mine" in c.get("/api/config").json()["games"]["fae"]["bots"]
        g = c.post("/api/games", json={"game": "fae", "bots": ["ppo:policy=mine"], "seat": 1, "seed": 2}).json()
        r = c.post(f"/api/games/{g['id']}/advance", json={})
        assert r.status_code == 200 and r.json()["moves"] == 1
        g = c.post("/api/games", json={"game": "fae", "bots": ["ppo"], "seat": 1, "seed": 2}).json()
        r = c.post(f"/api/games/{g['id']}/advance", json={})  # the shipped policy, with its observation options
        assert r.status_code == 200 and r.json()["moves"] == 1
        r = c.post("/api/games", json={"game": "fantastiqa", "bots": ["ppo:policy=mine"]})
        assert r.status_code == 400 and "no server policy" in r.json()["error"]
    evil_sb3_zip(tmp_path / "evil.zip", tmp_path / "pwned")
    with pytest.raises(ValueError, match=".npz policies only"):
        load_policies({"evil": str(tmp_path / "evil.zip")})
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("path, body", [("act", {"action": 0}), ("advance", {}), ("finish_turn", {})])
@pytest.mark.parametrize("headers", [{"content-type": "text/plain"}, {},
                                     {"content-type": "application/json", "origin": EVIL_ORIGIN},
                                     {"content-type": "application/json", "sec-fetch-site": "cross-site"}])
def test_mutating_endpoints_want_same_origin_json(client, app, path, body, headers):
    g = _game(client)
    s = app.state.store.get(g["id"], "play")
    before = s.state.to_dict()
    r = client.post(f"/api/games/{g['id']}/{path}", content=json.dumps(body), headers=headers)
    assert r.status_code in (403, 415), r.text
    assert s.state.to_dict() == before and not s.actions


def test_every_request_must_name_an_allowed_host(client):
    assert client.get("/api/config").status_code == 200
    r = client.get("/api/config", headers={"host": "evil.example:8000"})
    assert r.status_code == 400 and "Host" in r.json()["error"]
    for host in ("localhost:8000", "[::1]:8000", "127.0.0.1"):
        assert client.get("/api/config", headers={"host": host}).status_code == 200, host


def test_the_command_wants_named_hosts_when_listening_everywhere(capsys, monkeypatch):
    uvicorn = pytest.importorskip("uvicorn")

    def no_server(*args, **kwargs):
        raise AssertionError("the server started")
    monkeypatch.setattr(uvicorn, "run", no_server)
    with pytest.raises(SystemExit):
        server.main(["--host", "0.0.0.0"])
    assert "--allowed-host" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        server.main(["--policy", "x=/nonexistent/model.zip"])
    assert ".npz policies only" in capsys.readouterr().err


def test_big_bodies_are_refused_by_length_and_mid_stream(client):
    big = json.dumps({"game": "fae", "bots": ["random"], "pad": "x" * (server.MAX_JSON_BYTES + 10)})
    r = client.post("/api/games", content=big, headers=JSON)
    assert r.status_code == 413, r.text

    def chunks():  # no Content-Length: the read stops at the limit
        yield b'{"game": "fae", "bots": ["random"], "pad": "'
        for _ in range(server.MAX_JSON_BYTES // 65536 + 2):
            yield b"x" * 65536
        yield b'"}'
    r = client.post("/api/games", content=chunks(), headers=JSON)
    assert r.status_code == 413, r.text
    r = client.post("/api/games", content=b"{}", headers={**JSON, "content-length": "12abc"})
    assert r.status_code == 400
    r = client.post("/api/records", content=b"x" * (server.MAX_RECORDS_BYTES + 1),
                    headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 413
    assert len(client.app.state.store) == 0


def test_deep_json_and_huge_numbers_are_a_400(client):
    r = client.post("/api/games", content=deep_json(100_000), headers=JSON)
    assert r.status_code == 400 and "nested too deeply" in r.json()["error"], r.text
    r = client.post("/api/games", content=b'{"game": "fae", "seed": ' + b"9" * 5000 + b"}", headers=JSON)
    assert r.status_code == 400 and "digits" in r.json()["error"], r.text
    g = _game(client)
    r = client.post(f"/api/games/{g['id']}/act", content=b'{"action": ' + deep_json(100_000) + b"}", headers=JSON)
    assert r.status_code == 400


def test_one_client_cannot_evict_the_games_of_others():
    """--max-games 5: 3 games in use, then another client asks for 10: the 3 survive, it gets 503."""
    app = create_app(max_games=5, max_games_per_client=3)
    with TestClient(app, base_url=BASE, client=("10.0.0.1", 1)) as a, \
            TestClient(app, base_url=BASE, client=("10.0.0.2", 1)) as b:
        mine = [_game(a)["id"] for _ in range(3)]
        codes = [b.post("/api/games", json={"game": "fae", "bots": ["random"]}).status_code for _ in range(10)]
        assert codes == [201, 201] + [503] * 8
        assert all(a.get(f"/api/games/{k}").status_code == 200 for k in mine)


def test_bot_workers_accept_a_bounded_number_of_moves():
    release = threading.Event()
    workers = BotWorkers(workers=1, queue=1, name="t")
    futures = [workers.submit(release.wait, 30), workers.submit(release.wait, 30)]
    try:
        with pytest.raises(RequestError) as err:
            workers.submit(release.wait, 30)
        assert err.value.status == 503 and "busy" in err.value.message
    finally:
        release.set()
    assert all(f.result(timeout=10) for f in futures)
    assert workers.submit(lambda: 7).result(timeout=10) == 7  # the slots came back


def test_a_busy_search_pool_does_not_delay_quick_bots(tmp_path):
    """Searches and quick bots have their own workers: with the search pool full, a random bot moves."""
    release = threading.Event()
    search = BotWorkers(workers=1, queue=0, name="s")
    app = create_app(workers={"search": search, "quick": BotWorkers(workers=1, queue=2, name="q")})
    blocked = search.submit(release.wait, 30)
    try:
        with TestClient(app, base_url=BASE) as c:
            g = _game(c, bots=["mcts:iterations=5"], seat=1)
            r = c.post(f"/api/games/{g['id']}/advance", json={})
            assert r.status_code == 503 and "busy" in r.json()["error"]
            g = _game(c, bots=["random"], seat=1)
            assert c.post(f"/api/games/{g['id']}/advance", json={}).status_code == 200
    finally:
        release.set()
    blocked.result(timeout=10)


# ---------------------------------------------------------------- records
JSONL = {"content-type": "application/x-ndjson"}


def test_the_looping_record_is_refused_at_upload(client):
    rec = looping_record(25_000)  # 50,000 actions: a valid record, over the cap
    r = client.post("/api/records", content=json.dumps(rec).encode(), headers=JSONL)
    assert r.status_code == 400 and f"at most {server.MAX_RECORD_ACTIONS}" in r.json()["error"], r.text
    assert len(client.app.state.store) == 0


def test_a_watched_game_keeps_a_bounded_number_of_states(client, app):
    """A long record is checked once and replayed from checkpoints: the views equal a full replay."""
    from tabletop_rl.agents.records import replay
    from tabletop_rl.agents.web.views import move_text, state_view

    rec = looping_record(3000)  # 6,000+ actions
    r = client.post("/api/records", content=json.dumps(rec).encode(), headers=JSONL)
    assert r.status_code == 201, r.text
    key = r.json()["id"]
    n = len(rec["actions"])
    states = replay(rec)
    for step in (0, 1, n // 2, n - 301, n):
        v = client.get(f"/api/records/{key}/games/0?step={step}&seat=1").json()
        assert v["view"] == state_view("fantastiqa", states[step], 1) and v["steps"] == n
        assert v["log"] == [move_text("fantastiqa", states[i], rec["actions"][i], 1, over=False)
                            for i in range(max(0, step - server.MAX_LOG), step)]
    assert client.get(f"/api/records/{key}/games/0/board.png?step={n}").status_code == 200
    kept = app.state.store.get(key, "watch")._open[1]
    assert len(kept) <= server.MAX_CHECKPOINTS


def test_uploads_need_a_json_type_and_the_same_origin(client):
    text = json.dumps(looping_record(1)).encode()
    for headers in ({"content-type": "text/plain"}, {}, {**JSONL, "origin": EVIL_ORIGIN}):
        assert client.post("/api/records", content=text, headers=headers).status_code in (403, 415)
    assert client.post("/api/records", content=text, headers=JSONL).status_code == 201


def test_the_red_team_rows_are_all_clear():
    """benchmarks/redteam_web.py (imported by benchmarks/redteam.py) reruns every case above and more."""
    from benchmarks.redteam_web import OUTCOMES, rows, summary

    table = rows()
    assert table and all(set(r) == {"target", "case", "outcome"} and r["outcome"] in OUTCOMES for r in table)
    assert {r["target"] for r in table} == {"web app", "records", "bot specs (CLI)"}
    # the deadline row times a search (a machine 5x faster would finish 2,000 iterations in time): not asserted
    bad = [r for r in table if r["outcome"] != "clear" and not r["case"].startswith("MCTS iterations 2,000 on")]
    assert not bad, bad
    assert sum(s["tried"] for s in summary(table)) == len(table)


def test_allowed_hosts_follow_the_listening_address():
    from tabletop_rl.agents.web.guard import allowed_hosts_for, host_name

    assert [host_name(h) for h in ("127.0.0.1:8000", "[::1]:8000", "LocalHost", "::1", "evil.example:80")] == \
        ["127.0.0.1", "::1", "localhost", "::1", "evil.example"]
    assert allowed_hosts_for("127.0.0.1") == ("127.0.0.1", "localhost", "::1")
    assert allowed_hosts_for("192.168.1.5") == ("192.168.1.5", "127.0.0.1", "localhost", "::1")
    assert allowed_hosts_for("0.0.0.0") == () and allowed_hosts_for("::", ["box.lan:9000"]) == ("box.lan",)
