"""Requests from the predecessor's assessor (the AgentBeats medical-dialogue green agent) to
``gaa serve doctor``: both of its layouts are read, its opening request (no dialogue history:
the doctor speaks first) gets the doctor's opening, and what cannot be answered gets a reply
saying what is needed, never a failed task or an internal error text.

The requests are in ``tests/fixtures/agentbeats`` (see its README)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
)

from gaa.a2a._server import a2a_app
from gaa.a2a.doctor_server import DoctorExecutor, doctor_app, doctor_card
from gaa.a2a.layout import (
    CLOSING,
    CURRENT_LAYOUT,
    HISTORY_HEADER,
    LEGACY_LAYOUT,
    match_case,
    parse_request,
    render_request,
)
from gaa.doctors.reference import (
    OPENING_CUE,
    doctor_opens,
    exemplary,
    exemplary_opening,
    opening_cue,
)
from gaa.doctors.scripted import scripted_doctors_plugin
from gaa.hookspecs import hookimpl
from gaa.models import MedicalCase
from gaa.plugins import catalogue
from gaa.testing import ScriptedModel, free_port, plugin_registered, serving

FIXTURES = Path(__file__).parent / "fixtures" / "agentbeats"
BUILTIN_TITLES = (
    "Recurrent primary spontaneous pneumothorax",
    "Early-stage non-small-cell lung cancer",
)


@dataclass(frozen=True)
class Expected:
    layout: str
    age: int
    gender: str
    case: str
    diagnosis: str
    treatment: str
    speakers: tuple[str, ...]


EXPECTED = {
    "current_opening_pneumothorax": Expected(
        CURRENT_LAYOUT, 29, "female", "gaa/pneumothorax", "Second spontaneous collapse",
        "VATS", (),
    ),
    "current_followup_pneumothorax": Expected(
        CURRENT_LAYOUT, 29, "female", "gaa/pneumothorax", "Second spontaneous collapse",
        "VATS", ("doctor", "patient"),
    ),
    "current_opening_lung_cancer": Expected(
        CURRENT_LAYOUT, 66, "male", "gaa/lung_cancer", "Stage IA non-small-cell",
        "lobectomy", (),
    ),
    "current_followup_lung_cancer": Expected(
        CURRENT_LAYOUT, 66, "male", "gaa/lung_cancer", "Stage IA non-small-cell",
        "lobectomy", ("doctor", "patient", "doctor", "patient"),
    ),
    "legacy_opening_pneumothorax": Expected(
        LEGACY_LAYOUT, 24, "male", "gaa/pneumothorax", "Recurrent primary spontaneous",
        "VATS bullectomy", (),
    ),
    "legacy_followup_pneumothorax": Expected(
        LEGACY_LAYOUT, 24, "male", "gaa/pneumothorax", "Recurrent primary spontaneous",
        "VATS bullectomy", ("doctor", "patient", "doctor", "patient"),
    ),
    "legacy_opening_lung_cancer": Expected(
        LEGACY_LAYOUT, 71, "female", "gaa/lung_cancer", "Early-stage (IA)",
        "VATS lobectomy", (),
    ),
    "legacy_followup_lung_cancer": Expected(
        LEGACY_LAYOUT, 71, "female", "gaa/lung_cancer", "Early-stage (IA)",
        "VATS lobectomy", ("doctor", "patient"),
    ),
}  # fmt: skip


def fixture(name: str) -> str:
    return (FIXTURES / f"{name}.txt").read_text(encoding="utf-8")


def cases() -> dict[str, MedicalCase]:
    return {entry.full_name: entry.item for entry in catalogue().cases}


def test_every_fixture_has_its_expectations() -> None:
    assert {path.stem for path in FIXTURES.glob("*.txt")} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_both_layouts_are_read_into_the_patient_and_the_dialogue(name: str) -> None:
    expected = EXPECTED[name]
    request = parse_request(fixture(name))
    assert request.layout == expected.layout
    assert request.age == expected.age
    assert request.gender == expected.gender
    assert request.medical_case in ("Pneumothorax", "Lung Cancer")
    assert match_case(request, cases()) == expected.case
    assert request.diagnosis.startswith(expected.diagnosis)
    assert expected.treatment in request.recommended_treatment
    assert tuple(speaker for speaker, _ in request.history) == expected.speakers
    assert request.first_turn is (not expected.speakers)
    assert request.doctor_opens  # the predecessor's doctor always speaks first
    assert all(message and CLOSING not in message for _, message in request.history)
    if expected.layout == CURRENT_LAYOUT:
        assert set(request.treatment) == {
            "Risks", "Benefits", "Prognosis with Treatment", "Prognosis without Treatment"
        }  # fmt: skip
        assert all(request.treatment.values()) and not request.background
    else:
        assert request.value("Symptoms") and not request.treatment
        paragraphs = request.background.split("\n\n")
        assert len(paragraphs) == 2  # the whole background, and nothing after it
        assert "first message" not in request.background and "===" not in request.background


def test_the_last_turn_of_a_follow_up_is_the_patient_s_words_only() -> None:
    request = parse_request(fixture("current_followup_lung_cancer"))
    speaker, message = request.history[-1]
    assert speaker == "patient"
    assert message.startswith("An operation at my age?")
    assert message.endswith("I would rather not go through that.")


def test_an_opening_written_by_gaa_is_a_first_turn_too() -> None:
    case = catalogue().cases.get("pneumothorax").item
    text = render_request(case, "gaa/pneumothorax", 30, "male", [])
    assert HISTORY_HEADER in text
    request = parse_request(text)
    assert request.first_turn and request.doctor_opens and request.history == []


def test_a_gender_the_layout_does_not_know_is_left_unstated() -> None:
    text = fixture("legacy_opening_lung_cancer").replace("Gender: Female", "Gender: None")
    request = parse_request(text)
    assert request.gender is None and request.age == 71


def test_who_speaks_first_is_read_from_the_view() -> None:
    system = ChatMessageSystem(content="brief")
    patient = ChatMessageUser(content="I am worried.")
    doctor = ChatMessageAssistant(content="Hello.")
    views: list[tuple[list[ChatMessage], bool]] = [
        ([system, patient, doctor], False),  # GAA's own order
        ([system, opening_cue()], True),
        ([system, opening_cue(), doctor, patient], True),
        ([system, doctor, patient], True),
        ([system], True),
    ]
    for view, opens in views:
        assert doctor_opens(view) is opens
    assert not doctor_opens([system, ChatMessageUser(content=OPENING_CUE)])  # metadata marks it


def a2a_0_3_send(url: str, text: str, context_id: str | None = None) -> dict[str, Any]:
    """``message/send`` as the predecessor's assessor (a2a-sdk 0.3) sends it."""
    message: dict[str, Any] = {
        "kind": "message",
        "role": "user",
        "messageId": f"m-{free_port()}",
        "parts": [{"kind": "text", "text": text}],
    }
    if context_id:
        message["contextId"] = context_id
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
    response = httpx.post(url + "/", json=body, timeout=30).json()
    assert "result" in response, response
    result: dict[str, Any] = response["result"]
    return result


def task_reply(result: dict[str, Any]) -> str:
    assert result["kind"] == "task", result
    assert result["status"]["state"] == "completed", result["status"]
    [artifact] = result["artifacts"]
    text: str = artifact["parts"][0]["text"]
    return text


def message_reply(result: dict[str, Any]) -> str:
    assert result["kind"] == "message", result  # a reply the assessor logs, not a task
    assert result["role"] == "agent"
    text: str = result["parts"][0]["text"]
    return text


@contextmanager
def served(doctor: str) -> Iterator[str]:
    port = free_port()
    with serving(doctor_app(doctor, f"http://127.0.0.1:{port}/"), port) as url:
        yield url


def one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_request_gets_the_served_doctor_s_turn(name: str) -> None:
    expected = EXPECTED[name]
    case = cases()[expected.case]
    doctor_turns = expected.speakers.count("doctor")
    with served("reference/exemplary") as url:
        reply = task_reply(a2a_0_3_send(url, fixture(name)))
    if doctor_turns == 0:
        assert reply == one_line(exemplary_opening(case))
        assert reply.startswith("Hello, and thank you for coming in today.")
        diagnosis = next(fact for fact in case.facts if fact.kind == "diagnosis")
        assert one_line(diagnosis.said or diagnosis.statement) in reply
    else:
        assert reply == one_line(exemplary(case, doctor_turns + 1))


def _model_doctor_executor(model: ScriptedModel) -> DoctorExecutor:
    return DoctorExecutor("model", {"model": model.model})


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_model_doctor_sees_the_request_s_facts_and_opens_after_the_cue(name: str) -> None:
    import asyncio

    expected = EXPECTED[name]
    model = ScriptedModel(lambda messages: "Good morning; shall we talk it through together?")
    reply = asyncio.run(_model_doctor_executor(model).reply(fixture(name)))
    assert reply == "Good morning; shall we talk it through together?"
    [call] = model.calls
    system, cue, *turns = call.messages
    assert system.role == "system"
    brief = system.text
    assert f"Patient: {expected.age}-year-old {expected.gender}." in brief
    assert f"Diagnosis: {expected.diagnosis}" in brief
    assert "Recommended Treatment: " in brief and expected.treatment in brief
    if expected.layout == CURRENT_LAYOUT:
        assert "Risks: " in brief and "Prognosis without Treatment: " in brief
    else:
        assert "Symptoms: " in brief and "Case background:\n" in brief
        assert parse_request(fixture(name)).background in brief
    assert "Case ID" not in brief
    assert (cue.role, cue.text) == ("user", OPENING_CUE)  # no patient words are invented
    roles = ["assistant" if speaker == "doctor" else "user" for speaker in expected.speakers]
    assert [turn.role for turn in turns] == roles


def test_the_model_doctor_is_served_over_a2a_for_a_case_gaa_does_not_have() -> None:
    model = ScriptedModel(lambda messages: "Hello, I am the surgeon; how are you feeling today?")
    text = fixture("legacy_opening_lung_cancer").replace("Lung Cancer", "Carpal Tunnel Syndrome")
    port = free_port()
    app = a2a_app(_model_doctor_executor(model), doctor_card("gaa/model", f"http://x:{port}/"))
    with serving(app, port) as url:
        reply = task_reply(a2a_0_3_send(url, text))
    assert reply == "Hello, I am the surgeon; how are you feeling today?"
    assert "Medical Case: Carpal Tunnel Syndrome" in model.calls[0].messages[0].text


def _follow_up(opening: str, turns: list[tuple[str, str]]) -> str:
    """The predecessor's next request: the clinical sections of its opening request, then
    the dialogue so far and the closing line."""
    head = opening.split("\nNote:")[0].split("\nThis will be your first message")[0].rstrip()
    history = "\n\n".join(f"{speaker.upper()}: {message}" for speaker, message in turns)
    return f"{head}\n\n{HISTORY_HEADER}\n{history}\n\n{CLOSING}"


@pytest.mark.parametrize("name", ["current_opening_pneumothorax", "legacy_opening_lung_cancer"])
def test_a_whole_assessment_in_the_predecessor_s_order_is_answered_every_round(name: str) -> None:
    case = cases()[EXPECTED[name].case]
    patient_says = [
        "I am not sure I want an operation at all.",
        "What could go wrong?",
        "Can I think about it?",
    ]
    turns: list[tuple[str, str]] = []
    replies: list[str] = []
    with served("reference/exemplary") as url:
        context_id: str | None = None
        for round_, patient in enumerate(patient_says, start=1):
            text = fixture(name) if round_ == 1 else _follow_up(fixture(name), turns)
            result = a2a_0_3_send(url, text, context_id)
            context_id = result["contextId"]
            replies.append(task_reply(result))
            turns += [("doctor", replies[-1]), ("patient", patient)]
    assert replies == [
        one_line(exemplary_opening(case)),
        one_line(exemplary(case, 2)),
        one_line(exemplary(case, 3)),
    ]


def test_a_clinical_section_without_fields_is_answered_with_the_fields_it_needs() -> None:
    text = "=== Patient Information ===\nSee the referral letter.\n\n=== Dialogue History ===\n"
    with served("reference/exemplary") as url:
        said = message_reply(a2a_0_3_send(url, text))
    assert said.startswith("reference/exemplary cannot answer this request:")
    assert "'=== Patient Information ===' has no 'Key: value' lines" in said
    for needed in ("=== Patient Clinical Information ===", "Medical Case", "Symptoms"):
        assert needed in said


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (
            ("Medical Case: Pneumothorax", "Medical Case: Carpal Tunnel Syndrome"),
            "'Medical Case: Carpal Tunnel Syndrome'",
        ),
        (("Medical Case: Pneumothorax\n", ""), "no 'Medical Case' line"),
    ],
)
def test_a_case_the_doctor_does_not_serve_is_answered_with_the_served_cases(
    change: tuple[str, str], named: str
) -> None:
    text = fixture("legacy_followup_pneumothorax").replace(*change)
    with served("reference/exemplary") as url:
        said = message_reply(a2a_0_3_send(url, text))
    assert named in said
    assert all(title in said for title in BUILTIN_TITLES)
    assert "'pneumothorax'" in said and "'LUNG'" in said  # the other names it is known by
    assert "RuntimeError" not in said and "sample store" not in said


def test_gaa_s_own_client_gets_a_failed_task_it_records_for_an_unknown_case() -> None:
    case = catalogue().cases.get("pneumothorax").item
    text = render_request(case, "gaa/pneumothorax", 30, "male", [("patient", "Hello.")])
    text = text.replace("Case ID: gaa/pneumothorax", "Case ID: other/appendix")
    text = text.replace(f"Medical Case: {case.title}", "Medical Case: Carpal Tunnel Syndrome")
    with served("reference/exemplary") as url:
        result = a2a_0_3_send(url, text)
    # GAA's client takes a message for the doctor's turn: a failed task is recorded as an error
    assert result["kind"] == "task" and result["status"]["state"] == "failed"
    said = result["status"]["message"]["parts"][0]["text"]
    assert "Carpal Tunnel Syndrome" in said and BUILTIN_TITLES[0] in said


def test_a_scripted_doctor_without_turns_for_the_case_says_which_cases_it_has(
    tmp_path: Path,
) -> None:
    (tmp_path / "lung_only.yaml").write_text(
        "name: lung_only\nturns:\n  lung_cancer: ['Let us talk about your scan.']\n",
        encoding="utf-8",
    )
    plugin = scripted_doctors_plugin(tmp_path)
    with plugin_registered(plugin, "scripts"), served("scripts/lung_only") as url:
        said = message_reply(a2a_0_3_send(url, fixture("current_opening_pneumothorax")))
        lung = task_reply(a2a_0_3_send(url, fixture("current_opening_lung_cancer")))
    assert "has no turns for case 'pneumothorax'" in said and "lung_cancer" in said
    assert lung == "Let us talk about your scan."


@agent(name="test_broken_doctor")
def broken_doctor() -> Agent:
    async def execute(state: AgentState) -> AgentState:
        raise KeyError("internal detail 7f3a")

    return execute


class _Broken:
    @hookimpl
    def register_doctors(self, register: Callable[..., None]) -> None:
        register("broken", broken_doctor)


def test_an_error_inside_the_server_fails_the_task_without_its_internal_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with plugin_registered(_Broken(), "remote"), served("remote/broken") as url:
        result = a2a_0_3_send(url, fixture("current_opening_pneumothorax"))
    assert result["kind"] == "task" and result["status"]["state"] == "failed"
    said = result["status"]["message"]["parts"][0]["text"]
    assert "the server's log has the details" in said
    assert "7f3a" not in said and "KeyError" not in said
    logged = [r for r in caplog.records if r.name == "gaa.a2a.doctor_server" and r.exc_info]
    assert logged  # the server's own fault is logged with its traceback


def test_malformed_requests_leave_no_traceback_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    bodies: list[bytes | dict[str, Any]] = [
        b"{not json",
        {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {}},
        {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": 5}},
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": []}},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "role": "user",
                    "messageId": "m-1",
                    "parts": [{"kind": "data", "data": {"age": 40}}],
                }
            },
        },
    ]
    with served("reference/exemplary") as url:
        for body in bodies:
            if isinstance(body, bytes):
                response = httpx.post(url + "/", content=body, timeout=30)
            else:
                response = httpx.post(url + "/", json=body, timeout=30)
            assert response.status_code < 500
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert any("Failed to validate" in r.getMessage() for r in caplog.records)  # still said
