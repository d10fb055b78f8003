"""``gaa serve doctor``: any registered doctor as an A2A agent (a "purple" agent).

Each request is one text message in a layout of :mod:`gaa.a2a.layout` (GAA's, the
predecessor's, or the predecessor's older one). The server reads it back into the doctor's view
(the same system message and turns the doctor gets inside ``medical_dialogue``), calls the
doctor once, and answers with a task whose artifact holds the reply (streamed when the client
streams). A request without a dialogue history asks for the doctor's opening message (the
predecessor has the doctor speak first). The case is found by the request's ``Case ID`` (GAA)
or its ``Medical Case`` name (other benchmarks); doctors that read the case (the reference
doctors) need it to be a registered case, the model doctor does not.

A request the server cannot answer (no clinical section it can read, a case the doctor does not
serve) gets a plain A2A message saying what it needs: the predecessor's assessor takes any
task that does not complete for a crash of the whole assessment, and logs a message. GAA's own
client instead gets a failed task with the same words, which it records as the doctor's error
(a message would be taken for the doctor's turn). Errors inside the server fail the task
without their internal text (the server's log has it); malformed JSON-RPC requests are logged
on one line, without a traceback.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from a2a.helpers.proto_helpers import new_task_from_user_message, new_text_message, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import AgentCard, Role
from inspect_ai.agent import Agent, AgentState
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.util import Store
from inspect_ai.util._store import init_subtask_store
from starlette.applications import Starlette

from gaa.a2a._server import ServerLimits, a2a_app, agent_card
from gaa.a2a.layout import (
    DoctorRequest,
    LayoutError,
    case_names,
    match_case,
    matched_by_id,
    parse_request,
    written_by_gaa,
)
from gaa.doctors._factory import accepted_options, required_options
from gaa.doctors.model_doctor import doctor_prompt_for_brief
from gaa.doctors.reference import CASE_STORE_KEY, PERSONA_STORE_KEY, CaseRequired, opening_cue
from gaa.doctors.scripted import ScriptError
from gaa.errors import GAAError, describe
from gaa.models import MedicalCase
from gaa.plugins import catalogue

MAX_REQUEST_CHARS = 1_000_000
DEFAULT_MAX_CONCURRENT = 16
INTERNAL_ERROR = "an error inside the server stopped it (the server's log has the details)"

logger = logging.getLogger(__name__)


class ServeError(GAAError):
    """``gaa serve`` was asked for something it cannot serve."""


class CannotAnswer(GAAError):
    """A request the served doctor cannot answer; the message says what it needs and is sent
    back to the assessor in place of a doctor turn."""


def _brief_from_fields(request: DoctorRequest) -> str:
    """A clinical brief made of the request's own fields (another benchmark's facts are its
    own), led by the patient line GAA's case briefs start with."""
    lines: list[str] = []
    skip = {"case id"}
    if request.age is not None:
        lines.append(f"Patient: {request.age}-year-old {request.gender or 'patient'}.")
        skip |= {"age", "gender"}
    fields = {**request.clinical, **request.treatment}
    lines += [f"{key}: {value}" for key, value in fields.items() if key.casefold() not in skip]
    if request.background:
        lines.append(f"Case background:\n{request.background}")
    return "\n".join(lines)


def doctor_view(request: DoctorRequest, case: MedicalCase | None) -> list[ChatMessage]:
    """The doctor's view of the consultation, as ``medical_dialogue`` builds it in-process:
    the case's own brief when ``case`` is given (the request came from GAA), else a brief made
    of the request's own fields. When the doctor speaks first (the predecessor's order) the
    turns follow the opening cue, so the view still starts with a user message."""
    if case is not None and request.age is not None:
        brief = case.brief_for(request.age, request.gender)
    else:
        brief = _brief_from_fields(request)
    view: list[ChatMessage] = [ChatMessageSystem(content=doctor_prompt_for_brief(brief))]
    if request.doctor_opens:
        view.append(opening_cue())
    for speaker, message in request.history:
        if speaker == "doctor":
            view.append(ChatMessageAssistant(content=message))
        else:
            view.append(ChatMessageUser(content=message))
    return view


def _served_cases(cases: dict[str, MedicalCase]) -> str:
    """Each case by its title, then the other names it is matched by."""

    def known_as(case: MedicalCase) -> str:
        title, *others = (f"'{name}'" for name in case_names(case))
        return f"{title} (or {' or '.join(others)})"

    return "; ".join(known_as(case) for case in cases.values())


def unknown_case(request: DoctorRequest, cases: dict[str, MedicalCase]) -> str:
    """What to say when a doctor that reads the case finds none it serves in the request."""
    named = request.medical_case
    if named:
        problem = f"this request's 'Medical Case: {named}' is none of them"
    else:
        problem = "this request has no 'Medical Case' line naming one"
    return (
        f"it talks about the cases it serves only, and {problem}. "
        f"Served cases (name one in the 'Medical Case' line): {_served_cases(cases)}"
    )


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
        """The doctor's reply to one request message; :class:`CannotAnswer` says what an
        unreadable request, or one about a case the doctor does not serve, lacks."""
        if len(text) > MAX_REQUEST_CHARS:
            raise CannotAnswer(f"the request is longer than {MAX_REQUEST_CHARS} characters")
        try:
            request = parse_request(text)
        except LayoutError as exc:
            raise CannotAnswer(str(exc)) from None
        cases = {entry.full_name: entry.item for entry in catalogue().cases}
        async with self.slots:
            try:
                return await self._turn(request, cases)
            except CaseRequired:
                raise CannotAnswer(unknown_case(request, cases)) from None
            except ScriptError as exc:  # a scripted doctor with no turns for this case
                raise CannotAnswer(str(exc)) from None

    async def _turn(self, request: DoctorRequest, cases: dict[str, MedicalCase]) -> str:
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
        """Compute the turn, then publish it as a task (or say why there is none): whether the
        answer is a task or a message is known only once the doctor has been asked."""
        assert context.message is not None
        text = context.get_user_input()
        try:
            reply = await self.reply(text)
        except CannotAnswer as exc:
            said = f"{self.doctor} cannot answer this request: {exc}"
            logger.info("%s", said)
            if written_by_gaa(text):
                await self._fail(context, event_queue, said)
            else:
                await self._say(context, event_queue, said)
            return
        except GAAError as exc:  # GAA's own words about a doctor or model it could not use
            await self._fail(context, event_queue, f"{self.doctor} could not answer: {exc}")
            return
        except Exception:
            logger.exception("%s could not answer a request", self.doctor)
            said = f"{self.doctor} could not answer: {INTERNAL_ERROR}"
            await self._fail(context, event_queue, said)
            return
        updater = await self._task(context, event_queue)
        await updater.add_artifact([new_text_part(reply)], name="doctor_reply")
        await updater.complete()

    async def _task(self, context: RequestContext, event_queue: EventQueue) -> TaskUpdater:
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        return TaskUpdater(event_queue, task.id, task.context_id)

    async def _fail(self, context: RequestContext, event_queue: EventQueue, said: str) -> None:
        updater = await self._task(context, event_queue)
        await updater.failed(updater.new_agent_message([new_text_part(said)]))

    async def _say(self, context: RequestContext, event_queue: EventQueue, said: str) -> None:
        """Answer with a plain message (no task): the assessor logs it like any reply."""
        assert context.message is not None
        context_id = context.context_id or context.message.context_id or None
        message = new_text_message(said, context_id=context_id, role=Role.ROLE_AGENT)
        await event_queue.enqueue_event(message)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.task_id and context.context_id:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


_BAD_REQUEST_LOGS = ("Failed to validate base JSON-RPC request", "Failed to parse request params")
_SDK_REQUEST_LOGGERS = ("a2a.server.routes.jsonrpc_dispatcher", "a2a.compat.v0_3.jsonrpc_adapter")


class _OneLineForBadRequests(logging.Filter):
    """The A2A SDK logs a request it cannot validate with the validator's traceback; a client's
    malformed JSON-RPC is not a fault of the server, so it becomes one warning line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.getMessage().startswith(_BAD_REQUEST_LOGS):
            error = record.exc_info[1]
            reason = describe(error) if error is not None else "invalid"
            record.msg, record.args = f"{record.getMessage()}: {reason}", ()
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_malformed_requests() -> None:
    """Install the one-line filter on the SDK's request loggers (once per process)."""
    for name in _SDK_REQUEST_LOGGERS:
        sdk_logger = logging.getLogger(name)
        if not any(isinstance(f, _OneLineForBadRequests) for f in sdk_logger.filters):
            sdk_logger.addFilter(_OneLineForBadRequests())


def doctor_card(doctor: str, url: str, bearer: bool = False) -> AgentCard:
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
        bearer=bearer,
    )


def doctor_app(
    doctor: str,
    url: str,
    model: str | None = None,
    max_concurrent: int = DEFAULT_MAX_CONCURRENT,
    *,
    tokens: Sequence[str] = (),
    limits: ServerLimits | None = None,
) -> Starlette:
    """The A2A app serving ``doctor`` (``model`` for doctors that take one), computing at most
    ``max_concurrent`` turns at once; ``tokens`` are the callers' bearer tokens (none:
    anonymous callers, for loopback only), ``limits`` what it holds at most."""
    options = doctor_factory_options(doctor, model)
    executor = DoctorExecutor(doctor, options, max_concurrent)
    quiet_malformed_requests()
    card = doctor_card(executor.doctor, url, bearer=bool(tokens))
    return a2a_app(executor, card, tokens=tokens, limits=limits)
