"""Fantastiqa rules core (base game; options abbey=True, the Abandoned Abbey, and teams=True, the
team variant): `from fantastiqa_rl import FantastiqaState`.

No PettingZoo here: the env (issue 6) wraps this core. Cards come from data files
(`fantastiqa_rl/data/fantastiqa_STAND-IN.toml` is the STAND-IN set; see `cards.py` for the format).
The action table is documented in `fantastiqa_rl.actions`, the state in `fantastiqa_rl.state`;
`fantastiqa_rl.abbey_view` has the Abbey / team features and text for the observation and render.
"""
from fantastiqa_rl.actions import PHASES, ActionLayout
from fantastiqa_rl.cards import STANDIN_PATH, CardFileError, load_card_set
from fantastiqa_rl.state import ABBEY_CAP, OPTIONS, FantastiqaState

__all__ = ["FantastiqaState", "ActionLayout", "PHASES", "OPTIONS", "STANDIN_PATH",
           "CardFileError", "load_card_set", "ABBEY_CAP"]
