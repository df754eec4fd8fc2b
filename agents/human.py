"""A person at the terminal, as an agent (like PettingZoo's manual control, for any game).

    python -m tabletop_rl.agents.play fae --human 0 --agents greedy

On its turn the human sees exactly what its seat may know: `view(state, seat)`, by default the
game's `GameSpec.view_text` (Fae: the public board with a legend, plus the seat's own colour;
Fantastiqa: the public state plus the seat's own hand), never `str(state)`, which may hold other seats'
secrets. A state without such a view is refused.

Answers:
- `?` lists the legal actions (moves of the form `move A->B` are grouped by source space; `? 4`
  lists the moves from space 4), each with an index; a game with more than `AUTO_LIST` legal
  actions lists them only on `?`, and then briefly, to fit a 24-line terminal: the moves that start a
  ritual (Fae) in full, first, then only the source spaces of the others (`? 4` lists them);
- the action text as listed (`move 4->32`, `END_TURN`, ...), any form the game's `string_to_action`
  parses (Fae: `4 32`, `4->32`, `resolve 17`, `r 17`), an index of the last listing, or `#id`;
- `n 4` shows space 4 and its neighbours (games whose state has `space_text`, e.g. Fae);
- `h` shows these answers again (they are printed on the human's first turn only; the board every
  turn); `q` quits. Bad input is answered and asked again.
Every action text a bot's move is echoed with is accepted by the prompt.
"""
from __future__ import annotations

import re
import sys
import textwrap
from typing import Callable, TextIO

import numpy as np

from tabletop_rl.agents.base import Agent

__all__ = ["HumanAgent", "QuitGame", "action_text", "ritual_moves", "AUTO_LIST"]

AUTO_LIST = 40  # list the legal actions every turn only when there are at most this many
_MOVE = re.compile(r"(\w+) (\d+)->(\d+)")


class QuitGame(Exception):
    """The human typed `q`."""


def action_text(state, action: int) -> str:
    to_string = getattr(state, "action_to_string", None)
    return to_string(int(action)) if to_string is not None else f"action {int(action)}"


def ritual_moves(state, legal: list[int]) -> set[int]:
    """The legal actions after which a ritual resolves or waits to be resolved (Fae, F-R1): the moves
    a player most wants to see. Empty for games without rituals (no `cards_used`/`pending`). Reads
    only the public board: whether a move isolates a stack depends on where druids stand."""
    if not (hasattr(state, "cards_used") and hasattr(state, "pending")):
        return set()
    found = set()
    for a in legal:
        after = state.clone()
        after.apply(a)
        if after.cards_used > state.cards_used or after.pending:
            found.add(a)
    return found


def listing_order(state, legal: list[int], rituals: set[int] | None = None) -> tuple[list[int], list[str]]:
    """The legal actions in the order `?` lists them (moves that start a ritual first, then the other
    moves; each grouped by source space), with their texts."""
    texts = {a: action_text(state, a) for a in legal}
    rituals = ritual_moves(state, legal) if rituals is None else rituals

    def key(a):
        m = _MOVE.fullmatch(texts[a])
        return (a not in rituals, 0, int(m[2]), int(m[3]), a) if m else (a not in rituals, 1, 0, 0, a)
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
        self._helped = False  # the answers are printed on the first turn only

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
        rituals = ritual_moves(state, legal)
        order, texts = listing_order(state, legal, rituals)
        self._print()
        self._print(self.view_text(state, seat))
        if len(legal) <= AUTO_LIST:
            self._show(order, texts, rituals)
        else:
            starts = f", {len(rituals)} start a ritual" if rituals else ""
            self._print(f"{len(legal)} legal actions{starts}: type ? to list them (h: all answers)")
        if not self._helped:  # the answers once; then only the board each turn
            self._print(_help(state))
            self._helped = True
        while True:
            answer = self.input_fn(f"player_{seat}, your move: ").strip()
            low = answer.lower()
            words = low.split()
            if low in ("q", "quit", "exit"):
                raise QuitGame()
            if low in ("?", ""):
                self._show(order, texts, rituals)
                continue
            if low in ("h", "help"):
                self._print(_help(state))
                continue
            if len(words) == 2 and words[0] == "?" and words[1].isdigit():
                picked = [(a, t) for a, t in zip(order, texts) if (m := _MOVE.fullmatch(t)) and m[2] == words[1]]
                if picked:
                    self._show(order, texts, rituals, only=words[1])
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

    def _show(self, order, texts, rituals: set[int], only: str | None = None) -> None:
        """The listing: everything (or the moves from space `only`); beyond AUTO_LIST actions the
        moves that start no ritual are summed up by source space, so `?` fits a 24-line terminal."""
        brief = only is None and len(order) > AUTO_LIST
        if only is None:
            self._print(f"{len(order)} legal actions (answer with the text, its [index] or #id):")
        width = len(str(len(order) - 1))
        groups: dict[str, list[str]] = {}
        others: dict[str, int] = {}  # brief: source space -> how many moves from it start no ritual
        for k, (a, t) in enumerate(zip(order, texts)):
            m = _MOVE.fullmatch(t)
            if not m:
                if only is None:
                    self._print(f"  [{k:>{width}}] #{a:<4d} {t}")
            elif brief and a not in rituals:
                others[m[2]] = others.get(m[2], 0) + 1
            elif only is None or m[2] == only:
                head = ("ritual: " if a in rituals else "") + f"{m[1]} {m[2]}->"
                groups.setdefault(head, []).append(f"[{k}] {m[3]}")
        for head, dests in groups.items():
            self._print(f"  {head} " + "  ".join(dests))
        if others:
            self._print(f"  {sum(others.values())} other moves (no ritual), from spaces (`? 4` lists those from 4):")
            self._print(textwrap.fill(" ".join(others), width=78, initial_indent="    ", subsequent_indent="    "))

def _help(state) -> str:
    parts = ["an action's text, its [index] in the ? listing or #id"]
    if hasattr(state, "string_to_action"):
        parts.insert(0, "a move as `4 32`, `4->32` or `move 4->32`, a ritual as `resolve 17`")
    if hasattr(state, "space_text"):
        parts += ["`?` lists the legal actions (`? 4`: the moves from space 4)", "`n 4` shows space 4 and its neighbours"]
    else:
        parts.append("`?` lists the legal actions")
    return "answers: " + "\n         ".join(parts + ["`h` shows these answers again, `q` quits"])


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
