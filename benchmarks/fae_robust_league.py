"""A small best-response league for the Fae default (issue 40 item 3), in the spirit of fictitious
play / PSRO: probe the current policy, add the best response to the pool, retrain, repeat.

    nice -n 19 python -m benchmarks.fae_robust_league --start fae_2p_v5 --rounds 2 --probe-minutes 6 \
        --train-minutes 12 --final-probe-minutes 10 --run-name robust --json runs/league/robust.json

Round k:
1. probe: `tabletop_rl.agents.exploit.probe` trains a best response to the current policy (its run
   folder keeps `policy.npz`) and measures it in `--probe-eval-games` arena games. An intermediate
   round's probe may be shorter than the 10-minute probe the catalogue publishes (`--probe-minutes`):
   its best response only has to be good enough to be worth training against; the JSON says which.
2. pool: the best response joins the pool as a frozen `ppo` opponent (registered as `league_br{i}`,
   argmax play, as the ppo bot plays); every earlier best response stays. `--first-probe` takes
   round 0's probe from an exploit report already run on the start policy (`exploit --json`).
   `--brs` puts best responses already trained in the pool from round 0, and `--skip-first-probe`
   then retrains round 0 against them without a probe (continuing a league whose last best
   responses are in hand); `--start-opponent` names the frozen policy at `--start-weight` when it
   is not the start. An entropy bonus (`--train-args "--ent-coef 0.01"`) keeps the policy mixed:
   the league's figures with and without it are in docs/baselines.md.
3. retrain: train.py's path (`parse_args` then `train`, `--preset`) from the current policy's head
   (`--init`), against the best responses (`--br-weight` shared among them), the batched search at
   its default budget (`--mcts-weight`, `mcts_batched`: the opponent whose level must not be lost),
   greedy (`--greedy-weight`), the start policy (`--start-weight`) and snapshots of the learner
   (`--snapshot-prob`), the learning rate annealed to 0 by `--train-minutes`. Its `policy.npz` is the
   next round's current policy.

After the last round, `--final-probe-minutes` (0: none) probes the final policy with the catalogue's
probe settings (`--seed`, 1,000 games by default, no `--probe-steps` cap). A round's probe stops at
`--probe-steps` learner steps or `--probe-minutes`, whichever comes first: on a loaded machine a
step cap keeps the rounds' probes comparable (same seed, same steps). Every round's figures (the probe's win share and
Wilson interval, learner steps, the training run's steps, the pool) go to `--json`, rewritten after
each step, so a run cut short keeps what it measured.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

GAME = "fae"
BR_NAME = "league_br{}"
START_NAME = "league_start"


def _spec(policy: str) -> str:
    """The arena bot spec of a policy: a shipped version name or a policy file."""
    from tabletop_rl.agents.policy_versions import version_names

    return f"ppo:version={policy}" if policy in version_names(GAME) else f"ppo:path={policy}"


def _check_policy(policy: str) -> dict:
    """The ppo bot's keywords for `policy` (version name or .npz), loaded once: a missing or foreign
    file (a pickled .zip, another game's policy) raises ValueError naming the problem."""
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.policy_versions import version_names

    kw = {"version": policy} if policy in version_names(GAME) else {"path": policy}
    make_agent(GAME, "ppo", seed=0, **kw)
    return kw


def _register(name: str, policy: str) -> None:
    """`policy` (version name or .npz) as the bot `name`, for the learner core's pool (names only)."""
    from tabletop_rl.agents import make_agent, register_agent

    kw = _check_policy(policy)
    register_agent(GAME, name, lambda seed=None, _kw=kw, **more: make_agent(GAME, "ppo", seed=seed, **{**_kw, **more}))


def pool_weights(brs: int, br_weight: float, mcts_weight: float, start_weight: float) -> dict[str, float]:
    """The fixed opponents of a retraining run (name -> weight; greedy is train.py's --pool-greedy)."""
    weights = {BR_NAME.format(i): br_weight / brs for i in range(brs)} if brs else {}
    if mcts_weight > 0:
        weights["mcts_batched"] = mcts_weight
    if start_weight > 0:
        weights[START_NAME] = start_weight
    return weights


def _probe_record(result: dict, minutes: float) -> dict:
    keys = ("target", "seed", "minutes", "steps", "steps_per_second", "train_seconds", "eval_games", "win_share",
            "wilson95", "curve", "policy", "run_dir")
    return {**{k: result[k] for k in keys}, "minutes": minutes}


def run_league(start: str = "fae_2p_v5", rounds: int = 2, probe_minutes: float = 6.0, train_minutes: float = 12.0,
               final_probe_minutes: float = 10.0, seed: int = 0, probe_eval_games: int = 400,
               final_probe_eval_games: int = 1000, br_weight: float = 0.4, mcts_weight: float = 0.35,
               greedy_weight: float = 0.1, start_weight: float = 0.15, snapshot_prob: float = 0.1,
               preset: str = "make-train", train_args: str = "", first_probe: dict | None = None,
               probe_args: str = "", probe_steps: int = 10**9,
               runs_dir: str = "runs/league", run_name: str = "robust", json_path: str | None = None,
               brs: list[str] | None = None, start_opponent: str | None = None,
               skip_first_probe: bool = False) -> dict:
    """Play the league (module docstring); returns (and writes to `json_path`) every round's figures.
    `brs`: best responses already trained (policy files) in the pool from round 0, before any probe's;
    `start_opponent`: the frozen policy at `start_weight` (default `start`); `skip_first_probe`: round 0
    retrains against `brs` without probing (to continue a league whose last probe is in `brs`)."""
    import shlex

    from tabletop_rl import train as trainer
    from tabletop_rl.agents.exploit import probe
    from tabletop_rl.agents.registry import unregister_agent

    for label, value in (("rounds", rounds),):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"--{label} must be an int >= 1; got {value!r}")
    for label, value in (("probe_minutes", probe_minutes), ("train_minutes", train_minutes)):
        if not value > 0:
            raise ValueError(f"--{label.replace('_', '-')} must be > 0; got {value!r}")
    if skip_first_probe is not False and (skip_first_probe is not True or not brs or first_probe is not None):
        raise ValueError("--skip-first-probe takes --brs (the pool to retrain against) and no --first-probe")
    if first_probe is not None and first_probe.get("target") != _spec(start):
        raise ValueError(f"--first-probe is a probe of {first_probe.get('target')!r}, not of the start {_spec(start)!r}")
    brs = list(brs or [])
    for policy in brs:  # before any probe or training: a bad file is refused at once, not after a round
        _check_policy(policy)
    start_opponent = start if start_opponent is None else start_opponent
    current = start
    out = {"game": GAME, "start": start, "seed": seed, "preset": preset, "train_args": train_args,
           "weights": {"br": br_weight, "mcts_batched": mcts_weight, "greedy": greedy_weight, "start": start_weight,
                       "snapshot_prob": snapshot_prob},
           "brs_given": list(brs), "start_opponent": start_opponent,
           "rounds": [], "final": None, "date": time.strftime("%Y-%m-%d", time.gmtime())}

    def save():
        if json_path:
            Path(json_path).parent.mkdir(parents=True, exist_ok=True)
            Path(json_path).write_text(json.dumps(out, indent=1), encoding="utf-8")

    _register(START_NAME, start_opponent)
    registered = [START_NAME]
    try:
        for k in range(rounds):
            record = {"round": k, "policy": current}
            out["rounds"].append(record)
            if k == 0 and skip_first_probe:
                result = None
                record["probe_from"] = "skipped: the pool is --brs"
            elif k == 0 and first_probe is not None:
                result = first_probe
                record["probe_from"] = "--first-probe"
            else:
                result = probe(GAME, _spec(current), minutes=probe_minutes, seed=seed, eval_games=probe_eval_games,
                               steps=probe_steps, train_args=probe_args, runs_dir=runs_dir,
                               run_name=f"{run_name}_r{k}_probe")
            record["probe"] = None if result is None else _probe_record(result, result["minutes"])
            if result is not None:
                brs.append(result["policy"])
            save()
            for i, br in enumerate(brs):
                _register(BR_NAME.format(i), br)
                registered.append(BR_NAME.format(i))
            weights = pool_weights(len(brs), br_weight, mcts_weight, start_weight)
            opponents = ",".join(f"{n}={w:g}" for n, w in weights.items())
            argv = (["--preset", preset] + shlex.split(train_args) +
                    ["--game", GAME, "--seed", str(seed + k), "--init", current, "--opponents", opponents,
                     "--pool-random", "0", "--pool-greedy", f"{greedy_weight:g}", "--snapshot-prob", f"{snapshot_prob:g}",
                     "--anneal-lr", "--time-limit-min", f"{train_minutes:g}", "--eval-every", "0",
                     "--final-eval-games", "0", "--checkpoint-every", "0", "--runs-dir", runs_dir,
                     "--run-name", f"{run_name}_r{k}_train", "--no-progress"])
            record["pool"] = {"opponents": weights, "greedy": greedy_weight, "snapshot_prob": snapshot_prob,
                              "best_responses": list(brs)}
            summary = trainer.train(trainer.parse_args(argv))
            current = f"{summary['run_dir']}/policy.npz"
            record["train"] = {"argv": argv, "steps": summary["steps"], "run_dir": summary["run_dir"],
                               "policy": current, "steps_per_second": round(summary["throughput"]["steps_per_second"])}
            save()
        out["policy"] = current
        if final_probe_minutes > 0:
            result = probe(GAME, _spec(current), minutes=final_probe_minutes, seed=seed,
                           eval_games=final_probe_eval_games, train_args=probe_args, runs_dir=runs_dir, run_name=f"{run_name}_final_probe")
            out["final"] = _probe_record(result, final_probe_minutes)
        save()
    finally:
        for name in registered:
            unregister_agent(GAME, name)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fae_robust_league", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--start", default="fae_2p_v5", help="a shipped version name or policy .npz (default fae_2p_v5)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--probe-minutes", type=float, default=6.0, help="each round's probe (default 6)")
    parser.add_argument("--train-minutes", type=float, default=12.0, help="each round's retraining (default 12)")
    parser.add_argument("--final-probe-minutes", type=float, default=10.0, help="the final probe (0: none; default 10)")
    parser.add_argument("--seed", type=int, default=0, help="the probes' seed; round k trains with seed + k")
    parser.add_argument("--probe-eval-games", type=int, default=400)
    parser.add_argument("--final-probe-eval-games", type=int, default=1000)
    parser.add_argument("--br-weight", type=float, default=0.4, help="shared among the best responses")
    parser.add_argument("--mcts-weight", type=float, default=0.35, help="mcts_batched at its default budget")
    parser.add_argument("--greedy-weight", type=float, default=0.1)
    parser.add_argument("--start-weight", type=float, default=0.15, help="the start policy, frozen")
    parser.add_argument("--snapshot-prob", type=float, default=0.1)
    parser.add_argument("--preset", default="make-train")
    parser.add_argument("--train-args", default="", help="more train.py flags for the retraining runs")
    parser.add_argument("--probe-args", default="", help="more train.py flags for the probes (exploit --train-args)")
    parser.add_argument("--probe-steps", type=int, default=10**9, help="at most this many learner steps a round's probe")
    parser.add_argument("--first-probe", default=None, metavar="JSON",
                        help="round 0's probe: an `exploit --json` report of the start policy (not probed again)")
    parser.add_argument("--brs", nargs="+", default=None, metavar="NPZ",
                        help="best responses already trained (policy files), in the pool from round 0")
    parser.add_argument("--start-opponent", default=None, metavar="POLICY",
                        help="the frozen policy at --start-weight: a version name or .npz (default: --start)")
    parser.add_argument("--skip-first-probe", action="store_true",
                        help="round 0 retrains against --brs without probing the start first")
    parser.add_argument("--runs-dir", default="runs/league")
    parser.add_argument("--run-name", default="robust")
    parser.add_argument("--json", default=None, metavar="PATH", help="write every round's figures here")
    args = parser.parse_args(argv)
    first = None
    if args.first_probe:
        first = json.loads(Path(args.first_probe).read_text(encoding="utf-8"))
        if not isinstance(first, dict) or not {"target", "minutes", "policy", "win_share"} <= set(first):
            parser.error(f"--first-probe {args.first_probe}: not an exploit --json report")
    try:
        out = run_league(args.start, args.rounds, args.probe_minutes, args.train_minutes, args.final_probe_minutes,
                         args.seed, args.probe_eval_games, args.final_probe_eval_games, args.br_weight, args.mcts_weight,
                         args.greedy_weight, args.start_weight, args.snapshot_prob, args.preset, args.train_args,
                         first, args.probe_args, args.probe_steps, args.runs_dir, args.run_name, args.json,
                         args.brs, args.start_opponent, args.skip_first_probe is True)
    except ValueError as exc:
        parser.error(str(exc))
    for r in out["rounds"]:
        p = r["probe"]
        if p is None:
            print(f"round {r['round']}: no probe ({r['probe_from']}); retrained {r.get('train', {}).get('steps', 0):,} steps")
            continue
        print(f"round {r['round']}: probe {p['win_share']:.3f} {p['wilson95']} over {p['eval_games']} games "
              f"({p['steps']:,} learner steps, {p['minutes']} min); retrained {r.get('train', {}).get('steps', 0):,} steps")
    if out["final"]:
        p = out["final"]
        print(f"final: probe {p['win_share']:.3f} {p['wilson95']} over {p['eval_games']} games ({p['steps']:,} steps)")
    print(f"policy: {out['policy']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
