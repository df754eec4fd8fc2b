"""The RLlib adapter, backend and agent (issue 8). Needs the `rllib` extra: run in .venv-rllib
(`make test-rllib`); in the main environment the whole module is skipped."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

pytest.importorskip("ray", reason="ray[rllib] is not installed here: run `make test-rllib` (uses .venv-rllib)")
pytest.importorskip("torch", reason="torch is not installed here: run `make test-rllib` (uses .venv-rllib)")

from tabletop_rl import envs  # noqa: E402
import fae_rl  # noqa: E402
from tabletop_rl.agents.rllib_agent import MLPPolicy, RLlibAgent  # noqa: E402
from tabletop_rl.agents.rllib_agent import export_policy  # noqa: E402
from tabletop_rl.training.rllib import config_from, evaluate, train_rllib  # noqa: E402
from tabletop_rl.training.rllib_env import MAIN, MaskedPPOTorchRLModule, RLlibGameEnv, module_for_agent  # noqa: E402


def _game_env_available(game: str) -> str | None:
    """None if `game` has an AEC env in the registry, else why not."""
    try:
        spec = envs.get_game(game)
        spec.env(num_players=spec.min_players)
    except Exception as exc:  # the game (or its env) is not there yet
        return f"{game} has no AEC env in this checkout yet ({type(exc).__name__}: {exc})"
    return None


GAMES = [pytest.param("fae", id="fae"),
         pytest.param("fantastiqa", id="fantastiqa",
                      marks=pytest.mark.skipif(_game_env_available("fantastiqa") is not None,
                                               reason=str(_game_env_available("fantastiqa"))))]


def _rollout(env, rng, seed):
    """One episode with uniformly random legal actions; returns (total reward per agent, steps, agents
    seen, the last info of the learner)."""
    obs, infos = env.reset(seed=seed)
    assert len(obs) == 1, "turn-based: only the agent to move observes"
    totals, steps, seen = {}, 0, set(obs)
    while True:
        (aid, o), = obs.items()
        assert env.observation_spaces[aid].contains(o), f"{aid}'s observation is outside its space"
        assert set(np.unique(o["action_mask"])) <= {0.0, 1.0} and o["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, info = env.step({aid: action})
        steps += 1
        seen |= set(obs)
        for k, v in rew.items():
            totals[k] = totals.get(k, 0.0) + v
        if term["__all__"] or trunc["__all__"]:
            assert term["__all__"] != trunc["__all__"], "an episode ends either terminated or truncated"
            assert set(obs) == set(env.agents), "at the end every agent gets its final observation"
            ended = term if term["__all__"] else trunc  # truncated: the step guard cut the game
            assert all(ended[a] for a in obs)
            assert not any("illegal_move_by" in i for i in info.values())
            return totals, steps, seen, info[MAIN]
        assert len(obs) == 1 and not term[next(iter(obs))]


def _win_loss(info) -> float:
    """The learner's win_loss return from a finished game's winners: +1/k for one of k winners,
    -1/(N-k) for a loser, 0 if every seat won."""
    won = np.asarray(info["winners"], dtype=bool)
    k, n = int(won.sum()), won.size
    return 0.0 if k == n else (1.0 / k if won[info["seat"]] else -1.0 / (n - k))


# ------------------------------------------------------------------------------- adapter
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_rollouts_are_legal_and_pay_the_learners_result(game, players):
    """The learner core's face: one RLlib agent, the other seats played inside; win_loss pays the
    learner's result at the end only."""
    env = RLlibGameEnv({"game": game, "num_players": players, "seed": 1})
    assert env.observation_spaces[env.possible_agents[0]]["action_mask"].dtype == np.float32
    rng = np.random.default_rng(players)
    seats = set()
    for episode in range(4):
        totals, steps, seen, info = _rollout(env, rng, seed=100 * players + episode)
        assert seen == {MAIN} and steps >= 1
        seats.add(info["seat"])
        if "winners" in info:  # not cut by the step guard
            assert totals[MAIN] == pytest.approx(_win_loss(info))
    assert len(seats) > 1 and env.illegal_moves == 0


def test_seeded_reset_fixes_the_episode_and_seeds_differ():
    def trace(seed):
        env = RLlibGameEnv({"game": "fae", "num_players": 3})
        obs, _ = env.reset(seed=seed)
        out = []
        for _ in range(10):
            (aid, o), = obs.items()
            out.append((aid, o["observations"].copy()))
            obs, *_ = env.step({aid: int(np.flatnonzero(o["action_mask"])[0])})
        return out

    a, b, c = trace(5), trace(5), trace(6)
    assert all(x[0] == y[0] and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert any(not np.array_equal(x[1], y[1]) for x, y in zip(a, c))
    # Without a reset seed, env_config["seed"] and the runner/vector index give distinct streams.
    e1, e2 = RLlibGameEnv({"seed": 3}), RLlibGameEnv({"seed": 4})
    assert not np.array_equal(next(iter(e1.reset()[0].values()))["observations"],
                              next(iter(e2.reset()[0].values()))["observations"])


def test_illegal_action_ends_the_game_and_is_counted():
    env = RLlibGameEnv({"game": "fae", "num_players": 2})
    obs, _ = env.reset(seed=0)
    (aid, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rew, term, trunc, info = env.step({aid: illegal})
    assert term["__all__"] and rew[aid] == -1.0 and env.illegal_moves == 1
    assert info[aid]["illegal_move_by"] == aid
    with pytest.raises(RuntimeError, match="finished episode"):
        env.step({aid: 0})
    with pytest.raises(ValueError, match="action must be an int"):
        env.reset(seed=1) and env.step({aid: 3.7})


def test_step_for_the_wrong_agent_names_the_mover():
    env = RLlibGameEnv({"game": "fae", "num_players": 2})
    env.reset(seed=0)
    with pytest.raises(ValueError, match=f"it is {MAIN}'s turn"):
        env.step({"player_1": 0})


def test_bad_config_is_named():
    with pytest.raises(ValueError, match="num_players must be in 2..4"):
        RLlibGameEnv({"num_players": 5})
    with pytest.raises(ValueError, match="unknown RLlibGameEnv config key"):
        RLlibGameEnv({"players": 2})
    with pytest.raises(ValueError, match="unknown option"):
        RLlibGameEnv({"options": {"colour": 1}})
    with pytest.raises(ValueError, match="unknown game"):
        RLlibGameEnv({"game": "chess"})
    with pytest.raises(ValueError, match="seed must be an int"):
        RLlibGameEnv({"seed": 3.7})  # never coerced to 3
    with pytest.raises(ValueError, match="reward_scale must be a finite number"):
        RLlibGameEnv({"reward_scale": float("nan")})


def _policy_for(env, seed=0):
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    rng = np.random.default_rng(seed)
    n_obs = env.observation_spaces[MAIN]["observations"].shape[0]
    return PolicyWeights([(rng.normal(size=(n_obs, 8)).astype(np.float32), np.zeros(8, np.float32)),
                          (rng.normal(size=(8, env.num_actions)).astype(np.float32),
                           np.zeros(env.num_actions, np.float32))])


def test_league_snapshots_and_bots_come_from_the_cores_one_pool():
    """The league is the learner core's pool: a snapshot added to it plays with snapshot_prob, bots
    otherwise; which one each episode is drawn from the env's seed."""
    def opponents(env, seeds):
        kinds = []
        for s in seeds:
            _, _, _, info = _rollout(env, np.random.default_rng(s), seed=s)
            kinds.append(info["opponent"])
        return kinds

    env = RLlibGameEnv({"game": "fae", "num_players": 2, "opponents": {"random": 1.0}, "snapshot_prob": 0.5,
                        "max_snapshots": 2})
    assert set(opponents(env, range(4))) == {"random"}, "no snapshot yet: the bots"
    env.add_snapshot(_policy_for(env))
    kinds = opponents(env, range(12))
    assert set(kinds) == {"random", "snapshot"} and env.pool.snapshot_list[0] is not None
    twin = RLlibGameEnv({"game": "fae", "num_players": 2, "opponents": {"random": 1.0}, "snapshot_prob": 0.5,
                         "max_snapshots": 2})
    twin.add_snapshot(_policy_for(twin))
    assert opponents(twin, range(12)) == kinds
    for seed in range(3):  # the pool keeps max_snapshots
        env.add_snapshot(_policy_for(env, seed))
    assert len(env.pool.snapshots) == 2
    assert module_for_agent(MAIN) == MAIN


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_bot_opponents_play_inside_the_env(game, players):
    env = RLlibGameEnv({"game": game, "num_players": players, "opponents": {"greedy": 1.0}})
    rng = np.random.default_rng(0)
    returns = []
    for episode in range(8):
        totals, steps, seen, _ = _rollout(env, rng, seed=episode)
        assert seen == {MAIN}, "only the learner's seat is RLlib's"
        returns.append(totals[MAIN])
    # Uniformly random moves against greedy bots lose nearly always: the bots really play.
    assert np.mean(returns) < -0.3
    with pytest.raises(ValueError, match="unknown opponent"):
        RLlibGameEnv({"opponents": {"nobody": 1.0}})


# ------------------------------------------------------------------------------- module and export
def _module(env, hidden=(32, 16)):
    return MaskedPPOTorchRLModule(observation_space=env.observation_spaces[env.possible_agents[0]],
                                  action_space=env.action_spaces[env.possible_agents[0]],
                                  model_config={"fcnet_hiddens": list(hidden), "fcnet_activation": "tanh",
                                                "vf_share_layers": False, "head_fcnet_hiddens": []})


def test_masked_module_only_samples_legal_actions_and_exports_exactly():
    import torch
    from ray.rllib.core.columns import Columns

    env = RLlibGameEnv({"game": "fae", "num_players": 2})
    torch.manual_seed(0)
    module = _module(env)
    obs = []
    o, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(16):
        (aid, x), = o.items()
        obs.append(x)
        o, _, term, _, _ = env.step({aid: int(rng.choice(np.flatnonzero(x["action_mask"])))})
    batch = {Columns.OBS: {k: torch.from_numpy(np.stack([x[k] for x in obs])) for k in ("observations", "action_mask")}}
    with torch.no_grad():
        logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS].numpy()
    masks = np.stack([x["action_mask"] for x in obs]).astype(bool)
    assert (logits[~masks] < -1e30).all() and (logits[masks] > -1e3).all()
    assert isinstance(batch[Columns.OBS], dict), "the module must not mutate its input batch"
    policy = export_policy(module, {"game": "fae"})  # raises if numpy and torch logits differ
    np.testing.assert_allclose(policy.logits(np.stack([x["observations"] for x in obs]))[masks], logits[masks],
                               rtol=1e-4, atol=1e-4)
    agent = RLlibAgent(policy=policy)
    for i, (x, m) in enumerate(zip(obs, masks)):
        a = agent.act(x["observations"], x["action_mask"])
        assert m[a] and a == int(np.argmax(np.where(m, logits[i], -np.inf))), "plays the module's most probable action"


def test_exported_policy_file_roundtrip_and_errors(tmp_path):
    rng = np.random.default_rng(0)
    policy = MLPPolicy([(rng.normal(size=(6, 4)), rng.normal(size=4)), (rng.normal(size=(4, 3)), rng.normal(size=3))],
                       "relu", {"note": "test policy"})  # names no game: 6 inputs are not Fae's sizes (check_policy)
    policy.save(tmp_path / "p.npz")
    loaded = MLPPolicy.load(tmp_path / "p.npz")
    x = rng.random((5, 6), dtype=np.float32)
    np.testing.assert_array_equal(loaded.logits(x), policy.logits(x))
    assert loaded.meta == {"note": "test policy"} and loaded.activation == "relu"
    agent = RLlibAgent(path=tmp_path / "p.npz", deterministic=False, seed=1)
    picks = {agent.act(x[0], np.array([1, 0, 1], np.int8)) for _ in range(50)}
    assert picks <= {0, 2}
    with pytest.raises(ValueError, match="observations of size 6"):
        agent.act(np.zeros(7, np.float32), np.ones(3, np.int8))
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(x[0], np.zeros(3, np.int8))
    with pytest.raises(FileNotFoundError, match="no policy file"):
        RLlibAgent(path=tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="needs path="):
        RLlibAgent()
    try:  # the suite's numpy PPO agent reads the same file format
        from tabletop_rl.agents.ppo_agent import PolicyWeights
    except ImportError:
        return
    np.testing.assert_allclose(PolicyWeights.load(tmp_path / "p.npz").logits(x), policy.logits(x), rtol=1e-6)


# ------------------------------------------------------------------------------- config
def test_config_from_dicts_and_dataclasses():
    @dataclasses.dataclass
    class SB3Like:  # train.py-style names
        game: str = "fae"
        players: int = 3
        total_timesteps: int = 1234
        n_steps: int = 512
        batch_size: int = 64
        n_epochs: int = 3
        ent_coef: float = 0.02
        net_arch: list = dataclasses.field(default_factory=lambda: [64, 64])
        policy_kwargs: dict = dataclasses.field(default_factory=dict)  # SB3-only: ignored

    cfg = config_from(SB3Like())
    assert (cfg.num_players, cfg.timesteps, cfg.train_batch_size, cfg.minibatch_size, cfg.num_epochs,
            cfg.entropy_coeff, cfg.net_arch) == (3, 1234, 512, 64, 3, 0.02, (64, 64))
    assert config_from({"num_env_runners": 4, "address": "auto"}).num_env_runners == 4
    with pytest.raises(ValueError, match="takes 2..4 players"):
        config_from({"num_players": 7}).validate()
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        config_from({"eval_opponents": ["nobody"]}).validate()
    with pytest.raises(ValueError, match="minibatch_size"):
        config_from({"minibatch_size": 512, "train_batch_size": 256}).validate()
    with pytest.raises(TypeError, match="dict or a dataclass"):
        config_from(42)


def test_train_py_config_maps_onto_the_rllib_config(tmp_path):
    train = pytest.importorskip("train", reason="train.py is not importable here")
    tc = train.Config()
    cfg = config_from(tc)
    assert cfg.timesteps == tc.total_steps and cfg.minibatch_size == tc.batch_size
    assert cfg.train_batch_size == tc.n_steps * tc.n_envs and cfg.num_epochs == tc.n_epochs
    assert cfg.net_arch == tuple(int(h) for h in tc.net_arch.split(",")) and cfg.activation == tc.activation
    assert (cfg.reward, cfg.win_bonus, cfg.reward_scale) == (tc.reward, tc.win_bonus, tc.reward_scale)
    assert cfg.options == train.parse_options(tc.options)
    assert (cfg.gamma, cfg.gae_lambda, cfg.clip_param, cfg.entropy_coeff, cfg.vf_loss_coeff, cfg.grad_clip) == \
        (tc.gamma, tc.gae_lambda, tc.clip_range, tc.ent_coef, tc.vf_coef, tc.max_grad_norm)
    assert cfg.opponents == {k: v for k, v in {"random": tc.pool_random, "greedy": tc.pool_greedy}.items() if v > 0}
    more = config_from({**dataclasses.asdict(tc), "opponents": "greedy=1,mcts=0.5"})  # train.py's --opponents string
    assert more.opponents == {**cfg.opponents, "greedy": cfg.opponents.get("greedy", 0.0) + 1, "mcts": 0.5}
    assert (cfg.league_size, cfg.league_prob, cfg.league_every) == (tc.max_snapshots, tc.snapshot_prob, tc.snapshot_every)
    assert cfg.eval_opponents == ("random", "greedy")  # train.py's "" is the default pair
    listed = config_from({**dataclasses.asdict(tc), "eval_opponents": "greedy, mcts"})  # train.py's --eval-opponents
    assert listed.eval_opponents == ("greedy", "mcts")
    cfg.validate()
    # The fields proposed for train.py's Config: "" / 0 mean off.
    wired = config_from({**dataclasses.asdict(tc), "backend": "rllib", "address": "", "num_env_runners": 3,
                         "num_envs_per_env_runner": 1, "target_win_rate": 0.0})
    assert (wired.address, wired.target_win_rate, wired.num_env_runners) == (None, None, 3)
    resumed = config_from({**dataclasses.asdict(tc), "resume": str(tmp_path)})  # a run directory
    assert resumed.resume is True and resumed.run_dir == str(tmp_path)
    by_name = config_from({**dataclasses.asdict(tc), "resume": "myrun", "runs_dir": "elsewhere"})  # a run name
    assert by_name.resume is True and by_name.run_dir == "elsewhere/myrun"


def test_score_diff_reward_scale_and_win_bonus():
    def totals(**extra):
        env = RLlibGameEnv({"game": "fae", "num_players": 3, "options": {"reward": "score_diff"}, **extra})
        t, _, _, info = _rollout(env, np.random.default_rng(0), seed=11)
        return t[MAIN], info

    (plain, info), (shaped, _) = totals(), totals(win_bonus=5.0, reward_scale=0.1)
    # same game (same seeds and actions); + 5 x the learner's win_loss return at the end, all x 0.1
    assert shaped == pytest.approx(0.1 * (plain + 5.0 * _win_loss(info)))


def test_unknown_teacher_is_rejected():
    with pytest.raises(ValueError, match="unknown agent 'oracle'"):
        config_from({"bc_teacher": "oracle"}).validate()


def test_evaluate_is_seeded_and_counts_wins():
    from tabletop_rl.agents.ppo_agent import default_policy_path

    policy = MLPPolicy.load(default_policy_path("fae"))  # the shipped policy, in the backend's file format
    opts = policy.meta["options"]
    r1 = evaluate(policy, "fae", 2, ["random"], 6, seed=3, options=opts)
    r2 = evaluate(policy, "fae", 2, ["random"], 6, seed=3, options=opts)
    assert r1 == r2 and r1["random"] >= 0.8  # it beats random nearly always


# ------------------------------------------------------------------------------- a real RLlib run
@pytest.fixture(scope="module")
def ray_local():
    import os

    import ray

    os.environ.setdefault("RAY_worker_niceness", "0")  # as the backend does for a local Ray
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.slow
def test_tiny_ppo_run_trains_checkpoints_resumes_and_plays_in_the_arena(ray_local, tmp_path):
    from tabletop_rl.agents.arena import ArenaConfig, run_arena

    run_dir = tmp_path / "run"
    base = dict(game="fae", num_players=2, seed=0, timesteps=10_000, train_batch_size=400, minibatch_size=200,
                num_epochs=1, net_arch=(32, 32), num_env_runners=2, eval_games=4, checkpoint_every=400,
                league_size=1, league_every=400, league_prob=0.5, opponents={"random": 1.0},
                run_dir=str(run_dir), quiet=True,
                bc_teacher="greedy", bc_samples=300, bc_epochs=2, eval_every=400)
    first = train_rllib({**base, "max_iterations": 2})
    assert [r["iteration"] for r in first["iterations"]] == [1, 2]
    assert first["iterations"][-1]["env_steps"] >= 800
    assert all(r["league_envs"] == 2 for r in first["iterations"]), "main's snapshot reached both runners' envs"
    assert (run_dir / "checkpoint" / "rllib_checkpoint.json").exists() and (run_dir / "policy.npz").exists()
    assert set(first["evaluations"][-1]["win_share"]) == {"random", "greedy"}
    assert first["behaviour_cloning"]["samples"] == 300 and len(first["behaviour_cloning"]["loss_by_epoch"]) == 2
    assert [e["env_steps"] for e in first["evaluations"]][0] == 0, "the curve starts at the warm-started policy"
    w_before = MLPPolicy.load(run_dir / "policy.npz").weights[0][0].copy()

    with pytest.raises(FileExistsError, match="--resume"):
        train_rllib({**base, "max_iterations": 3})
    with pytest.raises(ValueError, match="net_arch was"):
        train_rllib({**base, "max_iterations": 3, "resume": True, "net_arch": (16,)})

    second = train_rllib({**base, "max_iterations": 3, "resume": True})
    assert [r["iteration"] for r in second["iterations"]] == [1, 2, 3], "resumed at iteration 2, not from scratch"
    assert second["iterations"][-1]["env_steps"] > first["iterations"][-1]["env_steps"]
    progress = json.loads((run_dir / "progress.json").read_text())
    assert progress["finished"]["iteration"] == 3
    policy = MLPPolicy.load(run_dir / "policy.npz")
    assert policy.meta["iteration"] == 3 and not np.array_equal(policy.weights[0][0], w_before), "it trained"

    # The checkpoint's module and the exported file are the same policy (the league's snapshots are
    # numpy copies in the envs' pools, not RLlib modules).
    from tabletop_rl.agents.ppo_agent import PolicyFileError
    from tabletop_rl.agents.rllib_agent import load_checkpoint_policy

    with pytest.raises(PolicyFileError, match="trust_pickle"):  # checkpoints are unpickled: never by default
        RLlibAgent(path=run_dir / "checkpoint")
    from_ckpt = RLlibAgent(path=run_dir / "checkpoint", trust_pickle=True).policy
    x = np.random.default_rng(0).random((4, policy.obs_size), dtype=np.float32)
    np.testing.assert_allclose(from_ckpt.logits(x), policy.logits(x), rtol=1e-5, atol=1e-5)
    with pytest.raises(FileNotFoundError, match="no RLModule 'league_7'"):
        load_checkpoint_policy(run_dir / "checkpoint", "league_7", trust_pickle=True)

    cfg = ArenaConfig(game="fae", agents=[f"rllib:path={run_dir / 'policy.npz'}", "random"], games=2, workers=1,
                      imports=["tabletop_rl.agents.rllib_agent"], records=False)
    out = run_arena(cfg, plot=False, quiet=True, write=False)
    assert len(out["rows"]) == 2 and out["labels"][0].startswith("rllib:")
