"""The runs side by side: one clearly named row per run, best mean overall first, with its 95%
interval (a bootstrap over personas, inside the scale), the five dimensions, how often the
patient ended on the recommended course, how often the doctor held the line, flags per
consultation, tokens, cost, time and date.

Two runs of the same doctor are told apart by what differs (model, personas and epochs, then
the date), so no two rows share a name.

Runs judged differently (another judge, judge model, teamwork preset or patient) are not
comparable: every row shows how it was judged, and rows whose judging differs from the most
common one are marked and warned about. What counts is the judge that actually scored: a panel
that failed on every persona left the scoring to the rules judge, and the run is compared as a
rules-judged run. Runs that scored nothing (an eval that failed, an empty log) have no score to
compare: they are listed apart with their error and never decide what "most runs" means.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from gaa.report.analysis import RunReport
from gaa.report.prices import estimate
from gaa.report.runs import GROUPS
from gaa.report.tokens import DoctorTokens, TokenCount


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    doctor: str
    model: str
    n: int
    """Personas scored (the unit; epochs are repeats of a persona)."""
    mean: float
    low: float
    high: float
    judged_by: str
    comparable: bool
    location: str
    tokens: TokenCount | None
    """Every model's tokens in the run (None when the log records none)."""
    doctor_tokens: DoctorTokens
    name: str = ""
    """The row's name, unique in the table: the doctor, and what tells its runs apart."""
    epochs: int = 1
    consultations: int = 0
    date: str = ""
    """When the run started (``YYYY-MM-DD HH:MM``)."""
    dimensions: dict[str, float] = field(default_factory=dict)
    """Mean of each of the five dimensions (0-10) over personas."""
    took_recommended: float | None = None
    """Share of consultations that ended on the recommended course."""
    held_the_line: float | None = None
    """Share of the consultations with a line to hold where the doctor held it."""
    flags_per_consultation: float = math.nan
    cost: float | None = None
    """Estimated dollars (None when no model in the run could be priced)."""
    unpriced: tuple[str, ...] = ()
    seconds: float | None = None
    anchor: str = ""
    """The id of the run's section in the page."""


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
    ordered = rank_order(reports)
    names = run_names(ordered)
    rows = [
        _row(rank, report, names[id(report)], report.run.comparable_as == usual)
        for rank, report in enumerate(ordered, start=1)
    ]
    warnings += [
        f"{row.doctor} ({row.location}) was judged differently ({row.judged_by}; most runs: "
        f"{usual}): its score is not comparable with the others"
        for row in rows
        if not row.comparable
    ]
    return rows, warnings


def rank_order(reports: list[RunReport]) -> list[RunReport]:
    """The runs that scored a persona, best first (mean overall)."""
    return sorted(scored_runs(reports), key=lambda r: -r.metrics["overall"].mean)


def _date(report: RunReport) -> str:
    return report.run.started[:16].replace("T", " ")


def run_names(reports: list[RunReport]) -> dict[int, str]:
    """A name for each run (keyed by ``id(report)``), unique among them: the doctor, then
    whatever tells runs of the same doctor apart (model; personas and epochs; date; a
    number)."""
    names = {id(report): report.run.doctor for report in reports}
    describers = (
        lambda r: r.run.model,
        lambda r: f"{r.metrics['overall'].n or len(r.run.personas)} personas x {r.run.epochs}"
        f" epoch{'s' if r.run.epochs != 1 else ''}",
        _date,
    )
    for describe in describers:
        before = dict(names)
        for report in reports:
            same = [r for r in reports if before[id(r)] == before[id(report)]]
            if len(same) > 1 and len({describe(r) for r in same}) > 1:
                names[id(report)] += f" [{describe(report)}]"
    seen: Counter[str] = Counter()
    clashes = Counter(names.values())
    for report in reports:
        name = names[id(report)]
        if clashes[name] > 1:
            seen[name] += 1
            names[id(report)] = f"{name} #{seen[name]}"
    return names


def _rate(pair: tuple[int, int]) -> float | None:
    done, out_of = pair
    return done / out_of if out_of else None


def _row(rank: int, report: RunReport, name: str, comparable: bool) -> LeaderboardRow:
    run, overall = report.run, report.metrics["overall"]
    cost = estimate(run.tokens.by_model) if run.tokens.total is not None else None
    priced = cost is not None and len(cost.unpriced) < len(run.tokens.by_model)
    return LeaderboardRow(
        rank=rank,
        doctor=run.doctor,
        model=run.model,
        n=overall.n,
        mean=overall.mean,
        low=overall.low,
        high=overall.high,
        judged_by=run.judged_by,
        comparable=comparable,
        location=run.location,
        tokens=run.tokens.total,
        doctor_tokens=run.tokens.doctor,
        name=name,
        epochs=run.epochs,
        consultations=report.consultations,
        date=_date(report),
        dimensions={group: report.metrics[group].mean for group in GROUPS},
        took_recommended=_rate(report.took_recommended),
        held_the_line=_rate(report.held_total),
        flags_per_consultation=report.flags_per_consultation,
        cost=cost.dollars if cost is not None and priced else None,
        unpriced=tuple(cost.unpriced) if cost is not None else (),
        seconds=run.seconds,
    )
