"""The free actions: one rule topic in one folder.

Rules (docs/rules/fantastiqa.md): besides its turn action, the mover may take free actions, any
number, before and after it (Q-F1..Q-F4): play a card for its power (Q-F1), put the quest token on
an open quest (MARK) and commit hand cards to a quest or withdraw them (Q-F2: COMMIT_TARGET,
WITHDRAW_FROM), use a flying carpet (Q-F3) or a reshuffle token (Q-F4). MAIN offers FREE_ACTION,
which opens the FREE_MENU decision listing them.

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state (`has_free(s, p)`, `legal_free(s, p)`,
  `commit_targets(s, p, k)`, `open_free_menu(s, p)`, `use_carpet(s, p)`, `reshuffle(s, p)`,
  `mark(s, p, j)`, `commit(s, p, k)`, `withdraw(s, p, k)`, `legal_commit_target` /
  `apply_commit_target`, `legal_withdraw_from` / `apply_withdraw_from`); `fantastiqa_rl.rules` pairs
  them with the decisions (`decisions.py`'s table, `MAIN_FIXED`, `MAIN_BLOCKS`; `legal_main` asks `has_free`),
  `adventure.rules.apply_adv_move` calls `use_carpet`, `FantastiqaState.free_options` asks
  `legal_free`. Left out: which powers may be played and what they do (`powers.rules.power_ok`,
  `play_card`) and FREE_MENU's transition, MAIN's (`rules.apply_free_menu`).
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state`
  (queries, mask rows and steps; its docstring lists them). Imported on its own (it loads numba):
  this `__init__` does not import it. Left out: `vector_rows.use_carpet`, `committed_pop` (shared).
- `fantastiqa_rl.decisions` names the kernels; the state fields the topic writes are the `owner`
  "free actions" entries of `fantastiqa_rl.state_fields`.
"""
