"""Checks shared by the batched engines' tests (fae_rl.vector.FaeVector, fantastiqa_rl.vector.FantastiqaVector):
both have the same pinned API, so they are held to it by the same code."""
from __future__ import annotations

import numpy as np


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (-1 where no action is legal: ignored by step)."""
    out = np.full(mask.shape[0], -1, dtype=np.int64)
    for i in np.flatnonzero(mask.any(axis=1)):
        legal = np.flatnonzero(mask[i])
        out[i] = legal[rng.integers(legal.size)]
    return out


def assert_finished_games_ignored(v, rng: np.random.Generator) -> np.ndarray:
    """In a batch with some games over: their masks and observations are zero, their seat is -1, and an
    out-of-range action for them changes nothing while the others step. Returns the finished games."""
    done = v.terminated
    before = [v.state(i).to_dict() for i in np.flatnonzero(done)]
    mask = v.legal_mask()
    assert not mask[done].any() and (v.current_player[done] == -1).all()
    assert not v.observe()[done].any()
    actions = random_actions(mask, rng)
    actions[done] = 999  # out of range: ignored for finished games
    v.step(actions)
    assert [v.state(i).to_dict() for i in np.flatnonzero(done)] == before
    return done


def learner_trace(core, steps: int, seed: int = 0, until_finished: bool = False) -> list:
    """(obs, masks, rewards, dones, finished) per step of a learner core under uniformly random learner
    moves (`until_finished`: stop after the first step that finishes a game)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        o, m = core.learner_obs().copy(), core.masks()
        r, d, fin = core.step(random_actions(m, rng))
        out.append((o, m, r, d, [(f["index"], f["r"], f["l"], f["win_share"], f["opponent"], f["cut"]) for f in fin]))
        if until_finished and fin:
            break
    return out


def assert_same_trace(a: list, b: list) -> None:
    """Two `learner_trace`s are equal, step by step."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x[:4], y[:4]):
            assert np.array_equal(u, v)
        assert x[4] == y[4]
