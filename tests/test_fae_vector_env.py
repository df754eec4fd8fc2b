"""The batched learner env (tabletop_rl.envs.fae_vector_env), the margin features and their scalar twin."""
from __future__ import annotations

import numpy as np
import pytest

from fae_rl import FaeState
from fae_rl.features import action_features, feature_layout, observe_features
from fae_rl.observation import observe
from fae_rl.vector import FaeVector
from tabletop_rl.envs.fae_vector_env import FaeLearnerCore


def _random_actions(masks, rng):
    return np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)


def test_set_state_and_partial_step_match_the_scalar_core():
    rng = np.random.default_rng(0)
    for n, big in ((2, False), (3, True), (4, False)):
        v, u = FaeVector(6, n, big), FaeVector(6, n, big)
        v.reset(list(range(6)))
        for t in range(120):
            if t % 9 == 0:
                for i in range(6):
                    u.set_state(i, FaeState.from_dict(v.state(i).to_dict()))
                    assert u.state(i).to_dict() == v.state(i).to_dict()
                assert (u.legal_mask() == v.legal_mask()).all()
                assert np.array_equal(u.observe(), v.observe()) and np.array_equal(u.margins(), v.margins())
            sel = rng.random(6) < 0.5
            before = [v.state(i).to_dict() for i in range(6)]
            acts = _random_actions(v.legal_mask(), rng)
            v.step(acts, games=sel)
            for i in range(6):
                if not sel[i]:
                    assert v.state(i).to_dict() == before[i]  # left as it was
                elif not before[i]["terminal"]:
                    s = FaeState.from_dict(before[i])
                    s.apply(int(acts[i]))
                    assert v.state(i).to_dict() == s.to_dict()
    with pytest.raises(ValueError, match="games must be a bool array"):
        v.step(np.zeros(6, dtype=np.int64), games=np.ones(6, dtype=np.int64))


def test_partial_step_illegal_action_names_the_game_and_changes_nothing():
    v = FaeVector(4, 2)
    v.reset([0, 1, 2, 3])
    before = [v.state(i).to_dict() for i in range(4)]
    acts = _random_actions(v.legal_mask(), np.random.default_rng(1))
    acts[2] = 329  # a resolve action with no pending ritual
    with pytest.raises(ValueError, match="^game 2: "):
        v.step(acts, games=np.array([False, True, True, False]))
    assert [v.state(i).to_dict() for i in range(4)] == before


def test_margin_features_scalar_equals_batched_and_hide_non_movers():
    """F-I1: the features use the mover's own colour only; other seats see zeros."""
    rng = np.random.default_rng(3)
    v = FaeVector(8, 3)
    v.reset(list(range(8)))
    layout = feature_layout("summary", "margin")
    for _ in range(60):
        core_rows = np.zeros((8, 660), dtype=np.float32)
        from fae_rl.features import encode_margins

        encode_margins(v.margins(), core_rows)
        for i in range(8):
            s = v.state(i)
            if s.is_terminal():
                continue
            mover = s.current_player
            assert np.array_equal(action_features(s, mover), core_rows[i])
            best = core_rows[i, 330:]
            assert best.sum() >= 1 and (best <= s.legal_mask()).all()
            for seat in range(3):
                full = observe_features(s, seat, "summary", "margin")
                assert np.array_equal(full[:layout["margin"].start], observe(s, seat, "summary"))
                if seat != mover:
                    assert not full[layout["margin"].start:].any()
        v.step(_random_actions(v.legal_mask(), rng))


def test_scalar_env_option_and_registry_observe_agree():
    import fae_rl
    from tabletop_rl.envs import get_game

    env = fae_rl.env(num_players=2, action_features="margin")
    env.reset(seed=5)
    assert env.observation_space("player_0")["observation"].shape == (1703 + 660,)
    spec = get_game("fae")
    obs = env.observe(env.agent_selection)["observation"]
    assert np.array_equal(obs, spec.observe(env.game, env.game.current_player, history="summary", action_features="margin"))
    assert env.observation_space("player_0")["observation"].contains(obs)
    assert fae_rl.env().observation_space("player_0")["observation"].shape == (1703,)  # the default is unchanged
    with pytest.raises(ValueError, match="action_features must be one of"):
        fae_rl.env(action_features="search")


def _core(**kw):
    args = dict(num_envs=12, num_players=2, opponents={"random": 1.0, "greedy": 1.0}, reward="score_diff",
                seed=7, action_features="margin")
    args.update(kw)
    return FaeLearnerCore(**args)


def _play(core, steps, seed=0):
    rng = np.random.default_rng(seed)
    obs = np.zeros((core.num_envs, core.obs_size), dtype=np.float32)
    trace = []
    for _ in range(steps):
        o = core.learner_obs(obs).copy()
        m = core.masks()
        r, d, fin = core.step(_random_actions(m, rng))
        trace.append((o, m, r, d, [(f["index"], f["r"], f["win_share"]) for f in fin]))
    return trace


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) and np.array_equal(x[2], y[2])
        assert np.array_equal(x[3], y[3]) and x[4] == y[4]


def test_learner_view_matches_the_scalar_observation_and_is_always_to_move():
    core = _core()
    core.reset()
    obs = np.zeros((core.num_envs, core.obs_size), dtype=np.float32)
    rng = np.random.default_rng(2)
    seats_seen = set()
    for _ in range(70):
        core.learner_obs(obs)
        masks = core.masks()
        for i in range(core.num_envs):
            s = core.vec.state(i)
            seat = int(core.seat[i])
            seats_seen.add(seat)
            assert s.current_player == seat  # every game handed back has the learner to move
            assert np.array_equal(obs[i], observe_features(s, seat, "summary", "margin"))
            assert np.array_equal(masks[i], s.legal_mask().astype(bool))
        core.step(_random_actions(masks, rng))
    assert seats_seen == {0, 1}  # seats rotate


def test_same_seed_same_games_and_reset_seed_restarts():
    a, b = _core(), _core()
    a.reset()
    b.reset()
    _same(_play(a, 80), _play(b, 80))
    a.reset(seed=99)
    b.reset(seed=99)
    _same(_play(a, 20, seed=4), _play(b, 20, seed=4))


def _final_potential(terminal_obs):
    """The learner's score_diff potential from its view of the final position (scores, cards, own colour)."""
    from fae_rl.observation import observation_layout

    lay = observation_layout("summary")
    scores = np.rint(terminal_obs[lay["scores"]] * 100).astype(int)
    own = int(np.argmax(terminal_obs[lay["own_colour"]]))
    cards = int(np.rint(terminal_obs[lay["ritual_cards_held"]][0] * 12))
    return scores[own] + cards - max(scores[c] for c in range(5) if c != own)


@pytest.mark.parametrize("reward", ["score_diff", "win_loss"])
def test_episode_rewards_sum_to_the_learners_credit(reward):
    """score_diff: an episode's rewards sum to the learner's final potential (opponents' moves included)
    plus win_bonus x its return; win_loss: to its return; all times reward_scale; auto-reset included."""
    bonus, scale = (2.0 if reward == "score_diff" else 0.0), 0.5
    core = _core(reward=reward, win_bonus=bonus, reward_scale=scale)
    core.reset()
    rng = np.random.default_rng(5)
    totals = np.zeros(core.num_envs)
    checked = 0
    while checked < 30:
        r, d, fin = core.step(_random_actions(core.masks(), rng))
        totals += r
        for f in fin:
            i = f["index"]
            ret = {1.0: 1.0, 0.5: 0.0, 0.0: -1.0}[f["win_share"]]
            want = (_final_potential(f["terminal_observation"]) + bonus * ret) if reward == "score_diff" else ret
            assert totals[i] == pytest.approx(scale * want, abs=1e-4)
            assert f["r"] == pytest.approx(totals[i], abs=1e-4)
            assert f["opponent"] in ("random", "greedy") and f["l"] > 10
            totals[i] = 0.0
            checked += 1
        assert np.array_equal(d, np.isin(np.arange(core.num_envs), [f["index"] for f in fin]))


def test_greedy_opponent_plays_a_greedy_best_move():
    core = _core(num_envs=16, opponents={"greedy": 1.0}, action_features="none")
    core.reset()
    rng = np.random.default_rng(6)
    one = FaeVector(1, 2)
    checked = 0
    for _ in range(40):
        before = [core.vec.state(i) for i in range(16)]
        acts = _random_actions(core.masks(), rng)
        _, done, _ = core.step(acts)
        for i in range(16):
            s1 = before[i]
            s1.apply(int(acts[i]))
            opp = 1 - int(core.seat[i])
            if done[i] or s1.current_player != opp or s1.pending:
                continue
            one.set_state(0, s1)
            m = one.margins()[0]
            last = core.vec.state(i)._hist_last[opp]  # the opponent's move
            assert m[last] == m.max()
            checked += 1
    assert checked > 100


def test_snapshots_play_and_state_round_trips_without_pickle():
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    core = _core(snapshot_prob=1.0)
    rng = np.random.default_rng(0)
    w = PolicyWeights([(rng.normal(size=(core.obs_size, 8)).astype(np.float32), np.zeros(8, np.float32)),
                       (rng.normal(size=(8, 330)).astype(np.float32), np.zeros(330, np.float32))], "relu",
                      skip=[(feature_layout("summary", "margin")["best"].start, 2.0)])
    core.add_snapshot(w)
    core.reset()
    assert (core.opp == len(core.fixed_names)).all()
    _play(core, 30)
    meta, arrays = core.get_state()
    import json

    meta = json.loads(json.dumps(meta))  # JSON-able
    twin = _core(snapshot_prob=1.0)
    twin.set_state(meta, arrays)
    _same(_play(core, 40, seed=3), _play(twin, 40, seed=3))
    bad = dict(meta, seat=[5] * core.num_envs)
    with pytest.raises(ValueError, match="seat"):
        twin.set_state(bad, arrays)
    with pytest.raises(ValueError, match="missing or malformed"):
        twin.set_state({k: v for k, v in meta.items() if k != "rng"}, arrays)


def test_sb3_vecenv_masks_autoreset_and_illegal_action():
    pytest.importorskip("sb3_contrib", reason="needs the train extra (not in .venv-rllib)")
    from tabletop_rl.envs.fae_vector_env import FaeLearnerVecEnv

    venv = FaeLearnerVecEnv(8, opponents={"random": 1.0}, seed=1, action_features="margin")
    venv.seed(3)
    obs = venv.reset()
    assert obs.shape == (8, venv.observation_space.shape[0]) and venv.observation_space.contains(obs[0])
    masks = np.stack(venv.env_method("action_masks"))  # sb3-contrib's get_action_masks
    assert masks.shape == (8, 330) and masks.any(axis=1).all()
    rng = np.random.default_rng(0)
    dones = 0
    for _ in range(200):
        obs, rew, done, infos = venv.step(_random_actions(venv.action_masks(), rng))
        for i in np.flatnonzero(done):
            assert {"terminal_observation", "episode", "win_share"} <= set(infos[i])
            dones += 1
    assert dones >= 8
    bad = np.zeros(8, dtype=np.int64) + 329
    with pytest.raises(ValueError, match="game 0: "):
        venv.step(bad)


def test_maskable_ppo_learns_on_it_briefly():
    pytest.importorskip("sb3_contrib", reason="needs the train extra (not in .venv-rllib)")
    from sb3_contrib import MaskablePPO

    from tabletop_rl.envs.fae_vector_env import FaeLearnerVecEnv

    venv = FaeLearnerVecEnv(16, seed=0, action_features="none", history="none")
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=128, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=dict(net_arch=[16]))
    model.learn(512)
    assert model.num_timesteps == 512
