"""The OpenSpiel game python_fae (fae_rl.openspiel): OpenSpiel's own checks, move-for-move
agreement with FaeState, explicit chance (F-S1, F-S2) and hidden information (F-I1)."""
import itertools
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from fae_rl import FaeState  # noqa: E402
from fae_rl.openspiel import (  # noqa: E402
    COLOUR_DEALS,
    NUM_CHANCE_NODES,
    REGION_DEALS,
    deal_outcomes,
    state_from_fae,
    state_from_history,
)
from tests.fae_helpers import random_state  # noqa: E402


def load(players=2, merge=False):
    return pyspiel.load_game(f"python_fae(players={players},big_stack_merge={str(merge).lower()})")


def dealt(game, fae: FaeState):
    s = game.new_initial_state()
    for a in deal_outcomes(fae):
        assert s.is_chance_node()
        s.apply_action(a)
    return s


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test_passes(players):
    pyspiel.random_sim_test(load(players), num_sims=3, serialize=True, verbose=False)


def test_random_sim_test_with_big_stack_merge():
    pyspiel.random_sim_test(load(3, True), num_sims=2, serialize=True, verbose=False)


def test_load_game_by_name_and_parameters():
    game = pyspiel.load_game("python_fae(players=3)")
    assert game.num_players() == 3 and game.num_distinct_actions() == 330
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert pyspiel.load_game("python_fae").num_players() == 2
    with pytest.raises(Exception, match="players must be 2, 3 or 4"):
        pyspiel.load_game("python_fae(players=5)")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_chance_nodes_deal_as_the_rules_say(players):
    """F-S1: 12 region nodes of 120 uniform outcomes; F-S2: one spirit node."""
    s = load(players).new_initial_state()
    for r in range(12):
        outcomes = s.chance_outcomes()
        assert len(outcomes) == 120 and all(p == pytest.approx(1 / 120) for _, p in outcomes)
        s.apply_action(r * 7 % 120)
    outcomes = s.chance_outcomes()
    assert len(outcomes) == {2: 20, 3: 60, 4: 120}[players]
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    s.apply_action(len(outcomes) - 1)
    assert s.current_player() == 0
    d = s.fae.druids()
    for r in range(12):
        assert tuple(d[5 * r:5 * r + 5].argmax(axis=1)) == REGION_DEALS[r * 7 % 120]
    assert tuple(s.fae.colours) == COLOUR_DEALS[players][-1]
    assert len(s.history()) == NUM_CHANCE_NODES


@pytest.mark.parametrize("players", [2, 3, 4])
def test_agrees_with_fae_state_move_for_move(players):
    """Differential: the same deal played with the same moves in both, 30 games per table size."""
    game = load(players, merge=players == 3)
    for seed in range(30):
        fae = FaeState.new(players, seed=seed, big_stack_merge=players == 3)
        s = dealt(game, fae)
        assert s.fae == fae
        rng = np.random.default_rng(seed)
        while not fae.is_terminal():
            assert s.current_player() == fae.current_player
            assert s.legal_actions() == fae.legal_actions().tolist()
            a = int(rng.choice(fae.legal_actions()))
            fae.apply(a)
            s.apply_action(a)
            assert s.fae == fae
        assert s.is_terminal() and s.returns() == fae.returns().tolist()
        assert sum(s.returns()) == pytest.approx(0.0)


def test_deal_outcomes_round_trip_from_deal():
    for seed in range(20):
        fae = FaeState.new(4, seed=seed)
        outs = deal_outcomes(fae)
        back = FaeState.from_deal(4, [REGION_DEALS[k] for k in outs[:12]], COLOUR_DEALS[4][outs[12]])
        assert back == fae


def test_from_deal_rejects_bad_deals():
    good = [list(range(5))] * 12
    with pytest.raises(ValueError, match="regions must be 12 permutations"):
        FaeState.from_deal(2, good[:11], [0, 1])
    with pytest.raises(ValueError, match="regions must be 12 permutations"):
        FaeState.from_deal(2, [[0, 0, 1, 2, 3]] + good[1:], [0, 1])
    with pytest.raises(ValueError, match="colours must be 2 distinct"):
        FaeState.from_deal(2, good, [1, 1])
    with pytest.raises(ValueError, match="colours must be 3 distinct"):
        FaeState.from_deal(3, good, [0, 1, 7])


def test_serialization_round_trip():
    game = load(3)
    rng = np.random.default_rng(0)
    s = game.new_initial_state()
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(int(rng.integers(len(s.chance_outcomes()))))
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
        text = pyspiel.serialize_game_and_state(game, s)
        game2, s2 = pyspiel.deserialize_game_and_state(text)
        assert str(s2) == str(s) and s2.history() == s.history()
        if s.fae is not None:
            assert s2.fae == s.fae


def test_state_from_history_replays_and_validates():
    game = load(2)
    rng = np.random.default_rng(1)
    s = game.new_initial_state()
    for _ in range(30):
        s.apply_action(int(rng.integers(len(s.chance_outcomes()))) if s.is_chance_node() else int(rng.choice(s.legal_actions())))
    t = state_from_history(game, s.history())
    assert t.history() == s.history() and t.fae == s.fae
    with pytest.raises(ValueError, match="entry 0 \\(120\\) is not legal"):
        state_from_history(game, [120])
    with pytest.raises(ValueError, match="entry 13 \\(329\\) is not legal"):
        state_from_history(game, s.history()[:13] + [329])
    with pytest.raises(ValueError, match="entry 1 must be an int"):
        state_from_history(game, [0, "3"])


def other_colourings(fae: FaeState, seat: int, limit: int = 12):
    own = fae.colours[seat]
    others = [c for c in range(5) if c != own]
    for perm in itertools.islice(itertools.permutations(others, fae.num_players - 1), limit):
        colours = list(perm)
        colours.insert(seat, own)
        d = fae.to_dict()
        d["colours"] = colours
        yield FaeState.from_dict(d)


def views(s, p):
    return (s.information_state_string(p), s.observation_string(p),
            tuple(s.information_state_tensor(p)), tuple(s.observation_tensor(p)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_information_and_observations_hide_other_seats_colours(players):
    """F-I1: changing the other seats' colours changes none of a player's four views."""
    game = load(players)
    for seed in range(8):
        fae = FaeState.new(players, seed=seed)
        s = dealt(game, fae)
        rng = np.random.default_rng(seed)
        for _ in range(seed * 5):
            if s.is_terminal():
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        for p in range(players):
            base = views(s, p)
            assert f"own colour {s.fae.colours[p]}" in base[0]
            for other in other_colourings(s.fae, p):
                t = s.clone()
                t.fae = other
                assert views(t, p) == base


def test_views_differ_between_seats_only_by_what_each_may_see():
    game = load(2)
    s = dealt(game, FaeState.new(2, seed=3))
    assert s.information_state_string(0) != s.information_state_string(1)
    # The colour chance outcome never appears in an information state string.
    spirit = deal_outcomes(s.fae)[-1]
    assert s.information_state_string(0).split("|")[-1].split() == [str(a) for a in s.history()[:12]]
    assert len(s.history()) == 13 and s.history()[-1] == spirit


def test_resample_from_infostate_keeps_what_the_player_knows():
    game = load(3)
    s = dealt(game, FaeState.new(3, seed=11))
    for a in (0, 2):
        s.apply_action(s.legal_actions()[a])
    seen = set()
    for i in range(200):
        t = s.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert t.information_state_string(1) == s.information_state_string(1)
        assert t.fae.colours[1] == s.fae.colours[1]
        seen.add(tuple(t.fae.colours))
        assert t.legal_actions() == s.legal_actions()
    assert len(seen) == 12  # every assignment of the 4 other colours to the 2 other seats


def test_state_from_fae_wraps_a_position():
    game = load(2)
    fae = random_state(4, 15, 2)
    s = state_from_fae(game, fae)
    assert s.fae == fae and s.fae is not fae and s.current_player() == fae.current_player
    t = state_from_fae(game, next(other_colourings(fae, 0)))
    assert t.information_state_string(0) == s.information_state_string(0)
    with pytest.raises(ValueError, match="the position has 3 players"):
        state_from_fae(game, random_state(4, 15, 3))


def test_fae_rl_does_not_import_open_spiel():
    code = "import sys, fae_rl, tabletop_rl.envs, tabletop_rl.agents; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_non_movers_have_no_legal_action_and_an_all_zero_mask():
    game = load(3)
    s = dealt(game, FaeState.new(3, seed=5))
    for _ in range(4):
        mover = s.current_player()
        for p in range(3):
            mask = s.legal_actions_mask(p)
            assert (sum(mask) > 0) == (p == mover) and (s.legal_actions(p) == []) == (p != mover)
        s.apply_action(s.legal_actions()[-1])


@pytest.mark.parametrize("node", ["region", "colour"])
@pytest.mark.parametrize("action", [999, "k", -1, True, 3.5])
def test_out_of_range_chance_outcomes_are_value_errors(node, action):
    """Issue 24: a chance outcome past the node's outcomes was stored (999 at a region node, an
    IndexError later) or hit OpenSpiel's own check (SpielError for -1); now every bad id raises a
    ValueError and the state keeps its history."""
    from fae_rl.openspiel import NUM_REGIONS

    s = load().new_initial_state()
    for _ in range(NUM_REGIONS if node == "colour" else 0):
        s.apply_action(0)
    assert s.is_chance_node()
    if action == "k":
        action = len(s.chance_outcomes())  # one past the last outcome
    before = s.history()
    with pytest.raises(ValueError):
        s.apply_action(action)
    assert s.history() == before and s.is_chance_node()


# ---------------------------------------------------------------- issue 39 item 6: OpenSpiel's own code, unchanged
from fae_rl.observation import observation_size  # noqa: E402
from fae_rl.openspiel import MAX_DECISIONS  # noqa: E402

COMPACT = observation_size("summary")  # 1,703 floats
FULL = COMPACT + MAX_DECISIONS * 330  # 25,133 floats: the position + the whole decision history one-hot


def test_information_state_tensor_is_compact_by_default_and_full_on_request():
    game = load(2)
    assert game.information_state_tensor_size() == COMPACT == game.observation_tensor_size()
    full = pyspiel.load_game("python_fae(info_state_tensor=full)")
    assert full.information_state_tensor_size() == FULL and full.observation_tensor_size() == COMPACT
    s, t = dealt(game, FaeState.new(2, seed=4)), dealt(full, FaeState.new(2, seed=4))
    for _ in range(6):
        a = s.legal_actions()[-1]
        s.apply_action(a)
        t.apply_action(a)
    # The default is the observation (own colour + history summary); full appends the decisions one-hot.
    assert s.information_state_tensor(0) == s.observation_tensor(0)
    assert t.information_state_tensor(0)[:COMPACT] == s.observation_tensor(0)
    history = np.asarray(t.information_state_tensor(0)[COMPACT:]).reshape(MAX_DECISIONS, 330)
    assert history.sum() == 6 and history[5, a] == 1
    with pytest.raises(Exception, match="info_state_tensor must be one of"):
        pyspiel.load_game("python_fae(info_state_tensor=all)")


def test_rl_environment_default_gives_the_compact_tensor():
    rl_environment = pytest.importorskip("open_spiel.python.rl_environment")
    env = rl_environment.Environment("python_fae")  # the examples' env line, default arguments
    assert env.observation_spec()["info_state"] == (COMPACT,)
    ts = env.reset()
    assert len(ts.observations["info_state"][ts.observations["current_player"]]) == COMPACT


@pytest.mark.parametrize("tensor", ["summary", "full"])
def test_information_state_tensors_hide_other_seats_colours_with_a_control(tensor):
    """F-I1 for both information-state tensors; control: the seat's OWN colour does change them,
    so a tensor that ignored colours altogether would not pass."""
    game = pyspiel.load_game(f"python_fae(players=3,info_state_tensor={tensor})")
    s = dealt(game, FaeState.new(3, seed=2))
    rng = np.random.default_rng(2)
    for _ in range(9):
        s.apply_action(int(rng.choice(s.legal_actions())))
    for p in range(3):
        base = s.information_state_tensor(p)
        for other in other_colourings(s.fae, p):
            t = s.clone()
            t.fae = other
            assert t.information_state_tensor(p) == base
        d = s.fae.to_dict()
        spare = next(c for c in range(5) if c not in d["colours"])
        d["colours"][p] = spare  # the control: a different own colour
        t = s.clone()
        t.fae = FaeState.from_dict(d)
        assert t.information_state_tensor(p) != base


def make_observation(game, public, private, recall=False):
    from open_spiel.python.observation import make_observation as make

    return make(game, pyspiel.IIGObservationType(public_info=public, perfect_recall=recall, private_info=private))


def test_observer_takes_every_iig_observation_type_but_all_players():
    P = pyspiel.PrivateInfoType
    game = load(3)
    s = dealt(game, FaeState.new(3, seed=8))
    s.apply_action(s.legal_actions()[0])
    private = make_observation(game, False, P.SINGLE_PLAYER)
    public = make_observation(game, True, P.NONE)
    nothing = make_observation(game, False, P.NONE)
    for p in range(3):
        private.set_from(s, p)
        assert list(private.dict) == ["own_colour"] and np.flatnonzero(private.tensor).tolist() == [s.fae.colours[p]]
        assert private.string_from(s, p) == f"seat {p}, own colour {s.fae.colours[p]}"
        public.set_from(s, p)
        assert not public.tensor[observation_layout_own()].any()  # the own-colour block stays zero
        assert "own colour ?" in public.string_from(s, p)
    nothing.set_from(s, 0)
    assert nothing.tensor.size == 0 and nothing.string_from(s, 0) == ""
    with pytest.raises(ValueError, match="ALL_PLAYERS is not supported"):
        make_observation(game, True, P.ALL_PLAYERS)


def observation_layout_own():
    from fae_rl.observation import observation_layout

    return observation_layout("summary")["own_colour"]


@pytest.mark.parametrize("game_string", ["python_fae", "python_fae(players=3,big_stack_merge=true)"])
def test_open_spiel_generate_playthrough_runs_to_the_end(game_string):
    """OpenSpiel's playthrough generator asks for public-only and private-only observers (it
    failed on public_info=False before); a whole random game, the same text for the same seed."""
    generate_playthrough = pytest.importorskip("open_spiel.python.algorithms.generate_playthrough")
    text = generate_playthrough.playthrough(game_string, None, seed=3)
    assert f"InformationStateTensorSize() = {COMPACT}" in text
    assert "PrivateObservationString(0) = \"seat 0, own colour " in text
    assert text.rstrip().splitlines()[-1].startswith("Returns() = [")
    assert generate_playthrough.playthrough(game_string, None, seed=3) == text


def test_open_spiel_playthrough_example_script_unchanged(tmp_path):
    """OpenSpiel's examples/playthrough.py, run as shipped (only the import that registers the game)."""
    import importlib.util

    if importlib.util.find_spec("open_spiel.python.examples.playthrough") is None:  # not imported here: absl flags
        pytest.skip("this OpenSpiel build ships no examples/playthrough.py")
    out = tmp_path / "fae.txt"
    code = ("import runpy, sys, fae_rl.openspiel\n"
            f"sys.argv = ['playthrough', '--game', 'python_fae', '--output_file', {str(out)!r}]\n"
            "runpy.run_module('open_spiel.python.examples.playthrough', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.read_text().startswith("game: python_fae\n")


@pytest.fixture
def one_torch_thread():
    """Small nets on a shared machine: torch's thread pool fighting for the cores made each backward
    pass ~100x slower than one thread (OpenSpiel's examples leave the default)."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def transition_bytes(buffer) -> float:
    """Bytes a preallocated OpenSpiel buffer holds per transition (all its arrays)."""
    import tree

    return sum(x.nbytes for x in tree.flatten(buffer.experience)) / int(buffer.capacity)


def nfsp_run(episodes, capacity=2_000, done=None, **params):
    """nfsp_leduc_pytorch.py's loop and hyper-parameters with its env line unchanged
    (`rl_environment.Environment(game, players=2)`), smaller buffers and a shorter warm-up;
    at most `episodes`, fewer once `done(agents)` holds after one."""
    pytest.importorskip("torch")
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp  # needs dm-tree: the openspiel extra brings it

    env = rl_environment.Environment("python_fae", **{"players": 2}, **params)
    info_state_size = env.observation_spec()["info_state"][0]
    num_actions = env.action_spec()["num_actions"]
    kwargs = dict(replay_buffer_capacity=capacity, reservoir_buffer_capacity=capacity, min_buffer_size_to_learn=200,
                  anticipatory_param=0.1, batch_size=128, learn_every=64, rl_learning_rate=0.01,
                  sl_learning_rate=0.01, optimizer_str="sgd", loss_str="mse", update_target_network_every=19200,
                  discount_factor=1.0, epsilon_decay_duration=int(20e6), epsilon_start=0.06, epsilon_end=0.001)
    agents = [nfsp.NFSP(idx, info_state_size, num_actions, [128], **kwargs) for idx in range(2)]
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            player_id = time_step.observations["current_player"]
            agent_output = agents[player_id].step(time_step)
            time_step = env.step([agent_output.action])
        for agent in agents:
            agent.step(time_step)
        if done is not None and done(agents):
            break
    return env, agents


def dqn_run(episodes, capacity=2_000, done=None, **params):
    """dqn_breakthrough_pytorch.py's loop and hyper-parameters, the env line changed to this game;
    at most `episodes`, fewer once `done(agents)` holds after one."""
    pytest.importorskip("torch")
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn

    env = rl_environment.Environment("python_fae", **params)
    info_state_size = env.observation_spec()["info_state"][0]
    num_actions = env.action_spec()["num_actions"]
    agents = [dqn.DQN(player_id=idx, state_representation_size=info_state_size, num_actions=num_actions,
                      hidden_layers_sizes=[64, 64], replay_buffer_capacity=capacity, batch_size=32)
              for idx in range(2)]
    for _ in range(episodes):
        time_step = env.reset()
        while not time_step.last():
            player_id = time_step.observations["current_player"]
            time_step = env.step([agents[player_id].step(time_step).action])
        for agent in agents:
            agent.step(time_step)
        if done is not None and done(agents):
            break
    return env, agents


# A transition holds one information state (NFSP's reservoir) or two (DQN's replay buffer) plus
# small fields: with the compact tensor it stays under these bounds; the full history is ~15x more.
NFSP_BYTES = COMPACT * 4 + 2_000
DQN_BYTES = 2 * COMPACT * 4 + 3_000


def check_openspiel_learners(episodes, nfsp_done=None, dqn_done=None):
    """Both example loops; every buffer they preallocated holds the compact tensor within the bounds."""
    np.random.seed(0)  # NFSP and DQN draw exploration and NFSP's episode mode from numpy's global generator
    _, nfsp_agents = nfsp_run(episodes, done=nfsp_done)
    _, dqn_agents = dqn_run(episodes, done=dqn_done)
    buffers = [a._rl_agent._replay_buffer for a in nfsp_agents] + [a._replay_buffer for a in dqn_agents]
    for buffer in buffers:
        assert buffer.experience.info_state.shape[1] == COMPACT and transition_bytes(buffer) <= DQN_BYTES
    for agent in nfsp_agents:  # NFSP fills its reservoir in best-response episodes only (10% of them)
        if agent._reservoir_buffer is not None:
            assert agent._reservoir_buffer.experience.info_state.shape[1] == COMPACT
            assert transition_bytes(agent._reservoir_buffer) <= NFSP_BYTES
    return nfsp_agents, dqn_agents


def test_openspiel_nfsp_and_dqn_examples_run_on_the_default_env(one_torch_thread):
    """Issue 39 item 6: OpenSpiel's NFSP and DQN example loops on `rl_environment.Environment` with
    default arguments (the full-history tensor made NFSP's example ask for 187 GiB at once)."""
    nfsp_agents, dqn_agents = check_openspiel_learners(episodes=8)
    assert all(len(a._replay_buffer) > 120 for a in dqn_agents)  # 8 games of ~24 decisions a seat


def _wrapped(buffer) -> bool:
    """More transitions went in than it holds, and it kept its preallocated size."""
    return int(buffer.entry_index) > 2_000 and len(buffer) == 2_000 == len(buffer.experience.info_state)


def _nfsp_learned(agents) -> bool:
    """Every replay buffer wrapped around and NFSP's supervised steps ran."""
    return all(_wrapped(a._rl_agent._replay_buffer) and a._reservoir_buffer is not None and a.loss[0] is not None
               for a in agents)


def _dqn_learned(agents) -> bool:
    return all(_wrapped(a._replay_buffer) and a.loss is not None for a in agents)


@pytest.mark.slow
def test_openspiel_nfsp_and_dqn_examples_learn_within_a_few_hundred_episodes(one_torch_thread):
    """Within 300 episodes every replay buffer wraps around (2,000 transitions) and NFSP's supervised
    steps run; the loops stop once they have (typically after ~60-120 episodes: NFSP's reservoir fills
    only in its best-response episodes, drawn at random, and needs a batch of 128 before its first
    supervised step, so a fixed 120 episodes once ended with none in a fresh clone's CI)."""
    nfsp_agents, dqn_agents = check_openspiel_learners(episodes=300, nfsp_done=_nfsp_learned, dqn_done=_dqn_learned)
    assert _nfsp_learned(nfsp_agents) and _dqn_learned(dqn_agents)


def test_transition_bound_would_catch_the_full_history_tensor(one_torch_thread):
    """Control for the bounds above: the same loops on info_state_tensor=full exceed them."""
    _, (nfsp_agent, _) = nfsp_run(1, capacity=10, info_state_tensor="full")
    assert transition_bytes(nfsp_agent._rl_agent._replay_buffer) > DQN_BYTES
    _, (dqn_agent, _) = dqn_run(1, capacity=10, info_state_tensor="full")
    assert transition_bytes(dqn_agent._replay_buffer) > DQN_BYTES
