"""tabletop_rl.agents.ppo_agent.PPOAgent: numpy policy play, and deterministic play that cannot cycle."""
import numpy as np
import pytest

from tabletop_rl.agents.match import play_game
from tabletop_rl.agents.ppo_agent import PolicyWeights, PPOAgent
from tabletop_rl.agents.registry import make_agent


def fixed_policy(obs_size: int, preference: dict, num_actions: int) -> PolicyWeights:
    """Logits independent of the observation: preference[a] (0 for the others)."""
    b = np.zeros(num_actions, np.float32)
    for a, v in preference.items():
        b[a] = v
    return PolicyWeights([(np.zeros((obs_size, num_actions), np.float32), b)], meta={"game": "test"})


def test_argmax_at_a_new_observation_least_tried_at_a_repeated_one():
    agent = PPOAgent(weights=fixed_policy(4, {0: 3.0, 1: 2.0, 2: 1.0}, 5))
    mask = np.array([1, 1, 1, 0, 1], np.int8)
    obs = np.zeros(4, np.float32)
    # At one observation: best first, then each untried action in order of preference, then again.
    assert [agent.act(obs, mask) for _ in range(5)] == [0, 1, 2, 4, 0]
    assert agent.act(obs + 1, mask) == 0, "another observation starts afresh"
    agent.reset()
    assert agent.act(obs, mask) == 0, "a new game starts afresh"
    sampler = PPOAgent(weights=fixed_policy(4, {0: 3.0}, 5), deterministic=False, seed=0)
    picks = {sampler.act(obs, mask) for _ in range(200)}
    assert picks <= {0, 1, 2, 4} and len(picks) > 1


def test_sampled_play_at_a_temperature():
    """softmax(logits / T): T below 1 nearer argmax, above 1 flatter; the batched path (act_batch, the
    learner core's opponents) samples the same distribution; a bad temperature is refused."""
    mask = np.array([1, 1, 0, 0, 1], np.int8)
    obs = np.zeros(4, np.float32)
    share = {}
    for t in (0.25, 1.0, 4.0):
        agent = PPOAgent(weights=fixed_policy(4, {0: 1.0}, 5), deterministic=False, seed=0, temperature=t)
        share[t] = np.mean([agent.act(obs, mask) == 0 for _ in range(3000)])
    want = {t: np.exp(1 / t) / (np.exp(1 / t) + 2) for t in share}   # action 0 against two legal zeros
    for t in share:
        assert abs(share[t] - want[t]) < 0.04, (t, share[t], want[t])
    assert share[0.25] > share[1.0] > share[4.0]

    class Batch:   # a BatchedGame's face, enough for act_batch: 3000 games at the same observation
        num_envs = 3000
        current_player = np.zeros(3000, dtype=np.int64)
        observation_options = {}
        obs_size = 4

        def legal_mask(self):
            return np.tile(mask.astype(bool), (3000, 1))

        def observe(self, seats):
            return np.zeros((3000, 4), np.float32)

    agent = PPOAgent(weights=fixed_policy(4, {0: 1.0}, 5), deterministic=False, temperature=4.0)
    moves = agent.act_batch(Batch(), np.ones(3000, bool), np.random.default_rng(1))
    assert set(moves.tolist()) <= {0, 1, 4} and abs(np.mean(moves == 0) - want[4.0]) < 0.04
    for bad in (0, -1.0, 100.0, True, "2", float("nan")):
        with pytest.raises(ValueError, match="temperature"):
            PPOAgent(weights=fixed_policy(4, {0: 1.0}, 5), temperature=bad)


def test_a_policy_that_loves_cancel_still_plays_fantastiqa_turns(fantastiqa_spec):
    """ADVENTURE then CANCEL returns to the same observation: under the unbounded reading
    (turn_loops="allow") a plain argmax cycles there for ever (the turn never ends); the agent
    moves on, so turns keep passing. Under Q-T2 (the default since issue 25) the rules end the
    cycle themselves: the CANCEL budget is spent after 3 laps."""
    from fantastiqa_rl import actions as A

    probe = fantastiqa_spec.new_state(num_players=2, seed=0)
    weights = fixed_policy(fantastiqa_spec.observe(probe, 0).size,
                           {A.ADVENTURE: 5.0, A.VISIT_STATUE: 4.0, A.FREE_ACTION: 4.5, A.CANCEL: 6.0}, probe.num_actions)

    class PlainArgmax(PPOAgent):
        def act(self, observation, action_mask, **kw):
            return int(np.argmax(np.where(action_mask > 0, self.policy.logits(observation), -np.inf)))

    def turns_after(agent, steps=3000, seed=0, **rules):
        result = play_game(fantastiqa_spec, [agent, make_agent("fantastiqa", "random")], seed=seed,
                           agent_seeds=[seed, seed + 1], max_steps=steps, rule_options=rules)
        state = fantastiqa_spec.new_state(num_players=2, seed=seed, **rules)
        for a in result.actions:
            state.apply(a)
        return state.turns

    assert turns_after(PlainArgmax(weights=weights), turn_loops="allow") <= 2, "the cycle this guards against"
    assert turns_after(PlainArgmax(weights=weights)) >= 20, "Q-T2 ends it"
    for seed in range(3):
        assert turns_after(PPOAgent(weights=weights), seed=seed, turn_loops="allow") >= 20


def test_policy_shape_mismatch_names_the_sizes():
    agent = PPOAgent(weights=fixed_policy(4, {}, 5))
    with pytest.raises(ValueError, match="observations of size 4 and 5 actions; got 3 and 5"):
        agent.act(np.zeros(3, np.float32), np.ones(5, np.int8))


def test_limit_blas_threads_sets_openblas_to_one_thread():
    from threadpoolctl import threadpool_info

    from tabletop_rl.agents.base import limit_blas_threads

    limit_blas_threads()
    openblas = [i for i in threadpool_info() if i["internal_api"] == "openblas"]
    assert openblas and all(i["num_threads"] == 1 for i in openblas)


def test_sparse_first_layer_matches_the_dense_product():
    rng = np.random.default_rng(0)
    w = PolicyWeights([(rng.normal(size=(50, 8)), rng.normal(size=8)), (rng.normal(size=(8, 5)), rng.normal(size=5))],
                      activation="relu")
    x = np.zeros(50, np.float32)
    x[[3, 17, 40]] = [1.0, 0.5, 2.0]                     # sparse: the gathered path
    dense = np.maximum(x @ w.weights[0][0] + w.weights[0][1], 0) @ w.weights[1][0] + w.weights[1][1]
    assert np.allclose(w.logits(x), dense, atol=1e-5)
    assert np.allclose(w.logits(np.stack([x, x]))[1], dense, atol=1e-5)  # batches: dense
    one = PolicyWeights([(rng.normal(size=(50, 5)), rng.normal(size=5))])
    assert np.allclose(one.logits(x), x @ one.weights[0][0] + one.weights[0][1], atol=1e-5)


@pytest.mark.parametrize("history", ["none", "summary"])
def test_act_batch_plays_the_moves_act_plays(history):
    """The learner core moves a ppo opponent with act_batch (one forward for all its games): the same
    moves as act game by game, whether the batch observes as the policy does (history=none) or not
    (history=summary: the agent encodes its own observation per game)."""
    from tabletop_rl.agents.match import bot_action
    from tabletop_rl.envs import get_game
    from tabletop_rl.envs.fae_batch import FaeBatch

    spec, agent = get_game("fae"), make_agent("fae", "ppo", seed=0, deterministic=True)  # argmax: the same moves
    batch = FaeBatch(6, 2, history=history, action_features="versus")
    batch.reset(np.arange(6) + 100)
    assert agent._observes_like(batch) == (history == "none")
    rng = np.random.default_rng(0)
    for _ in range(25):  # into the middle game, with a few games left out of each call
        games = rng.random(6) < 0.7
        got = agent.act_batch(batch, games, rng)
        assert (got[~games] == -1).all()
        for i in np.flatnonzero(games):
            assert got[i] == bot_action(agent, spec, batch.state(int(i)), int(batch.current_player[i]),
                                        agent.observation_options)
        batch.step(np.where(got >= 0, got, np.argmax(batch.legal_mask(), axis=1)))
