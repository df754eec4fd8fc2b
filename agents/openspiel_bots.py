"""OpenSpiel's search bots as arena bots for Fae (needs the `openspiel` extra).

    python -m tabletop_rl.agents.arena --game fae --agents openspiel_ismcts mcts --games 20
    bot = make_agent("fae", "openspiel_ismcts", seed=0, simulations=100)

- `openspiel_ismcts`: OpenSpiel's `ISMCTSBot` (information-set MCTS, Cowling et al. 2012) with
  random rollouts, on the `python_fae` game of `fae_rl.openspiel`; it resamples the hidden colours
  with `resample_from_infostate` (that is, `FaeState.sample_consistent`).
- `openspiel_mcts`: OpenSpiel's `MCTSBot` (perfect-information UCT, random rollouts) searching ONE
  determinization per move: the state it is given is `state.sample_consistent(seat, rng)`, never
  the real state, so it cannot see the other seats' colours; it plays as if its guess were true.

Options (`name:key=value`): `simulations` (search iterations per move, default 100), `c` (UCT
exploration, default 2.0 as in OpenSpiel's examples), `rollouts` (random rollouts per leaf, default 1).
Both bots only read what their seat may know (tests/test_openspiel_bots.py permutes the other
seats' colours). Seeded from the agent's generator, but whole games are not exactly reproducible
(4 seeded games against random gave 3, 4 and 3 wins in three processes with one PYTHONHASHSEED;
the source inside OpenSpiel's search is not found yet).

`tabletop_rl.agents` registers these names whenever OpenSpiel is installed and imports this module
(and OpenSpiel) only when one of the bots is built; importing this module registers them too.
"""
from __future__ import annotations

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from fae_rl.openspiel import FaeGame, state_from_fae
from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.registry import register_agent

_GAMES: dict[tuple[int, bool], FaeGame] = {}


def _game(num_players: int, big_stack_merge: bool) -> FaeGame:
    key = (num_players, bool(big_stack_merge))
    if key not in _GAMES:
        _GAMES[key] = FaeGame({"players": num_players, "big_stack_merge": bool(big_stack_merge)})
    return _GAMES[key]


class OpenSpielSearchAgent(Agent):
    """Base of the two bots: checks the options and the call, builds the OpenSpiel bot per game."""

    uses_state = True
    needs_observation = False

    def __init__(self, seed: int | None = None, simulations: int = 100, c: float = 2.0, rollouts: int = 1):
        super().__init__(seed)
        for key, value in (("simulations", simulations), ("rollouts", rollouts)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{key} must be an int >= 1; got {value!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"c must be a number >= 0; got {c!r}")
        self.simulations, self.c, self.rollouts = int(simulations), float(c), int(rollouts)

    def _random_state(self) -> np.random.RandomState:
        # OpenSpiel's bots take a legacy RandomState; it is seeded from this agent's Generator.
        return np.random.RandomState(int(self.rng.integers(2 ** 32)))

    def _evaluator(self, random_state) -> mcts.RandomRolloutEvaluator:
        return mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=random_state)

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        if state is None or seat is None:
            raise ValueError(f"{self.name}: act needs state= and seat= (it searches the rules state)")
        if state.is_terminal() or state.current_player != seat:
            raise ValueError(f"{self.name}: seat {seat} is not to move")
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError(f"{self.name}: the action mask has no legal action")
        if legal.size == 1:
            return int(legal[0])
        game = _game(state.num_players, state.big_stack_merge)
        # Only a determinization consistent with what `seat` knows ever reaches OpenSpiel.
        root = state_from_fae(game, state.sample_consistent(seat, self.rng))
        action = int(self._bot(game).step(root))
        if action not in legal:
            raise RuntimeError(f"{self.name}: OpenSpiel returned the illegal action {action}")
        return action

    def _bot(self, game):
        raise NotImplementedError


class OpenSpielISMCTSAgent(OpenSpielSearchAgent):
    """OpenSpiel's ISMCTSBot with random rollouts (see the module docstring)."""

    name = "openspiel_ismcts"

    def _bot(self, game):
        rs = self._random_state()
        return ismcts.ISMCTSBot(game, self._evaluator(rs), self.c, self.simulations, random_state=rs)


class OpenSpielMCTSAgent(OpenSpielSearchAgent):
    """OpenSpiel's MCTSBot with random rollouts on one determinization per move."""

    name = "openspiel_mcts"

    def _bot(self, game):
        rs = self._random_state()
        return mcts.MCTSBot(game, self.c, self.simulations, self._evaluator(rs), random_state=rs)


BOTS = {cls.name: cls for cls in (OpenSpielMCTSAgent, OpenSpielISMCTSAgent)}
for _name, _cls in BOTS.items():
    register_agent("fae", _name, _cls)
