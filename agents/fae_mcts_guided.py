"""`mcts_guided`: Fae's ISMCTS guided by a shipped policy (PUCT over the policy's prior).

    bot = make_agent("fae", "mcts_guided", seed=0)                            # the default policy, 300 iterations
    bot = make_agent("fae", "mcts_guided", iterations=1000, policy="fae_2p_v4")
    python -m tabletop_rl.agents.arena --game fae --agents mcts_guided mcts_batched --games 400

The search is `mcts_batched`'s (`fae_rl.vector_mcts`): each iteration determinizes the root (the
other seats' colours drawn among those the seat does not hold), one tree for all
determinizations, the same rules kernel and the same leaf values. Two things differ:

- **Selection is PUCT with the policy's prior** (AlphaZero's `Q + c_puct * P * sqrt(N) / (1 + n)`,
  max^n: each node's mover maximises its own value; an unvisited child is valued at its parent's
  mean). A node's prior is the policy's masked softmax over its `width` most probable legal moves,
  taken when the node is first reached, from the observation of the node's mover in that
  iteration's determinization: at the root, the seat's own observation, what `ppo` itself plays
  from. PUCT rather than Gumbel root selection: Gumbel's gain is at a handful of simulations
  (2-16); at the ladder's 30-3,000 iterations PUCT is the tested choice, and it needs no value
  for unvisited moves (Gumbel's completed Q wants a value head). The prior replaces
  `mcts_batched`'s progressive widening and ritual ordering.
- **No value head exists**, so the leaf value stays the plain search's (`fae_rl.vector_mcts`):
  tanh(final-score margin / 10) for every seat at the determinized leaf, the win/loss returns at
  the end. The shipped policies are `PolicyWeights` files, the policy head alone (the critic is
  dropped at export: `PolicyWeights.from_sb3`), so there is no learned value to read. Policy
  rollouts to the end would cost ~30 forwards a leaf (~100x the search's other work); the margin
  is what the seat may see in that determinization, and keeping it makes `mcts_guided` against
  `mcts_batched` a measurement of the prior alone.

**Batched**: leaves are evaluated in waves. Each wave descends `wave` times in every searched
tree (numba, trees in parallel; a virtual loss keeps a wave's descents apart), then the policy
runs once over all the wave's new leaves (`PolicyWeights.logits`, the forward `ppo` plays with,
on the observation `FaeBatch` encodes: one implementation of each), then the values are backed
up. The first wave of a search is the root alone. `act_batch` searches many games at once, as
`mcts_batched`'s does.

Settings (`DEFAULTS`): `c_puct=1.0`, `width=32` prior entries a node, `wave=2` descents a tree per
wave. Chosen on 100-game arena runs against `mcts_batched` at 300 iterations (seeds 5 and 6, not the
measurement's seed 0): waves of 8 scored 0.51-0.61, waves of 2 0.59-0.68 (a virtual loss spreads a
wave over moves the prior ranks lower; a wave of 1 0.59 on seed 6), c_puct 1.0 0.61-0.65 against 1.5's 0.51-0.68 and 3.0's
0.575; each within the others' noise (+-0.1), so only the direction is known. A wave of 2 costs
~2x a wave of 8 in Python overhead (~40 against ~18 ms a move at 300 iterations on a loaded core).

Hidden information: the prior and the value read only the determinized state, whose other seats'
colours are drawn by the search (tests/test_fae_mcts_guided.py: changing them never changes the
move; changing the seat's own colour does). Reproducible: same seed, same position, same move.
"""
from __future__ import annotations

import math

import numpy as np

from tabletop_rl.agents.fae_mcts_batched import FaeBatchedMCTS
from tabletop_rl.agents.registry import register_agent

DEFAULTS = dict(iterations=300, c_puct=1.0, width=32, wave=2)


class FaeGuidedMCTS(FaeBatchedMCTS):
    """Fae's ISMCTS with a policy's prior (module docstring); `policy` is a catalogue version name
    (default: the catalogue's default for the table the bot sits at)."""

    name = "mcts_guided"

    def __init__(self, seed: int | None = None, iterations: int = 300, policy: str | None = None,
                 c_puct: float = DEFAULTS["c_puct"], width: int = DEFAULTS["width"], wave: int = DEFAULTS["wave"]):
        super().__init__(seed, iterations)  # iterations checked as mcts_batched's
        if isinstance(c_puct, bool) or not isinstance(c_puct, (int, float, np.integer, np.floating)) \
                or not math.isfinite(c_puct) or c_puct < 0:
            raise ValueError(f"c_puct must be a finite number >= 0; got {c_puct!r}")
        self.c_puct = float(c_puct)
        for name, x, hi in (("width", width, 330), ("wave", wave, 256)):
            if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 1 <= x <= hi:
                raise ValueError(f"{name} must be an int in 1..{hi}; got {x!r}")
        self.width, self.wave = int(width), int(wave)
        self.version = policy
        self._policies: dict = {}  # num_players -> (PolicyWeights, history, action_features)
        if policy is not None:
            self._policy(None)  # an unknown name fails here, not at the first move

    def _policy(self, num_players: int | None):
        """(PolicyWeights, history, action_features) of the version played at a `num_players` table."""
        from tabletop_rl.agents.policy_versions import default_version, version_entry
        from tabletop_rl.agents.ppo_agent import PolicyWeights, default_policy_path

        key = None if self.version is not None else num_players
        if key not in self._policies:
            name = version_entry("fae", self.version if self.version is not None
                                 else default_version("fae", num_players))["name"]
            weights = PolicyWeights.load(default_policy_path("fae", name))
            options = dict(weights.meta.get("options") or {})
            self._policies[key] = (weights, options.get("history", "summary"), options.get("action_features", "none"))
        return self._policies[key]

    def _search(self, vec, games: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        from fae_rl import vector_mcts as vm
        from tabletop_rl.envs.fae_batch import FaeBatch

        games = np.ascontiguousarray(games, dtype=np.int64)
        out = np.full(games.size, -1, dtype=np.int64)
        legal = vec.legal_mask()
        n_legal = legal[games].sum(axis=1)
        forced = n_legal == 1  # one legal move: answered without searching, as mcts_batched does
        out[forced] = np.argmax(legal[games[forced]], axis=1)
        games = games[n_legal > 1]
        seeds = np.ascontiguousarray(np.asarray(seeds, dtype=np.uint64)[n_legal > 1])
        if not games.size:
            return out
        policy, history, features = self._policy(vec.num_players)
        n_trees, wave = games.size, self.wave
        leaf = FaeBatch(n_trees * wave, vec.num_players, vec.big_stack_merge, history=history, action_features=features)
        if leaf.obs_size != policy.obs_size or leaf.num_actions != policy.num_actions:
            raise ValueError(f"policy {self.version or 'default'} takes {policy.obs_size} inputs and "
                             f"{policy.num_actions} actions; Fae observed with {history=}, {features=} has "
                             f"{leaf.obs_size} and {leaf.num_actions}")
        leaf.reset(np.zeros(leaf.num_envs, dtype=np.int64))  # rows are overwritten by the descents
        lb, lw = leaf.engine._b, leaf.engine._w
        tree = vm.guided_tree(n_trees, self.iterations, self.width)
        tr = (tree["visits"], tree["value"], tree["n_child"], tree["child_act"], tree["child_prior"],
              tree["child_id"], tree["count"])
        slots = n_trees * wave
        slot_leaf = np.full(slots, -1, dtype=np.int64)
        slot_vals = np.zeros((slots, 4), dtype=np.float64)
        slot_path = np.zeros((slots, vm.MAX_PATH), dtype=np.int64)
        slot_depth = np.zeros(slots, dtype=np.int64)
        logits = np.zeros((slots, leaf.num_actions), dtype=np.float64)
        rng = seeds.copy()
        done = 0
        while done < self.iterations:
            n = 1 if done == 0 else min(wave, self.iterations - done)
            args = (n, wave, self.c_puct, vec.big_stack_merge, vec.num_players, *tr, lb, lw, slot_leaf, slot_vals,
                    slot_path, slot_depth)
            if n_trees == 1:  # one tree: numba's thread pool would only add its start-up
                vm._guided_descend_game(vec._b, vec._w, games[0], 0, rng, n, 0, *args[2:])
            else:
                vm.guided_descend(vec._b, vec._w, games, rng, *args)
            used = (np.arange(slots) % wave) < n
            need = used & (slot_leaf >= 0)
            legal_leaf = leaf.legal_mask()
            if need.any():
                obs = leaf.observe(np.where(need, leaf.current_player, -1))
                logits[need] = policy.logits(obs[need])
            vm.guided_backup(n, wave, n_trees, logits, legal_leaf, *tr[:5], slot_leaf, slot_vals, slot_path,
                                     slot_depth, vec.num_players)
            slot_leaf[:] = -1
            done += n
        out[n_legal > 1] = [vm.guided_choice(tr[0], tr[2], tr[3], tr[5], t) for t in range(n_trees)]
        return out


register_agent("fae", "mcts_guided", FaeGuidedMCTS)

__all__ = ["DEFAULTS", "FaeGuidedMCTS"]
