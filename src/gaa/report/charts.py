"""The report's pictures (PNG bytes, drawn with matplotlib's file-only backend)."""

from __future__ import annotations

import io
import math
from statistics import pstdev
from typing import Any

from gaa.models import MBTI_TYPES
from gaa.report.analysis import RunReport
from gaa.report.leaderboard import LeaderboardRow
from gaa.report.markdown import one_line
from gaa.report.runs import GROUPS

LABEL_CHARS = 80


def label(text: object) -> str:
    """Text from a log as a label matplotlib draws as it is: one line, cut short, every ``$``
    escaped (so no mathtext runs) and a leading ``_`` kept visible (matplotlib hides legend
    entries whose label starts with one)."""
    line = one_line(text)
    if len(line) > LABEL_CHARS:
        line = line[: LABEL_CHARS - 3] + "..."
    line = line.replace("$", "\\$")
    return f" {line}" if line.startswith("_") else line


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(figure: Any) -> bytes:
    plt = _pyplot()
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=110)
    plt.close(figure)
    return buffer.getvalue()


HEATMAP_SPREAD = 2.0
"""A heatmap is drawn only when its cells differ by at least this many overall points."""


def _grid(report: RunReport) -> tuple[list[str], list[str], list[list[float]]]:
    units = report.units
    cases = sorted({unit.case for unit in units})
    types = [t for t in MBTI_TYPES if any(unit.mbti == t for unit in units)]
    grid = [
        [
            (lambda values: sum(values) / len(values) if values else math.nan)(
                [u.scores["overall"] for u in units if u.mbti == mbti and u.case == case]
            )
            for case in cases
        ]
        for mbti in types
    ]
    return cases, types, grid


def heatmap_varies(report: RunReport) -> bool:
    """Whether the heatmap would say anything: its cells differ by at least
    :data:`HEATMAP_SPREAD` points."""
    values = [v for line in _grid(report)[2] for v in line if not math.isnan(v)]
    return bool(values) and max(values) - min(values) >= HEATMAP_SPREAD


def heatmap(report: RunReport) -> bytes:
    """Mean overall by MBTI type (rows) and case (columns), epochs averaged."""
    plt = _pyplot()
    cases, types, grid = _grid(report)
    figure, axes = plt.subplots(figsize=(2.2 + 1.4 * len(cases), 0.9 + 0.38 * len(types)))
    image = axes.imshow(grid, cmap="RdYlGn", vmin=0, vmax=100, aspect="auto")
    axes.set_xticks(range(len(cases)), [label(case) for case in cases])
    axes.set_yticks(range(len(types)), types)
    for i, line in enumerate(grid):
        for j, value in enumerate(line):
            if not math.isnan(value):
                axes.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=8)
    figure.colorbar(image, ax=axes, label="overall (0-100)")
    axes.set_title(f"{label(report.run.doctor)}: overall by type and case", fontsize=9)
    return _png(figure)


def group_scores(report: RunReport) -> bytes:
    """The five group means (0-10) with their 95% intervals."""
    plt = _pyplot()
    summaries = [report.metrics[name] for name in GROUPS]
    means = [0.0 if math.isnan(s.mean) else s.mean for s in summaries]
    errors = [
        [0.0 if math.isnan(s.low) else max(0.0, s.mean - s.low) for s in summaries],
        [0.0 if math.isnan(s.high) else max(0.0, s.high - s.mean) for s in summaries],
    ]
    figure, axes = plt.subplots(figsize=(6, 3.2))
    axes.bar([g.replace("_", "\n") for g in GROUPS], means, yerr=errors, capsize=4, color="#4c72b0")
    axes.set_ylim(0, 10)
    axes.set_ylabel("mean score (0-10), 95% interval")
    axes.set_title(f"{label(report.run.doctor)}: group scores", fontsize=9)
    return _png(figure)


def willingness(report: RunReport) -> bytes:
    """Mean willingness after the opening and each round, per case, with +-1 SD."""
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(figsize=(6, 3.2))
    for case in sorted({row.case for row in report.run.scored}):
        series = [row.willingness_by_round for row in report.run.scored if row.case == case]
        length = max((len(s) for s in series), default=0)
        xs, means, spread = [], [], []
        for index in range(length):
            values = [s[index] for s in series if index < len(s) and s[index] is not None]
            if values:
                xs.append(index)
                means.append(sum(v for v in values if v is not None) / len(values))
                spread.append(pstdev([float(v) for v in values if v is not None]))
        axes.plot(xs, means, marker="o", label=label(case))
        axes.fill_between(
            xs, [m - s for m, s in zip(means, spread, strict=True)],
            [m + s for m, s in zip(means, spread, strict=True)], alpha=0.15,
        )  # fmt: skip
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("round (0 = the patient's opening)")
    axes.set_ylabel("willingness (0-10)")
    axes.set_ylim(0, 10)
    axes.legend(fontsize=8)
    axes.set_title(f"{label(report.run.doctor)}: willingness by round (mean, +-1 SD)", fontsize=9)
    return _png(figure)


def criteria(report: RunReport, limit: int = 15) -> bytes:
    """How often each of the criteria most often not met was not met (% of the consultations
    where it was judged), the most often missed at the top."""
    plt = _pyplot()
    items = report.criteria_not_met[:limit]
    figure, axes = plt.subplots(figsize=(8, 1.0 + 0.32 * max(len(items), 1)))
    names = [label(criterion) for criterion, _, _ in items][::-1]
    rates = [100 * missed / judged for _, missed, judged in items][::-1]
    bars = axes.barh(names, rates, color="#dd8452")
    for bar, rate in zip(bars, rates, strict=True):
        axes.text(rate + 1, bar.get_y() + bar.get_height() / 2, f"{rate:.0f}%", va="center",
                  fontsize=7)  # fmt: skip
    axes.set_xlim(0, 105)
    axes.tick_params(axis="y", labelsize=7)
    axes.set_xlabel("not met, % of the consultations where judged")
    axes.set_title(f"{label(report.run.doctor)}: criteria most often not met", fontsize=9)
    return _png(figure)


def leaderboard_chart(rows: list[LeaderboardRow]) -> bytes:
    """Mean overall per doctor with its 95% interval; runs judged differently are hatched."""
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(7, 1.6 + 0.45 * len(rows)))
    ordered = rows[::-1]
    means = [0.0 if math.isnan(r.mean) else r.mean for r in ordered]
    errors = [
        [0.0 if math.isnan(r.low) else max(0.0, r.mean - r.low) for r in ordered],
        [0.0 if math.isnan(r.high) else max(0.0, r.high - r.mean) for r in ordered],
    ]
    bars = axes.barh(
        [label(r.name or r.doctor) for r in ordered], means, xerr=errors, capsize=3,
        color="#55a868",
    )  # fmt: skip
    for bar, row in zip(bars, ordered, strict=True):
        if not row.comparable:
            bar.set_hatch("//")
            bar.set_color("#bbbbbb")
    axes.set_xlim(0, 100)
    axes.set_xlabel("mean overall (0-100), 95% bootstrap interval; hatched: judged differently")
    axes.set_title("Comparison of runs", fontsize=9)
    return _png(figure)
