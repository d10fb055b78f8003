"""Medical multiple-choice QA answered by GAA's teamwork engine.

inspect eval tasks/medical_qa.py --model <model> [-T teamwork=all|base|C1..C8|single|smm,trust]
    [-T n_agents=auto|2..4] [-T n_turns=2] [-T question_set=core] [-T dataset=file.jsonl]
    [--model-role teamwork=<m1>,<m2>]
"""

from inspect_ai import Task, task

from gaa.qa import medical_qa as build_medical_qa


@task
def medical_qa(
    question_set: str = "core",
    dataset: str | None = None,
    teamwork: str | list[str] = "all",
    n_agents: int | str = "auto",
    n_turns: int = 2,
    seed: int | None = None,
    structured_output: bool | None = None,
) -> Task:
    """Teamwork medical QA; see gaa.qa.medical_qa for the parameters."""
    return build_medical_qa(
        question_set, dataset, teamwork, n_agents, n_turns, seed, structured_output
    )
