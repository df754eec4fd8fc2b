"""Fantastiqa's entry in the suite registry (`tabletop_rl.envs.get_game("fantastiqa")`).

Importing this module also
- attaches `information_state(seat)` and `sample_consistent(seat, rng)` to `FantastiqaState`
  (from `fantastiqa_rl.information`; the generic MCTS determinizes with the latter) unless the
  core already defines them;
- registers `fantastiqa_v1` with PettingZoo and `fantastiqa_rl/Fantastiqa-v0` with Gymnasium.

The bots (greedy, MCTS with Fantastiqa knowledge) live in `tabletop_rl.agents`: a game package
never imports them.
"""
from __future__ import annotations

from tabletop_rl.envs.registry import GameSpec, register_game
from fantastiqa_rl.environment import ENV_ID, GYM_ID, env, potential, raw_env, register_envs
from fantastiqa_rl.information import attach
from fantastiqa_rl.card_view import observe_view
from fantastiqa_rl.observation import action_mask
from fantastiqa_rl.options import RULE_OPTIONS
from fantastiqa_rl.render import render_rgb, render_text, view_text
from fantastiqa_rl.state import FantastiqaState

attach()
register_envs()


GAME_SPEC = GameSpec(
    name="fantastiqa",
    env_id=ENV_ID,
    env=env,
    raw_env=raw_env,
    new_state=FantastiqaState.new,
    observe=observe_view,  # observation option `view`: "flat" (version 1, the default) or "cards" (fantastiqa_rl.card_view)
    action_mask=action_mask,
    rule_options=tuple(o.name for o in RULE_OPTIONS),
    option_table=RULE_OPTIONS,
    observation_options=("view",),
    gym_id=GYM_ID,
    potential=potential,
    render_text=render_text,
    render_rgb=render_rgb,
    view_text=view_text,  # what a human at a seat sees (tabletop_rl.agents.human)
    max_steps=50_000,  # the step guard of SelfPlayEnv and training's evaluation (with turn_loops="allow" or
    # mark_return="allow" a turn can loop; under Q-T2 every turn ends)
)
register_game(GAME_SPEC)
