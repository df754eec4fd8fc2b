"""The fantastiqa_v1 AEC env: PettingZoo's own tests on every option value, protections, rewards,
truncation, infos, the registries, and agreement with the rules core step by step."""

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from tabletop_rl import envs
import fantastiqa_rl.spec  # noqa: F401  (registers fantastiqa_v1 and the Gymnasium adapter)
from tabletop_rl.agents import make_agent
from fantastiqa_rl.environment import env, potential, raw_env
from fantastiqa_rl.observation import observe
from fantastiqa_rl.state import FantastiqaState

# Every option value appears at least once (2-4 players; defaults are covered by the first three).
OPTION_SETS = [
    dict(num_players=2), dict(num_players=3), dict(num_players=4),
    dict(num_players=2, goal="long", reward="score_diff"),
    dict(num_players=3, adventure_path="loops", fly_in_adventure=True),
    dict(num_players=4, bought_to="hand", card_use="both"),
    dict(num_players=2, draw_rule="draw_5", max_turns=3),
    dict(num_players=3, max_turns=None, reward="score_diff", render_seat=1),
    # issue 7: the Abbey on and off (above), teams on
    dict(num_players=2, abbey=True), dict(num_players=4, teams=True, reward="score_diff"),
    dict(num_players=4, teams=True, abbey=True),
    dict(num_players=2, mark_return="allow", max_turns=20),
    # issue 15: the strict fly reading, the turn limit off and short
    dict(num_players=2, fly_in_adventure=False, turn_limit=None, max_turns=50),
    dict(num_players=3, turn_limit=5),
    # issue 25: Q-T2's unbounded reading
    dict(num_players=3, turn_loops="allow", max_turns=20),
    # issue 37: the card view (observation version 2), on the STAND-IN set and a generated file
    dict(num_players=2, view="cards"), dict(num_players=3, view="cards", card_set="generated:11", abbey=True),
]


pytestmark = pytest.mark.usefixtures("quiet_warnings")  # conftest.py


@pytest.mark.parametrize("kw", OPTION_SETS, ids=str)
def test_pettingzoo_api_seed_and_render_tests(kw):
    api_test(env(**kw), num_cycles=120)
    seed_test(lambda: env(**kw), num_cycles=120)
    render_test(lambda render_mode=None: env(render_mode=render_mode, **kw))


@pytest.mark.parametrize("n", [2, 4])
def test_raw_env_passes_the_api_test(n):
    api_test(raw_env(num_players=n), num_cycles=120)


def test_registries(fantastiqa_spec):
    assert pettingzoo.spec("aec", "fantastiqa_v1").entry_point == "fantastiqa_rl.environment:env"
    e = pettingzoo.make("aec", "fantastiqa_v1", num_players=3)
    e.reset(seed=1)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.agent_selection == "player_2"  # Q-S4: setup runs in reverse seat order
    assert fantastiqa_spec.env_id == "fantastiqa_v1" and envs.get_game("fantastiqa_v1") is fantastiqa_spec
    assert envs.make("fantastiqa_v1", num_players=4).num_players == 4
    assert set(fantastiqa_spec.rule_options) >= {"goal", "card_set", "adventure_path", "draw_rule", "turn_loops"}
    with pytest.raises(ValueError, match="'fantastiqa_v0' is retired.*'fantastiqa_v1'"):
        envs.make("fantastiqa_v0")                  # retired in issue 25 (Q-T2 changed play)
    g = gymnasium.make("fantastiqa_rl/Fantastiqa-v0", num_players=2, opponent="random")
    obs, info = g.reset(seed=0)
    assert obs.shape == g.observation_space.shape and info["action_mask"].any()


@pytest.mark.parametrize("kw, match", [
    (dict(num_players=5), "num_players"), (dict(goal="medium"), "goal"),
    (dict(adventure_path="zigzag"), "adventure_path"), (dict(draw_rule=3), "draw_rule"),
    (dict(reward="dense"), r"reward must be one of \('win_loss', 'score_diff'\)"),
    (dict(render_mode="video"), "render_mode"), (dict(max_turns=0), "max_turns"),
    (dict(render_seat=2), "render_seat"), (dict(card_set="/nonexistent.toml"), "nonexistent"),
    (dict(mark_return="never"), r"mark_return.*\['forbid', 'allow'\]"),
    (dict(turn_loops="never"), r"turn_loops.*\['forbid', 'allow'\]"),
])
def test_bad_options_name_the_problem(kw, match):
    with pytest.raises(ValueError, match=match):
        env(**kw)


def play(e, seed, bots, rng, eps=0.05):
    """Play an env game with state-reading bots (and some random moves); returns reward totals
    and the last info, with the flags every agent ended with (`ended`: {agent: (term, trunc)})."""
    e.reset(seed=seed)
    totals = {a: 0.0 for a in e.possible_agents}
    info, ended = {}, {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        if term or trunc:
            ended[agent] = (term, trunc)
            info = dict(info, ended=ended)
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        seat = int(agent.split("_")[1])
        if rng.random() < eps:
            a = int(legal[rng.integers(legal.size)])
        else:
            a = bots[seat].act(obs["observation"], obs["action_mask"], state=e.unwrapped.game, seat=seat)
        e.step(a)
    return totals, info


def test_win_loss_rewards_equal_core_returns_and_infos():
    rng = np.random.default_rng(0)
    for seed, n in ((0, 2), (1, 4)):
        e = env(num_players=n)
        bots = [make_agent("fantastiqa", "greedy", seed=seed * 10 + i) for i in range(n)]
        totals, info = play(e, seed, bots, rng)
        core = e.unwrapped.game
        assert core.is_terminal()
        assert [totals[a] for a in e.possible_agents] == pytest.approx(core.returns().tolist())
        assert info["winners"].tolist() == [int(p in core.winners()) for p in range(n)]  # per seat 0/1
        assert info["raw_scores"] == list(core.scores)
        assert info["final_scores"] == list(core.final_scores())
        assert info["end_reason"] in ("goal", "creature deck empty", "turn_limit")


def test_score_diff_rewards_sum_to_the_final_margin():
    rng = np.random.default_rng(1)
    for seed in range(2):
        e = env(num_players=3, reward="score_diff")
        bots = [make_agent("fantastiqa", "greedy", seed=i) for i in range(3)]
        totals, _ = play(e, seed, bots, rng)
        g = e.unwrapped.game
        for seat, agent in enumerate(e.possible_agents):
            margin = g.scores[seat] - max(g.scores[p] for p in range(3) if p != seat)
            assert totals[agent] == pytest.approx(margin) == potential(g, seat)


@pytest.mark.parametrize("kw,end", [(dict(max_turns=2), "truncated"), (dict(turn_limit=2), "turn_limit")])
def test_two_turns_per_player_truncate_or_end_the_game(kw, end):
    """max_turns truncates (no result); the Q-E5 turn_limit ENDS the game, terminal, scored."""
    e = env(num_players=2, **kw)
    rng = np.random.default_rng(2)
    bots = [make_agent("fantastiqa", "random", seed=i) for i in range(2)]
    totals, info = play(e, 0, bots, rng, eps=0.0)
    g = e.unwrapped.game
    assert g.turns == 4 and g.is_terminal() == (end == "turn_limit")
    assert info["end_reason"] == end and info["turns"] == 4
    assert info["winners"].tolist() == [int(p in g.winners()) for p in range(2)]
    assert [totals[a] for a in e.possible_agents] == pytest.approx(g.returns().tolist())
    flags = set(info["ended"].values())
    assert flags == ({(True, False)} if end == "turn_limit" else {(False, True)})
    assert len(info["ended"]) == 2


@pytest.mark.parametrize("n", [2, 3, 4])
def test_Q_E5_random_games_under_env_defaults_end_terminal_with_a_result(n):
    """Q-E5 (issue 15): uniform-random games under the env defaults all END (terminated, never
    truncated), and most give someone a non-zero win_loss return (the turn limit scores them)."""
    decided = 0
    for seed in range(3):
        e = env(num_players=n)
        rng = np.random.default_rng(seed)
        bots = [make_agent("fantastiqa", "random", seed=seed * 10 + i) for i in range(n)]
        totals, info = play(e, seed, bots, rng, eps=0.0)
        g = e.unwrapped.game
        assert g.is_terminal() and set(info["ended"].values()) == {(True, False)} and len(info["ended"]) == n
        assert info["end_reason"] in ("goal", "creature deck empty", "turn_limit")
        assert g.turns <= 100 * n
        assert [totals[a] for a in e.possible_agents] == pytest.approx(g.returns().tolist())
        decided += any(v != 0.0 for v in totals.values())
    assert decided >= 2


def test_env_follows_the_core_step_by_step():
    rng = np.random.default_rng(3)
    e = raw_env(num_players=4, max_turns=None)
    e.reset(seed=11)
    core = FantastiqaState.new(4, seed=11)
    steps = 0
    for agent in e.agent_iter(1500):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        assert agent == f"player_{core.current_player}"
        assert (np.flatnonzero(obs["action_mask"]) == core.legal_actions()).all()
        assert (obs["observation"] == observe(core, core.current_player)).all()
        legal = core.legal_actions()
        a = int(legal[rng.integers(legal.size)])
        e.step(a)
        core.apply(a)
        steps += 1
        if steps % 300 == 0:
            assert e.unwrapped.game.to_dict() == core.to_dict()
    assert e.unwrapped.game.to_dict() == core.to_dict() and steps > 500


def test_protected_env_ends_the_game_on_an_illegal_move():
    e = env(num_players=3)
    e.reset(seed=0)
    offender = e.agent_selection
    illegal = int(np.flatnonzero(e.observe(offender)["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e._cumulative_rewards[offender] == -1.0
    assert all(e._cumulative_rewards[a] == 0.0 for a in e.agents if a != offender)
    assert e.infos[offender] == {"illegal_move_by": offender}
    e2 = env()
    e2.reset(seed=0)
    for bad in (405, -1, 1.5, True):
        with pytest.raises(ValueError, match="outside the action space"):
            e2.step(bad)


def test_raw_env_raises_on_illegal_action_and_keeps_state():
    e = raw_env()
    e.reset(seed=0)
    before = e.unwrapped.game.to_dict()
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        e.step(illegal)
    assert e.unwrapped.game.to_dict() == before


def test_protected_env_enforces_reset_first():
    e = env()
    with pytest.raises(AssertionError, match="reset"):
        e.step(0)
    with pytest.raises(AssertionError, match="reset"):
        e.state()


def test_state_space_and_renders():
    e = env(num_players=2, render_mode="rgb_array")
    e.reset(seed=3)
    for _ in range(30):
        m = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(m)[-1]))
    st = e.state()
    assert e.state_space.contains(st)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.std() > 0
    t = env(num_players=2, render_mode="ansi", render_seat=0)
    t.reset(seed=3)
    text = t.render()
    assert "hand of player_0" in text and "c6" in text and "open quests" in text
    mover = env(num_players=2, render_mode="ansi")
    mover.reset(seed=3)
    assert "hand of player_1" in mover.render()  # default: the agent to move (seat 1 sets up first)


def test_observation_blocks_decode_to_the_state():
    from collections import Counter

    from fantastiqa_rl.observation import observation_high, observation_layout
    from tests.fantastiqa_helpers import random_state

    lay, high = observation_layout(), observation_high()
    for seed in range(6):
        n = 2 + seed % 3
        s = random_state(seed, 150 + 70 * seed, n)
        K = s.layout.K
        for seat in range(n):
            o = observe(s, seat)
            assert o.shape == high.shape and (o >= 0).all() and (o <= high).all()

            def kinds(cards):
                c = Counter(s.g.I_HAND_KIND[i] for i in cards)
                return [c.get(k, 0) for k in range(K)]

            assert o[lay["own_hand"]].tolist() == kinds(s.hand[seat])
            assert o[lay["own_deck"]].tolist() == kinds(s.deck[seat])
            assert o[lay["phase"]].argmax() == s.phase
            for k in range(4):
                assert o[lay[f"p{k}_flags"]][0] == (k < n)
                if k >= n:
                    assert not o[lay[f"p{k}_discard"]].any() and not o[lay[f"p{k}_position"]].any()
                    continue
                p = (seat + k) % n
                assert o[lay[f"p{k}_discard"]].tolist() == kinds(s.discard[p])
                assert o[lay[f"p{k}_counters"]][0] == np.float32(s.gems[p] / 10.0)
                assert o[lay[f"p{k}_counters"]][3] == np.float32(s.scores[p] / 10.0)
                if s.position[p] >= 0:
                    assert o[lay[f"p{k}_position"]].argmax() == s.position[p]
            kind_grid = o[lay["space_kind"]].reshape(7, K)
            for c in range(7):
                assert kind_grid[c].sum() == (s.board[c] >= 0)
                if s.board[c] >= 0:
                    assert kind_grid[c].argmax() == s.g.I_HAND_KIND[s.board[c]]


def test_truncation_step_guard_catches_endless_free_actions():
    """With mark_return="allow", a policy that moves its quest token back and forth never ends its
    turn; the step guard (max_turns x players x 100 steps) truncates the game anyway."""
    e = env(num_players=2, max_turns=1, mark_return="allow")
    e.reset(seed=0)
    game = e.unwrapped.game
    rng = np.random.default_rng(0)
    while game.phase_name != "MAIN":  # setup, at random
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    steps = 0
    while not (e.truncations[e.agent_selection] or e.terminations[e.agent_selection]):
        mask = e.observe(e.agent_selection)["action_mask"]
        marks = [a for a in (11, 12) if mask[a]]
        e.step(5 if mask[5] and game.phase_name == "MAIN" else (marks[0] if marks else int(np.flatnonzero(mask)[0])))
        steps += 1
        assert steps <= 300
    assert game.turns < 2 and e.infos[e.agent_selection]["end_reason"] == "truncated"
    assert all(e.truncations.values())


def test_Q_TM4_partners_get_identical_rewards_in_the_env():
    import fantastiqa_rl

    rng = np.random.default_rng(3)
    for reward in ("win_loss", "score_diff"):
        env = fantastiqa_rl.env(num_players=4, teams=True, abbey=True, reward=reward, max_turns=40)
        env.reset(seed=5)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            totals[agent] += r
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
        assert totals["player_0"] == pytest.approx(totals["player_2"])
        assert totals["player_1"] == pytest.approx(totals["player_3"])


def test_abbey_block_of_the_observation_shows_the_partner_seat_only_with_teams():
    import fantastiqa_rl
    from fantastiqa_rl import FantastiqaState
    from fantastiqa_rl.abbey_view import abbey_features

    layout = fantastiqa_rl.observation_layout()
    s = FantastiqaState.new(4, seed=1, teams=True, abbey=True)
    for seat in range(4):
        assert (fantastiqa_rl.observe(s, seat)[layout["abbey"]] == abbey_features(s, seat)).all()
    base = FantastiqaState.new(2, seed=1)
    assert not fantastiqa_rl.observe(base, 0)[layout["abbey"]].any()


def test_docstring_states_the_true_observation_and_action_sizes():
    import fantastiqa_rl

    doc = fantastiqa_rl.environment.__doc__
    assert f"Box(float32, ({fantastiqa_rl.observation_size()},))" in doc
    assert f"Discrete({fantastiqa_rl.FantastiqaState.num_actions_for()})" in doc


def test_readme_fantastiqa_quickstart_prints_a_winner(capsys):
    """Issue 15: the README's Fantastiqa quickstart (random play, env defaults) ends with a result."""
    import os
    import re
    text = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")).read()
    section = text.split("## Quickstart: Fantastiqa", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md (Fantastiqa quickstart)", "exec"), {})
    out = capsys.readouterr().out.strip().splitlines()[-1]
    assert re.match(r"\[[01]( [01])*\] (goal|creature deck empty|turn_limit) \[", out), out  # winners: 0/1 per seat


def test_rgb_render_labels_are_whole_and_inside_the_image(monkeypatch):
    """Issue 15: the rgb render once cut labels ("I Water Plus Sta", "1xBAT"). Every creature's
    full name and full vulnerability symbol are drawn, and no text runs off the image."""
    from PIL import ImageDraw

    from fantastiqa_rl.board import SYMBOLS
    from fantastiqa_rl.debug import place_creature
    from fantastiqa_rl.render import render_rgb
    drawn = []
    real = ImageDraw.ImageDraw.text

    def spy(self, xy, text, *a, **k):
        drawn.append((xy, text, self.textlength(text)))
        return real(self, xy, text, *a, **k)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", spy)
    s = FantastiqaState.new(4, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(300):
        la = s.legal_actions()
        s.apply(int(la[rng.integers(la.size)]))
    g = s.g
    longest = sorted((nm for k, nm in enumerate(g.K_NAME) if g.K_IS_CREATURE[k]), key=len)[-7:]
    for c, nm in enumerate(longest):
        place_creature(s, c, nm)
    img = render_rgb(s)
    texts = [t for _, t, _ in drawn]
    for c in range(7):
        k = g.I_HAND_KIND[s.board[c]]
        assert g.K_NAME[k] in texts
        assert f"c{c}: needs {g.K_STRENGTH[k]}x {SYMBOLS[g.K_VULN[k]]}" in texts
    for (x, y), t, w in drawn:
        assert 0 <= x and x + w <= img.shape[1] and 0 <= y < img.shape[0], t
