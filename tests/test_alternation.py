"""Grouping the alternatives that start with a word boundary changes no match: on every text the
project holds, the doctor's-own-advice pattern finds the same spans grouped as written plainly,
and so does every rule-file pattern that has such alternatives."""

from __future__ import annotations

import re

import pytest
from test_prefilter import _all_patterns, _texts

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
    assert stance._OWN_FRAME.pattern.count(r"\b(?:") >= 3
    assert len(top_level_alternatives(stance._OWN_FRAME.pattern)) == 5


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def test_grouped_patterns_find_what_the_plain_ones_find() -> None:
    plain = re.compile(stance._OWN_FRAME_PATTERN, stance._OWN_FRAME.flags)
    grouped = [(plain, stance._OWN_FRAME)]
    for pattern in _all_patterns():
        if (
            not pattern.flags & re.VERBOSE
            and (source := group_word_starts(pattern.pattern)) != pattern.pattern
        ):
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
