"""train.py --init (issue 28): PPO starts from a shipped policy's head instead of the warm start;
benchmarks/fae_league.py: Fae's MCTS at reduced budgets as opponent-pool bots."""
from __future__ import annotations

import dataclasses
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import train  # noqa: E402
from tabletop_rl.training.sb3 import init_weights, load_policy_head, warm_start  # noqa: E402

CFG = dict(n_envs=4, n_steps=8, batch_size=16, net_arch="64", activation="relu",
           options="history=none,action_features=versus", eval_every=0)


def test_init_starts_the_policy_head_from_a_shipped_version(tmp_path):
    cfg = train.Config(**CFG, init="fae_2p_v2")
    venv, model = train.build(cfg, train.make_pool(cfg))
    obs = venv.reset()
    v2 = init_weights("fae_2p_v2", "fae")
    assert not np.allclose(train.policy_weights(model, cfg).logits(obs), v2.logits(obs), atol=1e-2)
    warm_start(model, cfg, {}, str(tmp_path), 0.0)  # --init replaces the imitation warm start
    got = train.policy_weights(model, cfg)
    assert np.allclose(got.logits(obs), v2.logits(obs), atol=1e-4) and np.allclose(
        [c for _, c in got.skip], [c for _, c in v2.skip], atol=1e-6)
    v2.save(tmp_path / "v2.npz")  # a path works too
    assert np.array_equal(init_weights(str(tmp_path / "v2.npz"), "fae").weights[0][0], v2.weights[0][0])


def test_init_of_another_shape_is_refused_naming_the_layer():
    cfg = train.Config(**{**CFG, "net_arch": "8"})
    _, model = train.build(cfg, train.make_pool(cfg))
    with pytest.raises(SystemExit, match="--init: layer 0 is 623 x 64; this run.s is 623 x 8"):
        load_policy_head(model, init_weights("fae_2p_v2", "fae"))
    cfg = dataclasses.replace(cfg, net_arch="64,64")
    _, model = train.build(cfg, train.make_pool(cfg))
    with pytest.raises(SystemExit, match="2 layers"):
        load_policy_head(model, init_weights("fae_2p_v2", "fae"))


def test_the_league_registers_fae_mcts_at_reduced_budgets():
    import benchmarks.fae_league  # noqa: F401  (registers)
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.mcts import FAE_DEFAULTS

    for n in (30, 100):
        bot = make_agent("fae", f"mcts{n}", seed=0)
        assert bot.iterations == n and bot.prior is FAE_DEFAULTS["prior"] and bot.root_widen == FAE_DEFAULTS["root_widen"]


def test_the_version_league_registers_each_shipped_fae_policy_as_a_batch_bot():
    """benchmarks/fae_version_league.py: each catalogue version is a bot of that name, the shipped
    policy itself (same weights), playing a batch in one call."""
    import numpy as np

    import benchmarks.fae_version_league  # noqa: F401  (registers)
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.policy_versions import version_names
    from tabletop_rl.envs.fae_batch import FaeBatch

    for name in version_names("fae"):
        bot, shipped = make_agent("fae", name, seed=0), make_agent("fae", "ppo", seed=0, version=name)
        assert bot.version == name and all(np.array_equal(a, b) for (a, _), (b, _) in
                                           zip(bot.policy.weights, shipped.policy.weights))
    batch = FaeBatch(3, 2, history="none", action_features="versus")
    batch.reset(np.arange(3))
    moves = make_agent("fae", "fae_2p_v2", seed=0).act_batch(batch, np.ones(3, dtype=bool), np.random.default_rng(0))
    assert batch.legal_mask()[np.arange(3), moves].all()


def test_a_larger_value_net_trains_beside_the_shipped_policy_shape(tmp_path):
    """--vf-arch sizes the value MLP alone: --init of a 64-unit policy still loads, the exported
    policy keeps its shape, and a malformed size list is a usage error naming the flag."""
    cfg = train.Config(**CFG, init="fae_2p_v2", vf_arch="96,32")
    venv, model = train.build(cfg, train.make_pool(cfg))
    sizes = [m.out_features for m in model.policy.mlp_extractor.value_net if hasattr(m, "out_features")]
    assert sizes == [96, 32] and model.policy.value_net.in_features == 32
    warm_start(model, cfg, {}, str(tmp_path), 0.0)
    got = train.policy_weights(model, cfg)
    assert [w.shape for w, _ in got.weights] == [w.shape for w, _ in init_weights("fae_2p_v2", "fae").weights]
    for bad in ("", "0", "64,", "a,b", "5000", ",".join(["8"] * 9)):
        with pytest.raises(SystemExit, match="--net-arch" if bad == "" else "--vf-arch"):
            train.build(dataclasses.replace(cfg, net_arch=bad) if bad == "" else dataclasses.replace(cfg, vf_arch=bad),
                        train.make_pool(cfg))
