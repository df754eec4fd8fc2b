"""Fantastiqa knowledge for the suite's IS-MCTS: leaf evaluation, greedy-guided rollouts, expansion order.

Uniform-random rollouts are useless here (random games last thousands of steps and rarely score),
so: expansion order = the greedy bot's move first (progressive widening at every node, coefficient
1), rollouts = 60 steps of epsilon-greedy play (the greedy bot, 10% random), leaf value =
`fantastiqa_evaluate`. The greedy bot reads only the determinization, so the search still never
sees the real hidden state.

Registered as ("fantastiqa", "mcts") when `tabletop_rl.agents` is imported, whatever else was
imported before (the game package knows nothing of bots).
"""
from __future__ import annotations

import math

from fantastiqa_rl.observation import action_mask
from tabletop_rl.agents.mcts import MCTSAgent
from tabletop_rl.agents.registry import make_agent, register_agent

FANTASTIQA_EVAL_SCALE = 3.0


def fantastiqa_evaluate(state) -> list:
    """Per seat: tanh((own progress - best other's) / 3), progress = score (quest points and
    bonus tokens) + 0.15 x gems. Terminal states use the game's returns (the MCTS does that)."""
    n = state.n
    # A side is a seat, or a team (teams=True): partners share one value (Q-TM4).
    prog = [sum(state.scores[q] + 0.15 * state.gems[q] for q in state.team(p)) for p in range(n)]
    out = []
    for p in range(n):
        best = max(prog[q] for q in range(n) if state.is_opponent(p, q))
        out.append(math.tanh((prog[p] - best) / FANTASTIQA_EVAL_SCALE))
    return out


_ROLLOUT_BOT = None


def fantastiqa_rollout_policy(state, rng, epsilon: float = 0.1) -> int:
    """The greedy bot's move for the seat to move (of the determinization), or with probability
    `epsilon` a uniformly random legal move."""
    global _ROLLOUT_BOT
    legal = state.legal_actions()
    if rng.random() < epsilon:
        return int(legal[rng.integers(legal.size)])
    if _ROLLOUT_BOT is None:
        _ROLLOUT_BOT = make_agent("fantastiqa", "greedy", seed=0)
    seat = state.current_player
    mask = action_mask(state, seat)
    a = int(_ROLLOUT_BOT.act(None, mask, state=state, seat=seat))
    return a if mask[a] else int(legal[rng.integers(legal.size)])


def fantastiqa_prior(state, rng) -> list:
    """Expansion order: the greedy bot's move first, then the other legal moves in random order."""
    first = fantastiqa_rollout_policy(state, rng, epsilon=0.0)
    return [first] + [a for a in rng.permutation(state.legal_actions()).tolist() if a != first]


FANTASTIQA_MCTS_DEFAULTS = dict(iterations=100, c=0.7, rollout_depth=60, rollout_policy=fantastiqa_rollout_policy,
                                evaluate=fantastiqa_evaluate, prior=fantastiqa_prior, widen=1.0, root_widen=1.0)


def _fantastiqa_mcts(seed=None, **kwargs):
    return MCTSAgent(seed=seed, **{**FANTASTIQA_MCTS_DEFAULTS, **kwargs})


register_agent("fantastiqa", "mcts", _fantastiqa_mcts)
