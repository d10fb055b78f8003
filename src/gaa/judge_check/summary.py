"""``gaa judge-check``: judge_check logs side by side, so a user can pick the cheapest judge
configuration that agrees well enough."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.log import EvalLog, read_eval_log

from gaa.errors import GAAError

COLUMNS = (
    ("balanced_accuracy", "bal.acc"),
    ("kappa", "kappa"),
    ("tier_tau", "tier tau"),
    ("twin_sensitivity", "twins"),
    ("control_stability", "controls"),
)


class JudgeCheckLogError(GAAError, ValueError):
    """A log that is not a judge_check log, or no log at all."""


@dataclass(frozen=True)
class JudgeRow:
    configuration: str
    consultations: int
    values: dict[str, float]
    calls: float
    tokens: float
    location: str


def _configuration(log: EvalLog) -> str:
    metadata = log.eval.metadata or {}
    judge = str(metadata.get("judge", "?"))
    roles = log.eval.model_roles or {}
    if judge.startswith("rules"):
        name = judge
    else:
        model = getattr(roles.get("judge"), "model", None) or log.eval.model
        name = f"panel {metadata.get('teamwork') or 'all'} ({model})"
    if metadata.get("validator") == "model":
        name += f" + model validator ({getattr(roles.get('validator'), 'model', '?')})"
    return name


def judge_row(log: EvalLog) -> JudgeRow:
    if log.eval.task not in ("gaa/judge_check", "judge_check"):
        raise JudgeCheckLogError(f"{log.location} is a log of {log.eval.task}, not judge_check")
    values: dict[str, float] = {}
    for score in log.results.scores if log.results else []:
        for name, metric in score.metrics.items():
            short = name.removeprefix("gaa/agreement_")
            if short in dict(COLUMNS):
                values[short] = float(metric.value)
    samples = log.samples or []
    calls = [
        float((s.scores or {})["judge_check_scorer"].metadata["judge_calls"])  # type: ignore[index]
        for s in samples
        if s.scores and s.scores.get("judge_check_scorer") and s.error is None
    ]
    tokens = [sum(u.total_tokens for u in (s.model_usage or {}).values()) for s in samples]
    return JudgeRow(
        configuration=_configuration(log),
        consultations=len(samples),
        values=values,
        calls=sum(calls) / len(calls) if calls else 0.0,
        tokens=sum(tokens) / len(tokens) if tokens else 0.0,
        location=log.location,
    )


def read_rows(paths: Sequence[str]) -> list[JudgeRow]:
    from gaa.report.runs import log_locations

    return [judge_row(read_eval_log(location)) for location in log_locations(paths)]


def format_rows(rows: Sequence[JudgeRow]) -> str:
    width = max([len("configuration"), *(len(r.configuration) for r in rows)])
    header = f"{'configuration':<{width}} {'n':>3} " + " ".join(f"{t:>8}" for _, t in COLUMNS)
    lines = [header + f" {'calls':>6} {'tokens':>8}"]
    for row in sorted(rows, key=lambda r: -r.values.get("kappa", float("-inf"))):
        cells = " ".join(
            f"{row.values[k]:>8.2f}" if k in row.values and row.values[k] == row.values[k]
            else f"{'-':>8}"
            for k, _ in COLUMNS
        )  # fmt: skip
        lines.append(
            f"{row.configuration:<{width}} {row.consultations:>3} {cells} "
            f"{row.calls:>6.1f} {row.tokens:>8.0f}"
        )
    return "\n".join(lines)


def criteria_table(log: EvalLog) -> str:
    """Balanced accuracy, kappa and count per rubric criterion for one judge_check log."""
    from inspect_ai.scorer import SampleScore

    from gaa.judge_check.task import criterion_agreement, judged_items

    scores = [
        SampleScore(score=sample.scores["judge_check_scorer"], sample_id=sample.id)
        for sample in log.samples or []
        if sample.scores and "judge_check_scorer" in sample.scores
    ]
    table = criterion_agreement(judged_items(scores))
    width = max(len(name) for name in table)
    lines = [f"{_configuration(log)}: per criterion", f"{'criterion':<{width}} {'n':>4} "
             f"{'bal.acc':>8} {'kappa':>8}"]  # fmt: skip
    for name, row in table.items():
        ba, kappa = row["balanced_accuracy"], row["kappa"]
        lines.append(
            f"{name:<{width}} {row['n']:>4} "
            f"{'-' if ba is None else f'{ba:.2f}':>8} {'-' if kappa is None else f'{kappa:.2f}':>8}"
        )
    return "\n".join(lines)
