"""A short run trains (issue 39 item 3): `--time-limit-min` is PPO's time, the warm start counts apart
(a 3-minute Fantastiqa run once spent 261 s in its warm start and left PPO 64 steps, silently), the
summary warns when PPO made fewer than `MIN_PPO_UPDATES` updates, and the few-minute Fantastiqa
recipe (`--preset fantastiqa-short`) trains: run here at tiny scale."""
from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import train  # noqa: E402
from tabletop_rl.training import reports, sb3  # noqa: E402
from tabletop_rl.training.reports import MIN_PPO_UPDATES, short_run_warning  # noqa: E402

QUIET = ["--eval-every", "0", "--final-eval-games", "0", "--checkpoint-every", "0", "--no-progress"]


def _summary(updates, stopped, rollout=8192):
    return {"ppo_updates": updates, "rollout_steps": rollout, "steps": updates * rollout + 64,
            "requested_steps": 40_960, "stopped_by_time_limit": stopped, "time_limit_min": 3.0}


def test_warning_below_the_threshold_only_and_naming_what_ended_the_run():
    assert short_run_warning(_summary(MIN_PPO_UPDATES, stopped=True)) is None
    assert short_run_warning(_summary(500, stopped=False)) is None
    timed = short_run_warning(_summary(0, stopped=True))
    assert timed.startswith("WARNING: PPO made 0 update(s) (64 learner steps)") and "raise --time-limit-min" in timed
    short = short_run_warning(_summary(MIN_PPO_UPDATES - 1, stopped=False))
    assert "--total-steps 40,960 is under 5 rollouts of 8,192" in short and "raise --total-steps" in short


def test_the_time_limit_is_ppos_the_warm_start_counts_apart(tmp_path, monkeypatch, capsys):
    """A warm start longer than the whole limit (made so here: its seconds are set to a day) leaves PPO its
    minutes; before, the first rollout stopped after one step of each game (64 steps in the issue's run)."""
    real = sb3.warm_start

    def slow_warm_start(model, cfg, history, run_dir, setup_start):
        real(model, cfg, history, run_dir, setup_start)
        history["setup_seconds"] = 86_400.0

    monkeypatch.setattr(train, "warm_start", slow_warm_start)
    summary = train.train(train.parse_args(["--preset", "tiny", "--time-limit-min", "1", "--runs-dir", str(tmp_path),
                                            "--run-name", "apart", *QUIET]))
    assert summary["steps"] == summary["requested_steps"] == 4096 and not summary["stopped_by_time_limit"]
    assert summary["ppo_updates"] == 8 and summary["warnings"] == []
    assert "WARNING" not in capsys.readouterr().out
    # and the learning rate's schedule reads the same clock: the warm start's day does not end it
    rate = sb3.AnnealedRate(1e-3, 10.0, {"setup_seconds": 86_400.0, "wall_seconds": 300.0})
    assert rate(1.0) == pytest.approx(5e-4)


@pytest.mark.parametrize("flags,cause", [
    (["--time-limit-min", "0.00001"], "raise --time-limit-min"),  # stops at the first rollout boundary it reaches
    (["--total-steps", "1024"], "raise --total-steps"),  # 2 rollouts of 512
])
def test_a_run_that_trains_almost_nothing_says_so(tmp_path, capsys, flags, cause):
    summary = train.train(train.parse_args(["--preset", "tiny", "--runs-dir", str(tmp_path), "--run-name", "few",
                                            "--bc-teacher", "", *QUIET, *flags]))
    assert summary["ppo_updates"] < MIN_PPO_UPDATES
    (warning,) = summary["warnings"]
    assert cause in warning
    out = capsys.readouterr().out
    assert out.count(warning) == 2 and out.rstrip().endswith(warning)  # under the header and last


def test_the_few_minute_fantastiqa_recipe_trains_at_tiny_scale(tmp_path, capsys):
    """`--preset fantastiqa-short` as README gives it, scaled down (a few hundred steps, a few games):
    PPO makes its updates, the run evaluates against greedy at step 0 and at the end, no warning."""
    cfg = train.parse_args(["--preset", "fantastiqa-short"])
    assert (cfg.game, cfg.time_limit_min, cfg.eval_opponents, cfg.final_eval_games) == ("fantastiqa", 3.0, "greedy", 400)
    assert cfg.options == train.PRESETS["fantastiqa"]["options"]  # the flat preset's recipe
    assert "fantastiqa-short" in train.PRESET_HELP
    summary = train.train(train.parse_args([
        "--preset", "fantastiqa-short", "--runs-dir", str(tmp_path), "--run-name", "short", "--no-progress",
        "--total-steps", "1536", "--n-envs", "16", "--n-steps", "16", "--batch-size", "128",
        "--bc-samples", "256", "--bc-epochs", "1", "--eval-games", "2", "--final-eval-games", "2",
        "--max-game-steps", "300"]))
    assert summary["steps"] == 1536 and summary["ppo_updates"] == 6 and summary["warnings"] == []
    assert [r["opponent"] for r in summary["evals"]] == ["greedy"] and summary["evals"][0]["steps"] == 0
    assert [r["opponent"] for r in summary["final_eval"]] == ["greedy"]
    out = capsys.readouterr().out
    assert "vs greedy" in out and "at step 0:" in out and "WARNING" not in out
    assert reports.command_name() == "python train.py"  # started from Python: the hint names the script
