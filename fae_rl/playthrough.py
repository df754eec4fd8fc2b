"""Golden playthroughs (OpenSpiel style): a fixed game written out step by step.

Each step records the state string, every seat's observation summary (sum, non-zeros, SHA-1 of the
float32 bytes) and mask, the legal actions, the action taken and the rewards. The tests regenerate
these files and diff them, so any change of rules, encoding or rewards shows up as a readable diff.

    python -m fae_rl.playthrough --write      # regenerate tests/data/fae_playthrough_*.txt
"""
from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import numpy as np

from fae_rl.board import action_to_string
from fae_rl.environment import raw_env

CONFIGS = {
    "fae_playthrough_2p.txt": dict(num_players=2, reward="score_diff", seed=0),
    "fae_playthrough_3p_big_stack.txt": dict(num_players=3, big_stack_merge=True, seed=1),
    "fae_playthrough_4p_no_history.txt": dict(num_players=4, history="none", reward="score_diff", seed=2),
}
DATA_DIR = Path(__file__).resolve().parents[1] / "tests" / "data"


def playthrough(seed: int = 0, action_seed: int | None = None, **env_kwargs) -> str:
    env = raw_env(**env_kwargs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed if action_seed is None else action_seed)
    opts = " ".join(f"{k}={v}" for k, v in sorted(env_kwargs.items()))
    lines = [f"# Fae golden playthrough; regenerate with: python -m fae_rl.playthrough --write",
             f"game: fae_v0 {opts} seed={seed}"]
    step = 0
    while not env.unwrapped.game.is_terminal():
        game = env.unwrapped.game
        lines += [f"", f"step {step}", "state:", str(game)]
        for agent in env.agents:
            o = env.observe(agent)
            obs, mask = o["observation"], o["action_mask"]
            digest = hashlib.sha1(obs.tobytes()).hexdigest()[:16]
            lines.append(f"obs {agent}: sum={obs.sum():.4f} nonzero={np.count_nonzero(obs)} sha1={digest} "
                         f"mask={int(mask.sum())}")
        legal = game.legal_actions()
        lines.append("legal: " + " ".join(map(str, legal.tolist())))
        action = int(legal[rng.integers(legal.size)])
        lines.append(f"action: {env.agent_selection} {action} ({action_to_string(action)})")
        env.step(action)
        lines.append("rewards: " + " ".join(f"{a}={env.rewards[a]:.4f}" for a in env.possible_agents))
        step += 1
    lines += ["", "final:", str(env.unwrapped.game),
              "returns: " + " ".join(f"{r:.4f}" for r in env.unwrapped.game.returns().tolist())]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"write the files into {DATA_DIR}")
    args = parser.parse_args(argv)
    for name, cfg in CONFIGS.items():
        text = playthrough(**cfg)
        if args.write:
            DATA_DIR.mkdir(parents=True, exist_ok=True)
            (DATA_DIR / name).write_text(text)
            print(f"wrote {DATA_DIR / name}")
        else:
            print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
