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
