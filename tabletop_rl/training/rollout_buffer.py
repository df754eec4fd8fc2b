"""`FlatMaskableRolloutBuffer`: sb3-contrib's rollout buffer without the copies it makes of each rollout.

sb3-contrib's `MaskableRolloutBuffer.get` first copies each array into env-major order
(`swap_and_flatten`: a strided copy of the whole rollout, the observations included) and then
copies every minibatch twice (fancy indexing, then `torch.tensor`). With Fantastiqa's 4,191-float
observations and 8,192-step rollouts those copies were 40% of a PPO update (cProfile of
`train.py --preset fantastiqa`, 2026-12-01). PPO draws its minibatches from a random permutation
of all (step, env) pairs, so the order of the flattened rows does not matter: here the arrays are
viewed as (steps x envs, ...) without a copy, and each minibatch is gathered once, by numpy (`np.take`:
~2x faster than torch's `index_select` on card-view rows), into an array torch shares.

The minibatches hold the same rows as sb3-contrib's (the permutation indexes step-major rows
instead of env-major ones), drawn from the same `numpy.random` permutation: a run is as seeded as
before, with other minibatches (tests/test_rollout_buffer.py checks the rows and their coverage).

The arrays are also kept from one rollout to the next (`reset` refills them instead of allocating
new ones; the observations, which every `add` overwrites before `get` may read them, not even that) and `add` copies each observation once (SB3 copies it twice: `np.array(obs)`, then into
the buffer). A rollout of the card view is 190 MB (512 games x 16 steps x 5,824 floats); freshly
allocated, glibc maps it anew and every page faults on its first write: SB3's `add` was 14% of a
`fantastiqa-cards` learner step (cProfile, 2026-12-03), ~20 ms a call against ~1 ms here.
"""
from __future__ import annotations

from collections.abc import Generator

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples

_FIELDS = ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks")
_KEPT = _FIELDS + ("rewards", "episode_starts")


class FlatMaskableRolloutBuffer(MaskableRolloutBuffer):
    """A `MaskableRolloutBuffer` whose `get` views the rollout step-major, whose arrays live as long as
    it does, and whose `add` copies an observation once (module docstring)."""

    def reset(self) -> None:
        kept = getattr(self, "_kept", None)
        if kept is None:   # the first rollout: SB3's arrays, (steps, envs, ...)
            super().reset()
            self._kept = {name: self.__dict__[name] for name in _KEPT}
            return
        for name, array in kept.items():   # get() left them viewed as (steps x envs, ...): the same memory
            if name != "observations":   # every add writes its row and get() needs a full buffer: 0.4 GB not refilled
                array.fill(1 if name == "action_masks" else 0)   # as SB3's reset makes them
            self.__dict__[name] = array
        self.generator_ready = False
        self.pos, self.full = 0, False

    def add(self, obs, action, reward, episode_start, value, log_prob, action_masks=None) -> None:  # type: ignore[override]
        if isinstance(self.observation_space, spaces.Discrete) or len(log_prob.shape) == 0:
            return super().add(obs, action, reward, episode_start, value, log_prob, action_masks=action_masks)
        if action_masks is not None:
            self.action_masks[self.pos] = action_masks.reshape((self.n_envs, self.mask_dims))
        self.observations[self.pos] = obs   # RolloutBuffer.add's writes, without its np.array copies
        self.actions[self.pos] = np.asarray(action).reshape((self.n_envs, self.action_dim))
        self.rewards[self.pos] = reward
        self.episode_starts[self.pos] = episode_start
        self.values[self.pos] = value.clone().cpu().numpy().flatten()
        self.log_probs[self.pos] = log_prob.clone().cpu().numpy()
        self.pos += 1
        if self.pos == self.buffer_size:
            self.full = True

    def get(self, batch_size: int | None = None) -> Generator[MaskableRolloutBufferSamples, None, None]:  # type: ignore[override]
        assert self.full, "get() before the rollout is full"
        rows = self.buffer_size * self.n_envs
        indices = np.random.permutation(rows)
        if not self.generator_ready:
            for name in _FIELDS:  # views: the arrays are C-contiguous (steps, envs, ...)
                array = np.ascontiguousarray(self.__dict__[name])
                # numpy still (SB3 reads values and returns), shaped as swap_and_flatten shapes them
                self.__dict__[name] = array.reshape(rows, *(array.shape[2:] or (1,)))
            self.generator_ready = True
        if batch_size is None:
            batch_size = rows
        for start in range(0, rows, batch_size):
            yield self._get_samples(indices[start:start + batch_size])

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:  # type: ignore[override]
        # one gather per field, by numpy (faster than torch's index_select: the module docstring)
        take = lambda name: torch.from_numpy(np.take(self.__dict__[name], batch_inds, axis=0))  # noqa: E731
        return MaskableRolloutBufferSamples(
            take("observations"), take("actions"), take("values").flatten(), take("log_probs").flatten(),
            take("advantages").flatten(), take("returns").flatten(), take("action_masks").reshape(-1, self.mask_dims))


__all__ = ["FlatMaskableRolloutBuffer"]
