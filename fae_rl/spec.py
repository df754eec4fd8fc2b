"""Fae's entry in the suite registry (`tabletop_rl.envs.get_game("fae")`)."""
from tabletop_rl.envs.registry import GameSpec, register_game
from fae_rl import ENV_ID, FaeState, action_mask, env, raw_env
from fae_rl.environment import potential
from fae_rl.features import observe_features
from fae_rl.options import RULE_OPTIONS
from fae_rl.render import render_rgb, render_text, view_text

GAME_SPEC = GameSpec(
    name="fae",
    env_id=ENV_ID,
    env=env,
    raw_env=raw_env,
    new_state=FaeState.new,
    observe=observe_features,
    action_mask=action_mask,
    rule_options=tuple(o.name for o in RULE_OPTIONS),
    option_table=RULE_OPTIONS,
    observation_options=("history", "action_features"),
    gym_id="fae_rl/Fae-v0",
    potential=potential,
    render_text=render_text,
    render_rgb=render_rgb,
    view_text=view_text,  # what a human at a seat sees (tabletop_rl.agents.human)
)
register_game(GAME_SPEC)
