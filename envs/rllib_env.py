"""Any registered game as an RLlib multi-agent env (`ray.rllib.env.MultiAgentEnv`), for
`tabletop_rl.envs.rllib_backend` and for users who bring their own RLlib config.

    from tabletop_rl.envs.rllib_env import RLlibGameEnv, module_for_agent
    config = (PPOConfig()
              .environment(RLlibGameEnv, env_config={"game": "fae", "num_players": 2})
              .multi_agent(policies={"main"}, policy_mapping_fn=module_for_agent))

What it is: RLlib's own `PettingZooEnv` logic (step the AEC env, then report `last()` for the
agent to move, stepping finished agents out at the end) over the game's protected AEC env, plus
what RLlib's action-masking RLModule (`ActionMaskingTorchRLModule`) needs: each observation is
`{"observations": float32 vector, "action_mask": float32 0/1 vector}`.

- Turn-based: only the agent to move receives an observation; the rewards an agent collects while
  others move reach it with its next observation (the AEC env's cumulative rewards), and at the end
  every agent receives its final observation and reward with `terminated=True`.
- Parameter sharing (default, `league_size=0`): agent ids are `player_<seat>` and
  `module_for_agent` maps them all to the one trained module `"main"`.
- League of frozen snapshots (`league_size=k > 0`): each episode the env draws (from its own
  seeded generator) one seat for `main`; every other seat is a uniformly drawn frozen module
  `league_0..league_{k-1}` with probability `league_prob`, else a bot (if `opponents`), else `main`. The role is
  part of the agent id (`player_1@league_2`), so `module_for_agent` needs no randomness of its
  own and a run is reproducible from its seeds. The backend refreshes the frozen modules with
  copies of `main` (`tabletop_rl.envs.rllib_backend.LeagueCallback`), as RLlib's self-play examples do.
- Rewards: the AEC env's (`options["reward"]`: "win_loss" or the game's dense "score_diff"),
  times `reward_scale`; with `win_bonus`, at the end each agent also gets win_bonus x its
  win_loss return (from the winners named in the env's final infos), as `train.py` does.
- Bot opponents (`opponents={"random": 1, "greedy": 0.5}`): every seat that is neither `main`
  nor a frozen module is played inside the env by a suite bot (`tabletop_rl.agents.make_agent`) drawn by
  weight, as `tabletop_rl.envs.selfplay.SelfPlayEnv` does for SB3; bot seats are not RLlib agents (no
  observations, no samples). Bots that need the rules state read it from the AEC env's `.game`.
- Seeding: every draw (deals, league roles, bots and their seeds) comes from the env's generator, seeded by
  `reset(seed=...)`, else by `env_config["seed"]` mixed with the env runner's worker and vector
  index, so parallel envs get distinct, reproducible streams.
- `MaskedPPOTorchRLModule`: RLlib's default PPO module (MLP actor and critic) that reads this
  Dict observation and adds log(mask) (clamped) to the action logits, as RLlib's
  action-masking example (`ActionMaskingTorchRLModule`) does; own copy over the non-deprecated
  `DefaultPPOTorchRLModule`, and it never mutates the batch it is given.
- An illegal action (impossible under masking) ends the game as the protected AEC env does
  (-1 for the offender); the adapter counts it in `illegal_moves` and in the offender's info.
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
    raise ImportError(f"tabletop_rl.envs.rllib_env needs ray[rllib] ({exc}); install the `rllib` extra in its own "
                      f"environment: `make test-rllib` creates .venv-rllib") from exc

from tabletop_rl.agents.match import bot_action
from tabletop_rl.envs.game_state import integers
from tabletop_rl.envs.registry import get_game

MAIN = "main"
ROLE_SEP = "@"


def league_module_ids(league_size: int) -> list[str]:
    return [f"league_{j}" for j in range(league_size)]


def module_for_agent(agent_id: str, episode: Any = None, **kwargs) -> str:
    """RLlib's agent -> module mapping for `RLlibGameEnv`: the role in the id, else "main"."""
    return agent_id.split(ROLE_SEP, 1)[1] if ROLE_SEP in agent_id else MAIN


def seat_of(agent_id: str) -> int:
    """`player_3@league_0` -> 3."""
    return int(agent_id.split(ROLE_SEP, 1)[0].rsplit("_", 1)[1])


def _env_options(spec, options: dict) -> dict:
    spec.check_options(options, also=("reward",))
    return dict(options)


class RLlibGameEnv(MultiAgentEnv):
    """A registered game as an RLlib `MultiAgentEnv` (see the module docstring).

    `RLlibGameEnv(config)` with config keys: `game` ("fae"), `num_players` (2), `options`
    (dict of env kwargs: rule / observation options and `reward`), `win_bonus` (0),
    `reward_scale` (1), `league_size` (0), `league_prob` (0.5), `seed` (0). Keyword arguments
    override config keys. RLlib passes `env_config` (an EnvContext with worker/vector index).
    """

    metadata = {"render_modes": []}

    def __init__(self, config: dict | None = None, **kwargs):
        super().__init__()
        cfg = {**dict(config or {}), **kwargs}
        known = {"game", "num_players", "options", "league_size", "league_prob", "seed", "win_bonus", "reward_scale",
                 "opponents"}
        if set(cfg) - known:
            raise ValueError(f"unknown RLlibGameEnv config key(s) {sorted(set(cfg) - known)}; known: {sorted(known)}")
        self.game_spec = spec = get_game(cfg.get("game", "fae"))
        self.num_players = int(cfg.get("num_players", 2))
        if not spec.min_players <= self.num_players <= spec.max_players:
            raise ValueError(f"num_players must be in {spec.min_players}..{spec.max_players} for "
                             f"{spec.name}; got {cfg.get('num_players')!r}")
        self.options = _env_options(spec, dict(cfg.get("options") or {}))
        self._obs_opts = spec.split_options(dict(self.options))[1]  # what the bot seats observe (as the AEC env)
        self.win_bonus = float(cfg.get("win_bonus", 0.0))
        self.reward_scale = float(cfg.get("reward_scale", 1.0))
        self.league_size = int(cfg.get("league_size", 0))
        self.league_prob = float(cfg.get("league_prob", 0.5))
        self.opponents = {str(k): float(v) for k, v in dict(cfg.get("opponents") or {}).items() if float(v) > 0}
        if any(float(v) < 0 for v in dict(cfg.get("opponents") or {}).values()):
            raise ValueError(f"opponents weights must be >= 0; got {cfg.get('opponents')}")
        if self.opponents:
            from tabletop_rl.agents.registry import make_agent

            from tabletop_rl import agents  # noqa: F401
            for bot in self.opponents:
                make_agent(spec.name, bot, seed=0)  # raises, naming the known bots
        self._bot_names = sorted(self.opponents)
        total = sum(self.opponents.values())
        self._bot_p = np.asarray([self.opponents[b] / total for b in self._bot_names]) if self.opponents else None
        self._bot_cache: dict = {}
        self._bots: dict = {}
        if self.league_size < 0:
            raise ValueError(f"league_size must be >= 0; got {self.league_size}")
        if not 0.0 <= self.league_prob <= 1.0:
            raise ValueError(f"league_prob must be in [0, 1]; got {self.league_prob}")
        self.aec = spec.env(num_players=self.num_players, **self.options)
        seats = self.aec.possible_agents
        aec_obs = self.aec.observation_space(seats[0])
        if not (isinstance(aec_obs, spaces.Dict) and {"observation", "action_mask"} <= set(aec_obs.spaces)):
            raise ValueError(f"{spec.name}'s AEC env must observe a Dict with 'observation' and 'action_mask'; "
                             f"got {aec_obs}")
        inner, mask = aec_obs["observation"], aec_obs["action_mask"]
        self.num_actions = int(self.aec.action_space(seats[0]).n)
        self._space = spaces.Dict({
            "observations": spaces.Box(np.asarray(inner.low, np.float32), np.asarray(inner.high, np.float32),
                                       dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, shape=mask.shape, dtype=np.float32),
        })
        self._act_space = gymnasium.spaces.Discrete(self.num_actions)
        roles = [MAIN] + league_module_ids(self.league_size)
        self.possible_agents = ([f"{a}{ROLE_SEP}{r}" for a in seats for r in roles]
                                if self.league_size or self.opponents else list(seats))
        self.agents = []
        self.observation_spaces = {a: self._space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        # Distinct, reproducible streams per env runner (worker_index) and vector slot.
        worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        self._rng = np.random.default_rng([int(cfg.get("seed", 0)), worker, vector])
        self._names: dict[str, str] = {}  # AEC agent -> this episode's agent id
        self.illegal_moves = 0
        self.episodes = 0

    # ------------------------------------------------------------ helpers
    def _convert(self, obs: dict) -> dict:
        return {"observations": np.asarray(obs["observation"], dtype=np.float32),
                "action_mask": np.asarray(obs["action_mask"], dtype=np.float32)}

    def _draw_roles(self) -> None:
        """This episode's role per seat: `main` at one seat (uniform); every other seat a frozen
        league module with probability league_prob (if any), else a bot (if `opponents`), else main."""
        seats = self.aec.possible_agents
        self._bots = {}
        if not self.league_size and not self.opponents:
            self._names = {a: a for a in seats}
            return
        learner = int(self._rng.integers(self.num_players))
        names = {}
        for i, a in enumerate(seats):
            role = MAIN
            if i != learner:
                if self.league_size and self._rng.random() < self.league_prob:
                    role = f"league_{int(self._rng.integers(self.league_size))}"
                elif self.opponents:
                    bot = self._bot_names[int(self._rng.choice(len(self._bot_names), p=self._bot_p))]
                    agent = self._bot_cache.get(bot)
                    if agent is None:
                        from tabletop_rl.agents.registry import make_agent

                        from tabletop_rl import agents  # noqa: F401  (registers the suite's bots)
                        agent = self._bot_cache[bot] = make_agent(self.game_spec.name, bot)
                    agent.reset(int(self._rng.integers(2**63)))
                    self._bots[a] = agent
                    role = f"bot_{bot}"
            names[a] = f"{a}{ROLE_SEP}{role}"
        self._names = names

    def _play_bots(self) -> None:
        """Let bot seats move (and step finished bots out) until an RLlib agent is selected."""
        aec = self.aec
        while aec.agents and aec.agent_selection in self._bots:
            agent = aec.agent_selection
            obs, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            seat = aec.possible_agents.index(agent)
            aec.step(bot_action(self._bots[agent], self.game_spec, aec.unwrapped.game, seat, self._obs_opts))

    # ------------------------------------------------------------ MultiAgentEnv API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._draw_roles()
        self.aec.reset(seed=int(self._rng.integers(2**63)))
        self.agents = [self._names[a] for a in self.aec.agents if a not in self._bots]
        self.episodes += 1
        self._play_bots()
        if not self.aec.agents or self.aec.terminations[self.aec.agent_selection]:
            raise RuntimeError(f"{self.game_spec.name} ended before any RLlib agent moved")
        first = self.aec.agent_selection
        return {self._names[first]: self._convert(self.aec.observe(first))}, {}

    def step(self, action_dict: dict):
        aec = self.aec
        if not aec.agents:
            raise RuntimeError("step() called on a finished episode; call reset()")
        mover = aec.agent_selection
        name = self._names[mover]
        if name not in action_dict:
            raise ValueError(f"it is {name}'s turn; got actions for {sorted(action_dict)}")
        aec.step(integers(action_dict[name], f"{name}'s action"))  # never coerced (3.7 must not play 3)
        obs_d, rew_d, term_d, trunc_d, info_d = {}, {}, {}, {}, {}
        final_info = None
        while aec.agents:  # as RLlib's PettingZooEnv: report the next mover, or everyone at the end
            self._play_bots()
            if not aec.agents:
                break
            obs, rew, terminated, truncated, info = aec.last()
            agent = aec.agent_selection
            aid = self._names[agent]
            obs_d[aid] = self._convert(obs)
            rew_d[aid] = float(rew)
            term_d[aid] = bool(terminated)
            trunc_d[aid] = bool(truncated)
            info_d[aid] = dict(info)
            if terminated or truncated:
                final_info = info
                aec.step(None)
            else:
                break
        all_gone = not aec.agents
        if final_info is not None and "illegal_move_by" in final_info:
            if final_info["illegal_move_by"] == mover:
                self.illegal_moves += 1
        elif self.win_bonus and all_gone:
            self._add_win_bonus(rew_d, info_d)
        if self.reward_scale != 1.0:
            rew_d = {k: v * self.reward_scale for k, v in rew_d.items()}
        # The protected env truncates AND terminates on an illegal move; RLlib wants one.
        term_d["__all__"] = all_gone and all(term_d.values())
        trunc_d["__all__"] = all_gone and not term_d["__all__"]
        # self.agents stays this episode's agents until the next reset (RLlib's env checker and
        # episode bookkeeping match the final observations against it), as in RLlib's PettingZooEnv.
        return obs_d, rew_d, term_d, trunc_d, info_d

    def _add_win_bonus(self, rew_d: dict, info_d: dict) -> None:
        """+ win_bonus x the win_loss return (k winners of N: +1/k each, losers -1/(N-k); 0 if all
        win), from the winners the AEC env names in its final infos."""
        infos = [i for i in info_d.values() if "winners" in i]
        if not infos:
            raise ValueError(f"win_bonus needs {self.game_spec.name}'s AEC env to name the 'winners' in its final "
                             f"infos; it does not")
        winners = {a for a, won in zip(self.aec.possible_agents, infos[0]["winners"]) if won}  # per seat 0/1
        k, n = len(winners), self.num_players
        for agent, aid in self._names.items():
            if aid in rew_d:
                ret = 0.0 if k == n else (1.0 / k if agent in winners else -1.0 / (n - k))
                rew_d[aid] += self.win_bonus * ret

    def close(self) -> None:
        self.aec.close()


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
                             "and 'action_mask' (use tabletop_rl.envs.rllib_env.RLlibGameEnv)")
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
