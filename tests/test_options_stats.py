"""The suite's one option parser (`tabletop_rl.options`) and one Wilson interval (`tabletop_rl.stats`),
and the one unknown-option check (`GameSpec.check_options`) every CLI and env uses."""
from __future__ import annotations

import pytest

from tabletop_rl.envs import get_game
from tabletop_rl.options import BOT_WORDS, parse_options
from tabletop_rl.stats import Z95, wilson_interval


def test_parse_options_values():
    got = parse_options("history=none, big_stack_merge=TRUE,turn_limit=50,c=0.5,x=None,path=a/b.npz,,")
    assert got == {"history": "none", "big_stack_merge": True, "turn_limit": 50, "c": 0.5, "x": None,
                   "path": "a/b.npz"}
    assert parse_options(["card_set=my,cards.toml", "goal=long"]) == {"card_set": "my,cards.toml", "goal": "long"}
    assert parse_options("time_limit=none", words=BOT_WORDS) == {"time_limit": None}
    assert parse_options(None) == {} and parse_options("") == {}


@pytest.mark.parametrize("bad", ["history", "=3", "a=1,b"])
def test_parse_options_names_a_malformed_item(bad):
    with pytest.raises(ValueError, match="must look like key=value"):
        parse_options(bad, what="--option")


def test_parse_options_evaluates_no_code():
    assert parse_options("x=__import__('os').getcwd()") == {"x": "__import__('os').getcwd()"}


def test_one_wilson_interval_everywhere():
    from tabletop_rl.agents import arena
    from tabletop_rl import training

    assert arena.wilson_interval is wilson_interval and training.wilson is wilson_interval and arena.Z95 == Z95
    assert wilson_interval(0, 0) == (0.0, 1.0)  # no games: nothing is known
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    for bad in [(1, 0), (0, -1), (-0.5, 4), (4.5, 4)]:
        with pytest.raises(ValueError):
            wilson_interval(*bad)


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_check_options_splits_and_names_unknown_keys(game):
    spec = get_game(game)
    rule, obs = spec.check_options({spec.rule_options[0]: 1})
    assert rule == {spec.rule_options[0]: 1} and obs == {}
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['colour'\] for " + game):
        spec.check_options({"colour": "red"})
    assert spec.check_options({"reward": "x"}, also=("reward",)) == ({}, {})
