"""FantastiqaVector's packed rows and numba kernels (fantastiqa_rl.vector_state, vector_rules, vector_steps,
vector_kernels): the round trip state -> rows -> state at every step, every ported decision actually run
by a kernel (the vector counts what ran where, so a silent fall back to the scalar core fails here),
payments with Curious-Companion-style wild pairs, and chance kept in the games' own Generators.
The differential of masks, observations, returns and to_dict is tests/test_fantastiqa_vector.py's.
"""
import numpy as np
import pytest

from fantastiqa_rl import FantastiqaState
from fantastiqa_rl import actions as A
from fantastiqa_rl import vector_state as VS
from fantastiqa_rl.decisions import DECISIONS
from tests.batch_helpers import random_actions
from tests.fantastiqa_vector_helpers import TURN_LIMIT, make, run_differential, standin_variant

ROUND_TRIP_CONFIGS = [(2, {}), (4, {"abbey": True, "teams": True}), (3, {"card_use": "both", "turn_loops": "allow"})]


def _rows(s: FantastiqaState):
    cap = VS.capacity(s.g)
    c_type, w_type = VS.row_dtypes(s.g)
    return (np.zeros((1, VS.num_lists(s.n) * cap), dtype=c_type), np.zeros((1, VS.w_size(s.n)), dtype=w_type),
            cap)


def _limits(c, w):
    return int(np.iinfo(c.dtype).max), int(np.iinfo(w.dtype).max)


@pytest.mark.parametrize("num_players,options", ROUND_TRIP_CONFIGS)
def test_the_packed_rows_round_trip_every_state_of_random_games(num_players, options):
    rng = np.random.default_rng(num_players)
    strings = VS.Strings()
    checked = 0
    for seed in range(3):
        s = FantastiqaState.new(num_players, seed=seed, turn_limit=12, **options)
        c, w, cap = _rows(s)
        fixed = VS.template(s)
        while True:
            wire: list = []
            VS.pack(s, strings, wire)
            assert VS.scatter(np.asarray(wire, dtype=np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64),
                              c, w, cap, *_limits(c, w)) == -1
            back = VS.gather(c, w, 0, cap).tolist()
            assert back == wire
            t = VS.unpack(back, fixed, s._rngs, list(s._own), strings)
            assert t.to_dict() == s.to_dict(), (seed, s.phase_name)
            checked += 1
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply(int(legal[rng.integers(legal.size)]))
    assert checked > 300


def test_the_kernels_read_effect_ops_by_the_ids_every_strings_table_gives_them():
    strings = VS.Strings()
    assert [strings.id(op) for op in VS.EFFECT_OPS] == [VS.OP_ID[op] for op in VS.EFFECT_OPS]
    assert strings.id("a new end reason") == len(VS.END_REASONS) + len(VS.EFFECT_OPS)


def test_a_list_longer_than_the_rows_hold_is_refused_naming_the_game():
    s = FantastiqaState.new(2, seed=0)
    c, w, cap = _rows(s)
    wire: list = []
    VS.pack(s, VS.Strings(), wire)
    n_lists = VS.num_lists(2)
    wire[VS.W_LEN] = cap + 1             # the creature deck claims more items than a list holds
    wire[VS.W_LEN + n_lists:VS.W_LEN + n_lists] = [0] * (cap + 1 - len(s.creature_deck))
    assert VS.scatter(np.asarray(wire, dtype=np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), c, w, cap,
                      *_limits(c, w)) == 0


def test_set_state_refuses_a_state_its_rows_cannot_hold_and_changes_no_game():
    from fantastiqa_rl.vector import FantastiqaVector
    v = FantastiqaVector(3, 2)
    v.reset(np.arange(3))
    before = [v.state(i).to_dict() for i in range(3)]
    mask = v.legal_mask().copy()
    bad = FantastiqaState.new(2, seed=9)
    bad.gems[1] = 2**31                        # an int32 scalar would wrap to a negative count
    with pytest.raises(ValueError, match="game 1: .*value outside what its rows hold"):
        v.set_state(1, bad)
    assert [v.state(i).to_dict() for i in range(3)] == before
    assert np.array_equal(v.legal_mask(), mask)
    ok = FantastiqaState.new(2, seed=9)         # control: the same state without the bad value is loaded
    v.set_state(1, ok)
    assert v.state(1).to_dict() == ok.to_dict() != before[1]


def test_the_rows_are_small_for_the_standin_set_and_wide_enough_for_a_large_card_file():
    s = FantastiqaState.new(2, seed=0)
    assert VS.row_dtypes(s.g) == (np.uint8, np.int32)          # 207 instances: one byte an item

    class Large:                                                # a card file of 300 instances
        num_instances = 300
    assert VS.row_dtypes(Large) == (np.int16, np.int32)


@pytest.mark.parametrize("where", ["item", "scalar"])
def test_a_value_the_rows_cannot_hold_is_refused_not_wrapped(where):
    s = FantastiqaState.new(2, seed=0)
    c, w, cap = _rows(s)
    wire: list = []
    VS.pack(s, VS.Strings(), wire)
    n_lists = VS.num_lists(2)
    if where == "item":
        wire[VS.W_LEN + n_lists] = 256        # the creature deck's first card: 256 wraps to 0 in uint8
    else:
        wire[VS.W_TURNS] = 2**31              # wraps to a negative int32
    assert VS.scatter(np.asarray(wire, dtype=np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), c, w, cap,
                      *_limits(c, w)) == 0
    wire_ok: list = []
    VS.pack(s, VS.Strings(), wire_ok)       # control: the same state unchanged is taken
    assert VS.scatter(np.asarray(wire_ok, dtype=np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), c, w, cap,
                      *_limits(c, w)) == -1


# the decisions with kernels (fantastiqa_rl.decisions) that short random games reach
PORTED = tuple(d.name for d in DECISIONS.values() if d.step is not None and not d.rare)


def _phase_counts(v, what):
    return {A.PHASES[j]: int(x) for j, x in enumerate(v.phase_counts[what])}


def test_every_ported_decision_runs_in_a_kernel_and_matches_the_scalar_core():
    v, refs = make(2, "short", {"turn_limit": TURN_LIMIT}, np.arange(48) + 3)
    rng = np.random.default_rng(4)
    run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
    masks, steps = _phase_counts(v, "kernel_masks"), _phase_counts(v, "kernel_steps")
    for ph in PORTED:
        assert masks[ph] > 0 and steps[ph] > 0, ph
    for d in DECISIONS.values():  # a decision left to the scalar core never runs in a kernel
        if d.step is None:
            assert masks[d.name] == steps[d.name] == 0, d.name
    # the scalar core only for what is not ported (setup, draws that reshuffle, artifact effects, ...)
    c = v.counts
    assert c["fallback_steps"] < 0.12 * (c["kernel_steps"] + c["fallback_steps"])
    assert c["fallback_masks"] < 0.06 * (c["kernel_masks"] + c["fallback_masks"])
    # completing a quest in the kernel (quests.kernels.complete_quest): the scalar core only for the
    # completion that reaches the goal and ends the game
    completed = sum(len(s.completed[p]) for s in refs for p in range(s.n))
    goal_ends = sum(s.end_reason == "goal" for s in refs)
    fallback = _phase_counts(v, "fallback_steps")
    assert fallback["QUEST_PAY"] <= goal_ends < completed
    # every payment mask from counts per symbol (vector_pay): no enumeration of completions
    assert c["pay_masks_by_counts"] >= masks["ADV_PAY"] + masks["QUEST_PAY"] > 0
    assert c["pay_masks_enumerated"] == 0


def test_reshuffles_run_in_the_kernel_drawing_what_the_generators_draw():
    """A draw that reshuffles the discard (Q-X1) and RESHUFFLE (Q-F4) are kernel steps: the kernel shuffles
    with the mover's Generator (vector_chance) and leaves it where the scalar core's shuffle leaves it
    (every later draw would differ otherwise: run_differential compares at every step)."""
    v, refs = make(2, "short", {"turn_limit": TURN_LIMIT}, np.arange(24) + 40)
    rng = np.random.default_rng(6)
    run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
    assert v.counts["kernel_shuffles"] > 24
    steps = _phase_counts(v, "kernel_steps")
    assert steps["END_DISCARD"] > 0 and steps["FREE_MENU"] > 0
    fallback = {ph: k for ph, k in _phase_counts(v, "fallback_steps").items() if k}
    # left to the scalar core: the end of setup (it shuffles the decks) and a quest completion reaching the goal
    assert set(fallback) <= {"SETUP_PLACE", "QUEST_PAY"}, fallback
    assert fallback.get("SETUP_PLACE", 0) <= v.num_envs


def test_a_kernel_shuffle_whose_generator_is_not_advanced_is_caught(monkeypatch):
    """Control: the same games with the Generators left unadvanced after a kernel's shuffle differ from
    the scalar core's at a later step."""
    from fantastiqa_rl import vector_chance as CH
    monkeypatch.setattr(CH, "write", lambda gen, st: None)
    v, refs = make(2, "short", {"turn_limit": TURN_LIMIT}, np.arange(24) + 40)
    rng = np.random.default_rng(6)
    with pytest.raises(AssertionError):
        run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))


@pytest.mark.parametrize("options", [{"turn_loops": "allow", "mark_return": "allow"},
                                     {"bought_to": "hand", "draw_rule": "draw_5", "adventure_path": "loops"}])
def test_the_kernels_run_under_other_option_values(options):
    v, refs = make(3, "short", dict(options, turn_limit=TURN_LIMIT), np.arange(16) + 11)
    rng = np.random.default_rng(5)
    run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
    assert v.counts["kernel_steps"] > 4 * v.counts["fallback_steps"]


def companion_card_file(tmp_path) -> str:
    """The STAND-IN set with Curious-Companion-style wild pairs: three household items and half the beasts
    show two different symbols (a payment uses one or the other)."""
    def edit(d):
        wild = {"Spatula": ["SWORD", "WATER"], "Candle": ["FIRE", "BAT"], "Cat": ["TOOTH", "NET"]}
        beasts = [card for card in d["card"] if card["type"] == "beast"]
        for card in d["card"]:
            if card["name"] in wild:
                card["symbols"] = wild[card["name"]]
        for card in beasts[::2]:
            s = card["symbols"][0]
            card["symbols"] = [s, "HELMET" if s != "HELMET" else "WAND"]
    return standin_variant(tmp_path, "companions", edit)


def test_payments_with_wild_pairs_match_the_scalar_core(tmp_path):
    path = companion_card_file(tmp_path)
    probe = FantastiqaState.new(2, seed=0, card_set=path)
    assert sum(p is not None and p[0] != p[1] for p in probe.g.K_PROFILE) >= 10
    for n, opts in ((2, {}), (3, {"card_use": "both"})):
        v, refs = make(n, "short", dict(opts, card_set=path, turn_limit=TURN_LIMIT), np.arange(24) + 70)
        rng = np.random.default_rng(n)
        run_differential(v, refs, lambda v, refs: random_actions(v.legal_mask(), rng))
        masks = _phase_counts(v, "kernel_masks")
        assert masks["ADV_PAY"] > 100 and masks["MAIN"] > 100
        assert v.counts["pay_masks_by_counts"] > 0.9 * (masks["ADV_PAY"] + masks["QUEST_PAY"])


def _random_profile(rng):
    """A payment profile (a, b, m): a Curious-Companion-style wild pair a < b, or a plain card."""
    if rng.random() < 0.3:
        a, b = sorted(int(x) for x in rng.choice(9, 2, replace=False))
        return (a, b, int(rng.choice([1, 2])))
    s = int(rng.integers(9))
    return (s, s, int(rng.choice([1, 2, 2, 4])))


def test_the_payment_mask_from_counts_equals_the_enumeration_on_hands_with_wild_pairs():
    """vector_pay.offered_by_counts against payment.offered_flags (the scalar core's enumeration, uncached)
    on random payments: creatures and quests, selected cards and hands with wild pairs, kinds of several
    copies; a kind of mixed profiles (a Looking Glass's doubled copy beside plain ones) is left to the
    enumeration (False), and nothing else is."""
    from fantastiqa_rl.payment import offered_flags
    from fantastiqa_rl.vector_pay import offered_by_counts

    rng = np.random.default_rng(25)
    checked = with_pairs = 0
    for _ in range(1500):
        need = np.zeros(9, dtype=np.int64)
        creature = bool(rng.random() < 0.6)
        if creature:
            v, strength = int(rng.integers(9)), int(rng.integers(1, 9))
            req = ("c", v, strength)
        else:
            needs = tuple(sorted((int(s), int(rng.integers(1, 5))) for s in rng.choice(9, int(rng.integers(1, 4)),
                                                                                       replace=False)))
            for s, count in needs:
                need[s] = count
            v, strength, req = 0, 0, ("q", needs)
        sel = [_random_profile(rng) for _ in range(int(rng.integers(0, 3)))]
        items, mixed = [], False
        for _ in range(int(rng.integers(1, 6))):
            copies = [_random_profile(rng)] * int(rng.integers(1, 4))
            if rng.random() < 0.05:
                copies.append(_random_profile(rng))
                mixed |= copies[-1] != copies[0]
            items.append(tuple(copies))
        want = offered_flags.__wrapped__(req, tuple(sorted(sel)), tuple(items))
        flat = np.asarray([p for kind in items for p in kind], dtype=np.int64)
        start = np.cumsum([0] + [len(kind) for kind in items]).astype(np.int64)
        chosen = np.asarray(sel, dtype=np.int64).reshape(-1, 3) if sel else np.zeros((1, 3), dtype=np.int64)
        flags = np.zeros(len(items), dtype=np.int64)
        pairs = sum(a != b for kind in items for a, b, _ in kind) + sum(a != b for a, b, _ in sel)
        ran = offered_by_counts(creature, v, strength, need, chosen, len(sel), flat, start, len(items), flags)
        if mixed or not ran:   # left to the enumeration only for a mixed kind or more than 6 wild pairs
            assert not ran and not flags.any() and (mixed or pairs > 6)
            continue
        assert tuple(bool(f) for f in flags) == want, (req, sel, items)
        checked += 1
        with_pairs += pairs > 0
    assert checked > 1000 and with_pairs > 500


def test_a_copy_from_state_keeps_its_chance_while_the_game_goes_on():
    """state(i) shares game i's Generators copy-on-write: the game's later shuffles never move the copy's."""
    v, _ = make(2, "short", {}, np.arange(4))
    rng = np.random.default_rng(0)
    copies = [v.state(i) for i in range(4)]
    before = [s.to_dict() for s in copies]
    for _ in range(400):
        v.step(random_actions(v.legal_mask(), rng))
    assert [s.to_dict() for s in copies] == before
    for s, d in zip(copies, before):      # and the copy deals on exactly as the scalar core would
        ref = FantastiqaState.from_dict(d)
        for _ in range(60):
            if s.is_terminal():
                break
            a = int(s.legal_actions()[-1])
            s.apply(a)
            ref.apply(a)
        assert s.to_dict() == ref.to_dict()


def test_without_kernels_the_scalar_core_plays_every_step_and_the_games_are_the_same():
    """Also the differential without calling state() at every step (which builds each game's
    FantastiqaState and so can hide a kernel that leaves the rows and that state apart)."""
    seeds = np.arange(16) + 30
    fast, _ = make(2, "short", {"turn_limit": 10}, seeds)
    slow, _ = make(2, "short", {"turn_limit": 10}, seeds)
    slow._kernels = False
    rng = np.random.default_rng(1)
    while not fast.terminated.all():
        mask = fast.legal_mask()
        assert np.array_equal(mask, slow.legal_mask())
        actions = random_actions(mask, rng)
        fast.step(actions)
        slow.step(actions)
    assert [fast.state(i).to_dict() for i in range(16)] == [slow.state(i).to_dict() for i in range(16)]
    assert slow.counts["kernel_steps"] == slow.counts["kernel_masks"] == 0 < fast.counts["kernel_steps"]



def _at_plus_one(a, k):
    return a[k] + 1


def _three_calls(a):  # two constant arguments and one computed: numba types the first two Literal[int]
    return _callee(a, 0) + _callee(a, 1) + _callee(a, a.size - 1)


@pytest.mark.parametrize("wrap", ["njit", "kernel"])
def test_a_kernel_compiles_once_per_argument_types_not_once_per_constant(wrap, monkeypatch):
    """@kernel's dispatcher (vector_state._Kernel) drops numba's per-constant specializations of a
    jitted-to-jitted call (446 compiles of 144 functions before it, 185 after); plain njit is the
    control that shows the check can fail."""
    from numba import njit

    callee = njit(_at_plus_one) if wrap == "njit" else \
        VS._Kernel(py_func=_at_plus_one, locals={}, targetoptions={"nopython": True})
    monkeypatch.setitem(globals(), "_callee", callee)
    assert njit(_three_calls)(np.arange(3)) == 6
    assert len(callee.signatures) == (3 if wrap == "njit" else 1)

def test_kernel_refuses_a_function_whose_module_is_not_hashed_into_the_cache_key():
    def outside(x):
        return x

    outside.__module__ = "fantastiqa_rl.not_a_kernel_source"
    with pytest.raises(ValueError, match="add its module to _KERNEL_SOURCES"):
        VS.kernel(outside)
