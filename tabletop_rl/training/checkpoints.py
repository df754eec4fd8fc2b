"""Checkpoints and resuming, with no pickle anywhere.

Tensors go to a `.pt` file read with `torch.load(weights_only=True)` and everything else (RNG
states, the opponent pool, the envs' games, the run history) to a `.json` beside it
(`save_checkpoint` / `load_checkpoint`). Both are written atomically (temp file + os.replace);
`latest_valid_checkpoint` picks the newest one that loads and restores into a scratch model,
naming each one it skips and why; `resume_config` applies the flags given with `--resume` that
are safe to change (RESUME_SAFE) and refuses the others. Every file read is bounded in size.
"""
from __future__ import annotations

import glob
import json
import os
import sys
import warnings

import numpy as np


def atomic_write_text(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


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
    atomic_write_text(path[:-3] + ".json", json.dumps(meta))


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
