"""Whether an Inspect run produced anything: `inspect eval` exits 0 when every sample failed, so
GAA's own commands (``gaa demo``, the benches) check the log and exit non-zero themselves."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.log import EvalLog

from gaa.errors import GAAError

REASON_CHARS = 300


def completed_samples(log: EvalLog) -> int:
    """Samples that finished with a score (0 when the run failed before any did)."""
    if log.results is not None:
        return log.results.completed_samples
    return sum(1 for sample in log.samples or [] if sample.error is None and sample.scores)


def failure_reason(log: EvalLog) -> str:
    """The last line of the run's error, else the first sample error, else a plain statement."""
    message = log.error.message if log.error else ""
    if not message:
        message = next((s.error.message for s in log.samples or [] if s.error), "")
    if not message:
        return f"status {log.status}, {completed_samples(log)} samples completed"
    lines = [line for line in message.strip().splitlines() if line.strip()]
    reason = lines[-1] if lines else message
    return reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS] + "..."


def unfinished(logs: Sequence[EvalLog]) -> list[EvalLog]:
    """Runs that ended in error or completed no sample."""
    return [log for log in logs if log.status != "success" or not completed_samples(log)]


class RunFailed(GAAError):
    """A run ended in error or completed no sample."""


def check_completed(logs: Sequence[EvalLog]) -> None:
    """Raise :class:`RunFailed` naming the first run that ended in error or scored nothing."""
    failed = unfinished(logs)
    if failed:
        raise RunFailed(
            f"{len(failed)} run(s) did not complete ({failed[0].location}): "
            f"{failure_reason(failed[0])}"
        )
