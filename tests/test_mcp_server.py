"""The MCP tool server (issue 39): the game tables' rules and bounds in process, and a whole Fae game
played end to end over stdio by a scripted client with mcp's own client (skipped, with the reason,
when the `llm` extra is missing). No network: the server is a child process on pipes."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

import numpy as np

from tabletop_rl import mcp_server
from tabletop_rl.mcp_server import MAX_ACTIONS, GameTables, TableError

ROOT = Path(__file__).resolve().parents[1]
needs_mcp = pytest.mark.skipif(importlib.util.find_spec("mcp") is None,
                               reason="the MCP server needs the `llm` extra: pip install -e \".[llm]\"")


def test_a_client_plays_a_whole_game_against_a_bot_in_process():
    tables = GameTables()
    g = tables.new_game("fae", 2, seed=4, bots=[None, "greedy"])
    assert g["seats"] == ["player_0: client", "player_1: bot greedy"] and "ritual" in g["rules"]
    gid, status, moves = g["game_id"], g, 0
    while not status["over"]:
        if status["to_move_is"] == "client":
            view = tables.observation(gid, 0)["view"]
            assert view["you"] == "player_0" and "your_colour" in view
            first = tables.legal_actions(gid)["actions"][0]
            status = tables.play(gid, first["text"] if moves % 2 else first["id"])
        else:
            status = tables.bot_move(gid)
            assert status["played"].startswith("player_1: ")
        moves += 1
    assert status["result"]["winners"] and len(status["result"]["returns"]) == 2
    assert tables.observation(gid, 1)["view"]["colours"]  # over: every seat's view is public
    assert tables.close_game(gid) == {"closed": gid, "open_games": 0}


def test_the_client_never_sees_a_bot_seat_or_plays_out_of_turn():
    tables = GameTables()
    gid = tables.new_game("fae", 3, seed=1, bots=[None, "random", "random"])["game_id"]
    with pytest.raises(TableError, match="player_1 is played by bot random: its view is not the client's"):
        tables.observation(gid, 1)
    with pytest.raises(TableError, match="client's seat: call play"):
        tables.bot_move(gid)
    tables.play(gid, tables.legal_actions(gid)["actions"][0]["text"])
    for call in (lambda: tables.play(gid, "#0"), lambda: tables.legal_actions(gid)):
        with pytest.raises(TableError, match="player_1 to move is bot random: call bot_move"):
            call()
    tables.bot_move(gid)
    tables.bot_move(gid)
    for action, reason in [("fly", "not a move"), (10_000, "not legal now"), ("12", "bare number"),
                           (True, "text or an int id"), ([1], "text or an int id"),
                           ("move " * 100, "at most 200 characters")]:
        with pytest.raises(TableError, match=reason):
            tables.play(gid, action)


def test_moves_are_logged_as_the_public_sees_them(monkeypatch):
    """Fantastiqa: which card a seat buys from a statue draw (or keeps from a Bell draw) is its own;
    the log every seat reads says "a card" (the web app's public move text)."""
    from fantastiqa_rl import actions as A

    monkeypatch.setattr(mcp_server, "MAX_LOG", 10 ** 6)
    tables = GameTables()
    status = tables.new_game("fantastiqa", 2, seed=0, bots=[None, "greedy"])
    gid, rng = status["game_id"], np.random.default_rng(0)
    while not status["over"]:
        if status["to_move_is"] == "client":
            acts = tables.legal_actions(gid)["actions"]
            status = tables.play(gid, acts[rng.integers(len(acts))]["id"])
        else:
            status = tables.bot_move(gid)
    t = tables.tables[gid]
    assert tables.observation(gid, 0)["recent_moves"] == t.log and len(t.log) == len(t.actions)
    replay, hidden = t.spec.new_state(num_players=2, seed=0), 0
    for action, line in zip(t.actions, t.log):
        text = replay.action_to_string(action)
        if replay.phase in (A.BUY, A.BELL) and text.startswith(("BUY ", "KEEP ")):
            hidden += 1
            assert text.split(" ", 1)[1] not in line and line.endswith("a card"), (text, line)
        replay.apply(action)
    assert hidden >= 3


@pytest.mark.parametrize("kwargs,reason", [
    ({"game": "chess"}, "game must be one of"),
    ({"players": 7}, "players must be an int in 2..4"),
    ({"players": True}, "players must be"),
    ({"seed": -1}, "seed must be"),
    ({"bot_budget": 0}, "bot_budget"),
    ({"bot_budget": 1e9}, "bot_budget"),
    ({"bots": [None]}, "one per seat"),
    ({"bots": ["random", "random"]}, "every seat is a bot"),
    ({"bots": [None, "ppo:path=/etc/passwd"]}, "not one a request may set"),
    ({"bots": [None, "mcts:iterations=999999"]}, "iterations must be an integer"),
    ({"bots": [None, "openspiel_mcts"]}, "unknown bot"),
    ({"options": {"card_set": "x.json"}}, "unknown option"),
    ({"options": {"big_stack_merge": "yes"}}, "must be one of"),
    ({"options": []}, "options must be an object"),
])
def test_new_game_refuses_with_the_reason(kwargs, reason):
    with pytest.raises(TableError, match=reason):
        GameTables().new_game(**kwargs)


def test_sizes_are_bounded():
    tables = GameTables(max_games=2)
    ids = [tables.new_game(seed=s)["game_id"] for s in range(2)]
    with pytest.raises(TableError, match="2 games are open"):
        tables.new_game()
    tables.close_game(ids[0])
    tables.new_game()
    with pytest.raises(TableError, match="no game 'nope'"):
        tables.observation("nope", 0)
    t = tables.tables[ids[1]]
    t.actions = [0] * MAX_ACTIONS
    with pytest.raises(TableError, match=f"{MAX_ACTIONS} actions"):
        tables.play(ids[1], tables.legal_actions(ids[1])["actions"][0]["id"])


def test_the_server_names_the_llm_extra_when_mcp_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(SystemExit, match=r"the MCP server needs mcp \(the 'llm' extra\).*tabletop-rl\[llm\]"):
        mcp_server.main([])


@needs_mcp
def test_a_scripted_client_plays_a_whole_fae_game_over_stdio():
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    def data(result) -> dict:
        assert not result.is_error, result.content[0].text
        return json.loads(result.content[0].text)

    async def client() -> dict:
        params = StdioServerParameters(command=sys.executable, args=["-m", "tabletop_rl.mcp_server"], cwd=str(ROOT))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                names = {t.name for t in (await session.list_tools()).tools}
                assert {"new_game", "observation", "legal_actions", "play", "bot_move"} <= names
                game = data(await session.call_tool("new_game", {"game": "fae", "seed": 7, "bots": [None, "greedy"]}))
                gid, status, turns = game["game_id"], game, 0
                refused = await session.call_tool("observation", {"game_id": gid, "seat": 1})
                assert refused.is_error and "not the client's" in refused.content[0].text
                while not status["over"] and turns < 200:
                    if status["to_move_is"] == "client":
                        view = data(await session.call_tool("observation", {"game_id": gid, "seat": 0}))["view"]
                        assert view["you"] == "player_0" and "colours" not in view
                        actions = data(await session.call_tool("legal_actions", {"game_id": gid}))["actions"]
                        bad = await session.call_tool("play", {"game_id": gid, "action": "dance"})
                        assert bad.is_error and "dance" in bad.content[0].text
                        status = data(await session.call_tool("play", {"game_id": gid, "action": actions[-1]["text"]}))
                    else:
                        status = data(await session.call_tool("bot_move", {"game_id": gid}))
                    turns += 1
                over = await session.call_tool("play", {"game_id": gid, "action": "move 1->2"})
                assert over.is_error and "the game is over" in over.content[0].text
                return status

    final = anyio.run(client)
    assert final["over"] and final["result"]["winners"]
