"""Text and image renderings of a Fantastiqa state.

The text shows the public state and the hand of ONE seat (for a human playing that seat); the
image shows only public information (regions, statues, creatures with their gems, adventurers,
open quests, scores, counts). Neither shows any deck order or another seat's hand.
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl.abbey_view import abbey_text
from fantastiqa_rl.board import NUM_POSITIONS, POWERS, REGIONS, SPACES, STATUES, SYMBOLS

_SYM = {s: s.title() for s in SYMBOLS}
_PLAYER_RGB = ((220, 50, 50), (40, 110, 220), (40, 160, 70), (230, 170, 20))
_REGION_RGB = ((70, 140, 70), (200, 200, 110), (150, 130, 110), (140, 180, 90), (90, 150, 150), (210, 225, 240))
_STATUE_LETTER = ("T", "B", "C")
# Board positions on the image (3 rows x 2 columns: R0 R1 / R5 R2 / R4 R3).
_POS_XY = {0: (0, 0), 1: (1, 0), 5: (0, 1), 2: (1, 1), 4: (0, 2), 3: (1, 2)}
_CELL_W, _CELL_H, _MARGIN = 300, 170, 20
_PANEL_W = 360


def _needs_text(g, qk) -> str:
    return "+".join(f"{c}x{_SYM[SYMBOLS[s]]}" for s, c in g.Q_NEEDS[qk])


def quest_text(state, q) -> str:
    g = state.g
    qk = g.I_QUEST_KIND[q]
    return (f"{g.Q_NAME[qk]} [{REGIONS[g.Q_REGION[qk]]}, pos {state.name_pos[g.Q_REGION[qk]]}: "
            f"{_needs_text(g, qk)}, {g.Q_POINTS[qk]} pt]")


def creature_text(state, space) -> str:
    g = state.g
    i = state.board[space]
    if i < 0:
        return "empty"
    k = g.I_HAND_KIND[i]
    syms = "+".join(_SYM[SYMBOLS[s]] for s in g.K_SYMS[k]) or "-"
    power = "" if POWERS[g.K_POWER[k]] == "NONE" else f" {POWERS[g.K_POWER[k]]}"
    gem = " +gem" if state.board_gems[space] else ""
    return f"{g.K_NAME[k]} (needs {g.K_STRENGTH[k]}x{_SYM[SYMBOLS[g.K_VULN[k]]]}; gives {syms}{power}){gem}"


def _cards_text(state, cards) -> str:
    from collections import Counter

    c = Counter(state.card_name(i) for i in cards)
    return ", ".join(f"{n}x {name}" if n > 1 else name for name, n in sorted(c.items())) or "-"


def render_text(state, seat: int | None = None) -> str:
    """Board, creatures, open quests, every player's public state, and the hand of `seat`
    (default: the seat to move; none once the game is over and no seat is given)."""
    g, n = state.g, state.n
    cur = state.current_player
    lines = [f"Fantastiqa ({g.cs.name} cards), {n} players, goal {state.goal} points, "
             f"turn {state.turns // n + 1} (completed turns {state.turns}), decision {state.phase_name}"
             + (f", to move: player_{cur}" if cur >= 0 else "")]
    for pos in range(NUM_POSITIONS):
        who = [f"player_{p}" for p in range(n) if state.position[p] == pos]
        lines.append(f"  pos {pos}: {REGIONS[state.region_at[pos]]:<13} statue {STATUES[state.statue_at[pos]]:<14}"
                     + (f" adventurers: {', '.join(who)}" if who else ""))
    for c, (a, b) in enumerate(SPACES):
        lines.append(f"  c{c} (pos {a}-{b}): {creature_text(state, c)}")
    oq = []
    for j, q in enumerate(state.open_quests):
        if q >= 0:
            marks = [f"player_{p}" for p in range(n) if state.quest_token[p] == q]
            oq.append(f"{j}: {quest_text(state, q)}" + (" +1 bonus" if state.open_bonus[j] else "")
                      + (f" marked by {', '.join(marks)}" if marks else ""))
    lines.append("  open quests: " + ("; ".join(oq) if oq else "-"))
    lines.append(f"  creature deck {len(state.creature_deck)}, artifacts {len(state.artifact_deck)}, beasts {len(state.beast_deck)}, "
                 f"quests {len(state.quest_deck)}; supply: {state.supply_gems} gems")
    final = state.final_scores()
    for p in range(n):
        lines.append(f"  player_{p}: score {state.scores[p]} (final {final[p]}), gems {state.gems[p]}, "
                     f"carpets {state.carpets[p]}, reshuffles {state.reshuffles[p]}, hand {len(state.hand[p])}, "
                     f"deck {len(state.deck[p])}, discard {len(state.discard[p])}, completed {len(state.completed[p])}")
        if state.quests[p]:
            lines.append("      quests: " + "; ".join(quest_text(state, q) for q in state.quests[p]))
        com = {q: cards for q, cards in state.committed[p].items() if cards}
        if com:
            lines.append("      committed: " + "; ".join(f"{state.card_name(q)}: {_cards_text(state, cards)}"
                                                       for q, cards in com.items()))
    show = cur if seat is None else seat
    if show is not None and show >= 0:
        lines.append(f"  hand of player_{show}: {_cards_text(state, state.hand[show])}")
        if show == cur and state.revealed:
            lines.append(f"  drawn (player_{show} only): {_cards_text(state, state.revealed)}")
    if state.pay:
        lines.append(f"  chosen so far: {_cards_text(state, state.pay)}")
    if state.is_terminal():
        lines.append(f"GAME OVER ({state.end_reason}); winners: {['player_%d' % p for p in state.winners()]}")
    abbey = abbey_text(state)  # the Abbey and teams, when those options are on
    if abbey:
        lines.append(abbey)
    return "\n".join(lines)


def view_text(state, seat: int) -> str:
    """What `seat` may see, as text: the public state and its own hand (`render_text(state, seat)`);
    never another seat's hand or any deck's order (Q-I1)."""
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < state.n:
        raise ValueError(f"seat must be in 0..{state.n - 1}; got {seat!r}")
    return render_text(state, seat=int(seat))


def _cell_box(pos):
    cx, cy = _POS_XY[pos]
    x0 = _MARGIN + cx * (_CELL_W + 120)
    y0 = _MARGIN + cy * (_CELL_H + 60)
    return x0, y0, x0 + _CELL_W, y0 + _CELL_H


def _centre(pos):
    x0, y0, x1, y1 = _cell_box(pos)
    return (x0 + x1) // 2, (y0 + y1) // 2


def _wrap(draw, text: str, width: float) -> list:
    """Split `text` at spaces into lines no wider than `width` pixels (a single long word stays whole)."""
    lines, cur = [], ""
    for word in text.split(" "):
        trial = f"{cur} {word}" if cur else word
        if cur and draw.textlength(trial) > width:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    return lines + [cur]


def render_rgb(state) -> np.ndarray:
    """(H, W, 3) uint8 image of the public state (no hand is shown)."""
    from PIL import Image, ImageDraw

    g, n = state.g, state.n
    board_w = 2 * _CELL_W + 120 + 2 * _MARGIN
    board_h = 3 * _CELL_H + 2 * 60 + 2 * _MARGIN
    img = Image.new("RGB", (board_w + _PANEL_W, board_h + 40), (245, 240, 225))
    draw = ImageDraw.Draw(img)
    # Creature spaces: a line between the two regions, the creature box on its middle.
    for c, (a, b) in enumerate(SPACES):
        (xa, ya), (xb, yb) = _centre(a), _centre(b)
        if c == 6:  # the centre space joins R5 and R2 (side by side in the middle row)
            ya = yb = ya + 35
        occupied = state.board[c] >= 0
        draw.line((xa, ya, xb, yb), fill=(90, 70, 50) if occupied else (200, 190, 180), width=4 if occupied else 2)
    for pos in range(NUM_POSITIONS):
        x0, y0, x1, y1 = _cell_box(pos)
        draw.rectangle((x0, y0, x1, y1), fill=_REGION_RGB[state.region_at[pos]], outline=(40, 40, 40), width=2)
        draw.text((x0 + 6, y0 + 4), f"pos {pos}: {REGIONS[state.region_at[pos]]}", fill=(0, 0, 0))
        st = state.statue_at[pos]
        draw.rectangle((x1 - 34, y0 + 4, x1 - 6, y0 + 32), fill=(120, 120, 130), outline=(0, 0, 0))
        draw.text((x1 - 24, y0 + 12), _STATUE_LETTER[st], fill=(255, 255, 255))
        draw.text((x0 + 6, y0 + 20), STATUES[st], fill=(30, 30, 30))
        here = [p for p in range(n) if state.position[p] == pos]
        for k, p in enumerate(here):
            cx, cy = x0 + 30 + 40 * k, y1 - 40
            draw.ellipse((cx - 14, cy - 14, cx + 14, cy + 14), fill=_PLAYER_RGB[p], outline=(0, 0, 0), width=2)
            draw.text((cx - 3, cy - 6), str(p), fill=(255, 255, 255))
    for c, (a, b) in enumerate(SPACES):
        (xa, ya), (xb, yb) = _centre(a), _centre(b)
        if c == 6:
            ya = yb = ya + 35
        mx, my = (xa + xb) // 2, (ya + yb) // 2
        i = state.board[c]
        if i < 0:
            draw.rectangle((mx - 22, my - 10, mx + 22, my + 10), fill=(230, 230, 230), outline=(150, 150, 150))
            draw.text((mx - 16, my - 6), f"c{c} -", fill=(120, 120, 120))
            continue
        k = g.I_HAND_KIND[i]
        # Full texts (no cut): the box is as wide as its longer line.
        label = f"c{c}: needs {g.K_STRENGTH[k]}x {SYMBOLS[g.K_VULN[k]]}"
        name = g.K_NAME[k]
        hw = int(max(draw.textlength(label), draw.textlength(name)) / 2) + 6
        draw.rectangle((mx - hw, my - 16, mx + hw, my + 16), fill=(250, 250, 240), outline=(0, 0, 0), width=2)
        draw.text((mx - hw + 4, my - 13), label, fill=(0, 0, 0))
        draw.text((mx - hw + 4, my + 1), name, fill=(60, 60, 60))
        if state.board_gems[c]:
            draw.polygon([(mx + hw, my - 24), (mx + hw + 10, my - 14), (mx + hw, my - 4), (mx + hw - 10, my - 14)],
                         fill=(40, 200, 220), outline=(0, 0, 0))
    # Panel: open quests, scores.
    x = board_w + 10
    y = _MARGIN
    draw.text((x, y), f"Fantastiqa, {n} players, goal {state.goal}", fill=(0, 0, 0))
    y += 20
    draw.text((x, y), f"completed turns {state.turns}; creature deck {len(state.creature_deck)}", fill=(0, 0, 0))
    y += 26
    draw.text((x, y), "open quests:", fill=(0, 0, 0))
    y += 16
    for j, q in enumerate(state.open_quests):
        if q < 0:
            draw.text((x + 8, y), f"{j}: -", fill=(0, 0, 0))
        else:
            qk = g.I_QUEST_KIND[q]
            title = f"{j}: {g.Q_NAME[qk]}" + (" +1" if state.open_bonus[j] else "")
            for line in _wrap(draw, title, _PANEL_W - 30):      # a long name wraps, never cut
                draw.text((x + 8, y), line, fill=(0, 0, 0))
                y += 14
            y -= 14
            y += 14
            draw.text((x + 20, y), f"pos {state.name_pos[g.Q_REGION[qk]]}: {_needs_text(g, qk)}, {g.Q_POINTS[qk]} pt",
                      fill=(60, 60, 60))
        y += 18
    y += 10
    for p in range(n):
        draw.rectangle((x, y, x + 14, y + 14), fill=_PLAYER_RGB[p], outline=(0, 0, 0))
        mark = " <- to move" if p == state.current_player else ""
        draw.text((x + 20, y), f"player_{p}: score {state.scores[p]}, gems {state.gems[p]}{mark}", fill=(0, 0, 0))
        y += 16
        draw.text((x + 20, y), f"hand {len(state.hand[p])} deck {len(state.deck[p])} discard {len(state.discard[p])}"
                               f" quests {len(state.quests[p])}", fill=(60, 60, 60))
        y += 22
    status = (f"GAME OVER ({state.end_reason}); winners {state.winners()}" if state.is_terminal()
              else f"to move: player_{state.current_player} ({state.phase_name})")
    draw.text((_MARGIN, board_h + 12), status, fill=(0, 0, 0))
    return np.asarray(img, dtype=np.uint8)
