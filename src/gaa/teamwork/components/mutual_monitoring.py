"""Mutual Monitoring: the leader challenges the weakest reasoning between discussion turns.

After every turn but the last, the leader's end-of-turn call also names the member whose
reasoning is weakest and one specific concern. That member answers (accepting and revising, or
justifying; one call), and the leader scores the answer from 0 to 1 (one call). The score
updates the member's trust when the trust network is on; the debated point joins the shared
mental model when it is on; any revised answers replace the member's answers for that turn.
Requires leadership.
"""

from __future__ import annotations

from typing import Any

from gaa._templates import render
from gaa.teamwork.component import LeaderTask, TeamworkComponent
from gaa.teamwork.components import _parsing
from gaa.teamwork.components.trust_network import updated_trust
from gaa.teamwork.replies import MemberReply, ReplyError, extract_json, parse_member_reply
from gaa.teamwork.team import Member, Team, describe_answers, team_messages

CALLS_PER_CHALLENGE = 2


class MutualMonitoringComponent(TeamworkComponent):
    requires = ("leadership",)

    def turn_tasks(self, team: Team, turn: int, final: bool) -> list[LeaderTask]:
        if final:
            return []
        return [
            LeaderTask(
                "challenge",
                "the member whose reasoning this turn is weakest and one specific concern: "
                '{"member": "member 2", "concern": "<what is wrong or unsupported>"}',
                lambda value: self._challenge(team, value),
            )
        ]

    @staticmethod
    def _challenge(team: Team, value: Any) -> tuple[Member, str]:
        if not isinstance(value, dict):
            raise ReplyError('expected {"member": "member 2", "concern": "..."}')
        member = team.member(str(value.get("member", "")))
        if member is None:
            raise ReplyError(f"no team member is called {value.get('member')!r}")
        return member, _parsing.text(value.get("concern"))

    def extra_calls(self, team: Team, turn: int, final: bool) -> int:
        return 0 if final else CALLS_PER_CHALLENGE

    async def after_turn(
        self, team: Team, turn: int, final: bool, results: dict[str, Any] | None
    ) -> None:
        challenge = (results or {}).get("challenge")
        if final or challenge is None:
            return
        member, concern = challenge
        before = team.history[-1].get(member.index)
        response = await self._respond(team, member, concern, before)
        if response is None:
            return
        stance, text, revised = response
        team.history[-1][member.index] = revised
        changed = {
            question_id: [before.answers[question_id].choice, answer.choice]
            for question_id, answer in revised.answers.items()
            if before is not None
            and question_id in before.answers
            and before.answers[question_id].choice != answer.choice
        }
        evaluation = await team.ask_leader(
            "R3",
            "challenge_evaluation",
            [
                LeaderTask(
                    "response_quality",
                    "how well the member answered the concern, from 0 (evasive or wrong) to 1 "
                    "(convincing correction or justification)",
                    _parsing.score,
                ),
                LeaderTask(
                    "debate_point",
                    "one sentence summarising the point that was debated",
                    _parsing.text,
                ),
            ],
            state=f"You raised this concern with {member.label}: {concern}\n"
            f"Their response ({stance}): {text}\n"
            + (
                "Answers they changed: "
                + "; ".join(f"{q}: {old} -> {new}" for q, (old, new) in changed.items())
                if changed
                else "They changed no answer."
            )
            + (
                f"\n{describe_answers(team.batch, revised)}"
                if len(team.batch.questions) == 1
                else ""
            ),
        )
        quality = evaluation.get("response_quality")
        if quality is not None and team.trust is not None:
            team.trust[member.index] = updated_trust(team.trust[member.index], quality)
        if evaluation.get("debate_point") and team.smm is not None:
            team.smm.debated_points.append(evaluation["debate_point"])
        team.record(
            "challenge",
            turn=turn,
            member=member.label,
            concern=concern,
            stance=stance,
            changed=changed,
            quality=quality,
        )

    async def _respond(
        self, team: Team, member: Member, concern: str, before: MemberReply | None
    ) -> tuple[str, str, MemberReply] | None:
        request = render(
            "teamwork",
            "challenge_response.txt",
            identity=team.identity(member),
            concern=concern,
            own=describe_answers(team.batch, before) if before else "(none recorded)",
        )

        def parse(text: str) -> tuple[str, str, MemberReply]:
            data = extract_json(text)
            stance = str(data.get("stance", "")).strip().lower()
            if stance not in ("accept", "justify"):
                raise ReplyError('"stance" must be "accept" or "justify"')
            return (
                stance,
                str(data.get("response", "")).strip(),
                parse_member_reply(text, team.batch),
            )

        return await team.generate(
            phase="R3",
            step="challenge_response",
            agent=member.label,
            model=team.models[member.model_index],
            messages=team_messages(team.context, request),
            parse=parse,
        )
