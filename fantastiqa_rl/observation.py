"""Per-seat observation vector and action mask for Fantastiqa (the encoder layer; no PettingZoo).

The observation is a 1-D float32 vector; `observation_layout(card_set)` names its slices (the sizes
depend on the card file: K card kinds and Q quest kinds, 110 and 45 for the STAND-IN set, 3,786
features in all). It holds only what the seat may know (Q-I1):

- its OWN hand and the COMPOSITION of its own draw deck (never its order);
- per player, in seat-relative order (own seat first, then the next seats in turn order, padded
  to 4 seats): present, to move, position, gems, carpets, reshuffle tokens, score, bonus tokens,
  hand / deck / discard sizes, quest token (which open quest it marks), discard composition,
  committed cards (summed over its quests), personal quests and completed quests (multi-hot);
- the board: region name and statue of each position, per creature space the creature (kind
  one-hot and its features: vulnerability, strength, symbols, power, gem on it, adjacent to the
  observer), the open quests (kind one-hot and features, bonus token), supply and deck sizes;
- the decision in progress: phase, the cards chosen for the payment so far, the target (space,
  quest or card kind), the creatures and cards of the adventure so far, visited regions, the
  Looking-Glass-doubled and power-played cards, the card being given, and the statue / Bell cards
  drawn, which only the DRAWER sees (it is the seat to move while they are out).

Never another player's hand, any deck's order, or another player's deck composition. Payment
cards are laid on the table one by one and are public (ASSUMED, as in the physical game).
Counts are raw (a card kind's Box high is its number of instances); gems, tokens and scores are
scaled (gems / 10, tokens / 3, scores / 10, sizes / 10, turns per player / 300 clipped at 1).
"""
from __future__ import annotations

from array import array
from functools import lru_cache

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import NUM_POSITIONS, NUM_SPACES, NUM_SYMBOLS, SPACES
from fantastiqa_rl.abbey_view import ABBEY_FEATURES_SIZE, abbey_features
from fantastiqa_rl.game import get_game

MAX_PLAYERS = 4
NUM_PHASES = len(PHASES)
MAX_PERSONAL_QUESTS = 3
GEM_SCALE, TOKEN_SCALE, SCORE_SCALE, SIZE_SCALE, SYMBOL_SCALE = 10.0, 3.0, 10.0, 10.0, 4.0
TURN_CLIP = 300.0


def _blocks(K: int, Q: int, maxima: dict) -> list:
    """(name, size, high) in order. `maxima` holds the card-set-dependent bounds."""
    kh = maxima["kind_high"]          # per card kind: number of instances (4-player game)
    gem_h, tok_h, score_h, size_h = maxima["gems"], maxima["tokens"], maxima["score"], maxima["size"]
    sym_h = maxima["symbols"]
    out = [
        ("phase", NUM_PHASES, 1.0),
        ("turn_flags", 4, [1.0, 1.0, maxima["plus"], maxima["count"]]),  # action_used, key, plus/3, count/3
        ("turns", 1, 1.0),
        ("own_hand", K, kh),
        ("own_deck", K, kh),
        ("own_hand_symbols", NUM_SYMBOLS, sym_h),
    ]
    for j in range(MAX_PERSONAL_QUESTS):
        out += [(f"own_quest{j}", 1 + NUM_SYMBOLS + NUM_POSITIONS + 1 + NUM_SYMBOLS,
                 [1.0] + [maxima["need"]] * NUM_SYMBOLS + [1.0] * NUM_POSITIONS + [maxima["points"]]
                 + [sym_h] * NUM_SYMBOLS)]
    for k in range(MAX_PLAYERS):
        out += [
            (f"p{k}_flags", 2, 1.0),                    # at the table, to move
            (f"p{k}_position", NUM_POSITIONS, 1.0),
            (f"p{k}_counters", 9, [gem_h, tok_h, tok_h, score_h, maxima["bonus"], size_h, size_h, size_h,
                                   maxima["completed"]]),
            (f"p{k}_token", 2, 1.0),                     # which open quest its token marks
            (f"p{k}_discard", K, kh),
            (f"p{k}_committed", K, kh),
            (f"p{k}_quests", Q, 1.0),
            (f"p{k}_completed", Q, 1.0),
        ]
    out += [
        ("region_at", NUM_POSITIONS * NUM_POSITIONS, 1.0),    # [position, region name] one-hot
        ("statue_at", NUM_POSITIONS * 3, 1.0),                # [position, statue] one-hot
        ("space_features", NUM_SPACES * 30, maxima["space"]),  # per space, see _SPACE_FEATURES
        ("space_kind", NUM_SPACES * K, 1.0),                  # [space, card kind] one-hot
    ]
    for j in range(2):
        out += [(f"open_quest{j}", 4 + NUM_SYMBOLS + NUM_POSITIONS + 1 + NUM_SYMBOLS,  # present, bonus, my token, my token left it
                 [1.0, 1.0, 1.0, 1.0] + [maxima["need"]] * NUM_SYMBOLS + [1.0] * NUM_POSITIONS
                 + [maxima["points"]] + [sym_h] * NUM_SYMBOLS),
                (f"open_quest{j}_kind", Q, 1.0)]
    out += [
        ("supply", 9, maxima["supply"]),  # gems, carpets, reshuffles, bonus, dragons; creature/artifact/beast/quest deck sizes
        ("pay", K, kh),                    # cards chosen so far (payment, or release from hand/discard)
        ("target_space", NUM_SPACES, 1.0),
        ("target_quest", Q, 1.0),
        ("target_card", K, 1.0),
        ("adventure", K, kh),
        ("visited", NUM_POSITIONS, 1.0),
        ("boosted", K, kh),
        ("powered", K, kh),
        ("in_play", K, kh),
        ("target_reason", 3, 1.0),
        ("drawn_cards", K, kh),            # statue / Bell cards drawn: the drawer only
        ("drawn_quests", Q, 1.0),          # Quest Chest cards drawn: the drawer only
    ]
    out.append(("abbey", ABBEY_FEATURES_SIZE, 1.0))  # Abbey and team features (abbey_view.py); zeros when both are off
    return out


# Per creature space: occupied, gem on it, adjacent to the observer, vulnerability one-hot (9),
# strength / 4, symbols it gives (9, units / 2), power one-hot (8).
_SPACE_FEATURES = 30


class _Encoder:
    """Static tables and offsets for one card set and player count (the layout and bounds come
    from the 4-player game, so they do not depend on the player count; instance tables do)."""

    def __init__(self, card_set, num_players):
        g4 = get_game(card_set, MAX_PLAYERS)
        g = get_game(card_set, num_players)
        self.g4 = g4
        K, Q = g4.layout.K, g4.layout.Q
        self.K, self.Q = K, Q
        self.n_actions = g4.layout.n
        kind_high = np.bincount([k for k in g4.I_HAND_KIND if k >= 0], minlength=K).astype(np.float32)
        kind_high = np.maximum(kind_high, 1.0)
        cs = g4.cs
        total_points = sum(g4.Q_POINTS[g4.I_QUEST_KIND[q]] for q in g4.quests + g4.start_quests)
        n_hold = sum(1 for k in g4.I_HAND_KIND if k >= 0)
        max_need = max(c for needs in g4.Q_NEEDS for _, c in needs)
        space_h = np.ones(_SPACE_FEATURES, dtype=np.float32)
        space_h[12] = max(1.0, max(g4.K_STRENGTH) / 4.0)
        space_h[13:22] = 2.0 / 2.0
        maxima = {
            "kind_high": kind_high,
            "gems": (cs.supply["gems"] + 0.0) / GEM_SCALE,
            "tokens": max(cs.supply["carpets"], cs.supply["reshuffles"]) / TOKEN_SCALE,
            "score": (total_points + cs.supply["bonus_tokens"]) / SCORE_SCALE,
            "bonus": cs.supply["bonus_tokens"] / TOKEN_SCALE,
            "size": n_hold / SIZE_SCALE,
            "completed": len(g4.quests + g4.start_quests) / SIZE_SCALE,
            "symbols": 4.0 * n_hold / SYMBOL_SCALE,
            "need": max_need / SYMBOL_SCALE,
            "points": max(g4.Q_POINTS) / 5.0,
            "plus": n_hold / 3.0,
            "count": n_hold / 3.0,
            "space": np.tile(space_h, NUM_SPACES),
            "supply": np.asarray([cs.supply["gems"] / GEM_SCALE, cs.supply["carpets"] / TOKEN_SCALE,
                                  cs.supply["reshuffles"] / TOKEN_SCALE, cs.supply["bonus_tokens"] / TOKEN_SCALE,
                                  # the dragon supply is largest with 2 players (16 - N with a `total`)
                                  max(1, len(get_game(card_set, 2).dragon_supply)) / TOKEN_SCALE]
                                 + [g4.num_instances / SIZE_SCALE] * 4, dtype=np.float32),
        }
        blocks = _blocks(K, Q, maxima)
        self.layout, highs, pos = {}, [], 0
        for name, size, high in blocks:
            self.layout[name] = slice(pos, pos + size)
            highs.append(np.broadcast_to(np.asarray(high, dtype=np.float32), (size,)))
            pos += size
        self.size = pos
        self.high = np.concatenate(highs).astype(np.float32)
        self.off = {name: sl.start for name, sl in self.layout.items()}
        self.HK = np.asarray(g.I_HAND_KIND + (-1,), dtype=np.int64)   # instance ids depend on the player count
        self.QK = np.asarray(g.I_QUEST_KIND + (-1,), dtype=np.int64)
        # Per holdable kind: symbol units (companions count for both symbols).
        units = np.zeros((K, NUM_SYMBOLS), dtype=np.float32)
        for k, prof in enumerate(g4.K_PROFILE):
            if prof is not None:
                a, b, m = prof
                units[k, a] += m
                if b != a:
                    units[k, b] += m
        self.units = units
        # Per holdable kind: the creature-space features (vulnerability, strength, symbols, power).
        feat = np.zeros((K, _SPACE_FEATURES), dtype=np.float32)
        for k in range(K):
            feat[k, 0] = 1.0
            if g4.K_VULN[k] >= 0:
                feat[k, 3 + g4.K_VULN[k]] = 1.0
            feat[k, 12] = g4.K_STRENGTH[k] / 4.0
            feat[k, 13:22] = units[k] / 2.0
            feat[k, 22 + g4.K_POWER[k]] = 1.0
        self.space_feat = feat
        # Per quest kind: needs (9, / 4), points / 5, region name.
        qneed = np.zeros((Q, NUM_SYMBOLS), dtype=np.float32)
        for q, needs in enumerate(g4.Q_NEEDS):
            for s, c in needs:
                qneed[q, s] = c / SYMBOL_SCALE
        self.qneed = qneed
        self.qpoints = np.asarray(g4.Q_POINTS, dtype=np.float32) / 5.0
        self.qregion = g4.Q_REGION
        # Python-level tables for the hot path.
        self.HK_T, self.QK_T = tuple(int(x) for x in self.HK), tuple(int(x) for x in self.QK)
        self.units_nz = tuple(tuple((j, float(units[k, j])) for j in np.flatnonzero(units[k]))
                              for k in range(K))
        self.feat_ones = tuple(tuple(int(j) for j in np.flatnonzero(feat[k] == 1.0)) for k in range(K))
        self.feat_vals = tuple(tuple((int(j), float(feat[k, j])) for j in np.flatnonzero((feat[k] != 0) & (feat[k] != 1.0)))
                               for k in range(K))
        self.qneed_nz = tuple(tuple((int(j), float(qneed[q, j])) for j in np.flatnonzero(qneed[q])) for q in range(Q))
        self.qpoints_t = tuple(float(x) for x in self.qpoints)
        self.poff = [{name: self.off[f"p{k}_{name}"] for name in
                      ("flags", "position", "counters", "token", "discard", "committed", "quests", "completed")}
                     for k in range(MAX_PLAYERS)]
        # Positions adjacent through each space: ADJ[pos] = spaces touching pos.
        self.adj = [[c for c, (a, b) in enumerate(SPACES) if pos in (a, b)] for pos in range(NUM_POSITIONS)]
        # Absolute positions, so the hot path extends lists with C-level maps instead of loops:
        # pos[block][instance] = offset of the block + the instance's card (or quest) kind.
        HK_T, QK_T = self.HK_T, self.QK_T
        card_blocks = ["own_hand", "own_deck", "pay", "adventure", "boosted", "powered", "in_play", "drawn_cards"]
        card_blocks += [f"p{k}_{b}" for k in range(MAX_PLAYERS) for b in ("discard", "committed")]
        quest_blocks = ["drawn_quests"] + [f"p{k}_{b}" for k in range(MAX_PLAYERS) for b in ("quests", "completed")]
        self.pos = {b: tuple(self.off[b] + k for k in HK_T) for b in card_blocks}
        self.pos.update({b: tuple(self.off[b] + q for q in QK_T) for b in quest_blocks})
        self.player_pos = tuple(tuple(self.pos[f"p{k}_{b}"].__getitem__ for b in ("discard", "committed", "quests", "completed"))
                                for k in range(MAX_PLAYERS))
        # Symbol units (hand symbols, committed symbols) are counted like cards, one position per
        # unit, then scaled by 1 / SYMBOL_SCALE in one multiply by `unit_scale`.
        b = self.off["own_hand_symbols"]
        self.hand_sym = tuple(tuple(b + j for j, v in self.units_nz[k] for _ in range(int(v))) if k >= 0 else ()
                              for k in HK_T)
        self.unit_sym = tuple(tuple(j for j, v in self.units_nz[k] for _ in range(int(v))) if k >= 0 else ()
                              for k in HK_T)
        assert all(float(v).is_integer() for row in self.units_nz for _, v in row), "symbol units are whole"
        self.unit_scale = np.ones(self.size, dtype=np.float32)
        self.unit_scale[self.layout["own_hand_symbols"]] = 1.0 / SYMBOL_SCALE
        committed_at = NUM_SYMBOLS + NUM_POSITIONS + 1   # within a quest-features block
        for name, start in [(f"own_quest{j}", 1) for j in range(MAX_PERSONAL_QUESTS)] + [(f"open_quest{j}", 4) for j in range(2)]:
            c = self.off[name] + start + committed_at
            self.unit_scale[c:c + NUM_SYMBOLS] = 1.0 / SYMBOL_SCALE
        # Per (space, holdable kind): every unit feature position, and the scaled features.
        sf, sk = self.off["space_features"], self.off["space_kind"]
        self.space_ones = tuple(tuple(tuple(sf + c * _SPACE_FEATURES + j for j in self.feat_ones[k]) + (sk + c * K + k,)
                                      for k in range(K)) for c in range(NUM_SPACES))
        self.space_vals = tuple(tuple((tuple(sf + c * _SPACE_FEATURES + j for j, _ in self.feat_vals[k]),
                                       tuple(v for _, v in self.feat_vals[k])) for k in range(K)) for c in range(NUM_SPACES))
        self._deal_ones: dict = {}   # (region_at, statue_at) -> their one-hot positions (fixed per game)

    def deal_ones(self, region_at, statue_at) -> tuple:
        key = (region_at, statue_at)
        out = self._deal_ones.get(key)
        if out is None:
            b, c = self.off["region_at"], self.off["statue_at"]
            out = tuple(b + 6 * r + x for r, x in enumerate(region_at)) + tuple(c + 3 * r + x for r, x in enumerate(statue_at))
            if len(self._deal_ones) > 4096:
                self._deal_ones.clear()
            self._deal_ones[key] = out
        return out

    def counts(self, cards) -> np.ndarray:
        """Card-kind counts of a list of instance ids (length K)."""
        if not cards:
            return None
        return np.bincount(self.HK[cards], minlength=self.K)


@lru_cache(maxsize=64)
def _encoder(card_set, num_players: int = MAX_PLAYERS) -> _Encoder:
    return _Encoder(card_set, num_players)


_BY_GAME: dict = {}


def _enc_for(state) -> _Encoder:
    e = _BY_GAME.get(id(state.g))
    if e is None or e[0] is not state.g:
        e = _BY_GAME[id(state.g)] = (state.g, _encoder(state.card_set, state.n))
    return e[1]


def observation_layout(card_set: str | None = None) -> dict:
    """Name -> slice of each block of the observation vector (see the module docstring)."""
    return dict(_encoder(card_set).layout)


def observation_size(card_set: str | None = None) -> int:
    return _encoder(card_set).size


def observation_high(card_set: str | None = None) -> np.ndarray:
    """Upper bounds of the observation (lower bounds are 0)."""
    return _encoder(card_set).high.copy()


def num_actions(card_set: str | None = None) -> int:
    return _encoder(card_set).n_actions


def _quest_features(e: _Encoder, ones: list, idx: list, val: list, base: int, state, q_inst: int,
                    committed) -> int:
    """Needs (9), position one-hot (6), points (1), committed symbol units (9) from `base`."""
    qk = e.QK_T[q_inst]
    for j, v in e.qneed_nz[qk]:
        idx.append(base + j)
        val.append(v)
    ones.append(base + NUM_SYMBOLS + state.name_pos[e.qregion[qk]])
    idx.append(base + NUM_SYMBOLS + NUM_POSITIONS)
    val.append(e.qpoints_t[qk])
    if committed:   # symbol units, scaled by e.unit_scale
        b = base + NUM_SYMBOLS + NUM_POSITIONS + 1
        unit_sym = e.unit_sym
        for i in committed:
            ones += [b + j for j in unit_sym[i]]
    return qk


def observe(state, seat: int) -> np.ndarray:
    """The observation vector of `seat` (float32, shape `(observation_size(card_set),)`).

    Built as one `bincount` over the positions of every unit feature (card counts, one-hots,
    multi-hots) plus one scatter-add of the scaled values: fast in CPython."""
    n = state.n
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be in 0..{n - 1}; got {seat!r}")
    seat = int(seat)
    e = _enc_for(state)
    off, HK = e.off, e.HK_T
    ones: list = []     # positions that get +1 (repeats add up: card counts, symbol units)
    idx: list = []      # positions set to val: each at most once, never one of `ones`
    val: list = []
    phase, cur = state.phase, state.cur
    terminal = phase == A.TERMINAL
    ones.append(off["phase"] + phase)
    b = off["turn_flags"]
    idx += (b, b + 1, b + 2, b + 3, off["turns"])
    val += (float(state.action_used), float(state.key), state.plus_statue / 3.0,
            state.count / 3.0 if state.count > 0 else 0.0, min(state.turns / n, TURN_CLIP) / TURN_CLIP)
    # Own private knowledge: hand and deck composition.
    hand = state.hand[seat]
    at = e.pos
    ones += map(at["own_hand"].__getitem__, hand)
    ones += map(at["own_deck"].__getitem__, state.deck[seat])
    hand_sym = e.hand_sym
    for i in hand:
        ones += hand_sym[i]
    committed_me = state.committed[seat]
    for j, q in enumerate(state.quests[seat][:MAX_PERSONAL_QUESTS]):
        base = off[f"own_quest{j}"]
        ones.append(base)
        _quest_features(e, ones, idx, val, base + 1, state, q, committed_me.get(q))
    # Every player's public state, seat-relative.
    open_q = state.open_quests
    for k in range(n):
        p = (seat + k) % n
        o = e.poff[k]
        ones.append(o["flags"])
        if p == cur and not terminal:
            ones.append(o["flags"] + 1)
        pos = state.position[p]
        if pos >= 0:
            ones.append(o["position"] + pos)
        b = o["counters"]
        idx += (b, b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8)
        val += (state.gems[p] / GEM_SCALE, state.carpets[p] / TOKEN_SCALE,
                state.reshuffles[p] / TOKEN_SCALE, state.scores[p] / SCORE_SCALE,
                state.bonus_tokens[p] / TOKEN_SCALE, len(state.hand[p]) / SIZE_SCALE,
                len(state.deck[p]) / SIZE_SCALE, len(state.discard[p]) / SIZE_SCALE,
                len(state.completed[p]) / SIZE_SCALE)
        tok = state.quest_token[p]
        if tok >= 0:
            for j in (0, 1):
                if open_q[j] == tok:
                    ones.append(o["token"] + j)
        discard_at, committed_at, quests_at, completed_at = e.player_pos[k]
        ones += map(discard_at, state.discard[p])
        for cards in state.committed[p].values():
            ones += map(committed_at, cards)
        ones += map(quests_at, state.quests[p])
        ones += map(completed_at, state.completed[p])
    # Board.
    ones += e.deal_ones(state.region_at, state.statue_at)
    my_pos = state.position[seat]
    adjacent = e.adj[my_pos] if my_pos >= 0 else ()
    sf = off["space_features"]
    board, board_gems = state.board, state.board_gems
    space_ones, space_vals = e.space_ones, e.space_vals
    for c in range(NUM_SPACES):
        i = board[c]
        if i < 0:
            continue
        kk = HK[i]
        ones += space_ones[c][kk]
        ix, vs = space_vals[c][kk]
        idx += ix
        val += vs
        if board_gems[c] > 0:
            ones.append(sf + c * _SPACE_FEATURES + 1)
        if c in adjacent:
            ones.append(sf + c * _SPACE_FEATURES + 2)
    my_tok = state.quest_token[seat]
    for j in (0, 1):
        q = open_q[j]
        if q < 0:
            continue
        base = off[f"open_quest{j}"]
        ones.append(base)
        if state.open_bonus[j] > 0:
            ones.append(base + 1)
        if my_tok == q:
            ones.append(base + 2)
        if seat == cur and q in state.token_left:     # mark_return="forbid": MARK back is not offered
            ones.append(base + 3)
        qk = _quest_features(e, ones, idx, val, base + 4, state, q, committed_me.get(q) if my_tok == q else None)
        ones.append(off[f"open_quest{j}_kind"] + qk)
    b = off["supply"]
    idx += range(b, b + 9)
    val += (state.supply_gems / GEM_SCALE, state.supply_carpets / TOKEN_SCALE,
            state.supply_reshuffles / TOKEN_SCALE, state.supply_bonus_tokens / TOKEN_SCALE,
            len(state.dragons) / TOKEN_SCALE, len(state.creature_deck) / SIZE_SCALE,
            len(state.artifact_deck) / SIZE_SCALE, len(state.beast_deck) / SIZE_SCALE, len(state.quest_deck) / SIZE_SCALE)
    # The decision in progress.
    if not terminal:
        for name, cards in (("pay", state.pay), ("pay", getattr(state, "release_from_discard", ())),
                            ("adventure", state.adventure), ("boosted", state.boosted),
                            ("powered", state.powered), ("in_play", state.in_play)):
            if cards:
                ones += map(at[name].__getitem__, cards)
        t = state.target
        if t >= 0:
            if phase in (A.ADV_PAY, A.WARDROBE):
                ones.append(off["target_space"] + t)
            elif phase == A.QUEST_PAY:
                ones.append(off["target_quest"] + e.QK_T[t])
            elif phase in (A.COMMIT_TARGET, A.WITHDRAW_FROM):
                ones.append(off["target_card"] + t)
        if phase in (A.ADV_MOVE, A.ADV_PAY, A.MOVE_DEST):
            v = state.visited
            b = off["visited"]
            ones += [b + r for r in range(NUM_POSITIONS) if (v >> r) & 1]
        if phase == A.TARGET_SEAT:
            ones.append(off["target_reason"] + state.reason)
        if seat == cur and state.revealed:     # drawn cards: only the drawer sees them
            if phase == A.CHEST:
                ones += map(at["drawn_quests"].__getitem__, state.revealed)
            else:
                ones += map(at["drawn_cards"].__getitem__, state.revealed)
    # Counts in one bincount (array.array converts a list of ints fastest), symbol units scaled,
    # then the scaled values written at their (distinct) positions.
    obs = np.bincount(np.frombuffer(array("q", ones), dtype=np.int64), minlength=e.size).astype(np.float32)
    obs *= e.unit_scale
    obs[np.frombuffer(array("q", idx), dtype=np.int64)] = val
    if state.opts["abbey"] or state.opts["teams"]:
        obs[e.layout["abbey"]] = abbey_features(state, seat)
    return obs


def action_mask(state, seat: int) -> np.ndarray:
    """int8 mask over the action table: the legal actions if `seat` is to move, else all zeros."""
    mask = np.zeros(state.g.layout.n, dtype=np.int8)
    if seat == state.current_player:
        mask[state.legal_actions()] = 1
    return mask
