"""Text of the Fantastiqa core: action names, why an action is illegal, the whole state as text.

    action_to_string(state, a)   readable name of action a in the current decision
    why_illegal(state, a)        the reason in the ValueError of `state.apply(a)`
    describe(state)              `str(state)`: everything, hidden information included (debugging)
    action_words(state, a)       action a in words ("Keep the rest and draw"): the web page, its log
    end_text(state)              why the game ended, in words ("player_0 reached 9 quest points ...")

`FantastiqaState.action_to_string`, `apply` and `__str__` call these. What ONE seat may see (a
human player's view, the rgb image) is `fantastiqa_rl.render`.
"""
from __future__ import annotations

import re

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey import ABBEY_CAP
from fantastiqa_rl.abbey import rules as abbey
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import NUM_POSITIONS, NUM_SPACES, REGIONS, STATUES, SYMBOLS
from fantastiqa_rl.options import CANCEL_BUDGET


def action_to_string(s, a) -> str:
    """Readable name of action a in the decision of state s."""
    L, g = s.g.layout, s.g
    name, idx = L.decode(a if isinstance(a, int) else int(a) if isinstance(a, (np.integer,)) else -1)
    ph = s.phase
    if name == "INVALID":
        return f"INVALID({a!r})"
    if name == "EXPLORE":
        top = s.abbey_deck[-1] if s.abbey_deck else -1
        return "EXPLORE the Abbey" + (f" (face up: {s.card_name(top)}, "
                                      f"{SYMBOLS[g.I_ABBEY_SYMBOL[top]]})" if top >= 0 else "")
    if name in A.ABBEY_NAMES:
        return {"ABBEY_STOP": f"STOP exploring, claim {len(s.abbey_aside)} Abbey card(s)",
                "ABBEY_CONTINUE": "CONTINUE exploring (flip the next Abbey card)"}[name]
    if name in A.FIXED_NAMES:
        if a == A.DONE:
            return {A.MAIN: "END_TURN", A.ADV_MOVE: "STOP_ADVENTURE",
                    A.END_DISCARD: "KEEP_REST_AND_DRAW"}.get(ph, "DONE")
        return name
    if name == "MARK":
        q = s.open_quests[idx]
        return f"MARK open quest {idx}" + (f" ({s.card_name(q)})" if q >= 0 else "")
    if name == "REGION":
        verb = {A.SETUP_PLACE: "PLACE at", A.ADV_MOVE: "SUBDUE towards",
                A.MOVE_DEST: "MOVE to"}.get(ph, "REGION")
        rn = REGIONS[s.region_at[idx]] if hasattr(s, "region_at") else "?"
        return f"{verb} position {idx} ({rn})"
    if name == "SPACE":
        b = s.board[idx]
        return f"SWAP space c{idx}" + (f" ({s.card_name(b)})" if b >= 0 else "")
    if name == "SEAT":
        return f"TARGET seat {idx}"
    if name == "QUEST":
        verb = {A.SETUP_QUEST: "TAKE starting quest", A.MAIN: "COMPLETE quest",
                A.CHEST: "KEEP quest", A.COMMIT_TARGET: "COMMIT to quest",
                A.WITHDRAW_FROM: "WITHDRAW from quest"}.get(ph, "QUEST")
        return f"{verb} {g.Q_NAME[idx]}"
    card = g.K_NAME[idx]
    if name == "HAND":
        verb = {A.MAIN: "PLAY", A.ADV_PAY: "PAY", A.QUEST_PAY: "PAY", A.END_DISCARD: "DISCARD",
                A.RELEASE: "RELEASE from hand", A.GLASS: "DOUBLE", A.BREW_CARD: "GIVE from hand",
                A.ADV_MOVE: "FLY with", A.ABBEY_MATCH: "MATCH the Abbey card with"}.get(ph, "HAND")
        return f"{verb} {card}"
    if name == "COMMIT":
        return f"COMMIT {card}"
    verb = {A.SETUP_ARTIFACT: "TAKE starting artifact", A.BUY: "BUY", A.BELL: "KEEP",
            A.RELEASE: "RELEASE from discard", A.BREW_CARD: "GIVE from discard",
            A.MAIN: "WITHDRAW"}.get(ph, "PICK")
    return f"{verb} {card}"

def why_illegal(s, a: int) -> str:
    """Why action a is not legal in state s (for the ValueError of `apply`)."""
    L = s.g.layout
    name, _ = L.decode(a)
    if s.phase == A.TERMINAL:
        return "the game is over"
    if name == "INVALID":
        return f"out of range [0, {L.n})"
    if name in ("HAND", "COMMIT") and s.phase != A.SETUP_PLACE:
        k = a - (L.hand if name == "HAND" else L.commit)
        if s.phase not in (A.SETUP_QUEST, A.SETUP_ARTIFACT) and not any(
                s.g.I_HAND_KIND[i] == k for i in s.hand[s.cur]):
            return f"seat {s.cur} holds no such card in hand (decision {PHASES[s.phase]})"
    if s.phase in (A.ADV_PAY, A.QUEST_PAY) and name == "HAND":
        return "the card cannot help complete this payment (it would be surplus or unusable)"
    if name == "EXPLORE" and s.phase == A.MAIN and abbey.why_no_explore(s, s.cur):
        return abbey.why_no_explore(s, s.cur)
    if s.phase == A.ABBEY_MATCH and name == "HAND":
        return (f"the card does not show {SYMBOLS[s.g.I_ABBEY_SYMBOL[s.abbey_deck[-1]]]}, the symbol "
                "of the face-up Abbey card (no wilds)")
    if s.phase == A.ABBEY_CHOICE and name == "ABBEY_CONTINUE":
        return (f"cannot continue: {'the team' if s.teams else f'seat {s.cur}'} holds "
                f"{s.abbey_held(s.cur)} Abbey card(s) + {len(s.abbey_aside)} set aside "
                f"(cap {ABBEY_CAP}), or no Abbey card is left to flip")
    if name == "MARK" and s.phase == A.FREE_MENU and s.open_quests[a - A.MARK] in s.token_left:
        return ("mark_return='forbid': the quest token left this open quest earlier this turn "
                "and may not return to it (use WITHDRAW to empty it instead)")
    if s.phase == A.ABBEY_MATCH and a == A.CANCEL and s.abbey_aside:
        return "cannot cancel after the first match (the exploration has begun)"
    if a == A.CANCEL and s.opts["turn_loops"] == "forbid" and s.cancels >= CANCEL_BUDGET:
        return (f"Q-T2: this turn's CANCEL budget ({CANCEL_BUDGET}) is spent; CANCEL is legal only where "
                "no other action is (turn_loops='allow' is the unbounded reading)")
    return (f"not legal in decision {PHASES[s.phase]} of seat {s.cur}; legal: "
            + ", ".join(action_to_string(s, int(x)) for x in s.legal_actions()[:12])
            + (" ..." if len(s.legal_actions()) > 12 else ""))

def describe(s) -> str:
    """The whole state as text, hidden information included (debugging; `str(state)`)."""
    g = s.g
    nm = s.card_name
    lines = [f"Fantastiqa ({g.cs.name} cards) {s.n} players, goal {s.goal}, "
             f"turns {s.turns}, decision {PHASES[s.phase]}, seat {s.current_player}"]
    for pos in range(NUM_POSITIONS):
        who = [str(p) for p in range(s.n) if s.position[p] == pos]
        lines.append(f"  pos {pos}: {REGIONS[s.region_at[pos]]:<13} {STATUES[s.statue_at[pos]]:<14}"
                     f" adventurers [{','.join(who)}]")
    for c in range(NUM_SPACES):
        b = s.board[c]
        if b >= 0:
            k = g.I_HAND_KIND[b]
            lines.append(f"  c{c}: {nm(b)} (needs {SYMBOLS[g.K_VULN[k]]} x{g.K_STRENGTH[k]})"
                         + (" +gem" if s.board_gems[c] else ""))
        else:
            lines.append(f"  c{c}: empty")
    oq = [nm(q) + (" +1" if s.open_bonus[j] else "") if q >= 0 else "-" for j, q in enumerate(s.open_quests)]
    lines.append(f"  open quests: {oq}; creature deck {len(s.creature_deck)}")
    for p in range(s.n):
        lines.append(f"  seat {p}: score {s.scores[p]} gems {s.gems[p]} carpets {s.carpets[p]}"
                     f" reshuffles {s.reshuffles[p]} deck {len(s.deck[p])} discard {len(s.discard[p])}"
                     f" quests {[nm(q) for q in s.quests[p]]}")
        lines.append(f"          hand {sorted(nm(i) for i in s.hand[p])}")
    if s.opts["abbey"]:
        top = s.abbey_top()
        lines.append(f"  Abbey: face up {nm(top) + ' (' + SYMBOLS[g.I_ABBEY_SYMBOL[top]] + ')' if top >= 0 else '-'};"
                     f" face down {len(s.abbey_deck) - (top >= 0)}; returned {[nm(i) for i in s.abbey_returned]};"
                     f" set aside {[nm(i) for i in s.abbey_aside]}; held {[len(x) for x in s.abbey]};"
                     f" goal lines {list(s.goal_lines)}")
    if s.opts["teams"]:
        lines.append("  teams: seats 0+2 vs 1+3 (scores summed: "
                     f"{s.side_score(0)} vs {s.side_score(1)})")
    if s.winners_ is not None:
        lines.append(f"  winners {s.winners_} ({s.end_reason})")
    return "\n".join(lines)


# ---------------------------------------------------------------- in words (the web page, logs)
#: What a person reads for the engine's leading names in `action_to_string` (the engine text
#: stays what the terminal, the records and the tests use); other leading names are sentence-cased.
#: `{}` stands for the rest of the text (HAND is the FREE_MENU's "play a card for its power").
ACTION_WORDS = {
    "KEEP_REST_AND_DRAW": "Keep the rest and draw", "END_TURN": "End the turn", "DONE": "Done",
    "FREE_ACTION": "Take a free action", "CANCEL": "Cancel (go back)", "CONFIRM": "Confirm the chosen cards",
    "ADVENTURE": "Go on an adventure (turn action)", "VISIT_STATUE": "Visit a statue (turn action)",
    "STATUE_DRAW": "Statue: draw cards to buy", "STATUE_RELEASE": "Statue: release creatures",
    "STATUE_TELEPORT": "Statue: teleport", "STOP_ADVENTURE": "Stop the adventure",
    "CARPET": "Fly on a carpet token", "RESHUFFLE": "Use a reshuffle token", "HAND": "Play {} for its power",
    "PICK": "Take", "REGION": "Choose", "QUEST": "Choose quest",
}
_HEAD = re.compile(r"[A-Z][A-Z_]+")
_SYMBOL_WORD = re.compile(r"\b(" + "|".join(SYMBOLS) + r")\b")


def in_words(text: str) -> str:
    """An engine action text in words: `KEEP_REST_AND_DRAW` -> "Keep the rest and draw",
    `DISCARD Pail` -> "Discard Pail", a symbol `BAT` -> "Bat"; the rest unchanged."""
    head, _, rest = text.partition(" ")
    if _HEAD.fullmatch(head):
        words = ACTION_WORDS.get(head) or head.replace("_", " ").capitalize()
        text = words.format(rest) if "{}" in words else f"{words} {rest}" if rest else words
    return _SYMBOL_WORD.sub(lambda m: m.group(1).title(), text)


def action_words(s, a) -> str:
    """Action a in the decision of state s, in words (`in_words(action_to_string(s, a))`)."""
    return in_words(action_to_string(s, a))


def _seats(seats) -> str:
    names = [f"player_{p}" for p in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def end_text(s) -> str:
    """Why the game ended, in words ("" before the end): who reached the goal, or that the
    creature deck or the turn limit ended it and how the final score is counted then."""
    if s.winners_ is None:
        return ""
    scored = ("final score = quest points on the track minus the points of personal quests not "
              "completed (ties: more completed quests, then more gems)")
    if s.end_reason == "goal":
        side = s.team(s.winners_[0])
        pts, held = s.side_score(side[0]), s.abbey_held(side[0])
        lines = [s.goal_lines[j] for j in s.goal_lines_met(side[0])]
        need = f"{lines[0][0]} quest points" + (f" and {lines[0][1]} Abbey cards" if lines and lines[0][1] else "") \
            if lines else f"{s.goal} quest points"
        got = f"{pts} quest points" + (f" and {held} Abbey cards" if lines and lines[0][1] else "")
        who = _seats(side) + (" (a team, points summed)" if len(side) > 1 else "")
        return f"{who} reached {got}" + (" (the goal)" if got == need else f" (the goal: {need})")
    if s.end_reason == "creature deck empty":
        return f"the creature deck ran out; {scored}"
    if s.end_reason == "turn_limit":
        return (f"the turn limit was reached ({s.opts['turn_limit']} completed turns per player, an engine "
                f"rule, Q-E5); {scored}")
    return s.end_reason
