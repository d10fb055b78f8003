"""The dialogue solver: one consultation between a doctor and a simulated patient per sample.

The patient opens. Each round: a doctor turn, its evidence validation, a patient turn. The
dialogue stops when the patient accepts or firmly refuses, or after ``max_rounds``. A doctor
that raises or times out is retried with exponential backoff (3 attempts, then the sample
fails with a clear error); an empty reply, or one the doctor declares unusable
(:class:`gaa.errors.UnusableReply`), gets one request to answer again. A patient that
fails is retried once, then says a neutral scripted line (recorded). Every round is a span in
the transcript; the :class:`~gaa.models.DialogueSession`, the validator's findings and the
counts of retries, fallbacks and parse misses go into the sample store.

Each sample draws one random boundary (:mod:`gaa._spotlight`), stored as
``DialogueStats.boundary``: the model patient reads every doctor turn inside it, and the judge
reads it back from the store to mark the transcript the same way. The token is scrubbed from
every doctor reply before anything checks or stores it. Each doctor turn is sanitised for the
patient with the previous doctor turn beside it, so a marker split across turns is read whole.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from uuid import uuid4

import anyio
from inspect_ai.agent import Agent, AgentState
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ModelOutput,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span, store
from pydantic import BaseModel, Field

from gaa._limits import ends_sample
from gaa._roles import role_model, structured_for
from gaa._spotlight import Boundary
from gaa._text import MAX_REPLY_CHARS, bounded, clean_text
from gaa.doctors.model_doctor import doctor_system_prompt
from gaa.doctors.reference import CASE_STORE_KEY, PERSONA_STORE_KEY
from gaa.errors import GAAError, UnusableReply, describe
from gaa.evidence import DialogueEvidence
from gaa.evidence.model_validator import check_turn
from gaa.models import Decision, DialogueSession, DialogueTurn, MedicalCase, Outcome, PatientPersona
from gaa.patient import (
    ModelPatient,
    Patient,
    PatientReply,
    ScriptedPatient,
    construct_system_prompt,
    sanitize_doctor_text,
    template_system_prompt,
)
from gaa.plugins import catalogue

DEFAULT_MAX_ROUNDS = 5
DOCTOR_ATTEMPTS = 3
DEFAULT_RETRY_WAIT = 1.0
DEFAULT_DOCTOR_TIMEOUT = 300.0
SESSION_KEY = "gaa:session"
EVIDENCE_KEY = "gaa:evidence"
STATS_KEY = "gaa:dialogue"
PATIENTS = ("model", "scripted")
REASK = (
    "(Your last reply to the patient was empty or could not be used. Please answer the patient "
    "now, briefly, in your own words.)"
)


class DoctorFailure(GAAError, RuntimeError):
    """The doctor could not produce a reply after every retry."""


class DialogueStats(BaseModel):
    """What went wrong or was worked around during one consultation: nothing is silent."""

    doctor_retries: int = 0
    doctor_errors: list[str] = Field(default_factory=list)
    doctor_reasks: int = 0
    patient_fallbacks: int = 0
    patient_errors: list[str] = Field(default_factory=list)
    parse_misses: int = 0
    """Patient turns whose status stayed unknown (no line, and the follow-up did not help)."""
    status_follow_ups: int = 0
    """Patient turns without the status line whose status came from the follow-up request."""
    constructor_fallback: str | None = None
    sanitized: list[str] = Field(default_factory=list)
    """Lines and sentences of doctor text withheld from the patient (see
    :func:`gaa.patient.sanitize_doctor_text`)."""
    boundary: str = ""
    """This sample's spotlighting token (empty in logs written before it existed)."""
    doctor_truncations: int = 0
    """Doctor replies cut to the reply size limit."""
    validator_notes: dict[str, list[str]] = Field(default_factory=dict)
    """With the model validator: the rules it ``added``, the findings it ``dropped`` (quotes
    not in the turn) and its ``fallbacks`` to the rules alone."""
    initial_willingness: int | None = None
    final_willingness: int | None = None
    final_decision: str = "UNDECIDED"
    rounds: int = 0

    @property
    def fallbacks(self) -> list[str]:
        used = []
        if self.constructor_fallback:
            used.append("patient_constructor_template")
        used += ["patient_neutral_line"] * self.patient_fallbacks
        used += ["patient_status_follow_up"] * self.status_follow_ups
        used += ["doctor_reply_truncated"] * self.doctor_truncations
        used += ["validator_rules_only"] * len(self.validator_notes.get("fallbacks", []))
        return used


async def _ask_doctor(
    doctor: Agent,
    view: list[ChatMessage],
    stats: DialogueStats,
    *,
    name: str,
    round_: int,
    retry_wait: float,
    timeout: float | None,
) -> str:
    reasked = False
    attempt = 0
    messages = list(view)
    while True:
        attempt += 1
        try:
            with anyio.fail_after(timeout):
                state = await doctor(AgentState(messages=list(messages)))
            if not isinstance(state, AgentState):
                raise TypeError(
                    f"the doctor agent returned {type(state).__name__}, not an AgentState"
                )
            new = state.messages[len(messages) :]
            replies = [m for m in new if isinstance(m, ChatMessageAssistant)]
            reply_text = replies[-1].text if replies else ""
        except UnusableReply as exc:
            stats.doctor_errors.append(f"round {round_}, attempt {attempt}: unusable reply ({exc})")
            transcript().info(f"Doctor {name}'s reply was unusable ({exc})", source="dialogue")
            reply_text = ""
        except Exception as exc:
            if ends_sample(exc):
                raise
            error = describe(exc)
            if isinstance(exc, TimeoutError):
                error = f"timed out ({error})"
            stats.doctor_errors.append(f"round {round_}, attempt {attempt}: {error}")
            if attempt >= DOCTOR_ATTEMPTS:
                # ``from None``: the message already names the error (and the endpoint and status
                # of an HTTP one); the provider's own traceback would fill a screen in the log.
                raise DoctorFailure(
                    f"Doctor {name} failed {DOCTOR_ATTEMPTS} times in round {round_} "
                    f"(last error: {error})"
                ) from None
            stats.doctor_retries += 1
            transcript().info(f"Doctor {name} failed ({error}); retrying", source="dialogue")
            await anyio.sleep(retry_wait * 2 ** (attempt - 1))
            continue
        raw, cut = bounded(reply_text, 2 * MAX_REPLY_CHARS)
        text, cut_again = bounded(clean_text(raw))
        if cut or cut_again:
            stats.doctor_truncations += 1
            transcript().info(
                f"Doctor {name}'s reply in round {round_} was cut to {MAX_REPLY_CHARS} characters",
                source="dialogue",
            )
        if text:
            return text
        if reasked:
            raise DoctorFailure(
                f"Doctor {name} gave an empty or unusable reply in round {round_}, twice"
            )
        reasked = True
        stats.doctor_reasks += 1
        messages = [*messages, ChatMessageUser(content=REASK)]
        attempt -= 1  # an empty reply is re-asked, not retried


def outcome_of(decision: str) -> Outcome:
    """The session outcome a patient's last decision means."""
    return {"ACCEPT": "accepted", "REFUSE": "rejected"}.get(decision, "uncertain")  # type: ignore[return-value]


@solver
def dialogue_solver(
    doctor: str = "model",
    patient: str = "model",
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    reveal_persona: bool = False,
    doctor_retry_wait: float = DEFAULT_RETRY_WAIT,
    doctor_timeout: float = DEFAULT_DOCTOR_TIMEOUT,
    compose_patient: bool = True,
    status_follow_up: bool = True,
    structured_output: bool | None = None,
    doctor_options: dict[str, Any] | None = None,
    validator: str = "rules",
) -> Solver:
    """Run the consultation; the sample's metadata names the persona and the case.

    ``doctor_options`` are keyword arguments for the doctor's factory, called once per sample
    (for the A2A doctor: ``url`` and ``connections``; its ``url`` is recorded in the session).

    ``compose_patient=False`` skips the constructor call and uses the template prompt;
    ``status_follow_up`` asks a model patient that left out its status line for it (once per
    turn, schema-constrained with ``structured_output``; ``None``: on for the embedded models).
    """
    entry = catalogue().doctors.get(doctor)
    factory: Callable[[], Agent] = entry.item
    if patient not in PATIENTS:
        raise ValueError(f"patient must be one of {', '.join(PATIENTS)}, not {patient!r}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        persona = PatientPersona.model_validate(state.metadata["persona"])
        case_entry = catalogue().cases.get(state.metadata["case_name"])
        case: MedicalCase = case_entry.item
        store().set(CASE_STORE_KEY, case_entry.full_name)
        store().set(PERSONA_STORE_KEY, persona.model_dump(mode="json"))
        boundary = Boundary.draw()
        stats = DialogueStats(boundary=boundary.token)
        the_patient: Patient
        if patient == "scripted":
            the_patient = ScriptedPatient(persona, case)
        else:
            patient_model = role_model("patient")
            if compose_patient:
                async with span("patient constructor"):
                    prompt, failure = await construct_system_prompt(
                        persona, case, role_model("constructor", patient_model)
                    )
                if failure:
                    stats.constructor_fallback = failure
                    transcript().info(
                        f"Patient constructor failed ({failure}); template used", source="patient"
                    )
            else:
                prompt = template_system_prompt(persona, case)
            persona.system_prompt = prompt
            the_patient = ModelPatient(
                patient_model,
                prompt,
                operation=case.operation,
                status_follow_up=status_follow_up,
                structured=structured_for([patient_model], structured_output),
                boundary=boundary,
            )

        options = dict(doctor_options or {})
        agent = factory(**options)
        session = DialogueSession(
            session_id=f"{state.sample_id}-e{state.epoch}-{uuid4().hex[:12]}",
            persona_id=persona.persona_id,
            doctor=entry.full_name,
            doctor_agent_url=options.get("url"),
        )
        evidence = DialogueEvidence.for_case(case)
        view: list[ChatMessage] = [
            ChatMessageSystem(content=doctor_system_prompt(case, persona, reveal_persona))
        ]
        decision: Decision = "UNDECIDED"
        willingness: int | None = None
        previous_doctor_text = ""

        def save() -> None:
            """Keep the store current, so a sample stopped by a limit can still be judged."""
            stats.final_decision, stats.final_willingness = decision, willingness
            session.final_outcome = outcome_of(decision)
            state.store.set(SESSION_KEY, session.model_dump(mode="json"))
            state.store.set(EVIDENCE_KEY, evidence.model_dump(mode="json"))
            state.store.set(STATS_KEY, stats.model_dump(mode="json"))

        def patient_turn(reply: PatientReply, number: int, doctor_line: str = "") -> None:
            nonlocal decision, willingness
            if reply.fallback:
                stats.patient_fallbacks += 1
            elif not reply.has_status:
                stats.parse_misses += 1
            if reply.status_asked and reply.has_status:
                stats.status_follow_ups += 1
            decision = reply.decision or decision
            willingness = reply.willingness if reply.willingness is not None else willingness
            session.turns.append(
                DialogueTurn(
                    turn_number=number,
                    speaker="patient",
                    message=reply.message,
                    decision=decision,
                    willingness=willingness,
                )
            )
            view.append(ChatMessageUser(content=reply.message))
            transcript().info(  # one event a round: the doctor's turn and the patient's reply
                f"{doctor_line}**Patient** ({decision}, willingness {willingness}): "
                f"{reply.message}",
                source="dialogue",
            )
            save()

        # one span for the whole dialogue: a span snapshots the sample store at its start and
        # end, and the store holds the consultation so far
        async with span("dialogue"):
            patient_turn(await the_patient.open(), 0)
            stats.initial_willingness = willingness
            for round_ in range(1, max_rounds + 1):
                try:
                    text = await _ask_doctor(
                        agent,
                        view,
                        stats,
                        name=entry.full_name,
                        round_=round_,
                        retry_wait=doctor_retry_wait,
                        # a doctor that takes a timeout applies it itself (not to its queueing)
                        timeout=None if "timeout" in options else doctor_timeout,
                    )
                except DoctorFailure:
                    save()  # the store says why the sample failed
                    raise
                text = boundary.scrub(text)
                validation = await check_turn(text, case, validator, stats.validator_notes)
                evidence.add(validation)
                clean, removed = sanitize_doctor_text(text, previous_doctor_text)
                previous_doctor_text = text
                stats.sanitized += removed
                session.turns.append(
                    DialogueTurn(
                        turn_number=2 * round_ - 1,
                        speaker="doctor",
                        message=text,
                        validation=validation.model_dump(),
                    )
                )
                view.append(ChatMessageAssistant(content=text))
                flags = ", ".join(f.rule for f in validation.flags) or "none"
                patient_turn(
                    await the_patient.respond(clean, validation),
                    2 * round_,
                    f"Round {round_}\n\n**Doctor**: {text}\n\n_flags: {flags}_\n\n",
                )
                stats.rounds = round_
                if decision in ("ACCEPT", "REFUSE"):
                    break

        if isinstance(the_patient, ModelPatient):
            stats.patient_errors = the_patient.errors
        session.end_time = datetime.now(UTC)
        save()
        state.metadata["system_prompt"] = persona.system_prompt
        state.messages = [
            (ChatMessageUser if turn.speaker == "patient" else ChatMessageAssistant)(
                content=turn.message
            )
            for turn in session.turns
        ]
        state.output = ModelOutput.from_content(
            model=entry.full_name,
            content=(
                f"Outcome: {session.final_outcome} "
                f"(willingness {willingness}, {stats.rounds} rounds)"
            ),
        )
        return state

    return solve


def stored(
    state: TaskState,
) -> tuple[DialogueSession, DialogueEvidence, DialogueStats, dict[str, Any]]:
    """The session, evidence and stats the solver stored (for the judge)."""
    if state.store.get(SESSION_KEY) is None:
        raise RuntimeError("no consultation to judge: the sample ended before the patient spoke")
    session = DialogueSession.model_validate(state.store.get(SESSION_KEY))
    evidence = DialogueEvidence.model_validate(state.store.get(EVIDENCE_KEY))
    stats = DialogueStats.model_validate(state.store.get(STATS_KEY))
    return session, evidence, stats, dict(state.metadata)
