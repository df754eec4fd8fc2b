"""A person at the terminal, as an agent (like PettingZoo's manual control, for any game).

    python -m tabletop_rl.agents.play fae --human 0 --agents greedy

On its turn the human sees exactly what its seat may know: `view(state, seat)`, by default the
game's `GameSpec.view_text` (Fae: the public board with a legend, plus the seat's own colour;
Fantastiqa: the public state plus the seat's own hand), never `str(state)`, which may hold other seats'
secrets. A state without such a view is refused.

Answers:
- `?` lists the legal actions (moves of the form `move A->B` are grouped by source space; `? 4`
  lists the moves from space 4), each with an index; a game with more than `AUTO_LIST` legal
  actions lists them only on `?`;
- the action text as listed (`move 4->32`, `END_TURN`, ...), any form the game's `string_to_action`
  parses (Fae: `4 32`, `4->32`, `resolve 17`, `r 17`), an index of the last listing, or `#id`;
- `n 4` shows space 4 and its neighbours (games whose state has `space_text`, e.g. Fae);
- `q` quits. Bad input is answered and asked again.
Every action text a bot's move is echoed with is accepted by the prompt.
"""
from __future__ import annotations

import re
import sys
from typing import Callable, TextIO

import numpy as np

from tabletop_rl.agents.base import Agent

__all__ = ["HumanAgent", "QuitGame", "action_text", "AUTO_LIST"]

AUTO_LIST = 40  # list the legal actions every turn only when there are at most this many
_MOVE = re.compile(r"(\w+) (\d+)->(\d+)")


class QuitGame(Exception):
    """The human typed `q`."""


def action_text(state, action: int) -> str:
    to_string = getattr(state, "action_to_string", None)
    return to_string(int(action)) if to_string is not None else f"action {int(action)}"


def listing_order(state, legal: list[int]) -> tuple[list[int], list[str]]:
    """The legal actions in the order `?` lists them (moves grouped by source space), with their texts."""
    texts = {a: action_text(state, a) for a in legal}

    def key(a):
        m = _MOVE.fullmatch(texts[a])
        return (0, int(m[2]), int(m[3]), a) if m else (1, 0, 0, a)
    order = sorted(legal, key=key)
    return order, [texts[a] for a in order]


class HumanAgent(Agent):
    """Asks a person for each move. `input_fn`/`output` default to the terminal (tests pass fakes);
    `view(state, seat) -> str` is what the person sees (default: `state.view_text(seat)`)."""

    name = "human"
    uses_state = True

    def __init__(self, seed: int | None = None, input_fn: Callable[[str], str] | None = None,
                 output: TextIO | None = None, view: Callable | None = None):
        super().__init__(seed)
        self.input_fn = input_fn or input
        self.output = output
        self.view = view

    def _print(self, *args) -> None:
        print(*args, file=self.output or sys.stdout)

    def view_text(self, state, seat: int) -> str:
        view = self.view or getattr(state, "view_text", None)
        if view is None:
            raise ValueError(f"{type(state).__name__} has no view_text(seat) and no view= was given: human play "
                             "shows only what the seat may see, never str(state)")
        return view(state, seat) if self.view else view(seat)

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        if state is None or seat is None:
            raise ValueError("HumanAgent.act needs state= and seat= (it shows the board)")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("HumanAgent.act: the action mask has no legal action")
        order, texts = listing_order(state, legal)
        self._print()
        self._print(self.view_text(state, seat))
        if len(legal) <= AUTO_LIST:
            self._show(state, order, texts)
        else:
            self._print(f"{len(legal)} legal actions: type ? to list them")
        self._print(_help(state))
        while True:
            answer = self.input_fn(f"player_{seat}, your move: ").strip()
            low = answer.lower()
            words = low.split()
            if low in ("q", "quit", "exit"):
                raise QuitGame()
            if low in ("?", "help", ""):
                self._show(state, order, texts)
                continue
            if len(words) == 2 and words[0] == "?" and words[1].isdigit():
                picked = [(a, t) for a, t in zip(order, texts) if (m := _MOVE.fullmatch(t)) and m[2] == words[1]]
                if picked:
                    self._show(state, order, texts, only=words[1])
                else:
                    self._print(f"no legal move leaves space {words[1]}")
                continue
            if words and words[0] in ("n", "nb", "neighbours", "neighbors") and hasattr(state, "space_text"):
                try:
                    self._print(state.space_text(int(words[1]) if len(words) == 2 else -1))
                except ValueError as exc:
                    self._print(f"{answer!r}: {exc}; write e.g. `n 4`")
                continue
            action, problem = parse_answer(state, legal, order, texts, answer)
            if action is not None:
                return action
            self._print(f"{problem}; type ? for the legal actions")

    def _show(self, state, order, texts, only: str | None = None) -> None:
        if only is None:
            self._print(f"{len(order)} legal actions (answer with the text, its [index] or #id):")
        width = len(str(len(order) - 1))
        groups: dict[str, list[str]] = {}
        for k, (a, t) in enumerate(zip(order, texts)):
            m = _MOVE.fullmatch(t)
            if m:
                if only is None or m[2] == only:
                    groups.setdefault(f"{m[1]} {m[2]}->", []).append(f"[{k}] {m[3]}")
            elif only is None:
                self._print(f"  [{k:>{width}}] #{a:<4d} {t}")
        for head, dests in groups.items():
            self._print(f"  {head} " + "  ".join(dests))


def _help(state) -> str:
    parts = ["an action's text, its [index] in the ? listing or #id"]
    if hasattr(state, "string_to_action"):
        parts.insert(0, "a move as `4 32`, `4->32` or `move 4->32`, a ritual as `resolve 17`")
    if hasattr(state, "space_text"):
        parts += ["`?` lists the legal actions (`? 4`: the moves from space 4)", "`n 4` shows space 4 and its neighbours"]
    else:
        parts.append("`?` lists the legal actions")
    return "answers: " + "\n         ".join(parts + ["`q` quits"])


def parse_answer(state, legal: list[int], order: list[int], texts: list[str], answer: str):
    """(action, None) for an answer naming a legal action, else (None, what is wrong)."""
    answer = answer.strip()
    low = answer.lower()
    for a, t in zip(order, texts):
        if t.strip().lower() == low:
            return a, None
    if answer.startswith("#"):
        try:
            a = int(answer[1:])
        except ValueError:
            return None, f"{answer!r}: write an action id as #57"
        return (a, None) if a in legal else (None, f"action id {a} is not legal now")
    if answer.isdigit():
        k = int(answer)
        if 0 <= k < len(order):
            return order[k], None
        return None, f"index {k} is out of range 0..{len(order) - 1}"
    parse = getattr(state, "string_to_action", None)
    if parse is not None:
        try:
            a = int(parse(answer))
        except ValueError as exc:
            return None, str(exc)
        if a in legal:
            return a, None
        return None, f"{action_text(state, a)} is not legal now"
    return None, f"{answer!r} is not an action text, index or #id"
