"""A doctor that follows shared decision-making: the model under test with extra guidance.

It shows how a plugin doctor is written: an Inspect ``@agent`` that receives the doctor's view
of the consultation and appends exactly one assistant reply.
"""

from __future__ import annotations

from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.model import ChatMessageSystem, get_model

GUIDANCE = (
    "Practise shared decision-making: first ask what matters most to the patient, then present "
    "every reasonable option (including no operation) with its chances of benefit and harm in "
    "natural frequencies such as '3 in 100', then help the patient weigh them against what they "
    "told you. Recommend, but make clear the decision is theirs."
)


@agent(name="shared_decision")
def shared_decision(model: str | None = None) -> Agent:
    async def execute(state: AgentState) -> AgentState:
        messages = list(state.messages)
        if messages and isinstance(messages[0], ChatMessageSystem):
            messages[0] = ChatMessageSystem(content=f"{messages[0].text}\n\n{GUIDANCE}")
        else:
            messages.insert(0, ChatMessageSystem(content=GUIDANCE))
        output = await get_model(model).generate(messages)
        state.messages.append(output.message)
        state.output = output
        return state

    return execute
