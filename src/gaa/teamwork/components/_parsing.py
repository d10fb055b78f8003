"""Readers for the values of leader and recruiter sections."""

from __future__ import annotations

from typing import Any

from gaa.teamwork.replies import ReplyError, parse_confidence


def text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ReplyError("expected a non-empty string")
    return value.strip()


def text_list(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ReplyError("expected a JSON list of strings")
    return [item.strip() for item in value if item.strip()]


def score(value: Any) -> float:
    number = parse_confidence(value)
    if number is None:
        raise ReplyError(f"expected a number from 0 to 1, got {value!r}")
    return number


def score_map(value: Any) -> dict[str, float]:
    if not isinstance(value, dict):
        raise ReplyError('expected an object such as {"member 1": 0.7}')
    return {str(key): score(item) for key, item in value.items()}
