"""Claim extraction: the checkable figures a doctor states, sentence by sentence.

A claim is a number or range with a unit, read the way clinicians say them:

- percentages: "30%", "2 to 8 percent", "between forty and seventy per cent";
- natural frequencies: "one in three", "1 out of 20", "40 to 70 in 100", "one person in five",
  "about 1 in every 200 people" (read as a percentage);
- fractions of people: "about half of", "a third to three quarters of";
- quantities of time or size: "3 to 5 days", "a fortnight"-free plain figures in hours, days,
  weeks, months, years, millimetres and centimetres, and rates ("2 to 4 mm a year",
  "1% per year");
- scan intervals: "every 12 months", "once a year".

Bounds words widen the figure: "under 1%" is [0, 1], "more than 1 cm" is [1, 10], "up to 6
weeks" is [0, 6]. Time spans that only qualify another figure ("alive *at five years*",
"died *within 30 days*") are not claims of their own, nor are ages and dates ("67 years old",
"3 weeks ago").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from gaa.evidence._prefilter import ASCII_FOLDS

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "a hundred": 100, "one hundred": 100, "hundred": 100,
    "a thousand": 1000, "one thousand": 1000, "thousand": 1000,
    "ten thousand": 10000, "a million": 1000000, "zero": 0, "nil": 0,
    "a centimetre": 1, "a centimeter": 1, "a millimetre": 1, "a millimeter": 1,
}  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_UNITS_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_DIGIT_WORDS = ("zero", *_UNITS_WORDS)
_POINT_WORDS = rf"(?:{'|'.join(_DIGIT_WORDS)}|ten) point (?:{'|'.join(_DIGIT_WORDS)})"
"""A decimal said in words: "two point six" (2.6), not "six"."""
_WORDS = sorted(
    [
        *_WORD_NUMBERS,
        *(f"{t}[- ]{u}" for t in _TENS for u in _UNITS_WORDS),
        *(f"{u} (?:hundred|thousand)" for u in _UNITS_WORDS[1:]),
        _POINT_WORDS,
    ],
    key=len,
    reverse=True,
)
NUMBER = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|\.\d+|" + "|".join(_WORDS) + r")"
_FIRST_WORDS = sorted(
    {w.split()[0] for w in _WORD_NUMBERS} | {*_TENS, *_DIGIT_WORDS, "ten"}, key=len, reverse=True
)
_NUMBER_START = re.compile(
    r"\b(?=\d|\.\d|(?:" + "|".join(_FIRST_WORDS) + r")\b)", re.IGNORECASE
)
"""Where a ``NUMBER`` can begin: a digit, a point before a digit, or the first word of a number
said in words (each is followed by a space, a hyphen or a word's end)."""
_NUM = r"\b" + NUMBER + r"\b"
_RANGE = _NUM + r"(?:\s*(?:-|\u2013|\u2014|to|and|or)\s*" + _NUM + r")?"
_BEFORE_UPPER = (
    r"less than|fewer than|lower than|under|below|at most|up to|no more than|not more than|"
    r"well under|well below|maximum of|max(?:imum)?|<"
)
_BEFORE_LOWER = r"more than|over|above|at least|greater than|upwards of|in excess of|>"
_BEFORE_NEAR = r"almost|nearly|just under|close to"
_BOUND = (
    r"(?:(?P<upper>"
    + _BEFORE_UPPER
    + r")|(?P<lower>"
    + _BEFORE_LOWER
    + r")|(?P<near>"
    + _BEFORE_NEAR
    + r"))\s+(?:about\s+|around\s+|roughly\s+|approximately\s+)?$"
)
_BOUND_BEFORE = re.compile(_BOUND, re.IGNORECASE)
_PER_YEAR = r"(?:\s*(?:a|per|each|every|/|in a)\s*(?:year|yr|annum)\b|\s+(?:yearly|annually)\b)"
_PERCENT = re.compile(
    _RANGE + r"\s*(?:%|percent\b|per cent\b|pc\b)(?P<rate>" + _PER_YEAR + r")?",
    re.IGNORECASE,
)
_PEOPLE = (
    r"(?:people|persons?|patients?|men|women|adults?|cases?|operations?|of (?:you|them|us|those|"
    r"these)|like you)"
)
_FREQUENCY = re.compile(
    _RANGE
    + r"\s+(?:" + _PEOPLE + r"\s+)?(?:in|out of|from)\s+(?:every\s+|each\s+|a\s+)?"
    + _NUM
    + r"(?:\s+" + _PEOPLE + r")?"
    + r"(?!\s*(?:%|percent|per cent|cm|mm|centimet|millimet|days?|weeks?|months?|years?|hours?))"
    + r"(?P<rate>" + _PER_YEAR + r")?",
    re.IGNORECASE,
)  # fmt: skip
_FRACTIONS = {
    "half": 50.0, "a half": 50.0, "one half": 50.0, "a third": 33.3, "one third": 33.3,
    "two thirds": 66.7, "a quarter": 25.0, "one quarter": 25.0, "three quarters": 75.0,
    "a fifth": 20.0, "one fifth": 20.0, "two fifths": 40.0, "a tenth": 10.0, "one tenth": 10.0,
}  # fmt: skip
_FRACTION = r"(" + "|".join(sorted(_FRACTIONS, key=len, reverse=True)).replace(" ", r"[\s-]") + r")"
_FRACTION_CLAIM = re.compile(
    r"(?<!\band )(?<!\bin )\b"
    + _FRACTION
    + r"(?:\s*(?:-|to|and|or)\s*"
    + _FRACTION
    + r")?\b(?=\s+(?:of (?:\w+ ){0,2}(?:them|those|people|patients|men|women|you|us|cases|"
    r"aneurysms|tumou?rs|smokers|everyone|all|each)\b|the|those|people|patients|men|women|will|go|"
    r"end|need|have|get|are|do))",
    re.IGNORECASE,
)
UNITS = {
    "hour": "hours", "hours": "hours", "hrs": "hours", "day": "days", "days": "days",
    "week": "weeks", "weeks": "weeks", "wk": "weeks", "wks": "weeks", "month": "months",
    "months": "months", "year": "years", "years": "years", "yr": "years", "yrs": "years",
    "cm": "cm", "centimetre": "cm", "centimetres": "cm", "centimeter": "cm", "centimeters": "cm",
    "mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
}  # fmt: skip
_QUANTITY = re.compile(
    _RANGE
    + r"[\s-]*("
    + "|".join(sorted(UNITS, key=len, reverse=True))
    + r")\b(?P<rate>"
    + _PER_YEAR
    + r")?(?P<after>\s+(?:old|ago|of age)\b|-old\b)?",
    re.IGNORECASE,
)
_INTERVAL = re.compile(
    r"\b(?:every|each|once an?|once every)\s+(?:" + NUMBER + r"\s+(day|week|month|year)s?|"
    r"()(month|year))\b",
    re.IGNORECASE,
)
_EVEN_CHANCE = re.compile(r"\b(?:50-50|fifty-fifty|50/50|fifty fifty)\b", re.IGNORECASE)
_HORIZON_BEFORE = re.compile(
    r"\b(?:at|within|over|by|in the (?:first|next|following)|for the (?:first|next)|after|in)\s+"
    r"(?:about\s+|around\s+|roughly\s+|the\s+)?$",
    re.IGNORECASE,
)
RATE_UNITS = {"cm": "cm_per_year", "mm": "mm_per_year", "percent": "percent_per_year"}


@dataclass(frozen=True)
class Claim:
    sentence: str
    low: float
    high: float
    unit: str
    quote: str


_FOLDED = str.maketrans(ASCII_FOLDS)
"""The letters beyond ASCII that the figure patterns (IGNORECASE) match as ASCII ones."""


def _lower(text: str) -> str:
    """Lowercase, with the letters the patterns read as ASCII read as ASCII ("days" written with
    a long s is "days"), so a matched word is always found in the tables."""
    return text.translate(_FOLDED).lower()


def number(text: str) -> float:
    """A figure written in digits or words ("1,000", "0.5", "forty-five", "a hundred")."""
    text = re.sub(r"\s+", " ", _lower(text).strip()).replace("-", " ")
    if text in _WORD_NUMBERS:
        return float(_WORD_NUMBERS[text])
    parts = text.split(" ")
    if len(parts) == 3 and parts[1] == "point" and parts[2] in _DIGIT_WORDS:
        return _WORD_NUMBERS.get(parts[0], 0) + _DIGIT_WORDS.index(parts[2]) / 10
    if len(parts) == 2 and parts[0] in _TENS and parts[1] in _UNITS_WORDS:
        return float(_WORD_NUMBERS[parts[0]] + _WORD_NUMBERS[parts[1]])
    if len(parts) == 2 and parts[0] in _UNITS_WORDS and parts[1] in ("hundred", "thousand"):
        return float(_WORD_NUMBERS[parts[0]] * _WORD_NUMBERS[parts[1]])
    return float(text.replace(",", ""))


def _fraction(text: str) -> float:
    return _FRACTIONS[re.sub(r"[\s-]+", " ", _lower(text))]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _bounded(
    sentence: str, start: int, low: float, high: float, ceiling: float
) -> tuple[float, float, int]:
    """Widen ``[low, high]`` by a bounds word just before the figure; the new start of the quote."""
    found = _BOUND_BEFORE.search(sentence[max(0, start - 40) : start])
    if not found:
        return low, high, start
    quote_start = max(0, start - 40) + found.start()
    if found.group("upper"):
        return 0.0, high, quote_start
    if found.group("lower"):
        return low, max(high, min(ceiling, 10.0 * low) if low else ceiling), quote_start
    return 0.85 * low, high, quote_start


class _Taken:
    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []

    def free(self, span: tuple[int, int]) -> bool:
        return all(span[1] <= a or span[0] >= b for a, b in self.spans)

    def take(self, span: tuple[int, int]) -> None:
        self.spans.append(span)


MAX_CLAIMS_PER_SENTENCE = 30
"""Figures beyond this in one sentence are not read: no real sentence has more, and a list of
hundreds would make checking them quadratic."""


def sentence_claims(sentence: str) -> list[Claim]:
    return list(_read_sentence(sentence)[0])


def qualifiers(sentence: str) -> list[str]:
    """The time spans in ``sentence`` read as qualifiers of another figure, not as claims."""
    return list(_read_sentence(sentence)[1])


def _at_starts(
    pattern: re.Pattern[str], sentence: str, starts: list[int]
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(sentence)`` for a pattern whose every match begins with a
    ``NUMBER`` at a word boundary, tried only where one can begin (``starts``, ascending): the
    leftmost match at or after the last one's end, as ``finditer`` finds it, without running
    the pattern's long alternation of number words at every word of the sentence."""
    position = 0
    for start in starts:
        if start < position:
            continue
        match = pattern.match(sentence, start)
        if match is not None:
            yield match
            position = max(match.end(), start + 1)


@lru_cache(maxsize=2048)
def _read_sentence(sentence: str) -> tuple[tuple[Claim, ...], tuple[str, ...]]:
    claims: list[Claim] = []
    skipped: list[str] = []
    taken = _Taken()
    proportions = 0

    def add(start: int, end: int, low: float, high: float, unit: str, ceiling: float) -> None:
        if len(claims) >= MAX_CLAIMS_PER_SENTENCE or not (
            math.isfinite(low) and math.isfinite(high)
        ):
            taken.take((start, end))
            return
        low, high = min(low, high), max(low, high)
        low, high, start = _bounded(sentence, start, low, high, ceiling)
        claims.append(Claim(sentence, low, high, unit, sentence[start:end].strip()))
        taken.take((start, end))

    starts = [found.start() for found in _NUMBER_START.finditer(sentence)]
    for match in _at_starts(_FREQUENCY, sentence, starts):
        count_low = number(match.group(1))
        count_high = number(match.group(2)) if match.group(2) else count_low
        count_low, count_high = min(count_low, count_high), max(count_low, count_high)
        total = number(match.group(3))
        if total <= 0 or count_high > total or not taken.free(match.span()):
            continue
        unit = "percent_per_year" if match.group("rate") else "percent"
        add(*match.span(), 100 * count_low / total, 100 * count_high / total, unit, 100.0)
        proportions += 1
    for match in _at_starts(_PERCENT, sentence, starts):
        if not taken.free(match.span()):
            continue
        low = number(match.group(1))
        high = number(match.group(2)) if match.group(2) else low
        unit = "percent_per_year" if match.group("rate") else "percent"
        add(*match.span(), low, high, unit, 100.0)
        proportions += 1
    for match in _FRACTION_CLAIM.finditer(sentence):
        if not taken.free(match.span()):
            continue
        low = _fraction(match.group(1))
        high = _fraction(match.group(2)) if match.group(2) else low
        add(*match.span(), low, high, "percent", 100.0)
        proportions += 1
    for match in _at_starts(_QUANTITY, sentence, starts):
        if not taken.free(match.span()) or match.group("after"):
            continue
        before = sentence[max(0, match.start() - 30) : match.start()]
        unit = UNITS[_lower(match.group(3))]
        adjective = "-" in match.group(0).strip()[-len(match.group(3)) - 1 :]
        if unit in ("hours", "days", "weeks", "months", "years") and (
            adjective  # "five-year survival", "30-day mortality"
            or (proportions and (unit == "years" or _HORIZON_BEFORE.search(before)))
        ):
            taken.take(match.span())  # "alive at five years": a qualifier, not a claim
            skipped.append(match.group(0).strip())
            continue
        low = number(match.group(1))
        high = number(match.group(2)) if match.group(2) else low
        if match.group("rate"):
            unit = RATE_UNITS.get(unit, unit)
        add(*match.span(), low, high, unit, 10.0 * max(high, 1.0))
    for match in _EVEN_CHANCE.finditer(sentence):
        if taken.free(match.span()):
            add(*match.span(), 50.0, 50.0, "percent", 100.0)
            proportions += 1
    for match in _INTERVAL.finditer(sentence):
        if not taken.free(match.span()):
            continue
        value = number(match.group(1)) if match.group(1) else 1.0
        unit = match.group(2) or match.group(4)
        add(*match.span(), value, value, UNITS[_lower(unit)], 10.0 * value)
    claims.sort(key=lambda claim: sentence.find(claim.quote))
    return tuple(claims), tuple(skipped)


def extract_claims(text: str) -> list[Claim]:
    return [claim for sentence in sentences(text) for claim in sentence_claims(sentence)]
