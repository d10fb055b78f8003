"""The report read at a glance: one comparison table first, runs named apart, personas (not
samples) as the unit with epochs as repeats and a test-retest figure, intervals inside the
scale, flags summarised without repeating quotes, sections in rank order, and runs that scored
nothing only in the notes at the foot."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

from gaa.dialogue.task import medical_dialogue
from gaa.report import build_report, make_report

SCALES = {"overall": 100.0, "empathy": 10.0, "persuasion": 10.0, "safety": 10.0,
          "accuracy": 10.0, "informed_consent": 10.0}  # fmt: skip


def _run(folder: Path, doctor: str, personas: str, epochs: int = 1) -> EvalLog:
    [log] = eval(
        medical_dialogue(doctor=doctor, personas=personas, patient="scripted", judge="rules"),
        model="none",
        epochs=epochs,
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success"
    return log


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    folder = tmp_path_factory.mktemp("glance")
    return {
        "pushy": _run(folder, "reference/pushy", "INTJ_*"),
        "exemplary": _run(folder, "reference/exemplary", "INTJ_*"),
        "exemplary_epochs": _run(folder, "reference/exemplary", "INTJ_M_*", epochs=3),
    }


@pytest.fixture(scope="module")
def page(logs: dict[str, EvalLog], tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("glance-report")
    make_report([log.location for log in logs.values()], out)
    return (out / "report.md").read_text(encoding="utf-8")


def _comparison_rows(markdown: str) -> list[list[str]]:
    section = markdown.split("## Comparison", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


def test_the_page_opens_with_one_comparison_of_every_run(page: str) -> None:
    headings = re.findall(r"^## (.+)$", page, flags=re.MULTILINE)
    assert headings[0] == "Comparison"
    header, *rows = _comparison_rows(page)
    for column in ("run", "overall (0-100)", "95% interval", "empathy", "consent",
                   "recommended course", "held the line", "flags / consultation", "personas",
                   "epochs", "model", "judged by", "tokens", "cost", "time", "date"):  # fmt: skip
        assert column in header
    assert len(rows) == 3
    names = [row[header.index("run")] for row in rows]
    assert len(set(names)) == 3  # two exemplary runs, told apart
    assert sum(name.startswith("reference/exemplary \\[") for name in names) == 2
    by_name = {row[header.index("run")]: row for row in rows}
    epochs_run = by_name["reference/exemplary \\[2 personas x 3 epochs\\]"]
    assert epochs_run[header.index("personas")] == "2"  # personas, not 6 samples
    assert epochs_run[header.index("epochs")] == "3"
    ranks = [float(row[header.index("overall (0-100)")]) for row in rows]
    assert ranks == sorted(ranks, reverse=True)
    pushy = next(row for name, row in by_name.items() if name.startswith("reference/pushy"))
    assert float(pushy[header.index("flags / consultation")]) > 0
    assert pushy[header.index("recommended course")].endswith("%")


def test_sections_follow_the_ranking_with_a_table_of_contents(page: str) -> None:
    header, *rows = _comparison_rows(page)
    ranked = [row[header.index("run")] for row in rows]
    sections = re.findall(r"^## \d+\. (.+)$", page, flags=re.MULTILINE)
    assert sections == ranked
    contents = page.split("## Contents", 1)[1].split("\n## ", 1)[0]
    anchors = re.findall(r"\]\(#([a-z0-9-]+)\)", contents)
    assert len(anchors) == 3
    for anchor in anchors:
        assert f'<a id="{anchor}"></a>' in page


def test_epochs_are_repeats_of_a_persona_with_a_test_retest_figure(
    logs: dict[str, EvalLog],
) -> None:
    report = build_report([logs["exemplary_epochs"].location])
    [run] = report.runs
    assert run.consultations == 6 and run.metrics["overall"].n == 2
    assert run.reliability is not None
    assert (run.reliability.personas, run.reliability.epochs) == (2, 3)
    # scripted doctor, patient and judge are deterministic: every epoch scores alike
    assert run.reliability.icc == pytest.approx(1.0) and run.reliability.within_sd == 0.0
    assert "over 2 of 2 personas, 3 epochs each" in run.summary
    assert "Test-retest over 3 epochs (2 personas): ICC(2,1) of overall 1.00" in run.summary


def test_every_interval_stays_inside_its_scale(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    make_report([log.location for log in logs.values()], tmp_path, formats=("json",))
    data = json.loads((tmp_path / "report.json").read_text())
    checked = 0
    for run in data["runs"]:
        for name, stats in run["metrics"].items():
            if stats["ci95_low"] is not None:
                assert 0 <= stats["ci95_low"] <= stats["mean"] <= stats["ci95_high"]
                assert stats["ci95_high"] <= SCALES[name]
                checked += 1
        for groups in run["breakdowns"].values():
            for stats in groups.values():
                if stats["ci95_low"] is not None:
                    assert 0 <= stats["ci95_low"] <= stats["ci95_high"] <= 100
                    checked += 1
    assert checked > 30


def test_flags_are_grouped_by_rule_and_no_quote_repeats(page: str) -> None:
    pushy = page.split("## 3. reference/pushy", 1)[1]
    flags = pushy.split("### Safety flags (consultations)", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in flags.splitlines() if line.startswith("| ") and "---" not in line]
    rules = [line.split(" | ")[0].strip("| ") for line in rows if line.count(" | ") == 5]
    assert len(rules) == len(set(rules)) >= 3 and "rule" in rules
    quotes = [line.split(" | ")[3] for line in rows if line.count(" | ") == 5][1:]
    quotes += [line.split(" | ")[1] for line in rows if line.count(" | ") == 2][1:]
    for quote in quotes:
        assert page.count(f"| {quote} |") == 1, quote


def test_an_unscored_run_is_a_note_never_a_section(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = read_eval_log(logs["pushy"].location)
    for sample in log.samples or []:
        sample.scores = None
        sample.error = None
    log.samples = []
    log.status = "started"
    unfinished = tmp_path / "unfinished.eval"
    write_eval_log(log, str(unfinished))
    make_report([logs["exemplary"].location, str(unfinished)], tmp_path / "out", ("md",))
    markdown = (tmp_path / "out" / "report.md").read_text()
    assert re.findall(r"^## (.+)$", markdown, flags=re.MULTILINE) == [
        "Comparison", "1. reference/exemplary", "Notes",
    ]  # fmt: skip
    notes = markdown.split("## Notes", 1)[1]
    assert "reference/pushy" in notes and "started" in notes
    assert "**Warning:**" not in markdown.split("## Notes", 1)[0]


def test_the_summary_names_no_extremes_when_every_group_is_alike() -> None:
    from gaa.report.analysis import _extremes
    from gaa.report.stats import summarise

    alike = {"ENFJ": summarise([54.2, 54.2]), "INTJ": summarise([54.2, 54.2])}
    assert _extremes(alike) is None  # never "lowest ENFJ (54.2), highest ENFJ (54.2)"
    differ = {**alike, "ISTP": summarise([60.0, 61.0])}
    assert _extremes(differ) == ("ENFJ", "ISTP")


def test_the_eval_report_repeats_each_run_from_its_own_command(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    import shlex
    import statistics
    import subprocess
    import sys

    location = logs["exemplary_epochs"].location
    make_report([location], tmp_path / "out", ("eval-report", "json"))
    text = (tmp_path / "out" / "eval-report.md").read_text()
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    overall = data["runs"][0]["metrics"]["overall"]
    stderr = overall["sd"] / overall["n"] ** 0.5
    row = next(line for line in text.splitlines() if line.startswith("| 1 |"))
    cells = [cell.strip() for cell in row.strip("|").split(" | ")]
    assert cells[4] == f"{overall['mean']:.1f}" and cells[5] == f"{stderr:.2f}"
    assert cells[7:10] == ["6", "2", "3"]  # samples, personas, epochs
    assert "inspect_ai" in text and "Task version" in text
    [command] = re.findall(r"```bash\n(.+)\n```", text)
    argv = shlex.split(command)
    assert argv[:3] == ["inspect", "eval", "tasks/medical_dialogue.py"] and "--epochs" in argv
    argv[0] = str(Path(sys.executable).parent / "inspect")
    argv += ["--log-dir", str(tmp_path / "again"), "--display", "none"]
    subprocess.run(argv, check=True, cwd=Path(__file__).resolve().parents[1], timeout=600)
    [again] = build_report([str(tmp_path / "again")]).runs
    assert again.run.epochs == 3 and again.metrics["overall"].n == 2
    assert again.metrics["overall"].mean == pytest.approx(overall["mean"])
    assert statistics.fmean(u.scores["overall"] for u in again.units) == pytest.approx(
        overall["mean"]
    )


def test_the_documented_sweep_runs_resumes_and_reports_as_one_comparison(
    tmp_path: Path,
) -> None:
    import subprocess
    import sys

    page = (Path(__file__).resolve().parents[1] / "docs" / "reports.md").read_text()
    section = page.split("## Many doctors at once", 1)[1]
    [snippet] = re.findall(r"```python\n(.+?)```", section, flags=re.DOTALL)
    for _ in range(2):  # the second run resumes: every task is done, nothing runs again
        subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, check=True, timeout=600)
    logs = sorted((tmp_path / "logs" / "sweep").glob("*.eval"))
    assert len(logs) == 3
    report = build_report([str(tmp_path / "logs" / "sweep")])
    assert report.board[0].doctor == "reference/exemplary"
    assert {row.doctor for row in report.board} == {
        "reference/exemplary", "reference/pushy", "reference/pleaser",
    }  # fmt: skip
    assert all(row.n == 64 for row in report.board)


def test_a_breakdown_where_every_group_is_alike_is_one_sentence(page: str) -> None:
    pushy = page.split("## 3. reference/pushy", 1)[1]
    section = pushy.split("### By MBTI dimension (overall, 0-100)", 1)[1].split("\n### ", 1)[0]
    assert section.strip().startswith("Every group scored the same (")
    assert "|" not in section  # no table of identical rows
