"""The demo on a model: every role played by one (scripted) model, summarised with its costs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessage

from gaa.demo import MODEL_DEMO_PERSONAS, plan_demo, run_demo
from gaa.summary import format_summaries, format_usage, run_health, summarise
from gaa.testing import ScriptedModel, TeamScript

DOCTOR = (
    "I can see this is worrying you. The operation is done through small cuts under general "
    "anaesthetic. It is entirely your decision, and you can take your time. What worries you most?"
)


def one_model_for_every_role(messages: list[ChatMessage]) -> str:
    first, last = messages[0].text, messages[-1].text
    if "study record" in last:
        return json.dumps({"decision": "UNDECIDED", "willingness": 5})
    if "evaluation summary" in last:
        return json.dumps({"strengths": ["kind"], "weaknesses": [], "critical_incidents": []})
    if first.startswith("You are Expert") or "JSON" in first:
        return TeamScript(choose=lambda q, labels, role: labels[0]).respond(messages)
    if "patient" in first and "Stay in character" in first:
        return "I am frightened of another collapse."  # never the status line: a small model
    return DOCTOR


def test_model_demo_plan_is_small_and_constrained() -> None:
    plan = plan_demo("gaa-local/qwen2.5-0.5b")
    assert plan.doctors == ("model", "reference/exemplary")
    assert plan.settings["personas"] == MODEL_DEMO_PERSONAS
    assert plan.settings["structured_output"] is True
    assert plan.settings["compose_patient"] is False
    assert "gaa-local/qwen2.5-0.5b" in plan.describe()
    offline = plan_demo()
    assert offline.offline and offline.settings["patient"] == "scripted"


def test_model_demo_runs_every_role_on_the_model_and_reports_what_it_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = ScriptedModel(one_model_for_every_role)
    plan = plan_demo(script.model, personas="INTJ_M_PNEUMO", max_rounds=2)
    logs = run_demo(plan, str(tmp_path))
    assert [log.status for log in logs] == ["success", "success"], logs[0].error
    assert logs[0].eval.config.max_samples == 1
    rows = [summarise(log) for log in logs]
    assert rows[0].doctor.startswith("gaa/model (") and rows[1].doctor == "reference/exemplary"
    table = format_summaries(rows)
    assert "gaa/model (" in table and "reference/exemplary" in table
    health = run_health(logs[0])
    assert health.patient_turns == 3  # opening and two rounds
    assert health.status_follow_ups == 3 and health.status_unknown == 0
    reference = run_health(logs[1])
    assert (health.doctor, reference.doctor) == (rows[0].doctor, rows[1].doctor)
    assert health.model_calls + reference.model_calls == len(script.calls)
    assert health.model_calls - reference.model_calls == 2  # the model doctor's two turns
    assert health.tokens > 0
    structured = [c for c in script.calls if c.config.response_schema is not None]
    assert structured  # member replies and status follow-ups are schema-constrained
    summaries = [c for c in script.calls if "evaluation summary" in c.last_text]
    assert len(summaries) == 2 and all(c.config.response_schema for c in summaries)
    assert "status asked" in format_usage(logs)
    assert not any("character brief" in c.last_text for c in script.calls)  # no constructor
