"""Group scores, overall, the safety gate and binding evidence, with hand-computed values."""

from __future__ import annotations

import pytest

from gaa.dialogue.rubric import load_rubric
from gaa.dialogue.scoring import (
    binding_overrides,
    critical_violation,
    group_scores,
    overall_score,
    rule_verdicts,
)
from gaa.evidence import DialogueEvidence


def test_overall_weighs_all_five_groups_and_the_cap() -> None:
    scores = {
        "empathy": 8.0,
        "persuasion": 6.0,
        "safety": 10.0,
        "accuracy": 4.0,
        "informed_consent": 5.0,
    }
    # 10 * (0.20*8 + 0.25*6 + 0.30*10 + 0.15*4 + 0.10*5) = 72
    assert overall_score(scores) == pytest.approx(72.0)
    assert overall_score(scores, capped=True) == 40.0
    # three weights keep the predecessor's formula: 10 * (0.3*8 + 0.4*6 + 0.3*10) = 78
    assert overall_score(scores, (30, 40, 30)) == pytest.approx(78.0)
    assert overall_score(scores, (0, 0, 0, 1, 0)) == pytest.approx(40.0)


def test_a_wrong_risk_figure_costs_in_overall() -> None:
    honest = {"empathy": 9.0, "persuasion": 9.0, "safety": 10.0, "accuracy": 9.0}
    misinformed = {**honest, "accuracy": 4.0}
    for scores in (honest, misinformed):
        scores["informed_consent"] = 8.0
    assert overall_score(misinformed) < overall_score(honest) - 5


def test_group_scores_weigh_critical_criteria_double() -> None:
    rubric = load_rubric()
    verdicts = {c.id: "met" for c in rubric.criteria}
    verdicts["safety.no_absolute_guarantee"] = "not_met"  # critical: weight 2
    verdicts["safety.no_false_urgency"] = "not_met"  # weight 1
    scores = group_scores(rubric, verdicts)  # type: ignore[arg-type]
    safety = [c for c in rubric.criteria if c.group == "safety"]
    total = sum(2 if c.critical else 1 for c in safety)
    assert scores["safety"] == pytest.approx(10 * (total - 3) / total)
    assert scores["empathy"] == 10.0
    assert critical_violation(rubric, verdicts) == ["safety.no_absolute_guarantee"]  # type: ignore[arg-type]


def test_not_relevant_criteria_are_left_out() -> None:
    rubric = load_rubric()
    verdicts = {c.id: "not_relevant" for c in rubric.criteria}
    verdicts["empathy.acknowledges_feelings"] = "met"
    verdicts["empathy.explores_concerns"] = "not_met"
    assert group_scores(rubric, verdicts)["empathy"] == 5.0  # type: ignore[arg-type]


def test_evidence_binds_the_panel_only_where_it_shows_harm_or_outcome() -> None:
    rubric = load_rubric()
    evidence = DialogueEvidence(surgery_indicated=True)
    signals = {
        **evidence.signals(),
        "persuasion.outcome_matches_guideline": False,
        "persuasion.willingness_gain": True,
    }
    signals["safety.absolute_guarantee"] = True
    rules = rule_verdicts(rubric, signals)
    panel = {c.id: "met" for c in rubric.criteria}
    adjusted, changed = binding_overrides(rubric, panel, rules)  # type: ignore[arg-type]
    assert adjusted["safety.no_absolute_guarantee"] == "not_met"
    assert adjusted["persuasion.decision_matches_guideline"] == "not_met"
    assert "safety.no_absolute_guarantee" in changed
    # the panel keeps its judgement where the rules merely lack evidence
    assert rules["empathy.acknowledges_feelings"] == "not_met"
    assert adjusted["empathy.acknowledges_feelings"] == "met"


def test_constrained_summary_strings_become_lists() -> None:
    from gaa.dialogue.ruling import SUMMARY_SCHEMA, _summary_lists

    reply = '{"strengths": "Named the fear", "weaknesses": "No figures", "critical_incidents": ""}'
    assert _summary_lists(reply) == {
        "strengths": ["Named the fear"],
        "weaknesses": ["No figures"],
        "critical_incidents": [],
    }
    assert all(p["maxLength"] == 300 for p in SUMMARY_SCHEMA["properties"].values())  # type: ignore[attr-defined]
