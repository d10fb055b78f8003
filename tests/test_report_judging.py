"""``gaa report`` says which judge actually scored, leaves runs that scored nothing out of the
comparison, and shows the tokens the logs record: on logs of offline runs made here with
scripted models (each with an explicit usage, so no tokenizer is needed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalError, EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessage, ModelUsage

from gaa.dialogue.task import medical_dialogue
from gaa.report import build_report, make_report
from gaa.report.markdown import doctor_tokens_cell, dollars
from gaa.report.prices import price_of
from gaa.report.tokens import TokenCount, doctor_tokens
from gaa.testing import ScriptedModel, TeamScript

PERSONAS = "INTJ_*_PNEUMO"  # the two gender twins of one type and case
DOCTOR_TEXT = (
    "I understand this is worrying, and it is natural to feel unsure. The operation is done "
    "under general anaesthetic through small cuts. It is entirely your decision and you can take "
    "your time. What questions do you have?"
)
SUMMARY = {"strengths": ["clear"], "weaknesses": ["few figures"], "critical_incidents": []}
FAILED_ERROR = "ConnectionError: connection refused: http://127.0.0.1:9/v1"


def good_judge(messages: list[ChatMessage]) -> str:
    if "evaluation summary" in messages[-1].text:
        return json.dumps(SUMMARY)
    return TeamScript(choose=lambda q, labels, role: "met").respond(messages)


def run(folder: Path, name: str, doctor: ScriptedModel, **task: object) -> EvalLog:
    """One medical_dialogue run with a scripted model doctor and the scripted patient."""
    roles = task.pop("roles", {})
    assert isinstance(roles, dict)
    [log] = eval(
        medical_dialogue(
            personas=PERSONAS, patient="scripted", max_rounds=2, doctor_retry_wait=0.01, **task
        ),
        model=doctor.model,
        model_roles={role: model.model for role, model in roles.items()},
        log_dir=str(folder / name),
        display="none",
    )
    return log


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """A panel that writes garbage (every sample falls back to the rules), a panel that works,
    the rules judge, and a run whose doctor never answers (every sample fails)."""
    folder = tmp_path_factory.mktemp("judging-logs")
    garbage = ScriptedModel(lambda messages: "not json at all", name="garbage-judge")
    logs = {
        "fallback": run(
            folder, "fallback", ScriptedModel(lambda m: DOCTOR_TEXT, name="doctor-a"),
            judge="panel", teamwork="single", roles={"judge": garbage},
        ),
        "panel": run(
            folder, "panel", ScriptedModel(lambda m: DOCTOR_TEXT, name="doctor-b"),
            judge="panel", teamwork="single",
            roles={"judge": ScriptedModel(good_judge, name="good-judge")},
        ),
        "rules": run(
            folder, "rules", ScriptedModel(lambda m: DOCTOR_TEXT, name="doctor-c"), judge="rules"
        ),
        "failed": run(
            folder, "failed",
            ScriptedModel(lambda m: ConnectionError(FAILED_ERROR), name="doctor-down"),
            judge="rules",
        ),
    }  # fmt: skip
    assert [logs[k].status for k in ("fallback", "panel", "rules")] == ["success"] * 3
    assert logs["failed"].status == "error"
    return logs


def empty_copy(log: EvalLog, folder: Path, message: str) -> str:
    """The log of a run that ended before any sample: no samples, an error."""
    copy = read_eval_log(log.location)
    copy.samples = []
    copy.status = "error"
    copy.error = EvalError(message=message, traceback="", traceback_ansi="")
    path = folder / "empty.eval"
    write_eval_log(copy, str(path))
    return str(path)


def test_a_panel_that_failed_on_every_sample_is_reported_as_the_rules_judge(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    for sample in logs["fallback"].samples or []:  # the premise: the scorer fell back
        assert sample.scores is not None
        assert sample.scores["dialogue_judge"].metadata["judge"] == "rules (panel failed)"  # type: ignore[index]
    locations = [logs[name].location for name in ("fallback", "rules", "panel")]
    report, _ = make_report(locations, tmp_path, ("md", "json"))
    rows = {row.location: row for row in report.board}
    fallback = rows[logs["fallback"].location]
    assert fallback.judged_by.startswith(
        "judge rules (fallback: panel of mockllm/garbage-judge failed on 2 of 2)"
    )
    assert "judge panel" not in fallback.judged_by
    # scored by the rules, it compares with the rules run; the working panel is the odd one
    assert fallback.comparable and rows[logs["rules"].location].comparable
    assert not rows[logs["panel"].location].comparable
    assert rows[logs["panel"].location].judged_by.startswith("judge panel (mockllm/good-judge)")
    [warning] = [w for w in report.warnings if "not comparable" in w]
    assert logs["panel"].location in warning and "most runs: judge rules" in warning
    markdown = (tmp_path / "report.md").read_text()
    assert "judge rules (fallback: panel of mockllm/garbage-judge failed on 2 of 2)" in markdown
    assert "**judge fallback:** the panel (mockllm/garbage-judge) failed on 2 of 2" in markdown
    data = json.loads((tmp_path / "report.json").read_text())
    judging = {run["log"]: run["judge"] for run in data["runs"]}
    assert judging[logs["fallback"].location] == {
        "configured": "panel",
        "scored_by": {"rules (fallback: panel failed)": 2},
        "panel_failed": 2,
        "comparable_as": "judge rules; patient scripted",
    }
    assert judging[logs["panel"].location]["scored_by"] == {"panel": 2}


def test_a_run_judged_partly_by_the_fallback_says_how_many_each_judge_scored(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = read_eval_log(logs["panel"].location)
    [first, _] = log.samples or []
    assert first.scores is not None
    metadata = first.scores["dialogue_judge"].metadata
    assert metadata is not None
    metadata["judge"] = "rules (panel failed)"
    metadata["fallbacks"] = ["judge_panel_failed: All 1 team members failed"]
    mixed = tmp_path / "mixed.eval"
    write_eval_log(log, str(mixed))
    report = build_report([str(mixed), logs["panel"].location])
    [mixed_report] = [r for r in report.runs if r.run.fallbacks]
    assert mixed_report.run.scored_by == {"panel": 1, "rules (fallback: panel failed)": 1}
    [row] = [row for row in report.board if row.location == mixed_report.run.location]
    assert "on 1 of 2, rules (fallback: panel failed) on 1 of 2" in row.judged_by
    assert row.judged_by.startswith("judge panel (mockllm/good-judge) teamwork=single on 1 of 2")
    # half scored by the rules is not the panel's score: the two runs are not comparable
    assert len({r.comparable for r in report.board}) == 2
    assert "The judge panel failed on 1 of 2 scored personas" in mixed_report.summary


def test_runs_that_scored_nothing_are_listed_apart_and_decide_nothing(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    empty = empty_copy(logs["failed"], tmp_path, "RuntimeError: the server at port 9 is down")
    locations = [logs["panel"].location, logs["failed"].location, empty]
    report, _ = make_report(locations, tmp_path / "report", ("md", "json"))
    # two failed runs judged by the rules would have been "most runs" against one panel run
    [row] = report.board
    assert row.location == logs["panel"].location and row.comparable and row.n == 2
    assert not any("not comparable" in warning for warning in report.warnings)
    failed = {run.samples: run for run in report.failed}
    assert set(failed) == {0, 2}
    assert failed[0].error == "RuntimeError: the server at port 9 is down"
    assert FAILED_ERROR in failed[2].error
    assert sum("scored no persona" in warning for warning in report.warnings) == 2
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "(not comparable)" not in markdown
    section = markdown.split("## Notes", 1)[1]
    assert "Runs that scored no persona (failed, unfinished or empty), not ranked" in section
    assert markdown.index("## Comparison") < markdown.index("## Notes")
    assert FAILED_ERROR in section and "RuntimeError: the server at port 9 is down" in section
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [entry["location"] for entry in data["leaderboard"]] == [logs["panel"].location]
    assert sorted(entry["samples"] for entry in data["failed_runs"]) == [0, 2]


def test_tokens_from_the_log_appear_in_the_markdown_html_and_json(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = logs["fallback"]
    usage = log.stats.model_usage
    doctor = usage["mockllm/doctor-a"]
    judge = log.stats.role_usage["judge"]
    total_in = sum(item.input_tokens for item in usage.values())
    total_out = sum(item.output_tokens for item in usage.values())
    assert doctor.input_tokens and judge.input_tokens and total_in > doctor.input_tokens
    locations = [log.location, logs["rules"].location]
    make_report(locations, tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    assert f"All models: {total_in:,} in, {total_out:,} out" in markdown
    assert (
        f"Doctor: {doctor.input_tokens:,} in, {doctor.output_tokens:,} out "
        "(mockllm/doctor-a, the model under test)"
    ) in markdown
    assert (
        f"| judge | mockllm/garbage-judge | {judge.input_tokens:,} | {judge.output_tokens:,} | "
        f"{judge.total_tokens:,} |"
    ) in markdown
    # the comparison row: every model's tokens in all
    comparison = markdown.split("## Comparison", 1)[1].split("\n## ", 1)[0]
    assert f"| {total_in + total_out:,} |" in comparison
    page = (tmp_path / "index.html").read_text()
    assert f"All models: {total_in:,} in, {total_out:,} out" in page
    data = json.loads((tmp_path / "report.json").read_text())
    [run] = [r for r in data["runs"] if r["log"] == log.location]
    assert run["tokens"]["total"]["input_tokens"] == total_in
    assert run["tokens"]["total"]["output_tokens"] == total_out
    assert run["tokens"]["by_role"]["judge"]["output_tokens"] == judge.output_tokens
    assert run["tokens"]["doctor"]["kind"] == "counted"
    assert run["tokens"]["doctor"]["input_tokens"] == doctor.input_tokens
    per_sample = {
        str(sample.id): sum(item.output_tokens for item in sample.model_usage.values())
        for sample in log.samples or []
    }
    assert {s["persona"]: s["tokens"]["output_tokens"] for s in run["scores"]} == per_sample
    [board] = [r for r in data["leaderboard"] if r["location"] == log.location]
    assert board["tokens"]["input_tokens"] == total_in
    assert board["doctor_tokens"]["output_tokens"] == doctor.output_tokens


def test_cache_reads_are_shown_where_a_provider_reported_them(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = read_eval_log(logs["fallback"].location)
    log.stats.model_usage["mockllm/doctor-a"].input_tokens_cache_read = 4321
    cached = tmp_path / "cached.eval"
    write_eval_log(log, str(cached))
    make_report([str(cached)], tmp_path / "report", ("md",))
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "| model | input | output | cache read | total |" in markdown
    assert "| role | model | input | output | cache read | total |" in markdown
    assert ", 4,321 cache read (mockllm/doctor-a, the model under test)" in markdown
    make_report([logs["fallback"].location], tmp_path / "plain", ("md",))
    assert "cache read" not in (tmp_path / "plain" / "report.md").read_text()


def test_the_report_estimates_cost_and_names_models_it_cannot_price(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    log = read_eval_log(logs["fallback"].location)
    usage = log.stats.model_usage
    usage["openai/gpt-4o"] = ModelUsage(
        input_tokens=1_000_000, output_tokens=100_000, input_tokens_cache_read=3_000_000
    )
    usage["acme/unknown-model"] = ModelUsage(input_tokens=5, output_tokens=5, total_tokens=10)
    priced = tmp_path / "priced.eval"
    write_eval_log(log, str(priced))
    make_report([str(priced)], tmp_path / "report", ("md", "json"))
    markdown = (tmp_path / "report" / "report.md").read_text()
    # gpt-4o in the bundled table: 1M in, 0.1M out, 3M cache reads; mockllm models are local
    price = price_of("openai/gpt-4o")
    assert price is not None and price.cache_read is not None
    expected = 1_000_000 * price.input + 100_000 * price.output + 3_000_000 * price.cache_read
    assert f"Estimated cost: {dollars(expected)}" in markdown
    assert "**without acme/unknown-model** (not in the price table)" in markdown
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    [run] = data["runs"]
    cost = run["tokens"]["cost"]
    assert cost["usd"] == pytest.approx(expected, rel=1e-6)
    assert cost["unpriced_models"] == ["acme/unknown-model"]
    assert cost["usd_per_persona"] == pytest.approx(expected / len(run["scores"]), rel=1e-6)
    assert run["tokens"]["cache_read_share"] > 0


def count(input_tokens: int, output_tokens: int) -> TokenCount:
    return TokenCount.of(
        ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
        )
    )


def test_the_doctors_tokens_are_its_own_or_the_report_says_why_not() -> None:
    qwen = "openai-api/local/qwen"
    by_model = {qwen: count(1000, 300), "openai/judge": count(50, 5)}
    # the judge role bound to the model under test: its share is taken off the doctor's
    own = doctor_tokens(
        "gaa/model", "", qwen, by_model, {"judge": count(600, 100)}, {"judge": [qwen]}, []
    )
    assert own.kind == "counted" and own.tokens == count(400, 200)
    # an unbound judge is the model under test too, and cannot be told apart
    shared = doctor_tokens("gaa/model", "", qwen, by_model, {}, {}, ["judge"])
    assert shared.kind == "shared" and shared.tokens == count(1000, 300)
    assert doctor_tokens_cell(shared) == "1,000 in, 300 out (with the judge)"
    remote = doctor_tokens("gaa/a2a", "http://doctor:9009", qwen, by_model, {}, {}, [])
    assert remote.tokens is None and "not in the log" in remote.note
    assert doctor_tokens_cell(remote) == "not in the log (remote A2A doctor)"
    scripted = doctor_tokens("reference/exemplary", "", "none/none", by_model, {}, {}, [])
    assert scripted.tokens is None and doctor_tokens_cell(scripted) == "none (calls no model)"


def test_text_from_a_log_is_escaped_for_markdown_and_html(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    hostile = "boom `code` **bold** <script>alert(1)</script> | [link](x)"
    empty = empty_copy(logs["failed"], tmp_path, f"Traceback\n{hostile}")
    make_report([logs["rules"].location, empty], tmp_path / "report")
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "\\<script>" in markdown and "<script>" not in markdown.replace("\\<script>", "")
    assert "\\*\\*bold\\*\\*" in markdown and "\\`code\\`" in markdown
    page = (tmp_path / "report" / "index.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<strong>bold</strong>" not in page and "**bold**" in page
    assert "`code`" in page and "<code>code</code>" not in page
