"""Fantastiqa core benchmark and the 200-game completion measurement (issue 5).

    .venv/bin/python benchmarks/bench_fantastiqa_core.py            # full run (a few minutes)
    .venv/bin/python benchmarks/bench_fantastiqa_core.py --quick    # smaller, for a smoke check
    .venv/bin/python benchmarks/bench_fantastiqa_core.py --pacing 100   # the pacing table only

Pacing (`--pacing N`, the table in docs/rules/fantastiqa.md and docs/benchmarks.md): N games per row under
the core's defaults (the Q-E5 turn limit included), greedy for every seat and uniform random,
2-4 players, short / long goal, the Abbey, teams: how games end (goal, creature deck out, turn
limit), turns per player (median, p95), seat 0's (with teams: seat 0's team's) win share, a
shared win split between the winning sides, and seconds per game.

Speed: random-legal steps/s of the rules core (legal_actions + apply, a new game on terminal)
against PettingZoo connect_four_v3 raw_env (observe()['action_mask'] + step, reset on done), in
the same process, median of 3 interleaved runs each.
Completion: seeds 0..199, players 2, 3, 4 cycled (seed % 3): uniform-random play for every seat
(setup included) capped at 50,000 steps, and greedy vs greedy capped at 100 turns per player;
share ending by the rules (the Q-E5 turn limit included: it is on by default, so every game ends
by the rules now; see --pacing for how), mean and p95 steps and turns per player, and how games ended.

The Abbey and teams (issue 7), `--abbey` (or `--only-abbey` to skip the base-game tables):
- uniform random with abbey=True, seeds 0..199, 2-4 players cycled, cap 50,000 steps (target:
  >= 90% end by the rules), and with teams=True (4 players; abbey off and on);
- greedy vs greedy with abbey=True (2-4 players), with how the winners won: an Abbey goal line
  (a line asking for Abbey cards, met without reaching the plain quest goal), quest points alone
  (the line with 0 Abbey cards), or the creature deck running out;
- `--arena N`: greedy vs random, 2 players, abbey=True, N duplicate games (each deal played in
  both seat orders; the arena's `schedule`, seed 0) straight on the core with the semantics of
  `tabletop_rl.agents.match.play_game`: the greedy bot's win share with its Wilson 95% interval and the share
  of its wins by an Abbey line vs by quest points. (`python -m tabletop_rl.agents.arena --game fantastiqa
  --option abbey=true` measures the same through the env once the env registers the option.)
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent  # noqa: E402
from fantastiqa_rl import FantastiqaState  # noqa: E402


def core_steps_per_s(seconds: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    game = seed
    s = FantastiqaState.new(2 + game % 3, seed=game)
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(1000):
            if s.is_terminal():
                game += 1
                s = FantastiqaState.new(2 + game % 3, seed=game)
            la = s.legal_actions()
            s.apply(int(la[rng.integers(len(la))]))
        n += 1000
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt


def connect_four_steps_per_s(seconds: float, seed: int) -> float:
    from pettingzoo.classic import connect_four_v3
    env = connect_four_v3.raw_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(1000):
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.reset()
                agent = env.agent_selection
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        n += 1000
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n / dt


def speed_table(seconds: float) -> None:
    core, c4 = [], []
    for r in range(3):                      # interleaved so drift hits both alike
        core.append(core_steps_per_s(seconds, r))
        c4.append(connect_four_steps_per_s(seconds, r))
    mc, m4 = statistics.median(core), statistics.median(c4)
    print(f"{'what':<42}{'steps/s (median of 3)':>24}")
    print(f"{'fantastiqa core (random legal)':<42}{mc:>24,.0f}")
    print(f"{'pettingzoo connect_four_v3 raw_env':<42}{m4:>24,.0f}")
    print(f"{'ratio core / connect_four':<42}{mc / m4:>24.2f}")
    print(f"runs: core {[round(x) for x in core]}, connect_four {[round(x) for x in c4]}")


def play_random(seed: int, cap: int, **opts):
    n = 4 if opts.get("teams") else 2 + seed % 3
    s = FantastiqaState.new(n, seed=seed, **opts)
    rng = np.random.default_rng(seed)
    steps = 0
    while not s.is_terminal() and steps < cap:
        la = s.legal_actions()
        s.apply(int(la[rng.integers(len(la))]))
        steps += 1
    return s, steps


def play_greedy(seed: int, turn_cap: int, **opts):
    n = 4 if opts.get("teams") else 2 + seed % 3
    s = FantastiqaState.new(n, seed=seed, **opts)
    agents = [FantastiqaGreedyAgent(seed * 10 + i) for i in range(n)]
    mask = np.zeros(s.num_actions, dtype=bool)
    steps = 0
    while not s.is_terminal() and s.turns < turn_cap * n:
        la = s.legal_actions()
        mask[:] = False
        mask[la] = True
        s.apply(agents[s.cur].act(None, mask, state=s, seat=s.cur))
        steps += 1
    return s, steps


def how_won(s) -> str:
    """'abbey line', 'quest points', 'creature deck' or 'turn limit' (or 'cap' when unfinished)."""
    if not s.is_terminal():
        return "cap"
    if s.end_reason != "goal":
        return "creature deck" if s.end_reason == "creature deck empty" else "turn limit"
    lines = s.goal_lines_met(s.winners()[0])
    return "quest points" if any(s.goal_lines[j][1] == 0 for j in lines) else "abbey line"


def completion(name: str, games: int, play, cap, **opts) -> None:
    steps, turns, ends = [], [], Counter()
    seat0, won = Counter(), Counter()
    t0 = time.perf_counter()
    for seed in range(games):
        s, k = play(seed, cap, **opts)
        steps.append(k)
        turns.append(s.turns / s.n)
        ends[s.end_reason or "cap"] += 1
        won[how_won(s)] += 1
        if s.n == 2 and s.is_terminal():
            seat0["games"] += 1
            seat0["wins"] += 0 in s.winners()
    done = games - ends["cap"]
    print(f"\n{name}: {done}/{games} = {100 * done / games:.1f}% end by the rules "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"  steps: mean {np.mean(steps):,.0f}  p95 {np.percentile(steps, 95):,.0f}")
    print(f"  turns per player: mean {np.mean(turns):.1f}  p95 {np.percentile(turns, 95):.1f}")
    print(f"  endings: {dict(ends)}")
    if opts.get("abbey"):
        print(f"  how the game was won: {dict(won)}")
    if seat0["games"]:
        print(f"  2-player games: seat 0 won {seat0['wins']}/{seat0['games']}")


PACING_CONFIGS = (      # (label, num_players, options) for --pacing
    ("2p short", 2, {}), ("2p long", 2, {"goal": "long"}),
    ("3p short", 3, {}), ("3p long", 3, {"goal": "long"}),
    ("4p short", 4, {}), ("4p long", 4, {"goal": "long"}),
    ("2p short, abbey", 2, {"abbey": True}), ("4p short, teams", 4, {"teams": True}),
    ("4p short, teams+abbey", 4, {"teams": True, "abbey": True}),
)


def _pacing_game(policy: str, n: int, seed: int, opts: dict):
    """One game under the core's defaults (turn_limit included): greedy for every seat, or
    uniform random over the legal actions (setup included)."""
    s = FantastiqaState.new(n, seed=seed, **opts)
    rng = np.random.default_rng(seed)
    agents = [FantastiqaGreedyAgent(seed * 10 + i) for i in range(n)] if policy == "greedy" else None
    mask = np.zeros(s.num_actions, dtype=bool)
    while not s.is_terminal():
        la = s.legal_actions()
        if agents is None:
            s.apply(int(la[rng.integers(len(la))]))
        else:
            mask[:] = False
            mask[la] = True
            s.apply(agents[s.cur].act(None, mask, state=s, seat=s.cur))
    return s


def pacing(games: int, policies=("greedy", "random"), seed0: int = 0, only=None) -> None:
    """The pacing table of docs/rules/fantastiqa.md and docs/benchmarks.md: how games end under the defaults."""
    print(f"\npacing under the defaults (turn_limit {FantastiqaState.new(2, seed=0).opts['turn_limit']} "
          f"turns per player), seeds {seed0}..{seed0 + games - 1}")
    print("| policy | game | games | goal | deck out | turn limit | turns/player median (p95) "
          "| seat 0 wins | s/game |")
    print("|---|---|---|---|---|---|---|---|---|")
    for policy in policies:
        for label, n, opts in PACING_CONFIGS:
            if only and label not in only:
                continue
            t0 = time.perf_counter()
            ends, turns, seat0 = Counter(), [], 0.0
            for seed in range(seed0, seed0 + games):
                s = _pacing_game(policy, n, seed, opts)
                ends[s.end_reason] += 1
                turns.append(s.turns / n)
                w = s.winners()
                if 0 in w:                          # a shared win counts 1 / number of winning sides
                    seat0 += 1 / len({s.team_of(p) for p in w})
            dt = (time.perf_counter() - t0) / games
            pct = {k: f"{100 * ends[k] / games:.0f}%" for k in ("goal", "creature deck empty", "turn_limit")}
            print(f"| {policy} | {label} | {games} | {pct['goal']} | {pct['creature deck empty']} "
                  f"| {pct['turn_limit']} | {np.median(turns):.0f} ({np.percentile(turns, 95):.0f}) "
                  f"| {seat0 / games:.2f} | {dt:.2f} |", flush=True)


class _CoreSpec:
    """The part of a GameSpec that tabletop_rl.agents.match.play_game uses, straight on the core."""
    name = "fantastiqa"

    @staticmethod
    def new_state(num_players, seed=None, **opts):
        return FantastiqaState.new(num_players, seed=seed, **opts)

    @staticmethod
    def action_mask(state, seat):
        m = np.zeros(state.num_actions, dtype=np.int8)
        m[state.legal_actions()] = 1
        return m

    @staticmethod
    def observe(state, seat):
        return None


def arena_abbey(games: int) -> None:
    from tabletop_rl.agents.arena import schedule, wilson_interval
    from tabletop_rl.agents.base import RandomAgent
    from tabletop_rl.agents.match import play_game
    t0 = time.perf_counter()
    wins, won, steps = 0.0, Counter(), []
    for task in schedule(2, games, seed=0, deals="duplicate"):
        bots = [FantastiqaGreedyAgent() if j == 0 else RandomAgent() for j in task["seats"]]
        res = play_game(_CoreSpec, bots, seed=task["seed"], agent_seeds=task["agent_seeds"],
                        rule_options={"abbey": True}, max_steps=200_000)
        s = res.final_state
        g_seat = task["seats"].index(0)
        steps.append(res.steps)
        if g_seat in res.winners:
            wins += 1 / len(res.winners)
            won[how_won(s)] += 1
        elif not res.winners:
            won["unfinished"] += 1
    n = len(steps)
    lo, hi = wilson_interval(wins, n)
    print(f"\narena (core loop, play_game semantics): greedy vs random, 2 players, abbey=True, "
          f"{n} duplicate games ({time.perf_counter() - t0:.0f} s)")
    print(f"  greedy win share {wins / n:.3f}, Wilson 95% [{lo:.3f}, {hi:.3f}]")
    tot = sum(v for k, v in won.items() if k != "unfinished") or 1
    print(f"  greedy wins by: " + ", ".join(f"{k} {v} ({100 * v / tot:.0f}%)" for k, v in sorted(won.items())))
    print(f"  steps per game: mean {np.mean(steps):,.0f}  p95 {np.percentile(steps, 95):,.0f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 s speed runs, 30 games")
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--abbey", action="store_true", help="also the Abbey / teams tables")
    ap.add_argument("--only-abbey", action="store_true", help="only the Abbey / teams tables")
    ap.add_argument("--arena", type=int, default=0, metavar="N",
                    help="greedy vs random with the Abbey, N duplicate games (400 for the target)")
    ap.add_argument("--pacing", type=int, default=0, metavar="N",
                    help="only the pacing table: N games per row (greedy and random)")
    ap.add_argument("--policy", choices=("greedy", "random", "both"), default="both",
                    help="with --pacing: which policy's rows")
    ap.add_argument("--seed0", type=int, default=0, help="with --pacing: first seed")
    ap.add_argument("--only", action="append", metavar="LABEL",
                    help="with --pacing: only this row's game (e.g. '2p short'; repeatable)")
    args = ap.parse_args()
    if args.pacing:
        pacing(args.pacing, ("greedy", "random") if args.policy == "both" else (args.policy,), args.seed0,
               args.only)
        return
    games = args.games or (30 if args.quick else 200)
    seconds = args.seconds or (1.0 if args.quick else 5.0)
    if not args.only_abbey:
        speed_table(seconds)
        completion("uniform random, cap 50,000 steps", games, play_random, 50_000)
        completion("greedy vs greedy, cap 100 turns per player", games, play_greedy, 100)
    if args.abbey or args.only_abbey:
        completion("abbey=True, uniform random, cap 50,000 steps", games, play_random, 50_000, abbey=True)
        completion("abbey=True, greedy vs greedy, cap 100 turns per player", games, play_greedy, 100,
                   abbey=True)
        completion("teams=True (4 players), uniform random, cap 50,000 steps", games, play_random,
                   50_000, teams=True)
        completion("teams=True, abbey=True, uniform random, cap 50,000 steps", games, play_random,
                   50_000, teams=True, abbey=True)
        completion("teams=True, abbey=True, greedy, cap 100 turns per player", games, play_greedy, 100,
                   teams=True, abbey=True)
    if args.arena:
        arena_abbey(args.arena)


if __name__ == "__main__":
    main()
