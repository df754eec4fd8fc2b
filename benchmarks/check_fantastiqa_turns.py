"""Q-T2, every turn ends (issue 25): the long checks behind tests/test_fantastiqa_turns.py.

    .venv/bin/python benchmarks/check_fantastiqa_turns.py        # 2,800 + 560 greedy games, 112 positions
    .venv/bin/python benchmarks/check_fantastiqa_turns.py --games 1 --positions 1 --max-states 200  # smoke

1. Fuzz: `--games` random games per option set of `fantastiqa_rl.turn_search.OPTION_SETS` (2-4
   players, every rule option value off its default, the Abbey, teams; turn limit 8), backing out
   (CANCEL) with probability 0.7 wherever the rules allow: a decision without a legal action, or a
   turn longer than `turn_step_bound`, stops the run with an error. Prints the longest turn.
   Then `--greedy` games per option set played by the greedy bot with a random move at rate 0.2
   and a CANCEL at rate 0.1 (turn limit 30): the bot plays its cards, KEYs included, far more
   than random play (a dead KEY decision was found this way, by the shipped policy's evaluation).
2. Cycle search: `--positions` in-turn positions per option set, sampled from random games (MAIN
   or ADV_MOVE decisions, unedited), each searched breadth-first up to `--max-states` positions
   (`search_turn`): cycles found (must be 0), searches completed, the longest complete turn.
3. The control: the same positions under turn_loops="allow" (the unbounded reading): the search
   must find cycles there, or it proves nothing.

Issue 25, `--games 200 --greedy 40 --positions 8 --max-states 2000` (about 4 minutes, nice 19 on a
shared 2-core machine):
    fuzz: 2800 games, 649,636 steps, every decision had a legal action; the longest turn 45 steps
          (its bound 3948; 3 players, draw_rule=draw_5, seed 84)
    greedy fuzz: 560 games, 495,252 steps, every decision had a legal action, no turn over its bound
    search, turn_loops='forbid': 112 positions, 0 with an in-turn cycle, 10 searched completely,
          213,668 positions explored, 0 without a legal action
    search, turn_loops='allow': 112 positions, 95 with an in-turn cycle, 11 searched completely
    longest complete turn under Q-T2: 28 steps (its bound 3891)
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent  # noqa: E402
from fantastiqa_rl.turn_search import (OPTION_SETS, fuzz_game, sample_states, search_turn,  # noqa: E402
                                       turn_step_bound, with_options)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200, help="fuzz games per option set")
    ap.add_argument("--greedy", type=int, default=40, help="greedy fuzz games per option set")
    ap.add_argument("--positions", type=int, default=8, help="sampled positions per option set")
    ap.add_argument("--max-states", type=int, default=3000, help="positions one search may explore")
    args = ap.parse_args(argv)

    t0 = time.time()
    games = steps = 0
    longest = (0, 0, None)
    for n, options in OPTION_SETS:
        for seed in range(args.games):
            out = fuzz_game(n, seed, options)       # raises at a dead decision or a turn over its bound
            games += 1
            steps += out["steps"]
            if out["longest_turn"] > longest[0]:
                longest = (out["longest_turn"], out["its_bound"], (n, seed, options))
    print(f"fuzz: {games} games, {steps:,} steps, every decision had a legal action; the longest turn "
          f"{longest[0]} steps (its bound {longest[1]}; {longest[2]}) [{time.time() - t0:.0f} s]")

    t0 = time.time()
    games = steps = 0
    for n, options in OPTION_SETS:
        bots = [FantastiqaGreedyAgent(seed=p) for p in range(n)]

        def greedy(s, rng):                         # greedy, with a random move at rate 0.2
            if rng.random() < 0.2:
                return int(s.legal_actions()[rng.integers(s.legal_actions().size)])
            return bots[s.cur].act(None, None, state=s, seat=s.cur)

        for seed in range(args.greedy):
            out = fuzz_game(n, seed, options, cancel_rate=0.1, turn_limit=30, choose=greedy)
            games += 1
            steps += out["steps"]
    print(f"greedy fuzz: {games} games, {steps:,} steps, every decision had a legal action, no turn over its "
          f"bound [{time.time() - t0:.0f} s]")

    t0 = time.time()
    found = Counter()
    worst = (0, 0)
    for n, options in OPTION_SETS:
        for seed in range(max(1, args.positions // 4)):
            for s in sample_states(n, 100 + seed, 4, rate=0.02, turn_loops="allow", **options):
                for loops in ("forbid", "allow"):
                    r = search_turn(with_options(s, turn_loops=loops), max_states=args.max_states)
                    found[loops, "positions"] += 1
                    found[loops, "cycles"] += r.cycle is not None
                    found[loops, "complete"] += r.complete
                    found[loops, "states"] += r.states
                    found[loops, "dead"] += r.dead
                    if loops == "forbid" and r.complete and r.longest > worst[0]:
                        worst = (r.longest, turn_step_bound(s))
    for loops in ("forbid", "allow"):
        k = found[loops, "positions"]
        print(f"search, turn_loops={loops!r}: {k} positions, {found[loops, 'cycles']} with an in-turn cycle, "
              f"{found[loops, 'complete']} searched completely, {found[loops, 'states']:,} positions explored, "
              f"{found[loops, 'dead']} without a legal action")
    print(f"longest complete turn under Q-T2: {worst[0]} steps (its bound {worst[1]}) [{time.time() - t0:.0f} s]")
    ok = found["forbid", "cycles"] == 0 and found["allow", "cycles"] > 0 and found["forbid", "dead"] == 0
    print("OK" if ok else "FAILED: a cycle or a dead decision under Q-T2, or the control found no cycle")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
