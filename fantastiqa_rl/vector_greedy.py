"""The greedy bot (`tabletop_rl.agents.fantastiqa_greedy.FantastiqaGreedyAgent`) over a batch's packed rows.

`FantastiqaVector.greedy_actions` calls `BatchedGreedy.actions`: one numba kernel decides every listed
game's move from the rows of `fantastiqa_rl.vector_state` and the batch's legal mask, as the scalar
bot decides it (each decision below is a line-by-line port of the bot method it names). A decision
or option value not ported returns "not decided" for that game, and the scalar bot itself runs on
that game's `FantastiqaState`, so every move is the bot's by construction (`counts` says what ran
where). Every decision is ported, the Abbey's and the teams' included; the scalar bot decides
only where a Looking Glass tried on a row copy meets a step the step kernel declines
(`vector_steps.apply`; in the STAND-IN set the Bell of Summoning, whose draw_keep it leaves to the
scalar core) and where the bot itself would fail (no Beast Bazaar on the board to target). With
the Abbey, the MAIN options the bot weighs inside FREE_MENU add EXPLORE by `_explore_ok` (a port
of abbey.rules.why_no_explore: the vector's MAIN mask leaves EXPLORE to the scalar core).

The bot keeps two fields per seat across decisions (`_plan`: the statue option a VISIT_STATUE was
chosen for; `_glass_for`: the hand card kind a Looking Glass was played to double); here they are
arrays per (game, seat), handed to the scalar bot and back whenever it decides, so both paths share
one memory. `BatchedGreedy.handles` gives the vector one reset handle per (game, seat): a game dealt
again or loaded by `set_state` resets its seats' fields, as it resets the scalar bots.

Which factory gets the kernel: a class whose own namespace sets `batched_form` to this module's name
(`FantastiqaGreedyAgent.batched_form`); a subclass that does not set it again, or any other factory,
keeps the scalar bot per game (`ports`). Card data comes from the card tables (`vector_rules.Cards`
and the bot tables built here from the card file): nothing about a card is compiled in.
Hidden information: the kernel reads the mover's own hand, the composition of its own deck and
discard (never their order), and public state, as the bot does.
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_kernels as K
from fantastiqa_rl import vector_rules as R
from fantastiqa_rl import vector_state as VS
from fantastiqa_rl import vector_steps as S
from fantastiqa_rl.abbey import ABBEY_CAP
from fantastiqa_rl.board import (CHEST, LOWER_FRAME, NEIGHBOURS, NUM_POSITIONS, NUM_SYMBOLS, P_DRAGON, P_EFFECT,
                                 P_FLY, P_GEM, P_PEACEFUL)
from fantastiqa_rl.free_actions.kernels import legal_free
from fantastiqa_rl.powers.kernels import _effect_row
from fantastiqa_rl.quests.kernels import completable
from fantastiqa_rl.vector_state import (L_ABBEY_ASIDE, L_ABBEY_DECK, L_ABBEY_RETURNED, L_ARTIFACT_DECK, L_BEAST_DECK,
                                        MAX_SEATS, NUM_OPEN_QUESTS, P_ABBEY, P_C_CARDS, P_C_OF, P_DECK, P_DISCARD,
                                        P_HAND, P_QUESTS, S_GEMS, S_POS, S_SCORES, W_ACTION_USED, W_BGEMS, W_BOARD,
                                        W_CUR, W_NAMEPOS, W_OPEN, W_PHASE, W_REGION, W_SEATS, W_STATUE)
from fantastiqa_rl.vector_state import kernel

# the bot's effect lists (tabletop_rl.agents.fantastiqa_greedy: GOOD_EFFECTS, the setup order, _best_buy)
GOOD_EFFECTS = frozenset({"gain_gems", "draw", "gain_carpet", "gain_reshuffle", "steal_richer", "draw_keep",
                          "give_card"})
SETUP_ORDER = {"double_symbols": 0, "draw_keep": 1, "steal_richer": 2}
NOT_DECIDED = -2          # the kernel's answer where the scalar bot decides


def ports(factory) -> bool:
    """Whether `factory` is the bot this module ports: a class naming this module in its own `batched_form`."""
    return isinstance(factory, type) and vars(factory).get("batched_form") == __name__


def distances() -> np.ndarray:
    """All-pairs distances on the board graph (the bot's `_distances`: every space, occupied or not)."""
    d = np.full((NUM_POSITIONS, NUM_POSITIONS), 99, dtype=np.int64)
    for a in range(NUM_POSITIONS):
        d[a, a] = 0
        frontier = [a]
        while frontier:
            nxt = []
            for x in frontier:
                for _, y in NEIGHBOURS[x]:
                    if d[a, y] > d[a, x] + 1:
                        d[a, y] = d[a, x] + 1
                        nxt.append(y)
            frontier = nxt
    return d


def bot_tables(g, goal_lines, abbey: bool) -> tuple:
    """The bot's per-kind tables from the card file's `Game` tables (g), for the kernel."""
    n = g.layout.K
    fx = g.K_EFFECTS
    glass = np.asarray([g.K_POWER[k] == P_EFFECT and any(e[0] == "double_symbols" for e in fx[k])
                        for k in range(n)], dtype=np.bool_)
    good = np.asarray([all(e[0] in GOOD_EFFECTS for e in fx[k]) for k in range(n)], dtype=np.bool_)
    give = np.asarray([any(e[0] == "give_card" for e in fx[k]) for k in range(n)], dtype=np.bool_)
    rank = np.asarray([min(SETUP_ORDER.get(e[0], 3) for e in fx[k] or (("", 0, 0),)) for k in range(n)],
                      dtype=np.int64)
    buy = {"gain_gems": None, "draw": None, "draw_keep": 1, "steal_richer": 1}   # None: the effect's x (_best_buy)
    buy_fx = np.asarray([sum((e[1] if buy[e[0]] is None else buy[e[0]]) for e in fx[k] if e[0] in buy)
                         for k in range(n)], dtype=np.int64)
    # a Glass whose effects draw nothing leaves the trial a subset of the hand, one card doubled (_glass_may_complete)
    no_draw = np.asarray([all(e[0] != "draw" for e in fx[k]) for k in range(n)], dtype=np.bool_)
    want = max(b for _, b in goal_lines) if abbey else 0
    explore = g.layout.explore if abbey else -1
    abbey_sym = np.asarray(g.I_ABBEY_SYMBOL, dtype=np.int64)
    lines = np.asarray(goal_lines if abbey else ((0, 0),), dtype=np.int64).reshape(-1, 2)
    frame = np.asarray([r in LOWER_FRAME for r in range(NUM_POSITIONS)], dtype=np.bool_)
    return (distances(), glass, good, give, rank, buy_fx, np.asarray([want, explore], dtype=np.int64), abbey_sym,
            lines, frame, no_draw)


# ---------------------------------------------------------------- knowledge helpers (the bot's)
@kernel
def _pos(w, i, p):
    return w[i, W_SEATS + MAX_SEATS * S_POS + p]


@kernel
def _gems(w, i, p):
    return w[i, W_SEATS + MAX_SEATS * S_GEMS + p]


@kernel
def _add_kind(prof, k, have):
    """Card kind k's symbols added to have, as _own_symbols counts them (a companion for both)."""
    m = prof[0, k, 2]
    if m:
        a, b = prof[0, k, 0], prof[0, k, 1]
        have[a] += m
        if b != a:
            have[b] += m


@kernel
def _add_symbols(c, w, i, cap, T, j, have):
    """_own_symbols over list j, added to have."""
    for t in range(R.ln(w, i, j)):
        _add_kind(T[2], T[0][R.at(c, i, j, cap, t)], have)


@kernel
def _add_committed_symbols(c, w, i, cap, T, p, q, have):
    """_own_symbols over committed[p][q], added to have."""
    cards, of = R.seat_list(p, P_C_CARDS), R.seat_list(p, P_C_OF)
    for t in range(R.ln(w, i, cards)):
        if R.at(c, i, of, cap, t) == q:
            _add_kind(T[2], T[0][R.at(c, i, cards, cap, t)], have)


@kernel
def _deficit(T, qkind, have):
    need_sym, need_cnt = T[9], T[10]
    d = 0
    for j in range(T[11][qkind]):
        d += max(0, need_cnt[qkind, j] - have[need_sym[qkind, j]])
    return d


@kernel
def _quest_count(c, w, i, cap, p):
    """len(quests[p]) + the open quests: the bot's `_quests` are t < this, via _quest_at."""
    return R.ln(w, i, R.seat_list(p, P_QUESTS)) + NUM_OPEN_QUESTS


@kernel
def _quest_at(c, w, i, cap, p, t):
    """Item t of the bot's `_quests(s, p)` (personal quests, then open ones), -1 for an empty open slot."""
    quests = R.seat_list(p, P_QUESTS)
    nq = R.ln(w, i, quests)
    return R.at(c, i, quests, cap, t) if t < nq else w[i, W_OPEN + t - nq]


@kernel
def _needed(c, w, i, cap, T, p, need):
    """_needed_syms: per symbol, the most any of p's quests asks."""
    qk, need_sym, need_cnt = T[1], T[9], T[10]
    need[:] = 0
    for t in range(_quest_count(c, w, i, cap, p)):
        q = _quest_at(c, w, i, cap, p, t)
        if q < 0:
            continue
        kq = qk[q]
        for j in range(T[11][kq]):
            s = need_sym[kq, j]
            need[s] = max(need[s], need_cnt[kq, j])


@kernel
def _value(T, k, need):
    """_card_value: how much the seat wants to keep a card of kind k."""
    prof, power = T[2], T[5]
    v = 0.0
    m = prof[0, k, 2]
    if m:
        a, b = prof[0, k, 0], prof[0, k, 1]
        v += m * (1.0 + (need[a] > 0) * 2 + (b != a and need[b] > 0) * 2)
    pw = power[k]
    if pw == P_PEACEFUL:
        v -= 5
    elif pw == P_GEM or pw == P_EFFECT:
        v += 1.5
    elif pw != 0:
        v += 0.5
    return v


@kernel
def _target(c, w, i, cap, T, B, p, have, hand):
    """_target: (quest instance, position) of the quest p can soonest complete; (-1, bazaar) for
    the nearest Beast Bazaar; (-1, -1) for none; (-1, NOT_DECIDED) where the bot would fail."""
    qk, qregion, qpoints = T[1], T[8], T[16]
    dist = B[0]
    here = _pos(w, i, p)
    hand[:] = 0
    _add_symbols(c, w, i, cap, T, R.seat_list(p, P_HAND), hand)
    best, best_pos, k0, k1, k2 = -1, -1, 0, 0, 0
    for t in range(_quest_count(c, w, i, cap, p)):
        q = _quest_at(c, w, i, cap, p, t)
        if q < 0:
            continue
        have[:] = hand
        _add_committed_symbols(c, w, i, cap, T, p, q, have)
        kq = qk[q]
        pos = w[i, W_NAMEPOS + qregion[kq]]
        a, b = 2 * _deficit(T, kq, have) + dist[here, pos], -qpoints[kq]
        if best_pos < 0 or a < k0 or (a == k0 and (b < k1 or (b == k1 and q < k2))):
            best, best_pos, k0, k1, k2 = q, pos, a, b, q
    if _gems(w, i, p) >= 5 and (best_pos < 0 or k0 > 2) and R.ln(w, i, L_BEAST_DECK):
        bazaar = -1
        for r in range(NUM_POSITIONS):
            if w[i, W_STATUE + r] == 1 and (bazaar < 0 or dist[here, r] < dist[here, bazaar]):
                bazaar = r
        return -1, (NOT_DECIDED if bazaar < 0 else bazaar)
    return best, best_pos


@kernel
def _good_step(w, i, B, p, dests, nd, tpos):
    """_good_step: the best destination of dests[:nd] (closer to tpos, or a creature with a gem), or -1."""
    dist = B[0]
    here = _pos(w, i, p)
    best, b0, b1 = -1, 0, 0
    for t in range(nd):
        d = dests[t]
        space = -1
        for j in range(R.NB_N[here]):
            if R.NB_DEST[here, j] == d:
                space = R.NB_SPACE[here, j]
                break
        closer = tpos >= 0 and dist[d, tpos] < dist[here, tpos]
        gem = w[i, W_BGEMS + space] > 0
        if not (closer or gem):
            continue
        a, b = 0 if closer else 1, 0 if gem else 1
        if best < 0 or a < b0 or (a == b0 and (b < b1 or (b == b1 and d < best))):
            best, b0, b1 = d, a, b
    return best


@kernel
def _dragons_owned(c, w, i, cap, T, p):
    hk, power = T[0], T[5]
    n = 0
    for f in (P_HAND, P_DISCARD):
        j = R.seat_list(p, f)
        for t in range(R.ln(w, i, j)):
            if power[hk[R.at(c, i, j, cap, t)]] == P_PEACEFUL:
                n += 1
    return n


@kernel
def _first(row):
    for a in range(row.size):
        if row[a]:
            return a
    return -1


# ---------------------------------------------------------------- MAIN (the bot's _main over the flat set)
@kernel
def _quest_here(c, w, i, cap, T, p):
    """_quest_here: one of p's quests or an open quest lies in p's region."""
    here = w[i, W_REGION + _pos(w, i, p)]
    for t in range(_quest_count(c, w, i, cap, p)):
        q = _quest_at(c, w, i, cap, p, t)
        if q >= 0 and T[8][T[1][q]] == here:
            return True
    return False


@kernel
def _copy_row(c, w, i, cc, ww, r):
    """Row i of (c, w) into row r of (cc, ww): the scalars and each list's items (not the unused tail)."""
    ww[r] = w[i]
    cap = c.shape[1] // (w.shape[1] - VS.W_LEN)
    for j in range(w.shape[1] - VS.W_LEN):
        base = j * cap
        for t in range(w[i, VS.W_LEN + j]):
            cc[r, base + t] = c[i, base + t]


@kernel
def _glass_may_complete(c, w, i, cap, T, p, wi, wp):
    """Whether some quest in p's region is met by p's whole hand with every card doubled (plus the
    cards committed to it): a bound on the trial of a Glass that draws nothing, whose hand after the
    choice is the hand without the Glass, one card doubled (quest_met only grows with more or
    doubled cards), so False means the trial finds nothing."""
    hk, qk, prof = T[0], T[1], T[2]
    name = w[i, W_REGION + _pos(w, i, p)]
    hand = R.seat_list(p, P_HAND)
    pr = wp
    for t in range(_quest_count(c, w, i, cap, p)):
        q = _quest_at(c, w, i, cap, p, t)
        if q < 0 or T[8][qk[q]] != name:
            continue
        n = 0
        for u in range(R.ln(w, i, hand)):
            k = hk[R.at(c, i, hand, cap, u)]
            if prof[1, k, 2]:
                pr[n, 0], pr[n, 1], pr[n, 2] = prof[1, k, 0], prof[1, k, 1], prof[1, k, 2]
                n += 1
        n = R.add_committed_profiles(c, w, i, cap, T, p, q, pr, n)
        if R.quest_met(T, qk[q], pr, n, wi):
            return True
    return False


@kernel
def _glass_completes_quest(c, w, i, cap, T, quest0, p, k, legal_row, cc, ww, row, wi, wp, draws_nothing):
    """_glass_completes_quest, tried on row copies (cc, ww rows 0 and 1) with the step kernel: the
    hand kind whose doubling lets p complete a quest; -1 if none; NOT_DECIDED where a step is not ported."""
    if draws_nothing and not _glass_may_complete(c, w, i, cap, T, p, wi, wp):
        return -1
    no_chance = np.empty(0, dtype=np.uint64)      # no Generator: a trial step that may shuffle declines
    _copy_row(c, w, i, cc, ww, 0)
    if not legal_row[A.HAND + k]:
        if not S.apply(cc, ww, 0, cap, T, A.FREE_ACTION, quest0, no_chance):
            return NOT_DECIDED
    if not S.apply(cc, ww, 0, cap, T, A.HAND + k, quest0, no_chance):
        return NOT_DECIDED
    if ww[0, W_PHASE] != A.GLASS:
        return -1
    row[:] = False
    _effect_row(cc, ww, 0, cap, T, row, quest0, wi, wp)
    choices = row.copy()
    qs = wi[R.reg(wi, R.R_QUESTS):]
    for a in range(choices.size):
        if not choices[a]:
            continue
        _copy_row(cc, ww, 0, cc, ww, 1)
        if not S.apply(cc, ww, 1, cap, T, a, quest0, no_chance):
            return NOT_DECIDED
        # a quest among u.turn_options(p) (rules.legal_main lists them while the turn action is unused)
        if ww[1, W_ACTION_USED] == 0 and completable(cc, ww, 1, cap, T, p, qs, wi, wp):
            return a - A.HAND
    return -1


@kernel
def _free_move(c, w, i, cap, T, B, p, full, tpos):
    """_free_move: a FLY card or a carpet that brings p closer to its target's region, or -1."""
    dist, prof, power = B[0], T[2], T[5]
    here = _pos(w, i, p)
    if tpos < 0 or tpos == here:
        return -1
    ok = False
    for j in range(R.NB_N[here]):
        if w[i, W_BOARD + R.NB_SPACE[here, j]] >= 0 and dist[R.NB_DEST[here, j], tpos] < dist[here, tpos]:
            ok = True
    if not ok:
        return -1
    for k in range(prof.shape[1]):
        if full[A.HAND + k] and power[k] == P_FLY and prof[0, k, 2] == 1:
            return A.HAND + k
    if full[A.CARPET]:
        return A.CARPET
    return -1


@kernel
def _abbey_held(c, w, i, T, p):
    """abbey_held: Abbey cards held by p's side (its team's sum with teams)."""
    if T[12][R.F_TEAMS]:
        return R.ln(w, i, R.seat_list(p % 2, P_ABBEY)) + R.ln(w, i, R.seat_list(p % 2 + 2, P_ABBEY))
    return R.ln(w, i, R.seat_list(p, P_ABBEY))


@kernel
def _explore_ok(c, w, i, cap, T, B, p):
    """abbey.rules.why_no_explore(s, p) == '' (Q-B2, Q-B5): EXPLORE among p's MAIN options."""
    if w[i, W_ACTION_USED] or not B[9][_pos(w, i, p)] or _abbey_held(c, w, i, T, p) >= ABBEY_CAP:
        return False
    n = R.ln(w, i, L_ABBEY_DECK)
    if n == 0:
        return False
    sym = B[7][R.at(c, i, L_ABBEY_DECK, cap, n - 1)]
    hand = R.seat_list(p, P_HAND)
    for t in range(R.ln(w, i, hand)):
        if T[6][T[0][R.at(c, i, hand, cap, t)], sym]:
            return True
    return False


@kernel
def _abbey_continue(c, w, i, cap, T, B, p, row):
    """The bot's ABBEY_CHOICE stop threshold (its module docstring): True to continue exploring."""
    if not row[B[6][1] + 2]:
        return False
    aside = R.ln(w, i, L_ABBEY_ASIDE)
    held = _abbey_held(c, w, i, T, p)
    pts = w[i, W_SEATS + MAX_SEATS * S_SCORES + p]
    if T[12][R.F_TEAMS]:
        pts = w[i, W_SEATS + MAX_SEATS * S_SCORES + p % 2] + w[i, W_SEATS + MAX_SEATS * S_SCORES + p % 2 + 2]
    lines = B[8]
    for j in range(lines.shape[0]):
        if pts >= lines[j, 0] and held + aside >= lines[j, 1]:
            return False                            # claiming now wins
    if held + aside >= B[6][0]:
        return False
    pool = L_ABBEY_DECK if R.ln(w, i, L_ABBEY_DECK) else L_ABBEY_RETURNED
    n = R.ln(w, i, pool)
    if n == 0:
        return False
    hand = R.seat_list(p, P_HAND)
    match = 0
    for t in range(n):
        sym = B[7][R.at(c, i, pool, cap, t)]
        for u in range(R.ln(w, i, hand)):
            if T[6][T[0][R.at(c, i, hand, cap, u)], sym]:
                match += 1
                break
    return match / n > aside / (aside + 1)


@kernel
def _main(c, w, i, cap, T, B, quest0, p, full, legal_row, plan, glass, cc, ww, row, wi, wp, have, hand):
    """The bot's _main over the flat set `full`; NOT_DECIDED where the scalar bot must decide."""
    power, qpoints = T[5], T[16]
    glass_kind, good, give, bf = B[1], B[2], B[3], B[6]
    Kn = T[2].shape[1]
    Q = qpoints.size
    best = -1
    for q in range(Q):                              # complete a quest when it can
        if full[quest0 + q] and (best < 0 or qpoints[q] > qpoints[best]):
            best = q
    if best >= 0:
        return quest0 + best
    used = w[i, W_ACTION_USED] != 0
    if not used:                                    # a card that doubles and so completes a quest now
        gk = -1
        for k in range(Kn):
            if full[A.HAND + k] and glass_kind[k]:
                gk = k
                break
        if gk >= 0 and _quest_here(c, w, i, cap, T, p):
            doubled = _glass_completes_quest(c, w, i, cap, T, quest0, p, gk, legal_row, cc, ww, row, wi, wp,
                                             B[10][gk])
            if doubled == NOT_DECIDED:
                return NOT_DECIDED
            if doubled >= 0:
                glass[i, p] = doubled
                return A.HAND + gk
    dragon = -1
    for k in range(Kn):                             # cheap, always-good powers
        if not full[A.HAND + k]:
            continue
        pw = power[k]
        if pw == P_GEM or pw == P_PEACEFUL or pw == P_DRAGON:
            return A.HAND + k
        if pw == P_EFFECT and good[k]:
            if give[k]:
                if dragon < 0:
                    dragon = 1 if _dragons_owned(c, w, i, cap, T, p) else 0
                if dragon == 0:
                    continue
            return A.HAND + k
    deck, discard = R.seat_list(p, P_DECK), R.seat_list(p, P_DISCARD)
    if full[A.RESHUFFLE] and R.ln(w, i, discard) >= 2 * R.ln(w, i, deck) + 6:
        return A.RESHUFFLE                          # bring bought and subdued cards back
    if not used:
        if bf[1] >= 0 and full[bf[1]] and _abbey_held(c, w, i, T, p) < bf[0]:
            return bf[1]                            # the Abbey (the bot's docstring)
        gems = _gems(w, i, p)
        if _dragons_owned(c, w, i, cap, T, p) >= 2 and gems >= 2 and full[A.VISIT_STATUE]:
            plan[i, p] = 1
            return A.VISIT_STATUE
        tq, tpos = _target(c, w, i, cap, T, B, p, have, hand)
        if tpos == NOT_DECIDED:
            return NOT_DECIDED
        if full[A.ADVENTURE]:
            dests = wi[R.reg(wi, R.R_DESTS):]
            here = _pos(w, i, p)
            nd = R.pay_moves(c, w, i, cap, T, p, 1 << here, -1, dests, wi, wp)
            if _good_step(w, i, B, p, dests, nd, tpos) >= 0:
                return A.ADVENTURE
        move = _free_move(c, w, i, cap, T, B, p, full, tpos)
        if move >= 0:
            return move
        st = w[i, W_STATUE + _pos(w, i, p)]
        if full[A.VISIT_STATUE]:
            if st == CHEST and R.ln(w, i, R.seat_list(p, P_QUESTS)) < 2:
                plan[i, p] = 0
                return A.VISIT_STATUE
            if st != CHEST and gems >= 2 and R.ln(w, i, L_ARTIFACT_DECK if st == 0 else L_BEAST_DECK):
                plan[i, p] = 0
                return A.VISIT_STATUE
        if full[A.ADVENTURE]:
            return A.ADVENTURE
    else:
        for k in range(Kn):
            if full[A.HAND + Kn + k]:
                return A.HAND + Kn + k
    return A.DONE


# ---------------------------------------------------------------- the other decisions
@kernel
def _keep_discard(c, w, i, cap, T, B, p, row, have, hand, keep):
    """END_DISCARD: the first hand kind held beyond _keep_for_target's copies, else DONE;
    NOT_DECIDED where the bot's target fails."""
    hk, prof, power, qk = T[0], T[2], T[5], T[1]
    Kn = prof.shape[1]
    hand_list = R.seat_list(p, P_HAND)
    nh = R.ln(w, i, hand_list)
    keep[:] = 0
    for t in range(nh):
        k = hk[R.at(c, i, hand_list, cap, t)]
        if power[k] == P_GEM or power[k] == P_EFFECT:
            keep[k] += 1
    tq, tpos = _target(c, w, i, cap, T, B, p, have, hand)
    if tpos == NOT_DECIDED:
        return NOT_DECIDED
    if tpos >= 0 and tq >= 0:
        kq = qk[tq]
        missing = have                               # Counter(Q_NEEDS) minus the committed symbols
        missing[:] = 0
        for j in range(T[11][kq]):
            missing[T[9][kq, j]] = T[10][kq, j]
        hand[:] = 0
        _add_committed_symbols(c, w, i, cap, T, p, tq, hand)
        for s in range(NUM_SYMBOLS):
            missing[s] -= hand[s]
        # the hand in order of decreasing symbol count m, stable (sorted by -m)
        top = 1 << 62
        while True:
            m = 0
            for t in range(nh):
                mm = prof[0, hk[R.at(c, i, hand_list, cap, t)], 2]
                if m < mm < top:
                    m = mm
            if m == 0:
                break
            for t in range(nh):
                k = hk[R.at(c, i, hand_list, cap, t)]
                if prof[0, k, 2] != m:
                    continue
                for s in (prof[0, k, 0], prof[0, k, 1]):
                    if missing[s] > 0:
                        missing[s] -= m
                        keep[k] += 1
                        break
            top = m
    for k in range(Kn):
        if row[A.HAND + k]:
            n = 0
            for t in range(nh):
                if hk[R.at(c, i, hand_list, cap, t)] == k:
                    n += 1
            if n > keep[k]:
                return A.HAND + k
    return A.DONE


@kernel
def _chest(c, w, i, cap, T, B, quest0, p, row, have):
    """CHEST: keep the quest of best (deficit + distance - points, kind), or DONE."""
    qregion, qpoints, dist = T[8], T[16], B[0]
    Q = qpoints.size
    nq = 0
    for q in range(Q):
        if row[quest0 + q]:
            nq += 1
    if (nq and R.ln(w, i, R.seat_list(p, P_QUESTS)) < 2) or not row[A.DONE]:
        have[:] = 0
        for f in (P_HAND, P_DECK, P_DISCARD):
            _add_symbols(c, w, i, cap, T, R.seat_list(p, f), have)
        here = _pos(w, i, p)
        best, bk = -1, 0
        for q in range(Q):
            if row[quest0 + q]:
                key = _deficit(T, q, have) + dist[here, w[i, W_NAMEPOS + qregion[q]]] - qpoints[q]
                if best < 0 or key < bk:
                    best, bk = q, key
        return NOT_DECIDED if best < 0 else quest0 + best
    return A.DONE


@kernel
def _best_buy(T, B, row, need):
    """BUY: _best_buy's card (score: symbols, +3 for a needed one, the effects; then cost, kind), or DONE."""
    prof, cost, buy_fx = T[2], T[13], B[5]
    Kn = prof.shape[1]
    best, b0, b1 = -1, 0, 0
    for k in range(Kn):
        if not row[A.HAND + 2 * Kn + k]:
            continue
        score = buy_fx[k]
        if prof[0, k, 2]:
            score += prof[0, k, 2] + 3 * (need[prof[0, k, 0]] > 0)
        if score < 2:
            continue
        if best < 0 or -score < b0 or (-score == b0 and cost[k] < b1):
            best, b0, b1 = k, -score, cost[k]
    return A.DONE if best < 0 else A.HAND + 2 * Kn + best


@kernel
def _statue_option(c, w, i, cap, T, p, row, plan):
    was = plan[i, p]
    plan[i, p] = 0
    if was == 1 and row[A.STATUE_RELEASE]:
        return A.STATUE_RELEASE
    if row[A.STATUE_DRAW]:
        if w[i, W_STATUE + _pos(w, i, p)] == CHEST or _gems(w, i, p) >= 2:
            return A.STATUE_DRAW
    if row[A.STATUE_RELEASE] and _dragons_owned(c, w, i, cap, T, p):
        return A.STATUE_RELEASE
    if row[A.CANCEL]:
        return A.CANCEL
    return _first(row)


@kernel
def _region_nearest(row, dist, want):
    """The legal REGION r of least (dist[r][want], r) (MOVE_DEST, SETUP_PLACE); NOT_DECIDED if none."""
    best = -1
    for r in range(NUM_POSITIONS):
        if row[A.REGION + r] and (best < 0 or dist[r, want] < dist[best, want]):
            best = r
    return NOT_DECIDED if best < 0 else A.REGION + best


@kernel
def _extreme_value(T, row, lo, need, highest):
    """The kind k with row[lo + k] of least (val, k), or with highest: most (val, -k); -1 if none."""
    Kn = T[2].shape[1]
    best, bv = -1, 0.0
    for k in range(Kn):
        if row[lo + k]:
            v = _value(T, k, need)
            if best < 0 or (v > bv if highest else v < bv):
                best, bv = k, v
    return best


@kernel
def _decide(c, w, i, cap, T, B, quest0, row, plan, glass, cc, ww, full, rowb, scratch, wi, wp, need, have, hand,
            keep):
    """The bot's act() for game i (row: its legal mask); NOT_DECIDED where the scalar bot must."""
    if np.count_nonzero(row) == 1:
        return _first(row)
    ph = w[i, W_PHASE]
    p = w[i, W_CUR]
    Kn = T[2].shape[1]
    dist = B[0]
    if ph == A.END_DISCARD:
        return _keep_discard(c, w, i, cap, T, B, p, row, have, hand, keep)
    if ph == A.MAIN or ph == A.FREE_MENU:
        full[:] = row
        if ph == A.MAIN:
            full[A.FREE_ACTION] = False
            legal_free(c, w, i, cap, T, p, full, wi)
        else:                                       # the MAIN options too (the bot's turn_options)
            flags = T[12]
            abbey = flags[R.F_ABBEY]
            flags[R.F_ABBEY] = 0                    # _main_row leaves only EXPLORE to the scalar core,
            K._main_row(c, w, i, cap, T, full, scratch, quest0, wi, wp)
            flags[R.F_ABBEY] = abbey                # so it runs as without the Abbey, and EXPLORE is added
            if abbey and _explore_ok(c, w, i, cap, T, B, p):
                full[B[6][1]] = True
            full[A.FREE_ACTION] = False
        want = _main(c, w, i, cap, T, B, quest0, p, full, row, plan, glass, cc, ww, rowb, wi, wp, have, hand)
        if want == NOT_DECIDED or row[want]:
            return want
        return A.FREE_ACTION if row[A.FREE_ACTION] else _first(row)
    if ph == A.ADV_MOVE:
        nd = 0
        dests = keep
        for r in range(NUM_POSITIONS):
            if row[A.REGION + r]:
                dests[nd] = r
                nd += 1
        tq, tpos = _target(c, w, i, cap, T, B, p, have, hand)
        if tpos == NOT_DECIDED:
            return NOT_DECIDED
        d = _good_step(w, i, B, p, dests, nd, tpos)
        if d >= 0:
            return A.REGION + d
        if row[A.DONE]:
            return A.DONE
        if nd:
            return A.REGION + dests[0]
        return A.CANCEL if row[A.CANCEL] else _first(row)
    _needed(c, w, i, cap, T, p, need)               # what the card values below weigh (the bot's `need`)
    if ph == A.ADV_PAY or ph == A.QUEST_PAY:
        if row[A.CONFIRM]:
            return A.CONFIRM
        k = _extreme_value(T, row, A.HAND, need, False)
        return NOT_DECIDED if k < 0 else A.HAND + k
    if ph == A.BUY:
        return _best_buy(T, B, row, need)
    if ph == A.CHEST:
        return _chest(c, w, i, cap, T, B, quest0, p, row, have)
    if ph == A.RELEASE:
        power = T[5]
        for a in range(A.HAND, row.size):
            if row[a] and power[(a - A.HAND) % Kn] == P_PEACEFUL:
                return a
        if row[A.CONFIRM]:
            return A.CONFIRM
        return A.CANCEL if row[A.CANCEL] else _first(row)
    if ph == A.MOVE_DEST:
        tq, tpos = _target(c, w, i, cap, T, B, p, have, hand)
        if tpos == NOT_DECIDED:
            return NOT_DECIDED
        want = tpos if tpos >= 0 else _pos(w, i, p)
        return _region_nearest(row, dist, want)
    if ph == A.TARGET_SEAT:
        best = -1
        for o in range(MAX_SEATS):
            if row[A.SEAT + o] and (best < 0 or w[i, W_SEATS + MAX_SEATS * S_SCORES + o]
                                    > w[i, W_SEATS + MAX_SEATS * S_SCORES + best]):
                best = o
        return NOT_DECIDED if best < 0 else A.SEAT + best
    if ph == A.STATUE_OPTION:
        return _statue_option(c, w, i, cap, T, p, row, plan)
    if ph == A.GLASS:
        g = glass[i, p]
        if g >= 0 and row[A.HAND + g]:
            return A.HAND + g
        k = _extreme_value(T, row, A.HAND, need, True)
        return NOT_DECIDED if k < 0 else A.HAND + k
    if ph == A.BELL:
        k = _extreme_value(T, row, A.HAND + 2 * Kn, need, True)
        return NOT_DECIDED if k < 0 else A.HAND + 2 * Kn + k
    if ph == A.BREW_CARD:
        best, bv = -1, 0.0
        for a in range(row.size):
            if row[a]:
                v = _value(T, (a - A.HAND) % Kn, need)
                if best < 0 or v < bv:
                    best, bv = a, v
        return best
    if ph == A.ABBEY_MATCH:
        k = _extreme_value(T, row, A.HAND, need, False)
        return _first(row) if k < 0 else A.HAND + k
    if ph == A.SETUP_QUEST:
        for q in range(T[16].size):
            if row[quest0 + q]:
                return quest0 + q
        return NOT_DECIDED
    if ph == A.SETUP_ARTIFACT:
        rank = B[4]
        best = -1
        for k in range(Kn):
            if row[A.HAND + 2 * Kn + k] and (best < 0 or rank[k] < rank[best]):
                best = k
        return NOT_DECIDED if best < 0 else A.HAND + 2 * Kn + best
    if ph == A.SETUP_PLACE:
        quests = R.seat_list(p, P_QUESTS)
        want = w[i, W_NAMEPOS + T[8][T[1][R.at(c, i, quests, cap, 0)]]] if R.ln(w, i, quests) else 0
        return _region_nearest(row, dist, want)
    if ph == A.ABBEY_CHOICE:
        return B[6][1] + (2 if _abbey_continue(c, w, i, cap, T, B, p, row) else 1)
    return _first(row)                              # COMMIT_TARGET, WITHDRAW_FROM, WARDROBE: legal[0]


@kernel
def greedy(c, w, games, legal, cap, T, B, quest0, plan, glass, out, wi, wp):
    """out[g] = the greedy move of game games[g] (legal[games[g]]: its mask), or NOT_DECIDED."""
    A_n = legal.shape[1]
    cc = np.empty((2, c.shape[1]), dtype=c.dtype)
    ww = np.empty((2, w.shape[1]), dtype=w.dtype)
    full = np.zeros(A_n, dtype=np.bool_)
    rowb = np.zeros(A_n, dtype=np.bool_)
    scratch = np.zeros(A_n, dtype=np.bool_)
    need = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    have = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    hand = np.zeros(NUM_SYMBOLS, dtype=np.int64)
    keep = np.zeros(max(T[2].shape[1], NUM_POSITIONS), dtype=np.int64)
    for g in range(games.size):
        i = games[g]
        out[g] = _decide(c, w, i, cap, T, B, quest0, legal[i], plan, glass, cc, ww, full, rowb, scratch, wi, wp,
                         need, have, hand, keep)


class _SeatReset:
    """The vector's reset handle for one (game, seat) (FantastiqaVector._reset_agents calls reset())."""
    __slots__ = ("bots", "i", "p")

    def __init__(self, bots, i: int, p: int):
        self.bots, self.i, self.p = bots, i, p

    def reset(self) -> None:
        self.bots.reset_seat(self.i, self.p)


class BatchedGreedy:
    """The ported bot's memory for N games and its kernel (see the module docstring)."""

    def __init__(self, factory, fixed: dict, num_envs: int):
        """fixed: the fields every game of the vector shares (vector_state.template)."""
        self.factory = factory
        n = fixed["n"]
        self.B = bot_tables(fixed["g"], fixed["goal_lines"], fixed["opts"]["abbey"])
        self.plan = np.zeros((num_envs, n), dtype=np.int64)          # 1: "release", 0: "draw"
        self.glass = np.full((num_envs, n), -1, dtype=np.int64)
        self.scalar: dict = {}        # (game, seat) -> the scalar bot, made when it first decides
        self.handles = [[_SeatReset(self, i, p) for p in range(n)] for i in range(num_envs)]
        self.moves = np.zeros(num_envs, dtype=np.int64)

    def reset_seat(self, i: int, p: int) -> None:
        self.plan[i, p], self.glass[i, p] = 0, -1
        bot = self.scalar.get((i, p))
        if bot is not None:
            bot.reset()

    def actions(self, v, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The greedy moves of `games` (unfinished) of vector v, and a bool per game: decided by the kernel."""
        v._fill_legal(games)
        moves = self.moves[:games.size]
        greedy(v._c, v._w, games, v._legal, v._cap, v._T, self.B, v._quest0, self.plan, self.glass, moves,
               *v._ws)
        fast = moves != NOT_DECIDED
        for g in np.flatnonzero(~fast).tolist():
            moves[g] = self._scalar(v, int(games[g]))
        return moves.copy(), fast

    def _scalar(self, v, i: int) -> int:
        """The scalar bot's move in game i, with this seat's memory handed to it and back."""
        s = v._game(i)
        p = s.cur
        bot = self.scalar.get((i, p))
        if bot is None:
            bot = self.scalar[(i, p)] = self.factory()
        bot._plan = "release" if self.plan[i, p] else "draw"
        bot._glass_for = int(self.glass[i, p])
        a = bot.act(None, None, state=s, seat=p)
        self.plan[i, p] = 1 if bot._plan == "release" else 0
        self.glass[i, p] = bot._glass_for
        v._own[i] = s._own   # the bot's clones share the Generators copy-on-write
        return a


__all__ = ["BatchedGreedy", "NOT_DECIDED", "bot_tables", "distances", "greedy", "ports"]
