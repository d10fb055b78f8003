"""The engine on scripted models: calls counted against the plan, components at work, faults."""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Callable

import pytest
from inspect_ai.model import ChatMessage, ChatMessageSystem

from gaa._templates import render
from gaa.teamwork import (
    DeliberationError,
    Question,
    QuestionBatch,
    TeamworkConfig,
    deliberate,
    planned_calls,
)
from gaa.teamwork.config import ABLATION_PRESETS
from gaa.teamwork.replies import (
    MAX_PERMUTED_LABELS,
    RATIONALE_CHARS,
    parse_member_reply,
    ranking_schema,
    reply_token_budget,
)
from gaa.teamwork.team import Team, _team_system
from gaa.testing import ScriptedModel, TeamScript, team_role

OPTIONS = {"A": "alpha", "B": "beta", "C": "gamma", "D": "delta", "E": "epsilon"}
BATCH = QuestionBatch(questions=[Question(id="q1", text="Pick one.", options=OPTIONS)])
RUBRIC = QuestionBatch(
    task="Rule on each criterion.",
    preamble="<transcript>...</transcript>",
    questions=[
        Question(id=f"c{i}", text=f"Criterion {i}", options={"met": "met", "not_met": "not met"})
        for i in range(1, 31)
    ],
)


def by_role(choices: dict[str, str], default: str = "A") -> Callable[[str, list[str], str], str]:
    return lambda question_id, labels, role: choices.get(role, default)


@pytest.mark.parametrize("preset", ["single", *ABLATION_PRESETS, "C8"])
@pytest.mark.parametrize(("n_agents", "n_turns"), [("auto", 2), (2, 3), (4, 2)])
async def test_calls_received_equal_ledger_and_plan(
    preset: str, n_agents: object, n_turns: int
) -> None:
    script = ScriptedModel(TeamScript().respond)
    config = TeamworkConfig.parse(preset, n_agents, n_turns)  # type: ignore[arg-type]
    result = await deliberate(BATCH, config, [script.model])
    plan = planned_calls(config, 3)
    assert len(script.calls) == result.ledger.calls == plan["total"]
    assert result.ledger.by_phase() == {k: plan[k] for k in ("R1", "R2", "R3")}
    assert result.ledger.repairs == 0
    problems = {"excluded", "fallback", "leader_task_failed", "call_error"}
    assert not [event for event in result.events if event.kind in problems]


def test_hand_counted_calls() -> None:
    def total(preset: str, n: object = 3, turns: int = 2) -> int:
        return planned_calls(TeamworkConfig.parse(preset, n, turns), 3)["total"]  # type: ignore[arg-type]

    # base, fixed N=3, T=2: 3 independent answers + 2 turns x 3 = 9; auto adds the recruiter
    assert total("base", 3) == 9
    assert total("base", "auto") == 10
    # leadership adds one mediation call per turn
    assert total("C2", 3) == 9 + 2
    # all: recruiter (SMM analysis, TO roles) + 3 + leader post-R2 + (3 + 1) x 2 + MM 2 after turn 1
    assert total("all", 3) == 1 + 3 + 1 + 8 + 2
    assert total("all", 3, 3) == 1 + 3 + 1 + 12 + 2 * 2
    assert total("single") == 1


async def test_a_batch_of_thirty_criteria_costs_one_deliberation() -> None:
    script = ScriptedModel(TeamScript(choose=lambda q, labels, role: "met").respond)
    config = TeamworkConfig.parse("all", 3)
    result = await deliberate(RUBRIC, config, [script.model])
    assert len(script.calls) == planned_calls(config, 3)["total"] == 15
    assert set(result.outcomes) == {f"c{i}" for i in range(1, 31)}
    assert all(o.answer == "met" for o in result.outcomes.values())
    assert "<transcript>" in script.calls[1].last_text


async def test_majority_wins_with_standard_borda() -> None:
    script = ScriptedModel(TeamScript(choose=by_role({"Expert 1": "B"}, "C")).respond)
    result = await deliberate(BATCH, TeamworkConfig.parse("base", 3), [script.model])
    outcome = result.outcomes["q1"]
    assert outcome.answer == "C" and result.method == "borda"
    assert outcome.first_choices == {"member 1": "B", "member 2": "C", "member 3": "C"}
    assert outcome.convergence == pytest.approx(2 / 3)


async def test_team_orientation_assigns_roles_and_hierarchical_weights() -> None:
    script = ScriptedModel(
        TeamScript(leader={"roles": ["Cardiologist", "Radiologist", "Nurse"]}).respond
    )
    result = await deliberate(BATCH, TeamworkConfig.parse("C3", 3), [script.model])
    assert [m.role for m in result.members] == ["Cardiologist", "Radiologist", "Nurse"]
    assert [m.weight for m in result.members] == [0.5, 0.3, 0.2]
    assert result.method == "hierarchical_borda"
    assert result.report == "Findings agree."
    assert "Cardiologist" in {team_role(c.messages) for c in script.calls}
    assert "0.5" not in "".join(c.last_text for c in script.calls)  # weights stay hidden


async def test_shared_mental_model_without_leader_intersects_facts() -> None:
    script = ScriptedModel(TeamScript().respond)
    result = await deliberate(BATCH, TeamworkConfig.parse("C1", 3), [script.model])
    assert result.smm is not None
    assert result.smm.question_analysis == "Watch the distractors."
    assert result.smm.verified_facts == ["shared fact"]
    discussion = [c.last_text for c in script.calls if "Discussion turn 1" in c.last_text]
    assert discussion and all("Facts the team agrees on: shared fact" in t for t in discussion)


async def test_trust_network_and_mutual_monitoring_update_trust() -> None:
    script = ScriptedModel(
        TeamScript(leader={"quality": {"member 1": 0.2, "member 2": 1.0, "member 3": 0.8}}).respond
    )
    result = await deliberate(BATCH, TeamworkConfig.parse("C5", 3), [script.model])
    assert result.trust is not None and result.method == "trust_borda"
    # R2: 0.7*0.8 + 0.3*Q; then member 1 is challenged and scores 0.6: 0.7*T + 0.3*0.6
    assert result.trust["member 2"] == pytest.approx(0.86)
    assert result.trust["member 3"] == pytest.approx(0.80)
    assert result.trust["member 1"] == pytest.approx(max(0.4, 0.7 * (0.7 * 0.8 + 0.3 * 0.2) + 0.18))
    [challenge] = [e for e in result.events if e.kind == "challenge"]
    assert challenge.detail["member"] == "member 1" and challenge.detail["stance"] == "justify"


async def test_automated_trust_rewards_agreement_and_calibration() -> None:
    script = ScriptedModel(TeamScript(choose=by_role({"Expert 3": "E"}, "A")).respond)
    result = await deliberate(BATCH, TeamworkConfig.parse("C4", 3), [script.model])
    assert result.trust is not None
    # agreeing members: Q = 0.5 + 0.5*(1 - 0.3) = 0.85; the outlier: Q = 0 + 0.5*(1 - 0.7) = 0.15
    assert result.trust["member 1"] == pytest.approx(0.7 * 0.8 + 0.3 * 0.85)
    assert result.trust["member 3"] == pytest.approx(0.7 * 0.8 + 0.3 * 0.15)


async def test_leader_breaks_ties_and_the_intervention_is_recorded() -> None:
    script = ScriptedModel(
        TeamScript(
            choose=by_role({"Expert 1": "B"}, "A"), leader={"preferred": {"q1": "B"}}
        ).respond
    )
    result = await deliberate(BATCH, TeamworkConfig.parse("C2", 2), [script.model])
    outcome = result.outcomes["q1"]
    # B,A,C,D,E and A,B,C,D,E: A = 3 + 4 = 7, B = 4 + 3 = 7; without a leader, label order gives A
    assert outcome.tied == ["A", "B"]
    assert (outcome.answer, outcome.tie_rule) == ("B", "leader")
    assert result.count("leader_tiebreak") == 1


async def test_leader_override_needs_a_member_behind_it() -> None:
    override = {"q1": {"answer": "B", "reason": "the majority misread the lab values"}}
    script = ScriptedModel(
        TeamScript(choose=by_role({"Expert 1": "B"}, "D"), leader={"override": override}).respond
    )
    result = await deliberate(BATCH, TeamworkConfig.parse("C2", 3), [script.model])
    outcome = result.outcomes["q1"]
    assert (outcome.answer, outcome.overridden_from) == ("B", "D")
    assert result.count("leader_override") == 1

    lonely = {"q1": {"answer": "E", "reason": "nobody chose it"}}
    script = ScriptedModel(TeamScript(choose=by_role({}, "D"), leader={"override": lonely}).respond)
    result = await deliberate(BATCH, TeamworkConfig.parse("C2", 3), [script.model])
    assert result.outcomes["q1"].answer == "D"
    assert result.count("leader_override_refused") == 1


async def test_garbage_member_is_repaired_once_then_left_out_and_counted() -> None:
    team = TeamScript()

    def respond(messages: list[ChatMessage]) -> str:
        if team_role(messages) == "Expert 2":
            return "I refuse to use JSON."
        return team.respond(messages)

    script = ScriptedModel(respond)
    config = TeamworkConfig.parse("base", 3)
    result = await deliberate(BATCH, config, [script.model])
    # member 2 fails in R2 and in both turns: each failure costs one extra (repair) call
    assert len(script.calls) == planned_calls(config, 3)["total"] + 3 == result.ledger.calls
    assert result.ledger.repairs == 3
    assert result.count("excluded") == 3
    assert set(result.outcomes["q1"].first_choices) == {"member 1", "member 3"}


async def test_repair_that_works_keeps_the_member() -> None:
    team = TeamScript()
    failed: set[str] = set()

    def respond(messages: list[ChatMessage]) -> str:
        if team_role(messages) == "Expert 1" and "first" not in failed:
            failed.add("first")
            return "Sorry, B."
        return team.respond(messages)

    script = ScriptedModel(respond)
    result = await deliberate(BATCH, TeamworkConfig.parse("base", 3), [script.model])
    assert result.ledger.repairs == 1 and result.count("excluded") == 0
    repair = next(c for c in script.calls if "could not be used" in c.last_text)
    assert "no JSON object" in repair.last_text


async def test_leader_garbage_falls_back_and_is_recorded() -> None:
    team = TeamScript()

    def respond(messages: list[ChatMessage]) -> str:
        if team_role(messages) == "leader":
            return "no json from the leader"
        return team.respond(messages)

    result = await deliberate(BATCH, TeamworkConfig.parse("all", 3), [ScriptedModel(respond).model])
    assert result.outcomes["q1"].answer == "A"
    assert result.count("leader_task_failed") >= 4
    kinds = {e.detail.get("used") for e in result.events if e.kind == "fallback"}
    assert {"fact_intersection", "automated_quality"} <= kinds
    assert result.count("challenge") == 0  # no challenge could be read


async def test_all_members_failing_is_a_clear_error() -> None:
    script = ScriptedModel(lambda messages: "garbage")
    with pytest.raises(DeliberationError, match="All 3 team members failed"):
        await deliberate(BATCH, TeamworkConfig.parse("base", 3), [script.model])


async def test_model_errors_exclude_the_member() -> None:
    team = TeamScript()

    def respond(messages: list[ChatMessage]) -> str:
        if team_role(messages) == "Expert 3":
            raise ConnectionError("provider down")
        return team.respond(messages)

    result = await deliberate(
        BATCH, TeamworkConfig.parse("base", 3), [ScriptedModel(respond).model]
    )
    assert result.count("call_error") == 3
    assert "member 3" not in result.outcomes["q1"].first_choices


async def test_recruiter_decides_team_size() -> None:
    script = ScriptedModel(TeamScript(n_agents=4).respond)
    config = TeamworkConfig.parse("base")
    result = await deliberate(BATCH, config, [script.model])
    assert len(result.members) == 4
    assert len(script.calls) == planned_calls(config, 4)["total"] == 1 + 4 + 8


async def test_unreadable_team_size_falls_back_to_three_and_is_recorded() -> None:
    script = ScriptedModel(TeamScript(leader={"n_agents": 9}).respond)
    result = await deliberate(BATCH, TeamworkConfig.parse("base"), [script.model])
    assert len(result.members) == 3
    assert any(e.detail.get("used") == "default_team_size" for e in result.events)


async def test_members_use_the_team_models_in_turn() -> None:
    first, second = ScriptedModel(TeamScript().respond), ScriptedModel(TeamScript().respond)
    await deliberate(BATCH, TeamworkConfig.parse("C2", 3), [first.model, second.model])
    roles_first = {team_role(c.messages) for c in first.calls}
    roles_second = {team_role(c.messages) for c in second.calls}
    assert "Expert 2" in roles_second and "Expert 2" not in roles_first
    assert {"Expert 1", "Expert 3"} <= roles_first
    assert any(team_role(c.messages) == "leader" for c in first.calls)
    assert not any(team_role(c.messages) == "leader" for c in second.calls)


async def test_devils_advocate_plugin_component_changes_the_transcript() -> None:
    with_da = ScriptedModel(TeamScript().respond)
    config = TeamworkConfig.parse("C2,devils_advocate", 3)
    await deliberate(BATCH, config, [with_da.model])
    briefed = [c for c in with_da.calls if "devil's advocate" in c.last_text]
    assert len(briefed) == 2  # one member per turn
    assert team_role(briefed[0].messages) == "Expert 1"
    assert team_role(briefed[1].messages) == "Expert 2"
    assert "q1: A" in briefed[0].last_text
    assert len(with_da.calls) == planned_calls(config, 3)["total"]  # no extra calls


async def test_structured_output_asks_members_for_the_reply_schema() -> None:
    script = ScriptedModel(TeamScript().respond)
    await deliberate(BATCH, TeamworkConfig.parse("base", 2, structured=True), [script.model])
    member_calls = [c for c in script.calls if team_role(c.messages).startswith("Expert")]
    assert member_calls and all(c.config.response_schema is not None for c in member_calls)
    schema = member_calls[0].config.response_schema.json_schema  # type: ignore[union-attr]
    assert schema.required == ["answers", "facts"]
    assert schema.properties["answers"].required == ["q1"]  # type: ignore[index]
    plain = ScriptedModel(TeamScript().respond)
    await deliberate(BATCH, TeamworkConfig.parse("base", 2), [plain.model])
    assert all(c.config.response_schema is None for c in plain.calls)


async def test_structured_schema_allows_only_full_rankings_and_bounds_the_reply() -> None:
    script = ScriptedModel(TeamScript().respond)
    await deliberate(BATCH, TeamworkConfig.parse("single", structured=True), [script.model])
    config = script.calls[0].config
    q1 = config.response_schema.json_schema.properties["answers"].properties["q1"]  # type: ignore[union-attr,index]
    labels = BATCH.questions[0].labels
    orderings = q1.properties["ranking"].enum  # type: ignore[index]
    assert len(orderings) == len(set(map(tuple, orderings))) == math.factorial(len(labels))
    assert all(sorted(order) == sorted(labels) for order in orderings)
    assert q1.properties["rationale"].maxLength == RATIONALE_CHARS  # type: ignore[index]
    assert q1.properties["confidence"].maximum == 1  # type: ignore[index]
    assert config.max_tokens == reply_token_budget(BATCH)
    for order in orderings:  # every reply the schema allows is one the parser reads
        reply = json.dumps(
            {"answers": {"q1": {"ranking": order, "confidence": 0.5, "rationale": ""}}, "facts": []}
        )
        assert parse_member_reply(reply, BATCH).answers["q1"].ranking == order


def test_many_options_fall_back_to_a_plain_label_array() -> None:
    schema = ranking_schema([chr(65 + i) for i in range(MAX_PERMUTED_LABELS + 1)])
    assert schema["type"] == "array" and len(schema["items"]["enum"]) == MAX_PERMUTED_LABELS + 1


async def test_large_constrained_batches_get_compact_label_only_replies() -> None:
    script = ScriptedModel(TeamScript(choose=lambda q, labels, role: "not_met").respond)
    result = await deliberate(RUBRIC, TeamworkConfig.parse("single", structured=True), [script.model])
    config = script.calls[0].config
    answers = config.response_schema.json_schema.properties["answers"]  # type: ignore[union-attr,index]
    assert answers.properties["c1"].enum == ["met", "not_met"]  # type: ignore[index]
    assert answers.required == RUBRIC.ids
    assert config.max_tokens == reply_token_budget(RUBRIC) < 90 * len(RUBRIC.questions)
    compact_reply = json.dumps({"answers": {q.id: "met" for q in RUBRIC.questions}})
    assert parse_member_reply(compact_reply, RUBRIC).answers["c30"].ranking == ["met"]
    assert all(o.answer == "not_met" for o in result.outcomes.values())


async def test_members_on_any_provider_get_a_bounded_reply_and_the_rubric_a_compact_format() -> None:
    script = ScriptedModel(TeamScript().respond)
    await deliberate(RUBRIC, TeamworkConfig.parse("single"), [script.model])  # no schema
    [member] = [c for c in script.calls if team_role(c.messages).startswith("Expert")]
    assert member.config.response_schema is None
    assert member.config.max_tokens == reply_token_budget(RUBRIC)
    system = member.last_text
    assert '{"answers": {"<question id>": "<option label>"' in system
    assert "rationale" not in system and "confidence" not in system
    small = ScriptedModel(TeamScript().respond)
    await deliberate(BATCH, TeamworkConfig.parse("single"), [small.model])
    [mcq] = [c for c in small.calls if team_role(c.messages).startswith("Expert")]
    assert '"rationale"' in mcq.last_text  # a single question keeps its reasons
    assert mcq.config.max_tokens == 2 * reply_token_budget(BATCH)


async def test_a_max_tokens_the_user_set_for_a_member_model_wins() -> None:
    from inspect_ai.model import GenerateConfig, Model

    script = ScriptedModel(TeamScript().respond)
    chosen = Model(script.model.api, GenerateConfig(max_tokens=9000))
    await deliberate(RUBRIC, TeamworkConfig.parse("single"), [chosen])
    assert {c.config.max_tokens for c in script.calls if team_role(c.messages).startswith("Expert")} == {
        9000
    }


async def test_every_team_call_sends_the_one_system_message() -> None:
    """Inspect copies a message object it is sent once (by id and content), so the judge's
    system message is one object, with the team's instructions, in every call of every team."""
    script = ScriptedModel(TeamScript().respond)
    await deliberate(BATCH, TeamworkConfig.parse("all", 3), [script.model])
    await deliberate(RUBRIC, TeamworkConfig.parse("base", 3), [script.model])
    first = [call.messages[0] for call in script.calls]
    assert len(first) > 10 and all(m.role == "system" for m in first)
    assert len({m.id for m in first}) == 1
    assert len({m.text for m in first}) == 1 and "Expert" not in first[0].text
    assert len({call.messages[-1].id for call in script.calls}) == len(script.calls)
    shared = _team_system()
    assert all(m is shared for m in first)  # the one object, not copies with its id
    made_anew = ChatMessageSystem(content=render("teamwork", "team_system.txt"))
    assert shared.model_dump(exclude={"id"}) == made_anew.model_dump(exclude={"id"})  # unedited


async def test_a_finished_deliberation_frees_its_team_without_the_cycle_collector() -> None:
    """A team in a reference cycle would keep every reply of the deliberation alive until a
    full collection, and every collection before it would walk them."""
    script = ScriptedModel(TeamScript().respond)
    gc.collect()
    gc.disable()
    try:
        result = await deliberate(BATCH, TeamworkConfig.parse("all", 3), [script.model])
        teams = [o for o in gc.get_objects() if isinstance(o, Team)]
    finally:
        gc.enable()
    assert result.outcomes and len(script.calls) > 5
    assert teams == []
