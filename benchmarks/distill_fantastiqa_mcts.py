"""Distil Fantastiqa's MCTS into the card-reading policy (issue 37: past greedy on any card file).

    nice -n 10 python benchmarks/distill_fantastiqa_mcts.py --rounds 1 --games 40 --out runs/distill_fq
    python benchmarks/distill_fantastiqa_mcts.py --rounds 1 --games 2 --eval-games 20 --out RUN_DIR   # a smoke run

Fantastiqa's `mcts` (its measured defaults: the paired search over the greedy move and 3 others,
24 rollouts a searched decision) beats the greedy bot on any card file (0.685 over 200 games on
the STAND-IN set, 0.725 over 40 on generated:50), where PPO over the card view stays at greedy's
level. Its moves are what a reactive policy may learn to deviate from greedy by.

Each round plays `--games` games on each of `--card-sets` (the shipped presets' training files:
the STAND-IN set and generated:0-13; never the validation or held-out files), spread over `--workers`
processes (`tabletop_rl.agents.imitation.fantastiqa_search_data`): round 1 with the search at every
seat, later rounds (`--dagger`) with the current policy at one seat labelled by the search (the
states it reaches) against the search. Every decision with a choice is recorded as the policy sees
it (the card view and the greedy block) with the search's move. The labels of every round so far are
pooled and the policy is refitted to them from `--init` (or from the last round's policy with
`--continue-fit`) by masked cross-entropy (`tabletop_rl.card_net.refit_card_policy`) over the moves the
search compared (`--loss choices`: the greedy move and 3 random others where it searched, every legal
move elsewhere), since a move it never tried was not judged worse; `--loss legal` over every legal move.
The targets are the search's moves, or with `--targets values` softmax(gain / `--temperature`) over the
moves it compared (each one's mean value gain over the greedy move on its samples). It is saved as
`<out>/round<r>.npz` (its labels in `<out>/round<r>_<i>.npz`, which `--data` pools into a later run)
and measured on the batched engine (`evaluate_policy`, seed 999983) against greedy on
`--eval-card-sets` (validation files, neither trained on nor held out). `<out>/progress.jsonl` gets
one line per round: labels, the share of them that are not greedy's move, the policy's agreement
with the search before and after the refit, the fit's losses and the win shares.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import multiprocessing as mp
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from fantastiqa_rl.card_view import NUM_ACTIONS_MAX, VIEW_SIZE  # noqa: E402
from tabletop_rl.agents.base import limit_blas_threads  # noqa: E402
from tabletop_rl.agents.card_policy import CardPolicyWeights  # noqa: E402
from tabletop_rl.agents.ppo_agent import PolicyWeights, PPOAgent  # noqa: E402

TRAIN_FILES = ["standin"] + [f"generated:{k}" for k in range(14)]   # the presets' training files
DATA_KEYS = ("obs", "masks", "actions", "choices", "gains")


def collect(job: tuple) -> str:
    """One worker's share of a round: `games` games on `card_set`, saved to `path`; returns the path."""
    card_set, games, seed, policy_path, path = job
    limit_blas_threads()
    from tabletop_rl.agents.imitation import fantastiqa_search_data

    policy = PPOAgent(path=policy_path) if policy_path else None
    obs, masks, actions, choices, gains = fantastiqa_search_data(card_set, games, seed, policy=policy)
    np.savez(path, obs=obs, masks=masks, actions=actions, choices=choices, gains=gains)
    return path


MAX_DATA_BYTES = 4 << 30   # one job's file is ~100 MB


def load_data(path: str) -> dict:
    """One job's labels as saved by this script: plain arrays (no pickle), each of the shape and dtype
    `fantastiqa_search_data` gives, every label a legal move among the compared ones. Anything else is
    refused with a ValueError naming the file and the problem."""
    if os.path.getsize(path) > MAX_DATA_BYTES:
        raise ValueError(f"{path}: over {MAX_DATA_BYTES >> 30} GiB, not a file of this script")
    with np.load(path, allow_pickle=False) as f:
        if set(f.files) != set(DATA_KEYS):
            raise ValueError(f"{path}: expected the arrays {DATA_KEYS}, found {f.files}")
        data = {k: f[k] for k in DATA_KEYS}
    n = len(data["actions"])
    want = {"obs": (np.float16, (n, VIEW_SIZE + NUM_ACTIONS_MAX)), "masks": (np.bool_, (n, NUM_ACTIONS_MAX)),
            "actions": (np.int64, (n,)), "choices": (np.bool_, (n, NUM_ACTIONS_MAX)),
            "gains": (np.float16, (n, NUM_ACTIONS_MAX))}
    for key, (dtype, shape) in want.items():
        if data[key].dtype != dtype or data[key].shape != shape:
            raise ValueError(f"{path}: {key} must be {np.dtype(dtype).name} {shape}; got {data[key].dtype} {data[key].shape}")
    rows = np.arange(n)
    if n and ((data["actions"] < 0).any() or (data["actions"] >= NUM_ACTIONS_MAX).any()
              or not (data["masks"][rows, data["actions"]] & data["choices"][rows, data["actions"]]).all()):
        raise ValueError(f"{path}: a label is not a legal move among the compared ones")
    return data


def agreement(weights: CardPolicyWeights, obs, masks, actions, batch: int = 4096) -> float:
    """Share of the decisions where the policy's argmax is the search's move."""
    hits = 0
    for i in range(0, len(actions), batch):
        x = obs[i:i + batch].astype(np.float32)
        best = np.argmax(np.where(masks[i:i + batch], weights.logits(x), -np.inf), axis=1)
        hits += int((best == actions[i:i + batch]).sum())
    return hits / max(1, len(actions))


def soft_targets(gains, temperature: float):
    """float32 (n, A): softmax(gains / temperature) over the compared moves (gains -inf elsewhere)."""
    import torch

    return torch.softmax(torch.as_tensor(gains).float() / temperature, dim=1)


def not_greedy(obs, actions) -> float:
    """Share of the labels that are not the greedy block's move."""
    block = obs[:, VIEW_SIZE:]
    return float(np.mean(block[np.arange(len(actions)), actions] == 0))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--init", default="fantastiqa_2p_cards_v3", help="shipped version to start from (or --init-path)")
    ap.add_argument("--init-path", default="", help="a card-reading policy .npz to start from instead")
    ap.add_argument("--card-sets", nargs="+", default=TRAIN_FILES, help="card_set values the games are played on")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--games", type=int, default=40, help="games per card set per round")
    ap.add_argument("--dagger", action="store_true", help="rounds after the first: the policy plays one seat")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3, help="passes over the pooled labels per refit")
    ap.add_argument("--learning-rate", type=float, default=3e-4)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--loss", choices=("choices", "legal"), default="choices",
                    help="cross-entropy over the moves the search compared (default) or over every legal move")
    ap.add_argument("--targets", choices=("moves", "values"), default="moves",
                    help="fit the search's moves (default) or softmax(gains / --temperature) over the moves it compared")
    ap.add_argument("--temperature", type=float, default=0.05, help="of the values targets (gains lie in [-2, 2])")
    ap.add_argument("--continue-fit", action="store_true", help="refit from the last round's policy, not --init")
    ap.add_argument("--eval-card-sets", nargs="+", default=["generated:50", "generated:51"])
    ap.add_argument("--eval-games", type=int, default=300, help="games vs greedy per validation file (0: none)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", nargs="*", default=[], help="labels saved by earlier runs (round<r>_<i>.npz) to pool")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    import torch

    from tabletop_rl.card_net import refit_card_policy
    from tabletop_rl.training.evaluation import evaluate_policy

    torch.set_num_threads(max(1, args.workers))
    os.makedirs(args.out, exist_ok=True)
    init = PPOAgent(path=args.init_path) if args.init_path else PPOAgent(version=args.init, game="fantastiqa")
    start_weights = weights = init.policy
    if not isinstance(weights, CardPolicyWeights) or not weights.greedy:
        raise SystemExit("--init must be a card-reading policy over the greedy block (view=cards, action_features=greedy)")
    pooled = {k: [] for k in DATA_KEYS}
    for path in args.data:
        for k, v in load_data(path).items():
            pooled[k].append(v)
    log = open(os.path.join(args.out, "progress.jsonl"), "a")
    for r in range(1 if args.rounds else 0, args.rounds + 1):
        t0 = time.perf_counter()
        row = {"round": r, "load_before": [round(x, 2) for x in os.getloadavg()]}
        if r:
            policy_path = ""
            if args.dagger and r > 1:
                policy_path = os.path.join(args.out, f"round{r - 1}.npz")
            jobs = []
            for i, card_set in enumerate(args.card_sets):
                for w in range(args.workers):   # each file's games split in chunks, so both workers stay busy
                    n = args.games * (w + 1) // args.workers - args.games * w // args.workers
                    if n:
                        jobs.append((card_set, n, args.seed * 1_000_003 + r * 10_007 + i * 101 + w, policy_path,
                                     os.path.join(args.out, f"round{r}_{len(jobs)}.npz")))
            with cf.ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn")) as pool:
                paths = list(pool.map(collect, jobs))
            new = [load_data(p) for p in paths]
            obs = np.concatenate([d["obs"] for d in new])
            masks = np.concatenate([d["masks"] for d in new])
            actions = np.concatenate([d["actions"] for d in new])
            choices = np.concatenate([d["choices"] for d in new])
            gains = np.concatenate([d["gains"] for d in new])
            row.update(games=args.games * len(args.card_sets), new_labels=len(actions),
                       new_not_greedy=round(not_greedy(obs, actions), 4),
                       new_fewer_choices=round(float(np.mean((choices != masks).any(axis=1))), 4),
                       data_s=round(time.perf_counter() - t0, 1),
                       agreement_before=round(agreement(weights, obs, masks, actions), 4))
            for k, v in (("obs", obs), ("masks", masks), ("actions", actions), ("choices", choices), ("gains", gains)):
                pooled[k].append(v)
            del obs, masks, actions, choices, gains, new
        all_obs, all_masks, all_actions, all_choices, all_gains = (np.concatenate(pooled[k]) for k in DATA_KEYS)
        targets = all_actions if args.targets == "moves" else soft_targets(all_gains, args.temperature)
        t1 = time.perf_counter()
        weights, losses = refit_card_policy(weights if args.continue_fit else start_weights, all_obs,
                                            all_choices if args.loss == "choices" else all_masks, targets,
                                            args.epochs, args.learning_rate, seed=args.seed * 1000 + r,
                                            batch=args.batch)
        weights.meta = {**weights.meta, "distilled_rounds": r, "distill_command": " ".join(sys.argv)}
        path = os.path.join(args.out, f"round{r}.npz")
        weights.save(path)
        row.update(pooled_labels=len(all_actions), pooled_not_greedy=round(not_greedy(all_obs, all_actions), 4),
                   fit_s=round(time.perf_counter() - t1, 1), fit_losses=[round(x, 4) for x in losses],
                   agreement_after=round(agreement(weights, all_obs, all_masks, all_actions), 4),
                   greedy_scale=round(float(weights.weights[-1][0][0, 0]), 3))
        del all_obs, all_masks, all_actions, all_choices, all_gains, targets
        for card_set in args.eval_card_sets if args.eval_games else []:
            res = evaluate_policy(PolicyWeights.load(path), "fantastiqa", 2, "greedy", args.eval_games, 999_983,
                                  {**weights.meta.get("options", {}), "card_set": card_set}, max_steps=4000)
            row[f"vs_greedy {card_set}"] = [round(res["win_share"], 4), round(res["ci_low"], 4), round(res["ci_high"], 4)]
        row.update(round_s=round(time.perf_counter() - t0, 1), load_after=[round(x, 2) for x in os.getloadavg()])
        print(json.dumps(row), flush=True)
        log.write(json.dumps(row) + "\n")
        log.flush()


if __name__ == "__main__":
    main()
