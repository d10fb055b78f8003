"""Summaries of ``medical_dialogue`` logs: one row per run, for the demo and comparisons."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.log import EvalLog

METRICS: tuple[str, ...] = (
    "overall",
    "empathy",
    "persuasion",
    "safety",
    "accuracy",
    "informed_consent",
    "accepted",
)


@dataclass(frozen=True)
class RunSummary:
    doctor: str
    personas: int
    failed: int
    means: dict[str, float]
    overall_stderr: float
    location: str


def summarise(log: EvalLog) -> RunSummary:
    means: dict[str, float] = {}
    stderr = 0.0
    for score in log.results.scores if log.results else []:
        if score.name in METRICS:
            means[score.name] = score.metrics["mean"].value
            if score.name == "overall":
                stderr = score.metrics["stderr"].value
    samples = log.samples or []
    return RunSummary(
        doctor=str((log.eval.metadata or {}).get("doctor", log.eval.model)),
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
