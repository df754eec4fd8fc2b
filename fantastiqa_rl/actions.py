"""The flat action table and decision types.

Card choices name card KINDS (indices into CardSet.holdable, K of them) and quests name quest
kinds (indices into CardSet.quest_kinds, Q of them), so the table size is 30 + 3K + Q
(405 for the STAND-IN set: K = 110, Q = 45).

    id range            name              meaning by decision (phase)
    0                   DONE              MAIN: end the turn (passing the turn action if unused);
                                          ADV_MOVE: stop the adventure; BUY/CHEST: finish;
                                          END_DISCARD: keep the rest and draw
    1                   CONFIRM           ADV_PAY / QUEST_PAY: pay the chosen cards;
                                          RELEASE: release the chosen cards (1 gem each)
    2                   CANCEL            back, returning chosen cards: ADV_MOVE (before the first
                                          subdue), ADV_PAY (to ADV_MOVE), QUEST_PAY, STATUE_OPTION
                                          (not when opened by a KEY) and RELEASE (a KEY is spent)
    3                   ADVENTURE         MAIN: start turn action A
    4                   VISIT_STATUE      MAIN: start turn action B (then STATUE_OPTION)
    5                   FREE_ACTION       MAIN: open the FREE_MENU decision (one free action)
    6, 7, 8             STATUE_DRAW, STATUE_RELEASE, STATUE_TELEPORT
                                          STATUE_OPTION: the option (Q-V1, Q-V2, Q-V3), for the
                                          turn action or for a KEY power
    9                   CARPET            FREE_MENU (ADV_MOVE with fly_in_adventure): carpet token
    10                  RESHUFFLE         FREE_MENU: use a reshuffle token (Q-F4)
    11 + j  (2)         MARK j            FREE_MENU: put your quest token on open quest j
    13 + r  (6)         REGION r          board position r: SETUP_PLACE; ADV_MOVE (subdue the
                                          creature on the way to r); MOVE_DEST (FLY / carpet)
    19 + c  (7)         SPACE c           WARDROBE: a creature space to swap
    26 + s  (4)         SEAT s            TARGET_SEAT: the opponent (absolute seat) to target
    30 + k  (K)         HAND k            a hand card of kind k: FREE_MENU play for its power;
                                          ADV_PAY/QUEST_PAY pay with it; END_DISCARD discard it;
                                          RELEASE choose it (from hand); GLASS double it;
                                          BREW_CARD give it from hand; ADV_MOVE fly (option)
    30 + K + k (K)      COMMIT k          FREE_MENU: commit a hand card of kind k (then
                                          COMMIT_TARGET, skipped when only one quest can take it)
    30 + 2K + k (K)     PICK k            a card of kind k from another zone: SETUP_ARTIFACT
                                          (starting artifact), BUY (drawn card), BELL (keep),
                                          RELEASE (choose) / BREW_CARD (give) from your discard,
                                          FREE_MENU (withdraw a committed card; then WITHDRAW_FROM,
                                          skipped when only one quest holds that kind)
    30 + 3K + q (Q)     QUEST q           quest kind q: SETUP_QUEST (starting quest); MAIN
                                          (complete it, turn action C); CHEST (keep it);
                                          COMMIT_TARGET / WITHDRAW_FROM (the quest)
  Only with the Abbey (option abbey=True; the table is then 3 longer: 408 for the STAND-IN set):
    30 + 3K + Q         EXPLORE           MAIN: explore the Abbey (the turn action C, Q-B2); then
                                          ABBEY_MATCH: HAND k discards a hand card of kind k that
                                          matches the face-up Abbey card (Q-B3); CANCEL before
                                          the first match
    30 + 3K + Q + 1     ABBEY_STOP        ABBEY_CHOICE: stop, claiming what is set aside (Q-B4)
    30 + 3K + Q + 2     ABBEY_CONTINUE    ABBEY_CHOICE: flip the next Abbey card (Q-B4); with no
                                          matching hand card the exploration fails at once

Free actions sit one level down (MAIN -> FREE_ACTION -> the free action), so that MAIN lists
only END, the turn actions and FREE_ACTION: a uniform-random player then reaches its turn action
far more often, and random games end by the rules (see benchmarks/bench_fantastiqa_core.py).
The Abbey's actions come after the QUEST range, so every id above is the same with and without
the Abbey (and `abbey=False` keeps the 405-action table). The team variant adds no actions.
"""
from __future__ import annotations

DONE, CONFIRM, CANCEL = 0, 1, 2
ADVENTURE, VISIT_STATUE, FREE_ACTION = 3, 4, 5
STATUE_DRAW, STATUE_RELEASE, STATUE_TELEPORT = 6, 7, 8
CARPET, RESHUFFLE = 9, 10
MARK, REGION, SPACE, SEAT, HAND = 11, 13, 19, 26, 30
FIXED_NAMES = ("DONE", "CONFIRM", "CANCEL", "ADVENTURE", "VISIT_STATUE", "FREE_ACTION",
               "STATUE_DRAW", "STATUE_RELEASE", "STATUE_TELEPORT", "CARPET", "RESHUFFLE")

# Decision types (the `phase` of a state).
PHASES = ("SETUP_QUEST", "SETUP_ARTIFACT", "SETUP_PLACE", "MAIN", "FREE_MENU", "ADV_MOVE", "ADV_PAY", "BUY",
          "CHEST", "RELEASE", "QUEST_PAY", "MOVE_DEST", "TARGET_SEAT", "STATUE_OPTION",
          "COMMIT_TARGET", "WITHDRAW_FROM", "GLASS", "BELL", "BREW_CARD", "WARDROBE",
          "END_DISCARD", "TERMINAL", "ABBEY_MATCH", "ABBEY_CHOICE")
# The Abbey's decisions (abbey=True only) are appended after TERMINAL so the other indices stay.
ABBEY_PHASES = ("ABBEY_MATCH", "ABBEY_CHOICE")
(SETUP_QUEST, SETUP_ARTIFACT, SETUP_PLACE, MAIN, FREE_MENU, ADV_MOVE, ADV_PAY, BUY, CHEST, RELEASE,
 QUEST_PAY, MOVE_DEST, TARGET_SEAT, STATUE_OPTION, COMMIT_TARGET, WITHDRAW_FROM, GLASS, BELL,
 BREW_CARD, WARDROBE, END_DISCARD, TERMINAL, ABBEY_MATCH, ABBEY_CHOICE) = range(len(PHASES))
ABBEY_NAMES = ("EXPLORE", "ABBEY_STOP", "ABBEY_CONTINUE")


class ActionLayout:
    """Offsets of the card-dependent ranges for a card set with K card kinds and Q quest kinds;
    with `abbey=True` the three Abbey actions follow the QUEST range (`explore`, `abbey_stop`,
    `abbey_continue` are set either way, but count in `n` only with the Abbey)."""

    __slots__ = ("K", "Q", "hand", "commit", "pick", "quest", "n", "abbey", "explore",
                 "abbey_stop", "abbey_continue")

    def __init__(self, num_card_kinds: int, num_quest_kinds: int, abbey: bool = False):
        self.K, self.Q = num_card_kinds, num_quest_kinds
        self.hand = HAND
        self.commit = HAND + self.K
        self.pick = HAND + 2 * self.K
        self.quest = HAND + 3 * self.K
        self.abbey = bool(abbey)
        self.explore = self.quest + self.Q
        self.abbey_stop = self.explore + 1
        self.abbey_continue = self.explore + 2
        self.n = self.quest + self.Q + (3 if self.abbey else 0)

    def ranges(self) -> dict:
        """name -> (first id, count), for documentation and env code."""
        return {"DONE": (DONE, 1), "CONFIRM": (CONFIRM, 1), "CANCEL": (CANCEL, 1),
                "ADVENTURE": (ADVENTURE, 1), "VISIT_STATUE": (VISIT_STATUE, 1),
                "FREE_ACTION": (FREE_ACTION, 1),
                "STATUE_DRAW": (STATUE_DRAW, 1),
                "STATUE_RELEASE": (STATUE_RELEASE, 1), "STATUE_TELEPORT": (STATUE_TELEPORT, 1),
                "CARPET": (CARPET, 1), "RESHUFFLE": (RESHUFFLE, 1), "MARK": (MARK, 2),
                "REGION": (REGION, 6), "SPACE": (SPACE, 7), "SEAT": (SEAT, 4),
                "HAND": (self.hand, self.K), "COMMIT": (self.commit, self.K),
                "PICK": (self.pick, self.K), "QUEST": (self.quest, self.Q),
                **({"EXPLORE": (self.explore, 1), "ABBEY_STOP": (self.abbey_stop, 1),
                    "ABBEY_CONTINUE": (self.abbey_continue, 1)} if self.abbey else {})}

    def decode(self, a: int) -> tuple[str, int]:
        """(range name, index within the range); ('INVALID', a) when out of range."""
        if not isinstance(a, int) or a < 0 or a >= self.n:
            return "INVALID", a
        if a < MARK:
            return FIXED_NAMES[a], 0
        for name, (lo, cnt) in (("MARK", (MARK, 2)), ("REGION", (REGION, 6)), ("SPACE", (SPACE, 7)),
                                ("SEAT", (SEAT, 4)), ("HAND", (self.hand, self.K)),
                                ("COMMIT", (self.commit, self.K)), ("PICK", (self.pick, self.K)),
                                ("QUEST", (self.quest, self.Q))):
            if a < lo + cnt:
                return name, a - lo
        return ABBEY_NAMES[a - self.explore], 0
