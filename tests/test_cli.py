from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gaa.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_personas_all_prints_64_ids() -> None:
    code, out, _ = run("personas", "all")
    lines = out.splitlines()
    assert code == 0
    assert len(lines) == 64 and len(set(lines)) == 64
    assert "INTJ_M_PNEUMO" in lines and "ESFP_F_LUNG" in lines


def test_personas_patterns_and_cases() -> None:
    code, out, _ = run("personas", "INTJ_*", "ESFP_F_LUNG")
    assert code == 0 and out.splitlines()[-1] == "ESFP_F_LUNG" and len(out.splitlines()) == 5
    code, out, _ = run("personas", "--cases", "small_aaa")
    assert code == 0 and len(out.splitlines()) == 32


def test_invalid_persona_is_one_clear_line_and_nonzero() -> None:
    code, out, err = run("personas", "INTJ_X_PNEUMO")
    assert code != 0
    assert out == ""
    assert err.count("\n") == 1
    assert "valid genders: M (male), F (female)" in err
    assert "Traceback" not in err


def test_plugins_lists_builtins_and_example_with_their_plugins() -> None:
    code, out, _ = run("plugins")
    assert code == 0
    case_lines = {
        line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and "/" in line
    }
    assert "plugin gaa: built-in" in case_lines["gaa/pneumothorax"]
    assert "PNEUMO" in case_lines["gaa/pneumothorax"]
    assert "plugin example: gaa-example-plugin 0.1.0" in case_lines["example/small_aaa"]
    assert "surgery NOT indicated" in case_lines["example/small_aaa"]


def test_plugins_json() -> None:
    code, out, _ = run("plugins", "--json")
    data = json.loads(out)
    assert code == 0
    assert {"name": "example", "distribution": "gaa-example-plugin"}.items() <= next(
        p for p in data["plugins"] if p["name"] == "example"
    ).items()
    assert "gaa/lung_cancer" in [c["name"] for c in data["cases"]]


def test_console_script_is_installed() -> None:
    script = shutil.which("gaa", path=str(Path(sys.executable).parent))
    assert script is not None
    result = subprocess.run(
        [script, "personas", "INTJ_M_*"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.split() == ["INTJ_M_PNEUMO", "INTJ_M_LUNG"]


def test_teamwork_calls_table_matches_what_the_engine_does() -> None:
    import asyncio

    from gaa.teamwork import Question, QuestionBatch, TeamworkConfig, deliberate
    from gaa.testing import ScriptedModel, TeamScript

    code, out, _ = run("teamwork", "calls", "--agents", "2", "--turns", "3", "--fixed")
    assert code == 0
    assert "N=2 fixed, T=3" in out
    rows = {line.split()[0]: line.split()[-4:] for line in out.splitlines()[2:]}
    assert set(rows) == {"single", "base", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "all"}
    batch = QuestionBatch(questions=[Question(id="q", text="?", options={"A": "a", "B": "b"})])
    for preset, (r1, r2, r3, total) in rows.items():
        model = ScriptedModel(TeamScript().respond)
        config = TeamworkConfig.parse(preset, 2, 3)
        result = asyncio.run(deliberate(batch, config, [model.model]))
        phases = result.ledger.by_phase()
        assert [phases["R1"], phases["R2"], phases["R3"]] == [int(r1), int(r2), int(r3)], preset
        assert len(model.calls) == int(total), preset


def test_teamwork_calls_default_counts() -> None:
    code, out, _ = run("teamwork", "calls")
    assert code == 0
    base = next(line for line in out.splitlines() if line.startswith("base "))
    assert base.split()[-4:] == ["1", "3", "6", "10"]
    every = next(line for line in out.splitlines() if line.startswith("all "))
    assert every.split()[-4:] == ["1", "4", "10", "15"]


def test_demo_compares_doctors_offline(tmp_path: Path, monkeypatch: object) -> None:
    code, out, err = run(
        "demo",
        "--doctors",
        "reference/exemplary,reference/deceptive",
        "--personas",
        "*_F_PNEUMO",
        "--log-dir",
        str(tmp_path),
    )
    assert code == 0, err
    rows = {
        line.split()[0]: line.split() for line in out.splitlines() if line.startswith("reference/")
    }
    assert set(rows) == {"reference/exemplary", "reference/deceptive"}
    assert rows["reference/exemplary"][1] == "16"
    assert float(rows["reference/exemplary"][2]) > float(rows["reference/deceptive"][2])
    assert len(list(tmp_path.glob("*.eval"))) == 2
    assert f"inspect view --log-dir {tmp_path}" in out


def test_demo_rejects_an_unknown_doctor(tmp_path: Path) -> None:
    code, _, err = run("demo", "--doctors", "reference/exemplery", "--log-dir", str(tmp_path))
    assert code == 1 and "Did you mean 'reference/exemplary'" in err
    assert not list(tmp_path.iterdir())


def test_demo_refuses_zero_rounds() -> None:
    from click.testing import CliRunner

    from gaa.cli import main

    result = CliRunner().invoke(main, ["demo", "--max-rounds", "0"])
    assert result.exit_code != 0
    assert "--max-rounds" in result.output and "0" in result.output


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"question": "Q?", "options": {"A": "a", "B": "b"}, "answer_idx": ["A"]}', "answer_idx"),
        ('{"question": ' + "[" * 5000 + "]" * 5000 + "}", "nested too deep"),
        ('{"question": "Q?", "options": {"A": "a", "B": "b"}, "answer_idx": "A", "n": '
         + "9" * 5000 + "}", "not readable JSON"),
        (b"\xff\xfe\x00binary\x80".decode("latin-1"), "cannot be read as UTF-8"),
    ],
    ids=["list-answer", "deep", "5000-digits", "binary"],
)
def test_bad_question_files_are_one_line_naming_the_file(
    tmp_path: Path, content: str, expected: str
) -> None:
    from gaa.qa.questions import QuestionFileError, load_medqa_jsonl

    path = tmp_path / "questions.jsonl"
    if expected.startswith("cannot"):
        path.write_bytes(content.encode("latin-1"))
    else:
        path.write_text(content + "\n", encoding="utf-8")
    with pytest.raises(QuestionFileError, match=expected) as caught:
        load_medqa_jsonl(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(QuestionFileError, match="cannot be read"):
        load_medqa_jsonl(tmp_path)  # a directory


def test_a_failed_demo_run_is_one_short_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from inspect_ai.agent import agent

    from gaa.hookspecs import hookimpl
    from gaa.testing import plugin_registered

    @agent(name="always_down")
    def factory() -> object:
        async def execute(state: object) -> object:
            raise RuntimeError("service unavailable " + "x" * 5000)

        return execute

    class Plugin:
        @hookimpl
        def register_doctors(self, register: object) -> None:
            register("down", factory, description="always fails")  # type: ignore[operator]

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    with plugin_registered(Plugin(), "acme"):
        result = CliRunner().invoke(
            main,
            ["demo", "--doctors", "acme/down", "--personas", "INTJ_M_PNEUMO",
             "--max-rounds", "1", "--log-dir", str(tmp_path)],
        )
    assert result.exit_code == 1
    error = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(error) == 1 and "did not complete" in error[0]
    assert len(error[0]) < 1000 and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["tasks/medical_qa.py", "--model", "none"], "medical_qa needs a model"),
        (["tasks/medical_dialogue.py", "--model", "none", "-T", "max_rounds=99"], "max_rounds"),
    ],
)
def test_inspect_eval_prints_gaa_errors_as_one_message(
    arguments: list[str], message: str, tmp_path: Path
) -> None:
    inspect_bin = Path(sys.executable).parent / "inspect"
    result = subprocess.run(
        [str(inspect_bin), "eval", *arguments, "--log-dir", str(tmp_path)],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert message in output
    assert "Traceback" not in output
    assert not list(tmp_path.glob("*.eval"))  # failed before any sample ran
