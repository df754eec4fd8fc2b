"""Card files: format, loader and validation.

A card file (TOML, or JSON with the same structure) holds:

    format = 1
    name = "..."                      # shown in reprs; the shipped set says STAND-IN
    [goals]                           # Q-S1: quest points to win, per length and player count
    short = { 2 = 9, 3 = 8, 4 = 7 }
    long  = { 2 = 11, 3 = 10, 4 = 9 }
    [abbey_goals.short]               # Q-B1 (abbey=True): lines of [quest points, Abbey cards];
                                      # meeting any one line wins (and [abbey_goals.long])
    2 = [[9, 0], [8, 3], [7, 5]]
    [supply]                          # general supply at setup (players' start tokens come from it)
    gems = 60; carpets = 16; reshuffles = 12; bonus_tokens = 12   # the published counts
    [[card]]                          # one entry per card KIND
    name = "..."; type = "..."; ...   # fields by type below

Card types and their fields (`copies` defaults to 1):
- adventurer: `symbols`, `per_player` (instances per seat; the 9 household items).
- starter: `power` (GEM for the Dog, PEACEFUL_DRAGON for the Peaceful Dragon), `per_player`,
  and either `total` (copies in the box: `per_player` go to each seat, the rest, `total` -
  `per_player` x players, to the general supply (Peaceful Dragons, for DRAGON powers) or, for
  other kinds, stay boxed; at least `per_player` x 4) or `supply` (a fixed number of extra
  copies at every player count).
- creature: `section` (1 = top of the deck), `players` (player counts that use it), `symbols`,
  `vulnerability` (symbol), `strength` (symbols needed), `gem` (bool), optional `power`.
- raven: `section`, `players` (the Mischievous Raven event, Q-R3).
- beast: `symbols`, `cost` (gems), optional `power`.
- artifact / start_artifact: `cost`, `effects` (list of effect strings, vocabulary below).
- quest / start_quest: `region` (region name), `needs` (table symbol -> count), `points`,
  `reward` (table with any of gems, carpets, reshuffles).
- abbey: `symbol` (to match, Q-B3), `reward` (table like a quest's), `draw` (cards the explorer
  draws); the Abbey deck of the option abbey=True (Q-B1). Without the option they stay boxed.

`symbols` is a list: one symbol, two equal symbols (a "double" card) or two different symbols
(a Curious Companion: gives one of them, payer's choice). Powers: FLY, KEY, PLUS_STATUE, GEM,
DRAGON (creature/beast powers), PEACEFUL_DRAGON.

Artifact effect vocabulary (each effect string is `op [args]`, executed in order):
    gain_gems N        gain N gems from the supply
    draw N             draw N cards from your deck
    gain_carpet N      gain N flying-carpet tokens from the supply
    gain_reshuffle N   gain N reshuffle tokens from the supply
    steal_richer       take 1 gem from each opponent who had more gems than you (Rogue's Purse)
    double_symbols     one chosen hand card counts its symbols twice this turn (Looking Glass)
    draw_keep N K      draw N from your deck, keep K in hand, discard the rest (Bell of Summoning)
    give_card          move a card of your hand or discard pile to an opponent's discard (Bitter Brew)
    swap_creatures     swap two creatures on the board with their gems (Wardrobe)

Every load error is a CardFileError naming the file, the card and the field.
"""
from __future__ import annotations

import json
import os
import stat
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache

from fantastiqa_rl.board import NUM_SYMBOLS, POWER_INDEX, REGION_INDEX, SYMBOL_INDEX
from tabletop_rl.shown import shown

DATA_DIR = os.path.join(os.path.dirname(__file__), "data")
STANDIN_PATH = os.path.join(DATA_DIR, "fantastiqa_STAND-IN.toml")

CARD_TYPES = ("adventurer", "starter", "creature", "raven", "beast", "artifact",
              "start_artifact", "quest", "start_quest", "abbey")
HOLDABLE_TYPES = ("adventurer", "starter", "creature", "beast", "artifact", "start_artifact")
QUEST_TYPES = ("quest", "start_quest")
REWARD_KEYS = ("gems", "carpets", "reshuffles")
SUPPLY_KEYS = ("gems", "carpets", "reshuffles", "bonus_tokens")

# effect op -> number of integer arguments
EFFECT_OPS = {
    "gain_gems": 1, "draw": 1, "gain_carpet": 1, "gain_reshuffle": 1, "steal_richer": 0,
    "double_symbols": 0, "draw_keep": 2, "give_card": 0, "swap_creatures": 0,
}

# allowed fields per type (besides name, type, copies)
_FIELDS = {
    "adventurer": {"symbols", "per_player"},
    "starter": {"power", "per_player", "supply", "total"},
    "creature": {"section", "players", "symbols", "vulnerability", "strength", "gem", "power"},
    "raven": {"section", "players"},
    "beast": {"symbols", "cost", "power"},
    "artifact": {"cost", "effects"},
    "start_artifact": {"cost", "effects"},
    "quest": {"region", "needs", "points", "reward"},
    "start_quest": {"region", "needs", "points", "reward"},
    "abbey": {"symbol", "reward", "draw"},
}
_REQUIRED = {
    "adventurer": {"symbols", "per_player"},
    "starter": {"power", "per_player"},
    "creature": {"section", "players", "symbols", "vulnerability", "strength"},
    "raven": {"section", "players"},
    "beast": {"symbols", "cost"},
    "artifact": {"cost", "effects"},
    "start_artifact": {"effects"},
    "quest": {"region", "needs", "points", "reward"},
    "start_quest": {"region", "needs", "points", "reward"},
    "abbey": {"symbol", "reward", "draw"},
}


class CardFileError(ValueError):
    """A card file is malformed; the message names file, card and field."""


@dataclass(frozen=True)
class CardKind:
    name: str
    type: str
    copies: int = 1
    per_player: int = 0
    supply: int = 0
    total: int = 0               # starter: copies in the game (0: per_player per seat + supply)
    symbols: tuple = ()          # symbol ints
    power: int = 0               # board.POWERS index
    section: int = 0
    players: tuple = ()
    vulnerability: int = -1
    strength: int = 0
    gem: bool = False
    cost: int = 0
    effects: tuple = ()          # ((op, arg1, arg2), ...)
    region: int = -1
    needs: tuple = ()            # ((symbol, count), ...) sorted by symbol
    points: int = 0
    reward: tuple = (0, 0, 0)    # (gems, carpets, reshuffles)
    draw: int = 0
    symbol: int = -1             # abbey


@dataclass(frozen=True)
class CardSet:
    """A validated card file. `holdable` kinds can be in a hand (card actions name them);
    `quest_kinds` are quests. Indices into these tuples are the action-table indices."""
    path: str
    name: str
    kinds: tuple
    goals: dict                  # {"short": {2: 9, ...}, "long": {...}}
    abbey_goals: dict
    supply: dict
    holdable: tuple = field(default=())     # kind indices (into kinds) of holdable kinds
    quest_kinds: tuple = field(default=())  # kind indices of quests

    @property
    def num_card_kinds(self) -> int:
        return len(self.holdable)

    @property
    def num_quest_kinds(self) -> int:
        return len(self.quest_kinds)


def _err(path, card, fld, msg):
    return CardFileError(f"{path}: card {shown(card)}: field {shown(fld)}: {msg}")


def _int(path, card, fld, v, lo=0, hi=10 ** 6):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _err(path, card, fld, f"expected an integer in [{lo}, {hi}], got {shown(v)}")
    return v


def _name_in(table, v) -> bool:
    """v is one of the table's names (a list or table is never a name: it cannot be looked up)."""
    return isinstance(v, str) and v in table


def _sym(path, card, fld, v):
    if not _name_in(SYMBOL_INDEX, v):
        raise _err(path, card, fld, f"unknown symbol {shown(v)}; allowed: {sorted(SYMBOL_INDEX)}")
    return SYMBOL_INDEX[v]


def _symbols(path, card, v):
    if not isinstance(v, list) or not 1 <= len(v) <= 2:
        raise _err(path, card, "symbols", f"expected a list of 1 or 2 symbols, got {shown(v)}")
    return tuple(_sym(path, card, "symbols", s) for s in v)


def _reward(path, card, v):
    if not isinstance(v, dict):
        raise _err(path, card, "reward", f"expected a table with keys {REWARD_KEYS}, got {shown(v)}")
    for k in v:
        if k not in REWARD_KEYS:
            raise _err(path, card, "reward", f"unknown key {shown(k)}; allowed: {REWARD_KEYS}")
    return tuple(_int(path, card, "reward", v.get(k, 0), 0, 20) for k in REWARD_KEYS)


def _effects(path, card, v):
    if not isinstance(v, list):
        raise _err(path, card, "effects", f"expected a list of effect strings, got {shown(v)}")
    out = []
    for e in v:
        parts = e.split() if isinstance(e, str) else []
        if not parts or parts[0] not in EFFECT_OPS:
            raise _err(path, card, "effects", f"unknown effect {shown(e)}; allowed ops: {sorted(EFFECT_OPS)}")
        nargs = EFFECT_OPS[parts[0]]
        if len(parts) != 1 + nargs:
            raise _err(path, card, "effects", f"effect {shown(e)} takes {nargs} integer argument(s)")
        try:
            args = [int(x) for x in parts[1:]]
        except ValueError:
            raise _err(path, card, "effects", f"effect {shown(e)}: arguments must be integers") from None
        if any(a < 0 or a > 20 for a in args):
            raise _err(path, card, "effects", f"effect {shown(e)}: arguments must be in [0, 20]")
        args += [0] * (2 - len(args))
        out.append((parts[0], args[0], args[1]))
    return tuple(out)


def _players(path, card, v):
    if not isinstance(v, list) or any(isinstance(x, bool) or x not in (2, 3, 4) for x in v):
        raise _err(path, card, "players", f"expected a list of player counts from 2, 3, 4, got {shown(v)}")
    return tuple(sorted(set(v)))


def _parse_card(path, raw, idx):
    if not isinstance(raw, dict):
        raise CardFileError(f"{path}: card #{idx}: expected a table, got {shown(raw)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise CardFileError(f"{path}: card #{idx}: field 'name': missing or not a string")
    t = raw.get("type")
    if not _name_in(CARD_TYPES, t):
        raise _err(path, name, "type", f"unknown card type {shown(t)}; allowed: {CARD_TYPES}")
    for k in raw:
        if k not in ("name", "type", "copies") and k not in _FIELDS[t]:
            raise _err(path, name, k, f"not a field of type {shown(t)}; allowed: {sorted(_FIELDS[t] | {'copies'})}")
    for k in _REQUIRED[t]:
        if k not in raw:
            raise _err(path, name, k, f"missing (required for type {shown(t)})")
    kw = {"name": name, "type": t, "copies": _int(path, name, "copies", raw.get("copies", 1), 0, 100)}
    if "symbols" in raw:
        kw["symbols"] = _symbols(path, name, raw["symbols"])
    if "power" in raw:
        p = raw["power"]
        if not _name_in(POWER_INDEX, p) or p in ("NONE", "EFFECT"):
            raise _err(path, name, "power", f"unknown power {shown(p)}; allowed: FLY, KEY, PLUS_STATUE, GEM, DRAGON, PEACEFUL_DRAGON")
        kw["power"] = POWER_INDEX[p]
    if "effects" in raw:
        kw["effects"] = _effects(path, name, raw["effects"])
        kw["power"] = POWER_INDEX["EFFECT"]
    for k, hi in (("per_player", 20), ("supply", 100), ("total", 200), ("section", 9), ("strength", 20),
                  ("cost", 20), ("points", 50), ("draw", 10)):
        if k in raw:
            kw[k] = _int(path, name, k, raw[k], 1 if k in ("section", "strength") else 0, hi)
    if "total" in raw:
        if "supply" in raw:
            raise _err(path, name, "total", "give either total or supply, not both")
        if kw["total"] < 4 * kw.get("per_player", 0):
            raise _err(path, name, "total", f"{kw['total']} is fewer than per_player x 4 players")
    if "players" in raw:
        kw["players"] = _players(path, name, raw["players"])
    if "vulnerability" in raw:
        kw["vulnerability"] = _sym(path, name, "vulnerability", raw["vulnerability"])
    if "symbol" in raw:
        kw["symbol"] = _sym(path, name, "symbol", raw["symbol"])
    if "gem" in raw:
        if not isinstance(raw["gem"], bool):
            raise _err(path, name, "gem", f"expected true or false, got {shown(raw['gem'])}")
        kw["gem"] = raw["gem"]
    if "region" in raw:
        if not _name_in(REGION_INDEX, raw["region"]):
            raise _err(path, name, "region", f"unknown region {shown(raw['region'])}; allowed: {list(REGION_INDEX)}")
        kw["region"] = REGION_INDEX[raw["region"]]
    if "needs" in raw:
        nd = raw["needs"]
        if not isinstance(nd, dict) or not nd:
            raise _err(path, name, "needs", f"expected a non-empty table symbol -> count, got {shown(nd)}")
        kw["needs"] = tuple(sorted((_sym(path, name, "needs", s), _int(path, name, "needs", c, 1, 20))
                                   for s, c in nd.items()))
    if "reward" in raw:
        kw["reward"] = _reward(path, name, raw["reward"])
    if t in ("adventurer", "starter") and kw.get("per_player", 0) < 1:
        raise _err(path, name, "per_player", "must be at least 1")
    return CardKind(**kw)


def _goal_table(path, raw, key, value_check):
    if not isinstance(raw, dict) or set(raw) != {"short", "long"}:
        raise CardFileError(f"{path}: card '-': field {shown(key)}: expected tables 'short' and 'long'")
    out = {}
    for length, tab in raw.items():
        if not isinstance(tab, dict) or set(tab) != {"2", "3", "4"}:
            raise CardFileError(f"{path}: card '-': field '{key}.{length}': expected keys 2, 3, 4")
        out[length] = {int(k): value_check(f"{key}.{length}.{k}", v) for k, v in tab.items()}
    return out


MAX_CARD_FILE_BYTES = 1 << 20  # a card file is a few KiB; larger files are refused before parsing

#: prefix -> function(rest of the name) -> the path of a card file it makes: card sets named, not
#: written by hand ("generated:7", fantastiqa_rl.card_gen registers it when the package is imported)
CARD_SOURCES: dict = {}


def register_card_source(prefix: str, make_path) -> None:
    CARD_SOURCES[prefix] = make_path


def resolve_card_set(path: str | None) -> str | None:
    """The absolute file path a `card_set` value names: None stays None (the STAND-IN set), a name of
    a registered source ("generated:SEED") becomes the file that source writes."""
    if path is None:
        return None
    if isinstance(path, str):
        for prefix, make_path in CARD_SOURCES.items():
            if path.startswith(prefix):
                return os.path.abspath(make_path(path[len(prefix):]))
    return os.path.abspath(path)


def load_card_set(path: str | None = None) -> CardSet:
    """Load and validate a card file (TOML or JSON). None loads the STAND-IN set.

    Loads are cached by (path, size, modification time): a rewritten file is read again. A path
    that is not a regular file, or a file over MAX_CARD_FILE_BYTES, raises CardFileError."""
    path = resolve_card_set(path) or STANDIN_PATH
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise CardFileError(f"{path}: card '-': field '-': file not found") from None
    except OSError as e:
        raise CardFileError(f"{path}: card '-': field '-': cannot read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise CardFileError(f"{path}: card '-': field '-': not a regular file (a directory?)")
    if st.st_size > MAX_CARD_FILE_BYTES:
        raise CardFileError(f"{path}: card '-': field '-': file is {st.st_size} bytes; card files are "
                            f"limited to {MAX_CARD_FILE_BYTES} bytes")
    return _load_cached(path, st.st_size, st.st_mtime_ns)


class _DuplicateKey(Exception):
    def __init__(self, key):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs) -> dict:
    """json object_pairs_hook: plain json keeps the last of repeated keys silently; TOML refuses
    them, and so does a JSON card file."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


@lru_cache(maxsize=16)
def _load_cached(path: str, size: int, mtime_ns: int) -> CardSet:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CARD_FILE_BYTES + 1)
    except OSError as e:
        raise CardFileError(f"{path}: card '-': field '-': cannot read ({e.strerror or e})") from None
    if len(data) > MAX_CARD_FILE_BYTES:  # it grew since the stat
        raise CardFileError(f"{path}: card '-': field '-': file is over {MAX_CARD_FILE_BYTES} bytes")
    try:
        text = data.decode("utf-8")
        raw = json.loads(text, object_pairs_hook=_unique_keys) if path.endswith(".json") else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CardFileError(f"{path}: card '-': field '-': cannot parse: {e}") from None
    except _DuplicateKey as e:
        raise CardFileError(f"{path}: card '-': field {shown(e.key)}: cannot parse: duplicate key {shown(e.key)} "
                            "(a JSON object names each key once)") from None
    except RecursionError:
        raise CardFileError(f"{path}: card '-': field '-': cannot parse: nested too deeply") from None
    return parse_card_set(raw, path)


def parse_card_set(raw: dict, path: str = "<dict>") -> CardSet:
    """Validate an already-parsed card file."""
    if not isinstance(raw, dict):
        raise CardFileError(f"{path}: card '-': field '-': expected a table at top level")
    for k in raw:
        if k not in ("format", "name", "goals", "abbey_goals", "supply", "card"):
            raise CardFileError(f"{path}: card '-': field {shown(k)}: unknown top-level field")
    if raw.get("format") != 1:
        raise CardFileError(f"{path}: card '-': field 'format': expected 1, got {shown(raw.get('format'))}")

    def goal_int(fld, v):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise CardFileError(f"{path}: card '-': field {shown(fld)}: expected a positive integer, got {shown(v)}")
        return v

    def abbey_lines(fld, v):
        ok = isinstance(v, list) and v and all(
            isinstance(x, list) and len(x) == 2 and all(isinstance(y, int) and not isinstance(y, bool) and y >= 0 for y in x)
            for x in v)
        if not ok:
            raise CardFileError(f"{path}: card '-': field {shown(fld)}: expected a list of [points, abbey cards] pairs")
        return tuple(tuple(x) for x in v)

    goals = _goal_table(path, raw.get("goals"), "goals", goal_int)
    abbey_goals = _goal_table(path, raw.get("abbey_goals"), "abbey_goals", abbey_lines)
    sup = raw.get("supply")
    if not isinstance(sup, dict) or set(sup) != set(SUPPLY_KEYS):
        raise CardFileError(f"{path}: card '-': field 'supply': expected keys {SUPPLY_KEYS}")
    supply = {k: _int(path, "-", f"supply.{k}", v, 0, 1000) for k, v in sup.items()}
    cards = raw.get("card")
    if not isinstance(cards, list) or not cards:
        raise CardFileError(f"{path}: card '-': field 'card': expected a non-empty list of cards")
    kinds = tuple(_parse_card(path, c, i) for i, c in enumerate(cards))
    seen = set()
    for k in kinds:
        if k.name in seen:
            raise _err(path, k.name, "name", "duplicate card name")
        seen.add(k.name)
    by_type = {t: [k for k in kinds if k.type == t] for t in CARD_TYPES}
    # Shapes every game needs.
    if sum(k.per_player for k in by_type["adventurer"]) < 1:
        raise CardFileError(f"{path}: card '-': field 'type': no adventurer cards")
    for n in (2, 3, 4):
        if not any(n in k.players and k.copies for k in by_type["creature"]):
            raise CardFileError(f"{path}: card '-': field 'players': no creature used at {n} players")
    if sum(k.copies for k in by_type["start_quest"]) < 4 + 2:
        raise CardFileError(f"{path}: card '-': field 'type': need at least 6 start_quest cards (4 picks + 2 open)")
    if sum(k.copies for k in by_type["start_artifact"]) < 4:
        raise CardFileError(f"{path}: card '-': field 'type': need at least 4 start_artifact cards")
    peaceful = [k for k in by_type["starter"] if k.power == POWER_INDEX["PEACEFUL_DRAGON"]]
    if len(peaceful) > 1:
        raise _err(path, peaceful[1].name, "power", "only one PEACEFUL_DRAGON kind is allowed")
    for k in kinds:
        if k.type == "creature" and k.vulnerability >= NUM_SYMBOLS:
            raise _err(path, k.name, "vulnerability", "out of range")
    holdable = tuple(i for i, k in enumerate(kinds) if k.type in HOLDABLE_TYPES)
    quests = tuple(i for i, k in enumerate(kinds) if k.type in QUEST_TYPES)
    name = raw.get("name", os.path.basename(path))
    if not isinstance(name, str):
        raise CardFileError(f"{path}: card '-': field 'name': expected a string")
    return CardSet(path=path, name=name, kinds=kinds, goals=goals, abbey_goals=abbey_goals,
                   supply=supply, holdable=holdable, quest_kinds=quests)
