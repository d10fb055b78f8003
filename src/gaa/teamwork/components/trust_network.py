"""Trust Network: dynamic reliability scores that weight the vote.

Every member starts at 0.8. After R2 each member's answer quality Q in [0, 1] is judged by the
leader (fact accuracy, completeness of reasoning, confidence that matches the evidence) or,
without a leader, computed: per question, agreement A is 1 when the member's first choice is
among the team's most common first choices, else 0, and Q = 0.5 A + 0.5 (1 - |confidence - A|)
(confidence 0.5 when not given), averaged over the questions. Scores update as
T <- 0.7 T + 0.3 Q, kept within [0.4, 1.0]; mutual monitoring updates the challenged member the
same way. Members see the scores during discussion; the final vote is trust-weighted Borda.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gaa.teamwork.component import LeaderTask, TeamworkComponent
from gaa.teamwork.components import _parsing
from gaa.teamwork.team import Member, Step, Team
from gaa.teamwork.voting import VotingMethod

DEFAULT_TRUST = 0.8
TRUST_BOUNDS = (0.4, 1.0)
ALPHA = 0.7


def updated_trust(old: float, quality: float) -> float:
    """T <- 0.7 T + 0.3 Q, clipped to [0.4, 1.0]."""
    low, high = TRUST_BOUNDS
    return min(max(ALPHA * old + (1 - ALPHA) * quality, low), high)


def automated_quality(team: Team) -> dict[int, float]:
    replies = team.history[0]
    counts: dict[str, Counter[str]] = {}  # each question's first choices, counted once
    for reply in replies.values():
        for question_id, answer in reply.answers.items():
            counts.setdefault(question_id, Counter())[answer.choice] += 1
    top = {question_id: max(counted.values()) for question_id, counted in counts.items()}
    quality: dict[int, float] = {}
    for index, reply in replies.items():
        per_question = []
        for question_id, answer in reply.answers.items():
            agreement = 1.0 if counts[question_id][answer.choice] == top[question_id] else 0.0
            confidence = 0.5 if answer.confidence is None else answer.confidence
            per_question.append(0.5 * agreement + 0.5 * (1 - abs(confidence - agreement)))
        quality[index] = sum(per_question) / len(per_question)
    return quality


class TrustNetworkComponent(TeamworkComponent):
    weight_priority = 2

    def on_recruited(self, team: Team, results: dict[str, Any]) -> None:
        team.trust = {member.index: DEFAULT_TRUST for member in team.members}

    def post_answer_tasks(self, team: Team) -> list[LeaderTask]:
        labels = ", ".join(f'"{m.label}": <0 to 1>' for m in team.members)
        return [
            LeaderTask(
                "quality",
                "the quality of each member's answers from 0 to 1 (fact accuracy, completeness "
                f"of reasoning, confidence that matches the evidence): {{{labels}}}",
                _parsing.score_map,
            )
        ]

    async def after_answers(self, team: Team, results: dict[str, Any] | None) -> None:
        if team.trust is None:
            return
        automated = automated_quality(team)
        judged: dict[int, float] = {}
        for label, value in ((results or {}).get("quality") or {}).items():
            member = team.member(label)
            if member is not None:
                judged[member.index] = value
        if results is not None and set(judged) != set(automated):
            team.record(
                "fallback",
                component="trust_network",
                used="automated_quality",
                members=sorted(set(automated) - set(judged)),
            )
        for index, quality in automated.items():
            team.trust[index] = updated_trust(team.trust[index], judged.get(index, quality))

    def briefing(self, team: Team, member: Member, step: Step) -> list[str]:
        if team.trust is None or step == "answer":
            return []
        scores = ", ".join(f"{m.label} {team.trust[m.index]:.2f}" for m in team.members)
        return [f"Current trust in each member's reasoning: {scores}."]

    def vote_weights(self, team: Team) -> tuple[VotingMethod, dict[int, float]] | None:
        if team.trust is None:
            return None
        return "trust_borda", dict(team.trust)
