"""Fae as a PettingZoo AEC environment, over an exact, fast rules core.

    import fae_rl
    env = fae_rl.env(num_players=2)          # PettingZoo AEC env, id "fae_v0"
    state = fae_rl.FaeState.new(2, seed=0)    # the rules core, no PettingZoo needed

Layers: `board` (data) -> `state` (rules core) -> `observation` (encoders) -> `environment` (AEC env).
"""
from fae_rl.board import NUM_ACTIONS, action_to_string, move_action, resolve_action
from fae_rl.observation import action_mask, observation_layout, observation_size, observe
from fae_rl.state import FaeState, win_loss_returns

from fae_rl.environment import ENV_ID, env, raw_env  # noqa: E402  (the AEC env; the core above needs no PettingZoo)


def _register() -> None:
    """Register fae_v0 with PettingZoo's registry (the suite's `tabletop_rl.envs.make` finds it too)."""
    import warnings

    try:
        import pettingzoo
    except ImportError:  # the rules core works without PettingZoo
        return
    # PettingZoo's registry normalises the id ("fae_v0" is stored as "fae-v0"); make() takes either.
    if not {ENV_ID, ENV_ID.replace("_v", "-v")} & set(pettingzoo.aec_registry):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pettingzoo.register("aec", ENV_ID, entry_point="fae_rl.environment:env")
    try:  # the single-agent self-play adapter, for plain Gymnasium users
        import gymnasium

        if "fae_rl/Fae-v0" not in gymnasium.registry:
            gymnasium.register(id="fae_rl/Fae-v0", entry_point="tabletop_rl.training.selfplay:SelfPlayEnv", kwargs={"game": "fae"},
                               vector_entry_point="tabletop_rl.training.learner_envs:make_learner_vector_env")
    except ImportError:
        pass


_register()

__all__ = [
    "FaeState", "env", "raw_env", "observe", "action_mask", "observation_layout", "observation_size",
    "NUM_ACTIONS", "action_to_string", "move_action", "resolve_action", "win_loss_returns", "ENV_ID",
]

