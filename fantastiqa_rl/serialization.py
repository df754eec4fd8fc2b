"""The state dict of the Fantastiqa core: `FantastiqaState.to_dict()` / `FantastiqaState.from_dict(d)`.

State dict (JSON-safe, exact round trip). Cards are instance ids; `state.card_name(i)`. The state's
fields are named after these keys (supply.gems is `state.supply_gems`, setup_offer.quests
`state.offer_quests`, players[p].tokens.quest_token `state.quest_token[p]`, turn.token_left
`state.token_left`); the exceptions: options (`state.opts`), current (`state.cur`), winners
(`state.winners_`), goal (its name, `state.goal_name`) and supply.dragons (`state.dragons`).
Each field's key is declared with the field in `fantastiqa_rl.state_fields` (`Field.key`).
    version, card_set, num_players, options, goal, phase, current, turns, winners, end_reason,
    region_at[6], statue_at[6], board[7] (-1 empty), board_gems[7], creature_deck, artifact_deck,
    beast_deck, quest_deck (decks: top card LAST), open_quests[2], open_bonus[2],
    supply{gems, carpets, reshuffles, bonus_tokens, dragons}, box,
    players[p]{deck, hand, discard, committed{quest: cards}, quests, completed, abbey, scores,
               bonus_tokens, gems, tokens{carpets, reshuffles, quest_token}, position},
    setup_offer{quests, artifacts}, turn{action_used, plus_statue, boosted, powered, visited,
    prev, adventure, pay (cards chosen to pay, or to release from hand), target, revealed,
    count, key, effects, in_play, release_from_discard, token_left (open quests the token left
    this turn), cancels (CANCELs taken this turn, Q-T2), reason, ret},
    rng[10] (bit_generator.state of each chance source, `fantastiqa_rl.chance`)
  and only with abbey=True: abbey_deck (top LAST), abbey_returned, and in `turn`: abbey_aside
  (Abbey cards set aside in the current exploration), abbey_reward [gems, carpets, reshuffles]
  set aside with them. (Without the Abbey these keys are absent and the dict is unchanged.)
`turn.powered` lists the cards played for their power this turn; with turn_loops="forbid" (Q-T2) a
card there lies in play, in no other zone, until the end of the turn (`fantastiqa_rl.powers.
held_in_play`; with card_use="both" a card with symbols stays in hand and the list only marks it).
Version 2 (issue 25): `turn.cancels`, the option turn_loops and cards in play in `turn.powered`.

A dict read back is untrusted: `from_dict` validates it completely first
(`fantastiqa_rl.validation`) and raises ValueError naming the key path of any problem.
"""
from __future__ import annotations

from fantastiqa_rl.actions import PHASES
from fantastiqa_rl.board import NUM_POSITIONS
from fantastiqa_rl.validation import VERSION, check_decision, check_reachable, validate_state_dict


def state_to_dict(s) -> dict:
    """JSON-safe dict of state s; `state_from_dict(type(s), state_to_dict(s))` restores it exactly."""
    n = s.n
    players = []
    for p in range(n):
        players.append({
            "deck": list(s.deck[p]), "hand": list(s.hand[p]),
            "discard": list(s.discard[p]),
            "committed": {str(q): list(c) for q, c in s.committed[p].items()},
            "quests": list(s.quests[p]), "completed": list(s.completed[p]),
            "abbey": list(s.abbey[p]), "scores": s.scores[p],
            "bonus_tokens": s.bonus_tokens[p], "gems": s.gems[p],
            "tokens": {"carpets": s.carpets[p], "reshuffles": s.reshuffles[p],
                       "quest_token": s.quest_token[p]},
            "position": s.position[p],
        })
    d = {
        "version": VERSION,
        "card_set": s.card_set, "num_players": n, "options": dict(s.opts),
        "goal": s.goal_name, "phase": PHASES[s.phase], "current": s.cur,
        "turns": s.turns,
        "winners": None if s.winners_ is None else list(s.winners_),
        "end_reason": s.end_reason,
        "region_at": list(s.region_at), "statue_at": list(s.statue_at),
        "board": list(s.board), "board_gems": list(s.board_gems),
        "creature_deck": list(s.creature_deck), "artifact_deck": list(s.artifact_deck),
        "beast_deck": list(s.beast_deck), "quest_deck": list(s.quest_deck),
        "open_quests": list(s.open_quests), "open_bonus": list(s.open_bonus),
        "supply": {"gems": s.supply_gems, "carpets": s.supply_carpets,
                   "reshuffles": s.supply_reshuffles, "bonus_tokens": s.supply_bonus_tokens,
                   "dragons": list(s.dragons)},
        "box": list(s.box),
        "players": players,
        "setup_offer": {"quests": list(s.offer_quests), "artifacts": list(s.offer_artifacts)},
        "turn": {"action_used": s.action_used, "plus_statue": s.plus_statue,
                 "boosted": list(s.boosted), "powered": list(s.powered),
                 "visited": s.visited, "prev": s.prev, "adventure": list(s.adventure),
                 "pay": list(s.pay), "target": s.target, "revealed": list(s.revealed),
                 "count": s.count, "key": s.key,
                 "effects": [list(e) for e in s.effects], "in_play": list(s.in_play),
                 "release_from_discard": list(s.release_from_discard),
                 "token_left": list(s.token_left), "cancels": s.cancels,
                 "reason": s.reason, "ret": PHASES[s.ret]},
        "rng": [r.bit_generator.state for r in s._rngs],
    }
    if s.opts["abbey"]:
        d["abbey_deck"], d["abbey_returned"] = list(s.abbey_deck), list(s.abbey_returned)
        d["turn"]["abbey_aside"], d["turn"]["abbey_reward"] = list(s.abbey_aside), list(s.abbey_reward)
    return d


def state_from_dict(cls, d: dict):
    """Rebuild a `cls` (FantastiqaState) from `state_to_dict` output (also after a JSON round trip).

    The dict is validated completely first (keys, types, every card in exactly one place, token
    counts, the decision in progress); any problem raises ValueError naming the key path."""
    s = validate_state_dict(d, cls.new)
    try:
        s.phase, s.cur, s.turns = PHASES.index(d["phase"]), d["current"], d["turns"]
        s.winners_ = None if d["winners"] is None else list(d["winners"])
        s.end_reason = d["end_reason"]
        s.region_at, s.statue_at = tuple(d["region_at"]), tuple(d["statue_at"])
        s.name_pos = tuple(s.region_at.index(x) for x in range(NUM_POSITIONS))
        s.board, s.board_gems = list(d["board"]), list(d["board_gems"])
        s.creature_deck, s.artifact_deck = list(d["creature_deck"]), list(d["artifact_deck"])
        s.beast_deck, s.quest_deck = list(d["beast_deck"]), list(d["quest_deck"])
        s.open_quests, s.open_bonus = list(d["open_quests"]), list(d["open_bonus"])
        sp = d["supply"]
        s.supply_gems, s.supply_carpets = sp["gems"], sp["carpets"]
        s.supply_reshuffles, s.supply_bonus_tokens = sp["reshuffles"], sp["bonus_tokens"]
        s.dragons, s.box = list(sp["dragons"]), list(d["box"])
        P = d["players"]
        s.deck = [list(x["deck"]) for x in P]
        s.hand = [list(x["hand"]) for x in P]
        s.discard = [list(x["discard"]) for x in P]
        s.committed = [{int(q): list(c) for q, c in x["committed"].items()} for x in P]
        s.quests = [list(x["quests"]) for x in P]
        s.completed = [list(x["completed"]) for x in P]
        s.abbey = [list(x["abbey"]) for x in P]
        s.scores = [x["scores"] for x in P]
        s.bonus_tokens = [x["bonus_tokens"] for x in P]
        s.gems = [x["gems"] for x in P]
        s.carpets = [x["tokens"]["carpets"] for x in P]
        s.reshuffles = [x["tokens"]["reshuffles"] for x in P]
        s.quest_token = [x["tokens"]["quest_token"] for x in P]
        s.position = [x["position"] for x in P]
        s.offer_quests = list(d["setup_offer"]["quests"])
        s.offer_artifacts = list(d["setup_offer"]["artifacts"])
        t = d["turn"]
        s.action_used, s.plus_statue = t["action_used"], t["plus_statue"]
        s.boosted, s.powered = list(t["boosted"]), list(t["powered"])
        s.visited, s.prev, s.adventure = t["visited"], t["prev"], list(t["adventure"])
        s.pay, s.target, s.revealed = list(t["pay"]), t["target"], list(t["revealed"])
        s.count, s.key = t["count"], t["key"]
        s.effects = [tuple(e) for e in t["effects"]]
        s.in_play, s.reason, s.ret = list(t["in_play"]), t["reason"], PHASES.index(t["ret"])
        s.release_from_discard = list(t["release_from_discard"])
        s.token_left = list(t["token_left"])
        s.cancels = t["cancels"]
        if s.opts["abbey"]:
            s.abbey_deck, s.abbey_returned = list(d["abbey_deck"]), list(d["abbey_returned"])
            s.abbey_aside, s.abbey_reward = list(t["abbey_aside"]), list(t["abbey_reward"])
        for r, st in zip(s._rngs, d["rng"]):
            r.bit_generator.state = st
    except (KeyError, TypeError, IndexError) as e:
        raise ValueError(f"from_dict: malformed state dict ({type(e).__name__}: {e})") from None
    s._legal = None
    check_reachable(s)
    check_decision(s)
    return s
