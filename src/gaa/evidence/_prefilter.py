"""A literal prefilter for the rules' regular expressions.

Most safety patterns cannot match unless the text holds one of a few words ("decide", "today",
"guarantee"). :func:`required_words` reads them from the parsed pattern: a set of lowercase
strings at least one of which every match contains, or ``None`` when no such set is sure. A
substring test on the lowercased text is far cheaper than running the pattern, so a rule skips
every pattern whose words are all absent. A pattern of several required parts ("guarantee ...
cured") has a set per part (:func:`required_sets`) and is skipped where any part's words are
all absent. The sets are read conservatively (anything optional, repeated zero times, in a
look-around or a character class ends a word), so the prefilter never changes a finding: it
only skips searches that would fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from gaa._memo import by_identity
from gaa.evidence._vocabulary import Vocabulary

MIN_WORD = 3
"""Shorter required strings ("a ", "to") are in nearly every sentence: no use as a filter."""
MIN_PART_WORD = 4
"""The shortest word of a pattern's further required part (after its most selective one)."""
ASCII_FOLDS = {"\u017f": "s", "\u212a": "k", "\u0131": "i", "\u0130": "i"}
"""The letters beyond ASCII that match an ASCII letter under IGNORECASE (long s, Kelvin sign,
dotless and dotted I; Python maps no other), each with the ASCII letter it matches."""
FOLDS_TO_ASCII = frozenset(ASCII_FOLDS)
"""They lowercase to something else than what they match: text holding one is never
prefiltered."""

Words = frozenset[str]
CANDIDATES_CACHE_SIZE = 256
"""Sets of a plan's words found together, remembered per plan with the patterns they let run:
a sentence holds few of a plan's words, so the same few sets come again and again (94% of the
time on the project's test sentences). An entry takes about 500 bytes, so at most about 5 MB
for the rule files' 38 plans."""
REPEATS = tuple(
    getattr(sre, name)
    for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
    if hasattr(sre, name)
)
"""The parser's repeat operators (possessive ones from Python 3.11 on)."""


RARE_SYMBOLS = frozenset("_{}[]<>=|#@$^~`\\")
"""Characters prose seldom holds (unlike ``%``, ``/``, ``*`` or ``:``): a required word made
only of them rules out most texts however short it is (``[[``, ``_``, ``=``)."""


def _rules_out_prose(word: str) -> bool:
    """Whether ``word`` is worth testing whatever its length: a word beyond ASCII is never in
    an ASCII text (see :func:`required_words`), and one of :data:`RARE_SYMBOLS` seldom is."""
    return not word.isascii() or all(char in RARE_SYMBOLS for char in word)


def _usable(options: list[Words]) -> list[Words]:
    """The sets worth testing: none of their words shorter than :data:`MIN_WORD`, except words
    that rule out prose whatever their length (:func:`_rules_out_prose`)."""
    return [
        o for o in options if o and all(len(w) >= MIN_WORD or _rules_out_prose(w) for w in o)
    ]


def _selectivity(words: Words) -> tuple[int, int]:
    """How selective a required set is: its shortest word's length, then fewer words."""
    return min(len(w) for w in words), -len(words)


def _best(options: list[Words]) -> Words | None:
    """Of several sets each of which is required, the most selective (longest shortest word)."""
    usable = _usable(options)
    if not usable:
        return None
    return max(usable, key=_selectivity)


def _sequence(items: list[tuple[Any, Any]]) -> Words | None:
    """A required set for a sequence of parsed items (one of its literal runs or groups)."""
    return _best(_options(items))


def _options(items: list[tuple[Any, Any]]) -> list[Words]:
    """The required sets of a sequence's items: every match holds a word of each."""
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
        elif op in REPEATS:
            low, _, body = arg
            if low >= 1:
                found = _sequence(list(body))
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            found = _sequence(list(arg))
        if found is not None:
            options.append(found)
    flush()
    return options


@lru_cache(maxsize=4096)
def required_words(pattern: re.Pattern[str]) -> Words | None:
    """Lowercase strings one of which every match of ``pattern`` contains, or ``None``.

    A word with a letter beyond ASCII ("prüfer", "аудитор") is matched only by letters beyond
    ASCII (Python's IGNORECASE maps no other such letter to an ASCII one), so it can be in an
    ASCII text never and is looked for only in texts that are not ASCII (see :class:`_Plan`).
    """
    sets = required_sets(pattern)
    return sets[0] if sets else None


@lru_cache(maxsize=4096)
def required_sets(pattern: re.Pattern[str]) -> tuple[Words, ...]:
    """Every set of lowercase strings of which each match of ``pattern`` contains one (one set
    per required part of the pattern: "if you ... refuse" needs "if you" and "refus"), most
    selective first; empty when no set is sure (see :func:`required_words`)."""
    if pattern.flags & re.VERBOSE:
        return ()
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:
        return ()
    usable = sorted(_usable(_options(_unwrapped(list(parsed)))), key=_selectivity)
    if not usable:
        return ()
    *rest, best = usable
    # a part whose words are as common as "you" rules out no text: it would only slow the scan
    return (best, *(o for o in reversed(rest) if min(len(w) for w in o) >= MIN_PART_WORD))


def _unwrapped(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """A pattern's items, read through leading look-arounds and one plain group around the rest
    (``(?=[rg])(?:A B)``, as :mod:`gaa.evidence._start_class` writes a pattern): every part of
    that group is required, so each can be a required set, as written without the group."""
    rest = list(items)
    while rest and rest[0][0] is sre.ASSERT:
        rest.pop(0)
    if len(rest) == 1 and rest[0][0] is sre.SUBPATTERN:
        group, add_flags, del_flags, body = rest[0][1]
        if group is None and not add_flags and not del_flags:
            return _unwrapped(list(body))
    return items


_Need = tuple[Words, bool]
"""A part a pattern needs: its ASCII words, and whether it has a word beyond ASCII."""


class _Plan:
    """A tuple of patterns with the words each needs, and every such word once.

    Each pattern has a need per required part, the most selective first: its ASCII words and
    whether it also has a word beyond ASCII (then any text that is not ASCII may meet it). A
    pattern is a candidate only where every need is met; one with none (nothing sure) always
    is.
    """

    def __init__(self, patterns: tuple[re.Pattern[str], ...]) -> None:
        self.patterns = patterns
        self.needs: tuple[tuple[re.Pattern[str], tuple[_Need, ...]], ...] = tuple(
            (pattern, tuple(_split(words) for words in required_sets(pattern)))
            for pattern in patterns
        )
        self.words = tuple(
            sorted({word for _, needs in self.needs for words, _ in needs for word in words})
        )
        self.word_set = frozenset(self.words)
        self.unfiltered = not any(needs for _, needs in self.needs)
        self._candidates = lru_cache(maxsize=CANDIDATES_CACHE_SIZE)(self._candidates_for)
        self.vocabulary: Vocabulary | None = None
        """Shared with other plans of the same rule file (:func:`share_vocabulary`)."""

    def candidates(self, lowered: str) -> tuple[re.Pattern[str], ...]:
        if self.unfiltered:
            return self.patterns
        if self.vocabulary is not None:
            present: Words = self.vocabulary.present(lowered) & self.word_set
        else:
            present = frozenset(filter(lowered.__contains__, self.words))  # each word once
        return self._candidates(present, not lowered.isascii())

    def _candidates_for(self, present: Words, beyond_ascii: bool) -> tuple[re.Pattern[str], ...]:
        """The patterns whose needs the plan's words ``present`` meet (remembered per plan:
        see :data:`CANDIDATES_CACHE_SIZE`)."""
        return tuple(
            pattern
            for pattern, needs in self.needs
            if all(
                (foreign and beyond_ascii) or not words.isdisjoint(present)
                for words, foreign in needs
            )
        )


def _split(words: Words) -> tuple[Words, bool]:
    """The ASCII words of a need, and whether it has a word beyond ASCII."""
    return frozenset(word for word in words if word.isascii()), not all(
        word.isascii() for word in words
    )


_plan = by_identity(_Plan)


MAX_SHARED_WORD = 200
"""Longer required words keep their plans on substring tests (the trie's nesting follows a
word's length; the longest word the rule files need has 34 characters)."""


def share_vocabulary(pattern_sets: Iterable[tuple[re.Pattern[str], ...]]) -> None:
    """Let these pattern tuples (a rule file's) find their words in a text in one scan, shared
    and remembered per text (see :mod:`gaa.evidence._vocabulary`). One vocabulary for every
    file would scan a text once instead of once per file, but its larger answers, remembered
    per text, raised the peak memory of 640 offline consultations by about 65 MB."""
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
