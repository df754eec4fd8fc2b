"""Any registered game as an RLlib multi-agent env (`ray.rllib.env.MultiAgentEnv`): the learner
core's face for RLlib, used by `tabletop_rl.training.rllib` and by users who bring their own RLlib config.

    from tabletop_rl.training.rllib_env import RLlibGameEnv, module_for_agent
    config = (PPOConfig()
              .environment(RLlibGameEnv, env_config={"game": "fae", "num_players": 2, "opponents": {"greedy": 1}})
              .multi_agent(policies={"main"}, policy_mapping_fn=module_for_agent))

What it is: `tabletop_rl.training.selfplay.SelfPlayEnv` (the learner core over one game) with RLlib's
multi-agent dict API and what RLlib's action-masking RLModule (`ActionMaskingTorchRLModule`)
needs: each observation is `{"observations": float32 vector, "action_mask": float32 0/1 vector}`.
So the seats, the opponents (one pool: `tabletop_rl.training.opponents.OpponentPool`), the rewards,
the step guard and the seeding are the core's, the same as SB3 training gets.

- One RLlib agent, `"main"` (the learner), at one seat drawn each episode; every other seat is
  played inside the env by ONE opponent per episode from the pool: a suite bot by `opponents`
  weight (default {"random": 1}: any registered bot), or with chance `snapshot_prob` (once any
  exist) a frozen numpy snapshot of the learner (`add_snapshot(PolicyWeights)`, the `max_snapshots`
  latest kept). The RLlib backend's league adds an exported copy of `main` to every env's pool
  every `league_every` env steps (`LeagueCallback`), as train.py adds its snapshots.
  `infos["main"]["seat"]` names the learner's seat; `module_for_agent` maps the agent to "main".
- Rewards (the core's): `options["reward"]` "win_loss" (the result at the end) or "score_diff"
  (the game's potential, dense), `win_bonus` x the result added at the end, every reward times
  `reward_scale`; `max_steps` / `cut_reward`: the core's step guard (a cut game is `truncated`).
- Seeding: every draw comes from the core's generator, seeded by `reset(seed=...)`, else by
  `env_config["seed"]` mixed with the env runner's worker and vector index, so parallel envs get
  distinct, reproducible streams.
- An illegal action (impossible under masking) ends the game with -1 (times reward_scale), as the
  AEC env's protection does; the adapter counts it in `illegal_moves` and in the learner's info.
- `MaskedPPOTorchRLModule`: RLlib's default PPO module (MLP actor and critic) that reads this
  Dict observation and adds log(mask) (clamped) to the action logits, as RLlib's
  action-masking example (`ActionMaskingTorchRLModule`) does; own copy over the non-deprecated
  `DefaultPPOTorchRLModule`, and it never mutates the batch it is given.
"""
from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium
    import torch
    from gymnasium import spaces
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(f"tabletop_rl.training.rllib_env needs ray[rllib] ({exc}); install the `rllib` extra in its own "
                      f"environment: `make venv-rllib` creates .venv-rllib (then `.venv-rllib/bin/python train.py --backend rllib`)") from exc

from tabletop_rl.envs.game_state import integers
from tabletop_rl.training.opponents import OpponentPool
from tabletop_rl.training.selfplay import SelfPlayEnv

MAIN = "main"
CONFIG_KEYS = ("game", "num_players", "options", "seed", "win_bonus", "reward_scale", "opponents", "snapshot_prob",
               "max_snapshots", "max_steps", "cut_reward")


def module_for_agent(agent_id: str, episode: Any = None, **kwargs) -> str:
    """RLlib's agent -> module mapping for `RLlibGameEnv`: its one agent is the module "main"."""
    return MAIN


class RLlibGameEnv(MultiAgentEnv):
    """A registered game as an RLlib `MultiAgentEnv` over the learner core (see the module docstring).

    `RLlibGameEnv(config)` with config keys: `game` ("fae"), `num_players` (2), `options` (dict of
    rule / observation options and `reward`), `win_bonus` (0), `reward_scale` (1), `opponents`
    ({"random": 1}), `snapshot_prob` (0), `max_snapshots` (8), `max_steps` (the game's),
    `cut_reward` (0), `seed` (0). Keyword arguments override config keys. RLlib passes `env_config`
    (an EnvContext with worker/vector index).
    """

    metadata = {"render_modes": []}

    def __init__(self, config: dict | None = None, **kwargs):
        super().__init__()
        cfg = {**dict(config or {}), **kwargs}
        if set(cfg) - set(CONFIG_KEYS):
            raise ValueError(f"unknown RLlibGameEnv config key(s) {sorted(set(cfg) - set(CONFIG_KEYS))}; "
                             f"known: {sorted(CONFIG_KEYS)}")
        options = dict(cfg.get("options") or {})
        reward = options.pop("reward", "win_loss")
        from tabletop_rl import agents  # noqa: F401  (registers the suite's bots)

        pool = OpponentPool(fixed=dict(cfg.get("opponents") or {"random": 1.0}),
                            snapshot_prob=cfg.get("snapshot_prob", 0.0), max_snapshots=cfg.get("max_snapshots", 8))
        self.env = SelfPlayEnv(cfg.get("game", "fae"), cfg.get("num_players", 2), opponent=pool, reward=reward,
                               win_bonus=cfg.get("win_bonus", 0.0), reward_scale=cfg.get("reward_scale", 1.0),
                               max_steps=cfg.get("max_steps"), cut_reward=cfg.get("cut_reward", 0.0), **options)
        self.core, self.num_players, self.num_actions = self.env.core, self.env.num_players, self.env.core.num_actions
        # Distinct, reproducible streams per env runner (worker_index) and vector slot.
        worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        self.core.rng = np.random.default_rng([integers(cfg.get("seed", 0), "seed"), worker, vector])
        inner = self.env.observation_space
        self._space = spaces.Dict({
            "observations": spaces.Box(np.asarray(inner.low, np.float32), np.asarray(inner.high, np.float32),
                                       dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, shape=(self.num_actions,), dtype=np.float32),
        })
        self._act_space = gymnasium.spaces.Discrete(self.num_actions)
        self.possible_agents = [MAIN]
        self.agents = []
        self.observation_spaces = {MAIN: self._space}
        self.action_spaces = {MAIN: self._act_space}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self.illegal_moves = 0
        self.episodes = 0

    @property
    def pool(self) -> OpponentPool:
        return self.core.pool

    def add_snapshot(self, weights) -> None:
        """A frozen copy of the learner (PolicyWeights) joins this env's pool (the league callback)."""
        self.core.add_snapshot(weights)

    def _convert(self, obs: np.ndarray, info: dict) -> dict:
        return {"observations": np.asarray(obs, dtype=np.float32),
                "action_mask": np.asarray(info["action_mask"], dtype=np.float32)}

    # ------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed)
        self.agents = [MAIN]
        self.episodes += 1
        return {MAIN: self._convert(obs, info)}, {MAIN: info}

    def step(self, action_dict: dict):
        if not self.agents:
            raise RuntimeError("step() before reset()")
        if MAIN not in action_dict:
            raise ValueError(f"it is {MAIN}'s turn; got actions for {sorted(action_dict)}")
        obs, reward, terminated, truncated, info = self.env.step(action_dict[MAIN])  # integers only (3.7 is refused)
        if "illegal_action" in info:
            self.illegal_moves += 1
            info["illegal_move_by"] = MAIN
        # self.agents stays this episode's agents until the next reset (RLlib's env checker and
        # episode bookkeeping match the final observations against it); a step after the end raises.
        return ({MAIN: self._convert(obs, info)}, {MAIN: float(reward)},
                {MAIN: bool(terminated), "__all__": bool(terminated)}, {MAIN: bool(truncated), "__all__": bool(truncated)},
                {MAIN: info})

    def close(self) -> None:
        self.env.close()


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module over the "observations" part of a Dict observation, with
    the "action_mask" part applied to the action logits (illegal actions get a ~-inf logit)."""

    def __init__(self, *, observation_space=None, action_space=None, **kwargs):
        if not (isinstance(observation_space, spaces.Dict)
                and {"observations", "action_mask"} <= set(observation_space.spaces)):
            raise ValueError("MaskedPPOTorchRLModule needs a Dict observation space with keys 'observations' and "
                             f"'action_mask' (as RLlibGameEnv's); got {observation_space}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], action_space=action_space, **kwargs)

    def setup(self):
        super().setup()  # networks built for the inner observation space
        self.observation_space = self.observation_space_with_mask

    @staticmethod
    def _split(batch: dict):
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or "action_mask" not in obs or "observations" not in obs:
            raise ValueError("MaskedPPOTorchRLModule: the batch's observations must be dicts with 'observations' "
                             "and 'action_mask' (use tabletop_rl.training.rllib_env.RLlibGameEnv)")
        inner = dict(batch)
        inner[Columns.OBS] = obs["observations"]
        return obs["action_mask"], inner

    @staticmethod
    def _mask(out: dict, mask) -> dict:
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return out

    def _forward(self, batch, **kwargs):
        mask, inner = self._split(batch)
        return self._mask(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, inner = self._split(batch)
        return self._mask(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
