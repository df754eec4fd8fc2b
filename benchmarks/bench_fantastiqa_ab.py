"""A/B speed of the Fantastiqa rules core against the core of another commit, in one process.

    .venv/bin/python benchmarks/bench_fantastiqa_ab.py --ref c127ac7              # 15 rounds x 2,000 steps
    .venv/bin/python benchmarks/bench_fantastiqa_ab.py --ref c127ac7 --rounds 5   # quicker

For refactors that must not slow the core down. `git archive REF fantastiqa_rl` is unpacked into a
temporary folder as the package `fantastiqa_ref` (its imports renamed, its __init__ reduced to the
state), so both cores load side by side. Each round plays the same uniform-random steps (legal_actions
+ apply, a new game on terminal; the same seeds, so the same games: a pure refactor plays them
identically) on both cores, in alternating order, and times them. Prints the median over rounds of
this tree's time / the reference's time (below 1: this tree is faster) with the interquartile
range, and steps/s of both. Timing both in the same process, interleaved round by round, keeps
the ratio fair on a shared machine, where absolute steps/s swing widely.
"""
from __future__ import annotations

import argparse
import importlib
import io
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fantastiqa_rl.state import FantastiqaState  # noqa: E402

REF_PACKAGE = "fantastiqa_ref"


def load_reference(ref: str, folder: str):
    """FantastiqaState of commit `ref`, imported as `fantastiqa_ref.state`."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "fantastiqa_rl"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(folder, filter="data")
    pkg = pathlib.Path(folder) / REF_PACKAGE
    os.rename(pathlib.Path(folder) / "fantastiqa_rl", pkg)
    for path in pkg.glob("*.py"):
        path.write_text(re.sub(r"\bfantastiqa_rl\b", REF_PACKAGE, path.read_text()))
    (pkg / "__init__.py").write_text("")            # the state only: no env registration twice
    sys.path.insert(0, folder)
    return importlib.import_module(f"{REF_PACKAGE}.state").FantastiqaState


def play(cls, steps: int, seed: int) -> float:
    """Seconds for `steps` random-legal steps from game `seed` on (2-4 players cycled)."""
    rng = np.random.default_rng(seed)
    game = seed
    s = cls.new(2 + game % 3, seed=game)
    t0 = time.perf_counter()
    for _ in range(steps):
        if s.is_terminal():
            game += 1
            s = cls.new(2 + game % 3, seed=game)
        la = s.legal_actions()
        s.apply(int(la[rng.integers(len(la))]))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="the commit to compare with (e.g. c127ac7)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--steps", type=int, default=2000, help="steps per round and core")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        ref_cls = load_reference(args.ref, folder)
        play(ref_cls, 200, 0), play(FantastiqaState, 200, 0)            # warm up both
        ratios, t_ref, t_new = [], 0.0, 0.0
        for r in range(args.rounds):
            order = ((ref_cls, FantastiqaState) if r % 2 == 0 else (FantastiqaState, ref_cls))
            times = {cls: play(cls, args.steps, seed=1000 + r) for cls in order}
            ratios.append(times[FantastiqaState] / times[ref_cls])
            t_ref += times[ref_cls]
            t_new += times[FantastiqaState]
    q1, med, q3 = np.percentile(ratios, [25, 50, 75])
    n = args.rounds * args.steps
    print(f"{args.rounds} rounds x {args.steps} random-legal steps on each core (same games)")
    print(f"reference {args.ref}: {n / t_ref:,.0f} steps/s;  this tree: {n / t_new:,.0f} steps/s")
    print(f"time this tree / reference: median {med:.3f} (IQR {q1:.3f}-{q3:.3f}), "
          f"mean {statistics.mean(ratios):.3f}")


if __name__ == "__main__":
    main()
