"""train.py's PPO plumbing: the rollout buffer without copies, and the annealed learning rate."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402
from gymnasium import spaces  # noqa: E402
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer  # noqa: E402

from tabletop_rl.training.rollout_buffer import FlatMaskableRolloutBuffer  # noqa: E402
from tabletop_rl.training.sb3 import AnnealedRate  # noqa: E402

STEPS, ENVS, OBS, ACTIONS = 6, 4, 5, 7


def _filled(cls, rollouts: int = 1):
    """A full buffer of `cls` whose every row says where it came from: obs[0] = step, obs[1] = env.
    With `rollouts` > 1 the earlier rollouts are filled, drawn from and reset first, as PPO does."""
    buf = cls(STEPS, spaces.Box(-1e9, 1e9, (OBS,), np.float32), spaces.Discrete(ACTIONS), "cpu", n_envs=ENVS)
    rng = np.random.default_rng(0)
    for _ in range(rollouts - 1):
        _fill(buf, rng)
        list(buf.get(5))
        buf.reset()
    return _fill(buf, rng)


def _fill(buf, rng):
    for t in range(STEPS):
        obs = rng.normal(size=(ENVS, OBS)).astype(np.float32)
        obs[:, 0], obs[:, 1] = t, np.arange(ENVS)
        masks = rng.random((ENVS, ACTIONS)) < 0.5
        buf.add(obs, rng.integers(0, ACTIONS, (ENVS, 1)), rng.normal(size=ENVS).astype(np.float32),
                np.ones(ENVS, dtype=np.float32), torch.as_tensor(rng.normal(size=ENVS)),
                torch.as_tensor(rng.normal(size=ENVS)), action_masks=masks)
    buf.compute_returns_and_advantage(torch.zeros(ENVS), np.zeros(ENVS, dtype=np.float32))
    return buf


def _rows(samples) -> dict:
    """(step, env) -> every field of that row, from a list of minibatches."""
    out = {}
    for s in samples:
        for i in range(len(s.observations)):
            key = (int(s.observations[i, 0]), int(s.observations[i, 1]))
            assert key not in out, f"row {key} drawn twice in one pass"
            out[key] = (s.observations[i], s.actions[i], s.old_values[i], s.old_log_prob[i], s.advantages[i],
                        s.returns[i], s.action_masks[i])
    return out


@pytest.mark.parametrize("rollouts", [1, 3])
@pytest.mark.parametrize("batch_size", [5, 8, None])
def test_flat_buffer_draws_the_same_rows_as_sb3_contribs_each_once(batch_size, rollouts):
    """The same rows as sb3-contrib's buffer, in the first rollout and in later ones (whose arrays
    are the first one's, refilled)."""
    np.random.seed(1)
    ours = _rows(_filled(FlatMaskableRolloutBuffer, rollouts).get(batch_size))
    np.random.seed(1)
    theirs = _rows(_filled(MaskableRolloutBuffer, rollouts).get(batch_size))
    assert len(ours) == STEPS * ENVS and ours.keys() == theirs.keys()
    for key in ours:
        for a, b in zip(ours[key], theirs[key]):
            assert a.dtype == b.dtype and torch.equal(a, b), key


def test_later_rollouts_reuse_the_arrays_and_start_as_sb3s():
    """reset keeps the arrays (no 190 MB allocation per rollout) and gives them SB3's fresh values, but
    the observations: every add overwrites its row before get may read it (get needs a full buffer;
    the rollouts=3 case above draws only the new rows)."""
    buf = _filled(FlatMaskableRolloutBuffer)
    obs, masks = buf.observations, buf.action_masks
    list(buf.get(5))
    buf.reset()
    assert buf.observations is obs and buf.action_masks is masks and buf.observations.shape == (STEPS, ENVS, OBS)
    fresh = MaskableRolloutBuffer(STEPS, buf.observation_space, buf.action_space, "cpu", n_envs=ENVS)
    for name in ("actions", "rewards", "returns", "episode_starts", "values", "log_probs", "advantages", "action_masks"):
        assert np.array_equal(getattr(buf, name), getattr(fresh, name)), name
    assert (buf.pos, buf.full, buf.generator_ready) == (0, False, False)
    with pytest.raises(AssertionError, match="full"):
        next(buf.get(5))


def test_flat_buffer_minibatch_sizes_and_a_second_pass():
    buf = _filled(FlatMaskableRolloutBuffer)
    sizes = [len(s.observations) for s in buf.get(10)]
    assert sizes == [10, 10, 4]
    assert len(_rows(buf.get(10))) == STEPS * ENVS  # another epoch over the same rollout
    # SB3 still reads the flattened values and returns as numpy (explained variance)
    theirs = _filled(MaskableRolloutBuffer)
    list(theirs.get(10))
    for name in ("values", "returns"):
        assert isinstance(getattr(buf, name), np.ndarray) and getattr(buf, name).shape == getattr(theirs, name).shape


def test_flat_buffer_control_a_dropped_row_is_seen():
    """The row check above can fail: a pass that loses a row does not cover the rollout."""
    rows = _rows(list(_filled(FlatMaskableRolloutBuffer).get(8))[:-1])
    assert len(rows) < STEPS * ENVS


def test_annealed_rate_falls_with_steps_or_time_whichever_ends_first():
    history = {"setup_seconds": 0.0, "wall_seconds": 0.0}
    rate = AnnealedRate(1e-3, 0.0, history)  # no time limit: SB3's progress alone
    assert rate(1.0) == pytest.approx(1e-3) and rate(0.25) == pytest.approx(2.5e-4) and rate(0.0) == 0.0
    timed = AnnealedRate(1e-3, 10.0, history)  # 600 s
    assert timed(1.0) == pytest.approx(1e-3)
    history.update(setup_seconds=60.0, wall_seconds=300.0)  # half of PPO's time used (the warm start counts apart), a quarter of the steps
    assert timed(0.75) == pytest.approx(5e-4)
    assert timed(0.2) == pytest.approx(2e-4)  # the steps end first here
    history.update(wall_seconds=900.0)  # past the limit (the run stops at its next rollout)
    assert timed(0.5) == 0.0


def test_anneal_lr_reaches_the_optimizer_in_a_tiny_run(tmp_path):
    import csv

    import train

    cfg = train.parse_args(["--preset", "tiny", "--anneal-lr", "--learning-rate", "1e-3", "--runs-dir", str(tmp_path),
                            "--run-name", "a", "--final-eval-games", "0", "--eval-every", "0", "--bc-teacher", ""])
    assert cfg.anneal_lr is True
    train.train(cfg)
    with open(tmp_path / "a" / "logs" / "part0" / "progress.csv") as f:
        rates = [float(r["train/learning_rate"]) for r in csv.DictReader(f) if r.get("train/learning_rate")]
    assert len(rates) >= 3 and rates[0] < 1e-3 and all(a > b for a, b in zip(rates, rates[1:])), rates
    assert rates[-1] < 0.5e-3
