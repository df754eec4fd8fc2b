"""Teacher data for behaviour cloning (the warm start of both training backends).

`teacher_data` plays games where every move is the teacher bot's, or with probability `explore` a
uniformly random legal move (so the data covers states the teacher would not reach), and records
each decision. `core_teacher_data` does the same at the learner's seat of a learner core's games
(a batched teacher: one call for every game), and with `policy` it is DAgger (Ross, Gordon and
Bagnell, 2011): the learner's own policy moves and the teacher only labels, so the data holds the
states the cloned policy reaches, where its mistakes compound. `imitation_loss` is the masked cross-entropy both backends minimise. Numpy only,
except `imitation_loss` (torch, imported on use).

Distilling Fae's search into a policy (`benchmarks/distill_fae_mcts.py`): `SearchTeacher` is Fae's
MCTS (`FAE_DEFAULTS`) that also gives its root visit shares; `fae_search_data` is DAgger with it as
the teacher (a policy plays against opponent bots, every decision it makes labelled by the search's
visit shares, and an MCTS opponent labels its own); `refit_policy` refits a `PolicyWeights` (its
layers and skip scales) to such labels from its current values (torch, imported on use)."""
from __future__ import annotations

import numpy as np

from tabletop_rl.agents.mcts import FAE_DEFAULTS, MCTSAgent


class _Teacher:
    """The teacher as `drive_bots` asks it at every seat: each decision is recorded (observation,
    mask, the teacher's action and distribution), then with probability `explore` a uniformly
    random legal move is played instead."""

    needs_observation = True  # recorded at every decision

    def __init__(self, bot, rng: np.random.Generator, explore: float):
        self.bot, self.rng, self.explore = bot, rng, explore
        self.uses_state = bot.uses_state
        self.soft = hasattr(bot, "action_distribution")
        self.obs, self.masks, self.actions, self.probs = [], [], [], []

    def __repr__(self) -> str:
        return f"teacher {self.bot!r}"

    def act(self, obs, mask, **kw) -> int:
        a = int(self.bot.act(obs, mask, **kw))
        self.obs.append(obs)
        self.masks.append(mask.astype(bool))
        self.actions.append(a)
        if self.soft:
            self.probs.append(self.bot.action_distribution(obs, mask, **kw).astype(np.float16))
        if self.rng.random() < self.explore:
            legal = np.flatnonzero(mask)
            a = int(legal[self.rng.integers(legal.size)])
        return a


class _Labeller(_Teacher):
    """DAgger at one seat: the teacher labels every decision (as `_Teacher` records it), `player`
    makes the move."""

    def __init__(self, teacher, player, rng: np.random.Generator):
        super().__init__(teacher, rng, 0.0)
        self.player = player

    def act(self, obs, mask, **kw) -> int:
        super().act(obs, mask, **kw)
        return int(self.player.act(obs, mask, **kw))


def teacher_data(game: str, num_players: int, teacher: str, samples: int, explore: float, seed: int,
                 options: dict | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(observations, masks, teacher actions, teacher probabilities) at `samples` decisions.

    The probabilities (float32, one row per decision) are the teacher's `action_distribution` when
    it has one (greedy: uniform over its tied best moves), so the tie-break noise is not imitated;
    else None. The actions are the teacher's choices (int64). All draws come from `seed`."""
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.match import drive_bots
    from tabletop_rl.envs import get_game

    spec = get_game(game)
    rule_opts, obs_opts = spec.split_options(dict(options or {}))
    rng = np.random.default_rng(seed)
    rec = _Teacher(make_agent(spec.name, teacher, seed=int(rng.integers(2**63))), rng, explore)

    def enough(_state) -> bool:
        return len(rec.actions) >= samples

    while not enough(None):
        state = spec.new_state(num_players=num_players, seed=int(rng.integers(2**63)), **rule_opts)
        drive_bots(spec, state, [rec] * num_players, until=enough, observation_options=obs_opts)
    return (np.asarray(rec.obs, dtype=np.float32), np.asarray(rec.masks), np.asarray(rec.actions, dtype=np.int64),
            np.asarray(rec.probs, dtype=np.float32) if rec.soft else None)


def core_teacher_data(core, teacher, samples: int, explore: float, policy=None):
    """(observations, masks, teacher actions) at `samples` learner decisions in the games of `core`
    (a `tabletop_rl.training.learner.LearnerCore`, reset already; its opponents play the other seats).

    `teacher(core)` gives the teacher's move in every game (int (N,), e.g. the batch's greedy); the
    move played is, with probability `explore`, a uniformly random legal one, else the teacher's, or
    with `policy` (a function of (observations, masks) -> actions, e.g. a policy's argmax) the
    policy's. Every draw comes from the core's generator."""
    n = core.num_envs
    obs = np.zeros((samples, core.obs_size), dtype=np.float32)  # filled in place: no copies of the largest array
    masks = np.zeros((samples, core.num_actions), dtype=np.bool_)
    actions = np.zeros(samples, dtype=np.int64)
    buf = np.zeros((n, core.obs_size), dtype=np.float32)
    for start in range(0, samples, n):
        rows = slice(start, min(start + n, samples))
        k = rows.stop - start
        o, m = core.learner_obs(buf), core.masks()
        act = np.asarray(teacher(core), dtype=np.int64)
        obs[rows], masks[rows], actions[rows] = o[:k], m[:k], act[:k]
        played = act if policy is None else np.asarray(policy(o, m), dtype=np.int64)
        explored = core.rng.random(n) < explore
        rand = np.argmax(np.where(m, core.rng.random(m.shape), -1.0), axis=1)
        core.step(np.where(explored, rand, played))
    return obs, masks, actions


def fit(logits_of, params, obs, masks, targets, epochs: int, learning_rate: float, seed: int,
        batch: int = 256, on_epoch=None) -> list[float]:
    """Behaviour cloning: Adam on `params` over `epochs` shuffled passes of minibatches, minimising
    `imitation_loss(logits_of(obs[idx]), ...)`. Arrays may be numpy or torch. Returns the mean loss
    of each epoch; `on_epoch(epoch, loss)`, if given, is called after each (a progress bar)."""
    import torch

    obs, masks, targets = (torch.as_tensor(x) for x in (obs, masks, targets))
    opt = torch.optim.Adam(params, lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    n, losses = len(targets), []
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        total = 0.0
        for i in range(0, n, batch):
            idx = order[i:i + batch]
            loss = imitation_loss(logits_of(obs[idx]), masks[idx], targets[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        losses.append(total / n)
        if on_epoch is not None:
            on_epoch(len(losses), losses[-1])
    return losses


def imitation_loss(logits, masks, targets):
    """Mean masked cross-entropy of `logits` (torch, [B, A]) against the teacher: action ids
    (int64 [B]) or action probabilities (float [B, A])."""
    import torch

    logits = logits.masked_fill(~masks, -1e9)
    if targets.dtype == torch.int64:
        return torch.nn.functional.cross_entropy(logits, targets)
    return -(targets * torch.log_softmax(logits, dim=-1)).sum(-1).mean()


class SearchTeacher(MCTSAgent):
    """Fae's MCTS (`FAE_DEFAULTS`, other keyword arguments override them) that also gives a target
    distribution from the search its last `act` ran, which says more than its one move:

    - `target="visits"`: the root visit shares. At the default budget the root's progressive
      widening spreads 300 visits almost evenly over its ~35 children (largest share ~0.09), so
      these say mostly which moves the prior ranked first.
    - `target="values"`: softmax((Q - max Q) / `temperature`) over the root children with at least
      2 visits, Q the mover's mean value (tanh(margin / 10): 0.1 is about one point of margin): the
      search's estimate of each tried move after the opponents' replies.

    A forced move (one legal action, no search) gets all the mass."""

    def __init__(self, seed: int | None = None, target: str = "visits", temperature: float = 0.05, **kwargs):
        if target not in ("visits", "values") or not (isinstance(temperature, (int, float)) and temperature > 0):
            raise ValueError(f"target must be 'visits' or 'values' and temperature > 0; got {target!r}, {temperature!r}")
        super().__init__(seed=seed, **{**FAE_DEFAULTS, **kwargs})
        self.target, self.temperature = target, float(temperature)
        self._root: dict[int, tuple[int, float]] = {}  # action -> (visits, mover's mean value) of the last search

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        self._root = {}
        return super().act(observation, action_mask, state=state, seat=seat)

    def _choose(self, root, seat: int) -> int:
        self._root = {a: (child.n, child.w[seat] / max(child.n, 1)) for a, child in root.children.items()}
        return super()._choose(root, seat)

    def action_distribution(self, observation, action_mask, **_) -> np.ndarray:
        """float64 (A,): the target of the last search (module docstring; its move alone if it did not search)."""
        mask = np.asarray(action_mask).astype(bool)
        out = np.zeros(mask.size)
        tried = {a: q for a, (n, q) in self._root.items() if n >= 2}
        if self.target == "values" and tried:
            top = max(tried.values())
            for a, q in tried.items():
                out[a] = np.exp((q - top) / self.temperature)
        elif self._root:
            for a, (n, _) in self._root.items():
                out[a] = n
        else:
            out[np.flatnonzero(mask)[0]] = 1.0
        return out / out.sum()


def fae_search_data(policy, opponents: list, games: int, seed: int, num_players: int = 2, **search):
    """(observations, masks, search moves, search visit shares) from `games` Fae games of `policy`
    (a `PPOAgent`, the learner) against `opponents` (bot names; game g is played against
    `opponents[g % len(opponents)]` with the learner at seat g % num_players, so the seats rotate).

    Every decision of the learner is labelled by a `SearchTeacher` (keyword arguments `search`
    override `FAE_DEFAULTS`, or choose its `target`) while the learner's own move is played (DAgger: the states the policy
    reaches); an opponent named "mcts" is the teacher itself and labels its own decisions, which
    costs no extra search. Observations are the learner's (its observation options). All draws
    come from `seed`."""
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.match import drive_bots
    from tabletop_rl.envs import get_game

    if isinstance(games, bool) or not isinstance(games, int) or games < 1 or not opponents:
        raise ValueError(f"fae_search_data needs games >= 1 and at least one opponent; got {games!r}, {opponents!r}")
    spec = get_game("fae")
    rng = np.random.default_rng(seed)

    def teacher():
        return SearchTeacher(seed=int(rng.integers(2**63)), **search)

    recorders = []
    for g in range(games):
        name = opponents[g % len(opponents)]
        learner_seat = g % num_players
        policy.reset()
        seats = []
        for s in range(num_players):
            if s == learner_seat:
                seats.append(_Labeller(teacher(), policy, rng))
            elif name == "mcts":
                seats.append(_Teacher(teacher(), rng, 0.0))
            else:
                seats.append(make_agent("fae", name, seed=int(rng.integers(2**63))))
        recorders += [s for s in seats if isinstance(s, _Teacher)]
        state = spec.new_state(num_players=num_players, seed=int(rng.integers(2**63)))
        drive_bots(spec, state, seats, observation_options=policy.observation_options)
    cat = lambda key, dtype: np.asarray([x for r in recorders for x in getattr(r, key)], dtype=dtype)  # noqa: E731
    return cat("obs", np.float32), cat("masks", np.bool_), cat("actions", np.int64), cat("probs", np.float32)


class _CardLabeller:
    """Fantastiqa's search at one seat (`teacher`, e.g. `make_agent("fantastiqa", "mcts")`), recording
    each decision of the seat with more than one legal move as the card-reading policy sees it: the
    card view and the greedy block (`observe_block_game`, its own follower, asked at every decision of
    the seat as `PPOAgent` asks it), the mask padded to NUM_ACTIONS_MAX, the teacher's move, the
    moves it chose among (its `last_candidates` where it searched, else every legal move) and their
    value gains over the greedy move (its `last_gains`; -inf for a move it did not compare, and where
    it did not search 0 on its move). With `player` (a `PPOAgent` over that view) the player's move
    is played and the teacher only labels (DAgger); the teacher is still asked at every decision, so its greedy bot follows the game."""

    needs_observation = False
    uses_state = True

    def __init__(self, teacher, player=None):
        from fantastiqa_rl.card_view import NUM_ACTIONS_MAX
        from tabletop_rl.agents.fantastiqa_batch import observe_block_game

        self._observe, self._width = observe_block_game, NUM_ACTIONS_MAX   # imported once, not per decision
        self.teacher, self.player = teacher, player
        self.follower, self.new_game = None, True
        self.obs, self.masks, self.actions, self.choices, self.gains = [], [], [], [], []

    def __repr__(self) -> str:
        return f"labeller {self.teacher!r}" + ("" if self.player is None else f" for {self.player!r}")

    def act(self, observation, action_mask, *, state=None, seat=None) -> int:
        self.follower, view = self._observe(self.follower, state, seat, self.new_game, "greedy", "cards")
        self.new_game = False
        mask = np.asarray(action_mask).astype(bool)
        a = int(self.teacher.act(None, mask, state=state, seat=seat))
        if mask.sum() > 1:
            self.obs.append(view.astype(np.float16))
            padded = np.concatenate([mask, np.zeros(self._width - mask.size, dtype=bool)])
            self.masks.append(padded)
            self.actions.append(a)
            compared = getattr(self.teacher, "last_candidates", None)
            gains = np.full(self._width, -np.inf, dtype=np.float16)
            if compared is None:
                self.choices.append(padded)
                gains[a] = 0.0
            else:
                choice = np.zeros(self._width, dtype=bool)
                choice[compared] = True
                self.choices.append(choice)
                for move, gain in (getattr(self.teacher, "last_gains", None) or {a: 0.0}).items():
                    gains[move] = gain
            self.gains.append(gains)
        return a if self.player is None else int(self.player.act(view, mask, state=state, seat=seat))


def fantastiqa_search_data(card_set, games: int, seed: int, num_players: int = 2, policy=None,
                           opponent: str = "mcts", teacher: str = "mcts", rule_options: dict | None = None, **search):
    """(observations float16 (n, VIEW_SIZE + NUM_ACTIONS_MAX), masks bool (n, NUM_ACTIONS_MAX), teacher
    moves int64 (n,), choices bool (n, NUM_ACTIONS_MAX), gains float16 (n, NUM_ACTIONS_MAX)): Fantastiqa's
    search as the teacher of the card-reading policy, over `games` games on `card_set` (a card_set value; None: the STAND-IN set).
    `choices` are the moves the teacher compared (the paired search's candidates: the greedy move and
    up to 3 random others; every legal move where it did not search): its move is the best of these,
    so a loss over them alone does not read "not chosen" into a move the search never tried. `gains`
    are those moves' mean value gains over the greedy move on the search's samples (-inf elsewhere;
    where it did not search, 0 on its move): soft targets, softmax(gains / temperature).

    Without `policy` every seat is the teacher (`make_agent("fantastiqa", teacher, **search)`) and
    records its decisions with a choice. With `policy` (a `PPOAgent` over the card view and the greedy
    block) game g seats it at g % num_players, labelled by the teacher (DAgger: the states the policy
    reaches), against `opponent` at the other seats (the teacher's name: the teacher, recording its own).
    `rule_options` are the games' other rule options (e.g. a turn_limit). All draws come from `seed`."""
    from fantastiqa_rl.card_view import NUM_ACTIONS_MAX, VIEW_SIZE
    from tabletop_rl.agents import make_agent
    from tabletop_rl.agents.match import drive_bots
    from tabletop_rl.envs import get_game

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"fantastiqa_search_data needs games >= 1; got {games!r}")
    spec = get_game("fantastiqa")
    rng = np.random.default_rng(seed)

    def search_bot():
        return make_agent("fantastiqa", teacher, seed=int(rng.integers(2**63)), **search)

    recorders = []
    for g in range(games):
        seats = []
        for s in range(num_players):
            if policy is not None and s == g % num_players:
                policy.reset()
                seats.append(_CardLabeller(search_bot(), policy))
            elif policy is None or opponent == teacher:
                seats.append(_CardLabeller(search_bot()))
            else:
                seats.append(make_agent("fantastiqa", opponent, seed=int(rng.integers(2**63))))
        recorders += [s for s in seats if isinstance(s, _CardLabeller)]
        options = dict(rule_options or {}, **({} if card_set in (None, "standin") else {"card_set": card_set}))
        state = spec.new_state(num_players=num_players, seed=int(rng.integers(2**63)), **options)
        drive_bots(spec, state, seats)
    n = sum(len(r.actions) for r in recorders)
    obs = np.zeros((n, VIEW_SIZE + NUM_ACTIONS_MAX), dtype=np.float16)
    masks = np.zeros((n, NUM_ACTIONS_MAX), dtype=np.bool_)
    actions = np.zeros(n, dtype=np.int64)
    choices = np.zeros((n, NUM_ACTIONS_MAX), dtype=np.bool_)
    gains = np.full((n, NUM_ACTIONS_MAX), -np.inf, dtype=np.float16)
    i = 0
    for r in recorders:
        k = len(r.actions)
        if k:
            obs[i:i + k], masks[i:i + k], actions[i:i + k] = np.stack(r.obs), np.stack(r.masks), r.actions
            choices[i:i + k], gains[i:i + k] = np.stack(r.choices), np.stack(r.gains)
        i += k
    return obs, masks, actions, choices, gains


def refit_policy(weights, obs, masks, targets, epochs: int, learning_rate: float, seed: int, batch: int = 512,
                 on_epoch=None):
    """(a new `PolicyWeights`, loss per epoch): `weights` (a `tabletop_rl.agents.ppo_agent.PolicyWeights`)
    refitted by `fit` to `targets` (action ids or action probabilities) from its current values:
    every layer and the skip scales. The first layer keeps reading only the inputs it read (its
    zero rows stay zero: `train.py`'s MLP reads the board, not the per-action blocks the skips add)."""
    import torch

    from tabletop_rl.agents.ppo_agent import PolicyWeights

    act = {"tanh": torch.tanh, "relu": torch.relu}[weights.activation]  # PolicyWeights' activations
    layers = [(torch.nn.Parameter(torch.tensor(w)), torch.nn.Parameter(torch.tensor(b))) for w, b in weights.weights]
    reads = torch.tensor(weights.weights[0][0].any(axis=1), dtype=torch.float32)[:, None]
    coefs = torch.nn.Parameter(torch.tensor([c for _, c in weights.skip], dtype=torch.float32))
    starts, n_actions = [s for s, _ in weights.skip], weights.num_actions

    def logits_of(x):
        h = x = x.float()  # the data may be stored in float16
        for i, (w, b) in enumerate(layers):
            h = h @ (w * reads if i == 0 else w) + b
            if i < len(layers) - 1:
                h = act(h)
        for k, s in enumerate(starts):
            h = h + coefs[k] * x[:, s:s + n_actions]
        return h

    params = [p for layer in layers for p in layer] + ([coefs] if starts else [])
    losses = fit(logits_of, params, obs, masks, targets, epochs, learning_rate, seed, batch=batch, on_epoch=on_epoch)
    with torch.no_grad():
        new = [((w * reads if i == 0 else w).numpy().copy(), b.numpy().copy()) for i, (w, b) in enumerate(layers)]
        skip = list(zip(starts, coefs.tolist()))
    return PolicyWeights(new, weights.activation, dict(weights.meta), skip), losses
