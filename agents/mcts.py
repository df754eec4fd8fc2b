"""Determinized Monte-Carlo tree search: single-observer information-set MCTS (SO-ISMCTS).

    bot = make_agent("fae", "mcts", seed=0)                      # Fae knowledge (see below)
    bot = MCTSAgent(seed=0, iterations=400)                      # any game: generic MCTS
    bot = make_agent("fantastiqa", "mcts", seed=0)               # tabletop_rl.agents.fantastiqa_mcts

One search per move, from the seat to move (the *observer*):

1. **Determinize.** Every iteration draws a full state with `state.sample_consistent(seat, rng)`:
   uniform over the states the seat cannot tell apart (in Fae: the other seats' colours). The
   search never reads the real state's hidden parts; it only ever sees determinizations.
2. **Select.** One tree is shared by all determinizations; its edges are actions. At each node
   the search considers only the children legal in this iteration's determinization and picks
   by UCB1 with *availability* counts (Cowling, Powley & Whitehouse 2012): a child's exploration
   term uses how often it was available, not the parent's visits. Each node keeps a value per
   seat and the player to move maximises their own (max^n), so 3-4 player tables work.
   With a `prior` (game knowledge, below) children are expanded in the prior's order under
   progressive widening: a node visited n times may have at most `ceil(widen * n ** 0.5)`
   children (at the root `root_widen`; with `root_widen=None` the root tries every action).
3. **Roll out / evaluate.** From the new leaf, play `rollout_depth` moves with the rollout policy
   (`None` = to the end of the game), then score every seat: the game's returns at a terminal
   state, else the evaluator (None: returns, i.e. 0 for unfinished games).
4. **Back up** the per-seat values along the path. The move played is the root child with the
   most visits (ties: best mean value, then lowest action id).

Budgets. `iterations` (default 400 generic, see `FAE_DEFAULTS` for Fae) fixes the work per move:
the same seed and the same position give the same move (reproducible). `time_limit` (seconds)
instead stops when the time is up; it is NOT reproducible (the number of iterations depends on
the machine's load), so the arena and the tests use iterations. `max_seconds` is a cap on top of
`iterations`: the search stops at `iterations` or after `max_seconds`, whichever comes first (at
least one iteration; the web app sets it to the bot's time budget, so a search cannot hold a
worker past it). The default None keeps the iterations budget, and its reproducibility, alone.

Generic defaults (`make_agent(game, "mcts")` for a game without its own knowledge): uniform random
rollouts to the end of the game, evaluation = the game's returns, no prior (plain UCT over the
legal actions). Fantastiqa's knowledge and search live in `tabletop_rl.agents.fantastiqa_mcts`.

Fae knowledge (`make_agent("fae", "mcts")`, `FAE_DEFAULTS`: 300 iterations, c = 0.7, root
progressive widening 2, no rollout):
- Prior (expansion order, at every node including the root): the moves that trigger a ritual
  (found from the board's adjacency without playing them), best first by the mover's immediate
  margin as the greedy bot computes it (own colour's gain + own cards - the best gain of any
  other colour; exact, from `fae_rl.margin`'s kernel over the determinization's row, pending
  rituals resolved in the best of every order, however many are pending), then all other moves in
  random order. Progressive widening
  (`ceil(2 * sqrt(n + 1))` children after n visits) makes the search spend its budget on the
  scoring moves and a few quiet ones, and on the opponents' punishing replies, which are the
  first children of their nodes.
- Evaluation: the leaf is scored directly (`rollout_depth=0`): for each seat p of the
  determinization, tanh(margin_p / 10) where margin_p is p's colour's final score (ritual
  points + p's ritual cards) minus the best other *player's*; terminal states use the game's
  returns (win/loss). Neutral colours only count through the players' margins.
- Rollout policy (used when `rollout_depth` > 0): `fae_rollout_policy`, with probability 0.9
  the mover's best ritual move if it gains margin, else a uniformly random legal move.
  2-ply tactical rollouts cost about twice as much per iteration without a clear gain in our
  small (60-game) comparisons against greedy, so the default scores the leaf directly.
"""
from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.registry import register_agent

__all__ = ["MCTSAgent", "FAE_DEFAULTS", "fae_evaluate", "fae_prior", "fae_rollout_policy", "random_rollout_policy"]


class _Node:
    __slots__ = ("children", "n", "w", "key", "key_set", "n_key", "extra", "order", "pos")

    def __init__(self, num_players: int):
        self.children: dict[int, _Node] = {}
        self.n = 0
        self.w = [0.0] * num_players
        self.key = None  # bytes of the first legal-action set seen at this node
        self.key_set: frozenset = frozenset()
        self.n_key = 0  # visits whose legal set equalled `key`
        self.extra: dict[int, int] = {}  # availability from visits with another legal set
        self.order: list[int] | None = None  # expansion order (prior), computed at first visit
        self.pos = 0  # next index of `order` to try

    def avail(self, a: int) -> int:
        return (self.n_key if a in self.key_set else 0) + self.extra.get(a, 0)


def random_rollout_policy(state, rng: np.random.Generator) -> int:
    legal = state.legal_actions()
    return int(legal[rng.integers(legal.size)])


class MCTSAgent(Agent):
    """SO-ISMCTS over `sample_consistent` determinizations (see the module docstring).

    Args:
        iterations: search iterations per move (reproducible budget). Must be >= 1.
        time_limit: seconds per move instead of `iterations` (not reproducible); None = off.
        max_seconds: a deadline on top of `iterations` (or `time_limit`): the search stops when
            this many seconds have passed, after at least one iteration; None = no deadline.
        c: UCB1 exploration constant (values are in [-1, 1]).
        rollout_depth: plies of rollout before evaluating; None = to the end of the game.
        rollout_policy: `policy(state, rng) -> action`; default uniform random.
        evaluate: `evaluate(state) -> per-seat values`, used at non-terminal leaves; default
            the game's returns.
        prior: `prior(state, rng) -> list of the legal actions, best first`; enables progressive
            widening below the root. Default None (plain UCT).
        widen: progressive-widening coefficient below the root (used with a prior).
        root_widen: progressive widening at the root too, with this coefficient (None: the
            root tries every legal action).
    """

    name = "mcts"
    uses_state = True
    needs_observation = False

    def __init__(self, seed: int | None = None, iterations: int = 400, time_limit: float | None = None,
                 c: float = 0.7, rollout_depth: int | None = None,
                 rollout_policy: Callable | None = None, evaluate: Callable | None = None,
                 prior: Callable | None = None, widen: float = 2.0, root_widen: float | None = None,
                 max_seconds: float | None = None):
        super().__init__(seed)
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
            raise ValueError(f"iterations must be an int >= 1; got {iterations!r}")
        if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds or None; got {time_limit!r}")
        if max_seconds is not None and (isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float))
                                        or not 0 < max_seconds < math.inf):
            raise ValueError(f"max_seconds must be a positive number of seconds or None; got {max_seconds!r}")
        if not (isinstance(c, (int, float)) and c >= 0):
            raise ValueError(f"c must be a number >= 0; got {c!r}")
        if rollout_depth is not None and (not isinstance(rollout_depth, (int, np.integer)) or rollout_depth < 0):
            raise ValueError(f"rollout_depth must be an int >= 0 or None; got {rollout_depth!r}")
        if not (isinstance(widen, (int, float)) and widen > 0):
            raise ValueError(f"widen must be a number > 0; got {widen!r}")
        if root_widen is not None and not (isinstance(root_widen, (int, float)) and root_widen > 0):
            raise ValueError(f"root_widen must be a number > 0 or None; got {root_widen!r}")
        self.iterations = int(iterations)
        self.time_limit = time_limit
        self.max_seconds = None if max_seconds is None else float(max_seconds)
        self.c = float(c)
        self.rollout_depth = rollout_depth
        self.rollout_policy = rollout_policy or random_rollout_policy
        self.evaluate = evaluate
        self.prior = prior
        self.widen = float(widen)
        self.root_widen = None if root_widen is None else float(root_widen)
        self.last_iterations = 0  # iterations run by the last act() (for reports)

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        if state is None or seat is None:
            raise ValueError("MCTSAgent.act needs state= and seat= (it searches determinizations of the rules state)")
        if state.is_terminal():
            raise ValueError("MCTSAgent.act: the game is over, there is nothing to play")
        if state.current_player != seat:
            raise ValueError(f"MCTSAgent.act: seat {seat} is not to move (seat {state.current_player} is)")
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("MCTSAgent.act: the action mask has no legal action")
        if legal.size == 1:
            self.last_iterations = 0
            return int(legal[0])
        return self.search(state, seat)

    def search(self, state, seat: int) -> int:
        rng = self.rng
        n_players = state.num_players
        root = _Node(n_players)
        deadline = self._deadline()
        it = 0
        while True:
            if self.time_limit is None and it >= self.iterations:
                break
            if it > 0 and deadline is not None and time.perf_counter() >= deadline:
                break
            it += 1
            self._iterate(root, state.sample_consistent(seat, rng), n_players)
        self.last_iterations = it
        return int(self._choose(root, seat))

    def _deadline(self) -> float | None:
        """The `time.perf_counter()` reading at which this search stops (`time_limit` or
        `max_seconds`, the sooner), or None when only `iterations` bounds it."""
        limits = [t for t in (self.time_limit, self.max_seconds) if t is not None]
        return time.perf_counter() + min(limits) if limits else None

    def _choose(self, root: _Node, seat: int) -> int:
        """The move played: the root child with the most visits (ties: best mean value, then lowest id)."""
        best, best_key = None, None
        for a, child in root.children.items():
            key = (child.n, child.w[seat] / child.n if child.n else -math.inf, -a)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    def _iterate(self, root: _Node, d, n_players: int) -> None:
        rng, c, prior, widen = self.rng, self.c, self.prior, self.widen
        node = root
        path = [root]
        while not d.is_terminal():
            legal = d.legal_actions()
            player = d.current_player
            key = legal.tobytes()
            if node.key is None:
                node.key = key
                node.key_set = frozenset(legal.tolist())
            if key == node.key:
                node.n_key += 1
                legal_list = None
            else:
                legal_list = legal.tolist()
                for a in legal_list:
                    node.extra[a] = node.extra.get(a, 0) + 1
            if node.order is None:
                if prior is not None and (node is not root or self.root_widen is not None):
                    node.order = list(prior(d, rng))
                else:
                    node.order = rng.permutation(legal).tolist()
            # Expand the next untried action if widening allows.
            children = node.children
            if prior is None or (node is root and self.root_widen is None):
                limit = math.inf  # plain UCT: every legal action is tried once before selection
            else:
                limit = math.ceil((self.root_widen if node is root else widen) * math.sqrt(node.n + 1))
            chosen = None
            if len(children) < limit and (legal_list is not None or node.pos < len(node.order)
                                          or len(children) < len(node.key_set)):
                legal_set = node.key_set if legal_list is None else set(legal_list)
                while node.pos < len(node.order):
                    a = node.order[node.pos]
                    node.pos += 1
                    if a in legal_set and a not in children:
                        chosen = a
                        break
                if chosen is None:  # the stored order is exhausted: try any untried legal action
                    for a in (legal.tolist() if legal_list is None else legal_list):
                        if a not in children:
                            chosen = a
                            break
            if chosen is not None:
                child = children[chosen] = _Node(n_players)
                d.apply(chosen)
                path.append(child)
                break
            # Select among the children legal here by UCB1 with availability counts.
            best, best_score = None, -math.inf
            if legal_list is None and not node.extra:
                # Every visit saw the same legal set: every child was available n_key times.
                c_log = c * math.sqrt(math.log(node.n_key))
                key_set = node.key_set
                for a, child in children.items():
                    if a in key_set:
                        n = child.n
                        score = child.w[player] / n + c_log / math.sqrt(n)
                        if score > best_score:
                            best, best_score = a, score
            else:
                allowed = node.key_set if legal_list is None else set(legal_list)
                for a, child in children.items():
                    if a in allowed:
                        score = child.w[player] / child.n + c * math.sqrt(math.log(node.avail(a)) / child.n)
                        if score > best_score:
                            best, best_score = a, score
            if best is None:
                # No child is legal in this determinization (its legal set differs from the
                # earlier ones'): expand an untried legal action, whatever the widening limit.
                best = next(a for a in legal.tolist() if a not in children)
                node = children[best] = _Node(n_players)
                d.apply(best)
                path.append(node)
                break
            node = children[best]
            d.apply(best)
            path.append(node)
        values = self._leaf_values(d, rng)
        for nd in path:
            nd.n += 1
            w = nd.w
            for i in range(n_players):
                w[i] += values[i]

    def _leaf_values(self, d, rng) -> list[float]:
        depth = self.rollout_depth
        policy = self.rollout_policy
        steps = 0
        while not d.is_terminal() and (depth is None or steps < depth):
            d.apply(policy(d, rng))
            steps += 1
        if d.is_terminal() or self.evaluate is None:
            return [float(v) for v in d.returns()]
        return [float(v) for v in self.evaluate(d)]


# ---------------------------------------------------------------------------------------------
# Fae knowledge (public board data and public state methods only; in a determinization every
# seat's colour is the sampled one, never the real one).

_FAE = None


def _fae_tables():
    """Adjacency matrix (60 x 60) and move sources from the public board data (built once)."""
    global _FAE
    if _FAE is None:
        from fae_rl.board import MOVE_SRC_ARRAY, NEIGHBOURS, NUM_MOVE_ACTIONS, NUM_SPACES

        adj = np.zeros((NUM_SPACES, NUM_SPACES), dtype=np.int64)
        for i, nbs in enumerate(NEIGHBOURS):
            adj[i, list(nbs)] = 1
        _FAE = (adj, MOVE_SRC_ARRAY, NUM_MOVE_ACTIONS)
    return _FAE


def _fae_ritual_moves(state) -> list[int]:
    """Legal moves that isolate at least one space (trigger a ritual), or the resolve actions.

    Moving out of `src` isolates exactly the occupied neighbours of `src` whose only occupied
    neighbour was `src` (the destination included), whatever the destination.
    """
    adj, move_src, n_moves = _fae_tables()
    legal = state.legal_actions()
    if legal.size == 0 or legal[0] >= n_moves:
        return legal.tolist()
    occupied = state.counts() > 0
    lonely = occupied & (adj @ occupied == 1)
    isolating = occupied & (adj @ lonely > 0)
    return legal[isolating[move_src[legal]]].tolist()


def _fae_scored_moves(state) -> list[tuple[float, int]]:
    """(margin, action) of each ritual move of the mover: the greedy bot's value (`fae_rl.margin`,
    pending rituals resolved in the best of every order, however many are pending)."""
    from fae_rl.margin import state_margins

    moves = _fae_ritual_moves(state)
    if not moves:
        return []
    values = state_margins(state)[moves].tolist()
    return list(zip(values, moves))


def fae_prior(state, rng: np.random.Generator) -> list[int]:
    """Ritual-triggering moves by the mover's greedy margin (best first), then the rest, shuffled."""
    scored = _fae_scored_moves(state)
    scored.sort(key=lambda t: (-t[0], t[1]))
    first = [a for _, a in scored]
    taken = set(first)
    rest = [a for a in rng.permutation(state.legal_actions()).tolist() if a not in taken]
    return first + rest


def fae_rollout_policy(state, rng: np.random.Generator, epsilon: float = 0.1) -> int:
    """Tactical rollout: the best ritual move if it gains margin (prob. 1 - epsilon), else random."""
    if rng.random() >= epsilon:
        scored = _fae_scored_moves(state)
        if scored:
            gain, a = max(scored, key=lambda t: (t[0], -t[1]))
            if gain > 0 or state.pending:
                return a
    legal = state.legal_actions()
    return int(legal[rng.integers(legal.size)])


FAE_SCALE = 10.0


def fae_evaluate(state) -> list[float]:
    """tanh(margin / 10) per seat: own colour's final score minus the best other player's."""
    final = state.final_colour_scores().tolist()
    mine = [final[c] for c in state.colours]
    out = []
    for p, v in enumerate(mine):
        best_other = max(mine[q] for q in range(len(mine)) if q != p)
        out.append(math.tanh((v - best_other) / FAE_SCALE))
    return out


FAE_DEFAULTS = dict(iterations=300, c=0.7, rollout_depth=0, rollout_policy=fae_rollout_policy,
                    evaluate=fae_evaluate, prior=fae_prior, widen=2.0, root_widen=2.0)


def _fae_mcts(seed=None, **kwargs) -> MCTSAgent:
    return MCTSAgent(seed=seed, **{**FAE_DEFAULTS, **kwargs})


register_agent("*", "mcts", MCTSAgent)
register_agent("fae", "mcts", _fae_mcts)
