"""Evaluation, checkpoints and reporting for `train.py` (the algorithm and its Config live there).

- Evaluation: `evaluate_policy`, the one evaluation of every backend and game, plays seat-rotated
  games of a numpy policy (`PolicyWeights`) against a bot all at once in the learner core (batched
  where the game has an engine; one policy forward for every game): train.py's periodic and final
  evaluations, the RLlib backend's and `train.py --evaluate`'s (`evaluate_in_processes`: on the
  scalar cores, split over processes) use it; `evaluate_batched` is its Fae name, kept.
- Checkpoints hold no pickle: tensors in a `.pt` file read with `torch.load(weights_only=True)` and
  everything else (RNG states, the opponent pool, the envs' games, the run history) in a `.json`
  beside it (`save_checkpoint` / `load_checkpoint`). Both are written atomically (temp file +
  os.replace); `latest_valid_checkpoint` picks the newest one that loads and restores into a
  scratch model, naming each one it skips and why; `resume_config` applies the flags given with
  `--resume` that are safe to change (RESUME_SAFE) and refuses the others.
- Reporting: `eval.csv`, `curve.png`, the printed summary.
"""
from __future__ import annotations

import csv
import glob
import json
import os
import sys
import time
import warnings

import numpy as np

from tabletop_rl.options import parse_options  # noqa: F401  (re-exported: train.parse_options)
from tabletop_rl.stats import wilson_interval as wilson  # noqa: F401  (re-exported: train.wilson)


# ---------------------------------------------------------------------------- evaluation
def evaluate_policy(weights, game: str, num_players: int, opponent: str, games: int, seed: int,
                    options: dict | None = None, max_steps: int = 0, learner_sample: bool = False,
                    batched: bool = True) -> dict:
    """The one evaluation of every backend and game: the win share of `weights` (a `PolicyWeights`:
    train.py's, the RLlib backend's export; played as `PPOAgent` plays it: argmax of the masked
    logits with its cycle breaking; sampled with `learner_sample`) over `games` seat-rotated games
    against `opponent` (any registered bot), all played at once in the learner core
    (`tabletop_rl.envs.learner`: the game's batched engine, or with `batched=False` / a game without
    one, N scalar games; one policy forward per step for every game).

    Game i seats the policy at i mod num_players; a shared win counts 1/k; a game the step guard
    (`max_steps`, 0: the game's own) cuts is not won; 95% Wilson interval. Every draw comes from
    `seed`: same arguments, same games.
    """
    from tabletop_rl.agents.ppo_agent import PPOAgent
    from tabletop_rl.envs.learner import make_learner_core

    start = time.perf_counter()
    core = make_learner_core(game, games, num_players, batched=batched is True, opponents={opponent: 1.0},
                             reward="win_loss", max_steps=max_steps or None, seed=seed, **dict(options or {}))
    core.reset()
    # One PPOAgent per game chooses from the batched logits, so the policy plays exactly as the bot
    # does in the arena (argmax, breaking cycles of repeated observations: Fantastiqa's turns can loop).
    players = [PPOAgent(weights=weights) for _ in range(games)]
    obs = np.zeros((games, core.obs_size), dtype=np.float32)
    share = np.full(games, np.nan)
    while np.isnan(share).any():
        masks = core.masks()
        logits = np.where(masks, weights.logits(core.learner_obs(obs)).astype(np.float64), -np.inf)
        actions = np.argmax(masks, axis=1)  # retired games: any legal action (ignored)
        live = np.flatnonzero(core.active)
        if learner_sample is True:
            actions[live] = np.argmax(logits[live] + core.rng.gumbel(size=(live.size, logits.shape[1])), axis=1)
        else:
            actions[live] = [players[i].choose(obs[i], logits[i]) for i in live]
        _, _, finished = core.step(actions)
        for f in finished:
            share[f["index"]] = f["win_share"]
        core.retire([f["index"] for f in finished])  # its result is in: stop playing that game
    return win_share_row(opponent, float(share.sum()), games, time.perf_counter() - start)


def win_share_row(opponent: str, wins: float, games: int, seconds: float) -> dict:
    """The evaluation row every report reads: win share with its 95% Wilson interval."""
    low, high = wilson(wins, games)
    return {"opponent": opponent, "games": games, "win_share": wins / games if games else float("nan"),
            "ci_low": low, "ci_high": high, "seconds": seconds}


def evaluate_in_processes(weights, game: str, num_players: int, opponent: str, games: int, seed: int,
                          options: dict | None = None, max_steps: int = 0, workers: int = 1) -> dict:
    """`evaluate_policy` on the scalar cores (`batched=False`: an independent check of the batched
    engine, as `train.py --evaluate` runs it), its games split over `workers` processes (chunk k
    seeded seed + k)."""
    start = time.perf_counter()
    sizes = [games * (k + 1) // workers - games * k // workers for k in range(workers)] if workers > 1 else [games]
    sizes = [n for n in sizes if n]
    jobs = [(weights, game, num_players, opponent, n, seed + k, options, max_steps, False, False)
            for k, n in enumerate(sizes)]
    if len(jobs) > 1:
        import concurrent.futures as cf
        import multiprocessing as mp

        with cf.ProcessPoolExecutor(len(jobs), mp_context=mp.get_context("spawn")) as pool:
            rows = list(pool.map(_evaluate_job, jobs))
    else:
        rows = [_evaluate_job(jobs[0])]
    wins = sum(r["win_share"] * r["games"] for r in rows)
    return win_share_row(opponent, wins, games, time.perf_counter() - start)


def _evaluate_job(args) -> dict:
    from tabletop_rl.agents.base import limit_blas_threads

    limit_blas_threads()  # in worker processes too: numpy policies on one thread
    return evaluate_policy(*args)


def evaluate_batched(weights, num_players: int, opponent: str, games: int, seed: int, options: dict,
                     learner_sample: bool = False) -> dict:
    """Fae's `evaluate_policy` (the name the notebooks use; kept)."""
    return evaluate_policy(weights, "fae", num_players, opponent, games, seed, options, learner_sample=learner_sample)


# ---------------------------------------------------------------------------- files
def _atomic_write_text(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)



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
    first = {}
    for r in summary.get("evals", []):  # the policy PPO started from (after any warm start)
        first.setdefault(r["opponent"], r)
    for r in summary["final_eval"]:
        start = first.get(r["opponent"])
        began = f"; at step {start['steps']:,}: {start['win_share']:.3f}" if start is not None else ""
        lines.append(f"   vs {r['opponent']:7s} win share {r['win_share']:.3f}  95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                     f"  (fair share {1 / summary['num_players']:.3f}{began}; {r['games']} seat-rotated games, "
                     f"{r['seconds']:.0f} s)")
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




# ---------------------------------------------------------------------------- checkpoints (no pickle)
def _encode(obj, tensors: dict):
    """JSON-able form of `obj`; arrays, tensors, bytes and policies go to `tensors` (named t0, t1, ...)."""
    import torch

    from tabletop_rl.agents.ppo_agent import PolicyWeights

    def stash(t):
        key = f"t{len(tensors)}"
        tensors[key] = t
        return key

    if isinstance(obj, torch.Tensor):
        return {"__tensor__": stash(obj.detach().cpu().clone())}
    if isinstance(obj, np.ndarray):
        return {"__array__": stash(torch.from_numpy(np.ascontiguousarray(obj).copy())), "dtype": obj.dtype.str}
    if isinstance(obj, (bytes, bytearray)):
        return {"__bytes__": stash(torch.frombuffer(bytearray(obj), dtype=torch.uint8).clone())}
    if isinstance(obj, PolicyWeights):
        return {"__policy__": {"activation": obj.activation, "meta": _encode(obj.meta, tensors),
                               "skip": [list(t) for t in obj.skip],
                               "weights": [[_encode(w, tensors), _encode(b, tensors)] for w, b in obj.weights]}}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, tuple):
        return {"__tuple__": [_encode(x, tensors) for x in obj]}
    if isinstance(obj, list):
        return [_encode(x, tensors) for x in obj]
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("__") for k in obj):
            return {k: _encode(v, tensors) for k, v in obj.items()}
        return {"__items__": [[_encode(k, tensors), _encode(v, tensors)] for k, v in obj.items()]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"checkpoint: cannot store a {type(obj).__name__} (only JSON, arrays, tensors, policies)")


def _decode(obj, tensors: dict):
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    def fetch(key):
        if not isinstance(key, str) or key not in tensors:
            raise ValueError(f"checkpoint: tensor {key!r} is missing from the .pt file")
        return tensors[key]

    if isinstance(obj, list):
        return [_decode(x, tensors) for x in obj]
    if not isinstance(obj, dict):
        return obj
    if "__tensor__" in obj:
        return fetch(obj["__tensor__"])
    if "__array__" in obj:
        return fetch(obj["__array__"]).numpy().astype(np.dtype(str(obj["dtype"])), copy=True)
    if "__bytes__" in obj:
        return bytes(fetch(obj["__bytes__"]).numpy().tobytes())
    if "__policy__" in obj:
        p = obj["__policy__"]
        return PolicyWeights([(_decode(w, tensors), _decode(b, tensors)) for w, b in p["weights"]], p["activation"],
                             _decode(p["meta"], tensors), [tuple(t) for t in p["skip"]])
    if "__tuple__" in obj:
        return tuple(_decode(x, tensors) for x in obj["__tuple__"])
    if "__items__" in obj:
        return {_decode(k, tensors): _decode(v, tensors) for k, v in obj["__items__"]}
    return {k: _decode(v, tensors) for k, v in obj.items()}


def save_checkpoint(path: str, ckpt: dict) -> None:
    """`path` (.pt: tensors only) and `path[:-3].json` (everything else), each written atomically;
    the .json, written last, marks the checkpoint complete."""
    import torch

    tensors: dict = {}
    meta = _encode(ckpt, tensors)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(tensors, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _atomic_write_text(path[:-3] + ".json", json.dumps(meta))


MAX_CHECKPOINT_JSON_BYTES = 256 << 20  # a checkpoint's .json holds configs, histories and game dicts: a few MiB


def read_json_file(path: str, max_bytes: int, prefix: str = ""):
    """The JSON value in `path`, a file of at most `max_bytes`: a ValueError starting with `prefix`
    and the path for a missing, oversized, too deeply nested or malformed file."""
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            raise ValueError(f"{size} bytes, over the {max_bytes} allowed")
        with open(path) as f:
            return json.load(f)
    except RecursionError:
        raise ValueError(f"{prefix}{path}: not valid JSON (nested too deeply)") from None
    except (OSError, ValueError) as e:
        raise ValueError(f"{prefix}{path}: missing or not valid JSON ({e})") from None


def load_checkpoint(path: str) -> dict:
    """Inverse of `save_checkpoint`. No pickle runs: `torch.load(weights_only=True)` and JSON.
    Raises ValueError naming the file if either part is missing, truncated, oversized, nested too
    deeply or malformed."""
    import torch

    try:
        tensors = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises UnpicklingError, RuntimeError, EOFError, ... on bad files
        raise ValueError(f"{path}: not a valid checkpoint tensor file ({type(e).__name__}: {e})") from None
    if not isinstance(tensors, dict) or not all(isinstance(v, torch.Tensor) for v in tensors.values()):
        raise ValueError(f"{path}: a checkpoint's .pt file must hold a dict of tensors")
    meta = read_json_file(path[:-3] + ".json", MAX_CHECKPOINT_JSON_BYTES)
    try:
        return _decode(meta, tensors)
    except RecursionError:
        raise ValueError(f"{meta_path}: malformed checkpoint (nested too deeply)") from None
    except Exception as e:  # a hand-edited .json: wrong types anywhere (KeyError, TypeError, AttributeError, ...)
        raise ValueError(f"{meta_path}: malformed checkpoint ({type(e).__name__}: {e})") from None


def checkpoint_paths(run_dir: str) -> list[str]:
    return sorted(glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.pt")))


def latest_valid_checkpoint(run_dir: str, restores=None) -> tuple[str, dict] | None:
    """(path, contents) of the newest checkpoint that loads and, given `restores` (a function that
    restores a checkpoint's dict into a scratch model and envs, raising on any problem), restores.
    Each one skipped, for any failure, is named with the reason (a warning and a line on stderr);
    None when none is left."""
    for path in reversed(checkpoint_paths(run_dir)):
        try:
            ckpt = load_checkpoint(path)
        except ValueError as e:
            _skip(f"{e}")
            continue
        if restores is None:
            return path, ckpt
        try:
            step = int(os.path.basename(path)[5:-3])
            if type(ckpt.get("num_timesteps") if isinstance(ckpt, dict) else None) is not int \
                    or ckpt["num_timesteps"] != step:
                raise ValueError(f"num_timesteps must be {step}, the step in the file name")
            restores(ckpt)
        except Exception as e:  # any failure to restore: fall back to the next older checkpoint
            _skip(f"{path}: does not restore into a fresh model and envs ({type(e).__name__}: {e})")
            continue
        return path, ckpt
    return None


def check_checkpoint(ckpt: dict, config: dict, num_envs: int, obs_shape: tuple) -> None:
    """What `train.restore` reads without checking it: ValueError naming the first key that is not
    what a run of `config` (its config.json fields) with `num_envs` envs of `obs_shape` writes."""
    def need(ok, key, what):
        if not ok:
            raise ValueError(f"key {key!r}: {what}")

    need(isinstance(ckpt, dict), "<root>", "must be a dict")
    need(type(ckpt.get("n_updates")) is int and 0 <= ckpt["n_updates"] <= ckpt.get("num_timesteps", 0),
         "n_updates", "must be an int in 0..num_timesteps")
    saved = ckpt.get("config")
    need(isinstance(saved, dict), "config", "must be the run's config")
    differ = sorted(k for k in set(saved) | set(config) if k not in RESUME_SAFE and saved.get(k) != config.get(k))
    need(not differ, "config", f"differs from the run's config.json in {differ}")
    need(isinstance(ckpt.get("history"), dict) and isinstance(ckpt["history"].get("evals"), list)
         and all(isinstance(r, dict) for r in ckpt["history"]["evals"]), "history", "must be a dict with a list of evals")
    need(isinstance(ckpt.get("ep_info_buffer"), list) and all(isinstance(r, dict) for r in ckpt["ep_info_buffer"]),
         "ep_info_buffer", "must be a list of episode dicts")
    obs, starts = ckpt.get("last_obs"), ckpt.get("last_episode_starts")
    need(isinstance(obs, np.ndarray) and obs.shape == (num_envs, *obs_shape), "last_obs",
         f"must be an array of shape {(num_envs, *obs_shape)}")
    need(isinstance(starts, np.ndarray) and starts.shape == (num_envs,), "last_episode_starts",
         f"must be an array of shape {(num_envs,)}")


def _skip(reason: str) -> None:
    reason = reason if len(reason) < 2000 else reason[:2000] + " ..."
    warnings.warn(f"skipping damaged checkpoint: {reason}", stacklevel=3)
    print(f"warning: skipping damaged checkpoint: {reason}", file=sys.stderr, flush=True)


# Config fields a resumed run may change: how long it runs, how it reports and checkpoints, how
# many threads; not what it learns (the game, players, network, PPO and pool settings, seeds).
RESUME_SAFE = ("total_steps", "time_limit_min", "progress", "eval_every", "eval_games", "final_eval_games",
               "eval_workers", "checkpoint_every", "keep_checkpoints", "torch_threads", "runs_dir", "resume")


def explicit_fields(cfg) -> dict:
    """The config fields set on the command line (`train.parse_args` records them as
    `cfg._flags_given`); for a config built in Python, the fields that differ from their defaults."""
    import dataclasses

    given = getattr(cfg, "_flags_given", None)
    fields = dataclasses.fields(cfg)
    if given is None:
        given = [f.name for f in fields if getattr(cfg, f.name) != f.default]
    return {f.name: getattr(cfg, f.name) for f in fields if f.name in given}


MAX_CONFIG_BYTES = 1 << 20  # a run's config.json is about 2 KiB


def read_run_config(run_dir: str, config_class) -> dict:
    """The fields of `run_dir`/config.json, checked against the dataclass `config_class`: a dict of
    its field names with values of the fields' types. ValueError naming the file and the problem."""
    import dataclasses

    path = os.path.join(run_dir, "config.json")
    saved = read_json_file(path, MAX_CONFIG_BYTES, "--resume: ")
    if not isinstance(saved, dict):
        raise ValueError(f"--resume: {path}: must be a JSON object of config fields")
    fields = {f.name: f for f in dataclasses.fields(config_class)}
    unknown = sorted(set(saved) - set(fields))
    if unknown:
        raise ValueError(f"--resume: {path} has unknown fields {unknown}")
    for name, v in saved.items():
        kind = type(fields[name].default)
        if not (type(v) is kind or (kind is float and type(v) is int)):
            raise ValueError(f"--resume: {path}: field {name!r} must be a {kind.__name__}; got {type(v).__name__}")
    return saved


def resume_config(saved: dict, flags: dict) -> tuple[dict, list[str]]:
    """The config fields of a resumed run: `saved` (its config.json) with the `flags` given with
    --resume applied where RESUME_SAFE; (fields, ["name: old -> new", ...] of the changes applied).
    ValueError naming every other flag that would change the saved value."""
    refused = [f"{k} ({saved.get(k)!r} -> {v!r})" for k, v in flags.items()
               if k not in RESUME_SAFE and saved.get(k) != v]
    if refused:
        raise ValueError(f"--resume: cannot change {', '.join(refused)}: they decide what the run learns (start a "
                         f"new run instead); a resumed run may change only {', '.join(RESUME_SAFE[:-2])}")
    applied = [f"{k}: {saved.get(k)!r} -> {v!r}" for k, v in flags.items()
               if k in RESUME_SAFE and k != "resume" and saved.get(k) != v]
    return {**saved, **{k: v for k, v in flags.items() if k in RESUME_SAFE}}, applied


def prune_checkpoints(run_dir: str, keep: int) -> None:
    for old in checkpoint_paths(run_dir)[:-keep]:
        for p in (old, old[:-3] + ".json"):
            if os.path.exists(p):
                os.remove(p)
