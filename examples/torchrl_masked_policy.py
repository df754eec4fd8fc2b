"""TorchRL over our PettingZoo games: `torchrl.envs.PettingZooWrapper`, a masked policy, a few updates.

    python examples/torchrl_masked_policy.py --game fae --steps 200 --updates 5
    python examples/torchrl_masked_policy.py --game fantastiqa --steps 200 --updates 5

Needs the `torchrl` extra. What it shows:
- The wrapper takes our AEC envs as they are: `use_mask=True` (turn-based: only the seat to move
  acts; the wrapper's per-group `mask` says who), one group per seat, the Dict observation's
  `action_mask` becomes the group's `action_mask` (the wrapper itself turns our all-zero mask of a
  seat not to move into all-ones, so a masked distribution never sees an empty mask).
- One MLP shared by every seat (self-play), sampled through TorchRL's `ProbabilisticActor` with a
  `MaskedCategorical`, so illegal actions have probability 0.
- `env.rollout` collects the steps; the update is REINFORCE on the seat that acted at each step
  (return = that seat's reward-to-go within the rollout; win/loss arrives at the end of a game)
  with a small entropy bonus. It is a minimal loop to show the plumbing, not a tuned trainer:
  `train.py` (SB3 MaskablePPO) is the suite's trainer.
"""
from __future__ import annotations

import argparse

import torch
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor


def make_env(game: str = "fae", num_players: int = 2, seed: int = 0) -> PettingZooWrapper:
    if game == "fae":
        import fae_rl

        aec = fae_rl.env(num_players=num_players)
    elif game == "fantastiqa":
        import fantastiqa_rl

        aec = fantastiqa_rl.env(num_players=num_players)
    else:
        raise ValueError(f"game must be 'fae' or 'fantastiqa'; got {game!r}")
    return PettingZooWrapper(aec, use_mask=True, categorical_actions=True, seed=seed)


def make_policy(env: PettingZooWrapper, hidden: int = 64) -> tuple[TensorDictSequential, nn.Module]:
    """One shared MLP; per seat group, a masked categorical actor writing (group, "action")."""
    group = next(iter(env.group_map))
    n_obs = env.observation_spec[group, "observation", "observation"].shape[-1]
    n_act = env.full_action_spec[group, "action"].space.n
    net = nn.Sequential(nn.Linear(n_obs, hidden), nn.Tanh(), nn.Linear(hidden, n_act))
    actors = []
    for g in env.group_map:
        logits = TensorDictModule(net, in_keys=[(g, "observation", "observation")], out_keys=[(g, "logits")])
        actors.append(ProbabilisticActor(
            logits, in_keys={"logits": (g, "logits"), "mask": (g, "action_mask")}, out_keys=[(g, "action")],
            distribution_class=MaskedCategorical, return_log_prob=True, log_prob_key=(g, "log_prob")))
    return TensorDictSequential(*actors), net


def reinforce_loss(rollout, net: nn.Module, groups, entropy_coef: float = 0.01) -> torch.Tensor:
    """REINFORCE on the acting seat of each step: -(log pi(a|s) * reward-to-go) - entropy bonus."""
    terms = []
    for g in groups:
        acted = rollout[g, "mask"].squeeze(-1)  # (T,) True where this seat moved
        if not acted.any():
            continue
        reward = rollout["next", g, "reward"].reshape(-1)
        to_go = torch.flip(torch.cumsum(torch.flip(reward, [0]), 0), [0])
        obs = rollout[g, "observation", "observation"].squeeze(1)[acted]
        mask = rollout[g, "action_mask"].squeeze(1)[acted]
        dist = MaskedCategorical(logits=net(obs), mask=mask)
        logp = dist.log_prob(rollout[g, "action"].squeeze(1)[acted])
        terms.append(-(logp * to_go[acted]).mean() - entropy_coef * dist.entropy().mean())
    return torch.stack(terms).sum()


def train(game: str = "fae", num_players: int = 2, steps: int = 200, updates: int = 5, seed: int = 0,
          lr: float = 3e-3) -> list[float]:
    """Collect `steps` steps per update and take one Adam step on them, `updates` times; returns the losses."""
    torch.manual_seed(seed)
    env = make_env(game, num_players, seed)
    policy, net = make_policy(env)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    losses = []
    for _ in range(updates):
        with torch.no_grad():
            rollout = env.rollout(steps, policy=policy, break_when_any_done=False)
        loss = reinforce_loss(rollout, net, env.group_map)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    env.close()
    return losses


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="fae", choices=["fae", "fantastiqa"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--updates", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    for i, loss in enumerate(train(a.game, a.players, a.steps, a.updates, a.seed)):
        print(f"update {i}: loss {loss:.4f}")


if __name__ == "__main__":
    main()
