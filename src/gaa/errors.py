"""Errors GAA raises on bad input.

Each message says what was wrong, where, and what would be right.
"""

from __future__ import annotations

import sys
from typing import Any


# Under ``inspect eval`` (Inspect is imported before any task file), GAA errors are Inspect's
# prerequisite errors, which its command line prints as the message alone, without a
# traceback. Elsewhere (the ``gaa`` command, which prints them itself) they do not import
# Inspect: ``gaa --help`` starts in a fraction of the time.
def _message_error_base() -> type[Exception]:
    if "inspect_ai" in sys.modules:
        try:
            from inspect_ai._util.error import PrerequisiteError
        except ImportError:  # pragma: no cover - an Inspect without it prints a traceback
            return Exception
        return PrerequisiteError
    return Exception


_InspectMessageError: Any = _message_error_base()


class GAAError(_InspectMessageError):  # type: ignore[misc]
    """Base class of every error GAA raises on purpose; ``gaa`` and ``inspect eval`` print
    these as their message, without a traceback."""

    def __init__(self, message: object = "") -> None:
        Exception.__init__(self, message)
        self.message = str(message)


MAX_DESCRIPTION_CHARS = 400


def describe(exc: BaseException) -> str:
    """One line: ``Type: message`` (the type alone when the exception says nothing), led by the
    HTTP status and endpoint when the error came from an HTTP call (``openai``, ``httpx`` and
    LiteLLM errors carry them), so "404" says which server and path refused."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    text = " ".join(lines)
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[:MAX_DESCRIPTION_CHARS] + "..."
    described = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    endpoint = _http_endpoint(exc)
    return f"{endpoint}: {described}" if endpoint else described


def _http_endpoint(exc: BaseException) -> str:
    """``HTTP 404 from POST http://host/v1/responses`` when ``exc`` knows them, else ``""``."""
    status = getattr(exc, "status_code", None)
    response = getattr(exc, "response", None)
    if not isinstance(status, int):
        status = getattr(response, "status_code", None)
    request = getattr(exc, "request", None) or getattr(response, "request", None)
    try:
        method, url = getattr(request, "method", None), getattr(request, "url", None)
    except RuntimeError:  # httpx raises when a response has no request attached
        method, url = None, None
    parts = []
    if isinstance(status, int):
        parts.append(f"HTTP {status}")
    if url is not None:
        parts.append(f"from {method} {url}" if method else f"from {url}")
    return " ".join(parts)


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
