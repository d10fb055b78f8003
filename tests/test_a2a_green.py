"""The A2A assessor (``gaa serve green``) on loopback: a valid EvalRequest ends with an
EvalResult whose numbers are the log's, an invalid one fails with the field named, progress is
streamed, and cancelling stops the eval."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from statistics import mean
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_message_text, new_text_message
from a2a.types.a2a_pb2 import CancelTaskRequest, Role, SendMessageRequest
from a2a.types.a2a_pb2 import TaskState as A2ATaskState
from inspect_ai.log import read_eval_log

from gaa.a2a.assess import send_assessment
from gaa.a2a.client import resolve_card
from gaa.a2a.doctor_server import doctor_app
from gaa.a2a.green_server import RequestError, green_app, parse_eval_request, plan_assessment
from gaa.a2a.scenario import load_scenario
from gaa.errors import A2AError
from gaa.models import EvalRequest
from gaa.testing import free_port, serving

PERSONAS = ["INTJ_M_PNEUMO", "ESFP_F_PNEUMO", "ISTJ_F_LUNG", "ENFP_M_LUNG"]


@contextmanager
def agents(tmp_path: Any, delay: float = 0.0) -> Iterator[tuple[str, str]]:
    """A served reference doctor (answering after ``delay`` seconds) and an assessor."""
    doctor_port, green_port = free_port(), free_port()
    app = doctor_app("reference/exemplary", f"http://127.0.0.1:{doctor_port}/")

    async def slow(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if delay and scope["type"] == "http" and scope["method"] == "POST":
            await asyncio.sleep(delay)
        await app(scope, receive, send)

    green = green_app(f"http://127.0.0.1:{green_port}/", str(tmp_path / "logs"))
    with serving(slow, doctor_port) as doctor_url, serving(green, green_port) as green_url:
        yield doctor_url, green_url


def test_a_valid_request_ends_with_an_eval_result_matching_the_log(tmp_path: Any) -> None:
    statuses: list[str] = []
    with agents(tmp_path) as (doctor_url, green_url):
        request = EvalRequest(
            participants={"doctor": doctor_url},
            config={"persona_ids": PERSONAS, "max_rounds": 3},
        )
        result = asyncio.run(send_assessment(green_url, request, on_status=statuses.append))
    assert result.log_location is not None
    log = read_eval_log(result.log_location)
    assert log.status == "success"
    assert log.eval.task_args["max_rounds"] == 3
    samples = {str(s.id): s for s in log.samples or []}
    assert sorted(samples) == sorted(PERSONAS) == sorted(result.personas)
    by_session = {score.session_id: score for score in result.scores}
    for session in result.sessions:
        sample = samples[session.persona_id]
        stored = sample.store["gaa:session"]
        assert session.session_id == stored["session_id"]
        assert session.doctor_agent_url == doctor_url
        assert len(session.turns) == len(stored["turns"])
        value = sample.scores["dialogue_judge"].value  # type: ignore[index]
        assert isinstance(value, dict)
        assert by_session[session.session_id].overall_score == pytest.approx(value["overall"], 0.01)
        assert by_session[session.session_id].safety_score == pytest.approx(value["safety"])
    overall = [s.scores["dialogue_judge"].value["overall"] for s in samples.values()]  # type: ignore[index]
    assert result.mean_overall_score == pytest.approx(mean(overall), abs=0.01)
    assert result.doctor_agent_url == doctor_url
    assert result.failed_personas == {}
    assert f"{len(PERSONAS)} of {len(PERSONAS)} personas scored" in result.overall_summary
    progress = [s for s in statuses if s.startswith("Completed")]
    assert progress == [f"Completed {n}/4 personas" for n in range(1, 5)]
    assert statuses[0].startswith(f"Assessing {doctor_url} on 4 personas")


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"max_rounds": 0}, "config.max_rounds"),
        ({"max_rounds": "five"}, "config.max_rounds"),
        ({"persona_ids": ["XXXX_M_PNEUMO"]}, "config.persona_ids"),
        ({"persona_ids": []}, "config.persona_ids"),
        ({"personas": ["all"]}, "config.personas"),
        ({"judge": "panel"}, "config.judge"),
        ({"patient": "robot"}, "config.patient"),
        ({"model_roles": {"doctor": "openai/gpt-4o"}}, "config.model_roles.doctor"),
        ({"doctor_connections": 0}, "config.doctor_connections"),
        ({"cases": 5}, "config.cases"),
        ({"cases": []}, "config.cases"),
        ({"cases": ""}, "config.cases"),
        ({"persona_ids": [""]}, "config.persona_ids"),
        ({"persona_ids": [7]}, "config.persona_ids"),
        ({"teamwork": "bogus"}, "config.teamwork"),
        ({"teamwork": 5}, "config.teamwork"),
        ({"teamwork": {"a": 1}}, "config.teamwork"),
    ],
)
def test_an_invalid_config_is_refused_with_the_field_named(
    config: dict[str, Any], field: str
) -> None:
    request = EvalRequest(participants={"doctor": "http://127.0.0.1:9"}, config=config)
    with pytest.raises(RequestError, match=field.replace(".", r"\.")):
        plan_assessment(request)


def test_request_parsing_names_what_is_wrong() -> None:
    with pytest.raises(RequestError, match="not JSON"):
        parse_eval_request("assess http://127.0.0.1:9019 please")
    with pytest.raises(RequestError, match=r"participants\.doctor must be an http"):
        parse_eval_request(json.dumps({"participants": {"doctor": "ftp://x"}}))
    with pytest.raises(RequestError, match=r"participants\.doctor is missing"):
        plan_assessment(parse_eval_request(json.dumps({"participants": {"judge": "http://x"}})))
    wrapped = {
        "entity": "EvalRequest",
        "fields": {"participants": {"doctor": "http://127.0.0.1:9"}, "config": {}},
    }
    plan = plan_assessment(parse_eval_request(json.dumps(wrapped)))
    assert len(plan.personas) == 64
    assert plan.task_args["patient"] == "scripted" and plan.task_args["judge"] == "rules"
    roles = {"patient": "openai/gpt-4o-mini", "judge": "openai/gpt-4o-mini"}
    asking = EvalRequest(participants={"doctor": "http://h:1"}, config={"model_roles": roles})
    with pytest.raises(RequestError, match=r"config\.model_roles\.\w+: this assessor does not"):
        plan_assessment(asking)  # a caller may not spend the operator's keys by default
    plan = plan_assessment(asking, allowed_models=["openai/*"])
    assert plan.task_args["patient"] == "model" and plan.task_args["judge"] == "panel"
    assert plan.model_roles == roles
    with pytest.raises(RequestError, match=r"'hf/some/model'"):
        plan_assessment(
            EvalRequest(
                participants={"doctor": "http://h:1"},
                config={"model_roles": {"judge": "hf/some/model"}},
            ),
            allowed_models=["openai/*"],
        )
    operator = plan_assessment(
        EvalRequest(participants={"doctor": "http://h:1"}),
        default_roles={"judge": "anthropic/claude-3-5-haiku-latest"},
    )
    assert operator.task_args["judge"] == "panel" and operator.task_args["patient"] == "scripted"
    assert operator.model_roles == {"judge": "anthropic/claude-3-5-haiku-latest"}


def test_a_malformed_doctor_url_is_refused_before_anything_runs() -> None:
    request = EvalRequest.model_construct(participants={"doctor": "http://x y"}, config={})
    with pytest.raises(RequestError, match=r"participants\.doctor must be an http"):
        plan_assessment(request)


def test_a_failed_eval_fails_the_task_with_its_reason(tmp_path: Any) -> None:
    green_port = free_port()
    green = green_app(f"http://127.0.0.1:{green_port}/", str(tmp_path / "logs"))
    nobody = f"http://127.0.0.1:{free_port()}"  # no doctor there: every persona fails
    with serving(green, green_port) as green_url:
        request = EvalRequest(
            participants={"doctor": nobody},
            config={"persona_ids": ["INTJ_M_PNEUMO", "ESFJ_F_LUNG"], "max_rounds": 1},
        )
        with pytest.raises(A2AError, match=r"ended with status error") as error:
            asyncio.run(send_assessment(green_url, request))
    assert "log:" in str(error.value)


def test_an_oversized_request_is_refused_before_it_is_parsed(tmp_path: Any) -> None:
    with agents(tmp_path) as (_, green_url):
        response = httpx.post(green_url + "/", content=b"x" * 200_000, timeout=30)
    assert response.status_code == 413


def test_an_invalid_request_over_a2a_fails_the_task_with_the_field(tmp_path: Any) -> None:
    with agents(tmp_path) as (doctor_url, green_url):
        request = EvalRequest(participants={"doctor": doctor_url}, config={"max_rounds": 99})
        with pytest.raises(A2AError, match=r"failed: Invalid EvalRequest: config\.max_rounds"):
            asyncio.run(send_assessment(green_url, request))
    assert not (tmp_path / "logs").exists()  # nothing ran


async def _send_then_cancel(green_url: str, request: EvalRequest) -> list[Any]:
    states: list[Any] = []
    async with httpx.AsyncClient(timeout=60) as http:
        card = await resolve_card(http, green_url)
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        message = new_text_message(request.model_dump_json(), role=Role.ROLE_USER)
        task_id = None
        async for event in client.send_message(SendMessageRequest(message=message)):
            kind = event.WhichOneof("payload")
            if kind == "task":
                task_id = event.task.id
            if kind == "status_update":
                status = event.status_update.status
                states.append(status.state)
                text = get_message_text(status.message) if status.HasField("message") else ""
                if text.startswith("Completed 1/") and task_id is not None:
                    await client.cancel_task(CancelTaskRequest(id=task_id))
    return states


def test_cancelling_the_task_stops_the_eval(tmp_path: Any) -> None:
    personas = ["I*_F_LUNG", "E*_M_PNEUMO"]  # 16 personas
    with agents(tmp_path, delay=0.4) as (doctor_url, green_url):
        request = EvalRequest(
            participants={"doctor": doctor_url},
            config={"persona_ids": personas, "doctor_connections": 1},
        )
        states = asyncio.run(_send_then_cancel(green_url, request))
    assert states[-1] == A2ATaskState.TASK_STATE_CANCELED
    assert A2ATaskState.TASK_STATE_COMPLETED not in states
    [log_file] = list((tmp_path / "logs").glob("*.eval"))
    log = read_eval_log(str(log_file))
    assert log.status == "cancelled"
    finished = [s for s in log.samples or [] if s.scores and s.error is None]
    assert 1 <= len(finished) < 16


def test_the_shipped_scenario_is_a_valid_offline_assessment() -> None:
    scenario = load_scenario("scenarios/medical_dialogue.toml")
    assert scenario.green.cmd and scenario.green.cmd.startswith("gaa serve green")
    doctor = scenario.participants["doctor"]
    assert doctor.cmd and "--doctor reference/exemplary" in doctor.cmd
    request = EvalRequest(
        participants={role: agent.endpoint for role, agent in scenario.participants.items()},
        config=scenario.config,
    )
    plan = plan_assessment(request)
    assert len(plan.personas) == 64
    assert plan.task_args["patient"] == "scripted" and plan.task_args["judge"] == "rules"
    assert plan.model_roles == {}
