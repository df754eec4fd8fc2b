"""benchmarks/distill_fantastiqa_mcts.py: the labels it pools from files (`--data`) are data, checked before use."""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks import distill_fantastiqa_mcts as distill
from fantastiqa_rl.card_view import NUM_ACTIONS_MAX, VIEW_SIZE


def labels(n=3) -> dict:
    masks = np.zeros((n, NUM_ACTIONS_MAX), dtype=bool)
    masks[:, [0, 5]] = True
    gains = np.full((n, NUM_ACTIONS_MAX), -np.inf, dtype=np.float16)
    gains[:, 5] = 0.0
    return {"obs": np.zeros((n, VIEW_SIZE + NUM_ACTIONS_MAX), dtype=np.float16), "masks": masks,
            "actions": np.full(n, 5, dtype=np.int64), "choices": masks.copy(), "gains": gains}


def test_load_data_reads_a_good_file(tmp_path):
    np.savez(tmp_path / "good.npz", **labels())
    data = distill.load_data(str(tmp_path / "good.npz"))
    assert all(np.array_equal(data[k], v) for k, v in labels().items())


@pytest.mark.parametrize("bad,problem", [
    (lambda d: {**d, "obs": np.array([object()] * 3, dtype=object)}, "allow_pickle"),   # a pickled array
    (lambda d: {k: v for k, v in d.items() if k != "gains"}, "expected the arrays"),
    (lambda d: {**d, "extra": np.zeros(1)}, "expected the arrays"),
    (lambda d: {**d, "obs": d["obs"].astype(np.float32)}, "obs must be float16"),
    (lambda d: {**d, "masks": d["masks"][:, :10]}, "masks must be bool"),
    (lambda d: {**d, "actions": np.array([5, 5, 1], dtype=np.int64)}, "not a legal move"),
    (lambda d: {**d, "actions": np.array([5, 5, 10_000], dtype=np.int64)}, "not a legal move"),
    (lambda d: {**d, "choices": np.zeros_like(d["choices"])}, "not a legal move"),
])
def test_load_data_refuses_a_file_it_did_not_write(tmp_path, bad, problem):
    path = tmp_path / "bad.npz"
    np.savez(path, **bad(labels()))
    before = path.read_bytes()
    with pytest.raises(ValueError, match=problem):
        distill.load_data(str(path))
    assert path.read_bytes() == before
