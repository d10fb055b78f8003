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
from collections.abc import Iterable, Set
from functools import lru_cache
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from gaa._memo import by_identity
from gaa.evidence._vocabulary import Vocabulary

MIN_WORD = 3
"""Shorter required strings ("a ", "to") are in nearly every sentence: no use as a filter."""
ASCII_FOLDS = {"\u017f": "s", "\u212a": "k", "\u0131": "i", "\u0130": "i"}
"""The letters beyond ASCII that match an ASCII letter under IGNORECASE (long s, Kelvin sign,
dotless and dotted I; Python maps no other), each with the ASCII letter it matches."""
FOLDS_TO_ASCII = frozenset(ASCII_FOLDS)
"""They lowercase to something else than what they match: text holding one is never
prefiltered."""

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
        # a letter that matches an ASCII letter under IGNORECASE (long s, Kelvin sign, dotted
        # and dotless I) makes the run no sure word
        if run and not FOLDS_TO_ASCII.intersection(run):
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
    """Lowercase strings one of which every match of ``pattern`` contains, or ``None``.

    A word with a letter beyond ASCII ("prüfer", "аудитор") is matched only by letters beyond
    ASCII (Python's IGNORECASE maps no other such letter to an ASCII one), so it can be in an
    ASCII text never and is looked for only in texts that are not ASCII (see :class:`_Plan`).
    """
    if pattern.flags & re.VERBOSE:
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:
        return None
    return _sequence(list(parsed))


class _Plan:
    """A tuple of patterns with the words each needs, and every such word once.

    Each pattern's need is ``None`` (nothing sure: always a candidate), or its ASCII words and
    whether it also has a word beyond ASCII (then any text that is not ASCII may match it).
    """

    def __init__(self, patterns: tuple[re.Pattern[str], ...]) -> None:
        self.patterns = patterns
        self.needs: tuple[tuple[re.Pattern[str], Words | None, bool], ...] = tuple(
            (pattern, *_split(required_words(pattern))) for pattern in patterns
        )
        self.words = tuple(sorted({word for _, words, _ in self.needs for word in words or ()}))
        self.unfiltered = all(words is None for _, words, _ in self.needs)
        self.vocabulary: Vocabulary | None = None
        """Shared with other plans of the same rule file (:func:`share_vocabulary`)."""

    def candidates(self, lowered: str) -> tuple[re.Pattern[str], ...]:
        if self.unfiltered:
            return self.patterns
        if self.vocabulary is not None:
            present: Set[str] = self.vocabulary.present(lowered)
        else:
            present = set(filter(lowered.__contains__, self.words))  # each word looked for once
        beyond_ascii = not lowered.isascii()
        return tuple(
            pattern
            for pattern, words, foreign in self.needs
            if words is None or (foreign and beyond_ascii) or not words.isdisjoint(present)
        )


def _split(words: Words | None) -> tuple[Words | None, bool]:
    """The ASCII words of a need, and whether it has a word beyond ASCII."""
    if words is None:
        return None, False
    return frozenset(word for word in words if word.isascii()), not all(
        word.isascii() for word in words
    )


_plan = by_identity(_Plan)


MAX_SHARED_WORD = 200
"""Longer required words keep their plans on substring tests (the trie's nesting follows a
word's length; the longest word the rule files need has 34 characters)."""


def share_vocabulary(pattern_sets: Iterable[tuple[re.Pattern[str], ...]]) -> None:
    """Let these pattern tuples (a rule file's) find their words in a text in one scan, shared
    and remembered per text (see :mod:`gaa.evidence._vocabulary`)."""
    plans = [_plan(patterns) for patterns in pattern_sets]
    words = {word for plan in plans for word in plan.words}
    if any(len(word) > MAX_SHARED_WORD for word in words):
        return  # a trie that deep would overflow the pattern compiler: test words one by one
    vocabulary = Vocabulary(words)
    for plan in plans:
        plan.vocabulary = vocabulary


def candidates(
    patterns: tuple[re.Pattern[str], ...], lowered: str | None
) -> tuple[re.Pattern[str], ...]:
    """The patterns, in order, that may match the text whose lowercase is ``lowered`` (all of
    them when it is ``None``: the text cannot be prefiltered)."""
    if lowered is None:
        return patterns
    return _plan(patterns).candidates(lowered)


def lowered_for_prefilter(text: str) -> str | None:
    """The text lowercased for :func:`candidates`, or ``None`` when it holds a letter whose
    case-insensitive match the lowercase would hide."""
    if not text.isascii() and any(char in FOLDS_TO_ASCII for char in text):
        return None
    return text.lower()
