"""Text and image renderings of a Fae state. Spirits (colours) are shown only once the game is over."""
from __future__ import annotations

import numpy as np

from fae_rl.board import (
    BOARD_SIZE,
    CENTRES,
    COLOUR_NAMES,
    EDGES,
    NEIGHBOURS,
    NUM_COLOURS,
    NUM_RITUAL_CARDS,
    NUM_SPACES,
    REGION,
    RITUAL_CARDS,
    TERRAIN,
    TERRAIN_NAMES,
)

_COUNT_CHARS = ".123456789ABC"  # 0..12 druids of one colour
#: Display abbreviations of TERRAIN_NAMES (the first two letters of each name; the Clans letters in
#: `fae_rl.board.TERRAIN_LETTERS` are opaque ids and do not match the names).
TERRAIN_SHORT = tuple(name[:2] for name in TERRAIN_NAMES)  # Hi, Mu, Mo, Fo
LEGEND = ("legend: " + ", ".join(f"{a} {n}" for a, n in zip(TERRAIN_SHORT, TERRAIN_NAMES))
          + "; druids per colour r y g b p ('.' = none); * resolved, ! pending ritual")
_COLOUR_RGB = ((220, 40, 40), (235, 200, 30), (40, 160, 60), (40, 90, 220), (150, 60, 190))
_TERRAIN_RGB = ((200, 175, 120), (205, 150, 190), (150, 150, 160), (95, 150, 90))  # F, M, G, S
_PANEL_HEIGHT = 90


def _card_text(k: int) -> str:
    if k >= NUM_RITUAL_CARDS:
        return "none (all 12 drawn)"
    value, blessed, cursed = RITUAL_CARDS[k]
    if blessed is None:
        return f"value {value}, blesses every terrain"
    return f"value {value}, blesses {TERRAIN_NAMES[blessed]}, curses {TERRAIN_NAMES[cursed]}"


def render_text(state) -> str:
    """Text board: one line per region; each space as `NN Tt rygbp` (terrain abbreviation, druid counts,
    '.' = 0), `*` marks a resolved space, `!` a pending ritual; a legend line explains the letters."""
    druids = state.druids()
    pending = set(state.pending)
    resolved = state.resolved()
    lines = [
        f"Fae, {state.num_players} players; ritual cards drawn {state.cards_used}/12; "
        f"next card: {_card_text(state.cards_used)}",
        "scores: " + "  ".join(f"{COLOUR_NAMES[c]} {state.scores()[c]}" for c in range(NUM_COLOURS)),
        "ritual cards held: " + "  ".join(f"player_{p} {n}" for p, n in enumerate(state.ritual_cards())),
    ]
    if state.is_terminal():
        final = state.final_colour_scores()
        lines.append("GAME OVER. spirits: " + "  ".join(
            f"player_{p}={COLOUR_NAMES[c]} ({final[c]} with cards)" for p, c in enumerate(state.colours)))
        lines.append(f"winners: {['player_%d' % p for p in state.winners()]}")
    else:
        lines.append(f"to move: player_{state.current_player}"
                     + (f"; choose the order of pending rituals on {sorted(pending)}" if pending else ""))
    lines.append(LEGEND)
    for region in range(NUM_SPACES // 5):
        cells = []
        for i in range(5 * region, 5 * region + 5):
            counts = "".join(_COUNT_CHARS[n] for n in druids[i])
            mark = "!" if (i + 1) in pending else ("*" if resolved[i] else " ")
            cells.append(f"{i + 1:2d} {TERRAIN_SHORT[TERRAIN[i]]} {counts}{mark}")
        lines.append(f"  R{region + 1:<2d} " + "  ".join(cells))
    return "\n".join(lines)


def view_text(state, seat: int) -> str:
    """What `seat` may see: the public board and, while the game runs, its own colour (at the end
    `render_text` shows every spirit anyway)."""
    if not 0 <= seat < state.num_players:
        raise ValueError(f"seat must be in 0..{state.num_players - 1}; got {seat!r}")
    text = render_text(state)
    if not state.is_terminal():
        text += f"\nyou are player_{seat}; your secret colour: {COLOUR_NAMES[state.colours[seat]]}"
    return text


def _space_cell(druids, i: int) -> str:
    counts = "".join(_COUNT_CHARS[n] for n in druids[i])
    return f"{i + 1} {TERRAIN_NAMES[TERRAIN[i]]} {counts}"


def space_text(state, space: int) -> str:
    """One space and its neighbours (terrain, druids r y g b p); `~` marks a river crossing."""
    if isinstance(space, bool) or not isinstance(space, (int, np.integer)) or not 1 <= space <= NUM_SPACES:
        raise ValueError(f"space must be an int in 1..{NUM_SPACES}; got {space!r}")
    i = int(space) - 1
    druids = state.druids()
    near = [("~" if REGION[j] != REGION[i] else "") + _space_cell(druids, j) for j in NEIGHBOURS[i]]
    return (f"space {_space_cell(druids, i)} (region {REGION[i] + 1}); neighbours ('~' across a river): "
            + "; ".join(near))


def render_rgb(state) -> np.ndarray:
    """(H, W, 3) uint8 image: spaces at the spec's centres, coloured by terrain; land edges solid,
    river edges dashed; druid stacks per colour; resolved spaces ringed in black, pending in red."""
    from PIL import Image, ImageDraw

    width, height = BOARD_SIZE
    img = Image.new("RGB", (width, height + _PANEL_HEIGHT), (245, 240, 225))
    draw = ImageDraw.Draw(img)
    for a, b in EDGES:
        (x0, y0), (x1, y1) = CENTRES[a - 1], CENTRES[b - 1]
        if REGION[a - 1] == REGION[b - 1]:
            draw.line((x0, y0, x1, y1), fill=(90, 70, 50), width=3)
        else:  # river crossing: dashed
            steps = max(2, int(np.hypot(x1 - x0, y1 - y0) // 12))
            for k in range(0, steps, 2):
                t0, t1 = k / steps, min(1.0, (k + 1) / steps)
                draw.line((x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0, x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1),
                          fill=(40, 110, 200), width=3)
    druids = state.druids()
    pending = set(state.pending)
    resolved = state.resolved()
    r = 30
    for i, (x, y) in enumerate(CENTRES):
        outline, ring = ((200, 0, 0), 5) if (i + 1) in pending else (((0, 0, 0), 5) if resolved[i] else ((60, 60, 60), 1))
        draw.ellipse((x - r, y - r, x + r, y + r), fill=_TERRAIN_RGB[TERRAIN[i]], outline=outline, width=ring)
        draw.text((x - r + 2, y - r - 12), str(i + 1), fill=(0, 0, 0))
        # One bar per colour present, its height the druid count.
        present = [c for c in range(NUM_COLOURS) if druids[i, c]]
        for k, c in enumerate(present):
            bx = x - 5 * len(present) + 10 * k
            h = 4 + 3 * int(druids[i, c])
            draw.rectangle((bx, y + 10 - h, bx + 8, y + 10), fill=_COLOUR_RGB[c], outline=(0, 0, 0))
    # Panel: scores, cards, whose turn; spirits only at the end.
    y = height + 8
    scores = state.scores()
    for c in range(NUM_COLOURS):
        draw.rectangle((10 + 150 * c, y, 24 + 150 * c, y + 14), fill=_COLOUR_RGB[c])
        draw.text((30 + 150 * c, y), f"{COLOUR_NAMES[c]}: {scores[c]}", fill=(0, 0, 0))
    held = "  ".join(f"player_{p}: {n} cards" for p, n in enumerate(state.ritual_cards()))
    draw.text((10, y + 25), f"ritual cards drawn {state.cards_used}/12 ({held}); next: {_card_text(state.cards_used)}",
              fill=(0, 0, 0))
    legend_x = 700  # terrain legend, right of the status line
    for t, name in enumerate(TERRAIN_NAMES):
        draw.ellipse((legend_x, y + 50, legend_x + 12, y + 62), fill=_TERRAIN_RGB[t], outline=(60, 60, 60))
        draw.text((legend_x + 16, y + 50), name, fill=(0, 0, 0))
        legend_x += 75
    if state.is_terminal():
        spirits = "  ".join(f"player_{p}={COLOUR_NAMES[c]}" for p, c in enumerate(state.colours))
        draw.text((10, y + 50), f"game over; spirits: {spirits}; winners: {state.winners()}", fill=(0, 0, 0))
    else:
        draw.text((10, y + 50), f"to move: player_{state.current_player}", fill=(0, 0, 0))
    return np.asarray(img, dtype=np.uint8)
