"""A look-ahead of a pattern's start characters changes no match: every rule-file pattern finds
the same spans and groups with it as written, on the texts the prefilter test reads and on
them with letters that fold to ASCII under case-insensitive matching (long s, Kelvin sign,
dotted and dotless I); the prefilter reads the same required words from both."""

from __future__ import annotations

import re

import pytest
from test_prefilter import _all_patterns, _as_written, _texts

from gaa.evidence._prefilter import required_sets
from gaa.evidence._start_class import start_class, with_start_class

_FLAGS = re.IGNORECASE | re.MULTILINE


@pytest.mark.parametrize(
    ("pattern", "flags", "expected"),
    [
        (r"\b(?:reach\w*|gets? to|hits?)\b", _FLAGS, "[ghr]"),
        (r"(?<![\d.,])\b(?:0|zero|nil) ?%", _FLAGS, "[0nz]"),
        (r"\**\b(?:DECISION|WILLINGNESS)\b", _FLAGS, r"[\*DW]"),
        (r"\b(?:a |an )?(?:routine|minor)\b", _FLAGS, "[amr]"),
        (r"\b[xy]-?ray", _FLAGS, "[xy]"),
    ],
)
def test_the_class_holds_every_character_a_match_can_start_with(
    pattern: str, flags: int, expected: str
) -> None:
    assert start_class(re.compile(pattern, flags)) == expected


@pytest.mark.parametrize(
    ("pattern", "flags"),
    [
        (r"\b(?:a|b)?", _FLAGS),  # can match nothing
        (r"\b\w+ing\b", _FLAGS),  # any word character
        (r"\b[^.]{3} ok", _FLAGS),  # a negated class
        (r"\b[a-z]+ ok", _FLAGS),  # a range
        (r"\b.x", _FLAGS),  # any character
        (r"\b(?-i:A|B)", _FLAGS),  # other flags inside
        (r"999|911|112", _FLAGS),  # characters without case: re skips ahead itself
        (r"abc|abd", 0),  # case-sensitive letters: re skips ahead itself
        ("\\b(?:a|b) # c\n", _FLAGS | re.VERBOSE),
        (r"\b(?:" + "|".join("abcdefghijklmnopq") + ")", _FLAGS),  # too many characters
    ],
)
def test_patterns_without_a_sure_and_useful_class_are_left_as_they_are(
    pattern: str, flags: int
) -> None:
    compiled = re.compile(pattern, flags)
    assert start_class(compiled) is None
    assert with_start_class(compiled) is compiled


def test_leading_comments_and_flags_stay_in_front_and_groups_keep_their_numbers() -> None:
    marked = with_start_class(re.compile(r"(?#always)\b(?:no|not) (need)\b", _FLAGS))
    assert marked.pattern.startswith("(?#always)(?=[")
    found = marked.search("There is NOT need here")
    assert found is not None and found.group(1) == "need" and found.span() == (9, 17)
    flagged = with_start_class(re.compile(r"(?i)\bab|\bcd", re.MULTILINE))
    assert flagged.pattern.startswith("(?i)(?=[")
    assert flagged.findall("xx CD ab") == ["CD", "ab"]


def _folded_variants(text: str) -> list[str]:
    return [
        text,
        text.replace("s", "\u017f"),
        text.replace("k", "\u212a"),
        text.replace("i", "\u0131").replace("I", "\u0130"),
    ]


def test_every_rule_file_pattern_matches_the_same_with_its_class() -> None:
    patterns = [p for p in dict.fromkeys(_all_patterns()) if p is not _as_written(p)]
    assert len(patterns) > 300  # most rule-file patterns get a class
    texts = [v for t in _texts()[::6] for v in _folded_variants(t)]
    assert len(texts) > 1500
    found = 0
    for pattern in patterns:
        written = _as_written(pattern)
        for text in texts:
            ours = [(m.span(), m.groups()) for m in pattern.finditer(text)]
            theirs = [(m.span(), m.groups()) for m in written.finditer(text)]
            assert ours == theirs, (written.pattern, text)
            found += bool(ours)
    assert found > 1000  # the texts exercise the patterns, not only their misses


def test_the_prefilter_reads_the_same_words_with_the_class() -> None:
    changed = [p for p in dict.fromkeys(_all_patterns()) if p is not _as_written(p)]
    assert changed
    for pattern in changed:
        assert required_sets(pattern) == required_sets(_as_written(pattern)), pattern.pattern
