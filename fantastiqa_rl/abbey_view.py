"""What one seat sees of the Abbey (Q-B) and of the team structure (Q-TM), as standalone pieces
for the observation encoder, the text render and determinization (issue 7).

    x = abbey_features(state, seat)     # float32, ABBEY_FEATURES_SIZE values in [0, 1]
    ABBEY_LAYOUT["top"]                 # slice of one block (the table below)
    txt = abbey_text(state)             # a few lines for render_text (public information only)
    shuffle_abbey_hidden(d, rng)        # re-deal the Abbey order nobody knows (for sample_consistent)

Seat-relative: "relative seat r" is seat (seat + r) % n, so r = 0 is the observer; blocks of 4
are zero-padded for 2-3 players. Only public information (Q-I1) is used: the face-up top card,
returned cards, the cards and rewards set aside in the current exploration, every side's Abbey
count, the goal lines; and the team structure (which seats are partners), never a partner's hand.
The top card is reported absent while the explorer decides ABBEY_CHOICE (it is face down then).
With abbey=False every Abbey block is zero; with teams=False the team blocks show only the
observer itself (`team`) and no partner.

    block             size  contents
    options              2  abbey on, teams on
    team                 4  per relative seat: 1 if on the observer's side (the observer included)
    partner              4  one-hot relative seat of the partner (all 0 without teams)
    top                 14  face-up top card: present, symbol one-hot (9), reward gems / 2,
                            carpets, reshuffles, cards drawn / 2
    deck                 2  face-down Abbey cards (the visible top excluded), returned cards;
                            each / the number of Abbey cards in the game
    returned_symbols     9  returned cards per symbol / the most cards of one symbol in the set
    aside               14  exploring now, cards set aside / 7, per symbol (9, as above),
                            rewards set aside: gems / 4, carpets / 4, reshuffles / 4
    held                 4  per relative seat: Abbey cards held / 7
    side_held            2  observer's side / 7, the opposing side holding most / 7
    lines               12  per goal line (up to 4, in card-file order): present, quest points
                            still missing for the observer's side / goal, Abbey cards still
                            missing / 7
Every value is clipped to [0, 1].
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import NUM_SYMBOLS, SYMBOLS
from fantastiqa_rl.state import ABBEY_CAP

MAX_SEATS = 4
MAX_LINES = 4
_BLOCKS = (("options", 2), ("team", MAX_SEATS), ("partner", MAX_SEATS), ("top", 14), ("deck", 2),
           ("returned_symbols", NUM_SYMBOLS), ("aside", 14), ("held", MAX_SEATS), ("side_held", 2),
           ("lines", 3 * MAX_LINES))
ABBEY_LAYOUT = {}
_pos = 0
for _name, _size in _BLOCKS:
    ABBEY_LAYOUT[_name] = slice(_pos, _pos + _size)
    _pos += _size
ABBEY_FEATURES_SIZE = _pos          # 67


def _sym_scale(g) -> float:
    counts = np.bincount([g.I_ABBEY_SYMBOL[i] for i in g.abbey], minlength=NUM_SYMBOLS) if g.abbey else [1]
    return float(max(1, max(counts)))


def abbey_features(state, seat: int) -> np.ndarray:
    """The Abbey and team features of `seat` (layout: module docstring, ABBEY_LAYOUT)."""
    n = state.n
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be in 0..{n - 1}; got {seat!r}")
    seat = int(seat)
    g = state.g
    x = np.zeros(ABBEY_FEATURES_SIZE, dtype=np.float32)
    L = ABBEY_LAYOUT
    abbey, teams = state.opts["abbey"], state.opts["teams"]
    x[L["options"]] = (abbey, teams)
    side = set(state.team(seat))
    partner = state.partner(seat)
    for r in range(n):
        q = (seat + r) % n
        x[L["team"].start + r] = q in side
        if q == partner:
            x[L["partner"].start + r] = 1.0
    if abbey:
        total = max(1, len(g.abbey))
        ss = _sym_scale(g)
        top = state.abbey_top()
        t = L["top"].start
        if top >= 0:
            gems, carpets, resh = g.I_ABBEY_REWARD[top]
            x[t] = 1.0
            x[t + 1 + g.I_ABBEY_SYMBOL[top]] = 1.0
            x[t + 10:t + 14] = (gems / 2, carpets, resh, g.I_ABBEY_DRAW[top] / 2)
        d = L["deck"].start
        x[d] = (len(state.abbey_deck) - (top >= 0)) / total
        x[d + 1] = len(state.abbey_returned) / total
        rs = L["returned_symbols"].start
        for i in state.abbey_returned:
            x[rs + g.I_ABBEY_SYMBOL[i]] += 1.0 / ss
        a = L["aside"].start
        x[a] = state.phase in (A.ABBEY_MATCH, A.ABBEY_CHOICE)
        x[a + 1] = len(state.abbey_aside) / ABBEY_CAP
        for i in state.abbey_aside:
            x[a + 2 + g.I_ABBEY_SYMBOL[i]] += 1.0 / ss
        x[a + 11:a + 14] = [v / 4 for v in state.abbey_reward]
        h = L["held"].start
        for r in range(n):
            x[h + r] = len(state.abbey[(seat + r) % n]) / ABBEY_CAP
        mine = state.abbey_held(seat)
        others = [state.abbey_held(q) for q in range(n) if q not in side]
        x[L["side_held"]] = (mine / ABBEY_CAP, (max(others) if others else 0) / ABBEY_CAP)
    pts, held = state.side_score(seat), state.abbey_held(seat)
    ln = L["lines"].start
    for j, (need_pts, need_ab) in enumerate(state.goal_lines[:MAX_LINES]):
        x[ln + 3 * j:ln + 3 * j + 3] = (1.0, max(0, need_pts - pts) / max(1, state.goal),
                                        max(0, need_ab - held) / ABBEY_CAP)
    np.clip(x, 0.0, 1.0, out=x)
    return x


def abbey_text(state) -> str:
    """Public Abbey and team lines for a text render ('' when neither option is on)."""
    g, nm = state.g, state.card_name
    out = []
    if state.opts["teams"]:
        out.append(f"Teams: seats 0+2 ({state.side_score(0)} pts) vs 1+3 ({state.side_score(1)} pts)"
                   + (f"; Abbey cards {state.abbey_held(0)} vs {state.abbey_held(1)}" if state.opts["abbey"] else ""))
    if state.opts["abbey"]:
        top = state.abbey_top()
        if top >= 0:
            gems, carpets, resh = g.I_ABBEY_REWARD[top]
            reward = ", ".join(f"{v} {k}" for v, k in ((gems, "gem(s)"), (carpets, "carpet(s)"),
                                                        (resh, "reshuffle(s)")) if v) or "nothing"
            top_txt = f"{nm(top)}: match {SYMBOLS[g.I_ABBEY_SYMBOL[top]]}, reward {reward}, draw {g.I_ABBEY_DRAW[top]}"
        elif state.abbey_deck:
            top_txt = "face down (the explorer decides: stop or continue)"
        else:
            top_txt = "none left"
        out.append(f"Abbey: top {top_txt}; face down {len(state.abbey_deck) - (top >= 0)}; "
                   f"returned {[nm(i) for i in state.abbey_returned] or '-'}")
        if state.abbey_aside or state.phase in (A.ABBEY_MATCH, A.ABBEY_CHOICE):
            r = state.abbey_reward
            out.append(f"  exploring (seat {state.cur}): set aside {[nm(i) for i in state.abbey_aside]},"
                       f" rewards {r[0]} gem(s) {r[1]} carpet(s) {r[2]} reshuffle(s)")
        out.append("  Abbey cards held: " + ", ".join(f"seat {p} {len(state.abbey[p])}" for p in range(state.n))
                   + f" (cap {ABBEY_CAP} per {'team' if state.opts['teams'] else 'player'})")
        out.append("  goal lines (points, Abbey cards): "
                   + " or ".join(f"({a}, {b})" for a, b in state.goal_lines))
    return "\n".join(out)


def shuffle_abbey_hidden(d, rng: np.random.Generator) -> None:
    """Re-deal, in place, the part of d's Abbey deck whose order nobody knows: every face-down
    card (all of the deck while the explorer decides ABBEY_CHOICE, else all but the face-up top).
    The pool is put in canonical (sorted) order first, so the result depends only on public
    information and `rng`. Returned cards are face up (public) and stay as they are."""
    if not d.opts["abbey"] or not d.abbey_deck:
        return
    keep_top = d.abbey_top() >= 0
    hidden = sorted(d.abbey_deck[:-1] if keep_top else d.abbey_deck)
    rng.shuffle(hidden)
    d.abbey_deck[:] = hidden + ([d.abbey_deck[-1]] if keep_top else [])
    d._legal = None
