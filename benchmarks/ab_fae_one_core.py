"""Issue 38, Fae as one implementation: two versions of the scalar Fae code timed on the same work,
old and new alternated in one run.

    python benchmarks/ab_fae_one_core.py OLD_TREE NEW_TREE [--rounds 6]

e.g. `git worktree add ../fae-old-tree HEAD` made before the change, then
`python benchmarks/ab_fae_one_core.py ../fae-old-tree .`. Each TREE is a checkout of this
repository, run by its own worker process (its `.venv/bin/python` if it has one, else this Python
with the tree mounted first, `trees.mount_tree`). Three workloads, each warmed up off the clock:

- `step`: the scalar step, `FaeState.new` + `legal_actions()` + `apply()` of uniformly random legal
  moves to the end of `--games` games (bench_steps' "fae core" row): steps/s.
- `greedy`: the greedy bot (`make_agent("fae", "greedy")`) playing both seats of `--greedy-games`
  games from the state (`act(..., state=, seat=)` then `apply`): ms per move.
- `mcts`: the scalar Fae MCTS (`make_agent("fae", "mcts", iterations=--iterations)`) choosing a move
  in `--mcts-positions` fixed positions of random games (some with rituals pending): ms per move.

Every round asks each worker in turn (the order swapped every round) for each workload; the median of
the rounds is printed per tree with the ratio new / old (for `step` higher is better, for the others
lower) and the load average before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

WORKLOADS = ("step", "greedy", "mcts")


def worker(tree: str, games: int, greedy_games: int, mcts_positions: int, iterations: int) -> None:
    """Answer each line read (a workload name) with its figure, as JSON."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from trees import mount_tree

    mount_tree(tree)
    import numpy as np
    from fae_rl import FaeState
    from tabletop_rl.agents import make_agent

    def step() -> float:
        rng = np.random.default_rng(0)
        steps, start = 0, time.perf_counter()
        for g in range(games):
            s = FaeState.new(2, seed=g)
            while not s.is_terminal():
                legal = s.legal_actions()
                s.apply(legal[rng.integers(legal.size)])
                steps += 1
        return steps / (time.perf_counter() - start)

    def greedy() -> float:
        moves, clock = 0, 0.0
        for g in range(greedy_games):
            s = FaeState.new(2 + g % 3, seed=1000 + g)
            bots = [make_agent("fae", "greedy", seed=10 * g + p) for p in range(s.num_players)]
            t = time.perf_counter()
            while not s.is_terminal():
                seat = s.current_player
                s.apply(bots[seat].act(None, s.legal_mask(), state=s, seat=seat))
                moves += 1
            clock += time.perf_counter() - t
        return 1000.0 * clock / moves

    positions = []
    rng = np.random.default_rng(7)
    for g in range(mcts_positions):
        s = FaeState.new(2, seed=2000 + g)
        for _ in range(5 + 7 * g):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply(int(legal[rng.integers(legal.size)]))
        if not s.is_terminal():
            positions.append(s)

    def mcts() -> float:
        t = time.perf_counter()
        for k, s in enumerate(positions):
            bot = make_agent("fae", "mcts", seed=k, iterations=iterations)
            seat = s.current_player
            bot.act(None, s.legal_mask(), state=s, seat=seat)
        return 1000.0 * (time.perf_counter() - t) / len(positions)

    run = {"step": step, "greedy": greedy, "mcts": mcts}
    for fn in run.values():  # load or compile the kernels, warm the caches off the clock
        fn()
    for line in sys.stdin:
        print(json.dumps(run[line.strip()]()), flush=True)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--games", type=int, default=100, help="random games per `step` figure (default 100)")
    p.add_argument("--greedy-games", type=int, default=6, help="greedy-bot games per `greedy` figure (default 6)")
    p.add_argument("--mcts-positions", type=int, default=6, help="positions per `mcts` figure (default 6)")
    p.add_argument("--iterations", type=int, default=40, help="MCTS iterations per move (default 40)")
    p.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    from trees import alternate  # benchmarks/ is this script's folder, first on sys.path
    if args.worker:
        tree, *sizes = args.worker
        return worker(tree, *map(int, sizes))
    load_before = os.getloadavg()
    figures = alternate(__file__, {"old": args.old, "new": args.new},
                        (args.games, args.greedy_games, args.mcts_positions, args.iterations), WORKLOADS, args.rounds)
    med = {k: statistics.median(v) for k, v in figures.items()}
    print(f"{args.rounds} rounds, old and new alternated; load average {load_before[0]:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after ({os.cpu_count()} CPUs)")
    units = {"step": "steps/s (higher is better)", "greedy": "ms per greedy move", "mcts":
             f"ms per MCTS move, {args.iterations} iterations"}
    for w in WORKLOADS:
        old, new = med["old", w], med["new", w]
        print(f"  {w:7s} old {old:12,.2f}  new {new:12,.2f}  new/old {new / old:5.2f}x   {units[w]}")


if __name__ == "__main__":
    main()
