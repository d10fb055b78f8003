"""Helpers for task arguments given on the command line."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable


def split_list(value: str | Iterable[str] | None) -> list[str]:
    """Normalise a ``-T`` value: Inspect passes ``a,b`` as a string or as a list; accept both."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]


HTTP_URL = re.compile(r"^https?://[^\s/]+(/\S*)?$")
"""An http(s) URL with a host and no whitespace (a remote agent's address)."""
MAX_ROUNDS_LIMIT = 20
"""More rounds than this is not a consultation (and costs minutes and memory a persona)."""
TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})


class ArgumentError(ValueError):
    """A task argument outside what the parameter allows; the message names both."""


def parse_bool(name: str, value: object) -> bool:
    """``true``/``false`` (also 1/0, yes/no, on/off), as Inspect passes ``-T`` values."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ArgumentError(f"{name} must be true or false (also 1/0, yes/no), not {value!r}")


def parse_optional_bool(name: str, value: object) -> bool | None:
    """Like :func:`parse_bool`, with ``auto`` (or nothing) for None."""
    if value is None or str(value).strip().lower() in ("auto", "none", ""):
        return None
    try:
        return parse_bool(name, value)
    except ArgumentError:
        raise ArgumentError(f"{name} must be auto, true or false, not {value!r}") from None


def parse_int(name: str, value: object, low: int, high: int) -> int:
    """A whole number in ``[low, high]`` (``1.7`` is refused, not rounded)."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and re.fullmatch(r"\+?[0-9]{1,9}", value.strip()):
        number = int(value.strip())
    if number is None or not low <= number <= high:
        raise ArgumentError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return number


def parse_float(name: str, value: object, low: float, high: float) -> float:
    """A finite number in ``[low, high]``."""
    try:
        number = float(value) if not isinstance(value, bool) else math.nan  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number) or not low <= number <= high:
        raise ArgumentError(f"{name} must be a number from {low:g} to {high:g}, not {value!r}")
    return number
