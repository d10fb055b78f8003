"""The state of one deliberation and the calls its members, recruiter and leader make.

Every call goes through :meth:`Team.generate`, which records it in the ledger with its phase,
asks once for a repair when the reply cannot be read, and otherwise leaves that agent out of
the step (an ``excluded`` event), never failing silently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from time import perf_counter
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
)
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.util import JSONSchema
from pydantic import BaseModel, Field

from gaa._limits import ends_sample
from gaa._templates import render
from gaa.teamwork.config import TeamworkConfig
from gaa.teamwork.ledger import CallLedger, CallRecord, Phase
from gaa.teamwork.questions import QuestionBatch
from gaa.teamwork.replies import (
    MemberReply,
    ReplyError,
    compact,
    extract_json,
    member_schema,
    parse_member_reply,
    reply_token_budget,
)

T = TypeVar("T")
Step = Literal["answer", "discuss", "final"]


class DeliberationError(RuntimeError):
    """The team could not produce an answer (for instance, every member failed)."""


class Member(BaseModel):
    """A team member: its role, its vote weight, and which of the team's models it uses."""

    index: int
    role: str
    weight: float = 1.0
    model_index: int = 0

    @property
    def label(self) -> str:
        return f"member {self.index + 1}"


class SharedMentalModel(BaseModel):
    question_analysis: str = ""
    verified_facts: list[str] = Field(default_factory=list)
    debated_points: list[str] = Field(default_factory=list)


class TeamEvent(BaseModel):
    """Something worth counting: an exclusion, a fallback, a challenge, an intervention."""

    kind: str
    detail: dict[str, Any] = Field(default_factory=dict)


class QuestionOutcome(BaseModel):
    """The team's decision on one question and how it was reached."""

    question_id: str
    answer: str
    scores: dict[str, float]
    method: str
    tie_rule: str = "none"
    tied: list[str] = Field(default_factory=list)
    first_choices: dict[str, str] = Field(default_factory=dict)
    confidences: dict[str, float | None] = Field(default_factory=dict)
    rationales: dict[str, str] = Field(default_factory=dict)
    initial_choices: dict[str, str] = Field(default_factory=dict)
    overridden_from: str | None = None
    override_reason: str = ""

    @property
    def convergence(self) -> float:
        """Share of voting members whose final first choice is the team's answer."""
        if not self.first_choices:
            return 0.0
        agree = sum(choice == self.answer for choice in self.first_choices.values())
        return agree / len(self.first_choices)


def shared_options(batch: QuestionBatch) -> dict[str, str] | None:
    """The options every question of ``batch`` shares, when there are several questions."""
    first = batch.questions[0].options
    if len(batch.questions) > 1 and all(q.options == first for q in batch.questions):
        return first
    return None


def questions_block(batch: QuestionBatch) -> str:
    """The questions with their options; options every question shares are stated once."""
    shared = shared_options(batch)
    lines = []
    if shared is not None:
        lines.append("Options (the same for every question):")
        lines.extend(f"  {label}. {text}" for label, text in shared.items())
    lines.append("Questions:")
    for question in batch.questions:
        lines.append(f"[{question.id}] {question.text}")
        if shared is None:
            lines.extend(f"  {label}. {text}" for label, text in question.options.items())
    return "\n".join(lines)


def context_block(batch: QuestionBatch) -> str:
    """What every call about ``batch`` starts with, word for word: the task, the questions and
    the shared material. A provider's prompt cache serves it after the first call; what
    differs between calls (who is asked, the step, earlier answers) comes after it."""
    preamble = f"\n{batch.preamble}\n" if batch.preamble else ""
    return f"{batch.task}\n{questions_block(batch)}\n{preamble}"


def team_messages(context: str, request: str) -> list[ChatMessage]:
    """A team call: the system message every call shares, the ``context`` every call about the
    same batch shares (see :func:`context_block`), then ``request``."""
    return [_team_system(), ChatMessageUser(content=f"{context}\n{request}")]


@cache
def _team_system() -> ChatMessageSystem:
    """The system message of every team call, made once. Inspect copies each message it is
    sent for the call's log entry, and skips the copy for a message object it has copied
    before (same id and content), so one shared object is copied once per process instead
    of once a call; every call of the process logs it with the same id. Inspect's generate
    path edits only its own copies (its input filters copy first; a provider that merges
    turns in place merges user and assistant turns, never the system message). A model
    hook that edited the messages it is handed would edit this one for every later call."""
    return ChatMessageSystem(content=render("teamwork", "team_system.txt"))


RATIONALE_CHARS = 300
"""How much of a rationale later rounds see."""


def describe_answers(batch: QuestionBatch, reply: MemberReply) -> str:
    """One member's answers, compactly: grouped by answer for a batch of several questions,
    with ranking, confidence and reasons for a single question."""
    if len(batch.questions) == 1:
        return describe_step(batch, [], {0: reply}, labels=False)
    choices = [(q.id, reply.answers[q.id].choice) for q in batch.questions if q.id in reply.answers]
    return _agreed_choices(choices) if choices else "(no answers)"


def describe_step(
    batch: QuestionBatch,
    members: Sequence[Member],
    replies: dict[int, MemberReply],
    *,
    labels: bool = True,
) -> str:
    """One step's answers, compactly: the questions every member answered alike in one line,
    then each question they split on with every member's ranking, confidence and reasons (for
    a single question, always: there is nothing else to discuss)."""
    agreed: list[tuple[str, str]] = []
    split: list[str] = []
    in_order = [(members[i].label if labels else "", reply) for i, reply in sorted(replies.items())]
    for question in batch.questions:
        answers = [
            (label, reply.answers[question.id])
            for label, reply in in_order
            if question.id in reply.answers
        ]
        if not answers:
            continue
        choices = {answer.choice for _, answer in answers}
        if len(choices) == 1 and len(batch.questions) > 1:
            agreed.append((question.id, answers[0][1].choice))
            continue
        split.append(f"[{question.id}]")
        for label, answer in answers:
            confidence = "" if answer.confidence is None else f" ({answer.confidence:.2f})"
            reason = answer.rationale[:RATIONALE_CHARS]
            split.append(
                f"  {label + ': ' if label else ''}{'>'.join(answer.ranking)}{confidence}"
                + (f": {reason}" if reason else "")
            )
    lines = []
    if agreed:
        lines.append("Every member chose alike: " + _agreed_choices(agreed))
    if split:
        if agreed:
            lines.append("Where members differ (ranking best first, confidence, reasons):")
        lines.extend(split)
    return "\n".join(lines)


def _agreed_choices(agreed: list[tuple[str, str]]) -> str:
    """The questions every member answered alike, grouped by the answer; the commonest answer
    is stated once for all the questions not named otherwise."""
    by_choice: dict[str, list[str]] = {}
    for question_id, choice in agreed:
        by_choice.setdefault(choice, []).append(question_id)
    commonest = max(by_choice, key=lambda choice: len(by_choice[choice]))
    if len(by_choice[commonest]) < 3:
        return "; ".join(f"{question_id} {choice}" for question_id, choice in agreed)
    named = [
        f"{choice} on {', '.join(ids)}" for choice, ids in by_choice.items() if choice != commonest
    ]
    return "; ".join([*named, f"{commonest} on every other question not named in this step"])


@dataclass(frozen=True)
class LeaderTask:
    """One section of a recruiter or leader call (:meth:`Team.ask_leader`): a JSON key, what to
    put there, how to read it.

    ``parse`` raises :class:`~gaa.teamwork.replies.ReplyError` (or ``ValueError``) when the value
    is unusable; the engine then asks once for a repair and otherwise passes ``None`` on.
    """

    key: str
    instruction: str
    parse: Callable[[Any], Any]


class Contributor(Protocol):
    """What a team itself asks of each of its teamwork components: whether it makes the
    recruiter the team's leader, and what it adds to a member's prompt. Components implement
    :class:`gaa.teamwork.component.TeamworkComponent`, whose other phases the engine calls."""

    provides_leader: ClassVar[bool]

    def briefing(self, team: Team, member: Member, step: Step) -> list[str]: ...


SETTING_FIELDS = ("temperature", "seed")


def with_settings(model: Model, config: GenerateConfig, settings: GenerateConfig) -> GenerateConfig:
    """``config`` with the team's default ``settings`` (temperature, seed) where neither the call,
    the model's own configuration nor the run (``--temperature``, ``--seed``) sets them."""
    run = active_generate_config()
    chosen = {
        name: getattr(settings, name)
        for name in SETTING_FIELDS
        if getattr(settings, name) is not None
        and getattr(config, name) is None
        and getattr(model.config, name) is None
        and getattr(run, name) is None
    }
    return config.merge(GenerateConfig(**chosen)) if chosen else config


class Team:
    """Members, shared state and the call ledger of one deliberation."""

    def __init__(
        self,
        batch: QuestionBatch,
        config: TeamworkConfig,
        models: Sequence[Model],
        components: Sequence[Contributor],
        settings: GenerateConfig | None = None,
    ) -> None:
        if not models:
            raise ValueError("a team needs at least one model")
        self.settings = settings or GenerateConfig()
        """Generation settings every call takes unless the model or the run sets its own."""
        self.batch = batch
        self.context = context_block(batch)
        self.config = config
        self.models = list(models)
        self.components = list(components)
        self.has_leader = any(c.provides_leader for c in components)
        self.members: list[Member] = []
        self.ledger = CallLedger()
        self.events: list[TeamEvent] = []
        self.history: list[dict[int, MemberReply]] = []
        """Valid replies per step: index 0 is R2, then one entry per R3 turn."""
        self.notes: list[str] = []
        self._history_text: tuple[Any, list[list[MemberReply]], str] | None = None
        self._call_configs: dict[
            tuple[int, int], tuple[Model, GenerateConfig | None, GenerateConfig]
        ] = {}
        self._member_configs = [self._make_member_config(model) for model in self.models]
        """Every member call's settings, per model index: worked out once (plain values, not a
        memo wrapping a bound method, which would put the team in a reference cycle and keep
        its replies alive until a full garbage collection)."""
        self.smm: SharedMentalModel | None = None
        self.trust: dict[int, float] | None = None
        self.report: str | None = None
        self.leader_preference: dict[str, str] = {}

    # -- membership -------------------------------------------------------------------------
    def recruit(self, count: int) -> None:
        self.members = [
            Member(
                index=i,
                role=f"Expert {i + 1}",
                weight=1.0 / count,
                model_index=i % len(self.models),
            )
            for i in range(count)
        ]

    def member(self, label: str) -> Member | None:
        text = str(label).strip().lower()
        for member in self.members:
            if text in (member.label, str(member.index + 1), member.role.lower()):
                return member
        return None

    def record(self, kind: str, **detail: Any) -> None:
        self.events.append(TeamEvent(kind=kind, detail=detail))

    def count(self, kind: str) -> int:
        return sum(event.kind == kind for event in self.events)

    # -- calls ------------------------------------------------------------------------------
    async def generate(
        self,
        *,
        phase: Phase,
        step: str,
        agent: str,
        model: Model,
        messages: list[ChatMessage],
        parse: Callable[[str], T],
        config: GenerateConfig | None = None,
    ) -> T | None:
        """One call, one repair on an unreadable reply, then ``None`` (recorded)."""
        problem = ""
        for attempt in range(2):
            started = perf_counter()
            try:
                output = await model.generate(messages, config=self._call_config(model, config))
            except Exception as exc:
                if ends_sample(exc):
                    raise
                self.ledger.add(
                    CallRecord(
                        phase=phase,
                        step=step,
                        agent=agent,
                        repair=attempt > 0,
                        ok=False,
                        seconds=perf_counter() - started,
                    )
                )
                self.record("call_error", agent=agent, phase=phase, step=step, error=repr(exc))
                return None
            usage = output.usage
            record = CallRecord(
                phase=phase,
                step=step,
                agent=agent,
                repair=attempt > 0,
                input_tokens=usage.input_tokens if usage else 0,
                output_tokens=usage.output_tokens if usage else 0,
                seconds=perf_counter() - started,
            )
            try:
                value = parse(output.completion)
            except (ReplyError, ValueError, TypeError, RecursionError, OverflowError) as exc:
                problem = str(exc)
                self.ledger.add(record.model_copy(update={"ok": False}))
                messages = [
                    *messages,
                    ChatMessageAssistant(content=output.completion),
                    ChatMessageUser(content=render("teamwork", "repair.txt", problem=problem)),
                ]
                continue
            self.ledger.add(record)
            return value
        self.record("excluded", agent=agent, phase=phase, step=step, reason=problem)
        return None

    def identity(self, member: Member) -> str:
        return f"You are {member.role}, one of {len(self.members)} clinicians working as a team."

    def member_role(self, member: Member) -> str:
        """Who the member is and the reply shape (compact for a large batch)."""
        template = "member_role_compact.txt" if compact(self.batch) else "member_role.txt"
        return render("teamwork", template, identity=self.identity(member))

    def history_block(self) -> str:
        """The team and every step's answers so far, as each member reads them before a
        discussion turn (the same for every member: made once per change to the history)."""
        seen = (
            tuple((m.label, m.role) for m in self.members),
            tuple(tuple((i, id(reply)) for i, reply in step.items()) for step in self.history),
            tuple(self.notes),
        )
        cached = self._history_text
        if cached is not None and cached[0] == seen:
            return cached[2]
        text = self._history_block()
        # the replies are kept with their ids, so no id in the key can be another object's
        self._history_text = (seen, [list(step.values()) for step in self.history], text)
        return text

    def _history_block(self) -> str:
        if len(self.history) == 0:
            return ""
        titles = ["Independent answers"] + [
            f"Discussion turn {t}" for t in range(1, len(self.history))
        ]
        roster = ", ".join(f"{m.label} ({m.role})" for m in self.members)
        blocks = [f"The team: {roster}."]
        for title, replies in zip(titles, self.history, strict=True):
            blocks.append(f"{title}:\n" + describe_step(self.batch, self.members, replies))
        blocks.extend(f"Leader's note {note}" for note in self.notes)
        return "\n\n" + "\n\n".join(blocks) + "\n"

    async def ask_member(self, member: Member, step: Step, turn: int = 0) -> MemberReply | None:
        briefing = [line for c in self.components for line in c.briefing(self, member, step)]
        if step == "answer":
            instruction = (
                "Give your own independent answers; you have not seen your colleagues' views."
            )
            history = ""
        elif step == "discuss":
            instruction = (
                f"Discussion turn {turn} of {self.config.n_turns}. Weigh your colleagues' answers "
                "and arguments above: point out errors, and defend or revise your own answers."
            )
            history = self.history_block()
        else:
            instruction = (
                f"Final turn ({turn} of {self.config.n_turns}). Give your final ranking for every "
                "question, taking the whole discussion into account."
            )
            history = self.history_block()
        request = render(
            "teamwork",
            "member_turn.txt",
            briefing="\n".join(briefing) + ("\n" if briefing else ""),
            history=history,
            role=self.member_role(member),
            instruction=instruction,
        )
        return await self.generate(
            phase="R2" if step == "answer" else "R3",
            step=step,
            agent=member.label,
            model=self.models[member.model_index],
            messages=team_messages(self.context, request),
            parse=lambda text: parse_member_reply(text, self.batch),
            config=self._member_configs[member.model_index],
        )

    def _call_config(self, model: Model, config: GenerateConfig | None) -> GenerateConfig:
        """The call's settings with the team's defaults (:func:`with_settings`), worked out once
        per model and settings object: a deliberation's calls share a few (a sample runs in one
        eval, so the run's own settings do not change under it)."""
        key = (id(model), id(config))
        if key not in self._call_configs:
            merged = with_settings(model, config or GenerateConfig(), self.settings)
            self._call_configs[key] = (model, config, merged)  # holding the keys' objects
        return self._call_configs[key][2]

    def _make_member_config(self, model: Model) -> GenerateConfig:
        """A bounded reply on every provider: the schema where the runtime constrains output,
        else an output budget (twice the constrained one for a free-form full reply). A
        ``max_tokens`` the user set for the model (or the run) wins: a reasoning model spends
        its budget on thinking first."""
        budget = reply_token_budget(self.batch)
        if not self.config.structured and not compact(self.batch):
            budget *= 2
        chosen = model.config.max_tokens or active_generate_config().max_tokens
        config = GenerateConfig(max_tokens=chosen or budget)
        if self.config.structured:
            config.response_schema = ResponseSchema(
                name="team_answers",
                json_schema=JSONSchema.model_validate(member_schema(self.batch)),
            )
        return config

    async def ask_leader(
        self,
        phase: Phase,
        step: str,
        tasks: Sequence[LeaderTask],
        state: str = "",
        *,
        recruiter: bool = False,
    ) -> dict[str, Any]:
        """One recruiter or leader call covering ``tasks``; unreadable sections are ``None``."""
        sections = "\n".join(f'- "{task.key}": {task.instruction}' for task in tasks)
        request = render(
            "teamwork",
            "leader_request.txt",
            state=state,
            role=render("teamwork", "recruiter_role.txt" if recruiter else "leader_role.txt"),
            tasks=f"Your tasks (one JSON key each):\n{sections}",
            keys=", ".join(task.key for task in tasks),
        )
        messages = team_messages(self.context, request)
        results: dict[str, Any] = {}

        def parse(text: str) -> dict[str, Any]:
            data = extract_json(text)
            problems = []
            for task in tasks:
                if task.key in results:
                    continue
                if task.key not in data:
                    problems.append(f'the key "{task.key}" is missing')
                    continue
                try:
                    results[task.key] = task.parse(data[task.key])
                except (ReplyError, ValueError, TypeError, OverflowError, RecursionError) as exc:
                    problems.append(f'"{task.key}" is unusable: {exc}')
            if problems:
                raise ReplyError("; ".join(problems))
            return results

        agent = "recruiter" if recruiter else "leader"
        await self.generate(
            phase=phase,
            step=step,
            agent=agent,
            model=self.models[0],
            messages=messages,
            parse=parse,
        )
        for task in tasks:
            if task.key not in results:
                results[task.key] = None
                self.record("leader_task_failed", agent=agent, phase=phase, step=step, key=task.key)
        return results
