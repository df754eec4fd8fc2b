"""Arena throughput and MCTS move time: the two timing targets of the arena issue.

    python benchmarks/bench_arena.py [--games 1000] [--workers 2] [--mcts-games 4] [--iterations N]

1. Wall time of an arena run of `--games` Fae games between random bots (2 players, records and
   plot included), as `python -m tabletop_rl.agents.arena` does it. Target: 1,000 games in under a minute
   on 2 cores.
2. Median / p90 seconds per MCTS move (Fae defaults unless `--iterations`) over `--mcts-games`
   games against the greedy bot, in this process. Target: median at most 0.2 s. The arena
   reports the same figure for every bot (`median move` column), measured while the games run
   in parallel, which is the figure to quote.
Timings depend on the machine and its load; nothing here is a pass/fail test.
"""
from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--mcts-games", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=None)
    args = parser.parse_args(argv)

    from tabletop_rl.agents.arena import ArenaConfig, run_arena

    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        res = run_arena(ArenaConfig(game="fae", agents=["random", "random"], games=args.games, workers=args.workers),
                        out=out, quiet=True)
        wall = time.perf_counter() - t0
    print(f"arena: {res['summary']['games']} random-vs-random Fae games, {args.workers} workers: {wall:.1f} s "
          f"(target < 60 s)")

    import tabletop_rl.agents.mcts  # noqa: F401
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.match import play_game
    from tabletop_rl.envs.registry import get_game

    spec = get_game("fae")
    kw = {} if args.iterations is None else {"iterations": args.iterations}
    times = []
    for g in range(args.mcts_games):
        bots = [make_agent("fae", "mcts", seed=g, **kw), make_agent("fae", "greedy", seed=g)]
        seated = bots if g % 2 == 0 else bots[::-1]
        res = play_game(spec, seated, seed=g, timing=True)
        times += res.move_times[0 if g % 2 == 0 else 1]
    print(f"mcts ({bots[0].iterations} iterations): {len(times)} moves, median {np.median(times):.3f} s, "
          f"p90 {np.percentile(times, 90):.3f} s (target median <= 0.2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
