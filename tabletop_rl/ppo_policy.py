"""`SkipPolicy`: sb3-contrib's masked actor-critic MLP plus learned skip terms from the observation to the logits.

    logits = action_net(mlp(obs)) + sum_j skip_coef[j] * obs[:, skip_starts[j] : skip_starts[j] + A]

With Fae's `action_features="margin"` observation (`fae_rl.features`), the skips add each action's
greedy margin and greedy-best flag to its logit, so the policy represents greedy play with two
scalars and the MLP learns corrections on top. `PolicyWeights.from_sb3` exports the skips
(`PolicyWeights.skip`), so `PPOAgent` plays exactly this policy in numpy. Without skips it is the
plain MlpPolicy (Fantastiqa). Imports torch and Stable-Baselines3 (train.py's dependencies).
"""
from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor


class KeepInputExtractor(FlattenExtractor):
    """FlattenExtractor that keeps its last input, for the skip terms (every path of the policy
    that builds an action distribution runs the features extractor first)."""

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        self.last_input = observations
        return super().forward(observations)


class SkipPolicy(MaskableActorCriticPolicy):
    def __init__(self, *args, skip_starts=(), skip_init: float = 0.0, **kwargs):
        self.skip_starts = tuple(int(s) for s in skip_starts)
        self.skip_init = float(skip_init)
        kwargs["features_extractor_class"] = KeepInputExtractor
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        self.skip_coef = torch.nn.Parameter(torch.full((len(self.skip_starts),), self.skip_init))
        super()._build(lr_schedule)  # the optimizer is made here, so it sees skip_coef

    def _skip_logits(self, logits: torch.Tensor) -> torch.Tensor:
        if self.skip_starts:
            obs = self.pi_features_extractor.last_input
            n = logits.shape[-1]
            for j, s in enumerate(self.skip_starts):
                logits = logits + self.skip_coef[j] * obs[..., s:s + n]
        return logits

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor):
        return self.action_dist.proba_distribution(action_logits=self._skip_logits(self.action_net(latent_pi)))

    def action_logits(self, obs: torch.Tensor) -> torch.Tensor:
        """Unmasked logits (behaviour cloning)."""
        features = self.extract_features(obs, self.pi_features_extractor)
        return self._skip_logits(self.action_net(self.mlp_extractor.forward_actor(features)))

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(skip_starts=self.skip_starts, skip_init=self.skip_init)
        return data
