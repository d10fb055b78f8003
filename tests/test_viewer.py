"""What ``inspect view`` shows of a run, read from the log: one task name however the task is
run, its version, stored scores rounded to what they mean, an explanation that names the scales,
the decision and whether it is the recommended course, every flag with its round and a quote and
the criteria not met; one transcript event a round; and the judge's generation settings fixed by
default, recorded, and yielding to the user's."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.log._transcript import InfoEvent, ModelEvent

from gaa._versions import TASK_VERSIONS
from gaa.dialogue.ruling import JUDGE_SEED
from gaa.dialogue.task import medical_dialogue
from gaa.testing import ScriptedModel, TeamScript

REPO = Path(__file__).resolve().parents[1]
OFFLINE = {"patient": "scripted", "judge": "rules"}


def _decimals(value: float) -> int:
    text = repr(float(value))
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


@pytest.fixture(scope="module")
def pushy(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    [log] = inspect_eval(
        medical_dialogue(doctor="reference/pushy", personas="INTJ_*", **OFFLINE),
        model="none",
        log_dir=str(tmp_path_factory.mktemp("pushy")),
        display="none",
    )
    return log


def test_one_task_name_and_version_however_the_task_is_run(tmp_path: Path) -> None:
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        logs = [
            inspect_eval(
                spec,
                model="none",
                task_args={"doctor": "reference/exemplary", "personas": "INTJ_M_LUNG", **OFFLINE},
                log_dir=str(tmp_path / name),
                display="none",
            )[0]
            for name, spec in (("file", "tasks/medical_dialogue.py"), ("registry", "gaa/medical_dialogue"))
        ]
    finally:
        os.chdir(cwd)
    assert [log.eval.task for log in logs] == ["medical_dialogue", "medical_dialogue"]
    assert {log.eval.task_version for log in logs} == {TASK_VERSIONS["medical_dialogue"]}
    assert {log.eval.task_display_name for log in logs} == {"medical_dialogue: reference/exemplary"}


def test_stored_scores_are_rounded_to_what_they_mean(pushy: EvalLog) -> None:
    for sample in pushy.samples or []:
        assert sample.scores is not None
        value = sample.scores["dialogue_judge"].value
        assert isinstance(value, dict)
        assert _decimals(value["overall"]) <= 1
        assert all(_decimals(value[name]) <= 2 for name in value if name != "overall")


def test_the_explanation_names_scales_decision_flags_and_criteria(pushy: EvalLog) -> None:
    sample = next(s for s in pushy.samples or [] if str(s.id) == "INTJ_M_PNEUMO")
    assert sample.scores is not None
    score = sample.scores["dialogue_judge"]
    text = score.explanation or ""
    assert "on 0-100" in text and "Dimensions on 0-10" in text
    assert "declined the operation" in text or "accepted the operation" in text
    assert "the case recommends the operation" in text and "recommended course" in text
    flags = score.metadata["performance"]["flags"]  # type: ignore[index]
    assert flags
    rounds = re.findall(r'round (\d+) (\w+): "([^"]+)"', text)
    assert {rule for _, rule, _ in rounds} == {flag.split(":", 1)[0] for flag in flags}
    doctor_text = " ".join(m.text for m in sample.messages if m.role == "assistant")
    for _, _, quote in rounds:
        assert quote.rstrip(".") in doctor_text
    assert "Not met (" in text and "Judged by: rules." in text
    assert "Critical incidents" not in text  # the rules judge's summary restates nothing
    assert ".;" not in text


def test_one_transcript_event_a_round_with_one_heading(pushy: EvalLog) -> None:
    sample = resolve_sample_attachments((pushy.samples or [])[0])
    infos = [e for e in sample.events if isinstance(e, InfoEvent) and e.source == "dialogue"]
    rounds = sample.scores["dialogue_judge"].metadata["dialogue"]["rounds"]  # type: ignore[index]
    doctor_rounds = [str(e.data) for e in infos if str(e.data).startswith("Round ")]
    assert len(doctor_rounds) == rounds
    for number, data in enumerate(doctor_rounds, start=1):
        assert data.startswith(f"Round {number}\n") and data.count("Round ") == 1
        assert re.search(r"\*\*Patient\*\* \((accepts the operation|declines the operation|"
                         r"undecided), willingness \d+ of 10\)", data)  # fmt: skip


def _judge_calls(log: EvalLog) -> list[ModelEvent]:
    return [
        event
        for sample in log.samples or []
        for event in sample.events
        if isinstance(event, ModelEvent) and event.role == "judge"
    ]


def _panel(tmp_path: Path, **settings: float) -> EvalLog:
    def reply(messages: list) -> str:  # type: ignore[type-arg]
        if "evaluation summary" in messages[-1].text:
            return json.dumps({"strengths": ["a"], "weaknesses": ["b"], "critical_incidents": []})
        return TeamScript(choose=lambda q, labels, role: "met").respond(messages)

    [log] = inspect_eval(
        medical_dialogue(
            doctor="reference/exemplary",
            personas="INTJ_M_LUNG",
            patient="scripted",
            judge="panel",
            teamwork="single",
        ),
        model="none",
        model_roles={"judge": ScriptedModel(reply).model},
        log_dir=str(tmp_path),
        display="none",
        **settings,  # type: ignore[arg-type]
    )
    assert log.status == "success"
    return log


def test_judge_settings_are_fixed_by_default_and_recorded(tmp_path: Path) -> None:
    log = _panel(tmp_path)
    assert log.eval.metadata is not None
    assert log.eval.metadata["judge_settings"] == {"temperature": 0.0, "seed": JUDGE_SEED}
    calls = _judge_calls(log)
    assert calls
    assert all(c.config.temperature == 0.0 and c.config.seed == JUDGE_SEED for c in calls)


def test_the_users_settings_win_over_the_judges_defaults(tmp_path: Path) -> None:
    log = _panel(tmp_path, temperature=0.7, seed=7)
    calls = _judge_calls(log)
    # the judges' defaults stay out of the calls, so the run's settings (Inspect applies them to
    # every call after the call's own) are the ones the provider gets
    assert calls and all(c.config.temperature is None and c.config.seed is None for c in calls)
    assert (log.plan.config.temperature, log.plan.config.seed) == (0.7, 7)


def test_the_task_versions_agree_with_the_eval_card_and_the_changelog() -> None:
    card = yaml.safe_load((REPO / "eval.yaml").read_text(encoding="utf-8"))
    assert {task["name"]: task["version"] for task in card["tasks"]} == TASK_VERSIONS
    for task in card["tasks"]:
        path = REPO / task["task_path"]
        assert f"def {task['name']}(" in path.read_text(encoding="utf-8")
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    for name, version in TASK_VERSIONS.items():
        assert f"| `{name}` | {version} |" in changelog
