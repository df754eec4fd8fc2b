"""Self-play MaskablePPO on any registered game of the suite (one file, CleanRL style).

    python train.py                                    # Fae, 2 players, the defaults below
    python train.py --preset make-train                # what `make train` runs (<= 14 min of training on 2 cores)
    python train.py --preset fantastiqa                # Fantastiqa, 2 players (<= 1 hour on 2 cores)
    python train.py --game fae --num-players 3 --total-steps 2000000 --options history=summary
    python train.py --resume runs/<run-name>           # continue an interrupted run
    python train.py --evaluate runs/<run-name>/policy.npz   # 1000 seat-rotated games vs random and greedy
    python train.py --help                             # every hyper-parameter, with its help line

The learner plays one seat (random each episode) of `tabletop_rl.envs.selfplay.SelfPlayEnv`; the other seats
are opponents drawn from a pool of fixed bots (random, greedy) and frozen snapshots of the learner,
refreshed every `snapshot_every` steps. Before PPO, the policy head is warm-started by imitating a
teacher bot (`bc_teacher`, greedy by default; `--bc-teacher ""` turns it off): from raw board
features, PPO alone was still at ~0.55 against random after 150k steps, while a few minutes of
cloning reach ~0.85; PPO then continues from there (in the measured runs it held that level
rather than clearly improving on it). The learning curve starts at the warm-started policy (step 0). Every `eval_every` steps the current policy (argmax of the
masked logits) plays `eval_games` seat-rotated games against random and against greedy; win shares
(with 95% Wilson intervals) go to TensorBoard and `eval.csv`. Checkpoints (policy, optimizer, all
RNG states, opponent pool, the envs' games in progress) are written atomically every
`checkpoint_every` steps; `--resume` continues from the latest one and reproduces the uninterrupted
run exactly (same final weights). At the end, `runs/<run-name>/` holds:

    model.zip  policy.npz  config.json  curve.png  eval.csv  summary.json  logs/ (TensorBoard, SB3 csv)

and a one-screen summary is printed, including training throughput (env steps/s) and the share of
wall time spent inside the environments.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import glob
import json
import math
import os
import random
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

# Defaults chosen by measurement on 2 shared CPU cores (see `throughput` in summary.json): one
# torch thread and in-process envs (DummyVecEnv) beat SubprocVecEnv and 2 threads there.


@dataclass
class Config:
    # --- game
    game: str = "fae"  # registered game name (envs.get_game)
    num_players: int = 2  # players at the table (the learner takes one seat)
    options: str = "history=summary"  # game options as k=v pairs, comma separated (rule and observation options)
    reward: str = "score_diff"  # "score_diff" (dense, potential-based) or "win_loss" (terminal only)
    win_bonus: float = 5.0  # score_diff only: win_loss return x this, added at the end of a game
    reward_scale: float = 0.1  # every reward is multiplied by this (Fae margins are ~+-10 points)
    max_game_steps: int = 0  # step guard of training episodes and evaluation games (0 = the game's own); a game cut by it is not won
    # --- run
    total_steps: int = 1_000_000  # learner env steps (rounded up to a whole number of rollouts)
    seed: int = 0  # seeds torch, numpy, python and every env
    run_name: str = ""  # directory under runs_dir; default <game>_<players>p_s<seed>_<UTC time>
    runs_dir: str = "runs"  # where runs are written
    time_limit_min: float = 0.0  # stop training after this many minutes (0 = no limit); the summary says so
    progress: bool = True  # show a progress bar
    # --- vectorised envs
    vec_env: str = "dummy"  # "dummy" (in-process) or "subproc" (one process per env)
    n_envs: int = 8  # parallel envs
    torch_threads: int = 1  # torch intra-op threads
    # --- PPO (sb3-contrib MaskablePPO)
    n_steps: int = 256  # steps per env per rollout
    batch_size: int = 512  # minibatch size
    n_epochs: int = 4  # passes over each rollout
    learning_rate: float = 3e-4  # Adam step size (constant)
    gamma: float = 0.95  # discount
    gae_lambda: float = 0.9  # GAE lambda
    clip_range: float = 0.2  # PPO clip
    ent_coef: float = 0.001  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    net_arch: str = "128,128"  # hidden sizes of the policy and (separate) value MLPs
    activation: str = "relu"  # "tanh" or "relu"
    # --- opponent pool
    pool_random: float = 1.0  # weight of the random bot among fixed opponents
    pool_greedy: float = 0.5  # weight of the greedy bot among fixed opponents (if the game has one)
    snapshot_prob: float = 0.2  # chance an opponent is a snapshot of the learner (once one exists)
    snapshot_every: int = 40_000  # steps between snapshots
    max_snapshots: int = 8  # snapshots kept (oldest dropped)
    # --- warm start by behaviour cloning (before PPO; policy head only)
    bc_teacher: str = "greedy"  # bot whose moves the policy imitates before PPO ("" = no warm start)
    bc_samples: int = 100_000  # teacher decisions to imitate
    bc_explore: float = 0.5  # chance each move of the cloning games is random instead of the teacher's
    bc_epochs: int = 20  # passes over the cloning data
    bc_learning_rate: float = 1e-3  # Adam step size for cloning
    bc_workers: int = 2  # processes generating the cloning data
    # --- evaluation and checkpoints
    eval_every: int = 100_000  # steps between evaluations (0 = only at the end)
    eval_games: int = 100  # games per opponent per periodic evaluation (seat-rotated)
    final_eval_games: int = 1000  # games per opponent in the final evaluation (0 = skip)
    eval_workers: int = 2  # processes for the final evaluation
    checkpoint_every: int = 50_000  # steps between checkpoints (0 = none)
    keep_checkpoints: int = 2  # most recent checkpoints kept
    # --- RLlib backend (--backend rllib; envs/rllib_backend.py; run with .venv-rllib/bin/python, see `make venv-rllib`)
    backend: str = "sb3"  # "sb3" (MaskablePPO, this file) or "rllib" (Ray RLlib PPO, on a Ray cluster with --address)
    address: str = ""  # rllib: Ray cluster to join ("auto" after `ray start`, or ray://host:10001); "" starts a local Ray
    num_env_runners: int = 2  # rllib: sampling actors (Ray actors, 1 CPU each; 0 = sample in the driver)
    num_envs_per_env_runner: int = 1  # rllib: envs per sampling actor
    target_win_rate: float = 0.0  # rllib: stop once the win share vs random reaches this (0 = off)
    # --- not a hyper-parameter
    resume: str = ""  # run directory (or name under runs_dir) to continue; its config.json is used
    evaluate: str = ""  # only evaluate this policy file (.npz or .zip) over final_eval_games per opponent, then exit
    preset: str = ""  # named set of defaults (PRESETS); explicit flags override it


PRESETS = {
    # `make train`: default Fae 2p within 15 min on 2 shared cores, then 1000 + 1000 evaluation games.
    "make-train": dict(total_steps=1_048_576, time_limit_min=14.0),
    # Fantastiqa, 2 players, within 1 hour on 2 shared cores (45 min of training, then 1000 + 1000
    # evaluation games). A game still running after 4,000 steps (greedy vs random takes ~700) is
    # cut and not won: an imitated policy can stall (e.g. every card committed to quests it
    # cannot finish), and random play alone runs for ~20,000 steps.
    # A quest takes tens of steps, so a longer horizon than Fae's (gamma 0.99) and, after the
    # warm start, a gentler step size: at Fae's 3e-4 and gamma 0.95 the win share against random
    # fell from the warm start's 0.90 to 0.81 in 600k steps.
    "fantastiqa": dict(game="fantastiqa", options="", max_game_steps=4000, total_steps=3_000_000,
                       time_limit_min=45.0, bc_epochs=10, eval_every=200_000, gamma=0.99, gae_lambda=0.95,
                       learning_rate=1e-4),
    # Seconds, for tests and the notebook: learns nothing useful, exercises everything.
    "tiny": dict(total_steps=4096, n_envs=4, n_steps=128, batch_size=256, n_epochs=2, net_arch="32,32",
                 snapshot_every=1024, eval_every=2048, eval_games=6, final_eval_games=10, eval_workers=1,
                 checkpoint_every=1024, progress=False, bc_samples=400, bc_epochs=2, bc_workers=1),
}


# ---------------------------------------------------------------------------- CLI from the dataclass
def _field_help() -> dict[str, str]:
    """The `# ...` comment of each Config field, for --help."""
    import inspect

    out = {}
    for line in inspect.getsource(Config).splitlines():
        line = line.strip()
        if ":" in line and "#" in line and not line.startswith("#"):
            out[line.split(":")[0].strip()] = line.split("#", 1)[1].strip()
    return out


def parse_args(argv=None) -> Config:
    helps = _field_help()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for f in dataclasses.fields(Config):
        flag = "--" + f.name.replace("_", "-")
        kind = type(f.default)
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=helps.get(f.name))
        else:
            parser.add_argument(flag, type=kind, default=None, metavar=kind.__name__.upper(),
                                help=f"{helps.get(f.name, '')} (default: {f.default!r})")
    args = vars(parser.parse_args(argv))
    given = {k: v for k, v in args.items() if v is not None}
    preset = given.get("preset", "")
    if preset and preset not in PRESETS:
        parser.error(f"unknown preset {preset!r}; known: {sorted(PRESETS)}")
    return Config(**{**PRESETS.get(preset, {}), **given})


def parse_options(text: str) -> dict:
    """'history=summary,big_stack_merge=False' -> {'history': 'summary', 'big_stack_merge': False}."""
    out = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, _, value = item.partition("=")
        low = value.strip().lower()
        out[key.strip()] = {"true": True, "false": False}.get(low, int(value) if value.strip().lstrip("-").isdigit() else value.strip())
    return out


# ---------------------------------------------------------------------------- evaluation
def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win share (wins may be fractional: shared wins count 1/k)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_matches(weights, game: str, num_players: int, opponent: str, games: int, seed: int, options: dict,
                 first_game: int = 0, max_steps: int = 0) -> float:
    """Total win share of the policy over games first_game..first_game+games-1: game g seats it at
    g mod N (seat rotation); the other seats are `opponent` bots. A shared win counts 1/k. A game
    still running after `max_steps` steps (0: the game's step guard) is not won."""
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.base import limit_blas_threads
    from tabletop_rl.agents.match import play_game
    from tabletop_rl.agents.ppo_agent import PPOAgent
    from tabletop_rl.envs import get_game

    limit_blas_threads()  # also in evaluation worker processes
    spec = get_game(game)
    rule_opts, obs_opts = spec.split_options(options)
    me = PPOAgent(weights=weights, deterministic=True)
    bots = [make_agent(spec.name, opponent) for _ in range(num_players - 1)]
    wins = 0.0
    for g in range(first_game, first_game + games):
        seat = g % num_players
        seated = bots[:seat] + [me] + bots[seat:]
        result = play_game(spec, seated, max_steps=max_steps or spec.extra.get("max_steps", 1_000_000),  # step guard
                           seed=seed * 1_000_003 + g, agent_seeds=[seed + 7919 * g + s for s in range(num_players)],
                           rule_options=rule_opts, observation_options=obs_opts)
        if seat in result.winners:
            wins += 1.0 / len(result.winners)
    return wins


def evaluate(weights, cfg: Config, opponent: str, games: int, seed: int, workers: int = 1) -> dict:
    """Win share of `weights` against `opponent` over `games` seat-rotated games, with Wilson CI."""
    opts = parse_options(cfg.options)
    args = (weights, cfg.game, cfg.num_players, opponent)
    start = time.perf_counter()
    if workers > 1 and games >= 2 * workers:
        import concurrent.futures as cf
        import multiprocessing as mp

        chunks = [(games * i // workers, games * (i + 1) // workers) for i in range(workers)]
        with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
            futures = [pool.submit(play_matches, *args, b - a, seed, opts, a, cfg.max_game_steps) for a, b in chunks]
            wins = sum(f.result() for f in futures)
    else:
        wins = play_matches(*args, games, seed, opts, 0, cfg.max_game_steps)
    low, high = wilson(wins, games)
    return {"opponent": opponent, "games": games, "win_share": wins / games, "ci_low": low, "ci_high": high,
            "seconds": time.perf_counter() - start}


# ---------------------------------------------------------------------------- warm start
def teacher_games(*args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """tabletop_rl.agents.imitation.teacher_data, keeping the teacher's probabilities as targets when it has them."""
    from tabletop_rl.agents.imitation import teacher_data

    obs, masks, actions, probs = teacher_data(*args)
    return obs, masks, actions if probs is None else probs


def behaviour_clone(model, cfg: Config) -> dict:
    """Fit the policy head (MLP + action layer) to the teacher's moves by masked cross-entropy."""
    import torch

    from tabletop_rl.agents.imitation import fit

    opts = parse_options(cfg.options)
    workers = max(1, min(cfg.bc_workers, cfg.bc_samples // 1000))
    chunks = [cfg.bc_samples * (i + 1) // workers - cfg.bc_samples * i // workers for i in range(workers)]
    jobs = [(cfg.game, cfg.num_players, cfg.bc_teacher, n, cfg.bc_explore, cfg.seed * 7_919 + 101 * i, opts)
            for i, n in enumerate(chunks)]
    start = time.perf_counter()
    if workers > 1:
        import concurrent.futures as cf
        import multiprocessing as mp

        with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
            parts = list(pool.map(teacher_games, *zip(*jobs)))
    else:
        parts = [teacher_games(*jobs[0])]
    obs = torch.as_tensor(np.concatenate([p[0] for p in parts]))
    masks = torch.as_tensor(np.concatenate([p[1] for p in parts]))
    actions = torch.as_tensor(np.concatenate([p[2] for p in parts]))
    data_seconds = time.perf_counter() - start
    policy = model.policy
    params = list(policy.mlp_extractor.policy_net.parameters()) + list(policy.action_net.parameters())

    def logits_of(x):
        return policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(x, policy.pi_features_extractor)))

    losses = fit(logits_of, params, obs, masks, actions, cfg.bc_epochs, cfg.bc_learning_rate, cfg.seed)
    return {"samples": len(actions), "data_seconds": data_seconds, "fit_seconds": time.perf_counter() - start - data_seconds,
            "loss_by_epoch": losses}


# ---------------------------------------------------------------------------- building blocks
def make_pool(cfg: Config):
    from tabletop_rl.agents import agent_names
    from tabletop_rl.envs.selfplay import OpponentPool

    fixed = {"random": cfg.pool_random}
    if "greedy" in agent_names(cfg.game) and cfg.pool_greedy > 0:
        fixed["greedy"] = cfg.pool_greedy
    return OpponentPool(fixed={k: v for k, v in fixed.items() if v > 0}, snapshot_prob=cfg.snapshot_prob,
                        max_snapshots=cfg.max_snapshots)


class _EnvFactory:
    """Picklable env constructor (SubprocVecEnv sends it to the worker)."""

    def __init__(self, cfg: Config, pool, index: int):
        self.cfg, self.pool, self.index = cfg, pool, index

    def __call__(self):
        from stable_baselines3.common.monitor import Monitor

        from tabletop_rl.envs.selfplay import SelfPlayEnv

        cfg = self.cfg
        env = SelfPlayEnv(cfg.game, num_players=cfg.num_players, opponent=self.pool, reward=cfg.reward,
                          win_bonus=cfg.win_bonus, reward_scale=cfg.reward_scale, max_steps=cfg.max_game_steps or None,
                          **parse_options(cfg.options))
        return Monitor(env)


class TimedVecEnv:
    """Wraps a VecEnv and adds up the wall time spent in it (steps, resets, action masks)."""

    def __new__(cls, venv):
        from stable_baselines3.common.vec_env import VecEnvWrapper

        class _Timed(VecEnvWrapper):
            env_seconds = 0.0

            def reset(self):
                t = time.perf_counter()
                out = self.venv.reset()
                self.env_seconds += time.perf_counter() - t
                return out

            def step_wait(self):
                t = time.perf_counter()
                out = self.venv.step_wait()
                self.env_seconds += time.perf_counter() - t
                return out

            def step_async(self, actions):
                t = time.perf_counter()
                self.venv.step_async(actions)
                self.env_seconds += time.perf_counter() - t

            def env_method(self, name, *args, indices=None, **kwargs):
                t = time.perf_counter()
                out = self.venv.env_method(name, *args, indices=indices, **kwargs)
                self.env_seconds += time.perf_counter() - t
                return out

        return _Timed(venv)


def build(cfg: Config, pool):
    """(vec_env, model) for `cfg`; seeds everything from cfg.seed."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    torch.set_num_threads(cfg.torch_threads)
    if cfg.vec_env not in ("dummy", "subproc"):
        raise ValueError(f"vec_env must be 'dummy' or 'subproc'; got {cfg.vec_env!r}")
    factories = [_EnvFactory(cfg, pool, i) for i in range(cfg.n_envs)]
    venv = DummyVecEnv(factories) if cfg.vec_env == "dummy" else SubprocVecEnv(factories, start_method="spawn")
    venv = TimedVecEnv(venv)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    hidden = [int(h) for h in cfg.net_arch.split(",") if h.strip()]
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, seed=cfg.seed, device="cpu",
        policy_kwargs=dict(net_arch=dict(pi=hidden, vf=hidden), activation_fn=act), verbose=0,
    )
    return venv, model


def policy_weights(model, cfg: Config):
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    return PolicyWeights.from_sb3(model, meta={"game": cfg.game, "num_players": cfg.num_players,
                                               "options": parse_options(cfg.options), "trained_steps": int(model.num_timesteps)})


def _atomic_torch_save(obj, path: str) -> None:
    import torch

    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(obj, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _atomic_write_text(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def latest_checkpoint(run_dir: str) -> str | None:
    paths = sorted(glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.pt")))
    return paths[-1] if paths else None


# ---------------------------------------------------------------------------- the training loop's hooks
def make_callback(cfg: Config, run_dir: str, pool, venv, history: dict):
    """Snapshots, evaluations, checkpoints and the progress bar, at rollout boundaries.

    Everything happens in `_on_rollout_start`, i.e. after the previous PPO update and before the
    next rollout, where policy, optimizer, RNGs and envs form a consistent state to checkpoint.
    """
    import torch
    from stable_baselines3.common.callbacks import BaseCallback

    class Hooks(BaseCallback):
        def _on_training_start(self):
            self.t_start = time.perf_counter() - history["wall_seconds"]
            self.env_at_start = venv.env_seconds - history["env_seconds"]
            self.stop = False
            self.bar = None
            if cfg.progress:
                from tqdm import tqdm

                self.bar = tqdm(total=history["total_steps"], initial=self.model.num_timesteps, unit="step",
                                dynamic_ncols=True, desc=cfg.run_name, smoothing=0.05)

        def _on_step(self) -> bool:
            if self.bar is not None:
                self.bar.update(self.training_env.num_envs)
            return not self.stop

        def _on_rollout_start(self):
            steps = self.model.num_timesteps
            history["wall_seconds"] = time.perf_counter() - self.t_start
            history["env_seconds"] = venv.env_seconds - self.env_at_start
            if steps == history["last_resumed_at"]:
                return  # we just loaded this point
            if cfg.snapshot_every and steps - history["last_snapshot"] >= cfg.snapshot_every:
                pool.add_snapshot(policy_weights(self.model, cfg))
                venv.env_method("set_opponent_pool", pool)
                history["last_snapshot"] = steps
            if cfg.eval_every and steps - history["last_eval"] >= cfg.eval_every:
                self.run_eval(steps)
                history["last_eval"] = steps
            if cfg.checkpoint_every and steps - history["last_checkpoint"] >= cfg.checkpoint_every:
                history["last_checkpoint"] = steps
                self.save_checkpoint(steps)
            if cfg.time_limit_min and history["setup_seconds"] + history["wall_seconds"] > 60 * cfg.time_limit_min:
                history["stopped_by_time_limit"] = True
                self.stop = True

        def run_eval(self, steps):
            start = time.perf_counter()
            weights = policy_weights(self.model, cfg)
            for opp in history["eval_opponents"]:
                row = evaluate(weights, cfg, opp, cfg.eval_games, seed=10_000 + steps)
                row.update(steps=steps, wall_seconds=round(time.perf_counter() - self.t_start, 1))
                history["evals"].append(row)
                self.logger.record(f"eval/win_share_{opp}", row["win_share"])
                self.logger.record(f"eval/ci_low_{opp}", row["ci_low"])
                self.logger.record(f"eval/ci_high_{opp}", row["ci_high"])
                if self.bar is not None:
                    self.bar.set_postfix_str(" ".join(
                        f"vs {r['opponent']} {r['win_share']:.2f}" for r in history["evals"][-len(history['eval_opponents']):]))
            write_eval_csv(run_dir, history["evals"])
            history["eval_seconds"] += time.perf_counter() - start

        def save_checkpoint(self, steps):
            model = self.model
            env_snaps = venv.env_method("get_snapshot")
            monitors = {k: venv.get_attr(k) for k in ("rewards", "needs_reset", "episode_returns", "episode_lengths")}
            ckpt = {
                "num_timesteps": steps, "n_updates": model._n_updates,
                "policy": model.policy.state_dict(), "optimizer": model.policy.optimizer.state_dict(),
                "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()},
                "pool": pool.state_dict(),
                "envs": env_snaps, "monitors": monitors, "last_obs": model._last_obs, "last_episode_starts": model._last_episode_starts,
                "ep_info_buffer": list(model.ep_info_buffer), "history": history, "config": dataclasses.asdict(cfg),
            }
            os.makedirs(os.path.join(run_dir, "checkpoints"), exist_ok=True)
            _atomic_torch_save(ckpt, os.path.join(run_dir, "checkpoints", f"ckpt_{steps:010d}.pt"))
            for old in sorted(glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.pt")))[:-cfg.keep_checkpoints]:
                os.remove(old)

        def _on_training_end(self):
            history["wall_seconds"] = time.perf_counter() - self.t_start
            history["env_seconds"] = venv.env_seconds - self.env_at_start
            if self.bar is not None:
                self.bar.close()

    return Hooks()


def restore(ckpt_path: str, model, venv, pool, history: dict) -> None:
    """Load a checkpoint into a freshly built (model, venv, pool); RNG states last."""
    import torch

    ckpt = torch.load(ckpt_path, map_location="cpu", weights_only=False)
    model.policy.load_state_dict(ckpt["policy"])
    model.policy.optimizer.load_state_dict(ckpt["optimizer"])
    model.num_timesteps = ckpt["num_timesteps"]
    model._n_updates = ckpt["n_updates"]
    restored = type(pool).from_state_dict(ckpt["pool"])
    pool.__dict__.update(restored.__dict__)
    venv.env_method("set_opponent_pool", pool)
    for i, snap in enumerate(ckpt["envs"]):
        venv.env_method("set_snapshot", snap, indices=[i])
        for key, values in ckpt["monitors"].items():  # the Monitor wrappers' episode in progress
            venv.set_attr(key, values[i], indices=[i])
    venv.venv._reset_seeds()
    model._last_obs = ckpt["last_obs"]
    model._last_episode_starts = ckpt["last_episode_starts"]
    from collections import deque

    model.ep_info_buffer = deque(ckpt["ep_info_buffer"], maxlen=model._stats_window_size)
    model.ep_success_buffer = deque(maxlen=model._stats_window_size)
    history.clear()
    history.update(ckpt["history"])
    history["last_resumed_at"] = ckpt["num_timesteps"]
    history["resumes"] = history.get("resumes", 0) + 1
    torch.set_rng_state(ckpt["rng"]["torch"])
    np.random.set_state(ckpt["rng"]["numpy"])
    random.setstate(ckpt["rng"]["python"])


# ---------------------------------------------------------------------------- outputs
def write_eval_csv(run_dir: str, rows: list[dict]) -> None:
    keys = ["steps", "wall_seconds", "opponent", "games", "win_share", "ci_low", "ci_high"]
    tmp = os.path.join(run_dir, "eval.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, os.path.join(run_dir, "eval.csv"))


def plot_curve(run_dir: str, rows: list[dict], final: list[dict], title: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    for opp, colour in (("random", "tab:blue"), ("greedy", "tab:red")):
        pts = [r for r in rows if r["opponent"] == opp]
        if not pts:
            continue
        x = [r["steps"] for r in pts]
        ax.plot(x, [r["win_share"] for r in pts], "o-", color=colour, label=f"vs {opp}")
        ax.fill_between(x, [r["ci_low"] for r in pts], [r["ci_high"] for r in pts], color=colour, alpha=0.2)
        for r in final:
            if r["opponent"] == opp:
                ax.errorbar([r["steps"]], [r["win_share"]], yerr=[[r["win_share"] - r["ci_low"]], [r["ci_high"] - r["win_share"]]],
                            fmt="s", color=colour, capsize=4, label=f"final vs {opp} ({r['games']} games)")
    ax.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("learner env steps")
    ax.set_ylabel("win share (95% Wilson CI)")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    path = os.path.join(run_dir, "curve.png")
    fig.savefig(path)
    plt.close(fig)
    return path


def print_summary(summary: dict) -> None:
    t = summary["throughput"]
    lines = [
        "",
        f"== {summary['run_name']}: {summary['game']} {summary['num_players']}p, "
        f"{summary['steps']:,} learner steps in {(t['train_seconds'] + t['warm_start_seconds']) / 60:.1f} min"
        + (" (stopped by the time limit)" if summary["stopped_by_time_limit"] else ""),
        f"   (warm start {t['warm_start_seconds']:.0f} s, periodic evaluations {t['periodic_eval_seconds']:.0f} s)",
        f"   PPO throughput {t['steps_per_second']:.0f} env steps/s; {100 * t['env_share']:.0f}% of PPO time inside the envs "
        f"({t['vec_env']} x{t['n_envs']}, {t['torch_threads']} torch thread(s))",
    ]
    for r in summary["final_eval"]:
        lines.append(f"   vs {r['opponent']:7s} win share {r['win_share']:.3f}  95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                     f"  ({r['games']} seat-rotated games, {r['seconds']:.0f} s)")
    if summary["final_eval"]:
        lines.append(f"   evaluation took {summary['final_eval_seconds']:.0f} s")
    d = summary["run_dir"]
    lines += [
        f"   model      {d}/model.zip   (numpy policy for tabletop_rl.agents.ppo_agent: {d}/policy.npz)",
        f"   curve      {d}/curve.png   (evaluations: {d}/eval.csv)",
        f"   logs       {d}/logs         (tensorboard --logdir {d}/logs)",
        f"   config     {d}/config.json  summary: {d}/summary.json",
        f"   re-evaluate  python train.py --evaluate {d}/policy.npz    (a bot: tabletop_rl.agents.ppo_agent.PPOAgent(path=...))",
        "",
    ]
    print("\n".join(lines), flush=True)


# ---------------------------------------------------------------------------- main
def train(cfg: Config) -> dict:
    if cfg.backend == "rllib":
        from tabletop_rl.envs.rllib_backend import train_rllib  # imports ray/torch lazily; needs the rllib extra

        return train_rllib(cfg)
    if cfg.backend != "sb3":
        raise SystemExit(f"--backend must be 'sb3' or 'rllib'; got {cfg.backend!r}")
    warnings.filterwarnings("ignore", category=UserWarning)
    from stable_baselines3.common.logger import configure

    from tabletop_rl.agents import agent_names

    if cfg.resume:
        run_dir = cfg.resume if os.path.isdir(cfg.resume) else os.path.join(cfg.runs_dir, cfg.resume)
        with open(os.path.join(run_dir, "config.json")) as f:
            saved = json.load(f)
        cfg = Config(**{**saved, "resume": cfg.resume})
        ckpt = latest_checkpoint(run_dir)
        if ckpt is None:
            raise SystemExit(f"--resume: no checkpoint in {run_dir}/checkpoints")
    else:
        if not cfg.run_name:
            cfg.run_name = f"{cfg.game}_{cfg.num_players}p_s{cfg.seed}_{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
        run_dir = os.path.join(cfg.runs_dir, cfg.run_name)
        if latest_checkpoint(run_dir):
            raise SystemExit(f"{run_dir} already holds a run: use --resume {run_dir}, another --run-name, or delete it")
        os.makedirs(run_dir, exist_ok=True)
        _atomic_write_text(os.path.join(run_dir, "config.json"), json.dumps(dataclasses.asdict(cfg), indent=2))
        ckpt = None
    rollout = cfg.n_envs * cfg.n_steps
    total = math.ceil(cfg.total_steps / rollout) * rollout
    if total != cfg.total_steps:
        print(f"note: total_steps {cfg.total_steps} rounded up to {total} (whole rollouts of {rollout})", file=sys.stderr)

    setup_start = time.perf_counter()
    pool = make_pool(cfg)
    venv, model = build(cfg, pool)
    history = {"evals": [], "last_snapshot": 0, "last_eval": 0, "last_checkpoint": 0, "last_resumed_at": -1,
               "wall_seconds": 0.0, "env_seconds": 0.0, "eval_seconds": 0.0, "setup_seconds": 0.0,
               "stopped_by_time_limit": False, "total_steps": total,
               "eval_opponents": [o for o in ("random", "greedy") if o in agent_names(cfg.game)]}
    if ckpt is not None:
        restore(ckpt, model, venv, pool, history)
        print(f"resumed {run_dir} from {os.path.basename(ckpt)} at step {model.num_timesteps:,}", file=sys.stderr)
        _atomic_write_text(os.path.join(run_dir, f"resumed_{model.num_timesteps:010d}.json"), json.dumps(
            {"checkpoint": os.path.basename(ckpt), "num_timesteps": model.num_timesteps}))
    elif cfg.bc_teacher:
        print(f"warm start: imitating {cfg.bc_teacher} on {cfg.bc_samples:,} decisions ...", file=sys.stderr, flush=True)
        history["bc"] = behaviour_clone(model, cfg)
        bc = history["bc"]
        print(f"  {bc['data_seconds']:.0f} s of teacher games, {bc['fit_seconds']:.0f} s fitting, "
              f"loss {bc['loss_by_epoch'][0]:.2f} -> {bc['loss_by_epoch'][-1]:.2f}", file=sys.stderr, flush=True)
        if cfg.eval_every:  # where PPO starts from, on the learning curve
            weights = policy_weights(model, cfg)
            for opp in history["eval_opponents"]:
                row = evaluate(weights, cfg, opp, cfg.eval_games, seed=10_000)
                history["evals"].append({**row, "steps": 0, "wall_seconds": 0.0})
            write_eval_csv(run_dir, history["evals"])
        history["setup_seconds"] = time.perf_counter() - setup_start
    part = history.get("resumes", 0)
    model.set_logger(configure(os.path.join(run_dir, "logs", f"part{part}"), ["csv", "tensorboard"]))

    remaining = total - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=make_callback(cfg, run_dir, pool, venv, history),
                    reset_num_timesteps=ckpt is None, tb_log_name="ppo")
    venv.close()

    # Outputs
    weights = policy_weights(model, cfg)
    model.save(os.path.join(run_dir, "model.zip"))
    weights.save(os.path.join(run_dir, "policy.npz"))
    final, eval_seconds = [], 0.0
    if cfg.final_eval_games:
        print(f"evaluating over {cfg.final_eval_games} seat-rotated games per opponent ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        for opp in history["eval_opponents"]:
            row = evaluate(weights, cfg, opp, cfg.final_eval_games, seed=999_983, workers=cfg.eval_workers)
            row["steps"] = model.num_timesteps
            final.append(row)
        eval_seconds = time.perf_counter() - start
    write_eval_csv(run_dir, history["evals"] + final)
    plot_curve(run_dir, history["evals"], final, f"{cfg.game} {cfg.num_players}p self-play MaskablePPO")
    wall, env_s = history["wall_seconds"], history["env_seconds"]
    ppo_s = wall - history["eval_seconds"]  # PPO proper: rollouts and updates, without periodic evaluations
    trained = model.num_timesteps
    summary = {
        "run_name": cfg.run_name, "run_dir": run_dir, "game": cfg.game, "num_players": cfg.num_players,
        "steps": trained, "requested_steps": total, "stopped_by_time_limit": history["stopped_by_time_limit"],
        "resumes": history.get("resumes", 0),
        "throughput": {"train_seconds": wall, "warm_start_seconds": history["setup_seconds"],
                       "periodic_eval_seconds": history["eval_seconds"],
                       "steps_per_second": trained / ppo_s if ppo_s > 0 else 0.0,
                       "env_seconds": env_s, "env_share": env_s / ppo_s if ppo_s > 0 else 0.0,
                       "vec_env": cfg.vec_env, "n_envs": cfg.n_envs, "torch_threads": cfg.torch_threads},
        "final_eval": final, "final_eval_seconds": eval_seconds, "evals": history["evals"],
    }
    _atomic_write_text(os.path.join(run_dir, "summary.json"), json.dumps(summary, indent=2))
    print_summary(summary)
    return summary


def evaluate_only(cfg: Config) -> list[dict]:
    """`--evaluate PATH`: the final evaluation of a saved policy, printed as in the summary."""
    from tabletop_rl.agents import agent_names
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    weights = PolicyWeights.load(cfg.evaluate)
    meta = weights.meta
    if meta.get("game") and (meta["game"], meta.get("num_players")) != (cfg.game, cfg.num_players):
        # The policy says what it was trained on: evaluate it there (its options too).
        opts = ",".join(f"{k}={v}" for k, v in (meta.get("options") or {}).items())
        cfg = dataclasses.replace(cfg, game=meta["game"], num_players=int(meta.get("num_players", cfg.num_players)),
                                  options=opts)
        print(f"{cfg.evaluate} was trained on {cfg.game} ({cfg.num_players} players, options {opts or 'none'}): "
              f"evaluating there", flush=True)
    rows = []
    for opp in [o for o in ("random", "greedy") if o in agent_names(cfg.game)]:
        r = evaluate(weights, cfg, opp, cfg.final_eval_games, seed=999_983, workers=cfg.eval_workers)
        rows.append(r)
        print(f"{cfg.evaluate} vs {opp:7s} win share {r['win_share']:.3f}  95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
              f"  ({r['games']} seat-rotated games, {r['seconds']:.0f} s)", flush=True)
    return rows


def main(argv=None) -> int:
    from tabletop_rl.agents.base import limit_blas_threads

    cfg = parse_args(argv)
    limit_blas_threads()  # snapshot opponents and evaluations play numpy policies
    if cfg.evaluate:
        evaluate_only(cfg)
    else:
        train(cfg)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
