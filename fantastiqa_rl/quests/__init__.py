"""The quests: one rule topic in one folder (completing a quest).

Rules (docs/rules/fantastiqa.md): a quest of the mover's region, personal or open, may be completed
as the turn's action when the hand with the cards committed to it meets its needs (Q-Q1, Q-Q2): the
QUEST block of MAIN, then the QUEST_PAY decision; completing it (Q-Q3) discards the payment and the
committed cards, returns the other seats' tokens on it, gives its points (with an open quest's bonus
token) and its reward from the supply, and may reach the goal (Q-E1). Marking a quest and committing
cards to it (Q-F2: MARK, COMMIT_TARGET, WITHDRAW_FROM) are free actions
(`fantastiqa_rl.free_actions`).

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state (`completable(s, p)`,
  `quest_req(s, q)`, `start_quest(s, p, q)`, `legal_quest_pay(s, p)`, `apply_quest_pay(s, p, a)`,
  `complete_quest(s, p)`); `fantastiqa_rl.rules` calls them (`legal_main`, `MAIN_BLOCKS`;
  `decisions.py`'s table names the QUEST_PAY pair). Paying card by card is shared with ADV_PAY: `payment.legal_pay`, `pay_step`.
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state`
  (`completable`, `start_quest`, `quest_pay`, `complete_quest`), called by `vector_steps.main`,
  dispatched by `vector_steps.apply` (QUEST_PAY) and asked by `vector_kernels._main_row` and
  `vector_greedy`. Imported on its own (it loads numba): this `__init__` does not import it.
  QUEST_PAY's mask row is `vector_kernels._pay_row` (`vector_rules.legal_pay`, shared with ADV_PAY);
  the steps shared with other topics, `committed_pop` (MARK) and `pay_card` (ADV_PAY), are
  `fantastiqa_rl.vector_rows`'.
- `fantastiqa_rl.decisions` names QUEST_PAY's step (`quests.kernels.quest_pay`); the state fields
  the topic writes are the `owner` "quests" entries of `fantastiqa_rl.state_fields`.
"""
from fantastiqa_rl.quests.rules import completable, complete_quest, quest_req

__all__ = ["completable", "complete_quest", "quest_req"]
