"""The batched learner env (tabletop_rl.training.fae_vector_env), the margin features and their scalar twin."""
from __future__ import annotations

import numpy as np
import pytest

from fae_rl import FaeState
from fae_rl.features import action_features, feature_layout, observe_features
from fae_rl.observation import observe
from fae_rl.vector import FaeVector
from tabletop_rl.training.fae_vector_env import FaeLearnerCore


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


def _reference_margin_blocks(margins):
    """The `margin` and `best` blocks from float64 margins in numpy: the reference the numba
    feature kernel (fae_rl.margin.features) is held to."""
    legal = np.isfinite(margins)
    out = np.zeros((margins.shape[0], 660), dtype=np.float32)
    out[:, :330] = np.clip(np.where(legal, margins, 0.0) / 10.0, -4.0, 4.0)
    out[:, 330:] = legal & (margins == np.where(legal, margins, -np.inf).max(axis=1, keepdims=True))
    return out


def test_margin_features_scalar_equals_batched_and_hide_non_movers():
    """F-I1: the features use the mover's own colour only; other seats see zeros."""
    rng = np.random.default_rng(3)
    v = FaeVector(8, 3)
    v.reset(list(range(8)))
    layout = feature_layout("summary", "margin")
    for _ in range(60):
        core_rows = _reference_margin_blocks(v.margins())
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


def test_versus_features_scalar_equals_batched_and_use_public_information_only():
    """F-I1: `versus` and `versus_best` use the mover's own colour and the public history only: redrawing
    the other seats' colours (sample_consistent) changes nothing; non-movers see zeros."""
    from fae_rl.features import batch_features, likely_colours

    rng = np.random.default_rng(4)
    v = FaeVector(8, 3)
    v.reset(list(range(8)))
    layout = feature_layout("none", "versus")
    base = layout["margin"].start
    for t in range(90):
        live = ~v.terminated
        rows = np.zeros((8, 4 * 330), dtype=np.float32)
        batch_features(v, "versus", live, rows)
        guess = likely_colours(v)
        versus = v.margins(against=guess)
        want = np.clip(np.where(live[:, None], np.nan_to_num(versus, neginf=0.0), 0.0) / 10, -4, 4)
        assert np.array_equal(rows[:, layout["versus"].start - base:layout["versus"].stop - base], want.astype(np.float32))
        flags = rows[:, layout["versus_best"].start - base:layout["versus_best"].stop - base]
        top = versus == versus.max(axis=1, keepdims=True)
        assert np.array_equal(flags.astype(bool), top & live[:, None] & np.isfinite(versus))
        mover_colour = v.own_colour(np.maximum(v.current_player, 0))
        assert not guess[np.arange(8), mover_colour].any() and guess.any(axis=1).all()
        if t == 0:  # nobody has moved: every colour but the mover's may be an opponent's
            assert (guess.sum(axis=1) == 4).all()
        for i in np.flatnonzero(live)[:3]:
            s = v.state(int(i))
            mover = s.current_player
            assert np.array_equal(action_features(s, mover, "versus"), rows[i])
            other = s.sample_consistent(mover, np.random.default_rng(t))
            assert np.array_equal(action_features(other, mover, "versus"), rows[i])
            assert not action_features(s, (mover + 1) % 3, "versus").any()
        v.step(_random_actions(v.legal_mask(), rng))


def test_versus_margin_beats_greedy_in_the_batched_engine():
    """The docstring's claim: playing the best `versus` margin beats the greedy bot (seat-rotated)."""
    from fae_rl.features import likely_colours
    from fae_rl.margin import pick_best

    n = 256
    v = FaeVector(n, 2)
    v.reset(np.arange(n) + 1000)
    rng = np.random.default_rng(0)
    seat = np.arange(n) % 2
    while not v.terminated.all():
        greedy = v.greedy_actions(rng)
        mine = np.empty(n, dtype=np.int64)
        pick_best(v.margins(against=likely_colours(v)), rng.random(n), mine)
        v.step(np.where(v.current_player == seat, mine, greedy), games=~v.terminated)
    r = v.returns()[np.arange(n), seat]
    assert (r > 0).mean() + 0.5 * (r == 0).mean() > 0.57


def test_scalar_env_option_and_registry_observe_agree(fae_spec):
    import fae_rl
    from tabletop_rl.envs import get_game

    env = fae_rl.env(num_players=2, action_features="margin")
    env.reset(seed=5)
    assert env.observation_space("player_0")["observation"].shape == (1703 + 660,)
    obs = env.observe(env.agent_selection)["observation"]
    assert np.array_equal(obs, fae_spec.observe(env.game, env.game.current_player, history="summary", action_features="margin"))
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


def test_seat_diff_rewards_sum_to_the_margin_that_decides_the_game():
    """seat_diff: an episode's rewards (win_bonus 0) sum to the learner's final colour score minus the
    best other SEAT's (F-E2, F-E3): positive when it won outright, negative when it lost, 0 only on a
    tie on points (decided by ritual cards, F-E4); score_diff's potential (every colour) differs."""
    core = _core(reward="seat_diff", win_bonus=0.0, reward_scale=1.0)
    core.reset()
    rng = np.random.default_rng(6)
    totals = np.zeros(core.num_envs)
    seen, neutral_beat_both = 0, 0
    while seen < 60:
        r, _, fin = core.step(_random_actions(core.masks(), rng))
        totals += r
        for f in fin:
            t = totals[f["index"]]
            assert t == int(t)  # a difference of integer scores
            if t > 0:
                assert f["win_share"] == 1.0
            elif t < 0:
                assert f["win_share"] == 0.0
            neutral_beat_both += f["win_share"] == 1.0 and _final_potential(f["terminal_observation"]) < 0
            totals[f["index"]] = 0.0
            seen += 1
    assert neutral_beat_both > 0  # a neutral colour outscored both seats: score_diff would have said "behind"
    with pytest.raises(ValueError, match="reward must be one of"):
        _core(reward="points")


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
            last = core.vec.state(i).to_dict()["history"][opp]["last_action"]  # the opponent's move
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
    from tabletop_rl.training.fae_vector_env import FaeLearnerVecEnv

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

    from tabletop_rl.training.fae_vector_env import FaeLearnerVecEnv

    venv = FaeLearnerVecEnv(16, seed=0, action_features="none", history="none")
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=128, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=dict(net_arch=[16]))
    model.learn(512)
    assert model.num_timesteps == 512


def test_gymnasium_vector_env_same_step_autoreset_masks_and_seeding():
    from gymnasium.vector import AutoresetMode

    from tabletop_rl.training.fae_vector_env import FaeLearnerVectorEnv

    def run(seed):
        envs = FaeLearnerVectorEnv(6, opponents={"random": 1.0, "greedy": 1.0}, action_features="versus", history="none")
        assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
        obs, infos = envs.reset(seed=seed)
        assert obs.shape == (6, 863 + 4 * 330) and envs.observation_space.contains(obs)
        rng, trace, finals = np.random.default_rng(seed), [], 0
        for _ in range(150):
            mask = infos["action_mask"]
            assert np.array_equal(mask, envs.action_masks()) and mask.any(axis=1).all()
            actions = _random_actions(mask, rng)
            obs, rewards, term, trunc, infos = envs.step(actions)
            assert envs.observation_space.contains(obs) and not trunc.any() and rewards.dtype == np.float32
            if term.any():
                assert np.array_equal(infos["_final_obs"], term) and np.array_equal(infos["_final_info"], term)
                for i in np.flatnonzero(term):
                    assert infos["final_obs"][i].shape == (863 + 4 * 330,)
                    assert infos["final_info"][i]["win_share"] in (0.0, 0.5, 1.0)
                finals += int(term.sum())
            else:
                assert "final_obs" not in infos
            trace.append((obs.copy(), rewards.copy(), term.copy()))
        illegal = np.where(infos["action_mask"][0], -1, np.arange(330)).max()
        bad = _random_actions(infos["action_mask"], rng)
        bad[0] = illegal
        with pytest.raises(ValueError, match="game 0"):
            envs.step(bad)
        return trace, finals

    a, finals = run(3)
    b, _ = run(3)
    c, _ = run(4)
    assert finals >= 6  # games ended and were dealt again within the run
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b))
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))
