"""--eval-options and --keep-best: the evaluations on other options (a validation card file) and the best
policy they choose (tabletop_rl.training.sb3.check_evaluations, keep_if_best)."""
import json

import pytest

import train
from tabletop_rl.agents.ppo_agent import PolicyWeights
from tabletop_rl.training import checkpoints, sb3

TINY = ["--preset", "tiny", "--no-progress", "--eval-games", "12"]


def test_keep_best_saves_the_policy_of_the_best_evaluation_and_it_replays_that_figure(tmp_path):
    summary = train.train(train.parse_args([*TINY, "--runs-dir", str(tmp_path), "--run-name", "b",
                                            "--keep-best", "greedy", "--eval-every", "1024", "--final-eval-games", "0"]))
    rows = [r for r in summary["evals"] if r["opponent"] == "greedy"]
    assert len(rows) >= 4  # step 0, the periodic ones, and the final policy on the same deals
    assert rows[-1]["steps"] == summary["steps"] and rows[-1]["games"] == rows[0]["games"]
    best = summary["best"]
    first_max = next(r for r in rows if r["win_share"] == max(x["win_share"] for x in rows))
    assert (best["steps"], best["win_share"], best["games"]) == (first_max["steps"], first_max["win_share"],
                                                                  first_max["games"])
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["best"] == best
    # the saved file is the policy of that evaluation: replaying its games (the run's one set of deals) gives its figure
    weights = PolicyWeights.load(best["policy"])
    seed = sb3.EVAL_SEED
    cfg = train.parse_args([*TINY, "--options", "history=summary,action_features=versus"])
    assert sb3.eval_policy(weights, cfg, "greedy", best["games"], seed)["win_share"] == best["win_share"]


def test_a_policy_replaces_the_kept_one_only_by_beating_it(tmp_path):
    history = {"evals": [], "best": {"opponent": "greedy", "games": 12, "win_share": 0.5, "ci_low": 0.2,
                                     "ci_high": 0.8, "steps": 1024}}
    cfg = train.parse_args([*TINY, "--keep-best", "greedy"])
    row = {"opponent": "greedy", "games": 10, "win_share": 0.5, "ci_low": 0.2, "ci_high": 0.8, "steps": 4096}

    class Saved:
        paths = []

        def save(self, path):
            self.paths.append(path)

    sb3.keep_if_best(Saved(), cfg, row, str(tmp_path), history)  # a tie keeps the earlier policy
    assert Saved.paths == [] and history["best"]["steps"] == 1024
    sb3.keep_if_best(Saved(), cfg, {**row, "opponent": "random", "win_share": 1.0}, str(tmp_path), history)
    assert Saved.paths == []  # another opponent's figure chooses nothing
    sb3.keep_if_best(Saved(), cfg, {**row, "win_share": 0.6}, str(tmp_path), history)
    assert Saved.paths == [str(tmp_path / "policy_best.npz")] and history["best"]["steps"] == 4096


def test_without_keep_best_no_best_policy_is_written(tmp_path):
    summary = train.train(train.parse_args([*TINY, "--runs-dir", str(tmp_path), "--run-name", "n"]))
    assert "best" not in summary and not (tmp_path / "n" / "policy_best.npz").exists()


def test_eval_options_are_played_over_the_run_options(tmp_path, monkeypatch):
    seen = []
    real = sb3.evaluate_policy

    def spy(weights, game, players, opponent, games, seed, options, **kw):
        seen.append(dict(options))
        return real(weights, game, players, opponent, games, seed, options, **kw)

    monkeypatch.setattr(sb3, "evaluate_policy", spy)
    train.train(train.parse_args([*TINY, "--runs-dir", str(tmp_path), "--run-name", "o",
                                  "--eval-options", "big_stack_merge=true"]))
    assert seen and all(o["big_stack_merge"] is True and o["history"] == "summary" for o in seen)


@pytest.mark.parametrize("flags, message", [
    (["--keep-best", "mcts"], "is not one of the evaluation opponents"),
    (["--keep-best", "greedy", "--eval-every", "0"], "needs --eval-every > 0"),
    (["--eval-options", "no_such_option=1"], "--eval-options 'no_such_option=1'"),
    (["--eval-options", "history=none"], "inputs and"),  # another observation: the policy could not play it
    (["--eval-options", "big_stack_merge=maybe"], "--eval-options 'big_stack_merge=maybe'"),  # a bad rule value
])
def test_bad_evaluation_flags_stop_the_run_before_anything_is_made(tmp_path, flags, message):
    with pytest.raises(SystemExit, match=message):
        train.train(train.parse_args([*TINY, "--runs-dir", str(tmp_path), *flags]))
    assert not list(tmp_path.iterdir())


def test_flags_that_are_not_text_are_refused_before_anything_is_made(tmp_path):
    cfg = train.parse_args([*TINY, "--runs-dir", str(tmp_path)])
    cfg.keep_best = ["greedy"]
    with pytest.raises(SystemExit, match="are text"):
        train.train(cfg)
    assert not list(tmp_path.iterdir())


def test_good_evaluation_flags_pass_the_check():  # control of the test above
    cfg = train.parse_args([*TINY, "--keep-best", "greedy", "--eval-options", "big_stack_merge=true"])
    sb3.check_evaluations(cfg, "history=summary,action_features=versus")


def test_a_checkpoint_with_a_bad_best_row_is_refused():
    good = {"opponent": "greedy", "games": 12, "win_share": 0.5, "ci_low": 0.2, "ci_high": 0.8, "steps": 1024}
    history = {**sb3.new_history(train.parse_args(TINY), 4096), "best": good}
    problems = []

    def need(ok, where, what):
        if not ok:
            problems.append(where)

    checkpoints._check_history(history, 4096, ["random", "greedy"], need)
    assert problems == []  # control: a good row passes
    for bad in ({**good, "win_share": 1.5}, {**good, "opponent": "mcts"}, {**good, "steps": 10**6}, "greedy"):
        problems.clear()
        checkpoints._check_history({**history, "best": bad}, 4096, ["random", "greedy"], need)
        assert problems == ["history.best"], bad
