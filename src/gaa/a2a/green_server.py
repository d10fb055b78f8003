"""``gaa serve green``: the benchmark as an A2A assessor (an AgentBeats "green" agent).

Its input is an :class:`~gaa.models.EvalRequest` as JSON (also wrapped as
``{"entity": "EvalRequest", "fields": {...}}``): ``participants.doctor`` is the doctor agent's
URL; ``config`` takes ``persona_ids`` (ids, patterns or ``["all"]``), ``max_rounds``, and
optionally ``cases``, ``patient`` (``scripted``/``model``), ``judge`` (``rules``/``panel``),
``teamwork``, ``model_roles`` (``{"patient": ..., "judge": ...}``; a role given turns the
matching part to its model by default) and ``doctor_connections``. A bad request fails the task
with the field named. A good one runs ``medical_dialogue`` in-process (one assessment at a
time; others wait), streams "Completed N/M personas", and ends with an ``EvalResult`` artifact
(a data part, and the summary as text). Cancelling the task stops the eval.

The participant is contacted only if the operator's outbound policy allows its host (loopback
by default; ``--allow-host``), and only at that host: a doctor whose agent card sends calls
elsewhere is refused before the assessment starts. A refusal fails the task with one line
naming the participant and why. Failures never carry the server's paths or tracebacks.
"""

from __future__ import annotations

import fnmatch
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import anyio
from a2a.helpers.proto_helpers import (
    new_data_part,
    new_task_from_user_message,
    new_text_message,
    new_text_part,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import AgentCard
from a2a.types.a2a_pb2 import TaskState as A2ATaskState
from inspect_ai import eval_async
from inspect_ai.hooks import Hooks, SampleEnd, hooks
from pydantic import ValidationError
from starlette.applications import Starlette

from gaa._args import HTTP_URL, MAX_ROUNDS_LIMIT, ArgumentError, parse_int
from gaa.a2a._server import ServerLimits, a2a_app, agent_card
from gaa.a2a.client import CardElsewhere, bearer_headers, resolve_card
from gaa.a2a.outbound import OutboundPolicy, RefusedAddress, outbound
from gaa.a2a.results import eval_result
from gaa.dialogue.solver import DEFAULT_MAX_ROUNDS
from gaa.dialogue.task import DEFAULT_DOCTOR_CONNECTIONS, medical_dialogue
from gaa.errors import GAAError
from gaa.models import EvalRequest, EvalResult
from gaa.personas import select_personas
from gaa.teamwork import TeamworkConfig

CONFIG_KEYS = frozenset(
    {
        "persona_ids",
        "max_rounds",
        "cases",
        "patient",
        "judge",
        "teamwork",
        "model_roles",
        "doctor_connections",
    }
)
MODEL_ROLES = frozenset({"patient", "judge", "constructor", "teamwork"})
MAX_REQUEST_BYTES = 64_000
PREFLIGHT_TIMEOUT = 10.0
INTERNAL_ERROR = "an error inside the assessor stopped it (the assessor's log has the details)"

logger = logging.getLogger(__name__)


class RequestError(GAAError, ValueError):
    """An EvalRequest the assessor cannot run; the message names the field."""


@dataclass
class Assessment:
    """A checked EvalRequest: what ``medical_dialogue`` will run."""

    doctor_url: str
    task_args: dict[str, Any]
    model_roles: dict[str, str] = field(default_factory=dict)
    personas: list[str] = field(default_factory=list)


def parse_eval_request(text: str) -> EvalRequest:
    """The EvalRequest in a message's text (plain, or wrapped in ``entity``/``fields``)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RequestError(f"the request is not JSON ({exc.msg} at character {exc.pos})") from None
    if isinstance(data, dict) and data.get("entity") == "EvalRequest" and "fields" in data:
        data = data["fields"]
    if not isinstance(data, dict):
        raise RequestError("the request must be a JSON object with participants and config")
    try:
        return EvalRequest.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "request"
        said = str(first["msg"]).removeprefix("Value error, ")
        raise RequestError(said if said.startswith(where) else f"{where}: {said}") from None


def _names(field: str, value: Any) -> list[str]:
    """A list of non-empty names (or one name) from the request, else a RequestError."""
    items = [value] if isinstance(value, str) else value
    if (
        not isinstance(items, list)
        or not items
        or not all(isinstance(item, str) and item.strip() for item in items)
    ):
        raise RequestError(f"{field} must be a non-empty list of names, not {value!r}")
    return [item.strip() for item in items]


def _allowed(model: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(model, pattern) for pattern in patterns)


def _doctor_url(request: EvalRequest) -> str:
    """The doctor agent's http(s) URL, from ``participants.doctor``."""
    if "doctor" not in request.participants:
        raise RequestError(
            "participants.doctor is missing: give the doctor agent's URL, e.g. "
            '{"participants": {"doctor": "http://127.0.0.1:9019"}}'
        )
    doctor_url = request.participants["doctor"]
    if not HTTP_URL.match(doctor_url):
        raise RequestError(f"participants.doctor must be an http(s) URL, not {doctor_url!r}")
    return doctor_url


def _check_keys(config: dict[str, Any]) -> None:
    unknown = sorted(set(config) - CONFIG_KEYS)
    if unknown:
        raise RequestError(
            f"config.{unknown[0]} is not a known setting; known: {', '.join(sorted(CONFIG_KEYS))}"
        )


def _model_roles(
    config: dict[str, Any], default_roles: dict[str, str] | None, allowed_models: Sequence[str]
) -> dict[str, str]:
    """The operator's models, with the request's own where ``allowed_models`` allows them."""
    asked = config.get("model_roles") or {}
    if not isinstance(asked, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in asked.items()
    ):
        raise RequestError('config.model_roles must map roles to model names, e.g. {"judge": "m"}')
    if set(asked) - MODEL_ROLES:
        wrong = sorted(set(asked) - MODEL_ROLES)[0]
        raise RequestError(
            f"config.model_roles.{wrong} is not a role; roles: {', '.join(sorted(MODEL_ROLES))}"
        )
    for role, model in asked.items():
        if not _allowed(model.strip(), allowed_models):
            raise RequestError(
                f"config.model_roles.{role}: this assessor does not run {model!r} for requests "
                f"(allowed: {', '.join(allowed_models) or 'none'}; its operator sets them with "
                "gaa serve green --allow-model)"
            )
    return {**(default_roles or {}), **{k: v.strip() for k, v in asked.items()}}


def _limits(config: dict[str, Any]) -> tuple[int, int]:
    """``max_rounds`` and ``doctor_connections``, within their limits."""
    try:
        rounds = parse_int(
            "config.max_rounds", config.get("max_rounds", DEFAULT_MAX_ROUNDS), 1, MAX_ROUNDS_LIMIT
        )
        connections = parse_int(
            "config.doctor_connections",
            config.get("doctor_connections", DEFAULT_DOCTOR_CONNECTIONS),
            1,
            256,
        )
    except ArgumentError as exc:
        raise RequestError(str(exc)) from None
    return rounds, connections


def _personas(config: dict[str, Any]) -> tuple[list[str], list[str] | None]:
    """The persona ids the request selects, and the cases it names (if any)."""
    ids = _names("config.persona_ids", config.get("persona_ids", ["all"]))
    cases = _names("config.cases", config["cases"]) if "cases" in config else None
    try:
        selected = select_personas(ids, cases)
    except GAAError as exc:
        raise RequestError(f"config.persona_ids: {exc}") from None
    return [p.persona_id for p in selected], cases


def _patient_and_judge(config: dict[str, Any], roles: dict[str, str]) -> tuple[str, str]:
    """The patient and the judge: a model where the roles give one, else scripted and rules."""
    patient = config.get("patient", "model" if "patient" in roles else "scripted")
    judge = config.get("judge", "panel" if "judge" in roles else "rules")
    if patient not in ("model", "scripted"):
        raise RequestError(f"config.patient must be model or scripted, not {patient!r}")
    if judge not in ("panel", "rules"):
        raise RequestError(f"config.judge must be panel or rules, not {judge!r}")
    if patient == "model" and "patient" not in roles:
        raise RequestError("config.patient is model but no patient model is given")
    if judge == "panel" and not ({"judge", "teamwork"} & set(roles)):
        raise RequestError("config.judge is panel but no judge model is given")
    return patient, judge


def _teamwork(config: dict[str, Any]) -> Any:
    """The teamwork preset (or list) the request names, checked; ``None`` when it names none."""
    teamwork = config.get("teamwork")
    if teamwork is not None:
        if not isinstance(teamwork, str | list) or (
            isinstance(teamwork, list) and not all(isinstance(t, str) for t in teamwork)
        ):
            raise RequestError(f"config.teamwork must be a preset name, not {teamwork!r}")
        try:
            TeamworkConfig.parse(teamwork)
        except GAAError as exc:
            raise RequestError(f"config.teamwork: {exc}") from None
    return teamwork


def plan_assessment(
    request: EvalRequest,
    default_roles: dict[str, str] | None = None,
    allowed_models: Sequence[str] = (),
) -> Assessment:
    """Check every field of ``request`` and turn it into ``medical_dialogue`` arguments.

    ``default_roles`` are the operator's models (``gaa serve green --model-role``); a request
    may name models of its own only where they match ``allowed_models`` (glob patterns): a
    caller must not be able to spend the operator's keys or start local models at will."""
    doctor_url = _doctor_url(request)
    config = request.config
    _check_keys(config)
    roles = _model_roles(config, default_roles, allowed_models)
    rounds, connections = _limits(config)
    personas, cases = _personas(config)
    patient, judge = _patient_and_judge(config, roles)
    teamwork = _teamwork(config)
    task_args: dict[str, Any] = {
        "personas": personas,
        "doctor": "a2a",
        "doctor_url": doctor_url,
        "doctor_connections": connections,
        "max_rounds": rounds,
        "patient": patient,
        "judge": judge,
    }
    if cases is not None:
        task_args["cases"] = cases
    if teamwork is not None:
        task_args["teamwork"] = teamwork
    return Assessment(
        doctor_url=doctor_url,
        task_args=task_args,
        model_roles=roles,
        personas=task_args["personas"],
    )


Progress = Callable[[SampleEnd], Awaitable[None]]
_listeners: list[Progress] = []


@hooks(name="gaa_assessment_progress", description="Progress of GAA A2A assessments")
class _AssessmentProgress(Hooks):
    """Forwards each finished sample to the assessment running in this process (if any)."""

    async def on_sample_end(self, data: SampleEnd) -> None:
        for listener in list(_listeners):
            await listener(data)


def _quiet_display() -> None:
    """No progress display in the server's terminal (eval_async would pick "plain")."""
    from inspect_ai.util._display import display_type_initialized, init_display_type

    if not display_type_initialized():
        init_display_type("none")


async def check_participant(
    plan: Assessment, policy: OutboundPolicy, token: str | None = None
) -> None:
    """Refuse (:class:`RequestError`, one line naming the participant and why) a doctor the
    operator's ``policy`` does not allow, or whose agent card sends calls to another host. A
    doctor that does not answer yet is not refused here: the eval reports it as it does any
    doctor error."""
    import httpx

    where = f"participants.doctor ({plan.doctor_url})"
    try:
        await policy.check_url(plan.doctor_url)
        with outbound(policy, token), anyio.move_on_after(PREFLIGHT_TIMEOUT):
            timeout = httpx.Timeout(PREFLIGHT_TIMEOUT)
            async with httpx.AsyncClient(timeout=timeout, headers=bearer_headers(token)) as http:
                await resolve_card(http, plan.doctor_url)
    except (RefusedAddress, CardElsewhere) as exc:
        raise RequestError(f"{where} is refused: {exc}") from None
    except GAAError:
        return  # no card yet: the eval says so, persona by persona


async def run_assessment(
    plan: Assessment,
    log_dir: str,
    on_sample: Progress | None = None,
    policy: OutboundPolicy | None = None,
    token: str | None = None,
) -> EvalResult:
    """Run the assessment in-process and read its EvalResult from the log; the doctor is
    contacted as ``policy`` allows (default: loopback only), with ``token``."""
    task = medical_dialogue(**plan.task_args)
    _quiet_display()
    if on_sample is not None:
        _listeners.append(on_sample)
    try:
        with outbound(policy or OutboundPolicy(), token):
            [log] = await eval_async(
                task,
                model="none",
                model_roles=dict(plan.model_roles) or None,
                log_dir=log_dir,
                log_level="warning",
                # Inspect's control server is a second uvicorn server in this process: it would
                # take the process's signals while the eval runs, and when it stops,
                # sse-starlette reads its exit flag as this server's shutdown and cuts every
                # open stream.
                ctl_server=False,
            )
    finally:
        if on_sample is not None:
            _listeners.remove(on_sample)
    return eval_result(log, plan.doctor_url)


class GreenExecutor(AgentExecutor):
    """Runs one assessment per task; a lock keeps them one at a time (Inspect runs one eval
    per process at a time)."""

    def __init__(
        self,
        log_dir: str = "logs/green",
        model_roles: dict[str, str] | None = None,
        allowed_models: Sequence[str] = (),
        policy: OutboundPolicy | None = None,
        doctor_token: str | None = None,
    ) -> None:
        self.log_dir = log_dir
        self.model_roles = dict(model_roles or {})
        self.allowed_models = tuple(allowed_models)
        self.policy = policy or OutboundPolicy()
        self.doctor_token = doctor_token
        self._lock = anyio.Lock()
        self._running: dict[str, anyio.CancelScope] = {}

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None
        task = context.current_task or new_task_from_user_message(context.message)
        await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)

        def say(text: str) -> Any:
            return new_text_message(text, context_id=task.context_id, task_id=task.id)

        try:
            request = parse_eval_request(context.get_user_input())
            plan = plan_assessment(request, self.model_roles, self.allowed_models)
            await check_participant(plan, self.policy, self.doctor_token)
        except Exception as exc:  # a request must never escape as a raw server error
            if isinstance(exc, GAAError):
                reason = str(exc)
            else:
                logger.exception("an EvalRequest could not be read")
                reason = INTERNAL_ERROR
            logger.info("refused an EvalRequest: %s", reason)
            await updater.failed(say(f"Invalid EvalRequest: {reason}"))
            return
        total = len(plan.personas)
        await updater.start_work(say(f"Assessing {plan.doctor_url} on {total} personas"))
        done = 0
        scope = anyio.CancelScope()
        self._running[task.id] = scope

        async def progress(_: SampleEnd) -> None:
            nonlocal done
            done += 1
            if not scope.cancel_called:
                await updater.update_status(
                    A2ATaskState.TASK_STATE_WORKING, say(f"Completed {done}/{total} personas")
                )

        try:
            if self._lock.locked():
                await updater.update_status(
                    A2ATaskState.TASK_STATE_WORKING, say("Waiting for the running assessment")
                )
            with scope:
                async with self._lock:
                    try:
                        result = await run_assessment(
                            plan, self.log_dir, progress, self.policy, self.doctor_token
                        )
                    except Exception as exc:
                        if not scope.cancel_called:
                            if isinstance(exc, GAAError):
                                reason = str(exc)
                            else:
                                logger.exception("an assessment failed")
                                reason = INTERNAL_ERROR
                            await updater.failed(say(f"The assessment failed: {reason}"))
                        return
        finally:
            self._running.pop(task.id, None)
        if scope.cancel_called:
            return  # cancel() has reported the task cancelled; the log says "cancelled"
        data = result.model_dump(mode="json")
        await updater.add_artifact(
            [new_text_part(result.overall_summary), new_data_part(data)], name="EvalResult"
        )
        if result.status != "success":
            why = result.error or "no reason recorded"
            where = PurePath(result.log_location).name if result.log_location else "none"
            await updater.failed(
                say(f"The eval ended with status {result.status} ({why}); log: {where}")
            )
        elif result.mean_overall_score is None:
            await updater.failed(say(f"No persona was scored: {result.overall_summary}"))
        else:
            await updater.complete(
                say(
                    f"Assessment complete: mean overall {result.mean_overall_score:.2f} over "
                    f"{len(result.scores)} of {total} personas"
                )
            )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """Stop the task's eval (Inspect writes its log as cancelled) and report it."""
        if context.task_id:
            scope = self._running.get(context.task_id)
            if scope is not None:
                scope.cancel()
        if context.task_id and context.context_id:
            await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


def green_card(url: str, bearer: bool = False) -> AgentCard:
    return agent_card(
        name="GAA medical dialogue assessor",
        description=(
            "Runs the GAA medical dialogue benchmark against a doctor agent: send an EvalRequest "
            '(JSON: {"participants": {"doctor": URL}, "config": {"persona_ids": ["all"], '
            '"max_rounds": 5}}), receive progress and an EvalResult.'
        ),
        url=url,
        skill_id="assess_doctor",
        skill_name="Assess a doctor agent",
        examples=['{"participants": {"doctor": "http://127.0.0.1:9019"}, "config": {}}'],
        bearer=bearer,
    )


def green_app(
    url: str,
    log_dir: str = "logs/green",
    model_roles: dict[str, str] | None = None,
    allowed_models: Sequence[str] = (),
    *,
    tokens: Sequence[str] = (),
    policy: OutboundPolicy | None = None,
    doctor_token: str | None = None,
    limits: ServerLimits | None = None,
) -> Starlette:
    """The assessor's A2A app; ``model_roles`` are the operator's models, ``allowed_models``
    the glob patterns of models a request may name; ``tokens`` the callers' bearer tokens
    (none: anonymous, loopback only); ``policy`` the participant hosts it may contact
    (default loopback only) and ``doctor_token`` the token it sends them."""
    executor = GreenExecutor(log_dir, model_roles, allowed_models, policy, doctor_token)
    limits = limits or ServerLimits(max_request_bytes=MAX_REQUEST_BYTES)
    return a2a_app(executor, green_card(url, bool(tokens)), tokens=tokens, limits=limits)
