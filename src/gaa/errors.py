"""Errors GAA raises on bad input.

Each message says what was wrong, where, and what would be right.
"""

from __future__ import annotations


class GAAError(Exception):
    """Base class of every error GAA raises on purpose; the CLI prints these as one line."""


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
