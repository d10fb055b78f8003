"""Which of many words a text holds, found in one scan.

The prefilter asks, for each rule and each sentence, which of the rule's required words the
sentence holds. Testing each word as a substring costs a scan of the sentence per word (over
1,500 words across the rule files). A :class:`Vocabulary` instead compiles its words into one
regular expression shaped as a trie (``(?:de(?:cid|lay)|...)``) inside a look-ahead, so one
pass over the text finds, at every position, the longest word starting there; the shorter
words starting there are its prefixes, read from a table. The answer is exactly the set of
words that occur as substrings (``tests/test_prefilter.py`` compares the two), remembered per
text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_Trie = dict[str, "_Trie"]
"""Each character leads to the rest; the key ``""`` marks a word's end."""
PRESENT_CACHE_SIZE = 1024
"""Texts remembered per vocabulary: a sentence is asked about by every rule that shares it, one
after another, so a short memory serves (each entry holds a set of words)."""


class Vocabulary:
    """Lowercase words, looked for together in lowercase texts."""

    def __init__(self, words: Iterable[str]) -> None:
        self.words = frozenset(word for word in words if word)
        self._scan = re.compile("(?=(" + _trie_pattern(self.words) + "))") if self.words else None
        self._prefixes = {word: self._words_starting(word) for word in self.words}
        self.present = lru_cache(maxsize=PRESENT_CACHE_SIZE)(self._present)

    def _words_starting(self, word: str) -> frozenset[str]:
        """The words ``word`` begins with, itself included."""
        return frozenset(word[:end] for end in range(1, len(word) + 1) if word[:end] in self.words)

    def _present(self, lowered: str) -> frozenset[str]:
        """The words that occur in ``lowered``."""
        if self._scan is None:
            return frozenset()
        longest = set(self._scan.findall(lowered))
        return frozenset().union(*map(self._prefixes.__getitem__, longest))


def _trie_pattern(words: frozenset[str]) -> str:
    """A pattern matching any of ``words``, the longest one where several start at a place
    (each step is greedy, and two branches of a node never start with the same character)."""
    trie: _Trie = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _node_pattern(trie)


def _node_pattern(node: _Trie) -> str:
    branches = [re.escape(char) + _node_pattern(child) for char, child in node.items() if char]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if "" in node else body
