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
- what play reaches (`check_reachable`, on the built state): scores follow from the completed
  quests and bonus tokens, setup seats match `current`, the turn's card lists are held only in
  the decisions that fill them and each decision has what it reads (the creature it pays, the
  quest it completes, the deck its cards come from), every quest the player holds or marks has
  its committed pile, doubled cards are the mover's, and a finished game's winners and end
  reason are the ones the rules give (Q-E1..Q-E5), an unfinished one has no winner yet;
- chance sources: exactly numpy's PCG64 state keys and int ranges;
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
from fantastiqa_rl.board import BAZAAR, CHEST, NEIGHBOURS, NUM_POSITIONS, TOWER
from fantastiqa_rl.cards import EFFECT_OPS
from fantastiqa_rl.chance import NUM_CHANCE_SOURCES
from fantastiqa_rl.options import DEFAULTS
from fantastiqa_rl.powers import R_DRAGON, held_in_play
from fantastiqa_rl.turn_flow import rules as turn_flow
from tabletop_rl.shown import shown

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
        return ValueError(f"from_dict: key {shown(path)}: {problem}")

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
            raise self.fail(path, f"must be an int; got {shown(v)} ({type(v).__name__})")
        if not lo <= v <= hi:
            raise self.fail(path, f"must be in {lo}..{hi}; got {v}")
        return v

    def bool(self, v, path: str) -> bool:
        if not isinstance(v, bool):
            raise self.fail(path, f"must be true or false; got {shown(v)}")
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
        raise c.fail("version", f"must be {VERSION}; got {shown(d['version'])}")
    for key in ("num_players", "options", "goal", "card_set"):
        if key not in d:
            raise c.fail(key, "missing")
    n = c.int(d["num_players"], "num_players", 2, 4)
    c.keys(d["options"], "options", tuple(DEFAULTS))  # to_dict writes every option; none is filled in
    if d["goal"] not in ("short", "long"):
        raise c.fail("goal", f"must be 'short' or 'long'; got {shown(d['goal'])}")
    if d["card_set"] is not None and not isinstance(d["card_set"], str):
        raise c.fail("card_set", f"must be null or a path; got {shown(d['card_set'])}")
    try:
        s = new_state(num_players=n, seed=0, goal=d["goal"], card_set=d["card_set"], **d["options"])
    except (TypeError, ValueError) as exc:
        raise c.fail("options", f"rejected: {exc}") from None
    if s.card_set != d["card_set"]:
        raise c.fail("card_set", f"must be an absolute path (as to_dict writes it); got {shown(d['card_set'])}")
    abbey = s.opts["abbey"]
    c.keys(d, "", BASE_KEYS + (ABBEY_KEYS if abbey else ()))
    g = s.g
    M = g.num_instances
    players = c.list(d["players"], "players", n)  # before the cards: num_players decides the instances

    # ------------------------------------------------------------------ scalars and board
    if d["phase"] not in PHASES or (not abbey and d["phase"] in A.ABBEY_PHASES):
        raise c.fail("phase", f"must be a decision name of this game; got {shown(d['phase'])}")
    terminal = d["phase"] == "TERMINAL"
    c.int(d["current"], "current", 0, n - 1)
    c.int(d["turns"], "turns")
    if terminal:
        winners = c.ints(d["winners"], "winners", 0, n - 1) if d["winners"] is not None else None
        if not winners or len(set(winners)) != len(winners):
            raise c.fail("winners", f"must list distinct seats once the game is over; got {shown(d['winners'])}")
        if not isinstance(d["end_reason"], str) or not d["end_reason"]:
            raise c.fail("end_reason", "must say why the game ended")
    else:
        if d["winners"] is not None:
            raise c.fail("winners", f"must be null before the end (phase {d['phase']}); got {shown(d['winners'])}")
        if d["end_reason"] != "":
            raise c.fail("end_reason", f"must be empty before the end; got {shown(d['end_reason'])}")
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
        raise c.fail("turn.ret", f"must be a decision name; got {shown(t['ret'])}")
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
            raise c.fail(f"turn.effects[{i}][0]", f"unknown effect {shown(e[0])}; allowed: {sorted(EFFECT_OPS)}")
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
        check_pcg64_state(c, st, f"rng[{i}]")
        try:
            np.random.PCG64().state = st
        except (TypeError, ValueError, KeyError, OverflowError) as exc:
            raise c.fail(f"rng[{i}]", f"is not a valid PCG64 state ({exc})") from None
    return s


def check_pcg64_state(c: _Check, st: dict, path: str) -> None:
    """Exactly the keys and int ranges numpy writes (numpy itself casts 1.5 or -1 silently)."""
    c.keys(st, path, ("bit_generator", "state", "has_uint32", "uinteger"))
    c.keys(st["state"], f"{path}.state", ("state", "inc"))
    for k in ("state", "inc"):
        c.int(st["state"][k], f"{path}.state.{k}", 0, (1 << 128) - 1)
    c.int(st["has_uint32"], f"{path}.has_uint32", 0, 1)
    c.int(st["uinteger"], f"{path}.uinteger", 0, (1 << 32) - 1)


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


# ---------------------------------------------------------------------------------------------
# What play reaches (issue 24). Each check states a property every reachable state has, read from
# the rules and the transitions that implement them; `state_from_dict` runs them on the built
# state, before `check_decision`. Kept apart from the structural checks above.

# The turn's lists each belong to the decisions that fill them; any other phase with them
# non-empty is a hand-edited phase (e.g. MAIN while an adventure holds paid cards: they would
# be lost).
TURN_LISTS_BY_PHASE = {
    "adventure": ("ADV_MOVE", "ADV_PAY", "MOVE_DEST"),          # Q-A4: discarded when it ends
    "pay": ("ADV_PAY", "QUEST_PAY", "RELEASE"),                 # cards chosen, not yet paid
    "release_from_discard": ("RELEASE",),                       # Q-V2
    "in_play": ("TARGET_SEAT",),                                # a card given when the seat is named
    "revealed": ("BELL", "BUY", "CHEST"),                       # drawn at a statue / by the Bell
    "effects": ("GLASS", "TARGET_SEAT", "BELL", "BREW_CARD", "WARDROBE"),  # an artifact's later effects
}
ABBEY_LISTS_PHASES = ("ABBEY_MATCH", "ABBEY_CHOICE")           # abbey_aside / abbey_reward (Q-B3, Q-B4)
KEY_PHASES = ("STATUE_OPTION", "BUY", "CHEST", "RELEASE")       # a KEY opens a statue visit
# decisions taken before the turn action is spent (it is spent as the adventure, quest or
# exploration ends)
ACTION_OPEN_PHASES = ("SETUP_QUEST", "SETUP_ARTIFACT", "SETUP_PLACE", "ADV_MOVE", "ADV_PAY", "QUEST_PAY",
                      "WITHDRAW_FROM", "ABBEY_MATCH", "ABBEY_CHOICE")
SETUP_PHASES = ("SETUP_QUEST", "SETUP_ARTIFACT", "SETUP_PLACE")
SCORE_ENDS = ("creature deck empty", "turn_limit")              # Q-E2..Q-E4, Q-E5


def _fail(path: str, problem: str) -> ValueError:
    return _Check.fail(path, problem)


def check_reachable(s) -> None:
    """Every property below holds in each state play reaches; ValueError naming the key otherwise."""
    check_scores(s)
    phase = PHASES[s.phase]
    if phase in SETUP_PHASES:
        check_setup_seats(s, phase)
    check_turn_lists(s, phase)
    check_phase_inputs(s, phase)
    check_committed(s)
    check_boosted(s)
    check_outcome(s)


def check_scores(s) -> None:
    """Q-Q3: a score is the points of the completed quests plus one per bonus token won."""
    g = s.g
    for p in range(s.n):
        expected = sum(g.Q_POINTS[g.I_QUEST_KIND[q]] for q in s.completed[p]) + s.bonus_tokens[p]
        if s.scores[p] != expected:
            raise _fail(f"players[{p}].scores", f"is {s.scores[p]}; its completed quests and bonus tokens "
                                                f"give {expected} (Q-Q3)")


def check_setup_seats(s, phase: str) -> None:
    """Q-S4: the setup runs from the last seat down to seat 0, one quest, one artifact and a
    region each; so seats after `current` are done, seats before it have not started."""
    for p in range(s.n):
        if p > s.cur or (p == s.cur and phase != "SETUP_QUEST"):
            quests = 1
        else:
            quests = 0
        placed = p > s.cur
        if len(s.quests[p]) != quests or (s.position[p] >= 0) != placed:
            raise _fail("current", f"seat {p} has {len(s.quests[p])} quests and position {s.position[p]}, "
                                   f"but with seat {s.cur} choosing ({phase}) it would have {quests} quest(s) "
                                   f"and {'a' if placed else 'no'} region (Q-S4)")
    if s.turns:
        raise _fail("turns", f"must be 0 during the setup; got {s.turns}")


def check_turn_lists(s, phase: str) -> None:
    """The turn's card lists are non-empty only in the decisions that fill them."""
    for field, phases in TURN_LISTS_BY_PHASE.items():
        if getattr(s, field) and phase not in phases:
            raise _fail("phase", f"{phase} with turn.{field} non-empty ({getattr(s, field)}); only "
                                 f"{'/'.join(phases)} hold it")
    if s.opts["abbey"] and (s.abbey_aside or any(s.abbey_reward)) and phase not in ABBEY_LISTS_PHASES:
        raise _fail("phase", f"{phase} with Abbey cards or rewards set aside; only an exploration holds them")
    if s.key and phase not in KEY_PHASES:
        raise _fail("turn.key", f"a KEY is open only during a statue visit; phase {phase}")
    if s.action_used and phase in ACTION_OPEN_PHASES:
        raise _fail("turn.action_used", f"the turn action is spent only once {phase} is over")


def check_phase_inputs(s, phase: str) -> None:
    """What each decision reads, as the transition that opens it leaves it (a hand-set phase
    without them loaded, then crashed when the decision resolved: StopIteration, AssertionError)."""
    p, g = s.cur, s.g
    pos = s.position[p] if p < s.n else -1
    if phase in ("ADV_MOVE", "ADV_PAY") and (pos < 0 or not s.visited >> pos & 1):
        raise _fail("turn.visited", f"an adventure has visited the mover's region {pos}; got {s.visited:#b}")
    if phase == "ADV_PAY":
        spaces = [c for c, _ in NEIGHBOURS[pos]]
        if s.target not in spaces or s.board[s.target] < 0:
            raise _fail("turn.target", f"ADV_PAY pays a creature next to region {pos} (spaces {spaces}); "
                                       f"got space {s.target}")
    if phase == "QUEST_PAY":
        here = s.region_at[pos]
        quests = set(s.quests[p]) | {q for q in s.open_quests if q >= 0}
        if s.target not in quests or g.Q_REGION[g.I_QUEST_KIND[s.target]] != here:
            raise _fail("turn.target", f"QUEST_PAY completes a personal or open quest of the mover's region; "
                                       f"got {s.target}")
    if phase in ("COMMIT_TARGET", "WITHDRAW_FROM"):
        cards = s.hand[p] if phase == "COMMIT_TARGET" else [i for c in s.committed[p].values() for i in c]
        if not any(g.I_HAND_KIND[i] == s.target for i in cards):
            raise _fail("turn.target", f"{phase} moves a card kind the mover "
                                       f"{'holds' if phase == 'COMMIT_TARGET' else 'has committed'}; got {s.target}")
    if phase == "MOVE_DEST" and PHASES[s.ret] not in ("MAIN", "ADV_MOVE"):
        raise _fail("turn.ret", f"a move returns to MAIN or ADV_MOVE; got {PHASES[s.ret]}")
    if phase == "BELL" and (not s.revealed or s.count < 1):
        raise _fail("turn.count", f"BELL keeps count >= 1 of the revealed cards; got {s.count} of {len(s.revealed)}")
    if phase in ("BUY", "CHEST", "BELL"):          # Q-V1: the statue's deck; the Bell: the mover's deck
        st = s.statue_at[pos]
        source = {"BELL": {i for i in range(g.num_instances) if g.I_HAND_KIND[i] >= 0},
                  "CHEST": set(g.quests) if st == CHEST else set(),
                  "BUY": set(g.artifacts if st == TOWER else g.beasts if st == BAZAAR else ())}[phase]
        if not set(s.revealed) <= source:
            raise _fail("turn.revealed", f"{phase} at a {('tower', 'bazaar', 'chest')[st]} statue shows cards of "
                                         "another deck")
    if phase == "ABBEY_CHOICE" and not s.abbey_aside:
        raise _fail("turn.abbey_aside", "ABBEY_CHOICE follows a matched Abbey card, set aside")
    if phase == "TARGET_SEAT":
        if s.reason == R_DRAGON and not s.dragons:
            raise _fail("turn.reason", "DRAGON gives a Peaceful Dragon from the supply, which is empty")
        if s.reason != R_DRAGON and not s.in_play:
            raise _fail("turn.in_play", "the card to give is in play")
    if phase == "WARDROBE" and s.target >= 0 and (s.target >= len(s.board) or s.board[s.target] < 0):
        raise _fail("turn.target", f"WARDROBE swaps creatures on the board; got space {s.target}")


def check_committed(s) -> None:
    """Q-F2: each personal quest and the open quest under the player's token has its (possibly
    empty) pile of committed cards, and nothing else has one (a quest taken opens its pile, a
    quest completed or left closes it; the rules look the pile up)."""
    for p in range(s.n):
        expected = set(s.quests[p]) | ({s.quest_token[p]} if s.quest_token[p] >= 0 else set())
        if set(s.committed[p]) != expected:
            raise _fail(f"players[{p}].committed", f"has piles for quests {sorted(s.committed[p])}; the player's "
                                                   f"quests and token quest are {sorted(expected)} (Q-F2)")


def check_boosted(s) -> None:
    """A doubled card (Looking Glass and the doubling artifacts) was in the mover's hand when it was
    doubled (`_apply_glass`); what the turn may have done with it since is where it may be now:
    still in hand, being paid or committed, on the adventure, discarded (used, Q-T1, or matched at
    the Abbey, Q-B3) or, after a mid-turn reshuffle (Q-F4, Q-X1), in the mover's deck, and from
    there drawn by a Bell of Summoning (`turn.revealed` while the BELL decision keeps some); played for
    its power and lying in play (`turn.powered`, Q-T2); released at a statue (Q-V2: chosen from the
    hand, `turn.pay`, or from the discard, `turn.release_from_discard`, then the box); or
    given by a Bitter Brew (in play while its TARGET_SEAT is pending, then in an opponent's discard
    pile). Anywhere else (another seat's hand or deck, a partner's discard, a deck of the game) no
    play puts it."""
    if not s.boosted:
        return
    p = s.cur
    own = set(s.hand[p]) | set(s.discard[p]) | set(s.deck[p]) | set(s.pay) | set(s.adventure)
    own |= {i for cards in s.committed[p].values() for i in cards}
    own |= {i for i in s.powered if held_in_play(s.opts, s.g, i)} | set(s.in_play) | set(s.release_from_discard)
    own |= set(s.box) | (set(s.revealed) if s.phase == A.BELL else set())
    own |= {i for o in range(s.n) if s.is_opponent(p, o) for i in s.discard[o]}
    if PHASES[s.phase] in SETUP_PHASES:
        raise _fail("turn.boosted", "no card is doubled during the setup")
    for j, i in enumerate(s.boosted):
        if i not in own:
            raise _fail(f"turn.boosted[{j}]", f"card {i} ({s.card_name(i)}) is not where a card the mover (seat "
                                              f"{p}) doubled this turn can be: its hand, deck, discard, payment, "
                                              "adventure or committed cards, drawn by a Bell, in play, released "
                                              "(the box), or given to an opponent's discard")


def check_outcome(s) -> None:
    """Q-E1: a side that meets the goal wins at once; so an unfinished game has no such side, and a
    game ended on the goal was won by the mover's side. Q-E2..Q-E5: a game ended on score has the
    winners the final scores and tie-breaks give, and its end condition holds."""
    limit = s.opts["turn_limit"]
    if s.phase != A.TERMINAL:
        for p in range(s.n):
            if turn_flow.goal_reached(s, p):
                raise _fail(f"players[{p}].scores", f"seat {p}'s side meets the goal, so the game would be over "
                                                    "(Q-E1)")
        if limit is not None and s.turns >= limit * s.n:
            raise _fail("turns", f"{s.turns} turns reach the turn limit ({limit} per player); the game would be "
                                 "over (Q-E5)")
        return
    reason, winners = s.end_reason, sorted(s.winners_)
    if reason == "goal":
        expected = sorted(s.team(s.cur))
        if not turn_flow.goal_reached(s, s.cur):
            raise _fail("end_reason", f"'goal', but seat {s.cur}'s side does not meet the goal")
    elif reason in SCORE_ENDS:
        if reason == "turn_limit" and (limit is None or s.turns != limit * s.n):
            raise _fail("end_reason", f"'turn_limit', but {s.turns} turns are not the limit of {limit} per player")
        if reason == "creature deck empty" and (s.creature_deck or -1 not in s.board):
            raise _fail("end_reason", "'creature deck empty', but the deck can still fill the board (Q-R2)")
        scored = s.clone()
        turn_flow.end_by_score(scored, reason)      # the one implementation of Q-E2..Q-E4
        expected = sorted(scored.winners_)
    else:
        raise _fail("end_reason", f"must be one of {['goal', *SCORE_ENDS]}; got {shown(reason)}")
    if winners != expected:
        raise _fail("winners", f"are {winners}; the rules give {expected} ({reason})")
