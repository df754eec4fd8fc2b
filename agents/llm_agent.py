"""A language model as an agent: any callable `prompt -> reply` plays a seat of Fae or Fantastiqa.

    from tabletop_rl.agents.llm_agent import LLMAgent, register_llm_agent
    bot = LLMAgent(ask=my_model)                     # ask(prompt: str) -> str
    register_llm_agent("mymodel", my_model)          # then `--agents mymodel greedy` in the arena

The prompt (`tabletop_rl.text_face.make_prompt`) holds the rules in short, the seat's JSON view
(only what the seat may know) and how to answer: the move on the last line as `ACTION: <action>`.
By default the legal actions are NOT listed, as in Kaggle's Game Arena harness; `include_legal=True`
lists them (advised for Fantastiqa, whose action words a model cannot guess).

Forfeit rule. A reply that names no legal action (unparseable, or illegal now) is answered with the
reason and asked again, at most `retries` more times. When the last try fails too the move is
forfeited: the engine and the arena have no "loss by forfeit" (an agent only returns an action), so
with `on_forfeit="random"` (default) the agent plays a uniformly random legal action drawn from its
own seeded generator (the floor a `random` bot sets) and counts it in `stats["forfeits"]`, with a
logged warning; `on_forfeit="raise"` raises `LLMForfeit` instead, which stops the game and the arena
run (for a harness that scores a forfeit as a loss itself). An exception of `ask` itself (a network
error) is not the model's move and is passed on unchanged.

Trust: the agent runs only the `ask` a user hands it in Python (or registers from a module named on
the command line with the arena's `--import`); no spec, results file or request names code to import.
"""
from __future__ import annotations

import logging
from typing import Callable

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.registry import register_agent
from tabletop_rl.text_face import extract_answer, make_prompt, parse_action

__all__ = ["LLMAgent", "LLMForfeit", "register_llm_agent", "MAX_RETRIES"]

log = logging.getLogger(__name__)
MAX_RETRIES = 10  # a bound on the calls one move may make


class LLMForfeit(RuntimeError):
    """The model named no legal action in `1 + retries` tries (`on_forfeit="raise"`)."""


class LLMAgent(Agent):
    """Plays the seat by asking `ask(prompt) -> reply`; see the module docstring for the forfeit rule.

    `stats`: moves (chosen), asks (calls of `ask`), refused (replies refused), forfeits (moves played
    by the fallback). `transcript`, if a list is given, receives one dict per call: prompt, reply,
    and the action or the reason it was refused."""

    name = "llm"
    uses_state = True
    needs_observation = False

    def __init__(self, ask: Callable[[str], str], include_legal: bool = False, retries: int = 2,
                 on_forfeit: str = "random", seed: int | None = None, transcript: list | None = None):
        super().__init__(seed)
        if not callable(ask):
            raise ValueError(f"ask must be a callable prompt -> reply; got {type(ask).__name__}")
        if not isinstance(include_legal, bool):
            raise ValueError(f"include_legal must be True or False; got {include_legal!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or not 0 <= retries <= MAX_RETRIES:
            raise ValueError(f"retries must be an int in 0..{MAX_RETRIES}; got {retries!r}")
        if on_forfeit not in ("random", "raise"):
            raise ValueError(f"on_forfeit must be 'random' or 'raise'; got {on_forfeit!r}")
        self.ask, self.include_legal, self.retries, self.on_forfeit = ask, include_legal, retries, on_forfeit
        self.transcript = transcript
        self.stats = {"moves": 0, "asks": 0, "refused": 0, "forfeits": 0}

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        if state is None or seat is None:
            raise ValueError("LLMAgent.act needs state= and seat= (it writes the seat's view into the prompt)")
        feedback = None
        for _ in range(1 + self.retries):
            prompt = make_prompt(state, seat, include_legal=self.include_legal, feedback=feedback)
            reply = self.ask(prompt)
            self.stats["asks"] += 1
            try:
                action = parse_action(state, extract_answer(reply))
            except ValueError as exc:
                feedback = str(exc)
                self.stats["refused"] += 1
                self._note(prompt, reply, refused=feedback)
                continue
            if not action_mask[action]:  # the state and the mask disagree only if a caller mixed them up
                raise RuntimeError(f"action {action} is legal in the state but not in the mask given")
            self.stats["moves"] += 1
            self._note(prompt, reply, action=action)
            return action
        if self.on_forfeit == "raise":
            raise LLMForfeit(f"player_{seat}: no legal action in {1 + self.retries} replies; last: {feedback}")
        legal = np.flatnonzero(action_mask)
        action = int(legal[self.rng.integers(legal.size)])
        self.stats["forfeits"] += 1
        log.warning("LLM agent at player_%d named no legal action in %d replies (%s); forfeited the move: "
                    "played %s at random (forfeits so far: %d)", seat, 1 + self.retries, feedback,
                    state.action_to_string(action), self.stats["forfeits"])
        return action

    def _note(self, prompt: str, reply, **outcome) -> None:
        if self.transcript is not None:
            self.transcript.append({"prompt": prompt, "reply": reply, **outcome})


def register_llm_agent(name: str, ask: Callable[[str], str], game: str = "*", **defaults) -> None:
    """Register `LLMAgent(ask, **defaults)` as bot `name` of `game` ("*": both), so the arena and
    `make_agent` build it by name; a spec's own arguments (`name:include_legal=true,retries=3`) win
    over `defaults`. Call it from a module the arena imports (`--import mybots`)."""
    if not callable(ask):
        raise ValueError(f"ask must be a callable prompt -> reply; got {type(ask).__name__}")

    def factory(seed=None, **kwargs):
        return LLMAgent(ask, seed=seed, **{**defaults, **kwargs})

    register_agent(game, name, factory)
