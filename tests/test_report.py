"""``gaa report`` on logs of offline runs made here: every number it prints is the log's
(recomputed independently below), the pictures are real PNGs, the page needs no network, and
bad, partial and incomparable logs are reported as such."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage

from gaa.cli import main
from gaa.dialogue.task import medical_dialogue
from gaa.qa import medical_qa
from gaa.report import ReportError, build_report, make_report
from gaa.report.stats import bootstrap_interval, icc_2_1, sign_test, summarise
from gaa.testing import ScriptedModel, TeamScript

PERSONAS = "IN*"  # 4 types x 2 genders x 2 cases = 16 personas
GROUPS = ("empathy", "persuasion", "safety", "accuracy", "informed_consent")
SUMMARY = {"strengths": ["clear"], "weaknesses": ["few figures"], "critical_incidents": []}


def judge_replies(messages: list[ChatMessage]) -> str:
    if "evaluation summary" in messages[-1].text:
        return json.dumps(SUMMARY)
    return TeamScript(choose=lambda q, labels, role: "met").respond(messages)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    folder = tmp_path_factory.mktemp("report-logs")
    runs: dict[str, EvalLog] = {}
    for doctor in ("exemplary", "pushy"):
        [runs[doctor]] = eval(
            medical_dialogue(
                doctor=f"reference/{doctor}", personas=PERSONAS, patient="scripted", judge="rules"
            ),
            model="none",
            log_dir=str(folder / "rules"),
            display="none",
        )
    judge = ScriptedModel(judge_replies)
    [runs["passive"]] = eval(
        medical_dialogue(
            doctor="reference/passive",
            personas=PERSONAS,
            patient="scripted",
            judge="panel",
            teamwork="single",
        ),
        model="none",
        model_roles={"judge": judge.model},
        log_dir=str(folder / "panel"),
        display="none",
    )
    assert all(log.status == "success" for log in runs.values())
    return runs


def overall(log: EvalLog) -> dict[str, dict[str, float]]:
    values = {}
    for sample in log.samples or []:
        assert sample.scores is not None
        value = sample.scores["dialogue_judge"].value
        assert isinstance(value, dict)
        values[str(sample.id)] = {k: float(v) for k, v in value.items()}
    return values


def fmt(value: float) -> str:
    return f"{value:.1f}"


def test_every_number_in_the_markdown_and_json_is_the_logs(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = logs["exemplary"]
    report, _ = make_report([log.location], tmp_path)
    values = overall(log)
    markdown = (tmp_path / "report.md").read_text()
    data = json.loads((tmp_path / "report.json").read_text())
    [run] = data["runs"]
    for metric in ("overall", *GROUPS):
        column = [v[metric] for v in values.values()]
        mean, sd = statistics.fmean(column), statistics.stdev(column)
        low, high = bootstrap_interval(column)
        stats = run["metrics"][metric]
        assert stats["mean"] == pytest.approx(mean, abs=1e-4)
        assert stats["sd"] == pytest.approx(sd, abs=1e-4)
        assert stats["min"] == pytest.approx(min(column)) and stats["max"] == pytest.approx(max(column))
        assert (stats["ci95_low"], stats["ci95_high"]) == pytest.approx((low, high), abs=1e-4)
        assert min(column) <= low <= mean <= high <= max(column)  # inside the scale
        label = "overall" if metric == "overall" else metric.replace("_", " ")
        scale = "0-100" if metric == "overall" else "0-10"
        row = (
            f"| {label} | {scale} | {len(column)} | {fmt(mean)} | {fmt(sd)} | {fmt(min(column))} | "
            f"{fmt(max(column))} | {fmt(low)} - {fmt(high)} |"
        )
        assert row in markdown
    # breakdowns: by case and by the E/I dimension (all personas here are I)
    for case in ("pneumothorax", "lung_cancer"):
        column = [v["overall"] for p, v in values.items() if p.endswith("PNEUMO" if case == "pneumothorax" else "LUNG")]
        assert run["breakdowns"]["case"][case]["mean"] == pytest.approx(statistics.fmean(column), abs=1e-4)
        assert f"| {case} | {len(column)} | {fmt(statistics.fmean(column))} |" in markdown
    assert set(run["breakdowns"]["E/I"]) == {"I"}
    # gender twins: male minus female, same type and case
    gaps = {
        (p.split("_")[0], p.split("_")[2]): values[p]["overall"] - values[p.replace("_M_", "_F_")]["overall"]
        for p in values
        if "_M_" in p
    }
    twins = run["gender_twins"]
    assert len(twins["pairs"]) == len(gaps) == 8
    assert twins["mean_gap"] == pytest.approx(statistics.fmean(gaps.values()), abs=1e-4)
    assert twins["sign_test_p"] == pytest.approx(sign_test(list(gaps.values())))
    # per persona, and the criteria counts
    by_persona = {row["persona"]: row for row in run["scores"]}
    assert set(by_persona) == set(values)
    for persona, value in values.items():
        assert by_persona[persona]["overall_score"] == pytest.approx(value["overall"])
        assert f"| {persona} | {fmt(value['overall'])} |" in markdown
    not_met: dict[str, int] = {}
    for sample in log.samples or []:
        for item in sample.scores["dialogue_judge"].metadata["performance"]["criteria"]:  # type: ignore[index]
            if item["verdict"] == "not_met":
                not_met[item["criterion"]] = not_met.get(item["criterion"], 0) + 1
    assert {c["criterion"]: c["not_met"] for c in run["criteria_not_met"]} == not_met
    assert report.runs[0].summary == run["overall_summary"]
    assert report.runs[0].summary in markdown


def test_pictures_are_real_pngs_and_the_page_needs_no_network(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    report, written = make_report(
        [logs["exemplary"].location, logs["pushy"].location], tmp_path
    )
    pictures = [path for path in written if path.suffix == ".png"]
    # dimension scores and willingness for every run; criteria not met where some were; a
    # heatmap only where its cells differ; and the leaderboard
    from gaa.report.charts import heatmap_varies

    expected = sum(
        2 + bool(run.criteria_not_met) + heatmap_varies(run) for run in report.runs
    )
    assert len(pictures) == expected + 1
    for path in pictures:
        data = path.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5_000
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width > 300 and height > 150
    page = (tmp_path / "index.html").read_text()
    assert "http" not in page  # nothing fetched: no links, scripts, fonts or remote images
    markdown = (tmp_path / "report.md").read_text()
    tables = len(re.findall(r"^\|---", markdown, flags=re.MULTILINE))
    assert page.count("<table>") == tables > 10
    assert page.count('src="data:image/png;base64,') == len(pictures)


def test_several_runs_become_a_leaderboard_that_flags_different_judging(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    locations = [log.location for log in logs.values()]
    report = build_report(locations)
    means = {
        row.doctor: row.mean for row in report.board
    }
    for name, log in logs.items():
        expected = statistics.fmean(v["overall"] for v in overall(log).values())
        assert means[f"reference/{name}"] == pytest.approx(expected)
    assert [row.doctor for row in report.board] == sorted(means, key=lambda d: -means[d])
    flagged = [row for row in report.board if not row.comparable]
    assert [row.doctor for row in flagged] == ["reference/passive"]
    assert "judge panel" in flagged[0].judged_by
    assert any("reference/passive" in w and "not comparable" in w for w in report.warnings)
    result = CliRunner().invoke(main, ["report", *locations, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Warning: reference/passive" in result.output
    assert "reference/passive (judged differently)" in (tmp_path / "report.md").read_text()


def test_a_log_of_another_task_is_a_clear_error(tmp_path: Path) -> None:
    [log] = eval(
        medical_qa(teamwork="single"),
        model=ScriptedModel(TeamScript().respond).model,
        limit=1,
        log_dir=str(tmp_path / "qa"),
        display="none",
    )
    with pytest.raises(ReportError, match="not medical_dialogue") as error:
        build_report([log.location])
    assert Path(log.location).name in str(error.value)
    result = CliRunner().invoke(main, ["report", log.location, "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and "not medical_dialogue" in result.output


def test_a_log_cut_short_is_reported_with_the_missing_personas(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = read_eval_log(logs["pushy"].location)
    assert log.samples is not None
    dropped = sorted(str(s.id) for s in log.samples[:3])
    log.samples = log.samples[3:]
    log.status = "cancelled"
    cut = tmp_path / "cut.eval"
    write_eval_log(log, str(cut))
    report = build_report([str(cut)])
    assert sorted(report.runs[0].run.missing) == dropped
    [warning] = report.warnings
    assert "partial (cancelled)" in warning and all(p in warning for p in dropped)
    assert f"{13} of {16} personas" in report.runs[0].summary


def test_an_empty_or_missing_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="holds no Inspect logs"):
        build_report([str(tmp_path)])
    with pytest.raises(ReportError, match="no log"):
        build_report([str(tmp_path / "nowhere.eval")])


def test_statistics_helpers_against_hand_values() -> None:
    summary = summarise([2.0, 4.0, 6.0])
    assert (summary.mean, summary.sd, summary.min, summary.max) == (4.0, 2.0, 2.0, 6.0)
    # a bootstrap of three values: the interval's ends are resample means, inside the range
    assert 2.0 <= summary.low < 4.0 < summary.high <= 6.0
    assert summarise([99.0, 100.0, 100.0, 100.0]).high == 100.0  # never past the scale
    # Shrout and Fleiss (1979), table 2: six targets, four judges; ICC(2,1) = 0.29
    ratings = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    assert icc_2_1([[float(v) for v in row] for row in ratings]) == pytest.approx(0.29, abs=0.005)
    assert icc_2_1([[1.0, 1.0], [5.0, 5.0]]) == 1.0  # repeats agree exactly
    assert sign_test([1, 1, 1, 1, 1]) == pytest.approx(2 / 32)
    assert sign_test([1, -1, 0]) == 1.0
    assert sign_test([]) == 1.0
    assert summarise([]).n == 0
