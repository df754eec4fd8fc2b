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
  them with the decisions (`HANDLERS`, `MAIN_FIXED`, `MAIN_BLOCKS`; `legal_main` asks `has_free`),
  `adventure.rules.apply_adv_move` calls `use_carpet`, `FantastiqaState.free_options` asks
  `legal_free`. Left out: which powers may be played and what they do (`powers.rules.power_ok`,
  `play_card`) and FREE_MENU's transition, MAIN's (`rules.apply_free_menu`).
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state` (the
  queries `commit_targets`, `free_actions`, `legal_free`; the mask rows `_free_menu_row`,
  `_commit_target_row`, `_withdraw_from_row`, dispatched by `vector_kernels.legal`; the steps
  `mark`, `commit`, `withdraw`, called by `vector_steps.main`, and `commit_to`, `withdraw_from`,
  dispatched by `vector_steps.apply`). Imported on its own (it loads numba): this `__init__` does not
  import it. Shared and left out: `use_carpet` and `committed_pop` (`vector_rows`), RESHUFFLE's step
  (a branch of `vector_steps.main`).
- `fantastiqa_rl.decisions` names the kernels; the state fields the topic writes are the `owner`
  "free actions" entries of `fantastiqa_rl.state_fields`.
"""
