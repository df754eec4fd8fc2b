"""FaeVector mask+step in a fresh process that never observes, against the same loop after one observe().

    python benchmarks/ab_fae_vector_observe.py [--rounds 6] [--num-envs 1024] [--steps 300]

Issue 38: a fresh process stepped several times slower until its first `observe()`. The cause was
glibc's malloc, not a kernel: the loop's numpy temporaries (the random pick's (N, 330) int64 cumsum)
grew the heap and had it trimmed again every step until a large enough block (observe's result) was
freed; `fae_rl.vector._settle_malloc` now fixes glibc's thresholds when a FaeVector is built.

Each measurement is one fresh process: N games dealt, uniformly random legal moves (bench_vector's
`random_legal`), finished games dealt again after every step, 100 batched steps of warm-up, then
`--steps` timed ones. Conditions, alternated in every round (the order reversed every other round):
- never observes: the loop as a rollout, a search or a bot-only match runs it;
- observed once: one `observe()` right after `reset`, then the same loop;
- never observes, glibc's own thresholds: `_settle_malloc` switched off (the code before the fix).
Printed per condition, medians over the rounds: the whole loop's steps/s (mask, pick, step and the
re-deal), the engine's (mask+step only, as bench_vector's rows), and minor page faults per batched
step (~1,300 when the heap is trimmed every step, ~0 otherwise); then each ratio to "observed once",
and `uptime`'s load average at the start and at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

CONDITIONS = {
    "never observes": "never",
    "observed once": "observed",
    "never observes, glibc's own thresholds": "unsettled",
}


def worker(condition: str, num_envs: int, steps: int) -> dict:
    """One measurement of `condition` in this (fresh) process."""
    sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
    warnings.simplefilter("ignore")
    import numpy as np
    from bench_vector import random_legal

    import fae_rl.vector as V

    if condition == "unsettled":
        V._settle_malloc = lambda: False  # the code before the fix: glibc adjusts its thresholds itself
    rng = np.random.default_rng(0)
    v = V.FaeVector(num_envs=num_envs, num_players=2)
    v.reset(np.arange(num_envs))
    if condition == "observed":
        v.observe()
    mask = np.empty((num_envs, v.num_actions), dtype=bool)
    actions = np.empty(num_envs, dtype=np.int64)
    next_seed = num_envs
    clock = time.perf_counter

    def run(k: int) -> tuple[float, float]:
        nonlocal next_seed
        engine = 0.0
        start = clock()
        for _ in range(k):
            t0 = clock()
            v.legal_mask(out=mask)
            t1 = clock()
            random_legal(mask, rng, actions)
            t2 = clock()
            v.step(actions)
            engine += (t1 - t0) + (clock() - t2)
            v.reset_done(np.arange(next_seed, next_seed + num_envs))
            next_seed += num_envs
        return clock() - start, engine

    run(100)  # loads the kernels and lets the heap reach its steady state: off the clock
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    whole, engine = run(steps)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    return {"loop": num_envs * steps / whole, "engine": num_envs * steps / engine, "faults": faults / steps}


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=6, help="alternations (medians reported)")
    parser.add_argument("--num-envs", type=int, default=1024, help="games stepped at once")
    parser.add_argument("--steps", type=int, default=300, help="timed batched steps per measurement")
    parser.add_argument("--worker", choices=sorted(set(CONDITIONS.values())), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.num_envs, args.steps)))
        return 0
    load_start = load()
    got: dict[str, list[dict]] = {name: [] for name in CONDITIONS}
    names = list(CONDITIONS)
    for r in range(args.rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", CONDITIONS[name],
                                  "--num-envs", str(args.num_envs), "--steps", str(args.steps)],
                                 check=True, capture_output=True, text=True)
            got[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {name: {k: statistics.median(m[k] for m in runs) for k in ("loop", "engine", "faults")}
           for name, runs in got.items()}
    base = med["observed once"]
    print(f"FaeVector N={args.num_envs}, 2 players, random legal play with re-dealing; each measurement a fresh "
          f"process, {args.steps} batched steps after 100 of warm-up; medians of {args.rounds} alternated rounds")
    print(f"{'condition':40s} {'loop steps/s':>13s} {'ratio':>6s} {'mask+step/s':>12s} {'ratio':>6s} "
          f"{'faults/step':>11s}")
    for name, m in med.items():
        print(f"{name:40s} {m['loop']:13.0f} {m['loop'] / base['loop']:6.2f} {m['engine']:12.0f} "
              f"{m['engine'] / base['engine']:6.2f} {m['faults']:11.0f}")
    print(f"ratios: to 'observed once'; load average (1, 5, 15 min) {load_start} at the start, {load()} at the end "
          f"({os.cpu_count()} CPUs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
