"""The powers: one rule topic in one folder (Q-F1: playing a card for its power, and artifact
effects; the free action HAND+k of FREE_MENU, and FLY as a path step of an adventure).

Rule Q-F1 (docs/rules/fantastiqa.md; Q-T2 for where a played card lies until the end of the turn):
a card played for its power does FLY, KEY (a statue option, Q-V1..Q-V3), PLUS_STATUE, GEM, DRAGON
or the Peaceful Dragon's gift (TARGET_SEAT: an opponent in the region; R_DRAGON, R_PEACEFUL), or
runs its artifact effects from the card file (gems, draws, carpets, reshuffles, stealing; and the
decisions GLASS, BELL, BREW_CARD with its TARGET_SEAT (R_BREW), WARDROBE).

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state and a seat (`power_ok(s, p, k)`,
  `play_card(s, p, k)`, `run_effects(s, p)`, `legal_glass(s, p)`, `apply_glass(s, p, a)`, ...), the
  TARGET_SEAT reasons and `held_in_play` / `kind_held_in_play` (Q-T2), re-exported below;
  `fantastiqa_rl.decisions`' table pairs the decisions TARGET_SEAT, GLASS, BELL, BREW_CARD and
  WARDROBE with them.
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state`: the
  query `opponents_here`, the mask rows (`_target_seat_row`, `_effect_row`, dispatched by
  `vector_kernels.legal`) and the steps (`target_seat`, `glass`, `bell`, `brew_card`, `wardrobe`,
  dispatched by `vector_steps.apply`; `play_card`, `run_effects`, `effects_may_reshuffle`).
  Which cards are playable (`free_actions.rules.legal_free` with `power_ok`) is one kernel,
  `free_actions.kernels.free_actions`, the free actions'. Imported on its own
  (it loads numba): this `__init__` does not import it.
- `fantastiqa_rl.decisions` names both halves of each decision; the state fields the topic writes
  are the `owner="powers"` entries of `fantastiqa_rl.state_fields`.
"""
from fantastiqa_rl.powers.rules import R_BREW, R_DRAGON, R_PEACEFUL, held_in_play, kind_held_in_play

__all__ = ["R_PEACEFUL", "R_DRAGON", "R_BREW", "held_in_play", "kind_held_in_play"]
