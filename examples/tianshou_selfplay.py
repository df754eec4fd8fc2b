"""Tianshou over our PettingZoo games: `tianshou.env.PettingZooEnv`, one DQN per seat, a few updates.

    python examples/tianshou_selfplay.py --game fae --steps 300 --updates 5
    python examples/tianshou_selfplay.py --game fantastiqa --steps 300 --updates 5

Needs the `tianshou` extra (Tianshou 2.x API). What it shows:
- `PettingZooEnv` takes our AEC envs as they are: it reads the Dict observation's `observation`
  and `action_mask` (as Tianshou's `mask`), and `agent_id` says who is to move; every seat has the
  same spaces, as it requires.
- The multi-agent policy manager (`MultiAgentOffPolicyAlgorithm`) dispatches each step to the DQN
  of the seat to move; DQN's policy takes the mask, so its greedy and epsilon-random actions are
  always legal.
- A `Collector` fills a replay buffer, then each seat's DQN takes a few gradient steps on it. A
  minimal loop to show the plumbing, not a tuned trainer: `train.py` (SB3 MaskablePPO) is the
  suite's trainer.
"""
from __future__ import annotations

import argparse

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.utils.net.common import Net
from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode


def make_env(game: str = "fae", num_players: int = 2) -> PettingZooEnv:
    if game == "fae":
        import fae_rl

        return PettingZooEnv(fae_rl.env(num_players=num_players))
    if game == "fantastiqa":
        import fantastiqa_rl

        return PettingZooEnv(fantastiqa_rl.env(num_players=num_players))
    raise ValueError(f"game must be 'fae' or 'fantastiqa'; got {game!r}")


def make_algorithm(env: PettingZooEnv, hidden: int = 64, eps: float = 0.2) -> MultiAgentOffPolicyAlgorithm:
    """One masked DQN per seat under Tianshou's multi-agent manager."""
    obs_space = env.observation_space["observation"]
    algorithms = []
    for _ in env.agents:
        net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=[hidden])
        policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, observation_space=obs_space,
                                         eps_training=eps, eps_inference=0.0)
        algorithms.append(DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=1.0, target_update_freq=0))
    return MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)


def train(game: str = "fae", num_players: int = 2, steps: int = 300, updates: int = 5, batch: int = 32,
          seed: int = 0) -> tuple[MultiAgentOffPolicyAlgorithm, VectorReplayBuffer, list]:
    """Collect `steps` steps with exploration, then `updates` gradient steps per seat on the buffer."""
    torch.manual_seed(seed)
    np.random.seed(seed)
    env = make_env(game, num_players)
    algorithm = make_algorithm(env)
    venv = DummyVectorEnv([lambda: make_env(game, num_players)])
    venv.seed(seed)
    buffer = VectorReplayBuffer(max(steps, 1) * 2, buffer_num=1)
    collector = Collector(algorithm, venv, buffer, exploration_noise=True)
    collector.reset()
    with policy_within_training_step(algorithm.policy):  # what Tianshou's Trainer does around a step
        collector.collect(n_step=steps)
        with torch_train_mode(algorithm):
            stats = [algorithm.update(buffer, sample_size=batch) for _ in range(updates)]
    venv.close()
    return algorithm, buffer, stats


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="fae", choices=["fae", "fantastiqa"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--updates", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    _, buffer, stats = train(a.game, a.players, a.steps, a.updates, seed=a.seed)
    print(f"buffer: {len(buffer)} transitions; last update: {stats[-1]}")


if __name__ == "__main__":
    main()
