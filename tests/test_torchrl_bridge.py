"""TorchRL's PettingZooWrapper over fae_v0 and fantastiqa_v1 (examples/torchrl_masked_policy.py)."""
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from tests.example_helpers import load_example  # noqa: E402

example = load_example("torchrl_masked_policy")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_rollout_plays_only_legal_actions_of_the_seat_to_move(game):
    torch.manual_seed(0)
    env = example.make_env(game, 2, seed=1)
    policy, _ = example.make_policy(env)
    with torch.no_grad():
        r = env.rollout(40, policy=policy, break_when_any_done=False)
    acting = torch.stack([r[g, "mask"].squeeze(-1) for g in env.group_map], -1)
    assert (acting.sum(-1) == 1).all()  # turn-based: exactly one seat acts per step
    for g in env.group_map:
        acted = r[g, "mask"].squeeze(-1)
        mask = r[g, "action_mask"].squeeze(1)[acted]
        action = r[g, "action"].squeeze(1)[acted]
        assert mask.gather(-1, action[:, None]).all()  # the masked actor never picks an illegal action
    env.close()


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_masked_policy_trains_a_few_steps(game):
    torch.manual_seed(0)
    env = example.make_env(game, 2, seed=2)
    policy, net = example.make_policy(env)
    before = [p.detach().clone() for p in net.parameters()]
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _ in range(2):
        with torch.no_grad():
            r = env.rollout(60 if game == "fae" else 40, policy=policy, break_when_any_done=False)
        loss = example.reinforce_loss(r, net, env.group_map)
        assert torch.isfinite(loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert any((a != b).any() for a, b in zip(before, net.parameters()))
    env.close()


def test_fae_game_ends_with_win_loss_rewards():
    env = example.make_env("fae", 2, seed=3)
    r = env.rollout(200, break_when_any_done=True)
    assert r["next", "done"][-1].all()
    final = sorted(float(r["next", g, "reward"][-1]) for g in env.group_map)
    assert final in ([-1.0, 1.0], [0.0, 0.0])
    env.close()
