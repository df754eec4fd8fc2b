"""Issue 17: fantastiqa_rl/state.py split by job (rules, powers, statues, turn_flow, abbey, options,
chance, serialization, text). The names users import from fantastiqa_rl.state stay importable there,
as the very objects of their new modules, and every decision has its pair of handlers, plain functions
of the state: MAIN's in `rules`, the others a topic folder's (`statues.rules.legal_x` / `apply_x`,
`powers.rules`, `abbey.rules`, `quests.rules`, `setup.rules`, `adventure.rules`, `free_actions.rules`,
`turn_flow.rules`: END_DISCARD and MAIN's DONE; issue 38 item 2: no mixin is left)."""
import fantastiqa_rl.state as state_module
from fantastiqa_rl import abbey, adventure, chance, free_actions, options, powers, quests, rules, setup, turn_flow
from fantastiqa_rl.actions import ADV_MOVE, DONE, FREE_MENU, PHASES, QUEST_PAY, SETUP_PLACE


def test_state_module_reexports_the_names_users_import():
    assert state_module.OPTIONS is options.OPTIONS and state_module.DEFAULTS is options.DEFAULTS
    assert state_module.DEFAULT_TURN_LIMIT == options.DEFAULT_TURN_LIMIT == 100
    assert state_module.ABBEY_CAP == abbey.ABBEY_CAP == 7
    assert state_module.HAND_SIZE == turn_flow.HAND_SIZE == 5
    assert state_module.NUM_CHANCE_SOURCES == chance.NUM_CHANCE_SOURCES == 10
    assert (state_module.R_PEACEFUL, state_module.R_DRAGON, state_module.R_BREW) == (
        powers.R_PEACEFUL, powers.R_DRAGON, powers.R_BREW)
    assert powers.held_in_play is powers.rules.held_in_play   # the powers folder re-exports its rules' names
    assert rules.MAIN_FIXED[DONE] is turn_flow.rules.end_turn     # the turn flow: functions of the state,
    assert not hasattr(state_module.FantastiqaState, "_end_turn")  # no mixin
    assert state_module.FantastiqaState.abbey_held is abbey.rules.abbey_held   # the Abbey's public query,
    assert not hasattr(state_module.FantastiqaState, "_apply_abbey_match")   # its rules no mixin
    assert rules.HANDLERS[QUEST_PAY][1] is quests.rules.apply_quest_pay   # the quests: functions of the state,
    assert quests.completable is quests.rules.completable                # re-exported by the folder,
    assert not hasattr(state_module.FantastiqaState, "_complete_quest")   # no mixin
    assert rules.HANDLERS[SETUP_PLACE] == (setup.rules.legal_setup_place, setup.apply_setup_place)  # the setup
    assert not hasattr(state_module.FantastiqaState, "_apply_setup_quest")   # decisions: no mixin
    assert rules.HANDLERS[ADV_MOVE] == (adventure.rules.legal_adv_move, adventure.rules.apply_adv_move)
    assert adventure.pay_moves is adventure.rules.pay_moves              # the adventure: re-exported,
    assert not hasattr(state_module.FantastiqaState, "_apply_adv_pay")   # no mixin
    assert rules.HANDLERS[FREE_MENU][0] is free_actions.rules.legal_free   # the free actions: functions of the state
    assert state_module.FantastiqaState.__bases__ == (object,)             # no mixin is left
    missing = [name for name in state_module.__all__ if not hasattr(state_module, name)]
    assert not missing


def test_every_phase_has_a_legal_actions_and_a_transition_handler():
    assert sorted(rules.HANDLERS) == list(range(len(PHASES)))
    assert len(rules.LEGAL) == len(rules.APPLY) == len(PHASES)
    for ph, (legal, apply) in rules.HANDLERS.items():
        assert rules.LEGAL[ph] is legal and rules.APPLY[ph] is apply, PHASES[ph]
        assert legal.__name__.removeprefix("_").startswith("legal_"), PHASES[ph]
        assert apply.__name__.removeprefix("_").startswith("apply_"), PHASES[ph]
