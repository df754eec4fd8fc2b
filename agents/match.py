"""Play one game between bots on any registered game, straight on the rules core (no env overhead).

    result = play_game(get_game("fae"), [bot0, bot1], seed=3, agent_seeds=[10, 11])
    record = result.to_record(get_game("fae"), agents=["greedy", "random"])   # see tabletop_rl.agents.records
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.envs.game_state import GameState
from tabletop_rl.envs.registry import GameSpec


@dataclass
class GameResult:
    seed: int | None
    num_players: int
    returns: list[float]  # per seat
    winners: list[int]  # seats
    actions: list[int] = field(default_factory=list)
    steps: int = 0
    scores: list[float] | None = None  # per seat, see tabletop_rl.agents.records.seat_scores
    move_times: list[list[float]] | None = None  # per seat, seconds per act() call (timing=True)
    rule_options: dict = field(default_factory=dict)
    observation_options: list[dict] | None = None  # per seat: what each seat's observations were made with
    final_state: object = field(default=None, repr=False, compare=False)

    def to_record(self, spec: GameSpec, agents: list[str] | None = None, **extra) -> dict:
        """A JSONL game record of this game (see `tabletop_rl.agents.records`)."""
        from tabletop_rl.agents.records import make_record

        return make_record(spec, num_players=self.num_players, seed=self.seed, rule_options=self.rule_options,
                           observation_options=self.observation_options, actions=self.actions,
                           final_state=self.final_state, agents=agents, **extra)


def bot_inputs(agent: Agent, spec: GameSpec, state: GameState, seat: int,
               observation_options: dict | None = None, mask: np.ndarray | None = None
               ) -> tuple[np.ndarray | None, np.ndarray, dict]:
    """What `agent` is given to act at `seat`, as every driver of the suite gives it:
    `agent.act(obs, mask, **kwargs)` with the seat's action mask (`mask`: a driver that already
    holds it, e.g. a batch's row, passes it instead of computing it again), its observation (with
    `observation_options`) only if the agent needs one, and `state=`/`seat=` only if it uses them."""
    mask = spec.action_mask(state, seat) if mask is None else mask
    obs = spec.observe(state, seat, **(observation_options or {})) if agent.needs_observation else None
    return obs, mask, ({"state": state, "seat": seat} if agent.uses_state else {})


def bot_action(agent: Agent, spec: GameSpec, state: GameState, seat: int,
               observation_options: dict | None = None, mask: np.ndarray | None = None) -> int:
    """`agent`'s move at `seat`, asked as `bot_inputs` says and checked: an answer that is not a
    legal action id raises RuntimeError naming the bot, the seat and the answer."""
    obs, mask, kwargs = bot_inputs(agent, spec, state, seat, observation_options, mask)
    action = agent.act(obs, mask, **kwargs)
    try:
        action = int(action)
    except (TypeError, ValueError):
        raise RuntimeError(f"{agent!r} at seat {seat} returned {action!r}, not an action id") from None
    if not 0 <= action < mask.shape[0] or not mask[action]:
        raise RuntimeError(f"{agent!r} chose illegal action {action} at seat {seat}")
    return action


def batch_bot_actions(agent: Agent, batch, games: np.ndarray, rng: np.random.Generator,
                      mask: np.ndarray | None = None) -> np.ndarray:
    """`agent.act_batch(batch, games, rng)`, checked against its contract (`Agent`'s docstring):
    `games` bool (N,) in; int (N,) out, a legal action id in each game of `games` and -1 in the
    others (not read, so not checked: older bots answer every game). `mask` (N, A) is the batch's
    legal mask where the caller holds it already. Another shape or dtype, or an illegal id in a game
    of `games`, raises RuntimeError naming the bot, the contract and the first game that breaks it."""
    games = np.asarray(games, dtype=np.bool_)
    n = games.shape[0]
    mask = np.asarray(batch.legal_mask()) if mask is None else mask
    answer = agent.act_batch(batch, games, rng)
    contract = (f"act_batch must return an integer array of shape ({n},): a legal action id in each game where "
                f"`games` is True, -1 in the others (tabletop_rl.agents.base.Agent)")
    try:  # a ragged list is refused by numpy itself
        actions = np.asarray(answer) if isinstance(answer, (np.ndarray, list, tuple)) else None
    except ValueError:
        actions = None
    if actions is None or actions.shape != (n,) or actions.dtype == np.bool_ or not np.issubdtype(actions.dtype, np.integer):
        got = (f"{type(answer).__name__}" if actions is None else
               f"{actions.dtype} of shape {actions.shape}")
        raise RuntimeError(f"{agent!r}: {contract}; got {got}")
    actions = actions.astype(np.int64, copy=False)
    in_range = (actions >= 0) & (actions < mask.shape[1])
    legal = in_range & mask[np.arange(n), np.where(in_range, actions, 0)]
    bad = np.flatnonzero(games & ~legal)
    if bad.size:
        g = int(bad[0])
        raise RuntimeError(f"{agent!r}: {contract}; got {int(actions[g])} in game {g}, not a legal action there "
                           f"({bad.size} game(s) wrong)")
    return actions


def drive_bots(spec: GameSpec, state: GameState, agents, *, until=None, observation_options=None,
               max_steps: int = 1_000_000, times: list[list[float]] | None = None, on_choice=None,
               on_action=None) -> list[int]:
    """The suite's one bot-driving loop: while the game is on, `until(state)` (if given) is false
    and fewer than `max_steps` moves were made, the seat to move asks `agents[seat]` for its move
    (`bot_action`) and applies it. Returns the actions applied.

    Used by `play_game` (every seat a bot), the self-play env (the opponents' moves between two of
    the learner's) and the imitation data (a teacher at every seat). `observation_options` is one
    dict for every seat or a list with one per seat. `times[seat]`, if given, gets the seconds of
    each act() call (reports only). `on_choice(state, seat, action)` is called before a move is
    applied, `on_action(state, seat, action)` after.
    """
    per_seat = isinstance(observation_options, (list, tuple))
    clock = time.perf_counter
    actions: list[int] = []
    while not state.is_terminal() and len(actions) < max_steps and not (until is not None and until(state)):
        seat = state.current_player
        opts = observation_options[seat] if per_seat else observation_options
        if times is None:
            action = bot_action(agents[seat], spec, state, seat, opts)
        else:
            t0 = clock()
            action = bot_action(agents[seat], spec, state, seat, opts)
            times[seat].append(clock() - t0)
        if on_choice is not None:
            on_choice(state, seat, action)
        state.apply(action)
        actions.append(action)
        if on_action is not None:
            on_action(state, seat, action)
    return actions


def play_game(spec: GameSpec, agents: list[Agent], seed: int | None = None, agent_seeds=None,
              rule_options: dict | None = None, observation_options: dict | None = None,
              max_steps: int = 1_000_000, timing: bool = False, on_action=None,
              on_choice=None) -> GameResult:
    """Seat i is played by agents[i]. Each agent is reset with agent_seeds[i] when given.

    Bots with `uses_state` get the rules state and their seat; the others get only the seat's
    observation and action mask. An agent with an `observation_options` dict (a trained policy)
    observes with those options over `observation_options`. An illegal choice raises RuntimeError naming the bot and action.
    `on_action(state, seat, action)` is called after each action; `on_choice(state, seat, action)` before
    it is applied (e.g. to show it to a human: action texts may depend on the decision in progress).
    `timing=True` records the seconds each act() call took (for reports only: never for results).
    """
    n = len(agents)
    if agent_seeds is not None and len(agent_seeds) != n:
        raise ValueError(f"agent_seeds has {len(agent_seeds)} entries for {n} agents")
    rule_options = dict(rule_options or {})
    state = spec.new_state(num_players=n, seed=seed, **rule_options)
    for i, agent in enumerate(agents):
        agent.reset(None if agent_seeds is None else agent_seeds[i])
    obs_opts = observation_options or {}
    # An agent trained on other observation options (a PPO policy's history/action features) sees its own.
    own_opts = [{**obs_opts, **{k: v for k, v in (getattr(a, "observation_options", None) or {}).items()
                                if k in spec.observation_options}} for a in agents]
    times = [[] for _ in range(n)] if timing else None
    actions = drive_bots(spec, state, agents, observation_options=own_opts, max_steps=max_steps, times=times,
                         on_choice=on_choice, on_action=on_action)
    from tabletop_rl.agents.records import seat_scores

    returns = [float(r) for r in np.asarray(state.returns())]
    return GameResult(seed, n, returns, list(state.winners()), actions, len(actions),
                      scores=seat_scores(state) if state.is_terminal() else None, move_times=times,
                      rule_options=rule_options, observation_options=own_opts, final_state=state)
