"""The Abandoned Abbey expansion (option abbey=True, Q-B1..Q-B5) on the scalar core, as plain
functions of a `FantastiqaState` `s` and a seat `p` (the state's fields `abbey_deck`,
`abbey_returned`, `abbey_aside`, `abbey_reward` and per seat `abbey`; see
`fantastiqa_rl.serialization`). `fantastiqa_rl.decisions`' table pairs ABBEY_MATCH and ABBEY_CHOICE
with their `legal_*` / `apply_*` here; `rules.legal_main` asks `why_no_explore` (as does
`fantastiqa_rl.text`) and `start_exploring` is MAIN's EXPLORE block (`rules.MAIN_BLOCKS`); the public queries
`abbey_held` and `abbey_top` are also `FantastiqaState`'s methods of those names. Not ported to the
batched engine (`fantastiqa_rl.decisions` says why).

Engine readings (ASSUMED where the spec is silent):
- `goal_lines` (from the card file's abbey_goals, for the player count, or the 2-player lines with
  teams) replace the goal: a player (team) wins at once when its quest points and Abbey cards
  meet any line (Q-B1, Q-E1); checked after every quest and every claim. `goal` stays the plain
  quest goal of the card file. Without the Abbey, `goal_lines` is ((goal, 0),).
- Exploring (EXPLORE, the turn action C, Q-B2) is offered only at board positions 5, 2, 3, 4,
  with the action unused, fewer than 7 Abbey cards held (by the team with teams), and a hand card
  matching the face-up top card (so it cannot fail before the first match). ABBEY_MATCH: choose
  the hand kind to discard (CANCEL is legal before the first match only; afterwards the action
  is spent). The matched card goes to the discard pile, the Abbey card to the set-aside zone, its
  reward from the supply into the set-aside reward (Q-X1: what the supply has), then the
  explorer draws the card's `draw` into hand (Q-X1 reshuffles apply) (Q-B3).
- ABBEY_CHOICE (Q-B4) is decided with the next Abbey card FACE DOWN (ASSUMED: "flip the next
  card" means it is unseen until you continue). ABBEY_STOP claims; ABBEY_CONTINUE (legal while
  held + set aside < 7 and a card is left to flip) flips it, and with no matching hand card the
  exploration fails at once, automatically: rewards back to the supply, the set-aside Abbey
  cards face up under the deck (`abbey_returned`, in set-aside order).
- Q-B5: the deck is `abbey_deck` (face down, top LAST; its top is face up except while the
  explorer decides ABBEY_CHOICE) above `abbey_returned` (face up). Whenever the face-down part is
  empty and a card must be flipped (continuing, or after an exploration), all returned cards are
  shuffled (chance source 9) into a new face-down deck. With no Abbey card left there, EXPLORE is
  not offered.
- Abbey cards do not count in final scores (Q-E2/Q-E3) nor in the tie-break.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import LOWER_FRAME, SYMBOLS
from fantastiqa_rl.chance import RNG_ABBEY
from fantastiqa_rl.queries import find, kinds
from fantastiqa_rl.turn_flow import rules as turn_flow

ABBEY_CAP = 7                    # Q-B5: Abbey cards per player (or team)


# ------------------------------------------------------------------ public queries
def abbey_held(s, p: int) -> int:
    """Abbey cards held by p's side (summed per team, Q-TM2), toward the goal and the cap."""
    return sum(len(s.abbey[q]) for q in s.team(p))


def abbey_top(s) -> int:
    """The face-up Abbey card (instance id), or -1: none left, or the top is face down
    while the explorer decides ABBEY_CHOICE."""
    if not s.abbey_deck or s.phase == A.ABBEY_CHOICE:
        return -1
    return s.abbey_deck[-1]


# ------------------------------------------------------------------ helpers
def abbey_matches(s, p) -> list:
    """Hand kinds showing the face-up Abbey card's symbol (Q-B3: no wilds; a double or a
    Curious Companion matches if one of its symbols does)."""
    if not s.abbey_deck:
        return []
    sym = s.g.I_ABBEY_SYMBOL[s.abbey_deck[-1]]
    syms = s.g.K_SYMS
    return [k for k in kinds(s, s.hand[p]) if sym in syms[k]]


def why_no_explore(s, p) -> str:
    """Why p may not start exploring now ('' when it may; Q-B2, Q-B5)."""
    if not s.opts["abbey"]:
        return "the Abbey is not in play (option abbey=False)"
    if s.action_used:
        return "the turn action is already used (exploring is the Complete-a-Quest action)"
    if s.position[p] not in LOWER_FRAME:
        return (f"seat {p} stands at position {s.position[p]}; exploring needs one of the "
                f"positions {list(LOWER_FRAME)} framing the Abbey")
    if abbey_held(s, p) >= ABBEY_CAP:
        return f"{'the team' if s.teams else f'seat {p}'} already holds {ABBEY_CAP} Abbey cards"
    if not s.abbey_deck:
        return "no Abbey card is left to explore"
    if not abbey_matches(s, p):
        sym = SYMBOLS[s.g.I_ABBEY_SYMBOL[s.abbey_deck[-1]]]
        return f"no hand card shows {sym}, the symbol of the face-up Abbey card"
    return ""


def can_continue(s, p) -> bool:
    """Q-B4/Q-B5: a card left to flip and held + set aside below the cap."""
    return (abbey_held(s, p) + len(s.abbey_aside) < ABBEY_CAP
            and bool(s.abbey_deck or s.abbey_returned))


def abbey_refill(s):
    """Q-B5: with no face-down card left, shuffle the returned cards into a new deck."""
    if not s.abbey_deck and s.abbey_returned:
        s.abbey_deck, s.abbey_returned = s.abbey_returned, []
        s._rng(RNG_ABBEY).shuffle(s.abbey_deck)


def abbey_end(s, p, claim: bool):
    """Stop (claim, Q-B4) or fail (return rewards and cards, Q-B4); the action is spent."""
    r = s.abbey_reward
    if claim:
        s.abbey[p] += s.abbey_aside
        s.gems[p] += r[0]
        s.carpets[p] += r[1]
        s.reshuffles[p] += r[2]
    else:
        s.abbey_returned += s.abbey_aside
        s.supply_gems += r[0]
        s.supply_carpets += r[1]
        s.supply_reshuffles += r[2]
    s.abbey_aside, s.abbey_reward = [], [0, 0, 0]
    s.action_used = True
    s.phase = A.MAIN
    abbey_refill(s)
    if claim and turn_flow.goal_reached(s, p):   # Q-B1, Q-E1
        turn_flow.end(s, s.team(p), "goal")


# ------------------------------------------------------------------ decisions
def legal_abbey_match(s, p) -> list:
    L = s.g.layout
    return [L.hand + k for k in abbey_matches(s, p)] + ([] if s.abbey_aside else [A.CANCEL])


def legal_abbey_choice(s, p) -> list:
    L = s.g.layout
    return [L.abbey_stop] + ([L.abbey_continue] if can_continue(s, p) else [])


def start_exploring(s, p, j):
    """EXPLORE (the turn action C, Q-B2; legal only with the Abbey): MAIN's block of ids from the
    layout's explore, of which only j == 0 is legal."""
    s.abbey_aside, s.abbey_reward = [], [0, 0, 0]
    s.phase = A.ABBEY_MATCH


def apply_abbey_match(s, p, a):
    if a == A.CANCEL:
        s.phase = A.MAIN
        return
    g = s.g                                  # Q-B3
    i = find(s, s.hand[p], a - g.layout.hand)
    s.hand[p].remove(i)
    s.discard[p].append(i)
    c = s.abbey_deck.pop()
    s.abbey_aside.append(c)
    gems, carpets, resh = g.I_ABBEY_REWARD[c]
    s.abbey_reward[0] += s._take("supply_gems", gems)
    s.abbey_reward[1] += s._take("supply_carpets", carpets)
    s.abbey_reward[2] += s._take("supply_reshuffles", resh)
    s._draw(p, g.I_ABBEY_DRAW[c], s.hand[p])
    s.phase = A.ABBEY_CHOICE


def apply_abbey_choice(s, p, a):
    if a == s.g.layout.abbey_stop:
        abbey_end(s, p, claim=True)
        return
    abbey_refill(s)                        # flip the next card (Q-B4, Q-B5)
    s.phase = A.ABBEY_MATCH
    if not abbey_matches(s, p):
        abbey_end(s, p, claim=False)
