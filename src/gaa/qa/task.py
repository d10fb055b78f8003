"""``medical_qa``: the teamwork engine on medical multiple-choice questions."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig

from gaa._heap import settle_heap
from gaa._roles import role_models
from gaa._versions import TASK_VERSIONS
from gaa.errors import GAAError
from gaa.plugins import catalogue
from gaa.qa.questions import load_medqa_jsonl
from gaa.qa.scorer import teamwork_qa_scorer
from gaa.qa.solver import teamwork_solver
from gaa.teamwork import TeamworkConfig

DEFAULT_QUESTION_SET = "core"
DEFAULT_TURNS = 2


class NoModelError(GAAError, ValueError):
    """medical_qa was started with no model for its agents."""


def require_team_models() -> None:
    """Fail before any sample runs when the agents would answer with Inspect's ``none`` model
    (``--model none``): the teamwork engine needs a real model. Outside an eval, nothing to do."""
    try:
        models = role_models("teamwork")
    except Exception:
        return  # no eval running (the task is being built to be inspected)
    if any(str(model) == "none/none" for model in models):
        raise NoModelError(
            "medical_qa needs a model for its agents and was given none: use --model <model> "
            "(e.g. --model openai/gpt-4o-mini, or --model gaa-local/qwen2.5-0.5b offline after "
            "make install-local), or --model-role teamwork=<model>"
        )


@task
def medical_qa(
    question_set: str = DEFAULT_QUESTION_SET,
    dataset: str | None = None,
    teamwork: str | list[str] = "all",
    n_agents: int | str = "auto",
    n_turns: int = DEFAULT_TURNS,
    seed: int | None = None,
    structured_output: bool | None = None,
) -> Task:
    """Build the task; bad arguments, and a missing model, fail here, before any sample runs."""
    config = TeamworkConfig.parse(teamwork, n_agents, n_turns)
    require_team_models()
    if dataset:
        samples, name = load_medqa_jsonl(dataset), dataset
    else:
        entry = catalogue().question_sets.get(question_set)
        samples, name = list(entry.item()), entry.full_name
    settle_heap()
    return Task(
        dataset=MemoryDataset(samples, name=name),
        solver=teamwork_solver(teamwork, n_agents, n_turns, structured_output=structured_output),
        scorer=teamwork_qa_scorer(),
        config=GenerateConfig(seed=seed) if seed is not None else GenerateConfig(),
        name="medical_qa",
        version=TASK_VERSIONS["medical_qa"],
        metadata={
            "teamwork": config.label,
            "components": list(config.components),
            "n_agents": config.n_agents or "auto",
            "n_turns": config.n_turns,
        },
    )
