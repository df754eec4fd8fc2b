"""`SkipPolicy`: sb3-contrib's masked actor-critic MLP plus learned skip terms from the observation to the logits.

    logits = action_net(mlp(obs[:, mlp_inputs])) + sum_j skip_coef[j] * obs[:, skip_starts[j] : skip_starts[j] + A]

`mlp_inputs` (default: every input) lets the MLPs (policy and value) read only part of the
observation: train.py leaves out Fae's constant terrain block and the per-action blocks, which
reach the logits through the skips; the first layer, the largest cost of a PPO update, shrinks
accordingly. `PolicyWeights.from_sb3` scatters that layer's rows back to the full observation
(zero rows for the inputs left out), so the numpy policy format does not change.

With Fae's `action_features="margin"` observation (`fae_rl.features`), the skips add each action's
greedy margin and greedy-best flag to its logit, so the policy represents greedy play with two
scalars and the MLP learns corrections on top. `PolicyWeights.from_sb3` exports the skips
(`PolicyWeights.skip`), so `PPOAgent` plays exactly this policy in numpy. Without skips it is the
plain MlpPolicy (Fantastiqa). Imports torch and Stable-Baselines3 (train.py's dependencies).
"""
from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


def masked_log_softmax(logits: torch.Tensor, action_masks):
    """(log-softmax of the masked logits, mask or None); masked logits are -1e8, as in sb3-contrib."""
    mask = None
    if action_masks is not None:
        mask = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
        logits = logits.masked_fill(~mask, -1e8)
    return logits.log_softmax(dim=-1), mask


def choose_actions(log_p: torch.Tensor, deterministic: bool) -> torch.Tensor:
    """The rollout's actions: argmax, or Gumbel-max sampling (the masked Categorical's distribution
    without building one: a fraction of its cost, tests/test_train.py)."""
    if deterministic:
        return log_p.argmax(dim=-1)
    u = torch.rand_like(log_p).clamp_(min=1e-20)
    return (log_p - torch.log(-torch.log(u))).argmax(dim=-1)


def log_prob_and_entropy(log_p: torch.Tensor, mask, actions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO's log-probabilities of `actions` and the entropy over the legal actions, as sb3-contrib computes them."""
    p_log_p = log_p.exp() * log_p
    if mask is not None:
        p_log_p = torch.where(mask, p_log_p, torch.zeros_like(p_log_p))
    return log_p.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1), -p_log_p.sum(dim=-1)


class KeepInputExtractor(BaseFeaturesExtractor):
    """Selects the MLP's inputs (`inputs`; None = all) and keeps its last full input, for the skip
    terms (every path of the policy that builds an action distribution runs it first)."""

    def __init__(self, observation_space, inputs=None):
        size = observation_space.shape[0]
        super().__init__(observation_space, size if inputs is None else len(inputs))
        if inputs is None:
            self.select = None
        else:
            index = torch.as_tensor(list(inputs), dtype=torch.long)
            if index.numel() == 0 or index.min() < 0 or index.max() >= size or index.unique().numel() != index.numel():
                raise ValueError(f"mlp_inputs must be distinct indices in [0, {size}); got {len(inputs)} of them")
            self.register_buffer("select", index, persistent=False)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        self.last_input = observations
        return observations if self.select is None else observations.index_select(1, self.select)


class SkipPolicy(MaskableActorCriticPolicy):
    def __init__(self, *args, skip_starts=(), skip_init: float = 0.0, mlp_inputs=None, skip_lr_scale: float = 1.0,
                 **kwargs):
        self.skip_starts = tuple(int(s) for s in skip_starts)
        # The skip scales are stored divided by this: Adam's steps are about lr in the stored
        # parameter, so the scales themselves move skip_lr_scale times faster than the weights.
        self.skip_lr_scale = float(skip_lr_scale)
        if not self.skip_lr_scale > 0:
            raise ValueError(f"skip_lr_scale must be > 0; got {skip_lr_scale!r}")
        # one initial scale for every skip, or one per skip
        self.skip_init = float(skip_init) if isinstance(skip_init, (int, float)) else tuple(float(x) for x in skip_init)
        self.mlp_inputs = None if mlp_inputs is None else tuple(int(i) for i in mlp_inputs)
        kwargs["features_extractor_class"] = KeepInputExtractor
        kwargs["features_extractor_kwargs"] = {"inputs": self.mlp_inputs}
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        init = self.skip_init if isinstance(self.skip_init, tuple) else (self.skip_init,) * len(self.skip_starts)
        if len(init) != len(self.skip_starts):
            raise ValueError(f"skip_init: {len(init)} values for {len(self.skip_starts)} skips")
        self.skip_param = torch.nn.Parameter(torch.tensor(init, dtype=torch.float32) / self.skip_lr_scale)
        super()._build(lr_schedule)  # the optimizer is made here, so it sees skip_param

    @property
    def skip_coef(self) -> torch.Tensor:
        """The skip scales (one per block)."""
        return self.skip_param * self.skip_lr_scale

    def _skip_logits(self, logits: torch.Tensor) -> torch.Tensor:
        if not self.skip_starts:
            return logits
        n = logits.shape[-1]
        if getattr(self, "_skip_index", None) is None or self._skip_index.numel() != len(self.skip_starts) * n:
            self._skip_index = torch.as_tensor([s + a for s in self.skip_starts for a in range(n)], dtype=torch.long)
        obs = self.pi_features_extractor.last_input
        blocks = obs.index_select(-1, self._skip_index).reshape(*obs.shape[:-1], len(self.skip_starts), n)
        return logits + (self.skip_coef.unsqueeze(-1) * blocks).sum(dim=-2)

    def _masked_log_probs(self, latent_pi: torch.Tensor, action_masks):
        """(log-softmax of the masked logits, mask or None); masked logits are -1e8, as in sb3-contrib."""
        return masked_log_softmax(self._skip_logits(self.action_net(latent_pi)), action_masks)

    def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks=None):
        """The rollout step (actions, values, log-probabilities) without building a torch
        Categorical: masked log-softmax and Gumbel-max sampling draw from the same distribution
        as sb3-contrib's MaskableCategorical, at a fraction of its cost (tests/test_train.py)."""
        if not self.share_features_extractor:
            return super().forward(obs, deterministic, action_masks)
        latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
        log_p, _ = self._masked_log_probs(latent_pi, action_masks)
        actions = choose_actions(log_p, deterministic)
        return actions, self.value_net(latent_vf), log_p.gather(-1, actions.unsqueeze(-1)).squeeze(-1)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks=None):
        """PPO's (values, log-probabilities, entropy), as sb3-contrib computes them, without a Categorical."""
        if not self.share_features_extractor:
            return super().evaluate_actions(obs, actions, action_masks)
        latent_pi, latent_vf = self.mlp_extractor(self.extract_features(obs))
        log_p, mask = self._masked_log_probs(latent_pi, action_masks)
        return (self.value_net(latent_vf), *log_prob_and_entropy(log_p, mask, actions))

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor):
        return self.action_dist.proba_distribution(action_logits=self._skip_logits(self.action_net(latent_pi)))

    def action_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked logits (behaviour cloning)."""
        features = self.extract_features(obs, self.pi_features_extractor)
        return self._skip_logits(self.action_net(self.mlp_extractor.forward_actor(features)))

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(skip_starts=self.skip_starts, skip_init=self.skip_init, mlp_inputs=self.mlp_inputs,
                    skip_lr_scale=self.skip_lr_scale)
        return data
