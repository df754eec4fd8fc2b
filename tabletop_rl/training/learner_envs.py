"""The faces of the learner core (`tabletop_rl.training.learner.LearnerCore`): each a thin adapter.

    from tabletop_rl.training.learner import make_learner_core
    from tabletop_rl.training.learner_envs import LearnerVecEnv, LearnerVectorEnv, LearnerEnv
    venv = LearnerVecEnv(make_learner_core("fantastiqa", 64, opponents={"greedy": 1}))   # SB3 VecEnv + action_masks()
    envs = LearnerVectorEnv(make_learner_core("fae", 256))                              # Gymnasium VectorEnv
    env = LearnerEnv(make_learner_core("fae", 1))                                         # Gymnasium Env (N = 1)

- `LearnerVecEnv`: a Stable-Baselines3 `VecEnv` (MaskablePPO trains on it directly: `action_masks()`,
  and `env_method("action_masks")` one row per env). A finished game's `infos[i]` holds
  `terminal_observation`, `TimeLimit.truncated` (True where the step guard cut it), `episode`
  ({"r", "l"} as SB3's Monitor), `win_share`, `opponent`.
- `LearnerVectorEnv`: a Gymnasium `VectorEnv`, same-step autoreset (`infos["final_obs"]`,
  `infos["final_info"]`); the learner's masks in `infos["action_mask"]` and `action_masks()`; a cut
  game comes back `truncated`, a finished one `terminated`. `gymnasium.make_vec(gym_id, num_envs=...,
  vectorization_mode="vector_entry_point")` builds it for both games (`make_learner_vector_env`); as
  Gymnasium does for any id with a vector entry point, `make_vec` without a mode builds it too,
  while `vectorization_mode="sync"` or `"async"` still wraps N single `SelfPlayEnv`s.
- `LearnerEnv`: a single-agent Gymnasium `Env` over a core of one game; after a game ends the next
  `step` needs a `reset()` as usual (the core has dealt the next game already: `reset` hands it
  over without a new deal unless a seed is given), and until then `action_masks()` and
  `info["action_mask"]` are all False. `info["seat"]` is the learner's seat; a finished game's
  info adds `winners` (int8 per seat) and `won`, as the AEC envs name them.
  `tabletop_rl.training.selfplay.SelfPlayEnv` is this env built from a game name (`gymnasium.make`).
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from tabletop_rl.envs.game_state import integers
from tabletop_rl.training.learner import LearnerCore, make_learner_core, winners


def observation_box(core: LearnerCore) -> spaces.Box:
    """The learner's observation space: the batch's bounds (`obs_low`/`obs_high` or `observation_space()`)."""
    b = core.batch
    if hasattr(b, "obs_low"):
        return spaces.Box(b.obs_low, b.obs_high, shape=(core.obs_size,), dtype=np.float32)
    if hasattr(b, "observation_space"):
        return b.observation_space()
    return spaces.Box(-np.inf, np.inf, shape=(core.obs_size,), dtype=np.float32)


def _final_info(f: dict) -> dict:
    return {"episode": {"r": f["r"], "l": f["l"]}, "win_share": f["win_share"], "opponent": f["opponent"]}


# ---------------------------------------------------------------------------- Gymnasium
class LearnerVectorEnv(VectorEnv):
    """Gymnasium `VectorEnv` over a `LearnerCore` (module docstring): same-step autoreset."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, core: LearnerCore):
        self.core = core
        self.num_envs = core.num_envs
        self.single_observation_space = observation_box(core)
        self.single_action_space = spaces.Discrete(core.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._buf = np.zeros((core.num_envs, core.obs_size), dtype=np.float32)
        self._all = np.ones(self.num_envs, dtype=np.bool_)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.core.reset(seed)
        return self.core.learner_obs(self._buf).copy(), self._infos()

    def _infos(self) -> dict:
        return {"action_mask": self.core.masks(), "_action_mask": self._all.copy()}

    def step(self, actions):
        rewards, dones, finished = self.core.step(actions)
        obs = self.core.learner_obs(self._buf).copy()
        infos = self._infos()
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        if finished:
            final_obs = np.full(self.num_envs, None, dtype=object)
            final_info = np.full(self.num_envs, None, dtype=object)
            for f in finished:
                final_obs[f["index"]] = f["terminal_observation"]
                final_info[f["index"]] = _final_info(f)
                truncated[f["index"]] = f["cut"]
            infos.update(final_obs=final_obs, _final_obs=dones.copy(), final_info=final_info, _final_info=dones.copy())
        return obs, rewards, dones & ~truncated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """bool (N, num_actions): the learner's legal actions in every game."""
        return self.core.masks()


def make_learner_vector_env(num_envs: int = 1, game: str = "fae", **kwargs) -> LearnerVectorEnv:
    """Gymnasium's `vector_entry_point` of every registered game's id: `gymnasium.make_vec(id,
    num_envs, vectorization_mode="vector_entry_point", **kwargs)` calls it with the id's `game` and
    the keyword arguments of `make_learner_core` (num_players, opponents, reward, options, ...)."""
    kwargs.pop("render_mode", None)
    return LearnerVectorEnv(make_learner_core(game, num_envs, **kwargs))


class LearnerEnv(gymnasium.Env):
    """Single-agent Gymnasium env over a `LearnerCore` of one game (module docstring)."""

    def __init__(self, core: LearnerCore):
        if core.num_envs != 1:
            raise ValueError(f"LearnerEnv plays one game; the core has {core.num_envs}")
        self.core = core
        self.observation_space = observation_box(core)
        self.action_space = spaces.Discrete(core.num_actions)
        self._started = False  # False: the next reset deals (the core's game is not a fresh one)
        self._done = True  # no episode in progress: step() needs a reset() first

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = None if seed is None else integers(seed, "seed")
        super().reset(seed=seed)
        if seed is not None or not self._started:
            self.core.reset(seed)
            self._started = True
        self._done = False
        return self.core.learner_obs()[0].copy(), self._info()

    def _info(self) -> dict:
        self._mask = self.action_masks()  # what the learner is shown: the legal moves of its next step
        return {"action_mask": self._mask, "seat": int(self.core.seat[0])}

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset()")
        actions = np.asarray([integers(action)])
        seat = int(self.core.seat[0])
        rewards, dones, finished = self.core.step(actions)
        obs = self.core.learner_obs()[0].copy()
        cut = False
        if finished:
            f = finished[0]
            obs, cut, self._done = f["terminal_observation"], f["cut"], True
        info = {**self._info(), "seat": seat}
        if finished:
            info.update(_final_info(f))
            if not cut:  # as the AEC envs: int8 per seat, 1 for each winner
                info["winners"] = winners(f["returns"]).astype(np.int8)
                info["won"] = bool(info["winners"][seat])
        return obs, float(rewards[0]), bool(dones[0]) and not cut, cut, info

    def action_masks(self) -> np.ndarray:
        """bool (num_actions,): the learner's legal actions; all False once the episode is over
        (a vector env's next-step autoreset then ignores the action it is given)."""
        if self._done:
            return np.zeros(self.core.num_actions, dtype=np.bool_)
        return self.core.masks()[0]


# ---------------------------------------------------------------------------- Stable-Baselines3
def _sb3_vecenv():
    from stable_baselines3.common.vec_env import VecEnv

    class LearnerVecEnv(VecEnv):
        """SB3 VecEnv over a `LearnerCore` (module docstring); `action_masks()` for MaskablePPO."""

        def __init__(self, core: LearnerCore):
            self.core = core
            super().__init__(core.num_envs, observation_box(core), spaces.Discrete(core.num_actions))
            self._actions = None
            self._buf = np.zeros((core.num_envs, core.obs_size), dtype=np.float32)
            self._seed = None

        def seed(self, seed: int | None = None):
            self._seed = seed
            return [seed] * self.num_envs

        def reset(self):
            self.core.reset(self._seed)
            self._seed = None
            return self.core.learner_obs(self._buf).copy()

        def step_async(self, actions):
            self._actions = integers(actions, "actions", (self.num_envs,))  # checked when given, as SB3 expects

        def step_wait(self):
            rewards, dones, finished = self.core.step(self._actions)
            obs = self.core.learner_obs(self._buf).copy()
            infos = [{} for _ in range(self.num_envs)]
            for f in finished:
                infos[f["index"]] = {"terminal_observation": f["terminal_observation"],
                                     "TimeLimit.truncated": f["cut"], **_final_info(f)}
            return obs, rewards, dones, infos

        def action_masks(self) -> np.ndarray:
            return self.core.masks()

        def close(self):
            pass

        def get_attr(self, attr_name, indices=None):
            value = getattr(self, attr_name)
            return [value] * len(self._get_indices(indices))

        def set_attr(self, attr_name, value, indices=None):
            setattr(self, attr_name, value)

        def env_method(self, method_name, *args, indices=None, **kwargs):
            if method_name == "action_masks":  # sb3-contrib's get_action_masks: one row per env
                masks = self.core.masks()
                return [masks[i] for i in self._get_indices(indices)]
            out = getattr(self, method_name)(*args, **kwargs)
            return [out] * len(self._get_indices(indices))

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False] * len(self._get_indices(indices))

    return LearnerVecEnv


def lazy_attribute(namespace: dict, name: str, build):
    """A module `__getattr__` that builds `name` with `build()` on first use and keeps it in
    `namespace` (the module's globals): the SB3 classes, so Stable-Baselines3 is imported only then."""
    def __getattr__(attr: str):
        if attr != name:
            raise AttributeError(attr)
        namespace[name] = value = build()
        return value

    return __getattr__


__getattr__ = lazy_attribute(globals(), "LearnerVecEnv", _sb3_vecenv)


__all__ = ["LearnerEnv", "LearnerVecEnv", "LearnerVectorEnv", "make_learner_vector_env", "observation_box"]
