"""The learner's view of N Fae games stepped together (`fae_rl.vector.FaeVector`), for fast self-play PPO.

    from tabletop_rl.envs.fae_vector_env import FaeLearnerVecEnv
    venv = FaeLearnerVecEnv(num_envs=256, opponents={"random": 1.0, "greedy": 1.0}, seed=0)
    obs = venv.reset()                              # (N, D) float32: the learner's observation in every game
    masks = venv.action_masks()                     # (N, 330) bool: the learner's legal actions
    obs, rewards, dones, infos = venv.step(actions) # an SB3 VecEnv: MaskablePPO trains on it directly

`FaeLearnerVecEnv` is a Stable-Baselines3 `VecEnv` (with `action_masks()`, the sb3-contrib hook)
and `FaeLearnerVectorEnv` a Gymnasium `VectorEnv` (same-step autoreset: `infos["final_obs"]`,
`infos["final_info"]`; the learner's masks in `infos["action_mask"]` and `action_masks()`), both
over `FaeLearnerCore`, which holds the games and opponents and can drive any other loop (train.py's
batched warm start and evaluation use it directly).

    from tabletop_rl.envs.fae_vector_env import FaeLearnerVectorEnv
    envs = FaeLearnerVectorEnv(num_envs=256, opponents={"greedy": 1.0}, seed=0)
    obs, infos = envs.reset(seed=0)
    obs, rewards, terminations, truncations, infos = envs.step(actions)   # actions legal under infos["action_mask"]

In every game the learner holds one seat, rotating with the game's episodes (game i's e-th episode
seats it at (i + e) mod num_players), and the other seats are ONE opponent per episode, drawn from
`opponents` (weights over "random", "greedy") or, with chance `snapshot_prob` once any exist, a
frozen snapshot of the learner (`add_snapshot(PolicyWeights)`, uniform over the `max_snapshots`
latest). Opponents move inside `step`, batched: the uniformly random legal move; the greedy bot's
(`FaeVector.greedy_actions`: one-move margin lookahead, ties uniform); a snapshot's move sampled
from its masked policy, one numpy forward for all games where that snapshot is to move. So every
game handed back has the learner to move.

- Observation: `fae_rl.observe(state, learner_seat, history)` followed by the `action_features`
  blocks (`fae_rl.features`), exactly what `spec.observe(state, seat, history=..., action_features=...)`
  gives the scalar env, the arena and `PPOAgent` (tests/test_fae_vector_env.py holds them equal).
- Reward, credited to the learner only, as `SelfPlayEnv` pays it: `"score_diff"` pays the change in
  the learner's potential (own colour score + own ritual cards - best other colour's score) from one
  of its decisions to the next, opponents' moves included, plus `win_bonus` x its win/loss return
  at the end; `"win_loss"` only the return at the end; every reward times `reward_scale`.
  `"seat_diff"` (this env only) is `"score_diff"` with the potential that decides the game: the
  learner's final colour score so far (F-E2) minus the best among the other SEATS' colours (F-E3),
  not among all other colours. It reads the other seats' secret colours: a training signal, never
  part of an observation (the policy and value net still see only the learner's view).
- Auto-reset: a game that ends is dealt again at once (its seed from the env's generator); that
  step returns `done=True`, the new game's first observation, and in `infos[i]`:
  `terminal_observation` (the learner's view of the final position), `episode` ({"r": return,
  "l": learner decisions}, as SB3's Monitor), `win_share` (its win/loss share: 1 won, 1/k shared
  by k, 0 lost), `opponent` (its kind).
- Every random draw (deals, seats are fixed by rotation, opponent kinds, random moves, greedy ties,
  snapshot samples) comes from one numpy Generator seeded by `seed`, so same seed, same actions,
  same games. `get_state()` / `set_state()` give and take all of it as JSON plus arrays (no pickle),
  for train.py's checkpoints.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fae_rl.board import NUM_ACTIONS, NUM_COLOURS
from fae_rl.features import action_features_size, batch_features, check_action_features, feature_bounds
from fae_rl.observation import _check_history, observation_high, observation_size
from fae_rl.state import FaeState
from fae_rl.vector import FaeVector
from tabletop_rl.envs.game_state import integers

FIXED_OPPONENTS = ("random", "greedy")
REWARDS = ("win_loss", "score_diff", "seat_diff")
_SEED_SPACE = 2**62


class FaeLearnerCore:
    """The batched games and opponents behind both adapters (see the module docstring)."""

    def __init__(self, num_envs: int, num_players: int = 2, big_stack_merge: bool = False, history: str = "summary",
                 action_features: str = "margin", opponents: dict | None = None, snapshot_prob: float = 0.0,
                 max_snapshots: int = 8, reward: str = "score_diff", win_bonus: float = 0.0,
                 reward_scale: float = 1.0, seed: int = 0):
        _check_history(history)
        check_action_features(action_features)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}; got {reward!r}")
        opponents = {"random": 1.0} if opponents is None else dict(opponents)
        bad = sorted(set(opponents) - set(FIXED_OPPONENTS))
        if bad or not opponents or any(not np.isfinite(w) or w < 0 for w in opponents.values()) \
                or sum(opponents.values()) <= 0:
            raise ValueError(f"opponents must map some of {FIXED_OPPONENTS} to weights >= 0 with a positive sum; "
                             f"got {opponents!r}")
        if not 0.0 <= snapshot_prob <= 1.0:
            raise ValueError(f"snapshot_prob must be in [0, 1]; got {snapshot_prob!r}")
        if int(max_snapshots) < 1:
            raise ValueError(f"max_snapshots must be >= 1; got {max_snapshots!r}")
        self.vec = FaeVector(num_envs, num_players, big_stack_merge)
        self.num_envs, self.num_players = self.vec.num_envs, self.vec.num_players
        self.history, self.action_features = history, action_features
        self.reward_type, self.win_bonus, self.reward_scale = reward, float(win_bonus), float(reward_scale)
        self.fixed_names = [k for k in FIXED_OPPONENTS if opponents.get(k, 0) > 0]
        w = np.asarray([opponents[k] for k in self.fixed_names], dtype=np.float64)
        self.fixed_p = w / w.sum()
        self.snapshot_prob, self.max_snapshots = float(snapshot_prob), int(max_snapshots)
        self.snapshots: list = []  # PolicyWeights, oldest first
        self.n_base = observation_size(history)
        self.obs_size = self.n_base + action_features_size(action_features)
        low, high = feature_bounds(action_features)
        self.obs_low = np.concatenate([np.zeros(self.n_base, dtype=np.float32), low])
        self.obs_high = np.concatenate([observation_high(history), high])
        n = self.num_envs
        self.rng = np.random.default_rng(seed)
        self.seat = np.zeros(n, dtype=np.int64)  # the learner's seat in each game
        self.opp = np.zeros(n, dtype=np.int64)  # opponent kind: index into fixed_names, or len(fixed) + snapshot index
        self.episodes = np.zeros(n, dtype=np.int64)  # episodes begun per game (the seat rotation)
        self.phi = np.zeros(n, dtype=np.float64)
        self.ep_return = np.zeros(n, dtype=np.float64)
        self.ep_length = np.zeros(n, dtype=np.int64)
        self._obs = np.zeros((n, self.obs_size), dtype=np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
        self._margins = np.zeros((n, NUM_ACTIONS), dtype=np.float64)
        self._feat = np.zeros((n, action_features_size(action_features)), dtype=np.float32)
        self._base = np.zeros((n, self.n_base), dtype=np.float32)

    # ------------------------------------------------------------------ opponents
    def add_snapshot(self, weights) -> None:
        """Add a frozen copy of the learner's policy (a PolicyWeights over this observation)."""
        if getattr(weights, "obs_size", None) != self.obs_size or getattr(weights, "num_actions", None) != NUM_ACTIONS:
            raise ValueError(f"a snapshot must be a PolicyWeights over {self.obs_size} inputs and {NUM_ACTIONS} actions")
        self.snapshots.append(weights)
        del self.snapshots[:-self.max_snapshots]

    def _draw_opponents(self, games: np.ndarray) -> None:
        k = games.size
        kinds = self.rng.choice(len(self.fixed_names), size=k, p=self.fixed_p)
        if self.snapshots and self.snapshot_prob > 0:
            snap = self.rng.random(k) < self.snapshot_prob
            kinds = np.where(snap, len(self.fixed_names) + self.rng.integers(len(self.snapshots), size=k), kinds)
        self.opp[games] = kinds

    def opponent_name(self, kind: int) -> str:
        return self.fixed_names[kind] if kind < len(self.fixed_names) else "snapshot"

    # ------------------------------------------------------------------ games
    def _potential(self) -> np.ndarray:
        v, idx = self.vec, np.arange(self.num_envs)
        if self.reward_type == "seat_diff":  # the final margin so far: only the seats' colours compete (F-E3)
            final = np.take_along_axis(v.final_colour_scores(), v.colours(), axis=1).astype(np.float64)
            mine = final[idx, self.seat]
            final[idx, self.seat] = -np.inf
            return mine - final.max(axis=1)
        scores = v.scores().astype(np.float64)
        own = v.colours()[idx, self.seat]
        mine = scores[idx, own] + v.ritual_cards()[idx, self.seat]
        scores[idx, own] = -np.inf
        return mine - scores.max(axis=1)

    def _new_games(self, games: np.ndarray) -> None:
        """Seat the learner, draw the opponent and (re)start the episode counters of `games` (dealt already)."""
        self.seat[games] = (games + self.episodes[games]) % self.num_players
        self.episodes[games] += 1
        self._draw_opponents(games)
        self.ep_return[games] = 0.0
        self.ep_length[games] = 0

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(integers(seed, "seed"))
        self.episodes[:] = 0
        self.vec.reset(self.rng.integers(_SEED_SPACE, size=self.num_envs))
        self._new_games(np.arange(self.num_envs))
        self._advance_opponents()
        self.phi = np.zeros(self.num_envs)  # a fresh deal's potential: the first step pays the opponents' moves before it

    def _observe(self, seats: np.ndarray, out: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The observation of `seats`; action features only in `rows` where that seat is the mover (F-I1)."""
        self.vec.observe(seats=seats, history=self.history, out=self._base)
        out[:, :self.n_base] = self._base
        if self._feat.shape[1]:
            batch_features(self.vec, self.action_features, rows & (seats == self.vec.current_player), self._feat,
                           margins=self._margins)
            out[:, self.n_base:] = self._feat
        return out

    def _advance_opponents(self) -> None:
        """Play the opponents' moves until the learner is to move in every unfinished game."""
        v = self.vec
        nf = len(self.fixed_names)
        while True:
            cur = v.current_player
            todo = (cur >= 0) & (cur != self.seat)
            if not todo.any():
                return
            v.legal_mask(out=self._mask)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            rand = todo & (self.opp == self._fixed_index("random"))
            if rand.any():
                g = np.flatnonzero(rand)
                actions[g] = _sample_uniform(self._mask[g], self.rng)
            greedy = todo & (self.opp == self._fixed_index("greedy"))
            if greedy.any():
                g = np.flatnonzero(greedy)
                actions[g] = _pick_best(v.margins(out=self._margins, games=greedy)[g], self.rng)
            snaps = todo & (self.opp >= nf)
            if snaps.any():
                obs = self._observe(cur, self._obs, snaps)
                for k in range(len(self.snapshots)):
                    snap = snaps & (self.opp == nf + k)
                    if snap.any():
                        g = np.flatnonzero(snap)
                        logits = self.snapshots[k].logits(obs[g]).astype(np.float64)
                        logits = np.where(self._mask[g], logits, -np.inf)
                        actions[g] = np.argmax(logits + self.rng.gumbel(size=logits.shape), axis=1)
            v.step(actions, games=todo)

    def _fixed_index(self, name: str) -> int:
        return self.fixed_names.index(name) if name in self.fixed_names else -2

    def learner_obs(self, out: np.ndarray) -> np.ndarray:
        """The learner's observation in every game (it is to move in all of them after a step)."""
        return self._observe(self.seat, out, ~self.vec.terminated)

    def masks(self) -> np.ndarray:
        return self.vec.legal_mask()

    def step(self, actions: np.ndarray):
        """Apply the learner's actions, play the opponents, auto-reset finished games.

        Returns (rewards, dones, finished) where `finished` lists, per finished game, a dict with
        its index, terminal observation, episode return and length, win share and opponent kind.
        """
        v = self.vec
        actions = integers(actions, "actions", (self.num_envs,))
        v.step(actions)  # every game has the learner to move; illegal actions raise and change nothing
        self.ep_length += 1
        self._advance_opponents()
        phi = self._potential()
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        if self.reward_type != "win_loss":
            rewards += phi - self.phi
        dones = v.terminated.copy()
        finished = []
        if dones.any():
            g = np.flatnonzero(dones)
            ret = v.returns()[g, self.seat[g]]
            rewards[g] += ret if self.reward_type == "win_loss" else self.win_bonus * ret
            rewards *= self.reward_scale
            self.ep_return += rewards
            won = v.winners()[g]
            final_obs = np.zeros((g.size, self.obs_size), dtype=np.float32)
            final_obs[:, :self.n_base] = v.observe(seats=self.seat, history=self.history)[g]
            for j, i in enumerate(g):
                k = int(won[j].sum())
                share = (1.0 / k if won[j, self.seat[i]] else 0.0) if k else 0.0
                finished.append({"index": int(i), "terminal_observation": final_obs[j], "r": float(self.ep_return[i]),
                                 "l": int(self.ep_length[i]), "win_share": share,
                                 "opponent": self.opponent_name(int(self.opp[i]))})
            v.reset_done(self.rng.integers(_SEED_SPACE, size=self.num_envs))
            self._new_games(g)
            self._advance_opponents()
            phi[g] = 0.0  # a fresh deal's potential (see reset)
        else:
            rewards *= self.reward_scale
            self.ep_return += rewards
        self.phi = phi
        return rewards.astype(np.float32), dones, finished

    # ------------------------------------------------------------------ checkpoints (JSON + arrays, no pickle)
    def get_state(self) -> tuple[dict, dict]:
        """(JSON-able dict, {name: ndarray}) holding everything `set_state` needs (snapshots included)."""
        meta = {
            "games": [self.vec.state(i).to_dict() for i in range(self.num_envs)],
            "rng": self.rng.bit_generator.state, "seat": self.seat.tolist(), "opp": self.opp.tolist(),
            "episodes": self.episodes.tolist(), "phi": self.phi.tolist(), "ep_return": self.ep_return.tolist(),
            "ep_length": self.ep_length.tolist(),
            "snapshots": [{"activation": s.activation, "layers": len(s.weights), "skip": [list(t) for t in s.skip],
                           "meta": s.meta} for s in self.snapshots],
        }
        arrays = {f"snap{k}_{kind}{i}": a for k, s in enumerate(self.snapshots)
                  for i, (w, b) in enumerate(s.weights) for kind, a in (("W", w), ("b", b))}
        return meta, arrays

    def set_state(self, meta: dict, arrays: dict) -> None:
        """Restore `get_state()`'s output; every field is checked (a checkpoint is a file from outside)."""
        from tabletop_rl.agents.ppo_agent import PolicyWeights

        n = self.num_envs
        try:
            games = [FaeState.from_dict(d) for d in meta["games"]]
            if len(games) != n:
                raise ValueError(f"{len(games)} games for {n} envs")
            cols = {}
            for key, lo, hi in (("seat", 0, self.num_players), ("episodes", 0, None), ("ep_length", 0, None),
                                ("opp", 0, len(self.fixed_names) + len(meta["snapshots"]))):
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
            snaps = []
            for k, s in enumerate(meta["snapshots"]):
                layers = [(np.asarray(arrays[f"snap{k}_W{i}"]), np.asarray(arrays[f"snap{k}_b{i}"]))
                          for i in range(int(s["layers"]))]
                snaps.append(PolicyWeights(layers, s["activation"], dict(s["meta"]), [tuple(t) for t in s["skip"]]))
            rng = np.random.default_rng()
            rng.bit_generator.state = meta["rng"]
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError(f"env state: missing or malformed field ({type(e).__name__}: {e})") from None
        for i, s in enumerate(games):
            self.vec.set_state(i, s)
        for key, arr in cols.items():
            setattr(self, key, arr)
        self.snapshots = []
        for s in snaps:
            self.add_snapshot(s)
        self.rng = rng


def _sample_uniform(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a bool mask."""
    return np.argmax(np.where(mask, rng.random(mask.shape), -1.0), axis=1)


def _pick_best(margins: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, one of the actions of largest margin (ties uniform): the greedy bot's choice."""
    best = margins == margins.max(axis=1, keepdims=True)
    return np.argmax(np.where(best, rng.random(margins.shape), -1.0), axis=1)


# ---------------------------------------------------------------------------- Gymnasium
class FaeLearnerVectorEnv(VectorEnv):
    """Gymnasium `VectorEnv` over `FaeLearnerCore` (module docstring): same-step autoreset."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, **kwargs):
        self.core = c = FaeLearnerCore(num_envs, **kwargs)
        self.num_envs = c.num_envs
        self.single_observation_space = spaces.Box(c.obs_low, c.obs_high, shape=(c.obs_size,), dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._buf = np.zeros((c.num_envs, c.obs_size), dtype=np.float32)
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
        if finished:
            final_obs = np.full(self.num_envs, None, dtype=object)
            final_info = np.full(self.num_envs, None, dtype=object)
            for f in finished:
                final_obs[f["index"]] = f["terminal_observation"]
                final_info[f["index"]] = {"episode": {"r": f["r"], "l": f["l"]}, "win_share": f["win_share"],
                                          "opponent": f["opponent"]}
            infos.update(final_obs=final_obs, _final_obs=dones.copy(), final_info=final_info, _final_info=dones.copy())
        return obs, rewards, dones, np.zeros(self.num_envs, dtype=np.bool_), infos

    def action_masks(self) -> np.ndarray:
        """bool (N, 330): the learner's legal actions in every game."""
        return self.core.masks()


# ---------------------------------------------------------------------------- Stable-Baselines3
def _sb3_vecenv():
    from stable_baselines3.common.vec_env import VecEnv

    class FaeLearnerVecEnv(VecEnv):
        """SB3 VecEnv over `FaeLearnerCore` (module docstring); `action_masks()` for MaskablePPO."""

        def __init__(self, num_envs: int, **kwargs):
            self.core = FaeLearnerCore(num_envs, **kwargs)
            c = self.core
            obs_space = spaces.Box(c.obs_low, c.obs_high, shape=(c.obs_size,), dtype=np.float32)
            super().__init__(c.num_envs, obs_space, spaces.Discrete(NUM_ACTIONS))
            self._actions = None
            self._buf = np.zeros((c.num_envs, c.obs_size), dtype=np.float32)
            self._seed = None

        def seed(self, seed: int | None = None):
            self._seed = seed
            return [seed] * self.num_envs

        def reset(self):
            self.core.reset(self._seed)
            self._seed = None
            return self.core.learner_obs(self._buf).copy()

        def step_async(self, actions):
            self._actions = integers(actions, "actions", (self.num_envs,))

        def step_wait(self):
            rewards, dones, finished = self.core.step(self._actions)
            obs = self.core.learner_obs(self._buf).copy()
            infos = [{} for _ in range(self.num_envs)]
            for f in finished:
                infos[f["index"]] = {"terminal_observation": f["terminal_observation"], "TimeLimit.truncated": False,
                                     "episode": {"r": f["r"], "l": f["l"]}, "win_share": f["win_share"],
                                     "opponent": f["opponent"]}
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

    return FaeLearnerVecEnv


def __getattr__(name):  # the SB3 class is built on first use: Stable-Baselines3 is imported only then
    if name == "FaeLearnerVecEnv":
        cls = _sb3_vecenv()
        globals()[name] = cls
        return cls
    raise AttributeError(name)


__all__ = ["FaeLearnerCore", "FaeLearnerVecEnv", "FaeLearnerVectorEnv"]
