"""End to end: `inspect eval tasks/medical_qa.py` on scripted models, asserting on the log."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage

from gaa.plugins import catalogue
from gaa.qa import QuestionFileError, load_medqa_jsonl, medical_qa
from gaa.teamwork import TeamworkConfig, TeamworkConfigError, planned_calls
from gaa.teamwork.config import ABLATION_PRESETS
from gaa.testing import ScriptedModel, TeamScript, team_role

REPO = Path(__file__).resolve().parents[1]
TASK = "tasks/medical_qa.py"  # Inspect resolves task files relative to the working directory


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def run(model: ScriptedModel, tmp_path: Path, limit: int = 2, **task_args: object) -> EvalLog:
    [log] = eval(
        TASK,
        model=model.model,
        task_args=task_args,
        limit=limit,
        log_dir=str(tmp_path),
        display="none",
    )
    return log


def metric(log: EvalLog, name: str, stat: str = "mean") -> float:
    assert log.results is not None
    score = next(s for s in log.results.scores if s.name == name)
    return score.metrics[stat].value


def correct_answers() -> dict[str, str]:
    samples = catalogue().question_sets.get("core").item()
    return {s.input: str(s.target) for s in samples}


@pytest.mark.parametrize("preset", ["single", *ABLATION_PRESETS, "C8"])
def test_every_preset_runs_with_the_planned_calls(preset: str, tmp_path: Path) -> None:
    model = ScriptedModel(TeamScript().respond)
    log = run(model, tmp_path, teamwork=preset, n_agents=3)
    assert log.status == "success", log.error
    expected = planned_calls(TeamworkConfig.parse(preset, 3), 3)["total"]
    assert metric(log, "calls") == expected
    assert len(model.calls) == 2 * expected
    assert log.samples is not None
    for sample in log.samples:
        stored = sample.store["teamwork"]
        assert stored["ledger"]["records"] and len(stored["ledger"]["records"]) == expected
    assert log.eval.metadata is not None and log.eval.metadata["teamwork"] == preset


def test_accuracy_reflects_the_team_answer(tmp_path: Path) -> None:
    answers = correct_answers()
    right = TeamScript(
        choose=lambda q, labels, role: labels[0],
    )

    def knows(messages: list[ChatMessage]) -> str:
        prompt = messages[-1].text
        answer = next((a for question, a in answers.items() if question in prompt), "A")
        right.choose = lambda q, labels, role: answer
        return right.respond(messages)

    log = run(ScriptedModel(knows), tmp_path, limit=4, teamwork="C2")
    assert metric(log, "accuracy") == 1.0
    assert metric(log, "convergence") == 1.0
    # members say 0.7 and are right: Brier = 0.3^2
    assert metric(log, "brier") == pytest.approx(0.09)

    wrong = TeamScript(choose=lambda q, labels, role: "E")
    log = run(ScriptedModel(wrong.respond), tmp_path, limit=4, teamwork="base", n_agents=2)
    targets = [s.target for s in log.samples or []]
    assert metric(log, "accuracy") == pytest.approx(sum(t == "E" for t in targets) / 4)


def test_teamwork_metrics_in_the_log(tmp_path: Path) -> None:
    log = run(ScriptedModel(TeamScript().respond), tmp_path, teamwork="all", n_agents=3)
    assert metric(log, "smm_facts") == 1.0
    assert metric(log, "mm_challenges") == 1.0
    assert metric(log, "trust_divergence") > 0.0  # member 1 was challenged
    assert metric(log, "tokens") > 0 and metric(log, "latency") > 0
    sample = (log.samples or [])[0]
    assert sample.output.completion.startswith("ANSWER: ")
    assert sample.scores is not None
    score = sample.scores["teamwork_qa_scorer"]
    assert score.answer == sample.output.completion.removeprefix("ANSWER: ")
    spans = {e.name for e in sample.events if getattr(e, "event", "") == "span_begin"}
    assert {
        "R1 recruitment",
        "R2 independent answers",
        "R3 discussion turn 1",
        "R4 aggregation",
    } <= spans


def test_role_list_binds_members_to_different_models(tmp_path: Path) -> None:
    main, first, second = (ScriptedModel(TeamScript().respond) for _ in range(3))
    [log] = eval(
        TASK,
        model=main.model,
        model_roles={"teamwork": [first.model, second.model]},
        task_args={"teamwork": "C2", "n_agents": 3},
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert main.calls == []
    member_roles = Counter(team_role(call.messages) for call in second.calls)
    assert member_roles == {"Expert 2": 3}
    assert len(first.calls) == planned_calls(TeamworkConfig.parse("C2", 3), 3)["total"] - 3


def test_garbage_agent_is_left_out_and_counted(tmp_path: Path) -> None:
    team = TeamScript()

    def respond(messages: list[ChatMessage]) -> str:
        if team_role(messages) == "Expert 2":
            return "no idea"
        return team.respond(messages)

    log = run(ScriptedModel(respond), tmp_path, limit=1, teamwork="base", n_agents=3)
    assert log.status == "success"
    assert metric(log, "excluded") == 3.0
    assert metric(log, "calls") == planned_calls(TeamworkConfig.parse("base", 3), 3)["total"] + 3


def test_all_agents_failing_errors_the_sample_clearly(tmp_path: Path) -> None:
    log = run(
        ScriptedModel(lambda messages: "garbage"), tmp_path, limit=1, teamwork="base", n_agents=2
    )
    assert log.status == "error"
    assert log.samples and log.samples[0].error is not None
    assert "All 2 team members failed to give a readable answer" in log.samples[0].error.message


def test_bad_task_arguments_fail_before_any_sample() -> None:
    with pytest.raises(TeamworkConfigError, match="Unknown teamwork preset or component 'C9'"):
        medical_qa(teamwork="C9")
    with pytest.raises(TeamworkConfigError, match="requires leadership"):
        medical_qa(teamwork="mm")


def test_core_question_set() -> None:
    samples = catalogue().question_sets.get("core").item()
    assert len(samples) >= 60
    assert len({s.id for s in samples}) == len(samples)
    specialties = Counter(s.metadata["specialty"] for s in samples if s.metadata)
    assert len(specialties) >= 8
    assert all(len(s.choices or []) == 5 for s in samples)
    assert all(s.metadata and s.metadata["explanation"] for s in samples)
    answers = Counter(str(s.target) for s in samples)
    assert set(answers) == set("ABCDE") and max(answers.values()) <= len(samples) / 3


def test_medqa_file_loads_and_runs(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    rows = [
        {
            "question": "Which vitamin deficiency causes scurvy?",
            "options": {"A": "Vitamin A", "B": "Vitamin C", "C": "Vitamin D", "D": "Vitamin K"},
            "answer_idx": "B",
            "meta_info": "step1",
        },
        {"question": "Second?", "options": {"A": "x", "B": "y"}, "answer_idx": "A"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    samples = load_medqa_jsonl(path)
    assert [s.id for s in samples] == ["line-1", "line-2"]
    assert samples[0].metadata == {"options": rows[0]["options"], "meta_info": "step1"}
    log = run(
        ScriptedModel(TeamScript(choose=lambda q, labels, role: "B").respond),
        tmp_path,
        dataset=str(path),
        teamwork="single",
    )
    assert metric(log, "accuracy") == 0.5


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"question": "Q?", "options": {"A": "x", "B": "y"}}',
            "line 2: missing field 'answer_idx'",
        ),
        ('{"question": "Q?", "options": {"A": "x"}, "answer_idx": "A"}', "line 2: field 'options'"),
        (
            '{"question": "Q?", "options": {"A": "x", "B": "y"}, "answer_idx": "C"}',
            "line 2: field 'answer_idx' is 'C'",
        ),
        ('{"question": ', "line 2: not valid JSON"),
        (
            '{"id": "line-1", "question": "Q?", "options": {"A": "x", "B": "y"}, '
            '"answer_idx": "A"}',
            "already used on line 1",
        ),
    ],
)
def test_bad_question_files_name_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    good = '{"question": "Fine?", "options": {"A": "x", "B": "y"}, "answer_idx": "A"}'
    path.write_text(good + "\n" + line + "\n")
    with pytest.raises(QuestionFileError) as error:
        medical_qa(dataset=str(path))
    assert message in str(error.value) and str(path) in str(error.value)
