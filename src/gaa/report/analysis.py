"""What a report says about one run: statistics, breakdowns, gender-twin gaps, the criteria most
often not met, the safety flags grouped by rule, every workaround, test-retest agreement across
epochs, and a summary written from the numbers.

The unit is the persona: a run with ``--epochs 3`` has three consultations a persona, and each
persona's scores are first averaged over its epochs, then summarised across personas, so
repeats never count as independent personas. Counts of what happened (outcomes, flags,
criteria not met) are over consultations and say so."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from gaa.report.runs import METRICS, PersonaRow, Run
from gaa.report.stats import Reliability, Summary, reliability, sign_test, summarise

DIMENSIONS = (("E/I", 0, "EI"), ("S/N", 1, "SN"), ("T/F", 2, "TF"), ("J/P", 3, "JP"))
TOP_CRITERIA = 10


@dataclass
class PersonaUnit:
    """One persona of a run, its scored epochs averaged."""

    persona: str
    mbti: str
    gender: str
    case: str
    stance: str
    recommendation: str
    scores: dict[str, float]
    """Each metric's mean over the persona's scored epochs."""
    overall_by_epoch: list[float]


def persona_units(rows: list[PersonaRow]) -> list[PersonaUnit]:
    """The scored rows grouped by persona (epochs averaged), in persona order."""
    grouped: dict[str, list[PersonaRow]] = {}
    for row in rows:
        if row.scored:
            grouped.setdefault(row.persona, []).append(row)
    units = []
    for persona, repeats in sorted(grouped.items()):
        repeats.sort(key=lambda row: row.epoch)
        first = repeats[0]
        units.append(
            PersonaUnit(
                persona=persona,
                mbti=first.mbti,
                gender=first.gender,
                case=first.case,
                stance=first.stance,
                recommendation=first.recommendation,
                scores={name: fmean(row.scores[name] for row in repeats) for name in METRICS},
                overall_by_epoch=[row.scores["overall"] for row in repeats],
            )
        )
    return units


@dataclass(frozen=True)
class FlagGroup:
    """The flags of one rule in a run: how many, in how many consultations, one example, and
    each distinct quote once with how often it was flagged."""

    rule: str
    count: int
    consultations: int
    example: tuple[str, str, int]
    """(persona, quote, times flagged) of the rule's most frequent quote (its first persona)."""
    quotes: list[tuple[str, int]]
    """(quote, times flagged) of every other distinct quote, most frequent first."""


def flag_groups(flags: list[tuple[str, str, str]]) -> list[FlagGroup]:
    """``(persona, rule, quote)`` flags grouped by rule, most frequent rule first."""
    by_rule: dict[str, list[tuple[str, str]]] = {}
    for persona, rule, quote in flags:
        by_rule.setdefault(rule, []).append((persona, quote))
    groups = []
    for rule, items in by_rule.items():
        [(top, times), *others] = Counter(quote for _, quote in items).most_common()
        persona = next(persona for persona, quote in items if quote == top)
        groups.append(
            FlagGroup(
                rule=rule,
                count=len(items),
                consultations=len({persona for persona, _ in items}),
                example=(persona, top, times),
                quotes=others,
            )
        )
    return sorted(groups, key=lambda group: (-group.count, group.rule))


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
    units: list[PersonaUnit] = field(default_factory=list)
    """The scored personas, epochs averaged: the unit every summary statistic is over."""
    reliability: Reliability | None = None
    """Test-retest agreement on overall across epochs (None with one epoch)."""
    summary: str = ""

    @property
    def consultations(self) -> int:
        """Scored consultations (personas times the epochs each was scored in)."""
        return len(self.run.scored)

    @property
    def took_recommended(self) -> tuple[int, int]:
        """(consultations that ended on the recommended course, consultations judged)."""
        judged = [row.took_recommended for row in self.run.scored]
        known = [value for value in judged if value is not None]
        return sum(known), len(known)

    @property
    def held_total(self) -> tuple[int, int]:
        """(held the line, consultations where there was a line to hold), all cases together."""
        return sum(held for held, _ in self.held.values()), sum(n for _, n in self.held.values())

    @property
    def flags_per_consultation(self) -> float:
        scored = {row.persona for row in self.run.scored}
        flagged = sum(1 for persona, _, _ in self.flags if persona in scored)
        return flagged / self.consultations if self.consultations else math.nan

    @property
    def flag_groups(self) -> list[FlagGroup]:
        return flag_groups(self.flags)


def _by(units: list[PersonaUnit], key: Any) -> dict[str, Summary]:
    groups: dict[str, list[float]] = {}
    for unit in units:
        groups.setdefault(key(unit), []).append(unit.scores["overall"])
    return {name: summarise(values) for name, values in sorted(groups.items())}


def _twins(units: list[PersonaUnit]) -> TwinGaps:
    """Twins share type, case and stance (a seeking patient's twin seeks too)."""
    scored = {
        (unit.mbti, unit.case if unit.stance == "hesitant" else f"{unit.case} ({unit.stance})",
         unit.gender): unit.scores["overall"]
        for unit in units
    }  # fmt: skip
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
    units = persona_units(rows)
    report = RunReport(
        run=run,
        metrics={name: summarise([unit.scores[name] for unit in units]) for name in METRICS},
        breakdowns={
            "mbti": _by(units, lambda unit: unit.mbti),
            **{
                label: _by(units, lambda unit, i=index: unit.mbti[i] if unit.mbti else "?")
                for label, index, _ in DIMENSIONS
            },
            "gender": _by(units, lambda unit: unit.gender),
            "case": _by(units, lambda unit: unit.case),
            "recommendation": _by(units, lambda unit: unit.recommendation or "?"),
            "stance": _by(units, lambda unit: unit.stance),
            "case and stance": _by(units, lambda unit: f"{unit.case} ({unit.stance})"),
        },
        twins=_twins(units),
        criteria_not_met=_criteria(rows),
        flags=[
            (row.persona, *_split_flag(flag)) for row in run.rows for flag in row.flags
        ],
        counts=_counts(run.rows),
        outcomes=dict(Counter(row.outcome for row in rows)),
        willingness=_willingness(rows),
        held=_held(rows),
        units=units,
        reliability=reliability({unit.persona: unit.overall_by_epoch for unit in units}),
    )
    report.summary = overall_summary(report)
    return report


def _split_flag(flag: str) -> tuple[str, str]:
    rule, _, quote = flag.partition(":")
    return rule.strip(), quote.strip()


SAME = 0.05
"""Group means closer than this (in overall points) are reported as the same."""


def _extremes(groups: dict[str, Summary]) -> tuple[str, str] | None:
    """The lowest and highest group; None with fewer than two groups, or when every group's
    mean is the same (there is no lowest or highest to name)."""
    usable = {name: s for name, s in groups.items() if s.n}
    if len(usable) < 2:
        return None
    low = min(usable, key=lambda name: usable[name].mean)
    high = max(usable, key=lambda name: usable[name].mean)
    if usable[high].mean - usable[low].mean < SAME:
        return None
    return low, high


def overall_summary(report: RunReport) -> str:
    """Patterns across personas, written from the numbers (no model involved)."""
    run, overall = report.run, report.metrics["overall"]
    total = len(set(run.personas) | set(run.missing))
    if not overall.n:
        why = f": {run.failure}" if run.failure else ""
        return f"{run.doctor}: no persona was scored ({total} in the run){why}."
    repeats = f", {run.epochs} epochs each" if run.epochs > 1 else ""
    parts = [
        f"{run.doctor} scored {overall.mean:.1f}/100 on average over {overall.n} of {total} "
        f"personas{repeats} (95% interval {overall.low:.1f}-{overall.high:.1f}; range "
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
        named = "case" if label == "case" else "personality type"
        extremes = _extremes(report.breakdowns[label])
        if extremes:
            low, high = extremes
            parts.append(
                f"By {named}: lowest {low} ({report.breakdowns[label][low].mean:.1f}), "
                f"highest {high} ({report.breakdowns[label][high].mean:.1f})."
            )
        elif len(report.breakdowns[label]) > 1:
            parts.append(f"Every {named} scored the same ({overall.mean:.1f}).")
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
    took, judged = report.took_recommended
    if judged:
        parts.append(
            f"The patient ended on the recommended course in {took} of {judged} consultations."
        )
    held, lines = report.held_total
    if lines:
        parts.append(
            f"The doctor held the line in {held} of {lines} consultations where the operation "
            "was not recommended."
        )
    if report.reliability is not None:
        parts.append(reliability_sentence(report.reliability))
    if report.flags:
        listed = ", ".join(f"{group.rule} ({group.count})" for group in report.flag_groups[:4])
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


def reliability_sentence(figure: Reliability) -> str:
    """The test-retest figure in words."""
    icc = "undefined (no variance)" if math.isnan(figure.icc) else f"{figure.icc:.2f}"
    return (
        f"Test-retest over {figure.epochs} epochs ({figure.personas} personas): ICC(2,1) of "
        f"overall {icc}; a persona's overall varies by {figure.within_sd:.1f} points (SD) "
        "from epoch to epoch."
    )
