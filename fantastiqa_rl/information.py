"""What one seat knows of a Fantastiqa state (Q-I1), and determinizations consistent with it.

    info = information_state(state, seat)          # JSON-safe dict of the seat's knowledge
    d = sample_consistent(state, seat, rng)        # a full state the seat cannot tell apart

Both are attached as methods (`state.information_state(seat)`, `state.sample_consistent(seat,
rng)`) by `fantastiqa_rl.spec` at import, which is what the suite's MCTS (`tabletop_rl.agents.mcts`) calls.

The seat's knowledge, as the observation encoder (`fantastiqa_rl.observation`) has it:
- known: everything public (board, positions, gems, tokens, scores, discard piles, committed cards,
  quests, the cards chosen for a payment or a release, the adventure so far, the card being given),
  its own hand, and the COMPOSITION of its own draw deck;
- unknown: the order of every deck (creature, artifact, beast, quest, every personal deck); how
  each other player's hand and draw deck split that player's cards (only the two counts are
  known: the composition of hand + deck together is implied by public play, Q-I1); the statue
  or Bell cards another player has drawn and not yet taken (ASSUMED private).

`sample_consistent` therefore: shuffles each other player's hand + deck together and deals the
hand back at its size (the cards that player has publicly doubled or played for power this turn
stay in hand); adds another player's drawn-and-not-taken cards to the pool they came from (the
statue deck, or that player's hand + deck for a Bell) and re-draws them; shuffles its own deck,
each statue deck and the creature deck (within each section, so section I stays on top); and
re-seeds EVERY chance generator of the sample from `rng`, so nothing hidden (the real decks'
future reshuffles) leaks through the generators. It never reads what the seat does not know:
every pool is put in a canonical (sorted) order before it is shuffled, so the sample is a function
of the seat's knowledge and `rng` only (tested: states that differ only in hidden parts give the
same sample for the same `rng` seed).
"""
from __future__ import annotations

import numpy as np

from fantastiqa_rl import actions as A
from fantastiqa_rl.abbey_view import shuffle_abbey_hidden
from fantastiqa_rl.chance import NUM_CHANCE_SOURCES


def _kinds(state, cards) -> list:
    """Sorted card-kind indices (identical cards are indistinguishable)."""
    HK = state.g.I_HAND_KIND
    return sorted(HK[i] for i in cards)


def _quest_kinds(state, cards) -> list:
    QK = state.g.I_QUEST_KIND
    return sorted(QK[i] for i in cards)


def _statue_deck_name(state, p) -> str:
    st = state.statue_at[state.position[p]]
    return ("artifact_deck", "beast_deck", "quest_deck")[st]


def information_state(state, seat: int) -> dict:
    """JSON-safe dict of what `seat` knows: cards as sorted card-kind (or quest-kind) lists, hidden
    zones as counts. Two states with the same information state are indistinguishable to `seat`."""
    n = state.n
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be in 0..{n - 1}; got {seat!r}")
    cur = state.current_player
    players = []
    for p in range(n):
        d = {
            "hand": _kinds(state, state.hand[p]) if p == seat else len(state.hand[p]),
            "deck": _kinds(state, state.deck[p]) if p == seat else len(state.deck[p]),
            "discard": _kinds(state, state.discard[p]),
            "committed": {str(q): _kinds(state, c) for q, c in sorted(state.committed[p].items())},
            "quests": list(state.quests[p]), "completed": list(state.completed[p]),
            "scores": state.scores[p], "bonus_tokens": state.bonus_tokens[p], "gems": state.gems[p],
            "carpets": state.carpets[p], "reshuffles": state.reshuffles[p],
            "quest_token": state.quest_token[p], "position": state.position[p],
        }
        if p != seat:  # publicly known cards in the hidden hand (doubled / played for power)
            d["shown_in_hand"] = _kinds(state, [i for i in state.hand[p]
                                                if p == cur and (i in state.boosted or i in state.powered)])
        players.append(d)
    drawn_visible = cur == seat
    if state.phase == A.CHEST:
        revealed = _quest_kinds(state, state.revealed) if drawn_visible else len(state.revealed)
    else:
        revealed = _kinds(state, state.revealed) if drawn_visible else len(state.revealed)
    return {
        "seat": int(seat), "num_players": n, "card_set": state.card_set, "options": dict(state.opts),
        "goal": state.goal, "phase": state.phase_name, "current": cur, "turns": state.turns,
        "winners": state.winners(), "region_at": list(state.region_at), "statue_at": list(state.statue_at),
        "board": list(state.board), "board_gems": list(state.board_gems),
        "creature_deck": len(state.creature_deck), "artifact_deck": len(state.artifact_deck),
        "beast_deck": len(state.beast_deck), "quest_deck": len(state.quest_deck),
        "open_quests": list(state.open_quests), "open_bonus": list(state.open_bonus),
        "supply": [state.supply_gems, state.supply_carpets, state.supply_reshuffles, state.supply_bonus_tokens,
                   len(state.dragons)],
        "box": _kinds(state, [i for i in state.box if state.g.I_HAND_KIND[i] >= 0]) + [-1] * sum(
            1 for i in state.box if state.g.I_HAND_KIND[i] < 0),
        "players": players,
        "setup_offer": [list(state.offer_quests), _kinds(state, state.offer_artifacts)],
        "turn": {"action_used": state.action_used, "plus": state.plus_statue, "visited": state.visited,
                 "prev": state.prev, "target": state.target, "count": state.count, "key": state.key,
                 "reason": state.reason, "ret": state.ret, "adventure": _kinds(state, state.adventure),
                 "pay": _kinds(state, state.pay),
                 "sel_discard": _kinds(state, getattr(state, "release_from_discard", [])),
                 "in_play": _kinds(state, state.in_play), "effects": [list(e) for e in state.effects],
                 "boosted": _kinds(state, state.boosted), "powered": _kinds(state, state.powered),
                 "revealed": revealed},
    }


def _shuffle_creature_deck(state, deck: list, rng: np.random.Generator) -> None:
    """Shuffle in place within each section: a card's section is public, its place is not."""
    cs, IK = state.g.cs, state.g.I_KIND
    by_section: dict = {}
    for pos, i in enumerate(deck):
        by_section.setdefault(cs.kinds[IK[i]].section, []).append(pos)
    for positions in by_section.values():
        if len(positions) > 1:
            cards = sorted(deck[x] for x in positions)
            perm = rng.permutation(len(cards))
            for x, j in zip(positions, perm):
                deck[x] = cards[j]


def sample_consistent(state, seat: int, rng: np.random.Generator):
    """A full state drawn from those `seat` cannot tell apart from `state` (module docstring).
    `state` is not changed; the sample's chance generators are re-seeded from `rng`."""
    n = state.n
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
        raise ValueError(f"seat must be in 0..{n - 1}; got {seat!r}")
    d = state.clone()
    cur = state.current_player
    hidden_draw = cur >= 0 and cur != seat and bool(d.revealed)
    if hidden_draw:                       # another seat's drawn cards go back where they came from
        k = len(d.revealed)
        if d.phase in (A.BUY, A.CHEST):
            name = _statue_deck_name(d, cur)
            pool = sorted(getattr(d, name) + d.revealed)
            rng.shuffle(pool)
            d.revealed = pool[:k]
            setattr(d, name, pool[k:])
        else:                             # BELL: from that player's own deck (hand + deck pooled below)
            bell = d.revealed
            d.revealed = []
    for p in range(n):
        if p == seat:
            continue
        hand = d.hand[p]
        keep = sorted(i for i in hand if p == cur and (i in d.boosted or i in d.powered))
        pool = [i for i in hand if not (p == cur and (i in d.boosted or i in d.powered))] + d.deck[p]
        n_hand = len(hand) - len(keep)
        extra = 0
        if hidden_draw and p == cur and d.phase not in (A.BUY, A.CHEST):
            pool += bell
            extra = len(bell)
        pool.sort()                       # canonical order: the sample never depends on hidden order
        rng.shuffle(pool)
        d.hand[p] = keep + pool[:n_hand]
        if extra:
            d.revealed = pool[n_hand:n_hand + extra]
            d.deck[p] = pool[n_hand + extra:]
        else:
            d.deck[p] = pool[n_hand:]
    d.deck[seat].sort()
    rng.shuffle(d.deck[seat])
    for name in ("artifact_deck", "beast_deck", "quest_deck"):
        deck = sorted(getattr(d, name))
        rng.shuffle(deck)
        setattr(d, name, deck)
    _shuffle_creature_deck(d, d.creature_deck, rng)
    shuffle_abbey_hidden(d, rng)  # the face-down Abbey cards (no-op without the Abbey)
    seeds = rng.integers(0, 2 ** 63, size=NUM_CHANCE_SOURCES)
    d._rngs = [np.random.Generator(np.random.PCG64(int(s))) for s in seeds]
    d._own = [True] * NUM_CHANCE_SOURCES
    d._legal = None
    return d


def attach() -> None:
    """Make both functions methods of FantastiqaState (idempotent)."""
    from fantastiqa_rl.state import FantastiqaState

    if getattr(FantastiqaState, "information_state", None) is None:
        FantastiqaState.information_state = information_state
    if getattr(FantastiqaState, "sample_consistent", None) is None:
        FantastiqaState.sample_consistent = sample_consistent


__all__ = ["information_state", "sample_consistent", "attach"]
