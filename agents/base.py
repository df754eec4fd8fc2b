"""The one agent interface every bot of the suite implements.

An agent is seeded, and acts from what a seat may see: its observation and its action mask.
Bots that are allowed more (a search bot that determinizes, a greedy bot that reads its own
colour and the public board from the rules state) also receive the rules state and their seat;
such a bot must only use the parts of the state its seat may know (see each bot's docstring, and
the hidden-information tests that permute other seats' private state).

    agent = make_agent("fae", "greedy", seed=0)
    action = agent.act(observation, action_mask, state=state, seat=seat)
"""
from __future__ import annotations

from typing import Any

import numpy as np


class Agent:
    """Base class: seeded, acts from (observation, action_mask[, state, seat]).

    `act` plays one game: an int, a legal action id of `action_mask` (the callers check it:
    `tabletop_rl.agents.match.bot_action`).

    `act_batch(batch, games, rng)` (optional) plays many games in one call; the learner core uses it,
    when a bot has it, for every game the bot moves in at once (training opponents, evaluations):

    - `batch`: a `BatchedGame` of N games (`tabletop_rl.envs.game_state`: `num_envs`, `legal_mask()`,
      `state(i)`, ...);
    - `games`: bool array of shape (N,), True in the games where the bot is to move now;
    - `rng`: the caller's `numpy.random.Generator` (draw from it, not from `self.rng`, so the
      caller's seed decides every draw);
    - returns an integer array of shape (N,): a legal action id in each game of `games`, and -1 in
      every other game (those entries are not read).

    The answer is checked (`tabletop_rl.agents.match.batch_bot_actions`): another shape or dtype, or
    an id that is not legal in a game of `games`, raises RuntimeError naming the bot.
    See `tabletop_rl.agents.first_legal.FirstLegalAgent` for the smallest example.
    """

    name: str = "agent"
    #: True if the bot needs the rules state (and its seat) to act.
    uses_state: bool = False
    #: False if the bot never reads its observation (callers may then pass None and save encoding it).
    needs_observation: bool = True

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseeds the agent's generator when a seed is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, *, state: Any = None, seat: int | None = None) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def limit_blas_threads() -> None:
    """One BLAS thread (numpy's OpenBLAS) in this process. Policy bots do small matrix-vector products
    that threads do not speed up; on a busy machine (parallel games, training beside them) OpenBLAS
    threads made them about 10x slower. Called by the arena, play, evaluation and training; torch's
    own thread pool (`torch.set_num_threads`) is separate."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def import_user_modules(modules, flag: str) -> list:
    """Import the modules a user named on the command line (`--imports` of train.py, `--import` of the
    arena): their own bots (`register_agent`) and reward functions. Returns the modules.

    The current folder is searched first, as `python -m` does, so `mybots.py` in the folder a command
    runs from imports whatever started it: a console script (`tabletop-train`, `tabletop-arena`) or
    `python path/to/train.py` puts its own folder on the path, not the current one. Only for names
    the user typed: nothing read from a file, a run folder or a request is ever imported (trust).
    A module that is not found raises ValueError saying where it was looked for and what to do;
    an error inside the user's module propagates as it is."""
    import importlib
    import os
    import sys

    names = [m.strip() for m in modules if m.strip()]
    if not names:
        return []
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    out = []
    for name in names:
        try:
            out.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name is None or not (name == exc.name or name.startswith(exc.name + ".")):
                raise  # a module the user's module imports is missing: their error, shown as it is
            top = name.split(".")[0]
            raise ValueError(f"{flag} {name}: no module named {exc.name!r} in the current folder ({here}) or on "
                             f"Python's path; run the command from the folder that holds {top}.py (or the "
                             f"package folder {top}/), or add that folder to PYTHONPATH") from None
    return out


class RandomAgent(Agent):
    """Uniform over the legal actions given by the mask. Works for every game."""

    name = "random"
    needs_observation = False

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])
