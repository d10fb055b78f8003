"""A devil's-advocate teamwork component: one member argues against the majority each turn.

In discussion turn ``t`` the member ``(t - 1) mod N`` is asked to make the strongest honest case
against the answer most members currently put first, so the team tests its consensus instead of
drifting into it. It adds no model calls; it only changes that member's instructions.
"""

from __future__ import annotations

from collections import Counter

from gaa.teamwork import Member, Team, TeamworkComponent


def majority_choice(team: Team, question_id: str) -> str | None:
    if not team.history:
        return None
    latest = team.history[-1]
    counts = Counter(
        r.answers[question_id].choice for r in latest.values() if question_id in r.answers
    )
    return counts.most_common(1)[0][0] if counts else None


class DevilsAdvocate(TeamworkComponent):
    def briefing(self, team: Team, member: Member, step: str) -> list[str]:
        if step == "answer" or not team.members:
            return []
        turn = len(team.history)  # R2 is history[0], so this is the current turn number
        if member.index != (turn - 1) % len(team.members):
            return []
        targets = [
            f"{question.id}: {choice}"
            for question in team.batch.questions
            if (choice := majority_choice(team, question.id)) is not None
        ]
        return [
            "You are the devil's advocate this turn: make the strongest honest case against the "
            f"answer most of the team currently prefers ({'; '.join(targets)}), then give your "
            "own ranking."
        ]
