"""``gaa report``: tables, pictures, one HTML page and a leaderboard from ``medical_dialogue``
logs.

    from gaa.report import make_report
    written = make_report(["logs/"], out="report", formats=("html", "md", "json"))
"""

from __future__ import annotations

import json
import math
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaa.report.analysis import RunReport, analyse
from gaa.report.leaderboard import FailedRun, LeaderboardRow, failed_runs, leaderboard
from gaa.report.runs import ReportError, Run, read_runs

FORMATS = ("html", "md", "json")
OTHER_FORMATS = ("eval-report",)
"""Written only when asked for: ``eval-report`` (``eval-report.md``, the evaluation report an
eval card's register entry asks for, and ``eval-report.yaml``, the same as the card's
``evaluation_report`` block)."""
MANIFEST = ".gaa-report.json"
"""The file in ``out`` that lists what the last report wrote there: the next report removes
those it does not write again, and touches nothing else in the folder."""
PAGES = frozenset(
    {"report.md", "index.html", "report.json", "eval-report.md", "eval-report.yaml"}
)
_PICTURE = re.compile(r"[a-z0-9-]+\.png")
PNG = b"\x89PNG\r\n\x1a\n"

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
    """Runs that scored nothing: listed with their error at the foot, not ranked."""
    notes_on_board: list[str] = field(default_factory=list)
    """Warnings shown under the comparison (runs judged differently from most)."""
    notes: list[str] = field(default_factory=list)
    """Warnings for the notes at the foot of the page (partial logs, malformed samples)."""


def build_report(paths: Iterable[str], progress: Callable[[str], None] | None = None) -> Report:
    """Read the logs and analyse each run; warnings name partial runs, runs that scored
    nothing and runs judged differently from the rest."""
    runs = read_runs(paths, progress)
    reports = [analyse(run) for run in runs]
    board, warnings = leaderboard(reports)
    failed = failed_runs(reports)
    partial = [
        f"{run.location} is partial ({run.status}): {len(run.missing)} personas missing: "
        f"{', '.join(run.missing)}"
        for run in runs
        if run.missing
    ]
    skipped = [
        f"{run.location}: {len(run.skipped)} samples skipped as malformed: "
        + "; ".join(f"{persona} ({why})" for persona, why in run.skipped)
        for run in runs
        if run.skipped
    ]
    return Report(
        runs=reports,
        board=board,
        warnings=[*partial, *skipped, *warnings],
        failed=failed,
        notes_on_board=[w for w in warnings if "judged differently" in w],
        notes=[*partial, *skipped],
    )


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def prepare_out(out: Path) -> None:
    """Make ``out`` a folder the report can write into, or say in one line why it cannot be:
    a file, a path under a file, a folder that cannot be made or written."""
    try:
        if out.exists() and not out.is_dir():
            raise ReportError(f"the report folder {out} is a file: name a folder for --out")
        for parent in out.parents:
            if parent.exists():
                if not parent.is_dir():
                    raise ReportError(
                        f"the report folder {out} is under {parent}, which is a file"
                    )
                break
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"cannot make the report folder {out}: {_why(exc)}") from None
    try:
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        raise ReportError(f"cannot write into the report folder {out}: {_why(exc)}") from None


def _earlier(out: Path) -> list[str]:
    """The files the last report wrote into ``out``, by its manifest: only names of the files a
    report writes, directly in ``out`` (a manifest naming anything else names nothing)."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    names = data.get("files") if isinstance(data, dict) else None
    if not isinstance(names, list):
        return []
    return [
        name
        for name in names
        if isinstance(name, str) and (name in PAGES or _PICTURE.fullmatch(name))
    ]


def _own(out: Path, written: list[Path]) -> None:
    """Record what this report wrote, then remove what the last one wrote and this one did
    not (and nothing else)."""
    earlier = _earlier(out)
    names = [path.name for path in written]
    manifest = {"written_by": "gaa report", "files": names}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    for name in sorted(set(earlier) - set(names)):
        path = out / name
        if path.is_symlink() or not path.is_file():
            continue
        if name.endswith(".png"):
            with path.open("rb") as file:
                if file.read(len(PNG)) != PNG:  # a picture the report draws is a PNG
                    continue
        path.unlink(missing_ok=True)


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
    ``report.json`` (as ``formats`` asks) and the PNG pictures; returns what was written.

    The report owns the files it lists in ``out``/``.gaa-report.json``: pictures and pages an
    earlier report wrote there and this one does not are removed; nothing else is touched."""
    unknown = sorted(set(formats) - set(FORMATS) - set(OTHER_FORMATS))
    if unknown or not formats:
        raise ReportError(
            f"formats must be among {', '.join((*FORMATS, *OTHER_FORMATS))}, "
            f"not {', '.join(unknown)}"
        )
    out = Path(out)
    prepare_out(out)
    report = build_report(paths, progress)
    try:
        return report, _write(report, out, formats)
    except OSError as exc:
        raise ReportError(
            f"cannot write the report into {out}: {_why(exc)} ({exc.filename or out})"
        ) from None


def _run_pictures(run_report: RunReport, slug: str) -> dict[str, bytes]:
    """The pictures of one run that carry information (none for a run that scored nothing; no
    heatmap where every cell is alike)."""
    from gaa.report import charts

    if not run_report.run.scored:
        return {}
    pictures = {}
    if charts.heatmap_varies(run_report):
        pictures[f"{slug}-heatmap.png"] = charts.heatmap(run_report)
    pictures[f"{slug}-groups.png"] = charts.group_scores(run_report)
    pictures[f"{slug}-willingness.png"] = charts.willingness(run_report)
    if run_report.criteria_not_met:
        pictures[f"{slug}-criteria.png"] = charts.criteria(run_report)
    return pictures


CAPTIONS = {
    "heatmap": "overall by type and case",
    "groups": "dimension scores",
    "willingness": "willingness by round",
    "criteria": "criteria not met",
}


def _page(report: Report) -> tuple[str, dict[str, bytes]]:
    """The report's Markdown and its pictures: the comparison first, a table of contents, the
    runs in rank order, and the notes (failed and partial runs) at the foot."""
    from gaa.report import charts
    from gaa.report.leaderboard import rank_order, run_names
    from gaa.report.markdown import comparison_markdown, escape, notes_markdown
    from gaa.report.sections import anchor_line, run_markdown

    pictures: dict[str, bytes] = {}
    sections = ["# GAA medical dialogue report", ""]
    sections += [comparison_markdown(report.board, report.notes_on_board), ""]
    if len(report.board) > 1:
        pictures["leaderboard.png"] = charts.leaderboard_chart(report.board)
        sections += ["![leaderboard](leaderboard.png)", ""]
    ordered = rank_order(report.runs)
    names = run_names(ordered)
    taken: set[str] = set()
    slugs = {id(r): _slug(names[id(r)], taken) for r in ordered}
    if len(ordered) > 1:
        sections += ["## Contents", ""]
        sections += [
            f"{rank}. [{escape(names[id(r)])}](#{slugs[id(r)]})"
            for rank, r in enumerate(ordered, start=1)
        ]
    for rank, run_report in enumerate(ordered, start=1):
        slug = slugs[id(run_report)]
        drawn = _run_pictures(run_report, slug)
        pictures.update(drawn)
        captions = {CAPTIONS[name.removeprefix(f"{slug}-")[:-4]]: name for name in drawn}
        title = f"{rank}. {escape(names[id(run_report)])}"
        sections += ["", anchor_line(slug), run_markdown(run_report, captions, title)]
    notes = notes_markdown(report.notes, report.failed)
    if notes:
        sections += ["", notes]
    return "\n".join(sections) + "\n", pictures


def _write(report: Report, out: Path, formats: Sequence[str]) -> list[Path]:
    from gaa.report.html import markdown_to_html
    from gaa.report.markdown import report_json

    written: list[Path] = []
    markdown, pictures = _page(report)
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
    if "eval-report" in formats:
        from gaa.report.eval_report import eval_report_markdown

        path = out / "eval-report.md"
        path.write_text(eval_report_markdown(report.runs), encoding="utf-8")
        written.append(path)
        import yaml

        from gaa.report.eval_report import evaluation_report_block

        path = out / "eval-report.yaml"
        block = {"evaluation_report": evaluation_report_block(report.runs)}
        path.write_text(yaml.safe_dump(_finite(block), sort_keys=False), encoding="utf-8")
        written.append(path)
    if "json" in formats:
        path = out / "report.json"
        data = _finite(report_json(report.runs, report.board, report.warnings, report.failed))
        path.write_text(json.dumps(data, indent=2), encoding="utf-8")
        written.append(path)
    _own(out, written)
    return written
