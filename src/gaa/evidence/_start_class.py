"""Patterns that reject a place in the text on its first character, written the same way.

Python's ``re`` searches a text by trying the pattern at every place. It skips ahead on its own
only when the pattern starts with literal text or a character class whose characters have no
case, so a case-insensitive pattern that starts with a word boundary and a list of words
(``\\b(?:reach\\w*|gets? to|hits?|...)``, as most of the rule files' patterns do) is tried in
full at every place: the boundary, then each word in turn. :func:`with_start_class` puts a
look-ahead of the characters a match can start with in front (``(?=[rgh...])(?:...)``), so a
place whose character starts no alternative is left after one test. The rule files' patterns
run about twice as fast this way.

The look-ahead holds every character any match can start with (read from the parsed pattern,
with the pattern's own flags, so case folding is the same), and the rest of the pattern is
unchanged inside a non-capturing group: every match, its groups and their numbers are the same.
A pattern is returned as it is when no such class is sure (a match could start with any
character, or with nothing), when the class would reject too few places to pay for itself,
or when ``re`` already skips ahead on it, and also when a start character lies beyond the Basic
Multilingual Plane (see :data:`MAX_CLASS_CODE`). Leading comment and flag groups stay in front,
so a pattern still starts with its ``(?#...)`` marker; the pattern written is kept only if it
parses as the look-ahead and then exactly the pattern it came from, with the same groups.
"""

from __future__ import annotations

import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

from gaa.evidence._prefilter import REPEATS

MAX_START_CHARACTERS = 16
"""A class of more characters (upper and lower case counted once) rejects too few places."""
_ZERO_WIDTH = frozenset({sre.AT, sre.ASSERT, sre.ASSERT_NOT})
_LEADING_GROUPS = re.compile(r"(?:\(\?#[^)\\]*\)|\(\?[aiLmsux]+\))*")
r"""Comment groups and global flag groups at a pattern's start (a comment holding a backslash
is left to the rest: ``\)`` does not end a comment)."""
MAX_CLASS_CODE = 0xFFFF
"""Python's ``re`` (3.11 at least) does not fold a case-insensitive class member beyond the
Basic Multilingual Plane the way it folds the same letter written alone (``(?i)[\U00010400a]``
misses the Deseret letter ``(?i)\U00010400`` matches): a start character beyond it leaves the
pattern as it is."""


class _NoClass(Exception):
    """No sure class of start characters."""


Item = tuple[Any, Any]


def _item_starts(op: Any, arg: Any) -> tuple[list[Item], bool]:
    """The class items one parsed item can start with, and whether it can match nothing."""
    if op is sre.LITERAL:
        return [(op, arg)], False
    if op is sre.IN:
        if any(kind is not sre.LITERAL for kind, _ in arg):
            raise _NoClass  # a range, a negated class or \d, \w, \s: too many characters
        return list(arg), False
    if op in _ZERO_WIDTH:
        return [], True
    if op is sre.SUBPATTERN:
        _, add_flags, del_flags, body = arg
        if add_flags or del_flags:
            raise _NoClass  # other flags inside: the class would not fold the same way
        return _sequence_starts(list(body))
    if op is sre.BRANCH:
        starts: list[Item] = []
        empty = False
        for branch in arg[1]:
            found, can_be_empty = _sequence_starts(list(branch))
            starts += found
            empty = empty or can_be_empty
        return starts, empty
    if op in REPEATS:
        low, _, body = arg
        found, can_be_empty = _sequence_starts(list(body))
        return found, can_be_empty or low == 0
    if op is getattr(sre, "ATOMIC_GROUP", None):
        return _sequence_starts(list(arg))
    raise _NoClass  # any character, a back-reference, a conditional group


def _sequence_starts(items: list[Item]) -> tuple[list[Item], bool]:
    starts: list[Item] = []
    for op, arg in items:
        found, can_be_empty = _item_starts(op, arg)
        starts += found
        if not can_be_empty:
            return starts, False
    return starts, True


def start_class(pattern: re.Pattern[str]) -> str | None:
    """A character class holding every character a match of ``pattern`` can start with, or
    ``None`` when :func:`with_start_class` should leave the pattern as it is."""
    if pattern.flags & re.VERBOSE:
        return None
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
        starts, can_be_empty = _sequence_starts(list(parsed))
    except (_NoClass, re.error, RecursionError):
        return None
    if can_be_empty or not starts:
        return None
    characters = {chr(code) for _, code in starts}
    if any(ord(c) > MAX_CLASS_CODE for c in characters):
        return None
    folded = {c.lower() for c in characters} if pattern.flags & re.IGNORECASE else characters
    if len(folded) > MAX_START_CHARACTERS:
        return None
    if not _tried_everywhere(parsed, characters, pattern.flags):
        return None
    return "[" + "".join(re.escape(c) for c in sorted(characters)) + "]"


def _tried_everywhere(parsed: Any, characters: set[str], flags: int) -> bool:
    """Whether ``re`` tries the pattern at every place: it skips ahead by itself when the
    pattern starts with characters that have no case (or any, matched case-sensitively)."""
    first = parsed[0][0]
    if first in _ZERO_WIDTH or first in REPEATS:
        return True
    if not flags & re.IGNORECASE:
        return False
    return any(c.lower() != c.upper() for c in characters)


def with_start_class(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` behind a look-ahead of its start characters (see the module's docstring),
    or ``pattern`` itself."""
    found = start_class(pattern)
    if found is None:
        return pattern
    source = pattern.pattern
    leading = _LEADING_GROUPS.match(source)
    end = leading.end() if leading else 0
    try:
        written = re.compile(f"{source[:end]}(?={found})(?:{source[end:]})", pattern.flags)
    except re.error:
        return pattern
    return written if _same_shape(written, pattern) else pattern


def _same_shape(written: re.Pattern[str], pattern: re.Pattern[str]) -> bool:
    """Whether ``written`` parses as a look-ahead and then exactly ``pattern``'s parse (a plain
    group around it may be kept or dissolved by the parser): a split that cut a leading group
    would show here."""
    if (written.groups, written.groupindex) != (pattern.groups, pattern.groupindex):
        return False
    items = list(sre_parse.parse(written.pattern, written.flags))
    if not items or items[0][0] is not sre.ASSERT or items[0][1][0] != 1:
        return False
    rest = items[1:]
    readings = [_tree(rest)]
    if len(rest) == 1 and rest[0][0] is sre.SUBPATTERN:
        group, add_flags, del_flags, body = rest[0][1]
        if group is None and not add_flags and not del_flags:
            readings.append(_tree(body))
    return _tree(sre_parse.parse(pattern.pattern, pattern.flags)) in readings


def _tree(node: Any) -> Any:
    """A parse tree as nested tuples, to compare."""
    if isinstance(node, sre_parse.SubPattern):
        return tuple(_tree(item) for item in node.data)
    if isinstance(node, list | tuple):
        return tuple(_tree(item) for item in node)
    return node
