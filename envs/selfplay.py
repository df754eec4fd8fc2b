"""Single-agent Gymnasium view of a multi-player game, for self-play training.

Kept beside the one learner core (`tabletop_rl.envs.learner`, which every game trains on): this is
the env `gymnasium.make("fae_rl:fae_rl/Fae-v0")` builds (a random seat each episode, an opponent per
seat, an illegal action ends the episode), `train.py --vec-env dummy|subproc` trains on it, and
`benchmarks/bench_learner.py` measures the core against it. The core's single-agent face is
`tabletop_rl.envs.learner_envs.LearnerEnv`.

    import gymnasium
    env = gymnasium.make("fae_rl:fae_rl/Fae-v0", opponent="greedy", num_players=2)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

`SelfPlayEnv(game, num_players, opponent, reward, seat, render_mode, **options)` gives the learner
one seat (drawn each episode from the env's generator unless `seat` is fixed) and plays every other
seat itself, with opponents drawn from `opponent`: a bot name ("random", "greedy", ...), an `Agent`,
a list of those (uniform), or an `OpponentPool` (weighted fixed bots plus frozen snapshots of the
learner, which `train.py` refreshes while training).

- Observation: the learner's observation vector (`Box`, float32), exactly `spec.observe(state, seat)`.
- Actions: `Discrete(num_actions)`. The legal ones are `action_masks()` (the sb3-contrib MaskablePPO
  hook) and `info["action_mask"]`. An illegal action ends the episode with reward -1 and
  `info["illegal_action"]` (as the AEC env's protections do).
- Reward, credited to the learner only: `"win_loss"` pays the learner's win/loss return when the game
  ends, whoever made the last move; `"score_diff"` pays the change in the learner's potential
  (e.g. Fae: own colour score + own ritual cards - best other colour's score) from one of its
  decisions to the next, opponents' moves included, so an episode's rewards sum to the final
  potential. Anything that happens before the learner's first decision is paid with its first step,
  so in both modes the episode's rewards sum to exactly what the AEC env pays that seat.
  `win_bonus` (score_diff only) adds `win_bonus * win_loss return` at the end, and every reward is
  multiplied by `reward_scale` (1 by default; train.py scales Fae's point margins towards +-1).
- Every random draw (deal, seat, opponents and their seeds) comes from `self.np_random`, so
  `reset(seed=s)` fixes the whole episode.
- Ids: `"fae_rl:fae_rl/Fae-v0"` and `"fantastiqa_rl:fantastiqa_rl/Fantastiqa-v0"` make Gymnasium import
  the registering package itself; the bare `"fae_rl/Fae-v0"` works only after `import fae_rl`.
- Vector envs: once the episode is over, `action_masks()` and `info["action_mask"]` are all zero.
  With Gymnasium's default next-step autoreset (`SyncVectorEnv`, `AsyncVectorEnv`) that all-zero row
  comes back with `terminated=True` (or `truncated=True`), and the env resets on the next `step`,
  ignoring the action. Sampling a legal action from that row fails, so give finished rows any action:

      masks = infos["action_mask"].astype(bool)      # (num_envs, num_actions)
      actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
      obs, rewards, terminated, truncated, infos = envs.step(actions)

  (README, "Single-agent Gymnasium envs", has the whole loop; tests/test_selfplay_gym.py runs it.)

Everything game-specific comes from the suite registry (`tabletop_rl.envs.get_game`); the score_diff potential
and the renderers are the GameSpec's hooks (`potential`, `render_text`, `render_rgb`).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from tabletop_rl.agents.match import drive_bots
from tabletop_rl.envs.game_state import integers
from tabletop_rl.envs.registry import get_game
from tabletop_rl.envs.scalar_batch import observation_space

REWARDS = ("win_loss", "score_diff")


# ---------------------------------------------------------------------------- opponents
@dataclass
class OpponentPool:
    """Where the learner's opponents come from, each episode and each other seat independently.

    With probability `snapshot_prob` (once a snapshot exists) a frozen snapshot of the learner:
    the latest with probability `latest_prob`, else one of the kept snapshots uniformly; otherwise
    a fixed bot drawn by `fixed` weights ({"random": 1, "greedy": 2}). At most `max_snapshots` are
    kept (oldest dropped). Snapshots are `tabletop_rl.agents.ppo_agent.PolicyWeights`; ids are unique and
    never reused, so an env can name the snapshot it is playing in a checkpoint.

    The pool holds no random state: envs draw from it with their own generators.
    """

    fixed: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_prob: float = 0.0
    latest_prob: float = 0.5
    max_snapshots: int = 8
    snapshots: dict[int, Any] = field(default_factory=dict)  # id -> PolicyWeights, oldest first
    next_id: int = 0

    def __post_init__(self):
        if not self.fixed and self.snapshot_prob < 1.0:
            raise ValueError("OpponentPool needs fixed bots unless snapshot_prob is 1")
        if any(w < 0 for w in self.fixed.values()) or (self.fixed and sum(self.fixed.values()) <= 0):
            raise ValueError(f"OpponentPool.fixed weights must be >= 0 with a positive sum; got {self.fixed}")

    def add_snapshot(self, weights) -> int:
        sid = self.next_id
        self.next_id += 1
        self.snapshots[sid] = weights
        while len(self.snapshots) > self.max_snapshots:
            del self.snapshots[next(iter(self.snapshots))]
        return sid

    def sample(self, rng: np.random.Generator) -> tuple[str, Any]:
        """A key: ("bot", name) or ("snapshot", id)."""
        if self.snapshots and rng.random() < self.snapshot_prob:
            ids = list(self.snapshots)
            if rng.random() < self.latest_prob:
                return ("snapshot", ids[-1])
            return ("snapshot", ids[int(rng.integers(len(ids)))])
        names = list(self.fixed)
        p = np.asarray([self.fixed[n] for n in names], dtype=np.float64)
        return ("bot", names[int(rng.choice(len(names), p=p / p.sum()))])

    def state_dict(self) -> dict:
        """JSON-safe (snapshots as [id, PolicyWeights.to_dict()] pairs); inverse of `from_state_dict`."""
        return {"fixed": dict(self.fixed), "snapshot_prob": self.snapshot_prob, "latest_prob": self.latest_prob,
                "max_snapshots": self.max_snapshots, "next_id": self.next_id,
                "snapshots": [[int(k), w.to_dict()] for k, w in self.snapshots.items()]}

    @classmethod
    def from_state_dict(cls, d: dict) -> "OpponentPool":
        from tabletop_rl.agents.ppo_agent import PolicyWeights

        keys = {"fixed", "snapshot_prob", "latest_prob", "max_snapshots", "snapshots", "next_id"}
        if not isinstance(d, dict) or set(d) != keys:
            raise ValueError(f"OpponentPool.from_state_dict: needs exactly the keys {sorted(keys)}")
        if not isinstance(d["fixed"], dict):
            raise ValueError("OpponentPool.from_state_dict: 'fixed' must be a dict")
        snaps = d["snapshots"]
        if not isinstance(snaps, list) or not all(isinstance(x, list) and len(x) == 2 and _is_int(x[0]) for x in snaps):
            raise ValueError("OpponentPool.from_state_dict: 'snapshots' must be a list of [id, weights] pairs")
        if not _is_int(d["next_id"]) or not _is_int(d["max_snapshots"]):
            raise ValueError("OpponentPool.from_state_dict: 'next_id' and 'max_snapshots' must be ints")
        return cls(fixed=dict(d["fixed"]), snapshot_prob=d["snapshot_prob"], latest_prob=d["latest_prob"],
                   max_snapshots=d["max_snapshots"], next_id=d["next_id"],
                   snapshots={int(k): PolicyWeights.from_dict(w) for k, w in snaps})


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _as_pool(opponent) -> tuple[OpponentPool, dict]:
    """(pool, {bot name: Agent instance given by the caller})."""
    from tabletop_rl.agents.base import Agent

    if isinstance(opponent, OpponentPool):
        return opponent, {}
    items = opponent if isinstance(opponent, (list, tuple)) else [opponent]
    if not items:
        raise ValueError("opponent must name at least one bot")
    fixed, instances = {}, {}
    for i, item in enumerate(items):
        if isinstance(item, str):
            fixed[item] = fixed.get(item, 0.0) + 1.0
        elif isinstance(item, Agent):
            key = f"{item.name}#{i}"
            fixed[key] = 1.0
            instances[key] = item
        else:
            raise ValueError(f"opponent entries must be bot names, Agents or an OpponentPool; got {item!r}")
    return OpponentPool(fixed=fixed), instances


# ---------------------------------------------------------------------------- the env
class SelfPlayEnv(gymnasium.Env):
    """The learner at one seat of `game`; the other seats are played by opponents (module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(self, game: str = "fae", num_players: int = 2, opponent="random", reward: str = "win_loss",
                 seat: int | None = None, win_bonus: float = 0.0, reward_scale: float = 1.0, render_mode: str | None = None,
                 max_steps: int | None = None, cut_reward: float = 0.0, **options):
        super().__init__()
        self.spec_game = get_game(game)
        spec = self.spec_game
        spec.check_options(options)
        if not (isinstance(num_players, (int, np.integer)) and spec.min_players <= num_players <= spec.max_players):
            raise ValueError(f"num_players must be in {spec.min_players}..{spec.max_players}; got {num_players!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}; got {reward!r}")
        if seat is not None and not 0 <= seat < num_players:
            raise ValueError(f"seat must be None (random) or in 0..{num_players - 1}; got {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None; got {render_mode!r}")
        self.num_players = int(num_players)
        self.reward_type = reward
        self.win_bonus = float(win_bonus)
        self.reward_scale = float(reward_scale)
        self.fixed_seat = seat
        self.render_mode = render_mode
        # Step guard: truncate an episode after this many game steps (all seats), so a policy that
        # loops inside a turn (possible in Fantastiqa) cannot hang training or evaluation.
        self.max_steps = max_steps if max_steps is not None else spec.max_steps
        # What the learner is paid when the guard cuts its episode (before reward_scale). 0 by
        # default (truncation: no result); below -1, stalling (e.g. ADVENTURE, CANCEL, ADVENTURE,
        # ... in one Fantastiqa turn) pays less than losing (train.py's fantastiqa preset: -2).
        self.cut_reward = float(cut_reward)
        self._steps = 0
        self.rule_options, self.observation_options = spec.split_options(options)
        self._potential = spec.potential
        if reward == "score_diff" and self._potential is None:
            raise ValueError(f"{spec.name} has no score_diff potential (GameSpec.potential)")
        self.observation_space = observation_space(spec, self.num_players, self.rule_options, self.observation_options)
        self._template = spec.new_state(num_players=self.num_players, seed=0, **self.rule_options)  # its type loads states
        n_actions = int(spec.action_mask(self._template, 0).size)
        self.action_space = spaces.Discrete(n_actions)
        self.pool, self._instances = _as_pool(opponent)
        self._bots: dict[str, Any] = dict(self._instances)  # bot name -> Agent (built once)
        self.state = None
        self.seat = 0
        self.opponent_keys: list = []
        self._opponents: list = []
        self._phi = 0.0
        self._carry = 0.0
        self._done = True

    # ------------------------------------------------------------------ opponents
    def set_opponent_pool(self, pool: OpponentPool) -> None:
        """Use `pool` from the next episode on (train.py calls this when it adds a snapshot)."""
        self.pool = pool

    def _agent_for(self, key, snapshots: dict | None = None):
        kind, ref = key
        if kind == "bot":
            agent = self._bots.get(ref)
            if agent is None:
                from tabletop_rl.agents.registry import make_agent

                agent = self._bots[ref] = make_agent(self.spec_game.name, ref)
            return agent
        from tabletop_rl.agents.ppo_agent import PPOAgent

        weights = (snapshots or {}).get(ref) or self.pool.snapshots.get(ref)
        if weights is None:
            raise KeyError(f"snapshot {ref} is in neither the pool nor the given snapshots")
        return PPOAgent(weights=weights, deterministic=False)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=None if seed is None else integers(seed, "seed"))
        rng = self.np_random
        spec = self.spec_game
        self.state = spec.new_state(num_players=self.num_players, seed=int(rng.integers(2**63)), **self.rule_options)
        self.seat = int(rng.integers(self.num_players)) if self.fixed_seat is None else self.fixed_seat
        self.opponent_keys, self._opponents = [], []
        for p in range(self.num_players):
            if p == self.seat:
                self.opponent_keys.append(None)
                self._opponents.append(None)
                continue
            key = self.pool.sample(rng)
            agent = self._agent_for(key)
            agent.reset(int(rng.integers(2**63)))
            self.opponent_keys.append(key)
            self._opponents.append(agent)
        self._phi = 0.0
        self._carry = 0.0
        self._done = False
        self._steps = 0
        self._play_opponents()
        if self._done:  # the game ended before the learner could move (not in Fae; kept general)
            raise RuntimeError("the game ended before the learner's first decision")
        if self.reward_type == "score_diff":  # what happened before the first decision is paid with it
            self._phi = self._carry = self._potential(self.state, self.seat)
        return self._obs(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset()")
        a = integers(action)
        if not (0 <= a < self.action_space.n and self.spec_game.action_mask(self.state, self.seat)[a]):
            self._done = True
            info = self._info()
            info["illegal_action"] = a
            return self._obs(), -1.0 * self.reward_scale, True, False, info
        self.state.apply(a)
        self._steps += 1
        self._play_opponents()
        truncated = not self._done and self._capped()
        reward = self._carry
        self._carry = 0.0
        if self.reward_type == "score_diff":
            phi = self._potential(self.state, self.seat)
            reward += phi - self._phi
            self._phi = phi
        if self._done:
            ret = float(np.asarray(self.state.returns())[self.seat])
            reward += ret if self.reward_type == "win_loss" else self.win_bonus * ret
        info = self._info()
        if self._done:
            # as the AEC envs: int8 per seat, 1 for each winner (fixed shape, whoever wins)
            info["winners"] = np.isin(np.arange(self.num_players), self.state.winners()).astype(np.int8)
            info["won"] = bool(info["winners"][self.seat])
        if truncated:
            self._done = True  # the episode is over (no terminal reward: the game did not end)
            reward += self.cut_reward
        return self._obs(), float(reward) * self.reward_scale, self._done and not truncated, truncated, info

    def _capped(self) -> bool:
        return self.max_steps is not None and self._steps >= self.max_steps

    def _play_opponents(self) -> None:
        """Play the other seats until the learner is to move or the game ends."""
        left = sys.maxsize if self.max_steps is None else max(0, self.max_steps - self._steps)
        moves = drive_bots(self.spec_game, self.state, self._opponents, until=self._learner_to_move,
                           observation_options=self.observation_options, max_steps=left)
        self._steps += len(moves)
        self._done = self.state.is_terminal()

    def _learner_to_move(self, state) -> bool:
        return state.current_player == self.seat

    def _obs(self) -> np.ndarray:
        return np.asarray(self.spec_game.observe(self.state, self.seat, **self.observation_options), dtype=np.float32)

    def _info(self) -> dict:
        return {"action_mask": self.action_masks().astype(np.int8), "seat": self.seat}

    def action_masks(self) -> np.ndarray:
        """bool mask of the learner's legal actions (all False once the episode is over)."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        return self.spec_game.action_mask(self.state, self.seat).astype(bool)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render without specifying any render mode.")
            return None
        if self.state is None:
            raise RuntimeError("call reset() before render()")
        hook = self.spec_game.render_rgb if self.render_mode == "rgb_array" else self.spec_game.render_text
        if hook is None:
            return str(self.state) if self.render_mode == "ansi" else None
        return hook(self.state)

    # ------------------------------------------------------------------ checkpoints
    SNAPSHOT_KEYS = ("state", "seat", "steps", "opponent_keys", "opponent_rngs", "np_random", "phi", "carry",
                     "done", "snapshot_weights")

    def get_snapshot(self) -> dict:
        """Everything needed to continue this episode bit for bit (train.py's checkpoints).

        JSON-safe: plain dicts, lists, numbers and strings (the game state is its `to_dict()`, RNG
        states their `bit_generator.state`, snapshot opponents their `PolicyWeights.to_dict()`),
        so a checkpoint stores it as JSON and no load path unpickles anything."""
        if self.state is None:
            raise RuntimeError("get_snapshot() before reset(): there is no episode to snapshot")
        return {
            "state": self.state.to_dict(), "seat": int(self.seat), "steps": int(self._steps),
            "opponent_keys": [None if k is None else [k[0], k[1]] for k in self.opponent_keys],
            "opponent_rngs": [None if a is None else a.rng.bit_generator.state for a in self._opponents],
            "np_random": self.np_random.bit_generator.state, "phi": float(self._phi), "carry": float(self._carry),
            "done": bool(self._done),
            # the weights of the snapshots being played (the pool may drop them meanwhile)
            "snapshot_weights": [[k[1], a.policy.to_dict()] for k, a in zip(self.opponent_keys, self._opponents)
                                 if k is not None and k[0] == "snapshot"],
        }

    def set_snapshot(self, snap: dict) -> None:
        """Inverse of `get_snapshot` (the opponent pool is not part of it: see `set_opponent_pool`).

        Validates the whole snapshot before changing the env: a malformed one raises ValueError
        naming the key and leaves the env as it was."""
        from tabletop_rl.agents.ppo_agent import PolicyWeights

        def bad(key, why):
            return ValueError(f"set_snapshot: {key!r} {why}")

        if not isinstance(snap, dict) or set(snap) != set(self.SNAPSHOT_KEYS):
            raise ValueError(f"set_snapshot: needs exactly the keys {list(self.SNAPSHOT_KEYS)}; got "
                             f"{sorted(snap) if isinstance(snap, dict) else type(snap).__name__}")
        n = self.num_players
        if not _is_int(snap["seat"]) or not 0 <= snap["seat"] < n:
            raise bad("seat", f"must be an int in 0..{n - 1}")
        if not _is_int(snap["steps"]) or snap["steps"] < 0:
            raise bad("steps", "must be an int >= 0")
        for key in ("phi", "carry"):
            if isinstance(snap[key], bool) or not isinstance(snap[key], (int, float)):
                raise bad(key, "must be a number")
        if not isinstance(snap["done"], bool):
            raise bad("done", "must be true or false")
        keys, rngs = snap["opponent_keys"], snap["opponent_rngs"]
        if not (isinstance(keys, list) and isinstance(rngs, list) and len(keys) == len(rngs) == n):
            raise bad("opponent_keys", f"and 'opponent_rngs' must be lists of {n} entries")
        weights = snap["snapshot_weights"]
        if not isinstance(weights, list) or not all(isinstance(x, list) and len(x) == 2 and _is_int(x[0])
                                                    for x in weights):
            raise bad("snapshot_weights", "must be a list of [snapshot id, weights] pairs")
        snapshots = {k: PolicyWeights.from_dict(w) for k, w in weights}
        try:
            state = type(self._template).from_dict(snap["state"])
        except ValueError as exc:
            raise bad("state", f"is not a valid game state: {exc}") from None
        if snap["state"]["num_players"] != n:
            raise bad("state", f"has {snap['state']['num_players']} players; this env has {n}")
        opponents, opponent_keys = [], []
        for p, (key, rng_state) in enumerate(zip(keys, rngs)):
            if (key is None) != (p == snap["seat"]) or (rng_state is None) != (key is None):
                raise bad("opponent_keys", f"entry {p}: null exactly at the learner's seat, with a null rng")
            if key is None:
                opponents.append(None)
                opponent_keys.append(None)
                continue
            if not (isinstance(key, list) and len(key) == 2 and
                    ((key[0] == "bot" and isinstance(key[1], str)) or (key[0] == "snapshot" and _is_int(key[1])))):
                raise bad("opponent_keys", f"entry {p} must be ['bot', name] or ['snapshot', id]; got {key!r}")
            try:
                agent = self._agent_for(tuple(key), snapshots)
            except KeyError as exc:
                raise bad("opponent_keys", f"entry {p}: {exc.args[0]}") from None
            agent.rng = _generator_from_state(rng_state, f"opponent_rngs[{p}]")
            opponents.append(agent)
            opponent_keys.append(tuple(key))
        np_random = _generator_from_state(snap["np_random"], "np_random")
        # all checked: change the env
        self.np_random = np_random
        self.state, self.seat, self._steps = state, snap["seat"], snap["steps"]
        self.opponent_keys, self._opponents = opponent_keys, opponents
        self._phi, self._carry, self._done = float(snap["phi"]), float(snap["carry"]), snap["done"]


def _generator_from_state(state, key: str) -> np.random.Generator:
    """A Generator in the bit_generator.state `state` (any numpy bit generator); ValueError naming `key`."""
    if not (isinstance(state, dict) and isinstance(state.get("bit_generator"), str)
            and state["bit_generator"] in ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937")):
        raise ValueError(f"set_snapshot: {key!r} must be a numpy bit_generator.state dict")
    bit_generator = getattr(np.random, state["bit_generator"])()
    try:
        bit_generator.state = state
    except (TypeError, ValueError, KeyError) as exc:
        raise ValueError(f"set_snapshot: {key!r} is not a valid {state['bit_generator']} state ({exc})") from None
    return np.random.Generator(bit_generator)
