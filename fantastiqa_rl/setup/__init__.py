"""The setup decisions: one rule topic in one folder.

Rules (docs/rules/fantastiqa.md): after the deal, each seat from the last picks one of the offered
starting quests (Q-S4: SETUP_QUEST), one of the offered starting artifacts (SETUP_ARTIFACT) and a
starting region no other seat holds (Q-S5: SETUP_PLACE); the first seat's place ends the setup.
The deal itself and the setup's end are the turn flow's (`turn_flow.rules.setup`, `finish_setup`).

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state (`legal_setup_quest(s, p)`,
  `apply_setup_quest(s, p, a)`, and the same pairs for SETUP_ARTIFACT and SETUP_PLACE);
  `fantastiqa_rl.decisions`' table pairs the decisions with them.
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state` (the
  mask row `_setup_row`, dispatched by `vector_kernels.legal`; the step `setup`, dispatched by
  `vector_steps.apply`, which leaves the last seat's SETUP_PLACE to the scalar core). Imported on its
  own (it loads numba): this `__init__` does not import it. The starting quest is taken by
  `vector_rows.take_quest`, shared with the statues' CHEST.
- `fantastiqa_rl.decisions` names both kernels (`setup.kernels._setup_row`, `setup.kernels.setup`);
  the state fields the topic writes are the `owner` "setup" entries of `fantastiqa_rl.state_fields`.
"""
from fantastiqa_rl.setup.rules import (apply_setup_artifact, apply_setup_place, apply_setup_quest,
                                       legal_setup_artifact, legal_setup_place, legal_setup_quest)

__all__ = ["legal_setup_quest", "apply_setup_quest", "legal_setup_artifact", "apply_setup_artifact",
           "legal_setup_place", "apply_setup_place"]
