"""Several runs side by side: one row per doctor, by mean overall with its 95% interval.

Runs judged differently (another judge, judge model, teamwork preset or patient) are not
comparable: every row shows how it was judged, and rows whose judging differs from the most
common one are marked and warned about. What counts is the judge that actually scored: a panel
that failed on every persona left the scoring to the rules judge, and the run is compared as a
rules-judged run. Runs that scored nothing (an eval that failed, an empty log) have no score to
compare: they are listed apart with their error and never decide what "most runs" means.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from gaa.report.analysis import RunReport
from gaa.report.tokens import DoctorTokens, TokenCount


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
    tokens: TokenCount | None
    """Every model's tokens in the run (None when the log records none)."""
    doctor_tokens: DoctorTokens


@dataclass(frozen=True)
class FailedRun:
    """A run with no scored persona: listed, not ranked."""

    doctor: str
    model: str
    status: str
    samples: int
    error: str
    location: str


def scored_runs(reports: list[RunReport]) -> list[RunReport]:
    return [report for report in reports if report.metrics["overall"].n]


def failed_runs(reports: list[RunReport]) -> list[FailedRun]:
    return [
        FailedRun(
            doctor=report.run.doctor,
            model=report.run.model,
            status=report.run.status,
            samples=len(report.run.rows),
            error=report.run.failure,
            location=report.run.location,
        )
        for report in reports
        if not report.metrics["overall"].n
    ]


def leaderboard(reports: list[RunReport]) -> tuple[list[LeaderboardRow], list[str]]:
    """The rows of the runs with scores, best first, and a warning for each run judged unlike
    most of them and for each run that scored nothing."""
    ranked = scored_runs(reports)
    warnings = [
        f"{failed.doctor} ({failed.location}) scored no persona ({failed.status}: "
        f"{failed.error}): listed as failed, not ranked"
        for failed in failed_runs(reports)
    ]
    if not ranked:
        return [], warnings
    usual = Counter(report.run.comparable_as for report in ranked).most_common(1)[0][0]
    ordered = sorted(ranked, key=lambda r: -r.metrics["overall"].mean)
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
            comparable=report.run.comparable_as == usual,
            location=report.run.location,
            tokens=report.run.tokens.total,
            doctor_tokens=report.run.tokens.doctor,
        )
        for rank, report in enumerate(ordered, start=1)
    ]
    warnings += [
        f"{row.doctor} ({row.location}) was judged differently ({row.judged_by}; most runs: "
        f"{usual}): its score is not comparable with the others"
        for row in rows
        if not row.comparable
    ]
    return rows, warnings
