"""fantastiqa_rl.vector.FantastiqaVector: differential against FantastiqaState, errors, resets, hidden info.

Every step of every game compares the mask, the observation (bytes), the returns and `to_dict` with
the scalar core stepped alongside. The games here are bounded (a short Q-E5 turn limit, so they
end) to keep the file under a minute on one core; `benchmarks/bench_fantastiqa_vector.py
--differential` runs the long version (1,000+ random and 200+ greedy games, the default limit).
"""
import json

import numpy as np
import pytest

from fantastiqa_rl import FantastiqaState, observe
from fantastiqa_rl.vector import FantastiqaVector
from tabletop_rl.agents import make_agent
from tests.fantastiqa_golden import GAMES as GOLDEN_SPECS, PATH as GOLDEN_PATH, digest
from tests.fantastiqa_helpers import reorder_decks, swap_hidden
from tests.batch_helpers import assert_finished_games_ignored, random_actions
from tests.fantastiqa_vector_helpers import CONFIGS, RANDOM_GAMES, TURN_LIMIT, make, run_differential, standin_variant

@pytest.mark.parametrize("num_players,goal,options", CONFIGS, ids=[f"{n}p-{g}-{o}" for n, g, o in CONFIGS])
def test_random_games_match_the_scalar_core_at_every_step(num_players, goal, options):
    seeds = np.arange(RANDOM_GAMES) + 100 * num_players + 7 * len(options)
    v, refs = make(num_players, goal, dict(options, turn_limit=TURN_LIMIT), seeds)
    rng = np.random.default_rng(num_players)
    steps = run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
    assert steps > 50 and v.terminated.all() and all(s.is_terminal() for s in refs)


def second_card_file(tmp_path) -> str:
    """The STAND-IN set as JSON with one beast fewer (so other card kinds, actions and observation
    size), fewer gems and carpets in the supply and another short goal: card data stays data."""
    def edit(d):
        d["card"].remove(next(c for c in d["card"] if c["type"] == "beast"))
        d["supply"].update(gems=30, carpets=6)
        d["goals"]["short"]["2"] = 3
    return standin_variant(tmp_path, "second set", edit)


def test_a_second_card_file_matches_the_scalar_core(tmp_path):
    path = second_card_file(tmp_path)
    standard = FantastiqaVector(1)
    for n, opts in ((2, {}), (3, {"abbey": True, "fly_in_adventure": False})):
        v, refs = make(n, "short", dict(opts, card_set=path, turn_limit=TURN_LIMIT), np.arange(8) + 50)
        assert v.card_set == refs[0].card_set == path and refs[0].g.cs.name == "second set"
        assert (v.num_actions, v.observation_size) != (standard.num_actions, standard.observation_size)
        rng = np.random.default_rng(n)
        run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
        assert all(s.is_terminal() for s in refs)


def test_long_random_games_match_until_deep_in_the_game():
    # the default turn limit: random play runs long, so a step cap (deep positions: reshuffles, big discards)
    v, refs = make(2, "short", {}, np.arange(6) + 900)
    rng = np.random.default_rng(9)
    assert run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng), max_steps=1500) == 1500
    assert max(s.turns for s in refs) > 30


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, {"abbey": True}), (4, {"teams": True})])
def test_greedy_actions_are_the_greedy_bots_and_greedy_games_match(num_players, options):
    seeds = np.arange(6) + 40 * num_players
    v, refs = make(num_players, "short", options, seeds)
    bots = [[make_agent("fantastiqa", "greedy") for _ in range(num_players)] for _ in seeds]
    compared = 0

    def choose(v, refs):
        nonlocal compared
        got = v.greedy_actions()
        for i, s in enumerate(refs):
            if s.is_terminal():
                assert got[i] == -1
                continue
            mask = np.zeros(s.num_actions, dtype=np.int8)
            mask[s.legal_actions()] = 1
            assert got[i] == bots[i][s.cur].act(None, mask, state=s, seat=s.cur), (i, s.phase_name)
            compared += 1
        return got

    run_differential(v, refs, choose)
    assert all(s.is_terminal() for s in refs) and compared > 300
    assert np.array_equal(v.returns(), np.stack([s.returns() for s in refs]))


def test_greedy_actions_for_some_games_only():
    v, _ = make(2, "short", {}, np.arange(4))
    want = np.array([True, False, True, False])
    got = v.greedy_actions(want)
    assert (got[~want] == -1).all() and (got[want] >= 0).all()
    with pytest.raises(ValueError, match="games"):
        v.greedy_actions(np.ones(3, dtype=bool))
    bare = FantastiqaVector(2)
    bare.reset([0, 1])
    with pytest.raises(ValueError, match="greedy=FantastiqaGreedyAgent"):
        bare.greedy_actions()
    with pytest.raises(ValueError, match="greedy must be"):
        FantastiqaVector(2, greedy="greedy")


def test_the_golden_games_replay_through_the_vector():
    games = [json.loads(line) for line in GOLDEN_PATH.read_text().splitlines() if line.strip()]
    assert len(games) == len(GOLDEN_SPECS)
    for g in games:
        v = FantastiqaVector(2, g["num_players"], goal=g["goal"], **g["options"])
        v.reset([g["seed"], g["seed"]])
        for step, (action, want) in enumerate(zip(g["actions"], g["digests"], strict=True)):
            assert v.legal_mask()[0, action], (g["name"], step)
            v.step([action, v.legal_mask()[1].argmax()])   # game 1: any legal move (also checks the batch)
            assert digest(v.state(0)) == want, (g["name"], step)
        assert v.terminated[0] and v.state(0).winners() == g["final"]["winners"]


def _midgame(num_players=3, n=12, steps=40, seed=7, **options):
    v = FantastiqaVector(n, num_players, **options)
    v.reset(np.arange(n) + seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        v.step(random_actions(v.legal_mask(), rng))
    return v, rng


def snapshot(v):
    return [v.state(i).to_dict() for i in range(v.num_envs)]


def test_an_illegal_action_raises_naming_game_and_action_and_changes_no_game():
    v, rng = _midgame()
    live = np.flatnonzero(~v.terminated)
    assert live.size > 2
    bad_game = int(live[1])
    before, mask_before, obs_before = snapshot(v), v.legal_mask().copy(), v.observe().copy()
    for bad in (int(np.flatnonzero(~mask_before[bad_game])[0]), v.num_actions, -1):
        actions = random_actions(mask_before, rng)
        actions[bad_game] = bad
        with pytest.raises(ValueError, match=rf"game {bad_game}\b.*action {bad}\b"):
            v.step(actions)
        assert snapshot(v) == before
        assert np.array_equal(v.legal_mask(), mask_before) and np.array_equal(v.observe(), obs_before)


def test_malformed_inputs_raise():
    v, _ = _midgame(n=5, steps=0)
    with pytest.raises(ValueError, match="shape"):
        v.step(np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        v.step(np.zeros(5, dtype=np.float64))
    with pytest.raises(ValueError, match="seats"):
        v.observe(seats=np.full(5, 3))
    with pytest.raises(ValueError, match="out must be"):
        v.observe(out=np.zeros((5, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="out must be"):
        v.legal_mask(out=np.zeros((5, v.num_actions), dtype=np.int8))
    with pytest.raises(ValueError, match="reset"):
        FantastiqaVector(3).legal_mask()
    for bad in (0, -2, True, 2.0):
        with pytest.raises(ValueError, match="num_envs"):
            FantastiqaVector(bad)
    with pytest.raises(ValueError, match="game index"):
        v.state(5)


@pytest.mark.parametrize("kwargs,named", [
    (dict(num_players=5), "num_players"), (dict(goal="medium"), "goal"), (dict(bought_to="pocket"), "bought_to"),
    (dict(teams=True), "teams"), (dict(turn_limit=0), "turn_limit"), (dict(colour="red"), "colour"),
    (dict(card_set="/nonexistent.toml"), "nonexistent"),
])
def test_an_unsupported_option_value_is_refused_at_construction_naming_it(kwargs, named):
    with pytest.raises(ValueError, match=named):
        FantastiqaVector(2, **kwargs)


def test_finished_games_entries_are_ignored():
    v, refs = make(2, "short", {"turn_limit": 2}, np.arange(10))
    rng = np.random.default_rng(1)
    while not v.terminated.any():
        v.step(random_actions(v.legal_mask(), rng))
    done = assert_finished_games_ignored(v, rng)
    assert (v.greedy_actions()[done] == -1).all()


def test_a_bad_seed_raises_and_deals_nothing():
    with pytest.raises(ValueError, match="seeds must be non-negative"):
        FantastiqaVector(3).reset([0, -1, 2])
    v, _ = make(2, "short", {"turn_limit": 2}, np.arange(3))
    before = snapshot(v)
    with pytest.raises(ValueError, match=r"non-negative ints; got \[-7\]"):
        v.reset([1, -7, 3])
    assert snapshot(v) == before


def test_reset_done_deals_only_the_finished_games():
    v, _ = make(2, "short", {"turn_limit": 2}, np.arange(10))
    rng = np.random.default_rng(2)
    while not v.terminated.any():
        v.step(random_actions(v.legal_mask(), rng))
    done, live = np.flatnonzero(v.terminated), np.flatnonzero(~v.terminated)
    kept = [v.state(i).to_dict() for i in live]
    dealt = v.reset_done(np.arange(10) + 500)
    assert dealt.tolist() == done.tolist() and not v.terminated.any()
    assert [v.state(i).to_dict() for i in live] == kept
    for i in done:
        assert v.state(i).to_dict() == FantastiqaState.new(2, seed=500 + int(i), turn_limit=2).to_dict()


def test_state_is_a_copy_and_set_state_loads_a_game():
    v, _ = _midgame(num_players=2, n=3, abbey=True)
    s = v.state(0)
    s.gems[0] += 5
    assert v.state(0).gems[0] == s.gems[0] - 5
    other = FantastiqaState.new(2, seed=99, abbey=True)
    other.apply(int(other.legal_actions()[0]))
    v.set_state(2, other)
    assert v.state(2).to_dict() == other.to_dict() and v.current_player[2] == other.current_player
    assert v.observe()[2].tobytes() == observe(other, other.current_player).tobytes()
    other.apply(int(other.legal_actions()[0]))          # the vector holds a copy
    assert v.state(2).to_dict() != other.to_dict()
    with pytest.raises(ValueError, match="options"):
        v.set_state(0, FantastiqaState.new(2, seed=1))   # no Abbey: another rule set
    with pytest.raises(ValueError, match="FantastiqaState"):
        v.set_state(0, other.to_dict())
    fresh = FantastiqaVector(2, 2, abbey=True)           # set_state before any reset
    fresh.set_state(1, other)
    assert fresh.state(1).to_dict() == other.to_dict()


def test_explicit_seats_observe_as_the_scalar_encoder_finished_games_too():
    v, _ = _midgame(num_players=3, n=12, steps=80, turn_limit=2)
    assert v.terminated.any() and not v.terminated.all()
    seats = np.arange(v.num_envs) % 3
    obs = v.observe(seats=seats)
    for i in range(v.num_envs):
        s = v.state(i)
        assert obs[i].tobytes() == observe(s, int(seats[i])).tobytes()
    seats[0] = -1
    assert not v.observe(seats=seats)[0].any()
    out = np.full((v.num_envs, v.observation_size), 7.0, dtype=np.float32)   # a caller's buffer: written in full
    assert v.observe(seats=seats, out=out) is out
    assert np.array_equal(out, v.observe(seats=seats))
    with pytest.raises(ValueError, match="writeable"):
        v.observe(out=out[:, ::-1].copy().view()[:, ::-1])   # not C-contiguous


def _hidden_views(v, rng, leak_from=None):
    """(changed, checked): seat rows after swapping other seats' hands with their decks and reordering every
    deck; `leak_from` adds one other seat's hand composition to the row (a leaky encoder, for the control)."""
    def rows(vec):
        obs = vec.observe().copy()
        if leak_from is not None:
            for i in range(vec.num_envs):
                s = vec.state(i)
                if not s.is_terminal():
                    obs[i, 0] += sum(s.hand[(s.cur + 1) % s.n])
        return obs

    base = rows(v)
    w = FantastiqaVector(v.num_envs, v.num_players, goal=v.goal, card_set=v.card_set, **v.options)
    changed = 0
    for i in range(v.num_envs):
        s = v.state(i)
        t = reorder_decks(s, rng)
        for p in range(s.n):
            if p != s.current_player:
                t = swap_hidden(t, p, rng)
                changed += sorted(t.hand[p]) != sorted(s.hand[p])
        w.set_state(i, t)
    return changed, np.array_equal(rows(w), base)


@pytest.mark.parametrize("num_players,options", [(2, {}), (3, {"abbey": True}), (4, {"teams": True})])
def test_an_observation_row_never_depends_on_another_seats_hand_or_any_deck_order(num_players, options):
    rng = np.random.default_rng(num_players)
    v, _ = _midgame(num_players=num_players, n=24, steps=120, seed=3, **options)
    changed, same = _hidden_views(v, rng)
    assert changed > 5 and same
    # control: the same check catches an encoder that shows another seat's hand
    changed, same = _hidden_views(v, rng, leak_from=True)
    assert changed > 5 and not same


def test_step_with_games_steps_only_those_games():
    """step(actions, games=) (the BatchedGame protocol's form, for the learner core's opponent rounds):
    the chosen games step as the scalar core does, the others do not change, even for an action that
    would be illegal there; a `games` that is not a bool (N,) array is refused and nothing changes."""
    v = FantastiqaVector(num_envs=4)
    v.reset(np.arange(4))
    rng = np.random.default_rng(0)
    for _ in range(30):
        chosen = rng.random(4) < 0.5
        before = [v.state(i) for i in range(4)]
        actions = random_actions(v.legal_mask(), rng)
        actions[~chosen] = 10_000  # never legal: ignored where not chosen
        v.step(actions, games=chosen)
        for i in range(4):
            want = before[i]
            if chosen[i] and not want.is_terminal():
                want.apply(int(actions[i]))
            assert v.state(i).to_dict() == want.to_dict()
    before = [v.state(i).to_dict() for i in range(4)]
    with pytest.raises(ValueError, match="games must be a bool array"):
        v.step(random_actions(v.legal_mask(), rng), games=np.array([1, 0, 1, 0]))
    assert [v.state(i).to_dict() for i in range(4)] == before


def test_counts_added_up_late_are_the_counts_of_every_call():
    """`_count` keeps its calls aside and `counts` / `phase_counts` add them up when read (and every
    4,096 calls): the totals are those of each call counted at once."""
    v = FantastiqaVector(num_envs=2, num_players=2)
    rng = np.random.default_rng(0)
    calls = [(rng.integers(0, 5, size=3), rng.integers(0, 2, size=3).astype(np.int8)) for _ in range(5000)]
    for phases, done in calls:
        v._count("steps", phases, done)
    assert len(v._tally) == 5000 - 4096, "added up once on the way"
    kernel = np.bincount(np.concatenate([p[d == 1] for p, d in calls]), minlength=len(v.phase_counts["kernel_steps"]))
    fallback = sum(int((d == 0).sum()) for _, d in calls)
    assert v.counts["kernel_steps"] == int(kernel.sum()) and v.counts["fallback_steps"] == fallback
    assert np.array_equal(v.phase_counts["kernel_steps"], kernel) and not v._tally
