"""Distil Fae's MCTS into a policy that does not search: DAgger rounds from a shipped policy.

    nice -n 10 python benchmarks/distill_fae_mcts.py --rounds 6 --games 1200 --out runs/distill_fae
    python benchmarks/distill_fae_mcts.py --rounds 1 --games 40 --eval-games 20 --out RUN_DIR   # a smoke run

Each round: the current policy plays `--games` 2-player games against `--opponents` (seats
rotated), every decision it makes labelled by the root visit shares of `make_agent("fae", "mcts")`'s
search at its default budget (`tabletop_rl.agents.imitation.fae_search_data`; an MCTS opponent
labels its own decisions); the labels of every round so far are pooled and the policy is refitted
to the search's moves (`--targets actions`; or its visit shares) by cross-entropy from its current weights, skip scales included (`refit_policy`). It is
then saved (`<out>/round<r>.npz`, its labels in `<out>/round<r>_data.npz`: `--data` pools them into
a later run, and `--rounds 0 --data ...` only refits to them) and measured in the arena against MCTS and greedy (duplicate
deals, seat-rotated, arena seed `--eval-seed`; the shipped figures use a separate 400/1000-game
arena run). `<out>/progress.jsonl` gets one line per round: data size, the on-policy loss before
the refit (how far the policy's own states are from the search's choice), the fit's losses, and the
win shares with Wilson intervals, and the share of the new round's non-forced decisions where the
policy's argmax was the search's move (before the refit: states it was never fitted to). One process, one torch thread: made to run niced beside other jobs.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tabletop_rl.agents.arena import ArenaConfig, run_arena  # noqa: E402
from tabletop_rl.agents.base import limit_blas_threads  # noqa: E402
from tabletop_rl.agents.imitation import fae_search_data, imitation_loss, refit_policy  # noqa: E402
from tabletop_rl.agents.ppo_agent import PolicyWeights, PPOAgent  # noqa: E402


def arena_share(path: str, opponent: str, games: int, seed: int) -> dict:
    """The policy file's win share against `opponent` (the arena, duplicate deals, one process)."""
    config = ArenaConfig(game="fae", agents=[f"ppo:path={path}", opponent], players=2, games=games, seed=seed,
                         workers=1, records=False)
    bot = run_arena(config, plot=False, quiet=True, write=False)["summary"]["bots"][0]
    return {"games": bot["games"], "win_share": round(bot["win_share"], 4),
            "wilson95": [round(x, 4) for x in bot["wilson95"]]}


def on_policy_loss(weights: PolicyWeights, obs, masks, probs) -> float:
    """Cross-entropy of the policy against the search's labels on these states (before a refit)."""
    import torch

    logits = torch.as_tensor(weights.logits(obs.astype(np.float32)))
    targets = probs if probs.dtype == np.int64 else probs.astype(np.float32)
    return float(imitation_loss(logits, torch.as_tensor(masks), torch.as_tensor(targets)))


def widened(weights: PolicyWeights, hidden: int, seed: int) -> PolicyWeights:
    """The same policy with `hidden` units in its one hidden layer: the new units read the same inputs
    (He-initialised) and start with zero output weights, so the moves are unchanged until a refit."""
    if len(weights.weights) != 2 or hidden < weights.weights[0][0].shape[1]:
        raise ValueError(f"--hidden widens a one-hidden-layer policy to at least its "
                         f"{weights.weights[0][0].shape[1]} units")
    (w0, b0), (w1, b1) = weights.weights
    extra = hidden - w0.shape[1]
    reads = w0.any(axis=1)
    new_in = np.zeros((w0.shape[0], extra), dtype=np.float32)
    new_in[reads] = np.random.default_rng(seed).normal(0.0, np.sqrt(2.0 / reads.sum()), (reads.sum(), extra))
    layers = [(np.hstack([w0, new_in]), np.concatenate([b0, np.zeros(extra, np.float32)])),
              (np.vstack([w1, np.zeros((extra, w1.shape[1]), np.float32)]), b1)]
    return PolicyWeights(layers, weights.activation, dict(weights.meta), list(weights.skip))


def agreement(weights: PolicyWeights, obs, masks, actions) -> float:
    """Share of the non-forced decisions where the policy's argmax is the search's move."""
    choice = masks.sum(axis=1) > 1
    best = np.argmax(np.where(masks, weights.logits(obs.astype(np.float32)), -np.inf), axis=1)
    return float(np.mean(best[choice] == actions[choice]))


DATA_KEYS = ("obs", "masks", "actions", "probs")


def load_data(path: str) -> dict:
    """One round's labels as saved by this script (plain arrays: no pickle)."""
    with np.load(path, allow_pickle=False) as f:
        if set(f.files) != set(DATA_KEYS):
            raise ValueError(f"{path}: expected the arrays {DATA_KEYS}, found {f.files}")
        return {k: f[k] for k in DATA_KEYS}


def refit_and_measure(weights, pooled, args, r, row) -> PolicyWeights:
    """Refit to the pooled labels, save `round<r>.npz`, add the fit and the arena figures to `row`."""
    all_obs, all_masks, targets = (np.concatenate(pooled[k]) for k in ("obs", "masks", args.targets))
    t1 = time.perf_counter()
    weights, losses = refit_policy(weights, all_obs, all_masks, targets, args.epochs, args.learning_rate,
                                   seed=args.seed * 1000 + r, batch=args.batch)
    del all_obs, all_masks, targets
    weights.meta = {**weights.meta, "distilled_rounds": r, "distill_command": " ".join(sys.argv)}
    path = os.path.join(args.out, f"round{r}.npz")
    weights.save(path)
    row.update(pooled_labels=int(sum(len(m) for m in pooled["masks"])), fit_s=round(time.perf_counter() - t1, 1),
               fit_losses=[round(x, 4) for x in losses], skip=[[s, round(c, 3)] for s, c in weights.skip])
    if args.eval_games:
        row["vs_mcts"] = arena_share(path, "mcts", args.eval_games, args.eval_seed)
    if args.eval_greedy_games:
        row["vs_greedy"] = arena_share(path, "greedy", args.eval_greedy_games, args.eval_seed)
    return weights


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--init", default="fae_2p_v2", help="shipped version to start from (or --init-path)")
    ap.add_argument("--init-path", default="", help="a policy .npz to start from instead")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--games", type=int, default=1000, help="games per round")
    ap.add_argument("--opponents", default="mcts,mcts,mcts,greedy", help="comma-separated, game g plays the (g mod k)-th")
    ap.add_argument("--epochs", type=int, default=4, help="passes over the pooled labels per refit")
    ap.add_argument("--learning-rate", type=float, default=3e-4)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--targets", choices=("actions", "probs"), default="actions",
                    help="fit the search's moves (default) or its distribution (--search-target)")
    ap.add_argument("--search-target", choices=("visits", "values"), default="visits",
                    help="the distribution recorded: root visit shares or softmax of the root values "
                         "(imitation.SearchTeacher)")
    ap.add_argument("--temperature", type=float, default=0.05, help="of the values target")
    ap.add_argument("--eval-games", type=int, default=100, help="arena games against MCTS per round (0: none)")
    ap.add_argument("--eval-greedy-games", type=int, default=200, help="arena games against greedy per round")
    ap.add_argument("--eval-seed", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hidden", type=int, default=0, help="widen the policy's hidden layer to this many units first")
    ap.add_argument("--data", nargs="*", default=[], help="labels saved by earlier runs (round<r>_data.npz) to pool")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    limit_blas_threads()
    os.makedirs(args.out, exist_ok=True)
    agent = PPOAgent(path=args.init_path) if args.init_path else PPOAgent(version=args.init)
    weights = widened(agent.policy, args.hidden, args.seed) if args.hidden else agent.policy
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    pooled = {"obs": [], "masks": [], "probs": [], "actions": []}
    for path in args.data:
        data = load_data(path)
        for key in pooled:
            pooled[key].append(data[key])
    log = open(os.path.join(args.out, "progress.jsonl"), "a")

    def report(row):
        print(json.dumps(row), flush=True)
        log.write(json.dumps(row) + "\n")
        log.flush()

    if args.rounds == 0:  # refit to --data only
        t0 = time.perf_counter()
        refit_and_measure(weights, pooled, args, 0, row := {"round": 0, "data": args.data})
        report({**row, "round_s": round(time.perf_counter() - t0, 1)})
    for r in range(1, args.rounds + 1):
        t0 = time.perf_counter()
        obs, masks, actions, probs = fae_search_data(PPOAgent(weights=weights), opponents, args.games,
                                                     seed=args.seed * 1000 + r, target=args.search_target,
                                                     temperature=args.temperature)
        obs, probs = obs.astype(np.float16), probs.astype(np.float16)  # half the memory; the fit reads float32
        np.savez(os.path.join(args.out, f"round{r}_data.npz"), obs=obs, masks=masks, actions=actions, probs=probs)
        row = {"round": r, "games": args.games, "new_labels": len(masks), "data_s": round(time.perf_counter() - t0, 1),
               "on_policy_loss_before": round(on_policy_loss(weights, obs, masks, {"actions": actions, "probs": probs}[args.targets]), 4),
               "agreement_before": round(agreement(weights, obs, masks, actions), 4)}
        for key, value in (("obs", obs), ("masks", masks), ("probs", probs), ("actions", actions)):
            pooled[key].append(value)
        weights = refit_and_measure(weights, pooled, args, r, row)
        report({**row, "round_s": round(time.perf_counter() - t0, 1)})


if __name__ == "__main__":
    main()
