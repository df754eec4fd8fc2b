"""The flow of a Fantastiqa game on the scalar core, as plain functions of a `FantastiqaState` `s`:
the deal and the setup (`setup`, `finish_setup`; Q-S1..Q-S6), the start of a turn with the board
replenished (`start_turn`, `reset_turn`, `replenish`, `raven`; Q-R1..Q-R4), the end of a turn
(`end_turn`, the END_DISCARD decision `legal_end_discard` / `apply_end_discard`, `finish_turn`; Q-T1,
drawing with Q-X1's reshuffle: the state's `_draw`, shared with the powers' effects and the Abbey), and the end of the game (`goal_reached`, `end_by_score`, `end`;
Q-E1..Q-E5, Q-TM2). `FantastiqaState.new` calls `setup`; `fantastiqa_rl.rules` calls
`finish_setup` (the last SETUP_PLACE), `end_turn` (MAIN's DONE, `rules.MAIN_FIXED`), the END_DISCARD
pair (`decisions.py`'s table), `goal_reached` and `end` (a completed quest); the Abbey calls them too.
Their batched ports are `fantastiqa_rl.turn_flow.kernels`.
"""
from __future__ import annotations

from fantastiqa_rl import actions as A
from fantastiqa_rl.board import BAZAAR, CHEST, NUM_OPEN_QUESTS, NUM_POSITIONS, NUM_SPACES, TOWER
from fantastiqa_rl.chance import (RNG_ABBEY, RNG_BAZAAR, RNG_CREATURE, RNG_QUEST, RNG_SEAT0, RNG_SETUP,
                                  RNG_TOWER)
from fantastiqa_rl.powers import held_in_play
from fantastiqa_rl.queries import find, kinds

HAND_SIZE = 5                    # Q-S6, Q-T1: cards in hand after the draw
START_TOKENS = 3                 # Q-S3: gems, flying carpets and reshuffle tokens of each seat
RAVEN_GEMS = 5                   # Q-R3: the Raven takes half from the richest holding this many
RAVEN_DEPTH = 10                 # Q-R3: a Raven of the game-start fill goes into this many top cards


def setup(s):
    """The deal (Q-S2, Q-S3): board, decks, supply, starting cards and tokens; then the setup
    decisions start with the last seat (Q-S4)."""
    g, n = s.g, s.n
    r = s._rng(RNG_SETUP)
    s.region_at = tuple(int(x) for x in r.permutation(NUM_POSITIONS))
    s.statue_at = tuple(int(x) for x in r.permutation([TOWER, TOWER, BAZAAR, BAZAAR, CHEST, CHEST]))
    s.name_pos = tuple(s.region_at.index(x) for x in range(NUM_POSITIONS))
    # Q-S2: sections shuffled one by one; section I on top (= end of the list).
    s.creature_deck = []
    for sec in sorted(g.sections, reverse=True):
        part = list(g.sections[sec])
        s._rng(RNG_CREATURE).shuffle(part)
        s.creature_deck += part
    s.artifact_deck, s.beast_deck, s.quest_deck = list(g.artifacts), list(g.beasts), list(g.quests)
    s._rng(RNG_TOWER).shuffle(s.artifact_deck)
    s._rng(RNG_BAZAAR).shuffle(s.beast_deck)
    s._rng(RNG_QUEST).shuffle(s.quest_deck)
    s.board, s.board_gems = [-1] * NUM_SPACES, [0] * NUM_SPACES
    s.open_quests, s.open_bonus = [-1] * NUM_OPEN_QUESTS, [0] * NUM_OPEN_QUESTS
    sup = g.cs.supply
    s.supply_gems, s.supply_carpets = sup["gems"], sup["carpets"]
    s.supply_reshuffles, s.supply_bonus_tokens = sup["reshuffles"], sup["bonus_tokens"]
    s.dragons = list(g.dragon_supply)
    s.abbey_deck, s.abbey_returned, s.abbey_aside, s.abbey_reward = [], [], [], [0, 0, 0]
    if s.opts["abbey"]:                      # Q-B1: the Abbey deck, top card face up
        s.box = list(g.box)
        s.abbey_deck = list(g.abbey)
        s._rng(RNG_ABBEY).shuffle(s.abbey_deck)
    else:
        s.box = list(g.box) + list(g.abbey)  # abbey=False: the Abbey cards stay boxed
    s.deck = [[] for _ in range(n)]
    s.hand = [list(g.start_cards[p]) for p in range(n)]   # held aside until Q-S6
    s.discard = [[] for _ in range(n)]
    s.quests = [[] for _ in range(n)]
    s.completed = [[] for _ in range(n)]
    s.abbey = [[] for _ in range(n)]
    s.committed = [{} for _ in range(n)]
    s.scores, s.bonus_tokens = [0] * n, [0] * n
    s.gems, s.carpets, s.reshuffles = [0] * n, [0] * n, [0] * n
    for p in range(n):     # Q-S3, from the general supply
        s.gems[p] = s._take("supply_gems", START_TOKENS)
        s.carpets[p] = s._take("supply_carpets", START_TOKENS)
        s.reshuffles[p] = s._take("supply_reshuffles", START_TOKENS)
    s.position, s.quest_token = [-1] * n, [-1] * n
    s.offer_quests, s.offer_artifacts = list(g.start_quests), list(g.start_artifacts)
    s.turns, s.cur, s.phase = 0, n - 1, A.SETUP_QUEST     # Q-S4: reverse seat order
    s.winners_ = None
    s.end_reason = ""
    reset_turn(s)
    s._legal = None


def reset_turn(s):
    s.action_used, s.plus_statue, s.visited, s.prev = False, 0, 0, -1
    s.target, s.count, s.key, s.reason, s.ret = -1, 0, False, 0, A.MAIN
    s.boosted, s.powered, s.adventure, s.pay = [], [], [], []
    s.revealed, s.effects, s.in_play, s.release_from_discard = [], [], [], []
    s.token_left = []      # open quests the mover's token left this turn (mark_return="forbid")
    s.cancels = 0          # CANCELs taken this turn (Q-T2's budget, turn_loops="forbid")


def finish_setup(s):
    """Q-S5, Q-S6, then seat 0's first turn."""
    r = s._rng(RNG_SETUP)
    rest = list(s.offer_quests)
    r.shuffle(rest)
    for j in range(NUM_OPEN_QUESTS):
        s.open_quests[j] = rest.pop()
        s.open_bonus[j] = s._take("supply_bonus_tokens", 1)
    s.box += rest + s.offer_artifacts
    s.offer_quests, s.offer_artifacts = [], []
    for p in range(s.n):
        s.deck[p] = s.hand[p]
        s.hand[p] = []
        s._rng(RNG_SEAT0 + p).shuffle(s.deck[p])
        s._draw(p, HAND_SIZE, s.hand[p])
    s.cur = 0
    start_turn(s, game_start=True)


def start_turn(s, game_start):
    reset_turn(s)
    replenish(s, game_start)
    if s.phase != A.TERMINAL:
        s.phase = A.MAIN


def replenish(s, game_start):
    """Q-R1..Q-R4."""
    g, deck = s.g, s.creature_deck
    aside = []
    for c in range(NUM_SPACES):
        while s.board[c] < 0:
            if not deck:                        # Q-R2
                end_by_score(s, "creature deck empty")
                return
            i = deck.pop()
            if g.I_IS_RAVEN[i]:
                if game_start:
                    aside.append(i)
                else:
                    raven(s)
                    s.box.append(i)
                continue
            s.board[c] = i
            if g.K_GEM[g.I_HAND_KIND[i]]:
                s.board_gems[c] = s._take("supply_gems", 1)
    if aside:                                   # Q-R3: into the top 10 cards
        t = min(RAVEN_DEPTH, len(deck))
        top = deck[len(deck) - t:] + aside
        s._rng(RNG_CREATURE).shuffle(top)
        del deck[len(deck) - t:]
        deck += top
    for j in range(NUM_OPEN_QUESTS):                            # Q-R4
        if s.open_quests[j] < 0 and s.quest_deck:
            s.open_quests[j] = s.quest_deck.pop()
            s.open_bonus[j] = s._take("supply_bonus_tokens", 1)


def raven(s):
    """Q-R3: every seat tied for the most gems, with RAVEN_GEMS or more, loses half to the supply."""
    mx = max(s.gems)
    if mx >= RAVEN_GEMS:
        for o in range(s.n):
            if s.gems[o] == mx:
                s.gems[o] -= mx // 2
                s.supply_gems += mx // 2


def end_turn(s, p):
    if s.powered:                            # the cards used for their power go now (Q-T1)
        for i in s.powered:
            if held_in_play(s.opts, s.g, i):
                s.discard[p].append(i)
            elif i in s.hand[p]:             # card_use="both": it stayed in hand
                s.hand[p].remove(i)
                s.discard[p].append(i)
        s.powered = []
    if s.hand[p]:
        s.phase = A.END_DISCARD
    else:
        finish_turn(s, p)


def finish_turn(s, p):
    n = HAND_SIZE - len(s.hand[p]) if s.opts["draw_rule"] == "up_to_5" else HAND_SIZE
    s._draw(p, max(0, n), s.hand[p])
    s.turns += 1
    limit = s.opts["turn_limit"]
    if limit is not None and s.turns >= limit * s.n:      # Q-E5
        end_by_score(s, "turn_limit")
        return
    s.cur = (p + 1) % s.n
    start_turn(s, game_start=False)


def legal_end_discard(s, p) -> list:
    return [A.DONE] + [s.g.layout.hand + k for k in kinds(s, s.hand[p])]


def apply_end_discard(s, p, a):
    if a == A.DONE:
        finish_turn(s, p)
    else:
        i = find(s, s.hand[p], a - s.g.layout.hand)
        s.hand[p].remove(i)
        s.discard[p].append(i)


def goal_reached(s, p) -> bool:
    """Q-E1 / Q-B1 / Q-TM2: p's side meets a goal line."""
    pts, lines = s.side_score(p), s.goal_lines
    if len(lines) == 1 and lines[0][1] == 0:
        return pts >= lines[0][0]
    ab = s.abbey_held(p)
    return any(pts >= a and ab >= b for a, b in lines)


def end_by_score(s, reason):
    """Q-E2..Q-E4 (the creature deck ran out) and Q-E5 (the turn limit): highest final score;
    then completed quests, then gems; else shared."""
    fs = s.final_scores()
    keys = [tuple(sum(x) for x in zip(*((fs[q], len(s.completed[q]), s.gems[q])
                                         for q in s.team(p)))) for p in range(s.n)]
    best = max(keys)
    end(s, [p for p in range(s.n) if keys[p] == best], reason)


def end(s, winners, reason):
    s.winners_ = winners
    s.end_reason = reason
    s.phase = A.TERMINAL
    s._legal = None
