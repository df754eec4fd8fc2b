"""A user's own modules (issue 39 item 4): `tabletop-train --imports mybots`, `tabletop-arena --import
mybots` and `python <repo>/train.py --imports mybots` import `mybots.py` from the folder the command runs
in, as `python -m` would (they ended in ModuleNotFoundError: a console script's path holds its own bin
folder, a script's its own folder); a name not found is a usage error saying where it was looked for
and what to do; an error inside the user's module is theirs and shown as it is. And `act_batch`'s
contract (`Agent`'s docstring) is checked where the learner core calls it."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tabletop_rl.agents.base import Agent, import_user_modules
from tabletop_rl.agents.match import batch_bot_actions

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MYBOTS = textwrap.dedent('''
    import numpy as np
    from tabletop_rl.agents import register_agent
    from tabletop_rl.agents.base import Agent

    class Lowest(Agent):
        name = "my_lowest"
        needs_observation = False

        def act(self, observation, action_mask, *, state=None, seat=None):
            return int(np.flatnonzero(action_mask)[0])

    register_agent("*", "my_lowest", Lowest)

    def bonus(batch, seats, dones):
        return np.where(dones, 0.5, 0.0)
''')


def run(cmd, cwd, timeout=300):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only what the command itself sets up
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def user_folder(tmp_path):
    (tmp_path / "mybots.py").write_text(MYBOTS)
    (tmp_path / "broken.py").write_text("import no_such_dependency_xyz\n")  # the user's own import error
    return tmp_path


def console(name):
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed in this environment (pip install -e .)")
    return str(path)


def test_arena_imports_mybots_from_the_current_folder(user_folder):
    r = run([console("tabletop-arena"), "--game", "fae", "--agents", "my_lowest", "random", "--games", "2",
             "--workers", "1", "--quiet", "--no-plot", "--no-records", "--out", "out", "--import", "mybots"], user_folder)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "my_lowest" in r.stdout
    # control: a name found nowhere is a usage error that says where it looked and what to do
    r = run([console("tabletop-arena"), "--game", "fae", "--agents", "my_lowest", "random", "--games", "2",
             "--workers", "1", "--quiet", "--no-plot", "--out", "out", "--import", "notmybots"], user_folder)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "no module named 'notmybots' in the current folder" in r.stderr and "PYTHONPATH" in r.stderr


TRAIN_FLAGS = ["--game", "fae", "--total-steps", "256", "--n-envs", "8", "--n-steps", "32", "--batch-size", "128",
               "--net-arch", "16", "--bc-teacher", "", "--eval-every", "0", "--final-eval-games", "0",
               "--checkpoint-every", "0", "--no-progress", "--runs-dir", "runs", "--imports", "mybots",
               "--opponents", "my_lowest=1", "--pool-greedy", "0", "--pool-random", "0"]


@pytest.mark.parametrize("entry", ["tabletop-train", "python repo/train.py"])
def test_train_imports_mybots_from_the_current_folder(user_folder, entry):
    cmd = [console("tabletop-train")] if entry == "tabletop-train" else [sys.executable, str(REPO / "train.py")]
    r = run(cmd + TRAIN_FLAGS + ["--reward-fn", "mybots:bonus", "--run-name", "r"], user_folder)
    assert r.returncode == 0, r.stderr[-3000:]
    assert (user_folder / "runs" / "r" / "policy.npz").exists()
    # the summary names the command that was run, not another one
    assert (("tabletop-train --evaluate" in r.stdout) if entry == "tabletop-train"
            else (f"python {REPO / 'train.py'} --evaluate" in r.stdout)), r.stdout[-1500:]


def test_train_says_what_to_do_when_a_module_is_not_found(user_folder):
    r = run([sys.executable, str(REPO / "train.py"), *TRAIN_FLAGS[:-6], "--imports", "notmybots"], user_folder)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "--imports notmybots: no module named 'notmybots' in the current folder" in r.stderr
    assert not (user_folder / "runs").exists()


def test_import_user_modules_puts_the_current_folder_first_and_keeps_the_users_own_errors(user_folder, monkeypatch):
    monkeypatch.chdir(user_folder)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(user_folder))])
    for name in ("mybots", "broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert import_user_modules([" ", ""], "--imports") == [] and str(user_folder) not in sys.path  # nothing asked
    (mod,) = import_user_modules([" mybots "], "--imports")
    assert sys.path[0] == str(user_folder) and mod.__file__ == str(user_folder / "mybots.py")
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):  # their module's error, not ours
        import_user_modules(["broken"], "--imports")
    with pytest.raises(ValueError, match=r"--import pkg\.bots: no module named 'pkg'.*holds pkg\.py"):
        import_user_modules(["pkg.bots"], "--import")


# ------------------------------------------------------------------ act_batch's contract
class Batch:
    """Three games, two actions; game 1 has only action 1 legal."""
    num_envs = 3

    def legal_mask(self):
        return np.array([[True, True], [False, True], [True, False]])


class Answers(Agent):
    name = "answers"

    def __init__(self, answer):
        super().__init__(0)
        self.answer = answer

    def act_batch(self, batch, games, rng):
        return self.answer


GAMES = np.array([True, True, False])


@pytest.mark.parametrize("answer,message", [
    (np.array([0, 1]), r"shape \(3,\).*got int64 of shape \(2,\)"),  # one answer per moving game: the common slip
    (np.array([0.0, 1.0, -1.0]), "got float64"),
    (np.array([True, True, False]), "got bool"),
    (None, "got NoneType"),
    ([0, [1], 2], "got list"),
    (np.array([0, 0, -1]), "got 0 in game 1, not a legal action"),
    (np.array([0, 2, -1]), "got 2 in game 1, not a legal action"),
    (np.array([-1, 1, -1]), "got -1 in game 0, not a legal action"),
])
def test_act_batch_answers_outside_the_contract_raise_naming_the_bot(answer, message):
    with pytest.raises(RuntimeError, match=r"Answers\(name='answers'\): act_batch must return .*" + message):
        batch_bot_actions(Answers(answer), Batch(), GAMES, np.random.default_rng(0))


def test_act_batch_answers_within_the_contract_pass():
    for answer in (np.array([1, 1, -1]), [0, 1, -1], np.array([0, 1, 0], dtype=np.int32)):  # what is not read: any int
        assert batch_bot_actions(Answers(answer), Batch(), GAMES, np.random.default_rng(0)).tolist()[:2] == list(answer)[:2]


def test_the_learner_core_checks_act_batch():
    from tabletop_rl.agents.registry import register_agent, unregister_agent
    from tabletop_rl.training.learner import make_learner_core

    class Short(Agent):
        name = "short_batch"

        def act(self, observation, action_mask, *, state=None, seat=None):
            raise AssertionError("the batched form is used")

        def act_batch(self, batch, games, rng):  # one answer per moving game: not the contract
            return np.argmax(batch.legal_mask(), axis=1)[games]

    register_agent("fae", "short_batch", Short)
    try:
        core = make_learner_core("fae", 4, opponents={"short_batch": 1.0}, seed=0, history="none")
        with pytest.raises(RuntimeError, match=r"short_batch.*act_batch must return an integer array of shape \(4,\)"):
            core.reset()  # the learner sits at seat 1 in games 1 and 3: the opponent moves first there
            for _ in range(4):
                core.step(np.argmax(core.masks(), axis=1))
    finally:
        unregister_agent("fae", "short_batch")
