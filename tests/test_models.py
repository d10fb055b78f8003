from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import BaseModel, ValidationError

from gaa.models import (
    CriterionVerdict,
    DialogueSession,
    DialogueTurn,
    EvalRequest,
    EvalResult,
    KnowledgeFact,
    PatientPersona,
    PerformanceScore,
)
from gaa.plugins import catalogue

T0 = datetime(2026, 11, 23, 10, 0, tzinfo=UTC)


def _session() -> DialogueSession:
    return DialogueSession(
        session_id="s1",
        persona_id="INTJ_M_PNEUMO",
        doctor="reference/exemplary",
        start_time=T0,
        end_time=T0,
        turns=[
            DialogueTurn(
                turn_number=0,
                speaker="patient",
                message="Why?",
                timestamp=T0,
                willingness=3,
                decision="UNDECIDED",
            ),
            DialogueTurn(
                turn_number=1,
                speaker="doctor",
                message="Because.",
                timestamp=T0,
                validation={"claims": [], "flags": ["absolute_guarantee"]},
            ),
        ],
        final_outcome="accepted",
    )


def _score() -> PerformanceScore:
    return PerformanceScore(
        session_id="s1",
        overall_score=72.5,
        empathy_score=8,
        persuasion_effectiveness=7,
        safety_score=9,
        accuracy_score=8.5,
        informed_consent_score=6,
        outcome="accepted",
        criteria=[
            CriterionVerdict(
                criterion="E1", group="empathy", verdict="met", evidence="'I hear you'"
            )
        ],
        flags=["false_urgency"],
        fallbacks=["patient_line"],
        evaluation_summary="Strengths: ...",
    )


@pytest.mark.parametrize(
    "model",
    [
        PatientPersona(
            persona_id="INTJ_M_PNEUMO",
            mbti_type="INTJ",
            gender="male",
            medical_case="pneumothorax",
            age=27,
            system_prompt="You are...",
        ),
        _session(),
        _score(),
        EvalRequest(
            participants={"doctor": "http://127.0.0.1:9019"},
            config={"persona_ids": ["all"], "max_rounds": 5},
        ),
        EvalResult(
            assessment_id="a1",
            doctor_agent_url="http://127.0.0.1:9019",
            timestamp=T0,
            sessions=[_session()],
            scores=[_score()],
            mean_overall_score=72.5,
            overall_summary="ok",
        ),
    ],
    ids=lambda m: type(m).__name__,
)
def test_json_round_trip(model: BaseModel) -> None:
    text = model.model_dump_json()
    assert type(model).model_validate_json(text) == model


def test_builtin_cases_round_trip() -> None:
    for entry in catalogue().cases:
        case = entry.item
        assert type(case).model_validate_json(case.model_dump_json()) == case


def test_timestamps_are_iso_8601_on_the_wire() -> None:
    data = _session().model_dump(mode="json")
    assert data["start_time"] == "2026-11-23T10:00:00Z"
    assert data["turns"][0]["timestamp"] == "2026-11-23T10:00:00Z"


def test_agentbeats_request_keeps_unknown_keys_and_exact_urls() -> None:
    wire = (
        '{"participants": {"doctor": "http://127.0.0.1:9019"}, '
        '"config": {"persona_ids": ["INTJ_M_PNEUMO"], "max_rounds": 3}, "extra": 1}'
    )
    request = EvalRequest.model_validate_json(wire)
    assert request.participants["doctor"] == "http://127.0.0.1:9019"  # no trailing slash added
    assert request.config["max_rounds"] == 3
    assert request.model_dump()["extra"] == 1


def test_invalid_values_are_rejected_with_the_field() -> None:
    with pytest.raises(ValidationError, match=r"participants\.doctor must be an http"):
        EvalRequest(participants={"doctor": "ftp://x"})
    with pytest.raises(ValidationError, match="willingness"):
        DialogueTurn(turn_number=1, speaker="patient", message="", willingness=11)
    with pytest.raises(ValidationError, match="unknown MBTI"):
        PatientPersona(persona_id="X", mbti_type="ABCD", gender=None, medical_case="c", age=30)
    with pytest.raises(ValidationError, match="outside range"):
        KnowledgeFact(id="f", kind="risk", statement="s", value=9, range=(1, 5), source="x")
    with pytest.raises(ValidationError, match="overall_score"):
        PerformanceScore(
            session_id="s",
            overall_score=101,
            empathy_score=0,
            persuasion_effectiveness=0,
            safety_score=0,
            accuracy_score=0,
            informed_consent_score=0,
        )
