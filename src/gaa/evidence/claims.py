"""Claim extraction: the checkable figures a doctor states, sentence by sentence.

A claim is a number or range with a unit: a percentage ("30%", "2 to 8 percent"), a frequency
("one in three", "1 out of 20", read as a percentage), or a quantity of days, weeks, months,
years, hours, centimetres or millimetres.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twenty": 20, "fifty": 50, "a hundred": 100, "hundred": 100,
    "a thousand": 1000, "thousand": 1000,
}  # fmt: skip
_NUMBER = (
    r"\b(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|"
    + "|".join(sorted(_WORD_NUMBERS, key=len, reverse=True))
    + r")\b"
)
_RANGE = _NUMBER + r"(?:\s*(?:-|\u2013|to|and)\s*" + _NUMBER + r")?"
_PERCENT = re.compile(_RANGE + r"\s*(?:%|percent\b|per cent\b)", re.IGNORECASE)
_FREQUENCY = re.compile(
    _NUMBER + r"\s+(?:in|out of)\s+(?:every\s+)?" + _NUMBER + r"\b", re.IGNORECASE
)
_UNITS = {
    "day": "days", "days": "days", "week": "weeks", "weeks": "weeks", "month": "months",
    "months": "months", "year": "years", "years": "years", "hour": "hours", "hours": "hours",
    "cm": "cm", "centimetres": "cm", "centimeters": "cm", "mm": "mm", "millimetres": "mm",
    "millimeters": "mm",
}  # fmt: skip
_QUANTITY = re.compile(_RANGE + r"[\s-]*(" + "|".join(_UNITS) + r")\b", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    sentence: str
    low: float
    high: float
    unit: str
    quote: str


def _number(text: str) -> float:
    text = text.lower()
    return float(_WORD_NUMBERS[text]) if text in _WORD_NUMBERS else float(text.replace(",", ""))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def extract_claims(text: str) -> list[Claim]:
    claims: list[Claim] = []
    for sentence in sentences(text):
        taken: list[tuple[int, int]] = []

        def free(span: tuple[int, int], taken: list[tuple[int, int]] = taken) -> bool:
            return all(span[1] <= a or span[0] >= b for a, b in taken)

        for match in _FREQUENCY.finditer(sentence):
            count, total = _number(match.group(1)), _number(match.group(2))
            if total > 0 and count <= total and free(match.span()):
                value = 100.0 * count / total
                claims.append(Claim(sentence, value, value, "percent", match.group(0)))
                taken.append(match.span())
        for match in _PERCENT.finditer(sentence):
            if free(match.span()):
                low = _number(match.group(1))
                high = _number(match.group(2)) if match.group(2) else low
                claims.append(
                    Claim(sentence, min(low, high), max(low, high), "percent", match.group(0))
                )
                taken.append(match.span())
        for match in _QUANTITY.finditer(sentence):
            if free(match.span()) and match.group(1)[0].isdigit() and "," not in match.group(1):
                low = _number(match.group(1))
                high = _number(match.group(2)) if match.group(2) else low
                unit = _UNITS[match.group(3).lower()]
                claims.append(Claim(sentence, min(low, high), max(low, high), unit, match.group(0)))
                taken.append(match.span())
    return claims
