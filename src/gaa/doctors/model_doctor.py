"""The doctor under test: the evaluated model (``--model``), or a model named with ``model=``."""

from __future__ import annotations

from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.model import get_model

from gaa._templates import render
from gaa.models import MedicalCase, PatientPersona
from gaa.personas import mbti_prompt


def doctor_system_prompt(
    case: MedicalCase, persona: PatientPersona, reveal_persona: bool = False
) -> str:
    """The doctor's system message: the clinical brief, and the personality only if revealed."""
    note = ""
    if reveal_persona:
        note = (
            f"\nThe patient's personality type is {persona.mbti_type}. What that usually means for "
            f"how they decide:\n{mbti_prompt(persona.mbti_type)}"
        )
    return doctor_prompt_for_brief(case.brief_for(persona.age, persona.gender), note)


def doctor_prompt_for_brief(brief: str, persona_note: str = "") -> str:
    """The doctor's system message around a clinical brief (used where no persona is known,
    as when a served doctor is sent a consultation by another benchmark)."""
    return render("doctor", "system.txt", brief=brief, persona_note=persona_note)


@agent(name="model_doctor")
def model_doctor(model: str | None = None) -> Agent:
    """Answer with the model under test (or ``model``), given the doctor's view of the dialogue."""

    async def execute(state: AgentState) -> AgentState:
        output = await get_model(model).generate(state.messages)
        state.messages.append(output.message)
        state.output = output
        return state

    return execute
