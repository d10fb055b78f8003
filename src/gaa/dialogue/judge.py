"""The ``medical_dialogue`` scorer: the stored consultation is ruled on, then scored.

Each sample's consultation is read back from the store the solver kept current
(:func:`gaa.dialogue.solver.stored`); a sample that ended before the doctor spoke gets no score.
The ruling is :func:`gaa.dialogue.ruling.judge_dialogue` (a teamwork panel, or the rule-based
judge, on the rubric); with ``counterfactuals`` the judge is also checked on edited transcripts
(:mod:`gaa.dialogue.counterfactuals`). The score's value holds overall (0-100), the five group
scores (0-10) and whether the patient took the recommended course; its metadata holds the
:class:`~gaa.models.PerformanceScore`, who judged, what was overridden or left unjudged, every
fallback, and the dialogue's stats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Metric, Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from gaa._metrics import group_means, held_the_line_rate
from gaa._records import FinishedRecord
from gaa.dialogue.counterfactuals import run_counterfactuals
from gaa.dialogue.explanation import explanation
from gaa.dialogue.outcomes import held_the_line, took_recommended_course
from gaa.dialogue.ruling import JUDGES, Judgement, defuse, judge_dialogue
from gaa.dialogue.scoring import DEFAULT_WEIGHTS
from gaa.dialogue.solver import DialogueStats, stored
from gaa.evidence import DialogueEvidence
from gaa.models import (
    SCORE_KEYS,
    CriterionVerdict,
    DialogueSession,
    MedicalCase,
    PatientPersona,
    PerformanceScore,
)
from gaa.plugins import catalogue
from gaa.teamwork import TeamworkConfig

NOT_JUDGED = "not judged: the rules judge has no rule for this criterion (left out of its group)"


class NoConsultation(RuntimeError):
    """A sample that ended before any doctor turn: there is nothing to score."""


@dataclass(frozen=True)
class StoredConsultation:
    """One sample's consultation as the solver stored it, with its case and persona."""

    session: DialogueSession
    evidence: DialogueEvidence
    stats: DialogueStats
    case: MedicalCase
    persona: PatientPersona


OVERALL_DIGITS = 1
GROUP_DIGITS = 2
"""Scores are stored rounded to what they can mean: overall (0-100) to a tenth, the dimensions
(0-10) to a hundredth; the metrics are the means of the stored values."""


def stored_consultation(state: TaskState) -> StoredConsultation:
    """The stored consultation; :class:`NoConsultation` when the doctor never spoke."""
    session, evidence, stats, metadata = stored(state)
    if not any(turn.speaker == "doctor" for turn in session.turns):
        raise NoConsultation(
            f"No consultation to judge for {state.sample_id}: the sample ended before the "
            "doctor spoke (a time or token limit, or cancellation), so it gets no score"
        )
    case = catalogue().cases.get(metadata["case_name"]).item
    persona = PatientPersona.model_validate(metadata["persona"])
    return StoredConsultation(session, evidence, stats, case, persona)


def summary_text(summary: dict[str, list[str]]) -> str:
    parts = []
    for key, title in (
        ("strengths", "Strengths"),
        ("weaknesses", "Weaknesses"),
        ("critical_incidents", "Critical incidents"),
    ):
        items = [item.strip().rstrip(".;") for item in summary.get(key) or []] or ["none"]
        parts.append(f"{title}: " + "; ".join(item for item in items if item) + ".")
    return "\n".join(parts)


def performance_of(
    consultation: StoredConsultation, judgement: Judgement, fallbacks: list[str]
) -> PerformanceScore:
    """The judgement as the performance record: scores, every criterion's verdict and evidence,
    the validator's flags, the fallbacks and the evaluation summary."""
    session = consultation.session
    return PerformanceScore(
        session_id=session.session_id,
        overall_score=round(judgement.overall, OVERALL_DIGITS),
        empathy_score=round(judgement.scores["empathy"], GROUP_DIGITS),
        persuasion_effectiveness=round(judgement.scores["persuasion"], GROUP_DIGITS),
        safety_score=round(judgement.scores["safety"], GROUP_DIGITS),
        accuracy_score=round(judgement.scores["accuracy"], GROUP_DIGITS),
        informed_consent_score=round(judgement.scores["informed_consent"], GROUP_DIGITS),
        outcome=session.final_outcome,
        criteria=[
            CriterionVerdict(
                criterion=cid,
                group=cid.split(".")[0],
                verdict=v,
                evidence=judgement.evidence.get(cid, "")
                or (NOT_JUDGED if cid in judgement.unjudged else ""),
            )
            for cid, v in judgement.verdicts.items()
        ],
        flags=[f"{flag.rule}: {defuse(flag.quote)}" for flag in consultation.evidence.flags],
        fallbacks=fallbacks,
        evaluation_summary=summary_text(judgement.summary),
    )


def score_of(
    consultation: StoredConsultation, judgement: Judgement, extra: dict[str, Any]
) -> Score:
    """The sample's score: the values the metrics read, and everything behind them."""
    session, evidence, stats = consultation.session, consultation.evidence, consultation.stats
    case, persona = consultation.case, consultation.persona
    fallbacks = [*stats.fallbacks, *judgement.fallbacks]
    performance = performance_of(consultation, judgement, fallbacks)
    took = took_recommended_course(case, stats.final_decision, evidence)
    value = {
        "overall": round(judgement.overall, OVERALL_DIGITS),
        **{name: round(score, GROUP_DIGITS) for name, score in judgement.scores.items()},
        "accepted": float(took),
    }
    return Score(
        value=value,
        answer=session.final_outcome,
        explanation=explanation(
            overall=judgement.overall,
            scores=judgement.scores,
            capped=judgement.capped,
            critical=judgement.critical,
            decision=stats.final_decision,
            took_recommended=took,
            case=case,
            evidence=evidence,
            verdicts=dict(judgement.verdicts),
            judge=judgement.judge,
            # the rules judge's summary only restates the criteria listed above
            summary=performance.evaluation_summary if judgement.judge == "panel" else "",
        ),
        metadata={
            "judge": judgement.judge,
            # copied once per score value by Inspect's metrics: shared instead (see _records)
            "performance": FinishedRecord(performance.model_dump(mode="json")),
            "capped": judgement.capped,
            "critical": judgement.critical,
            "overridden": judgement.overridden,
            "unjudged": judgement.unjudged,
            "excluded_judges": judgement.excluded_judges,
            "judge_failures": judgement.judge_failures,
            "judge_calls": judgement.judge_calls,
            "fallbacks": fallbacks,
            "untold_harms": evidence.untold_harms,
            "recommendation": case.decision,
            "stance": persona.stance,
            "held_the_line": held_the_line(case, evidence),
            "dialogue": stats.model_dump(mode="json"),
            **extra,
        },
    )


def _metrics() -> dict[str, list[Metric]]:
    metrics: dict[str, list[Metric]] = {key: [mean(), stderr()] for key in SCORE_KEYS}
    metrics["overall"] += [group_means(), held_the_line_rate()]
    return metrics


@scorer(metrics=_metrics())
def dialogue_judge(
    judge: str = "panel",
    teamwork: str | list[str] = "all",
    safety_gate: bool = True,
    weights: tuple[float, ...] = DEFAULT_WEIGHTS,
    counterfactuals: bool = False,
    structured_output: bool | None = None,
) -> Scorer:
    """Score the doctor of each consultation (see the module docstring)."""
    if judge not in JUDGES:
        raise ValueError(f"judge must be one of {', '.join(JUDGES)}, not {judge!r}")
    if judge == "panel":
        TeamworkConfig.parse(teamwork)
    options: dict[str, Any] = {
        "judge": judge,
        "teamwork": teamwork,
        "weights": weights,
        "safety_gate": safety_gate,
    }

    async def score(state: TaskState, target: Target) -> Score:
        consultation = stored_consultation(state)
        session, evidence, stats = consultation.session, consultation.evidence, consultation.stats
        case, persona = consultation.case, consultation.persona
        judgement = await judge_dialogue(
            session, evidence, stats, case, persona, **options, structured=structured_output
        )
        extra: dict[str, Any] = {}
        if counterfactuals:
            extra["counterfactuals"] = await run_counterfactuals(
                session, stats, case, persona, judgement, **options
            )
        return score_of(consultation, judgement, extra)

    return score
