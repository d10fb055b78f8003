"""Grouping the alternatives that start with a word boundary changes no match: on the texts the
prefilter test reads (attack suites, validator corpora, labelled consultations), the doctor's
own-advice pattern finds the same spans grouped as written plainly, and so does every rule-file
pattern that has such alternatives; parsed, it holds the same alternatives in the same order."""

from __future__ import annotations

import re

import pytest
from test_prefilter import _rule_file_sources, _texts

from gaa.evidence import stance
from gaa.evidence._alternation import group_word_starts, top_level_alternatives


@pytest.mark.parametrize(
    ("pattern", "alternatives"),
    [
        (r"a|(b|c)|d", ["a", "(b|c)", "d"]),
        (r"[|]|\||x", ["[|]", r"\|", "x"]),
        (r"[]|]|x", ["[]|]", "x"]),
        (r"[^]|]|y", ["[^]|]", "y"]),
        (r"[\]|]|z", [r"[\]|]", "z"]),
        (r"(?:a|b)(?=c|d)|e", ["(?:a|b)(?=c|d)", "e"]),
        (r"\\b|\bq", [r"\\b", r"\bq"]),
        ("", [""]),
    ],
)
def test_alternatives_split_only_at_the_top_level(pattern: str, alternatives: list[str]) -> None:
    assert top_level_alternatives(pattern) == alternatives
    assert "|".join(alternatives) == pattern


def test_runs_of_word_start_alternatives_go_behind_one_word_start() -> None:
    assert group_word_starts(r"\bA|\bB|^C|\bD|\bE|\bF") == r"\b(?:A|B)|^C|\b(?:D|E|F)"
    assert group_word_starts(r"\bA|^C") == r"\bA|^C"  # a run of one is left as it is
    assert group_word_starts(r"\\bA|\\bB") == r"\\bA|\\bB"  # an escaped backslash, then "b"
    assert len(top_level_alternatives(stance._OWN_FRAME.pattern)) == 5  # 32 written plainly


@pytest.mark.parametrize(
    ("pattern", "flags"),
    [
        (r"\bA|\bq(?#()|y", 0),  # a comment group hides a bracket from the split
        ("\\bA|\\bB # )\n|x|\\bC", re.VERBOSE),
        ("(?x)\\bA|\\bB # )\n|x", 0),
        ("\\bA|\\bB|(?x: c # )\n)|\\bD", 0),
    ],
)
def test_patterns_the_split_cannot_read_are_left_as_they_are(pattern: str, flags: int) -> None:
    assert group_word_starts(pattern, flags) == pattern


@pytest.mark.parametrize(
    ("pattern", "text", "span"),
    [
        (r"\ba|\bab|^c", "ab", (0, 1)),
        (r"\bab|\ba|^c", "ab", (0, 2)),
        (r"^c|\bc|\bcd", "cd", (0, 1)),
    ],
)
def test_the_first_alternative_that_matches_still_wins(
    pattern: str, text: str, span: tuple[int, int]
) -> None:
    grouped = group_word_starts(pattern)
    assert grouped != pattern
    assert re.search(pattern, text).span() == re.search(grouped, text).span() == span  # type: ignore[union-attr]


def test_the_own_advice_pattern_reads_the_same_alternatives_in_order() -> None:
    """Parsed, the grouped pattern holds the plain one's 32 alternatives, in their order."""
    from re import _constants, _parser  # type: ignore[attr-defined]

    boundary = (_constants.AT, _constants.AT_BOUNDARY)

    def alternatives(pattern: str) -> list[str]:
        [(op, (_, branches))] = _parser.parse(pattern, stance._OWN_FRAME.flags).data
        assert op is _constants.BRANCH
        found = []
        for branch in branches:
            items = list(branch.data)
            if len(items) == 2 and items[0] == boundary and items[1][0] is _constants.BRANCH:
                found += [repr([boundary, *inner.data]) for inner in items[1][1][1]]
            else:
                found.append(repr(items))
        return found

    plain = alternatives(stance._OWN_FRAME_PATTERN)
    assert len(plain) == 32 and alternatives(stance._OWN_FRAME.pattern) == plain


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def test_grouped_patterns_find_what_the_plain_ones_find() -> None:
    plain = re.compile(stance._OWN_FRAME_PATTERN, stance._OWN_FRAME.flags)
    grouped = [(plain, stance._OWN_FRAME)]
    for pattern in _rule_file_sources():
        if (source := group_word_starts(pattern.pattern, pattern.flags)) != pattern.pattern:
            grouped.append((pattern, re.compile(source, pattern.flags)))
    texts = _texts()
    assert len(texts) > 500 and len(grouped) > 5
    found = 0
    for text in texts:
        for before, after in grouped:
            spans = _spans(before, text)
            assert _spans(after, text) == spans, (before.pattern[:80], text)
            found += bool(spans)
    assert found > 100  # the texts exercise the patterns, not only their misses
