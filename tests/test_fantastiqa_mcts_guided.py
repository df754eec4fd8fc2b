"""Fantastiqa's `mcts_guided` (`tabletop_rl.agents.fantastiqa_mcts.FantastiqaGuidedMCTSAgent`): the
paired search over greedy's move and the shipped policy's most probable moves. Legal, reproducible,
its prior read from the seat's own view (other hands and deck orders never change its move, with
a control), the default policy chosen by card file as the ppo bot's, unknown versions refused,
whole games played."""
from __future__ import annotations

import numpy as np
import pytest

from fantastiqa_rl.observation import action_mask
from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.agents import agent_names, make_agent
from tabletop_rl.agents.fantastiqa_mcts import FantastiqaGuidedMCTSAgent
from tabletop_rl.agents.match import play_game
from tabletop_rl.agents.policy_versions import any_card_file_version, default_version, version_path
from tabletop_rl.agents.ppo_agent import PolicyWeights
from tabletop_rl.agents.fantastiqa_batch import observe_block_game
from tabletop_rl.envs.registry import get_game
from tests.fantastiqa_helpers import greedy_position, own_hand_swaps, reorder_decks, swap_hidden

SPEC = get_game("fantastiqa")
SMALL = dict(iterations=6, horizon=1)  # the tests' budget: the defaults' code paths, less work
POSITIONS = ((0, 30), (1, 80), (2, 150), (3, 260))


def _act(bot, s):
    seat = s.current_player
    return bot.act(None, action_mask(s, seat), state=s, seat=seat)


def _policy_order(s, version):
    """The legal moves other than greedy's by the policy's probability, computed here from the
    policy file and the batch's encoding (not through the bot), for a bot fresh to the game."""
    w = PolicyWeights.load(version_path("fantastiqa", version))
    opts = w.meta["options"]
    seat = s.current_player
    _, obs = observe_block_game(None, s, seat, True, opts["action_features"], opts.get("view", "flat"))
    logits = w.logits(obs)
    greedy = make_agent("fantastiqa", "greedy", seed=0).act(None, None, state=s, seat=seat)
    return greedy, sorted((a for a in s.legal_actions().tolist() if a != greedy), key=lambda a: (-logits[a], a))


def test_registered_with_the_plain_defaults_and_the_ppo_bots_default_policy():
    bot = make_agent("fantastiqa", "mcts_guided", seed=0)
    assert isinstance(bot, FantastiqaGuidedMCTSAgent) and "mcts_guided" in agent_names("fantastiqa")
    assert bot.iterations == 24 and bot.horizon == 2 and bot.max_candidates == 4 and bot.margin == 0.03
    assert bot.policy_version == default_version("fantastiqa") and not bot.policy_rollouts
    # on another card file the default prior is the card-reading policy, as the ppo bot's default
    s = FantastiqaState.new(2, seed=4, card_set="generated:100")
    while s.legal_actions().size < 2:
        s.apply(int(s.legal_actions()[0]))
    assert action_mask(s, s.current_player)[_act(bot, s)]
    assert bot.policy_version == any_card_file_version("fantastiqa")


@pytest.mark.parametrize("version", [None, "fantastiqa_2p_cards_v1"])
def test_candidates_are_greedys_move_then_the_policys_most_probable(version):
    want_version = version or default_version("fantastiqa")
    for seed, plies in POSITIONS:
        s = greedy_position(seed, plies)
        bot = make_agent("fantastiqa", "mcts_guided", seed=0, policy=version, **SMALL)
        greedy, order = _policy_order(s, want_version)
        _act(bot, s)
        assert bot._candidates(s, s.current_player, bot.rng) == [greedy] + order[:3]


@pytest.mark.parametrize("kwargs", [{}, {"policy_rollouts": True}, {"policy": "fantastiqa_2p_cards_v1"}])
@pytest.mark.parametrize("seed,plies", POSITIONS)
def test_plays_legal_moves_and_same_seed_same_move(seed, plies, kwargs):
    s = greedy_position(seed, plies)
    before = s.to_dict()
    moves = [_act(make_agent("fantastiqa", "mcts_guided", seed=5, **SMALL, **kwargs), s) for _ in range(2)]
    assert moves[0] == moves[1] and action_mask(s, s.current_player)[moves[0]]
    assert s.to_dict() == before  # the prior reads the state, the search works on determinizations
    bot = make_agent("fantastiqa", "mcts_guided", seed=5, **SMALL, **kwargs)
    assert _act(bot, s) == moves[0] and 0 < bot.last_iterations <= SMALL["iterations"]


@pytest.mark.parametrize("kwargs", [{}, {"policy_rollouts": True}])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_decision_ignores_other_hands_and_deck_orders(seed, kwargs):
    """Change only what the seat to move cannot know: its prior, candidates and move stay the same."""
    s = greedy_position(seed + 10, 60 + 45 * seed)
    seat = s.current_player
    rng = np.random.default_rng(seed)
    bot = make_agent("fantastiqa", "mcts_guided", seed=3, margin=0.0, **SMALL, **kwargs)
    move, cands = _act(bot, s), bot._candidates(s, seat, bot.rng)
    for t in (swap_hidden(s, 1 - seat, rng), reorder_decks(s, rng)):
        bot = make_agent("fantastiqa", "mcts_guided", seed=3, margin=0.0, **SMALL, **kwargs)
        assert _act(bot, t) == move and bot._candidates(t, seat, bot.rng) == cands


def test_own_hand_change_changes_the_decision_control():
    """Control for the test above (so it can fail): the same swap on the seat's OWN hand, which it
    does see, changes its candidates or its move somewhere."""
    changed = 0
    for s, seat, t in own_hand_swaps(8):
        a = make_agent("fantastiqa", "mcts_guided", seed=3, margin=0.0, **SMALL)
        b = make_agent("fantastiqa", "mcts_guided", seed=3, margin=0.0, **SMALL)
        changed += (_act(a, s), a._candidates(s, seat, a.rng)) != (_act(b, t), b._candidates(t, seat, b.rng))
    assert changed > 0


def test_unknown_policy_and_bad_knobs_are_refused_clearly():
    with pytest.raises(ValueError, match=r"policy='fantastiqa_2p_v99'.*known: \[.*fantastiqa_2p_v3"):
        make_agent("fantastiqa", "mcts_guided", seed=0, policy="fantastiqa_2p_v99")
    with pytest.raises(ValueError, match="paired"):
        make_agent("fantastiqa", "mcts_guided", seed=0, paired=False)
    with pytest.raises(ValueError, match="policy_rollouts"):
        make_agent("fantastiqa", "mcts_guided", seed=0, policy_rollouts="yes")
    with pytest.raises(ValueError, match="max_candidates"):
        make_agent("fantastiqa", "mcts_guided", seed=0, max_candidates=1)


def test_arena_form_of_the_knobs():
    from tabletop_rl.agents.arena import parse_agent

    name, kwargs = parse_agent("mcts_guided:iterations=8,policy=fantastiqa_2p_cards_v1,policy_rollouts=true")
    bot = make_agent("fantastiqa", name, seed=0, **kwargs)
    assert bot.iterations == 8 and bot.policy_version == "fantastiqa_2p_cards_v1" and bot.policy_rollouts


def test_plays_whole_games():
    for seats in (("mcts_guided", "greedy"), ("random", "mcts_guided")):
        bots = [make_agent("fantastiqa", name, seed=i, **(SMALL if name == "mcts_guided" else {}))
                for i, name in enumerate(seats)]
        res = play_game(SPEC, bots, seed=1)
        assert res.winners and set(res.winners) <= {0, 1}
    assert seats.index("mcts_guided") in res.winners  # against random it wins
