"""A bot that plays a policy trained with the RLlib backend (`tabletop_rl.training.rllib`).

    from tabletop_rl.agents.rllib_agent import RLlibAgent
    bot = RLlibAgent(path="runs/rllib/fae_2p_seed0/policy.npz")      # numpy only
    bot = RLlibAgent(path="runs/rllib/fae_2p_seed0/checkpoint", trust_pickle=True)  # your OWN RLlib checkpoint
    action = bot.act(observation, action_mask)

    python -m tabletop_rl.agents.arena --game fae --players 2 --import tabletop_rl.agents.rllib_agent \\
        --agents rllib:path=runs/rllib/fae_2p_seed0/policy.npz greedy --games 200

Registered as "rllib" for every game when this module is imported (`--import tabletop_rl.agents.rllib_agent`
in the arena). Two sources:
- `policy.npz` (what the backend exports): the actor MLP and action head as numpy arrays, in the
  file format of `tabletop_rl.agents.ppo_agent.PolicyWeights` (arrays W0, b0, ... and a JSON header), so
  playing needs neither Ray nor torch and works in the main environment.
- an RLlib checkpoint directory (`<run-dir>/checkpoint`, the Algorithm's, or a module's own):
  the `main` RLModule is loaded with Ray/torch, imported only then, and exported to numpy. RLlib
  unpickles parts of a checkpoint, which can run any code in it, so this needs
  `trust_pickle=True` (arena: `--trust-pickle`): only for checkpoints you made. Exchange
  policies as `policy.npz` (validated, never unpickled).

`export_policy(module)` turns an RLlib module into that numpy policy (the backend calls it after
training; it lives here so that the bot never imports the trainer).

`deterministic=True` (default) plays the most probable legal action; `False` samples from the
masked policy with the agent's seeded generator.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from tabletop_rl.agents.ppo_agent import PolicyFileError, PolicyWeights, PPOAgent
from tabletop_rl.agents.registry import register_agent


class MLPPolicy(PolicyWeights):
    """The numpy policy both trainers export (same `.npz` format as `PolicyWeights`), with the
    error messages of the RLlib backend when a file is missing or not a policy."""

    @classmethod
    def load(cls, path, trust_pickle: bool = False) -> "MLPPolicy":
        """A validated `.npz` policy file (`PolicyWeights.load`: no pickle)."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no policy file {path} (train with `python -m tabletop_rl.training.rllib`, which "
                                    f"writes <run-dir>/policy.npz)")
        return super().load(path, trust_pickle=trust_pickle)


def load_checkpoint_policy(path, module_id: str = "main", trust_pickle: bool = False) -> MLPPolicy:
    """The policy of an RLlib checkpoint: an Algorithm checkpoint (`<run-dir>/checkpoint`) or an
    RLModule's own. Needs ray[rllib] and torch (imported here). RLlib unpickles checkpoint files,
    which can run any code in them: only with `trust_pickle=True`, for checkpoints you made."""
    if trust_pickle is not True:
        raise PolicyFileError(f"policy file {str(path)!r}: an RLlib checkpoint is loaded by unpickling, which can run "
                              "arbitrary code; load only your own with trust_pickle=True (arena: --trust-pickle), or "
                              "exchange policies as policy.npz")
    import warnings

    warnings.warn(f"loading RLlib checkpoint {str(path)!r} with trust_pickle=True: RLlib unpickles it, which runs "
                  "any code the files contain; do this only with checkpoints you made", stacklevel=2)
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError as exc:
        raise ImportError(f"loading an RLlib checkpoint needs ray[rllib] and torch ({exc}); export a policy.npz "
                          f"with the backend or use .venv-rllib (`make venv-rllib`)") from exc
    path = Path(path).resolve()
    # An Algorithm checkpoint, a MultiRLModule's (holding module_id/), or the module's own.
    candidates = [path / "learner_group" / "learner" / "rl_module" / module_id, path / module_id]
    if not (path / "learner_group").exists() and not (path / module_id).exists() and path.name == module_id:
        candidates.append(path)
    for c in candidates:
        if (c / "module_state.pkl").exists() or (c / "module_state.pt").exists():
            return export_policy(RLModule.from_checkpoint(str(c)), {"checkpoint": str(path)})
    raise FileNotFoundError(f"no RLModule {module_id!r} in checkpoint {path} (looked in {[str(c) for c in candidates]})")


def export_policy(module, meta: dict | None = None, check: bool = True):
    """numpy `PolicyWeights`-format layers of an action-masking PPO module's policy (actor MLP
    plus action head). With `check`, compares numpy logits with the module's own on random
    observations and raises if they differ (e.g. an architecture this exporter does not know)."""
    import torch

    def linear_and_acts(net):
        layers, acts = [], set()
        for m in net.modules():
            if isinstance(m, torch.nn.Linear):
                layers.append(m)
            elif isinstance(m, (torch.nn.Tanh, torch.nn.ReLU)):
                acts.add(type(m).__name__)
        return layers, acts

    enc = getattr(module.encoder, "actor_encoder", module.encoder)
    enc_layers, acts = linear_and_acts(enc)
    head_layers, head_acts = linear_and_acts(module.pi)
    acts |= head_acts
    if len(acts) > 1:
        raise ValueError(f"cannot export a policy mixing activations {sorted(acts)}")
    activation = {"Tanh": "tanh", "ReLU": "relu"}[acts.pop()] if acts else "tanh"
    with torch.no_grad():
        weights = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
                   for m in enc_layers + head_layers]
    policy = MLPPolicy(weights, activation, dict(meta or {}))
    if check:
        space = module.observation_space
        obs_space = space["observations"] if hasattr(space, "spaces") else space
        rng = np.random.default_rng(0)
        high = np.minimum(np.asarray(obs_space.high, np.float32), 1.0)
        x = (rng.random((8, policy.obs_size), dtype=np.float32) * high).astype(np.float32)
        with torch.no_grad():  # the module's unmasked logits: encoder (actor part) then pi head
            emb = module.encoder({"obs": torch.from_numpy(x)})
            from ray.rllib.core.models.base import ACTOR, ENCODER_OUT

            feats = emb[ENCODER_OUT][ACTOR] if isinstance(emb[ENCODER_OUT], dict) else emb[ENCODER_OUT]
            ref = module.pi(feats).cpu().numpy()
        got = policy.logits(x)
        if ref.shape != got.shape or not np.allclose(ref, got, atol=1e-4, rtol=1e-4):
            raise ValueError(f"exported policy does not reproduce the module's logits (max diff "
                             f"{np.abs(ref - got).max() if ref.shape == got.shape else ref.shape})")
    return policy


class RLlibAgent(PPOAgent):
    """Plays an RLlib-trained policy from its observation and action mask (no rules state); it
    acts as `PPOAgent` does (argmax without repeated cycles, or sampling)."""

    name = "rllib"

    def __init__(self, seed: int | None = None, path=None, policy: MLPPolicy | None = None,
                 deterministic: bool = True, module_id: str = "main", trust_pickle: bool = False):
        if policy is None:
            if path is None:
                raise ValueError("RLlibAgent needs path=<run-dir>/policy.npz (or an RLlib checkpoint directory) "
                                 "or policy=MLPPolicy")
            path = Path(path)
            policy = (load_checkpoint_policy(path, module_id, trust_pickle=trust_pickle) if path.is_dir()
                      else MLPPolicy.load(path, trust_pickle=trust_pickle))
        super().__init__(seed, weights=policy, deterministic=deterministic)


register_agent("*", "rllib", RLlibAgent)
