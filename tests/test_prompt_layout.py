"""Judge and team prompts laid out for a provider's prompt cache, and no longer than they need be.

Every call of a deliberation starts with the same system message and the same context (task,
questions, shared material); who is asked, the step and earlier answers come after it. Options
shared by every question are stated once; earlier answers reach later steps compactly.
"""

from __future__ import annotations

import os
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import ChatMessageUser

from gaa.dialogue.rubric import load_rubric
from gaa.dialogue.ruling import rubric_batch
from gaa.teamwork import Question, QuestionBatch, TeamworkConfig, deliberate
from gaa.teamwork.replies import Answer, MemberReply
from gaa.teamwork.team import Member, Team, context_block, describe_step, questions_block
from gaa.testing import ScriptedModel, TeamScript, team_role

REPO = Path(__file__).resolve().parents[1]
MET = {"met": "met", "not_met": "not met", "not_relevant": "cannot apply"}


def rubric(preamble: str, count: int = 6) -> QuestionBatch:
    return QuestionBatch(
        task="Rule on each criterion.",
        preamble=preamble,
        questions=[Question(id=f"c{i}", text=f"Criterion {i}.", options=MET) for i in range(count)],
    )


def common_prefix(texts: list[str]) -> str:
    """The longest text every one of ``texts`` starts with."""
    first, length = texts[0], len(texts[0])
    for text in texts[1:]:
        length = min(length, len(text))
        length = next((i for i in range(length) if text[i] != first[i]), length)
    return first[:length]


async def test_every_call_of_a_deliberation_starts_with_the_same_system_and_context() -> None:
    batch = rubric("<transcript>DOCTOR: hello</transcript>")
    script = ScriptedModel(TeamScript(choose=lambda q, labels, role: "met").respond)
    await deliberate(batch, TeamworkConfig.parse("all", 3), [script.model])
    systems = {call.messages[0].text for call in script.calls}
    assert len(systems) == 1  # one system message for members, leader and recruiter
    context = context_block(batch)
    assert all(call.messages[1].text.startswith(context) for call in script.calls)
    roles = {team_role(call.messages) for call in script.calls}
    assert {"recruiter", "leader", "Specialist 1", "Specialist 2", "Specialist 3"} <= roles
    # who is asked comes after the shared context, never before it
    for call in script.calls:
        assert "You are" not in call.messages[1].text[: len(context)]


async def test_two_consultations_share_the_rubric_prefix() -> None:
    prompts = []
    for transcript in ("DOCTOR: the operation is keyhole.", "DOCTOR: we could watch and wait."):
        script = ScriptedModel(TeamScript().respond)
        await deliberate(
            rubric(f"<transcript>{transcript}</transcript>"),
            TeamworkConfig.parse("base", 3),
            [script.model],
        )
        prompts.append(script.calls[1].messages[1].text)
    shared = common_prefix(prompts)
    assert shared.startswith("Rule on each criterion.")
    assert "[c5] Criterion 5." in shared and "<transcript>" in shared
    assert "keyhole" not in shared


def test_options_every_question_shares_are_stated_once() -> None:
    block = questions_block(rubric("", count=10))
    assert block.count("not_relevant. cannot apply") == 1
    assert block.index("Options (the same for every question):") < block.index("Questions:")
    mixed = QuestionBatch(
        questions=[
            Question(id="a", text="One?", options={"A": "x", "B": "y"}),
            Question(id="b", text="Two?", options={"A": "x", "C": "z"}),
        ]
    )
    assert questions_block(mixed).count("  A. x") == 2  # different options: each listed


def test_the_scripted_team_reads_options_stated_once() -> None:
    script = TeamScript(choose=lambda q, labels, role: labels[-1])
    prompt = (
        context_block(rubric(""))
        + "\nYou are Expert 1, one of 3 clinicians working as a team.\nReply format: answers."
    )
    reply = script.respond([ChatMessageUser(content=prompt)])
    assert '"c3": {"ranking": ["not_relevant", "met", "not_met"]' in reply


def reply(choices: dict[str, str], reason: str = "") -> MemberReply:
    return MemberReply(
        answers={
            q: Answer(ranking=[c, *(o for o in MET if o != c)], confidence=0.8, rationale=reason)
            for q, c in choices.items()
        }
    )


def test_earlier_answers_are_compact_agreement_and_reasons_only_where_members_differ() -> None:
    batch = rubric("", count=6)
    members = [Member(index=i, role=f"Expert {i + 1}") for i in range(3)]
    agreed = {f"c{i}": "met" for i in range(5)}
    replies = {
        0: reply({**agreed, "c5": "not_met"}, "The doctor never named the risk of death."),
        1: reply({**agreed, "c5": "met"}, "Death was mentioned in turn two."),
        2: reply({**agreed, "c5": "met"}, "Covered."),
    }
    text = describe_step(batch, members, replies)
    assert "met on every other question not named in this step" in text
    assert "c0" not in text  # agreed questions are not listed one by one
    assert "[c5]" in text and "member 1: not_met>met>not_relevant (0.80): The doctor never" in text
    assert "Covered." in text
    unanimous_reasons = describe_step(batch, members, {i: reply(agreed, "same") for i in range(3)})
    assert "same" not in unanimous_reasons  # no reasons where nobody differs


def test_the_history_block_is_made_once_a_step_and_follows_every_change() -> None:
    batch = rubric("", count=6)
    team = Team(batch, TeamworkConfig.parse("all"), [ScriptedModel(lambda m: "").model], [])
    team.recruit(3)
    agreed = {f"c{i}": "met" for i in range(5)}
    team.history.append({i: reply({**agreed, "c5": "met"}, "Covered.") for i in range(3)})
    first = team.history_block()
    assert team.history_block() is first  # asked by every member of a step: made once
    # a member's answer is replaced by its revision (as mutual monitoring does): the block says so
    team.history[-1][0] = reply({**agreed, "c5": "not_met"}, "Death was never named.")
    revised = team.history_block()
    assert "Death was never named." in revised and "Death was never named." not in first
    team.notes.append("after turn 1: weigh the risks again")
    assert "weigh the risks again" in team.history_block()
    team.members[1].role = "Surgeon"
    assert "member 2 (Surgeon)" in team.history_block()
    team.history.append({})
    assert "Discussion turn 1" in team.history_block()


async def test_a_single_question_keeps_every_members_reasons() -> None:
    batch = QuestionBatch(questions=[Question(id="q", text="Pick.", options={"A": "x", "B": "y"})])
    members = [Member(index=i, role=f"Expert {i + 1}") for i in range(2)]
    replies = {
        i: MemberReply(answers={"q": Answer(["A", "B"], 0.9, f"reason {i}")}) for i in range(2)
    }
    text = describe_step(batch, members, replies)
    assert "reason 0" in text and "reason 1" in text


def test_the_judge_rubric_states_each_test_once_and_its_options_once() -> None:
    batch = rubric_batch(load_rubric(), "<transcript>x</transcript>")
    block = questions_block(batch)
    assert "Met when: Met when" not in block
    assert block.count("the doctor's conduct meets the criterion") == 1
    assert len(batch.questions) == len(load_rubric().criteria)


def test_a_judged_run_sends_every_judge_call_the_same_prefix_and_logs_its_usage(
    tmp_path: Path,
) -> None:
    judge = ScriptedModel(
        lambda messages: (
            '{"strengths": [], "weaknesses": [], "critical_incidents": []}'
            if "evaluation summary" in messages[-1].text
            else TeamScript().respond(messages)
        )
    )
    os.chdir(REPO)
    [log] = eval(
        "tasks/medical_dialogue.py",
        model="mockllm/unused",
        model_roles={"judge": judge.model},
        task_args={
            "personas": "INTJ_M_PNEUMO",
            "doctor": "reference/exemplary",
            "patient": "scripted",
            "teamwork": "base",
        },
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success"
    user_texts = [call.messages[-1].text for call in judge.calls if len(call.messages) == 2]
    assert len(user_texts) == len(judge.calls)  # no call without the shared system message
    shared = common_prefix(user_texts)
    assert "Questions:" in shared and "</findings>" in shared  # rubric and consultation
    summary = [t for t in user_texts if "evaluation summary" in t]
    assert len(summary) == 1
