"""The Abbey: one rule topic in one folder (the Abandoned Abbey expansion, option abbey=True).

Rules Q-B1..Q-B5 (docs/rules/fantastiqa.md; the engine's readings are listed in `rules.py`): the
Abbey's goal lines, exploring as the turn action (EXPLORE at the positions framing the Abbey),
matching the face-up Abbey card's symbol with a hand card (ABBEY_MATCH), stopping to claim or
flipping on (ABBEY_CHOICE), and at most ABBEY_CAP Abbey cards per player or team.

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state and a seat (`abbey_held(s, p)`,
  `abbey_top(s)`, `why_no_explore(s, p)`, `start_exploring(s, p)`, `legal_abbey_match(s, p)`,
  `apply_abbey_match(s, p, a)`, ...) and ABBEY_CAP, re-exported below;
  `fantastiqa_rl.decisions`' table pairs the decisions ABBEY_MATCH and ABBEY_CHOICE with them.
  `FantastiqaState.abbey_held` and `abbey_top` (public queries the bots, views and text use) are
  these functions.
- No kernels: the Abbey is not ported to the batched engine (`fantastiqa_rl.decisions` says why;
  the batched MAIN mask leaves a game with the Abbey to the scalar core). The greedy bot's batched
  checks of exploring (`vector_greedy._explore_ok`, `_abbey_continue`) stay with the bot. The
  Abbey's features and text for the observation and the render are `fantastiqa_rl.abbey_view`.
- The state fields the topic writes are the `owner="abbey"` entries of `fantastiqa_rl.state_fields`.
"""
from fantastiqa_rl.abbey.rules import ABBEY_CAP

__all__ = ["ABBEY_CAP"]
