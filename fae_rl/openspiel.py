"""Fae as an OpenSpiel game: `python_fae`, registered with pyspiel when this module is imported.

    import pyspiel
    import fae_rl.openspiel  # noqa: F401  (registers python_fae)
    game = pyspiel.load_game("python_fae(players=3)")
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)

Needs the `openspiel` extra (`pip install "tabletop-rl[openspiel]"`); `fae_rl` itself never imports
OpenSpiel, only this module does.

Parameters: `players` (2-4, default 2), `big_stack_merge` (F-T4, default False) and
`info_state_tensor` ("summary", default, or "full": below).

Chance is explicit, as in the rules (F-S1, F-S2): the game starts with 13 chance nodes, one per
region (12 of them, each 120 uniform outcomes: outcome k = `REGION_DEALS[k]`, the permutation of
the 5 colours over the region's 5 spaces) and one for the spirits (`COLOUR_DEALS[players][k]`:
the colour of each seat, 5!/(5-players)! uniform outcomes). The deal is then built with the
public constructor `FaeState.from_deal`, and every decision node is a `FaeState`: the rules are
the rules core's, move for move (tests/test_openspiel.py plays them side by side). Action ids of
decisions are those of the core (330 distinct actions).

Information (F-I1). The board deal is public, the spirits are private: player p's information
state is the public action history (the region deals and every move) plus p's own colour, never
the colour chance outcome itself. `information_state_string` is that, with perfect recall (the
whole public history: tabular CFR and ISMCTS key on it). `observation_tensor` is `fae_rl.observe`,
the vector the PettingZoo env gives (1,703 floats): the position, the seat's own colour, and a
fixed-size summary of the public history (per other seat: druids moved by colour, ritual points by
triggering colour, last move), which is what the history tells about the hidden colours.

`information_state_tensor` is that same vector by default (`info_state_tensor="summary"`), not the
whole history. OpenSpiel's `rl_environment.Environment(game)` hands `information_state_tensor` to
its agents whenever a game provides one, and DQN, NFSP and Deep CFR store it in every transition of
buffers preallocated for their capacity: with the whole history one-hot (71 decisions x 330
actions + the position = 25,133 floats) NFSP's example buffers asked for 187 GiB at the first
transition and stepping was several times slower (docs/usage/libraries.md has the figures). The
game keeps providing an information-state tensor, now of a fixed size that does not grow with the
history, rather than none (which would make rl_environment fall back to the observation): code
written for OpenSpiel reads `information_state_tensor` directly (NFSP's example policy, Deep CFR),
and OpenSpiel users expect the default env to give one. tests/test_openspiel_fae.py runs
OpenSpiel's NFSP and DQN loops on the unchanged env line. `python_fae(info_state_tensor=full)`
appends the whole public decision history one-hot (perfect recall, 25,133 floats) for those who
want it.

None of the views reveals anything another seat hides (tested by permuting the other seats'
colours). The observer takes OpenSpiel's `IIGObservationType` as its Python games do:
`public_info` gives the public pieces (the position, with the own-colour block zeroed unless
`private_info=SINGLE_PLAYER`), `public_info=False` with `private_info=SINGLE_PLAYER` gives only the
seat's own colour (OpenSpiel's playthrough generator asks for that view), and
`private_info=ALL_PLAYERS` is refused (the spirits are hidden). `resample_from_infostate` draws the
hidden colours with `FaeState.sample_consistent`. Returns are the core's win/loss returns (zero sum).

Untrusted input: OpenSpiel serializes a Python game's state (`serialize_game_and_state`) with a
pickle of its attributes, and `deserialize_game_and_state` unpickles it; that is OpenSpiel's code,
which this module cannot change. Load games from others with `state_from_history(game, actions)`
(validated action ids), or exchange our JSON records (`tabletop_rl.agents.records`).

`state_from_fae(game, fae_state)` wraps a position of the rules core (the arena's bots use it:
`tabletop_rl.agents.openspiel_bots`); such a state's history starts at that position.
"""
from __future__ import annotations

import itertools
import json

import numpy as np
import pyspiel

from fae_rl.board import NUM_ACTIONS, NUM_COLOURS, NUM_SPACES, action_to_string
from fae_rl.observation import observation_layout, observation_size, observe
from fae_rl.render import render_text
from fae_rl.state import MAX_PLAYERS, MIN_PLAYERS, FaeState
from tabletop_rl.envs.game_state import integers

GAME_NAME = "python_fae"
NUM_REGIONS = NUM_SPACES // 5
#: Chance outcome k of a region node: the colours of the region's 5 spaces, in space order.
REGION_DEALS = tuple(itertools.permutations(range(NUM_COLOURS)))
#: Chance outcome k of the spirit node at an n-player table: the colour of each seat.
COLOUR_DEALS = {n: tuple(itertools.permutations(range(NUM_COLOURS), n)) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
#: Decision steps in the longest game (F-E5: 59 moves + 12 ritual choices).
MAX_DECISIONS = 71
#: Chance nodes at the start of every game: one per region, then the spirits.
NUM_CHANCE_NODES = NUM_REGIONS + 1
_REGION_INDEX = {p: k for k, p in enumerate(REGION_DEALS)}
#: Values of the `info_state_tensor` game parameter (module docstring).
INFO_STATE_TENSORS = ("summary", "full")

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Fae (tabletop-rl)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "big_stack_merge": False, "info_state_tensor": "summary"},
)


def _game_info(num_players: int) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=len(REGION_DEALS),
        num_players=num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=MAX_DECISIONS,
    )


class FaeGame(pyspiel.Game):
    """pyspiel game `python_fae(players=2..4,big_stack_merge=false|true,info_state_tensor=summary|full)`."""

    def __init__(self, params=None):
        params = dict(params or {})
        unknown = sorted(set(params) - set(_GAME_TYPE.parameter_specification))
        if unknown:
            known = sorted(_GAME_TYPE.parameter_specification)
            raise ValueError(f"python_fae: unknown parameter(s) {unknown}; known: {known}")
        players = params.get("players", 2)
        if isinstance(players, bool) or not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"python_fae: players must be 2, 3 or 4; got {players!r}")
        merge = params.get("big_stack_merge", False)
        if not isinstance(merge, bool):
            raise ValueError(f"python_fae: big_stack_merge must be true or false; got {merge!r}")
        tensor = params.get("info_state_tensor", "summary")
        if tensor not in INFO_STATE_TENSORS:
            raise ValueError(f"python_fae: info_state_tensor must be one of {INFO_STATE_TENSORS}; got {tensor!r}")
        self.num_seats = players
        self.big_stack_merge = merge
        self.info_state_tensor = tensor
        super().__init__(_GAME_TYPE, _game_info(players),
                         {"players": players, "big_stack_merge": merge, "info_state_tensor": tensor})

    def new_initial_state(self) -> "FaeOpenSpielState":
        return FaeOpenSpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "FaeObserver":
        return FaeObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.num_seats, params,
                           full_history=self.info_state_tensor == "full")


class FaeOpenSpielState(pyspiel.State):
    """A `python_fae` state: the deal so far at chance nodes, a `FaeState` after it."""

    def __init__(self, game: FaeGame):
        super().__init__(game)
        self._n = game.num_seats
        self._merge = game.big_stack_merge
        self._regions: list[int] = []  # chance outcomes of the region nodes so far
        self.fae: FaeState | None = None  # the rules core once the deal is complete
        # Public record for information states: where this state's history starts (None: the
        # start of the game) and the public actions since (region deals, then decisions).
        self._origin: str | None = None
        self._public: list[int] = []

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        if self.fae is None:
            return pyspiel.PlayerId.CHANCE
        if self.fae.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        return self.fae.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return self.fae.legal_actions().tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        k = len(REGION_DEALS) if len(self._regions) < NUM_REGIONS else len(COLOUR_DEALS[self._n])
        return [(a, 1.0 / k) for a in range(k)]

    def apply_action(self, action) -> None:
        """OpenSpiel's apply_action, refusing a non-int or negative id with a ValueError (OpenSpiel's
        own check raises a SpielError for -1 before `_apply_action` sees it)."""
        if integers(action) < 0:
            raise ValueError(f"action must be an int >= 0; got {action!r}")
        super().apply_action(int(action))

    def _apply_action(self, action: int) -> None:
        outcomes = len(self.chance_outcomes()) if self.fae is None else 0
        if self.fae is None and not 0 <= action < outcomes:
            # OpenSpiel does not check chance outcomes: 999 would be stored and fail later (IndexError)
            raise ValueError(f"chance outcome {action} is out of range 0..{outcomes - 1} at this chance node")
        if self.fae is not None:
            self.fae.apply(int(action))
            self._public.append(int(action))
        elif len(self._regions) < NUM_REGIONS:
            self._regions.append(int(action))
            self._public.append(int(action))
        else:  # the spirits: private, so never part of the public record
            self.fae = FaeState.from_deal(
                self._n, [REGION_DEALS[k] for k in self._regions], COLOUR_DEALS[self._n][action], self._merge)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if len(self._regions) < NUM_REGIONS:
                return f"deal region {len(self._regions) + 1}: colours {''.join(map(str, REGION_DEALS[action]))}"
            return f"spirits: seat colours {list(COLOUR_DEALS[self._n][action])}"
        return action_to_string(action)

    def is_terminal(self) -> bool:
        return self.fae is not None and self.fae.is_terminal()

    def returns(self) -> list[float]:
        if self.fae is None:
            return [0.0] * self._n
        return self.fae.returns().tolist()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "FaeOpenSpielState":
        """A state `player_id` cannot tell from this one, the hidden colours drawn by
        `FaeState.sample_consistent` with a generator seeded from `probability_sampler()`."""
        if self.fae is None:  # nothing private is dealt yet: the state is all public
            return self.clone()
        seed = int(probability_sampler() * 2 ** 53)
        out = self.clone()
        out.fae = self.fae.sample_consistent(player_id, np.random.default_rng(seed))
        return out

    def __str__(self) -> str:
        if self.fae is None:
            return f"dealing: regions {[REGION_DEALS[k] for k in self._regions]}"
        return f"{render_text(self.fae)}\nspirits: {self.fae.colours}"

    # ------------------------------------------------------------------ information
    def public_record(self) -> str:
        """The public history as text: the origin position (if any) and the public actions."""
        start = "start" if self._origin is None else f"from {self._origin}"
        return f"{start} | {' '.join(map(str, self._public))}"

    def own_colour(self, player: int) -> int | None:
        return None if self.fae is None else self.fae.colours[player]


def state_from_fae(game: FaeGame, fae: FaeState) -> FaeOpenSpielState:
    """An OpenSpiel state at the position `fae` (a copy). Its information states start there: the
    public part of `fae` (everything but the colours) stands for the history before it."""
    if not isinstance(fae, FaeState):
        raise ValueError(f"state_from_fae: expected a FaeState; got {type(fae).__name__}")
    if fae.num_players != game.num_seats or fae.big_stack_merge != game.big_stack_merge:
        raise ValueError(
            f"state_from_fae: the position has {fae.num_players} players, big_stack_merge={fae.big_stack_merge}; "
            f"the game has {game.num_seats}, big_stack_merge={game.big_stack_merge}")
    s = game.new_initial_state()
    s.fae = fae.clone()
    public = fae.to_dict()
    del public["colours"]
    s._origin = json.dumps(public, separators=(",", ":"))
    return s


def state_from_history(game: FaeGame, history) -> FaeOpenSpielState:
    """The state reached by playing `history` (action ids, chance outcomes included, as
    `state.history()` gives them) from the start; each is checked (a ValueError names the first bad
    one). The safe way to load a game someone else sent: OpenSpiel's own
    `deserialize_game_and_state` unpickles a Python game's attributes, so use it only on strings you
    made yourself."""
    s = game.new_initial_state()
    for i, a in enumerate(history):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise ValueError(f"state_from_history: entry {i} must be an int action id; got {a!r}")
        if s.is_terminal():
            raise ValueError(f"state_from_history: entry {i} ({a}) comes after the end of the game")
        legal = [o for o, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        if int(a) not in legal:
            raise ValueError(f"state_from_history: entry {i} ({a}) is not legal there")
        s.apply_action(int(a))
    return s


def deal_outcomes(fae: FaeState) -> list[int]:
    """The 13 chance outcomes that deal the start position `fae` (regions, then the spirits)."""
    d = fae.druids()
    if (fae.counts() != 1).any() or fae.cards_used or fae.is_terminal():
        raise ValueError("deal_outcomes: expects a start-of-game position (one druid per space)")
    regions = [_REGION_INDEX[tuple(int(c) for c in d[5 * r:5 * r + 5].argmax(axis=1))] for r in range(NUM_REGIONS)]
    return regions + [COLOUR_DEALS[fae.num_players].index(tuple(fae.colours))]


# ---------------------------------------------------------------------- observer
_OBS_SIZE = observation_size("summary")
_OWN = observation_layout("summary")["own_colour"]


class FaeObserver:
    """OpenSpiel observer (the PyObserver interface): `tensor`, `dict`, `set_from`, `string_from`.

    Pieces, by the `IIGObservationType` asked for (module docstring):
    - `position` (public_info): `fae_rl.observe(state, player)`, the PettingZoo env's observation,
      with its `own_colour` block zeroed unless the observer sees the player's private information.
    - `history` (public_info, perfect recall, `full_history` only: the game's
      `info_state_tensor=full`): one row per decision so far (MAX_DECISIONS x 330), one-hot.
    - `own_colour` (private_info=SINGLE_PLAYER without public_info): the player's colour, one-hot.
    With neither public nor private information the tensor is empty. Before the deal is complete
    (chance nodes only) the tensor is all zeros.
    """

    def __init__(self, iig_obs_type, num_players: int, params, full_history: bool = False):
        if params:
            raise ValueError(f"python_fae observer: no parameters are supported; got {params}")
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("python_fae observer: private_info=ALL_PLAYERS is not supported (the spirits are hidden)")
        self._private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self._public = bool(iig_obs_type.public_info)
        self._recall = iig_obs_type.perfect_recall
        pieces = []
        if self._public:
            pieces.append(("position", _OBS_SIZE, (_OBS_SIZE,)))
            if self._recall and full_history:
                pieces.append(("history", MAX_DECISIONS * NUM_ACTIONS, (MAX_DECISIONS, NUM_ACTIONS)))
        elif self._private:
            pieces.append(("own_colour", NUM_COLOURS, (NUM_COLOURS,)))
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict, i = {}, 0
        for name, size, shape in pieces:
            self.dict[name] = self.tensor[i:i + size].reshape(shape)
            i += size

    def set_from(self, state: FaeOpenSpielState, player: int) -> None:
        self.tensor.fill(0)
        if state.fae is None:
            return
        if "own_colour" in self.dict:
            self.dict["own_colour"][state.fae.colours[player]] = 1
        if "position" in self.dict:
            pos = observe(state.fae, player)
            if not self._private:
                pos[_OWN] = 0
            self.dict["position"][:] = pos
        if "history" in self.dict:
            decisions = state._public[NUM_REGIONS:] if state._origin is None else state._public
            self.dict["history"][np.arange(len(decisions)), decisions] = 1

    def string_from(self, state: FaeOpenSpielState, player: int) -> str:
        colour = state.own_colour(player)
        own = f"seat {player}, own colour {'?' if colour is None or not self._private else colour}"
        if not self._public:  # the private view only: nothing of the board or the history
            return own if self._private else ""
        if self._recall:
            return f"{own} | {state.public_record()}"
        if state.fae is None:
            return f"{own} | dealing, regions {state._regions}"
        f = state.fae
        return (f"{own} | to move {f.current_player} | cards {f.ritual_cards().tolist()} | pending {f.pending}\n"
                f"{render_text(f)}")


pyspiel.register_game(_GAME_TYPE, FaeGame)
