"""`FantastiqaBatch`: Fantastiqa's batched engine (`fantastiqa_rl.vector.FantastiqaVector`) as the learner sees it.

    from tabletop_rl.agents.fantastiqa_batch import FantastiqaBatch
    b = FantastiqaBatch(num_envs=256, num_players=2)     # goal, card_set and every rule option of FantastiqaState.new
    b = FantastiqaBatch(256, action_features="greedy")   # + the greedy block (below)

A `BatchedGame` (tabletop_rl.envs.game_state): a `FantastiqaVector` (its protocol unchanged:
observations bit-equal to `fantastiqa_rl.observe`, masks, steps, returns, states) with the
greedy bot plugged in and Fantastiqa's batched hooks for the learner core (`tabletop_rl.training.learner`):
- `greedy_actions(rng, games)`: the greedy bot's move (`tabletop_rl.agents.fantastiqa_greedy`,
  one bot per game and seat, started afresh with each deal: the decisions of the scalar bot in a
  match), computed only in `games`; the bot breaks no ties at random, so `rng` is not drawn from.
  A decision is asked of its bot once: asked again before the game moves on (the greedy block,
  then the warm start's teacher), the same move comes back (the bot keeps plans between its
  decisions, e.g. why it went to a statue, so asking twice is not the same as asking once);
- `potential(seats, kind)`: `fantastiqa_rl.rewards.POTENTIALS` ("score_diff", the game spec's
  potential, and "progress") of seats[i] in game i, read from that seat's observation: public
  information only.

The observation option `action_features` (`ACTION_FEATURE_OPTIONS`; an option of this batch, not
of the rules package, which may not import bots): "greedy" appends one value per action, 1 on the
move the mover's greedy bot makes and 0 elsewhere; zeros for a seat not to move and a finished
game. The greedy bot reads only what its seat may know (its docstring), so the block shows no
other seat's hand and no deck order (tests/test_fantastiqa_greedy_block.py). The policy adds it to
its logits through a learned scale (`action_blocks`, tabletop_rl.training.sb3), so it starts as
greedy play and learns where to deviate. `PPOAgent` observes a scalar game the same way without the
batched engine (`observe_block_game`: `fantastiqa_rl.observe`, bit-equal to the batch's rows, and one
greedy bot per seat asked once per decision, keeping its plans as the batch's bots do; the batch's
kernel makes the scalar bot's moves): training and play see the same numbers, and a policy file plays
without compiling the engine's kernels.

It lives in `tabletop_rl.agents`, the bots layer (tests/test_import_graph.py), because it plays the
greedy bot: the engine takes the bot class (`greedy=FantastiqaGreedyAgent`), whose numba port
(`fantastiqa_rl.vector_greedy`) still hands the scalar bot the decisions it does not decide, and
`BlockFollower` runs the scalar bot itself. The learner core finds it through `BATCHES`
(`tabletop_rl.training.learner`), `PPOAgent` and `policy_file` import it beside them.
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl.card_view import NUM_ACTIONS_MAX, VIEW_SIZE, card_view, check_view, observe_cards
from fantastiqa_rl.observation import observe
from fantastiqa_rl.rewards import POTENTIALS, potentials
from fantastiqa_rl.vector import FantastiqaVector
from tabletop_rl.agents.fantastiqa_greedy import FantastiqaGreedyAgent

ACTION_FEATURE_OPTIONS = ("none", "greedy")


def check_action_features(kind) -> None:
    if not isinstance(kind, str) or kind not in ACTION_FEATURE_OPTIONS:
        raise ValueError(f"Fantastiqa's action_features must be one of {ACTION_FEATURE_OPTIONS}; got {kind!r}")


class FantastiqaBatch(FantastiqaVector):
    """N Fantastiqa games with the greedy bot, the potentials and the greedy block (module docstring)."""

    POTENTIALS = POTENTIALS
    OPTIONS = ("action_features", "card_sets")  # options of this batch beyond the game spec's (make_batch)

    def __new__(cls, num_envs: int = 1, num_players: int = 2, *args, card_sets: str | None = None, **options):
        """With `card_sets` ("A;B;..."): the games split over several card files (`FantastiqaCardSets`)."""
        if card_sets is not None:
            return FantastiqaCardSets(num_envs, num_players, card_sets=card_sets, **options)
        return super().__new__(cls)

    def __init__(self, num_envs: int, num_players: int = 2, goal: str = "short", card_set: str | None = None,
                 action_features: str = "none", view: str = "flat", card_sets: None = None, **rule_options):
        check_action_features(action_features)
        check_view(view)
        super().__init__(num_envs, num_players, goal=goal, card_set=card_set, greedy=FantastiqaGreedyAgent,
                         **rule_options)
        self.rule_options = dict(goal=goal, card_set=card_set, **rule_options)  # how the core deals a cut game again
        self.action_features = action_features
        self._teams = self.options["teams"] is True  # Q-TM: a side is a team
        self.n_base = self.obs_size
        self._phi_obs = np.zeros((self.num_envs, self.n_base), dtype=np.float32)
        self._base = np.zeros((self.num_envs, self.n_base), dtype=np.float32)
        if action_features == "greedy":
            self.observation_size = self.obs_size = self.n_base + self.num_actions
        # view="cards" (fantastiqa_rl.card_view): the card view of each flat row, and the mask padded to
        # NUM_ACTIONS_MAX ids (ids past this file's table are never legal), so every card file looks alike
        self.obs_view = view  # ("view" is the BatchedGame protocol's state accessor)
        self.engine_actions = self.num_actions
        if view == "cards":   # with the greedy block: the card view, then the block over the padded ids
            card_view(self.card_set)  # a card file beyond the view's maxima: ValueError naming them
            self.n_base = VIEW_SIZE
            self.num_actions = NUM_ACTIONS_MAX
            self.observation_size = self.obs_size = VIEW_SIZE + (NUM_ACTIONS_MAX if action_features == "greedy" else 0)
            self._padded = np.zeros((self.num_envs, NUM_ACTIONS_MAX), dtype=np.bool_)
            self._view_obs = np.zeros((self.num_envs, self.obs_size), dtype=np.float32)
            self._base = np.zeros((self.num_envs, VIEW_SIZE), dtype=np.float32)
        self._asked = np.zeros(self.num_envs, dtype=np.bool_)  # the bot's move at the decision now is known
        self._answer = np.full(self.num_envs, -1, dtype=np.int64)

    @property
    def observation_options(self) -> dict:
        """The observation options it encodes beyond the spec's defaults (PPOAgent compares them)."""
        out = {"view": "cards"} if self.obs_view == "cards" else {}
        return out if self.action_features == "none" else {**out, "action_features": self.action_features}

    @property
    def action_blocks(self) -> dict:
        """name -> (slice of the observation, starts on): the per-action blocks (one value per action)
        that train.py's policy adds to its logits through learned scales, each starting at skip_init
        when `starts on` (tabletop_rl.training.sb3.policy_layout)."""
        if self.action_features == "none":
            return {}
        return {"greedy": (slice(self.n_base, self.n_base + self.num_actions), True)}

    # ------------------------------------------------------------------ a decision is asked once
    def _reset_agents(self, i: int) -> None:
        self._asked[i] = False
        super()._reset_agents(i)

    def legal_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """bool (N, num_actions): the movers' legal actions (view="cards": padded with False past this
        file's table)."""
        if self.obs_view == "flat":
            return super().legal_mask(out)
        out = self._out(out, self._padded)
        out[:, :self.engine_actions] = super().legal_mask()
        out[:, self.engine_actions:] = False
        return out

    def step(self, actions, games=None) -> None:
        if self.obs_view == "cards":  # a padded id past this file's table is illegal: say so as the engine does
            moves = self._int_array(actions, "actions")
            bad = np.flatnonzero(self._chosen(games) & (moves >= self.engine_actions))
            if bad.size:
                raise ValueError(f"game {int(bad[0])}: action {int(moves[bad[0]])} is illegal (this card file's "
                                 f"table has {self.engine_actions} actions)")
        super().step(actions, games=games)  # raises, changing nothing, on an illegal action
        if games is None:
            self._asked[:] = False
        else:
            self._asked[np.asarray(games, dtype=np.bool_)] = False

    def greedy_actions(self, rng: np.random.Generator | None = None, games=None) -> np.ndarray:
        """int64 (N,): the greedy bot's move in each unfinished game of `games` (bool (N,); default
        all), -1 elsewhere. `rng` is the core's generator, unused: the bot's choices are deterministic."""
        want = self._chosen(games)
        new = want & ~self._asked
        if new.any():
            self._answer[new] = super().greedy_actions(games=new)[new]
            self._asked |= new
        return np.where(want, self._answer, -1)

    # ------------------------------------------------------------------ observations and rewards
    def observe(self, seats=None, out: np.ndarray | None = None) -> np.ndarray:
        """float32 (N, obs_size): `fantastiqa_rl.observe(state_i, seats[i])`, then the greedy block
        where seats[i] is game i's mover (module docstring)."""
        if self.obs_view == "cards" and self.action_features == "none":
            return self.observe_cards(seats, out=self._out(out, self._view_obs))
        if self.action_features == "none":
            return super().observe(seats, out=out)
        cur = self.current_player
        seats = cur if seats is None else np.asarray(seats)
        if self.obs_view == "cards":
            base = self.observe_cards(seats, out=self._base)  # checks `seats`
        else:
            base = super().observe(seats, out=self._base)  # checks `seats`
        if out is None:
            out = np.zeros((self.num_envs, self.obs_size), dtype=np.float32)
        elif not isinstance(out, np.ndarray) or out.shape != (self.num_envs, self.obs_size) or out.dtype != np.float32:
            raise ValueError(f"out must be a float32 array of shape ({self.num_envs}, {self.obs_size}); got "
                             f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
        live = seats >= 0
        if live.all():
            out[:, :self.n_base] = base
            out[:, self.n_base:] = 0.0
        else:  # copy only the games asked for (the learner core asks for its snapshots' few)
            out[~live] = 0.0
            g = np.flatnonzero(live)
            out[g, :self.n_base] = base[g]
            out[g, self.n_base:] = 0.0
        block = out[:, self.n_base:]
        movers = (seats == cur) & (cur >= 0)
        if movers.any():
            g = np.flatnonzero(movers)
            block[g, self.greedy_actions(games=movers)[g]] = 1.0
        return out

    def potential(self, seats, kind: str = "score_diff") -> np.ndarray:
        """float64 (N,): potential `kind` (fantastiqa_rl.rewards) of seats[i] in game i, finished games included."""
        if kind not in POTENTIALS:
            raise ValueError(f"Fantastiqa's potentials are {POTENTIALS}; got {kind!r}")
        obs = super().observe(np.asarray(seats), out=self._phi_obs)  # the board only: no bot is asked
        return potentials(obs, kind, self.num_players, self._teams, self.card_set)

    def __repr__(self) -> str:
        return "FantastiqaBatch" + super().__repr__()[len("FantastiqaVector"):]


class BlockFollower:
    """The greedy block of one scalar game, followed decision by decision (`observe_block_game`):
    one greedy bot per seat, started afresh with each new game."""

    def __init__(self, state):
        self.table = _table(state)
        self.bots = [FantastiqaGreedyAgent() for _ in range(state.num_players)]

    def new_game(self) -> None:
        for bot in self.bots:
            bot.reset()


def _table(state) -> tuple:
    return state.num_players, state.goal_name, state.card_set, state.options


def observe_block_game(follower: BlockFollower | None, state, seat: int, new_game: bool, action_features: str,
                       view: str = "flat"):
    """(follower, observation): `seat`'s observation of the scalar game `state` with `action_features`,
    as `FantastiqaBatch` encodes it: `fantastiqa_rl.observe`, then the block of the seat's greedy
    bot, asked once per decision (call it once per position the seat moves in; `new_game`: the
    game is a new one, its bots start afresh). Pass the returned follower back with the game's
    next position."""
    check_action_features(action_features)
    if follower is None or follower.table != _table(state):
        follower, new_game = BlockFollower(state), True
    if new_game:
        follower.new_game()
    base = observe(state, int(seat)) if view == "flat" else observe_cards(state, int(seat))
    if action_features == "none":
        return follower, base
    block = np.zeros(state.num_actions if view == "flat" else NUM_ACTIONS_MAX, dtype=np.float32)
    if not state.is_terminal() and int(seat) == state.current_player:
        block[follower.bots[int(seat)].act(None, None, state=state, seat=int(seat))] = 1.0
    return follower, np.concatenate([base, block])




class FantastiqaCardSets:
    """N Fantastiqa games split over several card files, seen through the card view: what
    `FantastiqaBatch(..., card_sets="A;B;...")` makes (with view="cards"; each entry a card_set value: a path, "standin",
    or "generated:SEED"). The games are split in contiguous blocks, one
    `FantastiqaBatch(view="cards")` per file, whose rows and masks all have
    the card view's fixed sizes, so one policy trains on all of them. A `BatchedGame` with the
    batch's hooks (greedy_actions, potential); `set_state(i, s)` with a state of another card file
    (the learner core dealing a cut game again) deals a new game of game i's file instead."""

    POTENTIALS = POTENTIALS

    def __init__(self, num_envs: int, num_players: int = 2, card_sets: str | None = None, view: str = "flat",
                 card_set=None, **options):
        files = [None if f.strip() == "standin" else f.strip() for f in str(card_sets).split(";")] \
            if isinstance(card_sets, str) else []
        if not files or any(f == "" for f in files):
            raise ValueError(f"card_sets must be card_set values separated by ';' (a path, 'standin', 'generated:SEED'); "
                             f"got {card_sets!r}")
        if view != "cards" or card_set is not None:
            raise ValueError("card_sets trains over several card files: it takes view=cards and no card_set")
        if not 1 <= len(files) <= num_envs:
            raise ValueError(f"card_sets names {len(files)} files for {num_envs} games (at least one game each)")
        bounds = [num_envs * j // len(files) for j in range(len(files) + 1)]
        self.parts = [FantastiqaBatch(bounds[j + 1] - bounds[j], num_players, card_set=f, view="cards", **options)
                      for j, f in enumerate(files)]
        self.starts = np.asarray(bounds[:-1], dtype=np.int64)
        self.num_envs, self.num_players = int(num_envs), int(num_players)
        self.num_actions, self.obs_size = NUM_ACTIONS_MAX, self.parts[0].obs_size
        self.observation_size = self.obs_size
        self.card_sets = card_sets
        self.rule_options = {k: v for k, v in self.parts[0].rule_options.items() if k != "card_set"}
        self.observation_options = {**self.parts[0].observation_options, "card_sets": card_sets}
        self.action_blocks = self.parts[0].action_blocks
        self._mask = np.zeros((self.num_envs, NUM_ACTIONS_MAX), dtype=np.bool_)
        # each file's mask rows, kept until a game of that file moves or is dealt (`_stale`): the learner
        # core asks for the mask at every opponent round, where most files' games are waiting for the learner
        self._masks = np.zeros((self.num_envs, NUM_ACTIONS_MAX), dtype=np.bool_)
        self._stale = np.ones(len(self.parts), dtype=np.bool_)
        self._obs = np.zeros((self.num_envs, self.obs_size), dtype=np.float32)
        self._deal_rng = np.random.default_rng(0)

    def _where(self, i: int) -> tuple:
        """(the file's batch, game i's index in it, the file's index)."""
        j = int(np.searchsorted(self.starts, i, side="right")) - 1
        return self.parts[j], i - int(self.starts[j]), j

    def _split(self, values) -> list:
        a = np.asarray(values)
        return [a[s:s + p.num_envs] for s, p in zip(self.starts, self.parts)]

    def _cat(self, name: str, *args):
        return np.concatenate([getattr(p, name)(*args) if args else getattr(p, name) for p in self.parts])

    def reset(self, seeds) -> None:
        seeds = np.asarray(seeds)
        self._deal_rng = np.random.default_rng(int(seeds.reshape(-1)[0]) if seeds.size else 0)
        self._stale[:] = True
        for p, s in zip(self.parts, self._split(seeds)):
            p.reset(s)

    def reset_done(self, seeds) -> np.ndarray:
        dealt = []
        for j, (p, s, start) in enumerate(zip(self.parts, self._split(seeds), self.starts)):
            was = self._stale[j]
            self._stale[j] = True  # before the call: a part that raises may have dealt some games
            got = p.reset_done(s)
            self._stale[j] = was or got.size > 0
            dealt.append(got + start)
        return np.concatenate(dealt)

    @property
    def current_player(self) -> np.ndarray:
        return self._cat("current_player")

    @property
    def terminated(self) -> np.ndarray:
        return self._cat("terminated")

    def legal_mask(self, out=None) -> np.ndarray:
        out = self._mask if out is None else out
        if not (isinstance(out, np.ndarray) and out.flags.c_contiguous and out.flags.writeable
                and out.dtype == np.bool_ and out.shape == (self.num_envs, self.num_actions)):
            raise ValueError("out must be a writeable C-contiguous bool array of shape "
                             f"({self.num_envs}, {self.num_actions})")
        for j in np.flatnonzero(self._stale):
            s, p = self.starts[j], self.parts[j]
            p.legal_mask(out=self._masks[s:s + p.num_envs])   # a block of rows of a C-contiguous array is one too
            self._stale[j] = False
        np.copyto(out, self._masks)   # the kept rows are never handed out: a caller may write into `out`
        return out

    def observe(self, seats=None, out=None) -> np.ndarray:
        out = self._obs if out is None else out
        seats = self.current_player if seats is None else np.asarray(seats)
        for s, p, ss in zip(self.starts, self.parts, self._split(seats)):
            if (ss < 0).all():  # no game of this file asked for (as p.observe would give: zeros)
                out[s:s + p.num_envs] = 0.0
            else:
                out[s:s + p.num_envs] = p.observe(ss)
        return out

    def step(self, actions, games=None) -> None:
        actions = np.asarray(actions)
        games = np.ones(self.num_envs, dtype=np.bool_) if games is None else np.asarray(games, dtype=np.bool_)
        for j, (p, a, g) in enumerate(zip(self.parts, self._split(actions), self._split(games))):
            if g.any():
                self._stale[j] = True
                p.step(a, games=g)

    def returns(self) -> np.ndarray:
        return np.concatenate([p.returns() for p in self.parts])

    def state(self, i: int):
        p, k, _ = self._where(int(i))
        return p.state(k)

    def set_state(self, i: int, state) -> None:
        p, k, j = self._where(int(i))
        if state.card_set != p.card_set:  # a cut game dealt again with another file's rules: deal one of this file
            from fantastiqa_rl.state import FantastiqaState

            state = FantastiqaState.new(self.num_players, seed=int(self._deal_rng.integers(2**62)),
                                        **{**p.rule_options, "card_set": p.card_set})
        self._stale[j] = True
        p.set_state(k, state)

    def greedy_actions(self, rng=None, games=None) -> np.ndarray:
        games = np.ones(self.num_envs, dtype=np.bool_) if games is None else np.asarray(games, dtype=np.bool_)
        return np.concatenate([p.greedy_actions(rng, g) if g.any() else np.full(p.num_envs, -1, dtype=np.int64)
                               for p, g in zip(self.parts, self._split(games))])  # -1: not asked, as each part gives

    def potential(self, seats, kind: str = "score_diff") -> np.ndarray:
        return np.concatenate([p.potential(s, kind) for p, s in zip(self.parts, self._split(seats))])

    def __repr__(self) -> str:
        return f"FantastiqaCardSets({self.num_envs} games over {len(self.parts)} card files: {self.card_sets})"


__all__ = ["ACTION_FEATURE_OPTIONS", "BlockFollower", "FantastiqaBatch", "FantastiqaCardSets", "check_action_features", "observe_block_game"]
