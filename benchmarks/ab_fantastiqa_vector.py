"""Two versions of the Fantastiqa engines timed by turns: old and new code alternated, on the same positions.

    python benchmarks/ab_fantastiqa_vector.py OLD_TREE NEW_TREE [--rounds 12]

On a shared machine the speed drifts by up to 1.5x within minutes, so two versions timed one after
the other can differ by more than the code does (a change here once looked 1.4x faster run after
run, and was 1.1x alternated). Each TREE is a checkout of this repository (e.g. a `git worktree` of
the old commit); each gets its own worker process (its `.venv/bin/python` if it has one, else this
Python with the tree first on sys.path), which loads the positions of `bench_fantastiqa_vector`
(1,024 along random games, 1,024 along greedy games) and compiles off the clock. Then every round
asks each worker in turn (the order swapped every round) for one measurement of each row of
`bench_fantastiqa_vector`: the scalar core, `fantastiqa_rl.env()`, the scalar greedy bot, and
FantastiqaVector at N = 1024 (mask+step, observe+mask+step, greedy_actions with and without the mask
held), and the medians over the rounds are printed with the ratios, per tree.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import warnings
from pathlib import Path

# the env row's games a measurement: one game (~2,000 decisions, ~0.1 s) swung by up to a third between
# rounds on a quiet machine, enough to read 0.84x into two trees whose profiles differ by 4%
ENV_GAMES = 4
ROWS = ("core", "env", "greedy", "mask+step", "observe+mask+step", "greedy_actions", "greedy_actions, mask held")


def worker(tree: str) -> None:
    """Answer one measurement per line read ("core", "env", ...), as a JSON number."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from trees import mount_tree

    mount_tree(tree)   # tabletop_rl.envs too (fantastiqa_rl.environment imports its AEC base)
    warnings.simplefilter("ignore")
    import bench_fantastiqa_vector as B
    import fantastiqa_rl
    from bench_steps import time_env

    positions, pool = B.random_positions(1024), B.greedy_positions(1024)
    B.time_vector(positions[:64], 2, observe=True)          # compile or load the kernels off the clock
    B.time_greedy_vector(pool[:64], True)
    runs = {"core": lambda: B.time_core(5000), "env": lambda: time_env(fantastiqa_rl.env, ENV_GAMES, engine_only=True),
            "greedy": lambda: B.time_greedy_scalar(pool[:300]),
            "mask+step": lambda: B.time_vector(positions, 20, observe=False),
            "observe+mask+step": lambda: B.time_vector(positions, 20, observe=True),
            "greedy_actions": lambda: B.time_greedy_vector(pool),
            "greedy_actions, mask held": lambda: B.time_greedy_vector(pool, True)}
    print("ready", flush=True)
    for line in sys.stdin:
        print(json.dumps(runs[line.strip()]()), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+", help="checkouts of this repository (old first)")
    parser.add_argument("--rounds", type=int, default=12, help="alternations (medians reported)")
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS), metavar="ROW",
                        help=f"the rows to time (default all: {', '.join(ROWS)})")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.trees[0])
        return 0
    procs = []
    for tree in args.trees:
        tree = str(Path(tree).resolve())
        py = Path(tree) / ".venv" / "bin" / "python"
        procs.append(subprocess.Popen([str(py) if py.exists() else sys.executable, str(Path(__file__).resolve()),
                                       "--worker", tree], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    for p in procs:
        if p.stdout.readline().strip() != "ready":
            raise SystemExit("a worker failed to start (see its error above)")
    got = [{row: [] for row in args.rows} for _ in procs]
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        for row in args.rows:
            for j in (range(len(procs)) if r % 2 == 0 else reversed(range(len(procs)))):
                procs[j].stdin.write(row + "\n")
                procs[j].stdin.flush()
                got[j][row].append(json.loads(procs[j].stdout.readline()))
    for p in procs:
        p.stdin.close()
        p.wait()
    print(f"medians of {args.rounds} alternated rounds, steps (decisions) per second; load average {load:.2f} at "
          f"the start, {os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} CPUs)")
    for tree, res in zip(args.trees, got):
        m = {row: statistics.median(v) for row, v in res.items()}
        ratio = {"mask+step": "core", "observe+mask+step": "env", "greedy_actions": "greedy",
                 "greedy_actions, mask held": "greedy"}   # each batched row against its scalar reference
        cells = [f"{row} {m[row]:,.0f}" + (f" ({m[row] / m[ratio[row]]:.2f}x)" if ratio.get(row) in m else "")
                 for row in args.rows]
        print(f"{tree}: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
