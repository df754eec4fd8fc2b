"""The card-reading observation (`view="cards"`, observation version 2): a card is its features.

    from fantastiqa_rl.card_view import card_view, observe_cards
    obs = observe_cards(state, seat)                 # float32 (VIEW_SIZE,), the same for every card file
    v = card_view(card_set)                          # the tables of one card file
    v.encode(flat_obs, mask)                         # (..., FLAT), (..., n) -> (..., VIEW_SIZE): both engines use this

The flat observation (`fantastiqa_rl.observation`, version 1, still the default) indexes its card
and quest blocks by the KIND's position in the loaded card file, so what is learned on it is bound
to that file. This view holds the same information (it is a function of the flat observation, so
it hides exactly what that hides: tests/test_fantastiqa_card_view.py) laid out so that nothing of
its size or meaning depends on the file beyond two documented maxima:

    [ global (GLOBAL_SIZE) | card rows (CARD_ROWS x CARD_FEATURES) | quest rows (QUEST_ROWS x QUEST_FEATURES) ]

- global: every block of the flat observation that names no card or quest kind (phase, turn flags,
  players' counters and positions, the board's regions, statues and creature-space features, the
  open and personal quests' features, supply sizes, the decision's target space, visited regions,
  target reason, the Abbey block), then K / MAX_CARD_KINDS and Q / MAX_QUEST_KINDS: the file's
  number of holdable card kinds and quest kinds.
- card rows: one per holdable kind this seat sees somewhere (an ACTIVE kind), zero rows after them.
  Column 0 is the kind's index k in the file: the pointer from the row to its actions (HAND k =
  30 + k, COMMIT k = 30 + K + k, PICK k = 30 + 2K + k; `fantastiqa_rl.actions`), not a feature to
  read. Then the card's own fields (`CARD_STATIC`: present, type, symbols, vulnerability, strength,
  gem, power, cost, artifact effects from the effect vocabulary, copies), then where this seat sees
  its instances (`CARD_PLACES`, counts / 4: own hand, own deck, own discard, others' discards, own
  and others' committed cards, on the board, the payment being chosen, the decision's target, the
  adventure, doubled, played for power, in play, drawn) and 1 where the seat's mask allows HAND,
  COMMIT or PICK of the kind: each action's candidate features sit in the row it names.
- quest rows, the same way: column 0 the quest kind q (QUEST q = 30 + 3K + q), needs, points,
  region, reward, start quest (`QUEST_STATIC`), then its places (`QUEST_PLACES`: mine, another's,
  completed by me / by others, open in slot 0 / 1, the target, drawn from the Quest Chest, 1 where
  QUEST q is legal).

A kind is active where any of its places is non-zero; every kind a legal action names is active.
Rows come in a fixed order (kinds a legal action names, then the others, each by kind index), so
both engines write the same rows; a policy reads them as a set (tabletop_rl.agents.card_policy),
so neither the order nor the card names matter. A seat that sees more than CARD_ROWS kinds (or
QUEST_ROWS quests) keeps every kind a legal action names and drops the last of the others (the
tests count how often play reaches that: never in the games they play). Action ids are the env's
own and the mask is unchanged; a learner that trains across card files pads the mask to
NUM_ACTIONS_MAX (`tabletop_rl.agents.fantastiqa_batch`), whose ids past the file's table are never legal.

A card file beyond the maxima gets a ValueError naming the limit.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from fantastiqa_rl.actions import HAND, ActionLayout
from fantastiqa_rl.board import NUM_POSITIONS, NUM_SYMBOLS, POWERS
from fantastiqa_rl.cards import EFFECT_OPS, HOLDABLE_TYPES
from fantastiqa_rl.game import get_game
from fantastiqa_rl.observation import MAX_PLAYERS, _encoder, action_mask, observe

VIEW_VERSION = 2
MAX_CARD_KINDS = 128    # a card file may hold at most this many holdable kinds and quest kinds
MAX_QUEST_KINDS = 64
CARD_ROWS = 64          # the view's rows: the kinds this seat sees somewhere (active), at most this many
QUEST_ROWS = 32
#: the padded action table: every card file's ids are a prefix-compatible subset (ActionLayout of the maxima)
NUM_ACTIONS_MAX = ActionLayout(MAX_CARD_KINDS, MAX_QUEST_KINDS, abbey=True).n
PLACE_SCALE = 4.0

_EFFECT_COLUMNS = tuple(EFFECT_OPS) + ("draw_keep_keep",)   # draw_keep has two arguments
CARD_STATIC = (("present", 1), ("type", len(HOLDABLE_TYPES)), ("symbols", NUM_SYMBOLS), ("companion", 1),
               ("vulnerability", NUM_SYMBOLS), ("strength", 1), ("gem", 1), ("power", len(POWERS)),
               ("cost", 1), ("effects", len(_EFFECT_COLUMNS)), ("copies", 1))
CARD_PLACES = ("own_hand", "own_deck", "own_discard", "others_discard", "own_committed", "others_committed",
               "board", "pay", "target", "adventure", "boosted", "powered", "in_play", "drawn",
               "legal_hand", "legal_commit", "legal_pick")   # the last three: the mask's HAND / COMMIT / PICK k

QUEST_STATIC = (("present", 1), ("start_quest", 1), ("needs", NUM_SYMBOLS), ("points", 1),
                ("region", NUM_POSITIONS), ("reward", 3))
QUEST_PLACES = ("mine", "others", "completed_mine", "completed_others", "open0", "open1", "target", "drawn",
                "legal")                                      # the mask's QUEST q
CARD_STATIC_SIZE = sum(n for _, n in CARD_STATIC)
QUEST_STATIC_SIZE = sum(n for _, n in QUEST_STATIC)
CARD_FEATURES = 1 + CARD_STATIC_SIZE + len(CARD_PLACES)     # column 0: the kind's index k (the action pointer)
QUEST_FEATURES = 1 + QUEST_STATIC_SIZE + len(QUEST_PLACES)

# flat blocks of each place (seat-relative: p0 is the observer)
_CARD_PLACE_BLOCKS = {
    "own_hand": ("own_hand",), "own_deck": ("own_deck",), "own_discard": ("p0_discard",),
    "others_discard": tuple(f"p{k}_discard" for k in range(1, MAX_PLAYERS)),
    "own_committed": ("p0_committed",),
    "others_committed": tuple(f"p{k}_committed" for k in range(1, MAX_PLAYERS)),
    "board": ("space_kind",), "pay": ("pay",), "target": ("target_card",), "adventure": ("adventure",),
    "boosted": ("boosted",), "powered": ("powered",), "in_play": ("in_play",), "drawn": ("drawn_cards",),
    "legal_hand": (), "legal_commit": (), "legal_pick": ()}
_QUEST_PLACE_BLOCKS = {
    "mine": ("p0_quests",), "others": tuple(f"p{k}_quests" for k in range(1, MAX_PLAYERS)),
    "completed_mine": ("p0_completed",),
    "completed_others": tuple(f"p{k}_completed" for k in range(1, MAX_PLAYERS)),
    "open0": ("open_quest0_kind",), "open1": ("open_quest1_kind",), "target": ("target_quest",),
    "drawn": ("drawn_quests",), "legal": ()}
_KIND_BLOCKS = {b for bs in _CARD_PLACE_BLOCKS.values() for b in bs}
_QUEST_BLOCKS = {b for bs in _QUEST_PLACE_BLOCKS.values() for b in bs}


def _global_index(layout: dict) -> np.ndarray:
    return np.concatenate([np.arange(sl.start, sl.stop) for name, sl in layout.items()
                           if name not in _KIND_BLOCKS and name not in _QUEST_BLOCKS])


_REFERENCE_GLOBAL = _global_index(_encoder(None).layout)
TABLE_AT = int(_REFERENCE_GLOBAL.size)          # K / MAX_CARD_KINDS, Q / MAX_QUEST_KINDS: the file's table sizes
GLOBAL_SIZE = TABLE_AT + 2
CARDS_AT = GLOBAL_SIZE
QUESTS_AT = CARDS_AT + CARD_ROWS * CARD_FEATURES
VIEW_SIZE = QUESTS_AT + QUEST_ROWS * QUEST_FEATURES


def _offsets(spec) -> dict:
    out, pos = {}, 0
    for name, n in spec:
        out[name] = pos
        pos += n
    return out


CARD_COLUMN = _offsets(CARD_STATIC)
QUEST_COLUMN = _offsets(QUEST_STATIC)


class CardView:
    """The tables of one card file: static rows from the cards' own fields, and where each place's
    counts sit in the flat observation."""

    def __init__(self, card_set):
        g = get_game(card_set, MAX_PLAYERS)
        cs = g.cs
        K, Q = g.layout.K, g.layout.Q
        if K > MAX_CARD_KINDS or Q > MAX_QUEST_KINDS:
            raise ValueError(f"card file {cs.path}: {K} holdable card kinds and {Q} quest kinds; the card view "
                             f"takes at most {MAX_CARD_KINDS} and {MAX_QUEST_KINDS} (fantastiqa_rl.card_view)")
        self.card_set, self.K, self.Q = card_set, K, Q
        self.num_actions = ActionLayout(K, Q, abbey=False).n   # the Abbey's 3 ids follow; `encode` takes either
        self.num_actions_abbey = ActionLayout(K, Q, abbey=True).n
        e = _encoder(card_set)
        self.flat_size = e.size
        self.global_index = _global_index(e.layout)
        assert self.global_index.size == TABLE_AT, "the global blocks do not depend on the card file"
        # (place column, block start, blocks of K) per flat block a place sums, in order: the kernel's tables
        self.card_entries = np.asarray([(j, e.layout[b].start, (e.layout[b].stop - e.layout[b].start) // K)
                                        for j, p in enumerate(CARD_PLACES) for b in _CARD_PLACE_BLOCKS[p]],
                                       dtype=np.int64).reshape(-1, 3)
        self.quest_entries = np.asarray([(j, e.layout[b].start, 1) for j, p in enumerate(QUEST_PLACES)
                                         for b in _QUEST_PLACE_BLOCKS[p]], dtype=np.int64).reshape(-1, 3)
        self.cards = np.zeros((K, CARD_STATIC_SIZE), dtype=np.float32)      # the static part of each row
        self.quests = np.zeros((Q, QUEST_STATIC_SIZE), dtype=np.float32)
        copies = np.bincount([k for k in g.I_HAND_KIND if k >= 0], minlength=K)
        c = CARD_COLUMN
        for k, ki in enumerate(cs.holdable):
            card = cs.kinds[ki]
            row = self.cards[k]
            row[c["present"]] = 1.0
            row[c["type"] + HOLDABLE_TYPES.index(card.type)] = 1.0
            row[c["symbols"]:c["symbols"] + NUM_SYMBOLS] = e.units[k] / 2.0   # symbol units, as the flat view counts them
            row[c["companion"]] = float(len(set(card.symbols)) == 2)
            if card.vulnerability >= 0:
                row[c["vulnerability"] + card.vulnerability] = 1.0
            row[c["strength"]] = card.strength / 4.0
            row[c["gem"]] = float(card.gem)
            row[c["power"] + card.power] = 1.0
            row[c["cost"]] = card.cost / 5.0
            for op, *args in card.effects:
                j = _EFFECT_COLUMNS.index(op)
                row[c["effects"] + j] += args[0] / 3.0 if args else 1.0
                if op == "draw_keep":
                    row[c["effects"] + _EFFECT_COLUMNS.index("draw_keep_keep")] += args[1] / 3.0
            row[c["copies"]] = copies[k] / 8.0
        qc = QUEST_COLUMN
        for q, ki in enumerate(cs.quest_kinds):
            quest = cs.kinds[ki]
            row = self.quests[q]
            row[qc["present"]] = 1.0
            row[qc["start_quest"]] = float(quest.type == "start_quest")
            for s, n in quest.needs:
                row[qc["needs"] + s] = n / 4.0
            row[qc["points"]] = quest.points / 5.0
            row[qc["region"] + quest.region] = 1.0
            row[qc["reward"]:qc["reward"] + 3] = np.asarray(quest.reward, dtype=np.float32) / 3.0

    def encode(self, flat: np.ndarray, mask: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """(..., flat size) float32 and the seat's action mask (..., n) -> (..., VIEW_SIZE) float32."""
        flat = np.asarray(flat, dtype=np.float32)
        if flat.shape[-1] != self.flat_size:
            raise ValueError(f"a flat Fantastiqa observation of this card file has {self.flat_size} values; got "
                             f"{flat.shape[-1]}")
        lead = flat.shape[:-1]
        mask = np.asarray(mask)
        if mask.shape[:-1] != lead or mask.shape[-1] not in (self.num_actions, self.num_actions_abbey):
            raise ValueError(f"the action mask of this card file has shape {lead + (self.num_actions,)} (+3 with the "
                             f"Abbey); got {mask.shape}")
        if out is None:
            out = np.empty(lead + (VIEW_SIZE,), dtype=np.float32)
        flat, mask = np.ascontiguousarray(flat.reshape(-1, self.flat_size)), mask.reshape(-1, mask.shape[-1])
        view = out.reshape(-1, VIEW_SIZE)
        _encode(flat, np.ascontiguousarray(mask != 0), view, self.global_index, self.K, self.Q, self.cards, self.quests,
                self.card_entries, self.quest_entries)
        return out


@njit(cache=True, nogil=True)
def _fill_rows(rows, static, places, legal, scale):
    """Rows (R, 1 + S + P) of the active kinds (any place non-zero): those a legal action names first,
    then the others, each group in kind order; zero rows after them. A seat that sees more than R
    kinds keeps every kind a legal action names and drops the last others (module docstring)."""
    R, S = rows.shape[0], static.shape[1]
    n_kinds, P = places.shape
    rows[:] = 0.0
    r = 0
    for want in (2, 1):
        for k in range(n_kinds):
            if r == R:
                return
            seen = False
            for j in range(P):
                if places[k, j] != 0.0:
                    seen = True
                    break
            if (2 if legal[k] else 1 if seen else 0) != want:
                continue
            rows[r, 0] = k
            for j in range(S):
                rows[r, 1 + j] = static[k, j]
            for j in range(P):
                rows[r, 1 + S + j] = places[k, j] * scale[j]
            r += 1


@njit(cache=True, nogil=True)
def _encode(flat, mask, view, global_index, K, Q, cards, quests, card_entries, quest_entries):
    """The card view of each row of `flat` (B, F) float32 with the seat's mask (B, n) bool, into view (B, VIEW_SIZE)."""
    B = flat.shape[0]
    n_cp, n_qp = len(CARD_PLACES), len(QUEST_PLACES)
    card_scale = np.full(n_cp, 1.0 / PLACE_SCALE, dtype=np.float32)
    card_scale[n_cp - 3:] = 1.0       # the legal flags
    quest_scale = np.ones(n_qp, dtype=np.float32)
    places = np.zeros((K, n_cp), dtype=np.float32)
    qplaces = np.zeros((Q, n_qp), dtype=np.float32)
    legal = np.zeros(K, dtype=np.bool_)
    qlegal = np.zeros(Q, dtype=np.bool_)
    for b in range(B):
        row = flat[b]
        out = view[b]
        for i in range(global_index.size):
            out[i] = row[global_index[i]]
        out[TABLE_AT] = K / MAX_CARD_KINDS
        out[TABLE_AT + 1] = Q / MAX_QUEST_KINDS
        places[:] = 0.0
        for e in range(card_entries.shape[0]):
            j, start, blocks = card_entries[e, 0], card_entries[e, 1], card_entries[e, 2]
            for s in range(blocks):
                for k in range(K):
                    places[k, j] += row[start + s * K + k]
        for k in range(K):
            legal[k] = False
            for t in range(3):
                on = mask[b, HAND + t * K + k]
                places[k, n_cp - 3 + t] = 1.0 if on else 0.0
                legal[k] |= on
        qplaces[:] = 0.0
        for e in range(quest_entries.shape[0]):
            j, start = quest_entries[e, 0], quest_entries[e, 1]
            for q in range(Q):
                qplaces[q, j] += row[start + q]
        for q in range(Q):
            qlegal[q] = mask[b, HAND + 3 * K + q]
            qplaces[q, n_qp - 1] = 1.0 if qlegal[q] else 0.0
        _fill_rows(out[CARDS_AT:QUESTS_AT].reshape(CARD_ROWS, CARD_FEATURES), cards, places, legal, card_scale)
        _fill_rows(out[QUESTS_AT:].reshape(QUEST_ROWS, QUEST_FEATURES), quests, qplaces, qlegal, quest_scale)


@lru_cache(maxsize=64)
def card_view(card_set=None) -> CardView:
    """The (cached) `CardView` of a card file (None: the STAND-IN set)."""
    return CardView(card_set)


def observe_cards(state, seat: int) -> np.ndarray:
    """`seat`'s card-reading observation of `state` (float32 (VIEW_SIZE,)): `card_view(...).encode`
    of `fantastiqa_rl.observe(state, seat)` and the seat's action mask; `observe` checks `seat`."""
    return card_view(state.card_set).encode(observe(state, seat), action_mask(state, seat))


def table_size(obs: np.ndarray) -> int:
    """The number of seats at the table a card view shows (its players' "at the table" flags)."""
    layout = _encoder(None).layout
    where = {int(i): j for j, i in enumerate(_REFERENCE_GLOBAL)}   # flat position -> view position
    return int(sum(round(float(obs[..., where[layout[f"p{k}_flags"].start]])) for k in range(MAX_PLAYERS)))




VIEWS = ("flat", "cards")


def check_view(view) -> None:
    if not isinstance(view, str) or view not in VIEWS:
        raise ValueError(f"Fantastiqa's view must be one of {VIEWS} ('flat': observation version 1, by card kind "
                         f"of the loaded file; 'cards': version 2, a card is its features); got {view!r}")


def observe_view(state, seat: int, view: str = "flat") -> np.ndarray:
    """`seat`'s observation in `view` ("flat": `fantastiqa_rl.observe`; "cards": `observe_cards`): the
    game spec's observe, whose observation option is `view`."""
    check_view(view)
    return observe(state, seat) if view == "flat" else observe_cards(state, seat)


def view_high(card_set=None) -> np.ndarray:
    """Upper bounds of the card view: the flat bounds of the global block; +inf on the rows (lower bounds are 0)."""
    from fantastiqa_rl.observation import observation_high

    high = np.full(VIEW_SIZE, np.inf, dtype=np.float32)
    high[:TABLE_AT] = observation_high(card_set)[card_view(card_set).global_index]
    high[TABLE_AT:GLOBAL_SIZE] = 1.0
    return high


__all__ = ["CARD_FEATURES", "CARD_PLACES", "CARD_ROWS", "CARD_STATIC", "CARDS_AT", "CardView", "QUEST_ROWS", "TABLE_AT", "GLOBAL_SIZE", "MAX_CARD_KINDS",
           "MAX_QUEST_KINDS", "NUM_ACTIONS_MAX", "QUEST_FEATURES", "QUEST_PLACES", "QUEST_STATIC", "QUESTS_AT",
           "VIEW_SIZE", "VIEW_VERSION", "VIEWS", "card_view", "check_view", "observe_cards", "observe_view",
           "table_size", "view_high"]
