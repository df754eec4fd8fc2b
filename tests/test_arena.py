"""The arena: seat rotation, duplicate deals, intervals, ratings, outputs, determinism, errors.

Also plays the arena, MCTS and records on a tiny registered toy game with in-game chance and
hidden information, to show the tools need nothing game-specific (as Fantastiqa will use them).
"""
from __future__ import annotations

import json
import math
import os
from collections import Counter

import numpy as np
import pytest

from tabletop_rl.agents.arena import ArenaConfig, main, parse_agent, run_arena, schedule, summarize, wilson_interval
from tabletop_rl.agents.records import read_records, replay
from tabletop_rl.envs.registry import GameSpec, register_game


# ------------------------------------------------------------------------------------ toy game
class ToyState:
    """Each seat holds a hidden card 1..3 (setup generator); a turn is 'bank k' (k <= own card,
    so the legal actions depend on hidden state) or 'roll' (a die from its own chance generator).
    Six turns in all; highest total wins, ties shared."""

    TURNS = 6
    NUM_ACTIONS = 4  # 0 = roll, k = bank k (1..3)

    @classmethod
    def new(cls, num_players=2, seed=None, bonus=0):
        s = cls()
        setup, dice = [np.random.Generator(np.random.PCG64(ss)) for ss in np.random.SeedSequence(seed).spawn(2)]
        s.n, s.bonus = num_players, bonus
        s.cards = [int(x) for x in setup.integers(1, 4, size=num_players)]
        s.totals = [0] * num_players
        s.turn, s.dice = 0, dice
        return s

    def clone(self):
        c = ToyState()
        c.n, c.bonus, c.cards, c.totals, c.turn = self.n, self.bonus, self.cards[:], self.totals[:], self.turn
        c.dice = np.random.Generator(np.random.PCG64(0))
        c.dice.bit_generator.state = self.dice.bit_generator.state
        return c

    @property
    def num_players(self):
        return self.n

    @property
    def current_player(self):
        return -1 if self.is_terminal() else self.turn % self.n

    def is_terminal(self):
        return self.turn >= self.TURNS

    def legal_actions(self):
        if self.is_terminal():
            return np.zeros(0, dtype=np.int64)
        return np.arange(self.cards[self.current_player] + 1, dtype=np.int64)

    def apply(self, a):
        a = int(a)
        if a not in self.legal_actions().tolist():
            raise ValueError(f"toy: illegal action {a}")
        p = self.current_player
        self.totals[p] += int(self.dice.integers(1, 4)) + self.bonus if a == 0 else a
        self.turn += 1

    def winners(self):
        if not self.is_terminal():
            return []
        best = max(self.totals)
        return [p for p in range(self.n) if self.totals[p] == best]

    def returns(self):
        from fae_rl import win_loss_returns

        return np.asarray(win_loss_returns(self.winners(), self.n) if self.is_terminal() else [0.0] * self.n)

    def seat_scores(self):
        return [float(t) for t in self.totals]

    def information_state(self, seat):
        return {"cards": [c if p == seat else -1 for p, c in enumerate(self.cards)], "totals": self.totals[:],
                "turn": self.turn}

    def sample_consistent(self, seat, rng):
        s = self.clone()
        s.cards = [c if p == seat else int(rng.integers(1, 4)) for p, c in enumerate(self.cards)]
        s.dice = np.random.Generator(np.random.PCG64(int(rng.integers(2**31))))  # unseen future rolls
        return s

    def to_dict(self):
        return {"cards": self.cards, "totals": self.totals, "turn": self.turn, "bonus": self.bonus,
                "dice": self.dice.bit_generator.state}

    @classmethod
    def from_dict(cls, d):
        s = cls.new(len(d["cards"]), seed=0, bonus=d["bonus"])
        s.cards, s.totals, s.turn = list(d["cards"]), list(d["totals"]), d["turn"]
        s.dice.bit_generator.state = d["dice"]
        return s

    def action_to_string(self, a):
        return "roll" if a == 0 else f"bank {a}"


def _toy_observe(state, seat):
    return np.asarray([state.cards[seat], *state.totals, state.turn], dtype=np.float32)


def _toy_mask(state, seat):
    m = np.zeros(ToyState.NUM_ACTIONS, dtype=np.int8)
    if seat == state.current_player:
        m[state.legal_actions()] = 1
    return m


def _no_env(**kwargs):
    raise NotImplementedError("the toy game has no AEC env")


TOY = GameSpec(name="toyrace", env_id="toyrace_v3", env=_no_env, raw_env=_no_env, new_state=ToyState.new,
               observe=_toy_observe, action_mask=_toy_mask, rule_options=("bonus",), min_players=2, max_players=4)


@pytest.fixture
def toy_game():
    """Registers the toy game for one test only (other tests may iterate over the real games)."""
    import tabletop_rl.envs.registry as registry

    register_game(TOY)
    yield TOY
    registry._GAMES.pop(TOY.name, None)


def test_toy_state_satisfies_the_game_state_contract():
    from tabletop_rl.envs.game_state import GameState

    s = ToyState.new(3, seed=5)
    s.apply(0)
    assert isinstance(s, GameState)
    back = ToyState.from_dict(s.to_dict())
    assert back.to_dict() == s.to_dict()
    back.apply(0), s.apply(0)  # the same die roll: the generator state travels in the dict
    assert back.to_dict() == s.to_dict()


# ------------------------------------------------------------------------------------ schedule
@pytest.mark.parametrize("players,games", [(2, 5), (3, 7), (4, 8)])
def test_every_bot_plays_every_seat_equally(players, games):
    tasks = schedule(players, games, seed=3)
    n = -(-games // players) * players
    assert len(tasks) == n and n % players == 0 and n >= games
    counts = Counter((t["seats"][s], s) for t in tasks for s in range(players))
    assert set(counts.values()) == {n // players} and len(counts) == players * players
    for t in tasks:  # cyclic rotation: bot j at seat (j + r) mod P
        assert sorted(t["seats"]) == list(range(players))
        assert all(t["seats"][(j + t["rotation"]) % players] == j for j in range(players))


def test_duplicate_deals_share_a_seed_per_block():
    tasks = schedule(3, 9, seed=11)
    by_deal = {}
    for t in tasks:
        by_deal.setdefault(t["deal"], set()).add(t["seed"])
        assert t["deal"] == t["index"] // 3
    assert all(len(s) == 1 for s in by_deal.values())
    assert len({next(iter(s)) for s in by_deal.values()}) == 3  # different deals, different seeds
    indep = schedule(3, 9, seed=11, deals="independent")
    assert len({t["seed"] for t in indep}) == 9
    assert schedule(3, 9, seed=11) == tasks and schedule(3, 9, seed=12) != tasks
    with pytest.raises(ValueError, match="deals"):
        schedule(2, 4, deals="triplicate")


def test_duplicate_deal_is_the_same_deal_with_seats_permuted(tmp_path):
    cfg = ArenaConfig(game="fae", agents=["greedy", "random", "random"], games=6, seed=5, workers=1)
    res = run_arena(cfg, out=str(tmp_path), plot=False, quiet=True)
    recs = list(read_records(res["paths"]["records"]))
    assert len(recs) == 6
    for block in (recs[0:3], recs[3:6]):
        starts = [replay(r)[0] for r in block]
        assert starts[0] == starts[1] == starts[2]  # same board and colours
        assert [r["agents"] for r in block] == [["greedy", "random", "random"], ["random", "greedy", "random"],
                                                ["random", "random", "greedy"]]
    assert replay(recs[0])[0] != replay(recs[3])[0]


def test_duplicate_deal_holds_with_in_game_chance():
    """Toy game: the dice have a generator of their own, so a deal's rolls do not depend on choices."""
    c = ToyState.new(2, seed=9)
    r = [int(c.dice.integers(1, 4)) for _ in range(3)]
    a, b = ToyState.new(2, seed=9), ToyState.new(2, seed=9)
    for x in (0, 1, 0, 0):  # p0 rolls, p1 banks 1, p0 rolls, p1 rolls
        a.apply(x)
    for x in (1, 0, 0, 0):  # p0 banks 1, p1 rolls, p0 rolls, p1 rolls
        b.apply(x)
    assert a.cards == b.cards == c.cards
    assert a.totals == [r[0] + r[1], 1 + r[2]]
    assert b.totals == [1 + r[1], r[0] + r[2]]


# ------------------------------------------------------------------------------------ statistics
def test_wilson_interval_known_values():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(3.8415 / 13.8415, abs=1e-4)
    lo, hi = wilson_interval(280, 400)
    assert lo == pytest.approx(0.6534, abs=1e-3) and hi == pytest.approx(0.7427, abs=1e-3)
    lo, hi = wilson_interval(2.5, 4)  # fractional successes (shared wins)
    assert 0 < lo < 0.625 < hi < 1
    for bad in [(1, 0), (-1, 5), (6, 5)]:
        with pytest.raises(ValueError):
            wilson_interval(*bad)


def test_summarize_fixed_case():
    rows = [  # 2 players, 2 deals x 2 rotations; entrant 0 wins 1 + 0.5 + 1 + 0 = 2.5 of 4
        {"index": 0, "deal": 0, "seats": [0, 1], "returns": [1, -1], "winners": [0], "scores": [10, 5]},
        {"index": 1, "deal": 0, "seats": [1, 0], "returns": [0, 0], "winners": [0, 1], "scores": [7, 7]},
        {"index": 2, "deal": 1, "seats": [0, 1], "returns": [1, -1], "winners": [0], "scores": [9, 1]},
        {"index": 3, "deal": 1, "seats": [1, 0], "returns": [1, -1], "winners": [0], "scores": [8, 2]},
    ]
    s = summarize(rows, ["a", "b"], 2)
    a, b = s["bots"]
    assert a["win_share"] == 2.5 / 4 and b["win_share"] == 1.5 / 4
    assert tuple(a["wilson95"]) == pytest.approx(wilson_interval(2.5, 4))
    assert a["mean_score"] == (10 + 7 + 9 + 2) / 4 and a["mean_return"] == (1 + 0 + 1 - 1) / 4
    assert [x["win_share"] for x in s["seats"]] == [(1 + 0.5 + 1 + 1) / 4, 0.5 / 4]
    # per-deal means of a: 0.75 and 0.5 -> clustered interval is centred on 0.625
    se = np.std([0.75, 0.5], ddof=1) / math.sqrt(2)
    assert a["deal_clustered95"][0] == pytest.approx(max(0, 0.625 - 1.959964 * se), abs=1e-6)
    assert a["openskill_mu"] > b["openskill_mu"]
    assert s["draws_all_win"] == 1


def test_ratings_rank_losers_by_score_at_multiplayer_tables():
    rows = [{"index": i, "deal": i, "seats": [0, 1, 2, 3], "returns": [1, -1 / 3, -1 / 3, -1 / 3], "winners": [0],
             "scores": [20, 15, 10, 5]} for i in range(6)]
    bots = summarize(rows, ["w", "x", "y", "z"], 4)["bots"]
    mus = [b["openskill_mu"] for b in bots]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == 4


# ------------------------------------------------------------------------------------ runs
def _strip(rows):
    return [{k: v for k, v in r.items() if k != "move_times"} for r in rows]


def test_arena_same_seed_same_results_in_parallel(tmp_path):
    kw = dict(game="fae", agents=["greedy", "mcts:iterations=8", "random"], games=6, seed=1)
    one = run_arena(ArenaConfig(workers=1, **kw), out=str(tmp_path / "a"), quiet=True)
    two = run_arena(ArenaConfig(workers=2, **kw), out=str(tmp_path / "b"), quiet=True)
    assert one["summary"] == two["summary"] and _strip(one["rows"]) == _strip(two["rows"])
    other = run_arena(ArenaConfig(workers=1, **{**kw, "seed": 2}), write=False, quiet=True)
    assert _strip(other["rows"]) != _strip(one["rows"])
    out = tmp_path / "a"
    for name in ("results.json", "summary.csv", "games.csv", "records.jsonl", "ratings.png"):
        assert (out / name).stat().st_size > 0
    assert (out / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "results.json").read_text())
    assert data["results"] == one["summary"] and data["labels"] == ["greedy", "mcts:iterations=8", "random"]
    assert len((out / "games.csv").read_text().strip().splitlines()) == 1 + 6
    assert len((out / "summary.csv").read_text().strip().splitlines()) == 1 + 3
    for rec in read_records(out / "records.jsonl"):
        replay(rec)
    assert "Wilson 95%" in one["table"] and "correlated" in one["table"]


def test_arena_cli_writes_outputs(tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["--game", "fae", "--players", "4", "--agents", "greedy", "random", "random", "random",
                 "--games", "3", "--workers", "1", "--out", str(out), "--quiet", "--no-plot"]) == 0
    text = capsys.readouterr().out
    assert "4 games of fae" in text and "random#1" in text and "greedy" in text
    assert not (out / "ratings.png").exists() and (out / "records.jsonl").exists()


@pytest.mark.parametrize("matplotlib_installed", [True, False])
def test_arena_cli_without_matplotlib_prints_the_table_and_names_the_extra(tmp_path, capsys, monkeypatch,
                                                                          matplotlib_installed):
    """Issue 39 item 7: without matplotlib the arena ended in a traceback after the games; now the table
    and the files come out, and a note names the extra that draws ratings.png (control: with it, drawn)."""
    import sys

    if matplotlib_installed:
        pytest.importorskip("matplotlib")
    else:
        monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    out = tmp_path / "cli"
    assert main(["--game", "fae", "--agents", "greedy", "random", "--games", "2", "--workers", "1",
                 "--out", str(out), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "2 games of fae" in captured.out and (out / "results.json").exists()
    assert (out / "ratings.png").exists() == matplotlib_installed
    note = "ratings.png not drawn: the ratings plot (ratings.png) needs matplotlib (the 'train' extra)"
    assert (note in captured.err and 'tabletop-rl[train]' in captured.err) != matplotlib_installed


@pytest.mark.parametrize("argv,needle", [
    (["--game", "nope", "--agents", "random", "random", "--games", "2"], "nope"),
    (["--game", "fae", "--agents", "random", "--games", "2", "--players", "2"], "one bot per seat"),
    (["--game", "fae", "--agents", "random", "random", "--games", "0"], "--games"),
    (["--game", "fae", "--agents", "random", "wizard", "--games", "2"], "unknown agent 'wizard'"),
    (["--game", "fae", "--agents", "random", "random", "--games", "2", "--option", "colour=red"], "unknown option"),
    (["--game", "fae", "--agents", "random", "mcts:iterations=0", "--games", "2"], "iterations"),
    (["--game", "fae", "--agents", "random", "mcts:iterations", "--games", "2"], "key=value"),
    (["--game", "fae", "--agents", *["random"] * 5, "--games", "2"], "2..4 players"),
])
def test_arena_cli_bad_input_names_the_problem(argv, needle, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--out", str(tmp_path), "--quiet"])
    assert exc.value.code == 2
    assert needle in capsys.readouterr().err


def test_parse_agent():
    assert parse_agent("mcts:iterations=200,c=0.5,time_limit=none") == ("mcts", {"iterations": 200, "c": 0.5,
                                                                                "time_limit": None})
    assert parse_agent("greedy") == ("greedy", {})
    with pytest.raises(ValueError):
        parse_agent("")


def test_arena_on_a_registered_toy_game(tmp_path, toy_game):
    """Nothing Fae-specific: random, generic MCTS and records on a game with chance and hidden cards."""
    cfg = ArenaConfig(game="toyrace", agents=["mcts:iterations=30", "random", "random"], games=9, seed=4,
                      workers=1, options={"bonus": 1})
    res = run_arena(cfg, out=str(tmp_path), quiet=True)
    assert res["summary"]["games"] == 9 and res["summary"]["deals"] == 3
    recs = list(read_records(res["paths"]["records"]))
    assert all(r["env_id"] == "toyrace_v3" and r["env_version"] == 3 and r["options"] == {"bonus": 1} for r in recs)
    for r in recs:
        states = replay(r)
        assert len(states) == ToyState.TURNS + 1
    # one deal, three rotations: the same hidden cards, seats permuted
    cards = [replay(r)[0].cards for r in recs[:3]]
    assert cards[0] == cards[1] == cards[2]


def test_parallel_arena_accounts_for_every_game(tmp_path, monkeypatch):
    """The bulk path (pool, chunks of BULK_CHUNK games, here from 10 games on instead of 2,000) loses
    no game and plays the same games as one process; the 1,000-game timing is the benchmark's."""
    import tabletop_rl.agents.arena as arena

    monkeypatch.setattr(arena, "BULK_GAMES", 10)
    assert arena._chunksize(40) == arena.BULK_CHUNK > 1
    cfg = ArenaConfig(game="fae", agents=["random", "random"], games=40, seed=0, workers=2)
    res = run_arena(cfg, out=str(tmp_path), quiet=True, plot=False)
    serial = run_arena(ArenaConfig(game="fae", agents=["random", "random"], games=40, seed=0, workers=1),
                       out=str(tmp_path / "serial"), quiet=True, plot=False)
    assert [r["winners"] for r in read_records(res["paths"]["records"])] == \
        [r["winners"] for r in read_records(serial["paths"]["records"])]
    assert res["summary"]["games"] == 40
    assert sum(b["wins"] for b in res["summary"]["bots"]) == pytest.approx(40)  # every game has a winner
    shares = sum(s["win_share"] for s in res["summary"]["seats"])
    assert shares == pytest.approx(1.0)
    assert os.path.exists(res["paths"]["records"])
