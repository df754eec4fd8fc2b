"""The card view written plainly in numpy, one seat at a time: the oracle tests/test_fantastiqa_card_view.py
holds `fantastiqa_rl.card_view`'s kernel to (the module docstring is the specification both follow)."""
import numpy as np

from fantastiqa_rl.card_view import (CARD_PLACES, CARD_ROWS, CARD_STATIC_SIZE, CARDS_AT, GLOBAL_SIZE, MAX_CARD_KINDS,
                                     MAX_QUEST_KINDS, QUEST_PLACES, QUEST_ROWS, QUESTS_AT, TABLE_AT, VIEW_SIZE,
                                     card_view)
from fantastiqa_rl.observation import _encoder, action_mask, observe

# the flat blocks each place sums (seat-relative: p0 is the observer), written out again on purpose
CARD_BLOCKS = {
    "own_hand": ["own_hand"], "own_deck": ["own_deck"], "own_discard": ["p0_discard"],
    "others_discard": ["p1_discard", "p2_discard", "p3_discard"], "own_committed": ["p0_committed"],
    "others_committed": ["p1_committed", "p2_committed", "p3_committed"], "board": ["space_kind"], "pay": ["pay"],
    "target": ["target_card"], "adventure": ["adventure"], "boosted": ["boosted"], "powered": ["powered"],
    "in_play": ["in_play"], "drawn": ["drawn_cards"]}
QUEST_BLOCKS = {
    "mine": ["p0_quests"], "others": ["p1_quests", "p2_quests", "p3_quests"], "completed_mine": ["p0_completed"],
    "completed_others": ["p1_completed", "p2_completed", "p3_completed"], "open0": ["open_quest0_kind"],
    "open1": ["open_quest1_kind"], "target": ["target_quest"], "drawn": ["drawn_quests"]}


def reference_cards(state, seat) -> np.ndarray:
    v = card_view(state.card_set)
    layout = _encoder(state.card_set).layout
    flat = observe(state, seat)
    mask = action_mask(state, seat) != 0
    K, Q = v.K, v.Q
    out = np.zeros(VIEW_SIZE, dtype=np.float32)
    kind_blocks = {b for bs in CARD_BLOCKS.values() for b in bs} | {b for bs in QUEST_BLOCKS.values() for b in bs}
    g = [i for name, sl in layout.items() if name not in kind_blocks for i in range(sl.start, sl.stop)]
    out[:TABLE_AT] = flat[g]
    out[TABLE_AT:GLOBAL_SIZE] = K / MAX_CARD_KINDS, Q / MAX_QUEST_KINDS
    card_rows = []
    for k in range(K):
        places = []
        for p in CARD_PLACES[:-3]:
            total = 0.0
            for b in CARD_BLOCKS[p]:
                block = flat[layout[b]]
                total += block.reshape(-1, K)[:, k].sum()
            places.append(total / 4.0)
        legal = [float(mask[30 + t * K + k]) for t in range(3)]
        row = [float(k)] + list(v.cards[k]) + places + legal
        rank = 2 if any(legal) else 1 if any(x != 0 for x in places + legal) else 0
        card_rows.append((-rank, k, row))
    quest_rows = []
    for q in range(Q):
        places = [sum(float(flat[layout[b]][q]) for b in QUEST_BLOCKS[p]) for p in QUEST_PLACES[:-1]]
        legal = float(mask[30 + 3 * K + q])
        row = [float(q)] + list(v.quests[q]) + places + [legal]
        rank = 2 if legal else 1 if any(x != 0 for x in places) else 0
        quest_rows.append((-rank, q, row))
    for at, rows, limit in ((CARDS_AT, card_rows, CARD_ROWS), (QUESTS_AT, quest_rows, QUEST_ROWS)):
        kept = [r for r in sorted(rows, key=lambda t: (t[0], t[1])) if r[0] < 0][:limit]
        width = len(rows[0][2])
        for j, (_, _, row) in enumerate(kept):
            out[at + j * width:at + (j + 1) * width] = row
    assert CARD_STATIC_SIZE == len(v.cards[0])
    return out
