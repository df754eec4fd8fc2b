"""The chance sources of a Fantastiqa game: one numpy Generator each, spawned from the game's seed.

`np.random.SeedSequence(seed).spawn(NUM_CHANCE_SOURCES)` gives, in this order:
    0 setup (board deal: regions and statues to positions; starting-quest shuffle, Q-S5)
    1 creature deck (section shuffles, Raven insertion)   2..5 personal deck of seat 0..3
    6 Artifact Tower deck   7 Beast Bazaar deck   8 quest deck (Quest Chest)
    9 Abbey deck (setup shuffle and every reshuffle of returned cards; never drawn without abbey)
Each source only ever draws from its own generator, so a deal does not depend on the choices.
"""
from __future__ import annotations

from fantastiqa_rl.board import BAZAAR, CHEST, TOWER

NUM_CHANCE_SOURCES = 10
RNG_SETUP, RNG_CREATURE, RNG_SEAT0, RNG_TOWER, RNG_BAZAAR, RNG_QUEST, RNG_ABBEY = 0, 1, 2, 6, 7, 8, 9
STATUE_RNG = {TOWER: RNG_TOWER, BAZAAR: RNG_BAZAAR, CHEST: RNG_QUEST}   # statue -> its deck's source
