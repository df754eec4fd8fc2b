"""SB3's own evaluation loop, `model.predict(obs, action_masks=...)` then `env.step(action)`, on every
face of both games (issue 36, item 5): `predict` returns a 0-d int64 array, which `Discrete.contains`
accepts; the envs refused it ("action must be an int"). Now every face takes an integer-dtype array
of shape () as its integer, and still refuses bool, float, object and string arrays."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
from sb3_contrib import MaskablePPO  # noqa: E402

from fae_rl import FaeState  # noqa: E402
from fantastiqa_rl.state import FantastiqaState  # noqa: E402
from tabletop_rl.training.learner import make_learner_core  # noqa: E402
from tabletop_rl.training.learner_envs import LearnerEnv  # noqa: E402
from tabletop_rl.envs.registry import get_game  # noqa: E402
from tabletop_rl.training.selfplay import SelfPlayEnv  # noqa: E402

GAMES = ["fae", "fantastiqa"]
# 0-d arrays that are not integers, and their controls: refused on every face as before
NOT_INT_ARRAYS = [np.array(True), np.array(1.0), np.array(1, dtype=object), np.array("1"), np.array([1])]


class _Spaces(gymnasium.Env):
    """Only the spaces, for an untrained MaskablePPO to predict from (it is never stepped)."""

    def __init__(self, observation_space, action_space):
        self.observation_space, self.action_space = observation_space, action_space

    def action_masks(self):  # MaskablePPO checks for the hook at construction
        return np.ones(self.action_space.n, dtype=bool)


def _model(observation_space, n: int) -> MaskablePPO:
    return MaskablePPO("MlpPolicy", _Spaces(observation_space, gymnasium.spaces.Discrete(n)), n_steps=16,
                       batch_size=16, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu")


def _predict(model, obs, mask):
    action, _ = model.predict(obs, action_masks=np.asarray(mask, dtype=bool), deterministic=True)
    assert isinstance(action, np.ndarray) and action.shape == () and action.dtype == np.int64  # what SB3 gives
    assert bool(np.asarray(mask)[int(action)])  # a legal move: the env must play it
    return action


@pytest.mark.parametrize("game", GAMES)
def test_selfplay_env_plays_predicts_action(game):
    env = SelfPlayEnv(game, opponent="random")
    twin = SelfPlayEnv(game, opponent="random")
    model = _model(env.observation_space, env.action_space.n)
    obs, info = env.reset(seed=0)
    twin.reset(seed=0)
    for _ in range(6):
        action = _predict(model, obs, env.action_masks())
        obs, _, term, trunc, info = env.step(action)
        twin.step(int(action))  # the control: the same move as a plain int
        assert env.get_snapshot() == twin.get_snapshot()
        if term or trunc:
            break
        assert not info.get("illegal_action")


@pytest.mark.parametrize("game", GAMES)
def test_learner_env_plays_predicts_action(game):
    env = LearnerEnv(make_learner_core(game, 1, opponents={"random": 1.0}))
    model = _model(env.observation_space, env.action_space.n)
    obs, info = env.reset(seed=1)
    seat_before = info["seat"]
    action = _predict(model, obs, info["action_mask"])
    obs, _, _, _, info = env.step(action)
    assert info["seat"] == seat_before and env.observation_space.contains(obs)


@pytest.mark.parametrize("protected", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("game", GAMES)
def test_aec_envs_play_predicts_action(game, protected):
    spec = get_game(game)
    make = spec.env if protected else spec.raw_env
    env, twin = make(num_players=2), make(num_players=2)
    env.reset(seed=2)
    twin.reset(seed=2)
    agent = env.agent_selection
    model = _model(env.observation_space(agent)["observation"], env.action_space(agent).n)
    for _ in range(6):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        action = _predict(model, obs["observation"], obs["action_mask"])
        env.step(action)
        twin.step(int(action))
        assert env.unwrapped.game.to_dict() == twin.unwrapped.game.to_dict()
        assert not any("illegal_move_by" in i for i in env.infos.values())


@pytest.mark.parametrize("game", GAMES)
def test_cores_take_a_0d_integer_array_as_its_integer(game):
    for dtype in (np.int64, np.int32, np.uint16):
        s = FaeState.new(2, seed=0) if game == "fae" else FantastiqaState.new(2, seed=0)
        t = s.clone()
        a = int(s.legal_actions()[0])
        s.apply(np.array(a, dtype=dtype))
        t.apply(a)
        assert s.to_dict() == t.to_dict()


@pytest.mark.parametrize("action", NOT_INT_ARRAYS, ids=repr)
@pytest.mark.parametrize("game", GAMES)
def test_every_face_still_refuses_arrays_that_are_not_integers(game, action):
    """The control of the tests above: the check still fails on these (nothing changes)."""
    s = FaeState.new(2, seed=0) if game == "fae" else FantastiqaState.new(2, seed=0)
    before = s.to_dict()
    with pytest.raises(ValueError, match="action must be an int"):
        s.apply(action)
    assert s.to_dict() == before
    for make in (get_game(game).env, get_game(game).raw_env):
        env = make(num_players=2)
        env.reset(seed=0)
        before = env.unwrapped.game.to_dict()
        with pytest.raises(ValueError, match="action must be an int|outside the action space"):
            env.step(action)
        assert env.unwrapped.game.to_dict() == before and not env.unwrapped._illegal_ended
    env = SelfPlayEnv(game, opponent="random")
    env.reset(seed=0)
    snap = env.get_snapshot()
    with pytest.raises(ValueError, match="action must be an int"):
        env.step(action)
    assert env.get_snapshot() == snap


@pytest.mark.parametrize("game", GAMES)
def test_sb3_contribs_own_evaluation_loop_runs_on_the_selfplay_env(game):
    """sb3-contrib's evaluate_policy (its VecEnv face: predict on a batch of one, then step)."""
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from stable_baselines3.common.monitor import Monitor

    env = Monitor(SelfPlayEnv(game, opponent="random", seat=0))
    env.reset(seed=0)
    model = _model(env.observation_space, env.action_space.n)
    rewards, lengths = evaluate_policy(model, env, n_eval_episodes=1, return_episode_rewards=True, warn=False)
    assert len(rewards) == 1 and lengths[0] > 0
