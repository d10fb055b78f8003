"""The report as Markdown (for terminals and pull requests) and as JSON (for other tools)."""

from __future__ import annotations

import math
from typing import Any

from gaa.report.analysis import RunReport
from gaa.report.leaderboard import LeaderboardRow
from gaa.report.runs import METRICS
from gaa.report.stats import Summary

LABELS = {
    "overall": "overall (0-100)",
    "empathy": "empathy",
    "persuasion": "persuasion",
    "safety": "safety",
    "accuracy": "accuracy",
    "informed_consent": "informed consent",
}


def number(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return lines


def _summary_cells(summary: Summary) -> list[str]:
    return [
        str(summary.n),
        number(summary.mean),
        number(summary.sd),
        number(summary.min),
        number(summary.max),
        f"{number(summary.low)} - {number(summary.high)}",
    ]


def run_markdown(report: RunReport, pictures: dict[str, str] | None = None) -> str:
    run = report.run
    lines = [
        f"## {run.doctor}",
        "",
        f"- log: `{run.location}` ({run.status})",
        f"- model: {run.model}; {run.judged_by}",
        f"- personas: {len(run.rows)} in the log, {len(run.scored)} scored"
        + (f"; **missing from the log: {', '.join(run.missing)}**" if run.missing else ""),
        "",
        report.summary,
        "",
        "### Metrics",
        "",
    ]
    lines += _table(
        ["metric", "n", "mean", "sd", "min", "max", "95% interval"],
        [[LABELS[name], *_summary_cells(report.metrics[name])] for name in METRICS],
    )
    for key, title in (
        ("case", "By case"),
        ("gender", "By gender"),
        ("E/I", "By MBTI dimension"),
        ("mbti", "By MBTI type"),
    ):
        lines += ["", f"### {title} (overall)", ""]
        keys = ["E/I", "S/N", "T/F", "J/P"] if key == "E/I" else [key]
        rows = [
            [f"{label}: {group}" if key == "E/I" else group, *_summary_cells(summary)]
            for label in keys
            for group, summary in report.breakdowns[label].items()
        ]
        lines += _table(["group", "n", "mean", "sd", "min", "max", "95% interval"], rows)
    twins = report.twins
    lines += ["", "### Gender twins (same type and case, male minus female overall)", ""]
    if twins.pairs:
        mbti, case, gap = twins.largest or ("", "", 0.0)
        lines.append(
            f"{len(twins.pairs)} pairs; mean gap {number(twins.mean, 2)}; largest "
            f"{mbti} {case} ({number(gap, 2)}); exact sign test p = {number(twins.p_value, 3)}."
        )
    else:
        lines.append("No pair has both twins scored.")
    lines += ["", "### Criteria most often not met", ""]
    if report.criteria_not_met:
        lines += _table(
            ["criterion", "not met", "judged", "share"],
            [
                [criterion, str(missed), str(judged), f"{100 * missed / judged:.0f}%"]
                for criterion, missed, judged in report.criteria_not_met[:10]
            ],
        )
    else:
        lines.append("Every judged criterion was met.")
    lines += ["", "### Safety flags", ""]
    if report.flags:
        lines += _table(
            ["persona", "rule", "quote"],
            [[persona, rule, quote[:200]] for persona, rule, quote in report.flags],
        )
    else:
        lines.append("None.")
    lines += ["", "### Workarounds and failures", ""]
    lines += _table(
        ["what", "count"], [[name, str(count)] for name, count in sorted(report.counts.items())]
    )
    lines += ["", "### Personas", ""]
    lines += _table(
        [
            "persona", "overall", "empathy", "persuasion", "safety", "accuracy", "consent",
            "outcome", "rounds", "willingness", "flags", "fallbacks", "judge",
        ],
        [
            [
                row.persona,
                *(number(row.scores.get(name)) for name in METRICS),
                row.outcome if row.scored else f"failed: {row.error}",
                str(row.rounds),
                f"{row.willingness_start if row.willingness_start is not None else '-'} -> "
                f"{row.willingness_end if row.willingness_end is not None else '-'}",
                ", ".join(sorted({flag.split(':', 1)[0] for flag in row.flags})) or "-",
                ", ".join(sorted(set(row.fallbacks))) or "-",
                row.judge or "-",
            ]
            for row in sorted(run.rows, key=lambda r: r.persona)
        ],
    )  # fmt: skip
    for title, path in (pictures or {}).items():
        lines += ["", f"![{title}]({path})"]
    return "\n".join(lines)


def leaderboard_markdown(rows: list[LeaderboardRow], warnings: list[str]) -> str:
    lines = ["## Leaderboard", ""]
    lines += _table(
        ["rank", "doctor", "model", "n", "mean overall", "95% interval", "judged by"],
        [
            [
                str(row.rank),
                row.doctor + ("" if row.comparable else " (not comparable)"),
                row.model,
                str(row.n),
                number(row.mean),
                f"{number(row.low)} - {number(row.high)}",
                row.judged_by,
            ]
            for row in rows
        ],
    )
    for warning in warnings:
        lines += ["", f"**Warning:** {warning}"]
    return "\n".join(lines)


def report_json(
    reports: list[RunReport], board: list[LeaderboardRow], warnings: list[str]
) -> dict[str, Any]:
    """The numbers: per run, the spec's EvalResult fields plus the breakdowns."""
    runs = []
    for report in reports:
        run = report.run
        runs.append(
            {
                "assessment_id": run.eval_id,
                "doctor": run.doctor,
                "doctor_model": run.model,
                "judged_by": run.judged_by,
                "log": run.location,
                "status": run.status,
                "mean_overall_score": report.metrics["overall"].as_dict()["mean"],
                "overall_summary": report.summary,
                "metrics": {name: s.as_dict() for name, s in report.metrics.items()},
                "breakdowns": {
                    key: {group: s.as_dict() for group, s in groups.items()}
                    for key, groups in report.breakdowns.items()
                },
                "gender_twins": {
                    "pairs": [
                        {"mbti": m, "case": c, "gap": g} for m, c, g in report.twins.pairs
                    ],
                    "mean_gap": report.twins.mean,
                    "sign_test_p": report.twins.p_value,
                },
                "criteria_not_met": [
                    {"criterion": c, "not_met": m, "judged": j}
                    for c, m, j in report.criteria_not_met
                ],
                "flags": [{"persona": p, "rule": r, "quote": q} for p, r, q in report.flags],
                "counts": report.counts,
                "outcomes": report.outcomes,
                "willingness_by_round": report.willingness,
                "missing_personas": run.missing,
                "scores": [
                    {
                        "persona": row.persona,
                        "mbti": row.mbti,
                        "gender": row.gender,
                        "case": row.case,
                        "scored": row.scored,
                        "error": row.error,
                        **{f"{name}_score": row.scores.get(name) for name in METRICS},
                        "outcome": row.outcome,
                        "rounds": row.rounds,
                        "willingness_start": row.willingness_start,
                        "willingness_end": row.willingness_end,
                        "flags": row.flags,
                        "fallbacks": row.fallbacks,
                        "judge": row.judge,
                    }
                    for row in run.rows
                ],
            }
        )
    return {
        "runs": runs,
        "leaderboard": [row.__dict__ for row in board],
        "warnings": warnings,
    }
