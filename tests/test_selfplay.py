"""The single-agent self-play env (tabletop_rl.training.selfplay, the learner core's face for one game):
API checks, reward attribution, seats, the pool, snapshots."""
from __future__ import annotations

import dataclasses
import warnings

import gymnasium
import numpy as np
import pytest

import fae_rl  # noqa: F401  (registers fae_rl/Fae-v0)
from tabletop_rl.agents.base import Agent
from tabletop_rl.training.selfplay import OpponentPool, SelfPlayEnv



class Recorder(Agent):
    """Random legal moves; appends (seat, action, id of the game) to a shared log (the move order;
    the env deals the next game, where this bot may move first, as soon as one ends)."""

    name = "recorder"
    uses_state = True

    def __init__(self, log, seed=0):
        super().__init__(seed)
        self.log = log

    def act(self, observation, action_mask, *, state=None, seat=None):
        legal = np.flatnonzero(action_mask)
        a = int(legal[self.rng.integers(legal.size)])
        self.log.append((seat, a, id(state)))
        return a


def test_passes_gymnasium_and_sb3_env_checkers():
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no checker warning either
        check_env(gymnasium.make("fae_rl/Fae-v0", opponent="random", reward="score_diff").unwrapped)
    sb3_check_env(SelfPlayEnv("fae", opponent=["random", "greedy"], render_mode="rgb_array"), warn=True)


def test_gymnasium_make_with_greedy_opponent():
    env = gymnasium.make("fae_rl/Fae-v0", opponent="greedy", num_players=2)
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    steps, done = 0, False
    while not done:
        mask = env.unwrapped.action_masks()
        assert mask.dtype == bool and mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))
        obs, reward, done, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        assert not truncated
        steps += 1
    assert 10 < steps < 60 and reward in (-1.0, 0.0, 1.0) and "winners" in info
    assert info["won"] == (reward > 0)


@pytest.mark.parametrize("reward", ["win_loss", "score_diff"])
@pytest.mark.parametrize("num_players", [2, 3])
def test_learner_gets_exactly_what_the_aec_env_pays_its_seat(reward, num_players):
    """Replay each self-play episode in the AEC env: the learner's rewards must sum to what the AEC
    env pays that seat, in every seat, including games that end on an opponent's move."""
    log: list = []
    env = SelfPlayEnv("fae", num_players=num_players, opponent=Recorder(log), reward=reward)
    deals = []

    def new_state(**kwargs):  # keep a copy of each deal, to replay the game in the AEC env
        state = fae_rl.FaeState.new(**kwargs)
        deals.append(state.clone())
        return state

    env.core.spec = env.core.batch.spec = dataclasses.replace(env.spec_game, new_state=new_state)
    rng = np.random.default_rng(0)
    ended_by_opponent = 0
    seats = set()
    terminal_nonzero = 0
    for episode in range(24):
        log.clear()
        obs, info = env.reset(seed=episode)
        deal, game = deals[-1], id(env.state)
        seat = info["seat"]
        seats.add(seat)
        rewards, done = [], False
        while not done:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            log.append((seat, a, game))
            obs, r, done, _, info = env.step(a)
            rewards.append(r)
        log[:] = [(who, a) for who, a, g in log if g == game]  # this game's moves only
        ended_by_opponent += log[-1][0] != seat
        terminal_nonzero += rewards[-1] != 0
        # Replay the same game in the AEC env, dealt from the same state.
        aec = fae_rl.raw_env(num_players=num_players, reward=reward)
        aec.reset()
        aec.game = deal
        paid = 0.0
        for who, a in log:
            assert aec.agent_selection == f"player_{who}"
            aec.step(a)
            paid += aec.rewards[f"player_{seat}"]
        assert aec.game.is_terminal()
        assert sum(rewards) == pytest.approx(paid, abs=1e-9)
        if reward == "win_loss":
            assert rewards[-1] == aec.game.returns()[seat] and not any(rewards[:-1])
        else:
            assert sum(rewards) == pytest.approx(_fae_margin(aec.game, seat))
    assert seats == set(range(num_players))
    assert ended_by_opponent > 0 and terminal_nonzero > 0  # both endings were exercised


def _fae_margin(state, seat):
    scores, own = list(state.scores()), state.colours[seat]
    return scores[own] + state.ritual_cards()[seat] - max(s for c, s in enumerate(scores) if c != own)


def test_seat_is_random_each_episode_and_reset_seed_fixes_the_episode():
    env = SelfPlayEnv("fae", num_players=2, opponent="random")
    seats = [env.reset(seed=s)[1]["seat"] for s in range(400)]
    counts = np.bincount(seats, minlength=2)
    assert 150 < counts[0] < 250  # ~binomial(400, 1/2): 5 sigma is +-50
    obs_a, info_a = env.reset(seed=7)
    obs_b, info_b = SelfPlayEnv("fae", num_players=2, opponent="random").reset(seed=7)
    assert info_a["seat"] == info_b["seat"] and np.array_equal(obs_a, obs_b)
    fixed = SelfPlayEnv("fae", num_players=3, opponent="random", seat=2)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(20)} == {2}


def test_opponent_before_first_move_when_learner_is_second():
    env = SelfPlayEnv("fae", num_players=2, opponent="random", seat=1)
    env.reset(seed=0)
    assert env.state.current_player == 1
    assert sum(env.state.to_dict()["history"][0]["moved"]) > 0  # seat 0 has moved


def test_illegal_action_ends_the_episode_with_minus_one():
    env = SelfPlayEnv("fae", opponent="random", reward_scale=0.5)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, r, done, _, info = env.step(illegal)
    assert done and r == -0.5 and info["illegal_action"] == illegal
    with pytest.raises(RuntimeError):
        env.step(0)


def test_snapshot_opponents_and_checkpoint_round_trip():
    """A snapshot added to the shared pool plays the other seat; an env restored from a JSON
    snapshot over the same pool plays on identically."""
    import json

    from tabletop_rl.agents.ppo_agent import PolicyWeights

    rng = np.random.default_rng(0)
    pool = OpponentPool(fixed={"random": 1.0}, snapshot_prob=1.0)
    env = SelfPlayEnv("fae", opponent=pool)
    n_obs, n_act = env.observation_space.shape[0], env.action_space.n
    weights = PolicyWeights([(rng.normal(size=(n_obs, 8)), np.zeros(8)), (rng.normal(size=(8, n_act)), np.zeros(n_act))])
    env.pool.add_snapshot(weights)
    env.reset(seed=1)
    assert env.core.opponent_name(int(env.core.opp[0])) == "snapshot"
    for _ in range(5):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    snap = json.loads(json.dumps(env.get_snapshot()))
    twin = SelfPlayEnv("fae", opponent=OpponentPool(fixed={"random": 1.0}, snapshot_prob=1.0))
    twin.set_opponent_pool(env.pool)
    twin.set_snapshot(snap)
    for _ in range(200):  # the rest of this episode and the next ones are identical
        a = int(np.flatnonzero(env.action_masks())[-1])
        out_a, out_b = env.step(a), twin.step(a)
        assert np.array_equal(out_a[0], out_b[0]) and out_a[1:3] == out_b[1:3]
        if out_a[2]:
            assert np.array_equal(env.reset()[0], twin.reset()[0])
    with pytest.raises(ValueError, match="fixed bots"):
        twin.set_opponent_pool(OpponentPool(fixed={"greedy": 1.0}))


def test_agent_instance_opponents_play_one_game_only():
    from tabletop_rl.training.learner import make_learner_core

    with pytest.raises(ValueError, match="Agent instance"):
        make_learner_core("fae", 2, opponents=OpponentPool(fixed={"me": 1.0}, agents={"me": Recorder([])}))


def test_render_modes():
    env = SelfPlayEnv("fae", opponent="random", render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
    text = SelfPlayEnv("fae", opponent="random", render_mode="ansi")
    text.reset(seed=0)
    assert isinstance(text.render(), str)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="reward"):
        SelfPlayEnv("fae", reward="points")
    with pytest.raises(ValueError, match="num_players"):
        SelfPlayEnv("fae", num_players=5)
    with pytest.raises(ValueError, match="unknown option"):
        SelfPlayEnv("fae", colours=3)
    with pytest.raises(ValueError, match="unknown opponent"):
        SelfPlayEnv("fae", opponent="nobody")
    with pytest.raises(ValueError, match="seats must be"):
        SelfPlayEnv("fae", seat=2)


def test_step_guard_truncates_an_episode_that_never_ends():
    # A learner that never ends its turn: the guard truncates (truncated=True, terminated=False).
    import gymnasium

    env = gymnasium.make("fantastiqa_rl/Fantastiqa-v0", opponent="random", max_steps=60).unwrapped
    obs, info = env.reset(seed=0)
    steps, truncated, terminated = 0, False, False
    while not (truncated or terminated):
        legal = np.flatnonzero(info["action_mask"])
        obs, r, terminated, truncated, info = env.step(int(legal[0]))
        steps += 1
    assert truncated and not terminated and steps <= 60 and "winners" not in info


@pytest.mark.parametrize("cut_reward", [0.0, -1.0])
def test_a_cut_episode_pays_cut_reward(cut_reward):
    """The guard's cut pays `cut_reward` (scaled like every reward), so that with -1 stalling never
    pays better than losing; 0 (the default) is plain truncation."""
    env = SelfPlayEnv("fantastiqa", opponent="random", max_steps=60, cut_reward=cut_reward, reward_scale=0.5)
    obs, info = env.reset(seed=0)
    truncated = terminated = False
    while not (truncated or terminated):
        obs, r, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert truncated and not terminated and r == 0.5 * cut_reward


@pytest.mark.parametrize("game,opponent,max_steps", [("fae", "random", None), ("fantastiqa", "random", 40)])
def test_snapshot_is_json_and_resumes_exactly_with_the_step_count(game, opponent, max_steps):
    """get_snapshot() is plain JSON (no pickle); a restored env continues bit for bit, including
    where the step guard truncates the episode (the snapshot keeps `_steps`)."""
    import json

    env = SelfPlayEnv(game, opponent=opponent, max_steps=max_steps)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(3):
        env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    snap = env.get_snapshot()
    text = json.dumps(snap)  # JSON-safe: no bytes, no objects
    assert snap["core"]["game_steps"][0] > 0
    twin = SelfPlayEnv(game, opponent=opponent, max_steps=max_steps)
    twin.set_snapshot(json.loads(text))
    assert twin.get_snapshot() == snap
    ends = []
    for _ in range(400):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        out_a, out_b = env.step(a), twin.step(a)
        assert np.array_equal(out_a[0], out_b[0]) and out_a[1:4] == out_b[1:4]
        if out_a[2] or out_a[3]:
            ends.append(out_a[3])
            assert np.array_equal(env.reset()[0], twin.reset()[0])
    assert ends, "at least one episode ended"
    if max_steps is not None:
        assert any(ends), "the step guard truncated an episode, at the same step in both envs"


def test_set_snapshot_rejects_malformed_snapshots_and_keeps_the_env():
    env = SelfPlayEnv("fae", opponent="random")
    env.reset(seed=1)
    snap = env.get_snapshot()
    core = snap["core"]
    cases = {"seat": {**snap, "core": {**core, "seat": [5]}}, "steps": {**snap, "core": {**core, "game_steps": [-1]}},
             "done": {**snap, "done": "no"}, "rng": {**snap, "core": {**core, "rng": {"bit_generator": "os.system"}}},
             "pool": {**snap, "core": {**core, "snapshots": []}},
             "state": {**snap, "state": {**snap["state"], "num_players": 9}},
             "keys": {k: v for k, v in snap.items() if k != "done"}}
    for key, bad in cases.items():
        with pytest.raises(ValueError, match="set_snapshot"):
            env.set_snapshot(bad)
        assert env.get_snapshot() == snap, key
    with pytest.raises(RuntimeError, match="before reset"):
        SelfPlayEnv("fae").get_snapshot()


def test_pool_state_round_trips_and_a_bad_one_changes_nothing():
    """The one pool's JSON state (train.py's scalar-path checkpoints): a pool of other bots or of
    snapshots over another observation is refused, naming the problem, and the pool is unchanged."""
    import json

    from tabletop_rl.agents.ppo_agent import PolicyWeights

    env = SelfPlayEnv("fae", opponent=OpponentPool(fixed={"random": 1.0, "greedy": 1.0}, snapshot_prob=0.5))
    n_obs, n_act = env.observation_space.shape[0], env.action_space.n
    rng = np.random.default_rng(0)
    env.pool.add_snapshot(PolicyWeights([(rng.normal(size=(n_obs, 4)), np.zeros(4)), (rng.normal(size=(4, n_act)),
                                                                                      np.zeros(n_act))]))
    state = json.loads(json.dumps(env.pool.state_dict()))
    pool = OpponentPool(fixed={"random": 1.0, "greedy": 1.0}, snapshot_prob=0.5)
    pool.load_state_dict(state, n_obs, n_act)
    assert list(pool.snapshots) == [0] and pool.next_id == 1
    with pytest.raises(ValueError, match="fixed bots"):
        OpponentPool(fixed={"random": 1.0}).load_state_dict(state)
    small = OpponentPool(fixed={"random": 1.0, "greedy": 1.0}, snapshot_prob=0.5)
    with pytest.raises(ValueError, match=f"map {n_obs + 1} inputs"):
        small.load_state_dict(state, n_obs + 1, n_act)
    assert small.snapshots == {} and small.next_id == 0
    for bad in (dict(state, next_id=-1), dict(state, snapshot_prob=2.0), dict(state, max_snapshots=True)):
        with pytest.raises(ValueError):
            OpponentPool.from_state_dict(bad)
