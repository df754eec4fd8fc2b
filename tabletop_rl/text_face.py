"""The games' text face, for language-model agents: what one seat may see as JSON, the legal actions
as readable strings, a parser from a model's reply back to an action id, and the prompt.

    view = seat_view(state, seat)              # JSON-safe dict: only what `seat` may know
    texts = action_strings(state)              # {action id: "move 4->32", ...} of the seat to move
    action = parse_action(state, "Move 4->32") # -> id; ValueError saying what is wrong
    prompt = make_prompt(state, seat)          # rules in short, the view, how to answer

One seat view: `seat_view` is the web app's `state_view` (`tabletop_rl.agents.web.views`, the view
the hidden-information tests of the web app check), less what only a page draws (pixel centres
and colours of Fae's board) and less the legal choices, which a prompt shows only when asked
(`include_legal=True`; Kaggle's Game Arena harness leaves them out too, and so do we by default).
Fae's view adds the public move history in sum (per player: druids moved and ritual points given
per colour, its last move: the observation's `history="summary"`), which a player reads colours from.

Action strings are the engine's `state.action_to_string` (what the terminal, the web log and the
game records print); `parse_action` takes an action's text in any case and spacing, the short
forms the game's `string_to_action` reads (Fae: `4 32`, `4->32`, `resolve 17`) and `#id` (the
terminal player's parser, `tabletop_rl.agents.human.parse_answer`). A bare number is refused: it
could be an id or a space. A model's reply is reduced to its answer by `extract_answer`: the last
line that starts with `ACTION:`, else the whole reply when it is one line.
"""
from __future__ import annotations

import json
import re

__all__ = ["GAMES", "game_of", "seat_view", "action_strings", "parse_action", "extract_answer",
           "make_prompt", "RULES", "ACTION_FORMS", "MAX_REPLY_CHARS"]

GAMES = ("fae", "fantastiqa")
#: A reply longer than this is not read (a model that writes a book gets the retry message instead).
MAX_REPLY_CHARS = 20_000
# Keys of the web view that only draw the page: Fae's pixel geometry and colours.
_DRAWING_KEYS = ("centres", "size", "terrain_rgb", "colour_rgb")

#: The rules in short, for the prompt (the full specifications: docs/rules/fae.md, docs/rules/fantastiqa.md).
RULES = {
    "fae": (
        "Fae (a re-theme of Clans). 60 spaces in 12 regions; every space starts with one druid; 5 druid "
        "colours, each player secretly owns one colour (the others are neutral but still score). "
        "On your turn move ALL druids of one space (fewer than 7 of them) onto an adjacent space that "
        "already holds druids; passing is not allowed. An occupied space with no occupied neighbour is "
        "isolated: a ritual resolves there with the next ritual card (value v, blessed terrain, cursed "
        "terrain): on the cursed terrain its druids are removed; if all 5 colours are there, colours with "
        "one druid there are removed; otherwise every colour present scores the druids left plus v if the "
        "terrain is blessed. The mover keeps the card (+1 to the holder's own colour at the end). If one "
        "move isolates several spaces the mover chooses the order (`resolve N`). The game ends after the "
        "12th ritual or when the player to move cannot move; the player whose colour has most points wins "
        "(tie: fewest ritual cards). Hide your colour; infer the others' from their moves. In the view, "
        "`druids[i]` counts druids per colour (order `geometry.colour_names`) on space i+1, "
        "`geometry.edges` lists adjacent spaces [a, b, river] and `geometry.terrain[i]` indexes "
        "`geometry.terrain_names`; `history` sums each player's moves (druids moved and ritual points given, "
        "per colour, and the last move)."),
    "fantastiqa": (
        "Fantastiqa. Players travel a map of regions, subdue creatures with the symbols of the cards in "
        "their hand (the subdued creatures join their deck), visit statues to draw and buy cards, and "
        "complete quests by paying the symbols a quest asks; quest points move the score track. The first "
        "player to reach the goal wins at once; if the creature deck runs out or the turn limit is reached, "
        "the highest final score wins (open personal quests count against their holder). A turn is a "
        "series of decisions (the view's `phase`): choose a turn action, pay with cards from your hand, "
        "end the turn and discard. You see your own hand, the public board and every player's public "
        "counts; other hands and every deck order are hidden."),
}
# How an action is written, per game: what a prompt without the legal list says about the forms.
ACTION_FORMS = {
    "fae": "`move A->B` (A and B adjacent space numbers 1..60) or, when several rituals wait, `resolve N`.",
    "fantastiqa": ("the engine's words for the decision in progress (the view's `phase`): single words such as "
                   "`END_TURN`, `VISIT_STATUE`, `ADVENTURE`, `FREE_ACTION`, `CANCEL`, `CONFIRM`, `DONE`, "
                   "`KEEP_REST_AND_DRAW`, or a verb and its object such as `PLAY <card>`, `PAY <card>`, "
                   "`DISCARD <card>`, `BUY <card>`, `COMMIT <card>`, `COMPLETE quest <quest>`, `MARK open quest <i>`, "
                   "`MOVE to position <n> (<region>)`, `SUBDUE towards position <n> (<region>)`, `TARGET seat <s>`."),
}


def game_of(state) -> str:
    """"fae" or "fantastiqa", from the rules state's class."""
    from fae_rl.state import FaeState
    from fantastiqa_rl.state import FantastiqaState

    if isinstance(state, FaeState):
        return "fae"
    if isinstance(state, FantastiqaState):
        return "fantastiqa"
    raise ValueError(f"the text face covers {', '.join(GAMES)}; got a {type(state).__name__}")


def seat_view(state, seat: int) -> dict:
    """What `seat` may see of `state`, JSON-safe: the web app's seat view without drawing data or the
    legal list. Hidden information stays hidden (another seat's colour in Fae; other hands, deck
    orders and the chance generators in Fantastiqa) until the game is over, when everything is shown."""
    from tabletop_rl.agents.web.views import state_view

    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ValueError(f"seat must be an int; got {seat!r}")
    game = game_of(state)
    view = state_view(game, state, seat)
    view.pop("choices", None)
    view.pop("text", None)  # Fantastiqa's render of the same facts; the JSON carries them
    if game == "fae":
        view["geometry"] = {k: v for k, v in view["geometry"].items() if k not in _DRAWING_KEYS}
        # the public move history in sum (what the observation's history="summary" holds): the
        # signal a player reads the others' colours from
        view["history"] = [{"player": f"player_{p}", "druids_moved_per_colour": h["moved"],
                            "points_given_per_colour": h["points"],
                            "last_move": None if h["last_action"] < 0 else state.action_to_string(h["last_action"])}
                           for p, h in enumerate(state.to_dict()["history"])]
    view["you"] = f"player_{seat}"
    view["to_move"] = None if view["over"] else f"player_{view['current']}"
    return view


def action_strings(state) -> dict[int, str]:
    """{action id: text} of the legal actions of the seat to move ({} once the game is over). The
    texts of one decision are distinct, so a text names one action."""
    if state.is_terminal():
        return {}
    out = {int(a): state.action_to_string(int(a)) for a in state.legal_actions()}
    if len({t.strip().lower() for t in out.values()}) != len(out):  # a parser could not tell them apart
        raise RuntimeError(f"two legal actions share a text in {game_of(state)}: {sorted(out.values())}")
    return out


def parse_action(state, text) -> int:
    """The legal action id `text` names in `state`'s current decision: an action text as listed
    (any case, any spacing), a short form the game reads (Fae: `4 32`, `resolve 17`) or `#id`.
    ValueError says what is wrong: not text, empty, a bare number, not an action, not legal now."""
    from tabletop_rl.agents.human import parse_answer

    if not isinstance(text, str):
        raise ValueError(f"an action must be a text; got {type(text).__name__}")
    if state.is_terminal():
        raise ValueError("the game is over: no action is legal")
    answer = " ".join(text.split())
    if not answer:
        raise ValueError("the answer is empty: write an action, e.g. " + next(iter(action_strings(state).values())))
    if answer.isdigit():
        raise ValueError(f"{answer!r} is a bare number: write the action's text (or #id for an action id)")
    texts = action_strings(state)
    order = list(texts)
    action, why = parse_answer(state, order, order, [texts[a] for a in order], answer)
    if action is None:
        if not why or why == f"{answer!r} is not an action text, index or #id":  # the parser's words for a listing
            raise ValueError(f"{answer[:80]!r} is not a legal action now")
        raise ValueError(why if answer in why else f"{answer[:80]!r}: {why}")
    return int(action)


_ACTION_LINE = re.compile(r"^\s*\**\s*action\s*\**\s*:\s*(.*)$", re.IGNORECASE)


def extract_answer(reply) -> str:
    """The answer in a model's reply: the text after the last `ACTION:` line (markdown bold and
    surrounding backticks or quotes removed), else the reply itself when it is one line.
    ValueError when the reply is not text, is too long, or is several lines without `ACTION:`."""
    if not isinstance(reply, str):
        raise ValueError(f"the reply must be text; got {type(reply).__name__}")
    if len(reply) > MAX_REPLY_CHARS:
        raise ValueError(f"the reply has {len(reply)} characters (at most {MAX_REPLY_CHARS} are read)")
    lines = [ln for ln in reply.strip().splitlines() if ln.strip()]
    found = [m.group(1) for m in map(_ACTION_LINE.match, lines) if m]
    if found:
        answer = found[-1]
    elif len(lines) == 1:
        answer = lines[0]
    else:
        raise ValueError("the reply has no line 'ACTION: <action>'")
    return answer.strip(" \t`'\"*")


def make_prompt(state, seat: int, include_legal: bool = False, feedback: str | None = None) -> str:
    """The prompt for `seat` to choose its move: the rules in short, the seat's JSON view, the legal
    actions only if `include_legal`, and how to answer. `feedback` (the retry message: why the last
    reply was refused) is added at the end."""
    game = game_of(state)
    if state.is_terminal() or state.current_player != seat:
        raise ValueError(f"player_{seat} is not to move")
    parts = [f"You are player_{seat} in a game of {game} with {state.num_players} players.",
             "Rules in short: " + RULES[game],
             "Your view of the game (JSON, only what you may know):",
             json.dumps(seat_view(state, seat), separators=(",", ":"))]
    if include_legal:
        parts += ["Your legal actions now, one per line:", "\n".join(action_strings(state).values())]
    else:
        parts.append("Write an action as " + ACTION_FORMS[game])
    parts.append("Think if you wish, then give your move on the last line as: ACTION: <action>")
    if feedback:
        parts.append(f"Your previous answer was refused: {feedback}. Answer again.")
    return "\n\n".join(parts)
