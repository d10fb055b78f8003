"""``judge_check``: run a judge on labelled consultations and measure how it agrees.

Each consultation is a sample. The solver loads its transcript (no dialogue is run): the
doctor's turns go through the evidence validator exactly as in ``medical_dialogue``, the
patient's turns carry their labelled decisions and willingness. The scorer runs the judge
under test as ``medical_dialogue`` does (``judge=panel|rules``, ``teamwork=...``, the ``judge``
model role) and compares its verdicts with the labels; the metrics are balanced accuracy and
Cohen's kappa (pooled, per group, per criterion), Kendall's tau-b between expected tiers and
overall, twin sensitivity (per change family) and paraphrase stability. Criteria the judge
cannot rule on (the rules judge's ``unjudged``) are left out of every denominator.
"""

from __future__ import annotations

import logging
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver

from gaa._heap import settle_heap
from gaa._text import clean_text
from gaa._versions import TASK_VERSIONS
from gaa.dialogue.rubric import GROUPS, load_rubric
from gaa.dialogue.ruling import JUDGES, judge_dialogue
from gaa.dialogue.scoring import DEFAULT_WEIGHTS
from gaa.dialogue.solver import (
    EVIDENCE_KEY,
    SESSION_KEY,
    STATS_KEY,
    DialogueStats,
    outcome_of,
    stored,
)
from gaa.dialogue.task import parse_weights, persona_sample
from gaa.doctors.reference import CASE_STORE_KEY
from gaa.evidence import DialogueEvidence
from gaa.evidence.model_validator import check_turn, require_validator_model
from gaa.judge_check.agreement import (
    Judged,
    balanced_accuracy,
    cohen_kappa,
    pairs_of,
    sensitivity,
    stability,
    tier_tau,
)
from gaa.judge_check.data import Consultation, JudgeCheckDataError, load_consultations
from gaa.models import DialogueSession, DialogueTurn, PatientPersona
from gaa.personas import parse_persona_id
from gaa.plugins import catalogue
from gaa.teamwork import TeamworkConfig

logger = logging.getLogger(__name__)


def consultation_sample(item: Consultation) -> Sample:
    """The consultation's sample: the persona's metadata (as in medical_dialogue) and the
    labelled consultation."""
    persona = persona_sample(parse_persona_id(item.persona)).metadata or {}
    return Sample(
        id=item.id,
        input=f"Judge the consultation {item.id} ({item.kind}, tier {item.tier}).",
        metadata={
            **persona,
            "consultation": item.model_dump(mode="json"),
            "kind": item.kind,
            "tier": item.tier,
        },
    )


@solver
def load_consultation(validator: str = "rules") -> Solver:
    """Put the labelled consultation in the store as the dialogue solver would have (its
    doctor turns checked by ``validator``)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        item = Consultation.model_validate(state.metadata["consultation"])
        persona = PatientPersona.model_validate(state.metadata["persona"])
        case_entry = catalogue().cases.get(state.metadata["case_name"])
        case = case_entry.item
        state.store.set(CASE_STORE_KEY, case_entry.full_name)
        session = DialogueSession(
            session_id=f"{item.id}-e{state.epoch}", persona_id=persona.persona_id, doctor="labelled"
        )
        evidence = DialogueEvidence.for_case(case)
        stats = DialogueStats()
        decision, willingness = "UNDECIDED", None
        for number, turn in enumerate(item.turns):
            if turn.speaker == "doctor":
                text = clean_text(turn.message)
                validation = await check_turn(text, case, validator, stats.validator_notes)
                evidence.add(validation)
                stats.rounds += 1
                session.turns.append(
                    DialogueTurn(
                        turn_number=number,
                        speaker="doctor",
                        message=text,
                        validation=validation.model_dump(),
                    )
                )
                continue
            decision = turn.decision or decision
            willingness = turn.willingness if turn.willingness is not None else willingness
            if stats.initial_willingness is None:
                stats.initial_willingness = willingness
            session.turns.append(
                DialogueTurn(
                    turn_number=number,
                    speaker="patient",
                    message=turn.message,
                    decision=decision,  # type: ignore[arg-type]
                    willingness=willingness,
                )
            )
        stats.final_decision, stats.final_willingness = decision, willingness
        session.final_outcome = outcome_of(decision)
        state.store.set(SESSION_KEY, session.model_dump(mode="json"))
        state.store.set(EVIDENCE_KEY, evidence.stored())
        state.store.set(STATS_KEY, stats.model_dump(mode="json"))
        return state

    return solve


def judged_items(scores: list[SampleScore]) -> list[Judged]:
    """The scored consultations, as the agreement measures read them."""
    items = []
    for sample_score in scores:
        data = sample_score.score.metadata or {}
        if "labels" not in data:
            continue
        items.append(
            Judged(
                id=str(sample_score.sample_id),
                kind=data["kind"],
                tier=int(data["tier"]),
                overall=float(data["overall"]),
                labels=data["labels"],
                verdicts=data["verdicts"],
                source=data.get("source"),
                family=data.get("family"),
                flips=tuple(data.get("flips") or ()),
            )
        )
    return items


def _number(value: float | None) -> float:
    return float("nan") if value is None else float(value)


@metric
def agreement() -> Metric:
    """Pooled balanced accuracy and kappa, tier tau-b, twin sensitivity, control stability."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        items = judged_items(scores)
        pairs = pairs_of(items)
        share, _ = sensitivity(items)
        return {
            "balanced_accuracy": _number(balanced_accuracy(pairs)),
            "kappa": _number(cohen_kappa(pairs)),
            "tier_tau": _number(tier_tau(items)),
            "twin_sensitivity": _number(share),
            "control_stability": _number(stability(items)),
        }

    return compute


@metric
def group_agreement() -> Metric:
    """Balanced accuracy per rubric group."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        items = judged_items(scores)
        rubric = load_rubric()
        return {
            group: _number(
                balanced_accuracy(
                    pairs_of(items, [c.id for c in rubric.criteria if c.group == group])
                )
            )
            for group in GROUPS
        }

    return compute


@metric
def twin_families() -> Metric:
    """Twin sensitivity per change family."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        _, families = sensitivity(judged_items(scores))
        return families

    return compute


def criterion_agreement(items: list[Judged]) -> dict[str, dict[str, float | int | None]]:
    """Balanced accuracy, kappa and count per criterion (for reports and the summary)."""
    return {
        c.id: {
            "balanced_accuracy": balanced_accuracy(pairs_of(items, [c.id])),
            "kappa": cohen_kappa(pairs_of(items, [c.id])),
            "n": len(pairs_of(items, [c.id])),
        }
        for c in load_rubric().criteria
    }


@scorer(metrics={"agreement": [mean(), agreement(), group_agreement(), twin_families()]})
def judge_check_scorer(
    judge: str = "panel",
    teamwork: str | list[str] = "all",
    safety_gate: bool = True,
    weights: tuple[float, ...] = DEFAULT_WEIGHTS,
    structured_output: bool | None = None,
) -> Scorer:
    """Run the judge as medical_dialogue does; compare its verdicts with the labels."""

    async def score(state: TaskState, target: Target) -> Score:
        session, evidence, stats, sample = stored(state)
        item = Consultation.model_validate(sample["consultation"])
        persona = PatientPersona.model_validate(sample["persona"])
        case = catalogue().cases.get(sample["case_name"]).item
        judgement = await judge_dialogue(
            session,
            evidence,
            stats,
            case,
            persona,
            judge=judge,
            teamwork=teamwork,
            weights=weights,
            safety_gate=safety_gate,
            structured=structured_output,
        )
        verdicts = {
            c: str(v) for c, v in judgement.verdicts.items() if c not in judgement.unjudged
        }
        agreed = [item.labels[c] == v for c, v in verdicts.items()]
        metadata: dict[str, Any] = {
            "kind": item.kind,
            "tier": item.tier,
            "overall": judgement.overall,
            "labels": dict(item.labels),
            "verdicts": verdicts,
            "unjudged": list(judgement.unjudged),
            "source": item.twin_of or item.control_of,
            "family": item.change,
            "flips": list(item.flips),
            "judge": judgement.judge,
            "judge_calls": judgement.judge_calls,
            "fallbacks": list(judgement.fallbacks),
        }
        return Score(
            value={
                "agreement": sum(agreed) / len(agreed) if agreed else 0.0,
                "overall": judgement.overall,
                "calls": float(judgement.judge_calls),
            },
            answer=f"tier {item.tier}, overall {judgement.overall:.1f}",
            metadata=metadata,
        )

    return score


@task
def judge_check(
    judge: str = "panel",
    teamwork: str | list[str] = "all",
    safety_gate: bool = True,
    weights: str | list[str] = "20,25,30,15,10",
    structured_output: bool | None = None,
    consultations: str | None = None,
    validator: str = "rules",
) -> Task:
    """Measure a judge against labelled consultations (``consultations``: a folder of them;
    default: the set shipped with GAA), with the ``rules`` or ``model`` evidence validator."""
    require_validator_model(validator)
    if judge not in JUDGES:
        raise ValueError(f"judge must be one of {', '.join(JUDGES)}, not {judge!r}")
    if judge == "panel":
        TeamworkConfig.parse(teamwork)
    items = load_consultations(consultations)
    installed = {entry.item.case_id for entry in catalogue().cases}
    skipped = sorted({item.case for item in items} - installed)
    if skipped:
        logger.warning(
            "judge_check skips the consultations of cases not installed: %s (the example "
            "plugin's small_aaa comes with pip install ./plugins/gaa-example-plugin)",
            ", ".join(skipped),
        )
    items = [item for item in items if item.case in installed]
    if not items:
        raise JudgeCheckDataError("no labelled consultation is of an installed case")
    settle_heap()
    return Task(
        dataset=MemoryDataset([consultation_sample(i) for i in items], name="gaa-judge-check"),
        solver=load_consultation(validator),
        scorer=judge_check_scorer(
            judge=judge,
            teamwork=teamwork,
            safety_gate=safety_gate,
            weights=parse_weights(weights),
            structured_output=structured_output,
        ),
        name="judge_check",
        version=TASK_VERSIONS["judge_check"],
        metadata={
            "judge": judge,
            "teamwork": teamwork if judge == "panel" else None,
            "skipped_cases": skipped,
            "validator": validator,
        },
    )
