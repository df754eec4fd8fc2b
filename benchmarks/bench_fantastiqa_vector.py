"""Batched Fantastiqa (`fantastiqa_rl.vector.FantastiqaVector`) against the scalar core, env and greedy bot.

    python benchmarks/bench_fantastiqa_vector.py [--num-envs 1024] [--iters 40] [--steps 20000] [--repeats 3]
    python benchmarks/bench_fantastiqa_vector.py --differential 1000 --greedy-games 200   # the long exactness run
    python benchmarks/bench_fantastiqa_vector.py --differential 0 --greedy-games 60       # greedy games only

Engine time only, one process, 2 players, default rules, uniformly random legal play; a step is one
move of one game. FantastiqaVector: N games loaded (`set_state`) from positions sampled along whole
random games, then stepped; the clock runs inside `legal_mask`, `observe` and `step` (drawing the
random actions and re-dealing finished games with `reset_done` are off it). The scalar core:
inside `legal_actions` + `apply` (dealing off the clock). `fantastiqa_rl.env()`: inside `last()` +
`step()` of whole random games (benchmarks/bench_steps.time_env, engine_only). Greedy: one
`greedy_actions` call over N positions sampled along greedy-vs-greedy games, against the scalar
bot's `act` alone on the same positions. Runs are interleaved and the median of
`--repeats` is reported with the 1-minute load average at the start and the end. The numba compile
time (cold cache, in a fresh process) and the warm load time are measured first.

`--kernels` instead times each kernel alone (the mask, step and observation kernels over the rows, in
cache and out of it) and the greedy kernel per decision kind: the floor under the loop's figures.

`--differential G` instead plays G random games (spread over 2-4 players, both goals, the Abbey,
teams and every option value, the default turn limit; and 2 x G/13 more, 2 and 3 players to 8
turns each, with a card file of 261-270 instances, whose rows are int16) and `--greedy-games` greedy
games through both engines, comparing masks, observations, returns and to_dict at every step
(tests/test_fantastiqa_vector.py's check), and prints the counts.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from bench_steps import time_env  # noqa: E402
from bench_vector import compile_seconds, random_legal  # noqa: E402

_FIRST_CALLS = """
import time, numpy as np
t = time.perf_counter()
from fantastiqa_rl.vector import FantastiqaVector
v = FantastiqaVector(4, 3)
v.reset(np.arange(4))
v.observe(); v.step(v.legal_mask().argmax(axis=1))
print(time.perf_counter() - t)
"""

# the greedy kernel's first call, after the engine's kernels ran once (their compile off this clock)
_GREEDY_FIRST_CALL = """
import time, numpy as np
from fantastiqa_rl.vector import FantastiqaVector
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
v = FantastiqaVector(4, 2, greedy=FantastiqaGreedyAgent)
v.reset(np.arange(4))
v.observe(); v.step(v.legal_mask().argmax(axis=1))
t = time.perf_counter()
v.greedy_actions()
print(time.perf_counter() - t)
"""


def random_positions(count: int, seed: int = 0) -> list:
    """`count` positions sampled along whole random games (2 players, default rules): the batch starts
    from them, so it is timed over the same spread of positions as the scalar rows' whole games
    (games dealt at once would all sit in their first steps)."""
    from fantastiqa_rl import FantastiqaState

    rng = np.random.default_rng(seed)
    out, game = [], seed
    while len(out) < count:
        s = FantastiqaState.new(2, seed=game)
        while not s.is_terminal() and len(out) < count:
            if rng.random() < 0.02:
                out.append(s.clone())
            legal = s.legal_actions()
            s.apply(int(legal[rng.integers(legal.size)]))
        game += 1
    return out


def time_vector(positions: list, iters: int, observe: bool, seed: int = 0) -> float:
    """Engine steps/s of random play from `positions` (N = len(positions)), finished games dealt again."""
    from fantastiqa_rl.vector import FantastiqaVector

    num_envs = len(positions)
    rng = np.random.default_rng(seed)
    v = FantastiqaVector(num_envs=num_envs, num_players=2)
    for i, s in enumerate(positions):
        v.set_state(i, s)
    actions = np.empty(num_envs, dtype=np.int64)
    next_seed = 10**6
    clock = time.perf_counter
    engine, steps = 0.0, 0
    for it in range(iters + 1):   # the first step loads the kernel: off the clock
        t0 = clock()
        mask = v.legal_mask()
        if observe:
            v.observe()
        t1 = clock()
        random_legal(mask, rng, actions)
        live = int((v.current_player >= 0).sum())
        t2 = clock()
        v.step(actions)
        t3 = clock()
        if it:
            engine += (t1 - t0) + (t3 - t2)
            steps += live
        v.reset_done(np.arange(next_seed, next_seed + num_envs))
        next_seed += num_envs
    time_vector.counts = v.counts   # what ran in the kernels and what in the scalar core (last call)
    return steps / engine


def time_core(steps: int, seed: int = 0) -> float:
    """Scalar core steps/s: legal_actions + apply of random legal play (dealing off the clock)."""
    from fantastiqa_rl import FantastiqaState

    rng = np.random.default_rng(seed)
    clock = time.perf_counter
    engine, done, game = 0.0, 0, 0
    s = FantastiqaState.new(2, seed=game)
    while done < steps:
        if s.is_terminal():
            game += 1
            s = FantastiqaState.new(2, seed=game)
        t0 = clock()
        legal = s.legal_actions()
        t1 = clock()
        a = int(legal[rng.integers(legal.size)])
        t2 = clock()
        s.apply(a)
        engine += (t1 - t0) + (clock() - t2)
        done += 1
    return done / engine


def greedy_positions(count: int, seed: int = 0) -> list:
    """`count` positions of greedy-vs-greedy games (2 players), sampled along whole games (every
    decision kind, early and late), for timing both greedy paths on the same positions."""
    from fantastiqa_rl import FantastiqaState
    from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

    rng = np.random.default_rng(seed)
    out, game = [], seed
    while len(out) < count:
        s = FantastiqaState.new(2, seed=game)
        bots = [FantastiqaGreedyAgent(), FantastiqaGreedyAgent()]
        while not s.is_terminal() and len(out) < count:
            if rng.random() < 0.1:
                out.append(s.clone())
            s.apply(bots[s.cur].act(None, None, state=s, seat=s.cur))
        game += 1
    return out


def time_greedy_scalar(positions: list) -> float:
    """The scalar greedy bot's decisions/s (act only) over `positions` (a fresh bot plan each, as the batch's)."""
    from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

    bots = [FantastiqaGreedyAgent(), FantastiqaGreedyAgent()]
    clock = time.perf_counter
    engine = 0.0
    for s in positions:
        bot = bots[s.cur]
        bot.reset()
        t0 = clock()
        bot.act(None, None, state=s, seat=s.cur)
        engine += clock() - t0
    return len(positions) / engine


def time_greedy_vector(positions: list, mask_held: bool = False) -> float:
    """greedy_actions positions/s with the batch holding `positions` (N = len(positions)); with
    mask_held, the batch's legal mask is computed off the clock first (as in play, where step needs
    it anyway and greedy_actions reuses it). Counts of what decided: time_greedy_vector.counts."""
    from fantastiqa_rl.vector import FantastiqaVector
    from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

    v = FantastiqaVector(num_envs=len(positions), num_players=2, greedy=FantastiqaGreedyAgent)
    for i, s in enumerate(positions):
        v.set_state(i, s)
    v.greedy_actions(np.zeros(len(positions), dtype=bool))   # makes the bots: off the clock
    if mask_held:
        v.legal_mask()
    t0 = time.perf_counter()
    v.greedy_actions()
    rate = len(positions) / (time.perf_counter() - t0)
    time_greedy_vector.counts = {k: v.counts[k] for k in ("kernel_greedy", "fallback_greedy")}
    return rate


def differential(games: int, greedy_games: int, seed: int = 0) -> None:
    """The long exactness run (see the module docstring)."""
    from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent
    from tests.batch_helpers import random_actions
    from tests.fantastiqa_vector_helpers import CONFIGS, TURN_LIMIT, make, run_differential, standin_variant

    per = max(1, games // len(CONFIGS))
    steps = played = 0   # steps: batched steps (one move of every unfinished game of the vector)
    t = time.perf_counter()
    for c, (n, goal, options) in enumerate(CONFIGS if games else ()):
        v, refs = make(n, goal, options, np.arange(per) + 10_000 + 1000 * c + 100_000 * seed)
        rng = np.random.default_rng(c + 1000 * seed)
        steps += run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
        played += per
        print(f"  random {n}p {goal} {options}: {per} games equal at every step", flush=True)
    if games:    # int16 rows: a card file of more than 255 instances (the STAND-IN set with its creatures doubled)
        with tempfile.TemporaryDirectory() as tmp:
            path = standin_variant(Path(tmp), "doubled creatures", _double_creatures)
            for n in (2, 3):
                v, refs = make(n, "short", {"card_set": path, "turn_limit": TURN_LIMIT},
                               np.arange(per) + 30_000 + 100 * n + 100_000 * seed)
                assert v._c.dtype == np.int16, v._c.dtype
                rng = np.random.default_rng(3000 + n + 1000 * seed)
                steps += run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
                played += per
                print(f"  random {n}p short, a card file of {refs[0].g.num_instances} instances (int16 rows): "
                      f"{per} games equal at every step", flush=True)
    greedy_played = 0
    per = max(1, greedy_games // 4)
    for n, options in ((2, {}), (3, {"abbey": True}), (4, {"teams": True}), (2, {"card_use": "both"})):
        v, refs = make(n, "short", options, np.arange(per) + 20_000 + 100 * n + 100_000 * seed)
        bots = [[FantastiqaGreedyAgent() for _ in range(n)] for _ in range(per)]

        def choose(v, refs):
            got = v.greedy_actions()
            for i, s in enumerate(refs):
                if not s.is_terminal():
                    assert got[i] == bots[i][s.cur].act(None, None, state=s, seat=s.cur), (n, options, i)
            return got

        steps += run_differential(v, refs, choose)
        greedy_played += per
        print(f"  greedy {n}p {options}: {per} games equal at every step (greedy_actions == the bots; "
              f"{v.counts['kernel_greedy']} moves by the kernel, {v.counts['fallback_greedy']} by the scalar bot)",
              flush=True)
    print(f"differential: {played} random games, {greedy_played} greedy games equal at every step "
          f"({steps} batched steps, {time.perf_counter() - t:.0f} s)")


def _double_creatures(d: dict) -> None:
    for card in d["card"]:
        if card["type"] == "creature":
            card["copies"] = 2 * card.get("copies", 1)


def kernel_floors(n: int = 1024, reps: int = 15) -> int:
    """--kernels: each kernel alone over n positions of random games, best of `reps` calls, with the rows in
    cache and out of it (a 64 MB array written between calls), and the greedy kernel per decision kind
    (best of 10 calls over the positions of greedy games in that decision): the kernels' own time, the
    floor under the table's loop figures."""
    from numba import njit
    from fantastiqa_rl import actions as A
    from fantastiqa_rl import obs_kernel as OK
    from fantastiqa_rl import vector_kernels as K
    from fantastiqa_rl.vector import _NO_GENERATORS, FantastiqaVector
    from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

    @njit
    def zero(out, games):
        for g in range(games.size):
            out[games[g]][:] = 0.0

    v = FantastiqaVector(num_envs=n, num_players=2)
    for i, s in enumerate(random_positions(n)):
        v.set_state(i, s)
    rows = np.flatnonzero(v._cur >= 0)
    seats = v._cur[rows]
    actions = np.empty(n, dtype=np.int64)
    random_legal(v.legal_mask().copy(), np.random.default_rng(0), actions)
    c0, w0 = v._c.copy(), v._w.copy()
    junk = np.zeros(2**23)

    def restore():
        v._c[:], v._w[:] = c0, w0

    def best(fn, flush, prep=None):
        b = float("inf")
        for _ in range(reps + 1):
            if prep:
                prep()
            if flush:
                junk[:] += 1.0
            t = time.perf_counter()
            fn()
            b = min(b, time.perf_counter() - t)
        return 1e6 * b / rows.size

    kernels = {
        "mask kernel (vector_kernels.legal)":
            (lambda: K.legal(v._c, v._w, rows, v._legal, v._cap, v._T, v._quest0, *v._ws), None),
        "step kernel (vector_kernels.step, first pass)":
            (lambda: K.step(v._c, v._w, rows, actions[rows], v._cap, v._T, v._quest0, _NO_GENERATORS), restore),
        "observation kernel (obs_kernel.encode)":
            (lambda: OK.encode(v._c, v._w, rows, seats, v._obs, v.num_players, v._cap, *v._tables), None),
        "of which zeroing the observation rows": (lambda: zero(v._obs, rows), None),
    }
    print(f"kernels alone, us a game, N = {rows.size}, best of {reps} calls; load average {os.getloadavg()[0]:.2f}")
    for name, (fn, prep) in kernels.items():
        print(f"  {name:46s} rows in cache {best(fn, False, prep):5.2f}   out of cache {best(fn, True, prep):5.2f}")
    by_phase: dict = {}
    for s in greedy_positions(2 * n):
        by_phase.setdefault(s.phase, []).append(s)
    print("greedy kernel by decision, mask held, us a decision (best of 10 calls over the decision's positions):")
    total = count = 0
    for ph, states in sorted(by_phase.items(), key=lambda kv: -len(kv[1])):
        g = FantastiqaVector(num_envs=len(states), num_players=2, greedy=FantastiqaGreedyAgent)
        for i, s in enumerate(states):
            g.set_state(i, s)
        g.greedy_actions(np.zeros(len(states), dtype=bool))
        g.legal_mask()
        t = min(_timed(g.greedy_actions) for _ in range(10))
        total, count = total + t, count + len(states)
        print(f"  {A.PHASES[ph]:14s} {len(states):5d} positions  {1e6 * t / len(states):5.2f}")
    print(f"  all decisions, weighted as greedy play meets them: {1e6 * total / count:.2f}")
    return 0


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def greedy_rows(sizes: list, repeats: int) -> int:
    """--greedy-only: the greedy rows of the table alone, interleaved, median and every run printed."""
    load_start = os.getloadavg()[0]
    pool = greedy_positions(max(sizes))
    runs = {"scalar greedy bot (act)": lambda: time_greedy_scalar(pool)}
    for n in sizes:
        runs[f"N={n} greedy_actions"] = lambda n=n: time_greedy_vector(pool[:n])
        runs[f"N={n} greedy_actions, mask held"] = lambda n=n: time_greedy_vector(pool[:n], True)
    results: dict[str, list] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            results[name].append(fn())
    med = {name: statistics.median(vals) for name, vals in results.items()}
    print(f"greedy decisions/s, median of {repeats} interleaved runs; load average {load_start:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end; target >= 20x the scalar bot")
    for name, vals in results.items():
        print(f"{name:34s} {med[name]:9.0f} {med[name] / med['scalar greedy bot (act)']:6.2f}x  runs "
              f"{[round(x) for x in vals]}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1024, 128, 16],
                        help="games stepped at once (one set of rows per value; the first is the issue's)")
    parser.add_argument("--iters", type=int, default=40, help="timed batched steps per repeat")
    parser.add_argument("--steps", type=int, default=20000, help="scalar core steps per repeat")
    parser.add_argument("--env-games", type=int, default=3, help="fantastiqa_rl.env() random games per repeat "
                        "(thousands of steps each)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved repeats (median reported)")
    parser.add_argument("--differential", type=int, default=None, metavar="G",
                        help="instead: play G random games (0: none) and --greedy-games greedy games through "
                             "both engines, compared at every step")
    parser.add_argument("--greedy-games", type=int, default=200, help="with --differential: greedy games")
    parser.add_argument("--greedy-only", action="store_true", help="time only the greedy rows (no compile runs)")
    parser.add_argument("--compile-only", action="store_true", help="only the compile rows: a fresh process's first "
                        "step and first greedy call, with an empty NUMBA_CACHE_DIR and with the cache")
    parser.add_argument("--kernels", action="store_true", help="time each kernel alone (rows in and out of cache) "
                        "and the greedy kernel per decision: the floor under the loop's figures")
    parser.add_argument("--seed", type=int, default=0, help="with --differential: which games (another seed, "
                        "other games: run it in chunks)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    import fantastiqa_rl

    if args.differential is not None:
        differential(args.differential, args.greedy_games, args.seed)
        return 0
    if args.greedy_only:
        return greedy_rows(args.num_envs, args.repeats)
    if args.kernels:
        return kernel_floors(args.num_envs[0])
    load_start = os.getloadavg()[0]
    cold, warm = compile_seconds(True, _FIRST_CALLS), compile_seconds(False, _FIRST_CALLS)
    greedy_cold, greedy_warm = compile_seconds(True, _GREEDY_FIRST_CALL), compile_seconds(False, _GREEDY_FIRST_CALL)
    if args.compile_only:
        print(f"first FantastiqaVector step: {cold:.1f} s cold cache, {warm:.1f} s warm; first greedy_actions "
              f"call (the engine's kernels loaded): {greedy_cold:.1f} s cold, {greedy_warm:.1f} s warm; load average "
              f"{load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} CPUs)")
        return 0
    it = args.iters
    pool = greedy_positions(max(args.num_envs))
    positions = random_positions(max(args.num_envs))
    runs = {
        "scalar core (legal_actions+apply)": lambda: time_core(args.steps),
        "fantastiqa_rl.env() (last+step)": lambda: time_env(fantastiqa_rl.env, args.env_games, engine_only=True),
        "scalar greedy bot (act)": lambda: time_greedy_scalar(pool),
    }
    targets = {}  # row: (reference row, issue target)
    for n in args.num_envs:
        runs.update({
            f"FantastiqaVector N={n} mask+step": lambda n=n: time_vector(positions[:n], it, observe=False),
            f"FantastiqaVector N={n} observe+mask+step": lambda n=n: time_vector(positions[:n], it, observe=True),
            f"FantastiqaVector N={n} greedy_actions": lambda n=n: time_greedy_vector(pool[:n]),
            f"FantastiqaVector N={n} greedy_actions, mask held": lambda n=n: time_greedy_vector(pool[:n], True),
        })
        targets.update({
            f"FantastiqaVector N={n} mask+step": ("scalar core (legal_actions+apply)", 20.0),
            f"FantastiqaVector N={n} observe+mask+step": ("fantastiqa_rl.env() (last+step)", 20.0),
            f"FantastiqaVector N={n} greedy_actions": ("scalar greedy bot (act)", 20.0),
            f"FantastiqaVector N={n} greedy_actions, mask held": ("scalar greedy bot (act)", 20.0),
        })
    results: dict[str, list] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, fn in runs.items():
            results[name].append(fn())
    med = {name: statistics.median(vals) for name, vals in results.items()}
    print(f"engine steps/s, 1 process, median of {args.repeats} interleaved runs; {args.num_envs} games x {it} batched steps; "
          f"scalar {args.steps} steps; load average {load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end "
          f"({os.cpu_count()} CPUs)")
    print(f"numba compile (cold cache): {cold:.1f} s; warm start (cache load, with the imports): {warm:.1f} s")
    print(f"greedy kernel's first call (the engine's kernels loaded): {greedy_cold:.1f} s cold cache, "
          f"{greedy_warm:.1f} s warm; last greedy run: {time_greedy_vector.counts}")
    c = time_vector.counts
    total_steps, total_masks = c["kernel_steps"] + c["fallback_steps"], c["kernel_masks"] + c["fallback_masks"]
    print(f"last batched run: {c['kernel_steps'] / total_steps:.1%} of steps and {c['kernel_masks'] / total_masks:.1%} "
          f"of masks in the numba kernels, the rest by the scalar core ({c['unpacks']} states built from rows)")
    print(f"{'contender':42s} {'per s':>10s} {'ratio':>7s}  {'vs':34s} {'target':>7s}")
    for name in runs:
        ref, target = targets.get(name, ("", None))
        ratio = med[name] / med[ref] if ref else None
        ok = "" if target is None else ("ok" if ratio >= target else "MISS")
        print(f"{name:42s} {med[name]:10.0f} {'' if ratio is None else f'{ratio:7.2f}':>7s}  {ref:34s} "
              f"{'' if target is None else f'>={target:g}':>7s} {ok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
