"""Evaluation, checkpoints and reporting for `train.py` (the algorithm and its Config live there).

- Evaluation: `evaluate_policy` plays seat-rotated games of a numpy policy (`PolicyWeights`) against
  a bot all at once in the learner core (batched where the game has an engine; one policy forward
  for every game): train.py's periodic and final evaluations of every game use it
  (`evaluate_batched` is its Fae name, kept). `evaluate` plays them one by one in the scalar core
  (`play_matches`, the arena's and the RLlib backend's code path): `train.py --evaluate`'s
  independent check.
- Checkpoints hold no pickle: tensors in a `.pt` file read with `torch.load(weights_only=True)` and
  everything else (RNG states, the opponent pool, the envs' games, the run history) in a `.json`
  beside it (`save_checkpoint` / `load_checkpoint`). Both are written atomically (temp file +
  os.replace); `latest_valid_checkpoint` skips a damaged newest one with a warning.
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
def play_matches(weights, game: str, num_players: int, opponent: str, games: int, seed: int, options: dict,
                 first_game: int = 0, max_steps: int = 0) -> float:
    """Total win share of the policy (argmax play) over games first_game..first_game+games-1
    against `opponent` bots: `tabletop_rl.agents.match.win_share_against`, the evaluation loop and
    seeding every backend shares."""
    from tabletop_rl.agents.base import limit_blas_threads
    from tabletop_rl.agents.match import win_share_against
    from tabletop_rl.agents.ppo_agent import PPOAgent

    limit_blas_threads()  # also in evaluation worker processes
    me = PPOAgent(weights=weights, deterministic=True)
    return win_share_against(me, game, num_players, opponent, games, seed, options, first_game, max_steps)


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




def evaluate_policy(weights, game: str, num_players: int, opponent: str, games: int, seed: int,
                    options: dict | None = None, max_steps: int = 0, learner_sample: bool = False,
                    batched: bool = True) -> dict:
    """The win share of `weights` (played as `PPOAgent` plays it: argmax of the masked logits with its
    cycle breaking; sampled with `learner_sample`) over
    `games` seat-rotated games against `opponent` (any registered bot), all played at once in the
    learner core (`tabletop_rl.envs.learner`: the game's batched engine, or N scalar games; one
    policy forward per step for every game). train.py's periodic and final evaluations of every
    game use it.

    Game i seats the policy at i mod num_players; a shared win counts 1/k; a game the step guard
    (`max_steps`, 0: the game's own) cuts is not won; 95% Wilson interval.
    """
    from tabletop_rl.agents.ppo_agent import PPOAgent
    from tabletop_rl.envs.learner import make_learner_core

    start = time.perf_counter()
    core = make_learner_core(game, games, num_players, batched=batched, opponents={opponent: 1.0}, reward="win_loss",
                             max_steps=max_steps or None, seed=seed, **dict(options or {}))
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
        if learner_sample:
            actions[live] = np.argmax(logits[live] + core.rng.gumbel(size=(live.size, logits.shape[1])), axis=1)
        else:
            actions[live] = [players[i].choose(obs[i], logits[i]) for i in live]
        _, _, finished = core.step(actions)
        for f in finished:
            share[f["index"]] = f["win_share"]
        core.retire([f["index"] for f in finished])  # its result is in: stop playing that game
    wins = float(share.sum())
    low, high = wilson(wins, games)
    return {"opponent": opponent, "games": games, "win_share": wins / games, "ci_low": low, "ci_high": high,
            "seconds": time.perf_counter() - start}


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


def load_checkpoint(path: str) -> dict:
    """Inverse of `save_checkpoint`. No pickle runs: `torch.load(weights_only=True)` and JSON.
    Raises ValueError naming the file if either part is missing, truncated or malformed."""
    import torch

    try:
        tensors = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises UnpicklingError, RuntimeError, EOFError, ... on bad files
        raise ValueError(f"{path}: not a valid checkpoint tensor file ({type(e).__name__}: {e})") from None
    if not isinstance(tensors, dict) or not all(isinstance(v, torch.Tensor) for v in tensors.values()):
        raise ValueError(f"{path}: a checkpoint's .pt file must hold a dict of tensors")
    meta_path = path[:-3] + ".json"
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{meta_path}: missing or not valid JSON ({e})") from None
    try:
        return _decode(meta, tensors)
    except (KeyError, TypeError) as e:
        raise ValueError(f"{meta_path}: malformed checkpoint ({type(e).__name__}: {e})") from None


def checkpoint_paths(run_dir: str) -> list[str]:
    return sorted(glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.pt")))


def latest_valid_checkpoint(run_dir: str) -> tuple[str, dict] | None:
    """(path, contents) of the newest checkpoint that loads; a damaged newer one is skipped with a warning."""
    for path in reversed(checkpoint_paths(run_dir)):
        try:
            return path, load_checkpoint(path)
        except ValueError as e:
            warnings.warn(f"skipping damaged checkpoint: {e}", stacklevel=2)
            print(f"warning: skipping damaged checkpoint: {e}", file=sys.stderr, flush=True)
    return None


def prune_checkpoints(run_dir: str, keep: int) -> None:
    for old in checkpoint_paths(run_dir)[:-keep]:
        for p in (old, old[:-3] + ".json"):
            if os.path.exists(p):
                os.remove(p)
