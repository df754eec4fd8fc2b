"""One learner core for every game: N games of a `BatchedGame`, the learner at one seat of each.

    from tabletop_rl.envs.learner import make_learner_core
    core = make_learner_core("fantastiqa", num_envs=64, opponents={"random": 1, "greedy": 1}, seed=0)
    core.reset()
    obs, masks = core.learner_obs(), core.masks()      # (N, D) float32, (N, A) bool: the learner is to move everywhere
    rewards, dones, finished = core.step(actions)      # opponents move inside; finished games are dealt again

`make_learner_core(game, num_envs, num_players, **options)` takes the batch from `BATCHES` (a game
with a batched engine: Fae's `FaeBatch`) or else `ScalarBatch` (N scalar games: any registered
game, slower); `LearnerCore(batch, game, ...)` takes any `BatchedGame` you built. The faces over it
(`tabletop_rl.envs.learner_envs`: the SB3 `VecEnv`, the Gymnasium `VectorEnv` and single env) are
thin; so are the old names `FaeLearnerCore`, `FaeLearnerVecEnv`, `FaeLearnerVectorEnv`.

- Seats: game i's e-th episode seats the learner at (i + e) mod num_players; the other seats are
  ONE opponent per episode.
- Opponents, from one pool: `opponents` maps registered bot names (`tabletop_rl.agents.make_agent`:
  "random", "greedy", a user's own via `register_agent`) to weights; with chance `snapshot_prob`
  (once any exist) a frozen snapshot of the learner (`add_snapshot(PolicyWeights)`, uniform over the
  `max_snapshots` latest). Each moves in its batched form where it has one: "random" (uniform over
  the mask), "greedy" where the batch has `greedy_actions(rng, games)`, a bot whose agent has
  `act_batch(batch, games, rng)` (one call for all the games it moves in), a snapshot (one policy
  forward for every game it moves in); any other bot per game, through `agents.match.bot_action`
  on `batch.state(i)` (one Agent per game, reset each episode with a seed from the core's generator).
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
  shared by k, 0 lost or cut), `opponent` (its kind), `cut`.
- Actions must be integers (N,), legal in every game; anything else raises ValueError and changes
  nothing.
- Every draw (deals, opponent kinds, bot seeds, random moves, greedy ties, snapshot samples) comes
  from one numpy Generator seeded by `seed`: same seed, same actions, same games. `get_state()` /
  `set_state()` give and take all of it as JSON plus arrays (no pickle), for checkpoints.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

import numpy as np

from tabletop_rl.envs.game_state import BatchedGame, integers, missing_members
from tabletop_rl.envs.registry import GameSpec, get_game
from tabletop_rl.envs.scalar_batch import ScalarBatch

# Games with a batched engine: name -> "module:class", built as cls(num_envs, num_players, **options).
# Fantastiqa joins with one line once `fantastiqa_rl.vector.FantastiqaVector` exists (issue 25).
BATCHES = {"fae": "tabletop_rl.envs.fae_batch:FaeBatch", "fantastiqa": "tabletop_rl.envs.fantastiqa_batch:FantastiqaBatch"}
BUILTIN_REWARDS = ("win_loss",)
_SEED_SPACE = 2**62


def batch_class(game: str):
    """The batched engine class of `game` (BATCHES), or None: the game runs on ScalarBatch."""
    where = BATCHES.get(game)
    if where is None:
        return None
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


def make_batch(game, num_envs: int, num_players: int = 2, batched: bool = True, **options) -> BatchedGame:
    """N games of `game` with `options` (rule and observation options): its batched engine if it has
    one and `batched`, else `ScalarBatch`. Unknown options raise ValueError naming them."""
    spec = game if isinstance(game, GameSpec) else get_game(game)
    spec.check_options(options)
    cls = batch_class(spec.name) if batched is True else None
    if cls is None:
        return ScalarBatch(spec, num_envs, num_players, **options)
    return cls(num_envs, num_players, **options)


def make_learner_core(game, num_envs: int, num_players: int = 2, *, batched: bool = True, opponents=None,
                      snapshot_prob: float = 0.0, max_snapshots: int = 8, reward: str = "score_diff",
                      win_bonus: float = 0.0, reward_scale: float = 1.0, reward_fn=None, max_steps: int | None = None,
                      cut_reward: float = 0.0, seed: int = 0, **options) -> "LearnerCore":
    """A `LearnerCore` over `make_batch(game, num_envs, num_players, batched, **options)`."""
    spec = game if isinstance(game, GameSpec) else get_game(game)
    batch = make_batch(spec, num_envs, num_players, batched, **options)
    return LearnerCore(batch, spec, opponents=opponents, snapshot_prob=snapshot_prob, max_snapshots=max_snapshots,
                       reward=reward, win_bonus=win_bonus, reward_scale=reward_scale, reward_fn=reward_fn,
                       max_steps=max_steps, cut_reward=cut_reward, seed=seed,
                       rule_options=spec.split_options(options)[0], observation_options=spec.split_options(options)[1])


def _finite_weights(opponents) -> dict[str, float]:
    if not isinstance(opponents, dict) or not opponents or not all(isinstance(k, str) for k in opponents):
        raise ValueError(f"opponents must map bot names to weights; got {opponents!r}")
    try:
        w = {k: float(v) for k, v in opponents.items()}
    except (TypeError, ValueError):
        raise ValueError(f"opponents weights must be numbers; got {opponents!r}") from None
    if any(not np.isfinite(x) or x < 0 for x in w.values()) or sum(w.values()) <= 0:
        raise ValueError(f"opponents must map bot names to weights >= 0 with a positive sum; got {opponents!r}")
    return {k: x for k, x in w.items() if x > 0}


class LearnerCore:
    """The learner's view of a `BatchedGame` (see the module docstring)."""

    def __init__(self, batch: BatchedGame, game, opponents: dict | None = None, snapshot_prob: float = 0.0,
                 max_snapshots: int = 8, reward: str = "score_diff", win_bonus: float = 0.0,
                 reward_scale: float = 1.0, reward_fn: Callable[..., Any] | None = None, max_steps: int | None = None,
                 cut_reward: float = 0.0, seed: int = 0, rule_options: dict | None = None,
                 observation_options: dict | None = None):
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
        if reward not in BUILTIN_REWARDS + self.potentials:
            raise ValueError(f"reward must be one of {BUILTIN_REWARDS + self.potentials}; got {reward!r}")
        if reward_fn is not None and not callable(reward_fn):
            raise ValueError(f"reward_fn must be callable(batch, seats, dones); got {reward_fn!r}")
        weights = _finite_weights({"random": 1.0} if opponents is None else opponents)
        unknown = sorted(set(weights) - set(agent_names(self.spec.name)))
        if unknown:
            raise ValueError(f"unknown opponent(s) {unknown} for {self.spec.name}; known: {agent_names(self.spec.name)}")
        for name, value in (("snapshot_prob", snapshot_prob), ("win_bonus", win_bonus), ("reward_scale", reward_scale),
                            ("cut_reward", cut_reward)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(value):
                raise ValueError(f"{name} must be a finite number; got {value!r}")
        if not 0.0 <= snapshot_prob <= 1.0:
            raise ValueError(f"snapshot_prob must be in [0, 1]; got {snapshot_prob!r}")
        max_steps = self.spec.max_steps if max_steps is None else max_steps
        for name, value in (("max_snapshots", max_snapshots), ("max_steps", max_steps)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
                raise ValueError(f"{name} must be an int >= 1{' or None' if name == 'max_steps' else ''}; got {value!r}")
        self.reward_type, self.win_bonus, self.reward_scale = reward, float(win_bonus), float(reward_scale)
        self.reward_fn = reward_fn
        self.max_steps, self.cut_reward = (None if max_steps is None else int(max_steps)), float(cut_reward)
        self.fixed_names = list(weights)
        w = np.asarray([weights[k] for k in self.fixed_names], dtype=np.float64)
        self.fixed_p = w / w.sum()
        # How each fixed kind moves: "random", "greedy" (batched), "agent_batch" or "agent" (per game).
        self._bots: dict[int, list] = {}
        self._movers = []
        for k, name in enumerate(self.fixed_names):
            if name == "random":
                self._movers.append("random")
            elif name == "greedy" and hasattr(batch, "greedy_actions"):
                self._movers.append("greedy")
            else:
                probe = make_agent(self.spec.name, name, seed=0)
                if hasattr(probe, "act_batch"):
                    self._bots[k] = [probe]
                    self._movers.append("agent_batch")
                else:
                    self._bots[k] = [probe] + [make_agent(self.spec.name, name, seed=0)
                                               for _ in range(self.num_envs - 1)]
                    self._movers.append("agent")
        self.snapshot_prob, self.max_snapshots = float(snapshot_prob), int(max_snapshots)
        self.snapshots: list = []  # PolicyWeights, oldest first
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

    # ------------------------------------------------------------------ rewards
    def _potential_names(self) -> tuple[str, ...]:
        """The potentials this batch pays: its own `POTENTIALS`, else the spec's score_diff (per game)."""
        own = getattr(self.batch, "POTENTIALS", None)
        if own is not None:
            return tuple(own)
        return ("score_diff",) if self.spec.potential is not None else ()

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
        self.snapshots.append(weights)
        del self.snapshots[:-self.max_snapshots]

    def opponent_name(self, kind: int) -> str:
        return self.fixed_names[kind] if kind < len(self.fixed_names) else "snapshot"

    def _new_games(self, games: np.ndarray) -> None:
        """Seat the learner, draw the opponent and (re)start the episode counters of `games` (dealt already)."""
        self.seat[games] = (games + self.episodes[games]) % self.num_players
        self.episodes[games] += 1
        k = games.size
        kinds = self.rng.choice(len(self.fixed_names), size=k, p=self.fixed_p)
        if self.snapshots and self.snapshot_prob > 0:
            snap = self.rng.random(k) < self.snapshot_prob
            kinds = np.where(snap, len(self.fixed_names) + self.rng.integers(len(self.snapshots), size=k), kinds)
        self.opp[games] = kinds
        for kind, bots in self._bots.items():
            if self._movers[kind] == "agent":
                for i in games[kinds == kind]:
                    bots[i].reset(int(self.rng.integers(_SEED_SPACE)))
        self.ep_return[games] = 0.0
        self.ep_length[games] = 0
        self.game_steps[games] = 0
        self.phi[games] = 0.0  # a fresh deal's potential: the first step pays what happened before it

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
                actions[g] = np.argmax(np.where(self._mask[g], self.rng.random((g.size, self.num_actions)), -1.0), axis=1)
            elif mover == "greedy":
                actions[g] = b.greedy_actions(self.rng, games=sel)[g]
            elif mover == "agent_batch":
                actions[g] = np.asarray(self._bots[kind][0].act_batch(b, sel, self.rng))[g]
            else:
                from tabletop_rl.agents.match import bot_action

                view = getattr(b, "view", b.state)  # a batch's live game where it lends one (no copy)
                for i in g:
                    actions[i] = bot_action(self._bots[kind][i], self.spec, view(int(i)), int(cur[i]),
                                            self.observation_options)
        snaps = todo & (self.opp >= nf)
        if snaps.any():
            obs = b.observe(np.where(snaps, cur, -1), out=self._obs)
            for k in range(len(self.snapshots)):
                sel = snaps & (self.opp == nf + k)
                if sel.any():
                    g = np.flatnonzero(sel)
                    logits = self.snapshots[k].logits(obs[g]).astype(np.float64)
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
        if self.reward_type != "win_loss":
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
            result = ret if self.reward_type == "win_loss" else self.win_bonus * ret
            rewards[g] += np.where(cut[g], self.cut_reward, result)
            rewards *= self.reward_scale
            self.ep_return += rewards
            final_obs = b.observe(np.where(dones, self.seat, -1))[g]
            for j, i in enumerate(g):
                finished.append({"index": int(i), "terminal_observation": final_obs[j], "r": float(self.ep_return[i]),
                                 "l": int(self.ep_length[i]), "cut": bool(cut[i]),
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
    def get_state(self) -> tuple[dict, dict]:
        """(JSON-able dict, {name: ndarray}) holding everything `set_state` needs (snapshots included)."""
        meta = {
            "games": [self.batch.state(i).to_dict() for i in range(self.num_envs)],
            "rng": self.rng.bit_generator.state, "seat": self.seat.tolist(), "opp": self.opp.tolist(),
            "episodes": self.episodes.tolist(), "phi": self.phi.tolist(), "ep_return": self.ep_return.tolist(),
            "ep_length": self.ep_length.tolist(), "game_steps": self.game_steps.tolist(),
            "bot_rngs": {str(k): [bots[i].rng.bit_generator.state for i in range(len(bots))]
                         for k, bots in self._bots.items()},
            "snapshots": [{"activation": s.activation, "layers": len(s.weights), "skip": [list(t) for t in s.skip],
                           "meta": s.meta} for s in self.snapshots],
        }
        arrays = {f"snap{k}_{kind}{i}": a for k, s in enumerate(self.snapshots)
                  for i, (w, b) in enumerate(s.weights) for kind, a in (("W", w), ("b", b))}
        return meta, arrays

    def set_state(self, meta: dict, arrays: dict) -> None:
        """Restore `get_state()`'s output; every field is checked (a checkpoint is a file from outside)
        before anything changes."""
        from tabletop_rl.agents.ppo_agent import PolicyWeights

        n = self.num_envs
        state_type = type(self.batch.state(0)) if self._dealt() else \
            type(self.spec.new_state(num_players=self.num_players, seed=0, **self.rule_options))
        try:
            games = [state_type.from_dict(d) for d in meta["games"]]
            if len(games) != n:
                raise ValueError(f"{len(games)} games for {n} envs")
            cols = {}
            for key, lo, hi in (("seat", 0, self.num_players), ("episodes", 0, None), ("ep_length", 0, None),
                                ("game_steps", 0, None), ("opp", 0, len(self.fixed_names) + len(meta["snapshots"]))):
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
            snaps = []
            for k, s in enumerate(meta["snapshots"]):
                layers = [(np.asarray(arrays[f"snap{k}_W{i}"]), np.asarray(arrays[f"snap{k}_b{i}"]))
                          for i in range(int(s["layers"]))]
                snaps.append(PolicyWeights(layers, s["activation"], dict(s["meta"]), [tuple(t) for t in s["skip"]]))
            if any(getattr(s, "obs_size", None) != self.obs_size or s.num_actions != self.num_actions for s in snaps):
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
        self.snapshots = snaps[-self.max_snapshots:]
        self.rng = rng
        self.active[:] = True

    def _dealt(self) -> bool:
        try:
            self.batch.current_player
        except ValueError:
            return False
        return True


def win_share(returns: np.ndarray, seat: int) -> float:
    """A finished game's win share of `seat` from its returns: 1/k if it is one of k winners (the
    seats paid > 0), 1/N if every seat won (all returns 0), else 0."""
    won = returns > 0
    k = int(won.sum())
    if k == 0:
        return 1.0 / returns.size if not returns.any() else 0.0
    return 1.0 / k if won[seat] else 0.0


def _generator(state) -> np.random.Generator:
    if not (isinstance(state, dict) and state.get("bit_generator") == "PCG64"):
        raise ValueError("a generator state must be a numpy PCG64 bit_generator.state dict")
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    return rng


__all__ = ["BATCHES", "LearnerCore", "batch_class", "make_batch", "make_learner_core", "win_share"]
