"""A look-ahead of a pattern's start characters changes no match: every rule-file pattern finds
the same spans and groups with it as written, on the texts the prefilter test reads and on
them with letters that fold to ASCII under case-insensitive matching (long s, Kelvin sign,
dotted and dotless I); the prefilter reads the same required words from both."""

from __future__ import annotations

import itertools
import re

import pytest
from test_prefilter import _all_patterns, _rule_file_sources, _texts

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
        (r"(a)?\1b", _FLAGS),  # a back-reference that can come first
        (r"(?=ab)", _FLAGS),  # only a look-around: matches nothing
        (r"(a)?(?(1)b|c)", _FLAGS),  # a conditional group
        (r"\b(?:\U00010400x|ab)", _FLAGS),  # a start character beyond the BMP
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
    escaped = re.compile(r"(?#x\)(a)foo", _FLAGS)  # "\)" does not end a comment
    moved = with_start_class(escaped)
    assert moved.groups == escaped.groups == 0
    assert [m.span() for m in moved.finditer("foo afoo")] == [(0, 3), (5, 8)]


def _folded_variants(text: str) -> list[str]:
    return [
        text,
        text.replace("s", "\u017f"),
        text.replace("k", "\u212a"),
        text.replace("i", "\u0131").replace("I", "\u0130"),
    ]


def _rule_file_patterns() -> list[tuple[re.Pattern[str], re.Pattern[str]]]:
    """The rule files' patterns as written and as loading writes them (only those it changes)."""
    loaded = ((written, with_start_class(written)) for written in _rule_file_sources())
    return [(written, ours) for written, ours in loaded if ours is not written]


def test_every_rule_file_pattern_matches_the_same_with_its_class() -> None:
    pairs = _rule_file_patterns()
    assert len(pairs) > 300  # most rule-file patterns get a class
    texts = [v for t in _texts()[::6] for v in _folded_variants(t)]
    assert len(texts) > 1500
    found = 0
    for written, loaded in pairs:
        for text in texts:
            ours = [(m.span(), m.groups()) for m in loaded.finditer(text)]
            theirs = [(m.span(), m.groups()) for m in written.finditer(text)]
            assert ours == theirs, (written.pattern, text)
            found += bool(ours)
    assert found > 1000  # the texts exercise the patterns, not only their misses


def test_loading_gives_the_rules_their_classes() -> None:
    loaded = {p.pattern for p in _all_patterns()}
    assert sum(ours.pattern in loaded for _, ours in _rule_file_patterns()) > 300


def test_the_prefilter_reads_the_same_words_with_the_class() -> None:
    for written, loaded in _rule_file_patterns():
        assert required_sets(loaded) == required_sets(written), written.pattern


_START_CHARACTERS = [
    "]",
    "\\",
    "^",
    "-",
    " ",
    "\t",
    "k",
    "K",
    "s",
    "\u017f",
    "\u212a",
    "\u0130",
    "\u0131",
    "\u03c3",
    "\u03c2",
    "\u03a3",
    "\u00df",
    "\u1e9e",
    "\u00b5",
    "\ufb01",
    "\U00010400",
    "\U00010428",
    "\U0001f600",
    "#",
    "[",
    ")",
]


@pytest.mark.parametrize("flags", [_FLAGS, _FLAGS | re.ASCII, re.MULTILINE])
def test_made_up_patterns_match_the_same_with_their_class(flags: int) -> None:
    """Start characters that need escaping in a class, that fold in unusual ways, or that lie
    beyond the Basic Multilingual Plane (where ``re`` folds a class member and a lone letter
    differently: such a pattern keeps no class)."""
    texts = [" ".join(pair) + " x" for pair in itertools.product(_START_CHARACTERS, repeat=2)]
    texts += [a + b + "yz" for a, b in itertools.product(_START_CHARACTERS, repeat=2)]
    changed = 0
    for first, second in itertools.combinations(_START_CHARACTERS, 2):
        source = rf"\b(?:{re.escape(first)}y?z?|{re.escape(second)}(x|yz))"
        written = re.compile(source, flags)
        loaded = with_start_class(written)
        changed += loaded is not written
        for text in texts:
            ours = [(m.span(), m.groups()) for m in loaded.finditer(text)]
            theirs = [(m.span(), m.groups()) for m in written.finditer(text)]
            assert ours == theirs, (source, text)
    assert changed > 100
