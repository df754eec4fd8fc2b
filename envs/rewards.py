"""The suite's reward names, declared once (every env, learner and CLI reads them from here).

- `"win_loss"` (`WIN_LOSS`): the game's returns at the end (k winners of N get +1/k each, losers
  -1/(N-k) each; all 0 if everyone wins), 0 before.
- `"score_diff"` (`SCORE_DIFF`): the change of the game's public potential, `GameSpec.potential(state,
  seat)` (the seat's side's score minus the best opposing side's; potential-based shaping). Every
  AEC env pays these two (`AEC_REWARDS`), and so do `SelfPlayEnv` and the RLlib env.

A game's batched learner may pay more potentials, each declared by its game beside its code and
named in its batch's `POTENTIALS`: Fae's `"seat_diff"` (`tabletop_rl.envs.fae_batch`), Fantastiqa's
`"progress"` (`fantastiqa_rl.rewards`). The learner core takes `WIN_LOSS` or one of those
(`learner_rewards`).
"""
from __future__ import annotations

from tabletop_rl.shown import shown

WIN_LOSS = "win_loss"
SCORE_DIFF = "score_diff"
AEC_REWARDS = (WIN_LOSS, SCORE_DIFF)


def learner_rewards(potentials) -> tuple[str, ...]:
    """The rewards a learner over a batch with these potential names pays: win_loss, then them."""
    return (WIN_LOSS, *potentials)


def check_reward(reward, allowed=AEC_REWARDS) -> str:
    """`reward` if it is one of `allowed`; a ValueError naming them otherwise."""
    if not isinstance(reward, str) or reward not in allowed:
        raise ValueError(f"reward must be one of {tuple(allowed)}; got {shown(reward)}")
    return reward


__all__ = ["WIN_LOSS", "SCORE_DIFF", "AEC_REWARDS", "learner_rewards", "check_reward"]
