"""Fae's learner envs, kept as thin faces of the one learner core (`tabletop_rl.training.learner`).

`FaeLearnerCore(num_envs, **kwargs)` is `LearnerCore(FaeBatch(...), "fae", ...)` with this
module's keyword arguments (the Fae batch's `history`, `action_features`, `big_stack_merge`, and
the core's); `FaeLearnerVecEnv` / `FaeLearnerVectorEnv` are `LearnerVecEnv` / `LearnerVectorEnv`
over it. New code can build the same from `make_learner_core("fae", ...)`; these names stay for
their users (train.py's checkpoints, notebooks, README). What follows describes the behaviour, which
is the core's.

    from tabletop_rl.training.fae_vector_env import FaeLearnerVecEnv
    venv = FaeLearnerVecEnv(num_envs=256, opponents={"random": 1.0, "greedy": 1.0}, seed=0)
    obs = venv.reset()                              # (N, D) float32: the learner's observation in every game
    masks = venv.action_masks()                     # (N, 330) bool: the learner's legal actions
    obs, rewards, dones, infos = venv.step(actions) # an SB3 VecEnv: MaskablePPO trains on it directly

`FaeLearnerVecEnv` is a Stable-Baselines3 `VecEnv` (with `action_masks()`, the sb3-contrib hook)
and `FaeLearnerVectorEnv` a Gymnasium `VectorEnv` (same-step autoreset: `infos["final_obs"]`,
`infos["final_info"]`; the learner's masks in `infos["action_mask"]` and `action_masks()`), both
over `FaeLearnerCore`, which holds the games and opponents and can drive any other loop (train.py's
batched warm start and evaluation use it directly).

    from tabletop_rl.training.fae_vector_env import FaeLearnerVectorEnv
    envs = FaeLearnerVectorEnv(num_envs=256, opponents={"greedy": 1.0}, seed=0)
    obs, infos = envs.reset(seed=0)
    obs, rewards, terminations, truncations, infos = envs.step(actions)   # actions legal under infos["action_mask"]

In every game the learner holds one seat, rotating with the game's episodes (game i's e-th episode
seats it at (i + e) mod num_players), and the other seats are ONE opponent per episode, drawn from
`opponents` (weights over registered bot names: "random", "greedy", your own) or, with chance
`snapshot_prob` once any exist, a frozen snapshot of the learner (`add_snapshot(PolicyWeights)`,
uniform over the `max_snapshots` latest). Opponents move inside `step`, batched: the uniformly
random legal move; the greedy bot's (`FaeBatch.greedy_actions`: one-move margin lookahead, ties
uniform); a snapshot's move sampled from its masked policy, one numpy forward for all games where
that snapshot is to move; another bot per game (`tabletop_rl.training.learner`). So every game handed
back has the learner to move. The core's other keywords (`reward_fn`, `max_steps`, `cut_reward`)
pass through `FaeLearnerCore`.

- Observation: `fae_rl.observe(state, learner_seat, history)` followed by the `action_features`
  blocks (`fae_rl.features`), exactly what `spec.observe(state, seat, history=..., action_features=...)`
  gives the scalar env, the arena and `PPOAgent` (tests/test_fae_vector_env.py holds them equal).
- Reward, credited to the learner only, as `SelfPlayEnv` pays it: `"score_diff"` pays the change in
  the learner's potential (own colour score + own ritual cards - best other colour's score) from one
  of its decisions to the next, opponents' moves included, plus `win_bonus` x its win/loss return
  at the end; `"win_loss"` only the return at the end; every reward times `reward_scale`.
  `"seat_diff"` (Fae's second potential, `FaeBatch`) is `"score_diff"` with the potential that decides the game: the
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

from tabletop_rl.envs.fae_batch import POTENTIALS, FaeBatch
from tabletop_rl.training.learner import LearnerCore
from tabletop_rl.training.learner_envs import LearnerVectorEnv, lazy_attribute
from tabletop_rl.envs.rewards import learner_rewards

FIXED_OPPONENTS = ("random", "greedy")  # the batched bots of the original env (any registered bot works now)
REWARDS = learner_rewards(POTENTIALS)  # win_loss and Fae's potentials (tabletop_rl.envs.rewards)


class FaeLearnerCore(LearnerCore):
    """`LearnerCore` over `FaeBatch` with the original keyword arguments (module docstring)."""

    def __init__(self, num_envs: int, num_players: int = 2, big_stack_merge: bool = False, history: str = "summary",
                 action_features: str = "margin", opponents: dict | None = None, snapshot_prob: float = 0.0,
                 max_snapshots: int = 8, reward: str = "score_diff", win_bonus: float = 0.0,
                 reward_scale: float = 1.0, seed: int = 0, **core_options):
        batch = FaeBatch(num_envs, num_players, big_stack_merge, history, action_features)
        super().__init__(batch, "fae", opponents=opponents, snapshot_prob=snapshot_prob, max_snapshots=max_snapshots,
                         reward=reward, win_bonus=win_bonus, reward_scale=reward_scale, seed=seed,
                         observation_options={"history": history, "action_features": action_features}, **core_options)
        self.history, self.action_features = history, action_features
        self.n_base, self.obs_low, self.obs_high = batch.n_base, batch.obs_low, batch.obs_high


class FaeLearnerVectorEnv(LearnerVectorEnv):
    """Gymnasium `VectorEnv` over `FaeLearnerCore` (module docstring): same-step autoreset."""

    def __init__(self, num_envs: int, **kwargs):
        super().__init__(FaeLearnerCore(num_envs, **kwargs))


def _sb3_vecenv():
    from tabletop_rl.training.learner_envs import LearnerVecEnv

    class FaeLearnerVecEnv(LearnerVecEnv):
        """SB3 VecEnv over `FaeLearnerCore` (module docstring); `action_masks()` for MaskablePPO."""

        def __init__(self, num_envs: int, **kwargs):
            super().__init__(FaeLearnerCore(num_envs, **kwargs))

    return FaeLearnerVecEnv


__getattr__ = lazy_attribute(globals(), "FaeLearnerVecEnv", _sb3_vecenv)


__all__ = ["FaeLearnerCore", "FaeLearnerVecEnv", "FaeLearnerVectorEnv"]
