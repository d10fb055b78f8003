"""The dialogue solver: one consultation between a doctor and a simulated patient per sample.

The patient opens. Each round: a doctor turn, its evidence validation, a patient turn. The
dialogue stops when the patient accepts or firmly refuses, or after ``max_rounds``. A doctor
that raises or times out is retried with exponential backoff (3 attempts, then the sample
fails with a clear error); an empty reply, or one the doctor declares unusable
(:class:`gaa.errors.UnusableReply`), gets one request to answer again. A patient that
fails is retried once, then says a neutral scripted line (recorded). The consultation is one
span with one transcript event a round; the :class:`~gaa.models.DialogueSession`, the
validator's findings and the counts of retries, fallbacks and parse misses go into the sample
store.

Each sample draws one random boundary (:mod:`gaa.dialogue._spotlight`), stored as
``DialogueStats.boundary``: the model patient reads every doctor turn inside it, and the judge
reads it back from the store to mark the transcript the same way. The token is scrubbed from
every doctor reply before anything checks or stores it. Each doctor turn is sanitised for the
patient with the previous doctor turn beside it, so a marker split across turns is read whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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
from inspect_ai.util import store
from pydantic import BaseModel, Field

from gaa._limits import ends_sample
from gaa._roles import role_model, structured_for
from gaa._spans import phase_span
from gaa._text import MAX_REPLY_CHARS, bounded, clean_text
from gaa.dialogue._spotlight import Boundary
from gaa.dialogue.explanation import DECISIONS, status_words
from gaa.dialogue.patient import (
    ModelPatient,
    Patient,
    PatientReply,
    ScriptedPatient,
    construct_system_prompt,
    sanitize_doctor_text,
    template_system_prompt,
)
from gaa.doctors.model_doctor import doctor_system_prompt
from gaa.doctors.reference import CASE_STORE_KEY, PERSONA_STORE_KEY
from gaa.errors import GAAError, UnusableReply, describe
from gaa.evidence import DialogueEvidence, TurnValidation
from gaa.evidence.model_validator import check_turn
from gaa.models import Decision, DialogueSession, DialogueTurn, MedicalCase, Outcome, PatientPersona
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
    :func:`gaa.dialogue.patient.sanitize_doctor_text`)."""
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


async def make_patient(
    kind: str,
    persona: PatientPersona,
    case: MedicalCase,
    stats: DialogueStats,
    boundary: Boundary,
    *,
    compose: bool,
    status_follow_up: bool,
    structured_output: bool | None,
) -> Patient:
    """The sample's patient: scripted, or a model whose system prompt the constructor composes
    (the template when it fails, recorded; or when ``compose`` is off). The model patient's
    prompt is kept in ``persona.system_prompt``."""
    if kind == "scripted":
        return ScriptedPatient(persona, case)
    patient_model = role_model("patient")
    if compose:
        async with phase_span("patient constructor"):
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
    return ModelPatient(
        patient_model,
        prompt,
        operation=case.operation,
        status_follow_up=status_follow_up,
        structured=structured_for([patient_model], structured_output),
        boundary=boundary,
    )


@dataclass(frozen=True)
class DoctorCalls:
    """How the solver calls the doctor under test."""

    name: str
    factory: Callable[..., Agent]
    options: dict[str, Any]
    """Keyword arguments for the factory, called once per sample."""
    retry_wait: float
    timeout: float
    """Applied by the solver, unless the doctor takes a ``timeout`` and applies it itself."""


class Consultation:
    """One consultation in progress: the doctor, the patient, what each has said and what the
    validator found, kept current in the sample store (:meth:`save`)."""

    def __init__(
        self,
        state: TaskState,
        persona: PatientPersona,
        case: MedicalCase,
        stats: DialogueStats,
        boundary: Boundary,
        patient: Patient,
        doctor: DoctorCalls,
        *,
        reveal_persona: bool,
        validator: str,
    ) -> None:
        self.state = state
        self.case = case
        self.persona = persona
        self.stats = stats
        self.boundary = boundary
        self.patient = patient
        self.doctor = doctor
        self.validator = validator
        self.agent = doctor.factory(**doctor.options)
        self.session = DialogueSession(
            session_id=f"{state.sample_id}-e{state.epoch}-{uuid4().hex[:12]}",
            persona_id=persona.persona_id,
            doctor=doctor.name,
            doctor_agent_url=doctor.options.get("url"),
        )
        self.evidence = DialogueEvidence.for_case(case)
        self.view: list[ChatMessage] = [
            ChatMessageSystem(content=doctor_system_prompt(case, persona, reveal_persona))
        ]
        """The consultation as the doctor sees it."""
        self.decision: Decision = "UNDECIDED"
        self.willingness: int | None = None
        self.previous_doctor_text = ""

    @property
    def decided(self) -> bool:
        """The patient accepted or firmly refused: the dialogue stops."""
        return self.decision in ("ACCEPT", "REFUSE")

    def save(self) -> None:
        """Keep the store current, so a sample stopped by a limit can still be judged."""
        stats = self.stats
        stats.final_decision, stats.final_willingness = self.decision, self.willingness
        self.session.final_outcome = outcome_of(self.decision)
        self.state.store.set(SESSION_KEY, self.session.model_dump(mode="json"))
        self.state.store.set(EVIDENCE_KEY, self.evidence.stored())
        self.state.store.set(STATS_KEY, stats.model_dump(mode="json"))

    def record_patient(self, reply: PatientReply, number: int, doctor_line: str = "") -> None:
        """The patient's turn in the session, the doctor's view and the transcript (one event a
        round: the doctor's turn and the patient's reply); a reply without a status keeps the
        last one."""
        stats = self.stats
        if reply.fallback:
            stats.patient_fallbacks += 1
        elif not reply.has_status:
            stats.parse_misses += 1
        if reply.status_asked and reply.has_status:
            stats.status_follow_ups += 1
        self.decision = reply.decision or self.decision
        if reply.willingness is not None:
            self.willingness = reply.willingness
        self.session.turns.append(
            DialogueTurn(
                turn_number=number,
                speaker="patient",
                message=reply.message,
                decision=self.decision,
                willingness=self.willingness,
            )
        )
        self.view.append(ChatMessageUser(content=reply.message))
        transcript().info(
            f"{doctor_line}**Patient** ({status_words(self.decision)}, willingness "
            f"{self.willingness} of 10): {reply.message}",
            source="dialogue",
        )
        self.save()

    async def opening(self) -> None:
        """The patient opens; its willingness then is the starting point."""
        self.record_patient(await self.patient.open(), 0)
        self.stats.initial_willingness = self.willingness

    async def doctor_turn(self, round_: int) -> str:
        """The doctor's reply (retried, re-asked; see :func:`_ask_doctor`), the boundary's token
        scrubbed from it. A doctor that fails for good fails the sample, with the store saved."""
        doctor = self.doctor
        try:
            text = await _ask_doctor(
                self.agent,
                self.view,
                self.stats,
                name=doctor.name,
                round_=round_,
                retry_wait=doctor.retry_wait,
                # a doctor that takes a timeout applies it itself (not to its queueing)
                timeout=None if "timeout" in doctor.options else doctor.timeout,
            )
        except DoctorFailure:
            self.save()  # the store says why the sample failed
            raise
        return self.boundary.scrub(text)

    async def validate(self, text: str) -> TurnValidation:
        """The validator's findings on the doctor's turn, added to the consultation's evidence."""
        validation = await check_turn(text, self.case, self.validator, self.stats.validator_notes)
        self.evidence.add(validation)
        return validation

    async def patient_turn(self, round_: int, text: str, validation: TurnValidation) -> None:
        """The doctor's turn recorded, then the patient's reply to what it may hear of it (the
        turn sanitised, with the previous doctor turn beside it)."""
        clean, removed = sanitize_doctor_text(text, self.previous_doctor_text)
        self.previous_doctor_text = text
        self.stats.sanitized += removed
        self.session.turns.append(
            DialogueTurn(
                turn_number=2 * round_ - 1,
                speaker="doctor",
                message=text,
                validation=validation.model_dump(),
            )
        )
        self.view.append(ChatMessageAssistant(content=text))
        flags = ", ".join(f.rule for f in validation.flags) or "none"
        self.record_patient(
            await self.patient.respond(clean, validation),
            2 * round_,
            f"Round {round_}\n\n**Doctor**: {text}\n\n_flags: {flags}_\n\n",
        )

    def finish(self) -> TaskState:
        """The consultation's end saved; the sample's messages are its turns, its output the
        outcome."""
        state, session, stats = self.state, self.session, self.stats
        if isinstance(self.patient, ModelPatient):
            stats.patient_errors = self.patient.errors
        session.end_time = datetime.now(UTC)
        self.save()
        state.metadata["system_prompt"] = self.persona.system_prompt
        state.messages = [
            (ChatMessageUser if turn.speaker == "patient" else ChatMessageAssistant)(
                content=turn.message
            )
            for turn in session.turns
        ]
        state.output = ModelOutput.from_content(
            model=self.doctor.name,
            content=(
                f"The patient {DECISIONS.get(self.decision, self.decision.lower())} "
                f"(willingness {self.willingness} of 10, {stats.rounds} rounds)"
            ),
        )
        return state


async def start_consultation(
    state: TaskState,
    patient: str,
    doctor: DoctorCalls,
    *,
    reveal_persona: bool,
    validator: str,
    compose_patient: bool,
    status_follow_up: bool,
    structured_output: bool | None,
) -> Consultation:
    """The sample's consultation before anyone speaks: its persona and case (also in the store,
    for reference doctors), its boundary, its patient and its doctor."""
    persona = PatientPersona.model_validate(state.metadata["persona"])
    case_entry = catalogue().cases.get(state.metadata["case_name"])
    case: MedicalCase = case_entry.item
    store().set(CASE_STORE_KEY, case_entry.full_name)
    store().set(PERSONA_STORE_KEY, persona.model_dump(mode="json"))
    boundary = Boundary.draw()
    stats = DialogueStats(boundary=boundary.token)
    the_patient = await make_patient(
        patient,
        persona,
        case,
        stats,
        boundary,
        compose=compose_patient,
        status_follow_up=status_follow_up,
        structured_output=structured_output,
    )
    return Consultation(
        state,
        persona,
        case,
        stats,
        boundary,
        the_patient,
        doctor,
        reveal_persona=reveal_persona,
        validator=validator,
    )


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
    if patient not in PATIENTS:
        raise ValueError(f"patient must be one of {', '.join(PATIENTS)}, not {patient!r}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        consultation = await start_consultation(
            state,
            patient,
            DoctorCalls(
                name=entry.full_name,
                factory=entry.item,
                options=dict(doctor_options or {}),
                retry_wait=doctor_retry_wait,
                timeout=doctor_timeout,
            ),
            reveal_persona=reveal_persona,
            validator=validator,
            compose_patient=compose_patient,
            status_follow_up=status_follow_up,
            structured_output=structured_output,
        )
        # one span for the whole dialogue, copying no store (the consultation in the store is
        # large): the solver's own span logs the store's changes once
        async with phase_span("dialogue"):
            await consultation.opening()
            for round_ in range(1, max_rounds + 1):
                text = await consultation.doctor_turn(round_)
                validation = await consultation.validate(text)
                await consultation.patient_turn(round_, text, validation)
                consultation.stats.rounds = round_
                if consultation.decided:  # the stop check
                    break
        return consultation.finish()

    return solve


def stored(
    state: TaskState,
) -> tuple[DialogueSession, DialogueEvidence, DialogueStats, dict[str, Any]]:
    """The session, evidence and stats the solver stored (for the judge)."""
    if state.store.get(SESSION_KEY) is None:
        raise RuntimeError("no consultation to judge: the sample ended before the patient spoke")
    session = DialogueSession.model_validate(state.store.get(SESSION_KEY))
    evidence = DialogueEvidence.restored(state.store.get(EVIDENCE_KEY), session)
    stats = DialogueStats.model_validate(state.store.get(STATS_KEY))
    return session, evidence, stats, dict(state.metadata)
