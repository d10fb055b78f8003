"""Summaries of ``medical_dialogue`` logs: one row per run, for the demo and comparisons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.log import EvalLog

from gaa.models import SCORE_KEYS


@dataclass(frozen=True)
class RunSummary:
    doctor: str
    personas: int
    failed: int
    means: dict[str, float]
    overall_stderr: float
    location: str


def doctor_label(log: EvalLog) -> str:
    """The run's doctor; the model doctor is named with the model that played it."""
    doctor = str((log.eval.metadata or {}).get("doctor", log.eval.model))
    return f"{doctor} ({log.eval.model})" if doctor == "gaa/model" else doctor


def summarise(log: EvalLog) -> RunSummary:
    means: dict[str, float] = {}
    stderr = 0.0
    for score in log.results.scores if log.results else []:
        if score.name in SCORE_KEYS:
            means[score.name] = score.metrics["mean"].value
            if score.name == "overall":
                stderr = score.metrics["stderr"].value
    samples = log.samples or []
    return RunSummary(
        doctor=doctor_label(log),
        personas=len(samples),
        failed=sum(sample.error is not None for sample in samples),
        means=means,
        overall_stderr=stderr,
        location=log.location,
    )


def format_summaries(rows: Sequence[RunSummary]) -> str:
    width = max([len("doctor"), *(len(row.doctor) for row in rows)])
    header = (
        f"{'doctor':<{width}} {'n':>3} {'overall':>15} {'empathy':>8} {'persuas.':>8} "
        f"{'safety':>7} {'accuracy':>8} {'consent':>8} {'accepted':>8}"
    )
    lines = [header]
    for row in rows:
        m = row.means
        lines.append(
            f"{row.doctor:<{width}} {row.personas:>3} "
            f"{m.get('overall', 0):>7.1f} ± {row.overall_stderr:<5.1f} {m.get('empathy', 0):>8.2f} "
            f"{m.get('persuasion', 0):>8.2f} {m.get('safety', 0):>7.2f} "
            f"{m.get('accuracy', 0):>8.2f} "
            f"{m.get('informed_consent', 0):>8.2f} {m.get('accepted', 0):>8.0%}"
            + (f"  ({row.failed} failed)" if row.failed else "")
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class RunHealth:
    """What a run cost and what it had to work around, summed over its samples."""

    doctor: str
    model_calls: int
    tokens: int
    patient_turns: int
    status_follow_ups: int
    status_unknown: int
    judge_fallbacks: int


def run_health(log: EvalLog) -> RunHealth:
    tokens = sum(usage.total_tokens for usage in log.stats.model_usage.values())
    calls = turns = follow_ups = unknown = judge_fallbacks = 0
    for sample in log.samples or []:
        calls += sum(1 for event in sample.events if event.event == "model")
        score = next(iter((sample.scores or {}).values()), None)
        metadata = (score.metadata if score else None) or {}
        stats = metadata.get("dialogue") or {}
        turns += stats.get("rounds", 0) + 1 if stats else 0
        follow_ups += stats.get("status_follow_ups", 0)
        unknown += stats.get("parse_misses", 0)
        judge_fallbacks += sum(
            1 for item in metadata.get("fallbacks", []) if not item.startswith("patient_")
        )
    return RunHealth(doctor_label(log), calls, tokens, turns, follow_ups, unknown, judge_fallbacks)


def format_usage(logs: Sequence[EvalLog]) -> str:
    """Model calls, tokens and workarounds per run: evidence the rows come from generations."""
    rows = [run_health(log) for log in logs]
    width = max([len("doctor"), *(len(row.doctor) for row in rows)])
    lines = [
        f"{'doctor':<{width}} {'calls':>6} {'tokens':>8} {'patient turns':>13} "
        f"{'status asked':>12} {'status unknown':>14} {'judge fallbacks':>15}"
    ]
    for row in rows:
        lines.append(
            f"{row.doctor:<{width}} {row.model_calls:>6} {row.tokens:>8} "
            f"{row.patient_turns:>13} {row.status_follow_ups:>12} {row.status_unknown:>14} "
            f"{row.judge_fallbacks:>15}"
        )
    return "\n".join(lines)
