"""Adventures: one rule topic in one folder (the turn action A, and moving).

Rules (docs/rules/fantastiqa.md): an adventure (Q-A1..Q-A4) is a path of steps from the mover's
region, each subduing the creature on the road crossed (paid card by card: ADV_MOVE, then ADV_PAY)
into a region the path may enter (Q-A3, option adventure_path); its cards go to the discard when it
ends (Q-A4). A FLY card or a flying carpet moves the mover without a creature (Q-M1, MOVE_DEST; in
an adventure only with option fly_in_adventure).

Where each part lives:
- `rules.py`: the scalar rules, plain functions of the state (`creature_req(s, space)`,
  `pay_moves(s, p, visited, prev)`, `start_adventure(s, p)`, `legal_adv_move` / `apply_adv_move`,
  `legal_adv_pay` / `apply_adv_pay`, `legal_move_dest` / `apply_move_dest`, `move_to`);
  `fantastiqa_rl.rules` calls them (`decisions.py`'s table, `MAIN_FIXED`'s ADVENTURE, `rules.legal_main`) and
  `FantastiqaState.payable_steps` asks `pay_moves`. Shared and left out: `queries.moves` (also the
  powers' FLY and the free actions' CARPET), `free_actions.rules.use_carpet` (MAIN's CARPET),
  `powers.rules.playable_kinds`, and paying card by card (`payment.legal_pay`, `pay_step`, also
  QUEST_PAY's).
- `kernels.py`: their batched numba ports over the packed rows of `fantastiqa_rl.vector_state` (the
  mask rows `_adv_move_row`, `_move_dest_row`, dispatched by `vector_kernels.legal`; the steps
  `adv_move`, `adv_pay`, `move_dest`, dispatched by `vector_steps.apply`, and `move_to`). Imported on
  its own (it loads numba): this `__init__` does not import it. Shared and left out: the payment
  queries and `pay_moves` / `moves_any` (`vector_rules`), ADV_PAY's mask row
  (`vector_kernels._pay_row`), `vector_pay` (also QUEST_PAY's), `use_carpet` and `pay_card`
  (`vector_rows`).
- `fantastiqa_rl.decisions` names the kernels; the state fields the topic writes are the `owner`
  "adventure" entries of `fantastiqa_rl.state_fields`.
"""
from fantastiqa_rl.adventure.rules import creature_req, pay_moves

__all__ = ["creature_req", "pay_moves"]
