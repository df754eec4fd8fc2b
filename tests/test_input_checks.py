"""Inputs at the edges of the cores and envs (issue 14, smaller defects): actions that are not
ints, read-only legal-action arrays, masks after an illegal ending, last() before reset(), the
card loader's file checks, recording Fantastiqa, and bot registration independent of import order."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from fae_rl import FaeState
from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.envs.registry import get_game

# a 0-d integer array is its integer (SB3's predict returns one: tests/test_sb3_predict_actions.py);
# a 0-d array of another dtype is not
NOT_INTS = [True, np.bool_(True), 1.0, np.float32(1), np.array(1.0), np.array(True), Fraction(1), Decimal(1), "1",
            None]


def _new(game):
    return FaeState.new(2, seed=0) if game == "fae" else FantastiqaState.new(num_players=2, seed=0)


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
@pytest.mark.parametrize("action", NOT_INTS, ids=repr)
def test_cores_reject_non_integer_actions_alike(game, action):
    state = _new(game)
    before = state.to_dict()
    with pytest.raises(ValueError, match="action must be an int"):
        state.apply(action)
    assert state.to_dict() == before


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
@pytest.mark.parametrize("action", NOT_INTS[:-2], ids=repr)
def test_raw_envs_reject_non_integer_actions(game, action):
    env = get_game(game).raw_env(num_players=2)
    env.reset(seed=0)
    before = env.unwrapped.game.to_dict()
    with pytest.raises(ValueError, match="action must be an int"):
        env.step(action)
    assert env.unwrapped.game.to_dict() == before


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_legal_actions_are_read_only_and_not_shared_writably_with_clones(game):
    state = _new(game)
    legal = state.legal_actions()
    clone = state.clone()
    with pytest.raises(ValueError):
        legal[0] = legal[-1]
    with pytest.raises(ValueError):
        np.random.default_rng(0).shuffle(legal)
    assert np.array_equal(clone.legal_actions(), legal)


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_all_masks_are_zero_after_an_illegal_move_ends_the_game(game):
    env = get_game(game).env(num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    for a in env.possible_agents:
        assert not env.observe(a)["action_mask"].any(), a
    for a in env.agent_iter():  # the dead steps: still all zero, to the last agent
        obs, _, term, trunc, _ = env.last()
        assert term or trunc
        assert not obs["action_mask"].any()
        env.step(None)


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_last_before_reset_is_a_clear_error(game):
    env = get_game(game).env(num_players=2)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.last()


# ------------------------------------------------------------------------------ card loader
def test_card_loader_refuses_a_directory(tmp_path):
    from fantastiqa_rl.cards import CardFileError, load_card_set

    with pytest.raises(CardFileError, match="not a regular file"):
        load_card_set(str(tmp_path))


def test_card_loader_refuses_a_huge_file_before_parsing(tmp_path):
    from fantastiqa_rl.cards import MAX_CARD_FILE_BYTES, CardFileError, load_card_set

    path = tmp_path / "big.toml"
    path.write_bytes(b"name = '" + b"x" * (MAX_CARD_FILE_BYTES + 10) + b"'\n")
    with pytest.raises(CardFileError, match="limited to"):
        load_card_set(str(path))


def test_card_loader_reads_a_rewritten_file_again(tmp_path):
    from fantastiqa_rl.cards import STANDIN_PATH, CardFileError, load_card_set

    path = tmp_path / "cards.toml"
    text = open(STANDIN_PATH, encoding="utf-8").read()
    path.write_text(text, encoding="utf-8")
    first = load_card_set(str(path))
    assert load_card_set(str(path)) is first  # cached while unchanged
    path.write_text("this is = not [valid toml", encoding="utf-8")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))  # a new mtime even on coarse clocks
    with pytest.raises(CardFileError, match="cannot parse"):
        load_card_set(str(path))
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 2 * 10**9))
    assert load_card_set(str(path)) == first


# ------------------------------------------------------------------------------ recording
def test_make_recorded_fantastiqa(tmp_path):
    from tabletop_rl.agents.records import read_records, replay
    from tabletop_rl.agents.recording import make_recorded

    path = tmp_path / "q.jsonl"
    env = make_recorded("fantastiqa_v1", path, num_players=2, max_turns=2, bought_to="hand")
    env.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    (rec,) = list(read_records(path))
    assert rec["game"] == "fantastiqa" and rec["options"]["bought_to"] == "hand"
    assert rec["ended"] == "truncated" and rec["final_state_sha256"]
    assert replay(rec)[-1].to_dict() == env.unwrapped.game.to_dict()


# ------------------------------------------------------------------------------ bot registration
_SIGNATURE = ("from tabletop_rl.agents import make_agent; b = make_agent('fantastiqa', 'mcts', seed=0); "
              "print(b.rollout_policy.__qualname__, b.evaluate and b.evaluate.__qualname__, "
              "b.prior and b.prior.__qualname__, b.iterations, b.widen)")


@pytest.mark.parametrize("first", ["", "import fantastiqa_rl.spec; ", "import tabletop_rl.agents.mcts; ",
                                   "import fantastiqa_rl; import tabletop_rl.agents.registry; ",
                                   "from tabletop_rl.envs import get_game; get_game('fantastiqa'); "])
def test_fantastiqa_mcts_is_the_same_bot_whatever_the_import_order(first):
    """Each import order in a fresh interpreter builds the Fantastiqa MCTS (greedy rollouts, its
    evaluation and prior), never the generic one."""
    out = subprocess.run([sys.executable, "-c", first + _SIGNATURE], capture_output=True, text=True, timeout=120,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["fantastiqa_rollout_policy", "fantastiqa_evaluate", "fantastiqa_prior", "24",
                                  "0.3"]


LEARNER_NOT_INTS = [3.7, True, "3", np.float64(3.0), np.array(3.0), np.array([3]), None, np.bool_(True)]


@pytest.mark.parametrize("action", LEARNER_NOT_INTS + ["legal as float"], ids=repr)
def test_selfplay_env_takes_integer_actions_only(action):
    """Issue 24: SelfPlayEnv coerced with int(action) (3.7 played 3, "3" too); now it refuses as the
    cores do, and the episode is unchanged."""
    from tabletop_rl.training.selfplay import SelfPlayEnv

    env = SelfPlayEnv("fae", opponent="random")
    env.reset(seed=0)
    if action == "legal as float":
        action = float(np.flatnonzero(env.action_masks())[0])
    before = env.get_snapshot()
    with pytest.raises(ValueError, match="action must be an int"):
        env.step(action)
    assert env.get_snapshot() == before
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # an int still plays


@pytest.mark.parametrize("seed", [True, 1.5, "1", np.float32(2)], ids=repr)
def test_learner_envs_refuse_a_seed_that_is_not_an_int(seed):
    from tabletop_rl.training.fae_vector_env import FaeLearnerVectorEnv
    from tabletop_rl.training.selfplay import SelfPlayEnv

    env = SelfPlayEnv("fae", opponent="random")
    env.reset(seed=0)
    before = env.get_snapshot()
    with pytest.raises(ValueError, match="seed must be an int"):
        env.reset(seed=seed)
    assert env.get_snapshot() == before
    venv = FaeLearnerVectorEnv(num_envs=2, opponents={"random": 1.0}, seed=0)
    venv.reset(seed=0)
    b = venv.core.vec.engine._b.copy()
    with pytest.raises(ValueError, match="seed must be an int"):
        venv.reset(seed=seed)
    assert np.array_equal(venv.core.vec.engine._b, b)


def _bad_batches(firsts: np.ndarray) -> dict:
    return {"float64": firsts.astype(np.float64), "float + 0.7": firsts + 0.7, "bool": np.ones(firsts.size, bool),
            "list with True": [True] + firsts[1:].tolist(), "list of floats": [float(a) for a in firsts],
            "strings": [str(a) for a in firsts], "object array of str": firsts.astype(str).astype(object)}


@pytest.mark.parametrize("entry", ["FaeLearnerVectorEnv.step", "FaeLearnerCore.step", "FaeVector.step",
                                   "FaeLearnerVecEnv.step_async"])
def test_fae_vector_adapters_take_integer_actions_only(entry):
    """Both Fae vector adapters cast with dtype=int64 (float actions played truncated) and
    FaeVector took [True, 5, ...] as [1, 5, ...]; every batch that is not integers is refused now,
    naming the problem, and no game changes."""
    from tabletop_rl.training.fae_vector_env import FaeLearnerVectorEnv, _sb3_vecenv

    if entry == "FaeLearnerVecEnv.step_async":
        pytest.importorskip("stable_baselines3")
        env = _sb3_vecenv()(4, opponents={"random": 1.0}, seed=0)
        env.reset()
        step = env.step_async
    else:
        env = FaeLearnerVectorEnv(num_envs=4, opponents={"random": 1.0}, seed=0)
        env.reset(seed=0)
        step = {"FaeLearnerVectorEnv.step": env.step, "FaeLearnerCore.step": env.core.step,
                "FaeVector.step": env.core.vec.engine.step}[entry]
    core = env.core
    firsts = np.array([np.flatnonzero(m)[0] for m in core.masks()])
    for case, actions in _bad_batches(firsts).items():
        b, w = core.vec.engine._b.copy(), core.vec.engine._w.copy()
        with pytest.raises(ValueError, match="must be (integers|an int)"):
            step(actions)
        assert np.array_equal(core.vec.engine._b, b) and np.array_equal(core.vec.engine._w, w), case
    step(firsts)  # integers still play


# ------------------------------------------------------------------------------ AEC env edges (issue 36, item 7)
GAMES = ["fae", "fantastiqa"]
AEC_FACES = ["env", "raw_env"]


def _aec(game, face):
    spec = get_game(game)
    return getattr(spec, face)(num_players=2, **({"max_turns": 2} if game == "fantastiqa" else {}))


@pytest.mark.parametrize("seed", [True, np.bool_(True), 1.5, np.float32(2), "1", [1, 2], -1, np.int64(-5)], ids=repr)
@pytest.mark.parametrize("face", AEC_FACES)
@pytest.mark.parametrize("game", GAMES)
def test_aec_reset_refuses_a_seed_that_is_not_an_int_naming_it(game, face, seed):
    """reset(seed=True) dealt seed 1, 1.5 and "1" raised numpy's TypeError, -1 numpy's "expected
    non-negative integer"; now a ValueError naming seed, and the game in progress is unchanged."""
    env = _aec(game, face)
    env.reset(seed=0)
    before = env.unwrapped.game.to_dict()
    with pytest.raises(ValueError, match="seed must be an int"):
        env.reset(seed=seed)
    assert env.unwrapped.game.to_dict() == before


@pytest.mark.parametrize("face", AEC_FACES)
@pytest.mark.parametrize("game", GAMES)
def test_aec_reset_takes_numpy_integer_seeds_as_their_value(game, face):
    """The control: numpy integers (uint64 past int64 too) and 0-d integer arrays deal as the int."""
    a, b = _aec(game, face), _aec(game, face)
    for seed in (3, 2**64 - 1):
        a.reset(seed=seed)
        for same in (np.uint64(seed), np.array(seed, dtype=np.uint64)) if seed > 3 else (np.int64(3), np.array(3)):
            b.reset(seed=same)
            assert b.unwrapped.game.to_dict() == a.unwrapped.game.to_dict()
    b.reset(seed=None)  # fresh entropy, as before


@pytest.mark.parametrize("agent", ["player_9", "bob", 0, ["player_0"]], ids=repr)
@pytest.mark.parametrize("face", AEC_FACES)
@pytest.mark.parametrize("game", GAMES)
def test_an_unknown_agent_is_a_value_error_naming_it(game, face, agent):
    """observe / observation_space / action_space of an agent the env does not have raised a bare
    KeyError (a TypeError for an unhashable one)."""
    env = _aec(game, face)
    env.reset(seed=0)
    for call in (env.observe, env.observation_space, env.action_space):
        with pytest.raises(ValueError, match=r"agent must be one of \['player_0', 'player_1'\]; got"):
            call(agent)
    for known in env.possible_agents:  # the control
        assert env.observation_space(known).contains(env.observe(known))
        assert env.action_space(known).n == env.unwrapped._act_space.n


def _play_out(env):
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("face", AEC_FACES)
@pytest.mark.parametrize("game", GAMES)
def test_last_after_the_end_is_a_clear_error(game, face):
    """last() once every agent is done raised KeyError('player_1'); a raw env's step then too."""
    env = _aec(game, face)
    env.reset(seed=0)
    env.last()  # the control: during the game it answers
    _play_out(env)
    assert not env.agents
    with pytest.raises(RuntimeError, match=r"last\(\) called after the game ended"):
        env.last()
    if face == "raw_env":
        with pytest.raises(RuntimeError, match=r"step\(\) called after the game ended"):
            env.step(0)
        with pytest.raises(RuntimeError, match=r"step\(\) called before reset\(\)"):
            _aec(game, face).step(0)
    else:
        env.step(0)  # the protected env warns and does nothing, as PettingZoo's OrderEnforcingWrapper


def test_uint64_seeds_past_int64_are_refused_not_wrapped():
    """FaeVector / ScalarBatch seeds went through int64: 2**64 - 1 became -1 and numpy said only
    "expected non-negative integer". Refused naming seeds; nothing is dealt. The control: uint64
    seeds that fit deal as the same ints."""
    from fae_rl.vector import FaeVector
    from tabletop_rl.envs.scalar_batch import ScalarBatch

    for batch in (FaeVector(2, 2), ScalarBatch(get_game("fantastiqa"), 2, 2)):
        batch.reset([1, 2])
        before = [batch.state(i).to_dict() for i in range(2)]
        for seeds in (np.array([1, 2**64 - 1], dtype=np.uint64), [1, 2**63], [1, 2**70]):
            with pytest.raises(ValueError, match="seeds must fit int64"):
                batch.reset(seeds)
            assert [batch.state(i).to_dict() for i in range(2)] == before
        batch.reset(np.array([1, 2], dtype=np.uint64))
        assert [batch.state(i).to_dict() for i in range(2)] == before
