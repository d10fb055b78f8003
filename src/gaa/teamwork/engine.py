"""The deliberation: R1 recruitment, R2 independent answers, R3 discussion, R4 aggregation.

:func:`deliberate` follows the algorithm of ``spec/teamwork-components.md`` section 3, with the
components (plugins) doing their part at each phase. Members answering in the same step run in
parallel: in R3 a member sees only earlier turns, so the order within a turn does not matter.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from inspect_ai._util._async import tg_collect
from inspect_ai.model import GenerateConfig, Model
from pydantic import BaseModel, Field

from gaa._spans import phase_span
from gaa.teamwork.component import LeaderTask, TeamworkComponent
from gaa.teamwork.config import DEFAULT_AGENTS, MAX_AGENTS, MIN_AGENTS, TeamworkConfig
from gaa.teamwork.ledger import CallLedger
from gaa.teamwork.questions import QuestionBatch
from gaa.teamwork.replies import ReplyError
from gaa.teamwork.team import (
    DeliberationError,
    Member,
    QuestionOutcome,
    SharedMentalModel,
    Team,
    TeamEvent,
)
from gaa.teamwork.voting import VotingMethod, decide


class DeliberationResult(BaseModel):
    """Everything a deliberation decided and what it cost; JSON-serialisable for the log."""

    config: str
    outcomes: dict[str, QuestionOutcome]
    members: list[Member]
    method: str
    smm: SharedMentalModel | None = None
    trust: dict[str, float] | None = None
    report: str | None = None
    notes: list[str] = Field(default_factory=list)
    events: list[TeamEvent] = Field(default_factory=list)
    ledger: CallLedger = Field(default_factory=CallLedger)

    def count(self, kind: str) -> int:
        return sum(event.kind == kind for event in self.events)


def _agent_count(value: Any) -> int:
    if isinstance(value, bool):
        raise ReplyError("expected a whole number")
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ReplyError(f"expected a whole number, got {str(value)[:40]!r}") from None
    if not MIN_AGENTS <= count <= MAX_AGENTS:
        raise ReplyError(f"the team has {MIN_AGENTS} to {MAX_AGENTS} members, not {count}")
    return count


AGENT_COUNT_TASK = LeaderTask(
    "n_agents",
    f"how many clinicians ({MIN_AGENTS} to {MAX_AGENTS}) the questions need: more for broad or "
    "tricky questions, fewer for focused ones",
    _agent_count,
)


def recruiter_tasks(team: Team, components: Sequence[TeamworkComponent]) -> list[LeaderTask]:
    """The sections of the R1 recruiter call (none means no call)."""
    tasks = [task for c in components for task in c.recruiter_tasks(team)]
    if team.config.n_agents is None and not team.config.single:
        tasks.insert(0, AGENT_COUNT_TASK)
    return tasks


def post_answer_tasks(team: Team, components: Sequence[TeamworkComponent]) -> list[LeaderTask]:
    """The sections of the leader's post-R2 call (none, or no leader, means no call)."""
    if not team.has_leader:
        return []
    return [task for c in components for task in c.post_answer_tasks(team)]


def turn_tasks(
    team: Team, components: Sequence[TeamworkComponent], turn: int, final: bool
) -> list[LeaderTask]:
    """The sections of the leader's end-of-turn call."""
    if not team.has_leader:
        return []
    return [task for c in components for task in c.turn_tasks(team, turn, final)]


def vote_weights(
    team: Team, components: Sequence[TeamworkComponent]
) -> tuple[VotingMethod, dict[int, float] | None]:
    offers = [
        (c.weight_priority, offer)
        for c in components
        if (offer := c.vote_weights(team)) is not None
    ]
    if not offers:
        return ("single" if team.config.single else "borda"), None
    return max(offers, key=lambda item: item[0])[1]


async def _recruit(team: Team, components: Sequence[TeamworkComponent]) -> None:
    tasks = recruiter_tasks(team, components)
    results: dict[str, Any] = {}
    if tasks:
        results = await team.ask_leader("R1", "recruit", tasks, recruiter=True)
    count = 1 if team.config.single else team.config.n_agents or results.get("n_agents")
    if count is None:
        count = DEFAULT_AGENTS
        team.record("fallback", component="recruitment", used="default_team_size", n_agents=count)
    team.recruit(count)
    for component in components:
        component.on_recruited(team, results)


async def _answer_step(team: Team, step: str, turn: int = 0) -> dict[int, Any]:
    # tg_collect, not collect: collect gives each member its own span, and each span snapshots
    # the whole sample store twice; the step's span groups the calls well enough
    replies = await tg_collect(
        [partial(team.ask_member, m, step, turn) for m in team.members]  # type: ignore[arg-type]
    )
    valid = {m.index: reply for m, reply in zip(team.members, replies, strict=True) if reply}
    team.history.append(valid)
    return valid


def _aggregate(
    team: Team, components: Sequence[TeamworkComponent]
) -> tuple[str, dict[str, QuestionOutcome]]:
    final = team.history[-1]
    method, weights = vote_weights(team, components)
    label = {m.index: m.label for m in team.members}
    outcomes: dict[str, QuestionOutcome] = {}
    for question in team.batch.questions:
        rankings = {
            i: r.answers[question.id].ranking for i, r in final.items() if question.id in r.answers
        }
        if not rankings:
            raise DeliberationError(f"no team member gave a final answer to {question.id}")
        vote = decide(
            rankings,
            question.labels,
            weights,
            {
                i: r.answers[question.id].confidence
                for i, r in final.items()
                if question.id in r.answers
            },
            team.leader_preference.get(question.id),
        )
        outcome = QuestionOutcome(
            question_id=question.id,
            answer=vote.answer,
            scores=vote.scores,
            method=method,
            tie_rule=vote.tie_rule,
            tied=vote.tied if len(vote.tied) > 1 else [],
            first_choices={label[i]: ranking[0] for i, ranking in rankings.items()},
            confidences={label[i]: final[i].answers[question.id].confidence for i in rankings},
            rationales={label[i]: final[i].answers[question.id].rationale for i in rankings},
            initial_choices={
                label[i]: r.answers[question.id].choice
                for i, r in team.history[0].items()
                if question.id in r.answers
            },
        )
        for component in components:
            outcome = component.review(team, outcome)
        outcomes[question.id] = outcome
    return method, outcomes


async def deliberate(
    batch: QuestionBatch,
    config: TeamworkConfig,
    models: Sequence[Model],
    components: Sequence[TeamworkComponent] | None = None,
    settings: GenerateConfig | None = None,
) -> DeliberationResult:
    """Run one deliberation over ``batch``; members use ``models`` in turn, the leader the first;
    every call takes ``settings`` (temperature, seed) unless the model or the run sets its own.

    Raises :class:`DeliberationError` when no member produces a usable answer.
    """
    if components is None:
        components = [cls() for cls in config.classes()]
    team = Team(batch, config, models, components, settings)

    async with phase_span("R1 recruitment"):
        await _recruit(team, components)

    async with phase_span("R2 independent answers"):
        if not await _answer_step(team, "answer"):
            raise DeliberationError(
                f"All {len(team.members)} team members failed to give a readable answer "
                f"({team.count('excluded')} excluded, {team.count('call_error')} call errors)"
            )
        results = None
        if team.has_leader:
            tasks = post_answer_tasks(team, components)
            results = await team.ask_leader("R2", "leader", tasks, _state(team)) if tasks else {}
        for component in components:
            await component.after_answers(team, results)

    if not config.single:
        for turn in range(1, config.n_turns + 1):
            final = turn == config.n_turns
            async with phase_span(f"R3 discussion turn {turn}"):
                await _answer_step(team, "final" if final else "discuss", turn)
                results = None
                if team.has_leader:
                    tasks = turn_tasks(team, components, turn, final)
                    results = (
                        await team.ask_leader("R3", "mediate", tasks, _state(team)) if tasks else {}
                    )
                for component in components:
                    await component.after_turn(team, turn, final, results)
        if not team.history[-1]:
            raise DeliberationError(
                f"All {len(team.members)} team members failed to give a readable final answer"
            )

    async with phase_span("R4 aggregation"):
        method, outcomes = _aggregate(team, components)

    return DeliberationResult(
        config=config.label,
        outcomes=outcomes,
        members=team.members,
        method=method,
        smm=team.smm,
        trust=None
        if team.trust is None
        else {team.members[i].label: t for i, t in team.trust.items()},
        report=team.report,
        notes=team.notes,
        events=team.events,
        ledger=team.ledger,
    )


def _state(team: Team) -> str:
    return team.history_block().strip()
