"""Measure a judge against GAA's labelled consultations (and their one-change twins and
paraphrase controls):

    inspect eval tasks/judge_check.py --model none -T judge=rules
    inspect eval tasks/judge_check.py --model none -T judge=panel -T teamwork=single \\
        --model-role judge=openai/gpt-4o-mini
"""

from inspect_ai import Task, task

from gaa.judge_check.task import judge_check as build_judge_check


@task
def judge_check(
    judge: str = "panel",
    teamwork: str | list[str] = "all",
    safety_gate: bool = True,
    weights: str | list[str] = "20,25,30,15,10",
    structured_output: bool | None = None,
    consultations: str | None = None,
    validator: str = "rules",
) -> Task:
    """Agreement of a judge with labelled consultations; see gaa.judge_check.task."""
    return build_judge_check(
        judge, teamwork, safety_gate, weights, structured_output, consultations, validator
    )
