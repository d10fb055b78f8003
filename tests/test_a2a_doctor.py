"""The A2A doctor on loopback: a served doctor scores as it does in-process, and a remote doctor
that is down, slow, silent, verbose or dies mid-reply fails or recovers as the README says."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessageAssistant
from inspect_ai.util import store
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from gaa.a2a.doctor_server import doctor_app
from gaa.a2a.layout import CLOSING, HISTORY_HEADER, parse_request
from gaa.dialogue.task import BenchmarkConfigError, medical_dialogue
from gaa.doctors.reference import PERSONA_STORE_KEY
from gaa.hookspecs import hookimpl
from gaa.personas import parse_persona_id
from gaa.testing import free_port, plugin_registered, serving

PERSONAS = "INTJ_M_PNEUMO,ESFP_F_PNEUMO,ISTJ_F_LUNG,ENFP_M_LUNG"
OFFLINE = {"patient": "scripted", "judge": "rules", "doctor_retry_wait": 0}


def run(doctor: str, tmp_path: Any, **task_args: Any) -> EvalLog:
    [log] = eval(
        medical_dialogue(doctor=doctor, **{**OFFLINE, **task_args}),
        model="none",
        log_dir=str(tmp_path),
        display="none",
        fail_on_error=False,
    )
    return log


@contextmanager
def served(doctor: str, wrap: Callable[[Any], Any] | None = None) -> Iterator[str]:
    port = free_port()
    app = doctor_app(doctor, f"http://127.0.0.1:{port}/")
    with serving(wrap(app) if wrap else app, port) as url:
        yield url


def overall(sample: EvalSample) -> dict[str, float]:
    assert sample.scores is not None
    value = sample.scores["dialogue_judge"].value
    assert isinstance(value, dict)
    return {key: float(number) for key, number in value.items()}


def dialogue_stats(sample: EvalSample) -> dict[str, Any]:
    stats = sample.store["gaa:dialogue"]
    assert isinstance(stats, dict)
    return stats


@pytest.mark.parametrize("doctor", ["exemplary", "deceptive"])
def test_served_reference_doctor_scores_as_it_does_in_process(doctor: str, tmp_path: Any) -> None:
    local = run(f"reference/{doctor}", tmp_path / "local", personas=PERSONAS)
    with served(f"reference/{doctor}") as url:
        remote = run("a2a", tmp_path / "remote", personas=PERSONAS, doctor_url=url)
    assert local.status == remote.status == "success"
    local_samples = {s.id: s for s in local.samples or []}
    remote_samples = {s.id: s for s in remote.samples or []}
    assert set(local_samples) == set(remote_samples) == set(PERSONAS.split(","))
    for persona, sample in remote_samples.items():
        assert overall(sample) == overall(local_samples[persona]), persona
        session = sample.store["gaa:session"]
        assert session["doctor_agent_url"] == url
        assert session["doctor"] == "gaa/a2a"
        local_turns = [t["message"] for t in local_samples[persona].store["gaa:session"]["turns"]]
        assert [t["message"] for t in session["turns"]] == local_turns
    assert remote.eval.metadata is not None
    assert remote.eval.metadata["doctor_url"] == url


def legacy_purple_agent(received: list[dict[str, Any]], streaming: bool = False) -> Starlette:
    """An agent as AgentBeats' 0.3 tutorials write them: a 0.3 card and ``message/send``."""

    async def card(request: Request) -> JSONResponse:
        port = request.url.port
        return JSONResponse(
            {
                "name": "legacy doctor",
                "description": "an A2A 0.3 purple agent",
                "url": f"http://127.0.0.1:{port}/",
                "version": "0.1.0",
                "protocolVersion": "0.3.0",
                "preferredTransport": "JSONRPC",
                "capabilities": {"streaming": streaming},
                "defaultInputModes": ["text"],
                "defaultOutputModes": ["text"],
                "skills": [
                    {"id": "doctor", "name": "doctor", "description": "talks", "tags": ["x"]}
                ],
            }
        )

    async def rpc(request: Request) -> JSONResponse:
        body = await request.json()
        message = body["params"]["message"]
        text = "".join(part.get("text", "") for part in message["parts"])
        received.append({"method": body["method"], "text": text, "context": message["contextId"]})
        turns = parse_request(text).history
        reply = (
            "I understand this is worrying. The operation is keyhole surgery; the main risk is "
            f"a small air leak. It is your decision. (turn {len(turns)})"
        )
        return JSONResponse(
            {
                "jsonrpc": "2.0",
                "id": body["id"],
                "result": {
                    "kind": "message",
                    "messageId": f"m{len(received)}",
                    "role": "agent",
                    "contextId": message["contextId"],
                    "parts": [{"kind": "text", "text": reply}],
                },
            }
        )

    return Starlette(
        routes=[
            Route("/.well-known/agent-card.json", card),
            Route("/", rpc, methods=["POST"]),
        ]
    )


def test_an_a2a_0_3_purple_agent_works_unmodified(tmp_path: Any) -> None:
    received: list[dict[str, Any]] = []
    with serving(legacy_purple_agent(received)) as url:
        log = run("a2a", tmp_path, personas="INTJ_M_PNEUMO,ESFJ_F_PNEUMO", doctor_url=url)
    assert log.status == "success", log.error
    assert {r["method"] for r in received} == {"message/send"}
    by_context: dict[str, list[str]] = {}
    for request in received:
        by_context.setdefault(request["context"], []).append(request["text"])
    assert len(by_context) == 2  # one context per sample
    for texts in by_context.values():
        first = parse_request(texts[0])
        assert first.clinical["Medical Case"] == "Recurrent primary spontaneous pneumothorax"
        assert first.clinical["Gender"] in ("Male", "Female")
        assert first.treatment["Risks"] and first.treatment["Prognosis without Treatment"]
        # each turn carries the whole dialogue so far: patient opening, then two lines a round
        assert [len(parse_request(text).history) for text in texts] == [
            1 + 2 * n for n in range(len(texts))
        ]
        assert all(HISTORY_HEADER in text and text.endswith(CLOSING) for text in texts)
    for sample in log.samples or []:
        doctor_turns = [t for t in sample.store["gaa:session"]["turns"] if t["speaker"] == "doctor"]
        assert doctor_turns[0]["message"].endswith("(turn 1)")


def test_our_served_doctor_answers_an_a2a_0_3_client() -> None:
    import httpx

    persona = parse_persona_id("INTJ_M_PNEUMO")
    opening = "I keep thinking about the last time my lung collapsed."
    text = (
        "You are a doctor consulting with a patient about recommended surgical treatment.\n\n"
        "=== Patient Clinical Information ===\n"
        f"Age: {persona.age}\nGender: Male\nMedical Case: Pneumothorax\n"
        "Diagnosis: Second collapsed lung\nRecommended Treatment: VATS\n\n"
        "=== Treatment Details ===\nRisks: Infection (1%)\nBenefits: Fewer recurrences\n"
        "Prognosis with Treatment: good\nPrognosis without Treatment: likely to recur\n\n"
        f"=== Dialogue History ===\nPATIENT: {opening}\n\n"
        "Now provide your next response to the patient."
    )
    request = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": "m-1",
                "contextId": "c-1",
                "parts": [{"kind": "text", "text": text}],
            }
        },
    }
    with served("reference/exemplary") as url:
        response = httpx.post(url + "/", json=request, timeout=30).json()
    result = response["result"]
    assert result["kind"] == "task"
    assert result["status"]["state"] == "completed"
    [artifact] = result["artifacts"]
    reply = artifact["parts"][0]["text"]
    assert reply.startswith("Thank you for coming in")
    assert "lung" in reply.lower()  # the case was found from its name: the diagnosis is said


def test_a_request_in_another_layout_is_answered_with_what_it_needs() -> None:
    import httpx

    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": "m-1",
                "parts": [{"kind": "text", "text": "Hello doctor, what should I do?"}],
            }
        },
    }
    with served("reference/exemplary") as url:
        result = httpx.post(url + "/", json=request, timeout=30).json()["result"]
    assert result["kind"] == "message"  # a reply the assessor logs, not a failed task
    said = result["parts"][0]["text"]
    assert "Patient Clinical Information" in said


def test_doctor_server_down_fails_each_sample_clearly_after_retries(tmp_path: Any) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    log = run("a2a", tmp_path, personas="INTJ_M_PNEUMO", doctor_url=url)
    [sample] = log.samples or []
    assert sample.error is not None
    assert "failed 3 times in round 1" in sample.error.message
    assert "no A2A agent card at" in sample.error.message
    assert len(dialogue_stats(sample)["doctor_errors"]) == 3


_calls = {"slow": 0}


@agent(name="test_slow_once")
def slow_once() -> Agent:
    async def execute(state: AgentState) -> AgentState:
        _calls["slow"] += 1
        if _calls["slow"] == 1:
            await asyncio.sleep(6)
        text = "I understand. It is your decision, and you can take your time."
        state.messages.append(ChatMessageAssistant(content=text))
        return state

    return execute


def _reply_agent(text: Callable[[], str]) -> Callable[[], Agent]:
    @agent(name="test_fixed_reply")
    def factory() -> Agent:
        async def execute(state: AgentState) -> AgentState:
            state.messages.append(ChatMessageAssistant(content=text()))
            return state

        return execute

    return factory


class _Doctors:
    @hookimpl
    def register_doctors(self, register: Callable[..., None]) -> None:
        register("slow", slow_once)
        register("silent", _reply_agent(lambda: "   "))
        register("verbose", _reply_agent(lambda: "Let me explain. " * 2_000))
        register("ok", _reply_agent(lambda: "It is your decision; there is no rush."))


@pytest.fixture
def test_doctors() -> Iterator[None]:
    with plugin_registered(_Doctors(), "remote"):
        yield


@pytest.mark.usefixtures("test_doctors")
def test_slow_doctor_times_out_then_the_retry_answers(tmp_path: Any) -> None:
    _calls["slow"] = 0
    with served("remote/slow") as url:
        log = run(
            "a2a", tmp_path, personas="INTJ_M_PNEUMO", doctor_url=url, doctor_timeout=2, max_rounds=1
        )
    [sample] = log.samples or []
    assert sample.error is None, sample.error
    stats = dialogue_stats(sample)
    assert stats["doctor_retries"] == 1
    assert stats["doctor_errors"][0].startswith("round 1, attempt 1: timed out")
    assert _calls["slow"] == 2


@pytest.mark.usefixtures("test_doctors")
@pytest.mark.parametrize(("doctor", "reason"), [("silent", ""), ("verbose", "characters")])
def test_empty_or_oversized_reply_is_asked_again_then_fails_the_sample(
    doctor: str, reason: str, tmp_path: Any
) -> None:
    with served(f"remote/{doctor}") as url:
        log = run("a2a", tmp_path, personas="INTJ_M_PNEUMO", doctor_url=url)
    [sample] = log.samples or []
    assert sample.error is not None
    assert "empty or unusable reply in round 1, twice" in sample.error.message
    stats = dialogue_stats(sample)
    assert stats["doctor_reasks"] == 1
    assert all(reason in error for error in stats["doctor_errors"])
    if reason:
        assert len(stats["doctor_errors"]) == 2


def _canned(
    make_body: Callable[[], bytes], headers: list[tuple[bytes, bytes]]
) -> Callable[[Any], Any]:
    """An agent that answers every POST with ``make_body()`` (made when the agent is served),
    whatever is asked."""

    def wrap(app: Any) -> Any:
        body = make_body()

        async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
            await app(scope, receive, send)

        return wrapped

    return wrap


_huge_reply = _canned(  # 3 MB on the wire
    lambda: json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"x": "y" * 3_000_000}}).encode(),
    [],
)


@pytest.mark.usefixtures("test_doctors")
def test_a_reply_too_large_on_the_wire_is_not_read_whole(tmp_path: Any) -> None:
    with served("remote/ok", wrap=_huge_reply) as url:
        log = run("a2a", tmp_path, personas="INTJ_M_PNEUMO", doctor_url=url)
    [sample] = log.samples or []
    assert sample.error is not None
    errors = dialogue_stats(sample)["doctor_errors"]
    assert len(errors) == 2 and all("larger than" in error for error in errors)


async def _read_posted(receive: Any) -> tuple[bytes, Any]:
    """The whole body of a request, and a ``receive`` that gives it to the app again."""
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return dict(await receive())
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay


def _dies_for(marker: bytes) -> Callable[[Any], Any]:
    """An agent that dies mid-reply on every request containing ``marker``."""

    def wrap(app: Any) -> Any:
        async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["method"] != "POST":
                await app(scope, receive, send)
                return
            body, replay = await _read_posted(receive)
            if marker in body:
                headers = [(b"content-type", b"application/json"), (b"content-length", b"500")]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": b'{"jsonr', "more_body": True})
                raise RuntimeError("the doctor server died")
            await app(scope, replay, send)

        return wrapped

    return wrap


def test_a_server_dying_mid_reply_fails_that_sample_and_the_batch_goes_on(
    tmp_path: Any,
) -> None:
    victim = parse_persona_id("INTJ_M_PNEUMO")
    others = ["ESFP_F_PNEUMO", "ISTJ_F_LUNG", "ENFP_M_LUNG", "ISFP_M_LUNG", "ENTJ_F_LUNG"]
    assert all(parse_persona_id(p).age != victim.age for p in others)
    marker = f"Age: {victim.age}\\nGender: Male\\nMedical Case: Recurrent".encode()
    with served("reference/exemplary", wrap=_dies_for(marker)) as url:
        log = run("a2a", tmp_path, personas=",".join([victim.persona_id, *others]), doctor_url=url)
    samples = {s.id: s for s in log.samples or []}
    assert samples[victim.persona_id].error is not None
    assert "failed 3 times" in samples[victim.persona_id].error.message
    assert all(samples[p].error is None and samples[p].scores for p in others)


def test_connections_to_one_doctor_are_bounded(tmp_path: Any) -> None:
    in_flight = {"now": 0, "most": 0}
    lock = threading.Lock()

    def wrap(app: Any) -> Any:
        async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                with lock:
                    in_flight["now"] += 1
                    in_flight["most"] = max(in_flight["most"], in_flight["now"])
                try:
                    await asyncio.sleep(0.05)
                    await app(scope, receive, send)
                finally:
                    with lock:
                        in_flight["now"] -= 1
                return
            await app(scope, receive, send)

        return wrapped

    personas = "I*_M_PNEUMO"
    with served("reference/passive", wrap=wrap) as url:
        log = run("a2a", tmp_path, personas=personas, doctor_url=url, doctor_connections=2)
    assert log.status == "success"
    assert len(log.samples or []) == 8
    assert in_flight["most"] == 2


def test_doctor_url_is_checked_before_any_sample_runs() -> None:
    with pytest.raises(BenchmarkConfigError, match="doctor_url=http://host:port"):
        medical_dialogue(doctor="a2a")
    with pytest.raises(BenchmarkConfigError, match="http\\(s\\) URL"):
        medical_dialogue(doctor="a2a", doctor_url="localhost:9019")
    with pytest.raises(BenchmarkConfigError, match="does not take doctor_url"):
        medical_dialogue(doctor="reference/exemplary", doctor_url="http://127.0.0.1:9019")
    with pytest.raises(BenchmarkConfigError, match="doctor_connections"):
        medical_dialogue(doctor="a2a", doctor_url="http://127.0.0.1:9", doctor_connections=0)


def test_the_remote_doctor_sees_the_persona_the_solver_stored(tmp_path: Any) -> None:
    seen: list[dict[str, Any]] = []

    @agent(name="test_peek")
    def peek() -> Agent:
        async def execute(state: AgentState) -> AgentState:
            seen.append(dict(store().get(PERSONA_STORE_KEY)))
            state.messages.append(ChatMessageAssistant(content="It is your decision."))
            return state

        return execute

    class Peek:
        @hookimpl
        def register_doctors(self, register: Callable[..., None]) -> None:
            register("peek", peek)

    with plugin_registered(Peek(), "remote"), served("remote/peek") as url:
        log = run("a2a", tmp_path, personas="ESFJ_F_LUNG", doctor_url=url, max_rounds=1)
    assert log.status == "success"
    persona = parse_persona_id("ESFJ_F_LUNG")
    assert seen == [{"age": persona.age, "gender": "female", "case": "gaa/lung_cancer"}]


def test_a_served_model_doctor_sees_the_view_it_sees_in_process(tmp_path: Any) -> None:
    from gaa.a2a.doctor_server import DoctorExecutor
    from gaa.testing import ScriptedModel

    def answer(messages: list[Any]) -> str:
        return f"Reply {sum(m.role == 'assistant' for m in messages) + 1}: it is your decision."

    local_doctor = ScriptedModel(answer)
    [local] = eval(
        medical_dialogue(doctor="model", personas="ISFJ_F_PNEUMO", max_rounds=3, **OFFLINE),
        model=local_doctor.model,
        log_dir=str(tmp_path / "local"),
        display="none",
    )
    remote_doctor = ScriptedModel(answer)
    executor = DoctorExecutor("model", {"model": remote_doctor.model})
    port = free_port()
    from gaa.a2a._server import a2a_app
    from gaa.a2a.doctor_server import doctor_card

    app = a2a_app(executor, doctor_card("gaa/model", f"http://127.0.0.1:{port}/"))
    with serving(app, port) as url:
        remote = run("a2a", tmp_path / "remote", personas="ISFJ_F_PNEUMO", max_rounds=3, doctor_url=url)
    assert local.status == remote.status == "success"
    assert len(local_doctor.calls) == len(remote_doctor.calls) == 3
    for here, there in zip(local_doctor.calls, remote_doctor.calls, strict=True):
        assert [(m.role, m.text) for m in there.messages] == [(m.role, m.text) for m in here.messages]
    [local_sample], [remote_sample] = local.samples or [], remote.samples or []
    assert overall(local_sample) == overall(remote_sample)


def test_gaa_serve_doctor_refuses_what_it_cannot_serve() -> None:
    from click.testing import CliRunner

    from gaa.cli import main

    cases = [
        (["--doctor", "reference/nobody"], "reference/nobody"),
        (["--doctor", "reference/exemplary", "--model", "openai/gpt-4o"], "does not take a model"),
        (["--doctor", "litellm"], "needs a model: --model"),
    ]
    for arguments, message in cases:
        result = CliRunner().invoke(main, ["serve", "doctor", *arguments, "--port", "1"])
        assert result.exit_code == 1, result.output
        assert message in result.output
        assert "Traceback" not in result.output


def test_the_litellm_doctor_is_the_model_doctor_on_a_litellm_model(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gaa.doctors.remote as remote_doctors
    from gaa.a2a.doctor_server import doctor_factory_options
    from gaa.plugins import catalogue

    asked: list[str | None] = []
    monkeypatch.setattr(remote_doctors, "model_doctor", lambda model=None: asked.append(model))
    options = doctor_factory_options("litellm", "openai/gpt-4o-mini")
    assert options == {"model": "openai/gpt-4o-mini"}
    factory = catalogue().doctors.get("litellm").item
    factory(**options)
    factory(model="litellm/anthropic/claude-3-5-haiku-latest")
    assert asked == ["litellm/openai/gpt-4o-mini", "litellm/anthropic/claude-3-5-haiku-latest"]


def test_the_served_doctor_streams_its_turn() -> None:
    import httpx
    from a2a.client import ClientConfig, ClientFactory
    from a2a.helpers.proto_helpers import new_text_message
    from a2a.types.a2a_pb2 import Role, SendMessageRequest

    from gaa.a2a.client import read_reply, resolve_card
    from gaa.a2a.layout import render_request
    from gaa.plugins import catalogue

    persona = parse_persona_id("ENTP_F_LUNG")
    case = catalogue().cases.get("lung_cancer").item
    text = render_request(case, "gaa/lung_cancer", persona.age, "female", [("patient", "Hi.")])

    async def stream(url: str) -> tuple[list[str], str]:
        async with httpx.AsyncClient(timeout=30) as http:
            card = await resolve_card(http, url)
            assert card.capabilities.streaming
            client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
            message = new_text_message(text, context_id="c-1", role=Role.ROLE_USER)
            events = [e async for e in client.send_message(SendMessageRequest(message=message))]
            kinds = [e.WhichOneof("payload") for e in events]

            async def replay() -> Any:
                for event in events:
                    yield event

            return kinds, await read_reply(replay())

    with served("reference/passive") as url:
        kinds, reply = asyncio.run(stream(url))
    assert kinds[0] == "task" and "artifact_update" in kinds and kinds[-1] == "status_update"
    diagnosis = next(f for f in case.facts if f.kind == "diagnosis")
    assert reply.startswith((diagnosis.said or diagnosis.statement)[:40])


_gzipped = _canned(  # 200 MB of text in 200 KB of gzip
    lambda: gzip.compress(b'{"jsonrpc": "2.0", "id": 1, "result": {"x": "' + b"y" * 200_000_000),
    [(b"content-type", b"application/json"), (b"content-encoding", b"gzip")],
)


@pytest.mark.usefixtures("test_doctors")
def test_a_compressed_reply_is_refused_not_unpacked(tmp_path: Any) -> None:
    with served("remote/ok", wrap=_gzipped) as url:
        log = run("a2a", tmp_path, personas="INTJ_M_PNEUMO", doctor_url=url)
    [sample] = log.samples or []
    assert sample.error is not None
    errors = dialogue_stats(sample)["doctor_errors"]
    assert len(errors) == 2 and all("compressed (gzip)" in error for error in errors)


def test_waiting_for_a_connection_does_not_count_against_the_timeout(tmp_path: Any) -> None:
    def wrap(app: Any) -> Any:
        async def slow(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                await asyncio.sleep(1.0)
            await app(scope, receive, send)

        return slow

    personas = "INTJ_M_PNEUMO,ESFP_F_PNEUMO,ISTJ_F_LUNG,ENFP_M_LUNG"
    with served("reference/exemplary", wrap=wrap) as url:
        log = run(
            "a2a",
            tmp_path,
            personas=personas,
            doctor_url=url,
            doctor_connections=1,
            doctor_timeout=3,
            max_rounds=1,
        )
    # one connection, four personas: the last waits about 3 s for its turn, then answers in 1
    assert log.status == "success"
    assert all(not dialogue_stats(s)["doctor_errors"] for s in log.samples or [])


def test_reveal_persona_is_refused_for_a_remote_doctor() -> None:
    with pytest.raises(BenchmarkConfigError, match="reveal_persona"):
        medical_dialogue(doctor="a2a", doctor_url="http://127.0.0.1:9", reveal_persona=True)


@pytest.mark.usefixtures("test_doctors")
def test_asking_again_resends_the_dialogue_without_a_fake_patient_turn(tmp_path: Any) -> None:
    received: list[str] = []

    def wrap(app: Any) -> Any:
        async def first_empty(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["method"] == "POST":
                body, replay = await _read_posted(receive)
                received.append(json.loads(body)["params"]["message"]["parts"][0]["text"])
                await app(scope, replay, send)
                return
            await app(scope, receive, send)

        return first_empty

    with served("remote/silent", wrap=wrap) as url:
        run("a2a", tmp_path, personas="INTJ_M_PNEUMO", doctor_url=url)
    assert len(received) == 2  # asked, then asked again
    assert received[0] == received[1]  # the same dialogue, no "(Your last reply...)" turn


def test_the_served_doctor_computes_at_most_max_concurrent_turns(tmp_path: Any) -> None:
    busy = {"now": 0, "most": 0}

    @agent(name="test_counting")
    def counting() -> Agent:
        async def execute(state: AgentState) -> AgentState:
            busy["now"] += 1
            busy["most"] = max(busy["most"], busy["now"])
            await asyncio.sleep(0.2)
            busy["now"] -= 1
            state.messages.append(ChatMessageAssistant(content="It is your decision."))
            return state

        return execute

    class Counting:
        @hookimpl
        def register_doctors(self, register: Callable[..., None]) -> None:
            register("counting", counting)

    with plugin_registered(Counting(), "remote"):
        port = free_port()
        app = doctor_app("remote/counting", f"http://127.0.0.1:{port}/", max_concurrent=1)
        with serving(app, port) as url:
            log = run(
                "a2a", tmp_path, personas="I*_M_PNEUMO", doctor_url=url, max_rounds=1,
                doctor_connections=8,
            )  # fmt: skip
    assert log.status == "success"
    assert len(log.samples or []) == 8
    assert busy["most"] == 1  # eight personas at once, one turn computed at a time
