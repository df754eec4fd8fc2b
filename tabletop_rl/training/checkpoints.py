"""Checkpoints and resuming, with no pickle anywhere.

Tensors go to a `.pt` file read with `torch.load(weights_only=True)` and everything else (RNG
states, the opponent pool, the envs' games, the run history) to a `.json` beside it
(`save_checkpoint` / `load_checkpoint`). Both are written atomically (temp file + os.replace);
`latest_valid_checkpoint` picks the newest one that loads, passes `check_checkpoint` and
`check_model_state` and restores into a scratch model, naming each one it skips and why (any
failure of a candidate falls back to the next older one). A checkpoint is taken only if every tensor
is numeric (bool, int or float), finite, referenced once by the .json and of the run's shapes, and
every history field has its type and range. `resume_config` applies the flags given with `--resume`
that are safe to change (RESUME_SAFE) and refuses the others, and refuses a saved `reward_fn` or
`imports` (Python to import: CODE_FIELDS) unless the same value is given again: a run folder is data.
Every file read is bounded in size.
"""
from __future__ import annotations

import glob
import json
import math
import os
import shlex
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


_NUMERIC_KINDS = "biuf"  # what a checkpoint's arrays hold: bool, signed and unsigned ints, floats


def _array_dtype(text, where: str) -> np.dtype:
    """The numpy dtype an `__array__` entry names: a numeric, native, plain one only ("O" would make
    an object array, "<U4" strings, "V" raw bytes)."""
    try:
        dtype = np.dtype(text) if isinstance(text, str) and len(text) <= 8 else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in _NUMERIC_KINDS or not dtype.isnative or dtype.fields is not None \
            or dtype.subdtype is not None:
        raise ValueError(f"{where}: dtype {str(text)[:40]!r} is not a numeric array dtype (bool, int or float)")
    return dtype


def _check_tensor(t, where: str) -> None:
    """A tensor of a checkpoint: dense, numeric (bool, int, float) and, if float, finite."""
    import torch

    if t.layout != torch.strided or t.is_quantized or t.is_complex() or t.device.type != "cpu":
        raise ValueError(f"{where}: a {t.dtype} {t.layout} tensor; a checkpoint holds dense real tensors only")
    if t.is_floating_point() and not bool(torch.isfinite(t).all()):
        raise ValueError(f"{where}: holds NaN or infinite values")


def _decode(obj, tensors: dict, used: set | None = None, where: str = "checkpoint"):
    """Inverse of `_encode`. Every tensor it takes is checked (`_check_tensor`) and recorded in `used`:
    a tensor referenced twice, or missing, raises a ValueError naming the key path."""
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    used = set() if used is None else used

    def fetch(key):
        if not isinstance(key, str) or key not in tensors:
            raise ValueError(f"{where}: tensor {str(key)[:40]!r} is missing from the .pt file")
        if key in used:
            raise ValueError(f"{where}: tensor {key!r} is referenced twice")
        used.add(key)
        _check_tensor(tensors[key], where)
        return tensors[key]

    if isinstance(obj, list):
        return [_decode(x, tensors, used, f"{where}[{i}]") for i, x in enumerate(obj)]
    if not isinstance(obj, dict):
        return obj
    if "__tensor__" in obj:
        return fetch(obj["__tensor__"])
    if "__array__" in obj:
        dtype = _array_dtype(obj.get("dtype"), where)
        arr = fetch(obj["__array__"]).numpy()
        if arr.dtype != dtype:
            raise ValueError(f"{where}: dtype {dtype.str!r}, but its tensor holds {arr.dtype}")
        return arr.copy()
    if "__bytes__" in obj:
        import torch

        t = fetch(obj["__bytes__"])
        if t.dtype != torch.uint8 or t.dim() != 1:
            raise ValueError(f"{where}: bytes must be a 1-D uint8 tensor")
        return bytes(t.numpy().tobytes())
    if "__policy__" in obj:
        p = obj["__policy__"]
        return PolicyWeights([(_decode(w, tensors, used, f"{where}.weights[{i}]"),
                               _decode(b, tensors, used, f"{where}.weights[{i}]"))
                              for i, (w, b) in enumerate(p["weights"])], p["activation"],
                             _decode(p["meta"], tensors, used, f"{where}.meta"), [tuple(t) for t in p["skip"]])
    if "__tuple__" in obj:
        return tuple(_decode(x, tensors, used, f"{where}[{i}]") for i, x in enumerate(obj["__tuple__"]))
    if "__items__" in obj:
        return {_decode(k, tensors, used, where): _decode(v, tensors, used, f"{where}[{str(k)[:40]}]")
                for k, v in obj["__items__"]}
    return {k: _decode(v, tensors, used, f"{where}.{k}") for k, v in obj.items()}


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


MAX_CHECKPOINT_PT_BYTES = 1 << 30  # a checkpoint's tensors: the model, Adam's moments, snapshots, observations


def load_checkpoint(path: str) -> dict:
    """Inverse of `save_checkpoint`. No pickle runs: `torch.load(weights_only=True)` and JSON.
    Raises ValueError naming the file if either part is missing, truncated, oversized, nested too
    deeply or malformed, if a tensor is not numeric (bool, int, float) and finite, if an array's
    dtype is not numeric (`"O"`), or if the .pt file holds a tensor the .json does not reference
    exactly once."""
    import torch

    meta_path = path[:-3] + ".json"
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise ValueError(f"{path}: not a valid checkpoint tensor file ({e})") from None
    if size > MAX_CHECKPOINT_PT_BYTES:
        raise ValueError(f"{path}: {size} bytes, over the {MAX_CHECKPOINT_PT_BYTES} a checkpoint's tensors may take")
    try:
        tensors = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises UnpicklingError, RuntimeError, EOFError, ... on bad files
        raise ValueError(f"{path}: not a valid checkpoint tensor file ({type(e).__name__}: {e})") from None
    if not isinstance(tensors, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                                for k, v in tensors.items()):
        raise ValueError(f"{path}: a checkpoint's .pt file must hold a dict of tensors")
    meta = read_json_file(meta_path, MAX_CHECKPOINT_JSON_BYTES)
    used: set = set()
    try:
        ckpt = _decode(meta, tensors, used)
    except RecursionError:
        raise ValueError(f"{meta_path}: malformed checkpoint (nested too deeply)") from None
    except Exception as e:  # a hand-edited .json: wrong types anywhere (KeyError, TypeError, AttributeError, ...)
        raise ValueError(f"{meta_path}: malformed checkpoint ({type(e).__name__}: {e})") from None
    stray = sorted(set(tensors) - used)
    if stray:
        values = sum(tensors[k].numel() for k in stray)
        raise ValueError(f"{path}: holds {len(stray)} tensor(s) {stray[:5]} ({values:,} values) that belong to "
                         f"nothing in {os.path.basename(meta_path)}")
    return ckpt


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
        except Exception as e:  # any failure of a candidate (ValueError names the file): try the next older one
            _skip(f"{e}" if isinstance(e, ValueError) else f"{path}: {type(e).__name__}: {e}")
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


_CHECKPOINT_KEYS = {"num_timesteps", "n_updates", "policy", "optimizer", "rng", "last_obs", "last_episode_starts",
                    "ep_info_buffer", "history", "config"}
_ENV_KEYS = ({"fae_vector"}, {"pool", "envs", "monitors"})  # the learner core's state, or the scalar envs'
_CORE_META_KEYS = {"games", "rng", "seat", "opp", "episodes", "phi", "ep_return", "ep_length", "game_steps",
                   "bot_rngs", "snapshots", "snapshot_ids", "next_snapshot_id"}
_HISTORY_KEYS = {"evals", "last_snapshot", "last_eval", "last_checkpoint", "last_resumed_at", "wall_seconds",
                 "env_seconds", "eval_seconds", "setup_seconds", "stopped_by_time_limit", "total_steps",
                 "eval_opponents"}
_HISTORY_OPTIONAL = {"resumes", "bc", "best"}
_EVAL_ROW_KEYS = {"opponent", "games", "win_share", "ci_low", "ci_high", "seconds", "steps", "wall_seconds"}
STATS_WINDOW = 100  # SB3's ep_info_buffer length (the model's _stats_window_size; build keeps the default)


def _is_int(x) -> bool:
    return type(x) is int


def _is_number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def _values(obj) -> int:
    """The number of array and tensor values in a decoded checkpoint (what its tensors take)."""
    if isinstance(obj, np.ndarray):
        return obj.size
    if hasattr(obj, "numel"):
        return int(obj.numel())
    if isinstance(obj, dict):
        return sum(_values(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(_values(v) for v in obj)
    if hasattr(obj, "weights"):  # a PolicyWeights
        return sum(w.size + b.size for w, b in obj.weights)
    return 0


def check_checkpoint(ckpt: dict, config: dict, num_envs: int, obs_shape: tuple, eval_opponents: list | None = None,
                     obs_dtype=np.float32, max_values: int | None = None) -> None:
    """What `train.restore` reads without checking it: ValueError naming the first key that is not
    what a run of `config` (its config.json fields) with `num_envs` envs of `obs_shape` writes: the
    keys (no stray ones), the step counters, every history field's type and range (its
    `eval_opponents` must be the run's, `eval_opponents`), the episode infos, the observations'
    shapes and dtypes, and (`max_values`) the number of tensor values in all."""
    def need(ok, key, what):
        if not ok:
            raise ValueError(f"key {key!r}: {what}")

    need(isinstance(ckpt, dict), "<root>", "must be a dict")
    extra = set(ckpt) - _CHECKPOINT_KEYS
    need(_CHECKPOINT_KEYS <= set(ckpt) and extra in _ENV_KEYS, "<root>",
         f"must hold {sorted(_CHECKPOINT_KEYS)} and fae_vector (or pool, envs, monitors); got {sorted(ckpt)[:20]}")
    steps = ckpt["num_timesteps"]
    need(_is_int(steps) and 0 <= steps, "num_timesteps", "must be an int >= 0")
    need(_is_int(ckpt["n_updates"]) and 0 <= ckpt["n_updates"] <= steps, "n_updates",
         "must be an int in 0..num_timesteps")
    saved = ckpt.get("config")
    need(isinstance(saved, dict), "config", "must be the run's config")
    differ = sorted(k for k in set(saved) | set(config) if k not in RESUME_SAFE and saved.get(k) != config.get(k))
    need(not differ, "config", f"differs from the run's config.json in {differ}")
    _check_history(ckpt["history"], steps, eval_opponents, need)
    infos = ckpt["ep_info_buffer"]
    need(isinstance(infos, list) and len(infos) <= STATS_WINDOW, "ep_info_buffer",
         f"must be a list of at most {STATS_WINDOW} episode dicts")
    for i, r in enumerate(infos):
        need(isinstance(r, dict) and {"r", "l"} <= set(r) <= {"r", "l", "t"} and _is_number(r["r"])
             and _is_int(r["l"]) and r["l"] >= 0 and (_is_number(r.get("t", 0.0)) and r.get("t", 0.0) >= 0),
             f"ep_info_buffer[{i}]", "must be {'r': finite return, 'l': int length >= 0} (and 't': seconds >= 0)")
    obs, starts = ckpt.get("last_obs"), ckpt.get("last_episode_starts")
    need(isinstance(obs, np.ndarray) and obs.shape == (num_envs, *obs_shape) and obs.dtype == np.dtype(obs_dtype),
         "last_obs", f"must be a {np.dtype(obs_dtype)} array of shape {(num_envs, *obs_shape)}")
    need(isinstance(starts, np.ndarray) and starts.shape == (num_envs,) and starts.dtype == np.bool_,
         "last_episode_starts", f"must be a bool array of shape {(num_envs,)}")
    _check_rng(ckpt["rng"], need)
    if "fae_vector" in ckpt:
        core = ckpt["fae_vector"]
        need(isinstance(core, dict) and set(core) == {"meta", "arrays"} and isinstance(core["meta"], dict)
             and isinstance(core["arrays"], dict), "fae_vector", "must be {'meta': dict, 'arrays': dict}")
        meta = core["meta"]
        need(set(meta) <= _CORE_META_KEYS, "fae_vector.meta", f"unknown keys {sorted(set(meta) - _CORE_META_KEYS)[:5]}")
        snaps = meta.get("snapshots", [])
        need(isinstance(snaps, list) and len(snaps) <= max(0, int(config.get("max_snapshots", 0) or 0))
             and all(isinstance(s, dict) and _is_int(s.get("layers")) and 1 <= s["layers"] <= 64 for s in snaps),
             "fae_vector.meta.snapshots", f"must be at most max_snapshots ({config.get('max_snapshots')}) "
                                          "policies of 1..64 layers")
        names = {f"snap{k}_{kind}{i}" for k, s in enumerate(snaps) for i in range(s["layers"]) for kind in "Wb"}
        need(set(core["arrays"]) == names, "fae_vector.arrays",
             f"must be the snapshots' weights {sorted(names)[:4]}...; got {sorted(core['arrays'])[:6]}")
    if max_values is not None:
        values = _values(ckpt)
        need(values <= max_values, "<root>", f"its tensors hold {values:,} values; a checkpoint of this run holds at "
                                             f"most {max_values:,}")


def _check_history(h, steps: int, eval_opponents, need) -> None:
    """The run's bookkeeping (`sb3.new_history`), key by key: what the training loop computes with."""
    need(isinstance(h, dict), "history", "must be a dict")
    need(_HISTORY_KEYS <= set(h) <= _HISTORY_KEYS | _HISTORY_OPTIONAL, "history",
         f"must hold {sorted(_HISTORY_KEYS)} (and optionally {sorted(_HISTORY_OPTIONAL)}); "
         f"missing {sorted(_HISTORY_KEYS - set(h))}, unknown {sorted(set(h) - _HISTORY_KEYS - _HISTORY_OPTIONAL)[:5]}")
    for key in ("last_snapshot", "last_eval", "last_checkpoint"):
        need(_is_int(h[key]) and 0 <= h[key] <= steps, f"history.{key}", f"must be an int in 0..{steps} (num_timesteps)")
    need(_is_int(h["last_resumed_at"]) and -1 <= h["last_resumed_at"] <= steps, "history.last_resumed_at",
         f"must be an int in -1..{steps}")
    for key in ("wall_seconds", "env_seconds", "eval_seconds", "setup_seconds"):
        need(_is_number(h[key]) and h[key] >= 0, f"history.{key}", "must be a finite number of seconds >= 0")
    need(type(h["stopped_by_time_limit"]) is bool, "history.stopped_by_time_limit", "must be true or false")
    need(_is_int(h["total_steps"]) and h["total_steps"] >= 1, "history.total_steps", "must be an int >= 1")
    need(_is_int(h.get("resumes", 0)) and h.get("resumes", 0) >= 0, "history.resumes", "must be an int >= 0")
    opponents = h["eval_opponents"]
    need(isinstance(opponents, list) and all(isinstance(o, str) for o in opponents), "history.eval_opponents",
         "must be a list of bot names")
    need(eval_opponents is None or opponents == list(eval_opponents), "history.eval_opponents",
         f"{opponents[:8]!r} are not the bots this run evaluates against ({eval_opponents!r})")
    need(isinstance(h["evals"], list), "history.evals", "must be a list of evaluation rows")
    for i, r in enumerate(h["evals"]):
        where = f"history.evals[{i}]"
        need(isinstance(r, dict) and set(r) == _EVAL_ROW_KEYS, where, f"must be a row of {sorted(_EVAL_ROW_KEYS)}")
        need(r["opponent"] in opponents, f"{where}.opponent", "must be one of history.eval_opponents")
        need(_is_int(r["games"]) and r["games"] >= 0, f"{where}.games", "must be an int >= 0")
        need(_is_int(r["steps"]) and 0 <= r["steps"] <= steps, f"{where}.steps", f"must be an int in 0..{steps}")
        for key in ("seconds", "wall_seconds"):
            need(_is_number(r[key]) and r[key] >= 0, f"{where}.{key}", "must be a finite number >= 0")
        for key in ("win_share", "ci_low", "ci_high"):  # NaN only as the win share of no games
            v = r[key]
            need((_is_number(v) and 0 <= v <= 1) or (r["games"] == 0 and type(v) is float and math.isnan(v)),
                 f"{where}.{key}", "must be a share in [0, 1]")
    if "best" in h:  # --keep-best's choice so far (sb3.keep_if_best)
        b = h["best"]
        need(isinstance(b, dict) and set(b) == {"opponent", "games", "win_share", "ci_low", "ci_high", "steps"}
             and b["opponent"] in opponents and _is_int(b["games"]) and b["games"] > 0
             and _is_int(b["steps"]) and 0 <= b["steps"] <= steps
             and all(_is_number(b[k]) and 0 <= b[k] <= 1 for k in ("win_share", "ci_low", "ci_high")),
             "history.best", "must be an evaluation row {opponent, games, win_share, ci_low, ci_high, steps} of this run")
    if "bc" in h:
        bc = h["bc"]
        need(isinstance(bc, dict) and set(bc) == {"samples", "data_seconds", "fit_seconds", "loss_by_epoch"}
             and _is_int(bc["samples"]) and bc["samples"] >= 0
             and all(_is_number(bc[k]) and bc[k] >= 0 for k in ("data_seconds", "fit_seconds"))
             and isinstance(bc["loss_by_epoch"], list) and all(_is_number(x) for x in bc["loss_by_epoch"]),
             "history.bc", "must be the warm start's {samples, data_seconds, fit_seconds, loss_by_epoch} (finite)")


def _check_rng(rng, need) -> None:
    """The RNG states `restore` sets last (torch's and Python's own setters check theirs; numpy's
    legacy state takes a NaN cached Gaussian silently)."""
    need(isinstance(rng, dict) and set(rng) == {"torch", "numpy", "python"}, "rng", "must be {torch, numpy, python}")
    state = rng["numpy"]
    need(isinstance(state, tuple) and len(state) == 5 and state[0] == "MT19937" and isinstance(state[1], np.ndarray)
         and state[1].shape == (624,) and state[1].dtype == np.uint32 and _is_int(state[2]) and 0 <= state[2] <= 624
         and state[3] in (0, 1) and _is_int(state[3]) and _is_number(state[4]), "rng.numpy",
         "must be numpy's ('MT19937', 624 uint32, position, has_gauss, finite cached gaussian)")


def check_model_state(ckpt: dict, policy_state: dict, param_groups: list, param_shapes: dict) -> None:
    """The policy's tensors and Adam's state of a checkpoint against a freshly built model's
    (`policy_state`: its `state_dict()`; `param_groups`: its optimizer's `state_dict()["param_groups"]`;
    `param_shapes`: {optimizer parameter index: shape}): the same names, shapes and
    dtypes (torch's `load_state_dict` casts dtypes and takes Adam moments of any shape, which then
    fail at the first update), the same optimizer settings but the rate (a finite rate >= 0)."""
    import torch

    def need(ok, key, what):
        if not ok:
            raise ValueError(f"key {key!r}: {what}")

    policy = ckpt["policy"]
    need(isinstance(policy, dict) and set(policy) == set(policy_state), "policy",
         f"must hold the model's tensors {sorted(policy_state)[:3]}...; differs in "
         f"{sorted(set(policy) ^ set(policy_state))[:5] if isinstance(policy, dict) else type(policy).__name__}")
    for name, want in policy_state.items():
        got = policy[name]
        need(isinstance(got, torch.Tensor) and got.shape == want.shape and got.dtype == want.dtype, f"policy.{name}",
             f"must be a {want.dtype} tensor of shape {tuple(want.shape)}")
    opt = ckpt["optimizer"]
    need(isinstance(opt, dict) and set(opt) == {"state", "param_groups"}, "optimizer", "must be {state, param_groups}")
    groups = opt["param_groups"]
    need(isinstance(groups, list) and len(groups) == len(param_groups), "optimizer.param_groups",
         f"must be {len(param_groups)} parameter group(s)")
    for i, (got, want) in enumerate(zip(groups, param_groups)):
        need(isinstance(got, dict) and set(got) <= set(want) and "params" in got and "lr" in got,
             f"optimizer.param_groups[{i}]", f"must hold the keys {sorted(want)}")
        for key, value in got.items():
            if key == "lr":
                need(_is_number(value) and value >= 0, f"optimizer.param_groups[{i}].lr", "must be a finite rate >= 0")
            else:
                need(value == want[key], f"optimizer.param_groups[{i}].{key}",
                     f"must be {want[key]!r}, this run's setting (got {str(value)[:40]})")
    shapes = param_shapes
    state = opt["state"]
    need(isinstance(state, dict), "optimizer.state", "must be a dict")
    for index, moments in state.items():
        where = f"optimizer.state[{str(index)[:20]}]"
        need(_is_int(index) and index in shapes, where, f"must be a parameter index in 0..{len(shapes) - 1}")
        need(isinstance(moments, dict) and set(moments) == {"step", "exp_avg", "exp_avg_sq"}
             and all(isinstance(t, torch.Tensor) for t in moments.values()), where,
             "must be Adam's {step, exp_avg, exp_avg_sq} tensors")
        step = moments["step"]
        need(step.dim() == 0 and step.is_floating_point() and float(step) >= 0, f"{where}.step",
             "must be a scalar count >= 0")
        for key in ("exp_avg", "exp_avg_sq"):
            t = moments[key]
            need(tuple(t.shape) == shapes[index] and t.is_floating_point(), f"{where}.{key}",
                 f"must be a float tensor of the parameter's shape {shapes[index]}")
        need(bool((moments["exp_avg_sq"] >= 0).all()), f"{where}.exp_avg_sq", "must be >= 0")


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


# Config fields that name Python to import (`module:function`, module names): a run folder is data,
# so --resume takes a saved value only when the same one is given again on the command line.
CODE_FIELDS = ("reward_fn", "imports")


def check_code_fields(saved: dict, flags: dict, source: str = "the run's config.json") -> None:
    """ValueError naming each CODE_FIELDS value `saved` (a run's config.json) holds that `flags` (given
    on the command line) does not give again exactly: resuming never imports what a run folder names."""
    refused = [(k, saved[k]) for k in CODE_FIELDS if saved.get(k) and flags.get(k) != saved[k]]
    if refused:
        names = " and ".join(f"{k} {v!r}" for k, v in refused)
        again = " ".join(f"--{k.replace('_', '-')} {shlex.quote(v)}" for k, v in refused)
        raise ValueError(f"--resume: {source} names {names}: Python that training would import. A run folder is "
                         f"data and --resume imports nothing it names; if you trust that code, give the same "
                         f"value again on the command line ({again}), or start a new run")


def resume_config(saved: dict, flags: dict, source: str = "the run's config.json") -> tuple[dict, list[str]]:
    """The config fields of a resumed run: `saved` (its config.json) with the `flags` given with
    --resume applied where RESUME_SAFE; (fields, ["name: old -> new", ...] of the changes applied).
    ValueError naming a saved `reward_fn` / `imports` not given again (`check_code_fields`), and
    every other flag that would change the saved value."""
    check_code_fields(saved, flags, source)
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
