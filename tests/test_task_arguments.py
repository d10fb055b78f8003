"""Task arguments are parsed strictly: each bad value names the parameter, the value and what is
allowed, before any sample runs (values as Inspect passes them from ``-T``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage

from gaa._args import parse_bool
from gaa.dialogue.task import FAIL_ON_ERROR, BenchmarkConfigError, medical_dialogue
from gaa.testing import ScriptedModel

REPO = Path(__file__).resolve().parents[1]
OFFLINE = {"doctor": "reference/exemplary", "patient": "scripted", "judge": "rules"}


@pytest.mark.parametrize(
    ("argument", "value", "message"),
    [
        ("reveal_persona", "maybe", "reveal_persona must be true or false"),
        ("counterfactuals", "maybe", "counterfactuals must be true or false"),
        ("safety_gate", "2", "safety_gate must be true or false"),
        ("max_rounds", 1.7, "max_rounds must be a whole number from 1 to 20, not 1.7"),
        ("max_rounds", "abc", "max_rounds must be a whole number from 1 to 20, not 'abc'"),
        ("max_rounds", 1000, "max_rounds must be a whole number from 1 to 20, not 1000"),
        ("max_rounds", True, "max_rounds must be a whole number"),
        ("doctor_retry_wait", "abc", "doctor_retry_wait must be a number from 0 to 60"),
        ("doctor_retry_wait", float("nan"), "doctor_retry_wait must be a number"),
        ("weights", "nan,nan,nan", "weights must be five numbers from 0 to 1000"),
        ("weights", "inf,1,1", "weights must be five numbers from 0 to 1000"),
        ("weights", "1e308,1e308,1e308", "weights must be five numbers from 0 to 1000"),
        ("max_rounds", "\u00b2", "max_rounds must be a whole number"),
        ("structured_output", "sometimes", "structured_output must be auto, true or false"),
    ],
)
def test_bad_arguments_are_named(argument: str, value: object, message: str) -> None:
    with pytest.raises(BenchmarkConfigError, match=message.replace("(", r"\(")):
        medical_dialogue(**{**OFFLINE, argument: value})


@pytest.mark.parametrize(
    ("value", "expected"), [("yes", True), ("0", False), ("TRUE", True), (False, False), (1, True)]
)
def test_switches_accept_the_usual_spellings(value: object, expected: bool) -> None:
    assert parse_bool("reveal_persona", value) is expected
    task = medical_dialogue(**{**OFFLINE, "reveal_persona": value, "max_rounds": "3"})
    assert task.metadata is not None and task.metadata["max_rounds"] == 3


def test_a_run_fails_when_a_fifth_of_its_samples_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's promise, checked against Inspect's own (inclusive) rule."""
    monkeypatch.chdir(REPO)

    def run(personas: str) -> EvalLog:
        calls = {"n": 0}

        def first_sample_fails(messages: list[ChatMessage]) -> object:
            calls["n"] += 1
            return RuntimeError("doctor down") if calls["n"] <= 3 else "Take your time."

        args = {"patient": "scripted", "judge": "rules", "doctor_retry_wait": 0.0}
        [log] = eval(
            "tasks/medical_dialogue.py",
            model=ScriptedModel(first_sample_fails).model,
            task_args={**args, "personas": personas, "max_rounds": 1},
            max_samples=1,
            log_dir=str(tmp_path),
            display="none",
        )
        return log

    five = "INTJ_M_PNEUMO,ENFP_F_PNEUMO,ISTJ_M_LUNG,ESFP_F_LUNG,INFJ_M_LUNG"
    assert FAIL_ON_ERROR == 0.2
    assert run(five).status == "error"  # 1 of 5 failed: 20%, and the rule is "20% or more"
    six = run(five + ",ENTJ_F_LUNG")
    assert six.status == "success"  # 1 of 6 is under 20%: the batch goes on
    assert sum(sample.error is not None for sample in six.samples or []) == 1
    readme = (REPO / "docs" / "benchmark.md").read_text(encoding="utf-8")
    assert "the run fails when 20% or\nmore of its samples fail" in readme


@pytest.mark.parametrize("pattern", ["INTJ_*", "all_F_LUNG", "E???_M_*"])
def test_the_readme_persona_patterns_pass_through_the_command_line(pattern: str) -> None:
    from inspect_ai._cli.util import parse_cli_args

    from gaa.personas import select_personas

    readme = (REPO / "docs" / "personas-and-cases.md").read_text(encoding="utf-8")
    assert f"`{pattern}`" in readme
    [(name, value)] = parse_cli_args((f"personas={pattern}",)).items()
    selected = select_personas(value)
    assert name == "personas" and selected
    if pattern == "all_F_LUNG":
        assert {p.persona_id for p in selected} == {f"{m}_F_LUNG" for m in MBTI}


MBTI = ("INTJ", "INTP", "ENTJ", "ENTP", "INFJ", "INFP", "ENFJ", "ENFP",
        "ISTJ", "ISFJ", "ESTJ", "ESFJ", "ISTP", "ISFP", "ESTP", "ESFP")  # fmt: skip


@pytest.mark.parametrize(
    ("task_file", "defined_in"),
    [
        ("medical_dialogue", "gaa.dialogue.task"),
        ("medical_qa", "gaa.qa.task"),
        ("judge_check", "gaa.judge_check.task"),
    ],
)
def test_each_task_file_offers_the_packages_arguments_and_defaults(
    task_file: str, defined_in: str
) -> None:
    """Inspect finds a file's tasks by parsing it for ``@task`` definitions, so tasks/*.py must
    repeat each signature; this keeps the copies in step with the package's."""
    import importlib
    import importlib.util
    import inspect
    from pathlib import Path

    path = Path(__file__).parents[1] / "tasks" / f"{task_file}.py"
    spec = importlib.util.spec_from_file_location(f"task_file_{task_file}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def offered(function: object) -> list[tuple[str, object]]:
        return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]

    package = getattr(importlib.import_module(defined_in), task_file)
    assert offered(getattr(module, task_file)) == offered(package)
