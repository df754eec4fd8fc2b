"""Single-agent Gymnasium view of a multi-player game: the learner core's face for one game.

`SelfPlayEnv` is `tabletop_rl.training.learner_envs.LearnerEnv` over a learner core of one game
(`tabletop_rl.training.learner.LearnerCore` on `ScalarBatch`, N = 1), built from a game name: the env
`gymnasium.make("fae_rl:fae_rl/Fae-v0")` builds, what `train.py --vec-env dummy|subproc` trains
on (the scalar reference of `benchmarks/bench_learner.py`). Opponents, rewards, the step guard
and seeding are the core's, so there is one definition of each for every learner path; this
module adds only what a single env needs (the game's name and options, an illegal action ending
the episode, rendering, JSON snapshots).

    import gymnasium
    env = gymnasium.make("fae_rl:fae_rl/Fae-v0", opponent="greedy", num_players=2)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

`SelfPlayEnv(game, num_players, opponent, reward, seat, win_bonus, reward_scale, render_mode,
max_steps, cut_reward, **options)` gives the learner one seat (drawn each episode from the env's
generator unless `seat` is fixed) and plays every other seat with ONE opponent per episode, drawn
from `opponent`: a bot name ("random", "greedy", ...), an `Agent`, a list of those (uniform), or an
`OpponentPool` (`tabletop_rl.training.opponents`, the learner core's pool: weighted fixed bots plus
frozen snapshots of the learner, which `train.py` refreshes while training; kept here under its
old import path).

- Observation: the learner's observation vector (`Box`, float32), exactly `spec.observe(state, seat)`.
- Actions: `Discrete(num_actions)`. The legal ones are `action_masks()` (the sb3-contrib MaskablePPO
  hook) and `info["action_mask"]`. An illegal action ends the episode with reward -1 (times
  `reward_scale`) and `info["illegal_action"]` (as the AEC env's protections do); the next
  `reset()` deals a new game.
- Reward, credited to the learner only (the core's): `"win_loss"` pays the learner's win/loss
  return when the game ends, whoever made the last move; `"score_diff"` pays the change in the
  learner's potential (the GameSpec's `potential`, e.g. Fae: own colour score + own ritual cards -
  best other colour's score) from one of its decisions to the next, opponents' moves included, so
  an episode's rewards sum to the final potential; what happens before the learner's first decision
  is paid with its first step, so in both modes the episode's rewards sum to exactly what the AEC
  env pays that seat. `win_bonus` (score_diff only) adds `win_bonus * win_loss return` at the end;
  every reward is multiplied by `reward_scale`.
- Step guard: an episode still running after `max_steps` game steps (all seats; default the
  spec's) is truncated and pays `cut_reward` (before reward_scale).
- Every random draw (deal, seat, opponents and their seeds, random moves) comes from the core's
  generator, which `reset(seed=s)` seeds, so `reset(seed=s)` fixes the whole episode (unseeded:
  fresh entropy, as Gymnasium's own envs).
- Ids: `"fae_rl:fae_rl/Fae-v0"` and `"fantastiqa_rl:fantastiqa_rl/Fantastiqa-v0"` make Gymnasium import
  the registering package itself; the bare `"fae_rl/Fae-v0"` works only after `import fae_rl`.
- Vector envs: once the episode is over, `action_masks()` and `info["action_mask"]` are all zero.
  With Gymnasium's default next-step autoreset (`SyncVectorEnv`, `AsyncVectorEnv`) that all-zero row
  comes back with `terminated=True` (or `truncated=True`), and the env resets on the next `step`,
  ignoring the action. Sampling a legal action from that row fails, so give finished rows any action:

      masks = infos["action_mask"].astype(bool)      # (num_envs, num_actions)
      actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
      obs, rewards, terminated, truncated, infos = envs.step(actions)

  (docs/usage/envs.md has the whole loop; tests/test_selfplay_gym.py runs it.)
  For N games in one process, `gymnasium.make_vec(id, num_envs, vectorization_mode="vector_entry_point")`
  builds the learner core's `LearnerVectorEnv` instead (batched where the game has an engine).
- Rendering: `render_mode="ansi"` (`env.render()` returns the text board) or `"rgb_array"` (an
  image). `render_mode="human"` raises a ValueError saying so: Gymnasium would otherwise wrap the env
  in its `HumanRendering` pygame window at the env's `render_fps` of 1, one step a second, and
  training would look hung. For a window, wrap it yourself, knowing the pace:
  `gymnasium.wrappers.HumanRendering(gymnasium.make(id, render_mode="rgb_array"))`.
- Checkpoints: `get_snapshot()` / `set_snapshot()` (plain JSON: the game's `to_dict`, the core's
  counters and generators; the pool is saved on its own, `OpponentPool.state_dict`).
"""
from __future__ import annotations

import gymnasium

from tabletop_rl.envs.game_state import integers
from tabletop_rl.training.learner import LearnerCore, make_batch
from tabletop_rl.training.learner_envs import LearnerEnv
from tabletop_rl.training.opponents import OpponentPool
from tabletop_rl.envs.registry import get_game
from tabletop_rl.envs.rewards import AEC_REWARDS, check_reward

REWARDS = AEC_REWARDS  # the AEC envs' (tabletop_rl.envs.rewards)


def _as_pool(opponent) -> OpponentPool:
    """`opponent` (a bot name, an Agent, a list of those, or a pool) as an OpponentPool."""
    from tabletop_rl.agents.base import Agent

    if isinstance(opponent, OpponentPool):
        return opponent
    items = opponent if isinstance(opponent, (list, tuple)) else [opponent]
    if not items:
        raise ValueError("opponent must name at least one bot")
    fixed, agents = {}, {}
    for i, item in enumerate(items):
        if isinstance(item, str):
            fixed[item] = fixed.get(item, 0.0) + 1.0
        elif isinstance(item, Agent):
            key = f"{item.name}#{i}"
            fixed[key], agents[key] = 1.0, item
        else:
            raise ValueError(f"opponent entries must be bot names, Agents or an OpponentPool; got {item!r}")
    return OpponentPool(fixed=fixed, agents=agents)


class SelfPlayEnv(LearnerEnv):
    """The learner at one seat of `game`; the other seats are played by opponents (module docstring)."""

    RENDER_MODES = ("ansi", "rgb_array")  # the modes render() draws: each instance's metadata lists these
    # The class lists "human" too, for gymnasium.make alone: it reads the entry point's class metadata,
    # and for a mode not listed there it wraps the env in its HumanRendering pygame window at
    # render_fps (1 frame a second: training looks hung). Listed, "human" reaches __init__, which
    # refuses it naming the alternatives. Instances list only what they draw (Gymnasium's check_env
    # makes one env per mode listed there).
    metadata = {"render_modes": [*RENDER_MODES, "human"], "render_fps": 1}

    def __init__(self, game: str = "fae", num_players: int = 2, opponent="random", reward: str = "win_loss",
                 seat: int | None = None, win_bonus: float = 0.0, reward_scale: float = 1.0, render_mode: str | None = None,
                 max_steps: int | None = None, cut_reward: float = 0.0, **options):
        self.metadata = {**type(self).metadata, "render_modes": list(self.RENDER_MODES)}
        spec = get_game(game)
        check_reward(reward, REWARDS)
        if render_mode == "human":
            raise ValueError(
                'render_mode="human" is not offered: Gymnasium would show a pygame window at 1 frame a second, one '
                'step a second, and training would look hung. Use render_mode="ansi" (print(env.render()): the text '
                'board) or "rgb_array" (an image); for a window anyway, wrap it yourself: '
                'gymnasium.wrappers.HumanRendering(gymnasium.make(id, render_mode="rgb_array")). To watch a game, '
                'play it in the web app (tabletop-web).')
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ValueError(f"render_mode must be one of {list(self.RENDER_MODES)} or None; got {render_mode!r}")
        batch = make_batch(spec, 1, num_players, batched=False, **options)  # checks num_players and options
        core = LearnerCore(batch, spec, opponents=_as_pool(opponent), reward=reward, win_bonus=win_bonus,
                           reward_scale=reward_scale, max_steps=max_steps, cut_reward=cut_reward, seed=None,
                           rule_options=batch.rule_options, observation_options=batch.observation_options,
                           seats="random" if seat is None else seat)
        super().__init__(core)  # its observation space: the AEC env's bounds (ScalarBatch.observation_space)
        self.spec_game, self.num_players, self.render_mode = spec, core.num_players, render_mode

    @property
    def pool(self) -> OpponentPool:
        return self.core.pool

    @property
    def state(self):
        """The game being played (after an episode ends: the next deal)."""
        return self.core.batch.view(0) if self.core.batch.games else None

    def set_opponent_pool(self, pool: OpponentPool) -> None:
        """Draw from `pool` from the next episode on (train.py sends its pool to every env after a
        snapshot); its fixed bots must be this env's (the core prepared their moves)."""
        if not isinstance(pool, OpponentPool) or pool.fixed != self.core.pool.fixed:
            raise ValueError(f"set_opponent_pool: needs an OpponentPool with the fixed bots {self.core.pool.fixed}")
        pool.agents = self.core.pool.agents
        self.core.pool = pool

    def step(self, action):
        if self._done:
            raise RuntimeError("step() called on a finished episode; call reset()")
        a = integers(action)
        if not (0 <= a < self.action_space.n and self._mask[a]):  # the AEC env's protection
            info = {**self._info(), "illegal_action": a}
            self._done, self._started = True, False  # the next reset deals a new game
            info["action_mask"] = self.action_masks()
            return self.core.learner_obs()[0].copy(), -1.0 * self.core.reward_scale, True, False, info
        return super().step(a)

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

    # ------------------------------------------------------------------ checkpoints (plain JSON)
    SNAPSHOT_KEYS = ("state", "core", "done", "started")

    def get_snapshot(self) -> dict:
        """Everything needed to continue this env bit for bit (train.py's checkpoints), as plain
        JSON: the game's `to_dict()`, the core's counters and generators (the pool is not part of
        it: `OpponentPool.state_dict`, `set_opponent_pool`)."""
        if self.state is None:
            raise RuntimeError("get_snapshot() before reset(): there is no episode to snapshot")
        meta, _ = self.core.get_state(with_pool=False)
        return {"state": meta.pop("games")[0], "core": meta, "done": self._done, "started": self._started}

    def set_snapshot(self, snap: dict) -> None:
        """Inverse of `get_snapshot`; validates the whole snapshot before changing the env: a
        malformed one raises ValueError naming the key and leaves the env as it was."""
        if not isinstance(snap, dict) or set(snap) != set(self.SNAPSHOT_KEYS):
            raise ValueError(f"set_snapshot: needs exactly the keys {list(self.SNAPSHOT_KEYS)}; got "
                             f"{sorted(snap) if isinstance(snap, dict) else type(snap).__name__}")
        for key in ("done", "started"):
            if not isinstance(snap[key], bool):
                raise ValueError(f"set_snapshot: {key!r} must be true or false")
        state_type = type(self.spec_game.new_state(num_players=self.num_players, seed=0, **self.core.rule_options))
        try:
            state = state_type.from_dict(snap["state"])
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise ValueError(f"set_snapshot: 'state' is not a valid game state: {exc}") from None
        if state.num_players != self.num_players:
            raise ValueError(f"set_snapshot: 'state' has {state.num_players} players; this env has {self.num_players}")
        if not isinstance(snap["core"], dict) or "snapshots" in snap["core"]:
            raise ValueError("set_snapshot: 'core' must be the core's state without the pool")
        try:
            self.core.set_state({**snap["core"], "games": [snap["state"]]}, {})
        except ValueError as exc:
            raise ValueError(f"set_snapshot: 'core': {exc}") from None
        self._done, self._started = snap["done"], snap["started"]
        self._mask = self.action_masks()


__all__ = ["OpponentPool", "REWARDS", "SelfPlayEnv"]
