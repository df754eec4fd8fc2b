"""fae_rl.vector.FaeVector: differential against FaeState (the exact scalar core), errors, resets."""
import numpy as np
import pytest

import fae_rl
from fae_rl import FaeState
from fae_rl.board import NUM_ACTIONS, NUM_MOVE_ACTIONS, RESOLVE_OFFSET
from fae_rl.vector import FaeVector
from tests.batch_helpers import assert_finished_games_ignored, random_actions
from tests.fae_observe_reference import observe_reference
from tests.fae_helpers import random_state

CONFIGS = [(p, big) for p in (2, 3, 4) for big in (False, True)]
GAMES_PER_CONFIG = 170  # 6 configs x 170 = 1020 random games compared at every step


def play(v: FaeVector, rng: np.random.Generator, until) -> None:
    """Random legal steps until `until(v)` holds."""
    while not until(v):
        v.step(random_actions(v.legal_mask(), rng))


def snapshot(v: FaeVector) -> list[dict]:
    return [v.state(i).to_dict() for i in range(v.num_envs)]


def check_equal(v: FaeVector, refs: list[FaeState], games: np.ndarray, explicit_seats: bool = True) -> None:
    """Every query of `v` equals the scalar core's on `games` (the games that moved last step)."""
    sub = [refs[i] for i in games]
    mask = v.legal_mask()
    assert mask.dtype == bool and mask.shape == (v.num_envs, NUM_ACTIONS)
    assert v.current_player.tolist() == [s.current_player for s in refs]
    assert v.terminated.tolist() == [s.is_terminal() for s in refs]
    assert np.array_equal(mask[games], np.stack([s.legal_mask() for s in sub]).astype(bool))
    # Against the plain-numpy encoder (fae_rl.observe shares the kernel). Its "none" vector is the
    # "summary" one without the history blocks (the same code, which appends them last).
    width = fae_rl.observation_size("none")
    expected = np.stack([np.zeros(fae_rl.observation_size(), np.float32) if s.is_terminal()
                         else observe_reference(s, s.current_player) for s in sub])
    for h, cut in (("summary", expected), ("none", expected[:, :width])):
        obs = v.observe(history=h)
        assert obs.dtype == np.float32 and obs[games].tobytes() == np.ascontiguousarray(cut).tobytes(), h
    if explicit_seats:  # an explicit seat observes finished games too; fae_rl.observe agrees
        seats = np.arange(v.num_envs) % v.num_players
        expected = np.stack([fae_rl.observe(s, int(seats[i])) for i, s in zip(games, sub)])
        assert np.array_equal(v.observe(seats=seats)[games], expected)
    assert [v.state(int(i)).to_dict() for i in games] == [s.to_dict() for s in sub]
    assert np.array_equal(v.returns(), np.stack([s.returns() for s in refs]))


@pytest.mark.parametrize("num_players,big", CONFIGS)
def test_random_games_match_the_scalar_core_at_every_step(num_players, big):
    # F-T1..F-T5, F-R1..F-R9, F-E1..F-E4 (and F-T4 with big=True): every rule FaeState implements.
    seeds = np.arange(GAMES_PER_CONFIG) + 1000 * num_players + 500 * big
    v = FaeVector(num_envs=GAMES_PER_CONFIG, num_players=num_players, big_stack_merge=big)
    v.reset(seeds)
    refs = [FaeState.new(num_players, seed=int(s), big_stack_merge=big) for s in seeds]
    rng = np.random.default_rng(num_players)
    steps, moved = 0, np.arange(GAMES_PER_CONFIG)
    while moved.size:  # a finished game is compared once more, then it never changes
        check_equal(v, refs, moved, explicit_seats=steps % 4 == 0)
        moved = np.flatnonzero(~v.terminated)
        actions = random_actions(v.legal_mask(), rng)
        v.step(actions)
        for i in moved:
            refs[i].apply(int(actions[i]))
        steps += 1
    assert steps > 30 and v.terminated.all() and all(s.is_terminal() for s in refs)
    assert v.returns().any(axis=1).mean() > 0.8  # a few games end with every seat tied (all 0)


def test_scalar_observe_is_byte_equal_to_the_numpy_reference():
    checked = 0
    for seed in range(400):
        s = random_state(seed, seed % 70, 2 + seed % 3, big=seed % 2 == 1)
        for seat in range(s.num_players):
            for h in ("summary", "none"):
                assert fae_rl.observe(s, seat, h).tobytes() == observe_reference(s, seat, h).tobytes(), (seed, seat, h)
                checked += 1
    assert checked > 2000


def _midgame(num_players=3, n=40, steps=12, seed=7):
    v = FaeVector(num_envs=n, num_players=num_players)
    v.reset(np.arange(n) + seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        v.step(random_actions(v.legal_mask(), rng))
    return v, rng


def test_an_illegal_action_raises_naming_game_and_action_and_changes_no_game():
    v, rng = _midgame()
    live = np.flatnonzero(~v.terminated)
    assert live.size > 2
    bad_game = int(live[1])
    before = snapshot(v)
    mask_before = v.legal_mask()
    for bad in (int(np.flatnonzero(~mask_before[bad_game])[0]), NUM_ACTIONS, -1):
        actions = random_actions(mask_before, rng)
        actions[bad_game] = bad
        with pytest.raises(ValueError, match=rf"game {bad_game}\b.*action {bad}\b"):
            v.step(actions)
        assert snapshot(v) == before
        assert np.array_equal(v.legal_mask(), mask_before)


def test_malformed_actions_raise():
    v, _ = _midgame(n=5, steps=0)
    with pytest.raises(ValueError, match="shape"):
        v.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        v.step(np.zeros(5, dtype=np.float64))
    with pytest.raises(ValueError, match="reset"):
        FaeVector(3).legal_mask()
    for bad in (0, -2, True, 2.0):
        with pytest.raises(ValueError, match="num_envs"):
            FaeVector(bad)


def test_finished_games_entries_are_ignored():
    v = FaeVector(num_envs=30, num_players=2)
    v.reset(np.arange(30))
    rng = np.random.default_rng(1)
    play(v, rng, until=lambda v: v.terminated.any())
    assert_finished_games_ignored(v, rng)


def test_reset_is_deterministic_and_deals_like_faestate_new():
    # F-S1, F-S2: the deal of game i is FaeState.new's for seeds[i].
    seeds = np.arange(50) * 7919
    a, b = FaeVector(50, 4, True), FaeVector(50, 4, True)
    a.reset(seeds)
    b.reset(seeds)
    assert snapshot(a) == snapshot(b)
    assert snapshot(a) == [FaeState.new(4, seed=int(s), big_stack_merge=True).to_dict() for s in seeds]
    b.reset(seeds + 1)
    assert all(x["druids"] != y["druids"] for x, y in zip(snapshot(a), snapshot(b)))


def test_reset_done_deals_only_finished_games_with_their_seeds():
    v, rng = _midgame(num_players=2, n=30, steps=0, seed=3)
    play(v, rng, until=lambda v: v.terminated.sum() >= 3)
    done = v.terminated
    live_before = {i: v.state(i).to_dict() for i in np.flatnonzero(~done)}
    seeds = np.arange(30) + 10_000
    dealt = v.reset_done(seeds)
    assert dealt.tolist() == np.flatnonzero(done).tolist()
    for i in dealt:
        assert v.state(i).to_dict() == FaeState.new(2, seed=int(seeds[i])).to_dict()
    assert {i: v.state(i).to_dict() for i in live_before} == live_before
    assert not v.terminated.any()


def test_scores_winners_and_repr():
    v = FaeVector(num_envs=20, num_players=3)
    v.reset(np.arange(20))
    play(v, np.random.default_rng(2), until=lambda v: v.terminated.all())
    refs = [v.state(i) for i in range(20)]
    assert v.scores().tolist() == [s.scores().tolist() for s in refs]
    assert v.final_colour_scores().tolist() == [s.final_colour_scores().tolist() for s in refs]
    assert [np.flatnonzero(w).tolist() for w in v.winners()] == [s.winners() for s in refs]
    assert v.colours().tolist() == [s.colours for s in refs]
    assert "num_envs=20" in repr(v) and "20 over" in repr(v)


def test_observe_writes_into_out_and_checks_seats():
    v, _ = _midgame(n=6, steps=3)
    out = np.full((6, fae_rl.observation_size("none")), 7.0, dtype=np.float32)
    assert v.observe(history="none", out=out) is out
    assert np.array_equal(out, v.observe(history="none"))
    with pytest.raises(ValueError, match="out"):
        v.observe(out=out)  # wrong width for "summary"
    with pytest.raises(ValueError, match="seats"):
        v.observe(seats=np.full(6, 3))
    with pytest.raises(ValueError, match="history"):
        v.observe(history="full")


def test_resolve_actions_while_rituals_are_pending():
    # F-R2: with several rituals pending, only resolve actions are legal, and the mover keeps playing.
    v = FaeVector(num_envs=200, num_players=2)
    v.reset(np.arange(200))
    rng = np.random.default_rng(5)
    seen = 0
    while not v.terminated.all():
        mask = v.legal_mask()
        pending = mask[:, NUM_MOVE_ACTIONS:].any(axis=1)
        assert not (pending & mask[:, :NUM_MOVE_ACTIONS].any(axis=1)).any()
        seen += int(pending.sum())
        for i in np.flatnonzero(pending):
            assert [a - RESOLVE_OFFSET for a in np.flatnonzero(mask[i])] == v.state(i).pending
        v.step(random_actions(mask, rng))
    assert seen > 20


# ------------------------------------------------------------------ the greedy opponent
def _greedy_reference():
    try:  # the import path is being renamed to tabletop_rl.agents
        from tabletop_rl.agents.fae_greedy import greedy_values
    except ImportError:
        from agents.fae_greedy import greedy_values
    return greedy_values


@pytest.mark.parametrize("num_players,big", [(2, False), (3, True), (4, False)])
def test_greedy_margins_and_actions_match_the_greedy_bot(num_players, big):
    # The bot's one-move lookahead: margin after the move, best order over pending rituals (F-R2).
    greedy_values = _greedy_reference()
    n = 24
    v = FaeVector(num_envs=n, num_players=num_players, big_stack_merge=big)
    v.reset(np.arange(n) + 77)
    rng = np.random.default_rng(num_players)
    positions = pending_positions = 0
    while not v.terminated.all():
        values = v.margins()
        picks = v.greedy_actions(rng)
        for i in np.flatnonzero(~v.terminated):
            s = v.state(int(i))
            expected = greedy_values(s, s.current_player)
            legal = np.flatnonzero(values[i] > -np.inf)
            assert legal.tolist() == sorted(expected), i
            assert values[i, legal].tolist() == [expected[a] for a in legal], i
            best = max(expected.values())
            assert expected[int(picks[i])] == best
            positions += 1
            pending_positions += bool(s.pending)
        assert (picks[v.terminated] == -1).all()
        # mostly greedy play (reaches rituals and pending choices), some random for variety
        actions = np.where(rng.random(n) < 0.5, picks, random_actions(v.legal_mask(), rng))
        v.step(actions)
    assert positions > 800 and pending_positions > 20


def test_greedy_ties_are_broken_uniformly_and_per_game_generators_work():
    v = FaeVector(num_envs=1, num_players=2)
    v.reset([0])  # the opening: no move isolates anything, so every legal move has margin 0
    values = v.margins()[0]
    assert set(values[values > -np.inf]) == {0.0}
    rng = np.random.default_rng(0)
    draws = [int(v.greedy_actions(rng)[0]) for _ in range(2000)]
    counts = np.bincount(draws, minlength=NUM_ACTIONS)[values > -np.inf]
    assert counts.min() > 0 and counts.max() < 3 * counts.mean()
    v2 = FaeVector(num_envs=3)
    v2.reset([1, 2, 3])
    a = v2.greedy_actions([np.random.default_rng(s) for s in range(3)])
    b = v2.greedy_actions([np.random.default_rng(s) for s in range(3)])
    assert a.tolist() == b.tolist() and v2.legal_mask()[np.arange(3), a].all()
    with pytest.raises(ValueError, match="Generator"):
        v2.greedy_actions([np.random.default_rng(0)])


@pytest.mark.parametrize("m", range(1, 7))
@pytest.mark.parametrize("against", [(0, 1, 3, 4), (4,)], ids=["every-other-colour", "one-colour"])
def test_best_orders_visits_every_resolution_order(m, against):
    """F-R2: the mover picks the resolution order; the margin subtracts the largest gain among `against`."""
    import itertools

    from fae_rl.margin import _best_orders

    rng = np.random.default_rng(m)
    contrib = rng.integers(0, 30, size=(6, 6, 5)).astype(np.int64)
    flags = np.isin(np.arange(5), against)
    for drawn in range(1, m + 1):
        best_first = np.zeros(6, dtype=np.int64)
        best = _best_orders(contrib, m, drawn, 2, flags, best_first, np.zeros(6, np.int64), np.zeros(6, np.int64))
        expected = {}
        for perm in itertools.permutations(range(m)):
            d = [sum(contrib[perm[k], k, c] for k in range(drawn)) for c in range(5)]
            value = d[2] + drawn - max([0] + [d[c] for c in against])
            expected[perm[0]] = max(expected.get(perm[0], -10**9), value)
        assert best == max(expected.values())
        assert best_first[:m].tolist() == [expected[j] for j in range(m)]


def test_margins_of_a_subset_of_games_and_against_given_colours():
    v = FaeVector(num_envs=16, num_players=3)
    v.reset(np.arange(16) + 5)
    rng = np.random.default_rng(3)
    for _ in range(40):  # into the middle game, where moves isolate spaces
        v.step(random_actions(v.legal_mask(), rng))
    full = v.margins()
    games = rng.random(16) < 0.5
    out = np.full((16, NUM_ACTIONS), 7.0)
    v.margins(out=out, games=games)
    assert np.array_equal(out[games], full[games]) and (out[~games] == 7.0).all()
    own = v.colours()[np.arange(16), v.current_player]
    not_own = np.ones((16, 5), dtype=bool)
    not_own[np.arange(16), own] = False
    assert np.array_equal(v.margins(against=not_own), full)
    none = v.margins(against=np.zeros((16, 5), dtype=bool))  # nobody to beat: own gain + cards only
    assert (none >= full).all() and (none > full).any()
    with pytest.raises(ValueError, match="games must be"):
        v.margins(games=np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="against must be"):
        v.margins(against=np.ones((16, 4), dtype=bool))


def test_greedy_actions_for_some_games_equal_the_full_call_there():
    n = 12
    v = FaeVector(num_envs=n, num_players=3)
    v.reset(np.arange(n) + 5)
    rng = np.random.default_rng(3)
    for _ in range(40):  # along random games, some of them over
        v.step(random_actions(v.legal_mask(), rng))
    want = rng.random(n) < 0.5
    want[[0, 1]] = True, False
    full = v.greedy_actions(np.random.default_rng(9))
    by_mask = v.greedy_actions(np.random.default_rng(9), games=want)
    by_index = v.greedy_actions(np.random.default_rng(9), games=np.flatnonzero(want))
    assert by_mask.tolist() == by_index.tolist() == np.where(want, full, -1).tolist()
    # per-game Generators: the chosen games draw from their own, the others' are not touched
    rngs = [np.random.default_rng(s) for s in range(n)]
    full = v.greedy_actions([np.random.default_rng(s) for s in range(n)])
    assert v.greedy_actions(rngs, games=np.flatnonzero(want)).tolist() == np.where(want, full, -1).tolist()
    untouched = np.random.default_rng(1).random()
    assert rngs[1].random() == untouched
    assert (v.greedy_actions(rng, games=[]) == -1).all()


@pytest.mark.parametrize("games, problem", [
    (np.ones(3, dtype=bool), "bool array of shape .3,."), ([0, 12], "indices 0..12"), ([-1], "indices -1..-1"),
    ([2, 2], "repeated index"), (np.array([0.0, 1.0]), "1-D float64"), ([[0, 1]], "2-D int64")])
def test_greedy_actions_refuses_bad_games(games, problem):
    v = FaeVector(num_envs=12)
    v.reset(np.arange(12))
    with pytest.raises(ValueError, match=problem):
        v.greedy_actions(np.random.default_rng(0), games=games)


_FAULTS_PER_STEP = """
import resource, sys, numpy as np
import fae_rl.vector as V
if sys.argv[1] == "off":
    V._settle_malloc = lambda: False  # the control: glibc left to adjust its thresholds itself
n = 1024
v = V.FaeVector(num_envs=n)
v.reset(np.arange(n))
rng = np.random.default_rng(0)
mask, actions = np.empty((n, 330), dtype=bool), np.empty(n, dtype=np.int64)
def steps(k, seed):
    for i in range(k):  # mask + a numpy random legal pick + step + re-deal, never observing
        v.legal_mask(out=mask)
        pick = (rng.random(n) * mask.sum(axis=1)).astype(np.int64)
        np.argmax(np.cumsum(mask, axis=1) > pick[:, None], axis=1, out=actions)
        v.step(actions)
        v.reset_done(np.arange(seed + n * i, seed + n * (i + 1)))
steps(20, n)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
steps(20, 100 * n)
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def test_a_fresh_process_that_never_observes_does_not_refault_its_heap_every_step():
    """Issue 38: before its first observe() a fresh process paid ~1,300 page faults a step (glibc grew
    and trimmed the heap around numpy's temporaries every step). FaeVector() now fixes glibc's
    thresholds; page faults are counted, not timed. The control (the fix switched off) shows the
    fault counter sees the problem on this machine's allocator."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    pytest.importorskip("resource")  # the fault counter (POSIX)
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    for k in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_", "GLIBC_TUNABLES"):
        env.pop(k, None)

    def faults(mode: str) -> float:
        out = subprocess.run([sys.executable, "-c", _FAULTS_PER_STEP, mode], cwd=root, env=env, check=True,
                             capture_output=True, text=True)
        return float(out.stdout.split()[-1])

    control = faults("off")
    if control < 300:
        pytest.skip(f"this allocator does not trim the heap every step ({control:.0f} faults a step without the fix)")
    assert faults("on") < 30, "FaeVector left glibc's heap to be trimmed and refaulted every step"


def test_malloc_thresholds_the_user_set_are_left_alone(monkeypatch):
    import fae_rl.vector as V
    monkeypatch.setattr(V, "_malloc_settled", None)  # as in a process that has built no FaeVector yet
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "131072")
    assert V._settle_malloc() is False
    assert V._malloc_settled is False  # tried once: the next FaeVector does not try again
