"""--value-warmup-steps: PPO's first updates train the value head alone (tabletop_rl.training.sb3.hold_policy)."""
import gymnasium
import numpy as np
import pytest
import torch

import train
from fantastiqa_rl.card_view import NUM_ACTIONS_MAX, VIEW_SIZE
from tabletop_rl.card_net import CardPolicy
from tabletop_rl.training import sb3

QUIET = ["--final-eval-games", "0", "--eval-every", "0", "--checkpoint-every", "0", "--no-progress"]


def test_the_card_policy_value_head_is_its_three_value_layers():
    space = gymnasium.spaces.Box(0.0, 1.0, shape=(VIEW_SIZE + NUM_ACTIONS_MAX,), dtype=np.float32)
    policy = CardPolicy(space, gymnasium.spaces.Discrete(NUM_ACTIONS_MAX), lambda _: 1e-3, card_hidden=8,
                        quest_hidden=8, hidden=16, entity=8)
    value = {id(p) for p in sb3.value_head_parameters(policy)}
    named = {name for name, p in policy.named_parameters() if id(p) in value}
    assert named == {f"net.{m}.{w}" for m in ("value1", "value2", "value_out") for w in ("weight", "bias")}
    sb3.hold_policy(policy, True)
    assert all(p.requires_grad == (id(p) in value) for p in policy.parameters())
    sb3.hold_policy(policy, False)
    assert all(p.requires_grad for p in policy.parameters())


def _run(tmp_path, name, warmup, monkeypatch):
    """A tiny Fae run; (state before PPO, state after) of its policy."""
    seen = {}
    real = train.learn

    def learn(model, *args, **kwargs):
        seen["before"] = {k: v.clone() for k, v in model.policy.state_dict().items()}
        real(model, *args, **kwargs)
        seen["after"] = {k: v.clone() for k, v in model.policy.state_dict().items()}
        seen["value"] = {n for n, p in model.policy.named_parameters()
                         if id(p) in {id(q) for q in sb3.value_head_parameters(model.policy)}}

    monkeypatch.setattr(train, "learn", learn)
    summary = train.train(train.parse_args(["--preset", "tiny", "--runs-dir", str(tmp_path), "--run-name", name,
                                            "--value-warmup-steps", str(warmup), *QUIET]))
    assert summary["ppo_updates"] >= 4
    changed = {k for k in seen["before"] if not torch.equal(seen["before"][k], seen["after"][k])}
    return changed, seen["value"]


def test_a_value_warmup_holds_the_policy_and_trains_the_value_head(tmp_path, monkeypatch):
    changed, value = _run(tmp_path, "held", 10**9, monkeypatch)  # the whole run is warm-up
    assert value and changed == value, (changed, value)
    # control: without the warm-up the same run moves the policy too
    changed, value = _run(tmp_path, "free", 0, monkeypatch)
    assert changed > value


@pytest.mark.parametrize("value", ["-1", "1.5"])
def test_a_bad_value_warmup_stops_the_run_before_anything_is_made(tmp_path, value):
    cfg = train.parse_args(["--preset", "tiny", "--runs-dir", str(tmp_path), "--value-warmup-steps", "0"])
    cfg.value_warmup_steps = int(value) if value.lstrip("-").isdigit() else float(value)
    with pytest.raises(SystemExit, match="--value-warmup-steps must be a whole number >= 0"):
        train.train(cfg)
    assert not list(tmp_path.iterdir())
    cfg.value_warmup_steps = 4096
    train.check_learning_flags(cfg)  # control: a good value passes
