"""The card-reading policy's anchor to the greedy block (tabletop_rl.card_net: anchor_coef)."""
import gymnasium
import numpy as np
import pytest
import torch

from fantastiqa_rl.card_view import MAX_CARD_KINDS, MAX_QUEST_KINDS, NUM_ACTIONS_MAX, TABLE_AT, VIEW_SIZE
from tabletop_rl.card_net import CardPolicy, anchor_loss, with_added_loss


def test_with_added_loss_adds_its_term_once():
    w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    x = torch.tensor([0.5, 0.25], requires_grad=True)
    y = with_added_loss(x, (w ** 2).sum())
    assert torch.equal(y, x)
    (3 * y.sum() + y[0]).backward()  # x read twice: the extra term still counts once
    assert torch.equal(w.grad, 2 * w.detach())
    assert torch.equal(x.grad, torch.tensor([4.0, 3.0]))
    # control: without it the term is not differentiated at all
    w.grad = None
    (3 * x.sum()).backward()
    assert w.grad is None


def _policy(coef, greedy=True, seed=0):
    n = VIEW_SIZE + (NUM_ACTIONS_MAX if greedy else 0)
    space = gymnasium.spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)
    torch.manual_seed(seed)
    return CardPolicy(space, gymnasium.spaces.Discrete(NUM_ACTIONS_MAX), lambda _: 1e-3, card_hidden=8,
                      quest_hidden=8, hidden=16, entity=8, anchor_coef=coef)


def _batch(rows=6, seed=0):
    """Observations with no card rows (the fixed actions only), a legal set and greedy's move among it."""
    rng = np.random.default_rng(seed)
    obs = np.zeros((rows, VIEW_SIZE + NUM_ACTIONS_MAX), dtype=np.float32)
    obs[:, TABLE_AT], obs[:, TABLE_AT + 1] = 40 / MAX_CARD_KINDS, 20 / MAX_QUEST_KINDS
    obs[:, :TABLE_AT] = rng.random((rows, TABLE_AT)) * 0.5
    mask = np.zeros((rows, NUM_ACTIONS_MAX), dtype=bool)
    mask[:, :5] = True
    obs[np.arange(rows - 1), VIEW_SIZE + rng.integers(0, 5, rows - 1)] = 1.0  # the last row: not the mover's (no move)
    actions = torch.as_tensor(rng.integers(0, 5, rows))
    return torch.as_tensor(obs), actions, torch.as_tensor(mask)


def _grads(policy, loss):
    policy.zero_grad()
    loss.backward()
    return torch.cat([p.grad.flatten() if p.grad is not None else torch.zeros(p.numel()) for p in policy.parameters()])


def test_the_anchor_adds_its_cross_entropy_to_the_loss():
    obs, actions, mask = _batch()
    anchored, plain = _policy(0.5), _policy(0.0)
    plain.load_state_dict(anchored.state_dict())
    v, logp, ent = anchored.evaluate_actions(obs, actions, mask)
    v0, logp0, ent0 = plain.evaluate_actions(obs, actions, mask)
    assert torch.equal(v, v0) and torch.equal(logp, logp0) and torch.equal(ent, ent0)  # forward unchanged
    got = _grads(anchored, (v ** 2).mean() - logp.mean())
    logits, values = plain.net(obs)
    log_p = torch.log_softmax(logits.masked_fill(~mask, -1e8), dim=-1)
    want = _grads(plain, (values.flatten() ** 2).mean() - log_p.gather(1, actions[:, None]).mean()
                  + 0.5 * anchor_loss(log_p, obs[:, VIEW_SIZE:]))
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    # control: the same loss without the anchor has other gradients
    v0, logp0, _ = plain.evaluate_actions(obs, actions, mask)
    assert not torch.allclose(_grads(plain, (v0 ** 2).mean() - logp0.mean()), want, atol=1e-4)


def test_anchor_loss_reads_the_marked_rows_only():
    log_p = torch.log_softmax(torch.randn(3, 4), dim=-1)
    block = torch.zeros(3, 4)
    block[0, 2] = 1.0
    block[2, 1] = 1.0
    torch.testing.assert_close(anchor_loss(log_p, block), -(log_p[0, 2] + log_p[2, 1]) / 2)
    assert anchor_loss(log_p, torch.zeros(3, 4)).item() == 0.0


def test_the_anchor_needs_the_greedy_block():
    with pytest.raises(ValueError, match="action_features=greedy"):
        _policy(0.1, greedy=False)
    with pytest.raises(ValueError, match="anchor_coef must be a finite number >= 0"):
        _policy(-1.0)
    assert _policy(0.0, greedy=False).anchor_coef == 0.0


@pytest.mark.parametrize("flags, named", [
    (["--anchor-coef", "-1"], "finite number >= 0"),
    (["--anchor-coef", "inf"], "finite number >= 0"),
    (["--anchor-coef", "nan"], "finite number >= 0"),
    (["--anchor-coef", "0.5", "--options", "view=cards"], "needs --options view=cards,action_features=greedy"),
])
def test_a_bad_anchor_stops_the_run_before_anything_is_made(tmp_path, flags, named):
    """train.py refuses it with a message naming the flag, before the run folder, the envs or the policy."""
    import train

    cfg = train.parse_args(["--preset", "tiny", "--game", "fantastiqa", "--bc-teacher", "", "--runs-dir", str(tmp_path),
                            "--no-progress", *(["--options", "view=cards,action_features=greedy"]
                                               if "--options" not in flags else []), *flags])
    with pytest.raises(SystemExit, match=named):
        train.train(cfg)
    assert not any(tmp_path.iterdir())
    ok = train.parse_args(["--preset", "tiny", "--game", "fantastiqa", "--options", "view=cards,action_features=greedy",
                           "--anchor-coef", "0.5"])
    train.check_learning_flags(ok)  # control: the same run with a good anchor passes the check
