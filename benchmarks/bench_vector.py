"""Batched Fae (`fae_rl.vector.FaeVector`) steps per second against PettingZoo's connect_four_v3.

    python benchmarks/bench_vector.py [--num-envs 1024] [--iters 300] [--games 200] [--repeats 3]

Engine time only, one process: for FaeVector the clock runs inside `legal_mask`, `observe` and
`step` (drawing the uniformly random legal actions and auto-resetting finished games with
`reset_done` are off it; `reset_done` is timed on its own row); for connect_four_v3 only inside
`last()` and `step()` (bench_steps.time_env with engine_only=True). Every finished game is dealt
again at once, so all N games stay live. A step is one move of one game. Runs are interleaved and
the median of `--repeats` is reported. The numba compile time (a cold cache, in a fresh process)
and the warm load time are measured first.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_steps import time_env  # noqa: E402

_FIRST_CALLS = """
import time, numpy as np
t = time.perf_counter()
from fae_rl.vector import FaeVector
v = FaeVector(4, 3)
v.reset(np.arange(4))
v.step(v.greedy_actions(np.random.default_rng(0)))
v.observe(); v.legal_mask()
print(time.perf_counter() - t)
"""


def compile_seconds(cold: bool, script: str = _FIRST_CALLS) -> float:
    """Seconds to run `script` (by default: import fae_rl.vector and run every kernel once) in a fresh
    process (cold: with an empty numba cache); the script prints the seconds last."""
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if cold:
            env["NUMBA_CACHE_DIR"] = cache
        out = subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def random_legal(mask: np.ndarray, rng: np.random.Generator, out: np.ndarray) -> np.ndarray:
    """A uniformly random legal action per row (rows without one get action 0, ignored by step)."""
    counts = mask.sum(axis=1)
    k = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1, out=out)
    return out


def time_vector(num_envs: int, iters: int, observe: bool, history: str = "summary", seed: int = 0) -> dict:
    """Engine steps/s (and reset_done deals/s) of random play over num_envs auto-reset games."""
    from fae_rl.vector import FaeVector

    rng = np.random.default_rng(seed)
    v = FaeVector(num_envs=num_envs, num_players=2)
    next_seed = num_envs
    v.reset(np.arange(num_envs))
    mask = np.empty((num_envs, 330), dtype=bool)
    obs = np.empty((num_envs, __import__("fae_rl").observation_size(history)), dtype=np.float32)
    actions = np.empty(num_envs, dtype=np.int64)
    seeds = np.empty(num_envs, dtype=np.int64)
    clock = time.perf_counter
    engine = resets = 0.0
    steps = dealt = 0
    # The first calls load the compiled kernels: off the clock (observe only where it is timed; a
    # fresh process that never observes is benchmarks/ab_fae_vector_observe.py's, issue 38).
    v.legal_mask(out=mask)
    if observe:
        v.observe(history=history, out=obs)
    v.step(random_legal(mask, rng, actions))
    for _ in range(iters):
        t0 = clock()
        v.legal_mask(out=mask)
        if observe:
            v.observe(history=history, out=obs)
        t1 = clock()
        random_legal(mask, rng, actions)
        t2 = clock()
        v.step(actions)
        t3 = clock()
        engine += (t1 - t0) + (t3 - t2)
        steps += num_envs  # every game is live: finished ones are dealt again below
        seeds[:] = np.arange(next_seed, next_seed + num_envs)
        t4 = clock()
        dealt += v.reset_done(seeds).size
        resets += clock() - t4
        next_seed += num_envs
    return {"steps/s": steps / engine, "deals/s": dealt / resets if resets else float("nan")}


def time_greedy(num_envs: int, iters: int, seed: int = 0) -> float:
    """Positions/s of greedy_actions (every legal move's margin, best resolution orders searched)."""
    from fae_rl.vector import FaeVector

    rng = np.random.default_rng(seed)
    v = FaeVector(num_envs=num_envs, num_players=2)
    v.reset(np.arange(num_envs))
    v.greedy_actions(rng)  # loads the compiled kernel: off the clock
    engine, positions, next_seed = 0.0, 0, num_envs
    for _ in range(iters):
        t0 = time.perf_counter()
        actions = v.greedy_actions(rng)
        engine += time.perf_counter() - t0
        positions += num_envs
        v.step(actions)
        v.reset_done(np.arange(next_seed, next_seed + num_envs))
        next_seed += num_envs
    return positions / engine


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, default=1024, help="games stepped at once")
    parser.add_argument("--iters", type=int, default=300, help="batched steps per repeat")
    parser.add_argument("--games", type=int, default=200, help="connect_four_v3 games per repeat")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats (median reported)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    from pettingzoo.classic import connect_four_v3

    cold, warm = compile_seconds(cold=True), compile_seconds(cold=False)
    n, it = args.num_envs, args.iters
    runs = {
        "connect_four_v3 raw_env (last+step)": lambda: time_env(connect_four_v3.raw_env, args.games, engine_only=True),
        "connect_four_v3 env() (last+step)": lambda: time_env(connect_four_v3.env, args.games, engine_only=True),
        f"FaeVector N={n} mask+step": lambda: time_vector(n, it, observe=False),
        f"FaeVector N={n} observe+mask+step": lambda: time_vector(n, it, observe=True),
        f"FaeVector N={n} observe(none)+mask+step": lambda: time_vector(n, it, observe=True, history="none"),
        f"FaeVector N={n} greedy_actions": lambda: time_greedy(n, max(1, it // 10)),
    }
    results: dict[str, list] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, fn in runs.items():
            results[name].append(fn())

    def median(name, key="steps/s"):
        vals = results[name]
        return statistics.median(v[key] if isinstance(v, dict) else v for v in vals)

    raw, wrapped = median("connect_four_v3 raw_env (last+step)"), median("connect_four_v3 env() (last+step)")
    targets = {  # row: (reference, reference value, issue target)
        f"FaeVector N={n} mask+step": ("connect_four_v3 raw_env", raw, 100.0),
        f"FaeVector N={n} observe+mask+step": ("connect_four_v3 env()", wrapped, 50.0),
        f"FaeVector N={n} observe(none)+mask+step": ("connect_four_v3 env()", wrapped, None),
    }
    print(f"engine steps/s, 1 process, median of {args.repeats} interleaved runs; {n} games x {it} batched steps; "
          f"connect_four {args.games} games")
    print(f"numba compile (cold cache, every kernel): {cold:.1f} s; warm start (cache load): {warm:.1f} s")
    print(f"{'contender':42s} {'per s':>12s} {'ratio':>8s}  {'vs':24s} {'target':>7s}")
    for name in runs:
        value = median(name)
        ref, ref_value, target = targets.get(name, ("", None, None))
        ratio = value / ref_value if ref_value else None
        ok = "" if target is None else ("ok" if ratio >= target else "MISS")
        unit = " positions" if "greedy" in name else ""
        print(f"{name:42s} {value:12.0f} {'' if ratio is None else f'{ratio:8.1f}':>8s}  {ref:24s} "
              f"{'' if target is None else f'>={target:g}':>7s} {ok}{unit}")
    print(f"{'FaeVector reset_done (deals/s, off the clock above)':42s} "
          f"{median(f'FaeVector N={n} mask+step', 'deals/s'):12.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
