"""Issue 36, item 7: numbers in bot specs, options, queries and the policy catalogue take the ASCII
digits 0-9 only. `str.isdigit()` is True for '²' (then `int('²')` fails: the web app answered 500)
and for Arabic-Indic or full-width digits (which `int()` reads: they were accepted)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tabletop_rl.agents.arena import parse_agent
from tabletop_rl.agents.policy_versions import _table_defaults, catalogue
from tabletop_rl.options import parse_options

OTHER_DIGITS = ["²", "١٠٠", "１００", "٣", "𝟓"]  # superscript, Arabic-Indic, full-width, math bold


# ---------------------------------------------------------------- the CLI parser
@pytest.mark.parametrize("value", OTHER_DIGITS + ["-３.５", "½"])
def test_cli_options_refuse_other_digits_naming_the_key(value):
    with pytest.raises(ValueError, match=r"--option turn_limit: .*digits 0-9"):
        parse_options([f"turn_limit={value}"], what="--option")
    with pytest.raises(ValueError, match=r"iterations: .*non-ASCII numeral"):
        parse_agent(f"mcts:iterations={value}")


def test_cli_options_keep_ascii_numbers_and_strings_with_other_characters():
    """The control: ASCII numbers parse; a path or a word holding such a character is no number."""
    from tabletop_rl.options import non_ascii_digit

    assert parse_agent("mcts:iterations=100") == ("mcts", {"iterations": 100})
    assert parse_options("a=-3.5,b=1e3,c=runs/٣/policy.npz,d=name²x") == \
        {"a": -3.5, "b": 1000.0, "c": "runs/٣/policy.npz", "d": "name²x"}
    assert [non_ascii_digit(v) for v in ("12", "x²", "²", " ١ ")] == [None, None, "²", "١"]


# ---------------------------------------------------------------- the policy catalogue
def test_catalogue_table_sizes_take_ascii_digits_only():
    cat = catalogue("fae")
    path = Path("versions.json")
    three = next(n for n, e in cat["versions"].items() if e["players"] == 3)
    assert _table_defaults(path, cat["default"], {"3": three}, cat["versions"])[3] == three  # the control
    for key in ("³", "٣", "３"):  # '³' used to raise int()'s own message; '٣' and '３' were read as 3
        with pytest.raises(ValueError, match=r"table_defaults key .*ASCII digits 0-9"):
            _table_defaults(path, cat["default"], {key: three}, cat["versions"])


# ---------------------------------------------------------------- the web app
starlette = pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from tabletop_rl.agents.web import create_app  # noqa: E402

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def client():
    app = create_app(max_games=8, max_age=3600)
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("value", OTHER_DIGITS + ["+5", "1_0", "0x10"])
def test_web_bot_parameters_take_ascii_digits_only(client, value):
    r = client.post("/api/games", json={"game": "fae", "bots": [f"mcts:iterations={value}"]})
    assert r.status_code == 400 and "digits 0-9" in r.json()["error"], (value, r.status_code, r.text)
    assert len(client.app.state.store) == 0


def test_web_bot_parameters_control(client):
    r = client.post("/api/games", json={"game": "fae", "bots": ["mcts:iterations=100"]})
    assert r.status_code == 201, r.text


def test_web_query_numbers_take_ascii_digits_only(client):
    line = _record_line()
    key = client.post("/api/records", content=line, headers={"content-type": "application/x-ndjson"}).json()["id"]
    assert client.get(f"/api/records/{key}/games/0?step=1&seat=0").status_code == 200  # the control
    for url in (f"/api/records/{key}/games/0?step=١", f"/api/records/{key}/games/0?step=%C2%B2",
                f"/api/records/{key}/games/0?seat=１", f"/api/records/{key}/games/٠",
                f"/api/records/{key}/games/0?step=1_0", f"/api/records/{key}/games/0/board.png?step=٣"):
        r = client.get(url)
        assert r.status_code == 400 and "digits 0-9" in r.json()["error"], (url, r.status_code, r.text)


def _record_line() -> bytes:
    import json

    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.match import play_game
    from tabletop_rl.envs.registry import get_game

    spec = get_game("fae")
    res = play_game(spec, [make_agent("fae", "random", seed=1), make_agent("fae", "random", seed=2)], seed=1)
    return json.dumps(res.to_record(spec, agents=["random", "random"])).encode() + b"\n"
