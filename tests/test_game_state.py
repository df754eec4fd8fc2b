"""Both rules cores satisfy the suite's state contract, `tabletop_rl.envs.game_state.GameState`:
at runtime (isinstance, and every member called on a real game) and statically (mypy)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tabletop_rl.envs import get_game
from tabletop_rl.envs.game_state import GameState

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("fae", "fantastiqa")


def _played(game: str, seed: int = 3, moves: int = 40) -> GameState:
    """A game of `game` a few random moves in, so hidden parts and scores are not all initial."""
    state = get_game(game).new_state(num_players=2, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("game", GAMES)
def test_core_is_a_game_state_at_runtime(game):
    state = get_game(game).new_state(num_players=2, seed=0)
    assert isinstance(state, GameState)
    assert isinstance(_played(game), GameState)


@pytest.mark.parametrize("game", GAMES)
def test_every_member_works_on_a_real_game(game):
    state = _played(game)
    assert state.num_players == 2
    assert state.current_player in (0, 1)
    assert not state.is_terminal()
    legal = state.legal_actions()
    assert legal.dtype == np.int64 and legal.size > 0 and np.all(np.diff(legal) > 0)
    assert state.winners() == []
    returns = state.returns()
    assert returns.dtype == np.float64 and returns.tolist() == [0.0, 0.0]
    scores = state.seat_scores()
    assert len(scores) == 2 and all(type(x) is float for x in scores)

    d = state.to_dict()
    json.dumps(d)  # JSON-safe
    back = type(state).from_dict(json.loads(json.dumps(d)))
    assert back.to_dict() == d

    copy = state.clone()
    copy.apply(int(legal[0]))
    assert state.to_dict() == d, "applying to a clone changed the original"

    seat = state.current_player
    sample = state.sample_consistent(seat, np.random.default_rng(0))
    assert type(sample) is type(state)
    assert sample.current_player == seat and sample.legal_actions().tolist() == legal.tolist()

    with pytest.raises(ValueError):
        state.apply(-1)
    assert state.to_dict() == d, "a rejected action changed the state"


@pytest.mark.parametrize("game", GAMES)
def test_seat_scores_agree_with_each_cores_own_names(game):
    """seat_scores() is the common name; the cores' own names (Fae: final_colour_scores by colour,
    Fantastiqa: final_scores) keep working and say the same."""
    state = _played(game, moves=400)
    if game == "fae":
        final = state.final_colour_scores()
        assert state.seat_scores() == [float(final[c]) for c in state.colours]
        assert len(state.scores()) == 5
    else:
        assert state.seat_scores() == [float(x) for x in state.final_scores()]
        assert len(state.scores) == 2


# ------------------------------------------------------------------------------------ static check
STATIC_CHECK = """\
from fae_rl.state import FaeState
from fae_rl.vector import FaeVector
from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.envs.fae_batch import FaeBatch
from tabletop_rl.envs.game_state import BatchedGame, GameState
from tabletop_rl.envs.scalar_batch import ScalarBatch

fae: GameState = FaeState.new(2, seed=0)
fantastiqa: GameState = FantastiqaState.new(2, seed=0)
fae_vector: BatchedGame = FaeVector(4, 2)
fae_batch: BatchedGame = FaeBatch(4, 2)
scalar_batch: BatchedGame = ScalarBatch("fantastiqa", 4, 2)


class NotAState:  # the control: it lacks most members, so mypy must reject the lines below
    def legal_actions(self) -> list[int]:
        return []


control: GameState = NotAState()
batched_control: BatchedGame = NotAState()
"""
CONTROL_LINES = [STATIC_CHECK.splitlines().index(line) + 1 for line in
                 ("control: GameState = NotAState()", "batched_control: BatchedGame = NotAState()")]


def _layout_for_mypy(tmp: Path) -> str:
    """MYPYPATH under which mypy sees the installed names: `tabletop_rl.envs` is the repository's
    envs/ folder (pyproject's package-dir mapping, which mypy cannot read from an editable install)."""
    pkg = tmp / "layout" / "tabletop_rl"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "envs").symlink_to(ROOT / "envs", target_is_directory=True)
    return os.pathsep.join([str(tmp / "layout"), str(ROOT)])


def run_mypy(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    check = tmp_path / "check_game_state.py"
    check.write_text(textwrap.dedent(source))
    env = dict(os.environ, MYPYPATH=os.pathsep.join([str(tmp_path), _layout_for_mypy(tmp_path)]))
    # follow-imports=silent: the cores are type-checked as far as the contract needs, but only the
    # check file and the Protocol module report errors (the cores are not annotated throughout).
    # --no-site-packages: numpy and torch are Any (the contract is method names and arities; reading their
    # stubs took ~18 of the test's 19 s).
    cmd = [sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports", "--no-incremental", "--no-site-packages",
           "--cache-dir", str(tmp_path / "cache"), "--python-version", "3.11",
           "-m", check.stem, "-m", "tabletop_rl.envs.game_state"]
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_cores_satisfy_the_protocol_statically(tmp_path):
    """mypy accepts both cores as GameState and the batches (FaeVector, FaeBatch, ScalarBatch) as
    BatchedGame, and reports exactly two errors: the control class's lines (so the check is live;
    renaming a core's or a batch's method makes its line fail too)."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (the dev extra has it)")
    done = run_mypy(tmp_path, STATIC_CHECK)
    errors = [ln for ln in done.stdout.splitlines() if ": error:" in ln]
    assert done.returncode == 1 and len(errors) == 2, done.stdout + done.stderr
    for line, error in zip(CONTROL_LINES, errors):
        assert f"check_game_state.py:{line}: error: Incompatible types in assignment" in error, errors
