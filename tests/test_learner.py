"""The one learner core (tabletop_rl.training.learner) over any BatchedGame, its batches and its faces."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_rl.envs import get_game
from tabletop_rl.envs.game_state import BatchedGame, missing_members
from tabletop_rl.training.learner import LearnerCore, make_batch, make_learner_core, win_share
from tabletop_rl.envs.scalar_batch import ScalarBatch


def _random_actions(masks, rng):
    return np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)


# ---------------------------------------------------------------------------- the protocol and the batches
def test_batches_are_batched_games_at_runtime():
    from fae_rl.vector import FaeVector

    from tabletop_rl.envs.fae_batch import FaeBatch

    fv = FaeVector(3, 2)
    assert missing_members(fv, BatchedGame) == []  # before the deal too (isinstance would read a property)
    fv.reset([0, 1, 2])
    from fantastiqa_rl.vector import FantastiqaVector

    for batch in (fv, FaeBatch(2, 2), ScalarBatch("fantastiqa", 2), ScalarBatch("fae", 2, 3), FantastiqaVector(2)):
        batch.reset(np.arange(batch.num_envs))
        assert isinstance(batch, BatchedGame), batch

    class NotABatch:
        num_envs = 1

        def step(self, actions):
            pass

    assert not isinstance(NotABatch(), BatchedGame)
    assert "legal_mask" in missing_members(NotABatch(), BatchedGame)
    with pytest.raises(ValueError, match="lacks"):
        LearnerCore(NotABatch(), "fae")


@pytest.mark.parametrize("game,players,options", [("fantastiqa", 2, {}), ("fantastiqa", 3, {"goal": "long"}),
                                                  ("fae", 3, {"history": "none", "action_features": "margin"})])
def test_scalar_batch_is_exact_to_the_scalar_game(game, players, options):
    """Differential: masks, observations (every seat), returns and to_dict equal N scalar games stepped alike;
    partial steps leave the other games alone; an illegal action raises naming the game and changes nothing."""
    spec = get_game(game)
    rule, obs_opts = spec.split_options(options)
    n = 4
    b = ScalarBatch(game, n, players, **options)
    seeds = np.arange(n) + 11
    b.reset(seeds)
    ref = [spec.new_state(num_players=players, seed=int(s), **rule) for s in seeds]
    rng = np.random.default_rng(0)
    for t in range(300):
        masks = b.legal_mask()
        for i, s in enumerate(ref):
            want = np.zeros(b.num_actions, bool) if s.is_terminal() else spec.action_mask(s, s.current_player).astype(bool)
            assert np.array_equal(masks[i], want)
            assert b.state(i).to_dict() == s.to_dict()
        seat = t % players
        obs = b.observe(np.full(n, seat))
        for i, s in enumerate(ref):
            assert np.array_equal(obs[i], spec.observe(s, seat, **obs_opts))
        assert np.array_equal(b.returns(), np.stack([s.returns() for s in ref]))
        if b.terminated.all():
            break
        acts = _random_actions(masks, rng)
        sel = rng.random(n) < 0.7
        if t == 5:
            live = np.flatnonzero(~b.terminated & sel)
            bad = acts.copy()
            bad[live[0]] = int(np.flatnonzero(~masks[live[0]])[0])
            before = [b.state(i).to_dict() for i in range(n)]
            with pytest.raises(ValueError, match=f"^game {live[0]}: action"):
                b.step(bad, games=sel)
            assert [b.state(i).to_dict() for i in range(n)] == before
        b.step(acts, games=sel)
        for i, s in enumerate(ref):
            if sel[i] and not s.is_terminal():
                s.apply(int(acts[i]))
    with pytest.raises(ValueError, match="actions must be"):
        b.step(np.zeros(n))  # floats are refused


# ---------------------------------------------------------------------------- the core
from tests.batch_helpers import assert_same_trace as _same, learner_trace as _trace  # noqa: E402  (shared with test_fantastiqa_batch)


def test_fae_batch_and_scalar_batch_give_the_same_learner_games():
    """The core over Fae's batched engine and over N scalar Fae games: identical observations, masks,
    rewards (score_diff: FaeBatch's batched potential == the spec's) and finished games."""
    kw = dict(num_players=2, opponents={"random": 1.0}, reward="score_diff", win_bonus=1.0, seed=3,
              history="none", action_features="margin")
    fast, slow = make_learner_core("fae", 6, **kw), make_learner_core("fae", 6, batched=False, **kw)
    assert isinstance(slow.batch, ScalarBatch) and not isinstance(fast.batch, ScalarBatch)
    fast.reset()
    slow.reset()
    _same(_trace(fast, 150), _trace(slow, 150))


def test_fantastiqa_learner_view_seats_rewards_and_seeding():
    spec = get_game("fantastiqa")
    core = make_learner_core("fantastiqa", 4, opponents={"random": 1.0, "greedy": 1.0}, reward="score_diff",
                             win_bonus=2.0, seed=2)  # seed 2: two games end within the 600 steps (FantastiqaBatch's deals)
    core.reset()
    rng = np.random.default_rng(2)
    totals, seats, ended = np.zeros(4), set(), 0
    for _ in range(600):
        obs, masks = core.learner_obs(), core.masks()
        for i in range(4):
            s = core.batch.state(i)
            seat = int(core.seat[i])
            seats.add(seat)
            assert s.current_player == seat
            assert np.array_equal(obs[i], spec.observe(s, seat))
        r, d, fin = core.step(_random_actions(masks, rng))
        totals += r
        for f in fin:
            i = f["index"]
            # score_diff telescopes to the final potential (from the learner's view) plus win_bonus x return
            assert f["r"] == pytest.approx(totals[i], abs=1e-5)
            assert f["opponent"] in ("random", "greedy") and not f["cut"]
            totals[i] = 0.0
            ended += 1
    assert seats == {0, 1} and ended >= 2
    a, b = make_learner_core("fantastiqa", 3, opponents={"greedy": 1.0}, seed=9), \
        make_learner_core("fantastiqa", 3, opponents={"greedy": 1.0}, seed=9)
    a.reset()
    b.reset()
    _same(_trace(a, 80), _trace(b, 80))


def test_step_guard_cuts_pays_cut_reward_and_deals_again():
    core = make_learner_core("fantastiqa", 3, opponents={"random": 1.0}, reward="win_loss", max_steps=40,
                             cut_reward=-2.0, reward_scale=0.5, seed=0, goal="long")
    core.reset()
    rng = np.random.default_rng(0)
    cuts = 0
    for _ in range(60):
        r, d, fin = core.step(_random_actions(core.masks(), rng))
        assert (core.game_steps < 40).all()
        for f in fin:
            if f["cut"]:
                cuts += 1
                assert r[f["index"]] == -1.0 and f["win_share"] == 0.0
        assert np.array_equal(r[~d], np.zeros((~d).sum()))
    assert cuts >= 3
    assert (core.batch.current_player == core.seat).all()
    assert {core.batch.state(i).goal_name for i in range(3)} == {"long"}  # cut games are dealt with the same rules


def test_non_integer_and_illegal_actions_are_refused_and_change_nothing():
    core = make_learner_core("fantastiqa", 2, seed=0)
    core.reset()
    before = json.dumps(core.get_state()[0])
    for bad in (np.zeros(2), np.array([True, False]), np.zeros(3, dtype=np.int64), [0.5, 1]):
        with pytest.raises(ValueError, match="(each entry of )?actions must (have shape|be)"):
            core.step(bad)
    masks = core.masks()
    acts = _random_actions(masks, np.random.default_rng(0))
    acts[1] = int(np.flatnonzero(~masks[1])[0])
    with pytest.raises(ValueError, match="^game 1: "):
        core.step(acts)
    assert json.dumps(core.get_state()[0]) == before


def test_opponents_from_one_pool_any_registered_bot():
    """A user's bot registered with register_agent plays per game (through bot_action) or, with
    act_batch, once for all its games; unknown names are refused naming the known ones."""
    from tabletop_rl.agents.base import Agent
    from tabletop_rl.agents.registry import _FACTORIES, register_agent

    class LowestLegal(Agent):
        name = "lowest"
        needs_observation = False

        def act(self, observation, action_mask, *, state=None, seat=None):
            return int(np.flatnonzero(action_mask)[0])

    calls = []

    class LowestBatch(Agent):
        name = "lowest_batch"

        def act(self, observation, action_mask, *, state=None, seat=None):
            raise AssertionError("the batched form is used")

        def act_batch(self, batch, games, rng):
            calls.append(int(games.sum()))
            return np.argmax(batch.legal_mask(), axis=1)

    register_agent("fantastiqa", "lowest", LowestLegal)
    register_agent("*", "lowest_batch", LowestBatch)
    try:
        for name in ("lowest", "lowest_batch"):
            core = make_learner_core("fantastiqa", 3, opponents={name: 1.0}, seed=0)
            core.reset()
            seen = 0
            rng = np.random.default_rng(0)
            for _ in range(40):
                before = [core.batch.state(i) for i in range(3)]
                episodes = core.episodes.copy()
                acts = _random_actions(core.masks(), rng)
                core.step(acts)
                for i, s in enumerate(before):  # replay: the opponent always plays its lowest legal action
                    s.apply(int(acts[i]))
                    while not s.is_terminal() and s.current_player != core.seat[i]:
                        s.apply(int(s.legal_actions()[0]))
                    if core.episodes[i] == episodes[i]:
                        assert s.to_dict() == core.batch.state(i).to_dict()
                        seen += 1
            assert seen > 0
        assert calls and max(calls) <= 3
        with pytest.raises(ValueError, match="unknown opponent"):
            make_learner_core("fae", 2, opponents={"my_bot": 1.0})
        with pytest.raises(ValueError, match="weights"):
            make_learner_core("fae", 2, opponents={"random": -1.0})
        for bad in (dict(cut_reward=float("nan")), dict(reward_scale="1"), dict(max_steps=0), dict(max_steps=2.5),
                    dict(max_snapshots=True), dict(snapshot_prob=1.5)):
            with pytest.raises(ValueError, match=next(iter(bad))):
                make_learner_core("fae", 2, **bad)
    finally:
        _FACTORIES.pop(("fantastiqa", "lowest"), None)
        _FACTORIES.pop(("*", "lowest_batch"), None)


def test_opponent_epsilon_weakens_the_bots_but_random():
    """opponent_epsilon: each move of a fixed bot but random is a uniform legal move with that chance;
    random's games and a core at 0 are the games without it (same seeds); bad values are refused."""
    from tabletop_rl.agents.base import Agent
    from tabletop_rl.agents.registry import _FACTORIES, register_agent
    from tests.batch_helpers import assert_same_trace, learner_trace

    def trace(opponents, **kw):
        core = make_learner_core("fae", 6, opponents=opponents, seed=3, history="none", **kw)
        core.reset()
        return learner_trace(core, 40, seed=1)

    assert_same_trace(trace({"random": 1.0}), trace({"random": 1.0}, opponent_epsilon=0.7))
    assert_same_trace(trace({"greedy": 1.0}), trace({"greedy": 1.0}, opponent_epsilon=0.0))

    class LowestBatch(Agent):
        name = "lowest_batch"

        def act(self, observation, action_mask, *, state=None, seat=None):
            raise AssertionError("the batched form is used")

        def act_batch(self, batch, games, rng):
            return np.argmax(batch.legal_mask(), axis=1)

    register_agent("*", "lowest_batch", LowestBatch)
    try:
        off = {}
        for eps in (0.0, 0.5, 1.0):
            core = make_learner_core("fae", 200, opponents={"lowest_batch": 1.0}, opponent_epsilon=eps, seed=0,
                                     history="none")
            core.reset()
            mask = core.batch.legal_mask()
            moves = core._opponent_actions(np.ones(200, dtype=bool), core.batch.current_player)
            assert mask[np.arange(200), moves].all()
            off[eps] = float(np.mean(moves != np.argmax(mask, axis=1)))
        # Fae's opening has several legal moves: a uniform one is rarely the lowest
        assert off[0.0] == 0.0 and 0.25 < off[0.5] < off[1.0] and off[1.0] > 0.6, off
    finally:
        _FACTORIES.pop(("*", "lowest_batch"), None)
    for bad in (1.5, -0.1, float("nan"), True, "0.5"):
        with pytest.raises(ValueError, match="opponent_epsilon"):
            make_learner_core("fae", 2, opponent_epsilon=bad)


def test_user_reward_callable_is_added_and_checked():
    def bonus(batch, seats, dones):
        return np.where(dones, 10.0, 1.0)

    core = make_learner_core("fae", 4, reward="win_loss", reward_fn=bonus, reward_scale=0.5, seed=0,
                             history="none")
    core.reset()
    rng = np.random.default_rng(1)
    for _ in range(120):
        r, d, fin = core.step(_random_actions(core.masks(), rng))
        for i in range(4):
            want = 0.5 * (10.0 + {1.0: 1.0, 0.5: 0.0, 0.0: -1.0}[fin[[f["index"] for f in fin].index(i)]["win_share"]]) \
                if d[i] else 0.5
            assert r[i] == pytest.approx(want)
    bad = make_learner_core("fae", 2, reward="win_loss", reward_fn=lambda b, s, d: np.zeros(3), history="none")
    bad.reset()
    with pytest.raises(ValueError, match="reward_fn must return 2"):
        bad.step(_random_actions(bad.masks(), rng))
    with pytest.raises(ValueError, match="reward must be one of"):
        make_learner_core("fantastiqa", 2, reward="seat_diff")  # Fae's potential, not Fantastiqa's


def test_checkpoint_round_trip_with_per_game_bots_and_snapshots():
    from tabletop_rl.agents.ppo_agent import PolicyWeights

    def build():
        return make_learner_core("fantastiqa", 3, opponents={"random": 1.0, "greedy": 1.0}, snapshot_prob=0.5,
                                 max_steps=400, seed=4, batched=False)  # scalar games: greedy is a per-game bot

    core = build()
    rng = np.random.default_rng(0)
    w = PolicyWeights([(rng.normal(size=(core.obs_size, 8)).astype(np.float32), np.zeros(8, np.float32)),
                       (rng.normal(size=(8, core.num_actions)).astype(np.float32),
                        np.zeros(core.num_actions, np.float32))], "relu")
    core.add_snapshot(w)
    core.reset()
    _trace(core, 30)
    meta, arrays = core.get_state()
    meta = json.loads(json.dumps(meta))
    twin = build()
    twin.set_state(meta, arrays)
    _same(_trace(core, 60, seed=5), _trace(twin, 60, seed=5))
    before = json.dumps(twin.get_state()[0])
    for broken in (dict(meta, seat=[7, 0, 0]), {k: v for k, v in meta.items() if k != "bot_rngs"},
                   dict(meta, bot_rngs={}), dict(meta, rng={"bit_generator": "MT19937"}),
                   dict(meta, snapshot_ids=5), dict(meta, snapshot_ids=["0"]), dict(meta, snapshot_ids=[0, 0]),
                   dict(meta, next_snapshot_id="9"), dict(meta, snapshot_ids=[3], next_snapshot_id=2)):
        with pytest.raises(ValueError):
            twin.set_state(broken, arrays)
    assert json.dumps(twin.get_state()[0]) == before


def test_win_share_from_returns():
    assert win_share(np.array([1.0, -1.0]), 0) == 1.0 and win_share(np.array([1.0, -1.0]), 1) == 0.0
    assert win_share(np.array([0.5, 0.5, -1.0]), 1) == 0.5
    assert win_share(np.zeros(3), 2) == pytest.approx(1 / 3)  # every seat won


def test_make_batch_picks_the_batched_engine_and_refuses_unknown_options():
    from tabletop_rl.envs.fae_batch import FaeBatch

    assert isinstance(make_batch("fae", 2), FaeBatch)
    assert isinstance(make_batch("fae", 2, batched=False), ScalarBatch)
    assert isinstance(make_batch("fantastiqa", 2, batched=False), ScalarBatch)  # FantastiqaBatch: tests/test_fantastiqa_batch.py
    with pytest.raises(ValueError, match="unknown option"):
        make_batch("fantastiqa", 2, history="none")


# ---------------------------------------------------------------------------- faces
def test_sb3_face_trains_fantastiqa_briefly_with_maskable_ppo():
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    from sb3_contrib import MaskablePPO

    from tabletop_rl.training.learner_envs import LearnerVecEnv

    venv = LearnerVecEnv(make_learner_core("fantastiqa", 4, opponents={"random": 1.0}, max_steps=300, seed=0))
    assert venv.observation_space.shape == (venv.core.obs_size,)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs=dict(net_arch=[16]))
    model.learn(128)
    assert model.num_timesteps == 128
    assert np.stack(venv.env_method("action_masks")).shape == (4, venv.core.num_actions)


@pytest.mark.parametrize("gym_id", ["fae_rl:fae_rl/Fae-v0", "fantastiqa_rl:fantastiqa_rl/Fantastiqa-v0"])
def test_gymnasium_make_vec_builds_the_learner_vector_env(gym_id):
    import gymnasium

    from tabletop_rl.training.learner_envs import LearnerVectorEnv

    envs = gymnasium.make_vec(gym_id, num_envs=3, vectorization_mode="vector_entry_point",
                              opponents={"random": 1.0}, max_steps=200, cut_reward=-1.0)
    assert isinstance(envs, LearnerVectorEnv)
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    rng, ends = np.random.default_rng(0), 0
    for _ in range(120):
        obs, rew, term, trunc, infos = envs.step(_random_actions(infos["action_mask"], rng))
        assert not (term & trunc).any()
        if (term | trunc).any():
            assert np.array_equal(infos["_final_obs"], term | trunc)
            ends += int((term | trunc).sum())
    assert ends >= 1


def test_single_agent_face_plays_whole_games():
    from tabletop_rl.training.learner_envs import LearnerEnv

    env = LearnerEnv(make_learner_core("fae", 1, opponents={"greedy": 1.0}, history="none"))
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=1)
    games = 0
    while games < 2:
        a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, r, term, trunc, info = env.step(a)
        assert env.observation_space.contains(obs)
        if term or trunc:
            assert info["win_share"] in (0.0, 0.5, 1.0)
            games += 1
            obs, info = env.reset()
    with pytest.raises(ValueError, match="must be an int"):
        env.step(0.5)
    with pytest.raises(ValueError, match="one game"):
        LearnerEnv(make_learner_core("fae", 2))


def test_fae_learner_core_plays_the_games_the_previous_env_played():
    """The digest of 60 steps of two configurations (observations, masks, rewards, dones, finished
    games), recorded from the FaeLearnerCore that predates the learner core (commit dffebbe): the
    face over the core plays the very same games, draw for draw."""
    import hashlib

    from tabletop_rl.training.fae_vector_env import FaeLearnerCore

    h = hashlib.sha256()
    for kw in (dict(num_players=2, reward="seat_diff", opponents={"random": 1.0, "greedy": 2.0},
                    action_features="versus", history="none", win_bonus=1.0),
               dict(num_players=3, reward="score_diff", opponents={"greedy": 1.0}, action_features="margin",
                    reward_scale=0.1)):
        core = FaeLearnerCore(8, seed=21, **kw)
        core.reset()
        rng = np.random.default_rng(4)
        for _ in range(60):
            o = core.learner_obs(np.zeros((8, core.obs_size), np.float32))
            m = core.masks()
            r, d, fin = core.step(_random_actions(m, rng))
            for a in (o, m, r, d):
                h.update(np.ascontiguousarray(a).tobytes())
            h.update(repr([(f["index"], round(f["r"], 5), f["l"], f["win_share"], f["opponent"]) for f in fin]).encode())
            for f in fin:
                h.update(f["terminal_observation"].tobytes())
    assert h.hexdigest() == "aa29a1cd58af0f7eb87e9183680e866eae0193fb15be8aec1b0143d2e4e024a2"


@pytest.mark.parametrize("game,players", [("fae", 3), ("fae", 4), ("fantastiqa", 3), ("fantastiqa", 4)])
def test_three_and_four_players_go_through_the_same_core(game, players):
    opts = {"history": "none"} if game == "fae" else {}
    core = make_learner_core(game, 2 * players, players, opponents={"random": 1.0, "greedy": 1.0}, seed=0,
                             max_steps=3000, **opts)
    core.reset()
    assert sorted(core.seat.tolist()) == sorted(list(range(players)) * 2)  # game i starts at seat i mod N
    rng = np.random.default_rng(0)
    for _ in range(30):
        assert (core.batch.current_player == core.seat).all()
        core.step(_random_actions(core.masks(), rng))
