"""Random-legal steps per second: the suite's cores and envs against PettingZoo's connect_four_v3.

    python benchmarks/bench_steps.py [--games 200] [--repeats 3]

Every contender plays the same number of uniformly random legal games; the runs are interleaved
(contender A, B, C, ..., then again) and the median of `--repeats` runs is reported, with ratios
to connect_four_v3 measured in the same run. Only ratios are meaningful across machines.

Fantastiqa rows play `--games // 20` games (at least 2): its random games run to thousands of
steps (the env truncates at 300 turns per player; the core plays to the end).

An env step is what a PettingZoo user's loop does: `env.last()` (observation with mask) then
`env.step(action)`. A core step is `legal_actions()` + `apply()`, with `new()` per game included.
"""
from __future__ import annotations

import argparse
import statistics
import time
import warnings
from typing import Callable

import numpy as np


def time_core(new_state: Callable, games: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for g in range(games):
        state = new_state(seed=g)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply(legal[rng.integers(legal.size)])
            steps += 1
    return steps / (time.perf_counter() - start)


def time_env(make_env: Callable, games: int, seed: int = 0, engine_only: bool = False) -> float:
    """Steps/s of random legal games. engine_only: the clock runs only inside `last()` and `step()`
    (resets and drawing the random action are off it), as benchmarks/bench_vector.py times engines."""
    rng = np.random.default_rng(seed)
    env = make_env()
    steps = 0
    clock = time.perf_counter
    engine = 0.0
    start = clock()
    for g in range(games):
        env.reset(seed=g)
        for agent in env.agent_iter():
            t0 = clock()
            obs, _reward, term, trunc, _info = env.last()
            t1 = clock()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(legal.size)])
            t2 = clock()
            env.step(action)
            engine += (t1 - t0) + (clock() - t2)
            steps += 1
    return steps / (engine if engine_only else clock() - start)


def contenders(games: int) -> dict[str, Callable[[], float]]:
    from pettingzoo.classic import connect_four_v3

    import fae_rl

    out = {
        "connect_four_v3 raw_env": lambda: time_env(connect_four_v3.raw_env, games),
        "connect_four_v3 env()": lambda: time_env(connect_four_v3.env, games),
        "fae core (new+legal_actions+apply)": lambda: time_core(lambda seed: fae_rl.FaeState.new(2, seed=seed), games),
        "fae_rl.raw_env": lambda: time_env(fae_rl.raw_env, games),
        "fae_rl.env()": lambda: time_env(fae_rl.env, games),
    }
    try:
        import fantastiqa_rl
        from fantastiqa_rl.environment import env as fq_env
        from fantastiqa_rl.environment import raw_env as fq_raw_env
    except ImportError:  # the Fantastiqa package is optional here
        return out
    # Random Fantastiqa games are long (thousands of steps; the envs truncate at 300 turns per
    # player), so fewer games give as many steps as the others.
    fq_games = max(2, games // 20)
    out.update({
        "fantastiqa core (new+legal_actions+apply)": lambda: time_core(
            lambda seed: fantastiqa_rl.FantastiqaState.new(2, seed=seed), fq_games),
        "fantastiqa_rl.raw_env": lambda: time_env(fq_raw_env, fq_games),
        "fantastiqa_rl.env()": lambda: time_env(fq_env, fq_games),
    })
    return out


# Which reference each row is compared with, and the target ratio (issue targets).
TARGETS = {
    "fae core (new+legal_actions+apply)": ("connect_four_v3 raw_env", 4.0),
    "fae_rl.raw_env": ("connect_four_v3 raw_env", None),
    "fae_rl.env()": ("connect_four_v3 env()", 2.0),
    "fantastiqa core (new+legal_actions+apply)": ("connect_four_v3 raw_env", 1.0),
    "fantastiqa_rl.raw_env": ("connect_four_v3 raw_env", None),
    "fantastiqa_rl.env()": ("connect_four_v3 env()", 1.0),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per contender per repeat")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats (median reported)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    runs = contenders(args.games)
    results: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, fn in runs.items():
            results[name].append(fn())
    median = {name: statistics.median(v) for name, v in results.items()}
    print(f"random-legal steps/s, median of {args.repeats} interleaved runs, {args.games} games each")
    print(f"{'contender':40s} {'steps/s':>10s} {'ratio':>8s}  {'vs':26s} {'target':>6s}")
    for name, value in median.items():
        ref, target = TARGETS.get(name, (None, None))
        ratio = value / median[ref] if ref else None
        ok = "" if target is None else ("ok" if ratio >= target else "MISS")
        print(f"{name:40s} {value:10.0f} {'' if ratio is None else f'{ratio:8.2f}':>8s}  {ref or '':26s} "
              f"{'' if target is None else f'>={target:g}':>6s} {ok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
