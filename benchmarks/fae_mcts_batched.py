"""`mcts_batched` against the scalar Fae `mcts`: the same search? how much faster?

    python benchmarks/fae_mcts_batched.py                       # both checks, ~2 min on one quiet core
    python benchmarks/fae_mcts_batched.py --positions 24 --searches 100
    python -m tabletop_rl.agents.arena --game fae --agents mcts_batched mcts --games 400 --workers 1 --seed 11

1. **Same search** (`--positions`, `--searches`): on positions from random games, each bot searches
   every position `--searches` times with different seeds, and the distributions of the moves they
   choose are compared by total variation distance, next to the same distance between two sets of
   the scalar bot's own searches (the control: what sampling alone gives). Equal algorithms give
   equal mean distances, within the noise.
2. **Speed**: milliseconds per searched move of the scalar `mcts` (act), of `mcts_batched` on one
   game (act), and of `mcts_batched.act_batch` over `--batch` games at once on numba's threads; the
   load average is printed with them (timings swing with the machine's load).

The arena line above is the strength check (seat-rotated games on duplicate deals); its results
are in docs/baselines.md.
"""
from __future__ import annotations

import argparse
import collections
import os
import time

import numpy as np

from fae_rl import FaeState, action_mask
from fae_rl.vector import FaeVector
from tabletop_rl.agents import make_agent


def positions(count: int, seed: int, num_players: int = 2) -> list[FaeState]:
    """`count` positions with at least two legal actions, from random games."""
    rng, out = np.random.default_rng(seed), []
    while len(out) < count:
        state = FaeState.new(num_players, seed=int(rng.integers(2**31)))
        for _ in range(int(rng.integers(0, 36))):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(int(legal[rng.integers(legal.size)]))
        if not state.is_terminal() and state.legal_actions().size > 1:
            out.append(state)
    return out


def chosen(name: str, state: FaeState, seeds) -> collections.Counter:
    seat = state.current_player
    mask = action_mask(state, seat)
    return collections.Counter(make_agent("fae", name, seed=int(s)).act(None, mask, state=state, seat=seat) for s in seeds)


def total_variation(a: collections.Counter, b: collections.Counter, n: int) -> float:
    return 0.5 * sum(abs(a[k] - b[k]) for k in set(a) | set(b)) / n


def same_search(states, searches: int) -> None:
    tv, control = [], []
    for state in states:
        scalar = chosen("mcts", state, range(searches))
        tv.append(total_variation(scalar, chosen("mcts_batched", state, range(searches)), searches))
        control.append(total_variation(scalar, chosen("mcts", state, range(10**6, 10**6 + searches)), searches))
    se = np.std(np.subtract(tv, control), ddof=1) / np.sqrt(len(tv))
    print(f"same search: {len(states)} positions x {searches} searches each; mean total variation of the chosen move "
          f"mcts vs mcts_batched {np.mean(tv):.3f}, mcts vs mcts (other seeds, the control) {np.mean(control):.3f}; "
          f"difference {np.mean(tv) - np.mean(control):+.3f} +- {1.96 * se:.3f} (95%)")


def speed(states, batch: int) -> None:
    def per_move(name):
        bot = make_agent("fae", name, seed=0)
        start = time.perf_counter()
        for s in states:
            bot.act(None, action_mask(s, s.current_player), state=s, seat=s.current_player)
        return (time.perf_counter() - start) / len(states) * 1e3

    per_move("mcts_batched")  # compile (or load numba's cache) outside the timing
    scalar, one = per_move("mcts"), per_move("mcts_batched")
    vec = FaeVector(batch, 2)
    for i in range(batch):
        vec.set_state(i, states[i % len(states)])
    bot, games = make_agent("fae", "mcts_batched", seed=0), np.ones(batch, dtype=np.bool_)
    bot.act_batch(vec, games, np.random.default_rng(0))
    start = time.perf_counter()
    bot.act_batch(vec, games, np.random.default_rng(1))
    batched = (time.perf_counter() - start) / batch * 1e3
    import numba

    print(f"speed (ms per searched move, 300 iterations; load average {os.getloadavg()[0]:.2f}): mcts {scalar:.2f}, "
          f"mcts_batched one game {one:.2f} ({scalar / one:.1f}x), act_batch of {batch} games on "
          f"{numba.get_num_threads()} numba threads {batched:.3f} ({scalar / batched:.1f}x)")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=16, help="positions of the same-search check")
    p.add_argument("--searches", type=int, default=60, help="searches per position and bot")
    p.add_argument("--batch", type=int, default=256, help="games of the act_batch timing")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    states = positions(max(args.positions, 1), args.seed)
    speed(states, args.batch)
    if args.positions:
        same_search(states, args.searches)


if __name__ == "__main__":
    main()
