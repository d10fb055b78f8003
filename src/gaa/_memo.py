"""Remembering a computation per argument object, by identity."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")
IDENTITY_MEMO_SIZE = 4096


def by_identity(compute: Callable[[K], V]) -> Callable[[K], V]:
    """``compute`` remembered per argument object, looked up by identity.

    For objects that live as long as the process or the memo (the loaded rules' pattern
    tuples, the rubric, a deliberation's models): hashing a tuple of compiled patterns hashes
    every pattern's compiled code (about 15 microseconds for a rule of 48 patterns, on every
    call), and a pydantic model cannot be hashed at all, while a lookup by ``id`` is free. Each
    entry holds its key, so an ``id`` cannot be reused while it is remembered; a new tuple equal
    to a remembered one is computed afresh, which costs time, never correctness.
    """
    memo: dict[int, tuple[K, V]] = {}

    def remembered(key: K) -> V:
        entry = memo.get(id(key))
        if entry is not None and entry[0] is key:
            return entry[1]
        if len(memo) >= IDENTITY_MEMO_SIZE:
            memo.clear()
        value = compute(key)
        memo[id(key)] = (key, value)
        return value

    return remembered
