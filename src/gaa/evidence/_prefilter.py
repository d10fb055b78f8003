"""A literal prefilter for the rules' regular expressions.

Most safety patterns cannot match unless the text holds one of a few words ("decide", "today",
"guarantee"). :func:`required_words` reads them from the parsed pattern: a set of lowercase
strings at least one of which every match contains, or ``None`` when no such set is sure. A
substring test on the lowercased text is far cheaper than running the pattern, so a rule skips
every pattern whose words are all absent. The set is read conservatively (anything optional,
repeated zero times, in a look-around or a character class ends a word), so the prefilter never
changes a finding: it only skips searches that would fail.
"""

from __future__ import annotations

import re
from functools import lru_cache
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

MIN_WORD = 3
"""Shorter required strings ("a ", "to") are in nearly every sentence: no use as a filter."""
FOLDS_TO_ASCII = frozenset("\u017f\u212a\u0131\u0130")
"""Letters that match an ASCII letter under IGNORECASE but lowercase to something else (long s,
Kelvin sign, dotless and dotted I): text holding one is never prefiltered."""

Words = frozenset[str]
_REPEATS = tuple(
    getattr(sre, name)
    for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
    if hasattr(sre, name)
)


def _best(options: list[Words]) -> Words | None:
    """Of several sets each of which is required, the most selective (longest shortest word)."""
    usable = [o for o in options if o and min(len(w) for w in o) >= MIN_WORD]
    if not usable:
        return None
    return max(usable, key=lambda o: (min(len(w) for w in o), -len(o)))


def _sequence(items: list[tuple[Any, Any]]) -> Words | None:
    """A required set for a sequence of parsed items (one of its literal runs or groups)."""
    options: list[Words] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            options.append(frozenset({"".join(run).lower()}))
            run.clear()

    for op, arg in items:
        if op is sre.LITERAL:
            assert isinstance(arg, int)
            run.append(chr(arg))
            continue
        flush()
        found: Words | None = None
        if op is sre.SUBPATTERN:
            found = _sequence(list(arg[-1]))
        elif op is sre.BRANCH:
            branches = [_sequence(list(branch)) for branch in arg[1]]
            if all(b is not None for b in branches):
                found = frozenset().union(*(b for b in branches if b is not None))
        elif op in _REPEATS:
            low, _, body = arg
            if low >= 1:
                found = _sequence(list(body))
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            found = _sequence(list(arg))
        if found is not None:
            options.append(found)
    flush()
    return _best(options)


@lru_cache(maxsize=4096)
def required_words(pattern: re.Pattern[str]) -> Words | None:
    """Lowercase strings one of which every match of ``pattern`` contains, or ``None``."""
    if pattern.flags & re.VERBOSE:
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:
        return None
    found = _sequence(list(parsed))
    if found is None or any(not word.isascii() for word in found):
        return None
    return found


@lru_cache(maxsize=4096)
def _plan(
    patterns: tuple[re.Pattern[str], ...],
) -> tuple[tuple[re.Pattern[str], Words | None], ...]:
    return tuple((pattern, required_words(pattern)) for pattern in patterns)


def candidates(
    patterns: tuple[re.Pattern[str], ...], lowered: str | None
) -> tuple[re.Pattern[str], ...]:
    """The patterns, in order, that may match the text whose lowercase is ``lowered`` (all of
    them when it is ``None``: the text cannot be prefiltered)."""
    if lowered is None:
        return patterns
    contains = lowered.__contains__
    return tuple(
        pattern for pattern, words in _plan(patterns) if words is None or any(map(contains, words))
    )


def lowered_for_prefilter(text: str) -> str | None:
    """The text lowercased for :func:`candidates`, or ``None`` when it holds a letter whose
    case-insensitive match the lowercase would hide."""
    if not text.isascii() and any(char in FOLDS_TO_ASCII for char in text):
        return None
    return text.lower()
