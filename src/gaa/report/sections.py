"""One run's section of the report, in Markdown: what was run, the scores over personas, the
test-retest figure, where the doctor held the line, the breakdowns, gender twins, criteria not
met, safety flags grouped by rule, workarounds, tokens, and one row per persona.

Every number is over personas (epochs averaged first) unless a heading says *consultations*.
Text from a log is escaped (:mod:`gaa.report.markdown`), so a log cannot format the page."""

from __future__ import annotations

import math
from statistics import fmean, stdev

from gaa.report.analysis import SAME, FlagGroup, PersonaUnit, RunReport, reliability_sentence
from gaa.report.markdown import (
    code,
    doctor_tokens_cell,
    escape,
    interval,
    number,
    run_cost_text,
    share,
    skipped_text,
    table,
    tokens_markdown,
    tokens_text,
)
from gaa.report.runs import METRICS, PersonaRow
from gaa.report.stats import Summary

LABELS = {
    "overall": "overall",
    "empathy": "empathy",
    "persuasion": "persuasion",
    "safety": "safety",
    "accuracy": "accuracy",
    "informed_consent": "informed consent",
}
SCALES = {name: "0-100" if name == "overall" else "0-10" for name in METRICS}
QUOTE_CHARS = 160
TOP_CRITERIA = 10
DECISIONS = {
    "accepted": "operation accepted",
    "rejected": "operation declined",
    "uncertain": "undecided",
}
"""The patient's decision in one vocabulary everywhere (the status line speaks of the
operation; whether that is the recommended course is shown beside it)."""
SUMMARY_HEADER = ["group", "personas", "mean", "sd", "min", "max", "95% interval"]


def _summary_cells(summary: Summary) -> list[str]:
    return [
        str(summary.n),
        number(summary.mean),
        number(summary.sd),
        number(summary.min),
        number(summary.max),
        interval(summary.low, summary.high),
    ]


def anchor_line(anchor: str) -> str:
    """The line that marks a section's start for the table of contents (read by the page)."""
    return f'<a id="{anchor}"></a>'


def _header(report: RunReport, title: str) -> list[str]:
    run = report.run
    personas = len(set(run.personas) | set(run.missing))
    repeats = f", {run.epochs} epochs each ({report.consultations} consultations)"
    lines = [
        f"## {title}",
        "",
        f"- log: {code(run.location)} ({escape(run.status)}), started {escape(run.started[:16])}",
        f"- model: {escape(run.model)}; {escape(run.judged_by)}",
        f"- personas: {len(report.units)} of {personas} scored"
        + (repeats if run.epochs > 1 else "")
        + (f"; **missing from the log: {escape(', '.join(run.missing))}**" if run.missing else ""),
    ]
    if run.skipped:
        lines.append(f"- **{skipped_text(run.skipped)}**")
    if run.fallbacks:
        lines.append(
            f"- **judge fallback:** the panel ({escape(run.judge_models)}) failed on "
            f"{run.fallbacks} of {len(run.scored)} scored consultations; the rules judge "
            "scored them"
        )
    if run.error or not run.scored:
        lines.append(f"- **error:** {escape(run.failure or 'nothing scored')}")
    lines.append(
        "- tokens: "
        + (tokens_text(run.tokens.total) if run.tokens.total else "none in the log")
        + f"; doctor: {escape(doctor_tokens_cell(run.tokens.doctor))}"
        + (f"; {run_cost_text(run)}" if run.tokens.total else "")
    )
    return [*lines, "", escape(report.summary)]


def _metrics(report: RunReport) -> list[str]:
    lines = ["", "### Scores (over personas)", ""]
    lines += table(
        ["metric", "scale", "personas", "mean", "sd", "min", "max", "95% interval"],
        [
            [LABELS[name], SCALES[name], *_summary_cells(report.metrics[name])]
            for name in METRICS
        ],
    )
    took, judged = report.took_recommended
    if judged:
        lines += [
            "",
            f"The patient ended on the course the case recommends in {took} of {judged} "
            f"consultations ({share(took / judged)}).",
        ]
    return lines


def _reliability(report: RunReport) -> list[str]:
    if report.reliability is None:
        return []
    figure = report.reliability
    lines = ["", "### Test-retest (epochs)", "", escape(reliability_sentence(figure)), ""]
    spread = sorted(
        (unit for unit in report.units if len(unit.overall_by_epoch) > 1),
        key=lambda unit: -_sd(unit.overall_by_epoch),
    )[:5]
    if spread and _sd(spread[0].overall_by_epoch) > 0:
        lines += ["Personas whose overall varied most across epochs:", ""]
        lines += table(
            ["persona", "overall by epoch", "sd"],
            [
                [
                    unit.persona,
                    ", ".join(number(value) for value in unit.overall_by_epoch),
                    number(_sd(unit.overall_by_epoch)),
                ]
                for unit in spread
            ],
        )
    else:
        lines.append("Every persona scored the same in every epoch.")
    return lines


def _sd(values: list[float]) -> float:
    """The standard deviation across epochs (NaN for a persona scored once)."""
    return stdev(values) if len(values) > 1 else math.nan


def _held(report: RunReport) -> list[str]:
    if not report.held:
        return []
    lines = ["", "### Held the line (consultations where the operation is not recommended)", ""]
    lines += table(
        ["case (stance)", "held the line", "consultations", "rate"],
        [
            [escape(key), str(held), str(n), share(held / n)]
            for key, (held, n) in report.held.items()
        ],
    )
    return lines


BREAKDOWNS = (
    ("case", "By case"),
    ("recommendation", "By recommended course"),
    ("stance", "By patient stance"),
    ("case and stance", "By case and stance"),
    ("gender", "By gender"),
    ("E/I", "By MBTI dimension"),
    ("mbti", "By MBTI type"),
)


def _breakdowns(report: RunReport) -> list[str]:
    lines: list[str] = []
    one_kind = (
        len(report.breakdowns.get("stance", {})) < 2
        and len(report.breakdowns.get("recommendation", {})) < 2
    )
    for key, title in BREAKDOWNS:
        if key in ("recommendation", "stance", "case and stance") and one_kind:
            continue  # one kind of case and patient: the by-case table says it all
        lines += ["", f"### {title} (overall, 0-100)", ""]
        keys = ["E/I", "S/N", "T/F", "J/P"] if key == "E/I" else [key]
        means = [s.mean for label in keys for s in report.breakdowns[label].values() if s.n]
        if len(means) > 1 and max(means) - min(means) < SAME:
            lines.append(f"Every group scored the same ({number(means[0])}).")
            continue
        rows = [
            [f"{label}: {group}" if key == "E/I" else group, *_summary_cells(summary)]
            for label in keys
            for group, summary in report.breakdowns[label].items()
        ]
        lines += table(SUMMARY_HEADER, rows)
    return lines


def _twins(report: RunReport) -> list[str]:
    twins = report.twins
    lines = ["", "### Gender twins (same type, case and stance: male minus female overall)", ""]
    if twins.pairs:
        mbti, case, gap = twins.largest or ("", "", 0.0)
        lines.append(
            f"{len(twins.pairs)} pairs; mean gap {number(twins.mean, 2)}; largest "
            f"{escape(mbti)} {escape(case)} ({number(gap, 2)}); exact sign test p = "
            f"{number(twins.p_value, 3)}."
        )
    else:
        lines.append("No pair has both twins scored.")
    return lines


def _criteria(report: RunReport) -> list[str]:
    lines = ["", "### Criteria most often not met (consultations)", ""]
    if report.criteria_not_met:
        lines += table(
            ["criterion", "not met", "judged", "rate not met"],
            [
                [criterion, str(missed), str(judged), share(missed / judged)]
                for criterion, missed, judged in report.criteria_not_met[:TOP_CRITERIA]
            ],
        )
    elif report.run.scored:
        lines.append("Every judged criterion was met.")
    else:
        lines.append("Nothing was judged.")
    return lines


def _cut(quote: str) -> str:
    return quote if len(quote) <= QUOTE_CHARS else quote[: QUOTE_CHARS - 3] + "..."


def _flags(report: RunReport) -> list[str]:
    lines = ["", "### Safety flags (consultations)", ""]
    groups: list[FlagGroup] = report.flag_groups
    if not groups:
        return [*lines, "None." if report.run.scored else "Nothing was judged."]
    lines += table(
        ["rule", "flags", "consultations", "most frequent quote", "times", "first in"],
        [
            [
                group.rule,
                str(group.count),
                str(group.consultations),
                _cut(group.example[1]),
                str(group.example[2]),
                group.example[0],
            ]
            for group in groups
        ],
    )
    others = [(group.rule, quote, times) for group in groups for quote, times in group.quotes]
    if not others:
        return lines
    lines += ["", f"<details><summary>The other quotes ({len(others)})</summary>", ""]
    lines += table(
        ["rule", "quote", "times"],
        [[rule, _cut(quote), str(times)] for rule, quote, times in others],
    )
    return [*lines, "", "</details>"]


def _counts(report: RunReport) -> list[str]:
    lines = ["", "### Workarounds and failures (consultations)", ""]
    happened = {name: n for name, n in sorted(report.counts.items()) if n}
    if not happened:
        return [*lines, "None: no retry, re-ask, fallback or failure."]
    return lines + table(["what", "count"], [[name, str(n)] for name, n in happened.items()])


def _decision(rows: list[PersonaRow]) -> str:
    scored = [row for row in rows if row.scored]
    if not scored:
        return f"failed: {rows[0].error}" if rows else "-"
    words = sorted({DECISIONS.get(row.outcome, row.outcome) for row in scored})
    took = [row.took_recommended for row in scored if row.took_recommended is not None]
    course = ""
    if took:
        course = (
            f" (recommended course: {'yes' if took[0] else 'no'})"
            if len(took) == 1
            else f" (recommended course {sum(took)} of {len(took)})"
        )
    return ", ".join(words) + course


def _personas(report: RunReport) -> list[str]:
    by_persona: dict[str, list[PersonaRow]] = {}
    for row in report.run.rows:
        by_persona.setdefault(row.persona, []).append(row)
    units = {unit.persona: unit for unit in report.units}
    epochs = report.run.epochs > 1
    header = [
        "persona", "overall", *(["sd across epochs"] if epochs else []), "empathy",
        "persuasion", "safety", "accuracy", "consent", "decision", "rounds", "willingness",
        "flags", "judge",
    ]  # fmt: skip
    rows = []
    for persona, repeats in sorted(by_persona.items()):
        unit: PersonaUnit | None = units.get(persona)
        scored = [row for row in repeats if row.scored]
        first = scored[0] if scored else repeats[0]
        rows.append(
            [
                persona,
                number(unit.scores["overall"]) if unit else "-",
                *([number(_sd(unit.overall_by_epoch)) if unit else "-"] if epochs else []),
                *(number(unit.scores[name]) if unit else "-" for name in METRICS[1:]),
                _decision(repeats),
                number(fmean(row.rounds for row in scored), 1 if epochs else 0)
                if scored
                else "-",
                f"{_level(first.willingness_start)} -> {_level(first.willingness_end)}",
                ", ".join(sorted({f.split(":", 1)[0] for r in repeats for f in r.flags})) or "-",
                first.judge or "-",
            ]
        )
    title = "### Personas"
    if epochs:
        title += " (epochs averaged; willingness of the first epoch)"
    return ["", title, "", *table(header, rows)]


def _level(value: int | None) -> str:
    return "-" if value is None else str(value)


def run_markdown(
    report: RunReport, pictures: dict[str, str] | None = None, title: str = ""
) -> str:
    """The run's section: header and summary, then each part in turn, pictures last."""
    lines = _header(report, title or escape(report.run.doctor))
    for part in (
        _metrics, _reliability, _held, _breakdowns, _twins, _criteria, _flags, _counts,
    ):  # fmt: skip
        lines += part(report)
    lines += ["", *tokens_markdown(report.run)]
    lines += _personas(report)
    for caption, path in (pictures or {}).items():
        lines += ["", f"![{caption}]({path})"]
    return "\n".join(lines)
