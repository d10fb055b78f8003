"""The interface of a teamwork component: phase methods the engine calls, all optional.

A component is registered by name through the ``register_teamwork_components`` hook. The engine
creates one instance per deliberation and calls, in the spec's order:

R1  ``recruiter_tasks`` (sections of the recruiter's call), then ``on_recruited``;
R2  ``briefing`` for each member's independent answer; then ``post_answer_tasks`` (sections of
    the leader's post-answer call, only when a leader exists) and ``after_answers``;
R3  for each turn: ``briefing`` for each member's contribution; ``turn_tasks`` (sections of the
    leader's end-of-turn call, only with a leader) and ``after_turn`` (which may make calls of its
    own, e.g. mutual monitoring);
R4  ``vote_weights`` (the highest ``weight_priority`` wins) and ``review`` of each outcome.

Components talk to the team only through the :class:`~gaa.teamwork.team.Team` they are given.
"""

from __future__ import annotations

from typing import Any, ClassVar

from gaa.teamwork.team import LeaderTask, Member, QuestionOutcome, Step, Team
from gaa.teamwork.voting import VotingMethod

__all__ = ["LeaderTask", "TeamworkComponent"]
"""``LeaderTask`` (what ``recruiter_tasks``, ``post_answer_tasks`` and ``turn_tasks`` return)
is defined with :meth:`Team.ask_leader`, which reads it."""


class TeamworkComponent:
    """Base class: every method is a no-op, so a component overrides only the phases it uses."""

    requires: ClassVar[tuple[str, ...]] = ()
    """Short names of components this one cannot work without."""

    provides_leader: ClassVar[bool] = False
    """True for the component that makes the recruiter the team's active leader."""

    weight_priority: ClassVar[int] = 0
    """When several components offer vote weights, the highest priority is used."""

    def recruiter_tasks(self, team: Team) -> list[LeaderTask]:
        return []

    def on_recruited(self, team: Team, results: dict[str, Any]) -> None:
        """Apply what the recruiter decided (a key is ``None`` when it could not be read)."""

    def briefing(self, team: Team, member: Member, step: Step) -> list[str]:
        """Extra context for a member's prompt: R2 ``answer``, R3 ``discuss``/``final``."""
        return []

    def post_answer_tasks(self, team: Team) -> list[LeaderTask]:
        return []

    async def after_answers(self, team: Team, results: dict[str, Any] | None) -> None:
        """After R2; ``results`` holds the leader's post-answer sections, or is ``None`` without
        a leader (components then fall back to automated processing)."""

    def turn_tasks(self, team: Team, turn: int, final: bool) -> list[LeaderTask]:
        return []

    async def after_turn(
        self, team: Team, turn: int, final: bool, results: dict[str, Any] | None
    ) -> None:
        """After an R3 turn; ``results`` holds the leader's end-of-turn sections (or ``None``)."""

    def extra_calls(self, team: Team, turn: int, final: bool) -> int:
        """Calls ``after_turn`` makes by itself when every reply is readable (for the call plan)."""
        return 0

    def vote_weights(self, team: Team) -> tuple[VotingMethod, dict[int, float]] | None:
        return None

    def review(self, team: Team, outcome: QuestionOutcome) -> QuestionOutcome:
        """Inspect (and possibly change, with a recorded reason) one question's outcome."""
        return outcome
