"""Fantastiqa rules core (base game; options abbey=True, the Abandoned Abbey, and teams=True, the
team variant): `from fantastiqa_rl import FantastiqaState`.

The rules modules (state and the modules it is split into by job: rules, powers, statues,
turn_flow, abbey, options, chance, serialization, text; and actions, cards, payment, game, board,
validation) import no PettingZoo; the env layer
(observation, environment, render, information) wraps them and is exported below. Cards come from data files
(`fantastiqa_rl/data/fantastiqa_STAND-IN.toml` is the STAND-IN set; see `cards.py` for the format).
The action table is documented in `fantastiqa_rl.actions`, the state in `fantastiqa_rl.state`;
`fantastiqa_rl.abbey_view` has the Abbey / team features and text for the observation and render.
"""
from fantastiqa_rl.actions import PHASES, ActionLayout
from fantastiqa_rl.cards import STANDIN_PATH, CardFileError, load_card_set
from fantastiqa_rl import card_gen as _card_gen  # noqa: F401  (registers the card sets "generated:SEED")
from fantastiqa_rl.state import ABBEY_CAP, OPTIONS, FantastiqaState

__all__ = ["FantastiqaState", "ActionLayout", "PHASES", "OPTIONS", "STANDIN_PATH",
           "CardFileError", "load_card_set", "ABBEY_CAP"]

# --- the env layer (issue 6): encoders, AEC env, determinizations; the core above needs no PettingZoo
from fantastiqa_rl.observation import action_mask, observation_layout, observation_size, observe  # noqa: E402
from fantastiqa_rl.environment import ENV_ID, GYM_ID, env, raw_env  # noqa: E402
from fantastiqa_rl.information import attach as _attach_information  # noqa: E402

_attach_information()  # FantastiqaState.information_state / .sample_consistent


def _register() -> None:
    """Register fantastiqa_v1 with PettingZoo and fantastiqa_rl/Fantastiqa-v0 with Gymnasium."""
    try:
        from fantastiqa_rl.environment import register_envs
    except ImportError:  # the rules core works without PettingZoo
        return
    register_envs()


_register()

__all__ += ["env", "raw_env", "observe", "action_mask", "observation_layout", "observation_size", "ENV_ID", "GYM_ID"]
