"""Static per-game tables: card instances for a card set and player count (shared by states)."""
from __future__ import annotations


from fantastiqa_rl.actions import ActionLayout
from fantastiqa_rl.board import P_PEACEFUL
from fantastiqa_rl.cards import CardSet, load_card_set
from fantastiqa_rl.payment import profile


class Game:
    """Card instances are numbered 0..M-1 in card-file order (per-player cards seat by seat, then
    a kind's supply copies: `total` - per_player x players, or `supply`). Tables are tuples, never
    mutated, named by what indexes them: I_* by card instance (I_HAND_KIND: the holdable kind, the
    action index k, or -1; I_QUEST_KIND: the quest kind q, or -1), K_* by holdable kind (K_PROFILE:
    the payment profile, `payment.profile`; K_DOUBLED_PROFILE: that of a Looking-Glass-doubled
    copy), Q_* by quest kind."""

    def __init__(self, cs: CardSet, num_players: int, abbey: bool = False):
        self.cs, self.n = cs, num_players
        self.layout = ActionLayout(cs.num_card_kinds, cs.num_quest_kinds, abbey)
        hk_of = {ki: j for j, ki in enumerate(cs.holdable)}
        qk_of = {ki: j for j, ki in enumerate(cs.quest_kinds)}
        kind = []
        self.start_cards = [[] for _ in range(num_players)]
        self.dragon_supply, self.box = [], []
        self.sections = {}            # section -> creature/raven instances used at this count
        self.beasts, self.artifacts, self.start_artifacts = [], [], []
        self.quests, self.start_quests, self.abbey = [], [], []
        for ki, k in enumerate(cs.kinds):
            def new():
                kind.append(ki)
                return len(kind) - 1
            if k.type in ("adventurer", "starter"):
                for seat in range(num_players):
                    for _ in range(k.per_player):
                        self.start_cards[seat].append(new())
                extra = k.total - k.per_player * num_players if k.total else k.supply
                for _ in range(extra):
                    (self.dragon_supply if k.power == P_PEACEFUL else self.box).append(new())
                continue
            for _ in range(k.copies):
                i = new()
                if k.type in ("creature", "raven"):
                    if num_players in k.players:
                        self.sections.setdefault(k.section, []).append(i)
                    else:
                        self.box.append(i)
                else:
                    {"beast": self.beasts, "artifact": self.artifacts,
                     "start_artifact": self.start_artifacts, "quest": self.quests,
                     "start_quest": self.start_quests, "abbey": self.abbey}[k.type].append(i)
        self.num_instances = len(kind)
        self.I_KIND = tuple(kind)
        self.I_HAND_KIND = tuple(hk_of.get(ki, -1) for ki in kind)
        self.I_QUEST_KIND = tuple(qk_of.get(ki, -1) for ki in kind)
        kinds = cs.kinds
        # Per holdable kind (action index k), then per quest kind (action index q): the kinds' fields.
        H = [kinds[ki] for ki in cs.holdable]
        (self.K_NAME, self.K_SYMS, self.K_POWER, self.K_COST, self.K_EFFECTS, self.K_VULN, self.K_STRENGTH,
         self.K_GEM) = _columns(H, "name symbols power cost effects vulnerability strength gem")
        self.K_PROFILE = tuple(profile(k.symbols) for k in H)
        self.K_DOUBLED_PROFILE = tuple(profile(k.symbols, True) for k in H)
        self.K_IS_CREATURE = tuple(k.type == "creature" for k in H)
        Qs = [kinds[ki] for ki in cs.quest_kinds]
        self.Q_NAME, self.Q_REGION, self.Q_NEEDS, self.Q_POINTS, self.Q_REWARD = _columns(
            Qs, "name region needs points reward")
        self.I_IS_RAVEN = tuple(kinds[ki].type == "raven" for ki in kind)
        # Per instance, Abbey cards only (-1 / None elsewhere): symbol to match, reward, draw.
        self.I_ABBEY_SYMBOL = tuple(kinds[ki].symbol if kinds[ki].type == "abbey" else -1 for ki in kind)
        self.I_ABBEY_REWARD = tuple(kinds[ki].reward if kinds[ki].type == "abbey" else None for ki in kind)
        self.I_ABBEY_DRAW = tuple(kinds[ki].draw if kinds[ki].type == "abbey" else 0 for ki in kind)

    def card_name(self, i: int) -> str:
        return self.cs.kinds[self.I_KIND[i]].name


def _columns(kinds: list, fields: str) -> tuple:
    """One tuple per field name in `fields` (space-separated): that field of each kind, in order."""
    return tuple(tuple(getattr(k, f) for k in kinds) for f in fields.split())


_GAMES: dict = {}  # (id(card set), num_players, abbey) -> (card set, Game)


def get_game(card_set_path: str | None, num_players: int, abbey: bool = False) -> Game:
    """The shared tables; `abbey=True` only changes the action layout (3 Abbey actions).

    Keyed on the loaded card set, so a card file rewritten on disk (which `load_card_set` reads
    again) gets new tables."""
    cs = load_card_set(card_set_path)
    key = (id(cs), num_players, bool(abbey))
    hit = _GAMES.get(key)
    if hit is None or hit[0] is not cs:
        if len(_GAMES) >= 64:
            _GAMES.clear()
        hit = _GAMES[key] = (cs, Game(cs, num_players, bool(abbey)))
    return hit[1]
