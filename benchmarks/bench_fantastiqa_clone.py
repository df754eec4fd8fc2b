"""How well the warm start imitates Fantastiqa's greedy bot, by decision, and what it scores against it.

    python benchmarks/bench_fantastiqa_clone.py                         # the fantastiqa preset's cloning, ~4 min
    python benchmarks/bench_fantastiqa_clone.py --dagger-rounds 2 -- --bc-samples 250000 --bc-epochs 4

After `train.behaviour_clone` with the preset (train.py flags after `--` override it), prints the
share of non-forced decisions where the clone's argmax is the greedy bot's move, per phase, on
held-out teacher states (the cloning data's distribution) and on the clone's own states against
greedy (where its mistakes compound), then its win share against greedy (`train.eval_policy`).
`--dagger-rounds N` then runs N rounds of DAgger (`tabletop_rl.agents.imitation.core_teacher_data`
with the clone as the policy: its own states, labelled by greedy, added to the data and refitted),
measuring again after each.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import train  # noqa: E402
from fantastiqa_rl.actions import PHASES  # noqa: E402
from fantastiqa_rl.observation import observation_layout  # noqa: E402
from tabletop_rl.agents.imitation import core_teacher_data, fit  # noqa: E402


def greedy(core):
    return core.batch.greedy_actions(core.rng)


def argmax_policy(weights):
    return lambda obs, masks: np.argmax(np.where(masks, weights.logits(obs), -np.inf), axis=1)


def agreement(tag: str, weights, obs, masks, labels) -> None:
    """Print the clone's agreement with the labels, overall and per phase (non-forced decisions)."""
    same = argmax_policy(weights)(obs, masks) == labels
    choice = masks.sum(axis=1) > 1
    phase = np.argmax(obs[:, observation_layout()["phase"]], axis=1)
    print(f"{tag}: agreement {same[choice].mean():.3f} over {choice.sum()} non-forced decisions")
    for k in np.unique(phase):
        sel = choice & (phase == k)
        if sel.sum() >= 50:
            print(f"    {PHASES[k]:14s} {sel.mean():6.1%} of decisions, agreement {same[sel].mean():.3f}")


def measure(cfg, model, samples: int, games: int, seed: int):
    weights = train.policy_weights(model, cfg)
    core = train.make_core(cfg, num_envs=128, seed=seed)
    core.reset()
    agreement("held-out teacher states", weights, *core_teacher_data(core, greedy, samples, cfg.bc_explore))
    core = train.make_core(cfg, num_envs=128, seed=seed + 1, opponents={"greedy": 1.0})
    core.reset()
    own = core_teacher_data(core, greedy, samples, 0.0, policy=argmax_policy(weights))
    agreement("its own states against greedy", weights, *own)
    row = train.eval_policy(weights, cfg, "greedy", games, seed=10_000)
    print(f"win share against greedy {row['win_share']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}] ({games} games)",
          flush=True)
    return weights


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", type=int, default=30_000, help="decisions per agreement measurement")
    ap.add_argument("--games", type=int, default=300, help="games against greedy per measurement")
    ap.add_argument("--dagger-rounds", type=int, default=0)
    ap.add_argument("--dagger-samples", type=int, default=50_000, help="decisions added per DAgger round")
    ap.add_argument("--refit-epochs", type=int, default=3)
    ap.add_argument("train_flags", nargs="*", help="train.py flags (after --)")
    args = ap.parse_args(argv)
    cfg = train.parse_args(["--preset", "fantastiqa", "--no-progress", *args.train_flags])
    start = time.perf_counter()
    _, model = train.build(cfg, train.make_pool(cfg))
    bc = train.behaviour_clone(model, cfg)
    print(f"cloned {bc['samples']:,} greedy decisions: {bc['data_seconds']:.0f} s data, {bc['fit_seconds']:.0f} s fit, "
          f"loss {bc['loss_by_epoch'][0]:.3f} -> {bc['loss_by_epoch'][-1]:.3f}; load {os.getloadavg()[0]:.1f}")
    weights = measure(cfg, model, args.samples, args.games, seed=555)
    data = [train.batched_teacher_data(cfg, bc["samples"])] if args.dagger_rounds else []
    policy = model.policy
    params = list(policy.mlp_extractor.policy_net.parameters()) + list(policy.action_net.parameters())
    for r in range(args.dagger_rounds):
        core = train.make_core(cfg, num_envs=256, seed=1_000 + r)
        core.reset()
        data.append(core_teacher_data(core, greedy, args.dagger_samples, 0.0, policy=argmax_policy(weights)))
        obs, masks, labels = (np.concatenate([d[k] for d in data]) for k in range(3))
        fit(policy.action_logits, params, obs, masks, labels, args.refit_epochs, cfg.bc_learning_rate, r, batch=512)
        print(f"DAgger round {r + 1}: {len(labels):,} decisions")
        weights = measure(cfg, model, args.samples, args.games, seed=555)
    print(f"{time.perf_counter() - start:.0f} s; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
