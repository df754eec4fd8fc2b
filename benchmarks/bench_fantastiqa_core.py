"""Fantastiqa core benchmark and the 200-game completion measurement (issue 5).

    .venv/bin/python benchmarks/bench_fantastiqa_core.py            # full run (a few minutes)
    .venv/bin/python benchmarks/bench_fantastiqa_core.py --quick    # smaller, for a smoke check

Speed: random-legal steps/s of the rules core (legal_actions + apply, a new game on terminal)
against PettingZoo connect_four_v3 raw_env (observe()['action_mask'] + step, reset on done), in
the same process, median of 3 interleaved runs each.
Completion: seeds 0..199, players 2, 3, 4 cycled (seed % 3): uniform-random play for every seat
(setup included) capped at 50,000 steps, and greedy vs greedy capped at 100 turns per player;
share ending by the rules, mean and p95 steps and turns per player, and how games ended.
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

from agents.fantastiqa_greedy import FantastiqaGreedyAgent  # noqa: E402
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


def play_random(seed: int, cap: int):
    n = 2 + seed % 3
    s = FantastiqaState.new(n, seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not s.is_terminal() and steps < cap:
        la = s.legal_actions()
        s.apply(int(la[rng.integers(len(la))]))
        steps += 1
    return s, steps


def play_greedy(seed: int, turn_cap: int):
    n = 2 + seed % 3
    s = FantastiqaState.new(n, seed=seed)
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


def completion(name: str, games: int, play, cap) -> None:
    steps, turns, ends = [], [], Counter()
    seat0 = Counter()
    t0 = time.perf_counter()
    for seed in range(games):
        s, k = play(seed, cap)
        steps.append(k)
        turns.append(s.turns / s.n)
        ends[s.end_reason or "cap"] += 1
        if s.n == 2 and s.is_terminal():
            seat0["games"] += 1
            seat0["wins"] += 0 in s.winners()
    done = games - ends["cap"]
    print(f"\n{name}: {done}/{games} = {100 * done / games:.1f}% end by the rules "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"  steps: mean {np.mean(steps):,.0f}  p95 {np.percentile(steps, 95):,.0f}")
    print(f"  turns per player: mean {np.mean(turns):.1f}  p95 {np.percentile(turns, 95):.1f}")
    print(f"  endings: {dict(ends)}")
    if seat0["games"]:
        print(f"  2-player games: seat 0 won {seat0['wins']}/{seat0['games']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 s speed runs, 30 games")
    ap.add_argument("--games", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None)
    args = ap.parse_args()
    games = args.games or (30 if args.quick else 200)
    seconds = args.seconds or (1.0 if args.quick else 5.0)
    speed_table(seconds)
    completion("uniform random, cap 50,000 steps", games, play_random, 50_000)
    completion("greedy vs greedy, cap 100 turns per player", games, play_greedy, 100)


if __name__ == "__main__":
    main()
