"""How many model calls a configuration makes, derived from the components' own phase methods.

The plan asks each component the same questions the engine asks (does it add a recruiter
section, a post-answer section, an end-of-turn section, calls of its own?) on a team of
``n_agents`` members, assuming every reply is readable (repairs add one call each). Tests check
it against the calls a scripted model actually receives.
"""

from __future__ import annotations

from inspect_ai.model import get_model

from gaa.plugins import Catalogue
from gaa.teamwork.config import ABLATION_PRESETS, SYMBOLS, TeamworkConfig
from gaa.teamwork.engine import post_answer_tasks, recruiter_tasks, turn_tasks
from gaa.teamwork.ledger import PHASES
from gaa.teamwork.questions import Question, QuestionBatch
from gaa.teamwork.team import Team

_PLAN_BATCH = QuestionBatch(questions=[Question(id="q", text="plan", options={"A": "a", "B": "b"})])


def planned_calls(
    config: TeamworkConfig, n_agents: int, registry: Catalogue | None = None
) -> dict[str, int]:
    """Calls per phase (R1, R2, R3) and ``total`` for ``config`` with ``n_agents`` members."""
    components = [cls() for cls in config.classes(registry)]
    team = Team(_PLAN_BATCH, config, [get_model("mockllm/model", memoize=False)], components)
    calls: dict[str, int] = dict.fromkeys(PHASES, 0)
    if config.single:
        calls["R2"] = 1
    else:
        calls["R1"] = 1 if recruiter_tasks(team, components) else 0
        team.recruit(config.n_agents or n_agents)
        for component in components:
            component.on_recruited(team, {})
        size = len(team.members)
        calls["R2"] = size + (1 if post_answer_tasks(team, components) else 0)
        for turn in range(1, config.n_turns + 1):
            final = turn == config.n_turns
            calls["R3"] += size + (1 if turn_tasks(team, components, turn, final) else 0)
            calls["R3"] += sum(c.extra_calls(team, turn, final) for c in components)
    calls["total"] = sum(calls[phase] for phase in PHASES)
    return calls


def call_table(
    n_agents: int = 3,
    n_turns: int = 2,
    recruit: bool = True,
    presets: tuple[str, ...] = ("single", *ABLATION_PRESETS),
    registry: Catalogue | None = None,
) -> list[tuple[str, str, dict[str, int]]]:
    """(preset, components, calls) for each preset; ``recruit`` lets the recruiter pick the size."""
    rows = []
    for preset in presets:
        config = TeamworkConfig.parse(
            preset, "auto" if recruit else n_agents, n_turns, registry=registry
        )
        symbols = [SYMBOLS.get(name, name) for name in config.short_names]
        rows.append((preset, "+".join(symbols) or "-", planned_calls(config, n_agents, registry)))
    return rows
