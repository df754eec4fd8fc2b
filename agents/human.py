"""A person at the terminal, as an agent (like PettingZoo's manual control, for any game).

    python -m tabletop_rl.agents.play fae --human 0 --agents greedy --players 2

On its turn the human sees the board (`str(state)`; it shows only public information, plus the
seat's own secret when the rules core offers `private_text(seat)` or, for Fae, the seat's
colour), then the legal actions as `index: id  text` (text from `state.action_to_string`). It
types an index, an action id prefixed with `#` (e.g. `#57`), or the action text itself (e.g.
`move 4->32`); `?` lists the actions again, `q` quits. Bad input is answered and asked again.
"""
from __future__ import annotations

import sys
from typing import Callable, TextIO

import numpy as np

from tabletop_rl.agents.base import Agent

__all__ = ["HumanAgent", "QuitGame", "action_text"]


class QuitGame(Exception):
    """The human typed `q`."""


def action_text(state, action: int) -> str:
    to_string = getattr(state, "action_to_string", None)
    return to_string(int(action)) if to_string is not None else f"action {int(action)}"


def private_text(state, seat: int) -> str | None:
    """What only `seat` knows, as text, when the rules core can say it."""
    fn = getattr(state, "private_text", None)
    if fn is not None:
        return fn(seat)
    if type(state).__module__.startswith("fae_rl") and hasattr(state, "colours"):
        from fae_rl.board import COLOUR_NAMES

        return f"your secret colour: {COLOUR_NAMES[state.colours[seat]]}"
    return None


class HumanAgent(Agent):
    """Asks a person for each move. `input_fn`/`output` default to the terminal (tests pass fakes)."""

    name = "human"
    uses_state = True

    def __init__(self, seed: int | None = None, input_fn: Callable[[str], str] | None = None,
                 output: TextIO | None = None):
        super().__init__(seed)
        self.input_fn = input_fn or input
        self.output = output

    def _print(self, *args) -> None:
        print(*args, file=self.output or sys.stdout)

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        if state is None or seat is None:
            raise ValueError("HumanAgent.act needs state= and seat= (it shows the board)")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("HumanAgent.act: the action mask has no legal action")
        texts = [action_text(state, a) for a in legal]
        by_text = {t.strip().lower(): a for t, a in zip(texts, legal)}
        self._print()
        self._print(str(state))
        secret = private_text(state, seat)
        if secret:
            self._print(secret)
        self._show(legal, texts)
        while True:
            answer = self.input_fn(f"player_{seat}, your move (index, #id, text, ? or q): ").strip()
            low = answer.lower()
            if low in ("q", "quit", "exit"):
                raise QuitGame()
            if low in ("?", "help", ""):
                self._show(legal, texts)
                continue
            if low in by_text:
                return by_text[low]
            try:
                if answer.startswith("#"):
                    a = int(answer[1:])
                    if a in legal:
                        return a
                    self._print(f"action id {a} is not legal now; type ? for the legal actions")
                    continue
                k = int(answer)
            except ValueError:
                self._print(f"{answer!r} is not an index, #id or action text; type ? for the legal actions")
                continue
            if 0 <= k < len(legal):
                return legal[k]
            self._print(f"index {k} is out of range 0..{len(legal) - 1}; type ? for the legal actions")

    def _show(self, legal, texts) -> None:
        self._print(f"{len(legal)} legal actions:")
        width = len(str(len(legal) - 1))
        for k, (a, t) in enumerate(zip(legal, texts)):
            self._print(f"  {k:>{width}}: #{a:<4d} {t}")
