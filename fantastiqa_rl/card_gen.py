"""Seeded generator of valid Fantastiqa card files: GENERATED stand-ins for testing and training.

    from fantastiqa_rl.card_gen import generate_card_set, write_card_file
    raw = generate_card_set(7)                       # the parsed-file dict (cards.parse_card_set takes it)
    path = write_card_file("cards.toml", 7)          # TOML (or JSON when the path ends .json)
    python -m fantastiqa_rl.card_gen --seed 7 --out cards.json
    python -m fantastiqa_rl.card_gen --seed 0 --count 100 --out-dir card_files/   # seeds 0..99

Fantastiqa's real card list is not public; the engine reads every card from a card file (format:
the docstring of `fantastiqa_rl.cards`). A policy that reads card features (`fantastiqa_rl.card_view`)
should play ANY valid card file, so it needs many different files to train on and to hold out.
Every file written here is a STAND-IN built by chance around the shipped STAND-IN set
(`fantastiqa_rl/data/fantastiqa_STAND-IN.toml`, docs/rules/fantastiqa.md "STAND-IN card set"):
it is NOT the published cards, and its `name` says so ("GENERATED seed 7 (not the real cards)").

Everything comes from `numpy.random.default_rng(seed)`: the same seed and knobs give the same
dict and the same file bytes. What is kept from the STAND-IN set (the shapes the engine needs):
the 9 adventurers (one per symbol, one per player), the two starters (Dog: GEM, 4 in the box;
Peaceful Dragon: PEACEFUL_DRAGON, 16), the three creature sections, the Ravens (1 in section II,
2 in III, 2 unused) and the Abbey goal lines' shape (goal, 0), (goal-1, 3), (goal-2, 5).
What varies (defaults of the knobs; `DEFAULT_KNOBS`):
- creatures: 15-19 instances per section (45-57 in all), a kind has 2 copies with probability
  0.2; symbols: one symbol, a double or a Curious Companion (share `companion` = 0.15, the rest
  mostly singles in section I, mixed in II, mostly doubles in III), each symbol about equally
  often; vulnerability S(k-1) of the first symbol (the rules' cycle), another symbol with
  probability `odd_vulnerability` = 0.15; strength the section number (1, 2, 3) +-1 with
  probability 0.15 each way, in [1, 4]; a gem, a power (FLY, KEY, PLUS_STATUE, DRAGON, rarely
  GEM), both or neither. All are used at 4 players; at 3 and 2 players 75-95% of the instances
  (kinds dropped from sections II and III, mostly II at 3 players and III at 2, as in the STAND-IN set).
- beasts: 12-20 instances (2 copies with probability 0.15), doubles / companions / singles,
  cost 2-3 by shape +-1 (in [1, 5]), a power from FLY, KEY, PLUS_STATUE, GEM, rarely DRAGON or none.
- artifacts (the Artifact Tower): 16-26 instances, 1 or 2 effects from `cards.EFFECT_OPS` with
  arguments gain_gems 1-3, draw 1-3, gain_carpet 1-2, gain_reshuffle 1-2, draw_keep N 2-4 keep
  1..N-1; cost 1-6 from the effects' value with noise, at least the gems an effect gains.
- starting artifacts: 4-6 instances in 3-5 kinds, cost 0, double_symbols (probability 0.9) and
  a second effect (0.65) from steal_richer, draw_keep, gain_gems 1, draw 1, gain_carpet 1,
  gain_reshuffle 1, give_card.
- starting quests: 7-12 (one copy each; at least 6 are needed), needs 2-3 symbols (mostly
  one symbol x2), 1-2 points, a small reward; regular quests: 24-40, one to three symbols,
  2-6 needed in all, points by the total needed (2: 1, 3: 2, 4: 2, 5: 3, 6: 4) +-1 with
  probability 0.1 each way, regions balanced, rewards from 1-2 gems, a carpet, a reshuffle, a gem
  and a carpet, or nothing.
- the Abbey deck: 14-22 cards, symbols balanced, rewards as quests', draw 1 (2 with probability 1/3).
- goals: the STAND-IN goals shifted by one integer in `goal_shift` = [-1, 1] (the same shift for
  every player count, length and Abbey line); supply (`vary_supply`): gems 52-68, carpets 14-18,
  reshuffles 12-14, bonus tokens 10-14 (around the published 60 / 16 / 12 / 12; never below
  what 4 players take at setup).
Names say nothing that matters: "<Type> NN" numbered in file order, after the kinds of each type
block are shuffled (`shuffle`), so neither a name nor a position within a block tells one kind
from another. Bounds every file meets (checked; a ValueError names a knob setting that breaks
them): holdable kinds K <= 120 and quest kinds Q <= 60 (`fantastiqa_rl.card_view` takes 128 and
64), card instances at 4 players <= 255 (the batched engine's rows stay uint8:
`fantastiqa_rl.vector_state.row_dtypes`); with the default knobs K <= 119, Q <= 52 and
instances <= 244 by construction.

TOML is written by a small emitter here (the standard library reads TOML but does not write it;
the structure is plain: strings, integers, booleans, lists and inline tables); the tests read
every file back with `load_card_set`.
"""
from __future__ import annotations

import argparse
import json
import os
import re

import numpy as np

from fantastiqa_rl.board import NUM_SYMBOLS, REGIONS, SYMBOLS
from fantastiqa_rl.cards import CardFileError, parse_card_set, register_card_source

MAX_KINDS = 120          # holdable card kinds (card_view.MAX_CARD_KINDS is 128)
MAX_QUEST_KINDS = 60     # quest kinds (card_view.MAX_QUEST_KINDS is 64)
MAX_INSTANCES = 255      # card instances at 4 players (uint8 rows, vector_state.row_dtypes)

#: knob -> default; ranges are inclusive (lo, hi)
DEFAULT_KNOBS = {
    "creatures_per_section": (15, 19),   # creature instances in each of sections I, II, III
    "creature_copies2": 0.2,             # probability a creature kind has 2 copies
    "companion": 0.15,                   # probability a creature is a Curious Companion
    "odd_vulnerability": 0.15,           # probability of a vulnerability off the S(k-1) cycle
    "used_3p": (0.75, 0.95),             # share of creature instances used at 3 players
    "used_2p": (0.75, 0.95),             # ... at 2 players
    "beasts": (12, 20),                  # beast instances
    "artifacts": (16, 26),               # Artifact Tower instances
    "start_artifacts": (4, 6),           # starting artifact instances (>= 4)
    "start_quests": (7, 12),             # starting quests (>= 6)
    "quests": (24, 40),                  # regular quests
    "abbey_cards": (14, 22),             # Abbey deck
    "goal_shift": (-1, 1),               # added to every STAND-IN goal
    "vary_supply": True,                 # vary the supply mildly (else the published counts)
    "shuffle": True,                     # shuffle the kinds within each type block
}

# the STAND-IN set's goals and supply (fantastiqa_rl/data/make_standin.py)
_GOALS = {2: (9, 11), 3: (8, 10), 4: (7, 9)}
_SUPPLY = {"gems": 60, "carpets": 16, "reshuffles": 12, "bonus_tokens": 12}
_BLOCKS = ("adventurer", "starter", "creature", "raven", "beast", "start_artifact", "artifact",
           "start_quest", "quest", "abbey")
_LABEL = {"adventurer": "Adventurer", "starter": "Starter", "creature": "Creature", "raven": "Raven",
          "beast": "Beast", "start_artifact": "Start Artifact", "artifact": "Artifact",
          "start_quest": "Start Quest", "quest": "Quest", "abbey": "Abbey"}

_CREATURE_POWERS = (("FLY", 0.28), ("KEY", 0.24), ("PLUS_STATUE", 0.24), ("DRAGON", 0.18), ("GEM", 0.06))
_BEAST_POWERS = (("FLY", 0.25), ("KEY", 0.25), ("PLUS_STATUE", 0.2), ("GEM", 0.2), ("DRAGON", 0.05), (None, 0.05))
# market effect op -> weight
_MARKET_OPS = (("gain_gems", 0.2), ("draw", 0.2), ("gain_carpet", 0.12), ("gain_reshuffle", 0.1),
               ("steal_richer", 0.06), ("double_symbols", 0.06), ("draw_keep", 0.08), ("give_card", 0.09),
               ("swap_creatures", 0.09))
_START_SECOND = ("steal_richer", "draw_keep", "gain_gems", "draw", "gain_carpet", "gain_reshuffle", "give_card")
# regular quest needs (counts per distinct symbol) -> weight
_QUEST_SHAPES = (((2, 1), 0.22), ((2, 2), 0.28), ((2, 3), 0.14), ((3, 3), 0.12), ((1, 1, 1), 0.08),
                 ((2, 1, 1), 0.06), ((3,), 0.05), ((4,), 0.05))
_QUEST_POINTS = {2: 1, 3: 2, 4: 2, 5: 3, 6: 4}
_REWARDS = (({"gems": 1}, 0.25), ({"gems": 2}, 0.2), ({"carpets": 1}, 0.2), ({"reshuffles": 1}, 0.2),
            ({"gems": 1, "carpets": 1}, 0.05), ({}, 0.1))
_START_REWARDS = (({"gems": 1}, 0.6), ({"carpets": 1}, 0.15), ({"reshuffles": 1}, 0.1), ({"gems": 2}, 0.05),
                  ({}, 0.1))


def _pick(rng, table):
    """One item of a ((item, weight), ...) table."""
    w = np.array([p for _, p in table], dtype=float)
    return table[int(rng.choice(len(table), p=w / w.sum()))][0]


def _between(rng, lo_hi):
    lo, hi = lo_hi
    return int(rng.integers(lo, hi + 1))


class _SymbolStream:
    """Symbols in runs of random permutations of all nine, so every symbol comes about equally often."""

    def __init__(self, rng):
        self.rng, self.left = rng, []

    def __call__(self) -> int:
        if not self.left:
            self.left = [int(x) for x in self.rng.permutation(NUM_SYMBOLS)]
        return self.left.pop()


def _other(rng, avoid) -> int:
    return int(rng.choice([s for s in range(NUM_SYMBOLS) if s not in avoid]))


def _symbols(rng, first, shape) -> list:
    if shape == "double":
        return [SYMBOLS[first]] * 2
    if shape == "companion":
        return [SYMBOLS[first], SYMBOLS[_other(rng, {first})]]
    return [SYMBOLS[first]]


def _copies_to(rng, target, p2) -> list:
    """Copies of successive kinds (1, or 2 with probability p2) summing to `target`."""
    out = []
    while sum(out) < target:
        out.append(2 if target - sum(out) >= 2 and rng.random() < p2 else 1)
    return out


def _check_knobs(knobs) -> dict:
    bad = sorted(set(knobs) - set(DEFAULT_KNOBS))
    if bad:
        raise ValueError(f"unknown knob(s) {bad}; allowed: {sorted(DEFAULT_KNOBS)}")
    k = {**DEFAULT_KNOBS, **knobs}
    for name, v in k.items():
        d = DEFAULT_KNOBS[name]
        if isinstance(d, tuple):
            ok = isinstance(v, (tuple, list)) and len(v) == 2 and v[0] <= v[1]
            if ok and isinstance(d[0], int):
                ok = all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v)
            if not ok:
                raise ValueError(f"knob {name!r}: expected a (lo, hi) pair with lo <= hi like {d}, got {v!r}")
            k[name] = tuple(v)
        elif isinstance(d, bool):
            if not isinstance(v, bool):
                raise ValueError(f"knob {name!r}: expected True or False, got {v!r}")
        elif not (isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0):
            raise ValueError(f"knob {name!r}: expected a probability in [0, 1], got {v!r}")
    for name, lo in (("creatures_per_section", 1), ("start_artifacts", 4), ("start_quests", 6), ("quests", 0),
                     ("beasts", 0), ("artifacts", 0), ("abbey_cards", 0)):
        if k[name][0] < lo:
            raise ValueError(f"knob {name!r}: at least {lo} needed, got {k[name]}")
    for name in ("used_3p", "used_2p"):
        if not 0.0 < k[name][0] <= k[name][1] <= 1.0:
            raise ValueError(f"knob {name!r}: shares in (0, 1], got {k[name]}")
    return k


# ------------------------------------------------------------------------------------ blocks
def _creatures(rng, k) -> list:
    sym = _SymbolStream(rng)
    single_share = {1: 0.95, 2: 0.75, 3: 0.25}      # of the non-companions: single vs double
    out = []
    for sec in (1, 2, 3):
        for copies in _copies_to(rng, _between(rng, k["creatures_per_section"]), k["creature_copies2"]):
            first = sym()
            if rng.random() < k["companion"]:
                shape = "companion"
            else:
                shape = "single" if rng.random() < single_share[sec] else "double"
            symbols = _symbols(rng, first, shape)
            if rng.random() < k["odd_vulnerability"]:
                vuln = _other(rng, {SYMBOLS.index(s) for s in symbols})
            else:
                vuln = (first - 1) % NUM_SYMBOLS
            r = rng.random()
            strength = int(np.clip(sec + (-1 if r < 0.15 else 1 if r > 0.85 else 0), 1, 4))
            r = rng.random()                         # gem only, power only, both, neither
            gem, power = (True, False) if r < 0.45 else (False, True) if r < 0.85 else \
                (True, True) if r < 0.93 else (False, False)
            c = {"type": "creature", "section": sec, "players": [2, 3, 4], "symbols": symbols,
                 "vulnerability": SYMBOLS[vuln], "strength": strength, "gem": gem}
            if copies > 1:
                c["copies"] = copies
            if power:
                c["power"] = _pick(rng, _CREATURE_POWERS)
            out.append(c)
    total = sum(c.get("copies", 1) for c in out)
    for n, knob, prefer in ((3, "used_3p", 2), (2, "used_2p", 3)):
        lo, hi = k[knob]
        target = round(total * float(rng.uniform(lo, hi)))
        used = total
        while used > target:
            cands = {s: [c for c in out if c["section"] == s and n in c["players"]] for s in (2, 3)}
            sec = prefer if rng.random() < 0.75 else 5 - prefer
            if len(cands[sec]) <= 3:                 # keep a few of every section
                sec = 5 - sec
                if len(cands[sec]) <= 3:
                    break
            c = cands[sec][int(rng.integers(len(cands[sec])))]
            c["players"] = [p for p in c["players"] if p != n]
            used -= c.get("copies", 1)
    return out


def _beasts(rng, k) -> list:
    sym = _SymbolStream(rng)
    out = []
    for copies in _copies_to(rng, _between(rng, k["beasts"]), 0.15):
        r = rng.random()
        shape = "double" if r < 0.6 else "companion" if r < 0.85 else "single"
        r = rng.random()
        cost = {"double": 3, "companion": 3, "single": 2}[shape] + (-1 if r < 0.2 else 1 if r > 0.8 else 0)
        power = _pick(rng, _BEAST_POWERS)
        c = {"type": "beast", "symbols": _symbols(rng, sym(), shape)}
        if power is None:
            cost -= 1
        else:
            c["power"] = power
        c["cost"] = int(np.clip(cost, 1, 5))
        if copies > 1:
            c["copies"] = copies
        out.append(c)
    return out


def _effect(rng, op, market=True) -> tuple:
    """(effect string, value in gems, gems gained)."""
    if op == "gain_gems":
        n = int(rng.integers(1, 4)) if market else 1
        return f"gain_gems {n}", float(n), n
    if op == "draw":
        n = int(rng.integers(1, 4)) if market else 1
        return f"draw {n}", float(n), 0
    if op == "gain_carpet":
        n = 1 + int(market and rng.random() < 0.2)
        return f"gain_carpet {n}", 1.5 * n, 0
    if op == "gain_reshuffle":
        n = 1 + int(market and rng.random() < 0.2)
        return f"gain_reshuffle {n}", float(n), 0
    if op == "draw_keep":
        n = int(rng.integers(2, 5)) if market else int(rng.integers(2, 4))
        keep = int(rng.integers(1, n))
        return f"draw_keep {n} {keep}", 0.5 * n + 0.5 * keep, 0
    return op, {"steal_richer": 1.5, "double_symbols": 2.0, "give_card": 1.5, "swap_creatures": 1.5}[op], 0


def _artifacts(rng, k) -> list:
    out = []
    for copies in _copies_to(rng, _between(rng, k["artifacts"]), 0.15):
        ops = [_pick(rng, _MARKET_OPS)]
        if rng.random() < 0.3:
            table = tuple((op, w) for op, w in _MARKET_OPS if op not in ops)
            ops.append(_pick(rng, table))
        effects = [_effect(rng, op) for op in ops]
        value = sum(v for _, v, _ in effects)
        gems = sum(g for _, _, g in effects)
        cost = int(np.clip(round(1 + value + rng.normal(0.0, 0.7)), max(1, gems), 6))
        c = {"type": "artifact", "cost": cost, "effects": [e for e, _, _ in effects]}
        if copies > 1:
            c["copies"] = copies
        out.append(c)
    return out


def _start_artifacts(rng, k) -> list:
    total = _between(rng, k["start_artifacts"])
    kinds = min(total, int(rng.integers(3, 6)))
    copies = [1] * kinds
    for _ in range(total - kinds):
        copies[int(rng.integers(kinds))] += 1
    out = []
    for cp in copies:
        effects = ["double_symbols"] if rng.random() < 0.9 else []
        if rng.random() < 0.65 or not effects:
            op = _START_SECOND[int(rng.integers(len(_START_SECOND)))]
            effects.append(_effect(rng, op, market=False)[0])
        c = {"type": "start_artifact", "cost": 0, "effects": effects}
        if cp > 1:
            c["copies"] = cp
        out.append(c)
    return out


def _needs(rng, sym, counts) -> dict:
    first = sym()
    syms = [first]
    while len(syms) < len(counts):
        syms.append(_other(rng, set(syms)))
    return {SYMBOLS[s]: int(n) for s, n in zip(syms, counts)}


def _quests(rng, k) -> tuple:
    sym = _SymbolStream(rng)
    start = []
    for _ in range(_between(rng, k["start_quests"])):
        r = rng.random()
        counts = (2,) if r < 0.65 else (1, 1) if r < 0.85 else (3,) if r < 0.95 else (2, 1)
        points = 1 if sum(counts) == 2 or rng.random() < 0.5 else 2
        start.append({"type": "start_quest", "region": REGIONS[int(rng.integers(len(REGIONS)))],
                      "needs": _needs(rng, sym, counts), "points": points,
                      "reward": dict(_pick(rng, _START_REWARDS))})
    n = _between(rng, k["quests"])
    regions = []
    while len(regions) < n:                          # balanced: every region about n / 6 times
        regions += [REGIONS[int(r)] for r in rng.permutation(len(REGIONS))]
    quests = []
    for region in regions[:n]:
        counts = _pick(rng, _QUEST_SHAPES)
        r = rng.random()
        points = max(1, _QUEST_POINTS.get(sum(counts), 3) + (-1 if r < 0.1 else 1 if r > 0.9 else 0))
        quests.append({"type": "quest", "region": region, "needs": _needs(rng, sym, counts),
                       "points": int(min(points, 5)), "reward": dict(_pick(rng, _REWARDS))})
    return start, quests


def _abbey(rng, k) -> list:
    sym = _SymbolStream(rng)
    return [{"type": "abbey", "symbol": SYMBOLS[sym()], "reward": dict(_pick(rng, _REWARDS)),
             "draw": 2 if rng.random() < 1 / 3 else 1} for _ in range(_between(rng, k["abbey_cards"]))]


def _fixed_blocks() -> dict:
    """What stays as in the STAND-IN set: adventurers, starters and Ravens."""
    return {
        "adventurer": [{"type": "adventurer", "per_player": 1, "symbols": [s]} for s in SYMBOLS],
        "starter": [{"type": "starter", "per_player": 1, "total": 4, "power": "GEM"},
                    {"type": "starter", "per_player": 1, "total": 16, "power": "PEACEFUL_DRAGON"}],
        "raven": [{"type": "raven", "section": 2, "players": [2, 3, 4]},
                  {"type": "raven", "copies": 2, "section": 3, "players": [2, 3, 4]},
                  {"type": "raven", "copies": 2, "section": 3, "players": []}],
    }


def _knob_text(knobs: dict) -> str:
    return ", ".join(f"{k}={tuple(v) if isinstance(v, list) else v}" for k, v in sorted(knobs.items())
                     if (tuple(v) if isinstance(v, list) else v) != DEFAULT_KNOBS[k])


# ------------------------------------------------------------------------------------ API
def generate_card_set(seed: int, **knobs) -> dict:
    """A GENERATED card file's parsed structure (what `fantastiqa_rl.cards.parse_card_set` takes),
    from `numpy.random.default_rng(seed)` only: the same seed and knobs give the same dict.
    Knobs (`DEFAULT_KNOBS`) set the ranges (module docstring); ValueError on an unknown knob, a bad
    value, or a setting whose file would break the bounds (K <= 120, Q <= 60, <= 255 instances)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: expected an integer >= 0, got {seed!r}")
    k = _check_knobs(knobs)
    rng = np.random.default_rng(int(seed))
    blocks = _fixed_blocks()
    blocks["creature"] = _creatures(rng, k)
    blocks["beast"] = _beasts(rng, k)
    blocks["start_artifact"] = _start_artifacts(rng, k)
    blocks["artifact"] = _artifacts(rng, k)
    blocks["start_quest"], blocks["quest"] = _quests(rng, k)
    blocks["abbey"] = _abbey(rng, k)
    shift = _between(rng, k["goal_shift"])
    goals = {length: {str(n): max(1, g[li] + shift) for n, g in _GOALS.items()}
             for li, length in enumerate(("short", "long"))}
    abbey_goals = {length: {n: [[g, 0], [max(1, g - 1), 3], [max(1, g - 2), 5]] for n, g in tab.items()}
                   for length, tab in goals.items()}
    supply = dict(_SUPPLY)
    if k["vary_supply"]:
        supply = {"gems": 60 + int(rng.integers(-8, 9)), "carpets": 16 + int(rng.integers(-2, 3)),
                  "reshuffles": 12 + int(rng.integers(0, 3)), "bonus_tokens": 12 + int(rng.integers(-2, 3))}
    cards = []
    for t in _BLOCKS:
        block = blocks[t]
        if k["shuffle"]:
            block = [block[int(i)] for i in rng.permutation(len(block))]
        for j, c in enumerate(block, start=1):
            cards.append({"name": f"{_LABEL[t]} {j:02d}", **c})
    extra = _knob_text(knobs)
    name = f"GENERATED seed {int(seed)}{', ' + extra if extra else ''} (not the real cards)"
    raw = {"format": 1, "name": name, "goals": goals, "abbey_goals": abbey_goals, "supply": supply, "card": cards}
    K, Q, m = counts(raw)
    if K > MAX_KINDS or Q > MAX_QUEST_KINDS or m > MAX_INSTANCES:
        raise ValueError(f"seed {seed} with knobs {knobs}: {K} holdable kinds, {Q} quest kinds, {m} instances at "
                         f"4 players; the bounds are {MAX_KINDS}, {MAX_QUEST_KINDS}, {MAX_INSTANCES}: narrow the knobs")
    return raw


def counts(raw: dict, players: int = 4) -> tuple:
    """(holdable kinds K, quest kinds Q, card instances at `players`) of a parsed card file; it is
    validated first (`parse_card_set`), so a bad file raises CardFileError."""
    cs = parse_card_set(raw)
    m = 0
    for kind in cs.kinds:
        if kind.type in ("adventurer", "starter"):
            m += kind.per_player * players + (kind.total - kind.per_player * players if kind.total else kind.supply)
        else:
            m += kind.copies
    return cs.num_card_kinds, cs.num_quest_kinds, m


_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, str):
        return json.dumps(v)          # a JSON string of ASCII text is a TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_toml_key(a)} = {_toml_value(b)}" for a, b in v.items()) + " }" if v else "{}"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _toml_key(key) -> str:
    key = str(key)
    return key if _BARE_KEY.match(key) else json.dumps(key)


def to_toml(raw: dict) -> str:
    """TOML text of a card-file dict (the structure `generate_card_set` returns)."""
    out = ["# GENERATED Fantastiqa card set -- NOT the published cards: a random stand-in for testing and",
           "# training, written by fantastiqa_rl/card_gen.py. Format: the docstring of fantastiqa_rl/cards.py.",
           "", f"format = {_toml_value(raw['format'])}", f"name = {_toml_value(raw['name'])}", "", "[goals]"]
    out += [f"{_toml_key(a)} = {_toml_value(b)}" for a, b in raw["goals"].items()]
    for length, tab in raw["abbey_goals"].items():
        out += ["", f"[abbey_goals.{_toml_key(length)}]"]
        out += [f"{_toml_key(a)} = {_toml_value(b)}" for a, b in tab.items()]
    out += ["", "[supply]"] + [f"{_toml_key(a)} = {_toml_value(b)}" for a, b in raw["supply"].items()]
    for card in raw["card"]:
        out += ["", "[[card]]"] + [f"{_toml_key(a)} = {_toml_value(b)}" for a, b in card.items()]
    return "\n".join(out) + "\n"


def to_json(raw: dict) -> str:
    """JSON text of a card-file dict: the top-level fields, then one card a line."""
    head = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in raw.items() if k != "card"]
    cards = ",\n".join(f"  {json.dumps(c)}" for c in raw["card"])
    return "{\n" + ",\n".join(head) + ',\n "card": [\n' + cards + "\n ]\n}\n"


def write_card_file(path, seed: int, **knobs) -> str:
    """Write the GENERATED card file of `seed` (and knobs) to `path`: JSON when the path ends .json,
    else TOML. Returns the absolute path; `fantastiqa_rl.cards.load_card_set(path)` loads it."""
    raw = generate_card_set(seed, **knobs)
    path = os.path.abspath(os.fspath(path))
    text = to_json(raw) if path.endswith(".json") else to_toml(raw)
    d = os.path.dirname(path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def generated_path(spec: str) -> str:
    """The file of card set "generated:SEED" (`fantastiqa_rl.cards.resolve_card_set`): written as JSON under
    $FANTASTIQA_CARD_CACHE (default ~/.cache/tabletop_rl/fantastiqa_cards) the first time, the same
    bytes for the same seed on every machine."""
    if not (spec.isascii() and spec.isdigit() and len(spec) <= 9):
        raise CardFileError(f"generated:{spec[:20]}: card '-': field '-': a generated card set is named "
                            "generated:SEED with SEED an integer (e.g. generated:7)")
    seed = int(spec)
    folder = os.environ.get("FANTASTIQA_CARD_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tabletop_rl",
                                                                       "fantastiqa_cards")
    path = os.path.join(folder, f"fantastiqa_GENERATED_seed{seed}.json")
    text = to_json(generate_card_set(seed))
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return path
    except OSError:
        pass
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path


register_card_source("generated:", generated_path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fantastiqa_rl.card_gen",
                                 description="Write GENERATED Fantastiqa card files (random stand-ins, "
                                             "not the published cards) for training and evaluation.")
    ap.add_argument("--seed", type=int, default=0, help="seed of the (first) file (default 0)")
    ap.add_argument("--out", help="one file: .json writes JSON, anything else TOML")
    ap.add_argument("--count", type=int, default=None, help="with --out-dir: write N files, seeds seed..seed+N-1")
    ap.add_argument("--out-dir", help="a folder for --count files named fantastiqa_GENERATED_seed<S>.<format>")
    ap.add_argument("--format", choices=("toml", "json"), default="toml", help="with --out-dir (default toml)")
    a = ap.parse_args(argv)
    if a.seed < 0:
        ap.error("--seed must be >= 0")
    if (a.out is None) == (a.out_dir is None):
        ap.error("give exactly one of --out and --out-dir")
    if a.out is not None:
        if a.count not in (None, 1):
            ap.error("--count needs --out-dir")
        print(write_card_file(a.out, a.seed))
        return 0
    n = 1 if a.count is None else a.count
    if n < 1:
        ap.error("--count must be >= 1")
    for s in range(a.seed, a.seed + n):
        print(write_card_file(os.path.join(a.out_dir, f"fantastiqa_GENERATED_seed{s}.{a.format}"), s))
    return 0


__all__ = ["DEFAULT_KNOBS", "MAX_INSTANCES", "MAX_KINDS", "MAX_QUEST_KINDS", "counts", "generate_card_set", "generated_path", "main",
           "to_json", "to_toml", "write_card_file"]

if __name__ == "__main__":
    raise SystemExit(main())
