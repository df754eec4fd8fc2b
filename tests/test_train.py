"""train.py: CLI from the config dataclass, a tiny run end to end, and SIGKILL + --resume."""
from __future__ import annotations

import dataclasses
import glob
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import train  # noqa: E402


def _run(args, **kw):
    return subprocess.Popen([sys.executable, os.path.join(ROOT, "train.py"), *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def test_cli_is_generated_from_the_config_dataclass():
    helps = train._field_help()
    for f in dataclasses.fields(train.Config):
        assert helps.get(f.name), f"Config.{f.name} has no help comment"
    cfg = train.parse_args(["--preset", "tiny", "--n-envs", "3", "--no-progress", "--net-arch", "8,8", "--gamma", "0.5"])
    assert (cfg.n_envs, cfg.progress, cfg.net_arch, cfg.gamma) == (3, False, "8,8", 0.5)
    assert cfg.total_steps == train.PRESETS["tiny"]["total_steps"]  # from the preset
    assert train.parse_args([]) == train.Config()
    with pytest.raises(SystemExit):
        train.parse_args(["--preset", "nope"])
    # Every preset names real Config fields and a registered game.
    from tabletop_rl import envs

    for name in train.PRESETS:
        cfg = train.parse_args(["--preset", name])
        assert envs.get_game(cfg.game) and cfg.preset == name
    assert train.parse_args(["--preset", "fantastiqa"]).max_game_steps == 4000
    assert train.parse_options("history=none,big_stack_merge=True") == {"history": "none", "big_stack_merge": True}


def test_wilson_interval():
    low, high = train.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    low, high = train.wilson(100, 100)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.963, abs=1e-3)


def test_tiny_training_run_end_to_end(tmp_path):
    proc = _run(["--preset", "tiny", "--runs-dir", str(tmp_path), "--run-name", "tiny"])
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    run = tmp_path / "tiny"
    for name in ("model.zip", "policy.npz", "config.json", "curve.png", "eval.csv", "summary.json"):
        assert (run / name).is_file(), name
    assert (run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert glob.glob(str(run / "logs" / "part0" / "events.out.tfevents.*"))
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == summary["requested_steps"] == train.PRESETS["tiny"]["total_steps"]
    assert 0 < summary["throughput"]["env_share"] < 1 and summary["throughput"]["steps_per_second"] > 0
    assert {r["opponent"] for r in summary["final_eval"]} == {"random", "greedy"}
    assert all(r["games"] == train.PRESETS["tiny"]["final_eval_games"] for r in summary["final_eval"])
    # after the warm start (step 0), then every 2048 steps; the final evaluation is separate
    assert [(r["steps"], r["opponent"]) for r in summary["evals"]] == [(0, "random"), (0, "greedy"), (2048, "random"), (2048, "greedy")]
    assert str(run / "curve.png") in out and str(run / "model.zip") in out
    # The numpy policy and the SB3 model are the same policy.
    from tabletop_rl.agents.ppo_agent import PolicyWeights, PPOAgent
    from tabletop_rl.envs.selfplay import SelfPlayEnv

    a = PPOAgent(path=run / "policy.npz")
    with pytest.warns(UserWarning, match="trust_pickle"):  # our own model.zip: unpickled on request only
        b = PPOAgent(path=run / "model.zip", trust_pickle=True)
    env = SelfPlayEnv("fae", opponent="random")
    obs, info = env.reset(seed=0)
    for _ in range(10):
        assert a.act(obs, info["action_mask"]) == b.act(obs, info["action_mask"])
        obs, _, done, _, info = env.step(a.act(obs, info["action_mask"]))
        if done:
            obs, info = env.reset()
    assert PolicyWeights.load(run / "policy.npz").meta["trained_steps"] == summary["steps"]


def _equal(x, y) -> bool:
    import torch

    from tabletop_rl.agents.ppo_agent import PolicyWeights

    if isinstance(x, torch.Tensor):
        return isinstance(y, torch.Tensor) and x.shape == y.shape and bool(torch.equal(x, y))
    if isinstance(x, np.ndarray):
        return isinstance(y, np.ndarray) and np.array_equal(x, y)
    if isinstance(x, PolicyWeights):
        return _equal(x.weights, y.weights)
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_equal(x[k], y[k]) for k in x)
    if isinstance(x, (list, tuple)):
        return isinstance(y, (list, tuple)) and len(x) == len(y) and all(_equal(a, b) for a, b in zip(x, y))
    return x == y


def test_sigkill_after_second_checkpoint_then_resume(tmp_path):
    """Run A straight through; run B is killed with SIGKILL once its 2nd checkpoint exists, then
    `--resume`d. B must restart at its latest checkpoint and then match A exactly: every later
    checkpoint (step count, policy, optimizer, RNG states, opponent pool, envs) and the final policy."""
    import torch

    args = ["--preset", "tiny", "--runs-dir", str(tmp_path), "--total-steps", "3072", "--n-envs", "2",
            "--n-steps", "64", "--batch-size", "64", "--checkpoint-every", "128", "--keep-checkpoints", "100",
            "--snapshot-every", "256", "--max-snapshots", "2", "--eval-every", "1024", "--eval-games", "4",
            "--final-eval-games", "0"]
    run_a = _run(args + ["--run-name", "a"])
    run_b = _run(args + ["--run-name", "b"], start_new_session=True)
    ckpts_b = tmp_path / "b" / "checkpoints"
    deadline = time.time() + 240
    while len(glob.glob(str(ckpts_b / "ckpt_*.pt"))) < 2:
        assert run_b.poll() is None, run_b.communicate()[0]
        assert time.time() < deadline, "run b wrote no 2nd checkpoint in time"
        time.sleep(0.01)
    os.kill(run_b.pid, signal.SIGKILL)
    run_b.communicate(timeout=60)
    assert run_b.returncode == -signal.SIGKILL
    at_kill = sorted(glob.glob(str(ckpts_b / "ckpt_*.pt")))
    assert not glob.glob(str(tmp_path / "b" / "model.zip"))  # it really died mid-run
    resumed_from = int(os.path.basename(at_kill[-1])[5:15])
    assert resumed_from >= 256

    resume = _run(["--resume", str(tmp_path / "b")])
    out_b, _ = resume.communicate(timeout=300)
    assert resume.returncode == 0, out_b
    out_a, _ = run_a.communicate(timeout=300)
    assert run_a.returncode == 0, out_a
    marker = json.loads((tmp_path / "b" / f"resumed_{resumed_from:010d}.json").read_text())
    assert marker["num_timesteps"] == resumed_from

    later = [p for p in sorted(glob.glob(str(ckpts_b / "ckpt_*.pt"))) if int(os.path.basename(p)[5:15]) > resumed_from]
    assert len(later) >= 5
    for path in later:
        a = torch.load(tmp_path / "a" / "checkpoints" / os.path.basename(path), weights_only=False)
        b = torch.load(path, weights_only=False)
        assert a["num_timesteps"] == b["num_timesteps"] and a["n_updates"] == b["n_updates"]
        for key in ("policy", "optimizer", "rng", "pool", "envs", "last_obs", "last_episode_starts"):
            assert _equal(a[key], b[key]), f"{key} differs at {os.path.basename(path)}"
        assert len(a["pool"]["snapshots"]) >= 1
        strip = lambda rows: [{k: v for k, v in r.items() if k not in ("seconds", "wall_seconds")} for r in rows]  # noqa: E731
        assert strip(a["history"]["evals"]) == strip(b["history"]["evals"])
    summary_a = json.loads((tmp_path / "a" / "summary.json").read_text())
    summary_b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary_a["steps"] == summary_b["steps"] == 3072 and summary_b["resumes"] == 1
    pa, pb = np.load(tmp_path / "a" / "policy.npz"), np.load(tmp_path / "b" / "policy.npz")
    assert all(np.array_equal(pa[k], pb[k]) for k in pa.files)


def test_shipped_policy_is_the_ppo_bot_and_beats_random():
    """The policy in fae_rl/policies is a trained one (not a stub): small, and clearly better than random."""
    import tabletop_rl.agents.ppo_agent as ppo
    from tabletop_rl.agents import make_agent

    path = ppo.default_policy_path("fae")
    assert path.is_file() and 50_000 < path.stat().st_size < 1_000_000
    info = json.loads((path.parent / "fae_2p.json").read_text())
    assert info["command"] and info["win_share"]["random"]["games"] >= 1000
    bot = make_agent("fae", "ppo", seed=0)
    assert isinstance(bot, ppo.PPOAgent) and bot.policy.meta["game"] == "fae"
    wins = train.play_matches(bot.policy, "fae", 2, "random", games=60, seed=4242, options={"history": "summary"})
    assert wins / 60 >= 0.7  # measured ~0.85-0.9 over 1000 games; 0.7 is > 5 sigma above random's 0.5
    # The step guard: a game not over after max_steps steps is not won (Fae games last ~60 steps).
    assert train.play_matches(bot.policy, "fae", 2, "random", games=10, seed=4242, options={"history": "summary"},
                              max_steps=20) == 0
    with pytest.raises(ValueError, match="no shipped policy for game 'nope'"):
        ppo.default_policy_path("nope")


def test_shipped_fantastiqa_policy_is_labelled_stand_in_and_beats_random():
    """fantastiqa_rl/policies holds a trained policy for the STAND-IN cards (train.py --preset fantastiqa)."""
    import tabletop_rl.agents.ppo_agent as ppo
    from tabletop_rl.agents import make_agent

    path = ppo.default_policy_path("fantastiqa")
    assert path.is_file() and "STAND-IN" in path.name and path.stat().st_size < 2_000_000
    info = json.loads(path.with_suffix(".json").read_text())
    assert "STAND-IN" in info["card_set"] and info["win_share"]["random"]["games"] >= 1000
    bot = make_agent("fantastiqa", "ppo", seed=0)
    assert bot.policy.meta["game"] == "fantastiqa"
    wins = train.play_matches(bot.policy, "fantastiqa", 2, "random", games=20, seed=4242, options={}, max_steps=4000)
    assert wins / 20 >= 0.7  # measured >= 0.9 over 1000 games; random vs random would be ~0.5
