"""Strict `FaeState.from_dict`: every key required, no unknown keys, types and consistency checked.

Errors are ValueErrors that name the offending key, so a hand-edited or corrupted record fails
loudly instead of producing a state the rules could never reach. Besides types and ranges it
checks what play conserves (`_check_druids_and_scores`): druids leave the board only on resolved
spaces (a curse empties one, strife removes single druids), so with no ritual card drawn all 60
are on the board, and every colour's score is earned on resolved spaces that still hold it;
and what the moves so far imply (`_check_play_reached`): whose turn it is, which rituals are
pending, which seats have history. A finished game has drawn all 12 cards or has no legal move.
"""
from __future__ import annotations

from fae_rl.board import (MAX_PLAYERS, MIN_PLAYERS, MOVE_SRC, NEIGHBOURS, NUM_COLOURS, NUM_MOVE_ACTIONS,
                          NUM_RITUAL_CARDS, NUM_SPACES, RITUAL_CARDS)
from tabletop_rl.shown import shown

DICT_VERSION = 1
DICT_KEYS = (
    "version", "num_players", "big_stack_merge", "druids", "colours", "scores", "ritual_cards",
    "current_player", "pending_rituals", "resolved", "terminal", "history",
)
HISTORY_KEYS = ("moved", "points", "last_action")

MAX_CARD_VALUE = max(v for v, _, _ in RITUAL_CARDS)
DRUIDS_PER_COLOUR = NUM_SPACES // NUM_COLOURS  # F-S1: one per colour per region
MAX_MOVES = NUM_SPACES - 1  # F-E5: each move empties a space for good
MAX_MOVED = DRUIDS_PER_COLOUR * MAX_MOVES  # a colour's druids moved by one seat: at most all 12 per move
MAX_POINTS = NUM_RITUAL_CARDS * (NUM_SPACES + MAX_CARD_VALUE)  # F-R6: at most every druid plus the card, 12 times


def _check_moved(rows, history) -> None:
    """F-S1 + F-T1: each region starts with one druid of each colour and a druid leaves its region
    only by moving, so a region holding k > 1 druids of colour c means k - 1 of them moved at
    least once each: the sum over regions of max(0, k - 1) is at most the druids of c moved
    (history 'moved', summed over players). This catches colour columns swapped early in a game."""
    for c in range(NUM_COLOURS):
        moved = sum(h["moved"][c] for h in history)
        excess = 0
        for r in range(NUM_SPACES // 5):
            k = sum(rows[s][c] for s in range(5 * r, 5 * r + 5))
            excess += max(0, k - 1)
        if excess > moved:
            raise ValueError(f"from_dict: key 'druids': colour {c} has {excess} druid(s) more than one per region "
                             f"but only {moved} druid move(s) of that colour in 'history' (F-S1)")


def _check_druids_and_scores(rows, resolved, scores) -> None:
    """Conservation checks (sound: every reachable state passes them).

    - F-R4/F-R5: a druid of colour c leaves the board only when a space is resolved, and then
      that space holds no druid of c any more (a curse empties it, strife removes single druids).
      Without an empty resolved space (no curse, no emptying strife) every missing druid of c is
      one strife, so at most one per resolved space lacking c.
    - F-R6: colour c scores only on resolved spaces where it remains, each time the druids there
      (plus at most the card value), so scores[c] lies between the sums of those lower and upper
      bounds. This catches colour columns swapped against the scores.
    """
    counts = [sum(r) for r in rows]
    res = [s - 1 for s in resolved]
    any_empty = any(counts[s] == 0 for s in res)
    for c in range(NUM_COLOURS):
        missing = DRUIDS_PER_COLOUR - sum(r[c] for r in rows)
        lacking = sum(1 for s in res if rows[s][c] == 0)
        if missing and not res:
            raise ValueError(f"from_dict: key 'druids': {missing} druid(s) of colour {c} are off the board but no "
                             "ritual was resolved (druids leave only by a curse or strife, F-R4/F-R5)")
        if missing and not lacking:
            raise ValueError(f"from_dict: key 'druids': {missing} druid(s) of colour {c} are off the board but every "
                             "resolved space still holds that colour (F-R4/F-R5)")
        if not any_empty and missing > lacking:
            raise ValueError(f"from_dict: key 'druids': {missing} druid(s) of colour {c} are off the board; without "
                             f"a curse, strife removes at most one per resolved space ({lacking} lack it) (F-R5)")
        held = [s for s in res if rows[s][c] > 0]
        lo = sum(counts[s] for s in held)
        hi = sum(counts[s] + MAX_CARD_VALUE for s in held)
        if not lo <= scores[c] <= hi:
            raise ValueError(f"from_dict: key 'scores': colour {c} has {scores[c]} points but the resolved spaces "
                             f"holding it give {lo}..{hi} (F-R6)")



def _check_play_reached(rows, resolved, pending, terminal, current, history) -> None:
    """What the moves so far imply (sound for states reached from the deal, F-S1: one druid on
    every space). A move empties its source for good (F-T1, F-R8: resolved spaces are frozen and
    nothing moves into an empty space), and a resolved space is emptied only by a curse or strife,
    so the moves made are the empty unresolved spaces. Seats move in turn from seat 0 (F-S4), and a
    turn passes once the move's rituals are resolved (F-R2); only a seat that moved has history.
    F-R1: every occupied, unresolved space without an occupied neighbour is pending."""
    n = len(history)
    counts = [sum(r) for r in rows]
    done = set(resolved)
    moves = sum(1 for s in range(NUM_SPACES) if counts[s] == 0 and s + 1 not in done)
    if not terminal:
        isolated = [s + 1 for s in range(NUM_SPACES) if counts[s] and s + 1 not in done
                    and not any(counts[m] for m in NEIGHBOURS[s])]
        if isolated != pending:
            raise ValueError(f"from_dict: key 'pending_rituals' must list every isolated unresolved space "
                             f"{isolated}; got {pending} (F-R1)")
        mover = (moves - 1) % n if pending else moves % n
        if current != mover:
            raise ValueError(f"from_dict: key 'current_player': {moves} move(s) were made (empty unresolved "
                             f"spaces){' and rituals are pending' if pending else ''}, so seat {mover} is to "
                             f"{'resolve' if pending else 'move'}; got {current} (F-S4, F-R2)")
    for p, h in enumerate(history):
        made = len(range(p, moves, n))
        if made == 0 and (h["last_action"] != -1 or any(h["moved"]) or any(h["points"])):
            raise ValueError(f"from_dict: key 'history': seat {p} has made no move ({moves} in all) but has "
                             f"history {h}")
        if any(x > DRUIDS_PER_COLOUR * made for x in h["moved"]):
            raise ValueError(f"from_dict: key 'history': seat {p} made {made} move(s), which carry at most "
                             f"{DRUIDS_PER_COLOUR} druids of a colour each; its history records {h['moved']}")
        if made and (h["last_action"] == -1 or sum(h["moved"]) < made):
            raise ValueError(f"from_dict: key 'history': seat {p} made {made} move(s) but its history records "
                             f"{sum(h['moved'])} druid(s) moved and last action {h['last_action']}")
        if made and (counts[MOVE_SRC[h["last_action"]]] or MOVE_SRC[h["last_action"]] + 1 in done):
            raise ValueError(f"from_dict: key 'history': seat {p}'s last move leaves space "
                             f"{MOVE_SRC[h['last_action']] + 1}, which is not an empty unresolved space (F-T1)")


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int(d, key, lo=None, hi=None):
    v = d[key]
    if not _is_int(v):
        raise ValueError(f"from_dict: key {shown(key)} must be a plain int; got {shown(v)} ({type(v).__name__})")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"from_dict: key {shown(key)} must be in {lo}..{hi}; got {v}")
    return v


def _int_list(v, key, length=None, lo=None, hi=None) -> list[int]:
    if not isinstance(v, list):
        raise ValueError(f"from_dict: key {shown(key)} must be a list; got {type(v).__name__}")
    if length is not None and len(v) != length:
        raise ValueError(f"from_dict: key {shown(key)} must have {length} entries; got {len(v)}")
    for x in v:
        if not _is_int(x):
            raise ValueError(f"from_dict: key {shown(key)} must hold plain ints; got {shown(x)} ({type(x).__name__})")
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise ValueError(f"from_dict: key {shown(key)} entries must be in {lo}..{hi}; got {x}")
    return list(v)


def _spaces(v, key) -> list[int]:
    spaces = _int_list(v, key, lo=1, hi=NUM_SPACES)
    if spaces != sorted(set(spaces)):
        raise ValueError(f"from_dict: key {shown(key)} must be ascending space numbers without repeats; got {spaces}")
    return spaces


def state_from_dict(cls, d: dict, conserved: bool = True):
    if not isinstance(d, dict):
        raise ValueError(f"from_dict: expected a dict; got {type(d).__name__}")
    missing = [k for k in DICT_KEYS if k not in d]
    if missing:
        raise ValueError(f"from_dict: missing key(s) {missing}")
    unknown = sorted(set(d) - set(DICT_KEYS), key=str)
    if unknown:
        raise ValueError(f"from_dict: unknown key(s) {unknown}")
    if _int(d, "version") != DICT_VERSION:
        raise ValueError(f"from_dict: key 'version' must be {DICT_VERSION}; got {d['version']}")
    n = _int(d, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    for key in ("big_stack_merge", "terminal"):
        if not isinstance(d[key], bool):
            raise ValueError(f"from_dict: key {shown(key)} must be a bool; got {shown(d[key])}")

    druids = d["druids"]
    if not isinstance(druids, list) or len(druids) != NUM_SPACES:
        raise ValueError(f"from_dict: key 'druids' must be a list of {NUM_SPACES} rows")
    rows = [_int_list(r, "druids", NUM_COLOURS, 0, 12) for r in druids]
    for c in range(NUM_COLOURS):
        if sum(r[c] for r in rows) > 12:
            raise ValueError(f"from_dict: key 'druids' has more than 12 druids of colour {c}")

    colours = _int_list(d["colours"], "colours", n, 0, NUM_COLOURS - 1)
    if len(set(colours)) != n:
        raise ValueError(f"from_dict: key 'colours' must be distinct; got {colours}")
    scores = _int_list(d["scores"], "scores", NUM_COLOURS, 0, MAX_POINTS)
    cards = _int_list(d["ritual_cards"], "ritual_cards", n, 0, NUM_RITUAL_CARDS)
    used = sum(cards)
    if used > NUM_RITUAL_CARDS:
        raise ValueError(f"from_dict: key 'ritual_cards' sums to {used} > {NUM_RITUAL_CARDS}")
    pending = _spaces(d["pending_rituals"], "pending_rituals")
    resolved = _spaces(d["resolved"], "resolved")
    if len(resolved) != used:
        raise ValueError(f"from_dict: key 'resolved' lists {len(resolved)} spaces but {used} ritual cards were drawn")
    counts = [sum(r) for r in rows]
    for s in resolved + pending:
        if any(counts[m] for m in NEIGHBOURS[s - 1]):
            raise ValueError(f"from_dict: key {shown('resolved' if s in resolved else 'pending_rituals')}: space {s} is not isolated")
    for s in pending:
        if s in resolved or counts[s - 1] == 0:
            raise ValueError(f"from_dict: key 'pending_rituals': space {s} is resolved or empty")
    if conserved is not False:
        _check_druids_and_scores(rows, resolved, scores)

    terminal = d["terminal"]
    current = _int(d, "current_player", -1, n - 1)
    if terminal != (current == -1):
        raise ValueError("from_dict: key 'current_player' must be -1 exactly when 'terminal' is true")
    if terminal and pending:
        raise ValueError("from_dict: key 'pending_rituals' must be empty once the game is over")
    if not terminal and used >= NUM_RITUAL_CARDS:
        raise ValueError("from_dict: key 'terminal' must be true once all 12 ritual cards are drawn")

    history = d["history"]
    if not isinstance(history, list) or len(history) != n:
        raise ValueError(f"from_dict: key 'history' must be a list of {n} dicts")
    for h in history:
        if not isinstance(h, dict) or set(h) != set(HISTORY_KEYS):
            raise ValueError(f"from_dict: key 'history' entries must be dicts with keys {list(HISTORY_KEYS)}")
        _int_list(h["moved"], "history.moved", NUM_COLOURS, 0, MAX_MOVED)
        _int_list(h["points"], "history.points", NUM_COLOURS, 0, MAX_POINTS)
        _int(h, "last_action", -1, NUM_MOVE_ACTIONS - 1)
    for c in range(NUM_COLOURS):
        if sum(h["points"][c] for h in history) != scores[c]:
            raise ValueError(f"from_dict: key 'history' points of colour {c} do not sum to scores[{c}]")
    if conserved is not False:
        _check_moved(rows, history)
        _check_play_reached(rows, resolved, pending, terminal, current, history)

    s = cls._from_parts(n, d["big_stack_merge"], [x for r in rows for x in r], colours)
    s._scores = scores
    s._ritual_cards = cards
    s._cards_used = used
    s._current = current if current >= 0 else 0
    s._pending = [x - 1 for x in pending]
    for x in resolved:
        s._resolved[x - 1] = 1
    s._terminal = terminal
    s._hist_moved = [list(h["moved"]) for h in history]
    s._hist_points = [list(h["points"]) for h in history]
    s._hist_last = [h["last_action"] for h in history]
    if not terminal and not pending and 1 not in s._move_ok:
        raise ValueError("from_dict: key 'terminal' must be true: the player to move has no legal move (F-T5)")
    if terminal and used < NUM_RITUAL_CARDS and 1 in s._move_ok:
        raise ValueError(f"from_dict: key 'terminal' is true but only {used} of {NUM_RITUAL_CARDS} ritual cards "
                         "are drawn and a move is legal (the game ends only then, F-E1, F-T5)")
    return s
