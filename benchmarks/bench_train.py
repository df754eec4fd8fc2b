"""Training throughput of train.py on Fae: learner env steps/s, PPO updates included, in one process.

    python benchmarks/bench_train.py                 # the make-train settings vs the scalar path, same run
    python benchmarks/bench_train.py --steps 262144  # longer runs, steadier figures

Runs `train.train` twice with the `make-train` preset's PPO settings and no warm start, periodic
evaluation or checkpoints: (1) Fae's batched FaeLearnerVecEnv (the default), (2) the scalar
SelfPlayEnv in a DummyVecEnv with the settings `make train` used before it (8 envs x 256 steps,
4 epochs of 512, 128x128 MLP, the score_diff reward, one torch thread), and prints each one's steps/s, the ratio, and the machine's load
(a shared machine: the ratio is the figure to compare). Target (issue 13): >= 12,000 steps/s.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import train  # noqa: E402


def run(cfg: train.Config) -> dict:
    s = train.train(cfg)
    return {"steps": s["steps"], "steps_per_second": s["throughput"]["steps_per_second"],
            "env_share": s["throughput"]["env_share"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=131072, help="learner steps of the batched run")
    ap.add_argument("--scalar-steps", type=int, default=16384, help="learner steps of the scalar run")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = dataclasses.replace(train.parse_args(["--preset", "make-train"]), runs_dir=tmp, bc_teacher="",
                                   eval_every=0, final_eval_games=0, checkpoint_every=0, progress=False,
                                   time_limit_min=0.0)
        load0 = os.getloadavg()[0]
        vec = run(dataclasses.replace(base, run_name="vector", total_steps=args.steps))
        scalar = run(dataclasses.replace(base, run_name="scalar", total_steps=args.scalar_steps, vec_env="dummy",
                                         n_envs=8, n_steps=256, batch_size=512, n_epochs=4, net_arch="128,128",
                                         options="history=summary", reward="score_diff", torch_threads=1))
        load1 = os.getloadavg()[0]
    print(f"\nFae 2p self-play MaskablePPO, learner env steps/s with PPO updates (load average {load0:.1f} -> {load1:.1f}, "
          f"{os.cpu_count()} CPUs)")
    print(f"  {'path':46s} {'steps':>8s} {'steps/s':>9s} {'in env':>7s}")
    for name, r in ((f"FaeLearnerVecEnv x{base.n_envs} (make-train settings)", vec),
                    ("SelfPlayEnv x8 DummyVecEnv (previous make train)", scalar)):
        print(f"  {name:46s} {r['steps']:8d} {r['steps_per_second']:9.0f} {100 * r['env_share']:6.0f}%")
    print(f"  ratio {vec['steps_per_second'] / scalar['steps_per_second']:.1f}x   (target: >= 12,000 steps/s, "
          f"10x the previous 1,235)")


if __name__ == "__main__":
    main()
