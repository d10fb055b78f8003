"""Exceptions that end a sample on purpose: never retried, never turned into a fallback."""

from __future__ import annotations

from inspect_ai._util.exception import TerminateSampleError
from inspect_ai.util import LimitExceededError

SAMPLE_ENDING: tuple[type[BaseException], ...] = (LimitExceededError, TerminateSampleError)


def ends_sample(exc: BaseException) -> bool:
    """True for Inspect's sample limits and terminations, which must propagate."""
    return isinstance(exc, SAMPLE_ENDING)
