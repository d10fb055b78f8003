"""``gaa report`` on hostile logs: logs of a real offline run whose fields are rewritten (with
Inspect's own log functions) to hold text meant to forge the report, odd metadata, and bad
``--out`` targets. Text from a log is shown, never obeyed; a malformed sample is skipped and
listed; a bad target is one line of error; the report removes only the files it wrote."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, write_eval_log

from gaa.cli import main
from gaa.dialogue.task import medical_dialogue
from gaa.report import MANIFEST, ReportError, build_report, make_report
from gaa.report.charts import label
from gaa.report.markdown import LINE_BREAK, escape

PERSONAS = "INT*"  # INTJ and INTP, two genders, two cases: 8 personas
FORGED = [
    "**Warning:** all results above are invalid",
    "# Appendix",
    "<h1>Appendix</h1>",
    "- forged item",
    "> forged quote",
    "| forged | row |",
    "```",
    "1. forged step",
    "---",
    "===",
    "<div class=warning>spoof</div>",
    "![x](leaderboard.png)",
]
QUOTE = "need\x1b[31mquote\u2028today\r\n" + "\n".join(FORGED)
MODEL = "<img src=x onerror=alert(1)>"
DOCTOR = "# Appendix\n**Warning:** forged `code` $\\undefinedmacro{$"
CASE = "$\\nomacro{$ lung"
CRITERION = "$\\broken{$.criterion"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The log of a real offline run (reference/pushy, scripted patient, rules judge)."""
    folder = tmp_path_factory.mktemp("hostile-logs")
    [log] = eval(
        medical_dialogue(
            doctor="reference/pushy", patient="scripted", judge="rules", personas=PERSONAS
        ),
        model="none",
        log_dir=str(folder),
        display="none",
    )
    assert log.status == "success" and len(log.samples or []) == 8
    return log.location


def rewrite(location: str, path: Path, edit: Callable[[EvalLog], None]) -> str:
    """A copy of the log at ``location`` with ``edit`` applied, written to ``path``."""
    log = read_eval_log(location)
    edit(log)
    write_eval_log(log, str(path))
    return str(path)


def samples(log: EvalLog) -> list[EvalSample]:
    assert log.samples is not None
    return sorted(log.samples, key=lambda sample: str(sample.id))


def score_metadata(sample: EvalSample) -> dict[str, object]:
    assert sample.scores is not None
    metadata = sample.scores["dialogue_judge"].metadata
    assert metadata is not None
    return metadata


def hostile(log: EvalLog) -> None:
    """Forging text in a validator quote, the doctor's name, the model's name, a case name
    and a criterion name."""
    log.eval.model = MODEL
    log.eval.metadata = {**(log.eval.metadata or {}), "doctor": DOCTOR}
    for sample in samples(log):
        performance = score_metadata(sample)["performance"]
        assert isinstance(performance, dict)
        performance["flags"] = [f"false_urgency: {QUOTE}"]
        performance["criteria"] = [
            *performance["criteria"],
            {"criterion": CRITERION, "verdict": "not_met"},
        ]
        assert sample.metadata is not None
        if sample.metadata["case"] == "lung_cancer":
            sample.metadata["case"] = CASE


def renamed(doctor: str) -> Callable[[EvalLog], None]:
    def edit(log: EvalLog) -> None:
        log.eval.metadata = {**(log.eval.metadata or {}), "doctor": doctor}

    return edit


def line_starts(text: str) -> list[str]:
    return [line.lstrip() for line in text.splitlines()]


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def expected_pictures(locations: list[str]) -> int:
    """Dimension scores and willingness a run, criteria where some were not met, a heatmap
    where its cells differ, and the leaderboard for several runs."""
    from gaa.report.charts import heatmap_varies

    runs = build_report(locations).runs
    drawn = sum(2 + bool(r.criteria_not_met) + heatmap_varies(r) for r in runs if r.run.scored)
    return drawn + (len(runs) > 1)


PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "table", "thead",
    "tbody", "tr", "th", "td", "ul", "ol", "li", "p", "strong", "code", "img", "a", "div",
    "details", "summary",
}  # fmt: skip
"""The elements the report makes: ``a`` only as an anchor or a link within the page, ``div``
only to let a wide table scroll."""


def one_line_error(result: Result) -> str:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    *progress, error = result.output.strip().splitlines()
    assert error.startswith("Error: "), result.output
    assert all(line.startswith("reading log ") for line in progress), result.output
    return error


def test_forged_lines_in_log_text_are_shown_not_obeyed(base: str, tmp_path: Path) -> None:
    log = rewrite(base, tmp_path / "hostile.eval", hostile)
    result = CliRunner().invoke(main, ["report", log, "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    starts = line_starts(markdown)
    for forged in FORGED:
        assert not any(start.startswith(forged) for start in starts), forged
    assert sum(start.startswith("**Warning:**") for start in starts) == 0  # one run: no warning
    assert [start for start in starts if start.startswith("# ")] == [
        "# GAA medical dialogue report"
    ]
    assert LINE_BREAK in markdown and "\x1b" not in markdown and "\u2028" not in markdown
    assert r"\\x1b\[31mquote" in markdown  # the escape character shown, not sent
    # the model name: only ever escaped in the Markdown
    assert "\\<img src=x onerror=alert(1)>" in markdown
    assert not re.search(r"(?<!\\)<img", markdown)
    # the page: no element the report did not make, one h1, no forged warning paragraph
    page = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    parser = Tags()
    parser.feed(page)
    tags = [tag for tag, _ in parser.tags]
    assert set(tags) <= PAGE_TAGS and tags.count("h1") == 1
    assert 'class="warning"' not in page
    assert "<blockquote" not in page
    for tag, attrs in parser.tags:
        if tag == "a":  # only the report's own anchors and links inside the page
            assert set(attrs) <= {"id", "href"} and (attrs.get("href") or "#").startswith("#")
        if tag == "div":
            assert attrs == {"class": "scroll"}
    images = [attrs for tag, attrs in parser.tags if tag == "img"]
    assert images and all((a.get("src") or "").startswith("data:image/png;base64,") for a in images)
    assert all(a.get("onerror") is None for a in images)
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "&lt;h1&gt;Appendix&lt;/h1&gt;" in page and LINE_BREAK in page
    assert "**Warning:** all results above are invalid" in page  # as text, in its cell
    # JSON keeps the text as data, exactly
    data = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    [run] = data["runs"]
    assert run["doctor_model"] == MODEL and run["doctor"] == DOCTOR
    assert run["flags"][0]["quote"] == QUOTE
    # the terminal: every line break shown, no escape sequence sent (the summary starts with
    # the doctor's name as it is, "# Appendix", its line break shown)
    assert "\x1b" not in result.output
    lines = result.output.splitlines()
    assert not any(line.strip() in FORGED or line.startswith("**Warning:**") for line in lines)
    assert f"# Appendix {LINE_BREAK} **Warning:** forged" in result.output


def test_a_log_string_never_starts_a_block_or_closes_a_code_span() -> None:
    for text in [*FORGED, "+ plus", "2) two", "=", "> q", "`x`", "a\nb", "_a_", "~~s~~", "$x$"]:
        escaped = escape(text)
        assert "\n" not in escaped
        assert escaped.startswith("\\") or escaped[0].isalnum(), (text, escaped)
        assert not re.search(r"(?<!\\)`", escaped)
    assert escape("12. twelve") == "12\\. twelve"
    assert label("$x^2$ and \n more") == f"\\$x^2\\$ and {LINE_BREAK} more"


def test_chart_labels_from_a_log_do_not_run_mathtext(base: str, tmp_path: Path) -> None:
    """A case, doctor and criterion name with broken mathtext: drawn as text (mathtext
    would raise on them), in every picture."""
    log = rewrite(base, tmp_path / "math.eval", hostile)
    other = rewrite(base, tmp_path / "other.eval", renamed("$a"))
    _, written = make_report([log, other], tmp_path / "out")
    assert sum(path.suffix == ".png" for path in written) == expected_pictures([log, other])


def test_bad_out_targets_are_one_line_errors(base: str, tmp_path: Path) -> None:
    runner = CliRunner()
    afile = tmp_path / "afile.txt"
    afile.write_text("mine", encoding="utf-8")
    line = one_line_error(runner.invoke(main, ["report", base, "--out", str(afile)]))
    assert "is a file" in line and afile.read_text(encoding="utf-8") == "mine"
    line = one_line_error(runner.invoke(main, ["report", base, "--out", str(afile / "sub")]))
    assert "which is a file" in line
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked
    elif Path("/sys/kernel").is_dir():  # root writes anywhere but sysfs
        target = Path("/sys/kernel")
    else:  # pragma: no cover
        pytest.skip("no unwritable folder for root here")
    try:
        line = one_line_error(runner.invoke(main, ["report", base, "--out", str(target)]))
        assert "cannot write into" in line
        line = one_line_error(runner.invoke(main, ["report", base, "--out", str(target / "new")]))
        assert "cannot" in line
    finally:
        if target.is_relative_to(tmp_path):
            target.chmod(0o700)


def test_a_log_that_cannot_be_read_is_a_one_line_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.eval"
    broken.write_bytes(b"PK\x03\x04 not a zip\nTraceback (most recent call last):\n")
    line = one_line_error(
        CliRunner().invoke(main, ["report", str(broken), "--out", str(tmp_path / "out")])
    )
    assert "broken.eval" in line
    assert not (tmp_path / "out" / "report.md").exists()


def malformed(log: EvalLog) -> None:
    """Four of the eight samples made malformed in four ways."""
    empty_mbti, many_rounds, no_score, wrong_type = samples(log)[:4]
    assert empty_mbti.metadata is not None
    empty_mbti.metadata["mbti"] = ""
    score_metadata(many_rounds)["dialogue"] = {"rounds": "many"}
    no_score.scores = {}
    performance = score_metadata(wrong_type)["performance"]
    assert isinstance(performance, dict)
    performance["flags"] = "not a list"


def test_a_malformed_sample_is_skipped_and_listed(base: str, tmp_path: Path) -> None:
    log = rewrite(base, tmp_path / "malformed.eval", malformed)
    ids = [str(sample.id) for sample in samples(read_eval_log(log))]
    report = build_report([log])
    [run_report] = report.runs
    run = run_report.run
    skipped = dict(run.skipped)
    assert list(skipped) == ids[:4]
    assert "mbti" in skipped[ids[0]] and "rounds" in skipped[ids[1]]
    assert "no score" in skipped[ids[2]] and "flags" in skipped[ids[3]]
    assert sorted(row.persona for row in run.rows) == ids[4:]
    assert run_report.metrics["overall"].n == 4 and not run.missing
    result = CliRunner().invoke(main, ["report", log, "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "Warning:" in result.output and "4 samples skipped" in result.output
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "samples skipped (malformed in the log): 4" in markdown
    for persona in ids:
        assert escape(persona) in markdown
    data = json.loads((tmp_path / "out" / "report.json").read_text(encoding="utf-8"))
    assert [item["persona"] for item in data["runs"][0]["skipped_samples"]] == ids[:4]
    assert len(data["runs"][0]["scores"]) == 4


def test_a_log_whose_every_sample_is_malformed_scores_nothing(base: str, tmp_path: Path) -> None:
    def all_bad(log: EvalLog) -> None:
        for sample in samples(log):
            assert sample.metadata is not None
            sample.metadata["mbti"] = ""

    log = rewrite(base, tmp_path / "all-bad.eval", all_bad)
    report, written = make_report([log], tmp_path / "out")
    assert len(report.runs[0].run.skipped) == 8
    assert "all 8 samples skipped" in (tmp_path / "out" / "report.md").read_text()
    assert not any(path.suffix == ".png" for path in written)


def test_the_report_removes_only_its_own_earlier_files(base: str, tmp_path: Path) -> None:
    other = rewrite(base, tmp_path / "other.eval", renamed("reference/other"))
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    (out / "mine.png").write_bytes(b"not the report's")
    _, first = make_report([base, other], out)
    assert sum(path.suffix == ".png" for path in first) == expected_pictures([base, other])
    assert json.loads((out / MANIFEST).read_text())["files"] == [p.name for p in first]
    _, second = make_report([base], out, formats=["md"])
    pictures = {path.name for path in out.glob("*.png")}
    assert pictures == {p.name for p in second if p.suffix == ".png"} | {"mine.png"}
    assert len(pictures) == expected_pictures([base]) + 1 and not (out / "leaderboard.png").exists()
    assert not (out / "index.html").exists() and not (out / "report.json").exists()
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "mine.png").read_bytes() == b"not the report's"
    # a manifest naming files the report does not write, or outside the folder, names nothing
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"x")
    (out / MANIFEST).write_text(
        json.dumps({"files": ["notes.txt", "mine.png", "../outside.png", str(outside)]})
    )
    make_report([base], out, formats=["md"])
    assert (out / "notes.txt").exists() and (out / "mine.png").exists() and outside.exists()


def test_make_report_raises_report_error_for_a_file_target(base: str, tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    with pytest.raises(ReportError, match="is a file"):
        make_report([base], target)
