"""The QA solver: one deliberation of the teamwork engine per question."""

from __future__ import annotations

from dataclasses import replace
from time import perf_counter

from inspect_ai.model import ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from gaa._roles import role_models, structured_for
from gaa.teamwork import Question, QuestionBatch, TeamworkConfig, deliberate

TEAMWORK_ROLE = "teamwork"
STORE_KEY = "teamwork"
QUESTION_ID = "Q1"
QA_TASK = (
    "Answer the medical multiple-choice question below: rank the options, the single best "
    "answer first."
)


def question_batch(state: TaskState) -> QuestionBatch:
    options = state.metadata.get("options")
    if not isinstance(options, dict):
        options = {chr(ord("A") + i): choice.value for i, choice in enumerate(state.choices)}
    return QuestionBatch(
        task=QA_TASK,
        questions=[Question(id=QUESTION_ID, text=state.input_text, options=options)],
    )


@solver
def teamwork_solver(
    teamwork: str | list[str] = "all",
    n_agents: int | str = "auto",
    n_turns: int = 2,
    role: str = TEAMWORK_ROLE,
    structured_output: bool | None = None,
) -> Solver:
    """Answer with a team; members use the models bound to ``role`` in turn.

    The deliberation (answers, votes, events, call ledger) is kept in the sample store under
    ``teamwork``; the output is ``ANSWER: <label>``.
    """
    config = TeamworkConfig.parse(teamwork, n_agents, n_turns)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        started = perf_counter()
        models = role_models(role)
        structured = replace(config, structured=structured_for(models, structured_output))
        result = await deliberate(question_batch(state), structured, models)
        answer = result.outcomes[QUESTION_ID].answer
        state.store.set(STORE_KEY, result.model_dump(mode="json"))
        state.store.set("teamwork_seconds", perf_counter() - started)
        state.output = ModelOutput.from_content(
            model=f"teamwork/{config.label}", content=f"ANSWER: {answer}"
        )
        return state

    return solve
