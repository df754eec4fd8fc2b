"""
# Fantastiqa

| Import | `from fantastiqa_rl import env` (or `pettingzoo.make("aec", "fantastiqa_v1")`, `tabletop_rl.envs.make("fantastiqa_v1")`) |
|---|---|
| Actions | Discrete(405) with the STAND-IN cards (30 + 3K + Q for a card file with K card kinds, Q quest kinds) |
| Parallel API | Yes, through `pettingzoo.utils.conversions.turn_based_aec_to_parallel(env)` (turn-based: the mover's action is applied, the others' ignored; a turn is several steps of the same agent; `aec_to_parallel` refuses it; docs/usage/envs.md) |
| Agents | `agents = ['player_0', ..., 'player_{N-1}']`, N = 2..4 |
| Observation shape | Dict: `observation` Box(float32, (3786,)) with the STAND-IN cards (`view="cards"`: (10398,) for every card file); `action_mask` Box(int8, (405,)) |
| Observation values | [0, high]; most features in [0, 1]; see `fantastiqa_rl.observation_layout()` and `observation_high()` |

Fantastiqa (Alf Seegert, Eagle-Gryphon Games, 2012) is a deck-building adventure game for 2-4
players. Adventurers walk a board of six regions joined by seven creature spaces; to cross a space
you subdue its creature with hand cards showing the symbol it is vulnerable to (two equal symbols
stand in for any one). Subdued creatures join your deck; gems buy artifacts and beasts at the
statues; quests, completed in the region printed on them with exactly matching symbols, score
points. The first player to reach the quest goal wins; if the creature deck runs out, the highest
final score wins. Rules: `docs/rules/fantastiqa.md` (ids Q-x); the rules core is
`fantastiqa_rl.FantastiqaState`. The shipped cards are a STAND-IN set (`card_set=PATH` loads
real ones written in the same format).

Versions: `fantastiqa_v1` (issue 25) added the engine rule Q-T2, under which every turn ends (a
CANCEL budget per turn; a card played for its power stays in play until the end of the turn;
option `turn_loops`). `fantastiqa_v0`, the game before it, is RETIRED: its play differs, so
`tabletop_rl.envs.make("fantastiqa_v0")` raises an error naming `fantastiqa_v1`; the old rules
are `turn_loops="allow"`.

### Arguments

``` python
fantastiqa_rl.env(num_players=2, goal="short", card_set=None, adventure_path="simple",
                  fly_in_adventure=True, bought_to="discard", card_use="symbol_or_power",
                  draw_rule="up_to_5", abbey=False, teams=False, mark_return="forbid",
                  turn_loops="forbid", turn_limit=100, max_turns=None, reward="win_loss",
                  render_mode=None, render_seat=None, view="flat")
```

- `num_players`: 2, 3 or 4.
- The rule options (`fantastiqa_rl.options.RULE_OPTIONS`; ASSUMED readings of the rules and the
  engine rules, each with its rule id, the default first):

{rule_options}
- `max_turns`: TRUNCATION (the old end, now an option; default None: off) after this many
  completed turns per player. Whichever of `turn_limit` / `max_turns` is set also arms a step
  guard: truncation after `limit x num_players x 100` steps (with `turn_loops="allow"` or
  `mark_return="allow"` a policy can repeat actions without end inside one turn). Truncated agents get no
  win/loss reward.
- `view`: the observation. `"flat"` (version 1, the default; `fantastiqa_rl.observation`): blocks
  indexed by the card KINDS of the loaded file, 3,786 values with the STAND-IN cards. `"cards"`
  (version 2; `fantastiqa_rl.card_view`): a card is its features. A global block, then one row per
  card kind (its own fields from the card file, then where this seat sees its copies) and per quest
  kind, padded to 128 card and 64 quest kinds: 10,398 values for every card file. The action ids
  and the mask are the same in both views. A policy that reads the rows as a set
  (`tabletop_rl.agents.card_policy`) plays any card file.
- `reward`: `"win_loss"` (at the end only: k winners of N get +1/k each, losers -1/(N-k) each; 0
  on truncation) or `"score_diff"` (dense and potential-based: phi = own score - best
  opponent's score (quest points with bonus tokens); rewards are phi differences, so they sum to
  the final margin).
- `render_mode`: `"ansi"` (text: board, open quests, scores, one hand), `"rgb_array"` (image:
  regions, statues, creatures with gems, adventurers, open quests, scores), `"human"` (prints the
  text). `render_seat`: whose hand the text shows (default: the agent to move). Renders of a
  hand are for a human at that seat; the image shows no hand.

### Observation space

A dict with `observation` (blocks named by `observation_layout()`; seat-relative: the agent's own
seat first, then the next seats in turn order, padded to 4 seats) and `action_mask` (int8 legal
actions; all zeros for agents not to move). The observation holds the agent's own hand and the
composition (not order) of its own draw deck; every player's public state (position, gems,
carpets, reshuffle tokens, score, bonus tokens, hand/deck/discard sizes, quest token, discard
composition, committed cards, personal and completed quests); the board (region and statue per
position, the creature on each space as a kind one-hot and as features, gems on it), open quests
with their bonus tokens, supply and deck sizes; and the decision in progress (phase, cards chosen
so far, the target, the adventure so far, and the statue/Bell cards drawn, shown to the drawer
only). It never holds another player's hand or deck composition, nor any deck's order (Q-I1).

### Action space

One flat table; card choices name card KINDS (identical cards are one action), quests name quest
kinds. K = 110 card kinds and Q = 45 quest kinds with the STAND-IN cards. Which ids are legal
depends on the decision in progress (`state.phase_name`); the mask says which.

| id | name | meaning (decision) |
|---|---|---|
| 0 | DONE | end the turn (MAIN); stop the adventure (ADV_MOVE); finish buying / keeping quests (BUY, CHEST); keep the rest of the hand and draw (END_DISCARD) |
| 1 | CONFIRM | pay the chosen cards (ADV_PAY, QUEST_PAY); release the chosen cards (RELEASE) |
| 2 | CANCEL | back out of a turn action before its first irrevocable step (ADV_MOVE, ADV_PAY, QUEST_PAY, STATUE_OPTION, RELEASE) |
| 3 | ADVENTURE | start turn action A: go adventuring (MAIN) |
| 4 | VISIT_STATUE | start turn action B: visit the statue of your region (MAIN) |
| 5 | FREE_ACTION | open the free-action menu (MAIN -> FREE_MENU) |
| 6, 7, 8 | STATUE_DRAW, STATUE_RELEASE, STATUE_TELEPORT | the statue option (STATUE_OPTION), Q-V1..Q-V3 |
| 9 | CARPET | use a flying-carpet token (FREE_MENU; ADV_MOVE with `fly_in_adventure`) |
| 10 | RESHUFFLE | use a reshuffle token (FREE_MENU) |
| 11 + j (2) | MARK j | put your quest token on open quest j (FREE_MENU) |
| 13 + r (6) | REGION r | board position r: place your adventurer (SETUP_PLACE), subdue towards r (ADV_MOVE), fly/carpet to r (MOVE_DEST) |
| 19 + c (7) | SPACE c | a creature space to swap (WARDROBE) |
| 26 + s (4) | SEAT s | the opponent (absolute seat) to target (TARGET_SEAT) |
| 30 + k (K) | HAND k | a hand card of kind k: play it for its power (FREE_MENU), pay with it (ADV_PAY, QUEST_PAY), discard it (END_DISCARD), release it (RELEASE), double it (GLASS), give it (BREW_CARD), fly with it (ADV_MOVE, option) |
| 30 + K + k (K) | COMMIT k | commit a hand card of kind k to a quest (FREE_MENU) |
| 30 + 2K + k (K) | PICK k | a card of kind k from another zone: starting artifact (SETUP_ARTIFACT), buy (BUY), keep (BELL), release or give from your discard (RELEASE, BREW_CARD), withdraw a committed card (FREE_MENU) |
| 30 + 3K + q (Q) | QUEST q | quest kind q: take a starting quest (SETUP_QUEST), complete it (MAIN), keep it (CHEST), commit to / withdraw from it (COMMIT_TARGET, WITHDRAW_FROM) |

`state.action_to_string(a)` names an action in the current decision; `fantastiqa_rl.actions`
documents the table in full, and `FantastiqaState.num_actions_for(card_set)` gives its size.

### Rewards

See `reward` above. At the end `infos[agent]` hold `raw_scores` (quest points with bonus tokens,
per seat), `final_scores` (minus the points of uncompleted personal quests, Q-E3), `winners`
(an int8 array, one entry per seat, 1 for each winner, all 0 when truncated; its shape never
changes, so learners that stack infos in fixed arrays, as Tianshou does, store it), `end_reason` ("goal", "creature deck empty", "turn_limit" or "truncated"), `turns` and
`steps`.

### Protections

`env()` enforces call order (reset before step/observe/render/state), checks bounds, and turns an
illegal move into the end of the game with reward -1 for the offender (PettingZoo's
`TerminateIllegalWrapper` behaviour), natively rather than through PettingZoo's wrapper chain,
which would cost more than the game itself. `raw_env()` does none of this and raises a
`ValueError` naming the action and why it is illegal; the state is then unchanged.

### Version history

- v0: initial release (STAND-IN cards; the Abandoned Abbey and the team variant as the options
  `abbey` and `teams`).
"""
from __future__ import annotations

import inspect
import textwrap

import gymnasium
import numpy as np
from gymnasium import spaces
from tabletop_rl.envs.aec_base import RENDER_MODES, TurnBasedAECEnv
from tabletop_rl.options import options_doc

from fantastiqa_rl.card_view import card_view, check_view, observe_view, view_high
from fantastiqa_rl.observation import MAX_PLAYERS, action_mask, observation_high, observation_size, observe
from fantastiqa_rl.options import RULE_OPTIONS
from fantastiqa_rl.render import render_rgb, render_text
from fantastiqa_rl.state import DEFAULT_TURN_LIMIT, FantastiqaState

ENV_ID = "fantastiqa_v1"
STEPS_PER_TURN = 100  # step guard: truncate after (max_turns or turn_limit) x num_players x this many steps


def env(**kwargs) -> "raw_env":
    return raw_env(_protected=True, **kwargs)


def potential(state, seat: int) -> float:
    """score_diff potential: own side's score minus the best opposing side's (public information
    only). A side is a seat, or a team with teams=True, so partners get identical rewards (Q-TM4)."""
    return float(state.side_score(seat) - max(state.side_score(p) for p in range(state.n) if state.is_opponent(seat, p)))


# the doc page lists the rule options from their one declaration
__doc__ = __doc__.replace("{rule_options}", textwrap.indent(options_doc(RULE_OPTIONS), "  "))


class raw_env(TurnBasedAECEnv):
    __doc__ = __doc__
    _potential = staticmethod(potential)  # score_diff (the spec's potential)
    metadata = {"render_modes": list(RENDER_MODES), "name": ENV_ID, "is_parallelizable": False, "render_fps": 1}

    def __init__(self, num_players: int = 2, goal: str = "short", card_set: str | None = None,
                 adventure_path: str = "simple", fly_in_adventure: bool = True, bought_to: str = "discard",
                 card_use: str = "symbol_or_power", draw_rule: str = "up_to_5", abbey: bool = False,
                 teams: bool = False, mark_return: str = "forbid", turn_loops: str = "forbid",
                 turn_limit: int | None = DEFAULT_TURN_LIMIT, max_turns: int | None = None, reward: str = "win_loss",
                 render_mode: str | None = None, render_seat: int | None = None, view: str = "flat",
                 _protected: bool = False):
        super().__init__()
        self.rule_options = dict(adventure_path=adventure_path, fly_in_adventure=fly_in_adventure,
                                 bought_to=bought_to, card_use=card_use, draw_rule=draw_rule,
                                 abbey=abbey, teams=teams, mark_return=mark_return, turn_loops=turn_loops,
                                 turn_limit=turn_limit)
        # Validates num_players, goal, card_set and every rule option (errors name the allowed values).
        probe = FantastiqaState.new(num_players, seed=0, goal=goal, card_set=card_set, **self.rule_options)
        if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer))
                                      or max_turns < 1):
            raise ValueError(f"max_turns must be an int >= 1 (turns per player) or None; got {max_turns!r}")
        if render_seat is not None and (isinstance(render_seat, bool) or render_seat not in range(num_players)):
            raise ValueError(f"render_seat must be None (the agent to move) or in 0..{num_players - 1}; "
                             f"got {render_seat!r}")
        self.num_players = num_players
        self.goal = goal
        self.card_set = card_set
        self.max_turns = None if max_turns is None else int(max_turns)
        self.render_seat = render_seat
        check_view(view)
        self.view = view
        n_obs = observation_size(card_set)
        if view == "cards":
            card_view(card_set)   # a card file beyond the view's maxima: ValueError naming them
        high = observation_high(card_set) if view == "flat" else view_high(card_set)
        self.num_actions = probe.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, high, shape=high.shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
        })
        self._setup(self.num_players, obs_space, spaces.Discrete(self.num_actions), render_mode, _protected, reward)
        self._n_kinds = probe.layout.K
        n_state = n_obs + MAX_PLAYERS * self._n_kinds * 2
        self.state_space = spaces.Box(0.0, np.inf, shape=(n_state,), dtype=np.float32)

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._start(FantastiqaState.new(self.num_players, seed=seed, goal=self.goal, card_set=self.card_set,
                                        **self.rule_options))  # Q-S4: seat N-1 moves first
        self._steps = 0

    def _observe(self, seat: int):
        return observe_view(self.game, seat, self.view), action_mask(self.game, seat)

    def _is_legal(self, action) -> bool:
        return (not isinstance(action, (bool, np.bool_)) and isinstance(action, (int, np.integer))
                and int(action) in self.game.legal_set())

    def _apply(self, action) -> bool:
        """The move, then the truncation checks (max_turns, the step guard); True if truncated."""
        game = self.game
        game.apply(action)  # raw env: raises ValueError naming the action and why
        self._steps += 1
        truncated = False
        if not game.is_terminal():
            if self.max_turns is not None and game.turns >= self.max_turns * self.num_players:
                truncated = True
            guard = self.max_turns if self.max_turns is not None else self.rule_options["turn_limit"]
            if guard is not None and self._steps >= guard * self.num_players * STEPS_PER_TURN:
                truncated = True
        return truncated

    def _finish(self, truncated: bool) -> None:
        game = self.game
        info = {
            "raw_scores": [int(x) for x in game.scores],
            "final_scores": [int(x) for x in game.final_scores()],
            # per seat 0/1, fixed shape: learners that stack infos (Tianshou's buffer) need it
            "winners": np.isin(np.arange(self.num_players), game.winners()).astype(np.int8),
            "end_reason": "truncated" if truncated else game.end_reason,
            "turns": int(game.turns),
            "steps": int(self._steps),
        }
        for a in self.agents:
            if truncated:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
            self.infos[a] = dict(info)

    # ------------------------------------------------------------------ extras
    def state(self) -> np.ndarray:
        """Full state for centralised critics: seat 0's observation, then every seat's hand and
        draw-deck composition (4 x K each, absolute seats, padded)."""
        if self.game is None:
            raise AssertionError("reset() needs to be called before state().")
        game, K = self.game, self._n_kinds
        HK = np.asarray(game.g.I_HAND_KIND, dtype=np.int64)
        extra = np.zeros((2, MAX_PLAYERS, K), dtype=np.float32)
        for p in range(game.n):
            if game.hand[p]:
                extra[0, p] = np.bincount(HK[game.hand[p]], minlength=K)
            if game.deck[p]:
                extra[1, p] = np.bincount(HK[game.deck[p]], minlength=K)
        return np.concatenate([observe(game, 0), extra.ravel()])

    def _render_text(self) -> str:
        return render_text(self.game, seat=self.render_seat)

    def _render_rgb(self) -> np.ndarray:
        return render_rgb(self.game)


# help(env) shows the doc page and completion shows raw_env's arguments (env only adds the protections)
env.__doc__ = raw_env.__doc__
env.__signature__ = inspect.signature(raw_env).replace(
    parameters=[p for p in inspect.signature(raw_env).parameters.values() if p.name != "_protected"])



GYM_ID = "fantastiqa_rl/Fantastiqa-v0"


def register_envs() -> None:
    """Register fantastiqa_v1 with PettingZoo's registry and the single-agent self-play adapter
    with Gymnasium (idempotent; `fantastiqa_rl/__init__.py` and `fantastiqa_rl.spec` call it)."""
    import warnings

    import pettingzoo

    # PettingZoo's registry normalises the id ("fantastiqa_v1" is stored as "fantastiqa-v1").
    if not {ENV_ID, ENV_ID.replace("_v", "-v")} & set(pettingzoo.aec_registry):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pettingzoo.register("aec", ENV_ID, entry_point="fantastiqa_rl.environment:env")
    if GYM_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ID, entry_point="tabletop_rl.training.selfplay:SelfPlayEnv", kwargs={"game": "fantastiqa"},
                           vector_entry_point="tabletop_rl.training.learner_envs:make_learner_vector_env")
