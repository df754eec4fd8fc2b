"""The declared state of `FantastiqaState`: every instance field, once, with how `clone` copies it,
the rule topic that owns it, its key in the state dict and what it means (issue 38 item 2; as
OpenSpiel's State or pgx's dataclass declare theirs).

`FantastiqaState` is one object (no mixin) whose rules are plain functions of the state: the
dispatch (`rules`) and the topic folders' (`statues.rules`, `powers.rules`, `turn_flow.rules`,
`abbey.rules`, `quests.rules`, `setup.rules`, `adventure.rules`, `free_actions.rules`), with the
shared `queries` and `payment`; they
set these fields, and only these: `FIELDS` is the list a
reader consults, and the code is driven by it. `FantastiqaState.clone` copies by `kind` (the
per-kind name tuples below, built once at import); `tests/test_fantastiqa_declared_state.py` plays
random games (2-4 seats, teams, the Abbey, a generated card file, clones and state-dict round trips)
and fails on any field set but not declared, or declared but never set, and checks that
`to_dict()`'s keys are exactly the declared `key`s.

To add a field: add one `Field` here (its kind decides how `clone` copies it; `SHARED` only for a
value no rule changes in place), set it where its owner's rules start (`turn_flow.rules.setup`, or
`reset_turn` for a per-turn field), and write it in `fantastiqa_rl.serialization` (to_dict and
from_dict) and `fantastiqa_rl.validation` under the declared key, or leave `key` empty and say in
`meaning` why it is not in the dict (derived, or a cache).

Kinds (how `clone` copies a field; the original keeps its own objects):
    shared       the object itself: an int, bool, str, tuple or None, or a container no rule
                 mutates (the card tables `g`, the options dict, the cached legal actions)
    list         a flat list: `x[:]`
    per_seat     one list per seat: `[y[:] for y in x]`
    per_seat_map one dict {quest: committed cards} per seat: the dicts and their lists copied
    opt_list     None or a list: copied when a list
    generators   the chance sources' Generators, shared copy on write (`FantastiqaState._rng`)
    own_flags    which Generators this state owns: False for every source in both the clone and
                 the original after a clone, so the first draw of either copies that Generator
"""
from __future__ import annotations

from typing import NamedTuple

SHARED, LIST, PER_SEAT, PER_SEAT_MAP, OPT_LIST, GENERATORS, OWN_FLAGS = (
    "shared", "list", "per_seat", "per_seat_map", "opt_list", "generators", "own_flags")
KINDS = (SHARED, LIST, PER_SEAT, PER_SEAT_MAP, OPT_LIST, GENERATORS, OWN_FLAGS)

# owner -> where its rules are (module: functions) and the rule ids
OWNERS = {
    "game": "state.py: FantastiqaState.new; the card tables, options and goal, fixed for the game (Q-S1)",
    "chance": "state.py: new, _rng; chance.py: the chance sources (one Generator each)",
    "setup": "turn_flow/rules.py: setup, finish_setup; setup/rules.py (kernels: setup/kernels.py): the SETUP_* decisions (Q-S1..Q-S6)",
    "replenish": "turn_flow/rules.py (kernels: turn_flow/kernels.py): replenish (Q-R1..Q-R4), the board and open quests filled each turn",
    "supply": "state.py: _take; the general supply's counters and the box (Q-X1)",
    "seats": "state.py: _draw (Q-X1); turn_flow/rules.py: end_turn (Q-T1); every decision moves and pays with the seats' cards and gems",
    "adventure": "adventure/rules.py (kernels: adventure/kernels.py): ADVENTURE, ADV_MOVE, ADV_PAY, MOVE_DEST (Q-A1..Q-A4, Q-M1)",
    "statues": "statues/rules.py (kernels: statues/kernels.py): STATUE_OPTION, BUY, CHEST, RELEASE (Q-V1..Q-V3)",
    "quests": "quests/rules.py (kernels: quests/kernels.py): QUEST, QUEST_PAY, completing a quest (Q-Q1..Q-Q3); free_actions/rules.py: MARK, commits (Q-F2)",
    "free actions": "free_actions/rules.py (kernels: free_actions/kernels.py): FREE_MENU, MARK, commits, carpets and reshuffles (Q-F2..Q-F4)",
    "powers": "powers/rules.py (kernels: powers/kernels.py): PLAY, artifact effects, GLASS, BELL, BREW_CARD, WARDROBE, TARGET_SEAT (Q-F1)",
    "turn": "rules.py: the decision dispatch (APPLY by phase); turn_flow/rules.py: reset_turn (Q-T1, Q-T2)",
    "end of game": "turn_flow/rules.py (kernels: turn_flow/kernels.py): end_turn, finish_turn (turns), end_by_score, end, goal_reached (Q-E1..Q-E5, Q-TM2)",
    "abbey": "abbey/rules.py (no kernels: the scalar core plays it): EXPLORE, ABBEY_MATCH, ABBEY_CHOICE (Q-B1..Q-B5)",
    "engine": "state.py: legal_actions, apply; a cache, not part of the position",
}


class Field(NamedTuple):
    name: str       # the attribute of FantastiqaState
    kind: str       # how clone copies it (KINDS)
    owner: str      # the rule topic that writes it (OWNERS)
    key: str        # its place in to_dict() ("players[].x": seat p's x; "" : not in the dict)
    meaning: str    # one line, with the rule id


F = Field
FIELDS: tuple[Field, ...] = (
    # --------------------------------------------------------------- game (fixed after new)
    F("g", SHARED, "game", "", "static per-game card instance tables (fantastiqa_rl.game.Game); from card_set, "
      "num_players and options.abbey"),
    F("n", SHARED, "game", "num_players", "number of seats, 2..4"),
    F("opts", SHARED, "game", "options", "the rule options (fantastiqa_rl.options.RULE_OPTIONS), never changed"),
    F("card_set", SHARED, "game", "card_set", "card file path, or None for the STAND-IN set"),
    F("goal", SHARED, "game", "", "quest points to win (Q-S1; Q-TM2: the 2-player goal); from goal_name"),
    F("goal_lines", SHARED, "game", "", "(points, Abbey cards) pairs, any one wins (Q-E1, Q-B5); from goal_name"),
    F("goal_name", SHARED, "game", "goal", "the goal's length, 'short' or 'long' (Q-S1)"),
    # --------------------------------------------------------------- chance
    F("_rngs", GENERATORS, "chance", "rng", "one numpy Generator per chance source (fantastiqa_rl.chance)"),
    F("_own", OWN_FLAGS, "chance", "", "per source: this state owns its Generator (else copy before drawing)"),
    # --------------------------------------------------------------- setup
    F("region_at", SHARED, "setup", "region_at", "tuple: region at each board position (Q-S2, dealt)"),
    F("statue_at", SHARED, "setup", "statue_at", "tuple: statue kind at each position (Q-S2, two of each)"),
    F("name_pos", SHARED, "setup", "", "tuple: position of each region, the inverse of region_at (derived)"),
    F("offer_quests", LIST, "setup", "setup_offer.quests", "starting quests still on offer (Q-S4, Q-S5)"),
    F("offer_artifacts", LIST, "setup", "setup_offer.artifacts", "starting artifacts still on offer (Q-S4)"),
    # --------------------------------------------------------------- replenish (board, decks)
    F("board", LIST, "replenish", "board", "creature on each of the 7 spaces, -1 empty (Q-R1, Q-R3)"),
    F("board_gems", LIST, "replenish", "board_gems", "gems lying on each space's creature (Q-R1)"),
    F("creature_deck", LIST, "replenish", "creature_deck", "creature deck, top card last (Q-S2, Q-R1, Q-R2)"),
    F("open_quests", LIST, "replenish", "open_quests", "the 2 open quests, -1 empty (Q-S5, Q-R4)"),
    F("open_bonus", LIST, "replenish", "open_bonus", "+1 bonus tokens on the open quests (Q-R4, Q-Q3)"),
    F("quest_deck", LIST, "replenish", "quest_deck", "Quest Chest deck, top last (Q-R4; drawn at a CHEST, Q-V1)"),
    # --------------------------------------------------------------- supply
    F("supply_gems", SHARED, "supply", "supply.gems", "gems in the general supply (Q-S3, Q-X1)"),
    F("supply_carpets", SHARED, "supply", "supply.carpets", "flying-carpet tokens in the supply (Q-F3, Q-X1)"),
    F("supply_reshuffles", SHARED, "supply", "supply.reshuffles", "reshuffle tokens in the supply (Q-F4, Q-X1)"),
    F("supply_bonus_tokens", SHARED, "supply", "supply.bonus_tokens", "+1 bonus tokens in the supply (Q-R4)"),
    F("dragons", LIST, "supply", "supply.dragons", "DRAGON cards left to give (the DRAGON power, Q-F1)"),
    F("box", LIST, "supply", "box", "cards out of the game: unused, released (Q-V2), Abbey cards without abbey"),
    # --------------------------------------------------------------- the seats' cards and tokens
    F("deck", PER_SEAT, "seats", "players[].deck", "each seat's draw deck, top last (Q-S6, Q-X1)"),
    F("hand", PER_SEAT, "seats", "players[].hand", "each seat's hand (Q-S6, Q-T1)"),
    F("discard", PER_SEAT, "seats", "players[].discard", "each seat's discard pile (Q-A4, Q-T1)"),
    F("gems", LIST, "seats", "players[].gems", "each seat's gems (Q-S3; spent at statues, Q-V1..Q-V3)"),
    F("position", LIST, "adventure", "players[].position", "each seat's board position, -1 before setup (Q-S4, Q-A1)"),
    F("carpets", LIST, "free actions", "players[].tokens.carpets", "each seat's flying-carpet tokens (Q-F3)"),
    F("reshuffles", LIST, "free actions", "players[].tokens.reshuffles", "each seat's reshuffle tokens (Q-F4)"),
    # --------------------------------------------------------------- quests
    F("quests", PER_SEAT, "quests", "players[].quests", "each seat's personal quests not completed (Q-S4, Q-V1)"),
    F("completed", PER_SEAT, "quests", "players[].completed", "each seat's completed quests (Q-Q3, Q-E4)"),
    F("committed", PER_SEAT_MAP, "quests", "players[].committed", "each seat's cards committed, by quest (Q-F2)"),
    F("scores", LIST, "quests", "players[].scores", "each seat's quest points (Q-Q3, Q-E1)"),
    F("bonus_tokens", LIST, "quests", "players[].bonus_tokens", "each seat's +1 bonus tokens (Q-Q3)"),
    F("quest_token", LIST, "quests", "players[].tokens.quest_token", "open quest under each seat's token, -1 none "
      "(Q-F2 MARK)"),
    F("token_left", LIST, "quests", "turn.token_left", "open quests the mover's token left this turn "
      "(Q-F2, mark_return='forbid')"),
    # --------------------------------------------------------------- artifacts (the Tower) and beasts (the Bazaar)
    F("artifact_deck", LIST, "statues", "artifact_deck", "Artifact Tower deck, top last (Q-V1)"),
    F("beast_deck", LIST, "statues", "beast_deck", "Beast Bazaar deck, top last (Q-V1)"),
    # --------------------------------------------------------------- the turn's decision in progress
    F("phase", SHARED, "turn", "phase", "the decision in progress (fantastiqa_rl.actions.PHASES index)"),
    F("cur", SHARED, "turn", "current", "the seat to decide (after the game: the last mover)"),
    F("ret", SHARED, "turn", "turn.ret", "phase a MOVE_DEST returns to (MAIN or ADV_MOVE)"),
    F("action_used", SHARED, "turn", "turn.action_used", "the turn action (A, B or C) is taken (Q-T1)"),
    F("count", SHARED, "turn", "turn.count", "per decision: subdues this adventure (Q-A3), picks left (BELL), "
      "quests taken at a CHEST (Q-V1)"),
    F("target", SHARED, "turn", "turn.target", "per decision: space being paid (ADV_PAY), quest (QUEST_PAY), card "
      "kind (COMMIT_TARGET, WITHDRAW_FROM), first space (WARDROBE); -1 none"),
    F("pay", LIST, "turn", "turn.pay", "cards chosen to pay (ADV_PAY, QUEST_PAY) or to release from hand (Q-V2)"),
    F("cancels", SHARED, "turn", "turn.cancels", "CANCELs taken this turn (Q-T2's budget, turn_loops='forbid')"),
    F("turns", SHARED, "end of game", "turns", "completed turns (Q-E5's turn limit)"),
    # --------------------------------------------------------------- adventure
    F("visited", SHARED, "adventure", "turn.visited", "bit mask of the positions this adventure visited (Q-A3)"),
    F("prev", SHARED, "adventure", "turn.prev", "position the adventure came from, -1 none (Q-A3, no backtracking)"),
    F("adventure", LIST, "adventure", "turn.adventure", "creatures subdued this adventure and the cards spent on "
      "them, to the discard at its end (Q-A4)"),
    # --------------------------------------------------------------- statues
    F("plus_statue", SHARED, "statues", "turn.plus_statue", "extra cards on the next statue draw (PLUS_STATUE, Q-V1)"),
    F("key", SHARED, "statues", "turn.key", "the statue option in progress was opened by a KEY (Q-F1, Q-V2)"),
    F("revealed", LIST, "statues", "turn.revealed", "cards drawn at a statue (Q-V1) or by a draw_keep effect (BELL)"),
    F("release_from_discard", LIST, "statues", "turn.release_from_discard", "discard cards chosen to release (Q-V2)"),
    # --------------------------------------------------------------- powers
    F("boosted", LIST, "powers", "turn.boosted", "hand cards doubled by a Looking Glass this turn (Q-A2, Q-F1)"),
    F("powered", LIST, "powers", "turn.powered", "cards played for their power this turn, in play till its end "
      "(Q-F1, Q-T2)"),
    F("effects", LIST, "powers", "turn.effects", "artifact effects (op, x, y) queued, resolved in order (Q-F1)"),
    F("in_play", LIST, "powers", "turn.in_play", "card given by the pending TARGET_SEAT (Peaceful Dragon, "
      "Bitter Brew; Q-F1, Q-TM3)"),
    F("reason", SHARED, "powers", "turn.reason", "why TARGET_SEAT is asked: R_DRAGON, R_PEACEFUL or R_BREW (Q-F1)"),
    # --------------------------------------------------------------- Abbey
    F("abbey_deck", LIST, "abbey", "abbey_deck", "Abbey deck, top (face up) last; empty without abbey (Q-B1)"),
    F("abbey_returned", LIST, "abbey", "abbey_returned", "Abbey cards returned face up, reshuffled when the deck "
      "runs out (Q-B4)"),
    F("abbey_aside", LIST, "abbey", "turn.abbey_aside", "Abbey cards set aside in the exploration in progress "
      "(Q-B3, Q-B4)"),
    F("abbey_reward", LIST, "abbey", "turn.abbey_reward", "[gems, carpets, reshuffles] set aside with them (Q-B4)"),
    F("abbey", PER_SEAT, "abbey", "players[].abbey", "each seat's Abbey cards kept (Q-B4, Q-B5's 7-card cap)"),
    # --------------------------------------------------------------- end of game
    F("winners_", OPT_LIST, "end of game", "winners", "winning seats once terminal, else None (Q-E1..Q-E4, Q-TM2)"),
    F("end_reason", SHARED, "end of game", "end_reason", "why the game ended ('' while it runs; Q-E1, Q-E2, Q-E5)"),
    # --------------------------------------------------------------- engine
    F("_legal", SHARED, "engine", "", "cached (legal actions array, frozenset) or None; cleared by every change"),
)
del F

FIELD_BY_NAME = {f.name: f for f in FIELDS}
NAMES = frozenset(FIELD_BY_NAME)


def names_of(kind: str) -> tuple[str, ...]:
    """The declared fields of one kind, in declaration order."""
    return tuple(f.name for f in FIELDS if f.kind == kind)


def _check() -> None:
    if len(FIELD_BY_NAME) != len(FIELDS):
        raise AssertionError("a field is declared twice")
    for f in FIELDS:
        if f.kind not in KINDS or f.owner not in OWNERS or not f.meaning.strip():
            raise AssertionError(f"field {f.name}: bad kind {f.kind!r} or owner {f.owner!r}, or no meaning")


_check()
