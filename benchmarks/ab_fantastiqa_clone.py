"""`FantastiqaState.clone` of two versions timed on the same states: old and new code alternated.

    python benchmarks/ab_fantastiqa_clone.py OLD_TREE NEW_TREE [--rounds 10] [--clones 20000]

Each TREE is a checkout of this repository (e.g. `git worktree add --detach ../old HEAD~1`), run by
its own worker process (its `.venv/bin/python` if it has one, else this Python with the tree first
on sys.path). A worker builds the same states (2, 3 and 4 seats, teams, the Abbey; positions reached
by seeded random play, some mid-adventure or at a statue, as MCTS clones them), warms up off the
clock, then every round each worker in turn (the order swapped every round) clones them `--clones`
times in all; the median clones/s of each tree is printed with the ratio and the load average. Both workers run
with PYTHONHASHSEED=0. Which tree is started first can shift the ratio by a few per cent (measured
with one tree given twice): run both orders.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

GAMES = [(2, {}), (3, {}), (4, {}), (4, {"teams": True}), (2, {"abbey": True}), (3, {"abbey": True})]


def worker(tree: str) -> None:
    """Answer each line read (a clone count) with the seconds those clones took, as JSON."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from trees import mount_tree

    mount_tree(tree)
    import numpy as np
    from fantastiqa_rl import FantastiqaState

    states = []
    for k, (n, opts) in enumerate(GAMES):
        for depth in (40, 150, 400, 900):
            rng = np.random.default_rng(1000 * k + depth)
            s = FantastiqaState.new(n, seed=k, **opts)
            for _ in range(depth):
                if s.is_terminal():
                    break
                la = s.legal_actions()
                s.apply(int(la[rng.integers(len(la))]))
            states.append(s)

    def run(count: int) -> float:
        reps = max(1, count // len(states))
        t = time.perf_counter()
        for _ in range(reps):
            for s in states:
                s.clone()
        return (time.perf_counter() - t) / (reps * len(states))

    run(20_000)
    for line in sys.stdin:
        print(json.dumps(run(int(line))), flush=True)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--clones", type=int, default=20_000, help="clones per measurement (default 20,000)")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    from trees import alternate  # benchmarks/ is this script's folder, first on sys.path
    if args.worker:
        return worker(args.worker)
    answers = alternate(__file__, {"old": args.old, "new": args.new}, (), [args.clones], args.rounds)
    per_clone = {name: answers[name, args.clones] for name in ("old", "new")}
    rate = {name: 1.0 / statistics.median(t) for name, t in per_clone.items()}
    print(f"FantastiqaState.clone, {len(GAMES) * 4} states, {args.rounds} rounds of {args.clones:,} clones each, "
          f"load average {os.getloadavg()[0]:.2f}")
    for name in ("old", "new"):
        print(f"  {name}: {rate[name]:,.0f} clones/s (median; {1e6 / rate[name]:.2f} us a clone)")
    print(f"  new / old: {rate['new'] / rate['old']:.3f}x")


if __name__ == "__main__":
    main()
