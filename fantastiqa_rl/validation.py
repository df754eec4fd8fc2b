"""Full validation of a Fantastiqa state dict (`FantastiqaState.from_dict` calls it first).

A state dict may come from a file someone else wrote, so nothing in it is trusted: every key is
required (the Abbey keys exactly when `options.abbey`), unknown keys and other versions are
rejected, every value has its type and range, and what play conserves is checked:

- cards: every card instance id of the game is in exactly one place (decks, board, supply,
  box, offers, each player's deck/hand/discard/committed/quests/completed/Abbey cards, and the
  cards the turn in progress holds: pay, adventure, revealed, in_play, release_from_discard,
  abbey_aside, and the cards of powered that lie in play, Q-T2, `check_turn_bounds`), and only in
  places its type can be (a quest is never in a hand, ...);
- tokens: gems (supply + players + board + set-aside Abbey reward), carpets, reshuffles and
  bonus tokens add up to the card set's supply, every count is >= 0;
- the decision in progress: `phase` and `turn.ret` are decision names, `current` is a seat,
  `winners`/`end_reason` are set exactly when the game is over, and the decision is one the
  state can take: its legal actions are computed, a game that is not over has at least one, and
  each of them applies to a copy without error.

Every failure is a ValueError whose message names the key path (e.g. `players[1].hand[3]`).
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import BAZAAR, CHEST, NUM_POSITIONS, TOWER
from fantastiqa_rl.cards import EFFECT_OPS
from fantastiqa_rl.chance import NUM_CHANCE_SOURCES
from fantastiqa_rl.powers import held_in_play

VERSION = 2                      # 2: Q-T2's turn.cancels and cards in play (issue 25)
BASE_KEYS = ("version", "card_set", "num_players", "options", "goal", "phase", "current", "turns", "winners",
             "end_reason", "region_at", "statue_at", "board", "board_gems", "creature_deck", "artifact_deck",
             "beast_deck", "quest_deck", "open_quests", "open_bonus", "supply", "box", "players", "setup_offer",
             "turn", "rng")
ABBEY_KEYS = ("abbey_deck", "abbey_returned")
SUPPLY_KEYS = ("gems", "carpets", "reshuffles", "bonus_tokens", "dragons")
PLAYER_KEYS = ("deck", "hand", "discard", "committed", "quests", "completed", "abbey", "scores", "bonus_tokens",
               "gems", "tokens", "position")
TOKEN_KEYS = ("carpets", "reshuffles", "quest_token")
TURN_KEYS = ("action_used", "plus_statue", "boosted", "powered", "visited", "prev", "adventure", "pay", "target",
             "revealed", "count", "key", "effects", "in_play", "release_from_discard", "token_left", "cancels", "reason",
             "ret")
TURN_ABBEY_KEYS = ("abbey_aside", "abbey_reward")
MAX_COUNT = 10 ** 6  # any counter above this is corrupt (no supply comes close)


class _Check:
    """Helpers that raise ValueError naming the key path."""

    @staticmethod
    def fail(path: str, problem: str) -> ValueError:
        return ValueError(f"from_dict: key {path!r}: {problem}")

    def keys(self, d, path: str, keys) -> None:
        if not isinstance(d, dict):
            raise self.fail(path or "<root>", f"must be a dict; got {type(d).__name__}")
        missing = [k for k in keys if k not in d]
        if missing:
            raise self.fail(_join(path, missing[0]), "missing")
        unknown = sorted((k for k in d if k not in keys), key=str)
        if unknown:
            raise self.fail(_join(path, str(unknown[0])), f"unknown key (expected {list(keys)})")

    def int(self, v, path: str, lo: int = 0, hi: int = MAX_COUNT) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(path, f"must be an int; got {v!r} ({type(v).__name__})")
        if not lo <= v <= hi:
            raise self.fail(path, f"must be in {lo}..{hi}; got {v}")
        return v

    def bool(self, v, path: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(path, f"must be true or false; got {v!r}")
        return v

    def list(self, v, path: str, length: int | None = None, max_len: int = 10 ** 4) -> list:
        if not isinstance(v, list):
            raise self.fail(path, f"must be a list; got {type(v).__name__}")
        if length is not None and len(v) != length:
            raise self.fail(path, f"must have {length} entries; got {len(v)}")
        if len(v) > max_len:
            raise self.fail(path, f"has {len(v)} entries (at most {max_len})")
        return v

    def ints(self, v, path: str, lo: int = 0, hi: int = MAX_COUNT, length: int | None = None) -> list:
        return [self.int(x, f"{path}[{i}]", lo, hi) for i, x in enumerate(self.list(v, path, length))]


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def validate_state_dict(d, new_state) -> object:
    """Check `d` completely; returns a fresh state built by `new_state(...)` for its setup (the
    caller fills in the rest). Raises ValueError naming the key path of the first problem."""
    c = _Check()
    if not isinstance(d, dict):
        raise ValueError(f"from_dict: expected a dict; got {type(d).__name__}")
    if "version" not in d:
        raise c.fail("version", "missing")
    if isinstance(d["version"], bool) or d["version"] != VERSION or not isinstance(d["version"], int):
        raise c.fail("version", f"must be {VERSION}; got {d['version']!r}")
    for key in ("num_players", "options", "goal", "card_set"):
        if key not in d:
            raise c.fail(key, "missing")
    n = c.int(d["num_players"], "num_players", 2, 4)
    if not isinstance(d["options"], dict):
        raise c.fail("options", f"must be a dict; got {type(d['options']).__name__}")
    if d["goal"] not in ("short", "long"):
        raise c.fail("goal", f"must be 'short' or 'long'; got {d['goal']!r}")
    if d["card_set"] is not None and not isinstance(d["card_set"], str):
        raise c.fail("card_set", f"must be null or a path; got {d['card_set']!r}")
    try:
        s = new_state(num_players=n, seed=0, goal=d["goal"], card_set=d["card_set"], **d["options"])
    except (TypeError, ValueError) as exc:
        raise c.fail("options", f"rejected: {exc}") from None
    if s.card_set != d["card_set"]:
        raise c.fail("card_set", f"must be an absolute path (as to_dict writes it); got {d['card_set']!r}")
    abbey = s.opts["abbey"]
    c.keys(d, "", BASE_KEYS + (ABBEY_KEYS if abbey else ()))
    g = s.g
    M = g.num_instances
    players = c.list(d["players"], "players", n)  # before the cards: num_players decides the instances

    # ------------------------------------------------------------------ scalars and board
    if d["phase"] not in PHASES or (not abbey and d["phase"] in A.ABBEY_PHASES):
        raise c.fail("phase", f"must be a decision name of this game; got {d['phase']!r}")
    terminal = d["phase"] == "TERMINAL"
    c.int(d["current"], "current", 0, n - 1)
    c.int(d["turns"], "turns")
    if terminal:
        winners = c.ints(d["winners"], "winners", 0, n - 1) if d["winners"] is not None else None
        if not winners or len(set(winners)) != len(winners):
            raise c.fail("winners", f"must list distinct seats once the game is over; got {d['winners']!r}")
        if not isinstance(d["end_reason"], str) or not d["end_reason"]:
            raise c.fail("end_reason", "must say why the game ended")
    else:
        if d["winners"] is not None:
            raise c.fail("winners", f"must be null before the end (phase {d['phase']}); got {d['winners']!r}")
        if d["end_reason"] != "":
            raise c.fail("end_reason", f"must be empty before the end; got {d['end_reason']!r}")
    region_at = c.ints(d["region_at"], "region_at", 0, NUM_POSITIONS - 1, NUM_POSITIONS)
    if sorted(region_at) != list(range(NUM_POSITIONS)):
        raise c.fail("region_at", f"must be a permutation of 0..{NUM_POSITIONS - 1}; got {region_at}")
    statue_at = c.ints(d["statue_at"], "statue_at", 0, 10, NUM_POSITIONS)
    if sorted(statue_at) != sorted([TOWER, TOWER, BAZAAR, BAZAAR, CHEST, CHEST]):
        raise c.fail("statue_at", f"must hold two of each statue; got {statue_at}")

    # ------------------------------------------------------------------ cards: one place each, of the right type
    creatures = {i for sec in g.sections.values() for i in sec}
    quests = set(g.quests) | set(g.start_quests)
    holdable = {i for i in range(M) if g.I_HAND_KIND[i] >= 0}
    abbey_cards = set(g.abbey)
    anything = set(range(M))
    seen: dict[int, str] = {}

    def place(v, path, allowed, what, length=None, empty_ok=False):
        out = []
        for i, x in enumerate(c.list(v, path, length)):
            p = f"{path}[{i}]"
            x = c.int(x, p, -1 if empty_ok else 0, M - 1)
            if x < 0:
                out.append(x)
                continue
            if x not in allowed:
                raise c.fail(p, f"card {x} ({g.card_name(x)}) cannot be here (only {what})")
            if x in seen:
                raise c.fail(p, f"card {x} ({g.card_name(x)}) is also at {seen[x]}")
            seen[x] = p
            out.append(x)
        return out

    place(d["creature_deck"], "creature_deck", creatures, "creatures and ravens of this player count")
    place(d["artifact_deck"], "artifact_deck", set(g.artifacts), "artifacts")
    place(d["beast_deck"], "beast_deck", set(g.beasts), "beasts")
    place(d["quest_deck"], "quest_deck", quests, "quests")
    place(d["open_quests"], "open_quests", quests, "quests, or -1", length=2, empty_ok=True)
    place(d["board"], "board", creatures, "creatures, or -1", length=7, empty_ok=True)
    board_gems = c.ints(d["board_gems"], "board_gems", 0, 1, 7)
    for j, (card, gem) in enumerate(zip(d["board"], board_gems)):
        if gem and card < 0:
            raise c.fail(f"board_gems[{j}]", "a gem on an empty space")
    open_bonus = c.ints(d["open_bonus"], "open_bonus", 0, 1, 2)
    c.keys(d["supply"], "supply", SUPPLY_KEYS)
    sup = {k: c.int(d["supply"][k], f"supply.{k}") for k in SUPPLY_KEYS if k != "dragons"}
    place(d["supply"]["dragons"], "supply.dragons", set(g.dragon_supply), "Peaceful Dragons")
    place(d["box"], "box", anything, "cards")
    c.keys(d["setup_offer"], "setup_offer", ("quests", "artifacts"))
    place(d["setup_offer"]["quests"], "setup_offer.quests", set(g.start_quests), "starting quests")
    place(d["setup_offer"]["artifacts"], "setup_offer.artifacts", set(g.start_artifacts), "starting artifacts")
    if abbey:
        place(d["abbey_deck"], "abbey_deck", abbey_cards, "Abbey cards")
        place(d["abbey_returned"], "abbey_returned", abbey_cards, "Abbey cards")
    totals = {"gems": sup["gems"] + sum(board_gems), "carpets": sup["carpets"], "reshuffles": sup["reshuffles"],
              "bonus_tokens": sup["bonus_tokens"] + sum(open_bonus)}
    for p, P in enumerate(players):
        pp = f"players[{p}]"
        c.keys(P, pp, PLAYER_KEYS)
        for k in ("deck", "hand", "discard"):
            place(P[k], f"{pp}.{k}", holdable, "cards a player can hold")
        for k in ("quests", "completed"):
            place(P[k], f"{pp}.{k}", quests, "quests")
        place(P["abbey"], f"{pp}.abbey", abbey_cards, "Abbey cards")
        if not isinstance(P["committed"], dict):
            raise c.fail(f"{pp}.committed", "must be a dict {quest: cards}")
        for q, cards in P["committed"].items():
            qp = f"{pp}.committed.{q}"
            if not (isinstance(q, str) and q.lstrip("-").isdigit()):
                raise c.fail(qp, "quest keys must be card ids")
            qi = int(q)
            if qi not in quests:
                raise c.fail(qp, f"{qi} is not a quest card")
            place(cards, qp, holdable, "cards a player can hold")
        c.int(P["scores"], f"{pp}.scores")
        for k in ("gems", "bonus_tokens"):
            totals[k] += c.int(P[k], f"{pp}.{k}")
        c.keys(P["tokens"], f"{pp}.tokens", TOKEN_KEYS)
        for k in ("carpets", "reshuffles"):
            totals[k] += c.int(P["tokens"][k], f"{pp}.tokens.{k}")
        c.int(P["tokens"]["quest_token"], f"{pp}.tokens.quest_token", -1, M - 1)
        c.int(P["position"], f"{pp}.position", -1, NUM_POSITIONS - 1)

    # ------------------------------------------------------------------ the turn in progress
    t = d["turn"]
    c.keys(t, "turn", TURN_KEYS + (TURN_ABBEY_KEYS if abbey else ()))
    c.bool(t["action_used"], "turn.action_used")
    c.bool(t["key"], "turn.key")
    c.int(t["plus_statue"], "turn.plus_statue", 0, 100)
    c.int(t["visited"], "turn.visited", 0, (1 << NUM_POSITIONS) - 1)
    c.int(t["prev"], "turn.prev", -1, NUM_POSITIONS - 1)
    c.int(t["target"], "turn.target", -1, max(M, 7) - 1)
    c.int(t["count"], "turn.count", 0, 10 ** 4)
    c.int(t["reason"], "turn.reason", 0, 2)
    if t["ret"] not in PHASES or t["ret"] == "TERMINAL":
        raise c.fail("turn.ret", f"must be a decision name; got {t['ret']!r}")
    for k in ("pay", "adventure", "in_play", "release_from_discard"):
        place(t[k], f"turn.{k}", holdable, "cards a player can hold")
    place(t["revealed"], "turn.revealed", holdable | quests, "cards drawn at a statue")
    for k in ("boosted", "powered"):
        refs = c.ints(t[k], f"turn.{k}", 0, M - 1)
        for i, x in enumerate(refs):
            if x not in holdable or refs.count(x) > 1:
                raise c.fail(f"turn.{k}[{i}]", f"card {x} is not a holdable card, or is listed twice")
    for i, e in enumerate(c.list(t["effects"], "turn.effects", max_len=100)):
        # an artifact's effects still to resolve after the decision in progress: [op, arg1, arg2]
        e = c.list(e, f"turn.effects[{i}]", 3)
        if not isinstance(e[0], str) or e[0] not in EFFECT_OPS:
            raise c.fail(f"turn.effects[{i}][0]", f"unknown effect {e[0]!r}; allowed: {sorted(EFFECT_OPS)}")
        c.ints(e[1:], f"turn.effects[{i}][1:]", 0, 20)
    for i, q in enumerate(c.ints(t["token_left"], "turn.token_left", 0, M - 1)):
        if q not in quests:
            raise c.fail(f"turn.token_left[{i}]", f"{q} is not a quest card")
    if abbey:
        place(t["abbey_aside"], "turn.abbey_aside", abbey_cards, "Abbey cards")
        reward = c.ints(t["abbey_reward"], "turn.abbey_reward", 0, MAX_COUNT, 3)
        totals["gems"] += reward[0]
        totals["carpets"] += reward[1]
        totals["reshuffles"] += reward[2]
    # ------------------------------------------------------------------ per player, against the board
    setup = d["phase"] in ("SETUP_QUEST", "SETUP_ARTIFACT", "SETUP_PLACE")
    open_ids = {q for q in d["open_quests"] if q >= 0}
    for p, P in enumerate(players):
        pp = f"players[{p}]"
        if not setup and P["position"] < 0:
            raise c.fail(f"{pp}.position", "every adventurer is on the board once setup is over")
        token = P["tokens"]["quest_token"]
        if token >= 0 and token not in open_ids:
            raise c.fail(f"{pp}.tokens.quest_token", f"{token} is not an open quest")
        for q in P["committed"]:
            if int(q) not in set(P["quests"]) | {token}:
                raise c.fail(f"{pp}.committed.{q}", "cards are committed only to the player's own quests or the "
                                                    "open quest under its token")
    check_turn_bounds(c, t, s, seen)
    missing = [i for i in range(M) if i not in seen]
    if missing:
        raise c.fail("box", f"card {missing[0]} ({g.card_name(missing[0])}) is nowhere: every card must be "
                            "in exactly one place")
    supply = g.cs.supply
    for k, total in totals.items():
        if total != supply[k]:
            raise c.fail(f"supply.{k}", f"{k} in play add up to {total}; the card set has {supply[k]}")

    # ------------------------------------------------------------------ chance sources
    rngs = c.list(d["rng"], "rng", NUM_CHANCE_SOURCES)
    for i, st in enumerate(rngs):
        if not (isinstance(st, dict) and st.get("bit_generator") == "PCG64"):
            raise c.fail(f"rng[{i}]", "must be a PCG64 bit_generator.state")
        try:
            np.random.PCG64().state = st
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise c.fail(f"rng[{i}]", f"is not a valid PCG64 state ({exc})") from None
    return s


def check_turn_bounds(c: _Check, t: dict, s, seen: dict) -> None:
    """Q-T2's fields of the turn in progress: `cancels` is a count, and a card of `powered` that
    lies in play (`held_in_play`) is in no other place (it is recorded in `seen` as there)."""
    if c.int(t["cancels"], "turn.cancels", 0, 10 ** 4) and s.opts["turn_loops"] == "allow":
        raise c.fail("turn.cancels", "must be 0 with turn_loops='allow' (no budget is counted)")
    for i, x in enumerate(t["powered"]):
        if held_in_play(s.opts, s.g, x):
            if x in seen:
                raise c.fail(f"turn.powered[{i}]", f"card {x} ({s.g.card_name(x)}) lies in play (Q-T2) "
                                                   f"and is also at {seen[x]}")
            seen[x] = f"turn.powered[{i}]"


def check_decision(s) -> None:
    """The decision in progress is one the state can take: ValueError naming 'phase' otherwise."""
    def fail(problem):
        return ValueError(f"from_dict: key 'phase': {problem} (phase {PHASES[s.phase]} with this 'turn' and "
                          "'current' is not a decision the rules can be in)")

    try:
        legal = s.legal_actions()
    except (IndexError, KeyError, TypeError, ValueError, StopIteration, AttributeError) as exc:
        raise fail(f"its legal actions cannot be computed ({type(exc).__name__}: {exc})") from None
    if s.is_terminal():
        return
    if legal.size == 0:
        raise fail("no legal action")
    for a in legal.tolist():
        c = s.clone()
        try:
            c.apply(a)
            c.legal_actions()
        except (IndexError, KeyError, TypeError, ValueError, StopIteration, AttributeError) as exc:
            raise fail(f"legal action {a} fails ({type(exc).__name__}: {exc})") from None
