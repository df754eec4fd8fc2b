"""An MCP tool server: a language-model client plays Fae or Fantastiqa against the suite's bots.

    python -m tabletop_rl.mcp_server          # stdio transport (needs the `llm` extra: the mcp package)

Tools (every answer is JSON; a refused call is a tool error whose text says what is wrong):

    new_game(game, players=2, seed=None, options=None, bots=None, bot_budget=10)
        bots: one entry per seat, a bot spec ("random", "greedy", "ppo", "mcts:iterations=200") or
        null for a seat the client plays; default: the client at seat 0, "random" elsewhere.
        Answers the game id, the seats, the rules in short and how to write an action.
    observation(game_id, seat)   the seat's JSON view (`tabletop_rl.text_face.seat_view`) and the
                                 latest moves as every seat sees them
    legal_actions(game_id)       the legal actions {id, text} of the client seat to move
    play(game_id, action)        the client seat to move plays `action`: its text, a short form or
                                 "#id", or an int id
    bot_move(game_id)            the bot at the seat to move plays; answers what it played
    close_game(game_id)          forget a game (frees its slot)

What a client may know: a seat played by a bot is not the client's, so its view and its legal list
are refused until the game is over (then everything is public); moves are logged as the public sees
them (Fantastiqa's kept or bought cards are "a card"). Bots come from the web app's allow-list
(`tabletop_rl.agents.web.bots.parse_bot`: no file path, MCTS iterations bounded, a search under the
`bot_budget` deadline) and rule options from its table (never a card file). Sizes are bounded:
`MAX_GAMES` games at once, `MAX_ACTIONS` actions a game, `MAX_LOG` moves kept per game,
`MAX_ACTION_CHARS` characters an action text; one tool call runs at a time.
"""
from __future__ import annotations

import argparse
import secrets
import threading
from dataclasses import dataclass, field

import numpy as np

from tabletop_rl.extras import MissingExtraError, require_extra
from tabletop_rl.text_face import ACTION_FORMS, RULES, action_strings, parse_action, seat_view

__all__ = ["GameTables", "TableError", "build_server", "main", "MAX_GAMES", "MAX_ACTIONS", "MAX_LOG"]

MAX_GAMES = 8
MAX_ACTIONS = 20_000  # real games: Fae under 80 actions, Fantastiqa under 2,000 (the web app's bound)
MAX_LOG = 50
MAX_ACTION_CHARS = 200  # the longest action text is under 80
DEFAULT_BOT_BUDGET, MAX_BOT_BUDGET = 10.0, 120.0
GAMES = ("fae", "fantastiqa")


class TableError(ValueError):
    """A refused call; the message says why (the MCP tool answers it as a tool error)."""


@dataclass
class _Table:
    game: str
    spec: object
    state: object
    bots: list  # per seat: an Agent, or None for a client seat
    bot_specs: list
    seed: int
    log: list = field(default_factory=list)  # the latest MAX_LOG moves as the public sees them
    actions: list = field(default_factory=list)  # every action id played (at most MAX_ACTIONS)


def _public_result(state) -> dict:
    return {"winners": [f"player_{w}" for w in state.winners()],
            "returns": [float(r) for r in np.asarray(state.returns())]}


class GameTables:
    """The server's games, by id. Plain Python (the MCP tools call these methods), so tests and other
    front ends use it without the mcp package."""

    def __init__(self, max_games: int = MAX_GAMES):
        self.max_games = int(max_games)
        self.tables: dict[str, _Table] = {}

    # ------------------------------------------------------------------ helpers
    def _get(self, game_id) -> _Table:
        if not isinstance(game_id, str) or game_id not in self.tables:
            raise TableError(f"no game {str(game_id)[:40]!r}; open games: {sorted(self.tables) or 'none'}")
        return self.tables[game_id]

    @staticmethod
    def _seat_ok(t: _Table, seat) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < t.state.num_players:
            raise TableError(f"seat must be an int in 0..{t.state.num_players - 1}; got {str(seat)[:20]!r}")
        return seat

    @staticmethod
    def _status(t: _Table) -> dict:
        over = bool(t.state.is_terminal())
        out = {"over": over, "to_move": None if over else f"player_{t.state.current_player}",
               "to_move_is": None if over else ("client" if t.bots[t.state.current_player] is None
                                                 else f"bot {t.bot_specs[t.state.current_player]}")}
        if over:
            out["result"] = _public_result(t.state)
        return out

    def _apply(self, t: _Table, action: int) -> str:
        from tabletop_rl.agents.web.views import move_text

        if len(t.actions) >= MAX_ACTIONS:
            raise TableError(f"this game reached {MAX_ACTIONS} actions, the server's bound; close it")
        before = t.state.clone()
        t.state.apply(action)
        t.actions.append(int(action))
        text = move_text(t.game, before, action, viewer=None, over=t.state.is_terminal())
        t.log = (t.log + [text])[-MAX_LOG:]
        return text

    # ------------------------------------------------------------------ tools
    def new_game(self, game: str = "fae", players: int = 2, seed: int | None = None, options: dict | None = None,
                 bots: list | None = None, bot_budget: float = DEFAULT_BOT_BUDGET) -> dict:
        from tabletop_rl.agents.web.bots import build_bot, parse_bot
        from tabletop_rl.agents.web.guard import RequestError
        from tabletop_rl.agents.web.server import OPTIONS
        from tabletop_rl.envs.registry import get_game

        if len(self.tables) >= self.max_games:
            raise TableError(f"{self.max_games} games are open, the server's bound; close one with close_game")
        if game not in GAMES:
            raise TableError(f"game must be one of {list(GAMES)}; got {str(game)[:40]!r}")
        spec = get_game(game)
        if isinstance(players, bool) or not isinstance(players, int) or not spec.min_players <= players <= spec.max_players:
            raise TableError(f"players must be an int in {spec.min_players}..{spec.max_players}; got {str(players)[:20]!r}")
        if seed is None:
            seed = secrets.randbits(31)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 31:
            raise TableError(f"seed must be an int in 0..2**31-1 or null; got {str(seed)[:20]!r}")
        if isinstance(bot_budget, bool) or not isinstance(bot_budget, (int, float)) or not 0 < bot_budget <= MAX_BOT_BUDGET:
            raise TableError(f"bot_budget must be seconds in (0, {MAX_BOT_BUDGET:g}]; got {str(bot_budget)[:20]!r}")
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise TableError(f"options must be an object; got {str(options)[:80]}")
        for k, v in options.items():
            allowed = OPTIONS[game].get(k)
            if allowed is None:
                raise TableError(f"unknown option {str(k)[:40]!r} for {game}; options: {sorted(OPTIONS[game])}")
            if type(v) is not type(allowed[0]) or v not in allowed:
                raise TableError(f"option {k} must be one of {list(allowed)}; got {str(v)[:40]}")
        bots = [None] + ["random"] * (players - 1) if bots is None else bots
        if not isinstance(bots, list) or len(bots) != players:
            raise TableError(f"bots must list {players} entries, one per seat (null: a seat the client plays); "
                             f"got {str(bots)[:200]}")
        agents = []
        for seat, b in enumerate(bots):
            if b is None:
                agents.append(None)
                continue
            try:
                name, params = parse_bot(b, game, {})
            except RequestError as exc:
                raise TableError(exc.message) from None
            bot_seed = int(np.random.SeedSequence(seed, spawn_key=(seat,)).generate_state(1)[0])
            agents.append(build_bot(game, name, params, bot_seed, float(bot_budget), {}))
        if all(a is not None for a in agents):
            raise TableError("every seat is a bot: give null for at least one seat the client plays")
        try:
            state = spec.new_state(num_players=players, seed=seed, **options)
        except ValueError as exc:  # the rules refuse the options together (e.g. teams with 2 players)
            raise TableError(str(exc)) from None
        game_id = secrets.token_hex(6)
        t = _Table(game, spec, state, agents, [None if b is None else b for b in bots], seed)
        self.tables[game_id] = t
        return {"game_id": game_id, "game": game, "players": players, "seed": seed,
                "seats": [f"player_{s}: " + ("client" if a is None else f"bot {bots[s]}") for s, a in enumerate(agents)],
                "rules": RULES[game], "action_forms": ACTION_FORMS[game], **self._status(t)}

    def observation(self, game_id: str, seat: int) -> dict:
        t = self._get(game_id)
        seat = self._seat_ok(t, seat)
        if t.bots[seat] is not None and not t.state.is_terminal():
            raise TableError(f"player_{seat} is played by bot {t.bot_specs[seat]}: its view is not the client's")
        return {"view": seat_view(t.state, seat), "recent_moves": list(t.log), **self._status(t)}

    def legal_actions(self, game_id: str) -> dict:
        t = self._get(game_id)
        self._client_to_move(t)
        return {"seat": t.state.current_player,
                "actions": [{"id": a, "text": s} for a, s in action_strings(t.state).items()], **self._status(t)}

    def _client_to_move(self, t: _Table) -> int:
        if t.state.is_terminal():
            raise TableError("the game is over")
        seat = t.state.current_player
        if t.bots[seat] is not None:
            raise TableError(f"player_{seat} to move is bot {t.bot_specs[seat]}: call bot_move")
        return seat

    def play(self, game_id: str, action) -> dict:
        t = self._get(game_id)
        seat = self._client_to_move(t)
        if isinstance(action, bool) or not isinstance(action, (int, str)):
            raise TableError(f"action must be an action's text or an int id; got {str(action)[:40]!r}")
        if isinstance(action, str) and len(action) > MAX_ACTION_CHARS:
            raise TableError(f"an action text has at most {MAX_ACTION_CHARS} characters; got {len(action)}")
        if isinstance(action, int):
            if action not in action_strings(t.state):
                raise TableError(f"action id {action} is not legal now")
        else:
            try:
                action = parse_action(t.state, action)
            except ValueError as exc:
                raise TableError(str(exc)) from None
        return {"seat": seat, "played": self._apply(t, action), **self._status(t)}

    def bot_move(self, game_id: str) -> dict:
        from tabletop_rl.agents.match import bot_action

        t = self._get(game_id)
        if t.state.is_terminal():
            raise TableError("the game is over")
        seat = t.state.current_player
        bot = t.bots[seat]
        if bot is None:
            raise TableError(f"player_{seat} to move is the client's seat: call play")
        action = bot_action(bot, t.spec, t.state, seat, getattr(bot, "observation_options", None))
        return {"seat": seat, "bot": t.bot_specs[seat], "played": self._apply(t, action), **self._status(t)}

    def close_game(self, game_id: str) -> dict:
        self._get(game_id)
        del self.tables[game_id]
        return {"closed": game_id, "open_games": len(self.tables)}


def build_server(tables: GameTables | None = None):
    """The MCP server (mcp's `MCPServer`) with one tool per `GameTables` method."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    tables = GameTables() if tables is None else tables
    app = MCPServer("tabletop-rl", instructions=(
        "Play Fae or Fantastiqa: new_game, then on your turn observation and play (legal_actions lists your "
        "actions), and bot_move while a bot is to move, until over is true."), log_level="WARNING")

    lock = threading.Lock()  # one call at a time: the tables are plain Python, and a game is one sequence

    def answer(method, *args):
        try:
            with lock:
                return method(*args)
        except TableError as exc:  # said to the client; anything else is a bug, logged by mcp
            raise ToolError(str(exc)) from None

    @app.tool()
    def new_game(game: str = "fae", players: int = 2, seed: int | None = None, options: dict | None = None,
                 bots: list[str | None] | None = None, bot_budget: float = DEFAULT_BOT_BUDGET) -> dict:
        """Start a game. bots: one entry per seat, a bot spec ("random", "greedy", "ppo",
        "mcts:iterations=200") or null for a seat you play (default: you at seat 0, random elsewhere)."""
        return answer(tables.new_game, game, players, seed, options, bots, bot_budget)

    @app.tool()
    def observation(game_id: str, seat: int) -> dict:
        """What seat (one you play, or any once the game is over) may see, as JSON, and the latest moves."""
        return answer(tables.observation, game_id, seat)

    @app.tool()
    def legal_actions(game_id: str) -> dict:
        """The legal actions {id, text} of your seat to move."""
        return answer(tables.legal_actions, game_id)

    @app.tool()
    def play(game_id: str, action: int | str) -> dict:
        """Play for your seat to move: an action's text (any case), a short form or "#id", or an int id."""
        return answer(tables.play, game_id, action)

    @app.tool()
    def bot_move(game_id: str) -> dict:
        """The bot whose turn it is plays; answers what it played."""
        return answer(tables.bot_move, game_id)

    @app.tool()
    def close_game(game_id: str) -> dict:
        """Forget a game and free its slot."""
        return answer(tables.close_game, game_id)

    return app


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tabletop_rl.mcp_server", description=__doc__.split("\n")[0])
    parser.add_argument("--max-games", type=int, default=MAX_GAMES, help=f"games open at once (default {MAX_GAMES})")
    args = parser.parse_args(argv)
    if not 1 <= args.max_games <= 1000:
        parser.error(f"--max-games must be in 1..1000; got {args.max_games}")
    try:
        require_extra("llm", ("mcp",), "the MCP server")
    except MissingExtraError as exc:
        raise SystemExit(f"error: {exc}") from None
    build_server(GameTables(args.max_games)).run("stdio")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
