"""Two versions of the learner core's env side timed on the same work: old and new code alternated.

    python benchmarks/ab_learner_core.py OLD_TREE NEW_TREE [--preset fantastiqa-cards-greedy] [--rounds 8]

What a training run's envs do between PPO updates, without PPO: `train.py --preset PRESET`'s learner
core (its games, card files, opponent pool and rewards; `tabletop_rl.training.sb3.make_core`) with
`--snapshots` frozen snapshots of a random policy in the pool (a run adds one every 40,000 steps, so a
whole run plays them; a 65k-step run hardly does), stepped with random legal learner moves. Each
TREE is a checkout of this repository (e.g. `git worktree add ../old HEAD~1`), run by its own
worker process (its `.venv/bin/python` if it has one, else this Python with the tree first on
sys.path); the workers warm up off the clock, then every round asks each in turn (the order swapped
every round) for `--steps` learner steps, and the median env steps/s (learner steps x games / s) of
each tree is printed with the ratio and the load average.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path


def worker(tree: str, preset: str, snapshots: int, n_envs: int) -> None:
    """Answer each line read (a step count) with the seconds those learner steps took, as JSON."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from trees import mount_tree

    mount_tree(tree)
    import numpy as np
    import train as T
    from tabletop_rl.training.sb3 import make_core, make_pool, reads_cards

    cfg = T.parse_args(["--preset", preset, "--n-envs", str(n_envs)])
    pool = make_pool(cfg)
    core = make_core(cfg, cfg.n_envs, 0, pool)
    if reads_cards(cfg):
        from types import SimpleNamespace

        import torch
        from fantastiqa_rl.card_view import VIEW_SIZE
        from tabletop_rl.card_net import CardNet, card_weights

        sizes = dict(zip(("card_hidden", "quest_hidden", "hidden", "entity"), map(int, cfg.net_arch.split(","))))
        greedy = core.obs_size > VIEW_SIZE  # the greedy block follows the view
        for k in range(snapshots):
            torch.manual_seed(k)
            net = CardNet(**sizes, greedy_init=cfg.skip_init if greedy else None)
            core.add_snapshot(card_weights(SimpleNamespace(net=net)))  # card_weights reads a policy's .net
    core.reset(0)
    rng = np.random.default_rng(0)

    def run(steps: int) -> float:
        t = time.perf_counter()
        for _ in range(steps):
            m = core.masks()
            core.step(np.argmax(np.where(m, rng.random(m.shape), -1.0), axis=1))
        return time.perf_counter() - t

    run(20)  # compile or load the kernels, deal, fill the pool's games off the clock
    for line in sys.stdin:
        print(json.dumps(run(int(line))), flush=True)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--preset", default="fantastiqa-cards-greedy")
    p.add_argument("--snapshots", type=int, default=4, help="random-policy snapshots in the pool (default 4)")
    p.add_argument("--n-envs", type=int, default=512)
    p.add_argument("--steps", type=int, default=16, help="learner steps per measurement (default 16: one rollout)")
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    from trees import alternate  # benchmarks/ is this script's folder, first on sys.path
    if args.worker:
        tree, preset, snaps, n = args.worker
        return worker(tree, preset, int(snaps), int(n))
    answers = alternate(__file__, {"old": args.old, "new": args.new}, (args.preset, args.snapshots, args.n_envs),
                        [args.steps], args.rounds)
    times = {name: answers[name, args.steps] for name in ("old", "new")}
    rate = {name: args.steps * args.n_envs / statistics.median(t) for name, t in times.items()}
    print(f"preset {args.preset}, {args.n_envs} games, {args.snapshots} snapshots in the pool, {args.rounds} rounds of "
          f"{args.steps} learner steps each, load average {os.getloadavg()[0]:.2f}")
    for name in ("old", "new"):
        print(f"  {name}: {rate[name]:,.0f} env steps/s (median)")
    print(f"  new / old: {rate['new'] / rate['old']:.2f}x")


if __name__ == "__main__":
    main()
