"""Alternations that ``re`` can screen quickly, written the same way.

Python's regular expression compiler takes a prefix out of an alternation only when every
alternative starts with it: ``\\bA|\\bB|\\bC`` tests the word boundary once at each place and
goes on to the alternatives only where it holds. One alternative without it (``^\\W*so:``)
leaves every alternative to be tried at every place in the text, and a pattern of thirty
alternatives then runs two to three times slower. :func:`group_word_starts` puts each run of
consecutive alternatives that start with ``\\b`` behind one ``\\b`` of its own. The alternatives
keep their order, so the same one matches at each place and every match is the same.

A comment group (``(?#...)``) or a verbose pattern can hide brackets and bars from the split, so
such a pattern is returned unchanged.
"""

from __future__ import annotations

import re

WORD_START = "\\b"


def top_level_alternatives(pattern: str) -> list[str]:
    """``pattern`` split at each ``|`` outside groups and character classes (a ``|`` that is
    escaped or inside brackets belongs to its alternative)."""
    parts: list[str] = []
    depth = 0
    in_class = False
    start = 0
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            i += 1
            if pattern[i : i + 1] == "^":
                i += 1
            if pattern[i : i + 1] == "]":  # a leading "]" is a literal in the class
                i += 1
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


def group_word_starts(pattern: str, flags: int = 0) -> str:
    """``pattern`` with each run of two or more consecutive top-level alternatives that start
    with ``\\b`` written as ``\\b(?:...)`` (see the module docstring); unchanged when it is
    verbose anywhere (``flags`` or an inline ``x``) or holds a comment group."""
    if flags & re.VERBOSE or "(?#" in pattern or re.search(r"\(\?[aiLmsux-]*x", pattern):
        return pattern
    grouped: list[str] = []
    run: list[str] = []

    def close_run() -> None:
        if len(run) > 1:
            grouped.append(WORD_START + "(?:" + "|".join(a[len(WORD_START) :] for a in run) + ")")
        else:
            grouped.extend(run)
        run.clear()

    for alternative in top_level_alternatives(pattern):
        if alternative.startswith(WORD_START):
            run.append(alternative)
        else:
            close_run()
            grouped.append(alternative)
    close_run()
    return "|".join(grouped)
