"""Helpers for task arguments given on the command line."""

from __future__ import annotations

from collections.abc import Iterable


def split_list(value: str | Iterable[str] | None) -> list[str]:
    """Normalise a ``-T`` value: Inspect passes ``a,b`` as a string or as a list; accept both."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]
