"""The statues: one rule topic in one folder (turn action B, also opened by the KEY power).

Rules Q-V1..Q-V3 (docs/rules/fantastiqa.md): at a statue a seat may draw its deck's top cards and
buy (BUY: Artifact Tower, Beast Bazaar) or keep quests (CHEST: Chest of Quests), release up to
RELEASE_MAX cards for a gem each (RELEASE), or teleport to the twin statue for TELEPORT_COST gems.

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state and a seat (`statue_options(s, p)`,
  `legal_buy(s, p)`, `apply_buy(s, p, a)`, ...) and the constants below; `fantastiqa_rl.decisions`'
  table pairs the decisions STATUE_OPTION, BUY, CHEST and RELEASE with them.
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state`: the
  query `statue_options`, the mask rows (`_statue_option_row`, `_buy_row`, `_chest_row`,
  `_release_row`, dispatched by `vector_kernels.legal`) and the steps (`statue_option`, `buy`,
  `chest`, `release`, dispatched by `vector_steps.apply`). Imported on its own (it loads numba):
  this `__init__` does not import it.
- `fantastiqa_rl.decisions` names both halves of each decision; the state fields the topic writes
  are the `owner="statues"` entries of `fantastiqa_rl.state_fields`.
"""
from fantastiqa_rl.statues.rules import PERSONAL_QUEST_CAP, RELEASE_MAX, STATUE_REVEAL, TELEPORT_COST

__all__ = ["PERSONAL_QUEST_CAP", "STATUE_REVEAL", "RELEASE_MAX", "TELEPORT_COST"]
