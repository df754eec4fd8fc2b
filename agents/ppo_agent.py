"""A bot that plays a policy trained by `train.py` (MaskablePPO), in plain numpy.

    from tabletop_rl.agents.ppo_agent import PPOAgent
    bot = PPOAgent()                                   # the shipped Fae 2-player policy (its default version)
    bot = PPOAgent(version="fae_2p_v1")                # an earlier shipped version, by its catalogue name
    bot = PPOAgent(num_players=3)                      # the default of the 3-player table (fae_3p_v1)
    bot = PPOAgent(path="runs/<run>/policy.npz")       # a policy file (safe to take from others)
    bot = PPOAgent(path="runs/<run>/model.zip", trust_pickle=True)   # your OWN SB3 model only
    action = bot.act(observation, action_mask)

    python -m tabletop_rl.agents.play fae --agents ppo greedy --games 100      # registered as "ppo"
    python -m tabletop_rl.agents.arena --game fae --agents ppo ppo:version=fae_2p_v1 --games 400

Shipped policies have stable version names (`tabletop_rl.agents.policy_versions`: a JSON catalogue
beside the files, with the command that trained each and its measured figures); `ppo` plays the
game's default version, the strongest measured. A version name is only ever looked up there.
A policy is trained at one table size, so `ppo` without `version=` plays the default of the table it
sits at: `num_players=` where the caller gives it, else the table read from each observation (Fae's
and Fantastiqa's say which seats are at the table; `TABLE_READERS`), switching to that table's
default before it moves; a table without a shipped version raises ValueError naming those with
one. An explicit `version=` (or `path=`, `weights=`) plays that policy at any table.

The agent keeps only the policy head of the actor-critic (the MLP and action layer) as numpy
arrays (`PolicyWeights`), so playing needs neither torch nor Stable-Baselines3, a forward pass
costs tens of microseconds, and a policy file is small.

Policies are exchanged as `.npz` files: `PolicyWeights.load` reads them with
`tabletop_rl.agents.policy_file` (no pickle; every size checked before the data it sizes is read;
every array and the JSON header validated), so a file from someone else can neither run code nor
exhaust memory. An
SB3 `model.zip` is different: SB3 unpickles parts of it (cloudpickle), so loading one can run any
code its author put there. It is loaded only with `trust_pickle=True` (arena: `--trust-pickle`),
with a warning; convert your own model once with `PolicyWeights.from_sb3(...).save("policy.npz")`. `deterministic=True` plays the
most probable legal action; `False` samples from the masked policy with the agent's generator, at
`temperature` (1: the policy's own distribution; above 1 flatter, below 1 nearer argmax). Left unset
(None), both follow the version's catalogue `play` (`policy_versions.play_mode`: a version trained
to be played as a mixed strategy says so there), and a file or weights play the argmax at 1.

Deterministic play never loops: when the same observation comes back within a game (a CANCEL that
returns to a decision, e.g. ADVENTURE then CANCEL in Fantastiqa), the agent takes the legal action
it has tried least often there, the most probable among those. An argmax policy would otherwise
repeat the same cycle for ever. Observations that do not repeat (every Fae game) are unaffected.
"""
from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tabletop_rl.agents.base import Agent
from tabletop_rl.agents.policy_file import (  # noqa: F401  (PolicyFileError and the limits: part of this API)
    ACTIVATIONS, MAX_HEADER_BYTES, MAX_LAYERS, MAX_POLICY_VALUES, PolicyFileError, file_error, read_policy_npz)
from tabletop_rl.agents.policy_versions import (POLICY_FOLDERS, TEMPERATURES, any_card_file_version, default_version,
                                                is_temperature, play_mode, version_entry, version_path)
from tabletop_rl.agents.registry import register_agent



# game -> its default policy file (Fantastiqa's is trained on the STAND-IN cards: it fits no other card
# set); every shipped version: `tabletop_rl.agents.policy_versions`
SHIPPED = {game: version_path(game) for game in POLICY_FOLDERS}


@dataclass
class PolicyWeights:
    """A masked MLP policy: logits = W_k act(... act(W_0 x + b_0) ...) + b_k + sum_j c_j x[s_j : s_j + A].

    The optional skip terms add a slice of the observation, one value per action, straight to the
    logits (`train.py`'s policy over Fae's `action_features="margin"` blocks: the greedy margin
    and best-move flag of each action, so greedy play is one learned scale away).
    """

    weights: list  # [(W (in, out) float32, b (out,) float32), ...], the last one is the action layer
    activation: str = "tanh"
    meta: dict = field(default_factory=dict)  # game, num_players, options, training command, ...
    skip: list = field(default_factory=list)  # [(start s_j, coefficient c_j), ...]: logits += c_j * obs[s_j:s_j + A]

    def __post_init__(self):
        if not isinstance(self.activation, str) or self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}; got {self.activation!r}")
        if not self.weights:
            raise ValueError("a policy needs at least one layer")
        self.weights = [(np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)) for w, b in self.weights]
        for i in range(1, len(self.weights)):
            if self.weights[i][0].shape[0] != self.weights[i - 1][0].shape[1]:
                raise ValueError(f"layer {i} takes {self.weights[i][0].shape[0]} inputs but layer {i - 1} "
                                 f"gives {self.weights[i - 1][0].shape[1]}")
        skip = []
        for item in self.skip:
            start, coef = item
            number = isinstance(coef, (int, float, np.integer, np.floating)) and not isinstance(coef, (bool, np.bool_))
            if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or not 0 <= start \
                    or start + self.num_actions > self.obs_size or not (number and np.isfinite(float(coef))):
                raise ValueError(f"skip term {item!r}: needs an int start with start + {self.num_actions} <= "
                                 f"{self.obs_size} and a finite coefficient")
            skip.append((int(start), float(coef)))
        self.skip = skip

    @property
    def obs_size(self) -> int:
        return self.weights[0][0].shape[0]

    @property
    def num_actions(self) -> int:
        return self.weights[-1][0].shape[1]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked logits for one observation (1-D) or a batch (2-D)."""
        act = ACTIVATIONS[self.activation]
        x = obs = np.asarray(obs, dtype=np.float32)
        layers = self.weights
        extra = 0.0
        for start, coef in self.skip:
            extra = extra + np.float32(coef) * obs[..., start:start + self.num_actions]
        if x.ndim == 1:
            # Observations are mostly zeros (Fantastiqa: ~5% non-zero): the first layer only needs
            # the weight rows of the non-zero inputs. Besides being faster, the small product stays
            # single-threaded; OpenBLAS threads on a large one are ~10x slower on a busy machine.
            nz = np.flatnonzero(x)
            if 2 * nz.size < x.size:
                w, b = layers[0]
                x = x[nz] @ w[nz] + b
                if len(layers) == 1:
                    return x + extra
                x = act(x)
                layers = layers[1:]
        elif x.ndim == 2 and layers is self.weights:
            # A batch: only the first layer's non-zero rows matter (train.py's MLP reads part of
            # the observation and exports zero rows for the rest).
            rows = self._first_layer_rows()
            if rows.size < x.shape[1]:
                w, b = layers[0]
                x = x[:, rows] @ w[rows] + b
                if len(layers) == 1:
                    return x + extra
                x = act(x)
                layers = layers[1:]
        for w, b in layers[:-1]:
            x = act(x @ w + b)
        w, b = layers[-1]
        return x @ w + b + extra

    def _first_layer_rows(self) -> np.ndarray:
        w0 = self.weights[0][0]
        if getattr(self, "_rows_of", None) is not w0:
            self._rows, self._rows_of = np.flatnonzero(w0.any(axis=1)), w0
        return self._rows

    # ------------------------------------------------------------------ files
    def save(self, path, dtype=np.float32) -> None:
        """One .npz: arrays W0, b0, W1, ... (in `dtype`; float16 halves the file) and JSON metadata."""
        arrays = {}
        for i, (w, b) in enumerate(self.weights):
            arrays[f"W{i}"], arrays[f"b{i}"] = w.astype(dtype), b.astype(dtype)
        header = {"activation": self.activation, "layers": len(self.weights), "meta": self.meta,
                  "skip": [[s, c] for s, c in self.skip]}
        tmp = f"{path}.tmp"
        with open(tmp, "wb") as f:
            np.savez_compressed(f, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8), **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path, trust_pickle: bool = False) -> "PolicyWeights":
        """From a `.npz` written by `save` (no pickle: safe for files from others), or a MaskablePPO
        `.zip` only with `trust_pickle=True` (SB3 unpickles it: it can run arbitrary code)."""
        path = Path(path)
        if path.suffix == ".zip":
            if trust_pickle is not True:  # True itself, not any truthy value ("no", 1)
                raise file_error(path, "an SB3 .zip is loaded by unpickling (cloudpickle), which can run "
                                        "arbitrary code; load only your own with trust_pickle=True (arena: "
                                        "--trust-pickle), or exchange policies as .npz (PolicyWeights.save)")
            warnings.warn(f"loading {str(path)!r} with trust_pickle=True: SB3 unpickles it, which runs any "
                          "code the file contains; do this only with files you made", stacklevel=2)
            from sb3_contrib import MaskablePPO

            return cls.from_sb3(MaskablePPO.load(path, device="cpu"))
        return cls._load_npz(path)

    @classmethod
    def _load_npz(cls, path: Path) -> "PolicyWeights":
        header, arrays = read_policy_npz(path)
        weights = []
        for i in range(header["layers"]):
            w, b = arrays[f"W{i}"], arrays[f"b{i}"]
            if b.shape[0] != w.shape[1]:
                raise file_error(path, f"'b{i}' has {b.shape[0]} values for the {w.shape[1]} outputs of 'W{i}'")
            weights.append((w, b))
        try:
            return policy_from_parts(weights, header["activation"], header["meta"], [tuple(s) for s in header["skip"]])
        except ValueError as exc:
            raise file_error(path, str(exc)) from None

    # ------------------------------------------------------------------ JSON (env snapshots, checkpoints)
    def to_dict(self) -> dict:
        """JSON-safe dict (float32 values are exact as JSON numbers); inverse of `from_dict`."""
        return {"activation": self.activation, "meta": self.meta,
                "weights": [[w.tolist(), b.tolist()] for w, b in self.weights],
                "skip": [[s, c] for s, c in self.skip]}

    @classmethod
    def from_dict(cls, d) -> "PolicyWeights":
        """From `to_dict()` output; a malformed dict raises ValueError naming the key."""
        if not isinstance(d, dict) or not {"activation", "meta", "weights"} <= set(d) <= {"activation", "meta", "weights", "skip"}:
            raise ValueError("PolicyWeights.from_dict: needs the keys activation, meta, weights (and optionally skip)")
        skip = d.get("skip", [])
        if not isinstance(skip, list) or not all(isinstance(s, list) and len(s) == 2 for s in skip):
            raise ValueError("PolicyWeights.from_dict: 'skip' must be a list of [start, coefficient] pairs")
        ws = d["weights"]
        if not isinstance(ws, list) or not 1 <= len(ws) <= MAX_LAYERS:
            raise ValueError(f"PolicyWeights.from_dict: 'weights' must be a list of 1..{MAX_LAYERS} layers")
        if not isinstance(d["meta"], dict):
            raise ValueError("PolicyWeights.from_dict: 'meta' must be a dict")
        layers = []
        for i, layer in enumerate(ws):
            if not (isinstance(layer, list) and len(layer) == 2):
                raise ValueError(f"PolicyWeights.from_dict: 'weights[{i}]' must be [W, b]")
            try:
                w, b = np.array(layer[0], dtype=np.float32), np.array(layer[1], dtype=np.float32)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"PolicyWeights.from_dict: 'weights[{i}]' is not numeric ({exc})") from None
            if w.ndim != 2 or b.ndim != 1 or b.shape[0] != w.shape[1] or not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"PolicyWeights.from_dict: 'weights[{i}]' must be a finite (in, out) matrix "
                                 "and an (out,) vector")
            layers.append((w, b))
        return policy_from_parts(layers, d["activation"], dict(d["meta"]), [tuple(s) for s in skip])

    @classmethod
    def from_sb3(cls, model, meta: dict | None = None) -> "PolicyWeights":
        """The policy head of an sb3 (Maskable)PPO MlpPolicy with a flatten feature extractor."""
        import torch

        policy = model.policy
        layers = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
        acts = {type(m).__name__ for m in policy.mlp_extractor.policy_net if not isinstance(m, torch.nn.Linear)}
        activation = {"Tanh": "tanh", "ReLU": "relu"}.get(next(iter(acts), "Tanh"))
        if activation is None or len(acts) > 1:
            raise ValueError(f"unsupported activation(s) {acts} in the policy network")
        layers.append(policy.action_net)
        with torch.no_grad():
            weights = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()) for m in layers]
            skip = list(zip(getattr(policy, "skip_starts", ()), getattr(policy, "skip_coef", torch.zeros(0)).tolist()))
        inputs = getattr(policy, "mlp_inputs", None)
        if inputs is not None:  # the MLP read a subset of the observation: zero rows for the rest
            w0 = np.zeros((int(np.prod(policy.observation_space.shape)), weights[0][0].shape[1]), dtype=np.float32)
            w0[list(inputs)] = weights[0][0]
            weights[0] = (w0, weights[0][1])
        return cls(weights, activation, dict(meta or {}), skip)


def policy_from_parts(layers, activation: str, meta: dict, skip=()):
    """A numpy policy from the file format's parts: `CardPolicyWeights` (tabletop_rl.agents.card_policy)
    where `meta` names the card-sets architecture, else `PolicyWeights`."""
    from tabletop_rl.agents.card_policy import CardPolicyWeights, is_card_policy

    if is_card_policy(meta):
        return CardPolicyWeights(layers, meta, activation, list(skip))
    if isinstance(meta, dict) and "architecture" in meta:
        raise ValueError(f"meta 'architecture' {str(meta['architecture'])[:40]!r} is not one this suite plays "
                         "(card_sets, or none for the MLP)")
    return PolicyWeights(layers, activation, meta, list(skip))


def _fae_table(obs: np.ndarray) -> int | None:
    from fae_rl.obs_layout import observation_layout

    return int(round(float(obs[observation_layout("none")["seat_in_game"]].sum())))  # the block precedes history


def _fantastiqa_table(obs: np.ndarray) -> int | None:
    from fantastiqa_rl.card_view import VIEW_SIZE, table_size
    from fantastiqa_rl.observation import observation_layout

    if obs.shape[-1] == VIEW_SIZE:  # the card view (view="cards")
        return table_size(obs)

    layout = observation_layout()  # the shipped policy's card set: its first blocks, whatever follows
    return int(sum(round(float(obs[layout[f"p{k}_flags"].start])) for k in range(4)))  # "at the table"


#: game -> the table size an observation shows (the seats it marks as at the table)
TABLE_READERS = {"fae": _fae_table, "fantastiqa": _fantastiqa_table}


def default_policy_path(game: str = "fae", version: str | None = None) -> Path:
    """The shipped policy file of `game`: its default version, or `version` (a catalogue name)."""
    return version_path(game, version)


class PPOAgent(Agent):
    """Plays a trained policy from its observation and action mask (needs no rules state)."""

    name = "ppo"

    def __init__(self, seed: int | None = None, path=None, weights: PolicyWeights | None = None,
                 deterministic: bool | None = None, game: str = "fae", trust_pickle: bool = False,
                 version: str | None = None, num_players: int | None = None, temperature: float | None = None):
        super().__init__(seed)
        if deterministic is not None and not isinstance(deterministic, bool):  # never a truthy "no"
            raise ValueError(f"deterministic must be True or False (or None: the version's play); got {deterministic!r}")
        if temperature is not None and not is_temperature(temperature):
            raise ValueError(f"temperature must be a number in {list(TEMPERATURES)}; got {temperature!r}")
        self._play_given = (deterministic, None if temperature is None else float(temperature))
        if version is not None and (path is not None or weights is not None):
            raise ValueError("give a ppo bot one of version=, path= or weights=, not several")
        #: the catalogue name of the shipped policy it plays (None: a file or weights of the caller's)
        self.version = None
        self.game = game
        #: True while it plays its game's default for whatever table it sees (no version=, path=, weights=)
        self.follows_table = weights is None and path is None and version is None and num_players is None
        if weights is None and path is None:
            if version is None and num_players is not None:
                version = default_version(game, num_players)  # a table without one: ValueError naming those with one
            self.version = version_entry(game, version)["name"]  # an unknown name: ValueError listing them
            path = default_policy_path(game, self.version)
        self.policy = weights if weights is not None else PolicyWeights.load(path, trust_pickle=trust_pickle is True)
        self._follow_play()
        # The observation it was trained on (e.g. Fae's history and action_features): the arena and
        # play_game observe for this agent with these options.
        self.observation_options = dict(self.policy.meta.get("options") or {})
        self._tried: dict = {}   # observation digest -> {action: times chosen there} (this game)
        # Fantastiqa's greedy block (action_features="greedy") is an option of its batch, not of the game
        # spec: the agent encodes it as the batch does (observe_block_game: one greedy bot per seat,
        # asked once per decision), which needs the rules state (so it asks for it); afresh each game.
        self._block = None
        if self.policy.meta.get("game") == "fantastiqa" and \
                self.observation_options.get("action_features", "none") != "none":
            from tabletop_rl.agents.fantastiqa_batch import check_action_features

            check_action_features(self.observation_options["action_features"])
            self._block = {"kind": self.observation_options["action_features"], "follower": None, "new_game": True}
            self.uses_state = True
        self._table = version_entry(game, self.version)["players"] if self.follows_table else None
        # Fantastiqa's default reads one card file (the STAND-IN's): on another file it plays the catalogue's
        # any_card_file version (a card-reading policy), so it needs the rules state to see which file it is
        self._home_file = self.version if self.follows_table and any_card_file_version(game) else None
        if self._home_file is not None:
            self.uses_state = True

    def _follow_play(self) -> None:
        """`deterministic` and `temperature`: the caller's where given, else the loaded version's catalogue
        `play` (argmax at 1 for a file or weights)."""
        det, temp = play_mode(self.game, self.version) if self.version is not None else (True, 1.0)
        given_det, given_temp = self._play_given
        #: argmax play (True) or sampled (False)
        self.deterministic = det if given_det is None else given_det
        #: sampled play draws from softmax(logits / temperature) (unused by argmax play)
        self.temperature = temp if given_temp is None else given_temp

    def _follow_card_file(self, card_set) -> None:
        """The default's choice by card file (`_home_file`): its own default on the STAND-IN set, the
        any_card_file version elsewhere; loaded when it changes."""
        from fantastiqa_rl.cards import STANDIN_PATH

        version = self._home_file if card_set in (None, STANDIN_PATH) else any_card_file_version(self.game)
        if version == self.version:
            return
        self.policy = PolicyWeights.load(default_policy_path(self.game, version))
        self.version = version
        self._follow_play()
        self.observation_options = dict(self.policy.meta.get("options") or {})
        self._block = None
        if self.observation_options.get("action_features", "none") != "none":
            self._block = {"kind": self.observation_options["action_features"], "follower": None, "new_game": True}

    def _sit_at(self, players: int | None) -> None:
        """Play the default of a `players` table (`follows_table` only): load it if it is not the one
        loaded; a table without one raises ValueError (and nothing changes)."""
        if players is None or players == self._table:
            return
        version = default_version(self.game, players)
        policy = PolicyWeights.load(default_policy_path(self.game, version))
        options = dict(policy.meta.get("options") or {})
        if options != self.observation_options:  # the caller observes for the options it read at the start
            raise ValueError(f"the {players}-player default {version} observes with options {options}, not "
                             f"{self.observation_options}: make this bot with num_players={players}")
        self.policy, self.version, self._table = policy, version, players
        self._follow_play()

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._tried = {}
        if self._block is not None:
            self._block["new_game"] = True

    def _own_observation(self, state, seat: int) -> np.ndarray:
        """`seat`'s observation with the options the policy was trained on (given the rules state)."""
        from tabletop_rl.envs import get_game

        if self._block is not None:  # the batch's encoding (see __init__)
            from tabletop_rl.agents.fantastiqa_batch import observe_block_game

            b = self._block
            b["follower"], obs = observe_block_game(b["follower"], state, seat, b["new_game"], b["kind"],
                                                    self.observation_options.get("view", "flat"))
            b["new_game"] = False
            return obs
        spec = get_game(self.policy.meta.get("game", "fae"))
        opts = {k: v for k, v in self.observation_options.items() if k in spec.observation_options}
        return np.asarray(spec.observe(state, seat, **opts), dtype=np.float32)

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        obs = observation["observation"] if isinstance(observation, dict) else observation
        obs = np.asarray(obs, dtype=np.float32)
        mask = np.asarray(action_mask).astype(bool)
        if self._home_file is not None and state is not None:
            self._follow_card_file(getattr(state, "card_set", None))
        if self.follows_table:
            read = TABLE_READERS.get(self.game)
            self._sit_at(state.num_players if state is not None else
                         read(obs) if read is not None and obs.shape[-1] == self.policy.obs_size else None)
        if obs.shape[-1] != self.policy.obs_size and state is not None and seat is not None:
            obs = self._own_observation(state, seat)  # observed with other options: encode its own
        if mask.size < self.policy.num_actions and self.policy.meta.get("architecture") == "card_sets":
            mask = np.concatenate([mask, np.zeros(self.policy.num_actions - mask.size, dtype=bool)])  # any card file's table
        if obs.shape[-1] != self.policy.obs_size or mask.size != self.policy.num_actions:
            raise ValueError(
                f"this policy takes observations of size {self.policy.obs_size} and {self.policy.num_actions} "
                f"actions; got {obs.shape[-1]} and {mask.size} (trained on {self.policy.meta.get('game')} with "
                f"options {self.policy.meta.get('options')})")
        if not mask.any():
            raise ValueError(f"{type(self).__name__}.act: the action mask has no legal action")
        return self.choose(obs, np.where(mask, self.policy.logits(obs).astype(np.float64), -np.inf))

    def act_batch(self, batch, games, rng: np.random.Generator) -> np.ndarray:
        """int64 (N,): its move in each game of `games` (bool (N,)) of a `BatchedGame`, one policy
        forward for all of them (the learner core moves a batched opponent this way). Observed by
        the batch where the batch observes with this policy's options, else game by game with its
        own. Argmax without the cycle breaking of `act` (which needs a game's history): the same
        moves wherever no observation repeats within a game (every Fae game); sampled with `rng`
        when not deterministic."""
        games = np.asarray(games, dtype=np.bool_)
        g = np.flatnonzero(games)
        if self._home_file is not None and hasattr(batch, "card_set"):
            self._follow_card_file(batch.card_set)
        if self.follows_table:
            self._sit_at(getattr(batch, "num_players", None))
        actions = np.full(batch.num_envs, -1, dtype=np.int64)
        if not g.size:
            return actions
        cur = np.asarray(batch.current_player)
        mask = batch.legal_mask()[g]
        if mask.shape[1] < self.policy.num_actions and self.policy.meta.get("architecture") == "card_sets":
            mask = np.pad(mask, ((0, 0), (0, self.policy.num_actions - mask.shape[1])))  # any card file's table
        if self._observes_like(batch):
            obs = batch.observe(np.where(games, cur, -1))[g]
        elif self._block is not None:  # its greedy bots follow one game; these are many
            raise ValueError(f"this policy observes with {self.observation_options} (the batched engine's greedy "
                             "block): play it in a batch built with those options")
        else:
            view = getattr(batch, "view", batch.state)
            obs = np.stack([self._own_observation(view(int(i)), int(cur[i])) for i in g])
        logits = np.where(mask, self.policy.logits(obs).astype(np.float64), -np.inf)
        if not self.deterministic:
            logits = logits / self.temperature + rng.gumbel(size=logits.shape)
        actions[g] = np.argmax(logits, axis=1)
        return actions

    def _observes_like(self, batch) -> bool:
        """Whether `batch.observe` encodes with this policy's observation options (ScalarBatch names
        them; FaeBatch holds history and action_features)."""
        theirs = getattr(batch, "observation_options", None)
        if theirs is None and hasattr(batch, "history") and hasattr(batch, "action_features"):  # FaeBatch
            theirs = {"history": batch.history, "action_features": batch.action_features}
        return theirs is not None and dict(theirs) == self.observation_options \
            and getattr(batch, "obs_size", None) == self.policy.obs_size

    def choose(self, obs: np.ndarray, logits: np.ndarray) -> int:
        """The move from this game's masked logits (float64, -inf where illegal) at observation
        `obs`: sampled, or the argmax with the cycle breaking (a repeated observation plays its
        least-tried action first). `act` uses it; a batched evaluation calls it with logits from one
        forward over many games (`tabletop_rl.training.evaluate_policy`)."""
        if not self.deterministic:
            p = np.exp((logits - logits.max()) / self.temperature)
            p /= p.sum()
            return int(self.rng.choice(p.size, p=p))
        tried = self._tried.setdefault(hash(obs.tobytes()), {})
        if tried:  # a repeated observation: least-tried first, so no cycle repeats for ever
            penalty = np.zeros(logits.size)
            for a, times in tried.items():
                penalty[a] = times
            logits = logits - 1e9 * penalty
        action = int(np.argmax(logits))
        tried[action] = tried.get(action, 0) + 1
        return action


def _any_game(seed=None, path=None, **kwargs) -> PPOAgent:
    if path is None and kwargs.get("weights") is None:
        raise ValueError("the ppo bot of this game needs path=... (a train.py policy.npz; a model.zip "
                         "needs trust_pickle=True); "
                         f"policies are shipped for {sorted(SHIPPED)} only")
    return PPOAgent(seed=seed, path=path, **kwargs)


register_agent("fae", "ppo", lambda seed=None, **kw: PPOAgent(seed=seed, **{"game": "fae", **kw}))
register_agent("fantastiqa", "ppo", lambda seed=None, **kw: PPOAgent(seed=seed, **{"game": "fantastiqa", **kw}))
register_agent("*", "ppo", _any_game)  # other games: make_agent(game, "ppo", path=...)
