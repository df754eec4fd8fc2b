"""The turn flow: one rule topic in one folder (the deal and setup, the start and end of a turn, the
end of the game).

Rules (docs/rules/fantastiqa.md): the deal and the setup decisions' end (Q-S1..Q-S6: HAND_SIZE cards
drawn, START_TOKENS of each token), the board and open quests replenished at the start of each turn
with the Raven (Q-R1..Q-R4: RAVEN_GEMS, RAVEN_DEPTH), the end of a turn (Q-T1: the cards used for
their power go, END_DISCARD, the draw with Q-X1's reshuffle, the turn limit) and the end of the game
(Q-E1..Q-E5, Q-TM2: the goal, the end by score and its tie-breaks).

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state (`setup(s)`, `finish_setup(s)`,
  `start_turn(s, game_start)`, `replenish(s, game_start)`, `end_turn(s, p)`, `finish_turn(s, p)`,
  `legal_end_discard(s, p)`, `apply_end_discard(s, p, a)`, `goal_reached(s, p)`,
  `end_by_score(s, reason)`, `end(s, winners, reason)`, ...) and the
  constants re-exported below; `FantastiqaState.new` calls `setup`, `fantastiqa_rl.rules` the rest
  (MAIN's DONE is `rules.MAIN_FIXED`'s `end_turn`). The draw (Q-X1) is shared with the powers'
  effects and the Abbey, so it is the state's `_draw`, beside `_take`.
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state`
  (`end_turn`, `finish_turn`, `reset_turn`, `replenish`, `end_by_score`), called by
  `vector_steps.main` and dispatched by `vector_steps.apply` (END_DISCARD's DONE). Imported on its
  own (it loads numba): this `__init__` does not import it. END_DISCARD's mask row is here too
  (`_end_discard_row`); the batched `draw` and `take` are
  `fantastiqa_rl.vector_rows`' (shared with the quests and the powers).
- `fantastiqa_rl.decisions` names END_DISCARD's step (`turn_flow.kernels.finish_turn`); the state
  fields the topic writes are the `owner` "setup", "replenish", "seats", "turn" and "end of game"
  entries of `fantastiqa_rl.state_fields`.
"""
from fantastiqa_rl.turn_flow.rules import HAND_SIZE, RAVEN_DEPTH, RAVEN_GEMS, START_TOKENS

__all__ = ["HAND_SIZE", "START_TOKENS", "RAVEN_GEMS", "RAVEN_DEPTH"]
