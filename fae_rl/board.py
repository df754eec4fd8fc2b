"""Board data for Fae: the published Clans board (Winning Moves 2002).

Reviews of Fae report that its board is identical to Clans'; the spec (`docs/rules/fae.md`)
takes the Clans board on that word, and so do we. Spaces are numbered 1..60 as in the spec;
arrays indexed by space use index `space - 1`.

Terrain ids are opaque (the Clans letters F, M, G, S); display names are labels only.
"""
from __future__ import annotations

import numpy as np

NUM_SPACES = 60
NUM_COLOURS = 5
NUM_REGIONS = 12
NUM_TERRAINS = 4
MIN_PLAYERS, MAX_PLAYERS = 2, 4

#: Terrain ids in the order of the ritual-card table (value 1 blesses F, value 2 blesses M, ...).
TERRAIN_LETTERS = ("F", "M", "G", "S")
TERRAIN_NAMES = ("Hills", "Mushrooms", "Mountains", "Forest")
COLOUR_NAMES = ("red", "yellow", "green", "blue", "purple")

_TERRAIN_STRING = "SMGMFGSGMFFGMSFMGMFSMGSMFMGFSGMGSFSFSGMSFSGFMGSMFSFMGFSGFSGM"
#: TERRAIN[i] = terrain id of space i+1.
TERRAIN: tuple[int, ...] = tuple(TERRAIN_LETTERS.index(ch) for ch in _TERRAIN_STRING)
#: REGION[i] = region (0..11) of space i+1.
REGION: tuple[int, ...] = tuple(i // 5 for i in range(NUM_SPACES))

_EDGE_STRING = """
1-2 1-3 1-4 2-3 2-5 2-6 3-4 3-5 4-5 4-32 5-6 5-29 5-32 6-7 6-10 6-29 7-8 7-10 8-9 8-10 9-10 9-11
9-14 9-22 10-24 10-27 11-12 11-13 11-14 12-13 12-15 13-14 13-15 14-15 14-16 14-22 15-16 16-17 16-20
16-22 17-18 17-20 18-19 18-20 19-20 19-45 19-46 19-47 20-21 20-44 21-22 21-23 21-44 22-23 22-24
23-24 23-25 24-25 24-27 25-26 25-38 25-42 26-27 26-28 26-30 26-38 27-28 28-29 28-30 29-30 29-32
30-31 30-37 31-32 31-33 31-34 31-35 31-37 32-33 33-34 34-35 35-36 35-59 35-60 36-37 36-39 36-40
36-55 36-60 37-38 37-39 38-39 38-40 38-42 39-40 40-41 40-53 41-42 41-43 41-45 41-53 42-43 42-44
43-44 43-45 44-45 45-46 45-51 46-47 46-49 46-50 46-51 47-48 47-49 48-49 48-50 49-50 50-51 51-52
51-53 52-53 52-54 53-54 53-55 54-55 55-56 55-60 56-57 56-58 56-60 57-58 57-59 58-59 58-60 59-60
"""
#: The 135 undirected edges (a, b), a < b, 1-based spaces, in the spec's ascending order.
EDGES: tuple[tuple[int, int], ...] = tuple(
    tuple(int(x) for x in tok.split("-")) for tok in _EDGE_STRING.split()  # type: ignore[misc]
)
NUM_EDGES = len(EDGES)

#: Facing pairs across the twelve lakes: NOT adjacent (F-T2).
LAKE_PAIRS: tuple[tuple[int, int], ...] = (
    (23, 42), (31, 36), (9, 24), (25, 27), (38, 41), (20, 45), (20, 22),
    (30, 32), (16, 21), (10, 29), (27, 29), (19, 44), (36, 53), (23, 44),
)

_CENTRE_STRING = """
1:50,50 2:202,42 3:117,102 4:53,186 5:174,178 6:305,81 7:441,52 8:576,49 9:700,84 10:495,136
11:785,37 12:957,42 13:884,94 14:825,157 15:995,172 16:949,266 17:961,371 18:964,452 19:896,518
20:857,386 21:751,344 22:754,205 23:669,290 24:585,223 25:556,323 26:425,342 27:463,222 28:363,292
29:272,223 30:288,349 31:171,382 32:86,271 33:60,346 34:31,440 35:72,507 36:240,570 37:298,478
38:429,441 39:344,541 40:438,570 41:551,538 42:569,441 43:651,497 44:737,441 45:706,543 46:780,632
47:936,604 48:965,733 49:881,691 50:798,747 51:678,688 52:586,765 53:484,676 54:425,766 55:296,714
56:187,744 57:46,755 58:111,676 59:39,619 60:168,597
"""
#: CENTRES[i] = (x, y) of space i+1 on a 1000 x 800 drawing.
CENTRES: tuple[tuple[int, int], ...] = tuple(
    tuple(int(v) for v in tok.split(":")[1].split(","))  # type: ignore[misc]
    for tok in _CENTRE_STRING.split()
)
BOARD_SIZE = (1000, 800)

#: NEIGHBOURS[i] = 0-based indices of the spaces adjacent to space i+1.
NEIGHBOURS: tuple[tuple[int, ...], ...]
_nb: list[list[int]] = [[] for _ in range(NUM_SPACES)]
for _a, _b in EDGES:
    _nb[_a - 1].append(_b - 1)
    _nb[_b - 1].append(_a - 1)
NEIGHBOURS = tuple(tuple(sorted(n)) for n in _nb)

# Actions on edges: action 2k moves a -> b, 2k+1 moves b -> a, for the k-th edge (a, b).
NUM_MOVE_ACTIONS = 2 * NUM_EDGES  # 270
RESOLVE_OFFSET = NUM_MOVE_ACTIONS - 1  # action 269 + s resolves space s (s = 1..60)
NUM_ACTIONS = NUM_MOVE_ACTIONS + NUM_SPACES  # 330
#: MOVE_SRC[a], MOVE_DST[a]: 0-based source / destination of move action a.
MOVE_SRC: tuple[int, ...] = tuple(EDGES[a // 2][a % 2] - 1 for a in range(NUM_MOVE_ACTIONS))
MOVE_DST: tuple[int, ...] = tuple(EDGES[a // 2][1 - a % 2] - 1 for a in range(NUM_MOVE_ACTIONS))
#: INCIDENT_MOVES[i] = move actions whose source or destination is space i+1.
INCIDENT_MOVES: tuple[tuple[int, ...], ...] = tuple(
    tuple(a for a in range(NUM_MOVE_ACTIONS) if MOVE_SRC[a] == i or MOVE_DST[a] == i)
    for i in range(NUM_SPACES)
)
#: OUT_MOVES[i] / IN_MOVES[i]: move actions leaving / entering space i+1.
OUT_MOVES: tuple[tuple[int, ...], ...] = tuple(
    tuple(a for a in range(NUM_MOVE_ACTIONS) if MOVE_SRC[a] == i) for i in range(NUM_SPACES)
)
IN_MOVES: tuple[tuple[int, ...], ...] = tuple(
    tuple(a for a in range(NUM_MOVE_ACTIONS) if MOVE_DST[a] == i) for i in range(NUM_SPACES)
)
MOVE_SRC_ARRAY = np.asarray(MOVE_SRC, dtype=np.int64)
MOVE_DST_ARRAY = np.asarray(MOVE_DST, dtype=np.int64)

# Ritual cards in their fixed draw order (stacks left to right by value, F-S3 / F-R3).
# Each card is (value, blessed terrain id or None = every terrain, cursed terrain id or None).
_F, _M, _G, _S = range(4)
_CARD_KINDS = {1: (_F, _M), 2: (_M, _G), 3: (_S, _F), 4: (_G, _S), 5: (None, None)}
_CARD_COUNTS = {1: 4, 2: 3, 3: 2, 4: 2, 5: 1}
RITUAL_CARDS: tuple[tuple[int, int | None, int | None], ...] = tuple(
    (v, *_CARD_KINDS[v]) for v in sorted(_CARD_COUNTS) for _ in range(_CARD_COUNTS[v])
)
NUM_RITUAL_CARDS = len(RITUAL_CARDS)  # 12
MAX_STACK_TO_MOVE = 6  # F-T3: a source holding 7 or more druids cannot move


def move_action(src: int, dst: int) -> int:
    """Action id moving all druids from space `src` to adjacent space `dst` (1-based)."""
    a, b = min(src, dst), max(src, dst)
    try:
        k = EDGES.index((a, b))
    except ValueError:
        raise ValueError(f"spaces {src} and {dst} are not adjacent") from None
    return 2 * k + (0 if src == a else 1)


def resolve_action(space: int) -> int:
    """Action id resolving the pending ritual on `space` (1-based)."""
    if not 1 <= space <= NUM_SPACES:
        raise ValueError(f"space must be 1..{NUM_SPACES}, got {space}")
    return RESOLVE_OFFSET + space


def action_to_string(action: int) -> str:
    """Human-readable action: 'move 4->32' or 'resolve 17'."""
    action = int(action)
    if 0 <= action < NUM_MOVE_ACTIONS:
        return f"move {MOVE_SRC[action] + 1}->{MOVE_DST[action] + 1}"
    if NUM_MOVE_ACTIONS <= action < NUM_ACTIONS:
        return f"resolve {action - RESOLVE_OFFSET}"
    return f"<invalid action {action}>"


def string_to_action(text: str) -> int:
    """Inverse of `action_to_string`, also taking the short forms a person types:
    'move 4->32', '4->32', '4-32', '4 32' (moves) and 'resolve 17', 'r 17' (rituals).
    A ValueError names what is wrong (not a move, a space out of 1..60, spaces not adjacent).
    Legality in a given state is the caller's business (the action mask)."""
    if not isinstance(text, str):
        raise ValueError(f"an action text must be a str; got {type(text).__name__}")
    words = text.strip().lower().replace("->", " ").replace("-", " ").split()
    if words and words[0] in ("resolve", "r"):
        if len(words) != 2 or not words[1].isdigit():
            raise ValueError(f"{text!r}: write a ritual as 'resolve 17' (or 'r 17')")
        return resolve_action(int(words[1]))
    if words and words[0] in ("move", "m"):
        words = words[1:]
    if len(words) != 2 or not all(w.isdigit() for w in words):
        raise ValueError(f"{text!r} is not a move ('4 32', '4->32', 'move 4->32') or a ritual ('resolve 17')")
    src, dst = int(words[0]), int(words[1])
    for space in (src, dst):
        if not 1 <= space <= NUM_SPACES:
            raise ValueError(f"{text!r}: space {space} is not in 1..{NUM_SPACES}")
    return move_action(src, dst)
