"""Invariant checks and scenario helpers (used by the tests; handy when debugging rules)."""
from __future__ import annotations

from collections import Counter

from fantastiqa_rl.powers import held_in_play
from fantastiqa_rl.state import FantastiqaState


def zones(s: FantastiqaState) -> dict:
    """Every card container of the state: name -> list of instance ids."""
    z = {
        "board": [b for b in s.board if b >= 0], "creature_deck": s.creature_deck,
        "artifact_deck": s.artifact_deck, "beast_deck": s.beast_deck, "quest_deck": s.quest_deck,
        "open_quests": [q for q in s.open_quests if q >= 0], "dragons": s.dragons, "box": s.box,
        "offer_quests": s.offer_quests, "offer_artifacts": s.offer_artifacts, "adventure": s.adventure,
        "pay": s.pay, "revealed": s.revealed, "in_play": s.in_play,
        "release_from_discard": s.release_from_discard,
        "powered (in play)": [i for i in s.powered if held_in_play(s.opts, s.g, i)],
        "abbey_deck": s.abbey_deck, "abbey_returned": s.abbey_returned, "abbey_aside": s.abbey_aside,
    }
    for p in range(s.n):
        for f in ("deck", "hand", "discard", "quests", "completed", "abbey"):
            z[f"{f}[{p}]"] = getattr(s, f)[p]
        for q, cards in s.committed[p].items():
            z[f"committed[{p}][{q}]"] = cards
    return z


def check_conservation(s: FantastiqaState) -> None:
    """Every card instance in exactly one zone; token and gem totals constant."""
    seen = Counter()
    for cards in zones(s).values():
        seen.update(cards)
    dup = [i for i, c in seen.items() if c > 1]
    missing = [i for i in range(s.g.num_instances) if i not in seen]
    extra = [i for i in seen if not 0 <= i < s.g.num_instances]
    assert not dup and not missing and not extra, f"cards: dup {dup} missing {missing} extra {extra}"
    sup = s.g.cs.supply
    r = s.abbey_reward                                  # rewards set aside in an Abbey exploration
    assert s.supply_gems + sum(s.gems) + sum(s.board_gems) + r[0] == sup["gems"], "gems not conserved"
    assert s.supply_carpets + sum(s.carpets) + r[1] == sup["carpets"], "carpets not conserved"
    assert s.supply_reshuffles + sum(s.reshuffles) + r[2] == sup["reshuffles"], "reshuffle tokens not conserved"
    assert s.supply_bonus_tokens + sum(s.open_bonus) + sum(s.bonus_tokens) == sup["bonus_tokens"], "bonus tokens"
    assert min([s.supply_gems, s.supply_carpets, s.supply_reshuffles, s.supply_bonus_tokens] + s.gems + s.carpets
               + s.reshuffles) >= 0, "negative counter"
    assert min(r) >= 0, "negative Abbey reward"
    for p in range(s.n):
        for q in s.committed[p]:
            assert q in s.quests[p] or q == s.quest_token[p], f"seat {p} commits to {q} it cannot hold"
    if s.opts["abbey"]:                             # Q-B5 cap; set-aside cards only while exploring
        from fantastiqa_rl import actions as A
        from fantastiqa_rl.state import ABBEY_CAP
        for p in range(s.n):
            assert s.abbey_held(p) <= ABBEY_CAP, f"seat {p}'s side holds more than {ABBEY_CAP} Abbey cards"
        if s.phase not in (A.ABBEY_MATCH, A.ABBEY_CHOICE):
            assert not s.abbey_aside and not any(r), "Abbey cards or rewards set aside outside an exploration"
            assert s.abbey_deck or not s.abbey_returned, "returned Abbey cards left under an empty deck (Q-B5)"
        if s.phase in (A.ABBEY_MATCH, A.ABBEY_CHOICE):
            assert s.abbey_held(s.cur) + len(s.abbey_aside) <= ABBEY_CAP, "held + set aside above the cap"


def instances_of(s: FantastiqaState, name: str) -> list:
    kinds = [i for i, k in enumerate(s.g.cs.kinds) if k.name == name]
    if not kinds:
        raise KeyError(f"no card named {name!r}")
    return [i for i, ki in enumerate(s.g.I_KIND) if ki == kinds[0]]


def move_card(s: FantastiqaState, name: str, dest: list, exclude=()) -> int:
    """Move one instance of card `name` from wherever it is (not from `exclude` lists) to dest."""
    z = zones(s)
    for i in instances_of(s, name):
        for zname, cards in z.items():
            if i in cards and cards is not dest and not any(cards is e for e in exclude):
                if zname == "board":
                    c = s.board.index(i)
                    s.board[c] = -1
                    s.supply_gems += s.board_gems[c]
                    s.board_gems[c] = 0
                elif zname == "open_quests":
                    s.open_quests[s.open_quests.index(i)] = -1
                else:
                    cards.remove(i)
                dest.append(i)
                s._legal = None
                return i
    raise KeyError(f"no movable instance of {name!r}")


def set_abbey_deck(s: FantastiqaState, names: list, returned: list = ()) -> None:
    """Arrange the Abbey: `names` become the face-down deck (names[-1] on top, face up), `returned`
    the face-up returned cards under it; every other Abbey card goes to the box."""
    s.box += s.abbey_deck + s.abbey_returned
    s.abbey_deck, s.abbey_returned = [], []
    for nm in names:
        move_card(s, nm, s.abbey_deck)
    for nm in returned:
        move_card(s, nm, s.abbey_returned)
    s._legal = None


def set_hand(s: FantastiqaState, p: int, names: list) -> None:
    """Replace seat p's hand by these cards (old hand cards go to p's deck)."""
    s.deck[p] += s.hand[p]
    s.hand[p] = []
    for nm in names:
        move_card(s, nm, s.hand[p])
    s._legal = None


def place_creature(s: FantastiqaState, space: int, name: str, gems: int = 0) -> int:
    """Put creature `name` on board space `space` (the old one goes to the box)."""
    if s.board[space] >= 0:
        s.box.append(s.board[space])
        s.supply_gems += s.board_gems[space]
        s.board[space], s.board_gems[space] = -1, 0
    tmp = []
    i = move_card(s, name, tmp)
    s.board[space] = i
    s.board_gems[space] = gems
    s.supply_gems -= gems
    s._legal = None
    return i


def play_setup(s: FantastiqaState) -> FantastiqaState:
    """Finish setup choosing the first legal action at each step."""
    from fantastiqa_rl import actions as A
    while s.phase in (A.SETUP_QUEST, A.SETUP_ARTIFACT, A.SETUP_PLACE):
        s.apply(int(s.legal_actions()[0]))
    return s
