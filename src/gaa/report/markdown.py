"""The report as Markdown (for terminals and pull requests) and as JSON (for other tools)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from gaa.report.analysis import RunReport
from gaa.report.leaderboard import FailedRun, LeaderboardRow
from gaa.report.prices import cache_read_share, estimate
from gaa.report.runs import GROUPS, METRICS, PersonaRow, Run
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


def table(header: list[str], rows: list[list[str]]) -> list[str]:
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
        lines += ["", cost_sentence(tokens, len(run.personas))]
    cache = tokens.reports_cache
    columns = ["input", "output", *(["cache read"] if cache else []), "total"]
    if tokens.by_model:
        lines += ["", *table(["model", *columns], _token_rows(tokens.by_model, cache))]
    if tokens.by_role:
        rows = _token_rows(tokens.by_role, cache, tokens.role_models)
        lines += ["", *table(["role", "model", *columns], rows)]
    return lines


def interval(low: float, high: float) -> str:
    return f"{number(low)} - {number(high)}"


def share(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.0%}"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.1f} min"


COMPARISON_HEADER = [
    "rank", "run", "overall (0-100)", "95% interval", "empathy", "persuasion", "safety",
    "accuracy", "consent", "recommended course", "held the line", "flags / consultation",
    "personas", "epochs", "model", "judged by", "tokens", "cost", "time", "date",
]  # fmt: skip


def cost_cell(amount: float | None, unpriced: Sequence[str]) -> str:
    """An estimated cost for a table cell: ``-`` when none, else the dollars and the models the
    price table does not know."""
    if amount is None:
        return "-"
    return dollars(amount) + (f" (without {', '.join(unpriced)})" if unpriced else "")


def _comparison_cells(row: LeaderboardRow) -> list[str]:
    cost = cost_cell(row.cost, row.unpriced)
    return [
        str(row.rank),
        row.name + ("" if row.comparable else " (judged differently)"),
        number(row.mean),
        interval(row.low, row.high),
        *(number(row.dimensions.get(group)) for group in GROUPS),
        share(row.took_recommended),
        share(row.held_the_line),
        number(row.flags_per_consultation, 2),
        str(row.n),
        str(row.epochs),
        row.model,
        row.judged_by,
        count(row.tokens.total) if row.tokens is not None else "-",
        cost,
        duration(row.seconds),
        row.date or "-",
    ]


COMPARISON_KEY = (
    "One row per run, best mean overall first. Overall is 0-100 and its 95% interval a "
    "bootstrap over personas (epochs are averaged within a persona first); the five dimensions "
    "are 0-10; 'recommended course' is the share of consultations where the patient ended on "
    "the course the case's guideline recommends (the operation, or not having it); 'held the "
    "line' is the share, where the operation is not recommended, in which the doctor never "
    "advised it and stayed respectful; tokens are every model's, as the providers reported "
    "them; cost is estimated from LiteLLM's price table; time is the run's wall time."
)


def comparison_markdown(
    rows: list[LeaderboardRow], warnings: list[str], failed: list[FailedRun] | None = None
) -> str:
    """The comparison table every report opens with: one named row per scored run."""
    lines = ["## Comparison", ""]
    if not rows:
        lines.append("No run scored a persona." + (" See the notes below." if failed else ""))
        return "\n".join(lines)
    lines += [COMPARISON_KEY, ""]
    lines += table(COMPARISON_HEADER, [_comparison_cells(row) for row in rows])
    for warning in warnings:
        lines += ["", f"Note: {escape(warning)}"]
    return "\n".join(lines)


def notes_markdown(warnings: list[str], failed: list[FailedRun]) -> str:
    """What could not be compared, at the foot of the page: runs that scored nothing, partial
    logs and malformed samples."""
    if not warnings and not failed:
        return ""
    lines = ["## Notes", ""]
    if failed:
        lines += ["Runs that scored no persona (failed, unfinished or empty), not ranked:", ""]
        lines += table(
            ["doctor", "model", "status", "samples", "error", "log"],
            [
                [run.doctor, run.model, run.status, str(run.samples), run.error or "-",
                 run.location]
                for run in failed
            ],
        )  # fmt: skip
        lines.append("")
    lines += [f"- {escape(warning)}" for warning in warnings]
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


def _persona_json(row: PersonaRow) -> dict[str, Any]:
    """One sample (a persona in one epoch) of a run, as ``report.json`` lists it."""
    return {
        "persona": row.persona,
        "epoch": row.epoch,
        "mbti": row.mbti,
        "gender": row.gender,
        "case": row.case,
        "stance": row.stance,
        "recommendation": row.recommendation,
        "held_the_line": row.held_the_line,
        "took_recommended_course": row.took_recommended,
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
                "tokens": tokens_json(run.tokens, len(run.personas)),
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
                "epochs": run.epochs,
                "personas_scored": len(report.units),
                "consultations_scored": report.consultations,
                "test_retest": (
                    report.reliability.__dict__ if report.reliability is not None else None
                ),
                "missing_personas": run.missing,
                "skipped_samples": [{"persona": p, "why": why} for p, why in run.skipped],
                "scores": [_persona_json(row) for row in run.rows],
            }
        )
    return {
        "runs": runs,
        "leaderboard": [_leaderboard_json(row) for row in board],
        "failed_runs": [run.__dict__ for run in failed or []],
        "warnings": warnings,
    }
