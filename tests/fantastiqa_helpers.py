"""Helpers shared by the Fantastiqa tests: action ids by card name, stepping, and positions greedy play reaches."""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.debug import play_setup
from fantastiqa_rl.state import FantastiqaState
from tabletop_rl.agents import make_agent
from tabletop_rl.agents.fantastiqa_mcts import FantastiqaMCTSAgent

# The STAND-IN item card of each symbol (fantastiqa_rl.board.SYMBOLS order): hands that subdue a creature.
ITEMS = ["Spatula", "Candle", "Pail", "Broom", "Cat", "Net", "Helmet", "Bat", "Toothbrush"]


def fresh(n: int = 2, seed: int = 0, **options) -> FantastiqaState:
    """A new `n`-player game with `options`, its setup played: seat 0's first main-phase decision."""
    s = play_setup(FantastiqaState.new(n, seed=seed, **options))
    assert s.phase == A.MAIN and s.cur == 0
    return s


def edited(s):
    """Mark a state whose fields a test edited to set up a scenario (the public API reaches such
    positions only through long random play): its cached legal actions are dropped, so they are
    recomputed from the edited fields. The one place tests write the core's private cache."""
    s._legal = None
    return s


def kind(s, name):
    return next(k for k, nm in enumerate(s.g.K_NAME) if nm == name)


def qkind(s, name):
    return next(q for q, nm in enumerate(s.g.Q_NAME) if nm == name)


def HAND(s, name):
    return s.layout.hand + kind(s, name)


def PICK(s, name):
    return s.layout.pick + kind(s, name)


def COMMIT(s, name):
    return s.layout.commit + kind(s, name)


def QUEST(s, name):
    return s.layout.quest + qkind(s, name)


def at(s, p, pos):
    """Put seat p's adventurer at board position pos."""
    s.position[p] = pos
    edited(s)


def legal(s):
    """Legal actions, with the FREE_MENU's free actions listed flat while in MAIN."""
    out = set(s.legal_actions().tolist())
    if s.phase == A.MAIN and A.FREE_ACTION in out:
        out = (out - {A.FREE_ACTION}) | set(s.free_options(s.cur))
    return out


def do(s, a):
    """Apply a; a free action from MAIN goes through FREE_ACTION first."""
    if s.phase == A.MAIN and a not in s.legal_set() and a in s.free_options(s.cur):
        s.apply(A.FREE_ACTION)
    s.apply(a)


def random_walk(s, rng, steps, check=None):
    """Up to `steps` uniformly random legal moves, checking the legal list (and `check(s)`) each step."""
    for _ in range(steps):
        if s.is_terminal():
            break
        la = s.legal_actions()
        assert len(la) > 0, f"empty legal set in {s.phase_name}"
        assert la.dtype == np.int64 and np.all(np.diff(la) > 0), "legal actions must be ascending int64"
        assert la[-1] < s.num_actions
        s.apply(int(la[rng.integers(len(la))]))
        if check:
            check(s)
    return s


def random_state(seed: int, steps: int, n: int, stop=None, **options) -> FantastiqaState:
    """Uniform-random play from a fresh deal for `steps` steps (or until `stop(state)`)."""
    rng = np.random.default_rng(seed + 1000)
    s = FantastiqaState.new(n, seed=seed, **options)
    for _ in range(steps):
        if s.is_terminal() or (stop is not None and stop(s)):
            break
        legal = s.legal_actions()
        s.apply(int(legal[rng.integers(legal.size)]))
    return s


def pinned(s, p):
    """Hand cards of p that the table has seen this turn (doubled / played for power)."""
    if p != s.current_player:
        return set()
    return set(s.boosted) | set(s.powered)


def swap_hidden(s, p, rng):
    """Exchange cards between p's hand and p's deck (same counts), and reorder p's deck."""
    t = s.clone()
    hand = [i for i in t.hand[p] if i not in pinned(s, p)]
    keep = [i for i in t.hand[p] if i in pinned(s, p)]
    pool = hand + t.deck[p]
    rng.shuffle(pool)
    t.hand[p] = keep + pool[:len(hand)]
    t.deck[p] = pool[len(hand):]
    edited(t)
    return t


def reorder_decks(s, rng):
    """A copy of `s` with every hidden order shuffled: each seat's draw pile and the four decks."""
    t = s.clone()
    for p in range(t.n):
        rng.shuffle(t.deck[p])
    for name in ("creature_deck", "artifact_deck", "beast_deck", "quest_deck"):
        rng.shuffle(getattr(t, name))
    edited(t)
    return t


def greedy_position(seed: int, plies: int, n: int = 2, **options) -> FantastiqaState:
    """A position reached by greedy play (realistic hands and quests), stopped at a decision of
    the bot's default search phases (None when the game ends first)."""
    s = FantastiqaState.new(n, seed=seed, **options)
    bots = [make_agent("fantastiqa", "greedy", seed=i) for i in range(n)]
    searched = FantastiqaMCTSAgent(seed=0).search_phases
    for i in range(10_000):
        if i >= plies and s.phase in searched and s.legal_actions().size > 1:
            return s
        if s.is_terminal():
            return None
        p = s.current_player
        s.apply(bots[p].act(None, None, state=s, seat=p))
    raise AssertionError("no searched decision found")


def own_hand_swaps(count: int = 8):
    """(position, seat, the position with the seat's OWN hand and deck reshuffled) at `count` greedy
    positions where the swap keeps the legal moves: the searches' hidden-information controls (the
    seat sees its hand, so some of these must change a move)."""
    for seed in range(count):
        s = greedy_position(seed + 10, 60 + 45 * seed)
        if s is None:
            continue
        seat = s.current_player
        t = swap_hidden(s, seat, np.random.default_rng(seed))
        if t.legal_set() == s.legal_set():
            yield s, seat, t
