"""Hostile model output goes the documented way (repair, then exclusion, then the rules judge),
never ends a sample with a raw exception (written from the attacks)."""

from __future__ import annotations

import json
import math

import pytest

from gaa.dialogue.patient import parse_status
from gaa.teamwork.engine import AGENT_COUNT_TASK
from gaa.teamwork.replies import ReplyError, extract_json, parse_confidence

DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_JSON = [
    '{"a": ' + DEEP + "}",  # RecursionError inside json
    "{" * 50_000,  # thousands of starts
    '{"n_agents": 1e999}',
    '{"confidence": ' + "9" * 400 + "}",
]


@pytest.mark.parametrize("text", HOSTILE_JSON, ids=["deep", "starts", "1e999", "10**400"])
def test_hostile_json_is_a_reply_error_or_a_plain_value(text: str) -> None:
    try:
        data = extract_json(text)
    except ReplyError:
        return
    assert isinstance(data, dict)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "nan", "1e999", 10**400, "inf%"])
def test_non_finite_confidences_are_refused(value: object) -> None:
    assert parse_confidence(value) is None


@pytest.mark.parametrize("value", [1e999, 10**400, "1e999", float("nan")])
def test_an_absurd_team_size_is_a_reply_error(value: object) -> None:
    with pytest.raises(ReplyError):
        AGENT_COUNT_TASK.parse(value)


def test_a_status_follow_up_of_nested_brackets_is_unknown_not_a_crash() -> None:
    assert parse_status(DEEP) == (None, None)
    assert parse_status("{" + DEEP) == (None, None)


def test_ordinary_json_still_reads() -> None:
    assert extract_json('Sure: {"a": 1}') == {"a": 1}
    assert extract_json("```json\n" + json.dumps({"b": [1, 2]}) + "\n```") == {"b": [1, 2]}
    assert parse_confidence("85%") == pytest.approx(0.85)
    assert math.isclose(parse_confidence(0.4) or 0, 0.4)


def broken_doctor_plugin(returned: object) -> object:
    from inspect_ai.agent import agent

    from gaa.hookspecs import hookimpl

    @agent(name="broken")
    def factory() -> object:
        async def execute(state: object) -> object:
            return returned

        return execute

    class Plugin:
        @hookimpl
        def register_doctors(self, register: object) -> None:
            register("broken", factory, description="returns the wrong thing")  # type: ignore[operator]

    return Plugin()


@pytest.mark.parametrize("returned", [None, "just a string"], ids=["None", "str"])
def test_a_doctor_breaking_the_agent_contract_is_a_named_recorded_failure(
    returned: object, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from inspect_ai import eval

    from gaa.testing import plugin_registered

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    with plugin_registered(broken_doctor_plugin(returned), "acme"):
        [log] = eval(
            "tasks/medical_dialogue.py",
            model="none",
            task_args={"doctor": "acme/broken", "patient": "scripted", "judge": "rules",
                       "personas": "INTJ_M_PNEUMO", "doctor_retry_wait": 0.0},
            log_dir=str(tmp_path),
            display="none",
        )
    [sample] = log.samples or []
    assert sample.error is not None
    assert "acme/broken failed 3 times" in sample.error.message
    assert "not an AgentState" in sample.error.message
    errors = sample.store["gaa:dialogue"]["doctor_errors"]
    assert len(errors) == 3 and all("not an AgentState" in error for error in errors)


def test_a_sample_cut_before_the_doctor_spoke_gets_no_consultation_score(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from inspect_ai import eval

    from gaa.testing import ScriptedModel

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    slow = ScriptedModel(lambda messages: "Take your time.", latency=30.0)
    [log] = eval(
        "tasks/medical_dialogue.py",
        model=slow.model,
        task_args={"patient": "scripted", "judge": "rules", "personas": "INTJ_M_PNEUMO"},
        time_limit=2,
        log_dir=str(tmp_path),
        display="none",
    )
    [sample] = log.samples or []
    assert not sample.scores or "dialogue_judge" not in sample.scores
    assert sample.error is not None or sample.limit is not None
    assert sample.error is None or "No consultation to judge" in sample.error.message


@pytest.mark.parametrize(
    "reply",
    [
        '{"n_agents": 1e999, "answers": ' + "[" * 50_000 + "]" * 50_000 + "}",
        '{"confidence": NaN, "n_agents": ' + "9" * 5000 + "}",
        "{" * 20_000,
    ],
    ids=["overflow-and-deep", "nan-and-long-number", "braces"],
)
def test_a_hostile_judge_panel_falls_back_to_the_rules(
    reply: str, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    from inspect_ai import eval

    from gaa.testing import ScriptedModel

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    [log] = eval(
        "tasks/medical_dialogue.py",
        model="none",
        model_roles={"judge": ScriptedModel(lambda messages: reply).model},
        task_args={"doctor": "reference/exemplary", "patient": "scripted", "judge": "panel",
                   "teamwork": "all", "personas": "INTJ_M_PNEUMO", "max_rounds": 1},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    [sample] = log.samples or []
    assert sample.error is None
    metadata = sample.scores["dialogue_judge"].metadata  # type: ignore[index]
    assert metadata["judge"] == "rules (panel failed)"
    assert any(f.startswith("judge_panel_failed") for f in metadata["fallbacks"])
