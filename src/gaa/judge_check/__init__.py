"""``judge_check``: how well a judge configuration agrees with labelled consultations.

The task itself is ``from gaa.judge_check import judge_check`` (loaded on first use). It is not
exported from ``gaa`` itself: there ``gaa.judge_check`` is this package, whichever is imported
first.
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "judge_check":
        from gaa.judge_check.task import judge_check

        return judge_check
    raise AttributeError(f"module 'gaa.judge_check' has no attribute {name!r}")
