"""``gaa serve doctor``: any registered doctor as an A2A agent (a "purple" agent).

Each request is one text message in the layout of :mod:`gaa.a2a.layout`. The server reads it
back into the doctor's view (the same system message and turns the doctor gets inside
``medical_dialogue``), calls the doctor once, and answers with a task whose artifact holds the
reply (streamed when the client streams). The case is found by the request's ``Case ID`` (GAA)
or its ``Medical Case`` name (other benchmarks); doctors that read the case (the reference
doctors) need it to be a registered case, the model doctor does not. A request the server
cannot read fails its task with a message saying what is missing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import AgentCard
from inspect_ai.agent import Agent, AgentState
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.util import Store
from inspect_ai.util._store import init_subtask_store
from starlette.applications import Starlette

from gaa.a2a._server import a2a_app, agent_card
from gaa.a2a.layout import (
    DoctorRequest,
    LayoutError,
    match_case,
    matched_by_id,
    parse_request,
)
from gaa.doctors._factory import accepted_options, required_options
from gaa.doctors.model_doctor import doctor_prompt_for_brief
from gaa.doctors.reference import CASE_STORE_KEY, PERSONA_STORE_KEY
from gaa.errors import GAAError
from gaa.models import MedicalCase
from gaa.plugins import catalogue

MAX_REQUEST_CHARS = 1_000_000
DEFAULT_MAX_CONCURRENT = 16


class ServeError(GAAError):
    """``gaa serve`` was asked for something it cannot serve."""


def _brief_from_fields(request: DoctorRequest) -> str:
    lines = [f"{key}: {value}" for key, value in {**request.clinical, **request.treatment}.items()]
    return "\n".join(lines)


def doctor_view(request: DoctorRequest, case: MedicalCase | None) -> list[ChatMessage]:
    """The doctor's view of the consultation, as ``medical_dialogue`` builds it in-process:
    the case's own brief when ``case`` is given (the request came from GAA), else a brief made
    of the request's own fields (another benchmark's facts are its own)."""
    if case is not None and request.age is not None:
        brief = case.brief_for(request.age, request.gender)
    else:
        brief = _brief_from_fields(request)
    view: list[ChatMessage] = [ChatMessageSystem(content=doctor_prompt_for_brief(brief))]
    for speaker, message in request.history:
        if speaker == "doctor":
            view.append(ChatMessageAssistant(content=message))
        else:
            view.append(ChatMessageUser(content=message))
    return view


def doctor_factory_options(doctor: str, model: str | None) -> dict[str, Any]:
    """The factory options ``--model`` turns into (for doctors that take a ``model``)."""
    factory = catalogue().doctors.get(doctor).item
    if model is not None:
        if "model" not in accepted_options(factory):
            raise ServeError(f"doctor {doctor} does not take a model; leave out --model")
        return {"model": model}
    needed = required_options(factory)
    if needed == ["model"]:
        raise ServeError(f"doctor {doctor} needs a model: --model <name>")
    if needed:
        raise ServeError(f"doctor {doctor} needs {', '.join(needed)} and cannot be served")
    return {}


class DoctorExecutor(AgentExecutor):
    """Answers each request with one turn of the doctor ``doctor``."""

    def __init__(
        self,
        doctor: str,
        options: dict[str, Any] | None = None,
        max_concurrent: int = DEFAULT_MAX_CONCURRENT,
    ) -> None:
        entry = catalogue().doctors.get(doctor)
        self.doctor = entry.full_name
        self.factory = entry.item
        self.options = dict(options or {})
        self.slots = asyncio.Semaphore(max_concurrent)
        """Turns computed at once: more requests wait (a model doctor's provider has limits)."""

    async def reply(self, text: str) -> str:
        """The doctor's reply to one request message (raises on an unreadable request)."""
        async with self.slots:
            return await self._reply(text)

    async def _reply(self, text: str) -> str:
        if len(text) > MAX_REQUEST_CHARS:
            raise LayoutError(f"the request is longer than {MAX_REQUEST_CHARS} characters")
        request = parse_request(text)
        cases = {entry.full_name: entry.item for entry in catalogue().cases}
        case_name = match_case(request, cases)
        case = cases[case_name] if case_name and matched_by_id(request, cases) else None
        sample_store = Store()
        if case_name is not None:
            sample_store.set(CASE_STORE_KEY, case_name)
        sample_store.set(
            PERSONA_STORE_KEY, {"age": request.age, "gender": request.gender, "case": case_name}
        )
        init_subtask_store(sample_store)  # doctors read the case from the sample store
        agent: Agent = self.factory(**self.options)
        view = doctor_view(request, case)
        state = await agent(AgentState(messages=list(view)))
        replies = [m for m in state.messages[len(view) :] if isinstance(m, ChatMessageAssistant)]
        return replies[-1].text if replies else ""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        await updater.start_work()
        try:
            reply = await self.reply(context.get_user_input())
        except Exception as exc:
            known = isinstance(exc, LayoutError | GAAError)
            why = str(exc) if known else f"{type(exc).__name__}: {exc}"
            await updater.failed(
                new_text_message(
                    f"{self.doctor} could not answer: {why}",
                    context_id=task.context_id,
                    task_id=task.id,
                )
            )
            return
        await updater.add_artifact([new_text_part(reply)], name="doctor_reply")
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id and context.context_id:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def doctor_card(doctor: str, url: str) -> AgentCard:
    return agent_card(
        name=f"GAA doctor {doctor}",
        description=(
            f"The GAA doctor '{doctor}' as an A2A agent: send a consultation in the GAA / "
            "AgentBeats medical-dialogue layout, get the doctor's next message to the patient."
        ),
        url=url,
        skill_id="doctor_turn",
        skill_name="Next doctor turn",
        examples=["=== Patient Clinical Information === ... Now provide your next response"],
    )


def doctor_app(
    doctor: str, url: str, model: str | None = None, max_concurrent: int = DEFAULT_MAX_CONCURRENT
) -> Starlette:
    """The A2A app serving ``doctor`` (``model`` for doctors that take one), computing at most
    ``max_concurrent`` turns at once."""
    options = doctor_factory_options(doctor, model)
    executor = DoctorExecutor(doctor, options, max_concurrent)
    return a2a_app(executor, doctor_card(executor.doctor, url))
