"""Fantastiqa MCTS against the greedy bot: win share and seconds per decision.

    python benchmarks/bench_fantastiqa_mcts.py [--games 200] [--workers 2] [--seed 0] [--mcts key=value,...]

Plays `--games` 2-player games (rounded up to an even number) on the env defaults (STAND-IN
cards, short goal, Q-E5 turn limit, fly_in_adventure default): deal i (seed `--seed` + i) is played
twice, MCTS in seat 0 then in seat 1 (seat-rotated duplicate deals). `--mcts` passes keyword
arguments to `make_agent("fantastiqa", "mcts", ...)` in the arena's `key=value,...` form.

Prints the MCTS win share (a shared win counts 1/k) with its Wilson 95% interval, and the
seconds per MCTS decision, median and p90, over every act() call (as the arena times moves) and
over the searched decisions only. Target (issue 15): median <= 0.5 s per decision and a Wilson
lower bound > 0.50 over 200 games (goal 0.65).
Timings depend on the machine and its load (run it under `nice -n 19` on a shared machine);
nothing here is a pass/fail test. Ctrl-C stops the run and reports the games finished so far.
"""
from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time

import numpy as np

_W: dict = {}


class _Timed:
    """Forwards act() to a bot and records (seconds, searched) per call."""

    uses_state = True
    needs_observation = False

    def __init__(self, bot):
        self.bot = bot
        self.calls: list[tuple[float, bool]] = []

    def reset(self, seed=None):
        self.bot.reset(seed)

    def act(self, observation, action_mask, *, state=None, seat=None):
        t0 = time.perf_counter()
        a = self.bot.act(observation, action_mask, state=state, seat=seat)
        self.calls.append((time.perf_counter() - t0, self.bot.last_iterations > 0))
        return a


def _init(mcts_kwargs: dict) -> None:
    import tabletop_rl.agents  # noqa: F401  (registers the bots)
    from tabletop_rl.agents.base import limit_blas_threads

    limit_blas_threads()
    _W["kwargs"] = mcts_kwargs


def _play(task: tuple[int, int]) -> dict:
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.match import play_game
    from tabletop_rl.envs.registry import get_game

    seed, mcts_seat = task
    mcts = _Timed(make_agent("fantastiqa", "mcts", seed=seed, **_W["kwargs"]))
    greedy = make_agent("fantastiqa", "greedy", seed=seed)
    seated = [mcts, greedy] if mcts_seat == 0 else [greedy, mcts]
    t0 = time.perf_counter()
    res = play_game(get_game("fantastiqa"), seated, seed=seed, agent_seeds=[seed, seed])
    st = res.final_state
    win = 1.0 / len(res.winners) if mcts_seat in res.winners else 0.0
    return {"seed": seed, "seat": mcts_seat, "win": win, "calls": mcts.calls, "wall": time.perf_counter() - t0,
            "end": st.end_reason, "steps": res.steps, "turns": st.turns}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mcts", default="", help="MCTS keyword arguments, e.g. iterations=24,horizon=2")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    args = parser.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be >= 1")

    from tabletop_rl.agents.arena import parse_agent, wilson_interval

    _, kwargs = parse_agent("mcts:" + args.mcts)
    deals = (args.games + 1) // 2
    tasks = [(args.seed + i, seat) for i in range(deals) for seat in (0, 1)]
    t0 = time.perf_counter()
    rows = []
    if args.workers == 1:
        _init(kwargs)
        it = map(_play, tasks)
    else:
        method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        pool = mp.get_context(method).Pool(args.workers, initializer=_init, initargs=(kwargs,))
        it = pool.imap_unordered(_play, tasks)
    interrupted = False
    try:
        for row in it:
            rows.append(row)
            if not args.quiet:
                wins = sum(r["win"] for r in rows)
                print(f"game {len(rows)}/{len(tasks)}: seed {row['seed']} mcts seat {row['seat']} "
                      f"{'won' if row['win'] else 'lost'} ({row['end']}, {row['turns']} turns, {row['wall']:.1f} s); "
                      f"mcts {wins:g}/{len(rows)}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:  # Ctrl-C: report the games finished so far
        interrupted = True
    if args.workers > 1:
        if interrupted:
            pool.terminate()
        else:
            pool.close()
        pool.join()
    wall = time.perf_counter() - t0

    n = len(rows)
    if n == 0:
        print("no game finished")
        return 1
    if interrupted:
        print(f"INTERRUPTED: {n} of {len(tasks)} games finished (not seat-balanced if odd)")
    wins = sum(r["win"] for r in rows)
    lo, hi = wilson_interval(wins, n)
    all_t = np.array([t for r in rows for t, _ in r["calls"]])
    searched = np.array([t for r in rows for t, s in r["calls"] if s])
    by_seat = [sum(r["win"] for r in rows if r["seat"] == s) / max(1, sum(r["seat"] == s for r in rows))
               for s in (0, 1)]
    ends = {}
    for r in rows:
        ends[r["end"]] = ends.get(r["end"], 0) + 1
    print(f"mcts ({args.mcts or 'defaults'}) vs greedy, {n} seat-rotated games (seeds {args.seed}.."
          f"{args.seed + deals - 1}), {args.workers} workers, {wall:.0f} s")
    print(f"  win share {wins / n:.3f}  Wilson 95% [{lo:.3f}, {hi:.3f}]  (seat 0: {by_seat[0]:.3f}, "
          f"seat 1: {by_seat[1]:.3f})  ends: {ends}")
    print(f"  s per decision, every act() call ({all_t.size}): median {np.median(all_t):.4f}, "
          f"p90 {np.percentile(all_t, 90):.4f}")
    if searched.size:
        print(f"  s per decision, searched only ({searched.size}, {searched.size / n:.0f} per game): "
              f"median {np.median(searched):.4f}, p90 {np.percentile(searched, 90):.4f}, "
              f"max {searched.max():.4f}")
    print("  target: median <= 0.5 s per decision, Wilson lower bound > 0.50 over 200 games (goal 0.65)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
