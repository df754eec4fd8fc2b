"""Train on a Ray cluster (or this machine) with RLlib PPO: the `rllib` backend of `train.py`.

    python -m tabletop_rl.training.rllib --game fae --players 2 --num-env-runners 2 --timesteps 200000
    python -m tabletop_rl.training.rllib --address auto ...             # join a running Ray cluster
    python -m tabletop_rl.training.rllib --run-dir runs/rllib/x --resume # continue from the last checkpoint
    python -m tabletop_rl.agents.arena --game fae --players 2 --import tabletop_rl.agents.rllib_agent \\
        --agents rllib:path=runs/rllib/x/policy.npz greedy --games 200

Needs the `rllib` extra in its own environment (`ray[rllib]` pins its own gymnasium):
`make test-rllib` / `make train-rllib` create `.venv-rllib`.

What a run does:
- Env: `tabletop_rl.training.rllib_env.RLlibGameEnv` (any registered game, 2-4 players), one env per env runner
  (`--num-env-runners`, remote Ray actors; 0 samples in the driver) times
  `--num-envs-per-env-runner`.
- Model: `tabletop_rl.training.rllib_env.MaskedPPOTorchRLModule` (RLlib's default PPO module plus the action
  masking of RLlib's `ActionMaskingTorchRLModule` example), separate actor and critic MLPs
  (`--net-arch`, `--activation`): the one trained module `main`, the learner at one seat of each
  game (the env is the learner core's face: `SelfPlayEnv` underneath). The other seats are ONE
  opponent per episode from the core's pool: `--opponent random=1 --opponent greedy=0.5` (suite
  bots, played inside the env; default random) or, with chance `--league-prob` once any exist, a
  frozen numpy copy of `main` (`--league-size k` keeps the k latest; `LeagueCallback` adds one every
  `--league-every` env steps), as train.py's pool does; from train.py's Config,
  pool_random/pool_greedy/opponents, max_snapshots, snapshot_prob and snapshot_every map onto
  opponents / league_size / league_prob / league_every.
- Warm start (`--bc-teacher greedy`, train.py's bc_* fields): before PPO, main's policy imitates
  the teacher on `--bc-samples` decisions (masked cross-entropy), as train.py does.
- Every `--checkpoint-every` env steps and at the end: an RLlib checkpoint (`Algorithm.save_to_path`)
  in `<run-dir>/checkpoint`, the exported policy `<run-dir>/policy.npz` (numpy MLP weights, the
  format of `tabletop_rl.agents.ppo_agent.PolicyWeights`, checked against the torch module on export) and
  `<run-dir>/progress.json` (per-iteration throughput and evaluations). `--resume` restores the
  checkpoint (`Algorithm.restore_from_path`) and continues to `--timesteps`.
- Evaluation every `--eval-every` env steps and at the end (`--final-eval-games`): `--eval-games`
  games of the exported policy (most probable legal action) against each of `--eval-opponents`, seats
  rotating, every draw from `--seed`: `tabletop_rl.training.evaluate_policy`, train.py's evaluation. Win
  share counts a shared win as 1/k. `--target-win-rate` stops the run once the win share against the first
  eval opponent reaches it.

Steps: "env steps" count the learner's moves RLlib samples (opponent moves are not counted), as
train.py's steps do. `--time-limit-min` counts training iterations only (not the
warm start or evaluations).

Threads and niceness: torch runs one intra-op thread per process (`torch_threads`), and a local
Ray started here runs its workers at nice 0 instead of Ray's default 15; both were measured to
matter on a shared 2-core machine (module comments).

Seeds: `--seed` seeds RLlib (`config.debugging(seed=...)`: torch and each env runner), the envs
(`env_config["seed"]`, mixed with the runner and vector index) and the evaluation games. With more
than one env runner, sampling order depends on timing, so runs are reproducible in distribution,
not bit for bit (RLlib's own limitation).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tabletop_rl.envs.rewards import AEC_REWARDS, check_reward
from tabletop_rl.options import parse_options

# train.py's (SB3-style) names -> this module's names, where they mean the same thing.
ALIASES = {
    "total_steps": "timesteps",
    "batch_size": "minibatch_size",
    "snapshot_prob": "league_prob",
    "snapshot_every": "league_every",
    "max_snapshots": "league_size",
    "n_epochs": "num_epochs",
    "total_timesteps": "timesteps",
    "players": "num_players",
    "clip_range": "clip_param",
    "ent_coef": "entropy_coeff",
    "vf_coef": "vf_loss_coeff",
    "max_grad_norm": "grad_clip",
    "out": "run_dir",
}


@dataclass
class RLlibFields:
    """train.py's RLlib-only settings (`--backend rllib`): train.py's `Config` inherits them, and
    `config_from` maps the rest of a train.py Config onto `RLlibTrainConfig`."""

    address: str = ""  # rllib: Ray cluster to join ("auto" after `ray start`, or ray://host:10001); "" starts a local Ray
    num_env_runners: int = 2  # rllib: sampling actors (Ray actors, 1 CPU each; 0 = sample in the driver)
    num_envs_per_env_runner: int = 1  # rllib: envs per sampling actor
    target_win_rate: float = 0.0  # rllib: stop once the win share vs random reaches this (0 = off)


@dataclass
class RLlibTrainConfig:
    """Hyper-parameters of an RLlib run. The first block means the same as in train.py."""

    game: str = "fae"
    num_players: int = 2
    options: dict = field(default_factory=dict)  # rule / observation options of the game
    reward: str = "win_loss"  # or "score_diff" (the AEC env's dense reward)
    win_bonus: float = 0.0  # score_diff only: + win_bonus x the win_loss return at the end
    reward_scale: float = 1.0  # every reward is multiplied by this
    seed: int = 0
    timesteps: int = 200_000  # env steps (one per move) sampled in total
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.01
    vf_loss_coeff: float = 0.5
    grad_clip: float | None = 0.5
    num_epochs: int = 10
    train_batch_size: int = 4000  # env steps per PPO update
    minibatch_size: int = 256
    net_arch: tuple = (256, 256)
    activation: str = "tanh"  # or "relu"
    eval_games: int = 200  # games per opponent per evaluation (seats alternate)
    final_eval_games: int = 0  # games per opponent in the final evaluation (0: eval_games)
    eval_opponents: tuple = ("random", "greedy")
    eval_every: int = 0  # env steps between evaluations; 0: only at the end
    run_dir: str = ""  # default runs/rllib/<game>_<players>p_seed<seed>
    resume: bool = False
    checkpoint_every: int = 40_000  # env steps between checkpoints (0: only at the end)
    time_limit_min: float = 0.0  # stop after this many minutes of training (0: no limit)
    target_win_rate: float | None = None  # stop once the win share vs eval_opponents[0] reaches it
    # RLlib-only
    address: str | None = None  # Ray cluster to join ("auto", "ray://host:10001", ...); None: start a local one
    num_env_runners: int = 2
    num_envs_per_env_runner: int = 1
    num_cpus_per_env_runner: float = 1.0
    torch_threads: int = 1  # torch intra-op threads in the driver (learner) and each env runner
    rollout_fragment_length: int | str = "auto"
    opponents: dict = field(default_factory=dict)  # bots at the other seats, by weight: {"random": 1, "greedy": 0.5} ({}: random)
    league_size: int = 0  # frozen snapshots of main kept in the opponent pool (0: none)
    league_prob: float = 0.5  # per episode: chance the opponent is a frozen snapshot instead of a bot
    league_every: int = 40_000  # env steps between snapshot refreshes (rounded to whole iterations)
    # Warm start by behaviour cloning (as train.py): before PPO, fit main's policy (actor MLP and
    # action head) to a teacher bot's moves by masked cross-entropy. "" = no warm start.
    bc_teacher: str = ""
    bc_samples: int = 50_000  # teacher decisions to imitate
    bc_explore: float = 0.5  # chance each move of the cloning games is random instead of the teacher's
    bc_epochs: int = 8
    bc_learning_rate: float = 1e-3
    max_iterations: int | None = None  # stop after this many iterations (tests)
    quiet: bool = False

    def validate(self) -> "RLlibTrainConfig":
        from tabletop_rl.envs.registry import get_game

        spec = get_game(self.game)
        if not spec.min_players <= self.num_players <= spec.max_players:
            raise ValueError(f"{spec.name} takes {spec.min_players}..{spec.max_players} players; got {self.num_players}")
        positive = ("timesteps", "num_epochs", "train_batch_size", "minibatch_size", "num_envs_per_env_runner",
                    "league_every")
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"activation must be 'tanh' or 'relu'; got {self.activation!r}")
        if self.win_bonus and self.reward != "score_diff":
            raise ValueError("win_bonus is for reward='score_diff' only")
        for name in positive:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an int >= 1; got {v!r}")
        if isinstance(self.torch_threads, bool) or not isinstance(self.torch_threads, int) or self.torch_threads < 1:
            raise ValueError(f"torch_threads must be an int >= 1; got {self.torch_threads!r}")
        for name in ("num_env_runners", "league_size", "eval_games", "final_eval_games", "eval_every", "checkpoint_every"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"{name} must be an int >= 0; got {v!r}")
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(f"minibatch_size ({self.minibatch_size}) must be <= train_batch_size ({self.train_batch_size})")
        if not 0.0 <= self.league_prob <= 1.0:
            raise ValueError(f"league_prob must be in [0, 1]; got {self.league_prob}")
        if any(not isinstance(w, (int, float)) or w < 0 for w in self.opponents.values()):
            raise ValueError(f"opponents must map bot names to weights >= 0; got {self.opponents!r}")
        if not self.net_arch or any(int(h) < 1 for h in self.net_arch):
            raise ValueError(f"net_arch must list hidden layer sizes >= 1; got {self.net_arch!r}")
        if self.bc_teacher and (self.bc_samples < 1 or self.bc_epochs < 1 or not 0.0 <= self.bc_explore <= 1.0):
            raise ValueError(f"behaviour cloning needs bc_samples >= 1, bc_epochs >= 1 and bc_explore in [0, 1]; got "
                             f"{self.bc_samples}, {self.bc_epochs}, {self.bc_explore}")
        if self.eval_games and not self.eval_opponents:
            raise ValueError("eval_opponents must name at least one bot when eval_games > 0")
        if self.target_win_rate is not None and not self.eval_games:
            raise ValueError("target_win_rate needs eval_games > 0 (it is measured by the evaluation)")
        check_reward(self.reward, AEC_REWARDS)
        from tabletop_rl.agents.registry import make_agent

        from tabletop_rl import agents  # noqa: F401  (registers the built-in bots)
        for name in self.eval_opponents + ((self.bc_teacher,) if self.bc_teacher else ()) + tuple(self.opponents):
            make_agent(spec.name, name, seed=0)  # raises, naming the known bots
        if not self.run_dir:
            self.run_dir = f"runs/rllib/{spec.name}_{self.num_players}p_seed{self.seed}"
        return self


def config_from(config) -> RLlibTrainConfig:
    """An `RLlibTrainConfig` from a dict or any dataclass (e.g. train.py's); names in `ALIASES` are
    translated, fields RLlib has no use for (SB3-only ones) are ignored."""
    if isinstance(config, RLlibTrainConfig):
        return config
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        config = dataclasses.asdict(config)
    if not isinstance(config, dict):
        raise TypeError(f"train_rllib takes a dict or a dataclass instance; got {type(config).__name__}")
    config = {k: v for k, v in config.items() if v is not None}
    # train.py's `opponents` is a string of more name=weight pairs, added to its pool_random/pool_greedy
    extra = parse_options(config.pop("opponents"), what="--opponents") if isinstance(config.get("opponents"), str) \
        else {}
    if "pool_random" in config or "pool_greedy" in config:  # train.py's fixed-bot weights
        config.setdefault("opponents", {name: float(config.get(f"pool_{name}", 0.0)) for name in ("random", "greedy")
                                        if float(config.get(f"pool_{name}", 0.0)) > 0})
    if extra:
        config["opponents"] = dict(config.get("opponents", {}))
        for name, weight in extra.items():
            config["opponents"][name] = config["opponents"].get(name, 0.0) + weight
    if config.get("bc_samples") == 0:  # train.py's "scale with the run": the same rule as train.bc_samples
        config["bc_samples"] = max(256, min(100_000, int(config.get("total_steps", config.get("timesteps", 0))) // 20))
    for key in ("target_win_rate", "max_iterations", "address"):  # train.py's "off" values: 0 / ""
        if key in config and not config[key]:
            del config[key]
    # train.py spellings: n_steps is per env (x n_envs = samples per update), options and net_arch
    # are strings, the run lives in runs_dir/run_name, resume names the run directory.
    if "n_steps" in config:
        config.setdefault("train_batch_size", int(config["n_steps"]) * int(config.get("n_envs", 1)))
    if isinstance(config.get("options"), str):
        config["options"] = parse_options(config["options"])
    if isinstance(config.get("net_arch"), str):
        config["net_arch"] = tuple(int(h) for h in config["net_arch"].split(",") if h.strip())
    if isinstance(config.get("eval_opponents"), str):  # train.py's comma list; "" is the default pair
        listed = tuple(n.strip() for n in config["eval_opponents"].split(",") if n.strip())
        if listed:
            config["eval_opponents"] = listed
        else:
            del config["eval_opponents"]
    if isinstance(config.get("resume"), str):
        if config["resume"]:  # as train.py: a run directory, or a run name under runs_dir
            run = config["resume"]
            config.setdefault("run_dir", run if os.path.isdir(run) else os.path.join(config.get("runs_dir") or "runs", run))
        config["resume"] = bool(config["resume"])
    if "progress" in config and isinstance(config["progress"], bool):  # train.py's progress bar flag
        config.setdefault("quiet", not config["progress"])
    if not config.get("run_dir") and config.get("run_name"):
        config["run_dir"] = os.path.join(config.get("runs_dir") or "runs", config["run_name"])
    names = {f.name for f in dataclasses.fields(RLlibTrainConfig)}
    kwargs = {}
    for key, value in config.items():
        key = ALIASES.get(key, key)
        if key in names and value is not None:
            kwargs[key] = tuple(value) if key in ("net_arch", "eval_opponents") else value
    return RLlibTrainConfig(**kwargs)


# ------------------------------------------------------------------------------- RLlib pieces
def _league_callback_class():
    from ray.rllib.callbacks.callbacks import RLlibCallback

    from tabletop_rl.agents.rllib_agent import export_policy
    from tabletop_rl.training.rllib_env import MAIN

    class LeagueCallback(RLlibCallback):
        """The league: a numpy copy of `main` (`export_policy`) joins every env's opponent pool (the
        learner core's, `RLlibGameEnv.add_snapshot`) when the algorithm starts (or resumes) and then
        every `league_every` iterations, as train.py adds its snapshots; each pool keeps the
        `league_size` latest. Stateless apart from the algorithm's iteration counter."""

        def __init__(self, league_every: int):
            super().__init__()
            self.every = league_every  # iterations

        @staticmethod
        def _share(algorithm) -> int:
            """Add main's numpy copy to every env; returns how many envs got it."""
            weights = export_policy(algorithm.get_module(MAIN), {"iteration": algorithm.iteration})

            def add(runner) -> int:
                envs = getattr(getattr(runner, "env", None), "envs", None) or []  # a local runner may have none
                for env in envs:
                    env.unwrapped.add_snapshot(weights)
                return len(envs)

            return sum(algorithm.env_runner_group.foreach_env_runner(add, local_env_runner=True))

        def on_algorithm_init(self, *, algorithm, **kwargs) -> None:
            self._share(algorithm)

        def on_train_result(self, *, algorithm, result, **kwargs) -> None:
            if algorithm.iteration % self.every == 0:
                result["league_envs"] = self._share(algorithm)

    return LeagueCallback


def build_algo_config(cfg: RLlibTrainConfig):
    """The RLlib `PPOConfig` for `cfg` (does not start Ray)."""
    import functools

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from tabletop_rl.training.rllib_env import MAIN, MaskedPPOTorchRLModule, RLlibGameEnv, module_for_agent

    env_config = {"game": cfg.game, "num_players": cfg.num_players, "options": {**cfg.options, "reward": cfg.reward},
                  "win_bonus": cfg.win_bonus, "reward_scale": cfg.reward_scale, "seed": cfg.seed,
                  "opponents": dict(cfg.opponents) or {"random": 1.0},
                  "snapshot_prob": cfg.league_prob if cfg.league_size else 0.0, "max_snapshots": max(1, cfg.league_size)}
    model_config = {"fcnet_hiddens": [int(h) for h in cfg.net_arch], "fcnet_activation": cfg.activation,
                    "vf_share_layers": False, "head_fcnet_hiddens": []}
    config = (
        PPOConfig()
        .environment(RLlibGameEnv, env_config=env_config)
        .env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=cfg.num_envs_per_env_runner,
                     num_cpus_per_env_runner=cfg.num_cpus_per_env_runner,
                     rollout_fragment_length=cfg.rollout_fragment_length)
        .multi_agent(policies={MAIN}, policy_mapping_fn=module_for_agent, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            MAIN: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config)}))
        .training(lr=cfg.learning_rate, gamma=cfg.gamma, lambda_=cfg.gae_lambda, clip_param=cfg.clip_param,
                  entropy_coeff=cfg.entropy_coeff, vf_loss_coeff=cfg.vf_loss_coeff, grad_clip=cfg.grad_clip,
                  num_epochs=cfg.num_epochs, train_batch_size_per_learner=cfg.train_batch_size,
                  minibatch_size=cfg.minibatch_size)
        .debugging(seed=cfg.seed, log_level="ERROR")
    )
    if cfg.league_size:
        every = max(1, round(cfg.league_every / cfg.train_batch_size))
        config = config.callbacks(functools.partial(_league_callback_class(), league_every=every))
    return config


# ------------------------------------------------------------------------------- warm start
def behaviour_clone(algo, cfg: "RLlibTrainConfig") -> dict:
    """Fit `main`'s actor MLP and action head to the teacher's moves (masked cross-entropy, Adam),
    then load the result into the learner and the env runners."""
    from tabletop_rl.agents.imitation import fit, teacher_data
    from tabletop_rl.training.rllib_env import MAIN, MaskedPPOTorchRLModule

    start = time.perf_counter()
    obs, masks, actions, probs = teacher_data(cfg.game, cfg.num_players, cfg.bc_teacher, cfg.bc_samples,
                                              cfg.bc_explore, cfg.seed * 7_919 + 101, cfg.options)
    targets = actions if probs is None else probs  # soft targets when the teacher has them, as train.py
    data_seconds = time.perf_counter() - start
    learner_module = algo.get_module(MAIN)
    module = MaskedPPOTorchRLModule(observation_space=learner_module.observation_space,
                                    action_space=learner_module.action_space,
                                    model_config=learner_module.model_config)
    module.set_state(learner_module.get_state())
    actor = getattr(module.encoder, "actor_encoder", module.encoder)
    params = list(actor.parameters()) + list(module.pi.parameters())
    from ray.rllib.core.models.base import ENCODER_OUT

    losses = fit(lambda x: module.pi(actor({"obs": x})[ENCODER_OUT]), params, obs, masks, targets,
                 cfg.bc_epochs, cfg.bc_learning_rate, cfg.seed)
    n = len(actions)
    algo.set_state({"learner_group": {"learner": {"rl_module": {MAIN: module.get_state()}}}})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, policies=[MAIN],
                                       inference_only=True)
    return {"teacher": cfg.bc_teacher, "samples": n, "data_seconds": round(data_seconds, 1),
            "fit_seconds": round(time.perf_counter() - start - data_seconds, 1),
            "loss_by_epoch": [round(x, 4) for x in losses]}


# ------------------------------------------------------------------------------- evaluation
def evaluate(policy, game: str, num_players: int, opponents, games: int, seed: int, options: dict | None = None) -> dict:
    """Win share of `policy` (the exported numpy policy) against each bot over `games` seat-rotated
    games: `tabletop_rl.training.evaluate_policy`, the one evaluation of every backend."""
    from tabletop_rl.training import evaluate_policy

    return {name: evaluate_policy(policy, game, num_players, name, games, seed, options)["win_share"]
            for name in opponents}


# ------------------------------------------------------------------------------- the driver
def _init_ray(cfg: RLlibTrainConfig) -> bool:
    """Connects to `cfg.address` or starts a local Ray; returns True if this call started it."""
    import ray

    if ray.is_initialized():
        return False
    root = str(Path(__file__).resolve().parent.parent)
    # One torch thread per process by default: RLlib's per-step forward passes are tiny, and
    # with several threads per process on busy cores OpenMP's spinning made a 1583x256 layer take
    # ~4 ms instead of ~50 us (measured: 37 env steps/s end to end, against hundreds with 1 thread).
    threads = str(cfg.torch_threads)
    runtime_env = {"env_vars": {"PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", ""),
                                "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}}
    if cfg.address:
        # Cluster nodes need the suite installed (pip install -e ".[rllib]") or this checkout on the
        # same path; the env var above covers the latter.
        ray.init(address=cfg.address, runtime_env=runtime_env, log_to_driver=not cfg.quiet)
    else:
        # Ray runs its workers (our env runners) at nice 15 by default; on a shared machine that
        # starves sampling behind any other job, so a local Ray started here runs them at 0.
        os.environ.setdefault("RAY_worker_niceness", "0")
        ray.init(num_cpus=max(1, int(np.ceil(cfg.num_env_runners * cfg.num_cpus_per_env_runner))) + 1,
                 include_dashboard=False, runtime_env=runtime_env, log_to_driver=not cfg.quiet)
    return True


def _env_steps(result: dict) -> int:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    v = result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED_LIFETIME)
    if v is None:
        v = result.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0)
    return int(v)


# What a resumed run may not change (the env, the modules and their shapes).
STRUCTURAL = ("game", "num_players", "options", "reward", "net_arch", "league_size")


def _write_json(path: Path, data) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def _norm(v):
    return json.loads(json.dumps(v))


def train_rllib(config) -> dict:
    """Train (or resume) a run; returns its summary (also in `<run_dir>/progress.json`)."""
    cfg = config_from(config).validate()
    run_dir = Path(cfg.run_dir).resolve()
    ckpt_dir = run_dir / "checkpoint"
    progress_path = run_dir / "progress.json"
    if cfg.resume and not (ckpt_dir.exists() and progress_path.exists()):
        raise FileNotFoundError(f"--resume: no checkpoint in {ckpt_dir} (and {progress_path}); train without --resume first")
    if not cfg.resume and ckpt_dir.exists():
        raise FileExistsError(f"{ckpt_dir} exists; pass --resume to continue that run or choose another --run-dir")
    if cfg.resume:
        old = json.loads(progress_path.read_text())["config"]
        changed = [k for k in STRUCTURAL if _norm(old.get(k)) != _norm(getattr(cfg, k))]
        if changed:
            raise ValueError(f"--resume: {', '.join(f'{k} was {old.get(k)!r}, now {getattr(cfg, k)!r}' for k in changed)}; "
                             f"a run resumes with the same game, options and model (or start a new --run-dir)")
    run_dir.mkdir(parents=True, exist_ok=True)
    from tabletop_rl.agents.rllib_agent import export_policy

    import ray
    import torch

    torch.set_num_threads(cfg.torch_threads)
    started = _init_ray(cfg)
    algo = None
    try:
        algo = build_algo_config(cfg).build_algo()
        progress = {"config": dataclasses.asdict(cfg), "iterations": [], "evaluations": []}
        if cfg.resume:
            progress = json.loads(progress_path.read_text())
            algo.restore_from_path(str(ckpt_dir))
            # progress.json is written every iteration, the checkpoint every checkpoint_every: drop
            # what the checkpoint does not contain.
            for key in ("iterations", "evaluations"):
                progress[key] = [r for r in progress[key] if r["iteration"] <= algo.iteration]
            progress.pop("finished", None)
            progress["config"] = dataclasses.asdict(cfg)
        log = (lambda *a: None) if cfg.quiet else (lambda *a: print(*a, flush=True))
        log(f"[rllib] {cfg.game} {cfg.num_players}p, {cfg.num_env_runners} env runner(s), league {cfg.league_size}, "
            f"run dir {run_dir}, Ray {'joined ' + cfg.address if cfg.address else 'local'}"
            + (f", resumed at iteration {algo.iteration}" if cfg.resume else ""))
        steps = progress["iterations"][-1]["env_steps"] if progress["iterations"] else 0
        meta = {"game": cfg.game, "num_players": cfg.num_players, "options": cfg.options, "backend": "rllib",
                "command": " ".join(sys.argv)}
        reached = False
        if cfg.bc_teacher and not cfg.resume:
            log(f"[rllib] warm start: imitating {cfg.bc_teacher} on {cfg.bc_samples:,} decisions ...")
            progress["behaviour_cloning"] = behaviour_clone(algo, cfg)
            log(f"[rllib] warm start done: {progress['behaviour_cloning']}")

        def save_and_eval(do_eval: bool, games: int) -> dict | None:
            policy = export_policy(algo.get_module("main"), {**meta, "iteration": algo.iteration, "env_steps": steps})
            policy.save(run_dir / "policy.npz")
            algo.save_to_path(str(ckpt_dir))
            ev = None
            if do_eval and games:
                t = time.perf_counter()
                ev = evaluate(policy, cfg.game, cfg.num_players, cfg.eval_opponents, games, cfg.seed, cfg.options)
                progress["evaluations"].append({"iteration": algo.iteration, "env_steps": steps, "games": games,
                                                "win_share": ev, "seconds": round(time.perf_counter() - t, 2),
                                                "train_seconds": round(train_seconds, 1)})
                log(f"[rllib] eval at {steps} env steps: " + ", ".join(f"vs {k} {v:.3f}" for k, v in ev.items()))
            _write_json(progress_path, progress)
            return ev

        train_seconds = sum(r["seconds"] for r in progress["iterations"])
        stopped_by = "timesteps"
        if "behaviour_cloning" in progress and not progress["iterations"] and cfg.eval_every:
            ev = save_and_eval(True, cfg.eval_games)  # the learning curve starts at the warm-started policy
            if ev and cfg.target_win_rate is not None and ev[cfg.eval_opponents[0]] >= cfg.target_win_rate:
                reached, stopped_by = True, "target_win_rate"
        while steps < cfg.timesteps and not reached:
            if cfg.max_iterations is not None and algo.iteration >= cfg.max_iterations:
                stopped_by = "max_iterations"
                break
            if cfg.time_limit_min and train_seconds >= 60 * cfg.time_limit_min:
                stopped_by = "time_limit"
                break
            t = time.perf_counter()
            result = algo.train()
            dt = time.perf_counter() - t
            train_seconds += dt
            prev = steps
            new_steps = _env_steps(result)
            row = {"iteration": algo.iteration, "env_steps": new_steps, "seconds": round(dt, 3),
                   "env_steps_per_s": round((new_steps - steps) / dt, 1) if dt > 0 else None}
            if "league_envs" in result:  # the envs whose opponent pool got main's snapshot
                row["league_envs"] = result["league_envs"]
            steps = new_steps
            progress["iterations"].append(row)
            log(f"[rllib] iter {row['iteration']}: {steps} env steps, {row['env_steps_per_s']} env steps/s")
            do_eval = bool(cfg.eval_every) and steps // cfg.eval_every > prev // cfg.eval_every
            if do_eval or (cfg.checkpoint_every and steps // cfg.checkpoint_every > prev // cfg.checkpoint_every):
                ev = save_and_eval(do_eval, cfg.eval_games)
                if ev and cfg.target_win_rate is not None and ev[cfg.eval_opponents[0]] >= cfg.target_win_rate:
                    reached = True
                    stopped_by = "target_win_rate"
            else:
                _write_json(progress_path, progress)
        last_eval = progress["evaluations"][-1] if progress["evaluations"] else None
        final_games = cfg.final_eval_games or cfg.eval_games
        if not (last_eval and last_eval["iteration"] == algo.iteration and last_eval["games"] >= final_games):
            save_and_eval(True, final_games)
        progress["finished"] = {"iteration": algo.iteration, "env_steps": steps, "stopped_by": stopped_by,
                                "train_seconds": round(train_seconds, 1),
                                "target_reached": reached if cfg.target_win_rate is not None else None}
        _write_json(progress_path, progress)
        return progress
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()


def measure_sampling(config, env_steps: int = 8000) -> dict:
    """Sampling throughput alone (no learning): env steps/s of `num_env_runners` runners playing
    the freshly initialised policy, after one warm-up batch. What scales with the cluster."""
    import ray
    import torch
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    cfg = config_from(config).validate()
    torch.set_num_threads(cfg.torch_threads)
    started = _init_ray(cfg)
    algo = None
    try:
        algo = build_algo_config(cfg).build_algo()

        def sample(n):
            t = time.perf_counter()
            episodes = synchronous_parallel_sample(worker_set=algo.env_runner_group, max_env_steps=n,
                                                   _uses_new_env_runners=True)
            return sum(e.env_steps() for e in episodes), time.perf_counter() - t

        sample(cfg.train_batch_size)  # warm-up: actors, connectors, first episodes
        n, dt = sample(env_steps)
        return {"num_env_runners": cfg.num_env_runners, "env_steps": n, "seconds": round(dt, 2),
                "env_steps_per_s": round(n / dt, 1)}
    finally:
        if algo is not None:
            algo.stop()
        if started:
            ray.shutdown()


# ------------------------------------------------------------------------------- CLI
def add_rllib_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The RLlib-only flags (train.py adds these next to its own for `--backend rllib`)."""
    d = RLlibTrainConfig()
    g = parser.add_argument_group("RLlib backend (--backend rllib)")
    g.add_argument("--address", default=None,
                   help="Ray cluster to join: 'auto' (a `ray start` cluster on this machine's network) or "
                        "'ray://host:10001'; default: start a local Ray")
    g.add_argument("--num-env-runners", type=int, default=d.num_env_runners,
                   help="parallel sampling actors (0: sample in the driver)")
    g.add_argument("--num-envs-per-env-runner", type=int, default=d.num_envs_per_env_runner)
    g.add_argument("--num-cpus-per-env-runner", type=float, default=d.num_cpus_per_env_runner)
    g.add_argument("--opponent", action="append", default=None, metavar="BOT=WEIGHT", dest="opponent",
                   help="a bot at the other seats, by weight (repeatable; e.g. random=1 greedy=0.5); "
                        "default: random=1")
    g.add_argument("--league-size", type=int, default=d.league_size,
                   help="frozen snapshots of the policy kept in the opponent pool (0: none)")
    g.add_argument("--league-prob", type=float, default=d.league_prob,
                   help="per episode, probability the opponent is a frozen snapshot rather than a bot")
    g.add_argument("--league-every", type=int, default=d.league_every,
                   help="env steps between snapshot refreshes (rounded to whole iterations)")
    g.add_argument("--target-win-rate", type=float, default=None,
                   help="stop once the win share against the first eval opponent reaches this")
    g.add_argument("--max-iterations", type=int, default=None, help="stop after this many RLlib iterations")
    g.add_argument("--rllib-train-batch-size", dest="train_batch_size", type=int, default=None,
                   help=f"env steps per PPO update (default {d.train_batch_size})")
    return parser


def build_parser() -> argparse.ArgumentParser:
    d = RLlibTrainConfig()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default=d.game)
    p.add_argument("--players", dest="num_players", type=int, default=d.num_players)
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="rule/observation option, e.g. history=none (repeatable)")
    p.add_argument("--reward", default=d.reward, choices=list(AEC_REWARDS))
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--timesteps", type=int, default=d.timesteps, help="env steps to sample in total")
    p.add_argument("--lr", dest="learning_rate", type=float, default=d.learning_rate)
    p.add_argument("--ent-coef", dest="entropy_coeff", type=float, default=d.entropy_coeff)
    p.add_argument("--minibatch-size", type=int, default=d.minibatch_size)
    p.add_argument("--num-epochs", type=int, default=d.num_epochs)
    p.add_argument("--net-arch", type=int, nargs="+", default=list(d.net_arch))
    p.add_argument("--eval-games", type=int, default=d.eval_games, help="games per opponent per evaluation")
    p.add_argument("--final-eval-games", type=int, default=d.final_eval_games, help="(0: --eval-games)")
    p.add_argument("--eval-every", type=int, default=d.eval_every, help="env steps between evaluations (0: at the end)")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every, help="env steps between checkpoints")
    p.add_argument("--win-bonus", type=float, default=d.win_bonus)
    p.add_argument("--reward-scale", type=float, default=d.reward_scale)
    p.add_argument("--activation", default=d.activation, choices=["tanh", "relu"])
    p.add_argument("--time-limit-min", type=float, default=d.time_limit_min)
    p.add_argument("--gamma", type=float, default=d.gamma)
    p.add_argument("--gae-lambda", type=float, default=d.gae_lambda)
    p.add_argument("--bc-teacher", default=d.bc_teacher, help="warm start by imitating this bot (e.g. greedy)")
    p.add_argument("--bc-samples", type=int, default=d.bc_samples)
    p.add_argument("--bc-explore", type=float, default=d.bc_explore)
    p.add_argument("--bc-epochs", type=int, default=d.bc_epochs)
    p.add_argument("--bc-learning-rate", type=float, default=d.bc_learning_rate)
    p.add_argument("--eval-opponents", nargs="+", default=list(d.eval_opponents))
    p.add_argument("--run-dir", default="", help="default runs/rllib/<game>_<players>p_seed<seed>")
    p.add_argument("--resume", action="store_true", help="continue from <run-dir>/checkpoint")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--measure-sampling", type=int, default=None, metavar="ENV_STEPS",
                   help="only measure sampling throughput over ENV_STEPS (no training) and print it")
    add_rllib_arguments(p)
    return p


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    kwargs = {k: v for k, v in vars(args).items() if k != "option" and v is not None}
    try:
        kwargs["options"] = parse_options(args.option, what="--option")
        if "opponent" in kwargs:
            kwargs["opponents"] = {k: float(v) for k, v in parse_options(kwargs.pop("opponent"), what="--opponent").items()}
        measure = kwargs.pop("measure_sampling", None)
        if measure:
            print(json.dumps(measure_sampling(kwargs, measure)))
            return 0
        summary = train_rllib(kwargs)
    except (ValueError, FileExistsError, FileNotFoundError) as exc:
        parser.error(str(exc))
    fin = summary["finished"]
    ev = summary["evaluations"][-1]["win_share"] if summary["evaluations"] else {}
    print(f"[rllib] done ({fin['stopped_by']}): {fin['env_steps']} env steps in {fin['iteration']} iterations, "
          f"{fin['train_seconds']:.0f} s of training; "
          + ", ".join(f"vs {k} {v:.3f}" for k, v in ev.items()) + f"; policy {Path(summary['config']['run_dir']) / 'policy.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
