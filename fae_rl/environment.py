"""
# Fae

| Import | `from fae_rl import env` (or `pettingzoo.make("aec", "fae_v0")`, `tabletop_rl.envs.make("fae_v0")`) |
|---|---|
| Actions | Discrete(330) |
| Parallel API | Yes, through `pettingzoo.utils.conversions.turn_based_aec_to_parallel(env)` (turn-based: the mover's action is applied, the others' ignored; `aec_to_parallel` refuses it; docs/usage/envs.md) |
| Agents | `agents = ['player_0', ..., 'player_{N-1}']`, N = 2..4 |
| Observation shape | Dict: `observation` Box(float32, (1703,)) with history="summary", (863,) with "none"; `action_mask` Box(int8, (330,)) |
| Observation values | [0, 1] for most features; see `fae_rl.observation_layout()` and `observation_high()` |

Fae (Leo Colovini, Z-Man Games, 2018; a re-theme of *Clans*) is a hidden-identity abstract game for
2-4 players. Sixty druids of five colours stand on a board of 60 spaces. Each player secretly holds
one colour; the other colours are neutral but score too. On your turn you move ALL druids of one
space onto an adjacent occupied space. A stack that ends up with no occupied neighbour is
isolated: a ritual scores it (with curse, strife and blessing from the next ritual card) for every
colour present there. After 12 rituals (or when the player to move cannot move) spirits are
revealed; each ritual card a player took is +1 for its colour, and the highest player colour wins.
The skill is to score your colour without showing which one it is, and to infer the others'.
Rules: `docs/rules/fae.md` (ids F-x). The board is the published Clans board, which reviews
report identical to Fae's.

### Arguments

``` python
fae_rl.env(num_players=2, big_stack_merge=False, history="summary", reward="win_loss", action_features="none",
           render_mode=None)
```

- `num_players`: 2, 3 or 4.
- The rule options (`fae_rl.options.RULE_OPTIONS`, the default first):

{rule_options}
- `history`: `"summary"` adds, for each other seat, the druids of each colour it has moved, the
  points each colour gained from rituals it triggered and its last move (the evidence from which
  a memoryless policy can infer colours); `"none"` leaves them out.
- `action_features`: `"none"` (default), `"margin"` or `"versus"`: `"margin"` appends, per action,
  its greedy one-move margin and whether it is one of the greedy bot's best (660 features);
  `"versus"` adds, per action, the mover's own gain and its margin against the colours the other
  seats most likely hold, guessed from the public history (1,320 features in all). See
  `fae_rl.features`; zeros for a seat not to move. The options stored in a trained policy's
  metadata say which one it was trained on (the shipped versions: `fae_rl/policies/versions.json`).
- `reward`: `"win_loss"` (at the end only: k winners of N get +1/k each, losers -1/(N-k) each; all 0
  if all win) or `"score_diff"` (dense and potential-based: phi = own colour score + own ritual
  cards - best other colour's score; rewards are phi differences, so they sum to the final
  margin; phi uses only what the agent may know).
- `render_mode`: `"ansi"` (text board), `"rgb_array"` (image), `"human"` (prints the text board).

### Observation space

A dict with `observation` (seat-relative, padded to 4 seats; blocks named by
`observation_layout(history)`): druids per colour per space (/12), occupied / resolved / pending
flags, for each space its occupied neighbours and how many spaces would be isolated if its
stack moved away (derived from the public board, so a memoryless policy sees which moves trigger
rituals), terrain one-hot, ritual cards left per value, the 5 colour scores (/100), ritual cards held
per seat, which seats exist, the agent's own colour one-hot; with `history="summary"` then per
other seat: moved druids per colour, points per colour from its rituals, last move one-hot (270).
Nothing reveals another player's colour. `action_mask` is the int8 legal-action mask; it is all
zeros for agents not to move.

### Action space

| id | meaning |
|---|---|
| `2k` (k = 0..134) | move all druids from `a` to `b` along the k-th edge `(a, b)`, a < b, of the spec's edge list |
| `2k + 1` | move from `b` to `a` along that edge |
| `269 + s` (s = 1..60) | resolve the pending ritual on space `s` (only while rituals are pending: F-R2) |

`fae_rl.board.action_to_string(a)` names an action; `move_action(src, dst)`, `resolve_action(s)` build them.

### Rewards

See `reward` above. `infos[agent]` at the end hold `colours` (agent -> colour id), `raw_scores`
(ritual points per colour), `final_scores` (with the ritual-card bonus) and `winners`: an int8
array with one entry per seat, 1 for each winner (a shared win has several 1s; its shape never
changes, so learners that stack infos in fixed arrays, as Tianshou does, store it). The winning
agents' names: `[a for a, w in zip(env.possible_agents, info["winners"]) if w]`.

### Protections

`env()` enforces call order (reset before step/observe/render/state), checks bounds, and turns an
illegal move into the end of the game with reward -1 for the offender (PettingZoo's
`TerminateIllegalWrapper` behaviour), natively rather than through PettingZoo's wrapper chain,
which would cost more than the game itself. `raw_env()` does none of this and raises a
`ValueError` naming the action and why it is illegal; the state is then unchanged.

### Version history

- v0: initial release. Option `action_features` added later (default `"none"` leaves the
  observation unchanged, so the id stays v0).
"""
from __future__ import annotations

import inspect
import textwrap

import numpy as np
from gymnasium import spaces
from tabletop_rl.envs.aec_base import RENDER_MODES, TurnBasedAECEnv
from tabletop_rl.options import options_doc

from fae_rl.board import NUM_ACTIONS, NUM_COLOURS
from fae_rl.features import action_features_size, check_action_features, feature_bounds, observe_features
from fae_rl.options import RULE_OPTIONS, check_option
from fae_rl.observation import HISTORY_OPTIONS, action_mask, observation_high, observation_size, observe
from fae_rl.render import render_rgb, render_text
from fae_rl.state import MAX_PLAYERS, FaeState, _check_num_players

ENV_ID = "fae_v0"


def env(**kwargs) -> "raw_env":
    return raw_env(_protected=True, **kwargs)


def potential(state: FaeState, seat: int) -> float:
    """score_diff potential of `seat`, from what it may know: its colour's score plus its ritual
    cards, minus the best other colour's score (F-E2)."""
    scores, own = state.colour_scores(), state.colours[seat]
    return float(scores[own] + state.ritual_cards_of(seat) - max(s for c, s in enumerate(scores) if c != own))


# the doc page lists the rule options from their one declaration
__doc__ = __doc__.replace("{rule_options}", textwrap.indent(options_doc(RULE_OPTIONS), "  "))


class raw_env(TurnBasedAECEnv):
    __doc__ = __doc__
    _potential = staticmethod(potential)  # score_diff (the spec's potential)
    metadata = {"render_modes": list(RENDER_MODES), "name": ENV_ID, "is_parallelizable": False, "render_fps": 1}

    def __init__(self, num_players: int = 2, big_stack_merge: bool = False, history: str = "summary",
                 reward: str = "win_loss", render_mode: str | None = None, action_features: str = "none",
                 _protected: bool = False):
        super().__init__()
        self.num_players = _check_num_players(num_players)
        check_option("big_stack_merge", big_stack_merge)
        if history not in HISTORY_OPTIONS:
            raise ValueError(f"history must be one of {HISTORY_OPTIONS}; got {history!r}")
        check_action_features(action_features)
        self.big_stack_merge = bool(big_stack_merge)
        self.history = history
        self.action_features = action_features
        n_obs = observation_size(history)
        low, high = feature_bounds(action_features)
        low = np.concatenate([np.zeros(n_obs, dtype=np.float32), low])
        high = np.concatenate([observation_high(history), high])
        obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, shape=(n_obs + action_features_size(action_features),), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
        })
        self._setup(self.num_players, obs_space, spaces.Discrete(NUM_ACTIONS), render_mode, _protected, reward)
        n_state = n_obs + MAX_PLAYERS * NUM_COLOURS + MAX_PLAYERS
        self.state_space = spaces.Box(0.0, np.inf, shape=(n_state,), dtype=np.float32)

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._start(FaeState.new(self.num_players, seed=seed, big_stack_merge=self.big_stack_merge))

    def _observe(self, seat: int):
        return (observe_features(self.game, seat, self.history, self.action_features),
                action_mask(self.game, seat))

    def _is_legal(self, action) -> bool:
        return self.game.is_legal(action)

    def _apply(self, action) -> bool:
        self.game.apply(action)
        return False  # Fae games always end by the rules

    def _finish(self, truncated: bool = False) -> None:  # Fae games always end by the rules
        game = self.game
        info = {
            "colours": {a: game.colours[i] for i, a in enumerate(self.possible_agents)},
            "raw_scores": game.scores().tolist(),
            "final_scores": game.final_colour_scores().tolist(),
            # per seat 0/1, fixed shape: learners that stack infos (Tianshou's buffer) need it
            "winners": np.isin(np.arange(self.num_players), game.winners()).astype(np.int8),
        }
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = dict(info)

    # ------------------------------------------------------------------ extras
    def state(self) -> np.ndarray:
        """Full state for centralised critics: seat 0's observation, every seat's colour one-hot
        (4 x 5, absolute seats) and the seat to move one-hot (4)."""
        if self.game is None:
            raise AssertionError("reset() needs to be called before state().")
        game = self.game
        colours = np.zeros((MAX_PLAYERS, NUM_COLOURS), dtype=np.float32)
        colours[np.arange(game.num_players), game.colours] = 1.0
        to_move = np.zeros(MAX_PLAYERS, dtype=np.float32)
        if game.current_player >= 0:
            to_move[game.current_player] = 1.0
        return np.concatenate([observe(game, 0, self.history), colours.ravel(), to_move])

    def _render_text(self) -> str:
        return render_text(self.game)

    def _render_rgb(self) -> np.ndarray:
        return render_rgb(self.game)


# help(env) shows the doc page and completion shows raw_env's arguments (env only adds the protections)
env.__doc__ = raw_env.__doc__
env.__signature__ = inspect.signature(raw_env).replace(
    parameters=[p for p in inspect.signature(raw_env).parameters.values() if p.name != "_protected"])
