"""Shared Mental Model: a passive store of shared context.

After R1 it holds the recruiter's analysis of the questions (traps, what is really asked); after
R2 the facts the members agree on (extracted by the leader, or by automated intersection without
one); after each mutual-monitoring exchange the point that was debated. Every member sees it.
"""

from __future__ import annotations

import re
from typing import Any

from gaa.teamwork.component import LeaderTask, TeamworkComponent
from gaa.teamwork.components import _parsing
from gaa.teamwork.team import Member, SharedMentalModel, Step, Team

MAX_FACTS = 8
OVERLAP_THRESHOLD = 0.5
_WORD = re.compile(r"[a-z0-9]+")


def _words(fact: str) -> set[str]:
    return {w for w in _WORD.findall(fact.lower()) if len(w) > 2}


def shared_facts(facts_by_member: list[list[str]]) -> list[str]:
    """Facts stated by at least two members (word overlap, Jaccard >= 0.5), first wording kept."""
    agreed: list[str] = []
    for i, facts in enumerate(facts_by_member):
        for fact in facts:
            words = _words(fact)
            if not words or any(_words(kept) == words for kept in agreed):
                continue
            for other in facts_by_member[i + 1 :]:
                if any(
                    len(words & _words(o)) / len(words | _words(o)) >= OVERLAP_THRESHOLD
                    for o in other
                    if _words(o)
                ):
                    agreed.append(fact)
                    break
    return agreed[:MAX_FACTS]


class SharedMentalModelComponent(TeamworkComponent):
    def recruiter_tasks(self, team: Team) -> list[LeaderTask]:
        return [
            LeaderTask(
                "question_analysis",
                "one or two sentences on what the questions really ask and any trap, distractor "
                "or easily missed detail the team should watch for",
                _parsing.text,
            )
        ]

    def on_recruited(self, team: Team, results: dict[str, Any]) -> None:
        team.smm = SharedMentalModel(question_analysis=results.get("question_analysis") or "")

    def briefing(self, team: Team, member: Member, step: Step) -> list[str]:
        smm = team.smm
        if smm is None:
            return []
        lines = []
        if smm.question_analysis:
            lines.append(f"- Question analysis: {smm.question_analysis}")
        if smm.verified_facts:
            lines.append("- Facts the team agrees on: " + "; ".join(smm.verified_facts))
        if smm.debated_points:
            lines.append("- Points debated so far: " + "; ".join(smm.debated_points))
        return ["Shared mental model of the team:", *lines] if lines else []

    def post_answer_tasks(self, team: Team) -> list[LeaderTask]:
        return [
            LeaderTask(
                "consensus_facts",
                f"a JSON list of at most {MAX_FACTS} medical facts the members' answers agree on",
                _parsing.text_list,
            )
        ]

    async def after_answers(self, team: Team, results: dict[str, Any] | None) -> None:
        if team.smm is None:
            return
        facts = (results or {}).get("consensus_facts")
        if facts is None:
            facts = shared_facts([reply.facts for _, reply in sorted(team.history[0].items())])
            if results is not None:
                team.record("fallback", component="shared_mental_model", used="fact_intersection")
        team.smm.verified_facts = list(facts)[:MAX_FACTS]
