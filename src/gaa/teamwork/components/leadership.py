"""Leadership: the recruiter becomes an active leader.

The leader mediates after every discussion turn (one call, which other components extend with
their own sections), names the answer it prefers after the final turn (used to break ties, with
no extra call), and may override the vote when the team's reasoning is clearly flawed. An
override must name an option that at least one voting member ranked first and give a reason;
every tie-break and override is recorded as a leadership intervention.
"""

from __future__ import annotations

from typing import Any

from gaa.teamwork.component import LeaderTask, TeamworkComponent
from gaa.teamwork.components import _parsing
from gaa.teamwork.replies import ReplyError
from gaa.teamwork.team import QuestionOutcome, Team


class LeadershipComponent(TeamworkComponent):
    provides_leader = True

    def __init__(self) -> None:
        self.overrides: dict[str, tuple[str, str]] = {}

    def turn_tasks(self, team: Team, turn: int, final: bool) -> list[LeaderTask]:
        tasks = [
            LeaderTask(
                "mediation",
                "a note to the team (two to four sentences): where members agree, where they "
                "differ, and what evidence should settle it",
                _parsing.text,
            )
        ]
        if final:
            tasks += [
                LeaderTask(
                    "preferred",
                    'the option label you judge best for each question id, e.g. {"q1": "B"}',
                    lambda value: self._labels(team, value),
                ),
                LeaderTask(
                    "override",
                    "only if the team's answer to a question rests on clearly flawed reasoning: "
                    '{"<question id>": {"answer": "<label>", "reason": "<why>"}}; otherwise {}',
                    lambda value: self._overrides(team, value),
                ),
            ]
        return tasks

    @staticmethod
    def _labels(team: Team, value: Any) -> dict[str, str]:
        if not isinstance(value, dict):
            raise ReplyError('expected an object such as {"q1": "B"}')
        labels = {}
        for question in team.batch.questions:
            choice = value.get(question.id)
            if choice is None:
                continue
            by_key = {label.lower(): label for label in question.labels}
            label = by_key.get(str(choice).strip().lower())
            if label is None:
                team.record("leader_value_ignored", key="preferred", question=question.id)
            else:
                labels[question.id] = label
        return labels

    @staticmethod
    def _overrides(team: Team, value: Any) -> dict[str, tuple[str, str]]:
        if not isinstance(value, dict):
            raise ReplyError("expected an object (use {} for no override)")
        overrides = {}
        for question_id, item in value.items():
            if question_id not in team.batch.ids or not isinstance(item, dict):
                continue
            by_key = {label.lower(): label for label in team.batch.get(question_id).labels}
            answer = by_key.get(str(item.get("answer", "")).strip().lower())
            reason = str(item.get("reason", "")).strip()
            if answer is not None and reason:
                overrides[question_id] = (answer, reason)
            else:
                team.record("leader_value_ignored", key="override", question=question_id)
        return overrides

    async def after_turn(
        self, team: Team, turn: int, final: bool, results: dict[str, Any] | None
    ) -> None:
        if results is None:
            return
        if results.get("mediation"):
            team.notes.append(f"after turn {turn}: {results['mediation']}")
        if final:
            team.leader_preference = results.get("preferred") or {}
            self.overrides = results.get("override") or {}

    def review(self, team: Team, outcome: QuestionOutcome) -> QuestionOutcome:
        if outcome.tie_rule == "leader":
            team.record(
                "leader_tiebreak",
                question=outcome.question_id,
                answer=outcome.answer,
                tied=outcome.tied,
            )
        override = self.overrides.get(outcome.question_id)
        if override is None or override[0] == outcome.answer:
            return outcome
        answer, reason = override
        if answer not in outcome.first_choices.values():
            team.record(
                "leader_override_refused",
                question=outcome.question_id,
                answer=answer,
                reason="no member ranked it first",
            )
            return outcome
        team.record(
            "leader_override",
            question=outcome.question_id,
            answer=answer,
            replaced=outcome.answer,
            reason=reason,
        )
        return outcome.model_copy(
            update={"answer": answer, "overridden_from": outcome.answer, "override_reason": reason}
        )
