"""The card-reading Fantastiqa policy: numpy (tabletop_rl.agents.card_policy) and torch (tabletop_rl.card_net)
compute the same logits, rows are read as a set, one policy plays any card file, files and dicts round-trip,
and a card-view training run trains it end to end."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from fantastiqa_rl.card_view import CARD_FEATURES, CARD_ROWS, CARDS_AT, NUM_ACTIONS_MAX, QUESTS_AT, VIEW_SIZE
from tabletop_rl.agents.card_policy import CardPolicyWeights, layer_shapes
from tabletop_rl.agents.ppo_agent import PolicyWeights, PPOAgent
from tabletop_rl.card_net import CardNet, card_weights
from tabletop_rl.training.learner import make_batch


def observations(card_sets="standin;generated:1;generated:8", games=12, steps=60):
    b = make_batch("fantastiqa", games, 2, view="cards", card_sets=card_sets)
    b.reset(np.arange(games))
    rng = np.random.default_rng(0)
    for _ in range(steps):
        m = b.legal_mask()
        b.step(np.array([rng.choice(np.flatnonzero(r)) if r.any() else 0 for r in m]))
        b.reset_done(rng.integers(0, 2**31, games))
    return b.observe().copy(), b.legal_mask().copy()


def random_net(seed=0, **sizes) -> CardNet:
    torch.manual_seed(seed)
    net = CardNet(**sizes)
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.2)
    return net


class _Policy:  # what card_weights reads: a CardPolicy's `.net`
    def __init__(self, net):
        self.net = net


def test_numpy_and_torch_logits_are_equal():
    obs, mask = observations()
    net = random_net()
    with torch.no_grad():
        want, values = net(torch.as_tensor(obs))
    got = card_weights(_Policy(net)).logits(obs)
    assert values.shape == (obs.shape[0], 1)
    assert got.shape == (obs.shape[0], NUM_ACTIONS_MAX)
    np.testing.assert_allclose(got[mask], want.numpy()[mask], rtol=1e-4, atol=1e-4)
    one = card_weights(_Policy(net)).logits(obs[3])
    np.testing.assert_allclose(one[mask[3]], got[3][mask[3]], rtol=1e-5, atol=1e-5)


def test_parameters_do_not_depend_on_the_card_file():
    shapes = layer_shapes(64, 32, 128, 32)
    assert all(VIEW_SIZE not in s and NUM_ACTIONS_MAX not in s for s in shapes)
    assert sum(p.numel() for p in CardNet().parameters()) < 300_000


def test_rows_are_read_as_a_set():
    """Permuting an observation's card rows (each keeps its kind pointer) changes no logit: a card's
    place in the file is only where its actions are, never something the policy reads."""
    obs, mask = observations()
    w = card_weights(_Policy(random_net(1)))
    rng = np.random.default_rng(0)
    shuffled = obs.copy()
    for i in range(obs.shape[0]):
        rows = shuffled[i, CARDS_AT:QUESTS_AT].reshape(CARD_ROWS, CARD_FEATURES)
        rows[:] = rows[rng.permutation(CARD_ROWS)]
    np.testing.assert_allclose(w.logits(shuffled)[mask], w.logits(obs)[mask], rtol=1e-5, atol=1e-5)
    # control: moving a kind pointer moves that row's actions
    moved = obs.copy()
    rows = moved[0, CARDS_AT:QUESTS_AT].reshape(CARD_ROWS, CARD_FEATURES)
    rows[0, 0] = rows[1, 0]
    assert not np.allclose(w.logits(moved)[0][mask[0]], w.logits(obs)[0][mask[0]])


def test_file_and_dict_round_trips(tmp_path):
    w = card_weights(_Policy(random_net(2)), {"game": "fantastiqa", "num_players": 2, "options": {"view": "cards"}})
    path = tmp_path / "cards.npz"
    w.save(path)
    back = PolicyWeights.load(path)
    assert isinstance(back, CardPolicyWeights) and back.meta["architecture"] == "card_sets"
    obs, _ = observations(steps=20)
    assert np.array_equal(back.logits(obs), w.logits(obs))
    again = PolicyWeights.from_dict(json.loads(json.dumps(w.to_dict())))
    assert isinstance(again, CardPolicyWeights) and np.array_equal(again.logits(obs), w.logits(obs))
    bad = w.to_dict()
    bad["weights"][0][0][0][0] = float("nan")
    with pytest.raises(ValueError, match="finite"):
        PolicyWeights.from_dict(bad)
    bad = w.to_dict()
    bad["meta"]["architecture"] = "transformer"
    with pytest.raises(ValueError, match="architecture"):
        PolicyWeights.from_dict(bad)


@pytest.mark.parametrize("card_set", [None, "generated:9"])
def test_one_policy_plays_any_card_file(card_set):
    from tabletop_rl.agents.match import play_game
    from tabletop_rl.agents.registry import make_agent
    from tabletop_rl.envs import get_game

    w = card_weights(_Policy(random_net(3)), {"game": "fantastiqa", "num_players": 2, "options": {"view": "cards"}})
    bot = PPOAgent(weights=w, game="fantastiqa")
    rules = {} if card_set is None else {"card_set": card_set}
    result = play_game(get_game("fantastiqa"), [bot, make_agent("fantastiqa", "random", seed=0)], seed=4,
                       rule_options=dict(rules, turn_limit=12))
    assert result is not None


def test_a_card_policy_refuses_a_game_it_cannot_play():
    from fae_rl import FaeState
    from fae_rl.observation import action_mask, observe

    w = card_weights(_Policy(random_net(4)), {"game": "fantastiqa", "num_players": 2, "options": {"view": "cards"}})
    s = FaeState.new(2, seed=0)
    with pytest.raises(ValueError, match="observations of size"):
        PPOAgent(weights=w, game="fantastiqa").act(observe(s, 0), action_mask(s, 0))


def test_card_view_training_run_end_to_end(tmp_path):
    """train.py with view=cards over two card files: the card-reading policy, saved, loaded, playing."""
    cmd = [sys.executable, "train.py", "--game", "fantastiqa", "--preset", "tiny", "--options",
           "view=cards,card_sets=standin;generated:2", "--net-arch", "16,8,16,8", "--bc-teacher", "",
           "--runs-dir", str(tmp_path), "--run-name", "cards", "--no-progress", "--final-eval-games", "4",
           "--eval-every", "0"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    w = PolicyWeights.load(tmp_path / "cards" / "policy.npz")
    assert isinstance(w, CardPolicyWeights)
    assert w.meta["options"] == {"view": "cards"} and w.meta["card_sets"] == "standin;generated:2"
    # --evaluate keeps the policy's observation and plays the rule options given: a file it never saw
    cmd = [sys.executable, "train.py", "--evaluate", str(tmp_path / "cards" / "policy.npz"), "--options",
           "card_set=generated:3", "--final-eval-games", "2", "--eval-workers", "1"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "options view=cards,card_set=generated:3" in out.stdout and "vs greedy" in out.stdout


def test_the_greedy_block_on_the_card_view():
    """view=cards with action_features=greedy: the batch's block is the scalar follower's (observe_block_game,
    what PPOAgent encodes), 1 on a legal move of the mover; the numpy and torch policies add it alike."""
    from tabletop_rl.agents.fantastiqa_batch import observe_block_game

    b = make_batch("fantastiqa", 4, 2, view="cards", action_features="greedy", card_sets="standin;generated:5")
    assert b.obs_size == VIEW_SIZE + NUM_ACTIONS_MAX and b.observation_options["action_features"] == "greedy"
    b.reset(np.arange(4))
    rng = np.random.default_rng(0)
    followers, new = [None] * 4, [True] * 4
    for _ in range(60):
        mask, obs = b.legal_mask(), b.observe()
        for i in range(4):
            s = b.state(i)
            if s.current_player < 0:
                continue
            followers[i], want = observe_block_game(followers[i], s, s.current_player, new[i], "greedy", "cards")
            new[i] = False
            assert np.array_equal(obs[i], want)
            move = np.flatnonzero(obs[i, VIEW_SIZE:])
            assert move.size == 1 and mask[i, move[0]]
        b.step(np.array([rng.choice(np.flatnonzero(r)) for r in mask]))
    net = random_net(5, greedy_init=3.0)
    with torch.no_grad():
        want, _ = net(torch.as_tensor(obs))
    w = card_weights(_Policy(net))
    assert w.greedy and w.obs_size == VIEW_SIZE + NUM_ACTIONS_MAX
    np.testing.assert_allclose(w.logits(obs)[mask], want.numpy()[mask], rtol=1e-4, atol=1e-4)
    # control: the block moves the logits
    plain = obs.copy()
    plain[:, VIEW_SIZE:] = 0
    assert not np.allclose(w.logits(plain)[mask], w.logits(obs)[mask])


def test_the_default_ppo_plays_any_card_file():
    """make_agent("fantastiqa", "ppo") plays its default on the STAND-IN set and the catalogue's
    any_card_file version (the card-reading policy) on any other file, switching by the game's file."""
    from tabletop_rl.agents.match import play_game
    from tabletop_rl.agents.policy_versions import any_card_file_version, default_version
    from tabletop_rl.agents.registry import make_agent
    from tabletop_rl.envs import get_game

    spec = get_game("fantastiqa")
    bot = make_agent("fantastiqa", "ppo", seed=0)
    assert bot.uses_state and any_card_file_version("fantastiqa") != default_version("fantastiqa")
    for card_set, version in (("generated:12", any_card_file_version("fantastiqa")), (None, default_version("fantastiqa")),
                              ("generated:13", any_card_file_version("fantastiqa"))):
        rules = {"turn_limit": 6} if card_set is None else {"turn_limit": 6, "card_set": card_set}
        play_game(spec, [bot, make_agent("fantastiqa", "random", seed=1)], seed=3, rule_options=rules)
        assert bot.version == version, card_set
    # an explicit version stays what it is: the flat default cannot read another file, and says so
    flat = make_agent("fantastiqa", "ppo", seed=0, version=default_version("fantastiqa"))
    with pytest.raises((ValueError, RuntimeError), match="observations of size|policy"):
        play_game(spec, [flat, make_agent("fantastiqa", "random", seed=1)], seed=3,
                  rule_options={"turn_limit": 6, "card_set": "generated:12"})


def test_greedy_agreement_reads_the_block():
    """evaluate_policy's greedy_agreement: the shipped v2 (the anchor kept greedy's argmax) agrees with
    every greedy move; v1 (PPO without the anchor) does not (control); a policy without the block is
    refused."""
    from tabletop_rl.agents.policy_versions import version_path
    from tabletop_rl.training.evaluation import evaluate_policy

    rows = {}
    for name in ("fantastiqa_2p_cards_v2", "fantastiqa_2p_cards_v1"):
        w = PolicyWeights.load(version_path("fantastiqa", name))
        options = dict(w.meta["options"], card_set="generated:100")
        rows[name] = evaluate_policy(w, "fantastiqa", 2, "greedy", 4, 3, options, max_steps=4000, greedy_agreement=True)
    assert rows["fantastiqa_2p_cards_v2"]["agreement_decisions"] > 100
    assert rows["fantastiqa_2p_cards_v2"]["greedy_agreement"] == 1.0
    assert rows["fantastiqa_2p_cards_v1"]["greedy_agreement"] < 0.99
    w = card_weights(_Policy(random_net(3)), {"game": "fantastiqa", "num_players": 2, "options": {"view": "cards"}})
    with pytest.raises(ValueError, match="action_features=greedy"):
        evaluate_policy(w, "fantastiqa", 2, "greedy", 2, 3, {"view": "cards"}, greedy_agreement=True)


def test_any_card_file_benchmark_plays_each_seed_and_pools_them(capsys):
    """benchmarks/fantastiqa_any_card_file.py: one line per seed (each seed its own deals), then the
    share over all of them; a negative seed is refused before any game."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        import fantastiqa_any_card_file as bench
    finally:
        sys.path.remove(str(root / "benchmarks"))
    policy = str(root / "fantastiqa_rl" / "policies" / "fantastiqa_2p_cards_v3.npz")
    assert bench.main([policy, "--card-sets", "generated:100", "--opponents", "random", "--games", "2",
                       "--seeds", "1", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    per_seed = [line for line in lines if "vs random  seed" in line]
    assert [line.split("seed ")[1].split()[0] for line in per_seed] == ["1", "2"]
    assert any("all 4 games: win share" in line for line in lines)
    with pytest.raises(SystemExit):
        bench.main([policy, "--seeds", "-1"])
    assert "every --seeds value >= 0" in capsys.readouterr().err
    assert bench.main([policy, "--card-sets", "generated:100", "--opponents", "greedy", "--games", "2",
                       "--opponent-epsilon", "0.5"]) == 0
    assert "each opponent move uniform at rate 0.5" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main([policy, "--opponent-epsilon", "1.5"])


def test_turn_profile_counts_each_bots_turns_from_arena_records(tmp_path, capsys):
    """benchmarks/fantastiqa_turn_profile.py: per bot, its turns, the turns it left its turn action unused,
    its turn actions and buys, from replayed arena records; a record of another game is refused by name.
    The control: greedy uses more of its turns than random does."""
    from tabletop_rl.agents.arena import ArenaConfig, run_arena
    from tabletop_rl.agents.records import read_records
    from benchmarks.fantastiqa_turn_profile import COLUMNS, main, profile

    run_arena(ArenaConfig(game="fantastiqa", agents=["greedy", "random"], games=4, workers=1), out=str(tmp_path / "q"),
              plot=False, quiet=True)
    path = tmp_path / "q" / "records.jsonl"
    table = profile(read_records(path))
    assert set(table) == {"greedy", "random"} and all(row["games"] == 4 for row in table.values())
    for row in table.values():
        assert set(row) == {"games", *COLUMNS} and row["turns"] >= row["unused"] >= row["unused_statue_legal"] >= 0
        assert row["buy_decisions"] >= row["affordable"] >= 0 and row["bought"] <= row["buy_decisions"]
    g, r = table["greedy"], table["random"]
    assert g["unused"] / g["turns"] < r["unused"] / r["turns"] and g["bought"] > 0
    main([str(path)])
    assert "greedy" in capsys.readouterr().out
    run_arena(ArenaConfig(game="fae", agents=["random", "random"], games=2, workers=1), out=str(tmp_path / "f"),
              plot=False, quiet=True)
    with pytest.raises(SystemExit, match="'fae' record"):
        profile(read_records(tmp_path / "f" / "records.jsonl"))
    # hostile records: each refused by name before anything is counted
    from tabletop_rl.agents.records import ReplayError

    good = next(iter(read_records(path)))
    with pytest.raises(SystemExit, match="no 'agents' field"):
        profile([{k: v for k, v in good.items() if k != "agents"}])
    for damaged, named in ((dict(good, actions=[10**9]), "actions"), (dict(good, agents=["x"]), "agents"),
                           (dict(good, actions="rm -rf /"), "actions")):
        with pytest.raises(ReplayError, match=named):
            profile([damaged])
