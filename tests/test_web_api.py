"""The web app's server (issue 19): its API, hidden information, bad requests and bot failures.

Browser tests (Playwright + chromium) are in tests/test_web_browser.py; these drive the same API
through starlette's TestClient, fast, with no browser.
"""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from fae_rl import FaeState  # noqa: E402
from tabletop_rl.agents.base import Agent  # noqa: E402
from tabletop_rl.agents.match import play_game  # noqa: E402
from tabletop_rl.agents import make_agent  # noqa: E402
from tabletop_rl.agents.web import create_app  # noqa: E402
from tabletop_rl.agents.web.views import state_view  # noqa: E402
from tabletop_rl.envs.registry import get_game  # noqa: E402


JSON = {"content-type": "application/json"}
JSONL = {"content-type": "application/x-ndjson"}


@pytest.fixture
def client():
    app = create_app(max_games=8, max_age=3600, max_games_per_client=8)  # one client may fill the store here
    with TestClient(app, base_url="http://127.0.0.1:8000") as c:  # a Host the default app answers to
        c.store = app.state.store
        yield c


def new(client, **body):
    r = client.post("/api/games", json={"game": "fae", "players": 2, "seat": 0, "bots": ["random"], "seed": 3, **body})
    assert r.status_code == 201, r.text
    return r.json()


def session(client, key):
    return client.store.get(key, "play")


def play_out(client, g, max_calls=5000):
    """Plays the game to its end: the human picks the first legal choice, bots step."""
    for _ in range(max_calls):
        v = g["view"]
        if v["over"]:
            return g
        if v["current"] == g["seat"]:
            r = client.post(f"/api/games/{g['id']}/act", json={"action": v["choices"][0]["id"]})
        else:
            r = client.post(f"/api/games/{g['id']}/advance", json={})
        assert r.status_code == 200, r.text
        g = r.json()
    raise AssertionError("game did not end")


def test_config_lists_games_bots_and_options(client):
    c = client.get("/api/config").json()
    assert set(c["games"]) == {"fae", "fantastiqa"}
    for game in ("fae", "fantastiqa"):
        assert {"random", "greedy", "mcts", "ppo"} <= set(c["games"][game]["bots"])
    assert "card_set" not in c["games"]["fantastiqa"]["options"]  # never a file path from a request
    assert client.get("/").status_code == 200 and "app.js" in client.get("/").text
    assert client.get("/static/app.js").status_code == 200


def test_fae_game_plays_to_the_end_and_reveals_colours_only_then(client):
    g = new(client)
    assert g["view"]["current"] == 0 and g["view"]["choices"]
    assert "colours" not in g["view"] and "your_colour" in g["view"]
    g = play_out(client, g)
    v = g["view"]
    assert v["over"] and v["winners"] and len(v["final_scores"]) == 2 and len(v["colours"]) == 2
    s = session(client, g["id"])
    assert s.state.is_terminal() and s.actions and g["moves"] == len(s.actions)
    png = client.get(f"/api/games/{g['id']}/board.png")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"


def test_fantastiqa_with_finish_turn_and_mcts_budget(client):
    r = client.post("/api/games", json={"game": "fantastiqa", "players": 2, "seat": 1, "seed": 5,
                                         "bots": ["mcts:iterations=5"], "options": {"goal": "short"}})
    assert r.status_code == 201, r.text
    g = r.json()
    assert g["labels"] == ["mcts:iterations=5", "you"]
    assert g["view"]["current"] == 1 and g["view"]["choices"]  # setup runs from the last seat
    assert "hand" in g["view"] and "Fantastiqa" in g["view"]["text"]
    r = client.post(f"/api/games/{g['id']}/finish_turn", json={"bot": "mcts"})
    assert r.status_code == 400 and "bot must be one of" in r.json()["error"]
    r = client.post(f"/api/games/{g['id']}/finish_turn", json={"bot": "greedy"})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["current"] == 0
    r = client.post(f"/api/games/{g['id']}/advance", json={})
    assert r.status_code == 200, r.text
    assert r.json()["moves"] == g["moves"] + len(r.json()["log"]) - len(g["log"])


@pytest.mark.parametrize("body, status, words", [
    ({"game": "chess"}, 400, "game must be one of"),
    ({"game": "fae", "players": 5, "bots": ["random"] * 4}, 400, "players must be"),
    ({"game": "fae", "players": 2, "seat": 2, "bots": ["random"]}, 400, "seat must be"),
    ({"game": "fae", "players": 2, "bots": ["random", "random"]}, 400, "bots must list 1"),
    ({"game": "fae", "players": 2, "bots": ["nobody"]}, 400, "unknown bot"),
    ({"game": "fae", "players": 2, "bots": ["mcts:iterations=0"]}, 400, "iterations"),
    ({"game": "fae", "players": 2, "bots": ["random"], "options": {"history": "none"}}, 400, "unknown option"),
    ({"game": "fae", "players": 2, "bots": ["random"], "options": {"big_stack_merge": 1}}, 400, "must be one of"),
    ({"game": "fantastiqa", "players": 2, "bots": ["random"], "options": {"card_set": "/etc/passwd"}}, 400,
     "unknown option"),
    ({"game": "fantastiqa", "players": 2, "bots": ["random"], "options": {"teams": True}}, 400, "teams"),
    ({"game": "fae", "players": 2, "bots": ["random"], "bot_budget": -1}, 400, "bot_budget"),
])
def test_bad_new_game_requests_get_4xx_with_a_message(client, body, status, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == status and words in r.json()["error"], r.text


def test_malformed_and_illegal_moves_leave_the_game_unchanged(client):
    g = new(client)
    key = g["id"]
    before = session(client, key).state.to_dict()
    legal = {c["id"] for c in g["view"]["choices"]}
    illegal = next(a for a in range(330) if a not in legal)
    for body, words in [(b"{not json", "not JSON"), (b"[1]", "JSON object"), (b'{"action": "5"}', "integer"),
                        (b'{"action": true}', "integer"), (json.dumps({"action": illegal}).encode(), "not legal"),
                        (b'{"action": 99999}', "not legal"), (b'{"action": -1}', "not legal")]:
        r = client.post(f"/api/games/{key}/act", content=body, headers=JSON)
        assert r.status_code == 400 and words in r.json()["error"], (body, r.text)
    r = client.post(f"/api/games/{key}/advance", json={})  # the bots wait for the human
    assert r.status_code == 409 and "your turn" in r.json()["error"]
    assert session(client, key).state.to_dict() == before
    client.post(f"/api/games/{key}/act", json={"action": g["view"]["choices"][0]["id"]})
    r = client.post(f"/api/games/{key}/act", json={"action": g["view"]["choices"][0]["id"]})
    assert r.status_code == 409 and "not yours" in r.json()["error"]
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/act", json={"action": 0}).status_code == 404
    assert client.get("/api/games").status_code == 405


def test_ids_are_unguessable_and_the_store_is_bounded(client):
    """At most max_games sessions; a full store refuses new ones (503) rather than drop games in use,
    and replaces only a session unused for min_idle seconds."""
    ids = [new(client)["id"] for _ in range(8)]
    assert len(set(ids)) == 8 and all(len(k) >= 20 for k in ids)
    r = client.post("/api/games", json={"game": "fae", "bots": ["random"]})
    assert r.status_code == 503 and "try again later" in r.json()["error"]
    assert len(client.store) == 8 and all(client.get(f"/api/games/{k}").status_code == 200 for k in ids)
    client.store.min_idle = 0.0  # every session counts as idle: the least recently used one goes
    client.get(f"/api/games/{ids[0]}")
    extra = new(client)["id"]
    assert len(client.store) == 8 and client.get(f"/api/games/{ids[1]}").status_code == 404
    assert client.get(f"/api/games/{ids[0]}").status_code == 200
    client.store.max_age = 0.0
    time.sleep(0.01)
    assert client.get(f"/api/games/{extra}").status_code == 404  # too old


class Crashing(Agent):
    def act(self, observation, action_mask, *, state=None, seat=None):
        raise RuntimeError("boom")


class Slow(Agent):
    def act(self, observation, action_mask, *, state=None, seat=None):
        time.sleep(1.5)
        return int(np.flatnonzero(action_mask)[0])


class Illegal(Agent):
    def act(self, observation, action_mask, *, state=None, seat=None):
        return int(np.flatnonzero(action_mask == 0)[0])


def test_a_failing_or_slow_bot_is_reported_and_the_game_unchanged(client):
    g = new(client, seat=1, bot_budget=10)
    key = g["id"]
    s = session(client, key)
    before = s.state.to_dict()
    s.bots[0] = Crashing()
    r = client.post(f"/api/games/{key}/advance", json={})
    assert r.status_code == 502 and "boom" in r.json()["error"]
    s.bots[0] = Illegal()
    r = client.post(f"/api/games/{key}/advance", json={})
    assert r.status_code == 502 and "illegal" in r.json()["error"]
    s.bots[0] = Slow()
    s.bot_budget = 0.3
    t0 = time.monotonic()
    r = client.post(f"/api/games/{key}/advance", json={})
    assert r.status_code == 503 and "budget" in r.json()["error"]
    assert time.monotonic() - t0 < 1.4  # the page got its answer before the bot finished
    assert s.state.to_dict() == before
    time.sleep(1.6)
    r = client.post(f"/api/games/{key}/advance", json={})  # trying again takes the late answer
    assert r.status_code == 200 and r.json()["moves"] == 1


# ---------------------------------------------------------------- hidden information
def _fae_other_colour(state: FaeState, seat: int) -> FaeState:
    d = state.to_dict()
    free = [c for c in range(5) if c not in d["colours"]]
    d["colours"] = list(d["colours"])
    d["colours"][seat] = free[0]
    return FaeState.from_dict(d)


def test_fae_responses_hide_the_other_seats_colours(client):
    """F-S2: a spirit is secret. Responses to seat 0 are identical when seat 1's colour differs."""
    g = new(client, seed=11)
    key = g["id"]
    client.post(f"/api/games/{key}/act", json={"action": g["view"]["choices"][0]["id"]})
    s = session(client, key)
    a = client.get(f"/api/games/{key}").json()
    png_a = client.get(f"/api/games/{key}/board.png").content
    s.state = _fae_other_colour(s.state, 1)
    b = client.get(f"/api/games/{key}").json()
    assert a == b and png_a == client.get(f"/api/games/{key}/board.png").content
    s.state = _fae_other_colour(s.state, 0)  # and the own colour does show
    assert client.get(f"/api/games/{key}").json()["view"]["your_colour"] != a["view"]["your_colour"]
    # The public view shows no colour at all.
    pub = state_view("fae", s.state, None)
    assert pub == state_view("fae", _fae_other_colour(_fae_other_colour(s.state, 0), 1), None)
    assert "your_colour" not in pub


def _fantastiqa_midgame(seed=2, steps=120):
    spec = get_game("fantastiqa")
    state = spec.new_state(num_players=3, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


def test_fantastiqa_responses_hide_hands_deck_orders_and_rngs(client):
    """Q-I1: other seats' hands, every deck order and the chance generators are hidden from a seat."""
    r = client.post("/api/games", json={"game": "fantastiqa", "players": 3, "seat": 0, "seed": 4,
                                         "bots": ["random", "random"]})
    key = r.json()["id"]
    s = session(client, key)
    s.state = _fantastiqa_midgame()
    rng = np.random.default_rng(0)
    seen = client.get(f"/api/games/{key}").json()
    png = client.get(f"/api/games/{key}/board.png").content
    differs = 0
    for _ in range(5):
        other = s.state.sample_consistent(0, rng)  # same knowledge for seat 0, other secrets
        differs += other.hand[1] != s.state.hand[1] or other.creature_deck != s.state.creature_deck
        keep, s.state = s.state, other
        assert client.get(f"/api/games/{key}").json() == seen
        assert client.get(f"/api/games/{key}/board.png").content == png
        s.state = keep
    assert differs  # the variants really differ in secrets
    # The public view is the same whatever any seat holds.
    pub = state_view("fantastiqa", s.state, None)
    for seat in range(3):
        other = s.state.sample_consistent(seat, rng)
        other = other.sample_consistent((seat + 1) % 3, rng)
        assert state_view("fantastiqa", other, None) == pub


def test_moves_a_seat_cannot_see_are_redacted_until_the_end():
    from fantastiqa_rl import actions as A
    from tabletop_rl.agents.web.views import move_text

    state = _fantastiqa_midgame()
    rng = np.random.default_rng(1)
    for _ in range(20000):  # find a BUY of a drawn card
        if state.is_terminal():
            state = _fantastiqa_midgame(seed=int(rng.integers(1000)))
        picks = [a for a in state.legal_actions() if state.phase == A.BUY
                 and state.g.layout.decode(int(a))[0] == "PICK"]
        if picks:
            mover = state.current_player
            full = move_text("fantastiqa", state, picks[0], mover, over=False)
            other = move_text("fantastiqa", state, picks[0], (mover + 1) % 3, over=False)
            assert full.startswith(f"player_{mover}: Buy ") and other == f"player_{mover}: Buy a card" and full != other
            assert move_text("fantastiqa", state, picks[0], None, over=True) == full
            return
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    pytest.skip("no BUY met in 20000 random moves")


# ---------------------------------------------------------------- watch
def _records_text(game="fae", games=2):
    spec = get_game(game)
    lines = []
    for g in range(games):
        result = play_game(spec, [make_agent(game, "random", seed=g), make_agent(game, "random", seed=g + 9)], seed=g)
        lines.append(json.dumps(result.to_record(spec, agents=["random", "random"])))
    return "\n".join(lines) + "\n"


def test_watch_steps_through_a_record_as_any_seat(client):
    r = client.post("/api/records", headers=JSONL, content=_records_text().encode())
    assert r.status_code == 201, r.text
    key, games = r.json()["id"], r.json()["games"]
    assert len(games) == 2 and games[0]["game"] == "fae"
    n = games[1]["moves"]
    first = client.get(f"/api/records/{key}/games/1?step=0&seat=public").json()
    assert first["steps"] == n and first["log"] == [] and "your_colour" not in first["view"]
    mid = client.get(f"/api/records/{key}/games/1?step=5&seat=1").json()
    assert len(mid["log"]) == 5 and mid["view"]["seat"] == 1 and "your_colour" in mid["view"]
    last = client.get(f"/api/records/{key}/games/1?step={n}&seat=public").json()
    assert last["view"]["over"] and "colours" in last["view"]
    back = client.get(f"/api/records/{key}/games/1?step=4&seat=0").json()
    assert len(back["log"]) == 4 and back["log"] == mid["log"][:4]
    png = client.get(f"/api/records/{key}/games/1/board.png?step=3")
    assert png.status_code == 200 and png.content[:4] == b"\x89PNG"
    for url, words in [(f"/api/records/{key}/games/7?step=0", "not in these records"),
                       (f"/api/records/{key}/games/1?step={n + 1}", "step must be"),
                       (f"/api/records/{key}/games/1?step=x", "step must be an integer"),
                       (f"/api/records/{key}/games/1?seat=2", "seat must be"),
                       (f"/api/records/{key}/games/one", "game index")]:
        r = client.get(url)
        assert 400 <= r.status_code < 500 and words in r.json()["error"], (url, r.text)


@pytest.mark.parametrize("text, words", [
    ("", "no game"),
    ("{oops\n", "not a JSON record"),
    ("[1, 2]\n", "must be a JSON object"),
    ('{"game": "chess"}\n', "game must be one of"),
    ('{"game": "fantastiqa", "options": {"card_set": "/etc/passwd"}, "actions": [], "seed": 0, "num_players": 2}\n',
     "options must be"),
    ('{"game": "fae", "options": {}, "actions": ["x"], "seed": 0, "num_players": 2}\n', "actions must be"),
    ('{"game": "fae", "options": {}, "actions": [], "seed": "s", "num_players": 2}\n', "seed must be"),
])
def test_bad_records_get_400(client, text, words):
    r = client.post("/api/records", headers=JSONL, content=text.encode())
    assert r.status_code == 400 and words in r.json()["error"], r.text


def test_a_record_that_does_not_replay_is_refused_when_opened(client):
    rec = json.loads(_records_text(games=1))
    rec["actions"][3] = 329  # resolve a space with no pending ritual
    key = client.post("/api/records", headers=JSONL, content=json.dumps(rec).encode()).json()["id"]
    r = client.get(f"/api/records/{key}/games/0?step=0")
    assert r.status_code == 400 and "cannot be replayed" in r.json()["error"]


def test_the_command_serves_the_app(tmp_path):
    """`python -m tabletop_rl.agents.web --host --port` starts uvicorn with the app."""
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_rl.agents.web", "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=2) as r:
                    assert set(json.load(r)["games"]) == {"fae", "fantastiqa"}
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read().decode()
                time.sleep(0.1)
        else:
            raise AssertionError("the server did not answer within 30 s")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_favicon_is_served_not_a_404(client):
    """Issue 39 item 7: /favicon.ico was a 404 in every session's log; the page links the same SVG icon."""
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert r.content.lstrip().startswith(b"<svg") and len(r.content) < 2048
    page = client.get("/").text
    assert '<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">' in page
    assert client.get("/static/favicon.svg").content == r.content
    assert client.get("/favicon.png").status_code == 404  # control: only the icon's own path answers
