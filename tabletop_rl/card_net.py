"""`CardPolicy`: the card-reading Fantastiqa policy for sb3-contrib's MaskablePPO (torch).

    model = MaskablePPO(CardPolicy, venv, policy_kwargs=dict(card_hidden=64, quest_hidden=32, hidden=128, entity=32))
    weights = card_weights(model, meta)       # the numpy CardPolicyWeights that PPOAgent plays

The policy head is `tabletop_rl.agents.card_policy`'s (its docstring gives the formulas; the numpy
and torch logits are equal, tests/test_card_policy.py): shared encoders over the card and quest rows
of the card view (`fantastiqa_rl.card_view`), a pooled context, one score per action from the row it
names. The value head reads the same pooled input through its own two tanh layers. No parameter
depends on the number of card or quest kinds, so one policy trains on and plays any card file
within the view's maxima. Rollouts use the same Gumbel-max sampling and masked log-softmax as
`SkipPolicy` (tabletop_rl.ppo_policy).

The anchor (`anchor_coef`, over the greedy block only): PPO's loss gains `anchor_coef` times the mean
cross-entropy of the policy to the greedy bot's move (the block's 1), so the updates keep the policy
near greedy play except where the advantages pull it away consistently (a KL to a reference policy,
as a KL to the supervised policy in AlphaStar or to the initial model in RLHF; here the reference is
the bot the warm start cloned). It enters through `with_added_loss` on the values, so sb3-contrib's
`MaskablePPO.train` is used as it is.
"""
from __future__ import annotations

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from fantastiqa_rl.card_view import (CARD_FEATURES, CARD_ROWS, CARDS_AT, GLOBAL_SIZE, MAX_CARD_KINDS,
                                     MAX_QUEST_KINDS, NUM_ACTIONS_MAX, QUEST_FEATURES, QUEST_ROWS, QUESTS_AT, TABLE_AT,
                                     VIEW_SIZE)
from tabletop_rl.agents.card_policy import (CARD_POOL, NUM_ABBEY, NUM_FIXED, QUEST_POOL, CardPolicyWeights,
                                            layer_shapes)
from tabletop_rl.ppo_policy import choose_actions, log_prob_and_entropy, masked_log_softmax


class CardNet(nn.Module):
    """The policy head (LAYER_NAMES' layers, in order) and a value head."""

    def __init__(self, card_hidden: int = 64, quest_hidden: int = 32, hidden: int = 128, entity: int = 32,
                 greedy_init: float | None = None):
        super().__init__()
        self.sizes = dict(card_hidden=card_hidden, quest_hidden=quest_hidden, hidden=hidden, entity=entity)
        shapes = layer_shapes(card_hidden, quest_hidden, hidden, entity) + ([(1, 1)] if greedy_init is not None else [])
        self.layers = nn.ModuleList(nn.Linear(i, o) for i, o in shapes)
        self.greedy = greedy_init is not None   # the observation ends with the greedy block (module docstring)
        self.value1 = nn.Linear(GLOBAL_SIZE + card_hidden + quest_hidden, hidden)
        self.value2 = nn.Linear(hidden, hidden)
        self.value_out = nn.Linear(hidden, 1)
        with torch.no_grad():   # near-uniform logits at the start, as SB3 scales its action layer by 0.01
            for i in (4, 6, 8):
                self.layers[i].weight.mul_(0.01)
                self.layers[i].bias.zero_()
            if self.greedy:
                self.layers[-1].weight.fill_(float(greedy_init))
                self.layers[-1].bias.zero_()
        self.register_buffer("abbey", torch.arange(NUM_ABBEY), persistent=False)

    @staticmethod
    def _filled_rows(rows: torch.Tensor):
        """The view's filled rows come first (fantastiqa_rl.card_view): (rows up to the batch's most filled,
        kind pointers (B, M) int64, present (B, M) bool)."""
        m = max(1, int((rows[:, :, 1] != 0).sum(dim=1).max()))
        rows = rows[:, :m]
        return rows[:, :, 1:], torch.round(rows[:, :, 0]).long(), rows[:, :, 1] != 0

    @staticmethod
    def _encode(layer, rows, on):
        """relu(layer(row)) of the filled rows only, as (B, M, H) with zeros elsewhere (an empty row's
        scores go to the dump id: _targets), and their sum per game. A minibatch holds its fullest
        game's M rows (up to 64 late in games) where a game fills ~30: the encoder runs on those only."""
        b, m = on.nonzero(as_tuple=True)
        h = torch.relu(layer(rows[b, m]))
        pool = h.new_zeros(rows.shape[0], h.shape[1]).index_add(0, b, h)
        dense = h.new_zeros(rows.shape[0], rows.shape[1], h.shape[1]).index_put((b, m), h)
        return dense, pool

    def _targets(self, K, Q, card_rows, quest_rows, card_on, quest_on) -> torch.Tensor:
        """The torch twin of tabletop_rl.agents.card_policy.action_targets."""
        K, Q = K[:, None], Q[:, None]
        dump = torch.full_like(card_rows, NUM_ACTIONS_MAX)
        cards = [torch.where(card_on, NUM_FIXED + t * K + card_rows, dump) for t in range(3)]
        quests = torch.where(quest_on, NUM_FIXED + 3 * K + quest_rows, torch.full_like(quest_rows, NUM_ACTIONS_MAX))
        abbey = NUM_FIXED + 3 * K + Q + self.abbey[None, :]
        return torch.cat(cards + [quests, abbey], dim=1)

    def forward(self, obs: torch.Tensor, value: bool = True):
        """(logits (B, NUM_ACTIONS_MAX), values (B, 1) or None)."""
        B = obs.shape[0]
        L = self.layers
        K = torch.round(obs[:, TABLE_AT] * MAX_CARD_KINDS).long()
        Q = torch.round(obs[:, TABLE_AT + 1] * MAX_QUEST_KINDS).long()
        cards, card_rows, card_on = self._filled_rows(obs[:, CARDS_AT:QUESTS_AT].reshape(B, CARD_ROWS, CARD_FEATURES))
        quests, quest_rows, quest_on = self._filled_rows(obs[:, QUESTS_AT:VIEW_SIZE].reshape(B, QUEST_ROWS, QUEST_FEATURES))
        hc, pool_c = self._encode(L[0], cards, card_on)
        hq, pool_q = self._encode(L[1], quests, quest_on)
        z = torch.cat([obs[:, :GLOBAL_SIZE], pool_c / CARD_POOL, pool_q / QUEST_POOL], dim=1)
        c = torch.tanh(L[3](torch.tanh(L[2](z))))
        fixed = L[4](c)
        E = L[5].out_features
        scale = 1.0 / float(np.sqrt(E))
        # a row's score is L5(h) . query = h . (W5^T query) + b5 . query: the query is taken back to the
        # rows' width once per game, so no (B, M, E) entity tensor is made (nor its gradient)
        query = L[6](c).reshape(B, 3, E) * scale
        card = torch.bmm(query @ L[5].weight, hc.transpose(1, 2)) + (query @ L[5].bias).unsqueeze(-1)  # (B, 3, M)
        qq = L[8](c) * scale
        quest = torch.bmm(hq, (qq @ L[7].weight).unsqueeze(-1)).squeeze(-1) + (qq @ L[7].bias).unsqueeze(-1)  # (B, M')
        values_in = torch.cat([card.reshape(B, -1), quest, fixed[:, NUM_FIXED:]], dim=1)
        targets = self._targets(K, Q, card_rows, quest_rows, card_on, quest_on)
        out = torch.zeros(B, NUM_ACTIONS_MAX + 1, dtype=obs.dtype, device=obs.device)
        out = out.scatter(1, targets, values_in)
        logits = torch.cat([fixed[:, :NUM_FIXED], out[:, NUM_FIXED:NUM_ACTIONS_MAX]], dim=1)
        if self.greedy:   # the greedy block, through its learned scale
            logits = logits + self.layers[-1].weight[0, 0] * obs[:, VIEW_SIZE:VIEW_SIZE + NUM_ACTIONS_MAX]
        v = self.value_out(torch.tanh(self.value2(torch.tanh(self.value1(z))))) if value else None
        return logits, v


class _AddLoss(torch.autograd.Function):
    """x unchanged forward; backward also sends a gradient of 1 to `extra` (a scalar): whatever loss
    `x` enters then reads as loss + extra, with one backward pass."""

    @staticmethod
    def forward(ctx, x, extra):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        return grad, torch.ones((), dtype=grad.dtype, device=grad.device)


def with_added_loss(x: torch.Tensor, extra: torch.Tensor) -> torch.Tensor:
    """`x`, through which a backward pass also differentiates the scalar `extra` (the anchor's term:
    PPO's loss reads each minibatch's values exactly once)."""
    return _AddLoss.apply(x, extra)


def anchor_loss(log_p: torch.Tensor, block: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy to the greedy block's move over the rows that have one (the mover's
    decisions; 0 when none has)."""
    marked = block.sum(dim=-1) > 0
    ce = -(log_p.clamp_min(-30.0) * block).sum(dim=-1)
    return (ce * marked).sum() / marked.sum().clamp_min(1)


class CardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy over the card view (module docstring)."""

    def __init__(self, *args, card_hidden: int = 64, quest_hidden: int = 32, hidden: int = 128, entity: int = 32,
                 greedy_init: float = 3.0, anchor_coef: float = 0.0, **kwargs):
        self.anchor_coef = float(anchor_coef)
        if not (np.isfinite(self.anchor_coef) and self.anchor_coef >= 0):
            raise ValueError(f"anchor_coef must be a finite number >= 0; got {anchor_coef!r}")
        self.card_sizes = dict(card_hidden=int(card_hidden), quest_hidden=int(quest_hidden), hidden=int(hidden),
                               entity=int(entity))
        self.greedy_init = float(greedy_init)
        super().__init__(*args, **kwargs)
        if self.observation_space.shape not in ((VIEW_SIZE,), (VIEW_SIZE + NUM_ACTIONS_MAX,)) \
                or getattr(self.action_space, "n", None) != NUM_ACTIONS_MAX:
            raise ValueError(f"CardPolicy takes Fantastiqa's card view ({VIEW_SIZE} values, {NUM_ACTIONS_MAX} actions: "
                             f"the option view=cards); got {self.observation_space.shape} and {self.action_space}")
        if self.anchor_coef > 0 and not self.net.greedy:
            raise ValueError("anchor_coef > 0 anchors to the greedy block's move: it needs the option action_features=greedy")

    def _build(self, lr_schedule) -> None:
        greedy = self.observation_space.shape == (VIEW_SIZE + NUM_ACTIONS_MAX,)   # view=cards + the greedy block
        self.net = CardNet(**self.card_sizes, greedy_init=self.greedy_init if greedy else None)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks=None):
        logits, values = self.net(obs.float())
        log_p, _ = masked_log_softmax(logits, action_masks)
        actions = choose_actions(log_p, deterministic)
        return actions, values, log_p.gather(-1, actions.unsqueeze(-1)).squeeze(-1)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks=None):
        logits, values = self.net(obs.float())
        log_p, mask = masked_log_softmax(logits, action_masks)
        if self.anchor_coef > 0:
            values = with_added_loss(values, self.anchor_coef * anchor_loss(log_p, obs[:, VIEW_SIZE:].float()))
        return (values, *log_prob_and_entropy(log_p, mask, actions))

    def get_distribution(self, obs, action_masks=None):
        logits, _ = self.net(obs.float(), value=False)
        dist = self.action_dist.proba_distribution(action_logits=logits)
        if action_masks is not None:
            dist.apply_masking(action_masks)
        return dist

    def predict_values(self, obs) -> torch.Tensor:
        return self.net(obs.float())[1]

    def action_logits(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(obs.float(), value=False)[0]

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(self.card_sizes, greedy_init=self.greedy_init, anchor_coef=self.anchor_coef)
        return data


def card_weights(policy: CardPolicy, meta: dict | None = None) -> CardPolicyWeights:
    """The numpy policy head of a CardPolicy (a model's `.policy`)."""
    return CardPolicyWeights(_numpy_layers(policy.net), dict(meta or {}))


def load_card_weights(policy: CardPolicy, weights: CardPolicyWeights) -> None:
    """Copy a numpy policy head into a CardPolicy (its value head is kept): `--init` of a card-sets policy."""
    _load_layers(policy.net, weights)


def _numpy_layers(net: CardNet) -> list:
    """The policy head's layers as CardPolicyWeights holds them: (W (in, out), b (out,)) numpy arrays."""
    with torch.no_grad():
        return [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy()) for m in net.layers]


def _load_layers(net: CardNet, weights: CardPolicyWeights) -> None:
    """Copy a numpy policy head into `net`'s layers (a layer of another shape is refused)."""
    with torch.no_grad():
        for m, (w, b) in zip(net.layers, weights.weights):
            if tuple(m.weight.shape) != w.T.shape:
                raise ValueError(f"--init: a layer of {w.shape} does not fit this policy's {tuple(m.weight.T.shape)}")
            m.weight.copy_(torch.as_tensor(np.ascontiguousarray(w.T)))
            m.bias.copy_(torch.as_tensor(b))


def refit_card_policy(weights: CardPolicyWeights, obs, masks, targets, epochs: int, learning_rate: float, seed: int,
                      batch: int = 512, on_epoch=None) -> tuple[CardPolicyWeights, list[float]]:
    """(a new CardPolicyWeights, loss per epoch): `weights`' policy head refitted to `targets` (a
    teacher's action ids or probabilities over NUM_ACTIONS_MAX) by masked cross-entropy from its current
    values (`tabletop_rl.agents.imitation.fit`: Adam over shuffled minibatches). `obs` may be float16
    (the search data's): each minibatch is taken to float32 before the forward."""
    from tabletop_rl.agents.imitation import fit

    w = weights.weights
    net = CardNet(card_hidden=w[0][0].shape[1], quest_hidden=w[1][0].shape[1], hidden=w[3][0].shape[1],
                  entity=w[5][0].shape[1], greedy_init=0.0 if weights.greedy else None)
    _load_layers(net, weights)
    losses = fit(lambda x: net(x.float(), value=False)[0], list(net.layers.parameters()), obs, masks, targets,
                 epochs, learning_rate, seed, batch=batch, on_epoch=on_epoch)
    return CardPolicyWeights(_numpy_layers(net), dict(weights.meta)), losses


__all__ = ["CardNet", "CardPolicy", "card_weights", "load_card_weights", "refit_card_policy"]
