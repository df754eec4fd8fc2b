"""One learner core for every game: N games of a `BatchedGame`, the learner at one seat of each.

    from tabletop_rl.training.learner import make_learner_core
    core = make_learner_core("fantastiqa", num_envs=64, opponents={"random": 1, "greedy": 1}, seed=0)
    core.reset()
    obs, masks = core.learner_obs(), core.masks()      # (N, D) float32, (N, A) bool: the learner is to move everywhere
    rewards, dones, finished = core.step(actions)      # opponents move inside; finished games are dealt again

`make_learner_core(game, num_envs, num_players, **options)` takes the batch from `BATCHES` (a game
with a batched engine: Fae's `FaeBatch`) or else `ScalarBatch` (N scalar games: any registered
game, slower); `LearnerCore(batch, game, ...)` takes any `BatchedGame` you built. The faces over it
(`tabletop_rl.training.learner_envs`: the SB3 `VecEnv`, the Gymnasium `VectorEnv` and single env;
`tabletop_rl.training.selfplay.SelfPlayEnv`, the single env built from a game name; the RLlib env
`tabletop_rl.training.rllib_env.RLlibGameEnv`) are thin; so are the old names `FaeLearnerCore`,
`FaeLearnerVecEnv`, `FaeLearnerVectorEnv`.

- Seats: game i's e-th episode seats the learner at (i + e) mod num_players (`seats="rotate"`;
  `LearnerCore` also takes "random", drawn from the core's generator, or one fixed seat); the other
  seats are ONE opponent per episode.
- Opponents, from one pool (`tabletop_rl.training.opponents.OpponentPool`, the suite's only one):
  `opponents` is a pool (shared: snapshots added to it reach every core built on it) or maps
  registered bot names (`tabletop_rl.agents.make_agent`: "random", "greedy", a user's own via
  `register_agent`) to weights, with `snapshot_prob` and `max_snapshots` for the pool built from it;
  with chance `snapshot_prob` (once any exist) an opponent is a frozen snapshot of the learner
  (`add_snapshot(PolicyWeights)`, uniform over the `max_snapshots` latest). Each moves in its batched form where it has one: "random" (uniform over
  the mask), "greedy" where the batch has `greedy_actions(rng, games)`, a bot whose agent has
  `act_batch(batch, games, rng)` (one call for all the games it moves in), a snapshot (one policy
  forward for every game it moves in); any other bot per game, through `agents.match.bot_action`
  on `batch.state(i)` (one Agent per game, reset each episode with a seed from the core's generator).
  `opponent_epsilon` weakens the fixed bots but "random": each of their moves is a uniform legal one
  with that chance (drawn from the core's generator), so a learner from scratch meets a bot that races
  to the goal and that it can still beat (`train.py --opponent-epsilon`; 0, the default, draws nothing).
- Reward, to the learner only: `"win_loss"` pays its return at the end; a potential name
  (`"score_diff"`: the game spec's potential; Fae also `"seat_diff"`, see `tabletop_rl.envs.fae_batch`)
  pays the change in the learner's potential from one of its decisions to the next (opponents'
  moves included; a fresh deal's potential is 0, so the first step pays what happened before it),
  plus `win_bonus` x its return at the end. `reward_fn(batch, seats, dones)`, if given, is added:
  a user's reward over the whole batch, (N,) floats, called once per learner step after the
  opponents moved and before finished games are dealt again. Every reward times `reward_scale`.
- Step guard: a game still running after `max_steps` game steps (every seat's; default the spec's
  `max_steps`) is cut: done, not won, and the learner is paid `cut_reward` (before reward_scale)
  instead of a result; it is dealt again like a finished game.
- Auto-reset: `step` returns `finished`, one dict per game that ended or was cut: its index,
  `terminal_observation`, `r` (episode return), `l` (learner decisions), `win_share` (1 won, 1/k
  shared by k, 0 lost or cut), `opponent` (its kind), `cut`, `returns` (every seat's, float64).
- Actions must be integers (N,), legal in every game; anything else raises ValueError and changes
  nothing.
- Every draw (deals, opponent kinds, bot seeds, random moves, greedy ties, snapshot samples) comes
  from one numpy Generator seeded by `seed`: same seed, same actions, same games. `get_state()` /
  `set_state()` give and take all of it as JSON plus arrays (no pickle), for checkpoints; the pool's
  snapshots with it (`snapshot_ids`, `next_snapshot_id`) unless `with_pool=False`.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np

from tabletop_rl.envs.game_state import BatchedGame, integers, missing_members
from tabletop_rl.training.opponents import OpponentPool
from tabletop_rl.envs.registry import GameSpec, get_game
from tabletop_rl.envs.rewards import SCORE_DIFF, WIN_LOSS, check_reward, learner_rewards
from tabletop_rl.envs.scalar_batch import ScalarBatch

# Games with a batched engine: name -> "module:class", built as cls(num_envs, num_players, **options);
# a new game joins with one line here (a game without one runs on ScalarBatch).
BATCHES = {"fae": "tabletop_rl.envs.fae_batch:FaeBatch", "fantastiqa": "tabletop_rl.agents.fantastiqa_batch:FantastiqaBatch"}
_SEED_SPACE = 2**62


def batch_class(game: str):
    """The batched engine class of `game` (BATCHES), or None: the game runs on ScalarBatch."""
    where = BATCHES.get(game)
    if where is None:
        return None
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


def batch_only_options(game: str, options) -> list[str]:
    """The names among `options` that only `game`'s batched engine encodes (its `OPTIONS`, e.g.
    Fantastiqa's `action_features`): ScalarBatch refuses them."""
    return sorted(set(options) & set(getattr(batch_class(game), "OPTIONS", ())))


def make_batch(game, num_envs: int, num_players: int = 2, batched: bool = True, **options) -> BatchedGame:
    """N games of `game` with `options` (rule and observation options, and those of its batched
    engine's `OPTIONS`, e.g. Fantastiqa's `action_features`): its batched engine if it has one and
    `batched`, else `ScalarBatch`. Unknown options raise ValueError naming them."""
    spec = game if isinstance(game, GameSpec) else get_game(game)
    engine = batch_class(spec.name)
    own = tuple(getattr(engine, "OPTIONS", ()))  # observation options only the batched engine encodes
    spec.check_options(options, also=own)
    cls = engine if batched is True else None
    if cls is None:
        only = batch_only_options(spec.name, options)
        if only:
            raise ValueError(f"option(s) {only} of {spec.name} are encoded by its batched engine "
                             f"({engine.__name__}) only; batched=False (ScalarBatch) cannot encode them")
        return ScalarBatch(spec, num_envs, num_players, **options)
    return cls(num_envs, num_players, **options)


def make_learner_core(game, num_envs: int, num_players: int = 2, *, batched: bool = True, opponents=None,
                      snapshot_prob: float = 0.0, max_snapshots: int = 8, reward: str = "score_diff",
                      win_bonus: float = 0.0, reward_scale: float = 1.0, reward_fn=None, max_steps: int | None = None,
                      cut_reward: float = 0.0, opponent_epsilon: float = 0.0, seed: int = 0,
                      **options) -> "LearnerCore":
    """A `LearnerCore` over `make_batch(game, num_envs, num_players, batched, **options)`."""
    spec = game if isinstance(game, GameSpec) else get_game(game)
    batch = make_batch(spec, num_envs, num_players, batched, **options)
    return LearnerCore(batch, spec, opponents=opponents, snapshot_prob=snapshot_prob, max_snapshots=max_snapshots,
                       reward=reward, win_bonus=win_bonus, reward_scale=reward_scale, reward_fn=reward_fn,
                       max_steps=max_steps, cut_reward=cut_reward, opponent_epsilon=opponent_epsilon, seed=seed,
                       rule_options=spec.split_options(options)[0], observation_options=spec.split_options(options)[1])


class LearnerCore:
    """The learner's view of a `BatchedGame` (see the module docstring)."""

    def __init__(self, batch: BatchedGame, game, opponents: dict | OpponentPool | None = None,
                 snapshot_prob: float = 0.0, max_snapshots: int = 8, reward: str = "score_diff", win_bonus: float = 0.0,
                 reward_scale: float = 1.0, reward_fn: Callable[..., Any] | None = None, max_steps: int | None = None,
                 cut_reward: float = 0.0, opponent_epsilon: float = 0.0, seed: int = 0,
                 rule_options: dict | None = None,
                 observation_options: dict | None = None, seats="rotate"):
        from tabletop_rl.agents.registry import agent_names, make_agent

        missing = missing_members(batch, BatchedGame)
        if missing:
            raise ValueError(f"batch must be a BatchedGame (tabletop_rl.envs.game_state); a {type(batch).__name__} "
                             f"lacks {missing}")
        self.spec = game if isinstance(game, GameSpec) else get_game(game)
        self.batch = self.vec = batch  # `vec`: the name FaeLearnerCore users know
        self.num_envs, self.num_players = batch.num_envs, batch.num_players
        self.num_actions, self.obs_size = batch.num_actions, batch.obs_size
        self.observation_options = dict(observation_options or {})
        # the rules a cut game is dealt again with (default: the batch's `rule_options`, if it names them)
        self.rule_options = dict(getattr(batch, "rule_options", None) or {}) if rule_options is None else dict(rule_options)
        self.potentials = self._potential_names()
        check_reward(reward, learner_rewards(self.potentials))
        if reward_fn is not None and not callable(reward_fn):
            raise ValueError(f"reward_fn must be callable(batch, seats, dones); got {reward_fn!r}")
        if not (seats in ("rotate", "random") or (isinstance(seats, (int, np.integer)) and not isinstance(seats, bool)
                                                  and 0 <= seats < self.num_players)):
            raise ValueError(f"seats must be 'rotate', 'random' or a seat in 0..{self.num_players - 1}; got {seats!r}")
        self.seats = seats if isinstance(seats, str) else int(seats)
        if isinstance(opponents, OpponentPool):
            if snapshot_prob != 0.0 or max_snapshots != 8:
                raise ValueError("an OpponentPool carries its own snapshot_prob and max_snapshots; pass them to it")
            self.pool = opponents  # shared: snapshots added to it reach every core built on it
        else:
            self.pool = OpponentPool(fixed={"random": 1.0} if opponents is None else opponents,
                                     snapshot_prob=snapshot_prob, max_snapshots=max_snapshots)
        unknown = sorted(set(self.pool.fixed) - set(agent_names(self.spec.name)) - set(self.pool.agents))
        if unknown:
            raise ValueError(f"unknown opponent(s) {unknown} for {self.spec.name}; known: {agent_names(self.spec.name)}")
        for name, value in (("win_bonus", win_bonus), ("reward_scale", reward_scale), ("cut_reward", cut_reward),
                            ("opponent_epsilon", opponent_epsilon)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(value):
                raise ValueError(f"{name} must be a finite number; got {value!r}")
        if not 0.0 <= opponent_epsilon <= 1.0:
            raise ValueError(f"opponent_epsilon must be in [0, 1]; got {opponent_epsilon!r}")
        self.opponent_epsilon = float(opponent_epsilon)
        max_steps = self.spec.max_steps if max_steps is None else max_steps
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer))
                                      or max_steps < 1):
            raise ValueError(f"max_steps must be an int >= 1 or None; got {max_steps!r}")
        self.reward_type, self.win_bonus, self.reward_scale = reward, float(win_bonus), float(reward_scale)
        self.reward_fn = reward_fn
        self.max_steps, self.cut_reward = (None if max_steps is None else int(max_steps)), float(cut_reward)
        # How each fixed kind moves: "random", "greedy" (batched), "agent_batch" or "agent" (per game).
        self._bots: dict[int, list] = {}
        self._movers = []
        for k, name in enumerate(self.fixed_names):
            given = self.pool.agents.get(name)
            if name == "random" and given is None:
                self._movers.append("random")
            elif name == "greedy" and given is None and hasattr(batch, "greedy_actions"):
                self._movers.append("greedy")
            elif given is not None:  # a caller's own Agent instance: it has one game's state to keep
                if self.num_envs != 1:
                    raise ValueError(f"opponent {name!r} is an Agent instance, which plays one game; for "
                                     f"{self.num_envs} games register it (register_agent) and name it")
                self._bots[k] = [given]
                self._movers.append("agent")
            else:
                probe = make_agent(self.spec.name, name, seed=0)
                if hasattr(probe, "act_batch"):
                    self._bots[k] = [probe]
                    self._movers.append("agent_batch")
                else:
                    self._bots[k] = [probe] + [make_agent(self.spec.name, name, seed=0)
                                               for _ in range(self.num_envs - 1)]
                    self._movers.append("agent")
        n = self.num_envs
        self.rng = np.random.default_rng(seed)
        self.seat = np.zeros(n, dtype=np.int64)  # the learner's seat in each game
        self.opp = np.zeros(n, dtype=np.int64)  # opponent kind: index into fixed_names, or len(fixed) + snapshot index
        self.episodes = np.zeros(n, dtype=np.int64)  # episodes begun per game (the seat rotation)
        self.phi = np.zeros(n, dtype=np.float64)
        self.ep_return = np.zeros(n, dtype=np.float64)
        self.ep_length = np.zeros(n, dtype=np.int64)  # learner decisions this episode
        self.game_steps = np.zeros(n, dtype=np.int64)  # every seat's steps this episode (the step guard)
        self.active = np.ones(n, dtype=np.bool_)  # games still played (`retire`)
        self._obs = np.zeros((n, self.obs_size), dtype=np.float32)
        self._mask = np.zeros((n, self.num_actions), dtype=np.bool_)

    # the pool's settings under the core's names (FaeLearnerCore users know them)
    fixed_names = property(lambda self: self.pool.names)
    snapshots = property(lambda self: self.pool.snapshot_list)
    snapshot_prob = property(lambda self: self.pool.snapshot_prob)
    max_snapshots = property(lambda self: self.pool.max_snapshots)

    # ------------------------------------------------------------------ rewards
    def _potential_names(self) -> tuple[str, ...]:
        """The potentials this batch pays: its own `POTENTIALS`, else the spec's score_diff (per game)."""
        own = getattr(self.batch, "POTENTIALS", None)
        if own is not None:
            return tuple(own)
        return (SCORE_DIFF,) if self.spec.potential is not None else ()

    def _potential(self) -> np.ndarray:
        b = self.batch
        if hasattr(b, "potential"):
            return b.potential(self.seat, self.reward_type)
        pot = self.spec.potential  # a batch without a batched potential: the spec's, per game
        return np.fromiter((pot(b.state(i), int(s)) for i, s in enumerate(self.seat)), np.float64, self.num_envs)

    # ------------------------------------------------------------------ opponents
    def add_snapshot(self, weights) -> None:
        """Add a frozen copy of the learner's policy (a PolicyWeights over this observation)."""
        if getattr(weights, "obs_size", None) != self.obs_size or getattr(weights, "num_actions", None) != self.num_actions:
            raise ValueError(f"a snapshot must be a PolicyWeights over {self.obs_size} inputs and "
                             f"{self.num_actions} actions")
        self.pool.add_snapshot(weights)

    def opponent_name(self, kind: int) -> str:
        return self.pool.kind_name(kind)

    def _new_games(self, games: np.ndarray) -> None:
        """Seat the learner, draw the opponent and (re)start the episode counters of `games` (dealt already)."""
        if self.seats == "rotate":
            self.seat[games] = (games + self.episodes[games]) % self.num_players
        elif self.seats == "random":
            self.seat[games] = self.rng.integers(self.num_players, size=games.size)
        else:
            self.seat[games] = self.seats
        self.episodes[games] += 1
        kinds = self.pool.draw(self.rng, games.size)
        self.opp[games] = kinds
        for kind, bots in self._bots.items():
            if self._movers[kind] == "agent":
                for i in games[kinds == kind]:
                    bots[i].reset(int(self.rng.integers(_SEED_SPACE)))
        self.ep_return[games] = 0.0
        self.ep_length[games] = 0
        self.game_steps[games] = 0
        self.phi[games] = 0.0  # a fresh deal's potential: the first step pays what happened before it

    def _uniform_legal(self, games: np.ndarray) -> np.ndarray:
        """A uniform legal move in each of `games` (indices) under the current masks, from the core's generator."""
        return np.argmax(np.where(self._mask[games], self.rng.random((games.size, self.num_actions)), -1.0), axis=1)

    def _opponent_actions(self, todo: np.ndarray, cur: np.ndarray) -> np.ndarray:
        """Each opponent's move in the games of `todo` (bool), batched where its kind allows."""
        b, nf = self.batch, len(self.fixed_names)
        b.legal_mask(out=self._mask)
        actions = np.zeros(self.num_envs, dtype=np.int64)
        for kind, mover in enumerate(self._movers):
            sel = todo & (self.opp == kind)
            if not sel.any():
                continue
            g = np.flatnonzero(sel)
            if mover == "random":
                actions[g] = self._uniform_legal(g)
            elif mover == "greedy":
                actions[g] = b.greedy_actions(self.rng, games=sel)[g]
            elif mover == "agent_batch":
                from tabletop_rl.agents.match import batch_bot_actions

                actions[g] = batch_bot_actions(self._bots[kind][0], b, sel, self.rng, mask=self._mask)[g]
            else:
                from tabletop_rl.agents.match import bot_action

                view = getattr(b, "view", b.state)  # a batch's live game where it lends one (no copy)
                for i in g:
                    actions[i] = bot_action(self._bots[kind][i], self.spec, view(int(i)), int(cur[i]),
                                            self.observation_options, mask=self._mask[i].copy())
            if self.opponent_epsilon > 0 and mover != "random":   # a weaker bot: some of its moves uniform
                h = g[self.rng.random(g.size) < self.opponent_epsilon]
                actions[h] = self._uniform_legal(h)
        snaps = todo & (self.opp >= nf)
        if snaps.any():
            obs = b.observe(np.where(snaps, cur, -1), out=self._obs)
            for k, weights in enumerate(self.pool.snapshot_list):
                sel = snaps & (self.opp == nf + k)
                if sel.any():
                    g = np.flatnonzero(sel)
                    logits = weights.logits(obs[g]).astype(np.float64)
                    logits = np.where(self._mask[g], logits, -np.inf)
                    actions[g] = np.argmax(logits + self.rng.gumbel(size=logits.shape), axis=1)
        return actions

    def _advance_opponents(self) -> None:
        """Play the opponents until the learner is to move (or the game is over or cut) in every game."""
        b = self.batch
        while True:
            cur = b.current_player
            todo = (cur >= 0) & (cur != self.seat)
            todo &= self.active
            if self.max_steps is not None:
                todo &= self.game_steps < self.max_steps
            if not todo.any():
                return
            b.step(self._opponent_actions(todo, cur), games=todo)
            self.game_steps += todo

    def _cut(self) -> np.ndarray:
        """bool (N,): unfinished games the step guard stops."""
        if self.max_steps is None:
            return np.zeros(self.num_envs, dtype=np.bool_)
        return (self.game_steps >= self.max_steps) & ~self.batch.terminated

    def _deal(self, games: np.ndarray) -> None:
        """Deal `games` (finished or cut) again and start their episodes, until the learner is to move in each."""
        b = self.batch
        while games.size:
            seeds = self.rng.integers(_SEED_SPACE, size=self.num_envs)
            cut = np.zeros(self.num_envs, dtype=np.bool_)
            cut[games] = True
            cut &= ~b.terminated
            for i in np.flatnonzero(cut):  # reset_done deals finished games only: a cut one is dealt here
                b.set_state(int(i), self.spec.new_state(num_players=self.num_players, seed=int(seeds[i]),
                                                        **self.rule_options))
            b.reset_done(seeds)
            self._new_games(games)
            self._advance_opponents()
            # a game that ended (or was cut) before the learner's first decision is dealt again
            again = b.terminated | self._cut()
            games = games[again[games]]

    def retire(self, games) -> None:
        """Stop playing `games` (indices) until the next `reset`: an evaluation that has its result
        from a game stops paying for it. A retired game is left as it is; its observation row is
        zeros, its reward 0 and it is never done. Not part of `get_state` (`set_state` plays all)."""
        self.active[np.asarray(games, dtype=np.int64)] = False

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(integers(seed, "seed"))
        self.active[:] = True
        self.episodes[:] = 0
        self.batch.reset(self.rng.integers(_SEED_SPACE, size=self.num_envs))
        games = np.arange(self.num_envs)
        self._new_games(games)
        self._advance_opponents()
        again = self.batch.terminated | self._cut()
        self._deal(games[again])

    # ------------------------------------------------------------------ the learner's side
    def learner_obs(self, out: np.ndarray | None = None) -> np.ndarray:
        """float32 (N, obs_size): the learner's observation in every game (it is to move in all of them)."""
        seats = self.seat if self.active.all() else np.where(self.active, self.seat, -1)
        return self.batch.observe(seats, out=self._obs if out is None else out)

    def masks(self) -> np.ndarray:
        """bool (N, num_actions): the learner's legal actions in every game (a copy: an engine may
        hand out its own buffer, which its next call overwrites)."""
        return self.batch.legal_mask().copy()

    def step(self, actions):
        """Apply the learner's actions, play the opponents, auto-reset finished games.

        Returns (rewards float32 (N,), dones bool (N,), finished: list of dicts, module docstring).
        """
        b = self.batch
        actions = integers(actions, "actions", (self.num_envs,))
        b.step(actions, games=self.active)  # the learner is to move in every game; an illegal action raises, changing nothing
        self.ep_length += self.active
        self.game_steps += self.active
        self._advance_opponents()
        ended = b.terminated & self.active
        cut = self._cut() & self.active
        dones = ended | cut
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        if self.reward_type != WIN_LOSS:
            phi = np.where(self.active, self._potential(), self.phi)
            rewards += phi - self.phi
            self.phi = phi
        if self.reward_fn is not None:
            rewards += self._user_reward(dones)
        finished = []
        if dones.any():
            g = np.flatnonzero(dones)
            returns = b.returns()
            ret = returns[g, self.seat[g]]
            result = ret if self.reward_type == WIN_LOSS else self.win_bonus * ret
            rewards[g] += np.where(cut[g], self.cut_reward, result)
            rewards *= self.reward_scale
            self.ep_return += rewards
            final_obs = b.observe(np.where(dones, self.seat, -1))[g]
            for j, i in enumerate(g):
                finished.append({"index": int(i), "terminal_observation": final_obs[j], "r": float(self.ep_return[i]),
                                 "l": int(self.ep_length[i]), "cut": bool(cut[i]), "returns": returns[i].copy(),
                                 "win_share": 0.0 if cut[i] else win_share(returns[i], int(self.seat[i])),
                                 "opponent": self.opponent_name(int(self.opp[i]))})
            self._deal(g)
        else:
            rewards *= self.reward_scale
            self.ep_return += rewards
        return rewards.astype(np.float32), dones, finished

    def _user_reward(self, dones: np.ndarray) -> np.ndarray:
        r = np.asarray(self.reward_fn(self.batch, self.seat.copy(), dones.copy()), dtype=np.float64)
        if r.shape != (self.num_envs,) or not np.isfinite(r).all():
            raise ValueError(f"reward_fn must return {self.num_envs} finite numbers; got shape {r.shape}")
        return r

    # ------------------------------------------------------------------ checkpoints (JSON + arrays, no pickle)
    def get_state(self, with_pool: bool = True) -> tuple[dict, dict]:
        """(JSON-able dict, {name: ndarray}) holding everything `set_state` needs: the games, the
        generators, the counters and (`with_pool`) the pool's snapshots. Without them (a pool shared
        by several cores is saved once, `OpponentPool.state_dict`) the arrays are empty."""
        snaps = self.pool.snapshot_list if with_pool is True else []
        meta = {
            "games": [self.batch.state(i).to_dict() for i in range(self.num_envs)],
            "rng": self.rng.bit_generator.state, "seat": self.seat.tolist(), "opp": self.opp.tolist(),
            "episodes": self.episodes.tolist(), "phi": self.phi.tolist(), "ep_return": self.ep_return.tolist(),
            "ep_length": self.ep_length.tolist(), "game_steps": self.game_steps.tolist(),
            "bot_rngs": {str(k): [bots[i].rng.bit_generator.state for i in range(len(bots))]
                         for k, bots in self._bots.items()},
        }
        if with_pool is True:
            meta["snapshots"] = [{"activation": s.activation, "layers": len(s.weights), "skip": [list(t) for t in s.skip],
                                  "meta": s.meta} for s in snaps]
            meta["snapshot_ids"], meta["next_snapshot_id"] = list(self.pool.snapshots), self.pool.next_id
        arrays = {f"snap{k}_{kind}{i}": a for k, s in enumerate(snaps)
                  for i, (w, b) in enumerate(s.weights) for kind, a in (("W", w), ("b", b))}
        return meta, arrays

    def set_state(self, meta: dict, arrays: dict) -> None:
        """Restore `get_state()`'s output; every field is checked (a checkpoint is a file from outside)
        before anything changes. A state saved without the pool keeps the pool as it is."""
        from tabletop_rl.agents.ppo_agent import policy_from_parts

        n = self.num_envs
        state_type = type(self.batch.state(0)) if self._dealt() else \
            type(self.spec.new_state(num_players=self.num_players, seed=0, **self.rule_options))
        try:
            games = [state_type.from_dict(d) for d in meta["games"]]
            if len(games) != n:
                raise ValueError(f"{len(games)} games for {n} envs")
            with_pool = "snapshots" in meta
            n_snaps = len(meta["snapshots"]) if with_pool else len(self.pool.snapshots)
            cols = {}
            for key, lo, hi in (("seat", 0, self.num_players), ("episodes", 0, None), ("ep_length", 0, None),
                                ("game_steps", 0, None), ("opp", 0, len(self.fixed_names) + n_snaps)):
                arr = np.asarray(meta[key])
                if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer) or (arr < lo).any() \
                        or (hi is not None and (arr >= hi).any()):
                    raise ValueError(f"{key} must be {n} ints in [{lo}, {hi})")
                cols[key] = arr.astype(np.int64)
            for key in ("phi", "ep_return"):
                arr = np.asarray(meta[key], dtype=np.float64)
                if arr.shape != (n,) or not np.isfinite(arr).all():
                    raise ValueError(f"{key} must be {n} finite numbers")
                cols[key] = arr
            bot_rngs = meta["bot_rngs"]
            if not isinstance(bot_rngs, dict) or set(bot_rngs) != {str(k) for k in self._bots} or \
                    any(len(bot_rngs[str(k)]) != len(b) for k, b in self._bots.items()):
                raise ValueError(f"bot_rngs must hold the generators of the bots {sorted(self._bots)}")
            rngs = {k: [_generator(s) for s in bot_rngs[str(k)]] for k in self._bots}
            snaps = {}
            if with_pool:
                # ids: older checkpoints (before the one pool) numbered their snapshots 0, 1, ...
                ids = meta.get("snapshot_ids", list(range(n_snaps)))
                next_id = meta.get("next_snapshot_id", n_snaps)
                if len(ids) != n_snaps or len(set(ids)) != n_snaps or not all(
                        type(i) is int and 0 <= i < next_id for i in ids) or type(next_id) is not int:
                    raise ValueError(f"snapshot_ids must be {n_snaps} distinct ints below next_snapshot_id")
                for k, (sid, s) in enumerate(zip(ids, meta["snapshots"])):
                    layers = [(np.asarray(arrays[f"snap{k}_W{i}"]), np.asarray(arrays[f"snap{k}_b{i}"]))
                              for i in range(int(s["layers"]))]
                    snaps[sid] = policy_from_parts(layers, s["activation"], dict(s["meta"]), [tuple(t) for t in s["skip"]])
                if any(getattr(s, "obs_size", None) != self.obs_size or s.num_actions != self.num_actions
                       for s in snaps.values()):
                    raise ValueError(f"snapshots must be over {self.obs_size} inputs and {self.num_actions} actions")
            rng = _generator(meta["rng"])
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            raise ValueError(f"env state: missing or malformed field ({type(e).__name__}: {e})") from None
        for i, s in enumerate(games):
            self.batch.set_state(i, s)
        for key, arr in cols.items():
            setattr(self, key, arr)
        for k, gens in rngs.items():
            for bot, gen in zip(self._bots[k], gens):
                bot.rng = gen
        if with_pool:
            keep = list(snaps)[-self.pool.max_snapshots:]
            self.pool.snapshots, self.pool.next_id = {k: snaps[k] for k in keep}, next_id
        self.rng = rng
        self.active[:] = True

    def _dealt(self) -> bool:
        try:
            self.batch.current_player
        except ValueError:
            return False
        return True


def winners(returns: np.ndarray) -> np.ndarray:
    """bool per seat: the winners of a finished game from its returns (the seats paid > 0; every
    seat if all returns are 0, a win shared by all)."""
    won = np.asarray(returns) > 0
    return won if won.any() or np.asarray(returns).any() else np.ones(won.size, dtype=np.bool_)


def win_share(returns: np.ndarray, seat: int) -> float:
    """A finished game's win share of `seat` from its returns: 1/k if it is one of k `winners`."""
    won = winners(returns)
    return 1.0 / int(won.sum()) if won[seat] else 0.0


def _generator(state) -> np.random.Generator:
    if not (isinstance(state, dict) and state.get("bit_generator") == "PCG64"):
        raise ValueError("a generator state must be a numpy PCG64 bit_generator.state dict")
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return rng


__all__ = ["BATCHES", "LearnerCore", "OpponentPool", "batch_class", "batch_only_options", "make_batch",
           "make_learner_core", "win_share", "winners"]
