"""Several runs side by side: one row per doctor, by mean overall with its 95% interval.

Runs judged differently (another judge, judge model, teamwork preset or patient) are not
comparable: every row shows how it was judged, and rows whose judging differs from the most
common one are marked and warned about.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gaa.report.analysis import RunReport


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    doctor: str
    model: str
    n: int
    mean: float
    low: float
    high: float
    judged_by: str
    comparable: bool
    location: str


def leaderboard(reports: list[RunReport]) -> tuple[list[LeaderboardRow], list[str]]:
    """The rows, best first, and a warning for each run judged unlike the rest."""
    if not reports:
        return [], []
    usual = Counter(report.run.judged_by for report in reports).most_common(1)[0][0]
    ordered = sorted(
        reports,
        key=lambda r: (r.metrics["overall"].n == 0, -(r.metrics["overall"].mean or 0)),
    )
    rows = [
        LeaderboardRow(
            rank=rank,
            doctor=report.run.doctor,
            model=report.run.model,
            n=report.metrics["overall"].n,
            mean=report.metrics["overall"].mean,
            low=report.metrics["overall"].low,
            high=report.metrics["overall"].high,
            judged_by=report.run.judged_by,
            comparable=report.run.judged_by == usual,
            location=report.run.location,
        )
        for rank, report in enumerate(ordered, start=1)
    ]
    warnings = [
        f"{row.doctor} ({row.location}) was judged differently ({row.judged_by}; most runs: "
        f"{usual}): its score is not comparable with the others"
        for row in rows
        if not row.comparable
    ]
    return rows, warnings
