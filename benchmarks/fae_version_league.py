"""The shipped Fae policy versions as named bots, for train.py's opponent pool (`--imports`).

    python train.py --preset make-train --init fae_2p_v4 --imports benchmarks.fae_version_league \
        --opponents mcts_batched=0.5,fae_2p_v2=0.25,fae_2p_v3=0.25 --run-name fae_v5

Registers each version name of `fae_rl/policies/versions.json` (`fae_2p_v2`, ...) as a Fae bot:
`make_agent("fae", "ppo", version=NAME)`, which plays a whole batch in one forward (`act_batch`), so
earlier policies can sit in the learner core's pool beside the batched search.
"""
from __future__ import annotations

from tabletop_rl.agents import make_agent, register_agent
from tabletop_rl.agents.policy_versions import version_names

for _v in version_names("fae"):
    register_agent("fae", _v, lambda seed=None, _v=_v, **kw: make_agent("fae", "ppo", seed=seed, version=_v, **kw))
