"""Fixed vocabulary of Fantastiqa: symbols, powers, regions, statues and the board graph.

Board positions 0..5 are the six region slots of the spec (R0 R1 top, R5 R2 middle, R4 R3 bottom);
which named region and which statue sits on each position is dealt at setup. Creature spaces
0..6 join two positions each (c6 is the centre, filled last).
"""
from __future__ import annotations

SYMBOLS = ("SWORD", "FIRE", "WATER", "BROOM", "TOOTH", "NET", "HELMET", "BAT", "WAND")
SYMBOL_INDEX = {s: i for i, s in enumerate(SYMBOLS)}
NUM_SYMBOLS = 9

# Powers a card can show when played from hand (artifacts use `effects` instead, POWER_EFFECT).
POWERS = ("NONE", "FLY", "KEY", "PLUS_STATUE", "GEM", "DRAGON", "PEACEFUL_DRAGON", "EFFECT")
P_NONE, P_FLY, P_KEY, P_PLUS, P_GEM, P_DRAGON, P_PEACEFUL, P_EFFECT = range(8)
POWER_INDEX = {p: i for i, p in enumerate(POWERS)}

REGIONS = ("Forest", "Fields", "Highlands", "Hills", "Wetlands", "Frozen Wastes")
REGION_INDEX = {r: i for i, r in enumerate(REGIONS)}

STATUES = ("Artifact Tower", "Beast Bazaar", "Quest Chest")
TOWER, BAZAAR, CHEST = 0, 1, 2

# Creature space c joins positions SPACES[c]; refill order is 0..6.
SPACES = ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0), (5, 2))
NUM_SPACES = 7
NUM_OPEN_QUESTS = 2             # open-quest spaces (Q-R4)
NUM_POSITIONS = 6

# NEIGHBOURS[pos] = ((space, other_pos), ...): at most one space joins any two positions.
NEIGHBOURS = tuple(
    tuple((c, b if a == pos else a) for c, (a, b) in enumerate(SPACES) if pos in (a, b))
    for pos in range(NUM_POSITIONS)
)
# Open-quest spaces are framed by these positions (the Abbey).
LOWER_FRAME = (5, 2, 3, 4)
