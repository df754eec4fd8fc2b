"""Searching one turn exhaustively: in-turn cycles, the longest turn, and where a turn can end (Q-T2).

`search_turn(state)` explores breadth-first every position the mover can reach without ending the
turn, keying positions by the state dict without the chance generators (`turn_key`), up to
`max_states` positions. From the explored graph it reports an in-turn cycle (a sequence of actions
that returns to an identical position, so a turn that need not end), the most steps the turn can
take (when the search is complete and found no cycle), and the set of end-of-turn positions (the
positions right after the action that ends the turn, or the game, or that opens the END_DISCARD
decision: a decision without cycles, each of its steps but DONE discards a hand card, whose
orders of discarding would multiply the positions by up to 5!). A draw's shuffle is played with
the generator state the position was first reached with, so chance is one fixed outcome per
position: a sound check for cycles, which never need chance.

Used by tests/test_fantastiqa_turns.py (a few sampled states) and benchmarks/check_fantastiqa_turns.py
(many); with turn_loops="allow" (the unbounded reading) the same search finds the old loops.
"""
from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey import ABBEY_CAP
from fantastiqa_rl.board import NUM_OPEN_QUESTS, NUM_SPACES
from fantastiqa_rl.options import CANCEL_BUDGET
from fantastiqa_rl.state import FantastiqaState
from fantastiqa_rl.statues import RELEASE_MAX, STATUE_REVEAL

# Card lists compared as multisets by `end_key`: the rules never read their order, except a deck's,
# which a shuffle decides anyway.
_PLAYER_CARD_LISTS = ("deck", "hand", "discard")


def turn_key(s) -> str:
    """The position: the state dict without the generators (the key of the search)."""
    d = s.to_dict()
    del d["rng"]
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def end_key(s) -> str:
    """An end-of-turn position up to the order of the cards in each player's deck, hand, discard
    and committed piles and in the box (CANCEL returns cards to the end of the hand), and without
    the turn's bookkeeping (`turn`: nothing after the end reads it, and the next turn resets it;
    it is left over only where the search stops, at END_DISCARD or the end of the game, e.g. the
    target of an adventure step paid for and then cancelled)."""
    d = s.to_dict()
    del d["rng"], d["turn"]
    for pl in d["players"]:
        for f in _PLAYER_CARD_LISTS:
            pl[f] = sorted(pl[f])
        pl["committed"] = {q: sorted(c) for q, c in pl["committed"].items()}
    d["box"] = sorted(d["box"])
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


@dataclass
class TurnSearch:
    """What `search_turn` found from one position."""
    states: int                          # in-turn positions explored
    complete: bool                       # every in-turn position was explored (no cap reached)
    cycle: list | None                   # actions of an in-turn cycle from `cycle_at`, or None
    longest: int | None                  # most steps to the end of the turn (complete and acyclic only)
    ends: set = field(default_factory=set)   # `end_key`s of the end-of-turn positions
    cycle_at: object = None              # the position the cycle starts from (a FantastiqaState)
    dead: int = 0                        # explored positions without a legal action (must be 0)


def _in_turn(s, seat: int, turns: int) -> bool:
    return s.phase != A.TERMINAL and s.cur == seat and s.turns == turns and s.phase != A.END_DISCARD


def _steps_to_end(s, seat: int, turns: int) -> int:
    """1 for an end of the turn; from the END_DISCARD decision, 1 + the most steps it can take:
    it has no cycle (each step but DONE discards a hand card), so the search stops there."""
    if s.phase == A.END_DISCARD and s.cur == seat and s.turns == turns:
        return 2 + len(s.hand[seat])
    return 1


def search_turn(root, max_states: int = 5000, key=turn_key) -> TurnSearch:
    """Breadth-first over the positions of the mover's current turn from `root` (not changed),
    positions keyed by `key(state)`."""
    seat, turns = root.cur, root.turns
    keys = {key(root): 0}
    states, edges = [root], [[]]        # edges[u]: (action, v) to in-turn positions
    ends: set = set()
    leaves_end = [0]                     # most steps from u to the end through an end-leaving action
    queue, complete, dead = deque([0]), True, 0
    while queue:
        u = queue.popleft()
        s = states[u]
        dead += s.legal_actions().size == 0
        for a in s.legal_actions().tolist():
            c = s.clone()
            c.apply(a)
            if not _in_turn(c, seat, turns):
                ends.add(end_key(c))
                leaves_end[u] = max(leaves_end[u], _steps_to_end(c, seat, turns))
                continue
            k = key(c)
            v = keys.get(k)
            if v is None:
                if len(states) >= max_states:
                    complete = False
                    continue
                v = keys[k] = len(states)
                states.append(c)
                edges.append([])
                leaves_end.append(0)
                queue.append(v)
            edges[u].append((a, v))
    at, cycle = _find_cycle(edges)
    longest = _longest(edges, leaves_end) if complete and cycle is None else None
    return TurnSearch(len(states), complete, cycle, longest, ends, None if cycle is None else states[at], dead)


def _topological(edges) -> tuple[list, list]:
    """Kahn's algorithm: (an order of the nodes not on or behind a cycle, in-degrees left)."""
    indeg = [0] * len(edges)
    for out in edges:
        for _, v in out:
            indeg[v] += 1
    order = [u for u in range(len(edges)) if indeg[u] == 0]
    i = 0
    while i < len(order):
        for _, v in edges[order[i]]:
            indeg[v] -= 1
            if indeg[v] == 0:
                order.append(v)
        i += 1
    return order, indeg


def _find_cycle(edges) -> tuple:
    """(a node, the actions of a directed cycle from it), or (None, None) when there is none."""
    order, indeg = _topological(edges)
    if len(order) == len(edges):
        return None, None
    # Kahn's leftovers lie on a cycle or behind one, and each has an in-edge from a leftover, so
    # walking in-edges backwards within them must come round to a node already walked
    pred = {}
    for u, out in enumerate(edges):
        if indeg[u] > 0:
            for a, v in out:
                if indeg[v] > 0:
                    pred.setdefault(v, (u, a))
    v = next(iter(pred))
    walked = []
    at = {}
    while v not in at:
        at[v] = len(walked)
        u, a = pred[v]
        walked.append(a)
        v = u
    return v, walked[at[v]:][::-1]


def _longest(edges, leaves_end) -> int:
    """Most steps from node 0 to the end of the turn in an acyclic graph."""
    order, _ = _topological(edges)
    best = [-1] * len(edges)            # most steps from u to the end of the turn; -1: none
    for u in reversed(order):
        b = leaves_end[u] if leaves_end[u] else -1
        for _, v in edges[u]:
            if best[v] >= 0:
                b = max(b, best[v] + 1)
        best[u] = b
    return best[0]


def turn_step_bound(s) -> int:
    """Q-T2's bound on the steps left in the mover's turn at position s (rules turn_loops="forbid"
    and mark_return="forbid"); the proof, term by term, is docs/rules/fantastiqa.md, Q-T2. Loose
    by design: each term charges the steps a resource can pay for."""
    g, p = s.g, s.cur
    effects = g.K_EFFECTS
    dx = max(sum(x if op == "draw" else y if op == "draw_keep" else 0 for op, x, y in es) for es in effects)
    ex = max(sum({"double_symbols": 1, "draw_keep": y, "give_card": 2, "swap_creatures": 2}.get(op, 0)
                 for op, x, y in es) for es in effects)
    gx = max(sum(x for op, x, y in es if op in ("gain_carpet", "gain_reshuffle")) for es in effects)
    rq = max(c + r for _, c, r in g.Q_REWARD)
    ra = ABBEY_CAP * max((c + r for _, c, r in (x for x in g.I_ABBEY_REWARD if x)), default=0)
    da = ABBEY_CAP * max(g.I_ABBEY_DRAW, default=0)
    lmax = max(2 * max(g.K_STRENGTH), max(sum(n for _, n in need) for need in g.Q_NEEDS), RELEASE_MAX)
    committed = sum(len(c) for c in s.committed[p].values())
    # N: the cards p holds or can buy; each is played for its power at most once a turn
    n = (len(s.deck[p]) + len(s.hand[p]) + len(s.discard[p]) + committed + len(s.artifact_deck)
         + len(s.beast_deck) + len(s.revealed) + len(s.pay) + len(s.adventure) + len(s.release_from_discard))
    cb = CANCEL_BUDGET
    arrivals = len(s.hand[p]) + len(s.pay) + n * dx + da + n      # cards that can come into the hand
    tokens = s.carpets[p] + s.reshuffles[p] + n * gx + rq + ra    # carpet and reshuffle uses
    openings = 1 + cb + tokens + n        # turn actions opened: 1 done, the rest CANCELled
    visits = openings + n                 # statue options: the action, cancelled ones, KEYs
    return (2 + arrivals                                  # DONE, END_DISCARD
            + 2 * openings                                # MAIN step + CANCEL
            + 2 * NUM_SPACES + 1 + 2 * cb                 # the adventure: subdues, DONE, re-opened pays
            + visits * (2 + STATUE_REVEAL + RELEASE_MAX + 1) + n    # statue steps (+1 per PLUS_STATUE)
            + arrivals + cb * lmax                        # payment picks
            + n * (3 + ex)                                # plays: FREE_ACTION, HAND, target/move, effects
            + 3 * tokens + 2 * NUM_OPEN_QUESTS            # carpets, reshuffles, MARKs
            + 3 * arrivals + 3 * (committed + arrivals)   # commits, withdraws
            + 2 * ABBEY_CAP + 1)                          # Abbey matches and choices, the quest CONFIRM


def with_options(s, **options):
    """The same position under other rule options (through the state dict, so validated)."""
    d = s.to_dict()
    d["options"].update(options)
    return FantastiqaState.from_dict(d)


def sample_states(num_players: int, seed: int, count: int, rate: float = 0.05, **options) -> list:
    """Up to `count` in-turn positions (MAIN or ADV_MOVE decisions) of one uniformly random game
    from `seed`, each kept with probability `rate` (one numpy Generator from the seed)."""
    rng = np.random.default_rng(seed)
    s = FantastiqaState.new(num_players, seed=seed, **options)
    out = []
    while not s.is_terminal() and len(out) < count:
        if s.phase in (A.MAIN, A.ADV_MOVE) and rng.random() < rate:
            out.append(s.clone())
        la = s.legal_actions()
        s.apply(int(la[rng.integers(la.size)]))
    return out


# (num_players, rule options): 2-4 players, every rule option value off its default, the Abbey and
# teams; the fuzz of Q-T2 (tests/test_fantastiqa_turns.py, benchmarks/check_fantastiqa_turns.py)
OPTION_SETS = (
    (2, {}), (3, {}), (4, {}), (2, {"goal": "long"}),
    (2, {"adventure_path": "loops"}), (2, {"fly_in_adventure": False}), (3, {"bought_to": "hand"}),
    (2, {"card_use": "both"}), (3, {"draw_rule": "draw_5"}), (2, {"abbey": True}), (3, {"abbey": True}),
    (4, {"teams": True}), (4, {"teams": True, "abbey": True}), (2, {"abbey": True, "card_use": "both"}),
)
_SETUP = (A.SETUP_QUEST, A.SETUP_ARTIFACT, A.SETUP_PLACE)


def fuzz_game(num_players: int, seed: int, options: dict, cancel_rate: float = 0.7, turn_limit: int = 8,
              choose=None) -> dict:
    """One random game that backs out (CANCEL) with probability `cancel_rate` wherever the rules
    let it, to spend the budget; otherwise `choose(state, rng)` picks the move when given (a bot;
    the benchmark passes the greedy bot), else a uniformly random legal one. Raises AssertionError
    at a decision without a legal action or a turn longer than `turn_step_bound` of its first MAIN
    decision; returns steps, turns and the longest turn (steps) and its bound."""
    s = FantastiqaState.new(num_players, seed=seed, turn_limit=turn_limit, **options)
    rng = np.random.default_rng(seed)
    start, bound, steps, total, longest, longest_bound = None, None, 0, 0, 0, 0
    while not s.is_terminal():
        la = s.legal_actions()
        if la.size == 0:
            raise AssertionError(f"seed {seed}: no legal action in {s.phase_name}")
        if s.phase not in _SETUP:
            if (s.cur, s.turns) != start:
                start, bound, steps = (s.cur, s.turns), turn_step_bound(s), 0
            steps += 1
            if steps > bound:
                raise AssertionError(f"seed {seed}: turn {s.turns} took more than its bound {bound} steps")
            if steps > longest:
                longest, longest_bound = steps, bound
        if A.CANCEL in la and rng.random() < cancel_rate:
            a = A.CANCEL
        else:
            a = int(la[rng.integers(la.size)]) if choose is None else int(choose(s, rng))
        s.apply(a)
        total += 1
    return {"steps": total, "turns": s.turns, "longest_turn": longest, "its_bound": longest_bound}
