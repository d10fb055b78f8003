"""An assessment's :class:`~gaa.models.EvalResult`, read from its ``medical_dialogue`` log."""

from __future__ import annotations

from collections import Counter
from statistics import mean

from inspect_ai.log import EvalLog

from gaa.dialogue.solver import SESSION_KEY
from gaa.models import DialogueSession, EvalResult, PerformanceScore

GROUPS = (
    ("empathy_score", "empathy"),
    ("persuasion_effectiveness", "persuasion"),
    ("safety_score", "safety"),
    ("accuracy_score", "accuracy"),
    ("informed_consent_score", "informed consent"),
)


def _performance(sample_scores: dict[str, object] | None) -> PerformanceScore | None:
    for score in (sample_scores or {}).values():
        metadata = getattr(score, "metadata", None) or {}
        if "performance" in metadata:
            return PerformanceScore.model_validate(metadata["performance"])
    return None


def summary_text(
    doctor_url: str | None,
    personas: list[str],
    scores: dict[str, PerformanceScore],
    failed: list[str],
) -> str:
    """Patterns across personas, written from the numbers (no model involved)."""
    if not scores:
        return f"No persona was scored ({len(failed)} of {len(personas)} failed)."
    values = list(scores.values())
    groups = ", ".join(
        f"{label} {mean(getattr(s, name) for s in values):.1f}" for name, label in GROUPS
    )
    lines = [
        f"{len(scores)} of {len(personas)} personas scored against {doctor_url or 'the doctor'}"
        + (f"; {len(failed)} failed ({', '.join(sorted(failed))})." if failed else "."),
        f"Mean overall {mean(s.overall_score for s in values):.1f}/100 (range "
        f"{min(s.overall_score for s in values):.1f}-{max(s.overall_score for s in values):.1f}).",
        f"Group means (0-10): {groups}.",
    ]
    outcomes = Counter(s.outcome for s in values)
    lines.append(
        "Outcomes: "
        + ", ".join(f"{outcomes[o]} {o}" for o in ("accepted", "rejected", "uncertain"))
        + "."
    )
    for case in sorted({persona.rsplit("_", 1)[-1] for persona in scores}):
        case_scores = [s.overall_score for p, s in scores.items() if p.endswith(f"_{case}")]
        lines.append(f"{case}: mean overall {mean(case_scores):.1f} over {len(case_scores)}.")
    ranked = sorted(scores.items(), key=lambda item: item[1].overall_score)
    lines.append(
        f"Lowest: {ranked[0][0]} ({ranked[0][1].overall_score:.1f}); "
        f"highest: {ranked[-1][0]} ({ranked[-1][1].overall_score:.1f})."
    )
    flags = Counter(flag.split(":", 1)[0] for s in values for flag in s.flags)
    if flags:
        lines.append(
            "Safety flags: "
            + ", ".join(f"{rule} in {count} turns" for rule, count in flags.most_common(5))
            + "."
        )
    else:
        lines.append("No safety flags were raised.")
    fallbacks = Counter(fallback for s in values for fallback in s.fallbacks)
    if fallbacks:
        lines.append(
            "Fallbacks used: " + ", ".join(f"{k} x{v}" for k, v in fallbacks.most_common()) + "."
        )
    return " ".join(lines)


def eval_result(log: EvalLog, doctor_url: str | None) -> EvalResult:
    """The EvalResult of a ``medical_dialogue`` log: every session, every score, their mean
    and a summary; failed personas are listed in ``failed_personas`` with their error."""
    sessions: list[DialogueSession] = []
    scores: dict[str, PerformanceScore] = {}
    failed: dict[str, str] = {}
    personas: list[str] = []
    for sample in log.samples or []:
        persona = str(sample.id)
        personas.append(persona)
        stored = (sample.store or {}).get(SESSION_KEY)
        if stored is not None:
            sessions.append(DialogueSession.model_validate(stored))
        performance = _performance(dict(sample.scores or {}))
        if sample.error is not None or performance is None:
            message = sample.error.message if sample.error else "not scored"
            failed[persona] = message.strip().splitlines()[-1][:500] if message.strip() else ""
        else:
            scores[persona] = performance
    mean_overall = (
        round(mean(s.overall_score for s in scores.values()), 2) if scores else None
    )
    return EvalResult(
        assessment_id=log.eval.eval_id,
        doctor_agent_url=doctor_url,
        sessions=sessions,
        scores=list(scores.values()),
        mean_overall_score=mean_overall,
        overall_summary=summary_text(doctor_url, personas, scores, list(failed)),
        status=log.status,
        error=(log.error.message.strip().splitlines() or [""])[-1][:500] if log.error else None,
        personas=personas,
        failed_personas=failed,
        log_location=log.location,
    )
