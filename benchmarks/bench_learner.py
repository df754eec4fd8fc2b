"""Training throughput through the one learner core, against the scalar path, in one run.

    python benchmarks/bench_learner.py                  # ~4 minutes on 2 cores
    python benchmarks/bench_learner.py --fae-steps 131072 --fantastiqa-steps 32768

Every row is `train.train` (learner env steps/s with the PPO updates included; no warm start,
periodic evaluation or checkpoint), so the figures are what a training run gets, and then the
same path's env alone (random learner actions, no PPO), where the paths differ:
- Fantastiqa, with the `fantastiqa` preset's PPO settings (rollouts of 8,192 steps, minibatches
  of 2,048, 2 epochs, 2 torch threads): the learner core over the batched engine (`FantastiqaBatch`,
  64 games) with the preset's greedy block and with the plain observation, against the scalar
  `SelfPlayEnv` (the core's single-agent face: ScalarBatch, N = 1) in a DummyVecEnv (`--vec-env
  dummy`, 8 envs x 1,024 steps: the same rollout), on the plain observation: the scalar cores do
  not encode the greedy block (it needs the batch's greedy bot). Target (issue 26): >= 10x the
  scalar path. The `fantastiqa-cards` row (issue 37: the card view over the STAND-IN set and six
  generated files, read by the card-reading policy, its preset's net, games and rollout length, the
  same PPO settings otherwise): target >= 20,000 env steps/s on 2 quiet cores. Every Fantastiqa row
  snapshots the learner every 8,192 steps, so its opponents include snapshots, as in a whole run.
- Fae, with the `make-train` settings: the learner core (what `FaeLearnerVecEnv` now is), then the
  same with a user's reward callable (`--reward-fn`: a numpy function over the batch), with a
  user's batched opponent (`act_batch`: one call for all its games) and with a user's per-game
  opponent (plain `Agent.act`, asked through `bot_action` on each game's `FaeState` copy), each in
  half of the games' opponents (weights random 0.25, greedy 1, the user's bot 1.25).
The paths run interleaved, `--repeats` rounds, and each path's fastest run is reported; load
averages are printed before and after: on a shared machine the ratios are the figures to compare.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import train  # noqa: E402
from tabletop_rl.agents.base import Agent  # noqa: E402
from tabletop_rl.agents.registry import register_agent  # noqa: E402


class LowestLegal(Agent):
    """A user's bot: its lowest legal action (per game)."""

    name = "bench_lowest"
    needs_observation = False

    def act(self, observation, action_mask, *, state=None, seat=None):
        return int(np.flatnonzero(action_mask)[0])


class LowestLegalBatched(LowestLegal):
    """The same bot with a batched form: one call for every game it moves in."""

    name = "bench_lowest_batched"

    def act_batch(self, batch, games, rng):
        return np.argmax(batch.legal_mask(), axis=1)


def step_penalty(batch, seats, dones):
    """A user's reward over the batch: -0.001 per learner step, +0.1 at the end of a game."""
    return np.where(dones, 0.1, -0.001)


register_agent("*", "bench_lowest", LowestLegal)
register_agent("*", "bench_lowest_batched", LowestLegalBatched)
HERE = __name__  # train.py imports --reward-fn by module name; this script runs as __main__


def run(cfg: train.Config) -> dict:
    s = train.train(cfg)
    return {"steps": s["steps"], "steps_per_second": s["throughput"]["steps_per_second"],
            "env_share": s["throughput"]["env_share"]}


def env_rate(make, steps: int) -> dict:
    """Learner env steps/s of a core (`make()` -> LearnerCore) with uniformly random learner actions,
    no PPO: the env's side alone."""
    core = make()
    core.reset()
    rng = np.random.default_rng(0)
    start, done = time.perf_counter(), 0
    while done < steps:
        core.learner_obs()
        masks = core.masks()
        core.step(np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1))
        done += core.num_envs
    return {"steps": done, "steps_per_second": done / (time.perf_counter() - start), "env_share": 1.0}


def scalar_env_rate(cfg: train.Config, steps: int) -> dict:
    """The same for `cfg.n_envs` scalar SelfPlayEnvs stepped in turn (what a DummyVecEnv does)."""
    envs = [train._EnvFactory(cfg, train.make_pool(cfg), i)() for i in range(cfg.n_envs)]
    infos = [env.reset(seed=i)[1] for i, env in enumerate(envs)]
    rng = np.random.default_rng(0)
    start, done = time.perf_counter(), 0
    while done < steps:
        for i, env in enumerate(envs):
            _, _, term, trunc, infos[i] = env.step(int(rng.choice(np.flatnonzero(infos[i]["action_mask"]))))
            if term or trunc:
                infos[i] = env.reset()[1]
        done += len(envs)
    return {"steps": done, "steps_per_second": done / (time.perf_counter() - start), "env_share": 1.0}


def best_of(rows: dict[str, list[dict]]) -> dict[str, dict]:
    """Each path's fastest run (a shared machine only ever slows a run down)."""
    return {name: max(runs, key=lambda r: r["steps_per_second"]) for name, runs in rows.items()}


def table(title: str, rows: dict[str, dict], base: str) -> None:
    print(f"\n{title}")
    print(f"  {'path':58s} {'steps':>7s} {'steps/s':>8s} {'in env':>7s} {'ratio':>6s}")
    for name, r in rows.items():
        print(f"  {name:58s} {r['steps']:7d} {r['steps_per_second']:8.0f} {100 * r['env_share']:6.0f}% "
              f"{r['steps_per_second'] / rows[base]['steps_per_second']:6.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fae-steps", type=int, default=65536, help="learner steps of each Fae run")
    ap.add_argument("--fantastiqa-steps", type=int, default=16384, help="learner steps of each Fantastiqa run")
    ap.add_argument("--repeats", type=int, default=2, help="interleaved rounds; each path's best run is reported")
    args = ap.parse_args()
    quiet = dict(bc_teacher="", eval_every=0, final_eval_games=0, checkpoint_every=0, progress=False, time_limit_min=0.0)
    cards = train.PRESETS["fantastiqa-cards"]
    # a snapshot of the learner joins the pool every 8,192 steps: a short run plays snapshot opponents
    # as a whole run does (every 40,000 steps there), whose games the learner core observes
    q = dataclasses.replace(train.parse_args(["--preset", "fantastiqa"]), snapshot_every=8192)
    f = train.parse_args(["--preset", "make-train"])
    scalar, fae = "SelfPlayEnv x8 in a DummyVecEnv (the scalar path)", "learner core x512 (FaeBatch; = FaeLearnerVecEnv)"
    fantastiqa_paths = {scalar: dict(vec_env="dummy", options="", n_envs=8, n_steps=1024),
                        "learner core x64 (FantastiqaBatch), plain observation": dict(options=""),
                        "learner core x64 (FantastiqaBatch), greedy block (the preset)": {},
                        f"learner core x{cards['n_envs']} over 8 card files, card view (fantastiqa-cards)": {
                            k: cards[k] for k in ("options", "net_arch", "n_envs", "n_steps")}}
    fae_paths = {fae: {},
                 "  + a user's reward callable (--reward-fn)": dict(reward_fn=f"{HERE}:step_penalty"),
                 "  + a user's batched opponent (act_batch), weight 1.25": dict(opponents="bench_lowest_batched=1.25"),
                 "  + a user's per-game opponent (Agent.act), weight 1.25": dict(opponents="bench_lowest=1.25")}
    runs: dict[str, list[dict]] = {name: [] for name in (*fantastiqa_paths, *fae_paths)}
    load0 = os.getloadavg()
    env_runs: dict[str, list[dict]] = {name: [] for name in (*fantastiqa_paths, *fae_paths)}
    for _ in range(args.repeats):  # the env's side alone: random learner actions, no PPO
        for base, steps, paths in ((q, args.fantastiqa_steps // 4, fantastiqa_paths), (f, args.fae_steps, fae_paths)):
            for name, change in paths.items():
                cfg = dataclasses.replace(base, **change)
                if train.resolve_vec_env(cfg) == "learner":
                    env_runs[name].append(env_rate(lambda: train.make_core(cfg, cfg.n_envs, cfg.seed), steps))
                else:
                    env_runs[name].append(scalar_env_rate(cfg, steps))
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for base, steps, paths in ((q, args.fantastiqa_steps, fantastiqa_paths), (f, args.fae_steps, fae_paths)):
                for k, (name, change) in enumerate(paths.items()):
                    cfg = dataclasses.replace(base, runs_dir=tmp, run_name=f"{base.game}_{k}_{r}", total_steps=steps,
                                              **quiet, **change)
                    runs[name].append(run(cfg))
    load1 = os.getloadavg()
    best = best_of(runs)
    print(f"\nload average (1, 5, 15 min) before {tuple(round(x, 1) for x in load0)}, after "
          f"{tuple(round(x, 1) for x in load1)}; {os.cpu_count()} CPUs; best of {args.repeats} interleaved runs")
    env_best = best_of(env_runs)
    table("Fantastiqa 2p, fantastiqa preset PPO settings: learner env steps/s with PPO updates (ratio vs scalar)",
          {k: best[k] for k in fantastiqa_paths}, scalar)
    table("  the env's side alone (random learner actions, no PPO)", {k: env_best[k] for k in fantastiqa_paths}, scalar)
    table("Fae 2p, make-train settings: learner env steps/s with PPO updates (ratio vs the built-in core)",
          {k: best[k] for k in fae_paths}, fae)
    table("  the env's side alone (random learner actions, no PPO)", {k: env_best[k] for k in fae_paths}, fae)


if __name__ == "__main__":
    main()
