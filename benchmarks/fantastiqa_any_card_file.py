"""A Fantastiqa policy on card files it never trained on (issue 37's "any card file" target).

    python benchmarks/fantastiqa_any_card_file.py POLICY.npz                       # generated:100-102, 400 games each
    python benchmarks/fantastiqa_any_card_file.py POLICY.npz --card-sets standin generated:100 --games 1000
    python benchmarks/fantastiqa_any_card_file.py POLICY.npz --card-sets standin --opponents greedy --seeds 999983 7 2024
    python benchmarks/fantastiqa_any_card_file.py POLICY.npz --card-sets standin --opponents greedy --opponent-epsilon 0.25

For each card set, the win share of the policy (argmax, as PPOAgent plays) against random and against
greedy over seat-rotated games on the batched engine (`tabletop_rl.training.evaluate_policy`, seed
999983, a game cut at 4,000 steps is not won), with 95% Wilson intervals; `--seeds` plays `--games`
on the deals of each seed given, and the share over all of them. Any Fantastiqa policy file plays
(the flat ones on the card file they were trained on: `--card-sets standin`). The held-out files are
`generated:100`, `generated:101` and `generated:102` (`fantastiqa_rl.card_gen`): the shipped presets
train on the STAND-IN set and generated:0-13 only. Target: >= 0.97 vs random and >= 0.55 vs greedy
on each of 3 held-out files, 400 games each. `--agreement` (a policy over the greedy block) also gives
the share of its decisions with more than one legal action where it played the greedy bot's move.
`--opponent-epsilon E` weakens the opponents but random (each move uniform with chance E): how far
below greedy a policy plays (the from-scratch learner's curve in docs/benchmarks.md).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_rl.agents.ppo_agent import PolicyWeights  # noqa: E402
from tabletop_rl.stats import wilson_interval  # noqa: E402
from tabletop_rl.training.evaluation import evaluate_policy  # noqa: E402

HELD_OUT = ("generated:100", "generated:101", "generated:102")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("policy", help="a card-reading policy .npz (meta architecture card_sets)")
    ap.add_argument("--card-sets", nargs="+", default=list(HELD_OUT), help="card_set values (standin for the STAND-IN set)")
    ap.add_argument("--games", type=int, default=400, help="seat-rotated games per opponent and card set")
    ap.add_argument("--opponents", nargs="+", default=["random", "greedy"])
    ap.add_argument("--agreement", action="store_true",
                    help="also the share of the policy's moves that are the greedy bot's (a policy over the greedy block)")
    ap.add_argument("--seeds", nargs="+", type=int, default=[999_983],
                    help="deal seeds: --games games on each seed's deals, and the share over all of them")
    ap.add_argument("--opponent-epsilon", type=float, default=0.0,
                    help="each opponent move but random's is a uniform legal one with this chance (a weaker bot)")
    args = ap.parse_args(argv)
    if args.games < 1 or any(s < 0 for s in args.seeds) or not 0 <= args.opponent_epsilon <= 1:
        ap.error("--games must be >= 1, every --seeds value >= 0 and --opponent-epsilon in [0, 1]")
    weights = PolicyWeights.load(args.policy)
    load0 = os.getloadavg()
    seeds = ", ".join(map(str, args.seeds))
    weaker = f"; each opponent move uniform at rate {args.opponent_epsilon}" if args.opponent_epsilon else ""
    print(f"{args.policy}: {args.games} seat-rotated games per opponent, card set and seed (batched engine, "
          f"seed{'s' if len(args.seeds) > 1 else ''} {seeds}{weaker})")
    for card_set in args.card_sets:
        options = dict(weights.meta.get("options") or {})
        if card_set != "standin":
            options["card_set"] = card_set
        for opp in args.opponents:
            wins = games = 0.0
            for seed in args.seeds:
                start = time.perf_counter()
                r = evaluate_policy(weights, "fantastiqa", 2, opp, args.games, seed, options, max_steps=4000,
                                    greedy_agreement=args.agreement is True, opponent_epsilon=args.opponent_epsilon)
                wins, games = wins + r["win_share"] * r["games"], games + r["games"]
                agree = (f"  greedy's move {r['greedy_agreement']:.4f} of {r['agreement_decisions']:,} decisions"
                         if args.agreement else "")
                at = f" seed {seed}" if len(args.seeds) > 1 else ""
                print(f"  {card_set:15s} vs {opp:7s}{at} win share {r['win_share']:.3f}  95% CI [{r['ci_low']:.3f}, "
                      f"{r['ci_high']:.3f}]{agree}  ({time.perf_counter() - start:.0f} s)", flush=True)
            if len(args.seeds) > 1:
                lo, hi = wilson_interval(wins, int(games))
                print(f"  {card_set:15s} vs {opp:7s} all {int(games):,} games: win share {wins / games:.3f}  "
                      f"95% CI [{lo:.3f}, {hi:.3f}]", flush=True)
    print(f"load average before {tuple(round(x, 1) for x in load0)}, after {tuple(round(x, 1) for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
