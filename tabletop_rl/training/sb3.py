"""The Stable-Baselines3 trainer's parts (sb3-contrib MaskablePPO over the learner core's SB3 face):
what `train.py` puts together, in the order it uses them.

- the learner core: `make_pool` (the run's one `OpponentPool`: `learner_opponents` and the
  learner's snapshots), `make_core` (the core's arguments, spelled out once), `user_reward`
  (`--reward-fn`); `--vec-env dummy|subproc` builds `SelfPlayEnv`s on the same pool instead
  (`resolve_vec_env`, `_EnvFactory`), the scalar reference of `benchmarks/bench_learner.py`;
- the policy: `build` (MaskablePPO with `tabletop_rl.ppo_policy.SkipPolicy`, its per-action skip
  blocks from `policy_layout`: the game batch's `action_blocks`), `policy_weights` (its numpy `PolicyWeights`);
- the warm start: `behaviour_clone` (teacher data from the batched engine, `batched_teacher_data`,
  or scalar teacher games; `bc_samples`);
- learning: `make_callback` (snapshots, evaluations, checkpoints, the time limit and the progress
  bar at rollout boundaries), `TimedVecEnv` (the time spent inside the envs);
- evaluation: `eval_policy` (`tabletop_rl.training.evaluation.evaluate_policy` for a Config);
- resuming: `restore`, `restores_cleanly`.

Every function takes train.py's `Config` (`cfg`); none forks on the game: what differs between
games comes from the game's batch (its per-action blocks, potentials, greedy) and spec.
"""
from __future__ import annotations

import dataclasses
import math
import os
import random
import time

import numpy as np

from tabletop_rl.options import parse_options
from tabletop_rl.training.checkpoints import check_checkpoint, check_model_state, prune_checkpoints, save_checkpoint
from tabletop_rl.training.evaluation import evaluate_policy
from tabletop_rl.training.reports import write_eval_csv

EVAL_SEED = 10_000  # every evaluation during a run plays the same deals (step 0's, the periodic ones, keep_final_if_best's)


# ---------------------------------------------------------------------------- warm start
def teacher_games(*args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """tabletop_rl.agents.imitation.teacher_data, keeping the teacher's probabilities as targets when it has them."""
    from tabletop_rl.agents.imitation import teacher_data

    obs, masks, actions, probs = teacher_data(*args)
    return obs, masks, actions if probs is None else probs


def bc_samples(cfg) -> int:
    """Teacher decisions to imitate: `bc_samples`, or by default total_steps / 20 (at most 100,000)."""
    return cfg.bc_samples or max(256, min(100_000, cfg.total_steps // 20))


def batched_teacher_data(cfg, samples: int):
    """The greedy bot's decisions in games of the game's batched engine (`greedy_actions`; a
    `bc_explore` share of the moves random instead), against the training opponents: (obs, masks, actions)."""
    from tabletop_rl.agents.imitation import core_teacher_data

    core = make_core(cfg, num_envs=min(cfg.n_envs, samples), seed=cfg.seed * 7_919 + 101)
    core.reset()
    return core_teacher_data(core, lambda c: c.vec.greedy_actions(c.rng), samples, cfg.bc_explore)


def behaviour_clone(model, cfg) -> dict:
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
    if hasattr(policy, "card_sizes"):  # the card-reading policy: its policy head; scalar games' masks padded
        params = list(policy.net.layers.parameters())
        masks = torch.nn.functional.pad(masks, (0, policy.action_space.n - masks.shape[1]))
    else:
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
def make_pool(cfg):
    """The run's one opponent pool (`tabletop_rl.training.opponents.OpponentPool`), shared by the learner
    core or every scalar env: the fixed bots (`learner_opponents`) and the learner's snapshots."""
    from tabletop_rl.training.opponents import OpponentPool

    try:
        return OpponentPool(fixed=learner_opponents(cfg), snapshot_prob=cfg.snapshot_prob,
                            max_snapshots=cfg.max_snapshots)
    except ValueError as exc:
        raise SystemExit(f"train.py: {exc}") from None


class _EnvFactory:
    """Picklable env constructor (SubprocVecEnv sends it to the worker)."""

    def __init__(self, cfg, pool, index: int):
        self.cfg, self.pool, self.index = cfg, pool, index

    def __call__(self):
        from stable_baselines3.common.monitor import Monitor

        from tabletop_rl.training.selfplay import SelfPlayEnv

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


def resolve_vec_env(cfg) -> str:
    """"learner" (the learner core; "auto" and the old name "fae-vector"), "dummy" or "subproc" (SelfPlayEnv)."""
    if cfg.vec_env not in ("auto", "learner", "fae-vector", "dummy", "subproc"):
        raise ValueError(f"vec_env must be 'auto', 'learner', 'dummy' or 'subproc'; got {cfg.vec_env!r}")
    return "learner" if cfg.vec_env in ("auto", "learner", "fae-vector") else cfg.vec_env


def learner_opponents(cfg) -> dict:
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


def user_reward(cfg):
    """The `--reward-fn module:function` callable, or None."""
    if not cfg.reward_fn:
        return None
    from tabletop_rl.agents.base import import_user_modules

    module, _, name = cfg.reward_fn.partition(":")
    try:
        fn = getattr(import_user_modules([module], "--reward-fn")[0], name, None) if name and module.strip() else None
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    if not callable(fn):
        raise SystemExit(f"--reward-fn must name a callable as module:function; got {cfg.reward_fn!r}")
    return fn


def make_core(cfg, num_envs: int, seed: int, pool=None, **overrides):
    """The learner core (`tabletop_rl.training.learner.make_learner_core`) for `cfg`, drawing from `pool`
    (default: a fresh `make_pool(cfg)`): the one place its arguments are spelled out (training, warm start)."""
    from tabletop_rl.training.learner import make_learner_core

    kwargs = dict(opponents=make_pool(cfg) if pool is None else pool, reward=cfg.reward, win_bonus=cfg.win_bonus,
                  reward_scale=cfg.reward_scale, reward_fn=user_reward(cfg), max_steps=cfg.max_game_steps or None,
                  cut_reward=cfg.cut_reward, opponent_epsilon=cfg.opponent_epsilon, seed=seed)
    kwargs.update(overrides)
    try:
        return make_learner_core(cfg.game, num_envs, cfg.num_players, **kwargs, **parse_options(cfg.options))
    except ValueError as exc:
        raise SystemExit(f"train.py: {exc}") from None


def has_batched_greedy(cfg) -> bool:
    from tabletop_rl.training.learner import batch_class

    return hasattr(batch_class(cfg.game), "greedy_actions")


def policy_layout(cfg) -> tuple[tuple, tuple, tuple | None]:
    """(skip_starts, skip_init, mlp_inputs) of the policy, read from the game's batch for cfg
    (`make_batch`): its per-action observation blocks (`action_blocks`: Fae's `action_features`,
    Fantastiqa's greedy block) reach the logits through learned scales, starting at `skip_init`
    where the batch says so, else at 0; with `mlp_inputs="board"` the MLPs read the rest less the
    batch's `constant_inputs` (Fae's terrain), with "all" everything. A batch without blocks: no
    skips, an MLP over everything."""
    from tabletop_rl.training.learner import make_batch

    if cfg.mlp_inputs not in ("board", "all"):
        raise ValueError(f"mlp_inputs must be 'board' or 'all'; got {cfg.mlp_inputs!r}")
    batch = make_batch(cfg.game, 1, cfg.num_players, **parse_options(cfg.options))
    blocks = list((getattr(batch, "action_blocks", None) or {}).values())
    skip_starts = tuple(sl.start for sl, _ in blocks)
    skip_init = tuple(cfg.skip_init if on is True else 0.0 for _, on in blocks)
    left_out = [sl for sl, _ in blocks] + list(getattr(batch, "constant_inputs", ()))
    mlp_inputs = None
    if cfg.mlp_inputs == "board" and left_out:
        keep = np.ones(batch.obs_size, dtype=np.bool_)
        for sl in left_out:
            keep[sl] = False
        mlp_inputs = tuple(int(i) for i in np.flatnonzero(keep))
    return skip_starts, skip_init, mlp_inputs


def hidden_sizes(text, name: str) -> list[int]:
    """"256,256" -> [256, 256]: a layer size list of ints >= 1; SystemExit naming `name` otherwise."""
    try:
        sizes = [int(h) for h in str(text).split(",")]
    except ValueError:
        sizes = []
    if not sizes or any(h < 1 for h in sizes) or len(sizes) > 8 or max(sizes) > 4096:
        raise SystemExit(f"--{name.replace('_', '-')} must be 1-8 layer sizes in 1..4096, comma separated; got {text!r}")
    return sizes


def check_anchor(cfg) -> None:
    """--anchor-coef: a finite number >= 0, and > 0 only over the card view's greedy block (SystemExit)."""
    coef = cfg.anchor_coef
    if isinstance(coef, bool) or not isinstance(coef, (int, float)) or not (math.isfinite(coef) and coef >= 0):
        raise SystemExit(f"--anchor-coef must be a finite number >= 0; got {coef!r}")
    if coef > 0 and not (reads_cards(cfg) and parse_options(cfg.options).get("action_features") == "greedy"):
        raise SystemExit("--anchor-coef anchors the card-reading policy to the greedy block: it needs --options "
                         "view=cards,action_features=greedy (Fantastiqa)")


def check_value_warmup(cfg) -> None:
    """--value-warmup-steps: a whole number >= 0 (SystemExit)."""
    steps = cfg.value_warmup_steps
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise SystemExit(f"--value-warmup-steps must be a whole number >= 0; got {steps!r}")


def check_opponent_epsilon(cfg) -> None:
    """--opponent-epsilon: a number in [0, 1], and > 0 only on the learner core, which moves the bots (SystemExit)."""
    eps = cfg.opponent_epsilon
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not (math.isfinite(eps) and 0 <= eps <= 1):
        raise SystemExit(f"--opponent-epsilon must be a number in [0, 1]; got {eps!r}")
    if eps > 0 and resolve_vec_env(cfg) != "learner":
        raise SystemExit("--opponent-epsilon weakens the bots the learner core moves: --vec-env learner (the default)")


def check_learning_flags(cfg) -> None:
    """The PPO flags a run folder must not be made for when they are wrong (SystemExit naming the flag)."""
    check_anchor(cfg)
    check_value_warmup(cfg)
    check_opponent_epsilon(cfg)


def value_head_parameters(policy) -> list:
    """The value head's own parameters (CardPolicy's net.value1/value2/value_out; SB3's
    mlp_extractor.value_net and value_net): what --value-warmup-steps trains alone."""
    own = ("net.value1.", "net.value2.", "net.value_out.", "mlp_extractor.value_net.", "value_net.",
           "vf_features_extractor.")
    return [p for name, p in policy.named_parameters() if name.startswith(own)]


def hold_policy(policy, held: bool) -> None:
    """Hold (held=True) or free every parameter but the value head's. A held parameter gets no gradient,
    so PPO's updates (Adam skips a parameter without one) leave the policy's moves as they are."""
    value = {id(p) for p in value_head_parameters(policy)}
    for p in policy.parameters():
        if id(p) not in value:
            p.requires_grad_(not held)


def build(cfg, pool):
    """(vec_env, model) for `cfg`; seeds everything from cfg.seed."""
    check_learning_flags(cfg)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from tabletop_rl.ppo_policy import SkipPolicy
    from tabletop_rl.training.rollout_buffer import FlatMaskableRolloutBuffer

    torch.set_num_threads(cfg.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # SB3 builds a masked Categorical per call: ~10% of an update
    if resolve_vec_env(cfg) == "learner":
        from tabletop_rl.training.learner_envs import LearnerVecEnv

        venv = LearnerVecEnv(make_core(cfg, cfg.n_envs, cfg.seed, pool))
    else:
        factories = [_EnvFactory(cfg, pool, i) for i in range(cfg.n_envs)]
        venv = DummyVecEnv(factories) if resolve_vec_env(cfg) == "dummy" else SubprocVecEnv(factories, start_method="spawn")
    venv = TimedVecEnv(venv)
    common = dict(n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
                  learning_rate=cfg.learning_rate, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip_range=cfg.clip_range,
                  ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm, seed=cfg.seed, device="cpu",
                  rollout_buffer_class=FlatMaskableRolloutBuffer,  # no env-major copy of each rollout (its docstring)
                  verbose=0)
    if reads_cards(cfg):  # Fantastiqa's card view: the card-reading policy (tabletop_rl.card_net), sized by --net-arch
        from tabletop_rl.card_net import CardPolicy

        sizes = hidden_sizes(cfg.net_arch, "net_arch")
        if len(sizes) != 4:
            raise SystemExit("--net-arch of the card-reading policy (view=cards) is 4 sizes: card encoder, quest "
                             f"encoder, context, entity (e.g. 64,32,128,32); got {cfg.net_arch!r}")
        kw = dict(zip(("card_hidden", "quest_hidden", "hidden", "entity"), sizes), greedy_init=cfg.skip_init,
                  anchor_coef=cfg.anchor_coef)
        return venv, MaskablePPO(CardPolicy, venv, policy_kwargs=kw, **common)
    skip_starts, skip_init, mlp_inputs = policy_layout(cfg)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.activation]
    hidden = hidden_sizes(cfg.net_arch, "net_arch")
    value_hidden = hidden_sizes(cfg.vf_arch, "vf_arch") if cfg.vf_arch.strip() else hidden
    model = MaskablePPO(
        SkipPolicy, venv, **common,
        policy_kwargs=dict(net_arch=dict(pi=hidden, vf=value_hidden), activation_fn=act, skip_starts=skip_starts,
                           skip_init=skip_init, mlp_inputs=mlp_inputs, skip_lr_scale=cfg.skip_lr_scale))
    return venv, model


def reads_cards(cfg) -> bool:
    """Whether the run observes Fantastiqa's card view (option view=cards): the card-reading policy."""
    return cfg.game == "fantastiqa" and parse_options(cfg.options).get("view") == "cards"


def policy_weights(model, cfg):
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    options = parse_options(cfg.options)
    meta = {"game": cfg.game, "num_players": cfg.num_players, "trained_steps": int(model.num_timesteps),
            # card_sets (the files a card-view run trained over) is how it trained, not how it observes
            "options": {k: v for k, v in options.items() if k != "card_sets"}}
    if "card_sets" in options:
        meta["card_sets"] = options["card_sets"]
    if hasattr(model.policy, "card_sizes"):   # tabletop_rl.card_net.CardPolicy
        from tabletop_rl.card_net import card_weights

        return card_weights(model.policy, meta)
    return PolicyWeights.from_sb3(model, meta=meta)


# ---------------------------------------------------------------------------- the training loop's hooks
def make_callback(cfg, run_dir: str, pool, venv, history: dict):
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
            if cfg.value_warmup_steps:  # the first updates train the value head alone (Config.value_warmup_steps)
                hold_policy(self.model.policy, steps < cfg.value_warmup_steps)
            history["wall_seconds"] = time.perf_counter() - self.t_start
            history["env_seconds"] = venv.env_seconds - self.env_at_start
            if steps == history["last_resumed_at"]:
                return  # we just loaded this point
            if cfg.snapshot_every and steps - history["last_snapshot"] >= cfg.snapshot_every:
                pool.add_snapshot(policy_weights(self.model, cfg))  # the one pool of the core or the scalar envs
                if resolve_vec_env(cfg) == "subproc":  # each worker process holds a copy
                    venv.env_method("set_opponent_pool", pool)
                history["last_snapshot"] = steps
            if cfg.eval_every and steps - history["last_eval"] >= cfg.eval_every:
                self.run_eval(steps)
                history["last_eval"] = steps
            if cfg.checkpoint_every and steps - history["last_checkpoint"] >= cfg.checkpoint_every:
                history["last_checkpoint"] = steps
                self.save_checkpoint(steps)
            if cfg.time_limit_min and limit_seconds_used(history) > 60 * cfg.time_limit_min:
                history["stopped_by_time_limit"] = True
                self.stop = True

        def run_eval(self, steps):
            start = time.perf_counter()
            weights = policy_weights(self.model, cfg)
            for opp in history["eval_opponents"]:
                # the deals of step 0's evaluation (EVAL_SEED): points of the curve differ by the policy, not the deals
                row = eval_policy(weights, cfg, opp, cfg.eval_games, seed=EVAL_SEED)
                row.update(steps=steps, wall_seconds=round(time.perf_counter() - self.t_start, 1))
                history["evals"].append(row)
                keep_if_best(weights, cfg, row, run_dir, history)
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
        pool.load_state_dict(ckpt["pool"], venv.observation_space.shape[0], venv.action_space.n)
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


def restores_cleanly(cfg, ckpt: dict) -> None:
    """`restore` into a scratch (pool, venv, model) for cfg, then discard them: raises whatever a
    damaged checkpoint raises, before the run picks it (`latest_valid_checkpoint`). First the checks
    of what `restore` would take without complaint (`check_checkpoint`: keys, counters, history,
    episode infos, observations, the values its tensors hold; `check_model_state`: the policy's and
    Adam's tensors against this model's)."""
    pool = make_pool(cfg)
    venv, model = build(cfg, pool)
    try:
        optimizer = model.policy.optimizer
        params = [p for group in optimizer.param_groups for p in group["params"]]
        n_params = sum(p.numel() for p in params)
        snapshot = sum(w.size + b.size for w, b in policy_weights(model, cfg).weights)
        obs_size = int(np.prod(venv.observation_space.shape))
        # the model and Adam's two moments, the pool's snapshots, the envs' observations, the RNG states
        budget = 3 * n_params + cfg.max_snapshots * snapshot + venv.num_envs * (obs_size + 1) + (1 << 20)
        check_checkpoint(ckpt, dataclasses.asdict(cfg), venv.num_envs, venv.observation_space.shape,
                         eval_opponents=evaluation_opponents(cfg), obs_dtype=venv.observation_space.dtype,
                         max_values=budget)
        check_model_state(ckpt, model.policy.state_dict(), optimizer.state_dict()["param_groups"],
                          {i: tuple(p.shape) for i, p in enumerate(params)})
        restore(ckpt, model, venv, pool, {})
    finally:
        venv.close()


def eval_policy(weights, cfg, opponent: str, games: int, seed: int) -> dict:
    """Seat-rotated win share of `weights` against `opponent`: `tabletop_rl.training.evaluate_policy`,
    every game at once in the learner core (batched where the game has an engine), with the run's
    options and `eval_options` over them."""
    return evaluate_policy(weights, cfg.game, cfg.num_players, opponent, games, seed, evaluation_options(cfg),
                           max_steps=cfg.max_game_steps)


def evaluation_options(cfg, options: str | None = None) -> dict:
    """The options every evaluation plays: the run's (`options`, default cfg.options) with
    `--eval-options` over them, e.g. card_sets=generated:50 for games on a validation card file."""
    return {**parse_options(cfg.options if options is None else options), **parse_options(cfg.eval_options)}


def check_evaluations(cfg, options: str) -> None:
    """--eval-options and --keep-best, before the run folder is made (SystemExit naming the flag): the
    options parse and make a game whose observation and actions are the training game's (`options`:
    the run's, after the game's defaults); --keep-best names one of the evaluation opponents and needs
    periodic evaluations to choose among."""
    if not isinstance(cfg.eval_options, str) or not isinstance(cfg.keep_best, str):
        raise SystemExit("--eval-options and --keep-best are text")
    if cfg.keep_best:
        opponents = evaluation_opponents(cfg)
        if cfg.keep_best not in opponents:
            raise SystemExit(f"--keep-best {cfg.keep_best[:80]!r} is not one of the evaluation opponents {opponents}")
        if not cfg.eval_every:
            raise SystemExit("--keep-best chooses among the periodic evaluations: it needs --eval-every > 0")
    if not cfg.eval_options:
        return
    from tabletop_rl.training.learner import make_learner_core

    try:
        extra = evaluation_options(cfg, options)
        made = [make_learner_core(cfg.game, n, cfg.num_players, opponents={"random": 1.0}, reward="win_loss", seed=0,
                                  **opts) for n, opts in ((cfg.n_envs, parse_options(options)), (cfg.eval_games, extra))]
    except ValueError as exc:
        raise SystemExit(f"--eval-options {cfg.eval_options[:200]!r}: {exc}") from None
    (train, ev) = [(c.obs_size, c.num_actions) for c in made]
    if train != ev:
        raise SystemExit(f"--eval-options {cfg.eval_options[:200]!r}: its games have {ev[0]} inputs and {ev[1]} actions; "
                         f"the policy trains on {train[0]} and {train[1]}")


def keep_if_best(weights, cfg, row: dict, run_dir: str, history: dict) -> None:
    """--keep-best: if `row` (an evaluation against cfg.keep_best) beats the best win share so far,
    save `weights` as policy_best.npz and note the row in history["best"] (checkpointed with it)."""
    if not cfg.keep_best or row["opponent"] != cfg.keep_best:
        return
    best = history.get("best")
    if best is not None and not row["win_share"] > best["win_share"]:
        return
    weights.save(os.path.join(run_dir, "policy_best.npz"))
    history["best"] = {k: row[k] for k in ("opponent", "games", "win_share", "ci_low", "ci_high", "steps")}


def keep_final_if_best(weights, cfg, run_dir: str, history: dict, steps: int) -> None:
    """--keep-best: the final policy is a candidate too, evaluated on the deals the others played
    (EVAL_SEED), unless the last periodic evaluation was at this very step; its row joins the curve."""
    if not cfg.keep_best or history["last_eval"] == steps:
        return
    row = eval_policy(weights, cfg, cfg.keep_best, cfg.eval_games, seed=EVAL_SEED)
    row.update(steps=steps, wall_seconds=round(history["wall_seconds"], 1))
    history["evals"].append(row)
    history["last_eval"] = steps
    keep_if_best(weights, cfg, row, run_dir, history)


def import_modules(cfg) -> None:
    """`--imports`: the user's modules (e.g. one registering its bots with `register_agent`), the
    current folder first (`tabletop_rl.agents.base.import_user_modules`)."""
    from tabletop_rl.agents.base import import_user_modules

    try:
        import_user_modules(cfg.imports.split(","), "--imports")
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


# ---------------------------------------------------------------------------- the run's steps (train.py's story)
def open_run(cfg, config_class, game_options: dict):
    """(cfg, run_dir, checkpoint path or None, checkpoint or None): a new run folder with its config.json, or `--resume`'s run
    (its saved config with the flags safe to change applied, and its newest checkpoint that restores)."""
    import json
    import sys

    from tabletop_rl.training.checkpoints import (atomic_write_text, explicit_fields, latest_valid_checkpoint,
                                                  read_run_config, resume_config)

    if cfg.resume:
        run_dir = cfg.resume if os.path.isdir(cfg.resume) else os.path.join(cfg.runs_dir, cfg.resume)
        try:
            saved = read_run_config(run_dir, config_class)
            # a run folder is data: a saved reward_fn / imports is refused unless given again (CODE_FIELDS)
            fields, applied = resume_config(saved, explicit_fields(cfg), os.path.join(run_dir, "config.json"))
        except ValueError as exc:
            raise SystemExit(str(exc)) from None
        cfg = config_class(**fields)
        print(f"--resume: applied {'; '.join(applied)}" if applied else "--resume: the run's saved config, unchanged",
              file=sys.stderr)
        found = latest_valid_checkpoint(run_dir, restores=lambda c: restores_cleanly(cfg, c))
        if found is None:
            raise SystemExit(f"--resume: no valid checkpoint in {run_dir}/checkpoints (each one skipped is named above)")
        return (cfg, run_dir, *found)
    if not cfg.options:
        cfg.options = game_options.get(cfg.game, "")
    if not cfg.run_name:
        cfg.run_name = f"{cfg.game}_{cfg.num_players}p_s{cfg.seed}_{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}"
    run_dir = os.path.join(cfg.runs_dir, cfg.run_name)
    if os.path.exists(os.path.join(run_dir, "checkpoints")):
        raise SystemExit(f"{run_dir} already holds a run: use --resume {run_dir}, another --run-name, or delete it")
    os.makedirs(run_dir, exist_ok=True)
    atomic_write_text(os.path.join(run_dir, "config.json"), json.dumps(dataclasses.asdict(cfg), indent=2))
    return cfg, run_dir, None, None


def whole_rollouts(cfg) -> int:
    """total_steps rounded up to whole rollouts (n_envs x n_steps), said on stderr when it changes."""
    import math
    import sys

    rollout = cfg.n_envs * cfg.n_steps
    total = math.ceil(cfg.total_steps / rollout) * rollout
    if total != cfg.total_steps:
        print(f"note: total_steps {cfg.total_steps} rounded up to {total} (whole rollouts of {rollout})", file=sys.stderr)
    return total


def evaluation_opponents(cfg) -> list[str]:
    """The bots every evaluation of the run plays: `eval_opponents` (registered bot names, comma
    separated, e.g. "greedy,mcts_batched"), or by default random and greedy (where the game has it).
    An unknown or repeated name is a usage error naming it and the known ones."""
    from tabletop_rl.agents import agent_names

    known = agent_names(cfg.game)
    text = cfg.eval_opponents if isinstance(cfg.eval_opponents, str) else None
    if text is None:
        raise SystemExit(f"--eval-opponents must be text (bot names, comma separated); got {cfg.eval_opponents!r}")
    if not text.strip():
        return [o for o in ("random", "greedy") if o in known]
    names = [o.strip() for o in text.split(",")]
    bad = [o for o in names if o not in known]
    if bad or len(set(names)) != len(names):
        raise SystemExit(f"--eval-opponents: {', '.join(repr(o) for o in bad) if bad else 'a repeated name'} "
                         f"in {text[:200]!r}; {cfg.game}'s bots are {known}")
    return names


def new_history(cfg, total: int) -> dict:
    """The run's bookkeeping (checkpointed with it): evaluations, the last snapshot, evaluation and
    checkpoint steps, times, and the opponents every evaluation plays (`evaluation_opponents`)."""
    return {"evals": [], "last_snapshot": 0, "last_eval": 0, "last_checkpoint": 0, "last_resumed_at": -1,
            "wall_seconds": 0.0, "env_seconds": 0.0, "eval_seconds": 0.0, "setup_seconds": 0.0,
            "stopped_by_time_limit": False, "total_steps": total, "eval_opponents": evaluation_opponents(cfg)}


def resume_from(ckpt_path: str, ckpt: dict, model, venv, pool, history: dict, run_dir: str, total: int) -> None:
    """`restore` the checkpoint `open_run` found, and note where the run resumed."""
    import json
    import sys

    from tabletop_rl.training.checkpoints import atomic_write_text

    restore(ckpt, model, venv, pool, history)
    history["total_steps"] = total  # the total of this run, which --total-steps may have changed
    name = os.path.basename(ckpt_path)
    print(f"resumed {run_dir} from {name} at step {model.num_timesteps:,}", file=sys.stderr)
    atomic_write_text(os.path.join(run_dir, f"resumed_{model.num_timesteps:010d}.json"),
                      json.dumps({"checkpoint": name, "num_timesteps": model.num_timesteps}))


def init_weights(init: str, game: str):
    """`--init`: a shipped version name of `game`, else a policy .npz path (no pickle)."""
    from tabletop_rl.agents.policy_versions import version_names, version_path
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    return PolicyWeights.load(version_path(game, init) if init in version_names(game) else init)


def load_policy_head(model, weights) -> None:
    """Copy `weights` (a PolicyWeights) into the SB3 policy's MLP, action layer and skip scales: the
    inverse of `policy_weights`. The value net is left as built. A policy of another shape raises
    SystemExit naming the layer."""
    import torch

    policy = model.policy
    if hasattr(policy, "card_sizes") or weights.meta.get("architecture") == "card_sets":
        from tabletop_rl.card_net import load_card_weights

        if not (hasattr(policy, "card_sizes") and weights.meta.get("architecture") == "card_sets"):
            raise SystemExit("--init: a card-reading policy starts only a card-view run (option view=cards), and a "
                             "card-view run only from one")
        try:
            load_card_weights(policy, weights)
        except ValueError as exc:
            raise SystemExit(f"{exc} (--net-arch)") from None
        return
    layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)] + [policy.action_net]
    inputs = getattr(policy, "mlp_inputs", None)
    if len(layers) != len(weights.weights) or [s for s, _ in weights.skip] != list(getattr(policy, "skip_starts", ())):
        raise SystemExit(f"--init: a policy of {len(weights.weights)} layers and skips {[s for s, _ in weights.skip]}; "
                         f"this run's has {len(layers)} and {list(getattr(policy, 'skip_starts', ()))}")
    with torch.no_grad():
        for i, (m, (w, b)) in enumerate(zip(layers, weights.weights)):
            w = w[list(inputs)] if i == 0 and inputs is not None else w
            if tuple(m.weight.shape) != w.T.shape:
                raise SystemExit(f"--init: layer {i} is {w.shape[0]} x {w.shape[1]}; this run's is "
                                 f"{m.weight.shape[1]} x {m.weight.shape[0]} (--net-arch, --mlp-inputs, --options)")
            m.weight.copy_(torch.as_tensor(w.T))
            m.bias.copy_(torch.as_tensor(b))
        if weights.skip:
            policy.skip_param.copy_(torch.tensor([c for _, c in weights.skip]) / policy.skip_lr_scale)


def warm_start(model, cfg, history: dict, run_dir: str, setup_start: float) -> None:
    """Imitate `bc_teacher` (if any), then evaluate the policy PPO starts from: step 0 of the curve."""
    import sys

    if cfg.init:
        load_policy_head(model, init_weights(cfg.init, cfg.game))
        print(f"warm start: the policy head of {cfg.init}", file=sys.stderr, flush=True)
    elif cfg.bc_teacher:
        print(f"warm start: imitating {cfg.bc_teacher} on {bc_samples(cfg):,} decisions ...", file=sys.stderr, flush=True)
        bc = history["bc"] = behaviour_clone(model, cfg)
        print(f"  {bc['data_seconds']:.0f} s of teacher games, {bc['fit_seconds']:.0f} s fitting, "
              f"loss {bc['loss_by_epoch'][0]:.2f} -> {bc['loss_by_epoch'][-1]:.2f}", file=sys.stderr, flush=True)
    if cfg.eval_every:  # where PPO starts from, on the learning curve
        weights = policy_weights(model, cfg)
        for opp in history["eval_opponents"]:
            row = eval_policy(weights, cfg, opp, cfg.eval_games, seed=EVAL_SEED)
            history["evals"].append({**row, "steps": 0, "wall_seconds": 0.0})
            keep_if_best(weights, cfg, history["evals"][-1], run_dir, history)
        write_eval_csv(run_dir, history["evals"])
    history["setup_seconds"] = time.perf_counter() - setup_start


def limit_seconds_used(history: dict) -> float:
    """The seconds `time_limit_min` counts: PPO's (rollouts, updates, and the periodic evaluations and
    checkpoints between them), since the first rollout and over every resume. The warm start (teacher
    games, fitting, the step-0 evaluation, and the compiles they trigger on a fresh install) counts
    apart, so a short limit is PPO's time: a 3-minute limit used to go to a 4-minute warm start and
    left PPO 64 steps (issue 39)."""
    return history.get("wall_seconds", 0.0)


class AnnealedRate:
    """`anneal_lr`: SB3's learning-rate schedule, `rate` x the fraction of the run left. The run ends at
    its total steps (SB3's `progress_remaining`) or at `time_limit_min` (`limit_seconds_used`: the
    warm start apart), whichever comes first, so a time-limited run on a slow machine still ends at a
    small rate."""

    def __init__(self, rate: float, time_limit_min: float, history: dict):
        self.rate, self.limit_s, self.history = float(rate), 60.0 * float(time_limit_min), history

    def __call__(self, progress_remaining: float) -> float:
        left = float(progress_remaining)
        if self.limit_s > 0:
            left = min(left, 1.0 - limit_seconds_used(self.history) / self.limit_s)
        return self.rate * min(max(left, 0.0), 1.0)


def learn(model, cfg, run_dir: str, pool, venv, history: dict, total: int, fresh: bool) -> None:
    """PPO up to `total` learner steps (snapshots, evaluations and checkpoints on the way: `make_callback`)."""
    from stable_baselines3.common.logger import configure

    part = history.get("resumes", 0)
    if cfg.anneal_lr is True:
        model.learning_rate = AnnealedRate(cfg.learning_rate, cfg.time_limit_min, history)
        model._setup_lr_schedule()
    model.set_logger(configure(os.path.join(run_dir, "logs", f"part{part}"), ["csv", "tensorboard"]))
    remaining = total - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=make_callback(cfg, run_dir, pool, venv, history), reset_num_timesteps=fresh,
                    tb_log_name="ppo")
    venv.close()


def final_evaluation(weights, cfg, history: dict, steps: int) -> tuple[list[dict], float]:
    """(rows, seconds): `final_eval_games` seat-rotated games per evaluation opponent."""
    import sys

    final, start = [], time.perf_counter()
    if cfg.final_eval_games:
        print(f"evaluating over {cfg.final_eval_games} seat-rotated games per opponent ...", file=sys.stderr, flush=True)
        for opp in history["eval_opponents"]:
            final.append({**eval_policy(weights, cfg, opp, cfg.final_eval_games, seed=999_983), "steps": steps})
    return final, time.perf_counter() - start


def save_run(model, weights, cfg, run_dir: str, history: dict, final: list[dict], eval_seconds: float,
             total: int) -> dict:
    """model.zip, policy.npz, eval.csv, curve.png and summary.json (each written atomically); returns the summary."""
    import json

    from tabletop_rl.training.checkpoints import atomic_write_text
    from tabletop_rl.training.reports import plot_curve, short_run_warning

    tmp = os.path.join(run_dir, "model.zip.tmp")
    with open(tmp, "wb") as f:  # atomically: a crash never leaves a truncated model.zip
        model.save(f)
    os.replace(tmp, os.path.join(run_dir, "model.zip"))
    weights.save(os.path.join(run_dir, "policy.npz"))
    write_eval_csv(run_dir, history["evals"] + final)
    plot_curve(run_dir, history["evals"], final, f"{cfg.game} {cfg.num_players}p self-play MaskablePPO")
    wall, env_s = history["wall_seconds"], history["env_seconds"]
    ppo_s = wall - history["eval_seconds"]  # PPO proper: rollouts and updates, without periodic evaluations
    trained = model.num_timesteps
    rollout = cfg.n_envs * cfg.n_steps
    summary = {
        "run_name": cfg.run_name, "run_dir": run_dir, "game": cfg.game, "num_players": cfg.num_players,
        "steps": trained, "requested_steps": total, "stopped_by_time_limit": history["stopped_by_time_limit"],
        "time_limit_min": cfg.time_limit_min, "rollout_steps": rollout, "ppo_updates": trained // rollout,
        "resumes": history.get("resumes", 0),
        "throughput": {"train_seconds": wall, "warm_start_seconds": history["setup_seconds"],
                       "periodic_eval_seconds": history["eval_seconds"],
                       "steps_per_second": trained / ppo_s if ppo_s > 0 else 0.0,
                       "env_seconds": env_s, "env_share": env_s / ppo_s if ppo_s > 0 else 0.0,
                       "vec_env": resolve_vec_env(cfg), "n_envs": cfg.n_envs, "torch_threads": cfg.torch_threads},
        "final_eval": final, "final_eval_seconds": eval_seconds, "evals": history["evals"],
    }
    if "best" in history:
        summary["best"] = {**history["best"], "policy": os.path.join(run_dir, "policy_best.npz")}
    summary["warnings"] = [w for w in (short_run_warning(summary),) if w]
    atomic_write_text(os.path.join(run_dir, "summary.json"), json.dumps(summary, indent=2))
    return summary
