"""Payment values and the card-by-card payment mask (Q-A2, Q-Q2) against brute force."""
from functools import lru_cache
from itertools import combinations, combinations_with_replacement, product

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fantastiqa_rl import FantastiqaState
from fantastiqa_rl import actions as A
from fantastiqa_rl.payment import creature_value, met, offered_kinds, profile, quest_met
from fantastiqa_rl.adventure import creature_req
from fantastiqa_rl.quests import quest_req

# Private calls (why not public): adventure.creature_req / quests.quest_req give the requirement being paid, which the
# core does not expose; the test checks every offered payment against it.

# card pool: (symbols) -> profile; singles, a double and two Curious Companions
POOL = [(0,), (1,), (2,), (1, 1), (0, 2), (1, 2)]
REQS = [("c", 0, 1), ("c", 0, 2), ("c", 0, 3), ("c", 2, 2),
        ("q", ((0, 2),)), ("q", ((0, 1), (1, 1))), ("q", ((1, 2), (2, 1)))]


def units_choices(cards):
    """Every way the companions can choose: lists of per-symbol unit counts."""
    opts = []
    for syms in cards:
        if len(syms) == 2 and syms[0] != syms[1]:
            opts.append([((syms[0], 1),), ((syms[1], 1),)])
        else:
            opts.append([tuple((s, 1) for s in syms)])
    for choice in product(*opts):
        counts = [0] * 9
        for units in choice:
            for s, m in units:
                counts[s] += m
        yield counts


def brute_value(v, cards):
    """Q-A2 by definition: v symbols count one each; two identical others count one."""
    return max((c[v] + sum(c[s] // 2 for s in range(9) if s != v) for c in units_choices(cards)),
               default=0)


def brute_met(req, cards):
    return _brute_met(req, tuple(sorted(cards)))


@lru_cache(maxsize=None)
def _brute_met(req, cards):
    if req[0] == "c":
        return brute_value(req[1], cards) >= req[2]
    return any(all(c[s] >= n for s, n in req[1]) for c in units_choices(cards))


def brute_offered(req, selected, hand):
    """Kinds k such that some subset T of the hand with a copy of k completes the payment and
    that copy is not surplus."""
    out = set()
    idx = range(len(hand))
    for r in range(1, len(hand) + 1):
        for T in combinations(idx, r):
            cards = selected + [hand[i] for i in T]
            if not brute_met(req, cards):
                continue
            for i in T:
                if hand[i] not in out:
                    rest = selected + [hand[j] for j in T if j != i]
                    if not brute_met(req, rest):
                        out.add(hand[i])
    return out


def mask(req, selected, hand):
    items = {}
    for syms in hand:
        items.setdefault(POOL.index(syms), []).append(profile(syms))
    items = {k: tuple(v) for k, v in items.items()}
    return {POOL[k] for k in offered_kinds(req, [profile(x) for x in selected], items)}


def test_Q_A2_payment_mask_matches_brute_force_all_hands_up_to_6():
    """Every hand of up to 6 cards from the pool, every requirement, with nothing chosen yet
    (and, for hands up to 5, one card of the first or the last kind already chosen): the offered
    kinds equal the brute-force definition."""
    checked = 0
    for n in range(0, 7):
        for hand in combinations_with_replacement(POOL, n):
            hand = list(hand)
            for req in REQS:
                sels = [[]]
                if n <= 5:
                    sels += [[c] for c in sorted(set(hand))[:1]] + [[c] for c in sorted(set(hand))[-1:]]
                for sel in sels:
                    rest = list(hand)
                    for c in sel:
                        rest.remove(c)
                    assert mask(req, sel, rest) == brute_offered(req, sel, rest), (req, sel, rest)
                    assert met(req, [profile(x) for x in hand]) == brute_met(req, hand)
                    checked += 1
    assert checked > 6000


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(POOL + [(3,), (3, 3), (4, 5), (0, 0)]), max_size=7),
       st.integers(0, 8))
def test_Q_A2_creature_value_formula(cards, v):
    assert creature_value(v, [profile(c) for c in cards]) == brute_value(v, cards)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(POOL + [(3,), (3, 3), (0, 3)]), max_size=7),
       st.dictionaries(st.integers(0, 3), st.integers(1, 3), min_size=1, max_size=2))
def test_Q_Q2_quest_needs_exact_symbols(cards, needs):
    needs = tuple(sorted(needs.items()))
    assert quest_met(needs, [profile(c) for c in cards]) == brute_met(("q", needs), cards)


def test_Q_A2_wild_pair_spent_on_one_creature_only():
    # two FIRE cards stand in for ONE sword; four of them for two
    assert creature_value(0, [profile((1,))] * 2) == 1
    assert creature_value(0, [profile((1,))] * 3) == 1
    assert creature_value(0, [profile((1,))] * 4) == 2
    assert creature_value(0, [profile((1, 1))]) == 1            # a double card is a pair
    assert creature_value(0, [profile((0,), True)]) == 2        # Looking Glass doubles
    assert creature_value(0, [profile((1,), True)]) == 1        # ... and a doubled card is a pair
    assert not quest_met(((0, 1),), [profile((1, 1))] * 3)      # never wilds for quests


def test_payment_mask_in_play_matches_brute_force():
    """At every payment decision of random games, the legal HAND ids equal the brute force on
    the mover's actual hand (with committed cards for quests)."""
    checked = 0
    for seed in range(30):
        s = FantastiqaState.new(2 + seed % 3, seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(3000):
            if s.is_terminal():
                break
            if s.phase in (A.ADV_PAY, A.QUEST_PAY) and not s.boosted:
                p, g = s.cur, s.g
                if s.phase == A.ADV_PAY:
                    req = creature_req(s, s.target)
                    sel = s.pay
                else:
                    req = quest_req(s, s.target)
                    sel = s.pay + s.committed[p].get(s.target, [])
                sym = lambda cards: [g.K_SYMS[g.I_HAND_KIND[i]] for i in cards if g.K_SYMS[g.I_HAND_KIND[i]]]  # noqa
                want = brute_offered(req, sym(sel), sym(s.hand[p]))
                got = {g.K_SYMS[a - s.layout.hand] for a in s.legal_actions() if A.HAND <= a < s.layout.commit}
                assert got == want
                assert (A.CONFIRM in s.legal_actions()) == brute_met(req, sym(sel))
                checked += 1
            la = s.legal_actions()
            s.apply(int(la[rng.integers(len(la))]))
    assert checked > 50
