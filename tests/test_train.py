"""train.py: CLI from the config dataclass, a tiny run end to end, and SIGKILL + --resume."""
from __future__ import annotations

import dataclasses
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings

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



def test_eval_opponents_chooses_what_every_evaluation_plays():
    """--eval-opponents: registered names, comma separated (default random and greedy); an unknown or
    repeated name, or text that is no name list, is a usage error naming it (nothing is trained)."""
    assert train.evaluation_opponents(train.Config()) == ["random", "greedy"]
    cfg = train.parse_args(["--eval-opponents", "greedy, mcts_batched"])
    assert train.evaluation_opponents(cfg) == ["greedy", "mcts_batched"]
    assert train.evaluation_opponents(dataclasses.replace(cfg, game="fantastiqa", eval_opponents="")) == ["random", "greedy"]
    for text, needle in [("greedy,nope", "'nope'"), ("greedy,greedy", "repeated"), ("greedy,", "''"),
                         ("mcts_batched", None), ("..%s../etc/passwd" % "/", "passwd")]:
        bad = dataclasses.replace(cfg, game="fantastiqa" if needle is None else "fae", eval_opponents=text)
        with pytest.raises(SystemExit, match=needle or "mcts_batched"):
            train.evaluation_opponents(bad)
    with pytest.raises(SystemExit, match="must be text"):
        train.evaluation_opponents(dataclasses.replace(cfg, eval_opponents=3))

def test_fae_search_preset_trains_against_the_batched_search_from_a_shipped_policy():
    """The fae-search preset (issue 28): fae_2p_v2's head, mcts_batched the only opponent, the rate
    annealed by the time limit, evaluations against greedy and the search; each name resolves."""
    from tabletop_rl.agents import registry
    from tabletop_rl.agents.policy_versions import version_path

    cfg = train.parse_args(["--preset", "fae-search"])
    assert (cfg.game, cfg.num_players, cfg.init, cfg.opponents) == ("fae", 2, "fae_2p_v2", "mcts_batched=1")
    assert (cfg.pool_random, cfg.pool_greedy, cfg.snapshot_prob, cfg.anneal_lr) == (0.0, 0.0, 0.0, True)
    assert cfg.time_limit_min > 0 and train.evaluation_opponents(cfg) == ["greedy", "mcts_batched"]
    assert "mcts_batched" in registry.agent_names("fae") and version_path("fae", cfg.init).is_file()


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
    from tabletop_rl.training.selfplay import SelfPlayEnv

    a = PPOAgent(path=run / "policy.npz")
    with pytest.warns(UserWarning, match="trust_pickle"):  # our own model.zip: unpickled on request only
        b = PPOAgent(path=run / "model.zip", trust_pickle=True)
    env = SelfPlayEnv("fae", opponent="random", **a.policy.meta["options"])  # the policy's own observation
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

    args = ["--preset", "tiny", "--runs-dir", str(tmp_path), "--total-steps", "3072", "--n-envs", "2",
            "--n-steps", "64", "--batch-size", "64", "--checkpoint-every", "128", "--keep-checkpoints", "100",
            "--snapshot-every", "256", "--max-snapshots", "2", "--eval-every", "1024", "--eval-games", "4",
            "--final-eval-games", "0"]
    run_a = _run(args + ["--run-name", "a"])
    run_b = _run(args + ["--run-name", "b"], start_new_session=True)
    ckpts_b = tmp_path / "b" / "checkpoints"
    deadline = time.time() + 240
    while len(glob.glob(str(ckpts_b / "ckpt_*.json"))) < 2:  # a checkpoint is complete once its .json exists
        assert run_b.poll() is None, run_b.communicate()[0]
        assert time.time() < deadline, "run b wrote no 2nd checkpoint in time"
        time.sleep(0.01)
    os.kill(run_b.pid, signal.SIGKILL)
    run_b.communicate(timeout=60)
    assert run_b.returncode == -signal.SIGKILL
    at_kill = sorted(glob.glob(str(ckpts_b / "ckpt_*.json")))
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
        a = train.load_checkpoint(str(tmp_path / "a" / "checkpoints" / os.path.basename(path)))
        b = train.load_checkpoint(path)
        assert a["num_timesteps"] == b["num_timesteps"] and a["n_updates"] == b["n_updates"]
        for key in ("policy", "optimizer", "rng", "fae_vector", "last_obs", "last_episode_starts"):
            assert _equal(a[key], b[key]), f"{key} differs at {os.path.basename(path)}"
        assert len(a["fae_vector"]["meta"]["snapshots"]) >= 1
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
    from tabletop_rl.agents.policy_versions import version_entry

    entry = version_entry("fae")  # a policy's figures come from its versions.json entry
    assert entry["file"] == path.name and entry["command"]
    assert max(r["games"] for r in entry["figures"]["vs"].values()) >= 1000
    bot = make_agent("fae", "ppo", seed=0)
    assert isinstance(bot, ppo.PPOAgent) and bot.policy.meta["game"] == "fae"
    opts = bot.policy.meta["options"]  # the observation it was trained on (action_features=versus)
    assert opts.get("action_features") == "versus"
    r = train.evaluate_policy(bot.policy, "fae", 2, "random", 60, 4242, opts)
    assert r["win_share"] >= 0.85  # measured ~0.99 over 1000 games; 0.85 is > 5 sigma above random's 0.5
    # The step guard: a game not over after max_steps steps is not won (Fae games last ~60 steps).
    assert train.evaluate_policy(bot.policy, "fae", 2, "random", 10, 4242, opts, max_steps=20)["win_share"] == 0
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
    r = train.evaluate_policy(bot.policy, "fantastiqa", 2, "random", 20, 4242, bot.observation_options, max_steps=4000)
    assert r["win_share"] >= 0.7  # measured >= 0.9 over 1000 games; random vs random would be ~0.5


def _pickle_payload(marker) -> bytes:
    """A pickle that creates `marker` when unpickled."""
    import pickle

    class Boom:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    return pickle.dumps({"policy": Boom()})


def test_checkpoint_loader_runs_no_pickle(tmp_path):
    """A crafted .pt (a pickle that would create a file) is refused with a clear error, and never runs."""
    import torch

    marker = tmp_path / "pwned"
    bad = tmp_path / "ckpt_0000000001.pt"
    bad.write_bytes(_pickle_payload(marker))
    (tmp_path / "ckpt_0000000001.json").write_text("{}")
    with pytest.raises(ValueError, match="not a valid checkpoint tensor file"):
        train.load_checkpoint(str(bad))
    torch_file = tmp_path / "ckpt_0000000002.pt"  # torch's own zip format, with the payload inside
    torch.save({"x": torch.zeros(2)}, torch_file)
    import zipfile

    with zipfile.ZipFile(torch_file) as z:
        names = z.namelist()
        parts = {n: z.read(n) for n in names}
    pkl = next(n for n in names if n.endswith("data.pkl"))
    parts[pkl] = _pickle_payload(marker)
    with zipfile.ZipFile(torch_file, "w") as z:
        for n, data in parts.items():
            z.writestr(n, data)
    (tmp_path / "ckpt_0000000002.json").write_text("{}")
    with pytest.raises(ValueError, match="not a valid checkpoint tensor file"):
        train.load_checkpoint(str(torch_file))
    assert not marker.exists()


def test_checkpoint_round_trip_and_damaged_newest_falls_back(tmp_path):
    import torch

    from tabletop_rl.agents.ppo_agent import PolicyWeights

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    pw = PolicyWeights([(np.ones((3, 2), np.float32), np.zeros(2, np.float32))], "relu", {"game": "fae"}, [(1, 0.5)])
    ckpt = {"t": torch.arange(3), "a": np.arange(4, dtype=np.int16), "tup": (1, (2.5, None)), "ints": {0: "x"},
            "blob": b"\x00\x01", "pol": pw, "rng": np.random.get_state()}
    train.save_checkpoint(str(run / "checkpoints" / "ckpt_0000000010.pt"), ckpt)
    back = train.load_checkpoint(str(run / "checkpoints" / "ckpt_0000000010.pt"))
    assert torch.equal(back["t"], ckpt["t"]) and back["a"].dtype == np.int16 and back["tup"] == (1, (2.5, None))
    assert back["ints"] == {0: "x"} and back["blob"] == b"\x00\x01" and back["pol"].skip == [(1, 0.5)]
    np.random.set_state(back["rng"])
    newest = run / "checkpoints" / "ckpt_0000000020.pt"
    train.save_checkpoint(str(newest), {"n": 20})
    newest.write_bytes(newest.read_bytes()[:40])  # truncated
    with pytest.warns(UserWarning, match="skipping damaged checkpoint"):
        path, loaded = train.latest_valid_checkpoint(str(run))
    assert path.endswith("ckpt_0000000010.pt") and torch.equal(loaded["t"], ckpt["t"])
    (run / "checkpoints" / "ckpt_0000000010.json").write_text("{not json")
    with pytest.warns(UserWarning):
        assert train.latest_valid_checkpoint(str(run)) is None


def test_policy_file_loader_runs_no_pickle(tmp_path):
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    marker = tmp_path / "pwned"
    path = tmp_path / "evil.npz"
    np.savez(path, header=np.frombuffer(b'{"activation": "relu", "layers": 1}', dtype=np.uint8),
             W0=np.array([_pickle_payload(marker)], dtype=object), b0=np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="pickle"):
        PolicyWeights.load(path)
    assert not marker.exists()


def test_skip_terms_survive_save_and_match_the_torch_policy(tmp_path):
    """PolicyWeights (numpy, PPOAgent) computes the same logits as train.py's SkipPolicy."""
    import torch

    cfg = train.Config(n_envs=4, n_steps=8, batch_size=16, net_arch="8", options="history=none,action_features=versus")
    venv, model = train.build(cfg, train.make_pool(cfg))
    assert np.allclose(model.policy.skip_coef.detach().numpy(), [cfg.skip_init, cfg.skip_init, 0.0, 0.0])
    with torch.no_grad():
        model.policy.skip_param.copy_(torch.tensor([1.5, 2.5, -1.0, 0.5]) / model.policy.skip_lr_scale)
    obs = venv.reset()
    w = train.policy_weights(model, cfg)
    assert np.allclose([c for _, c in w.skip], [1.5, 2.5, -1.0, 0.5])
    # the MLP read the board only (mlp_inputs="board"): the exported first layer has zero rows elsewhere
    from fae_rl.observation import observation_layout

    terrain = observation_layout("none")["terrain"]
    assert not w.weights[0][0][terrain].any() and not w.weights[0][0][863:].any() and w.weights[0][0][:terrain.start].any()
    w.save(tmp_path / "p.npz")
    w2 = type(w).load(tmp_path / "p.npz")
    with torch.no_grad():
        want = model.policy.action_logits(torch.as_tensor(obs)).numpy()
    assert np.allclose(w2.logits(obs), want, atol=1e-4)
    assert np.allclose(w2.logits(obs[0]), want[0], atol=1e-4)


def test_skip_policy_rollout_step_draws_from_the_masked_distribution():
    """SkipPolicy.forward (Gumbel-max, no torch Categorical) agrees with sb3-contrib's masked
    distribution: same log-probabilities, argmax when deterministic, only legal actions, and
    sample frequencies that match the probabilities."""
    import torch

    cfg = train.Config(n_envs=4, n_steps=8, batch_size=16, net_arch="8", options="history=none,action_features=versus")
    venv, model = train.build(cfg, train.make_pool(cfg))
    policy = model.policy
    obs = torch.as_tensor(venv.reset())
    masks = venv.action_masks()
    with torch.no_grad():
        policy.action_net.bias.copy_(3.0 * torch.randn(330, generator=torch.Generator().manual_seed(0)))  # uneven
        actions, values, log_prob = policy(obs, deterministic=False, action_masks=masks)
        dist = policy.get_distribution(obs, action_masks=masks)
        assert torch.allclose(dist.log_prob(actions), log_prob, atol=1e-5)
        assert torch.allclose(values.flatten(), policy.predict_values(obs).flatten())
        best, _, _ = policy(obs, deterministic=True, action_masks=masks)
        assert torch.equal(best, dist.distribution.probs.argmax(dim=1))
        assert masks[np.arange(4), actions.numpy()].all()
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        ours = policy.evaluate_actions(obs, actions, masks)
        theirs = MaskableActorCriticPolicy.evaluate_actions(policy, obs, actions, masks)
        for a, b in zip(ours, theirs):
            assert torch.allclose(a, b, atol=1e-4)
        probs = dist.distribution.probs[0].numpy()
        draws = np.bincount([int(policy(obs[:1], action_masks=masks[:1])[0]) for _ in range(3000)], minlength=330)
    assert not draws[~masks[0]].any()
    top = np.argsort(probs)[-3:]
    assert probs[top[-1]] > 0.1 and np.allclose(draws[top] / 3000, probs[top], atol=0.03)


def test_every_backend_evaluates_through_the_one_function():
    """train.py's evaluation, the RLlib backend's and --evaluate's (on the scalar cores, split over
    processes) are `training.evaluate_policy`: same policy, games and seed, same win share (the
    scalar cores draw the greedy bot's ties their own way: an independent check, not a copy)."""
    from tabletop_rl.agents import make_agent
    from tabletop_rl.training.rllib import evaluate as rllib_evaluate

    bot = make_agent("fae", "ppo", seed=0)
    opts = bot.policy.meta["options"]
    sb3 = train.evaluate_policy(bot.policy, "fae", 2, "greedy", 8, 11, opts)
    scalar = train.evaluate_policy(bot.policy, "fae", 2, "greedy", 8, 11, opts, batched=False)
    rllib = rllib_evaluate(bot.policy, "fae", 2, ["greedy"], 8, seed=11, options=opts)
    assert sb3["win_share"] == rllib["greedy"] and sb3["games"] == scalar["games"] == 8
    one = train.evaluate_in_processes(bot.policy, "fae", 2, "greedy", 8, 11, opts, workers=1)
    assert one["win_share"] == scalar["win_share"] and one["games"] == 8
    two = train.evaluate_in_processes(bot.policy, "fae", 2, "greedy", 8, 11, opts, workers=2)
    halves = [train.evaluate_policy(bot.policy, "fae", 2, "greedy", 4, 11 + k, opts, batched=False)["win_share"]
              for k in (0, 1)]
    assert two["win_share"] == pytest.approx(sum(halves) / 2) and two["games"] == 8


# ---------------------------------------------------------------------------- --resume (issue 24)
_RESUME_ARGS = ["--preset", "tiny", "--total-steps", "1536", "--checkpoint-every", "512", "--keep-checkpoints", "10",
                "--final-eval-games", "0", "--eval-every", "0", "--bc-teacher", ""]


@pytest.fixture(scope="module")
def resumable_run(tmp_path_factory):
    """A tiny Fae run with checkpoints at 512 and 1024 steps (each test damages a copy of it)."""
    from tabletop_rl.training import checkpoint_paths

    base = tmp_path_factory.mktemp("resume")
    proc = _run(_RESUME_ARGS + ["--runs-dir", str(base), "--run-name", "r"])
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    assert [os.path.basename(p) for p in checkpoint_paths(str(base / "r"))] == [
        "ckpt_0000000512.pt", "ckpt_0000001024.pt"]
    return base / "r"


def _copy_run(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def _edit_newest(run, edit):
    path = run / "checkpoints" / "ckpt_0000001024.json"
    d = json.loads(path.read_text())
    edit(d)
    path.write_text(json.dumps(d))


def _set_game_players(d):
    d["fae_vector"]["meta"]["games"][0]["num_players"] = 9


DAMAGE = {
    "policy missing": lambda d: d.pop("policy"),
    "game dict with num_players 9": _set_game_players,
    "rng.numpy a string": lambda d: d["rng"].__setitem__("numpy", "MT19937"),
    "optimizer a list": lambda d: d.__setitem__("optimizer", [1, 2]),
    "history a number": lambda d: d.__setitem__("history", 5),
}
# damage the run's own restore accepted (it trained from a wrong state): checked before restoring
UNCHECKED_DAMAGE = {
    "num_timesteps negative": lambda d: d.__setitem__("num_timesteps", -512),
    "num_timesteps past the file's step": lambda d: d.__setitem__("num_timesteps", 10 ** 18),
    "num_timesteps a string": lambda d: d.__setitem__("num_timesteps", "1024"),
    "n_updates negative": lambda d: d.__setitem__("n_updates", -1),
    "config of another game": lambda d: d["config"].__setitem__("game", "fantastiqa"),
    "last_obs of another shape": lambda d: d.__setitem__("last_obs", [0.0]),
    "evals not a list": lambda d: d["history"].__setitem__("evals", "x"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGE) + sorted(UNCHECKED_DAMAGE))
def test_resume_falls_back_to_an_older_checkpoint_that_restores(resumable_run, tmp_path, damage):
    run = _copy_run(resumable_run, tmp_path / "r")
    _edit_newest(run, {**DAMAGE, **UNCHECKED_DAMAGE}[damage])
    cfg = train.Config(**{**json.loads((run / "config.json").read_text()), "resume": str(run)})
    with pytest.warns(UserWarning, match=r"skipping damaged checkpoint: .*ckpt_0000001024"):
        path, ckpt = train.latest_valid_checkpoint(str(run), restores=lambda c: train.restores_cleanly(cfg, c))
    assert path.endswith("ckpt_0000000512.pt") and ckpt["num_timesteps"] == 512


def test_resume_skips_deeply_nested_json(resumable_run, tmp_path):
    run = _copy_run(resumable_run, tmp_path / "r")
    (run / "checkpoints" / "ckpt_0000001024.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.warns(UserWarning, match=r"ckpt_0000001024.json: not valid JSON \(nested too deeply\)"):
        path, _ = train.latest_valid_checkpoint(str(run))
    assert path.endswith("ckpt_0000000512.pt")


def test_resume_cli_names_what_it_skipped_and_applies_total_steps(resumable_run, tmp_path):
    """`--resume R --total-steps 2048` trains to 2048 (not the saved 1536), from the older
    checkpoint when the newest does not restore, and says both; no traceback."""
    run = _copy_run(resumable_run, tmp_path / "r")
    _edit_newest(run, DAMAGE["policy missing"])
    proc = _run(["--resume", str(run), "--total-steps", "2048"])
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out
    assert "Traceback" not in out
    # the newest is named with the reason (its .pt holds the policy's tensors, which its .json no longer references)
    assert re.search(r"skipping damaged checkpoint: \S*ckpt_0000001024\.pt: holds \d+ tensor\(s\)", out), out
    assert "--resume: applied total_steps: 1536 -> 2048" in out
    assert "from ckpt_0000000512.pt at step 512" in out
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == summary["requested_steps"] == 2048


def test_resume_refuses_flags_that_change_what_the_run_learns(resumable_run, tmp_path):
    run = _copy_run(resumable_run, tmp_path / "r")
    for flags, named in ((["--num-players", "3"], "num_players (2 -> 3)"), (["--net-arch", "64,64"], "net_arch"),
                         (["--game", "fantastiqa"], "game ('fae' -> 'fantastiqa')")):
        with pytest.raises(SystemExit, match=r"--resume: cannot change .*" + re.escape(named)):
            train.train(train.parse_args(["--resume", str(run), *flags]))
    fields, applied = train.resume_config({"total_steps": 10, "eval_games": 4, "game": "fae"},
                                          {"total_steps": 20, "eval_games": 4, "game": "fae", "resume": "r"})
    assert fields == {"total_steps": 20, "eval_games": 4, "game": "fae", "resume": "r"}
    assert applied == ["total_steps: 10 -> 20"]


@pytest.mark.parametrize("text,named", [("[" * 100_000 + "]" * 100_000, "nested too deeply"),
                                        ("[1, 2]", "must be a JSON object"),
                                        ('{"game": 5}', "field 'game' must be a str"),
                                        ('{"anneal_lr": "yes"}', "field 'anneal_lr' must be a bool")])
def test_resume_names_a_damaged_config_json(resumable_run, tmp_path, text, named):
    run = _copy_run(resumable_run, tmp_path / "r")
    (run / "config.json").write_text(text)
    with pytest.raises(SystemExit, match=re.escape(named)):
        train.train(train.parse_args(["--resume", str(run)]))


def test_tiny_fantastiqa_run_trains_through_the_learner_core_with_a_users_bot_and_reward(tmp_path):
    """Fantastiqa trains through the learner core (ScalarBatch) like Fae, with a user's registered bot
    among the opponents (--imports, --opponents), weakened (--opponent-epsilon), and a user's reward
    callable (--reward-fn); a bad --opponent-epsilon stops the run before its folder is made."""
    cfg = train.parse_args(["--preset", "tiny", "--game", "fantastiqa", "--runs-dir", str(tmp_path), "--run-name", "q",
                            "--n-envs", "4", "--total-steps", "512", "--eval-every", "0", "--final-eval-games", "4",
                            "--checkpoint-every", "256", "--bc-teacher", "", "--max-game-steps", "300",
                            "--imports", "tests.learner_helpers", "--opponents", "lowest=1", "--opponent-epsilon", "0.5",
                            "--reward-fn", "tests.learner_helpers:step_penalty"])
    filters = list(warnings.filters)
    summary = train.train(cfg)
    assert warnings.filters == filters  # train() silences SB3's UserWarnings inside the run only (issue 27)
    from tests import learner_helpers

    assert summary["steps"] == 512 and summary["throughput"]["vec_env"] == "learner"
    assert learner_helpers.REWARD_CALLS and set(learner_helpers.REWARD_CALLS) == {4}
    assert {r["opponent"] for r in summary["final_eval"]} == {"random", "greedy"}
    ckpt = train.load_checkpoint(sorted(glob.glob(str(tmp_path / "q" / "checkpoints" / "*.pt")))[-1])
    assert len(ckpt["fae_vector"]["meta"]["games"]) == 4  # the core's games, whatever the game
    with pytest.raises(SystemExit, match="unknown opponent"):
        train.train(dataclasses.replace(cfg, run_name="bad", opponents="nobody=1"))
    for bad, named in ((dict(opponent_epsilon=1.5), "must be a number in"), (dict(opponent_epsilon=True), "must be a number"),
                       (dict(vec_env="dummy"), "--vec-env learner")):
        with pytest.raises(SystemExit, match="--opponent-epsilon " + re.escape(named) if "must" in named else re.escape(named)):
            train.train(dataclasses.replace(cfg, run_name="bad_eps", **bad))
        assert not (tmp_path / "bad_eps").exists()


def test_evaluate_policy_plays_as_the_ppo_bot_and_stops_playing_decided_games():
    """training.evaluate_policy (every game, batched in the learner core) chooses each move as PPOAgent
    does, cycle breaking included: the shipped Fantastiqa policy wins all 16 of these games against
    random, while the plain argmax of the same logits stalls in loops until the step guard cuts 6."""
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    weights = PolicyWeights.load(os.path.join(ROOT, "fantastiqa_rl", "policies", "fantastiqa_2p_STAND-IN.npz"))
    r = train.evaluate_policy(weights, "fantastiqa", 2, "random", 16, 3, {}, max_steps=4000)
    assert r["games"] == 16 and r["win_share"] >= 15 / 16, r
    from tabletop_rl.training.learner import make_learner_core

    core = make_learner_core("fantastiqa", 3, seed=0)
    core.reset()
    before = core.batch.state(1).to_dict()
    core.retire([1])
    rng = np.random.default_rng(0)
    for _ in range(20):
        masks = core.masks()
        obs = core.learner_obs()
        assert not obs[1].any()
        rewards, dones, _ = core.step(np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1))
        assert rewards[1] == 0.0 and not dones[1]
    assert core.batch.state(1).to_dict() == before


def test_evaluate_cli_plays_a_greedy_block_policy_on_the_batched_engine(capsys):
    """`train.py --evaluate` of a policy over Fantastiqa's greedy block (an option the scalar cores
    cannot encode) stopped with a traceback; it evaluates on the batched engine and says so (a
    policy without such an option plays on the scalar cores: test_every_backend_evaluates_...)."""
    path = os.path.join(ROOT, "fantastiqa_rl", "policies", "fantastiqa_2p_v3_STAND-IN.npz")
    rows = train.evaluate_only(train.parse_args(["--evaluate", path, "--final-eval-games", "2", "--eval-workers", "1"]))
    out = capsys.readouterr().out
    assert "action_features is encoded by FantastiqaBatch only: evaluating on the batched engine" in out, out
    assert [r["opponent"] for r in rows] == ["random", "greedy"] and all(r["games"] == 2 for r in rows)
    assert rows[0]["win_share"] == 1.0, rows


@pytest.mark.parametrize("game,players,vec_env", [("fae", 3, "learner"), ("fae", 4, "learner"),
                                                  ("fantastiqa", 3, "learner"), ("fantastiqa", 4, "learner"),
                                                  ("fae", 3, "dummy")])
def test_three_and_four_players_train_through_the_same_path(tmp_path, capsys, game, players, vec_env):
    """Issue 26: 3 and 4 players train through the one path for both games (and the scalar
    SelfPlayEnv face, --vec-env dummy); the summary prints each win share next to the fair share
    (1/N) and the value where PPO started (step 0)."""
    cfg = train.parse_args(["--preset", "tiny", "--game", game, "--num-players", str(players), "--vec-env", vec_env,
                            "--runs-dir", str(tmp_path), "--run-name", "r", "--n-envs", "4", "--total-steps", "512",
                            "--eval-every", "512", "--eval-games", "4", "--final-eval-games", "4",
                            "--checkpoint-every", "256", "--max-game-steps", "300", "--bc-samples", "256",
                            "--snapshot-every", "256"])
    summary = train.train(cfg)
    out = capsys.readouterr().out
    assert summary["num_players"] == players and summary["steps"] == 512
    assert summary["throughput"]["vec_env"] == vec_env
    assert [r["steps"] for r in summary["evals"]][:2] == [0, 0], "the curve starts where PPO started"
    for r in summary["final_eval"]:
        start = next(e for e in summary["evals"] if e["opponent"] == r["opponent"])
        assert f"(fair share {1 / players:.3f}; at step 0: {start['win_share']:.3f};" in out
    ckpts = sorted(glob.glob(str(tmp_path / "r" / "checkpoints" / "*.pt")))
    assert ckpts, "checkpoints were written"
    ckpt = train.load_checkpoint(ckpts[-1])
    if vec_env == "learner":  # the snapshot reached the core's one pool, and its checkpoint
        assert ckpt["fae_vector"]["meta"]["snapshot_ids"] == [0]
    else:  # the scalar envs share the run's pool, saved once
        assert [k for k, _ in ckpt["pool"]["snapshots"]] == [0] and len(ckpt["envs"]) == 4


def test_training_against_the_batched_search_with_its_own_evaluations(tmp_path):
    """Fae's PPO against `mcts_batched` (one act_batch call for all its games), every evaluation
    against the bots --eval-opponents names, final evaluation included."""
    cfg = train.parse_args(["--preset", "tiny", "--runs-dir", str(tmp_path), "--run-name", "r", "--n-envs", "4",
                            "--total-steps", "512", "--eval-every", "256", "--eval-games", "4", "--final-eval-games", "4",
                            "--bc-samples", "128", "--opponents", "mcts_batched=1", "--pool-random", "0",
                            "--pool-greedy", "0", "--eval-opponents", "first,mcts_batched"])
    summary = train.train(cfg)
    assert [(r["steps"], r["opponent"]) for r in summary["evals"]] == [
        (0, "first"), (0, "mcts_batched"), (256, "first"), (256, "mcts_batched")]
    assert [r["opponent"] for r in summary["final_eval"]] == ["first", "mcts_batched"]
