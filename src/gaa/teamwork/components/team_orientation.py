"""Team Orientation: specialist roles and hierarchical vote weights.

The recruiter names one specialty per member, most relevant first; the members vote with the
spec's hierarchical weights (hidden from them). With a leader, the leader also writes a formal
report of the specialists' findings after R2, which every member sees during discussion.
"""

from __future__ import annotations

from typing import Any

from gaa.teamwork.component import LeaderTask, TeamworkComponent
from gaa.teamwork.components import _parsing
from gaa.teamwork.team import Member, Step, Team
from gaa.teamwork.voting import VotingMethod

HIERARCHICAL_WEIGHTS: dict[int, tuple[float, ...]] = {
    1: (1.0,),
    2: (0.6, 0.4),
    3: (0.5, 0.3, 0.2),
    4: (0.4, 0.3, 0.2, 0.1),
}


class TeamOrientationComponent(TeamworkComponent):
    weight_priority = 1

    def recruiter_tasks(self, team: Team) -> list[LeaderTask]:
        size = team.config.n_agents
        count = f"exactly {size}" if size else 'one per team member (as many as "n_agents")'
        return [
            LeaderTask(
                "roles",
                f"a JSON list of {count} medical specialties suited to the questions, the most "
                'relevant first, e.g. ["Cardiologist", "Radiologist"]',
                _parsing.text_list,
            )
        ]

    def on_recruited(self, team: Team, results: dict[str, Any]) -> None:
        roles = results.get("roles") or []
        if len(roles) < len(team.members):
            team.record(
                "fallback",
                component="team_orientation",
                used="generic_roles",
                roles_given=len(roles),
            )
        weights = HIERARCHICAL_WEIGHTS[len(team.members)]
        for member, weight in zip(team.members, weights, strict=True):
            if member.index < len(roles):
                member.role = roles[member.index]
            member.weight = weight

    def briefing(self, team: Team, member: Member, step: Step) -> list[str]:
        lines = [f"Bring the perspective of your specialty ({member.role}) to every question."]
        if team.report and step != "answer":
            lines.append(f"The leader's formal report on the initial answers: {team.report}")
        return lines

    def post_answer_tasks(self, team: Team) -> list[LeaderTask]:
        return [
            LeaderTask(
                "formal_report",
                "a formal report (at most 120 words) combining the specialists' findings: key "
                "findings, the differential, and the working conclusion",
                _parsing.text,
            )
        ]

    async def after_answers(self, team: Team, results: dict[str, Any] | None) -> None:
        if results is not None:
            team.report = results.get("formal_report")

    def vote_weights(self, team: Team) -> tuple[VotingMethod, dict[int, float]]:
        return "hierarchical_borda", {member.index: member.weight for member in team.members}
