"""Self-play MaskablePPO on any registered game of the suite (one file, CleanRL style).

    python train.py                                    # Fae, 2 players, the defaults below
    python train.py --preset make-train                # what `make train` runs (<= 15 min on 2 cores)
    python train.py --preset fantastiqa                # Fantastiqa, 2 players (<= 1 hour on 2 cores)
    python train.py --game fae --num-players 3 --total-steps 2000000 --options history=summary
    python train.py --resume runs/<run-name>           # continue an interrupted run
    python train.py --evaluate runs/<run-name>/policy.npz   # 1000 seat-rotated games vs random and greedy
    python train.py --help                             # every hyper-parameter and preset, with its help line

Every game trains on the one learner core (`tabletop_rl.envs.learner`, `--vec-env auto`) behind
the SB3 face `LearnerVecEnv`: `n_envs` games stepped together in the game's batched engine (Fae:
`fae_rl.vector.FaeVector`; a game without one: `ScalarBatch`, N scalar games, same path, slower);
in each the learner holds one seat (rotating) and the opponents (the pool's bots, `--opponents`
for your own, frozen snapshots of the learner refreshed every `snapshot_every` steps) move inside
the batch; `--reward-fn module:function` adds your reward over the batch. `--vec-env dummy` or
`subproc` runs the scalar `tabletop_rl.envs.selfplay.SelfPlayEnv` instead (the old path, kept for
comparison: benchmarks/bench_learner.py). Fae's observation adds per-action blocks (`action_features`, `fae_rl.features`):
each action's greedy one-move margin and greedy-best flag and, with "versus" (the default), its
margin against the colours the other seats most likely hold and that margin's best flag. The
policy adds the blocks to its logits through learned scales (`PolicyWeights.skip`; the greedy
ones start at `skip_init`, the versus ones at 0, and all learn `skip_lr_scale` times faster than
the weights), so it starts near greedy play and PPO learns on top; its MLPs read the board only
(`mlp_inputs`). Before PPO, the policy may be warm-started by imitating a
teacher bot (`bc_teacher`; `bc_samples` scales with `total_steps` unless set). The learning curve
starts at the policy PPO starts from (step 0). Every `eval_every` steps the current policy (argmax
of the masked logits, as the ppo bot plays: `training.evaluate_policy`, all games at once in the
learner core) plays `eval_games` seat-rotated games against random and against greedy;
win shares (95% Wilson intervals) go to TensorBoard and `eval.csv`. Checkpoints (tensors for
`torch.load(weights_only=True)` plus JSON: policy, optimizer, RNG states, opponents, the games in
progress) are written atomically every `checkpoint_every` steps; `--resume` continues from the
newest one that restores into a scratch model and envs (each one skipped is named, with why), with
the flags given beside it applied when safe to change (`RESUME_SAFE`: total steps, time limit,
evaluation and checkpoint settings, threads) and refused otherwise. Evaluation, checkpoints and
reporting live in `tabletop_rl.training`.
At the end, `runs/<run-name>/` holds:

    model.zip  policy.npz  config.json  curve.png  eval.csv  summary.json  logs/ (TensorBoard, SB3 csv)

and a one-screen summary is printed, including training throughput (env steps/s) and the share of
wall time spent inside the environments.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np

from tabletop_rl.training import (  # noqa: F401  (wilson, play_matches: the notebooks' and tests' helpers)
    _atomic_write_text, check_checkpoint, evaluate, evaluate_batched, evaluate_policy, explicit_fields,
    latest_valid_checkpoint, load_checkpoint, parse_options, play_matches, plot_curve, print_summary,
    prune_checkpoints, read_run_config, resume_config, save_checkpoint, wilson, write_eval_csv,
)

# Defaults chosen by measurement on 2 shared CPU cores (see `throughput` in summary.json): one
# torch thread; Fae's batched env (FaeLearnerVecEnv) far ahead of SubprocVecEnv/DummyVecEnv.


@dataclass
class Config:
    # --- game
    game: str = "fae"  # registered game name (envs.get_game)
    num_players: int = 2  # players at the table (the learner takes one seat)
    options: str = ""  # game options as k=v pairs, comma separated (rule and observation options); "" = the game's training default (GAME_OPTIONS)
    reward: str = "score_diff"  # "win_loss" (terminal only) or a potential of the game (dense): "score_diff" (the game spec's), Fae's "seat_diff" (score_diff against the other seats' colours only: a training signal that reads them)
    win_bonus: float = 5.0  # score_diff only: win_loss return x this, added at the end of a game
    reward_scale: float = 0.1  # every reward is multiplied by this (Fae margins are ~+-10 points)
    max_game_steps: int = 0  # step guard of training episodes and evaluation games (0 = the game's own); a game cut by it is not won
    cut_reward: float = 0.0  # sb3: the learner's reward when max_game_steps cuts a training episode (below -1: stalling pays less than losing)
    # --- run
    total_steps: int = 1_000_000  # learner env steps (rounded up to a whole number of rollouts)
    seed: int = 0  # seeds torch, numpy, python and every env
    run_name: str = ""  # directory under runs_dir; default <game>_<players>p_s<seed>_<UTC time>
    runs_dir: str = "runs"  # where runs are written
    time_limit_min: float = 0.0  # stop training after this many minutes (0 = no limit); the summary says so
    progress: bool = True  # show a progress bar
    # --- vectorised envs
    vec_env: str = "auto"  # "auto" (= "learner": the learner core, batched where the game has an engine; "fae-vector" is its old name), "dummy" or "subproc" (the scalar SelfPlayEnv, in-process or one process per env)
    n_envs: int = 256  # parallel envs (games in the batch for fae-vector)
    torch_threads: int = 1  # torch intra-op threads
    # --- PPO (sb3-contrib MaskablePPO)
    n_steps: int = 32  # steps per env per rollout
    batch_size: int = 2048  # minibatch size
    n_epochs: int = 2  # passes over each rollout
    learning_rate: float = 3e-4  # Adam step size (constant)
    gamma: float = 0.95  # discount
    gae_lambda: float = 0.9  # GAE lambda
    clip_range: float = 0.2  # PPO clip
    ent_coef: float = 0.001  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    net_arch: str = "64"  # hidden sizes of the policy and (separate) value MLPs
    skip_init: float = 3.0  # fae-vector: initial scale of the greedy-best and margin blocks added to the logits (0 = learn from nothing; the `own` and `versus` blocks start at 0)
    skip_lr_scale: float = 10.0  # fae-vector: the skip scales learn this many times faster than the weights (Adam; see tabletop_rl.ppo_policy)
    mlp_inputs: str = "board"  # fae-vector: what the MLPs read: "board" (the observation less its constant terrain block and the per-action blocks, which reach the logits through the skips) or "all"
    activation: str = "relu"  # "tanh" or "relu"
    # --- opponent pool
    pool_random: float = 1.0  # weight of the random bot among fixed opponents
    pool_greedy: float = 0.5  # weight of the greedy bot among fixed opponents (if the game has one)
    opponents: str = ""  # more fixed opponents as name=weight pairs, comma separated: any registered bot (your own via --import)
    reward_fn: str = ""  # learner core: "module:function" whose reward_fn(batch, seats, dones) -> (N,) floats is added to the reward
    imports: str = ""  # modules to import first, comma separated (e.g. one that calls register_agent for --opponents)
    snapshot_prob: float = 0.2  # chance an opponent is a snapshot of the learner (once one exists)
    snapshot_every: int = 40_000  # steps between snapshots
    max_snapshots: int = 8  # snapshots kept (oldest dropped)
    # --- warm start by behaviour cloning (before PPO; policy head only)
    bc_teacher: str = "greedy"  # bot whose moves the policy imitates before PPO ("" = no warm start)
    bc_samples: int = 0  # teacher decisions to imitate (0 = total_steps / 20, at most 100,000: the warm start scales with the run)
    bc_explore: float = 0.5  # chance each move of the cloning games is random instead of the teacher's
    bc_epochs: int = 5  # passes over the cloning data
    bc_learning_rate: float = 1e-3  # Adam step size for cloning
    bc_workers: int = 2  # processes generating the cloning data (scalar envs; Fae's batched env needs none)
    # --- evaluation and checkpoints
    eval_every: int = 100_000  # steps between evaluations (0 = only at the end)
    eval_games: int = 100  # games per opponent per periodic evaluation (seat-rotated)
    final_eval_games: int = 1000  # games per opponent in the final evaluation (0 = skip)
    eval_workers: int = 2  # processes for --evaluate's scalar games (training's evaluations run batched in the learner core)
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
    # `make train`: default Fae 2p within 15 min on 2 cores, then 1000 + 1000 evaluation games.
    # Training against greedy mostly (random is beaten from the start: the margin features), the
    # compact observation (history=none) with the `versus` action features, whose scales PPO
    # learns (they start at 0: the warm start plays like greedy). 512 games x 16 steps and
    # minibatches of 4096: fewer, larger torch calls (measured: benchmarks/bench_train.py). The
    # dense reward is the margin against the other seats' colours (seat_diff), the one that decides
    # the game; periodic evaluations of 1000 games (batched: ~1 s) make the curve readable.
    "make-train": dict(total_steps=8_000_000, time_limit_min=12.0, options="history=none,action_features=versus",
                       reward="seat_diff", n_envs=512, n_steps=16, batch_size=4096, torch_threads=2,
                       pool_random=0.25, pool_greedy=1.0, bc_samples=20_000, bc_epochs=3, eval_every=500_000,
                       eval_games=1000, checkpoint_every=500_000),
    # Fantastiqa, 2 players, within 30 minutes on 2 shared cores (24 min with the warm start, then
    # 1000 + 1000 evaluation games), on the learner core's FantastiqaBatch. Measured: docs/benchmarks.md.
    "fantastiqa": dict(
        game="fantastiqa", options="",
        max_game_steps=4000,  # a game still running after 4,000 steps is cut, not won (greedy vs random: ~700)
        cut_reward=-2.0,  # a cut pays less than a loss: from scratch, -2 is what got a learner out of stalling turns
        total_steps=6_000_000, time_limit_min=24.0,  # the time limit ends the run (measured: 3.1M steps at 2,890/s)
        reward="progress",  # score margin + public steps towards points (gems, cards, quests), score margin at the end
        gamma=0.99, gae_lambda=0.95,  # a quest takes tens of decisions: a longer horizon than Fae's
        n_envs=64, n_steps=128, batch_size=2048,  # 8,192-step rollouts in 4 minibatches: the batched core is cheap
        n_epochs=2,  # PPO updates were 75% of the time at 4 epochs; 2 gave ~1.35x the steps/s
        learning_rate=6e-4,  # at 2e-4 the policy barely moved (approx KL 0.001); 6e-4: KL ~0.004
        net_arch="128,128",  # hidden sizes of the policy and value MLPs
        pool_random=0.25, pool_greedy=1.0, snapshot_prob=0.1,  # mostly greedy: the opponent to beat
        bc_samples=250_000, bc_epochs=4, bc_explore=0.25,  # agreement with greedy 0.85 (100k, 10 epochs: 0.81)
        eval_every=500_000, eval_games=200, checkpoint_every=1_000_000),
    # Seconds, for tests and the notebook: learns nothing useful, exercises everything.
    "tiny": dict(total_steps=4096, n_envs=16, n_steps=32, batch_size=256, n_epochs=2, net_arch="32,32",
                 snapshot_every=1024, eval_every=2048, eval_games=6, final_eval_games=10, eval_workers=1,
                 checkpoint_every=1024, progress=False, bc_samples=400, bc_epochs=2, bc_workers=1),
}
PRESET_HELP = {
    "make-train": "Fae 2p, the shipped policy: up to 8M learner steps within 12 min, then 1000 + 1000 evaluation games",
    "fantastiqa": "Fantastiqa 2p on the learner core: 24 min with the warm start, then 1000 + 1000 games (<= 30 min)",
    "tiny": "seconds, for tests and the notebook: learns nothing useful, exercises everything",
}
# Each game's observation options when --options is empty: Fae adds the action-centric margin features.
GAME_OPTIONS = {"fae": "history=summary,action_features=versus"}


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
    epilog = "presets (--preset NAME; explicit flags override them):\n" + "\n".join(
        f"  {name:11s} {PRESET_HELP[name]}\n              {PRESETS[name]}" for name in PRESETS)
    parser = argparse.ArgumentParser(description=__doc__, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    cfg = Config(**{**PRESETS.get(preset, {}), **given})
    cfg._flags_given = frozenset(given)  # not a field: --resume applies or refuses exactly these (resume_config)
    return cfg


# ---------------------------------------------------------------------------- warm start
def teacher_games(*args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """tabletop_rl.agents.imitation.teacher_data, keeping the teacher's probabilities as targets when it has them."""
    from tabletop_rl.agents.imitation import teacher_data

    obs, masks, actions, probs = teacher_data(*args)
    return obs, masks, actions if probs is None else probs


def bc_samples(cfg: Config) -> int:
    """Teacher decisions to imitate: `bc_samples`, or by default total_steps / 20 (at most 100,000)."""
    return cfg.bc_samples or max(256, min(100_000, cfg.total_steps // 20))


def batched_teacher_data(cfg: Config, samples: int):
    """The greedy bot's decisions in games of the game's batched engine (`greedy_actions`; a
    `bc_explore` share of the moves random instead), against the training opponents: (obs, masks, actions)."""
    from tabletop_rl.agents.imitation import core_teacher_data

    core = make_core(cfg, num_envs=min(cfg.n_envs, samples), seed=cfg.seed * 7_919 + 101)
    core.reset()
    return core_teacher_data(core, lambda c: c.vec.greedy_actions(c.rng), samples, cfg.bc_explore)


def behaviour_clone(model, cfg: Config) -> dict:
    """Fit the policy head (MLP, action layer and skip scales) to the teacher's moves by masked cross-entropy."""
    import torch

    from tabletop_rl.agents.imitation import fit

    samples = bc_samples(cfg)
    start = time.perf_counter()
    if cfg.bc_teacher == "greedy" and resolve_vec_env(cfg) == "learner" and has_batched_greedy(cfg):
        parts = [batched_teacher_data(cfg, samples)]
    else:
        opts = parse_options(cfg.options)
        workers = max(1, min(cfg.bc_workers, samples // 1000))
        chunks = [samples * (i + 1) // workers - samples * i // workers for i in range(workers)]
        jobs = [(cfg.game, cfg.num_players, cfg.bc_teacher, n, cfg.bc_explore, cfg.seed * 7_919 + 101 * i, opts)
                for i, n in enumerate(chunks)]
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
    params += [p for name, p in policy.named_parameters() if name == "skip_param"]
    bar = None
    if cfg.progress:
        from tqdm import tqdm

        bar = tqdm(total=cfg.bc_epochs, unit="epoch", desc=f"warm start ({len(actions):,} {cfg.bc_teacher} decisions)",
                   dynamic_ncols=True)

    def on_epoch(epoch, loss):
        if bar is not None:
            bar.update(1)
            bar.set_postfix_str(f"loss {loss:.3f}")

    losses = fit(policy.action_logits, params, obs, masks, actions, cfg.bc_epochs, cfg.bc_learning_rate, cfg.seed,
                 batch=512, on_epoch=on_epoch)
    if bar is not None:
        bar.close()
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
                          cut_reward=cfg.cut_reward, **parse_options(cfg.options))
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


def resolve_vec_env(cfg: Config) -> str:
    """"learner" (the learner core; "auto" and the old name "fae-vector"), "dummy" or "subproc" (SelfPlayEnv)."""
    if cfg.vec_env not in ("auto", "learner", "fae-vector", "dummy", "subproc"):
        raise ValueError(f"vec_env must be 'auto', 'learner', 'dummy' or 'subproc'; got {cfg.vec_env!r}")
    return "learner" if cfg.vec_env in ("auto", "learner", "fae-vector") else cfg.vec_env


def learner_opponents(cfg: Config) -> dict:
    """The fixed opponents' weights: random, greedy (where the game has it) and `--opponents`."""
    from tabletop_rl.agents import agent_names

    fixed = {"random": cfg.pool_random}
    if "greedy" in agent_names(cfg.game):
        fixed["greedy"] = cfg.pool_greedy
    for name, weight in parse_options(cfg.opponents).items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise SystemExit(f"--opponents: {name}={weight!r} needs a numeric weight")
        fixed[name] = fixed.get(name, 0.0) + float(weight)
    return {k: w for k, w in fixed.items() if w > 0}


def user_reward(cfg: Config):
    """The `--reward-fn module:function` callable, or None."""
    if not cfg.reward_fn:
        return None
    import importlib

    module, _, name = cfg.reward_fn.partition(":")
    fn = getattr(importlib.import_module(module), name, None) if name else None
    if not callable(fn):
        raise SystemExit(f"--reward-fn must name a callable as module:function; got {cfg.reward_fn!r}")
    return fn


def make_core(cfg: Config, num_envs: int, seed: int, **overrides):
    """The learner core (`tabletop_rl.envs.learner.make_learner_core`) for `cfg`: the one place its
    arguments are spelled out (training, warm start)."""
    from tabletop_rl.envs.learner import make_learner_core

    kwargs = dict(opponents=learner_opponents(cfg), snapshot_prob=cfg.snapshot_prob, max_snapshots=cfg.max_snapshots,
                  reward=cfg.reward, win_bonus=cfg.win_bonus, reward_scale=cfg.reward_scale, reward_fn=user_reward(cfg),
                  max_steps=cfg.max_game_steps or None, cut_reward=cfg.cut_reward, seed=seed)
    kwargs.update(overrides)
    try:
        return make_learner_core(cfg.game, num_envs, cfg.num_players, **kwargs, **parse_options(cfg.options))
    except ValueError as exc:
        raise SystemExit(f"train.py: {exc}") from None


def has_batched_greedy(cfg: Config) -> bool:
    from tabletop_rl.envs.learner import batch_class

    return hasattr(batch_class(cfg.game), "greedy_actions")


def policy_layout(cfg: Config) -> tuple[tuple, tuple, tuple | None]:
    """(skip_starts, skip_init, mlp_inputs) of the policy: the game's per-action observation blocks
    that reach the logits through learned scales (Fae's `action_features`, `fae_rl.features`), and
    the inputs its MLPs read; a game without such blocks gets none and an MLP over everything."""
    if cfg.game != "fae":
        return (), (), None
    from fae_rl.features import feature_layout
    from fae_rl.observation import observation_layout, observation_size

    opts = parse_options(cfg.options)
    history = opts.get("history", "summary")
    layout = feature_layout(history, opts.get("action_features", "none"))
    skip_starts = tuple(sl.start for sl in layout.values())
    skip_init = tuple(cfg.skip_init if name in ("margin", "best") else 0.0 for name in layout)
    if cfg.mlp_inputs not in ("board", "all"):
        raise ValueError(f"mlp_inputs must be 'board' or 'all'; got {cfg.mlp_inputs!r}")
    mlp_inputs = None
    if cfg.mlp_inputs == "board":
        terrain = observation_layout(history)["terrain"]
        mlp_inputs = tuple(i for i in range(observation_size(history)) if not terrain.start <= i < terrain.stop)
    return skip_starts, skip_init, mlp_inputs


def build(cfg: Config, pool):
    """(vec_env, model) for `cfg`; seeds everything from cfg.seed."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from tabletop_rl.ppo_policy import SkipPolicy

    torch.set_num_threads(cfg.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # SB3 builds a masked Categorical per call: ~10% of an update
    if resolve_vec_env(cfg) == "learner":
        from tabletop_rl.envs.learner_envs import LearnerVecEnv

        venv = LearnerVecEnv(make_core(cfg, cfg.n_envs, cfg.seed))
    else:
        factories = [_EnvFactory(cfg, pool, i) for i in range(cfg.n_envs)]
        venv = DummyVecEnv(factories) if resolve_vec_env(cfg) == "dummy" else SubprocVecEnv(factories, start_method="spawn")
    skip_starts, skip_init, mlp_inputs = policy_layout(cfg)
    venv = TimedVecEnv(venv)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    hidden = [int(h) for h in cfg.net_arch.split(",") if h.strip()]
    model = MaskablePPO(
        SkipPolicy, venv, n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
        ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, seed=cfg.seed, device="cpu",
        policy_kwargs=dict(net_arch=dict(pi=hidden, vf=hidden), activation_fn=act, skip_starts=skip_starts,
                           skip_init=skip_init, mlp_inputs=mlp_inputs, skip_lr_scale=cfg.skip_lr_scale), verbose=0,
    )
    return venv, model


def policy_weights(model, cfg: Config):
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    return PolicyWeights.from_sb3(model, meta={"game": cfg.game, "num_players": cfg.num_players,
                                               "options": parse_options(cfg.options), "trained_steps": int(model.num_timesteps)})


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
                if resolve_vec_env(cfg) == "learner":
                    venv.unwrapped.core.add_snapshot(policy_weights(self.model, cfg))
                else:
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
                row = eval_policy(weights, cfg, opp, cfg.eval_games, seed=10_000 + steps)
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
            ckpt = {
                "num_timesteps": steps, "n_updates": model._n_updates,
                "policy": dict(model.policy.state_dict()), "optimizer": model.policy.optimizer.state_dict(),
                "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()},
                "last_obs": model._last_obs, "last_episode_starts": model._last_episode_starts,
                "ep_info_buffer": list(model.ep_info_buffer), "history": history, "config": dataclasses.asdict(cfg),
            }
            if resolve_vec_env(cfg) == "learner":  # the learner core's state (the key's name predates the core)
                meta, arrays = venv.unwrapped.core.get_state()
                ckpt["fae_vector"] = {"meta": meta, "arrays": arrays}
            else:
                ckpt["pool"] = pool.state_dict()
                ckpt["envs"] = venv.env_method("get_snapshot")
                ckpt["monitors"] = {k: venv.get_attr(k) for k in ("rewards", "needs_reset", "episode_returns", "episode_lengths")}
            os.makedirs(os.path.join(run_dir, "checkpoints"), exist_ok=True)
            save_checkpoint(os.path.join(run_dir, "checkpoints", f"ckpt_{steps:010d}.pt"), ckpt)
            prune_checkpoints(run_dir, cfg.keep_checkpoints)

        def _on_training_end(self):
            history["wall_seconds"] = time.perf_counter() - self.t_start
            history["env_seconds"] = venv.env_seconds - self.env_at_start
            if self.bar is not None:
                self.bar.close()

    return Hooks()


def restore(ckpt: dict, model, venv, pool, history: dict) -> None:
    """Load a checkpoint (`tabletop_rl.training.load_checkpoint`'s dict) into a freshly built (model, venv, pool); RNG states last."""
    import torch

    model.policy.load_state_dict(ckpt["policy"])
    model.policy.optimizer.load_state_dict(ckpt["optimizer"])
    model.num_timesteps = int(ckpt["num_timesteps"])
    model._n_updates = int(ckpt["n_updates"])
    if "fae_vector" in ckpt:
        venv.unwrapped.core.set_state(ckpt["fae_vector"]["meta"], ckpt["fae_vector"]["arrays"])
    else:
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


def restores_cleanly(cfg: Config, ckpt: dict) -> None:
    """`restore` into a scratch (pool, venv, model) for cfg, then discard them: raises whatever a
    damaged checkpoint raises, before the run picks it (`latest_valid_checkpoint`)."""
    pool = make_pool(cfg)
    venv, model = build(cfg, pool)
    try:
        check_checkpoint(ckpt, dataclasses.asdict(cfg), venv.num_envs, venv.observation_space.shape)
        restore(ckpt, model, venv, pool, {})
    finally:
        venv.close()


def eval_policy(weights, cfg: Config, opponent: str, games: int, seed: int) -> dict:
    """Seat-rotated win share of `weights` against `opponent`: `tabletop_rl.training.evaluate_policy`,
    every game at once in the learner core (batched where the game has an engine)."""
    return evaluate_policy(weights, cfg.game, cfg.num_players, opponent, games, seed, parse_options(cfg.options),
                           max_steps=cfg.max_game_steps)


# ---------------------------------------------------------------------------- main
def train(cfg: Config) -> dict:
    """Train as `cfg` says; returns the run's summary. SB3's and gymnasium's UserWarnings (render_mode
    and the like) are silenced inside the run only: the caller's warning filters are left as they were."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        return _train(cfg)


def _train(cfg: Config) -> dict:
    from tabletop_rl.extras import require_extra

    import_modules(cfg)
    if cfg.backend == "rllib":
        require_extra("rllib", ("ray", "torch"), "--backend rllib")  # before the run folder is made
        from tabletop_rl.envs.rllib_backend import train_rllib  # imports ray/torch lazily; needs the rllib extra

        return train_rllib(cfg)
    if cfg.backend != "sb3":
        raise SystemExit(f"--backend must be 'sb3' or 'rllib'; got {cfg.backend!r}")
    require_extra("train", ("torch", "stable_baselines3", "sb3_contrib"), "training with --backend sb3")
    from stable_baselines3.common.logger import configure

    from tabletop_rl.agents import agent_names

    if cfg.resume:
        run_dir = cfg.resume if os.path.isdir(cfg.resume) else os.path.join(cfg.runs_dir, cfg.resume)
        try:
            saved = read_run_config(run_dir, Config)
            fields, applied = resume_config(saved, explicit_fields(cfg))
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
        cfg = Config(**fields)
        print(f"--resume: applied {'; '.join(applied)}" if applied else "--resume: the run's saved config, unchanged",
              file=sys.stderr)
        found = latest_valid_checkpoint(run_dir, restores=lambda c: restores_cleanly(cfg, c))
        if found is None:
            raise SystemExit(f"--resume: no valid checkpoint in {run_dir}/checkpoints (each one skipped is named above)")
        ckpt_path, ckpt = found
    else:
        if not cfg.options:
            cfg.options = GAME_OPTIONS.get(cfg.game, "")
        if not cfg.run_name:
            cfg.run_name = f"{cfg.game}_{cfg.num_players}p_s{cfg.seed}_{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
        run_dir = os.path.join(cfg.runs_dir, cfg.run_name)
        if os.path.exists(os.path.join(run_dir, "checkpoints")):
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
        history["total_steps"] = total  # the total of this run, which --total-steps may have changed
        print(f"resumed {run_dir} from {os.path.basename(ckpt_path)} at step {model.num_timesteps:,}", file=sys.stderr)
        _atomic_write_text(os.path.join(run_dir, f"resumed_{model.num_timesteps:010d}.json"), json.dumps(
            {"checkpoint": os.path.basename(ckpt_path), "num_timesteps": model.num_timesteps}))
    else:
        if cfg.bc_teacher:
            print(f"warm start: imitating {cfg.bc_teacher} on {bc_samples(cfg):,} decisions ...", file=sys.stderr, flush=True)
            history["bc"] = behaviour_clone(model, cfg)
            bc = history["bc"]
            print(f"  {bc['data_seconds']:.0f} s of teacher games, {bc['fit_seconds']:.0f} s fitting, "
                  f"loss {bc['loss_by_epoch'][0]:.2f} -> {bc['loss_by_epoch'][-1]:.2f}", file=sys.stderr, flush=True)
        if cfg.eval_every:  # where PPO starts from, on the learning curve
            weights = policy_weights(model, cfg)
            for opp in history["eval_opponents"]:
                row = eval_policy(weights, cfg, opp, cfg.eval_games, seed=10_000)
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
    tmp = os.path.join(run_dir, "model.zip.tmp")
    with open(tmp, "wb") as f:  # atomically: a crash never leaves a truncated model.zip
        model.save(f)
    os.replace(tmp, os.path.join(run_dir, "model.zip"))
    weights.save(os.path.join(run_dir, "policy.npz"))
    final, eval_seconds = [], 0.0
    if cfg.final_eval_games:
        print(f"evaluating over {cfg.final_eval_games} seat-rotated games per opponent ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        for opp in history["eval_opponents"]:
            row = eval_policy(weights, cfg, opp, cfg.final_eval_games, seed=999_983)
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
                       "vec_env": resolve_vec_env(cfg), "n_envs": cfg.n_envs, "torch_threads": cfg.torch_threads},
        "final_eval": final, "final_eval_seconds": eval_seconds, "evals": history["evals"],
    }
    _atomic_write_text(os.path.join(run_dir, "summary.json"), json.dumps(summary, indent=2))
    print_summary(summary)
    return summary


def evaluate_only(cfg: Config) -> list[dict]:
    """`--evaluate PATH`: the final evaluation of a saved policy, printed as in the summary."""
    import_modules(cfg)
    from tabletop_rl.agents import agent_names
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    try:  # a malformed file or meta (meta.game 5 or "nope") is a usage error naming the problem
        weights = PolicyWeights.load(cfg.evaluate)
    except ValueError as exc:
        raise SystemExit(f"train.py --evaluate: {exc}") from None
    meta = weights.meta
    if meta.get("game"):
        # The policy says what it was trained on: evaluate it there, with its own options (history, features).
        opts = ",".join(f"{k}={v}" for k, v in (meta.get("options") or {}).items())
        cfg = dataclasses.replace(cfg, game=meta["game"], num_players=int(meta.get("num_players", cfg.num_players)),
                                  options=opts)
        print(f"{cfg.evaluate} was trained on {cfg.game} ({cfg.num_players} players, options {opts or 'none'}): "
              f"evaluating there", flush=True)
    rows = []  # in the scalar envs (the arena's code path), an independent check of the batched evaluation
    for opp in [o for o in ("random", "greedy") if o in agent_names(cfg.game)]:
        r = evaluate(weights, cfg, opp, cfg.final_eval_games, seed=999_983, workers=cfg.eval_workers)
        rows.append(r)
        print(f"{cfg.evaluate} vs {opp:7s} win share {r['win_share']:.3f}  95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
              f"  ({r['games']} seat-rotated games, {r['seconds']:.0f} s)", flush=True)
    return rows


def import_modules(cfg: Config) -> None:
    """`--imports`: the user's modules (e.g. one registering its bots with `register_agent`)."""
    import importlib

    for name in filter(None, (m.strip() for m in cfg.imports.split(","))):
        importlib.import_module(name)


def main(argv=None) -> int:
    from tabletop_rl.agents.base import limit_blas_threads

    from tabletop_rl.extras import MissingExtraError

    cfg = parse_args(argv)
    limit_blas_threads()  # snapshot opponents and evaluations play numpy policies
    try:
        if cfg.evaluate:
            evaluate_only(cfg)
        else:
            train(cfg)
    except MissingExtraError as exc:
        raise SystemExit(f"error: {exc}") from None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
