"""The report as Markdown (for terminals and pull requests) and as JSON (for other tools)."""

from __future__ import annotations

import math
import re
from typing import Any

from gaa.report.analysis import RunReport
from gaa.report.leaderboard import FailedRun, LeaderboardRow
from gaa.report.prices import cache_read_share, estimate
from gaa.report.runs import METRICS, Run
from gaa.report.stats import Summary
from gaa.report.tokens import DoctorTokens, RunTokens, TokenCount

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


LINE_BREAK = "\u23ce"  # ⏎: a line break in text from a log, shown rather than obeyed
_BREAKS = re.compile("\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_CONTROLS = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
ESCAPED_CHARS = "\\`*_<>[]&|~$#+-=.)!"
"""Every character :func:`escape` may put a backslash before (the HTML page reads them back)."""
_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*<[]&|~$"})
_LONE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_BLOCK_START = re.compile(r"^(?:[#>+=!-]|\d+(?=[.)]))")


def _control(match: re.Match[str]) -> str:
    point = ord(match.group())
    return f"\\x{point:02x}" if point < 0x100 else f"\\u{point:04x}"


def one_line(text: object) -> str:
    """Text from a log on one line, for any reader (a terminal too): every line break shown
    as ``⏎``, other control and direction-override characters as ``\\xNN``/``\\uNNNN``, runs
    of white space as one space."""
    shown = _BREAKS.sub(f" {LINE_BREAK} ", str(text))
    shown = _CONTROLS.sub(_control, shown)
    return " ".join(shown.split())


def inline(text: object) -> str:
    """Text from a log as literal Markdown inside a line: on one line (:func:`one_line`), and
    every character that could format (backticks, ``*``, ``_`` at a word's edge, ``~``,
    ``$``), open raw HTML or an entity (``<``, ``&``), a link (``[``, ``]``) or split a table
    cell (``|``) behind a backslash (the HTML page reads the same escapes back)."""
    escaped = one_line(text).translate(_SPECIAL)
    return _LONE_UNDERSCORE.sub(r"\\_", escaped)


def escape(text: object) -> str:
    """Text from a log as literal Markdown wherever it lands, at a line's start too: as
    :func:`inline`, and a first character that would open a block (a heading, list item,
    block quote, setext underline, thematic break, numbered item) escaped as well (``|``,
    ``<``, ``*``, ``_`` and backticks always are)."""
    return _BLOCK_START.sub(_block_start, inline(text))


def _block_start(match: re.Match[str]) -> str:
    start = match.group()
    return f"{start}\\" if start[0].isdigit() else f"\\{start}"


def code(text: object) -> str:
    """``text`` as a code span, or escaped plain text when it holds what a code span cannot
    (a code span has no escapes)."""
    line = one_line(text)
    return escape(line) if "`" in line or "\\" in line or not line else f"`{line}`"


def skipped_text(skipped: list[tuple[str, str]]) -> str:
    """``samples skipped: 2: ID (why); ...``, escaped."""
    listed = "; ".join(f"{escape(persona)} ({escape(why)})" for persona, why in skipped)
    return f"samples skipped (malformed in the log): {len(skipped)}: {listed}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A table of literal cells: every cell is escaped here (never at a line's start)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(inline(cell) for cell in row) + " |" for row in rows]
    return lines


def count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def tokens_text(tokens: TokenCount) -> str:
    """``22,158 in, 4,653 out`` (and the cache reads, where a provider reported them)."""
    text = f"{count(tokens.input)} in, {count(tokens.output)} out"
    return text + (f", {count(tokens.cache_read)} cache read" if tokens.cache_read else "")


def doctor_tokens_cell(doctor: DoctorTokens) -> str:
    """The doctor's tokens in a few words: the numbers, or why the log has none."""
    if doctor.tokens is not None and doctor.kind == "counted":
        return tokens_text(doctor.tokens)
    if doctor.tokens is not None and doctor.kind == "shared":
        return f"{tokens_text(doctor.tokens)} (with the {', '.join(doctor.shared_with)})"
    return {
        "remote": "not in the log (remote A2A doctor)",
        "no_model": "none (calls no model)",
        "unreported": "not in the log",
    }.get(doctor.kind, "not told apart in the log")


def dollars(value: float) -> str:
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


def cost_sentence(tokens: RunTokens, personas: int) -> str:
    """The estimated cost of the run and of a persona, the cache-read share, and the models
    the price table does not know."""
    assert tokens.total is not None
    cost = estimate(tokens.by_model)
    text = f"Estimated cost: {dollars(cost.dollars)}"
    if personas:
        text += f" ({dollars(cost.dollars / personas)} a persona)"
    text += " at the LiteLLM price table's rates"
    if cost.unpriced:
        text += f", **without {escape(', '.join(cost.unpriced))}** (not in the price table)"
    share = cache_read_share(tokens.total)
    if share is not None:
        text += f"; {share:.0%} of input tokens were cache reads"
    return text + "."


def _token_rows(
    names: dict[str, TokenCount], cache: bool, models: dict[str, str] | None = None
) -> list[list[str]]:
    return [
        [
            name,
            *([models.get(name, "")] if models is not None else []),
            count(tokens.input),
            count(tokens.output),
            *([count(tokens.cache_read)] if cache else []),
            count(tokens.total),
        ]
        for name, tokens in names.items()
    ]


def tokens_markdown(run: Run) -> list[str]:
    """The run's tokens in total, for the doctor, per model and per role."""
    tokens: RunTokens = run.tokens
    doctor = tokens.doctor
    lines = ["### Tokens", ""]
    if tokens.total is None:
        lines.append("The log records no token usage.")
    else:
        lines.append(
            f"All models: {tokens_text(tokens.total)} ({count(tokens.total.total)} total; "
            f"from the {tokens.source})."
        )
    lines += ["", f"Doctor: {escape(doctor_tokens_cell(doctor))} ({escape(doctor.note)})."]
    if tokens.total is not None:
        lines += ["", cost_sentence(tokens, len(run.rows))]
    cache = tokens.reports_cache
    columns = ["input", "output", *(["cache read"] if cache else []), "total"]
    if tokens.by_model:
        lines += ["", *_table(["model", *columns], _token_rows(tokens.by_model, cache))]
    if tokens.by_role:
        rows = _token_rows(tokens.by_role, cache, tokens.role_models)
        lines += ["", *_table(["role", "model", *columns], rows)]
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
        f"## {escape(run.doctor)}",
        "",
        f"- log: {code(run.location)} ({escape(run.status)})",
        f"- model: {escape(run.model)}; {escape(run.judged_by)}",
        f"- personas: {len(run.rows)} in the log, {len(run.scored)} scored"
        + (f"; **missing from the log: {escape(', '.join(run.missing))}**" if run.missing else ""),
    ]
    if run.skipped:
        lines.append(f"- **{skipped_text(run.skipped)}**")
    if run.fallbacks:
        lines.append(
            f"- **judge fallback:** the panel ({escape(run.judge_models)}) failed on "
            f"{run.fallbacks} of {len(run.scored)} scored personas; the rules judge scored them"
        )
    if run.error or not run.scored:
        lines.append(f"- **error:** {escape(run.failure or 'nothing scored')}")
    doctor = run.tokens.doctor
    lines.append(
        "- tokens: "
        + (tokens_text(run.tokens.total) if run.tokens.total else "none in the log")
        + f"; doctor: {escape(doctor_tokens_cell(doctor))}"
        + (f"; {run_cost_text(run)}" if run.tokens.total else "")
    )
    lines += ["", escape(report.summary), "", "### Metrics", ""]
    lines += _table(
        ["metric", "n", "mean", "sd", "min", "max", "95% interval"],
        [[LABELS[name], *_summary_cells(report.metrics[name])] for name in METRICS],
    )
    if report.held:
        lines += ["", "### Held the line (where the operation is not recommended)", ""]
        lines += _table(
            ["case (stance)", "held the line", "consultations", "rate"],
            [
                [escape(key), str(held), str(n), f"{held / n:.0%}"]
                for key, (held, n) in report.held.items()
            ],
        )
    for key, title in (
        ("case", "By case"),
        ("recommendation", "By recommended course"),
        ("stance", "By patient stance"),
        ("case and stance", "By case and stance"),
        ("gender", "By gender"),
        ("E/I", "By MBTI dimension"),
        ("mbti", "By MBTI type"),
    ):
        if key in ("recommendation", "stance", "case and stance") and (
            len(report.breakdowns.get("stance", {})) < 2
            and len(report.breakdowns.get("recommendation", {})) < 2
        ):
            continue  # one kind of case and patient: the by-case table says it all
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
            f"{escape(mbti)} {escape(case)} ({number(gap, 2)}); exact sign test p = "
            f"{number(twins.p_value, 3)}."
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
    lines += ["", *tokens_markdown(run)]
    lines += ["", "### Personas", ""]
    lines += _table(
        [
            "persona", "overall", "empathy", "persuasion", "safety", "accuracy", "consent",
            "outcome", "rounds", "willingness", "flags", "fallbacks", "judge", "tokens",
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
                tokens_text(row.tokens) if row.tokens is not None else "-",
            ]
            for row in sorted(run.rows, key=lambda r: r.persona)
        ],
    )  # fmt: skip
    for title, path in (pictures or {}).items():
        lines += ["", f"![{title}]({path})"]
    return "\n".join(lines)


def leaderboard_markdown(
    rows: list[LeaderboardRow], warnings: list[str], failed: list[FailedRun] | None = None
) -> str:
    """The ranked runs, then the runs that scored nothing (never ranked)."""
    lines = ["## Leaderboard", ""]
    if rows:
        lines += _table(
            [
                "rank", "doctor", "model", "n", "mean overall", "95% interval",
                "tokens (all models)", "doctor tokens", "judged by",
            ],
            [
                [
                    str(row.rank),
                    row.doctor + ("" if row.comparable else " (not comparable)"),
                    row.model,
                    str(row.n),
                    number(row.mean),
                    f"{number(row.low)} - {number(row.high)}",
                    tokens_text(row.tokens) if row.tokens is not None else "none in the log",
                    doctor_tokens_cell(row.doctor_tokens),
                    row.judged_by,
                ]
                for row in rows
            ],
        )  # fmt: skip
    else:
        lines.append("No run scored a persona.")
    if failed:
        lines += ["", "### Failed or empty runs (not ranked)", ""]
        lines += _table(
            ["doctor", "model", "status", "samples", "error", "log"],
            [
                [run.doctor, run.model, run.status, str(run.samples), run.error or "-",
                 run.location]
                for run in failed
            ],
        )  # fmt: skip
    for warning in warnings:
        lines += ["", f"**Warning:** {escape(warning)}"]
    return "\n".join(lines)


def run_cost_text(run: Run) -> str:
    cost = estimate(run.tokens.by_model)
    unpriced = f" (without {escape(', '.join(cost.unpriced))})" if cost.unpriced else ""
    return f"estimated cost {dollars(cost.dollars)}{unpriced}"


def tokens_json(tokens: RunTokens, personas: int = 0) -> dict[str, Any]:
    doctor = tokens.doctor
    cost = estimate(tokens.by_model)
    return {
        "source": tokens.source or None,
        "cost": {
            "usd": round(cost.dollars, 6),
            "usd_per_persona": round(cost.dollars / personas, 6) if personas else None,
            "unpriced_models": cost.unpriced,
            "price_table": "LiteLLM (bundled)",
        },
        "cache_read_share": cache_read_share(tokens.total) if tokens.total else None,
        "total": tokens.total.as_dict() if tokens.total is not None else None,
        "by_model": {name: count.as_dict() for name, count in tokens.by_model.items()},
        "by_role": {
            role: {"model": tokens.role_models.get(role, ""), **count.as_dict()}
            for role, count in tokens.by_role.items()
        },
        "doctor": {
            "kind": doctor.kind,
            "in_log": doctor.tokens is not None,
            "note": doctor.note,
            "shared_with": doctor.shared_with,
            **(doctor.tokens.as_dict() if doctor.tokens is not None else {}),
        },
    }


def _leaderboard_json(row: LeaderboardRow) -> dict[str, Any]:
    data: dict[str, Any] = {
        key: value for key, value in row.__dict__.items() if key not in ("tokens", "doctor_tokens")
    }
    data["tokens"] = row.tokens.as_dict() if row.tokens is not None else None
    doctor = row.doctor_tokens
    data["doctor_tokens"] = {
        "kind": doctor.kind,
        "note": doctor.note,
        **(doctor.tokens.as_dict() if doctor.tokens is not None else {}),
    }
    return data


def report_json(
    reports: list[RunReport],
    board: list[LeaderboardRow],
    warnings: list[str],
    failed: list[FailedRun] | None = None,
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
                "judge": {
                    "configured": run.judge,
                    "scored_by": run.scored_by,
                    "panel_failed": run.fallbacks,
                    "comparable_as": run.comparable_as,
                },
                "log": run.location,
                "status": run.status,
                "error": run.failure or None,
                "tokens": tokens_json(run.tokens, len(run.rows)),
                "mean_overall_score": report.metrics["overall"].as_dict()["mean"],
                "overall_summary": report.summary,
                "metrics": {name: s.as_dict() for name, s in report.metrics.items()},
                "breakdowns": {
                    key: {group: s.as_dict() for group, s in groups.items()}
                    for key, groups in report.breakdowns.items()
                },
                "gender_twins": {
                    "pairs": [{"mbti": m, "case": c, "gap": g} for m, c, g in report.twins.pairs],
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
                "held_the_line": {
                    key: {"held": held, "judged": n} for key, (held, n) in report.held.items()
                },
                "missing_personas": run.missing,
                "skipped_samples": [{"persona": p, "why": why} for p, why in run.skipped],
                "scores": [
                    {
                        "persona": row.persona,
                        "mbti": row.mbti,
                        "gender": row.gender,
                        "case": row.case,
                        "stance": row.stance,
                        "recommendation": row.recommendation,
                        "held_the_line": row.held_the_line,
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
                        "tokens": row.tokens.as_dict() if row.tokens is not None else None,
                    }
                    for row in run.rows
                ],
            }
        )
    return {
        "runs": runs,
        "leaderboard": [_leaderboard_json(row) for row in board],
        "failed_runs": [run.__dict__ for run in failed or []],
        "warnings": warnings,
    }
