"""Errors GAA raises on bad input.

Each message says what was wrong, where, and what would be right.
"""

from __future__ import annotations

try:  # Inspect prints these as their message alone, without a traceback
    from inspect_ai._util.error import PrerequisiteError as _InspectMessageError
except ImportError:  # pragma: no cover - an Inspect without it prints a traceback instead
    _InspectMessageError = Exception  # type: ignore[assignment,misc]


class GAAError(_InspectMessageError):
    """Base class of every error GAA raises on purpose; ``gaa`` and ``inspect eval`` print
    these as their message, without a traceback."""

    def __init__(self, message: object = "") -> None:
        Exception.__init__(self, message)
        self.message = str(message)


def describe(exc: BaseException) -> str:
    """``Type: message``, or the type alone when the exception says nothing."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class PluginError(GAAError):
    """A plugin failed to import, registered something invalid, or implements an unknown hook."""


class RegistryError(GAAError, LookupError):
    """A name did not resolve to exactly one registered item."""


class CaseDataError(GAAError, ValueError):
    """A medical case file is missing or malformed."""


class PersonaError(GAAError, ValueError):
    """A persona id or pattern is invalid or selects nothing."""


class PromptLibraryError(GAAError, FileNotFoundError):
    """A prompt file the benchmark needs is missing."""


class UnusableReply(GAAError):
    """A doctor answered, but its reply cannot be used (too large, say); it is asked again
    once, like an empty reply, and the sample fails if the second reply is unusable too."""


class A2AError(GAAError):
    """A remote A2A agent could not be reached, or answered outside the protocol."""
