"""Finished records that Inspect may copy many times over.

When Inspect computes a scorer's metrics for a score with several values (``overall``,
``empathy``, ...), it deep-copies each sample's whole score, metadata included, once per value:
seven copies of every consultation's per-criterion record at the end of a run (and again each
time the live display refreshes its metrics). A record is complete once the score is made, and
nothing edits it afterwards, so :class:`FinishedRecord` deep-copies as itself. It is a ``dict``
in every other way: it serializes, logs and reads back as one.
"""

from __future__ import annotations

from typing import Any


class FinishedRecord(dict[str, Any]):
    """A complete record of plain data that is shared, not duplicated, by ``copy.deepcopy``."""

    def __deepcopy__(self, memo: dict[int, Any]) -> FinishedRecord:
        return self
