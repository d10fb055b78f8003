"""``gaa report``: tables, pictures, one HTML page and a leaderboard from ``medical_dialogue``
logs.

    from gaa.report import make_report
    written = make_report(["logs/"], out="report", formats=("html", "md", "json"))
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaa.report.analysis import RunReport, analyse
from gaa.report.leaderboard import FailedRun, LeaderboardRow, failed_runs, leaderboard
from gaa.report.runs import ReportError, Run, read_runs

FORMATS = ("html", "md", "json")

__all__ = [
    "FORMATS",
    "FailedRun",
    "Report",
    "ReportError",
    "Run",
    "RunReport",
    "build_report",
    "make_report",
]


@dataclass
class Report:
    runs: list[RunReport]
    board: list[LeaderboardRow]
    warnings: list[str] = field(default_factory=list)
    failed: list[FailedRun] = field(default_factory=list)
    """Runs of a leaderboard that scored nothing: listed with their error, not ranked."""


def build_report(paths: Iterable[str], progress: Callable[[str], None] | None = None) -> Report:
    """Read the logs and analyse each run; warnings name partial runs, runs that scored
    nothing and runs judged differently from the rest."""
    runs = read_runs(paths, progress)
    reports = [analyse(run) for run in runs]
    board, warnings = leaderboard(reports) if len(reports) > 1 else ([], [])
    failed = failed_runs(reports) if len(reports) > 1 else []
    partial = [
        f"{run.location} is partial ({run.status}): {len(run.missing)} personas missing: "
        f"{', '.join(run.missing)}"
        for run in runs
        if run.missing
    ]
    return Report(runs=reports, board=board, warnings=[*partial, *warnings], failed=failed)


def _slug(text: str, taken: set[str]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "run"
    candidate, number = slug, 2
    while candidate in taken:
        candidate, number = f"{slug}-{number}", number + 1
    taken.add(candidate)
    return candidate


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def make_report(
    paths: Sequence[str],
    out: str | Path = "report",
    formats: Sequence[str] = FORMATS,
    progress: Callable[[str], None] | None = None,
) -> tuple[Report, list[Path]]:
    """Write the report for ``paths`` into ``out``: ``index.html``, ``report.md``,
    ``report.json`` (as ``formats`` asks) and the PNG pictures; returns what was written."""
    from gaa.report import charts
    from gaa.report.html import markdown_to_html
    from gaa.report.markdown import escape, leaderboard_markdown, report_json, run_markdown

    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise ReportError(f"formats must be among {', '.join(FORMATS)}, not {', '.join(unknown)}")
    report = build_report(paths, progress)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    pictures: dict[str, bytes] = {}
    sections = ["# GAA medical dialogue report", ""]
    sections += [f"**Warning:** {escape(warning)}" for warning in report.warnings]
    if report.board or report.failed:
        sections += ["", leaderboard_markdown(report.board, [], report.failed), ""]
    if report.board:
        pictures["leaderboard.png"] = charts.leaderboard_chart(report.board)
        sections.append("![leaderboard](leaderboard.png)")
    taken: set[str] = set()
    for run_report in report.runs:
        slug = _slug(run_report.run.doctor, taken)
        names = {
            "overall by type and case": f"{slug}-heatmap.png",
            "group scores": f"{slug}-groups.png",
            "willingness by round": f"{slug}-willingness.png",
            "criteria met": f"{slug}-criteria.png",
        }
        if run_report.run.scored:
            pictures[names["overall by type and case"]] = charts.heatmap(run_report)
            pictures[names["group scores"]] = charts.group_scores(run_report)
            pictures[names["willingness by round"]] = charts.willingness(run_report)
            pictures[names["criteria met"]] = charts.criteria(run_report)
        else:
            names = {}
        sections += ["", run_markdown(run_report, names)]
    markdown = "\n".join(sections) + "\n"
    for name, data in pictures.items():
        path = out / name
        path.write_bytes(data)
        written.append(path)
    if "md" in formats:
        path = out / "report.md"
        path.write_text(markdown, encoding="utf-8")
        written.append(path)
    if "html" in formats:
        path = out / "index.html"
        path.write_text(
            markdown_to_html(markdown, "GAA medical dialogue report", pictures), encoding="utf-8"
        )
        written.append(path)
    if "json" in formats:
        path = out / "report.json"
        data = _finite(report_json(report.runs, report.board, report.warnings, report.failed))
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        written.append(path)
    return report, written
