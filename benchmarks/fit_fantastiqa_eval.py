"""Refit the Fantastiqa MCTS leaf evaluation (`tabletop_rl.agents.fantastiqa_mcts`) on greedy self-play.

    python benchmarks/fit_fantastiqa_eval.py [--seeds 5000:5150,6000:6300]

Plays 2-player greedy-vs-greedy games (env defaults, one game per seed), takes the state at the
start of every turn, and fits a logistic model of "the seat to move wins" (a shared win counts
1/2) on the difference of the two seats' features (mover minus other): progress = points +
a x ready_hand + b x ready_owned (a, b from a small grid with a + b < 1, so completing a quest
always raises the value), gems, density, personal quests, and an intercept (the tempo of the
seat to move). Seeds with seed % 5 == 0 are held out; the grid point with the lowest held-out
log loss wins. Prints the weights to copy into EVAL_WEIGHTS, EVAL_TEMPO, READY_HAND and
READY_OWNED. The shipped weights come from the default seeds (450 games, about 21,000 states).
"""
from __future__ import annotations

import argparse

import numpy as np


def _seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition(":")
        out += list(range(int(lo), int(hi))) if hi else [int(lo)]
    return out


def collect(seeds) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of raw-feature differences (mover - other), labels, seeds."""
    from fantastiqa_rl import FantastiqaState
    from fantastiqa_rl import actions as A
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.fantastiqa_mcts import fantastiqa_raw_features

    rows, labels, row_seeds = [], [], []
    for seed in seeds:
        s = FantastiqaState.new(2, seed=seed)
        bots = [make_agent("fantastiqa", "greedy", seed=i) for i in range(2)]
        last, samples = -1, []
        while not s.is_terminal():
            p = s.current_player
            if s.phase == A.MAIN and s.turns != last:
                last = s.turns
                samples.append((p, np.subtract(fantastiqa_raw_features(s, p), fantastiqa_raw_features(s, 1 - p))))
            s.apply(bots[p].act(None, None, state=s, seat=p))
        w = s.winners()
        for p, x in samples:
            rows.append(x)
            labels.append(0.5 if len(w) == 2 else float(p in w))
            row_seeds.append(seed)
    return np.array(rows), np.array(labels), np.array(row_seeds)


def fit_logistic(Z: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Newton's method on the L2-regularised log loss; Z has the intercept column last."""
    w = np.zeros(Z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-Z @ w))
        grad = Z.T @ (p - y) + l2 * w
        hess = (Z * (p * (1 - p))[:, None]).T @ Z + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w


def log_loss(Z, y, w) -> float:
    p = np.clip(1 / (1 + np.exp(-Z @ w)), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="5000:5150,6000:6300", help="lo:hi ranges (hi excluded), comma-separated")
    args = parser.parse_args(argv)
    X, y, seeds = collect(_seeds(args.seeds))
    train = seeds % 5 != 0
    if train.all() or not train.any():
        parser.error("the seeds need both held-out (seed % 5 == 0) and training games")
    # raw columns: score, ready_hand, ready_owned, gems, density, personal quests
    best = None
    for a in (0.25, 0.4, 0.5, 0.6, 0.75):
        for b in (0.0, 0.1, 0.2, 0.3):
            if a + b > 0.9:
                continue
            Z = np.column_stack([X[:, 0] + a * X[:, 1] + b * X[:, 2], X[:, 3], X[:, 4], X[:, 5], np.ones(len(X))])
            w = fit_logistic(Z[train], y[train])
            loss = log_loss(Z[~train], y[~train], w)
            if best is None or loss < best[0]:
                best = (loss, a, b, w)
    loss, a, b, w = best
    print(f"{len(X)} states from {len(set(seeds.tolist()))} games; held-out log loss {loss:.4f}")
    print(f"READY_HAND, READY_OWNED = {a}, {b}")
    print(f"EVAL_WEIGHTS = ({w[0]:.3f}, {w[1]:.3f}, {w[2]:.3f}, {w[3]:.3f})")
    print(f"EVAL_TEMPO = {w[4]:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
