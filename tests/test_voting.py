"""Borda aggregation, checked against hand-computed totals."""

from __future__ import annotations

import pytest

from gaa.teamwork.voting import borda_points, borda_scores, decide

LABELS = ["A", "B", "C", "D"]


def test_points_for_one_ranking() -> None:
    assert borda_points(["C", "A", "D", "B"], LABELS) == {"A": 2, "B": 0, "C": 3, "D": 1}
    # an unranked option gets nothing
    assert borda_points(["B"], LABELS) == {"A": 0, "B": 3, "C": 0, "D": 0}


def test_standard_borda() -> None:
    rankings = {0: ["A", "B", "C", "D"], 1: ["B", "A", "C", "D"], 2: ["B", "C", "A", "D"]}
    # A: 3+2+1 = 6; B: 2+3+3 = 8; C: 1+1+2 = 4; D: 0
    assert borda_scores(rankings, LABELS) == {"A": 6, "B": 8, "C": 4, "D": 0}
    outcome = decide(rankings, LABELS)
    assert (outcome.answer, outcome.tie_rule) == ("B", "none")


def test_hierarchical_weights_can_overturn_the_majority() -> None:
    rankings = {0: ["A", "C", "B", "D"], 1: ["B", "A", "C", "D"], 2: ["B", "C", "A", "D"]}
    weights = {0: 0.6, 1: 0.25, 2: 0.15}
    # A: .6*3 + .25*2 + .15*1 = 2.45; B: .6*1 + .25*3 + .15*3 = 1.8; C: .6*2 + .25*1 + .15*2 = 1.75
    scores = borda_scores(rankings, LABELS, weights)
    assert scores["A"] == pytest.approx(2.45)
    assert scores["B"] == pytest.approx(1.8)
    assert scores["C"] == pytest.approx(1.75)
    assert decide(rankings, LABELS).answer == "B"
    assert decide(rankings, LABELS, weights).answer == "A"


def test_trust_weighted() -> None:
    rankings = {0: ["A", "B"], 1: ["B", "A"]}
    assert decide(rankings, ["A", "B"], {0: 0.9, 1: 0.5}).answer == "A"
    assert decide(rankings, ["A", "B"], {0: 0.4, 1: 1.0}).answer == "B"


def test_tie_goes_to_the_leader_when_it_is_among_the_tied() -> None:
    rankings = {0: ["A", "B", "C"], 1: ["B", "A", "C"]}
    outcome = decide(rankings, ["A", "B", "C"], leader_choice="B")
    assert (outcome.answer, outcome.tie_rule, outcome.tied) == ("B", "leader", ["A", "B"])
    # a leader choice outside the tie does not count
    outcome = decide(rankings, ["A", "B", "C"], leader_choice="C", confidences={0: 0.4, 1: 0.9})
    assert (outcome.answer, outcome.tie_rule) == ("B", "confidence")


def test_tie_without_leader_goes_to_most_first_places() -> None:
    rankings = {0: ["A", "C", "B"], 1: ["A", "C", "B"], 2: ["B", "C", "A"], 3: ["B", "A", "C"]}
    weights = {0: 1.0, 1: 1.0, 2: 1.5, 3: 1.0}
    # A: 2+2+0+1 = 5; B: 0+0+3+2 = 5; C: 1+1+1.5+0 = 3.5 -> tie A/B
    # first places: A = 1+1 = 2.0, B = 1.5+1 = 2.5 -> B
    outcome = decide(rankings, ["A", "B", "C"], weights)
    assert outcome.tied == ["A", "B"]
    assert (outcome.answer, outcome.tie_rule) == ("B", "first_place_votes")


def test_tie_then_confidence_then_label_order() -> None:
    rankings = {0: ["A", "B"], 1: ["B", "A"]}
    outcome = decide(rankings, ["A", "B"], confidences={0: 0.6, 1: 0.8})
    assert (outcome.answer, outcome.tie_rule) == ("B", "confidence")
    outcome = decide(rankings, ["A", "B"], confidences={0: 0.7, 1: 0.7})
    assert (outcome.answer, outcome.tie_rule) == ("A", "label_order")


def test_no_rankings_is_an_error() -> None:
    with pytest.raises(ValueError, match="no rankings"):
        decide({}, LABELS)
