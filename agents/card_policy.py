"""`CardPolicyWeights`: the card-reading Fantastiqa policy in numpy (plays any card file).

    from tabletop_rl.agents.card_policy import CardPolicyWeights
    w = CardPolicyWeights.load("policy.npz")          # or PolicyWeights.load: it dispatches on the file's meta
    logits = w.logits(obs)                            # obs: fantastiqa_rl.card_view observations (VIEW_SIZE,)

It reads the card view (`fantastiqa_rl.card_view`: a global block, one feature row per card kind,
one per quest kind) and scores every action of the decision from what the action names:

    hc_r = relu(row_r W0 + b0) * present_r            one shared encoder for every card row (its features)
    hq_s = relu(qrow_s W1 + b1) * present_s           and one for every quest row
    c    = tanh(tanh([global, sum_k hc_k / 16, sum_q hq_q / 8] W2 + b2) W3 + b3)     the context
    fixed actions (DONE ... SEAT, the Abbey's 3):  c W4 + b4
    card action of type t (HAND, COMMIT, PICK) on the kind of row r:  (hc_r W5 + b5) . (c W6 + b6)[t] / sqrt(E)
    QUEST on the kind of quest row s:               (hq_s W7 + b7) . (c W8 + b8) / sqrt(E)

(a pointer: each card's key against one query per action type; the queries are E wide). With the
greedy block (options view=cards, action_features=greedy: the observation is the card view, then
NUM_ACTIONS_MAX values, 1 on the greedy bot's move), a tenth layer `greedy` (W 1 x 1) adds
W[0, 0] x the block to the logits: the policy starts as greedy play on any card file (the greedy
bot reads every card file) and learns where to deviate.
The view's rows are the kinds the seat sees (`fantastiqa_rl.card_view`), every kind a legal
action names among them; the zero rows add nothing (both policies skip the places no game of a
batch fills).
Its parameters do not depend on the number of card or quest kinds, and the ids a row's actions
have in the env's table (HAND k = 30 + k, COMMIT k = 30 + K + k, ...) come from the row's kind
column and the K and Q the observation shows. Logits cover NUM_ACTIONS_MAX ids; the env's own mask, padded
with zeros past its table, selects the legal ones. The value head (training only) is not kept.

Saved in the `PolicyWeights` file format (arrays W0, b0, ... W8, b8 and a JSON header whose meta
says `"architecture": "card_sets"`), read with the same checks (`tabletop_rl.agents.policy_file`: no
pickle, sizes bounded); `PolicyWeights.load` returns this class for such a file.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np

from fantastiqa_rl.card_view import (CARD_FEATURES, CARD_ROWS, CARDS_AT, GLOBAL_SIZE, MAX_CARD_KINDS,
                                     MAX_QUEST_KINDS, NUM_ACTIONS_MAX, QUEST_FEATURES, QUEST_ROWS, QUESTS_AT, TABLE_AT,
                                     VIEW_SIZE)

ARCHITECTURE = "card_sets"
NUM_FIXED = 30            # action ids below the card ranges (fantastiqa_rl.actions.HAND)
NUM_ABBEY = 3
LAYER_NAMES = ("card", "quest", "context1", "context2", "fixed", "card_key", "card_query", "quest_key", "quest_query")
CARD_POOL, QUEST_POOL = 16.0, 8.0


def layer_shapes(card_hidden: int, quest_hidden: int, hidden: int, entity: int) -> list[tuple[int, int]]:
    """The (in, out) of each layer of LAYER_NAMES."""
    return [(CARD_FEATURES - 1, card_hidden), (QUEST_FEATURES - 1, quest_hidden),   # column 0 (the kind) is a pointer
            (GLOBAL_SIZE + card_hidden + quest_hidden, hidden), (hidden, hidden), (hidden, NUM_FIXED + NUM_ABBEY),
            (card_hidden, entity), (hidden, 3 * entity), (quest_hidden, entity), (hidden, entity)]


def action_targets(K: np.ndarray, Q: np.ndarray, card_rows: np.ndarray, quest_rows: np.ndarray,
                   card_on: np.ndarray, quest_on: np.ndarray) -> np.ndarray:
    """int64 (B, 3 * R + S + NUM_ABBEY): the action id of each scored entity action (HAND, COMMIT, PICK of
    card row card_rows[b, r], QUEST of quest row quest_rows[b, s], the Abbey's 3) in tables of K card and
    Q quest kinds; NUM_ACTIONS_MAX (a column that is dropped) where the row is off (`card_on`, `quest_on`)."""
    K = np.asarray(K, dtype=np.int64)[:, None]
    Q = np.asarray(Q, dtype=np.int64)[:, None]
    cards = [np.where(card_on, NUM_FIXED + t * K + card_rows, NUM_ACTIONS_MAX) for t in range(3)]
    quests = np.where(quest_on, NUM_FIXED + 3 * K + quest_rows, NUM_ACTIONS_MAX)
    abbey = NUM_FIXED + 3 * K + Q + np.arange(NUM_ABBEY)[None, :]
    return np.concatenate(cards + [quests, abbey], axis=1)


def _relu(x):
    return np.maximum(x, 0.0)


def _filled(rows: np.ndarray) -> np.ndarray:
    """The (B, M, F) rows at the places some game of the batch fills (a step fills ~20 of the 64 card
    rows): the others add nothing, in any order of the rows."""
    used = np.flatnonzero((rows[:, :, 1] != 0).any(axis=0))
    return rows[:, used] if used.size < rows.shape[1] else rows


@dataclass
class CardPolicyWeights:
    """The numpy policy head (module docstring); `weights` holds LAYER_NAMES' (W (in, out), b (out,)) in order."""

    weights: list
    meta: dict = field(default_factory=dict)
    activation: str = "relu"   # the file format's field; the layers' activations are fixed (module docstring)
    skip: list = field(default_factory=list)  # none: kept for the PolicyWeights interface

    def __post_init__(self):
        if len(self.weights) not in (len(LAYER_NAMES), len(LAYER_NAMES) + 1):
            raise ValueError(f"a card-sets policy has {len(LAYER_NAMES)} layers ({', '.join(LAYER_NAMES)}), and a "
                             f"'greedy' layer with the greedy block; got {len(self.weights)}")
        self.weights = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in self.weights]
        ch, qh, h, e = (self.weights[0][0].shape[1], self.weights[1][0].shape[1], self.weights[3][0].shape[1],
                        self.weights[5][0].shape[1])
        self.greedy = len(self.weights) > len(LAYER_NAMES)
        for name, (w, b), shape in zip(LAYER_NAMES + ("greedy",), self.weights,
                                       layer_shapes(ch, qh, h, e) + [(1, 1)]):
            if w.ndim != 2 or b.ndim != 1 or w.shape != shape or b.shape != (shape[1],):
                raise ValueError(f"card-sets layer {name!r}: expected W {shape} and b ({shape[1]},); got W "
                                 f"{w.shape} and b {b.shape}")
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"card-sets layer {name!r} holds NaN or infinite values")
        if self.skip:
            raise ValueError("a card-sets policy has no skip terms")
        self.meta = dict(self.meta)
        self.meta["architecture"] = ARCHITECTURE

    @property
    def obs_size(self) -> int:
        return VIEW_SIZE + (NUM_ACTIONS_MAX if self.greedy else 0)

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS_MAX

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits (NUM_ACTIONS_MAX,) for one card view, or (B, NUM_ACTIONS_MAX) for a batch;
        ids past a card file's table hold values no mask lets through."""
        x = np.asarray(obs, dtype=np.float32)
        single = x.ndim == 1
        x = x.reshape(-1, self.obs_size)
        B = x.shape[0]
        (w0, b0), (w1, b1), (w2, b2), (w3, b3), (w4, b4), (w5, b5), (w6, b6), (w7, b7), (w8, b8) = \
            self.weights[:len(LAYER_NAMES)]
        cards = _filled(x[:, CARDS_AT:QUESTS_AT].reshape(B, CARD_ROWS, CARD_FEATURES))
        quests = _filled(x[:, QUESTS_AT:VIEW_SIZE].reshape(B, QUEST_ROWS, QUEST_FEATURES))
        ac, aq = cards[:, :, 1] != 0, quests[:, :, 1] != 0              # present: a row holds a kind
        # an absent row's scores go to the dropped column (action_targets): only the pools mask them
        hc = _relu(cards[:, :, 1:] @ w0 + b0)
        hq = _relu(quests[:, :, 1:] @ w1 + b1)
        pool_c = np.matmul(ac[:, None, :].astype(np.float32), hc)[:, 0]
        pool_q = np.matmul(aq[:, None, :].astype(np.float32), hq)[:, 0]
        z = np.concatenate([x[:, :GLOBAL_SIZE], pool_c / CARD_POOL, pool_q / QUEST_POOL], axis=1)
        c = np.tanh(np.tanh(z @ w2 + b2) @ w3 + b3)
        fixed = c @ w4 + b4
        E = w5.shape[1]
        scale = np.float32(1.0 / np.sqrt(E))
        # (h W5 + b5) . query = h . (W5 query) + b5 . query: the queries taken to the rows' width once
        query = (c @ w6 + b6).reshape(B, 3, E) * scale
        card = np.matmul(query @ w5.T, hc.transpose(0, 2, 1)) + (query @ b5)[:, :, None]   # (B, 3, KM)
        qq = (c @ w8 + b8) * scale
        quest = np.matmul(hq, (qq @ w7.T)[:, :, None])[:, :, 0] + (qq @ b7)[:, None]        # (B, QM)
        values = np.concatenate([card.reshape(B, -1), quest, fixed[:, NUM_FIXED:]], axis=1)
        targets = action_targets(np.rint(x[:, TABLE_AT] * MAX_CARD_KINDS), np.rint(x[:, TABLE_AT + 1] * MAX_QUEST_KINDS),
                                 np.rint(cards[:, :, 0]).astype(np.int64), np.rint(quests[:, :, 0]).astype(np.int64),
                                 ac, aq)
        out = np.zeros((B, NUM_ACTIONS_MAX + 1), dtype=np.float32)
        out[:, :NUM_FIXED] = fixed[:, :NUM_FIXED]
        np.put_along_axis(out, targets, values.astype(np.float32), axis=1)
        out = out[:, :NUM_ACTIONS_MAX]
        if self.greedy:   # the greedy block, through its learned scale
            out = out + self.weights[-1][0][0, 0] * x[:, VIEW_SIZE:VIEW_SIZE + NUM_ACTIONS_MAX]
        return out[0] if single else out

    # ------------------------------------------------------------------ files and dicts (PolicyWeights' formats)
    def save(self, path, dtype=np.float32) -> None:
        arrays = {}
        for i, (w, b) in enumerate(self.weights):
            arrays[f"W{i}"], arrays[f"b{i}"] = w.astype(dtype), b.astype(dtype)
        header = {"activation": self.activation, "layers": len(self.weights), "meta": self.meta, "skip": []}
        tmp = f"{path}.tmp"
        with open(tmp, "wb") as f:
            np.savez_compressed(f, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8), **arrays)
        os.replace(tmp, path)

    def to_dict(self) -> dict:
        return {"activation": self.activation, "meta": self.meta,
                "weights": [[w.tolist(), b.tolist()] for w, b in self.weights], "skip": []}


def is_card_policy(meta) -> bool:
    """Whether a policy file's or dict's meta names this architecture."""
    return isinstance(meta, dict) and meta.get("architecture") == ARCHITECTURE


__all__ = ["ARCHITECTURE", "CardPolicyWeights", "LAYER_NAMES", "action_targets", "is_card_policy", "layer_shapes"]
