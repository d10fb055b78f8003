"""The test kit: scripted models answer offline, with usage, and record what they were asked."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageUser, get_model
from inspect_ai.scorer import exact
from inspect_ai.solver import Generate, TaskState, generate, solver

from gaa.testing import ScriptedModel, scripted_output


@pytest.fixture(autouse=True)
def no_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail loudly if anything falls back to tiktoken (which needs a download)."""
    import tiktoken

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("tiktoken was called: a scripted output lacked usage")

    monkeypatch.setattr(tiktoken, "get_encoding", refuse)
    monkeypatch.setattr(tiktoken, "encoding_for_model", refuse)


async def test_replies_in_order_with_usage_and_recorded_calls() -> None:
    scripted = ScriptedModel(["first answer", "second"])
    out1 = await scripted.model.generate("hello there")
    out2 = await scripted.model.generate([ChatMessageUser(content="again")])
    assert (out1.completion, out2.completion) == ("first answer", "second")
    assert out1.usage is not None and out1.usage.output_tokens == 2
    assert out1.usage.input_tokens == 2
    assert [call.last_text for call in scripted.calls] == ["hello there", "again"]
    with pytest.raises(RuntimeError, match="scripted with 2 and received call 3"):
        await scripted.model.generate("one more")


async def test_responder_sees_the_conversation() -> None:
    def respond(messages: list[ChatMessage]) -> str:
        return f"you said {messages[-1].text!r} in {len(messages)} message(s)"

    model = ScriptedModel(respond).model
    output = await model.generate("ping")
    assert output.completion == "you said 'ping' in 1 message(s)"


async def test_async_responder_and_latency() -> None:
    async def respond(messages: list[ChatMessage]) -> str:
        return messages[-1].text.upper()

    scripted = ScriptedModel(respond, latency=0.01)
    assert (await scripted.model.generate("quiet")).completion == "QUIET"
    assert len(scripted.calls) == 1


async def test_exceptions_in_the_script_are_raised_for_that_call() -> None:
    scripted = ScriptedModel([TimeoutError("slow doctor"), "finally"])
    with pytest.raises(TimeoutError, match="slow doctor"):
        await scripted.model.generate("a")
    assert (await scripted.model.generate("b")).completion == "finally"


async def test_model_output_replies_keep_or_gain_usage() -> None:
    given = scripted_output("with usage", input_tokens=7)
    assert given.usage is not None and given.usage.total_tokens == 9
    bare = scripted_output("x")
    bare.usage = None
    scripted = ScriptedModel([given, bare])
    assert (await scripted.model.generate("a")).usage == given.usage
    second = await scripted.model.generate("two words")
    assert second.usage is not None and second.usage.input_tokens == 2


@solver
def ask_patient():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        reply = await get_model(role="patient").generate(state.input_text)
        state.metadata["patient_said"] = reply.completion
        return state

    return solve


def test_real_eval_with_scripted_roles(tmp_path: Path) -> None:
    doctor = ScriptedModel(lambda messages: "B")
    patient = ScriptedModel(["I am worried", "I am worried"])
    task = Task(
        dataset=[
            Sample(input="Pick B", target="B", id="s1"),
            Sample(input="Pick B", target="B", id="s2"),
        ],
        solver=[ask_patient(), generate()],
        scorer=exact(),
    )
    [log] = eval(
        task,
        model=doctor.model,
        model_roles={"patient": patient.model},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.results is not None
    assert log.results.scores[0].metrics["mean"].value == 1.0
    assert len(doctor.calls) == 2 and len(patient.calls) == 2
    assert log.samples is not None
    assert {s.metadata["patient_said"] for s in log.samples} == {"I am worried"}
    assert log.stats.model_usage  # usage was recorded from the scripted outputs
