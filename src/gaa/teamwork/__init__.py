"""The teamwork engine: a modular multi-agent deliberation over a batch of questions.

It knows nothing of dialogues, judges or QA datasets: callers give it a
:class:`QuestionBatch`, a :class:`TeamworkConfig` and the models its members use.
"""

from gaa.teamwork.component import LeaderTask, TeamworkComponent
from gaa.teamwork.config import PRESETS, TeamworkConfig, TeamworkConfigError
from gaa.teamwork.engine import DeliberationResult, deliberate
from gaa.teamwork.ledger import CallLedger, CallRecord
from gaa.teamwork.plan import call_table, planned_calls
from gaa.teamwork.questions import Question, QuestionBatch
from gaa.teamwork.team import DeliberationError, Member, QuestionOutcome, Team

__all__ = [
    "PRESETS",
    "CallLedger",
    "CallRecord",
    "DeliberationError",
    "DeliberationResult",
    "LeaderTask",
    "Member",
    "Question",
    "QuestionBatch",
    "QuestionOutcome",
    "Team",
    "TeamworkComponent",
    "TeamworkConfig",
    "TeamworkConfigError",
    "call_table",
    "deliberate",
    "planned_calls",
]
