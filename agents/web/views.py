"""What the web app sends to one seat: JSON-safe views of a rules state that hold only that seat's
information (`seat=None`: the public view, no secret at all) until the game is over.

    view = state_view(spec, state, seat=0)          # dict for the page of seat 0
    text = move_text(state_before, action, mover=1, viewer=0)

Fae: everything is public except each seat's colour (spirit): a seat sees its own colour, the
public view none; every colour is shown once the game is over. Fantastiqa: the seat's knowledge
is `state.information_state(seat)` (its own hand and deck composition; other hands, every deck
order and the chance generators hidden); `table` is the public table the page draws as HTML
(regions, creature spaces, open quests, each player's counts: `_fantastiqa_table`), the text is
`render_text(state, seat)` and the picture `render_rgb` (public only). The legal choices are
listed only for the seat to move, in words (`fantastiqa_rl.text.in_words`), as are the log's
moves (`move_text`) and, at the end, why the game ended (`end_reason`).
"""
from __future__ import annotations

import io

import numpy as np

__all__ = ["state_view", "move_text", "board_png", "choice_label"]


def _seat_ok(state, seat) -> None:
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.num_players):
        raise ValueError(f"seat must be in 0..{state.num_players - 1} or None (public); got {seat!r}")


def _choices(state, seat) -> list[dict]:
    """The legal actions of `seat` as {id, text}, when it is that seat's decision; else []."""
    if seat is None or state.is_terminal() or state.current_player != seat:
        return []
    return [{"id": int(a), "text": state.action_to_string(int(a))} for a in state.legal_actions()]


def choice_label(text: str) -> str:
    """A Fantastiqa action text as a person reads it (`fantastiqa_rl.text.in_words`)."""
    from fantastiqa_rl.text import in_words

    return in_words(text)


# ---------------------------------------------------------------- Fae
def _fae_geometry() -> dict:
    from fae_rl.board import BOARD_SIZE, CENTRES, COLOUR_NAMES, EDGES, REGION, TERRAIN, TERRAIN_NAMES
    from fae_rl.render import _COLOUR_RGB, _TERRAIN_RGB

    hexrgb = lambda c: "#%02x%02x%02x" % c  # noqa: E731
    return {
        "size": list(BOARD_SIZE),
        "centres": [list(c) for c in CENTRES],
        "terrain": list(TERRAIN),
        "edges": [[a, b, REGION[a - 1] != REGION[b - 1]] for a, b in EDGES],  # [a, b, river crossing]
        "terrain_names": list(TERRAIN_NAMES),
        "terrain_rgb": [hexrgb(c) for c in _TERRAIN_RGB],
        "colour_names": list(COLOUR_NAMES),
        "colour_rgb": [hexrgb(c) for c in _COLOUR_RGB],
    }


_FAE_GEOMETRY: dict | None = None


def fae_view(state, seat: int | None) -> dict:
    global _FAE_GEOMETRY
    from fae_rl.board import COLOUR_NAMES, MOVE_DST, MOVE_SRC, NUM_MOVE_ACTIONS, RESOLVE_OFFSET
    from fae_rl.render import _card_text

    _seat_ok(state, seat)
    if _FAE_GEOMETRY is None:
        _FAE_GEOMETRY = _fae_geometry()
    over = state.is_terminal()
    choices = _choices(state, seat)
    for c in choices:  # what the board needs to make the action clickable
        a = c["id"]
        if a < NUM_MOVE_ACTIONS:
            c["src"], c["dst"] = MOVE_SRC[a] + 1, MOVE_DST[a] + 1
        else:
            c["resolve"] = a - RESOLVE_OFFSET
    view = {
        "game": "fae", "num_players": state.num_players, "seat": seat, "over": over,
        "current": None if over else int(state.current_player),
        "geometry": _FAE_GEOMETRY,
        "druids": state.druids().astype(int).tolist(),
        "pending": [int(s) for s in state.pending],
        "resolved": [bool(x) for x in state.resolved()],
        "scores": [int(x) for x in state.scores()],
        "ritual_cards": [int(x) for x in state.ritual_cards()],
        "cards_used": int(state.cards_used),
        "next_card": _card_text(state.cards_used),
        "choices": choices,
    }
    if seat is not None:
        view["your_colour"] = COLOUR_NAMES[state.colours[seat]]
    if over:
        final = state.final_colour_scores()
        view["colours"] = [COLOUR_NAMES[c] for c in state.colours]
        view["final_scores"] = [int(final[c]) for c in state.colours]
        view["winners"] = [int(w) for w in state.winners()]
        view["end_reason"] = fae_end_text(state)
    return view


def fae_end_text(state) -> str:
    """Why a Fae game ended, in words (F-E1: the 12th ritual card; F-T5: no legal move)."""
    from fae_rl.board import NUM_RITUAL_CARDS

    why = (f"the {NUM_RITUAL_CARDS}th ritual card was drawn" if state.cards_used >= NUM_RITUAL_CARDS
           else "the next player had no legal move")
    return f"{why}; final score = the colour's track score + 1 per ritual card its player holds"


# ---------------------------------------------------------------- Fantastiqa
def _public_information(state) -> dict:
    """`information_state` with no seat's secrets: every hand and deck as a count, no drawn card."""
    info = state.information_state(0)
    info["seat"] = None
    p0 = info["players"][0]
    p0["hand"], p0["deck"] = len(state.hand[0]), len(state.deck[0])
    kind = state.g.I_HAND_KIND
    p0["shown_in_hand"] = list({kind[i] for i in state.hand[0] if state.current_player == 0
                                and (i in state.boosted or i in state.powered)})
    info["turn"]["revealed"] = len(state.revealed)
    return info


def _hexrgb(c) -> str:
    return "#%02x%02x%02x" % tuple(c)


def _fantastiqa_table(state) -> dict:
    """The public table, drawn by the page: positions (region, statue, adventurers), creature
    spaces, open quests, decks and each player's public counts (no hand, no deck order)."""
    from fantastiqa_rl.board import POWERS, REGIONS, SPACES, STATUES, SYMBOLS
    from fantastiqa_rl.render import _PLAYER_RGB, _REGION_RGB

    g, n = state.g, state.n
    word = lambda k: SYMBOLS[k].title()  # noqa: E731

    def quest(q: int) -> dict:
        qk = g.I_QUEST_KIND[q]
        return {"name": g.Q_NAME[qk], "region": REGIONS[g.Q_REGION[qk]], "position": int(state.name_pos[g.Q_REGION[qk]]),
                "needs": [[word(sym), int(c)] for sym, c in g.Q_NEEDS[qk]], "points": int(g.Q_POINTS[qk])}

    spaces = []
    for c, (a, b) in enumerate(SPACES):
        i = state.board[c]
        creature = None
        if i >= 0:
            k = g.I_HAND_KIND[i]
            power = POWERS[g.K_POWER[k]]
            creature = {"name": g.K_NAME[k], "strength": int(g.K_STRENGTH[k]), "needs": word(g.K_VULN[k]),
                        "gives": [word(x) for x in g.K_SYMS[k]],
                        "power": None if power == "NONE" else power.replace("_", " ").lower(),
                        "gem": bool(state.board_gems[c])}
        spaces.append({"space": c, "between": [a, b], "creature": creature})
    open_quests = []
    for j, q in enumerate(state.open_quests):
        entry = {"slot": j, "quest": None}
        if q >= 0:
            entry = {"slot": j, "quest": quest(q), "bonus": bool(state.open_bonus[j]),
                     "marked_by": [p for p in range(n) if state.quest_token[p] == q]}
        open_quests.append(entry)
    final = state.final_scores()
    players = [{"score": int(state.scores[p]), "final": int(final[p]), "gems": int(state.gems[p]),
                "carpets": int(state.carpets[p]), "reshuffles": int(state.reshuffles[p]),
                "hand": len(state.hand[p]), "deck": len(state.deck[p]), "discard": len(state.discard[p]),
                "completed": len(state.completed[p]), "position": int(state.position[p]),
                "quests": [quest(q) for q in state.quests[p]],
                "committed": [{"quest": state.card_name(q), "cards": sorted(state.card_name(i) for i in cards)}
                              for q, cards in sorted(state.committed[p].items()) if cards]}
               for p in range(n)]
    return {
        "positions": [{"position": pos, "region": REGIONS[state.region_at[pos]],
                       "colour": _hexrgb(_REGION_RGB[state.region_at[pos]]), "statue": STATUES[state.statue_at[pos]],
                       "adventurers": [p for p in range(n) if state.position[p] == pos]}
                      for pos in range(len(state.region_at))],
        "spaces": spaces, "open_quests": open_quests, "players": players,
        "player_colours": [_hexrgb(c) for c in _PLAYER_RGB[:n]],
        "decks": {"creature": len(state.creature_deck), "artifact": len(state.artifact_deck),
                  "beast": len(state.beast_deck), "quest": len(state.quest_deck), "gems": int(state.supply_gems)},
        "round": state.turns // n + 1, "turns": int(state.turns),
    }


def fantastiqa_view(state, seat: int | None) -> dict:
    from fantastiqa_rl.render import render_text
    from fantastiqa_rl.text import end_text, in_words

    _seat_ok(state, seat)
    over = state.is_terminal()
    info = state.information_state(seat) if seat is not None else _public_information(state)
    choices = []
    for c in _choices(state, seat):  # in words, and what the table needs to make it clickable
        name, idx = state.g.layout.decode(c["id"])
        c["label"] = in_words(c["text"])
        if name in ("REGION", "SPACE", "MARK"):
            c[{"REGION": "position", "SPACE": "space", "MARK": "open_quest"}[name]] = idx
        choices.append(c)
    view = {
        "game": "fantastiqa", "num_players": state.num_players, "seat": seat, "over": over,
        "current": None if over else int(state.current_player),
        "phase": state.phase_name, "goal": int(state.goal),
        "scores": [int(x) for x in state.scores],
        # render_text shows the hand of the seat it is given; -1 shows none (the public view).
        "text": render_text(state, -1 if seat is None else seat),
        "information": info,
        "table": _fantastiqa_table(state),
        "choices": choices,
        # one score per seat and why (public: personal quests are face up): the quest points on the
        # track minus the points of personal quests not completed (Q-E3), as if the game ended now
        "score_breakdown": [{"track": int(t), "open_personal_quests": int(t) - int(f), "score": int(f)}
                            for t, f in zip(state.scores, state.final_scores())],
    }
    if seat is not None:
        view["hand"] = sorted(state.card_name(i) for i in state.hand[seat])
        view["quests"] = [state.card_name(q) for q in state.quests[seat]]
        if state.current_player == seat and state.revealed and not over:
            view["drawn"] = sorted(state.card_name(i) for i in state.revealed)
        if state.pay and not over:
            view["chosen"] = sorted(state.card_name(i) for i in state.pay)
    view["open_quests"] = [state.card_name(q) if q >= 0 else None for q in state.open_quests]
    if over:
        view["final_scores"] = [int(x) for x in state.final_scores()]
        view["winners"] = [int(w) for w in state.winners()]
        view["hands"] = [sorted(state.card_name(i) for i in state.hand[p]) for p in range(state.num_players)]
        view["end_reason"] = end_text(state)
    return view


def state_view(game: str, state, seat: int | None) -> dict:
    """The view of `state` for `seat` (None: public) of game `game` ("fae" or "fantastiqa")."""
    if game == "fae":
        return fae_view(state, seat)
    if game == "fantastiqa":
        return fantastiqa_view(state, seat)
    raise ValueError(f"the web app draws fae and fantastiqa; got {game!r}")


def move_text(game: str, before, action: int, viewer: int | None, over: bool) -> str:
    """How `viewer` (None: public) sees the move `action` made in state `before`, in words
    ("player_1: Keep the rest and draw"; Fantastiqa: `fantastiqa_rl.text.action_words`).

    Every move is public except, in Fantastiqa, which card a player keeps from cards only it saw
    (BUY from a statue draw, KEEP from a Bell draw): others read "a card" until the game is over."""
    mover = int(before.current_player)
    if game != "fantastiqa":
        return f"player_{mover}: {before.action_to_string(int(action))}"
    from fantastiqa_rl import actions as A
    from fantastiqa_rl.text import action_words

    text = action_words(before, int(action))
    if not over and viewer != mover:
        name, _ = before.g.layout.decode(int(action))
        if name == "PICK" and before.phase in (A.BUY, A.BELL):
            text = "Buy a card" if before.phase == A.BUY else "Keep a card"
    return f"player_{mover}: {text}"


def board_png(game: str, state) -> bytes:
    """The game's rgb render (public information only; Fae's colours once the game is over) as PNG."""
    from PIL import Image

    if game == "fae":
        from fae_rl.render import render_rgb as render
    else:
        from fantastiqa_rl.render import render_rgb as render
    buf = io.BytesIO()
    Image.fromarray(np.asarray(render(state), dtype=np.uint8)).save(buf, format="PNG", optimize=False)
    return buf.getvalue()
