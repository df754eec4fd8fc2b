"""Tianshou's PettingZooEnv and multi-agent manager over fae_v0 and fantastiqa_v1
(examples/tianshou_selfplay.py)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tianshou")

from tests.example_helpers import load_example  # noqa: E402

example = load_example("tianshou_selfplay")

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("game", ["fae", "fantastiqa"])
def test_manager_plays_legal_moves_and_trains_every_seat(game, monkeypatch):
    before = {}
    original = example.make_algorithm

    def recording(env, **kw):
        algo = original(env, **kw)
        before.update({agent: [p.detach().clone() for p in algo.get_algorithm(agent).parameters()]
                       for agent in env.agents})
        return algo

    monkeypatch.setattr(example, "make_algorithm", recording)
    algorithm, buffer, stats = example.train(game, 2, steps=60, updates=2, batch=16, seed=1)
    batch, _ = buffer.sample(0)
    assert len(batch) == 60
    mask = np.asarray(batch.obs.mask, dtype=bool)
    act = np.asarray(batch.act, dtype=np.int64)
    assert mask[np.arange(len(act)), act].all()  # the seat to move only ever plays a legal action
    seats = set(np.asarray(batch.obs.agent_id).tolist())
    assert seats == {"player_0", "player_1"}
    for agent, params in before.items():
        after = list(algorithm.get_algorithm(agent).parameters())
        assert any((a != b).any() for a, b in zip(params, after)), f"{agent}'s DQN did not change"
