"""`train.py --resume` takes a run folder from others as data (issue 36, items 1 and 3).

A run folder is data: nothing read from it (config.json, checkpoints) imports a module. A saved
`reward_fn` / `imports` names Python to import, so `--resume` refuses it unless the same value is
given again on the command line. A checkpoint is picked only if every tensor is finite, numeric and
of the run's shapes and every history field has its type and range; any failure of a candidate
falls back to the next older one, naming the one skipped.
"""
from __future__ import annotations

import contextlib
import io
import json
import math
import os
import shutil
import sys
import warnings

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import train  # noqa: E402

NEWEST, OLDER = "ckpt_0000001024", "ckpt_0000000512"


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A tiny Fae run with checkpoints at 512 and 1024 steps (each test damages a copy of it)."""
    base = tmp_path_factory.mktemp("trust")
    cfg = train.parse_args(["--preset", "tiny", "--total-steps", "1536", "--checkpoint-every", "512",
                            "--keep-checkpoints", "10", "--final-eval-games", "0", "--eval-every", "0",
                            "--bc-teacher", "", "--runs-dir", str(base), "--run-name", "r"])
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        train.train(cfg)
    return base / "r"


def _copy(run, dst):
    shutil.copytree(run, dst)
    return dst


# ---------------------------------------------------------------------------- item 1: no imports from a run folder
def _evil_run(tiny_run, tmp_path, field: str, module: str):
    """A copy of the run inside an importable package folder, shipping `<module>.py` (it writes a
    marker when imported) and naming it in config.json's `field`; (run, marker, the saved value)."""
    pkg = f"runs_{module}"
    run = _copy(tiny_run, tmp_path / pkg / "r")
    marker = tmp_path / "MARKER"
    (run / f"{module}.py").write_text(f"open({str(marker)!r}, 'w').close()\n\ndef f(batch, seats, dones):\n"
                                      f"    return 0.0\n")
    value = f"{pkg}.r.{module}:f" if field == "reward_fn" else f"{pkg}.r.{module}"
    config = json.loads((run / "config.json").read_text())
    config[field] = value
    (run / "config.json").write_text(json.dumps(config))
    return run, marker, value


@pytest.mark.parametrize("field,flag", [("reward_fn", "--reward-fn"), ("imports", "--imports")])
def test_a_saved_reward_fn_or_imports_is_refused_and_never_imported(tiny_run, tmp_path, monkeypatch, field, flag):
    """The issue's exploit: config.json's reward_fn "runs.<name>.evil:f" imported a .py shipped in the
    folder (it ran even though every checkpoint was refused). Now the saved value is refused before
    anything is imported, and the error names the field and the flag that would allow it."""
    module = f"evil_{field}"
    run, marker, value = _evil_run(tiny_run, tmp_path, field, module)
    monkeypatch.syspath_prepend(str(tmp_path))  # as `python train.py` puts the checkout root on sys.path
    with pytest.raises(SystemExit) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train.train(train.parse_args(["--resume", str(run)]))
    assert not marker.exists(), f"the run folder's {field} was imported"
    message = str(err.value)
    assert field in message and f"{flag} {value}" in message and "config.json" in message, message
    assert not any(m.startswith(f"runs_{module}") for m in sys.modules)


def test_a_saved_reward_fn_changed_on_the_command_line_is_refused_too(tiny_run, tmp_path, monkeypatch):
    run, marker, value = _evil_run(tiny_run, tmp_path, "reward_fn", "evil_changed")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SystemExit, match=r"reward_fn") as err:
        train.train(train.parse_args(["--resume", str(run), "--reward-fn", "tests.learner_helpers:step_penalty"]))
    assert value in str(err.value) and not marker.exists()


def test_resume_config_takes_a_saved_reward_fn_given_again(tmp_path):
    """The control: the same value given again on the command line is the user's own choice."""
    saved = {"reward_fn": "mine:f", "imports": "mine_bots", "total_steps": 10}
    fields, applied = train.resume_config(saved, {"reward_fn": "mine:f", "imports": "mine_bots", "resume": "r"})
    assert fields["reward_fn"] == "mine:f" and fields["imports"] == "mine_bots" and applied == []
    for flags, named in (({"resume": "r"}, "reward_fn"), ({"reward_fn": "mine:f", "resume": "r"}, "imports"),
                         ({"reward_fn": "", "imports": "mine_bots", "resume": "r"}, "reward_fn")):
        with pytest.raises(ValueError, match=named):
            train.resume_config(saved, flags)
    assert train.resume_config({"reward_fn": "", "imports": ""}, {"resume": "r"})[0]["reward_fn"] == ""


def test_the_same_reward_fn_given_again_is_imported_as_asked(tiny_run, tmp_path, monkeypatch):
    """Control of the CLI path: with `--reward-fn` given again, the refusal is not raised and the
    user's module is imported (the checkpoints, saved without it, are then skipped)."""
    run, marker, value = _evil_run(tiny_run, tmp_path, "reward_fn", "evil_regiven")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SystemExit, match="no valid checkpoint") as err, warnings.catch_warnings(), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        train.train(train.parse_args(["--resume", str(run), "--reward-fn", value]))
    assert marker.exists() and "would import" not in str(err.value)


# ---------------------------------------------------------------------------- item 3: checkpoints
def _tensors(pt):
    import torch

    return torch.load(pt, map_location="cpu", weights_only=True)


def _edit(run, json_edit=None, tensor_edit=None):
    """Damage the newest checkpoint: `json_edit(d)` on its .json, `tensor_edit(d, tensors)` on its .pt."""
    import torch

    path = run / "checkpoints" / f"{NEWEST}.json"
    d = json.loads(path.read_text())
    if json_edit is not None:
        json_edit(d)
    if tensor_edit is not None:
        pt = run / "checkpoints" / f"{NEWEST}.pt"
        tensors = _tensors(pt)
        tensor_edit(d, tensors)
        torch.save(tensors, pt)
    path.write_text(json.dumps(d))


def _set_tensor(where, fill):
    """A tensor edit: the tensor referenced at JSON path `where` gets `fill`(tensor) in place."""
    def edit(d, tensors):
        node = d
        for k in where:
            node = node[k]
        key = node.get("__tensor__") or node.get("__array__")
        fill(tensors[key])
    return edit


def _opt_state(d, index: int) -> dict:
    return dict((k, v) for k, v in d["optimizer"]["state"]["__items__"])[index]


def _stray(n):
    def edit(d, tensors):
        import torch

        tensors["t_stray"] = torch.zeros(n, dtype=torch.uint8)
    return edit


def _stray_referenced(where):
    def edit(d, tensors):
        import torch

        node = d
        for k in where[:-1]:
            node = node[k]
        tensors["t_stray"] = torch.zeros(1_000_000)
        node[where[-1]] = {"__tensor__": "t_stray"}
    return edit


def _set_dtype(where, dtype):
    """A tensor edit: the tensor referenced at JSON path `where` converted to torch's `dtype`."""
    def edit(d, tensors):
        import torch

        node = d
        for k in where:
            node = node[k]
        key = node.get("__tensor__") or node.get("__array__")
        tensors[key] = tensors[key].to(getattr(torch, dtype))
    return edit


def _history(key, value):
    return lambda d: d["history"].__setitem__(key, value)


def _opt_wrong_shape(d, tensors):
    import torch

    key = _opt_state(d, 1)["exp_avg"]["__tensor__"]
    tensors[key] = torch.zeros(3, 3)


JSON_DAMAGE = {
    "tensor key that decodes to nothing": lambda d: d["policy"].__setitem__("skip_param", {"__tensor__": "nope"}),
    "last_obs dtype O": lambda d: d["last_obs"].__setitem__("dtype", "O"),
    "last_obs dtype <U4": lambda d: d["last_obs"].__setitem__("dtype", "<U4"),
    "last_obs dtype <f8 over float32 data": lambda d: d["last_obs"].__setitem__("dtype", "<f8"),
    "rng.numpy array dtype O": lambda d: d["rng"]["numpy"]["__tuple__"][1].__setitem__("dtype", "|O"),
    "unknown eval_opponents": _history("eval_opponents", ["random", "nobody"]),
    "eval_opponents of another run": _history("eval_opponents", ["greedy"]),
    "eval_opponents a string": _history("eval_opponents", "random,greedy"),
    "episode info r NaN": lambda d: d["ep_info_buffer"][0].__setitem__("r", math.nan),
    "episode info l a string": lambda d: d["ep_info_buffer"][0].__setitem__("l", "18"),
    "episode info with a stray key": lambda d: d["ep_info_buffer"][0].__setitem__("x", [0] * 1000),
    "last_snapshot a string": _history("last_snapshot", "1024"),
    "last_eval a string": _history("last_eval", "0"),
    "last_checkpoint a string": _history("last_checkpoint", "1024"),
    "last_checkpoint past num_timesteps": _history("last_checkpoint", 10 ** 9),
    "total_steps a string": _history("total_steps", "1536"),
    "wall_seconds NaN": _history("wall_seconds", math.nan),
    "env_seconds negative": _history("env_seconds", -1.0),
    "stopped_by_time_limit a string": _history("stopped_by_time_limit", "no"),
    "history with an unknown key": _history("junk", 1),
    "evals row win_share 7": _history("evals", [{"opponent": "random", "games": 4, "win_share": 7.0, "ci_low": 0.0,
                                                 "ci_high": 1.0, "seconds": 1.0, "steps": 512, "wall_seconds": 1.0}]),
    "rng.numpy cached gaussian NaN": lambda d: d["rng"]["numpy"]["__tuple__"].__setitem__(4, math.nan),
    "optimizer eps NaN": lambda d: d["optimizer"]["param_groups"][0].__setitem__("eps", math.nan),
    "unknown top-level key": lambda d: d.__setitem__("junk", [1, 2]),
}
TENSOR_DAMAGE = {
    "NaN in a policy weight": _set_tensor(("policy", "mlp_extractor.policy_net.0.weight"),
                                          lambda t: t.view(-1).__setitem__(0, math.nan)),
    "inf in the action layer": _set_tensor(("policy", "action_net.bias"), lambda t: t.fill_(math.inf)),
    "inf in Adam's exp_avg": lambda d, t: _set_tensor((), lambda x: x.fill_(math.inf))(_opt_state(d, 1)["exp_avg"], t),
    "Adam's exp_avg of another shape": _opt_wrong_shape,
    "NaN in last_obs": _set_tensor(("last_obs",), lambda t: t.view(-1).__setitem__(5, math.nan)),
    "NaN in a snapshot's weights": _set_tensor(("fae_vector", "arrays", "snap0_W0"), lambda t: t.fill_(math.nan)),
    "last_episode_starts as floats": lambda d, t: (_set_dtype(("last_episode_starts",), "float32")(d, t),
                                                   d["last_episode_starts"].__setitem__("dtype", "<f4")),
    "a stray 50M-element tensor": _stray(50_000_000),
    "a stray tensor in the snapshot arrays": _stray_referenced(("fae_vector", "arrays", "junk")),
    "a stray tensor in Adam's state": lambda d, t: _stray_referenced(("x",))(_opt_state(d, 1), t),
    "a complex tensor": _set_dtype(("policy", "value_net.bias"), "complex64"),
}


@pytest.mark.parametrize("damage", sorted(JSON_DAMAGE) + sorted(TENSOR_DAMAGE))
def test_a_checkpoint_that_would_crash_or_play_on_wrongly_is_skipped(tiny_run, tmp_path, damage):
    """Each of these restored into the old scratch model and then crashed at the first rollout,
    evaluation or update (string counters, unknown eval_opponents, NaN weights: "action 0 is
    illegal") or trained on silently (NaN episode infos, a stray 50M-element tensor). Now the newest
    is skipped with its name and the reason, and the older one is picked."""
    run = _copy(tiny_run, tmp_path / "r")
    if damage in JSON_DAMAGE:
        _edit(run, json_edit=JSON_DAMAGE[damage])
    else:
        _edit(run, tensor_edit=TENSOR_DAMAGE[damage])
    cfg = train.Config(**{**json.loads((run / "config.json").read_text()), "resume": str(run)})
    err = io.StringIO()
    with pytest.warns(UserWarning, match=rf"skipping damaged checkpoint: .*{NEWEST}"), contextlib.redirect_stderr(err):
        path, ckpt = train.latest_valid_checkpoint(str(run), restores=lambda c: train.restores_cleanly(cfg, c))
    assert path.endswith(f"{OLDER}.pt") and ckpt["num_timesteps"] == 512
    assert "NameError" not in err.getvalue()


def test_the_undamaged_newest_checkpoint_is_picked(tiny_run, tmp_path):
    """The control: the checks pass on what a run writes."""
    run = _copy(tiny_run, tmp_path / "r")
    cfg = train.Config(**{**json.loads((run / "config.json").read_text()), "resume": str(run)})
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stderr(io.StringIO()) as err:
        warnings.simplefilter("always")
        path, ckpt = train.latest_valid_checkpoint(str(run), restores=lambda c: train.restores_cleanly(cfg, c))
    assert not [w for w in caught if "skipping" in str(w.message)] and "skipping" not in err.getvalue()
    assert path.endswith(f"{NEWEST}.pt") and ckpt["num_timesteps"] == 1024


def test_a_json_that_parses_but_does_not_decode_names_the_file(tiny_run, tmp_path):
    """load_checkpoint's except branches named an undefined `meta_path` (NameError) instead of the
    file; --resume then died although an older valid checkpoint existed."""
    run = _copy(tiny_run, tmp_path / "r")
    _edit(run, json_edit=JSON_DAMAGE["tensor key that decodes to nothing"])
    with pytest.raises(ValueError, match=rf"{NEWEST}\.json: malformed checkpoint .*'nope'"):
        train.load_checkpoint(str(run / "checkpoints" / f"{NEWEST}.pt"))
    with pytest.warns(UserWarning, match=rf"{NEWEST}\.json"):
        path, _ = train.latest_valid_checkpoint(str(run))
    assert path.endswith(f"{OLDER}.pt")


def test_every_failure_of_a_candidate_falls_back(tiny_run, tmp_path, monkeypatch):
    """Whatever a candidate raises while loading (here a RuntimeError), the next older one is tried."""
    from tabletop_rl.training import checkpoints

    run = _copy(tiny_run, tmp_path / "r")
    real = checkpoints.load_checkpoint

    def flaky(path):
        if NEWEST in path:
            raise RuntimeError("disk hiccup")
        return real(path)

    monkeypatch.setattr(checkpoints, "load_checkpoint", flaky)
    with pytest.warns(UserWarning, match=rf"{NEWEST}.*RuntimeError: disk hiccup"), \
            contextlib.redirect_stderr(io.StringIO()):
        path, _ = checkpoints.latest_valid_checkpoint(str(run))
    assert path.endswith(f"{OLDER}.pt")


def test_a_resumed_run_from_a_checked_checkpoint_trains_on(tiny_run, tmp_path):
    """The checks take what the run itself wrote: --resume continues from the newest to the end."""
    run = _copy(tiny_run, tmp_path / "r")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        summary = train.train(train.parse_args(["--resume", str(run), "--total-steps", "2048"]))
    assert summary["steps"] == 2048 and "skipping" not in err.getvalue()
    assert np.isfinite([r["r"] for r in json.loads((run / "checkpoints" / "ckpt_0000001536.json").read_text())
                        ["ep_info_buffer"]]).all()


def test_the_values_a_checkpoint_holds_are_bounded(tiny_run):
    """Whatever slot a large array hides in, the checkpoint's tensors hold at most what the run's
    model, Adam's moments, snapshots and observations take (restores_cleanly computes the budget)."""
    from tabletop_rl.training.checkpoints import check_checkpoint

    ckpt = train.load_checkpoint(str(tiny_run / "checkpoints" / f"{NEWEST}.pt"))
    cfg = train.Config(**json.loads((tiny_run / "config.json").read_text()))
    args = (ckpt, json.loads((tiny_run / "config.json").read_text()), cfg.n_envs, ckpt["last_obs"].shape[1:])
    check_checkpoint(*args, eval_opponents=["random", "greedy"], max_values=10 ** 7)  # the control
    with pytest.raises(ValueError, match=r"its tensors hold [\d,]+ values; a checkpoint of this run holds at most 1,000"):
        check_checkpoint(*args, eval_opponents=["random", "greedy"], max_values=1000)
