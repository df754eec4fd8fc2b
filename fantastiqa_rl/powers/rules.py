"""Card powers (Q-F1) and artifact effects on the scalar core, as plain functions of a
`FantastiqaState` `s` and a seat `p`: which powers can be played (`power_ok`), what they do
(`play_card`, `run_effects`), and the decisions they open (TARGET_SEAT for DRAGON, the Peaceful
Dragon and Bitter Brew; GLASS, BELL, BREW_CARD, WARDROBE for artifact effects).
`fantastiqa_rl.decisions`' table pairs each of those decisions with its `legal_*` / `apply_*` here;
`free_actions.rules.legal_free` asks `power_ok` and `playable_kinds`; `play_card` is MAIN's HAND block
(`rules.MAIN_BLOCKS`) and `adventure.rules.apply_adv_move`'s FLY step, `adventure.rules.apply_move_dest`
calls `run_effects`. Their batched ports are
`fantastiqa_rl.powers.kernels`.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import (NUM_SPACES, P_DRAGON, P_EFFECT, P_FLY, P_GEM, P_KEY, P_NONE, P_PEACEFUL,
                                 P_PLUS)
from fantastiqa_rl.queries import find, kinds, moves
from fantastiqa_rl.statues.rules import statue_options

# TARGET_SEAT reasons (state.reason)
R_PEACEFUL, R_DRAGON, R_BREW = 0, 1, 2


def held_in_play(opts: dict, g, i: int) -> bool:
    """Whether card i of `turn.powered` (played for its power this turn) lies in play, in no other
    zone, until the end of the turn (Q-T2, option turn_loops="forbid"). Otherwise the list only
    marks it: with card_use="both" a card with symbols stays in hand for them (Q-F1)."""
    return kind_held_in_play(opts, g, g.I_HAND_KIND[i])


def kind_held_in_play(opts: dict, g, k: int) -> bool:
    """`held_in_play` for a card of kind k (a Peaceful Dragon is given away instead)."""
    if opts["card_use"] == "both" and g.K_PROFILE[k] is not None:
        return False
    return opts["turn_loops"] == "forbid"


def power_ok(s, p, k):
    """Whether a hand card of kind k may be played for its power now (it would do something)."""
    pw = s.g.K_POWER[k]
    if pw == P_NONE:
        return False
    if pw == P_FLY:
        return bool(moves(s, p, s.phase == A.ADV_MOVE))
    if pw == P_KEY:     # the options once the card has left the hand (into play, Q-T2)
        return bool(statue_options(s, p, leaving=int(kind_held_in_play(s.opts, s.g, k))))
    if pw == P_DRAGON:
        return bool(s.dragons) and bool(opponents_here(s, p))
    if pw == P_PEACEFUL:
        return bool(opponents_here(s, p))
    return True   # PLUS_STATUE, GEM, EFFECT


def playable_kinds(s, p):
    """Hand kinds with a copy not yet played for its power (card_use="both")."""
    pw = s.powered
    if not pw:
        return kinds(s, s.hand[p])
    return kinds(s, [i for i in s.hand[p] if i not in pw])


def opponents_here(s, p):
    pos = s.position[p]
    return [o for o in range(s.n) if s.is_opponent(p, o) and s.position[o] == pos]


def legal_target_seat(s, p) -> list:
    if s.reason == R_BREW:
        opp = [o for o in range(s.n) if s.is_opponent(p, o)]
    else:
        opp = opponents_here(s, p)
    return [A.SEAT + o for o in opp]


def legal_glass(s, p) -> list:
    g = s.g
    return [g.layout.hand + k for k in kinds(s, [i for i in s.hand[p] if i not in s.boosted])
            if g.K_PROFILE[k] is not None]


def legal_bell(s, p) -> list:
    return [s.g.layout.pick + k for k in kinds(s, s.revealed)]


def legal_brew_card(s, p) -> list:
    L = s.g.layout
    return ([L.hand + k for k in kinds(s, s.hand[p])]
            + [L.pick + k for k in kinds(s, s.discard[p])])


def legal_wardrobe(s, p) -> list:
    return [A.SPACE + c for c in range(NUM_SPACES) if s.board[c] >= 0 and c != s.target]


def play_card(s, p, k):
    """Play a hand card of kind k for its power (Q-F1)."""
    g = s.g
    hand = s.hand[p]
    if s.opts["card_use"] == "both" and g.K_PROFILE[k] is not None:
        i = next(i for i in hand if g.I_HAND_KIND[i] == k and i not in s.powered)
        s.powered.append(i)                  # stays in hand for its symbols
    else:
        i = find(s, hand, k)
        hand.remove(i)
        if g.K_POWER[k] == P_PEACEFUL:
            pass                                # given away below (TARGET_SEAT)
        elif s.opts["turn_loops"] == "forbid":
            s.powered.append(i)              # Q-T2: in play until the end of the turn
        else:
            s.discard[p].append(i)           # the unbounded reading: discarded at once
    pw = g.K_POWER[k]
    if pw == P_FLY:
        if s.phase == A.MAIN:
            s.phase, s.ret = A.MOVE_DEST, A.MAIN
    elif pw == P_KEY:
        s.key, s.phase = True, A.STATUE_OPTION
    elif pw == P_PLUS:
        s.plus_statue += 1
    elif pw == P_GEM:
        s.gems[p] += s._take("supply_gems", 1)
    elif pw == P_DRAGON:
        s.phase, s.reason = A.TARGET_SEAT, R_DRAGON
    elif pw == P_PEACEFUL:
        s.in_play.append(i)
        s.phase, s.reason = A.TARGET_SEAT, R_PEACEFUL
    elif pw == P_EFFECT:
        s.effects = list(g.K_EFFECTS[k])
        run_effects(s, p)


def run_effects(s, p):
    """Resolve queued artifact effects until one needs a decision."""
    while s.effects and s.phase == A.MAIN:
        op, x, y = s.effects.pop(0)
        if op == "gain_gems":
            s.gems[p] += s._take("supply_gems", x)
        elif op == "draw":
            s._draw(p, x, s.hand[p])
        elif op == "gain_carpet":
            s.carpets[p] += s._take("supply_carpets", x)
        elif op == "gain_reshuffle":
            s.reshuffles[p] += s._take("supply_reshuffles", x)
        elif op == "steal_richer":
            mine = s.gems[p]
            for o in range(s.n):
                if s.is_opponent(p, o) and s.gems[o] > mine:
                    s.gems[o] -= 1
                    s.gems[p] += 1
        elif op == "double_symbols":
            if any(s.g.K_PROFILE[s.g.I_HAND_KIND[i]] is not None and i not in s.boosted
                   for i in s.hand[p]):
                s.phase = A.GLASS
        elif op == "draw_keep":
            s._draw(p, x, s.revealed)
            if s.revealed:
                if y <= 0:
                    s.discard[p] += s.revealed
                    s.revealed = []
                else:
                    s.count, s.phase = y, A.BELL
        elif op == "give_card":
            if s.hand[p] or s.discard[p]:
                s.phase = A.BREW_CARD
        elif op == "swap_creatures":
            if sum(1 for b in s.board if b >= 0) >= 2:
                s.target, s.phase = -1, A.WARDROBE


def apply_target_seat(s, p, a):
    o = a - A.SEAT
    if s.reason == R_DRAGON:
        s.discard[o].append(s.dragons.pop())
    else:
        s.discard[o].append(s.in_play.pop())
    s.phase = A.MAIN
    run_effects(s, p)


def apply_glass(s, p, a):
    k = a - s.g.layout.hand
    HK = s.g.I_HAND_KIND
    s.boosted.append(next(i for i in s.hand[p] if HK[i] == k and i not in s.boosted))
    s.phase = A.MAIN
    run_effects(s, p)


def apply_bell(s, p, a):
    i = find(s, s.revealed, a - s.g.layout.pick)
    s.revealed.remove(i)
    s.hand[p].append(i)
    s.count -= 1
    if s.count <= 0 or not s.revealed:
        s.discard[p] += s.revealed
        s.revealed = []
        s.phase = A.MAIN
        run_effects(s, p)


def apply_brew_card(s, p, a):
    L = s.g.layout
    src = s.hand[p] if a < L.commit else s.discard[p]
    i = find(s, src, (a - L.hand) % L.K)
    src.remove(i)
    s.in_play.append(i)
    s.phase, s.reason = A.TARGET_SEAT, R_BREW


def apply_wardrobe(s, p, a):
    c = a - A.SPACE
    if s.target < 0:
        s.target = c
    else:
        t, b, bg = s.target, s.board, s.board_gems
        b[t], b[c] = b[c], b[t]
        bg[t], bg[c] = bg[c], bg[t]
        s.target = -1
        s.phase = A.MAIN
        run_effects(s, p)
