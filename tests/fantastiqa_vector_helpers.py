"""The differential of tests/test_fantastiqa_vector.py and tests/test_fantastiqa_vector_kernels.py (and of
benchmarks/bench_fantastiqa_vector.py --differential): a FantastiqaVector stepped beside scalar
FantastiqaStates, every query compared at every step."""
import json
import tomllib

import numpy as np

from fantastiqa_rl import STANDIN_PATH, FantastiqaState, observe
from fantastiqa_rl.card_view import VIEW_SIZE, observe_cards
from fantastiqa_rl.vector import FantastiqaVector
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

# (num_players, goal, options): both goals, 2-4 players, the Abbey, teams, every ASSUMED option value
CONFIGS = [
    (2, "short", {}), (3, "long", {}), (4, "short", {}), (2, "long", {"abbey": True}),
    (3, "short", {"abbey": True}), (4, "short", {"teams": True}), (4, "long", {"teams": True, "abbey": True}),
    (2, "short", {"adventure_path": "loops"}), (3, "short", {"fly_in_adventure": False}),
    (2, "short", {"bought_to": "hand"}), (3, "short", {"card_use": "both"}), (2, "short", {"draw_rule": "draw_5"}),
    (2, "short", {"mark_return": "allow"}),
]
RANDOM_GAMES = 24       # per config, each to its end under TURN_LIMIT
TURN_LIMIT = 8          # completed turns per player (Q-E5): random games end in a few hundred steps


def check_equal(v: FantastiqaVector, refs: list, games) -> None:
    """Every query of `v` equals the scalar core's (observation and state of `games`, the ones that moved)."""
    mask = v.legal_mask()
    assert mask.dtype == np.bool_ and mask.shape == (v.num_envs, refs[0].num_actions)
    assert v.current_player.tolist() == [s.current_player for s in refs]
    assert v.terminated.tolist() == [s.is_terminal() for s in refs]
    obs = v.observe()
    assert obs.dtype == np.float32 and obs.shape == (v.num_envs, v.observation_size)
    cards = v.observe_cards()   # the card view (observation version 2) of the same rows and masks
    for i in games:
        s = refs[i]
        want = np.zeros(s.num_actions, dtype=bool)
        if not s.is_terminal():
            want[s.legal_actions()] = True
        assert np.array_equal(mask[i], want), i
        expected = np.zeros(v.observation_size, np.float32) if s.is_terminal() else observe(s, s.current_player)
        assert obs[i].tobytes() == expected.tobytes(), (i, s.phase_name)
        expected = np.zeros(VIEW_SIZE, np.float32) if s.is_terminal() else observe_cards(s, s.current_player)
        assert cards[i].tobytes() == expected.tobytes(), (i, s.phase_name)
        assert v.state(i).to_dict() == s.to_dict(), i
    assert np.array_equal(v.returns(), np.stack([s.returns() for s in refs]))
    some = v.current_player.copy()
    some[::2] = -1              # a few games asked for (as the learner core asks for its snapshots'; after the
    # checks above: observe_cards writes the flat rows of `obs`, the vector's buffer)
    part = v.observe_cards(some)
    assert not part[::2].any() and part[1::2].tobytes() == cards[1::2].tobytes()


def run_differential(v: FantastiqaVector, refs: list, choose, max_steps: int = 100_000) -> int:
    """Step `v` and `refs` together with `choose(v, refs) -> actions`, comparing at every step."""
    moved, steps = range(v.num_envs), 0
    while len(moved) and steps < max_steps:
        check_equal(v, refs, moved)
        moved = np.flatnonzero(~v.terminated)
        actions = choose(v, refs)
        v.step(actions)
        for i in moved:
            refs[i].apply(int(actions[i]))
        steps += 1
    return steps


def make(num_players, goal, options, seeds):
    v = FantastiqaVector(len(seeds), num_players, goal=goal, greedy=FantastiqaGreedyAgent, **options)
    v.reset(seeds)
    return v, [FantastiqaState.new(num_players, seed=int(s), goal=goal, **options) for s in seeds]




def standin_variant(tmp_path, name: str, edit) -> str:
    """A card file: the STAND-IN set as a dict, changed by `edit(d)`, named `name`, written as JSON."""
    d = tomllib.load(open(STANDIN_PATH, "rb"))
    edit(d)
    d["name"] = name
    p = tmp_path / f"{name.replace(' ', '_')}.json"
    p.write_text(json.dumps(d))
    return str(p)
