"""The web page's Fantastiqa views (issue 27, item 5): buttons read as words, not engine names
(`KEEP_REST_AND_DRAW`), and one score per seat comes with its breakdown, the same for every viewer."""
import re

import numpy as np

from fantastiqa_rl import FantastiqaState
from tabletop_rl.agents.web.views import choice_label, state_view

ENGINE_NAME = re.compile(r"\b[A-Z]+_[A-Z_]+\b|^[A-Z]{3,}\b")


def test_choice_labels_put_engine_names_in_words():
    assert choice_label("KEEP_REST_AND_DRAW") == "Keep the rest and draw"
    assert choice_label("DISCARD Pail") == "Discard Pail"
    assert choice_label("EXPLORE the Abbey (face up: Abbey 14, BAT)") == "Explore the Abbey (face up: Abbey 14, BAT)"
    assert choice_label("move 4->32") == "move 4->32"  # not an engine name: unchanged


def test_every_choice_label_is_words_and_the_score_has_its_breakdown():
    rng = np.random.default_rng(0)
    for seed in range(3):
        state = FantastiqaState.new(2, seed=seed, abbey=seed == 1)
        for _ in range(600):
            if state.is_terminal():
                break
            seat = state.current_player
            view = state_view("fantastiqa", state, seat)
            assert view["choices"] and not [c["label"] for c in view["choices"] if ENGINE_NAME.search(c["label"])]
            for b, track, final in zip(view["score_breakdown"], state.scores, state.final_scores()):
                assert (b["track"], b["score"]) == (track, final) and b["track"] - b["open_personal_quests"] == b["score"]
            # public information: every viewer reads the same scores
            assert state_view("fantastiqa", state, None)["score_breakdown"] == view["score_breakdown"]
            state.apply(int(rng.choice(state.legal_actions())))
