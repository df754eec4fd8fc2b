"""Fantastiqa's entry in the suite registry (`envs.get_game("fantastiqa")`).

Importing this module also
- attaches `information_state(seat)` and `sample_consistent(seat, rng)` to `FantastiqaState`
  (from `fantastiqa_rl.information`; the generic MCTS determinizes with the latter) unless the
  core already defines them;
- registers `fantastiqa_v0` with PettingZoo and `fantastiqa_rl/Fantastiqa-v0` with Gymnasium;
- registers the bot ("fantastiqa", "mcts"): the suite's IS-MCTS with Fantastiqa knowledge
  (`FANTASTIQA_MCTS_DEFAULTS`). Uniform-random rollouts are useless here (random games last
  thousands of steps and rarely score), so: expansion order = the greedy bot's move first
  (progressive widening at every node, coefficient 1), rollouts = 60 steps of epsilon-greedy
  play (the greedy bot, 10% random), leaf value = `fantastiqa_evaluate`. The greedy bot reads
  only the determinization, so the search still never sees the real hidden state.
"""
from __future__ import annotations

import math

from envs.registry import GameSpec, register_game
from fantastiqa_rl.environment import ENV_ID, GYM_ID, env, potential, raw_env, register_envs
from fantastiqa_rl.information import attach
from fantastiqa_rl.observation import action_mask, observe
from fantastiqa_rl.render import render_rgb, render_text
from fantastiqa_rl.state import FantastiqaState

attach()
register_envs()

RULE_OPTIONS = ("goal", "card_set", "adventure_path", "fly_in_adventure", "bought_to", "card_use", "draw_rule",
                "abbey", "teams", "mark_return")

GAME_SPEC = GameSpec(
    name="fantastiqa",
    env_id=ENV_ID,
    env=env,
    raw_env=raw_env,
    new_state=FantastiqaState.new,
    observe=observe,
    action_mask=action_mask,
    rule_options=RULE_OPTIONS,
    observation_options=(),
    gym_id=GYM_ID,
    # max_steps: the step guard of SelfPlayEnv and train.py's evaluation (a turn can loop on free actions).
    extra={"potential": potential, "render_text": render_text, "render_rgb": render_rgb, "max_steps": 50_000},
)
register_game(GAME_SPEC)


# ------------------------------------------------------------------------------- MCTS knowledge
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
        from agents.registry import make_agent

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
    from agents.mcts import MCTSAgent

    return MCTSAgent(seed=seed, **{**FANTASTIQA_MCTS_DEFAULTS, **kwargs})


def _register_bots() -> None:
    from agents.registry import register_agent

    register_agent("fantastiqa", "mcts", _fantastiqa_mcts)


_register_bots()
