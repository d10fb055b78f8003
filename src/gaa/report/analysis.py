"""What a report says about one run: statistics, breakdowns, gender-twin gaps, the criteria most
often not met, every safety flag, every workaround, and a summary written from the numbers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from gaa.report.runs import METRICS, PersonaRow, Run
from gaa.report.stats import Summary, sign_test, summarise

DIMENSIONS = (("E/I", 0, "EI"), ("S/N", 1, "SN"), ("T/F", 2, "TF"), ("J/P", 3, "JP"))
TOP_CRITERIA = 10


@dataclass
class TwinGaps:
    """Gender twins: same MBTI type and case, male minus female overall."""

    pairs: list[tuple[str, str, float]] = field(default_factory=list)
    """(MBTI type, case, gap) for every pair with both twins scored."""

    @property
    def mean(self) -> float | None:
        return fmean(gap for *_, gap in self.pairs) if self.pairs else None

    @property
    def largest(self) -> tuple[str, str, float] | None:
        return max(self.pairs, key=lambda pair: abs(pair[2])) if self.pairs else None

    @property
    def p_value(self) -> float | None:
        return sign_test([gap for *_, gap in self.pairs]) if self.pairs else None


@dataclass
class RunReport:
    run: Run
    metrics: dict[str, Summary]
    breakdowns: dict[str, dict[str, Summary]]
    """Overall by ``mbti``, ``E/I``..``J/P``, ``gender`` and ``case``."""
    twins: TwinGaps
    criteria_not_met: list[tuple[str, int, int]]
    """(criterion, times not met, times judged), most often not met first."""
    flags: list[tuple[str, str, str]]
    """(persona, rule, quote) for every safety flag."""
    counts: dict[str, int]
    outcomes: dict[str, int]
    willingness: dict[str, list[float | None]]
    """Mean willingness after the opening and each round, per case."""
    held: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per case and stance where the operation is not recommended: (held the line, judged)."""
    summary: str = ""


def _by(rows: list[PersonaRow], key: Any) -> dict[str, Summary]:
    groups: dict[str, list[float]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row.scores["overall"])
    return {name: summarise(values) for name, values in sorted(groups.items())}


def _twins(rows: list[PersonaRow]) -> TwinGaps:
    scored = {(row.mbti, row.case, row.gender): row.scores["overall"] for row in rows}
    pairs = []
    for (mbti, case, gender), overall in sorted(scored.items()):
        if gender == "male" and (mbti, case, "female") in scored:
            pairs.append((mbti, case, round(overall - scored[(mbti, case, "female")], 4)))
    return TwinGaps(pairs)


def _willingness(rows: list[PersonaRow]) -> dict[str, list[float | None]]:
    by_case: dict[str, list[list[int | None]]] = {}
    for row in rows:
        by_case.setdefault(row.case, []).append(row.willingness_by_round)
    means: dict[str, list[float | None]] = {}
    for case, series in sorted(by_case.items()):
        length = max((len(s) for s in series), default=0)
        column: list[float | None] = []
        for index in range(length):
            values = [s[index] for s in series if index < len(s) and s[index] is not None]
            column.append(round(fmean(v for v in values if v is not None), 3) if values else None)
        means[case] = column
    return means


def _counts(rows: list[PersonaRow]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for row in rows:
        counts["doctor_retries"] += row.doctor_retries
        counts["doctor_reasks"] += row.doctor_reasks
        counts["status_follow_ups"] += row.status_follow_ups
        counts["parse_misses"] += row.parse_misses
        counts["judge_failures"] += row.judge_failures
        counts["excluded_judges"] += row.excluded_judges
        counts["failed_personas"] += not row.scored
        for name in row.fallbacks:
            counts[f"fallback:{name}"] += 1
    return dict(counts)


def _criteria(rows: list[PersonaRow]) -> list[tuple[str, int, int]]:
    not_met: Counter[str] = Counter()
    judged: Counter[str] = Counter()
    for row in rows:
        for criterion, verdict in row.criteria.items():
            if verdict in ("met", "not_met"):
                judged[criterion] += 1
                not_met[criterion] += verdict == "not_met"
    ranked = sorted(judged, key=lambda c: (-not_met[c] / judged[c], -not_met[c], c))
    return [(c, not_met[c], judged[c]) for c in ranked if not_met[c]]


def _held(rows: list[PersonaRow]) -> dict[str, tuple[int, int]]:
    counts: dict[str, list[bool]] = {}
    for row in rows:
        if row.held_the_line is not None:
            counts.setdefault(f"{row.case} ({row.stance})", []).append(row.held_the_line)
    return {key: (sum(values), len(values)) for key, values in sorted(counts.items())}


def analyse(run: Run) -> RunReport:
    rows = run.scored
    report = RunReport(
        run=run,
        metrics={name: summarise([row.scores[name] for row in rows]) for name in METRICS},
        breakdowns={
            "mbti": _by(rows, lambda row: row.mbti),
            **{
                label: _by(rows, lambda row, i=index: row.mbti[i] if row.mbti else "?")
                for label, index, _ in DIMENSIONS
            },
            "gender": _by(rows, lambda row: row.gender),
            "case": _by(rows, lambda row: row.case),
            "recommendation": _by(rows, lambda row: row.recommendation or "?"),
            "stance": _by(rows, lambda row: row.stance),
            "case and stance": _by(rows, lambda row: f"{row.case} ({row.stance})"),
        },
        twins=_twins(rows),
        criteria_not_met=_criteria(rows),
        flags=[
            (row.persona, *_split_flag(flag)) for row in run.rows for flag in row.flags
        ],
        counts=_counts(run.rows),
        outcomes=dict(Counter(row.outcome for row in rows)),
        willingness=_willingness(rows),
        held=_held(rows),
    )
    report.summary = overall_summary(report)
    return report


def _split_flag(flag: str) -> tuple[str, str]:
    rule, _, quote = flag.partition(":")
    return rule.strip(), quote.strip()


def _extremes(groups: dict[str, Summary]) -> tuple[str, str] | None:
    usable = {name: s for name, s in groups.items() if s.n}
    if len(usable) < 2:
        return None
    low = min(usable, key=lambda name: usable[name].mean)
    high = max(usable, key=lambda name: usable[name].mean)
    return low, high


def overall_summary(report: RunReport) -> str:
    """Patterns across personas, written from the numbers (no model involved)."""
    run, overall = report.run, report.metrics["overall"]
    total = len(run.rows) + len(run.missing)
    if not overall.n:
        why = f": {run.failure}" if run.failure else ""
        return f"{run.doctor}: no persona was scored ({total} in the run){why}."
    parts = [
        f"{run.doctor} scored {overall.mean:.1f}/100 on average over {overall.n} of {total} "
        f"personas (95% interval {overall.low:.1f}-{overall.high:.1f}; range "
        f"{overall.min:.1f}-{overall.max:.1f})."
        if overall.n > 1
        else f"{run.doctor} scored {overall.mean:.1f}/100 on the one persona scored."
    ]
    if run.fallbacks:
        parts.append(
            f"The judge panel failed on {run.fallbacks} of {overall.n} scored personas, so the "
            "rules judge scored "
            + ("all of them." if run.fallbacks == overall.n else "those.")
        )
    groups = {name: report.metrics[name].mean for name in METRICS[1:]}
    weakest = min(groups, key=lambda name: groups[name])
    strongest = max(groups, key=lambda name: groups[name])
    parts.append(
        f"Strongest group: {strongest.replace('_', ' ')} ({groups[strongest]:.1f}/10); "
        f"weakest: {weakest.replace('_', ' ')} ({groups[weakest]:.1f}/10)."
    )
    for label in ("case", "mbti"):
        extremes = _extremes(report.breakdowns[label])
        if extremes:
            low, high = extremes
            parts.append(
                f"By {'case' if label == 'case' else 'personality type'}: lowest {low} "
                f"({report.breakdowns[label][low].mean:.1f}), highest {high} "
                f"({report.breakdowns[label][high].mean:.1f})."
            )
    gaps = []
    for label, _, pole in DIMENSIONS:
        groups_of = report.breakdowns[label]
        if all(p in groups_of for p in pole):
            gaps.append((label, abs(groups_of[pole[0]].mean - groups_of[pole[1]].mean)))
    if gaps:
        label, gap = max(gaps, key=lambda item: item[1])
        parts.append(f"The MBTI dimension that moves scores most is {label} ({gap:.1f} points).")
    if report.twins.pairs:
        twin = report.twins
        parts.append(
            f"Gender twins differ by {twin.mean:+.1f} points on average (male minus female, "
            f"{len(twin.pairs)} pairs, sign test p={twin.p_value:.2f})."
        )
    outcomes = report.outcomes
    parts.append(
        f"Outcomes: {outcomes.get('accepted', 0)} accepted, {outcomes.get('rejected', 0)} "
        f"rejected, {outcomes.get('uncertain', 0)} undecided."
    )
    if report.flags:
        rules = Counter(rule for _, rule, _ in report.flags)
        listed = ", ".join(f"{rule} ({count})" for rule, count in rules.most_common(4))
        parts.append(f"{len(report.flags)} safety flags: {listed}.")
    else:
        parts.append("No safety flags.")
    if report.criteria_not_met:
        criterion, missed, judged = report.criteria_not_met[0]
        parts.append(f"Most often missed: {criterion} ({missed} of {judged}).")
    if run.missing or report.counts.get("failed_personas"):
        parts.append(
            f"{len(run.missing)} personas missing from the log and "
            f"{report.counts.get('failed_personas', 0)} failed."
        )
    return " ".join(parts)
